// The warp-specialised Hopper (sm_90a) flash-attention template of flash_attention
// (passes/kernel/AttentionSm80.cpp): O = softmax(Q K^T * scale + mask) V with both
// products on wgmma, as FlashAttentionSm90.mlir computes it, but with the copies taken
// off the threads that compute. A CTA of 384 threads computes {BQ} = 128 query rows of one
// (batch, head): warpgroups 0 and 1 are consumers of 64 rows each (warp w owns rows 16 w
// .. 16 w + 15, the wgmma accumulator fragments of the other template), warpgroup 2 the
// producer, whose first thread loads the Q tile and a {STAGES}-stage ring of K and V
// tiles ({BKV} rows) by TMA through tensor maps of the [B, H, S, D] views (a box of 64
// columns, 128 bytes, per swizzle atom of a row; TMA fills what lies past Sq, Skv and D
// with zeros). full[s] (the producer's arrival plus the bytes) says stage s has landed,
// empty[s] (the consumers' 256 threads) that it may be refilled: no CTA-wide barrier in
// the loop. The producer gives its registers to the consumers (setmaxnreg).
//
// The consumers take turns at the tensor cores (named barriers 2 and 3): a consumer's
// turn is its P V of tile j followed by its S = Q K^T of tile j + 1, and while one has its
// turn the other computes its softmax. Consumer w waits for barrier 2 + w (its own 128
// threads sync, the other's 128 arrive) before a turn and arrives on the other's after
// it; consumer 1 arrives once first, so that consumer 0 starts, and not after its last
// turn, so that every arrival is waited for.
//
// The epilogue: each consumer writes O / l into its own 64 rows of the Q tile (only its
// own S products read them) and, after a barrier of its 128 threads (4 + w), stores them
// as 16-byte rows. docs/codegen-attention.md ("The TMA variant").
//
// Placeholders: those of FlashAttentionSm90.mlir (the parts of FlashAttentionSm90Parts.mlir
// among them), with WARPS = 12 (8 consumer warps), WGMMA_QK_FIRST and WGMMA_QK_NEXT (S =
// Q K^T of tile 0 into %sFirst and of tile j + 1 into %sNext, from %descK0 and %descKNext),
// WGMMA_PV, Q_BYTES and KV_BYTES (the bytes of the Q tile and of a stage's K and V
// tiles) and OUT_CHUNKS (the 16-byte chunks of O a consumer thread stores).

!gmem = memref<?x{D}x{T}, strided<[?, 1], offset: ?>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!sq = memref<{ATOMS}x{BQ}x64x{T}, #gpu.address_space<workgroup>>
!qBox = memref<1x1x{BQ}x64x{T}, #gpu.address_space<workgroup>>
!kvBox = memref<1x1x{BKV}x64x{T}, #gpu.address_space<workgroup>>
!tmQ = !nvgpu.tensormap.descriptor<tensor = !qBox, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmKV = !nvgpu.tensormap.descriptor<tensor = !kvBox, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!qBar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {STAGES}>
!sacc = vector<{MTW}x{NT_S}x2x2xf32>
!oacc = vector<{MTW}x{NT_O}x2x2xf32>

!rows = vector<{ROWS}xf32>

gpu.module @{MODULE} {

  // Grid (ceil(Sq / {BQ}), B * H, 1), block (384, 1, 1), dynamic shared memory
  // {V_OFF} + {STAGES} * {KV_STAGE} + 2048 bytes. %tmQ, %tmK, %tmV: tensor maps of the
  // [B, H, S, {D}] views of Q, K and V (K and V with H / %G heads: query head h reads K/V
  // head h / %G). O: a bare pointer to the buffer holding the [B, H, Sq, {D}] view,
  // element (b, h, s, d) at %Ooff + b * %Ob + h * %Oh + s * %Or + d. Mask: a bare pointer
  // to the additive mask (read only with {HAS_MASK}), element (b, h, i, j) at b * %mB + h
  // * %mH + i * %mQ + j * %mK (0 strides broadcast). %scale multiplies Q K^T.
  gpu.func @{ENTRY}(%tmQ: !tmQ, %tmK: !tmKV, %tmV: !tmKV, %O: memref<{T}>,
                    %Mask: memref<{MT}>, %H: i32, %G: i32, %Sq: i32, %Skv: i32, %mB: i32, %mH: i32,
                    %mQ: i32, %mK: i32, %scale: f32, %Ooff: i32, %Ob: i32, %Oh: i32, %Or: i32)
      kernel attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %cBQ = arith.constant {BQ} : index
    %cBKV = arith.constant {BKV} : index
    %cStages = arith.constant {STAGES} : index
    %cAtoms = arith.constant {ATOMS} : index
    %cCpr = arith.constant {CPR} : index
    %cOutChunks = arith.constant {OUT_CHUNKS} : index
    %cNTS = arith.constant {NT_S} : index
    %cNTO = arith.constant {NT_O} : index
    %cMTW = arith.constant {MTW} : index
    %cRows = arith.constant {ROWS} : index
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
    %ticks = arith.constant 10000000 : index

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
    %wg = arith.divui %tid, %c128 : index
    %isProducer = arith.cmpi eq, %wg, %c2 : index

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

    // The (batch, head) of the CTA; K and V's head: query heads share one in groups of %G
    // (grouped-query attention).
    %b = arith.divui %bh, %heads : index
    %h = arith.remui %bh, %heads : index
    %groupI = arith.index_castui %G : i32 to index
    %hkv = arith.divui %h, %groupI : index
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

{MASK_SETUP}

    // Shared memory from %base, a 1024-aligned offset past the static mbarriers (the
    // launch gives 2048 bytes more): the Q tile at 0, the K ring at {K_OFF}, the V ring
    // at {V_OFF}. A tile's rows are {ATOMS} atoms of 64 elements (128 bytes), atom after
    // atom, each as TMA's 128-byte swizzle writes it: the 16-byte chunk c of row r at
    // c ^ (r % 8), the layout of the wgmma descriptors.
    %dyn = gpu.dynamic_shared_memory : !smem
    %c1087 = arith.constant 1087 : index
    %c1024 = arith.constant 1024 : index
    %addr = memref.extract_aligned_pointer_as_index %dyn : !smem -> index
    %addrUp = arith.addi %addr, %c1087 : index
    %addrRem = arith.remui %addrUp, %c1024 : index
    %aligned = arith.subi %addrUp, %addrRem : index
    %base = arith.subi %aligned, %addr : index
    %Qs = memref.view %dyn[%base][] : !smem to !sq
    %kOff = arith.constant {K_OFF} : index
    %vOff = arith.constant {V_OFF} : index
    %cKvStage = arith.constant {KV_STAGE} : index
    %qAtomBytes = arith.constant {Q_ATOM_BYTES} : index
    %kvAtomBytes = arith.constant {KV_ATOM_BYTES} : index

    // full[s]: armed by the producer (one arrival and the stage's bytes); empty[s]: the
    // consumers' 256 threads arrive once their products on the stage have completed.
    %qFull = nvgpu.mbarrier.create -> !qBar
    %full = nvgpu.mbarrier.create -> !bars
    %empty = nvgpu.mbarrier.create -> !bars
    %consumerThreads = arith.constant 256 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %qFull[%c0], %c1 : !qBar
      scf.for %s = %c0 to %cStages step %c1 {
        nvgpu.mbarrier.init %full[%s], %c1 : !bars
        nvgpu.mbarrier.init %empty[%s], %consumerThreads : !bars
      }
      // Initialised by generic-proxy stores; the TMA unit (async proxy) signals them next.
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    }
    gpu.barrier

    scf.if %isProducer {
      nvvm.setmaxregister decrease 40
      %issuer = arith.cmpi eq, %tid, %c256 : index
      scf.if %issuer {
        nvgpu.tma.prefetch.descriptor %tmQ : !tmQ
        nvgpu.tma.prefetch.descriptor %tmK : !tmKV
        nvgpu.tma.prefetch.descriptor %tmV : !tmKV
        // Coordinates innermost first: {d, s, h, b}.
        %qBytes = arith.constant {Q_BYTES} : index
        nvgpu.mbarrier.arrive.expect_tx %qFull[%c0], %qBytes : !qBar
        scf.for %a = %c0 to %cAtoms step %c1 {
          %qAt0 = arith.muli %a, %qAtomBytes : index
          %qAt = arith.addi %base, %qAt0 : index
          %qBox = memref.view %dyn[%qAt][] : !smem to !qBox
          %d0 = arith.muli %a, %c64 : index
          nvgpu.tma.async.load %tmQ[%d0, %q0, %h, %b], %qFull[%c0] to %qBox
            : !tmQ, !qBar -> !qBox
        }
        %kvBytes = arith.constant {KV_BYTES} : index
        scf.for %j = %c0 to %numKv step %c1 {
          // Tile j is fill j / STAGES of stage j % STAGES; a refill waits for the
          // consumers' release of the stage's previous fill (completion fill - 1 of
          // empty[s]: its parity).
          %slot = arith.remui %j, %cStages : index
          %fill = arith.divui %j, %cStages : index
          %refill = arith.cmpi uge, %j, %cStages : index
          scf.if %refill {
            %previous = arith.subi %fill, %c1 : index
            %pBit = arith.remui %previous, %c2 : index
            %pPhase = arith.cmpi ne, %pBit, %c0 : index
            nvgpu.mbarrier.try_wait.parity %empty[%slot], %pPhase, %ticks : !bars
          }
          nvgpu.mbarrier.arrive.expect_tx %full[%slot], %kvBytes : !bars
          %s0 = arith.muli %j, %cBKV : index
          %stageAt = arith.muli %slot, %cKvStage : index
          scf.for %a = %c0 to %cAtoms step %c1 {
            %atomAt = arith.muli %a, %kvAtomBytes : index
            %inStage = arith.addi %stageAt, %atomAt : index
            %kAt0 = arith.addi %kOff, %inStage : index
            %kAt = arith.addi %base, %kAt0 : index
            %vAt0 = arith.addi %vOff, %inStage : index
            %vAt = arith.addi %base, %vAt0 : index
            %kBox = memref.view %dyn[%kAt][] : !smem to !kvBox
            %vBox = memref.view %dyn[%vAt][] : !smem to !kvBox
            %d0 = arith.muli %a, %c64 : index
            nvgpu.tma.async.load %tmK[%d0, %s0, %hkv, %b], %full[%slot] to %kBox
              : !tmKV, !bars -> !kvBox
            nvgpu.tma.async.load %tmV[%d0, %s0, %hkv, %b], %full[%slot] to %vBox
              : !tmKV, !bars -> !kvBox
          }
        }
      }
    } else {
      nvvm.setmaxregister increase 232
      // wgmma descriptors: start address / 16 (bits 0-13), leading and stride byte
      // offsets 1024 / 16 (bits 16-29, 32-45: the stride between 8-row groups), 128-byte
      // swizzle (bits 62-63 = 1). V's (MN-major, {ATOMS} atoms of 64 columns): the leading
      // byte offset is the stride from one atom of columns to the next ({BKV} rows of 128
      // bytes).
      %descConst = arith.constant 4611686293309489152 : i64
      %descConstV = arith.constant {DESC_V} : i64
      %i4_64 = arith.constant 4 : i64
      %zeroI32 = arith.constant 0 : i32
      %c8192 = arith.constant 8192 : index
      %qWgOff = arith.muli %wg, %c8192 : index
      %qAddr = arith.addi %aligned, %qWgOff : index
      %qAddrI = arith.index_castui %qAddr : index to i64
      %qAddr16 = arith.shrui %qAddrI, %i4_64 : i64
      %descQ = arith.addi %qAddr16, %descConst : i64
      %kBase = arith.addi %aligned, %kOff : index
      %vBase = arith.addi %aligned, %vOff : index

{ROW_SETUP}
      // The turns (see the header): consumer w waits at barrier 2 + w, signals 3 - w.
      %turnThreads = arith.constant 256 : i32
      %turnBase = arith.constant 2 : i32
      %wgI = arith.index_castui %wg : index to i32
      %myTurn = arith.addi %turnBase, %wgI : i32
      %otherWg = arith.subi %c1, %wg : index
      %otherWgI = arith.index_castui %otherWg : index to i32
      %otherTurn = arith.addi %turnBase, %otherWgI : i32
      %isFirst = arith.cmpi eq, %wg, %c0 : index

      // S of tile 0 (outside the turns: both consumers start with it).
      %false = arith.constant false
      nvgpu.mbarrier.try_wait.parity %qFull[%c0], %false, %ticks : !qBar
      nvgpu.mbarrier.try_wait.parity %full[%c0], %false, %ticks : !bars
      %k0Addr = arith.index_castui %kBase : index to i64
      %k0Addr16 = arith.shrui %k0Addr, %i4_64 : i64
      %descK0 = arith.addi %k0Addr16, %descConst : i64
{WGMMA_QK_FIRST}
      %notFirst = arith.cmpi ne, %wg, %c0 : index
      scf.if %notFirst {
        nvvm.barrier.arrive id = %otherTurn number_of_threads = %turnThreads
      }

      %res:4 = scf.for %j = %c0 to %numKv step %c1
          iter_args(%oAcc = %o0, %mRun = %m0, %lRun = %z0, %sAcc = %sFirst)
          -> (!oacc, !rows, !rows, !sacc) {
        %kv0 = arith.muli %j, %cBKV : index
        %slot = arith.remui %j, %cStages : index
{ONLINE_SOFTMAX}
        // This consumer's turn: O += P V of tile j, then S = Q K^T of tile j + 1.
        nvvm.barrier id = %myTurn number_of_threads = %turnThreads
        %stOff = arith.muli %slot, %cKvStage : index
        %vAddr = arith.addi %vBase, %stOff : index
        %vAddrI = arith.index_castui %vAddr : index to i64
        %vAddr16 = arith.shrui %vAddrI, %i4_64 : i64
        %descV = arith.addi %vAddr16, %descConstV : i64
{WGMMA_PV}
        %jNext = arith.addi %j, %c1 : index
        %hasNext = arith.cmpi ult, %jNext, %numKv : index
        %sOut = scf.if %hasNext -> (!sacc) {
          %nSlot = arith.remui %jNext, %cStages : index
          %nRound = arith.divui %jNext, %cStages : index
          %nBit = arith.remui %nRound, %c2 : index
          %nPhase = arith.cmpi ne, %nBit, %c0 : index
          nvgpu.mbarrier.try_wait.parity %full[%nSlot], %nPhase, %ticks : !bars
          %nOff = arith.muli %nSlot, %cKvStage : index
          %kAddr = arith.addi %kBase, %nOff : index
          %kAddrI = arith.index_castui %kAddr : index to i64
          %kAddr16 = arith.shrui %kAddrI, %i4_64 : i64
          %descKNext = arith.addi %kAddr16, %descConst : i64
{WGMMA_QK_NEXT}
          scf.yield %sNext : !sacc
        } else {
          scf.yield %sIn : !sacc
        }
        // The other consumer's turn (consumer 1's last turn has no one after it).
        %signal = arith.ori %hasNext, %isFirst : i1
        scf.if %signal {
          nvvm.barrier.arrive id = %otherTurn number_of_threads = %turnThreads
        }
        // Tile j's stage is free: its S and P V products have completed.
        %released = nvgpu.mbarrier.arrive %empty[%slot] : !bars -> !nvgpu.mbarrier.token
        scf.yield %oNew, %mNew, %lNew, %sOut : !oacc, !rows, !rows, !sacc
      }

{NORMALIZE_O}
      // This consumer's 64 rows of O, whole 16-byte chunks: {OUT_CHUNKS} a thread, after
      // a barrier of its 128 threads (4 + w).
      %storeBase = arith.constant 4 : i32
      %myStore = arith.addi %storeBase, %wgI : i32
      %wgThreads = arith.constant 128 : i32
      nvvm.barrier id = %myStore number_of_threads = %wgThreads
      %inWg = arith.remui %tid, %c128 : index
      %wgRow0 = arith.muli %wg, %c64 : index
      scf.for %i = %c0 to %cOutChunks step %c1 {
        %i0 = arith.muli %i, %c128 : index
        %chunk = arith.addi %i0, %inWg : index
        %rowInWg = arith.divui %chunk, %cCpr : index
        %row = arith.addi %wgRow0, %rowInWg : index
        %cc = arith.remui %chunk, %cCpr : index
        %r8 = arith.remui %row, %c8 : index
        %atom = arith.divui %cc, %c8 : index
        %cin = arith.remui %cc, %c8 : index
        %pc0 = arith.xori %cin, %r8 : index
        %pc = arith.muli %pc0, %c8 : index
        %col = arith.muli %cc, %c8 : index
        %grow = arith.addi %q0, %row : index
        %inside = arith.cmpi ult, %grow, %sq : index
        scf.if %inside {
          %y = vector.load %Qs[%atom, %row, %pc] : !sq, vector<8x{T}>
          vector.store %y, %Og[%grow, %col] {alignment = 16} : !gmem, vector<8x{T}>
        }
      } {unroll}
    }
    gpu.return
  }
}
