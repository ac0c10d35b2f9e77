// The warp-specialised Hopper (sm_90a) flash-attention template of flash_attention
// (passes/kernel/FlashAttention.cpp): O = softmax(Q K^T * scale + mask) V with both
// products on wgmma, as FlashAttentionSm90.mlir computes it, but with the copies taken
// off the threads that compute, on a persistent grid. A work item is {BQ} = 128 query
// rows of one (batch, head); CTA c takes items c, c + grid, ... (the query blocks of a head
// next to each other, so that the CTAs running at once share its K and V in the L2). A CTA
// has 384 threads: warpgroups 0 and 1 are consumers of 64 rows each (warp w owns rows
// 16 w .. 16 w + 15 of the item, the wgmma accumulator fragments of the other template),
// warpgroup 2 the producer, whose first thread loads each item's Q tile into one of
// {Q_BUFS} Q buffers and its K and V tiles ({BKV} rows) into a K ring and a V ring of
// {STAGES} stages each that run on across items, by TMA through tensor maps of the
// [B, H, S, D] views (a box of 64 columns, 128 bytes, per swizzle atom of a row; TMA fills
// what lies past Sq, Skv and D with zeros). mbarriers: qFull[q] / kFull[s] / vFull[s] (the
// producer's arrival plus the bytes) say that a Q buffer / a K or V stage has landed,
// qEmpty[q] / kEmpty[s] / vEmpty[s] (the consumers' 256 threads) that it may be refilled;
// no CTA-wide barrier after the start. K and V have rings of their own because they are
// done with at different times: K tile j once S of tile j has been waited for, V tile j
// only once P V of tile j has, an iteration later; so K tiles load up to two iterations
// ahead, and the producer issues them in the order they are needed: K 0, then K j + 1
// before V j. The next item's Q and first K tiles load while the consumers finish the
// last one. The producer gives its registers to the consumers (setmaxnreg).
//
// The consumers take turns at the tensor cores (named barriers 2 and 3): a consumer's
// turn issues S = Q K^T of tile j + 1 and O += P V of tile j (a commit group each), and
// while one has its turn the other computes its softmax. Consumer w waits for barrier
// 2 + w (its own 128 threads sync, the other's 128 arrive) before a turn and arrives on the
// other's once the turn's products are issued, so that the other's queue behind them;
// consumer 1 arrives once first, so that consumer 0 starts, and not after its last turn,
// so that every arrival is waited for. (S of an item's first tile is outside the turns.)
// FlashAttention-3's order: the turn waits for S alone (wait_group 1); the softmax of tile
// j + 1 runs while P V of tile j is on the tensor cores, and only then does the consumer
// wait for it (WAIT_O), free its stage and rescale O. O and the P that P V reads stay in
// flight across the iteration, held by the wait blocks (tied operands), so nothing may
// touch their registers before: P V reads a copy of P made after the last WAIT_O
// (COPY_P), because the softmax of tile j + 1 rewrites its own P registers while P V of
// tile j is in flight (PTX leaves a write to an in-flight product's registers
// undefined). The configurations are those ptxas assembles without spills
// (FlashAttention.cpp).
//
// A Q buffer is released after the item's last P V, before the epilogue, so that the
// next item's Q loads during it, also where shared memory holds a single Q buffer (D
// above 192). (Released as soon as the last S had been waited for, the S products being
// its only readers, some items came out wrong on the H200 for a cause not found:
// docs/notebook/2026-11-30-05.) The epilogue stages O / l in a buffer of its own
// (STAGE_OFF, 128 rows of {STAGE_ATOMS} atoms: each consumer its 64) for 16-byte stores,
// in rounds where it holds fewer atoms than a row has (O_ROUNDS).
// docs/codegen-attention.md ("The TMA variant").
//
// Placeholders: those of FlashAttentionSm90.mlir (the parts of FlashAttentionSm90Parts.mlir
// among them), with WARPS = 12 (8 consumer warps); WGMMA_QK_FIRST (S = Q K^T of an item's
// tile 0 into %sFirst, from %descK0, waited for); WGMMA_TURN (issues S of tile j + 1 into
// %sIssued, from %descKNext, and P V of tile j into %oNew, from %descV) and WAIT_S (S into
// %sNext); WGMMA_PV (issues the last tile's P V into %oLast); WAIT_O (%oPending, P V of
// tile j - 1, into %oAcc, holding %pHeld) and WAIT_O_LAST (after the loop, into %oFinal);
// O_FINAL and L_FINAL (the epilogue's inputs); Q_BUFS and Q_BUF_BYTES (the Q buffers: 2, or
// 1 where shared memory holds one), Q_ATOM_BYTES, Q_BYTES, KV_ATOM_BYTES and TILE_BYTES (the
// bytes of an atom's box and of the Q tile, of a K/V atom's box and of a K or V tile).

!gmem = memref<?x{D}x{T}, strided<[?, 1], offset: ?>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!stage = memref<{STAGE_ATOMS}x{BQ}x64x{T}, #gpu.address_space<workgroup>>
!qBox = memref<1x1x{BQ}x64x{T}, #gpu.address_space<workgroup>>
!kvBox = memref<1x1x{BKV}x64x{T}, #gpu.address_space<workgroup>>
!tmQ = !nvgpu.tensormap.descriptor<tensor = !qBox, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmKV = !nvgpu.tensormap.descriptor<tensor = !kvBox, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!qBars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {Q_BUFS}>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {STAGES}>
!sacc = vector<{MTW}x{NT_S}x2x2xf32>
!oacc = vector<{MTW}x{NT_O}x2x2xf32>

!rows = vector<{ROWS}xf32>

gpu.module @{MODULE} {

  // Grid (min(items, multiprocessors), 1, 1), block (384, 1, 1), dynamic shared memory
  // {V_OFF} + {STAGES} * {KV_STAGE} + 2048 bytes. %tmQ, %tmK, %tmV: tensor maps of the
  // [B, H, S, {D}] views of Q, K and V (K and V with H / %G heads: query head h reads K/V
  // head h / %G). O: a bare pointer to the buffer holding the [B, H, Sq, {D}] view,
  // element (b, h, s, d) at %Ooff + b * %Ob + h * %Oh + s * %Or + d. Mask: a bare pointer
  // to the additive mask (read only with {HAS_MASK}), element (b, h, i, j) at b * %mB + h
  // * %mH + i * %mQ + j * %mK (0 strides broadcast). %scale multiplies Q K^T. %BH: B * H.
  gpu.func @{ENTRY}(%tmQ: !tmQ, %tmK: !tmKV, %tmV: !tmKV, %O: memref<{T}>,
                    %Mask: memref<{MT}>, %H: i32, %G: i32, %Sq: i32, %Skv: i32, %mB: i32, %mH: i32,
                    %mQ: i32, %mK: i32, %scale: f32, %Ooff: i32, %Ob: i32, %Oh: i32, %Or: i32,
                    %BH: i32)
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
    %cQBufs = arith.constant {Q_BUFS} : index
    %cAtoms = arith.constant {ATOMS} : index
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
    %false = arith.constant false

    %sq = arith.index_castui %Sq : i32 to index
    %skv = arith.index_castui %Skv : i32 to index
    %heads = arith.index_castui %H : i32 to index
    %sqLast = arith.subi %sq, %c1 : index
    %skvLast = arith.subi %skv, %c1 : index
    %OoffI = arith.index_castui %Ooff : i32 to index
    %ObI = arith.index_castui %Ob : i32 to index
    %OhI = arith.index_castui %Oh : i32 to index
    %OrI = arith.index_castui %Or : i32 to index
    // The work items' arithmetic is 32-bit (WORK_ITEM).
    %cBQI = arith.constant {BQ} : i32
    %cBKVI = arith.constant {BKV} : i32
    %cQBufsI = arith.constant {Q_BUFS} : i32
    %blocksQI = arith.ceildivui %Sq, %cBQI : i32
    %blocksQLastI = arith.subi %blocksQI, %i1 : i32
    %numKvAllI = arith.ceildivui %Skv, %cBKVI : i32
    %itemsI = arith.muli %blocksQI, %BH : i32
    %items = arith.index_castui %itemsI : i32 to index

    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %lane = arith.remui %tid, %c32 : index
    %g = arith.divui %lane, %c4 : index
    %t = arith.remui %lane, %c4 : index
    %wg = arith.divui %tid, %c128 : index
    %isProducer = arith.cmpi eq, %wg, %c2 : index
    %issuer = arith.cmpi eq, %tid, %c256 : index
    %pid = gpu.block_id x
    %grid = gpu.grid_dim x

    // Shared memory from %base, a 1024-aligned offset past the static mbarriers (the
    // launch gives 2048 bytes more): the Q buffers at q * {Q_BUF_BYTES}, the K ring at
    // {K_OFF}, the V ring at {V_OFF}. A tile's rows are {ATOMS} atoms of 64 elements (128
    // bytes), atom after atom, each as TMA's 128-byte swizzle writes it: the 16-byte chunk
    // c of row r at c ^ (r % 8), the layout of the wgmma descriptors.
    %dyn = gpu.dynamic_shared_memory : !smem
    %c1087 = arith.constant 1087 : index
    %c1024 = arith.constant 1024 : index
    %addr = memref.extract_aligned_pointer_as_index %dyn : !smem -> index
    %addrUp = arith.addi %addr, %c1087 : index
    %addrRem = arith.remui %addrUp, %c1024 : index
    %aligned = arith.subi %addrUp, %addrRem : index
    %base = arith.subi %aligned, %addr : index
    %qBufBytes = arith.constant {Q_BUF_BYTES} : index
    %kOff = arith.constant {K_OFF} : index
    %vOff = arith.constant {V_OFF} : index
    %cKvStage = arith.constant {KV_STAGE} : index
    %qAtomBytes = arith.constant {Q_ATOM_BYTES} : index
    %kvAtomBytes = arith.constant {KV_ATOM_BYTES} : index

    // qFull[q], kFull[s], vFull[s]: armed by the producer (one arrival and the bytes);
    // qEmpty[q], kEmpty[s], vEmpty[s]: the consumers' 256 threads arrive once done with the
    // buffer or stage.
    %qFull = nvgpu.mbarrier.create -> !qBars
    %qEmpty = nvgpu.mbarrier.create -> !qBars
    %kFull = nvgpu.mbarrier.create -> !bars
    %kEmpty = nvgpu.mbarrier.create -> !bars
    %vFull = nvgpu.mbarrier.create -> !bars
    %vEmpty = nvgpu.mbarrier.create -> !bars
    %consumerThreads = arith.constant 256 : index
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      scf.for %q = %c0 to %cQBufs step %c1 {
        nvgpu.mbarrier.init %qFull[%q], %c1 : !qBars
        nvgpu.mbarrier.init %qEmpty[%q], %consumerThreads : !qBars
      }
      scf.for %s = %c0 to %cStages step %c1 {
        nvgpu.mbarrier.init %kFull[%s], %c1 : !bars
        nvgpu.mbarrier.init %kEmpty[%s], %consumerThreads : !bars
        nvgpu.mbarrier.init %vFull[%s], %c1 : !bars
        nvgpu.mbarrier.init %vEmpty[%s], %consumerThreads : !bars
      }
      // Initialised by generic-proxy stores; the TMA unit (async proxy) signals them next.
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    }
    gpu.barrier

    // The roles. %n0 counts the CTA's work items before this one (its Q buffer and that
    // buffer's fill), %kv0g its K/V tiles (the rings' stage and fill).
    scf.if %isProducer {
      // The producer keeps {PRODUCER_REGS} registers; its threads but the first have
      // nothing to do.
      nvvm.setmaxregister decrease {PRODUCER_REGS}
      scf.if %issuer {
        nvgpu.tma.prefetch.descriptor %tmQ : !tmQ
        nvgpu.tma.prefetch.descriptor %tmK : !tmKV
        nvgpu.tma.prefetch.descriptor %tmV : !tmKV
        %loaded:2 = scf.for %item = %pid to %items step %grid iter_args(%n0 = %c0, %kv0g = %c0)
            -> (index, index) {
{WORK_ITEM}
          // Coordinates innermost first: {d, s, h, b}. A buffer's refill waits for the
          // consumers' release of its previous fill (the parity of completion fill - 1).
          %qRefill = arith.cmpi uge, %n0, %cQBufs : index
          scf.if %qRefill {
            %qPrevious = arith.subi %qRound, %c1 : index
            %qpBit = arith.remui %qPrevious, %c2 : index
            %qpPhase = arith.cmpi ne, %qpBit, %c0 : index
            nvgpu.mbarrier.try_wait.parity %qEmpty[%qBuf], %qpPhase, %ticks : !qBars
          }
          %qBytes = arith.constant {Q_BYTES} : index
          nvgpu.mbarrier.arrive.expect_tx %qFull[%qBuf], %qBytes : !qBars
          scf.for %a = %c0 to %cAtoms step %c1 {
            %qaOff = arith.muli %a, %qAtomBytes : index
            %qaAt = arith.addi %qAt, %qaOff : index
            %qBox = memref.view %dyn[%qaAt][] : !smem to !qBox
            %d0 = arith.muli %a, %c64 : index
            nvgpu.tma.async.load %tmQ[%d0, %q0, %h, %b], %qFull[%qBuf] to %qBox
              : !tmQ, !qBars -> !qBox
          }
          // Step i loads K tile i (i < numKv) and then V tile i - 1 (i > 0): K 0, K 1, V 0,
          // K 2, V 1, ... The CTA's tile kv = kv0g + j is fill kv / STAGES of stage
          // kv % STAGES of its ring; a refill waits for the release of the fill before.
          %tileBytes = arith.constant {TILE_BYTES} : index
          %numSteps = arith.addi %numKv, %c1 : index
          scf.for %i = %c0 to %numSteps step %c1 {
            %loadK = arith.cmpi ult, %i, %numKv : index
            scf.if %loadK {
              %kv = arith.addi %kv0g, %i : index
              %slot = arith.remui %kv, %cStages : index
              %fill = arith.divui %kv, %cStages : index
              %refill = arith.cmpi uge, %kv, %cStages : index
              scf.if %refill {
                %previous = arith.subi %fill, %c1 : index
                %pBit = arith.remui %previous, %c2 : index
                %pPhase = arith.cmpi ne, %pBit, %c0 : index
                nvgpu.mbarrier.try_wait.parity %kEmpty[%slot], %pPhase, %ticks : !bars
              }
              nvgpu.mbarrier.arrive.expect_tx %kFull[%slot], %tileBytes : !bars
              %s0 = arith.muli %i, %cBKV : index
              %stageAt = arith.muli %slot, %cKvStage : index
              %kStage = arith.addi %kOff, %stageAt : index
              %kStageAt = arith.addi %base, %kStage : index
              scf.for %a = %c0 to %cAtoms step %c1 {
                %atomAt = arith.muli %a, %kvAtomBytes : index
                %kAt = arith.addi %kStageAt, %atomAt : index
                %kBox = memref.view %dyn[%kAt][] : !smem to !kvBox
                %d0 = arith.muli %a, %c64 : index
                nvgpu.tma.async.load %tmK[%d0, %s0, %hkv, %b], %kFull[%slot] to %kBox
                  : !tmKV, !bars -> !kvBox
              }
            }
            %loadV = arith.cmpi ugt, %i, %c0 : index
            scf.if %loadV {
              %j = arith.subi %i, %c1 : index
              %kv = arith.addi %kv0g, %j : index
              %slot = arith.remui %kv, %cStages : index
              %fill = arith.divui %kv, %cStages : index
              %refill = arith.cmpi uge, %kv, %cStages : index
              scf.if %refill {
                %previous = arith.subi %fill, %c1 : index
                %pBit = arith.remui %previous, %c2 : index
                %pPhase = arith.cmpi ne, %pBit, %c0 : index
                nvgpu.mbarrier.try_wait.parity %vEmpty[%slot], %pPhase, %ticks : !bars
              }
              nvgpu.mbarrier.arrive.expect_tx %vFull[%slot], %tileBytes : !bars
              %s0 = arith.muli %j, %cBKV : index
              %stageAt = arith.muli %slot, %cKvStage : index
              %vStage = arith.addi %vOff, %stageAt : index
              %vStageAt = arith.addi %base, %vStage : index
              scf.for %a = %c0 to %cAtoms step %c1 {
                %atomAt = arith.muli %a, %kvAtomBytes : index
                %vAt = arith.addi %vStageAt, %atomAt : index
                %vBox = memref.view %dyn[%vAt][] : !smem to !kvBox
                %d0 = arith.muli %a, %c64 : index
                nvgpu.tma.async.load %tmV[%d0, %s0, %hkv, %b], %vFull[%slot] to %vBox
                  : !tmKV, !bars -> !kvBox
              }
            }
          }
          %n1 = arith.addi %n0, %c1 : index
          %kv1 = arith.addi %kv0g, %numKv : index
          scf.yield %n1, %kv1 : index, index
        }
      }
    } else {
      // The consumers take {CONSUMER_REGS} registers.
      nvvm.setmaxregister increase {CONSUMER_REGS}
      // The consumers' constants. wgmma descriptors: start address / 16 (bits 0-13),
      // leading and stride byte offsets 1024 / 16 (bits 16-29, 32-45: the stride between
      // 8-row groups), 128-byte swizzle (bits 62-63 = 1). V's (MN-major, {ATOMS} atoms of 64
      // columns): the leading byte offset is the stride from one atom of columns to the
      // next ({BKV} rows of 128 bytes).
      %descConst = arith.constant 4611686293309489152 : i64
      %descConstV = arith.constant {DESC_V} : i64
      %i4_64 = arith.constant 4 : i64
      %zeroI32 = arith.constant 0 : i32
      %c8192 = arith.constant 8192 : index
      %qWgOff = arith.muli %wg, %c8192 : index
      %kBase = arith.addi %aligned, %kOff : index
      %vBase = arith.addi %aligned, %vOff : index
      // The turns (see the header): consumer w waits at barrier 2 + w, signals 3 - w.
      %turnThreads = arith.constant 256 : i32
      %turnBase = arith.constant 2 : i32
      %wgI = arith.index_castui %wg : index to i32
      %myTurn = arith.addi %turnBase, %wgI : i32
      %otherWg = arith.subi %c1, %wg : index
      %otherWgI = arith.index_castui %otherWg : index to i32
      %otherTurn = arith.addi %turnBase, %otherWgI : i32
      %isFirst = arith.cmpi eq, %wg, %c0 : index
      %isSecond = arith.cmpi eq, %wg, %c1 : index
      scf.if %isSecond {
        nvvm.barrier.arrive id = %otherTurn number_of_threads = %turnThreads
      }

      %consumed:2 = scf.for %item = %pid to %items step %grid iter_args(%n0 = %c0, %kv0g = %c0)
          -> (index, index) {
{WORK_ITEM}
        %Oat0 = arith.muli %b, %ObI : index
        %Oat1 = arith.muli %h, %OhI : index
        %Oat2 = arith.addi %Oat0, %Oat1 : index
        %Oat = arith.addi %Oat2, %OoffI : index
        %Og = memref.reinterpret_cast %O to offset: [%Oat], sizes: [%sq, {D}],
          strides: [%OrI, 1] : memref<{T}> to !gmem
        %qAddr0 = arith.addi %aligned, %qAt0 : index
        %qAddr = arith.addi %qAddr0, %qWgOff : index
        %qAddrI = arith.index_castui %qAddr : index to i64
        %qAddr16 = arith.shrui %qAddrI, %i4_64 : i64
        %descQ = arith.addi %qAddr16, %descConst : i64
{MASK_SETUP}
{ROW_SETUP}

        // S of tile 0 (outside the turns: both consumers start with it).
        %qBit = arith.remui %qRound, %c2 : index
        %qPhase = arith.cmpi ne, %qBit, %c0 : index
        nvgpu.mbarrier.try_wait.parity %qFull[%qBuf], %qPhase, %ticks : !qBars
        %slot0 = arith.remui %kv0g, %cStages : index
        %round0 = arith.divui %kv0g, %cStages : index
        %bit0 = arith.remui %round0, %c2 : index
        %phase0 = arith.cmpi ne, %bit0, %c0 : index
        nvgpu.mbarrier.try_wait.parity %kFull[%slot0], %phase0, %ticks : !bars
        %k0Off = arith.muli %slot0, %cKvStage : index
        %k0At = arith.addi %kBase, %k0Off : index
        %k0Addr = arith.index_castui %k0At : index to i64
        %k0Addr16 = arith.shrui %k0Addr, %i4_64 : i64
        %descK0 = arith.addi %k0Addr16, %descConst : i64
{WGMMA_QK_FIRST}
        %k0Freed = nvgpu.mbarrier.arrive %kEmpty[%slot0] : !bars -> !nvgpu.mbarrier.token
        %nextItem = arith.addi %item, %grid : index
        %lastItem = arith.cmpi uge, %nextItem, %items : index

        // The loop: the softmax of tile j runs while the P V of tile j - 1, issued in
        // the last turn, is on the tensor cores (FlashAttention-3's order): O and the P
        // it reads are in flight across iterations (%oPending, %pHeld) until WAIT_O.
        %pNone = ub.poison : vector<1x{NT_S}x2x2x{T}>
        %loop:5 = scf.for %j = %c0 to %numKv step %c1
            iter_args(%oPending = %o0, %mRun = %m0, %lRun = %z0, %sAcc = %sFirst,
                      %pHeld = %pNone)
            -> (!oacc, !rows, !rows, !sacc, vector<1x{NT_S}x2x2x{T}>) {
          %kv0 = arith.muli %j, %cBKV : index
          %kv = arith.addi %kv0g, %j : index
          %slot = arith.remui %kv, %cStages : index
{ONLINE_SOFTMAX}
          // P V of tile j - 1 is done: its V stage is free, and O takes tile j's alpha.
{WAIT_O}
          // The P that P V of tile j reads: a copy of %pOut#0 into registers of its own,
          // which nothing writes until the next WAIT_O (COPY_P).
{COPY_P}
          %jPositive = arith.cmpi ugt, %j, %c0 : index
          scf.if %jPositive {
            %kvPrevious = arith.subi %kv, %c1 : index
            %previousSlot = arith.remui %kvPrevious, %cStages : index
            %freed = nvgpu.mbarrier.arrive %vEmpty[%previousSlot] : !bars -> !nvgpu.mbarrier.token
          }
{RESCALE_O}
          // V of tile j has landed (checked before the turn, which then only issues).
          %vRound = arith.divui %kv, %cStages : index
          %vBit = arith.remui %vRound, %c2 : index
          %vPhase = arith.cmpi ne, %vBit, %c0 : index
          nvgpu.mbarrier.try_wait.parity %vFull[%slot], %vPhase, %ticks : !bars
          // This consumer's turn: S = Q K^T of tile j + 1 (once it has landed), then O +=
          // P V of tile j; the other consumer's turn follows once they are issued
          // (consumer 1's last turn has no one after it). S is waited for here, P V in the
          // next iteration (or after the loop).
          nvvm.barrier id = %myTurn number_of_threads = %turnThreads
          %stOff = arith.muli %slot, %cKvStage : index
          %vAddr = arith.addi %vBase, %stOff : index
          %vAddrI = arith.index_castui %vAddr : index to i64
          %vAddr16 = arith.shrui %vAddrI, %i4_64 : i64
          %descV = arith.addi %vAddr16, %descConstV : i64
          %jNext = arith.addi %j, %c1 : index
          %hasNext = arith.cmpi ult, %jNext, %numKv : index
          // (Without a next tile the other consumer is signalled unless this is consumer
          // 1's last turn of the CTA.)
          %notLast = arith.cmpi eq, %lastItem, %false : i1
          %signal = arith.ori %isFirst, %notLast : i1
          %turn:2 = scf.if %hasNext -> (!oacc, !sacc) {
            %kvNext = arith.addi %kv, %c1 : index
            %nSlot = arith.remui %kvNext, %cStages : index
            %nRound = arith.divui %kvNext, %cStages : index
            %nBit = arith.remui %nRound, %c2 : index
            %nPhase = arith.cmpi ne, %nBit, %c0 : index
            nvgpu.mbarrier.try_wait.parity %kFull[%nSlot], %nPhase, %ticks : !bars
            %nOff = arith.muli %nSlot, %cKvStage : index
            %kAddr = arith.addi %kBase, %nOff : index
            %kAddrI = arith.index_castui %kAddr : index to i64
            %kAddr16 = arith.shrui %kAddrI, %i4_64 : i64
            %descKNext = arith.addi %kAddr16, %descConst : i64
{WGMMA_TURN}
            nvvm.barrier.arrive id = %otherTurn number_of_threads = %turnThreads
{WAIT_S}
            %kFreed = nvgpu.mbarrier.arrive %kEmpty[%nSlot] : !bars -> !nvgpu.mbarrier.token
            scf.yield %oNew, %sNext : !oacc, !sacc
          } else {
{WGMMA_PV}
            scf.if %signal {
              nvvm.barrier.arrive id = %otherTurn number_of_threads = %turnThreads
            }
            scf.yield %oLast, %sIn : !oacc, !sacc
          }
          scf.yield %turn#0, %mNew, %lNew, %turn#1, %pIssue
            : !oacc, !rows, !rows, !sacc, vector<1x{NT_S}x2x2x{T}>
        }
        // The last tile's P V, and its V stage.
{WAIT_O_LAST}
        %kvEnd = arith.addi %kv0g, %numKv : index
        %kvLastTile = arith.subi %kvEnd, %c1 : index
        %lastSlot = arith.remui %kvLastTile, %cStages : index
        %lastFreed = nvgpu.mbarrier.arrive %vEmpty[%lastSlot] : !bars -> !nvgpu.mbarrier.token
        // And the Q buffer (its S products are done): the next item's Q loads during the
        // epilogue.
        %qFreed = nvgpu.mbarrier.arrive %qEmpty[%qBuf] : !qBars -> !nvgpu.mbarrier.token

{INVERSE_L}
        // This consumer's 64 rows of O go out through its half of the staging buffer, in
        // rounds of at most {STAGE_ATOMS} atoms (columns 64 a, ...): each thread writes its
        // fragments there, and after a barrier of the warpgroup's 128 threads (4 + w) the
        // rows are stored as 16-byte chunks.
        // (Computed here, not kept in registers across the loop.)
        %storeBase = arith.constant 4 : i32
        %myStore = arith.addi %storeBase, %wgI : i32
        %wgThreads = arith.constant 128 : i32
        %inWg = arith.remui %tid, %c128 : index
        %wgRow0 = arith.muli %wg, %c64 : index
        %stageOff = arith.constant {STAGE_OFF} : index
        %stageAt = arith.addi %base, %stageOff : index
        %Stage = memref.view %dyn[%stageAt][] : !smem to !stage
{O_ROUNDS}
        %n1 = arith.addi %n0, %c1 : index
        %kv1 = arith.addi %kv0g, %numKv : index
        scf.yield %n1, %kv1 : index, index
      }
    }
    gpu.return
  }
}
