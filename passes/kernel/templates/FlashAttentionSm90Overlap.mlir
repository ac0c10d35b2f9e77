// The Hopper (sm_90a) flash-attention template of kernel-attention-sm80 with the
// FlashAttention-3 ordering inside a warpgroup (passes/kernel/AttentionSm80.cpp,
// docs/codegen-attention.md, "Softmax overlapped with the products"). The same kernel as
// FlashAttentionSm90.mlir (wgmma m64nNk16 for both products, the same masking, online
// softmax and epilogue), with the loop reordered so that the tensor cores work while the
// warpgroup runs its softmax:
//
//   prologue: S(0) = Q K(0)^T, waited for
//   iteration j (S(j) in registers, O += P(j-1) V(j-1) maybe still running):
//     issue S(j+1) = Q K(j+1)^T          (commit, no wait)
//     softmax of S(j) -> P(j), alpha      (under S(j+1) and P(j-1) V(j-1))
//     wgmma.wait_group 0                  (P(j-1) V(j-1) and S(j+1) done: rescale O)
//     O *= alpha; issue O += P(j) V(j)    (commit, no wait)
//     wgmma.wait_group 1                  (S(j+1) done; P(j) V(j) may still run)
//   wgmma.wait_group 0
//
// Each product is an issue block (fence, k-steps, commit) and each wait a block of its
// own; both take the accumulators as tied operands, so no read of them moves above the
// wait. S needs two accumulators (this tile's, and the next tile's in flight).
// K and V have rings of their own, 2 stages each, filled by cp.async at different points:
// K(j+2) once every warpgroup has finished S(j) (the barrier at the top of iteration j),
// V(j+1) once every warpgroup has finished P(j-1) V(j-1) (the barrier in the middle).
// cp.async groups, in order: [Q K(0) V(0)] [K(1)] [] then per iteration [K(j+2)]
// [V(j+1)] (empty when past the end), so that "wait_group 1" is the right wait at both
// points. {STAGES} is 2. D = 64 only.
//
// Placeholders: those of FlashAttentionSm90.mlir, with WGMMA_QK0 (S(0), waited for),
// WGMMA_QK and WGMMA_PV (issue blocks), WGMMA_WAIT_O, WGMMA_WAIT_S and WGMMA_WAIT_END
// (wait blocks).

!gmem = memref<?x{D}x{T}, strided<[{D}, 1], offset: ?>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!sq = memref<{BQ}x{D}x{T}, #gpu.address_space<workgroup>>
!skv = memref<{STAGES}x{BKV}x{D}x{T}, #gpu.address_space<workgroup>>
!sacc = vector<{MTW}x{NT_S}x2x2xf32>
!oacc = vector<{MTW}x{NT_O}x2x2xf32>

!rows = vector<{ROWS}xf32>

gpu.module @{MODULE} {

  // Grid (ceil(Sq / {BQ}), B * H, 1), block ({THREADS}, 1, 1), dynamic shared memory
  // {V_OFF} + {STAGES} * {KV_STAGE} bytes. Q, K, V, O: bare pointers to row-major
  // [B, H, S, {D}] buffers (Sq rows for Q and O, Skv for K and V). Mask: a bare pointer to
  // the additive mask (read only with {HAS_MASK}), element (b, h, i, j) at b * %mB + h *
  // %mH + i * %mQ + j * %mK (0 strides broadcast). %scale multiplies Q K^T.
  gpu.func @{ENTRY}(%Q: memref<{T}>, %K: memref<{T}>, %V: memref<{T}>, %O: memref<{T}>,
                    %Mask: memref<{MT}>, %H: i32, %Sq: i32, %Skv: i32, %mB: i32, %mH: i32,
                    %mQ: i32, %mK: i32, %scale: f32)
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

    // This head's rows of Q, K, V, O.
    %qOff0 = arith.muli %bh, %sq : index
    %qOff = arith.muli %qOff0, %cD : index
    %kvOff0 = arith.muli %bh, %skv : index
    %kvOff = arith.muli %kvOff0, %cD : index
    %Qg = memref.reinterpret_cast %Q to offset: [%qOff], sizes: [%sq, {D}], strides: [{D}, 1]
      : memref<{T}> to !gmem
    %Kg = memref.reinterpret_cast %K to offset: [%kvOff], sizes: [%skv, {D}], strides: [{D}, 1]
      : memref<{T}> to !gmem
    %Vg = memref.reinterpret_cast %V to offset: [%kvOff], sizes: [%skv, {D}], strides: [{D}, 1]
      : memref<{T}> to !gmem
    %Og = memref.reinterpret_cast %O to offset: [%qOff], sizes: [%sq, {D}], strides: [{D}, 1]
      : memref<{T}> to !gmem

    // The mask of this (batch, head): element (i, j) at %mBase + i * %mRow + j * %mCol.
    %maskAll = memref.reinterpret_cast %Mask to offset: [0], sizes: [1073741824], strides: [1]
      : memref<{MT}> to memref<1073741824x{MT}>
    %b = arith.divui %bh, %heads : index
    %h = arith.remui %bh, %heads : index
    %mBi = arith.index_castui %mB : i32 to index
    %mHi = arith.index_castui %mH : i32 to index
    %mRow = arith.index_castui %mQ : i32 to index
    %mCol = arith.index_castui %mK : i32 to index
    %mBase0 = arith.muli %b, %mBi : index
    %mBase1 = arith.muli %h, %mHi : index
    %mBase = arith.addi %mBase0, %mBase1 : index

    // Shared memory: Q at 0, the K ring at {K_OFF}, the V ring at {V_OFF}. Rows are {D}
    // elements; the 16-byte chunk c of row r is stored at chunk c ^ (r % 8), so that the
    // 8 rows an ldmatrix phase reads fall in distinct banks.
    // The tiles start at a 1024-aligned offset %base of dynamic shared memory (the launch
    // gives 1024 bytes more): the 128-byte swizzle of the wgmma descriptors (base offset
    // 0) repeats every 1024 bytes of address.
    %dyn = gpu.dynamic_shared_memory : !smem
    %c1023 = arith.constant 1023 : index
    %c1024 = arith.constant 1024 : index
    %addr = memref.extract_aligned_pointer_as_index %dyn : !smem -> index
    %addrUp = arith.addi %addr, %c1023 : index
    %addrRem = arith.remui %addrUp, %c1024 : index
    %aligned = arith.subi %addrUp, %addrRem : index
    %base = arith.subi %aligned, %addr : index
    %kOffB0 = arith.constant {K_OFF} : index
    %vOffB0 = arith.constant {V_OFF} : index
    %kOffB = arith.addi %base, %kOffB0 : index
    %vOffB = arith.addi %base, %vOffB0 : index
    %Qs = memref.view %dyn[%base][] : !smem to !sq
    %Ks = memref.view %dyn[%kOffB][] : !smem to !skv
    %Vs = memref.view %dyn[%vOffB][] : !smem to !skv
    // wgmma descriptors: start address / 16 (bits 0-13), leading and stride byte offsets
    // 1024 / 16 (bits 16-29, 32-45: the stride between 8-row groups), 128-byte swizzle
    // (bits 62-63 = 1). Only the start address changes.
    %descConst = arith.constant 4611686293309489152 : i64
    %i4_64 = arith.constant 4 : i64
    %zeroI32 = arith.constant 0 : i32
    %cKvStage = arith.constant {KV_STAGE} : index
    // Q's descriptor: this warpgroup's 64 rows (8192 bytes) of the Q tile.
    %wg = arith.divui %warp, %c4 : index
    %c8192 = arith.constant 8192 : index
    %qWgOff = arith.muli %wg, %c8192 : index
    %qAddr = arith.addi %aligned, %qWgOff : index
    %qAddrI = arith.index_castui %qAddr : index to i64
    %qAddr16 = arith.shrui %qAddrI, %i4_64 : i64
    %descQ = arith.addi %qAddr16, %descConst : i64
    %kBase = arith.addi %aligned, %kOffB0 : index
    %vBase = arith.addi %aligned, %vOffB0 : index

    // Q: {Q_CHUNKS} 16-byte copies a thread; rows past Sq read nothing and are zeroed.
    scf.for %i = %c0 to %cQChunks step %c1 {
      %i0 = arith.muli %i, %cThreads : index
      %chunk = arith.addi %i0, %tid : index
      %row = arith.divui %chunk, %cCpr : index
      %cc = arith.remui %chunk, %cCpr : index
      %r8 = arith.remui %row, %c8 : index
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

    // Prologue: K and V of tile 0 join Q's group; K(1) is the second group, and an empty
    // third keeps the waits of the loop uniform (wait_group 1 there).
    %tileStart1 = arith.muli %c0, %cBKV : index
    %tileEnd0 = arith.addi %tileStart1, %cBKV : index
    %tileFull0 = arith.cmpi ule, %tileEnd0, %skv : index
    // A whole tile inside Skv (the usual case) needs no bounds arithmetic.
    scf.if %tileFull0 {
      scf.for %i = %c0 to %cKvChunks step %c1 {
        %i0 = arith.muli %i, %cThreads : index
        %chunk = arith.addi %i0, %tid : index
        %row = arith.divui %chunk, %cCpr : index
        %cc = arith.remui %chunk, %cCpr : index
        %r8 = arith.remui %row, %c8 : index
        %pc0 = arith.xori %cc, %r8 : index
        %pc = arith.muli %pc0, %c8 : index
        %col = arith.muli %cc, %c8 : index
        %kvRow0 = arith.muli %c0, %cBKV : index
        %grow = arith.addi %kvRow0, %row : index
        %tK = nvgpu.device_async_copy %Kg[%grow, %col], %Ks[%c0, %row, %pc], 8 {bypassL1}
          : !gmem to !skv
        %tV = nvgpu.device_async_copy %Vg[%grow, %col], %Vs[%c0, %row, %pc], 8 {bypassL1}
          : !gmem to !skv
      } {unroll}
    } else {
      scf.for %i = %c0 to %cKvChunks step %c1 {
        %i0 = arith.muli %i, %cThreads : index
        %chunk = arith.addi %i0, %tid : index
        %row = arith.divui %chunk, %cCpr : index
        %cc = arith.remui %chunk, %cCpr : index
        %r8 = arith.remui %row, %c8 : index
        %pc0 = arith.xori %cc, %r8 : index
        %pc = arith.muli %pc0, %c8 : index
        %col = arith.muli %cc, %c8 : index
        %kvRow0 = arith.muli %c0, %cBKV : index
        %grow = arith.addi %kvRow0, %row : index
        %inside = arith.cmpi ult, %grow, %skv : index
        %srow = arith.minui %grow, %skvLast : index
        %n = arith.select %inside, %c8, %c0 : index
        %tK = nvgpu.device_async_copy %Kg[%srow, %col], %Ks[%c0, %row, %pc], 8, %n {bypassL1}
          : !gmem to !skv
        %tV = nvgpu.device_async_copy %Vg[%srow, %col], %Vs[%c0, %row, %pc], 8, %n {bypassL1}
          : !gmem to !skv
      } {unroll}
    }
    nvvm.cp.async.commit.group
    %hasTile1 = arith.cmpi ult, %c1, %numKv : index
    scf.if %hasTile1 {
      %tileStart2 = arith.muli %c1, %cBKV : index
      %tileEnd1 = arith.addi %tileStart2, %cBKV : index
      %tileFull1 = arith.cmpi ule, %tileEnd1, %skv : index
      // A whole tile inside Skv (the usual case) needs no bounds arithmetic.
      scf.if %tileFull1 {
        scf.for %i = %c0 to %cKvChunks step %c1 {
          %i0 = arith.muli %i, %cThreads : index
          %chunk = arith.addi %i0, %tid : index
          %row = arith.divui %chunk, %cCpr : index
          %cc = arith.remui %chunk, %cCpr : index
          %r8 = arith.remui %row, %c8 : index
          %pc0 = arith.xori %cc, %r8 : index
          %pc = arith.muli %pc0, %c8 : index
          %col = arith.muli %cc, %c8 : index
          %kvRow0 = arith.muli %c1, %cBKV : index
          %grow = arith.addi %kvRow0, %row : index
          %tK = nvgpu.device_async_copy %Kg[%grow, %col], %Ks[%c1, %row, %pc], 8 {bypassL1}
            : !gmem to !skv
        } {unroll}
      } else {
        scf.for %i = %c0 to %cKvChunks step %c1 {
          %i0 = arith.muli %i, %cThreads : index
          %chunk = arith.addi %i0, %tid : index
          %row = arith.divui %chunk, %cCpr : index
          %cc = arith.remui %chunk, %cCpr : index
          %r8 = arith.remui %row, %c8 : index
          %pc0 = arith.xori %cc, %r8 : index
          %pc = arith.muli %pc0, %c8 : index
          %col = arith.muli %cc, %c8 : index
          %kvRow0 = arith.muli %c1, %cBKV : index
          %grow = arith.addi %kvRow0, %row : index
          %inside = arith.cmpi ult, %grow, %skv : index
          %srow = arith.minui %grow, %skvLast : index
          %n = arith.select %inside, %c8, %c0 : index
          %tK = nvgpu.device_async_copy %Kg[%srow, %col], %Ks[%c1, %row, %pc], 8, %n {bypassL1}
            : !gmem to !skv
        } {unroll}
      }
    }
    nvvm.cp.async.commit.group
    nvvm.cp.async.commit.group
    // Q, K(0) and V(0) (the first group) have landed for every thread.
    nvvm.cp.async.wait.group 2
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    gpu.barrier

    // This warp's rows of the CTA's: 16 warp .. 16 warp + 15 (warpgroup warp / 4, its
    // warp warp % 4). Q stays in shared memory: S = Q K^T reads it through %descQ.
    %qRow0 = arith.muli %warp, %c16 : index

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

    %o0 = arith.constant dense<0.0> : !oacc
    %m0 = arith.constant dense<0xFF800000> : !rows
    %z0 = arith.constant dense<0.0> : !rows
    // S = Q K^T ignores its accumulator's input (scale-d = 0 on the first k-step): poison
    // there, not zeros (64-128 moves an iteration).
    %sIn = ub.poison : !sacc
    // S(0) = Q K(0)^T, waited for: the loop starts each iteration with S(j) in registers.
    %kAddr0 = arith.index_castui %kBase : index to i64
    %kAddr0s = arith.shrui %kAddr0, %i4_64 : i64
    %descK0 = arith.addi %kAddr0s, %descConst : i64
{WGMMA_QK0}
    %res:4 = scf.for %j = %c0 to %numKv step %c1
        iter_args(%sAcc = %sFirst, %oAcc = %o0, %mRun = %m0, %lRun = %z0)
        -> (!sacc, !oacc, !rows, !rows) {
      %j1 = arith.addi %j, %c1 : index
      %j2 = arith.addi %j, %c2 : index
      %st = arith.remui %j, %cStages : index
      %st1 = arith.remui %j1, %cStages : index
      %kv0 = arith.muli %j, %cBKV : index
      // K(j+1) has landed for every thread and is visible to wgmma; every warpgroup has
      // finished S(j), so K's stage j % 2 may be refilled with K(j+2).
      nvvm.cp.async.wait.group 1
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      gpu.barrier
      %hasK2 = arith.cmpi ult, %j2, %numKv : index
      scf.if %hasK2 {
        %tileStart3 = arith.muli %j2, %cBKV : index
        %tileEnd2 = arith.addi %tileStart3, %cBKV : index
        %tileFull2 = arith.cmpi ule, %tileEnd2, %skv : index
        // A whole tile inside Skv (the usual case) needs no bounds arithmetic.
        scf.if %tileFull2 {
          scf.for %i = %c0 to %cKvChunks step %c1 {
            %i0 = arith.muli %i, %cThreads : index
            %chunk = arith.addi %i0, %tid : index
            %row = arith.divui %chunk, %cCpr : index
            %cc = arith.remui %chunk, %cCpr : index
            %r8 = arith.remui %row, %c8 : index
            %pc0 = arith.xori %cc, %r8 : index
            %pc = arith.muli %pc0, %c8 : index
            %col = arith.muli %cc, %c8 : index
            %kvRow0 = arith.muli %j2, %cBKV : index
            %grow = arith.addi %kvRow0, %row : index
            %tK = nvgpu.device_async_copy %Kg[%grow, %col], %Ks[%st, %row, %pc], 8 {bypassL1}
              : !gmem to !skv
          } {unroll}
        } else {
          scf.for %i = %c0 to %cKvChunks step %c1 {
            %i0 = arith.muli %i, %cThreads : index
            %chunk = arith.addi %i0, %tid : index
            %row = arith.divui %chunk, %cCpr : index
            %cc = arith.remui %chunk, %cCpr : index
            %r8 = arith.remui %row, %c8 : index
            %pc0 = arith.xori %cc, %r8 : index
            %pc = arith.muli %pc0, %c8 : index
            %col = arith.muli %cc, %c8 : index
            %kvRow0 = arith.muli %j2, %cBKV : index
            %grow = arith.addi %kvRow0, %row : index
            %inside = arith.cmpi ult, %grow, %skv : index
            %srow = arith.minui %grow, %skvLast : index
            %n = arith.select %inside, %c8, %c0 : index
            %tK = nvgpu.device_async_copy %Kg[%srow, %col], %Ks[%st, %row, %pc], 8, %n {bypassL1}
              : !gmem to !skv
          } {unroll}
        }
      }
      nvvm.cp.async.commit.group
      // S(j+1) = Q K(j+1)^T: issued (committed) now, waited for at the end of the
      // iteration. Past the last tile nothing is issued and the result is poison: a
      // constant there would be moves into the accumulator registers of the other path's
      // group in flight, which makes ptxas serialise every wgmma (C7515).
      %hasNext = arith.cmpi ult, %j1, %numKv : index
      %sIssued = scf.if %hasNext -> (!sacc) {
        %stOff1 = arith.muli %st1, %cKvStage : index
        %kAddr = arith.addi %kBase, %stOff1 : index
        %kAddrI = arith.index_castui %kAddr : index to i64
        %kAddr16 = arith.shrui %kAddrI, %i4_64 : i64
        %descK = arith.addi %kAddr16, %descConst : i64
{WGMMA_QK}
        scf.yield %sNew : !sacc
      } else {
        scf.yield %sIn : !sacc
      }
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
      %maskedS = scf.if %needs -> (!sacc) {
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
      } else {
        scf.yield %sAcc : !sacc
      }
      // The row maxima of this thread's columns (max.f32 through nvvm.fmax: arith.maxnumf
      // and maximumf lower to setp.nan, setp.le and three selp each, 5 instructions).
      // Four partial maxima a row (column pair parity x even/odd tile): chains a quarter
      // as long, so that the few warps of an SM hide their latency.
      %m4 = arith.constant dense<0xFF800000> : vector<4x{ROWS}xf32>
      %rowMax4 = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%mx0 = %m4)
          -> (vector<4x{ROWS}xf32>) {
        %r2 = arith.muli %mt, %c2 : index
        %perTile = scf.for %e = %c0 to %cNTS step %c1 iter_args(%mx = %mx0)
            -> (vector<4x{ROWS}xf32>) {
          %eOdd = arith.remui %e, %c2 : index
          %part0 = arith.muli %eOdd, %c2 : index
          %inner = scf.for %q = %c0 to %c4 step %c1 iter_args(%my = %mx)
              -> (vector<4x{ROWS}xf32>) {
            %hi = arith.divui %q, %c2 : index
            %lo = arith.remui %q, %c2 : index
            %r = arith.addi %r2, %hi : index
            %part = arith.addi %part0, %lo : index
            %sx = vector.extract %maskedS[%mt, %e, %hi, %lo] : f32 from !sacc
            %mo = vector.extract %my[%part, %r] : f32 from vector<4x{ROWS}xf32>
            %mn = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%mo, %sx) : (f32, f32) -> f32
            %my2 = vector.insert %mn, %my[%part, %r] : f32 into vector<4x{ROWS}xf32>
            scf.yield %my2 : vector<4x{ROWS}xf32>
          } {unroll}
          scf.yield %inner : vector<4x{ROWS}xf32>
        } {unroll}
        scf.yield %perTile : vector<4x{ROWS}xf32>
      } {unroll}
      %rowMax = scf.for %r = %c0 to %cRows step %c1 iter_args(%rm0 = %m0) -> (!rows) {
        %x0 = vector.extract %rowMax4[0, %r] : f32 from vector<4x{ROWS}xf32>
        %x1 = vector.extract %rowMax4[1, %r] : f32 from vector<4x{ROWS}xf32>
        %x2 = vector.extract %rowMax4[2, %r] : f32 from vector<4x{ROWS}xf32>
        %x3 = vector.extract %rowMax4[3, %r] : f32 from vector<4x{ROWS}xf32>
        %y0 = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%x0, %x1) : (f32, f32) -> f32
        %y1 = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%x2, %x3) : (f32, f32) -> f32
        %y = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%y0, %y1) : (f32, f32) -> f32
        %rm1 = vector.insert %y, %rm0[%r] : f32 into !rows
        scf.yield %rm1 : !rows
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
      %z2 = arith.constant dense<0.0> : vector<2x{ROWS}xf32>
      // f16 operands: P = ex2.approx.f16x2 of the arguments rounded to f16 (one MUFU op for
      // two elements; P is rounded to f16 for P V anyway), row sums in f16x2 pairs (two
      // partial sums a row), widened once a tile. bf16 (8-bit mantissa arguments would be
      // too coarse) and KILN_FLASH_ATTENTION_F32_EXP=1 keep f32 exp2.
      %halfExp = arith.constant {HALF_EXP}
      %pOut:2 = scf.if %halfExp -> (vector<{MTW}x{NT_S}x2x2x{T}>, !rows) {
        %ph0 = ub.poison : vector<{MTW}x{NT_S}x2x2x{T}>
        %zh = arith.constant dense<0.0> : vector<2x{ROWS}x2x{T}>
        %hv:2 = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%pa0 = %ph0, %ls0 = %zh)
            -> (vector<{MTW}x{NT_S}x2x2x{T}>, vector<2x{ROWS}x2x{T}>) {
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
              -> (vector<{MTW}x{NT_S}x2x2x{T}>, vector<2x{ROWS}x2x{T}>) {
            %eOdd = arith.remui %e, %c2 : index
            %sx = vector.extract %maskedS[%mt, %e] : vector<2x2xf32> from !sacc
            %arg = scf.if %hasMask -> (vector<2x2xf32>) {
              %ds = arith.subf %sx, %mR : vector<2x2xf32>
              %y = arith.mulf %ds, %fV : vector<2x2xf32>
              scf.yield %y : vector<2x2xf32>
            } else {
              %y = math.fma %sx, %fV, %negS : vector<2x2xf32>
              scf.yield %y : vector<2x2xf32>
            }
            %argH = arith.truncf %arg : vector<2x2xf32> to vector<2x2x{T}>
            %aA = vector.extract %argH[0] : vector<2x{T}> from vector<2x2x{T}>
            %aB = vector.extract %argH[1] : vector<2x{T}> from vector<2x2x{T}>
            %wA = vector.bitcast %aA : vector<2x{T}> to vector<1xi32>
            %wB = vector.bitcast %aB : vector<2x{T}> to vector<1xi32>
            %iA = vector.extract %wA[0] : i32 from vector<1xi32>
            %iB = vector.extract %wB[0] : i32 from vector<1xi32>
            %eA = llvm.inline_asm asm_dialect = att "ex2.approx.f16x2 $0, $1;", "=r,r" %iA : (i32) -> i32
            %eB = llvm.inline_asm asm_dialect = att "ex2.approx.f16x2 $0, $1;", "=r,r" %iB : (i32) -> i32
            %vA = vector.from_elements %eA : vector<1xi32>
            %vB = vector.from_elements %eB : vector<1xi32>
            %pA = vector.bitcast %vA : vector<1xi32> to vector<2x{T}>
            %pB = vector.bitcast %vB : vector<1xi32> to vector<2x{T}>
            %pa1 = vector.insert %pA, %pa[%mt, %e, 0] : vector<2x{T}> into vector<{MTW}x{NT_S}x2x2x{T}>
            %pa2 = vector.insert %pB, %pa1[%mt, %e, 1] : vector<2x{T}> into vector<{MTW}x{NT_S}x2x2x{T}>
            %lA = vector.extract %ls[%eOdd, %rA] : vector<2x{T}> from vector<2x{ROWS}x2x{T}>
            %lB = vector.extract %ls[%eOdd, %rB] : vector<2x{T}> from vector<2x{ROWS}x2x{T}>
            %lA2 = arith.addf %lA, %pA : vector<2x{T}>
            %lB2 = arith.addf %lB, %pB : vector<2x{T}>
            %ls1 = vector.insert %lA2, %ls[%eOdd, %rA] : vector<2x{T}> into vector<2x{ROWS}x2x{T}>
            %ls2 = vector.insert %lB2, %ls1[%eOdd, %rB] : vector<2x{T}> into vector<2x{ROWS}x2x{T}>
            scf.yield %pa2, %ls2 : vector<{MTW}x{NT_S}x2x2x{T}>, vector<2x{ROWS}x2x{T}>
          } {unroll}
          scf.yield %perTile#0, %perTile#1 : vector<{MTW}x{NT_S}x2x2x{T}>, vector<2x{ROWS}x2x{T}>
        } {unroll}
        %hw = arith.extf %hv#1 : vector<2x{ROWS}x2x{T}> to vector<2x{ROWS}x2xf32>
        %hSum = scf.for %r = %c0 to %cRows step %c1 iter_args(%hs0 = %z0) -> (!rows) {
          %h0 = vector.extract %hw[0, %r, 0] : f32 from vector<2x{ROWS}x2xf32>
          %h1 = vector.extract %hw[0, %r, 1] : f32 from vector<2x{ROWS}x2xf32>
          %h2 = vector.extract %hw[1, %r, 0] : f32 from vector<2x{ROWS}x2xf32>
          %h3 = vector.extract %hw[1, %r, 1] : f32 from vector<2x{ROWS}x2xf32>
          %h01 = arith.addf %h0, %h1 : f32
          %h23 = arith.addf %h2, %h3 : f32
          %hsum = arith.addf %h01, %h23 : f32
          %hs1 = vector.insert %hsum, %hs0[%r] : f32 into !rows
          scf.yield %hs1 : !rows
        } {unroll}
        scf.yield %hv#0, %hSum : vector<{MTW}x{NT_S}x2x2x{T}>, !rows
      } else {
      %pv:2 = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%pa0 = %maskedS, %ls0 = %z2)
          -> (!sacc, vector<2x{ROWS}xf32>) {
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
            -> (!sacc, vector<2x{ROWS}xf32>) {
          %eOdd = arith.remui %e, %c2 : index
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
          %lA = vector.extract %ls[%eOdd, %rA] : f32 from vector<2x{ROWS}xf32>
          %lB = vector.extract %ls[%eOdd, %rB] : f32 from vector<2x{ROWS}xf32>
          %lA2 = arith.addf %lA, %sumA : f32
          %lB2 = arith.addf %lB, %sumB : f32
          %ls1 = vector.insert %lA2, %ls[%eOdd, %rA] : f32 into vector<2x{ROWS}xf32>
          %ls2 = vector.insert %lB2, %ls1[%eOdd, %rB] : f32 into vector<2x{ROWS}xf32>
          %pa2 = vector.insert %p, %pa[%mt, %e] : vector<2x2xf32> into !sacc
          scf.yield %pa2, %ls2 : !sacc, vector<2x{ROWS}xf32>
        } {unroll}
        scf.yield %perTile#0, %perTile#1 : !sacc, vector<2x{ROWS}xf32>
      } {unroll}
        // The row sums of this tile: two partial sums a row (even and odd n8 tiles).
        %pSumE = vector.extract %pv#1[0] : vector<{ROWS}xf32> from vector<2x{ROWS}xf32>
        %pSumO = vector.extract %pv#1[1] : vector<{ROWS}xf32> from vector<2x{ROWS}xf32>
        %pSum = arith.addf %pSumE, %pSumO : !rows
        %pHalfF = arith.truncf %pv#0 : !sacc to vector<{MTW}x{NT_S}x2x2x{T}>
        scf.yield %pHalfF, %pSum : vector<{MTW}x{NT_S}x2x2x{T}>, !rows
      }
      %lScaled = arith.mulf %lRun, %alpha : !rows
      %lNew = arith.addf %lScaled, %pOut#1 : !rows

      // P(j-1) V(j-1) (and S(j+1)) have completed: O may be rescaled. (Waiting for P(j-1)
      // V(j-1) alone, wait_group 1, is what the order allows, but ptxas 13.0 cannot follow
      // two wait_group 1 in the loop and serialises every wgmma (C7514); S(j+1) was issued
      // first and runs under the softmax, so it is mostly done here anyway.)
{WGMMA_WAIT_O}
      // V(j) has landed for every thread and is visible; every warpgroup has finished
      // P(j-1) V(j-1), so V's stage (j+1) % 2 may be refilled with V(j+1).
      nvvm.cp.async.wait.group 1
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      gpu.barrier
      scf.if %hasNext {
        %tileStart4 = arith.muli %j1, %cBKV : index
        %tileEnd3 = arith.addi %tileStart4, %cBKV : index
        %tileFull3 = arith.cmpi ule, %tileEnd3, %skv : index
        // A whole tile inside Skv (the usual case) needs no bounds arithmetic.
        scf.if %tileFull3 {
          scf.for %i = %c0 to %cKvChunks step %c1 {
            %i0 = arith.muli %i, %cThreads : index
            %chunk = arith.addi %i0, %tid : index
            %row = arith.divui %chunk, %cCpr : index
            %cc = arith.remui %chunk, %cCpr : index
            %r8 = arith.remui %row, %c8 : index
            %pc0 = arith.xori %cc, %r8 : index
            %pc = arith.muli %pc0, %c8 : index
            %col = arith.muli %cc, %c8 : index
            %kvRow0 = arith.muli %j1, %cBKV : index
            %grow = arith.addi %kvRow0, %row : index
            %tV = nvgpu.device_async_copy %Vg[%grow, %col], %Vs[%st1, %row, %pc], 8 {bypassL1}
              : !gmem to !skv
          } {unroll}
        } else {
          scf.for %i = %c0 to %cKvChunks step %c1 {
            %i0 = arith.muli %i, %cThreads : index
            %chunk = arith.addi %i0, %tid : index
            %row = arith.divui %chunk, %cCpr : index
            %cc = arith.remui %chunk, %cCpr : index
            %r8 = arith.remui %row, %c8 : index
            %pc0 = arith.xori %cc, %r8 : index
            %pc = arith.muli %pc0, %c8 : index
            %col = arith.muli %cc, %c8 : index
            %kvRow0 = arith.muli %j1, %cBKV : index
            %grow = arith.addi %kvRow0, %row : index
            %inside = arith.cmpi ult, %grow, %skv : index
            %srow = arith.minui %grow, %skvLast : index
            %n = arith.select %inside, %c8, %c0 : index
            %tV = nvgpu.device_async_copy %Vg[%srow, %col], %Vs[%st1, %row, %pc], 8, %n {bypassL1}
              : !gmem to !skv
          } {unroll}
        }
      }
      nvvm.cp.async.commit.group

      // O = O * alpha + P V.
      %oScaled = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%oa0 = %oReady) -> (!oacc) {
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
      // O += P(j) V(j): issued now, waited for in the next iteration (or after the loop).
      %stOff = arith.muli %st, %cKvStage : index
      %vAddr = arith.addi %vBase, %stOff : index
      %vAddrI = arith.index_castui %vAddr : index to i64
      %vAddr16 = arith.shrui %vAddrI, %i4_64 : i64
      %descV = arith.addi %vAddr16, %descConst : i64
{WGMMA_PV}
      // S(j+1) has completed (P(j) V(j) may still run).
{WGMMA_WAIT_S}
      scf.yield %sNext, %oNew, %mNew, %lNew : !sacc, !oacc, !rows, !rows
    }
    // The last P V.
{WGMMA_WAIT_END}
    // Epilogue: the row sums over the quad, O / l (0 for an empty row with nan_to_zero),
    // rounded to {T}; rows past Sq are not stored.
    nvvm.cp.async.wait.group 0
    %lSum = scf.for %r = %c0 to %cRows step %c1 iter_args(%lv0 = %res#3) -> (!rows) {
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
    // O goes out through shared memory, 16 bytes a store: each warp writes its 16 rows,
    // rounded to {T}, into the Q tile's rows (each warpgroup's S products, the only
    // readers of its 64 rows of Q, have completed), in the ring's swizzled layout (chunk
    // c of row r at c ^ (r % 8): a warp's 4-byte writes of one n8 tile hit 32 banks);
    // after a barrier the CTA stores whole rows, {Q_CHUNKS} 16-byte chunks a thread.
    %rowSA = arith.addi %qRow0, %g : index
    %rowSB = arith.addi %rowSA, %c8 : index
    %invA = vector.extract %inv[0] : f32 from !rows
    %invB = vector.extract %inv[1] : f32 from !rows
    %invAV = vector.broadcast %invA : f32 to vector<2xf32>
    %invBV = vector.broadcast %invB : f32 to vector<2xf32>
    scf.for %e = %c0 to %cNTO step %c1 {
      %ov = vector.extract %oFinal[0, %e] : vector<2x2xf32> from !oacc
      %chunkS = arith.xori %e, %g : index
      %c8e = arith.muli %chunkS, %c8 : index
      %col = arith.addi %c8e, %t2 : index
      %oA = vector.extract %ov[0] : vector<2xf32> from vector<2x2xf32>
      %oB = vector.extract %ov[1] : vector<2xf32> from vector<2x2xf32>
      %yA = arith.mulf %oA, %invAV : vector<2xf32>
      %yB = arith.mulf %oB, %invBV : vector<2xf32>
      %hA = arith.truncf %yA : vector<2xf32> to vector<2x{T}>
      %hB = arith.truncf %yB : vector<2xf32> to vector<2x{T}>
      vector.store %hA, %Qs[%rowSA, %col] {alignment = 4} : !sq, vector<2x{T}>
      vector.store %hB, %Qs[%rowSB, %col] {alignment = 4} : !sq, vector<2x{T}>
    } {unroll}
    gpu.barrier
    scf.for %i = %c0 to %cQChunks step %c1 {
      %i0 = arith.muli %i, %cThreads : index
      %chunk = arith.addi %i0, %tid : index
      %row = arith.divui %chunk, %cCpr : index
      %cc = arith.remui %chunk, %cCpr : index
      %r8 = arith.remui %row, %c8 : index
      %pc0 = arith.xori %cc, %r8 : index
      %pc = arith.muli %pc0, %c8 : index
      %col = arith.muli %cc, %c8 : index
      %grow = arith.addi %q0, %row : index
      %inside = arith.cmpi ult, %grow, %sq : index
      scf.if %inside {
        %y = vector.load %Qs[%row, %pc] : !sq, vector<8x{T}>
        vector.store %y, %Og[%grow, %col] {alignment = 16} : !gmem, vector<8x{T}>
      }
    } {unroll}
    gpu.return
  }
}
