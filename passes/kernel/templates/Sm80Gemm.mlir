// The sm_80 GEMM template: C[M, N] = A[M, K] x B[K, N], {IN} operands (f16, bf16)
// accumulated in f32 by mma.sync m16n8k16, {OUT} result, B and C row major. Runs on sm_80
// and later (Hopper too). A CTA of {THREADS} threads computes {TILE_M}x{TILE_N} tiles of C,
// {WARPS_M}x{WARPS_N} warps of {WARP_M}x{WARP_N} each ({MT} x {NT} m16n8 accumulator
// fragments a warp). k-tiles of {TILE_K} stream through a {STAGES}-stage ring of shared
// memory filled by 16-byte cp.async copies, zero-filled (src-size 0) outside A and B; the
// fragments come from the ring by ldmatrix (.trans for the row-major B). The ring's rows
// are padded by 16 bytes, so that the 8 rows an ldmatrix phase reads fall in distinct
// banks. The ABI, shared-memory map and pipeline: docs/codegen-sm80.md.
//
// Two passes instantiate it (passes/kernel/Sm80Template.h): sm80_gemm, where A is
// a row-major M x K matrix, and sm80_conv, where A is the implicit im2col matrix of
// an NHWC convolution gathered from the input. What differs is given as snippets
// (placeholders in braces; written without them here so that comments stay comments):
//   A_EXTENT   defines %aExtent, the elements of the buffer %A points to
//   A_ADDRESS  from %arow (A's row, maybe past M) and %acol (A's first column of an
//              8-element chunk, maybe past K), defines %aOk (i1: the chunk lies inside A)
//              and %aIndex (the chunk's first element in %A, read only when %aOk)
// and the types and configuration: MODULE, ENTRY, IN, OUT, TILE_M, TILE_N, TILE_K, STAGES,
// WAIT (STAGES - 2), THREADS, WARPS_M, WARPS_N, WARP_M, WARP_N, MT (WARP_M / 16), NT
// (WARP_N / 8), NP (WARP_N / 16), KS (TILE_K / 16), A_STRIDE (TILE_K + 8) and B_STRIDE
// (TILE_N + 8), the padded rows of the ring in elements, A_CPR (TILE_K / 8) and B_CPR
// (TILE_N / 8), the 16-byte chunks of a row, A_CHUNKS and B_CHUNKS, the copies of a stage
// per thread, B_OFF, the bytes of the A ring, STAGED_COLUMNS (TILE_N + 8), ROW_LANES
// (min(32, TILE_N / 4)), MIN_CTAS, STORE_ALIGNMENT, and the fused epilogue's
// EPILOGUE_PARAMETERS, EPILOGUE, CONVERT, STORED (passes/kernel/Sm90Epilogue.h).
// The pass unrolls every scf.for marked `unroll`.

!smem = memref<?xi8, #gpu.address_space<workgroup>>
!ringA = memref<{STAGES}x{TILE_M}x{A_STRIDE}x{IN}, #gpu.address_space<workgroup>>
!ringB = memref<{STAGES}x{TILE_K}x{B_STRIDE}x{IN}, #gpu.address_space<workgroup>>
!staged = memref<{TILE_M}x{STAGED_COLUMNS}xf32, #gpu.address_space<workgroup>>
!gvec = memref<?x{IN}>
!acc = vector<{MT}x{NT}x2x2xf32>
!afrag = vector<{MT}x4x2x{IN}>
!bfrag = vector<{NT}x2x2x{IN}>

gpu.module @{MODULE} {

  // Grid (ceil(M / {TILE_M}) * ceil(N / {TILE_N}), 1, 1), block ({THREADS}, 1, 1), dynamic
  // shared memory max(ring, staging). %A, %B, %C are bare pointers; N and K are multiples
  // of 8 (16-byte chunks never straddle a row), M is anything.
  gpu.func @{ENTRY}(%A: memref<{IN}>, %B: memref<{IN}>, %C: memref<{OUT}>,
                    %M: i32, %N: i32, %K: i32{EPILOGUE_PARAMETERS})
      kernel attributes {known_block_size = array<i32: {THREADS}, 1, 1>,
                         nvvm.minctasm = {MIN_CTAS} : i32} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %cTileM = arith.constant {TILE_M} : index
    %cTileN = arith.constant {TILE_N} : index
    %cTileK = arith.constant {TILE_K} : index
    %cStages = arith.constant {STAGES} : index
    %cThreads = arith.constant {THREADS} : index
    %cWarpsN = arith.constant {WARPS_N} : index
    %cWarpM = arith.constant {WARP_M} : index
    %cWarpN = arith.constant {WARP_N} : index
    %cMT = arith.constant {MT} : index
    %cNP = arith.constant {NP} : index
    %cNT = arith.constant {NT} : index
    %cKS = arith.constant {KS} : index
    %cACpr = arith.constant {A_CPR} : index
    %cBCpr = arith.constant {B_CPR} : index
    %cAChunks = arith.constant {A_CHUNKS} : index
    %cBChunks = arith.constant {B_CHUNKS} : index
    %groupM = arith.constant 8 : index
    %m = arith.index_castui %M : i32 to index
    %n = arith.index_castui %N : i32 to index
    %k = arith.index_castui %K : i32 to index
    %numK = arith.ceildivui %k, %cTileK : index

    // Tiles are visited in groups of 8 tile rows (M), column by column inside a group, so
    // that the CTAs running at once share rows of A and columns of B in the L2.
    %tilesM = arith.ceildivui %m, %cTileM : index
    %tilesN = arith.ceildivui %n, %cTileN : index
    %pid = gpu.block_id x
    %perGroup = arith.muli %groupM, %tilesN : index
    %group = arith.divui %pid, %perGroup : index
    %firstM = arith.muli %group, %groupM : index
    %rowsLeft = arith.subi %tilesM, %firstM : index
    %groupRows = arith.minui %rowsLeft, %groupM : index
    %inGroup = arith.remui %pid, %perGroup : index
    %rowInGroup = arith.remui %inGroup, %groupRows : index
    %tileRow = arith.addi %firstM, %rowInGroup : index
    %tileCol = arith.divui %inGroup, %groupRows : index
    %m0 = arith.muli %tileRow, %cTileM : index
    %n0 = arith.muli %tileCol, %cTileN : index

    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %lane = arith.remui %tid, %c32 : index
    %warpRow = arith.divui %warp, %cWarpsN : index
    %warpCol = arith.remui %warp, %cWarpsN : index
    %wm0 = arith.muli %warpRow, %cWarpM : index
    %wn0 = arith.muli %warpCol, %cWarpN : index

{A_EXTENT}
    %Ag = memref.reinterpret_cast %A to offset: [0], sizes: [%aExtent], strides: [1]
      : memref<{IN}> to !gvec
    %kn = arith.muli %k, %n : index
    %Bg = memref.reinterpret_cast %B to offset: [0], sizes: [%kn], strides: [1]
      : memref<{IN}> to !gvec

    // Shared memory: the A ring ({STAGES} x {TILE_M} rows of {A_STRIDE} elements) at 0, the
    // B ring ({STAGES} x {TILE_K} rows of {B_STRIDE}) at {B_OFF}; after the main loop, the
    // f32 staging of C ({TILE_M} rows of {STAGED_COLUMNS}) at 0.
    %dyn = gpu.dynamic_shared_memory : !smem
    %bOff = arith.constant {B_OFF} : index
    %As = memref.view %dyn[%c0][] : !smem to !ringA
    %Bs = memref.view %dyn[%bOff][] : !smem to !ringB

    // Prologue: k-tiles 0 .. {STAGES}-2 into stages 0 .. {STAGES}-2, one group each.
    %ahead = arith.subi %cStages, %c1 : index
    scf.for %lkt = %c0 to %ahead step %c1 {
      %has = arith.cmpi ult, %lkt, %numK : index
      scf.if %has {
        %ls = arith.remui %lkt, %cStages : index
{LOAD_TILE}
      }
      nvvm.cp.async.commit.group
    } {unroll}

    // The fragments' rows and columns, per lane. A (x4, not transposed): row l % 16 of a
    // 16-row tile, columns 8 (l / 16).. of a 16-wide k-step. B (x4, transposed): k-row
    // l % 8 + 8 ((l / 8) % 2) of the k-step, columns 8 (l / 16).. of a 16-column pair.
    %l16 = arith.remui %lane, %c16 : index
    %lHi = arith.divui %lane, %c16 : index
    %aColL = arith.muli %lHi, %c8 : index
    %aRowL = arith.addi %wm0, %l16 : index
    %l8 = arith.remui %lane, %c8 : index
    %l8h = arith.divui %lane, %c8 : index
    %l8b = arith.remui %l8h, %c2 : index
    %bRow8 = arith.muli %l8b, %c8 : index
    %bRowL = arith.addi %l8, %bRow8 : index
    %bColL = arith.addi %wn0, %aColL : index

    %acc0 = arith.constant dense<0.0> : !acc
    %af0 = arith.constant dense<0.0> : !afrag
    %bf0 = arith.constant dense<0.0> : !bfrag
    %res = scf.for %kt = %c0 to %numK step %c1 iter_args(%acc = %acc0) -> (!acc) {
      // k-tile kt has landed for this thread (the groups after it may still be in
      // flight), and for every thread after the barrier, which also says that every warp
      // is done with k-tile kt-1's stage, refilled next.
      nvvm.cp.async.wait.group {WAIT}
      gpu.barrier
      %lkt = arith.addi %kt, %ahead : index
      %has = arith.cmpi ult, %lkt, %numK : index
      scf.if %has {
        %ls = arith.remui %lkt, %cStages : index
{LOAD_TILE}
      }
      nvvm.cp.async.commit.group

      %st = arith.remui %kt, %cStages : index
      %accOut = scf.for %kk = %c0 to %cKS step %c1 iter_args(%ka = %acc) -> (!acc) {
        %kc = arith.muli %kk, %c16 : index
        %aCol = arith.addi %kc, %aColL : index
        %af = scf.for %mt = %c0 to %cMT step %c1 iter_args(%fa = %af0) -> (!afrag) {
          %mRows = arith.muli %mt, %c16 : index
          %row = arith.addi %aRowL, %mRows : index
          %a = nvgpu.ldmatrix %As[%st, %row, %aCol] {numTiles = 4 : i32, transpose = false}
            : !ringA -> vector<4x2x{IN}>
          %fa2 = vector.insert %a, %fa[%mt] : vector<4x2x{IN}> into !afrag
          scf.yield %fa2 : !afrag
        } {unroll}
        %bRow = arith.addi %kc, %bRowL : index
        %bf = scf.for %np = %c0 to %cNP step %c1 iter_args(%fb = %bf0) -> (!bfrag) {
          %nCols = arith.muli %np, %c16 : index
          %col = arith.addi %bColL, %nCols : index
          %bq = nvgpu.ldmatrix %Bs[%st, %bRow, %col] {numTiles = 4 : i32, transpose = true}
            : !ringB -> vector<4x2x{IN}>
          %b0 = vector.shuffle %bq, %bq [0, 1] : vector<4x2x{IN}>, vector<4x2x{IN}>
          %b1 = vector.shuffle %bq, %bq [2, 3] : vector<4x2x{IN}>, vector<4x2x{IN}>
          %n0i = arith.muli %np, %c2 : index
          %n1i = arith.addi %n0i, %c1 : index
          %fb1 = vector.insert %b0, %fb[%n0i] : vector<2x2x{IN}> into !bfrag
          %fb2 = vector.insert %b1, %fb1[%n1i] : vector<2x2x{IN}> into !bfrag
          scf.yield %fb2 : !bfrag
        } {unroll}
        %mm = scf.for %mt = %c0 to %cMT step %c1 iter_args(%ma = %ka) -> (!acc) {
          %a = vector.extract %af[%mt] : vector<4x2x{IN}> from !afrag
          %nn = scf.for %nt = %c0 to %cNT step %c1 iter_args(%na = %ma) -> (!acc) {
            %b = vector.extract %bf[%nt] : vector<2x2x{IN}> from !bfrag
            %c = vector.extract %na[%mt, %nt] : vector<2x2xf32> from !acc
            %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]}
              : (vector<4x2x{IN}>, vector<2x2x{IN}>, vector<2x2xf32>) -> vector<2x2xf32>
            %na2 = vector.insert %d, %na[%mt, %nt] : vector<2x2xf32> into !acc
            scf.yield %na2 : !acc
          } {unroll}
          scf.yield %nn : !acc
        } {unroll}
        scf.yield %mm : !acc
      } {unroll}
      scf.yield %accOut : !acc
    }

    // Epilogue. Every copy has landed and every warp is done with the ring, which the
    // staging reuses: each thread stores its fragments (rows g and g + 8 of a 16-row
    // tile, columns 2t, 2t+1 of an 8-column one) to the padded f32 tile, then the tile
    // goes out in rows, 4 elements a thread, through the fused epilogue, rounded.
    nvvm.cp.async.wait.group 0
    gpu.barrier
    %staged = memref.view %dyn[%c0][] : !smem to !staged
    %g = arith.divui %lane, %c4 : index
    %t = arith.remui %lane, %c4 : index
    %t2 = arith.muli %t, %c2 : index
    %fragRow = arith.addi %wm0, %g : index
    %fragCol = arith.addi %wn0, %t2 : index
    scf.for %mt = %c0 to %cMT step %c1 {
      %mRows = arith.muli %mt, %c16 : index
      %r0 = arith.addi %fragRow, %mRows : index
      %r1 = arith.addi %r0, %c8 : index
      scf.for %nt = %c0 to %cNT step %c1 {
        %nCols = arith.muli %nt, %c8 : index
        %col = arith.addi %fragCol, %nCols : index
        %v = vector.extract %res[%mt, %nt] : vector<2x2xf32> from !acc
        %v0 = vector.extract %v[0] : vector<2xf32> from vector<2x2xf32>
        %v1 = vector.extract %v[1] : vector<2xf32> from vector<2x2xf32>
        vector.store %v0, %staged[%r0, %col] {alignment = 8} : !staged, vector<2xf32>
        vector.store %v1, %staged[%r1, %col] {alignment = 8} : !staged, vector<2xf32>
      } {unroll}
    } {unroll}
    gpu.barrier

    %cg = memref.reinterpret_cast %C to offset: [0], sizes: [%m, %n], strides: [%n, 1]
      : memref<{OUT}> to memref<?x?x{OUT}, strided<[?, 1]>>
    %rowLanes = arith.constant {ROW_LANES} : index
    %laneInRow = arith.remui %tid, %rowLanes : index
    %firstRow = arith.divui %tid, %rowLanes : index
    %laneCol = arith.muli %laneInRow, %c4 : index
    %rowStep = arith.divui %cThreads, %rowLanes : index
    %chunkColumns = arith.muli %rowLanes, %c4 : index
    // Rows and columns past M and N (partial edge tiles) are not stored; N is a multiple
    // of 8, so a 4-wide vector is all inside or all outside.
    scf.for %r = %firstRow to %cTileM step %rowStep {
      %grow = arith.addi %m0, %r : index
      %rowOk = arith.cmpi ult, %grow, %m : index
      scf.for %chunk = %c0 to %cTileN step %chunkColumns {
        %col = arith.addi %chunk, %laneCol : index
        %gcol = arith.addi %n0, %col : index
        %colOk = arith.cmpi ult, %gcol, %n : index
        %inside = arith.andi %rowOk, %colOk : i1
        scf.if %inside {
          %v = vector.load %staged[%r, %col] {alignment = 16} : !staged, vector<4xf32>
          {EPILOGUE}
          {CONVERT}
          vector.store {STORED}, %cg[%grow, %gcol] {alignment = {STORE_ALIGNMENT}}
            : memref<?x?x{OUT}, strided<[?, 1]>>, vector<4x{OUT}>
        }
      }
    }
    gpu.return
  }
}
