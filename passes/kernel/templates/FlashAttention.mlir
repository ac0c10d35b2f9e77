// The flash-attention template of flash_attention (passes/kernel/FlashAttention.cpp):
// FlashAttention-2 forward, O = softmax(Q K^T * scale + mask) V, on the tensor cores with
// mma.sync (m16n8k16, {T} operands, f32 accumulation); runs on sm_80 and later (sm_90a
// too). One CTA computes {BQ} query rows of one (batch, head); each of its {WARPS} warps
// owns {WARP_ROWS} rows ({MTW} tiles of 16, which share each K and V fragment it loads) and
// all the columns of a KV tile. K and V tiles ({BKV} rows) stream
// through a {STAGES}-stage ring of shared memory filled by cp.async; the scores and the
// probabilities stay in registers. The ABI, shared-memory map and algorithm:
// docs/codegen-attention.md.
//
// The pass substitutes {MODULE}, {ENTRY}, {T} (f16, bf16), {MT} (the mask's element type,
// {T} when there is none), {MASK_EXT} (the conversion of %mv, one {MT}, to f32),
// {MASK_ROW} (defines %mRow, the mask's row stride: %mQ, or 0 for a mask the same for
// every row), {D} (a
// multiple of 16 up to 128), {BQ}, {BKV}, {STAGES}, {WAIT} ({STAGES} - 1), {WAIT_Q} ({STAGES} - 2),
// {WARPS}, {THREADS}, {WARP_ROWS} ({BQ} / {WARPS}: 16 or 32), {MTW} ({WARP_ROWS} / 16),
// {ROWS} (2 {MTW}: the rows of a thread), {NT_S} ({BKV} / 8), {NT_O} ({D} / 8), {KQ} ({D} / 16), {KP}
// ({BKV} / 16), {Q_CHUNKS} and {KV_CHUNKS} (16-byte copies per thread of a Q and of a
// K or V tile), {CPR} ({D} / 8), {SWZ} (the largest power of two dividing {CPR}, at most
// 8: the swizzle's span), {K_OFF}, {V_OFF} (byte offsets of the K and V rings),
// {KV_STAGE} (bytes of one K or V stage) and {HAS_MASK}, {CAUSAL}, {NAN_TO_ZERO} (true,
// false), {MIN_CTAS} (CTAs an SM must fit: ptxas caps the registers accordingly),
// parses the result and unrolls every scf.for marked `unroll`.

!gmem = memref<?x{D}x{T}, strided<[?, 1], offset: ?>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!sq = memref<{BQ}x{D}x{T}, #gpu.address_space<workgroup>>
!skv = memref<{STAGES}x{BKV}x{D}x{T}, #gpu.address_space<workgroup>>
!sacc = vector<{MTW}x{NT_S}x2x2xf32>
!oacc = vector<{MTW}x{NT_O}x2x2xf32>
!qfrag = vector<{MTW}x{KQ}x4x2x{T}>
!rows = vector<{ROWS}xf32>

gpu.module @{MODULE} {

  // Grid (ceil(Sq / {BQ}), B * H, 1), block ({THREADS}, 1, 1), dynamic shared memory
  // {V_OFF} + {STAGES} * {KV_STAGE} bytes. Q, K, V, O: bare pointers to the buffers
  // holding the [B, H, S, {D}] views (Sq rows for Q and O, Skv for K and V), element
  // (b, h, s, d) of X at %Xoff + b * %Xb + h * %Xh + s * %Xr + d, query head h reading
  // K and V at head h / %G (grouped-query attention; %G is 1 otherwise). Mask: a bare pointer to
  // the additive mask (read only with {HAS_MASK}), element (b, h, i, j) at b * %mB + h *
  // %mH + i * %mQ + j * %mK (0 strides broadcast). %scale multiplies Q K^T.
  gpu.func @{ENTRY}(%Q: memref<{T}>, %K: memref<{T}>, %V: memref<{T}>, %O: memref<{T}>,
                    %Mask: memref<{MT}>, %H: i32, %G: i32, %Sq: i32, %Skv: i32, %mB: i32, %mH: i32,
                    %mQ: i32, %mK: i32, %scale: f32,
                    %Qoff: i32, %Qb: i32, %Qh: i32, %Qr: i32, %Koff: i32, %Kb: i32, %Kh: i32,
                    %Kr: i32, %Voff: i32, %Vb: i32, %Vh: i32, %Vr: i32, %Ooff: i32, %Ob: i32,
                    %Oh: i32, %Or: i32)
      kernel attributes {known_block_size = array<i32: {THREADS}, 1, 1>,
                                 nvvm.minctasm = {MIN_CTAS} : i32} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %cD = arith.constant {D} : index
    %cBQ = arith.constant {BQ} : index
    %cBKV = arith.constant {BKV} : index
    %cStages = arith.constant {STAGES} : index
    %cThreads = arith.constant {THREADS} : index
    %cCpr = arith.constant {CPR} : index
    %cQChunks = arith.constant {Q_CHUNKS} : index
    %cKvChunks = arith.constant {KV_CHUNKS} : index
    %cKQ = arith.constant {KQ} : index
    %cKP = arith.constant {KP} : index
    %cNTS = arith.constant {NT_S} : index
    %cNTO = arith.constant {NT_O} : index
    %cMTW = arith.constant {MTW} : index
    %cRows = arith.constant {ROWS} : index
    %cWarpRows = arith.constant {WARP_ROWS} : index
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i32w = arith.constant 32 : i32
    %f0 = arith.constant 0.0 : f32
    %fneg0 = arith.constant -0.0 : f32
    %f1 = arith.constant 1.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %log2e = arith.constant 1.44269504 : f32
    %hasMask = arith.constant {HAS_MASK}
    %causal = arith.constant {CAUSAL}
    %nanToZero = arith.constant {NAN_TO_ZERO}

    %sq = arith.index_castui %Sq : i32 to index
    %skv = arith.index_castui %Skv : i32 to index
    %heads = arith.index_castui %H : i32 to index
    %sqLast = arith.subi %sq, %c1 : index
    %skvLast = arith.subi %skv, %c1 : index

    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %lane = arith.remui %tid, %c32 : index
    %g = arith.divui %lane, %c4 : index
    %t = arith.remui %lane, %c4 : index
    %l8 = arith.remui %lane, %c8 : index
    %cSwz = arith.constant {SWZ} : index
    %lSwz = arith.remui %lane, %cSwz : index
    %l16 = arith.divui %lane, %c16 : index
    %l8h = arith.divui %lane, %c8 : index
    %l8b = arith.remui %l8h, %c2 : index

    // Causal CTAs are heavier the later their rows: the grid runs them first.
    %bx = gpu.block_id x
    %nbx = gpu.grid_dim x
    %nbxLast = arith.subi %nbx, %c1 : index
    %bxRev = arith.subi %nbxLast, %bx : index
    %qBlock = arith.select %causal, %bxRev, %bx : index
    %bh = gpu.block_id y
    %q0 = arith.muli %qBlock, %cBQ : index

    // KV tiles: all of them, or (causal) those with a column <= the CTA's last row.
    %numKvAll = arith.ceildivui %skv, %cBKV : index
    %qEnd0 = arith.addi %q0, %cBQ : index
    %qEnd = arith.minui %qEnd0, %sq : index
    %numKvCausal0 = arith.ceildivui %qEnd, %cBKV : index
    %numKvCausal = arith.minui %numKvCausal0, %numKvAll : index
    %numKv = arith.select %causal, %numKvCausal, %numKvAll : index

    // This head's rows of Q, K, V and O: element (b, h, row, d) of operand X is at
    // X_off + b * X_b + h * X_h + row * X_r + d (strides in elements; a view of a wider
    // buffer, such as one head's columns of a fused QKV projection, has X_r > {D}).
    %b = arith.divui %bh, %heads : index
    %h = arith.remui %bh, %heads : index
    // K and V's head: query heads share one in groups of %G (grouped-query attention).
    %groupI = arith.index_castui %G : i32 to index
    %hkv = arith.divui %h, %groupI : index
    %QoffI = arith.index_castui %Qoff : i32 to index
    %QbI = arith.index_castui %Qb : i32 to index
    %QhI = arith.index_castui %Qh : i32 to index
    %QrI = arith.index_castui %Qr : i32 to index
    %Qat0 = arith.muli %b, %QbI : index
    %Qat1 = arith.muli %h, %QhI : index
    %Qat2 = arith.addi %Qat0, %Qat1 : index
    %Qat = arith.addi %Qat2, %QoffI : index
    %Qg = memref.reinterpret_cast %Q to offset: [%Qat], sizes: [%sq, {D}],
      strides: [%QrI, 1] : memref<{T}> to !gmem
    %KoffI = arith.index_castui %Koff : i32 to index
    %KbI = arith.index_castui %Kb : i32 to index
    %KhI = arith.index_castui %Kh : i32 to index
    %KrI = arith.index_castui %Kr : i32 to index
    %Kat0 = arith.muli %b, %KbI : index
    %Kat1 = arith.muli %hkv, %KhI : index
    %Kat2 = arith.addi %Kat0, %Kat1 : index
    %Kat = arith.addi %Kat2, %KoffI : index
    %Kg = memref.reinterpret_cast %K to offset: [%Kat], sizes: [%skv, {D}],
      strides: [%KrI, 1] : memref<{T}> to !gmem
    %VoffI = arith.index_castui %Voff : i32 to index
    %VbI = arith.index_castui %Vb : i32 to index
    %VhI = arith.index_castui %Vh : i32 to index
    %VrI = arith.index_castui %Vr : i32 to index
    %Vat0 = arith.muli %b, %VbI : index
    %Vat1 = arith.muli %hkv, %VhI : index
    %Vat2 = arith.addi %Vat0, %Vat1 : index
    %Vat = arith.addi %Vat2, %VoffI : index
    %Vg = memref.reinterpret_cast %V to offset: [%Vat], sizes: [%skv, {D}],
      strides: [%VrI, 1] : memref<{T}> to !gmem
    %OoffI = arith.index_castui %Ooff : i32 to index
    %ObI = arith.index_castui %Ob : i32 to index
    %OhI = arith.index_castui %Oh : i32 to index
    %OrI = arith.index_castui %Or : i32 to index
    %Oat0 = arith.muli %b, %ObI : index
    %Oat1 = arith.muli %h, %OhI : index
    %Oat2 = arith.addi %Oat0, %Oat1 : index
    %Oat = arith.addi %Oat2, %OoffI : index
    %Og = memref.reinterpret_cast %O to offset: [%Oat], sizes: [%sq, {D}],
      strides: [%OrI, 1] : memref<{T}> to !gmem

    // The mask of this (batch, head): element (i, j) at %mBase + i * %mRow + j * %mCol.
    %maskAll = memref.reinterpret_cast %Mask to offset: [0], sizes: [1073741824], strides: [1]
      : memref<{MT}> to memref<1073741824x{MT}>
    %mBi = arith.index_castui %mB : i32 to index
    %mHi = arith.index_castui %mH : i32 to index
    // The row stride: %mQ, or 0 for a mask the same for every row (MASK_ROW).
    {MASK_ROW}
    %mCol = arith.index_castui %mK : i32 to index
    %mBase0 = arith.muli %b, %mBi : index
    %mBase1 = arith.muli %h, %mHi : index
    %mBase = arith.addi %mBase0, %mBase1 : index
    // The mask read a pair of columns at a time (the columns 2 t, 2 t + 1 this thread holds
    // in every n8 tile, one {MASK_PAIR_BYTES}-byte load) where its columns are contiguous,
    // every row starts at an even element and the buffer is aligned to a pair; otherwise,
    // and on a tile past Skv, one element at a time (address arithmetic and a clamp each).
    %maskAddr = memref.extract_aligned_pointer_as_index %Mask : memref<{MT}> -> index
    %cPair = arith.constant {MASK_PAIR_BYTES} : index
    %maskMis = arith.remui %maskAddr, %cPair : index
    %maskAligned = arith.cmpi eq, %maskMis, %c0 : index
    %mStarts = arith.ori %mBase, %mRow : index
    %mOdd = arith.andi %mStarts, %c1 : index
    %mEven = arith.cmpi eq, %mOdd, %c0 : index
    %mContig = arith.cmpi eq, %mCol, %c1 : index
    %mPair0 = arith.andi %maskAligned, %mEven : i1
    %mPair1 = arith.andi %mPair0, %mContig : i1
    %maskPairs = arith.andi %mPair1, %hasMask : i1
    %scalePair = vector.broadcast %scale : f32 to vector<2xf32>
    %fneg0Pair = arith.constant dense<-0.0> : vector<2xf32>

    // Shared memory: Q at 0, the K ring at {K_OFF}, the V ring at {V_OFF}. Rows are {D}
    // elements; the 16-byte chunk c of row r is stored at chunk c ^ (r % {SWZ}), so that
    // the 8 rows an ldmatrix phase reads fall in distinct banks where a row has 8 chunks
    // or more (with fewer, the XOR stays inside the row).
    %dyn = gpu.dynamic_shared_memory : !smem
    %kOffB = arith.constant {K_OFF} : index
    %vOffB = arith.constant {V_OFF} : index
    %Qs = memref.view %dyn[%c0][] : !smem to !sq
    %Ks = memref.view %dyn[%kOffB][] : !smem to !skv
    %Vs = memref.view %dyn[%vOffB][] : !smem to !skv

    // Q: {Q_CHUNKS} 16-byte copies a thread; rows past Sq read nothing and are zeroed.
    scf.for %i = %c0 to %cQChunks step %c1 {
      %i0 = arith.muli %i, %cThreads : index
      %chunk = arith.addi %i0, %tid : index
      %row = arith.divui %chunk, %cCpr : index
      %cc = arith.remui %chunk, %cCpr : index
      %r8 = arith.remui %row, %cSwz : index
      %pc0 = arith.xori %cc, %r8 : index
      %pc = arith.muli %pc0, %c8 : index
      %col = arith.muli %cc, %c8 : index
      %grow = arith.addi %q0, %row : index
      %inside = arith.cmpi ult, %grow, %sq : index
      %srow = arith.minui %grow, %sqLast : index
      %n = arith.select %inside, %c8, %c0 : index
      %tok = nvgpu.device_async_copy %Qg[%srow, %col], %Qs[%row, %pc], 8, %n {bypassL1}
        : !gmem to !sq
    } {unroll}

    // Prologue: KV tiles 0 .. {STAGES}-2 into stages 0 .. {STAGES}-2, one group each (Q
    // joins the first).
    %pro = arith.subi %cStages, %c1 : index
    scf.for %j = %c0 to %pro step %c1 {
      %has = arith.cmpi ult, %j, %numKv : index
      scf.if %has {
        %kv0 = arith.muli %j, %cBKV : index
        scf.for %i = %c0 to %cKvChunks step %c1 {
          %i0 = arith.muli %i, %cThreads : index
          %chunk = arith.addi %i0, %tid : index
          %row = arith.divui %chunk, %cCpr : index
          %cc = arith.remui %chunk, %cCpr : index
          %r8 = arith.remui %row, %cSwz : index
          %pc0 = arith.xori %cc, %r8 : index
          %pc = arith.muli %pc0, %c8 : index
          %col = arith.muli %cc, %c8 : index
          %grow = arith.addi %kv0, %row : index
          %inside = arith.cmpi ult, %grow, %skv : index
          %srow = arith.minui %grow, %skvLast : index
          %n = arith.select %inside, %c8, %c0 : index
          %tk = nvgpu.device_async_copy %Kg[%srow, %col], %Ks[%j, %row, %pc], 8, %n {bypassL1}
            : !gmem to !skv
          %tv = nvgpu.device_async_copy %Vg[%srow, %col], %Vs[%j, %row, %pc], 8, %n {bypassL1}
            : !gmem to !skv
        } {unroll}
      }
      nvvm.cp.async.commit.group
    } {unroll}
    // Q (the first group) has landed for every thread.
    nvvm.cp.async.wait.group {WAIT_Q}
    gpu.barrier

    // Q's A fragments ({MTW} x 16 rows of this warp x {D}), one vector<4x2> per 16 rows and
    // 16 columns, kept in registers. Lane l gives row l % 8 + 8 * ((l / 8) % 2) of the
    // 16, chunk 2 kk + l / 16.
    %qRow0 = arith.muli %warp, %cWarpRows : index
    %qRow1 = arith.muli %l8b, %c8 : index
    %qRow2 = arith.addi %qRow0, %qRow1 : index
    %qRow = arith.addi %qRow2, %l8 : index
    %qf0 = arith.constant dense<0.0> : !qfrag
    %qf = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%accM = %qf0) -> (!qfrag) {
      %mtRows = arith.muli %mt, %c16 : index
      %row = arith.addi %qRow, %mtRows : index
      %inner = scf.for %kk = %c0 to %cKQ step %c1 iter_args(%acc = %accM) -> (!qfrag) {
        %ch0 = arith.muli %kk, %c2 : index
        %ch = arith.addi %ch0, %l16 : index
        %pch = arith.xori %ch, %lSwz : index
        %pcol = arith.muli %pch, %c8 : index
        %a = nvgpu.ldmatrix %Qs[%row, %pcol] {numTiles = 4 : i32, transpose = false}
          : !sq -> vector<4x2x{T}>
        %next = vector.insert %a, %acc[%mt, %kk] : vector<4x2x{T}> into !qfrag
        scf.yield %next : !qfrag
      } {unroll}
      scf.yield %inner : !qfrag
    } {unroll}

    // This thread's rows of each 16-row score tile mt: g and g + 8 (row index r = 2 mt,
    // 2 mt + 1 of the per-row vectors).
    %rowBase0 = arith.addi %q0, %qRow0 : index
    %rowA = arith.addi %rowBase0, %g : index
    %t2 = arith.muli %t, %c2 : index
    // The softmax's units: with a mask, scores are s = qk * scale + mask and
    // p = exp2((s - m) * log2e); without, s = qk and p = exp2(s * c - m * c) with
    // c = scale * log2e (one fma).
    %scaleLog2 = arith.mulf %scale, %log2e : f32
    %factor = arith.select %hasMask, %log2e, %scaleLog2 : f32

    // K's B fragments: lane l gives row np * 16 + l % 8 + 8 * (l / 16), chunk 2 kk +
    // (l / 8) % 2. V's (transposed): row kk * 16 + l % 8 + 8 * ((l / 8) % 2), chunk
    // 2 np + l / 16.
    %kRow0 = arith.muli %l16, %c8 : index
    %kRowL = arith.addi %kRow0, %l8 : index
    %vRowL = arith.addi %qRow1, %l8 : index

    %o0 = arith.constant dense<0.0> : !oacc
    %m0 = arith.constant dense<0xFF800000> : !rows
    %z0 = arith.constant dense<0.0> : !rows
    %s0 = arith.constant dense<0.0> : !sacc
    %res:3 = scf.for %j = %c0 to %numKv step %c1
        iter_args(%oAcc = %o0, %mRun = %m0, %lRun = %z0) -> (!oacc, !rows, !rows) {
      // Refill the stage tile j-1 used with tile j + {STAGES} - 1; always commit a group.
      %nxt = arith.addi %j, %pro : index
      %hasNext = arith.cmpi ult, %nxt, %numKv : index
      scf.if %hasNext {
        %ns = arith.remui %nxt, %cStages : index
        %kv0 = arith.muli %nxt, %cBKV : index
        scf.for %i = %c0 to %cKvChunks step %c1 {
          %i0 = arith.muli %i, %cThreads : index
          %chunk = arith.addi %i0, %tid : index
          %row = arith.divui %chunk, %cCpr : index
          %cc = arith.remui %chunk, %cCpr : index
          %r8 = arith.remui %row, %cSwz : index
          %pc0 = arith.xori %cc, %r8 : index
          %pc = arith.muli %pc0, %c8 : index
          %col = arith.muli %cc, %c8 : index
          %grow = arith.addi %kv0, %row : index
          %inside = arith.cmpi ult, %grow, %skv : index
          %srow = arith.minui %grow, %skvLast : index
          %n = arith.select %inside, %c8, %c0 : index
          %tk = nvgpu.device_async_copy %Kg[%srow, %col], %Ks[%ns, %row, %pc], 8, %n {bypassL1}
            : !gmem to !skv
          %tv = nvgpu.device_async_copy %Vg[%srow, %col], %Vs[%ns, %row, %pc], 8, %n {bypassL1}
            : !gmem to !skv
        } {unroll}
      }
      nvvm.cp.async.commit.group
      // Tile j's group has landed for every thread.
      nvvm.cp.async.wait.group {WAIT}
      gpu.barrier
      %st = arith.remui %j, %cStages : index
      %kv0 = arith.muli %j, %cBKV : index

      // S = Q K^T: {MTW} x 16 x {BKV} per warp; each K fragment feeds every row tile.
      %sAcc = scf.for %kk = %c0 to %cKQ step %c1 iter_args(%sa = %s0) -> (!sacc) {
        %ch0 = arith.muli %kk, %c2 : index
        %ch = arith.addi %ch0, %l8b : index
        %pch = arith.xori %ch, %lSwz : index
        %pcol = arith.muli %pch, %c8 : index
        %sOut = scf.for %np = %c0 to %cKP step %c1 iter_args(%sb = %sa) -> (!sacc) {
          %r0 = arith.muli %np, %c16 : index
          %row = arith.addi %r0, %kRowL : index
          %bq = nvgpu.ldmatrix %Ks[%st, %row, %pcol] {numTiles = 4 : i32, transpose = false}
            : !skv -> vector<4x2x{T}>
          %b0 = vector.shuffle %bq, %bq [0, 1] : vector<4x2x{T}>, vector<4x2x{T}>
          %b1 = vector.shuffle %bq, %bq [2, 3] : vector<4x2x{T}>, vector<4x2x{T}>
          %n0 = arith.muli %np, %c2 : index
          %n1 = arith.addi %n0, %c1 : index
          %sm = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%sc = %sb) -> (!sacc) {
            %a = vector.extract %qf[%mt, %kk] : vector<4x2x{T}> from !qfrag
            %c0v = vector.extract %sc[%mt, %n0] : vector<2x2xf32> from !sacc
            %c1v = vector.extract %sc[%mt, %n1] : vector<2x2xf32> from !sacc
            %d0 = nvgpu.mma.sync (%a, %b0, %c0v) {mmaShape = [16, 8, 16]}
              : (vector<4x2x{T}>, vector<2x2x{T}>, vector<2x2xf32>) -> vector<2x2xf32>
            %d1 = nvgpu.mma.sync (%a, %b1, %c1v) {mmaShape = [16, 8, 16]}
              : (vector<4x2x{T}>, vector<2x2x{T}>, vector<2x2xf32>) -> vector<2x2xf32>
            %u0 = vector.insert %d0, %sc[%mt, %n0] : vector<2x2xf32> into !sacc
            %u1 = vector.insert %d1, %u0[%mt, %n1] : vector<2x2xf32> into !sacc
            scf.yield %u1 : !sacc
          } {unroll}
          scf.yield %sm : !sacc
        } {unroll}
        scf.yield %sOut : !sacc
      } {unroll}

      // Mask the scores (the additive mask, columns past Skv, causal) where this tile
      // needs it: with a mask buffer, on the last tile when Skv is not a multiple of
      // {BKV}, and (causal) on tiles reaching past this warp's first row. Elsewhere the
      // per-element index tests are skipped.
      %kvEnd = arith.addi %kv0, %cBKV : index
      %tail = arith.cmpi ugt, %kvEnd, %skv : index
      %kvLastCol = arith.subi %kvEnd, %c1 : index
      %diag0 = arith.cmpi ugt, %kvLastCol, %rowBase0 : index
      %diag = arith.andi %diag0, %causal : i1
      %needs0 = arith.ori %tail, %diag : i1
      %needs = arith.ori %needs0, %hasMask : i1
      %wholeTile = arith.cmpi ule, %kvEnd, %skv : index
      %pairTile = arith.andi %wholeTile, %maskPairs : i1
      %maskedS = scf.if %needs -> (!sacc) {
        %masked = scf.if %pairTile -> (!sacc) {
          %pk = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%pv0 = %sAcc) -> (!sacc) {
            %pRows = arith.muli %mt, %c16 : index
            %pRowT = arith.addi %rowA, %pRows : index
            %perRow = scf.for %hi = %c0 to %c2 step %c1 iter_args(%pw0 = %pv0) -> (!sacc) {
              %pHiRow = arith.muli %hi, %c8 : index
              %pRow = arith.addi %pRowT, %pHiRow : index
              // Rows past Sq (the last query block) read row Sq - 1; their results are
              // never stored.
              %pr = arith.minui %pRow, %sqLast : index
              %pa0 = arith.muli %pr, %mRow : index
              %pa1 = arith.addi %pa0, %mBase : index
              %pa2 = arith.addi %pa1, %kv0 : index
              %pa = arith.addi %pa2, %t2 : index
              %perTile = scf.for %e = %c0 to %cNTS step %c1 iter_args(%pw = %pw0) -> (!sacc) {
                %pCol = arith.muli %e, %c8 : index
                %pma = arith.addi %pa, %pCol : index
                %mv = vector.load %maskAll[%pma] {alignment = {MASK_PAIR_BYTES}}
                  : memref<1073741824x{MT}>, vector<2x{MT}>
                %mf = {MASK_EXT_PAIR}
                %px = vector.extract %pw[%mt, %e, %hi] : vector<2xf32> from !sacc
                %py = math.fma %px, %scalePair, %mf : vector<2xf32>
                %pw2 = vector.insert %py, %pw[%mt, %e, %hi] : vector<2xf32> into !sacc
                scf.yield %pw2 : !sacc
              } {unroll}
              scf.yield %perTile : !sacc
            } {unroll}
            scf.yield %perRow : !sacc
          } {unroll}
          // Causal: the tiles reaching past this warp's first row mask the scores above the
          // diagonal.
          %pc = scf.if %diag -> (!sacc) {
            %cz = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%cv0 = %pk) -> (!sacc) {
              %cMtRows = arith.muli %mt, %c16 : index
              %cRowT = arith.addi %rowA, %cMtRows : index
              %cTiles = scf.for %e = %c0 to %cNTS step %c1 iter_args(%cv = %cv0) -> (!sacc) {
                %cCol0 = arith.muli %e, %c8 : index
                %cCol1 = arith.addi %kv0, %cCol0 : index
                %cColN = arith.addi %cCol1, %t2 : index
                %cInner = scf.for %q = %c0 to %c4 step %c1 iter_args(%cw = %cv) -> (!sacc) {
                  %chi = arith.divui %q, %c2 : index
                  %clo = arith.remui %q, %c2 : index
                  %cHiRow = arith.muli %chi, %c8 : index
                  %cRow = arith.addi %cRowT, %cHiRow : index
                  %cCol = arith.addi %cColN, %clo : index
                  %cx = vector.extract %cw[%mt, %e, %chi, %clo] : f32 from !sacc
                  %cAbove = arith.cmpi ugt, %cCol, %cRow : index
                  %cy = arith.select %cAbove, %ninf, %cx : f32
                  %cw2 = vector.insert %cy, %cw[%mt, %e, %chi, %clo] : f32 into !sacc
                  scf.yield %cw2 : !sacc
                } {unroll}
                scf.yield %cInner : !sacc
              } {unroll}
              scf.yield %cTiles : !sacc
            } {unroll}
            scf.yield %cz : !sacc
          } else {
            scf.yield %pk : !sacc
          }
          scf.yield %pc : !sacc
        } else {
          %mk = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%sv0 = %sAcc) -> (!sacc) {
            %mtRows = arith.muli %mt, %c16 : index
            %rowT = arith.addi %rowA, %mtRows : index
            %perTile = scf.for %e = %c0 to %cNTS step %c1 iter_args(%sv = %sv0) -> (!sacc) {
              %colN0 = arith.muli %e, %c8 : index
              %colN1 = arith.addi %kv0, %colN0 : index
              %colN = arith.addi %colN1, %t2 : index
              %inner = scf.for %q = %c0 to %c4 step %c1 iter_args(%sw = %sv) -> (!sacc) {
                %hi = arith.divui %q, %c2 : index
                %lo = arith.remui %q, %c2 : index
                %hiRow = arith.muli %hi, %c8 : index
                %row = arith.addi %rowT, %hiRow : index
                %col = arith.addi %colN, %lo : index
                %x = vector.extract %sw[%mt, %e, %hi, %lo] : f32 from !sacc
                %xm = scf.if %hasMask -> (f32) {
                  %mr = arith.minui %row, %sqLast : index
                  %mc = arith.minui %col, %skvLast : index
                  %ma0 = arith.muli %mr, %mRow : index
                  %ma1 = arith.muli %mc, %mCol : index
                  %ma2 = arith.addi %ma0, %ma1 : index
                  %ma = arith.addi %ma2, %mBase : index
                  %mv = memref.load %maskAll[%ma] : memref<1073741824x{MT}>
                  %mf = {MASK_EXT}
                  %y = math.fma %x, %scale, %mf : f32
                  scf.yield %y : f32
                } else {
                  scf.yield %x : f32
                }
                %outside = arith.cmpi uge, %col, %skv : index
                %above0 = arith.cmpi ugt, %col, %row : index
                %above = arith.andi %above0, %causal : i1
                %dead = arith.ori %outside, %above : i1
                %sv2 = arith.select %dead, %ninf, %xm : f32
                %sw2 = vector.insert %sv2, %sw[%mt, %e, %hi, %lo] : f32 into !sacc
                scf.yield %sw2 : !sacc
              } {unroll}
              scf.yield %inner : !sacc
            } {unroll}
            scf.yield %perTile : !sacc
          } {unroll}
          scf.yield %mk : !sacc
        }
        scf.yield %masked : !sacc
      } else {
        scf.yield %sAcc : !sacc
      }
      // The row maxima of this thread's columns (max.f32 through nvvm.fmax: arith.maxnumf
      // and maximumf lower to setp.nan, setp.le and three selp each, 5 instructions).
      %rowMax = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%mx0 = %m0) -> (!rows) {
        %r2 = arith.muli %mt, %c2 : index
        %perTile = scf.for %e = %c0 to %cNTS step %c1 iter_args(%mx = %mx0) -> (!rows) {
          %inner = scf.for %q = %c0 to %c4 step %c1 iter_args(%my = %mx) -> (!rows) {
            %hi = arith.divui %q, %c2 : index
            %lo = arith.remui %q, %c2 : index
            %r = arith.addi %r2, %hi : index
            %sx = vector.extract %maskedS[%mt, %e, %hi, %lo] : f32 from !sacc
            %mo = vector.extract %my[%r] : f32 from !rows
            %mn = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%mo, %sx) : (f32, f32) -> f32
            %my2 = vector.insert %mn, %my[%r] : f32 into !rows
            scf.yield %my2 : !rows
          } {unroll}
          scf.yield %inner : !rows
        } {unroll}
        scf.yield %perTile : !rows
      } {unroll}

      // Row maxima over the quad of lanes sharing the rows; the running maximum, the
      // rescaling of what was accumulated (alpha) and exp2 offsets.
      %mxQ0 = scf.for %r = %c0 to %cRows step %c1 iter_args(%mv0 = %rowMax) -> (!rows) {
        %mx = vector.extract %mv0[%r] : f32 from !rows
        %s1, %v1 = gpu.shuffle xor %mx, %i1, %i32w : f32
        %mx1 = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%mx, %s1) : (f32, f32) -> f32
        %s2, %v2 = gpu.shuffle xor %mx1, %i2, %i32w : f32
        %mx2 = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%mx1, %s2) : (f32, f32) -> f32
        %mv1 = vector.insert %mx2, %mv0[%r] : f32 into !rows
        scf.yield %mv1 : !rows
      } {unroll}
      %mNew = scf.for %r = %c0 to %cRows step %c1 iter_args(%mv0 = %mxQ0) -> (!rows) {
        %ma = vector.extract %mRun[%r] : f32 from !rows
        %mb = vector.extract %mv0[%r] : f32 from !rows
        %mm = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%ma, %mb) : (f32, f32) -> f32
        %mv1 = vector.insert %mm, %mv0[%r] : f32 into !rows
        scf.yield %mv1 : !rows
      } {unroll}
      // A row with nothing allowed so far has m = -inf: use 0 there (p and alpha are 0).
      %ninfV = vector.broadcast %ninf : f32 to !rows
      %isEmpty = arith.cmpf oeq, %mNew, %ninfV : !rows
      %mSafe = arith.select %isEmpty, %z0, %mNew : vector<{ROWS}xi1>, !rows
      %factorV = vector.broadcast %factor : f32 to !rows
      %mScaled = arith.mulf %mSafe, %factorV : !rows
      %alphaArg = scf.if %hasMask -> (!rows) {
        %dm = arith.subf %mRun, %mSafe : !rows
        %y = arith.mulf %dm, %factorV : !rows
        scf.yield %y : !rows
      } else {
        %ms = arith.mulf %mRun, %factorV : !rows
        %y = arith.subf %ms, %mScaled : !rows
        scf.yield %y : !rows
      }
      // exp2 as ex2.approx.ftz (one MUFU op; libdevice's exp2f adds denormal scaling).
      %alpha = scf.for %r = %c0 to %cRows step %c1 iter_args(%av = %alphaArg) -> (!rows) {
        %x = vector.extract %av[%r] : f32 from !rows
        %y = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%x) : (f32) -> f32
        %av2 = vector.insert %y, %av[%r] : f32 into !rows
        scf.yield %av2 : !rows
      } {unroll}

      // P = exp2(...) (f32), this thread's row sums, P rounded to {T} as the A operand of
      // P V: k-step kk is score tiles 2 kk and 2 kk + 1.
      %fV = vector.broadcast %factor : f32 to vector<2x2xf32>
      %pv:2 = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%pa0 = %maskedS, %ls0 = %z0)
          -> (!sacc, !rows) {
        %rA = arith.muli %mt, %c2 : index
        %rB = arith.addi %rA, %c1 : index
        %mRowA = vector.extract %mSafe[%rA] : f32 from !rows
        %mRowB = vector.extract %mSafe[%rB] : f32 from !rows
        %mScA = vector.extract %mScaled[%rA] : f32 from !rows
        %mScB = vector.extract %mScaled[%rB] : f32 from !rows
        %mR = vector.from_elements %mRowA, %mRowA, %mRowB, %mRowB : vector<2x2xf32>
        %mS = vector.from_elements %mScA, %mScA, %mScB, %mScB : vector<2x2xf32>
        %negS = arith.negf %mS : vector<2x2xf32>
        %perTile:2 = scf.for %e = %c0 to %cNTS step %c1 iter_args(%pa = %pa0, %ls = %ls0)
            -> (!sacc, !rows) {
          %sx = vector.extract %pa[%mt, %e] : vector<2x2xf32> from !sacc
          %arg = scf.if %hasMask -> (vector<2x2xf32>) {
            %ds = arith.subf %sx, %mR : vector<2x2xf32>
            %y = arith.mulf %ds, %fV : vector<2x2xf32>
            scf.yield %y : vector<2x2xf32>
          } else {
            %y = math.fma %sx, %fV, %negS : vector<2x2xf32>
            scf.yield %y : vector<2x2xf32>
          }
          %x00 = vector.extract %arg[0, 0] : f32 from vector<2x2xf32>
          %x01 = vector.extract %arg[0, 1] : f32 from vector<2x2xf32>
          %x10 = vector.extract %arg[1, 0] : f32 from vector<2x2xf32>
          %x11 = vector.extract %arg[1, 1] : f32 from vector<2x2xf32>
          %p00 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%x00) : (f32) -> f32
          %p01 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%x01) : (f32) -> f32
          %p10 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%x10) : (f32) -> f32
          %p11 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%x11) : (f32) -> f32
          %p = vector.from_elements %p00, %p01, %p10, %p11 : vector<2x2xf32>
          %sumA = arith.addf %p00, %p01 : f32
          %sumB = arith.addf %p10, %p11 : f32
          %lA = vector.extract %ls[%rA] : f32 from !rows
          %lB = vector.extract %ls[%rB] : f32 from !rows
          %lA2 = arith.addf %lA, %sumA : f32
          %lB2 = arith.addf %lB, %sumB : f32
          %ls1 = vector.insert %lA2, %ls[%rA] : f32 into !rows
          %ls2 = vector.insert %lB2, %ls1[%rB] : f32 into !rows
          %pa2 = vector.insert %p, %pa[%mt, %e] : vector<2x2xf32> into !sacc
          scf.yield %pa2, %ls2 : !sacc, !rows
        } {unroll}
        scf.yield %perTile#0, %perTile#1 : !sacc, !rows
      } {unroll}
      %lScaled = arith.mulf %lRun, %alpha : !rows
      %lNew = arith.addf %lScaled, %pv#1 : !rows

      // O = O * alpha + P V.
      %oScaled = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%oa0 = %oAcc) -> (!oacc) {
        %rA = arith.muli %mt, %c2 : index
        %rB = arith.addi %rA, %c1 : index
        %alphaA = vector.extract %alpha[%rA] : f32 from !rows
        %alphaB = vector.extract %alpha[%rB] : f32 from !rows
        %alphaM = vector.from_elements %alphaA, %alphaA, %alphaB, %alphaB : vector<2x2xf32>
        %perTile = scf.for %e = %c0 to %cNTO step %c1 iter_args(%oa = %oa0) -> (!oacc) {
          %ov = vector.extract %oa[%mt, %e] : vector<2x2xf32> from !oacc
          %os = arith.mulf %ov, %alphaM : vector<2x2xf32>
          %oa2 = vector.insert %os, %oa[%mt, %e] : vector<2x2xf32> into !oacc
          scf.yield %oa2 : !oacc
        } {unroll}
        scf.yield %perTile : !oacc
      } {unroll}
      %pHalf = arith.truncf %pv#0 : !sacc to vector<{MTW}x{NT_S}x2x2x{T}>
      %oNew = scf.for %kk = %c0 to %cKP step %c1 iter_args(%oa = %oScaled) -> (!oacc) {
        %e0 = arith.muli %kk, %c2 : index
        %e1 = arith.addi %e0, %c1 : index
        %r0 = arith.muli %kk, %c16 : index
        %row = arith.addi %r0, %vRowL : index
        %oOut = scf.for %np = %c0 to %cKQ step %c1 iter_args(%ob = %oa) -> (!oacc) {
          %ch0 = arith.muli %np, %c2 : index
          %ch = arith.addi %ch0, %l16 : index
          %pch = arith.xori %ch, %lSwz : index
          %pcol = arith.muli %pch, %c8 : index
          %bq = nvgpu.ldmatrix %Vs[%st, %row, %pcol] {numTiles = 4 : i32, transpose = true}
            : !skv -> vector<4x2x{T}>
          %b0 = vector.shuffle %bq, %bq [0, 1] : vector<4x2x{T}>, vector<4x2x{T}>
          %b1 = vector.shuffle %bq, %bq [2, 3] : vector<4x2x{T}>, vector<4x2x{T}>
          %n0 = arith.muli %np, %c2 : index
          %n1 = arith.addi %n0, %c1 : index
          %om = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%oc = %ob) -> (!oacc) {
            %pA = vector.extract %pHalf[%mt, %e0] : vector<2x2x{T}> from vector<{MTW}x{NT_S}x2x2x{T}>
            %pB = vector.extract %pHalf[%mt, %e1] : vector<2x2x{T}> from vector<{MTW}x{NT_S}x2x2x{T}>
            %a = vector.shuffle %pA, %pB [0, 1, 2, 3] : vector<2x2x{T}>, vector<2x2x{T}>
            %c0v = vector.extract %oc[%mt, %n0] : vector<2x2xf32> from !oacc
            %c1v = vector.extract %oc[%mt, %n1] : vector<2x2xf32> from !oacc
            %d0 = nvgpu.mma.sync (%a, %b0, %c0v) {mmaShape = [16, 8, 16]}
              : (vector<4x2x{T}>, vector<2x2x{T}>, vector<2x2xf32>) -> vector<2x2xf32>
            %d1 = nvgpu.mma.sync (%a, %b1, %c1v) {mmaShape = [16, 8, 16]}
              : (vector<4x2x{T}>, vector<2x2x{T}>, vector<2x2xf32>) -> vector<2x2xf32>
            %u0 = vector.insert %d0, %oc[%mt, %n0] : vector<2x2xf32> into !oacc
            %u1 = vector.insert %d1, %u0[%mt, %n1] : vector<2x2xf32> into !oacc
            scf.yield %u1 : !oacc
          } {unroll}
          scf.yield %om : !oacc
        } {unroll}
        scf.yield %oOut : !oacc
      } {unroll}
      // Every warp is done with stage j % {STAGES} before it is refilled.
      gpu.barrier
      scf.yield %oNew, %mNew, %lNew : !oacc, !rows, !rows
    }

    // Epilogue: the row sums over the quad, O / l (0 for an empty row with nan_to_zero),
    // rounded to {T}; rows past Sq are not stored.
    nvvm.cp.async.wait.group 0
    %lSum = scf.for %r = %c0 to %cRows step %c1 iter_args(%lv0 = %res#2) -> (!rows) {
      %l = vector.extract %lv0[%r] : f32 from !rows
      %s1, %v1 = gpu.shuffle xor %l, %i1, %i32w : f32
      %l1 = arith.addf %l, %s1 : f32
      %s2, %v2 = gpu.shuffle xor %l1, %i2, %i32w : f32
      %l2 = arith.addf %l1, %s2 : f32
      %lv1 = vector.insert %l2, %lv0[%r] : f32 into !rows
      scf.yield %lv1 : !rows
    } {unroll}
    %oneV = arith.constant dense<1.0> : !rows
    %inv0 = arith.divf %oneV, %lSum : !rows
    %isZero = arith.cmpf oeq, %lSum, %z0 : !rows
    %nzV = vector.broadcast %nanToZero : i1 to vector<{ROWS}xi1>
    %zap = arith.andi %isZero, %nzV : vector<{ROWS}xi1>
    %inv = arith.select %zap, %z0, %inv0 : vector<{ROWS}xi1>, !rows
    scf.for %mt = %c0 to %cMTW step %c1 {
      %mtRows = arith.muli %mt, %c16 : index
      %rowOA = arith.addi %rowA, %mtRows : index
      %rowOB = arith.addi %rowOA, %c8 : index
      %insideA = arith.cmpi ult, %rowOA, %sq : index
      %insideB = arith.cmpi ult, %rowOB, %sq : index
      %rA = arith.muli %mt, %c2 : index
      %rB = arith.addi %rA, %c1 : index
      %invA = vector.extract %inv[%rA] : f32 from !rows
      %invB = vector.extract %inv[%rB] : f32 from !rows
      %invAV = vector.broadcast %invA : f32 to vector<2xf32>
      %invBV = vector.broadcast %invB : f32 to vector<2xf32>
      scf.for %e = %c0 to %cNTO step %c1 {
        %ov = vector.extract %res#0[%mt, %e] : vector<2x2xf32> from !oacc
        %c8e = arith.muli %e, %c8 : index
        %col = arith.addi %c8e, %t2 : index
        %oA = vector.extract %ov[0] : vector<2xf32> from vector<2x2xf32>
        %oB = vector.extract %ov[1] : vector<2xf32> from vector<2x2xf32>
        %yA = arith.mulf %oA, %invAV : vector<2xf32>
        %yB = arith.mulf %oB, %invBV : vector<2xf32>
        %hA = arith.truncf %yA : vector<2xf32> to vector<2x{T}>
        %hB = arith.truncf %yB : vector<2xf32> to vector<2x{T}>
        scf.if %insideA {
          vector.store %hA, %Og[%rowOA, %col] {alignment = 4} : !gmem, vector<2x{T}>
        }
        scf.if %insideB {
          vector.store %hB, %Og[%rowOB, %col] {alignment = 4} : !gmem, vector<2x{T}>
        }
      } {unroll}
    } {unroll}
    gpu.return
  }
}
