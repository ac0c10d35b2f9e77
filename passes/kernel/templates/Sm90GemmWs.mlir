// The warp-specialised Hopper (sm_90a) GEMM template: C[M, N] = A[M, K] x B[K, N], IN
// operands (f16, bf16, or f32 read as tf32) accumulated in f32 by wgmma, or i8 ones
// accumulated in i32 (and converted to f32 for the epilogue), OUT result, C row major. B
// is row major (K x N, MN-major in shared memory), or stored N x K (K-major: the only
// form wgmma takes for tf32 and i8). A k-tile is KTILE = 128 bytes of K (TILE_K = 128
// 8-bit, 64 16-bit or 32 32-bit elements), 128B-swizzled, or 64 bytes of i8, 64B-swizzled
// (convolutions whose channels leave half of a 128-byte k-tile empty). A CTA computes
// TILE_M x TILE_N tiles of C with CONSUMERS consumer warpgroups and a producer: consumers
// 0 and 1 (rows 64w..64w+63 x all TILE_N columns of 128-row tiles, 4 wgmma m64nTILE_Nk16
// or m64nTILE_Nk8 a k-tile), or 0, 1 and 2 of 192-row tiles (16-bit operands);
// warpgroup CONSUMERS is the producer, whose first thread keeps a STAGES-stage ring of
// shared memory filled by TMA. With one CTA an SM, the producer gives its registers to the
// consumers (setmaxnreg); with two, it is one warp (THREADS = 288), so that two CTAs of
// 64x128 accumulators fit the register file without moving registers.
// A CTA walks the work items blockIdx.x, blockIdx.x + gridDim.x, ...: with one CTA per
// item that is one item; with a persistent grid (fewer CTAs than items) the producer loads
// the next item's k-tiles while the consumers store the last one's results. An item is a
// tile, or with split-K (for products of few tiles) one of SPLITS parts of its k-tiles:
// part p then stores its f32 partial sums to slice p of C, a SPLITS x M x N workspace
// that a second kernel (SplitKReduce.mlir) adds up. With stream-K (STREAM_K > 1: at most
// that many parts), only the tiles of the grid's last, partial wave are split along K,
// each part a CTA's last item (see %fullItems below), and the consumers add the parts up
// themselves before the epilogue (Sm90StreamKFixup.mlir: STREAM_K_FIXUP, which defines
// %accValues and %storeTile, or only `%storeTile = true` without stream-K;
// STREAM_K_PARAMETERS, the workspace and the tickets, after every other parameter;
// STREAM_K_GLOBALS, where a consumer's ticket reaches its threads). Both roles decode an
// item the same way: ITEM_TILE (Sm90GemmItem.mlir).
// The ABI, shared-memory map and barrier protocol: docs/codegen-sm90.md ("The
// warp-specialised template").
//
// Two passes instantiate it (passes/kernel/Sm90Template.h): sm90_gemm, where A is
// a row-major matrix, and sm90_conv, where A is the implicit im2col matrix of an
// NHWC convolution, loaded as 4-D TMA boxes. What differs is given as snippets
// (placeholders in braces; written without them here so that comments stay comments):
//   A_BOX           the shape of A's TMA box in shared memory ("128x64"; "2x8x8x64")
//   TILES_M         defines %tilesM, the number of TILE_M-row tiles of C
//   TILE_SETUP      what the tile's loads and stores need, from %tileRow
//   LOAD_A          the TMA load(s) of k-tile %kt (%k0 = TILE_K kt) of A into %a (!tileA)
//   A_DESC_MAP      "%map : !halfA, !map-type": a 64 or 128-row 128B-swizzled tensor
//                    map for the wgmma descriptor of A (only its swizzle is used)
//   ROW_END         defines %rowEnd, the end of the tile's rows to store
//   ROW_MAP         from the tile's row %r, %grow (C's row) and %rowOk (i1: store it)
// and the types and configuration (in braces in the code): MODULE, ENTRY, IN, OUT,
// EPILOGUE_PARAMETERS (a fused epilogue's inputs, bare pointers after %K, or nothing),
// EPILOGUE (the op standing for the epilogue's arithmetic on %v, the vector<LANESxf32> of C
// at [%growAt, %gcolAt], kept inside C, which the pass replaces once parsed:
// passes/kernel/Sm90Epilogue.h; or nothing), CONVERT (the truncation of the f32 value into %out, or nothing), STORED,
// STORE_ALIGNMENT, TILE_N (64, 128 or 256), TILE_K, STAGES, B_BOXES = TILE_N / 64, the B
// operand's form: B_BOX (one TMA box: "64x64", 64 rows of K x 64 columns of N; or
// "64xTILE_K", 64 rows of N x a k-tile), B_MAP_BOX (B's tensor map box: B_BOX, or
// "1xB_BOX" for the matrices of a batched product), B_VIEW and B_DEST (the view of the
// box %bj as B_MAP_BOX that the load fills, and its name: nothing and %bj where they are
// the same), B_COORDINATES (the box's, innermost first, from %k0 and its first column
// %nj, and a batched product's matrix), B_TILE (a stage's B for the wgmma descriptor: "64xTILE_N"
// or "TILE_NxTILE_K"), MMA (the k-tile's wgmma from the descriptors %dA, %dB and %accIn
// into %accOut) and MMA_TYPES (type aliases it uses, or nothing), ACC (the accumulators'
// type in the main loop: !acc, or the LLVM struct of i32 accumulators), ACC_INIT (defines
// %init, the zero accumulators), ACC_FINISH (after the main loop: the f32 !acc of the
// loop's %res, named ACC_F32; nothing when %res is one), STAGED (the name of the f32
// vector of C loaded from the staging: %v, or %vBiased) and UNBIAS (nothing, or what
// makes %v of %vBiased: i32 sums staged as the bits of their sum with 1.5 x 2^23),
// COLUMN_VALUES (nothing, or where every item of a thread has the same columns, a marker
// giving them before the batches, where the epilogue then loads its per-column inputs
// once a tile instead of once a batch), COLUMN_VALUES_EARLY (the same marker before the
// main loop, instead: with one CTA an SM),
// B_RESIDENT_* (nothing, or with B resident in shared memory: a persistent grid over one
// column of tiles, where every tile multiplies the same B): B_RESIDENT_TYPES,
// B_RESIDENT_BARRIER and B_RESIDENT_INIT (%bReady, one barrier, armed by the producer),
// B_RESIDENT_LOAD (the producer's loads of all B_RESIDENT_KTILES k-tiles of B, once,
// before the ring's), B_RESIDENT_WAIT (the consumers' wait for them, once); then a stage
// carries A alone (STAGE_BYTES, STAGE_B_BOXES = 0) and k-tile kt's B lies at
// B_BASE + kt * B_STAGE_BYTES (B_INDEX: %kt; else the stage's, %slot).
// SWIZZLE (swizzle_128b or swizzle_64b), DESCRIPTORS (%dA and %dB, the wgmma descriptors
// of the stage's A rows at %offAw and B at %offB: upstream's op for 128B swizzling, else
// built here), A_STAGE_BYTES = TILE_M * KTILE, A_ROWS_OFFSET (the bytes of A a consumer's
// rows start at, per consumer: 64 * KTILE, or 0 for ping-pong consumers), B_BOX_BYTES = 64 * KTILE, B_STAGE_BYTES = TILE_N * KTILE,
// STAGE_BYTES (A box + B stage bytes), B_BASE = STAGES * A_STAGE_BYTES,
// STAGED_COLUMNS = TILE_N + 4, LANES (the consecutive elements of C a thread stores at
// once: 16 bytes of OUT, or 8 bytes for i8 where N is no multiple of 16), ROW_LANES =
// min(32, TILE_N / LANES), LANE_MAP (defines %laneRow and %laneInRow from %lane,
// %rowLanes and %rowsPerWarp), BATCH (the items a thread loads before it stores them: 8
// or 64 / LANES, or its items when fewer), SPLITS (the parts K is
// split in; 1: none), STAGING_BASE, where the epilogue stages C (0, reusing the ring,
// when every CTA has one item; STAGES * (A_STAGE_BYTES + B_STAGE_BYTES), past the ring, for a
// persistent grid), CTAS_PER_SM (1 or 2: the CTAs an SM is to hold at once, which sets the
// register budget), THREADS (128 (CONSUMERS + 1); 288 with two CTAs an SM),
// CONSUMER_THREADS (128 CONSUMERS), and SHRINK_PRODUCER and GROW_CONSUMERS (the setmaxnreg of each role, with one CTA an SM; nothing with two).
// THREAD_LOADS (docs/codegen-sm90.md, "Unaligned operands"): a row-major A of rows not a
// multiple of 16 bytes (K unaligned) or a row-major B of such rows (N unaligned) has no
// tensor map; its parameter is a bare pointer (A_PARAMETER, B_PARAMETER: the map or the
// pointer) and the producer warpgroup's 128 threads fill its part of the stage in the
// 128B-swizzled layout TMA would write, zeros outside the matrix. EARLY_LOADS, before the
// wait for the stage to be released, starts the loads (K of several k-tiles: cp.async of
// the aligned words of the next k-tile into raw buffers, then the wait for this one's; one
// k-tile: loads to registers); LOAD_A (or nothing) and STAGE_LOADED store them (and
// the TMA loads of an aligned other operand, LOAD_B_BOX, by the first thread), then every
// thread fences for the async proxy and arrives on the stage's full barrier
// (FULL_ARRIVALS: 1, or 129 with the first thread's arming). LOADERS says who runs the
// producer's loop (%issuer, or all of its threads), PREFETCH and ARM_STAGE the tensor
// maps' prefetch and the stage's arming (the TMA bytes only, by the first thread),
// OPERAND_SETUP what the loads need (and a placeholder map value of a pointer operand for
// the wgmma descriptors, which read only its type). STAGED_ALIGNMENT: the staging reads'
// alignment (4 bytes a lane).
// The consumers' schedule: cooperative (each computes 64 rows of every tile) or ping-pong
// (each computes all 128 rows of every other tile, the two taking turns at the main loop):
// CONSUMER_ROWS (64 or 128: a consumer's rows of A and accumulators), TURNS (1 or 2: the
// consumers a tile goes round), EMPTY_BARRIERS and EMPTY_ARRIVALS (the empty barriers,
// STAGES or one more that no one waits for, and the threads that release a stage:
// CONSUMER_THREADS or 128), EARLY_RELEASES (1 or 0: whether the consumers release the
// last stage once early),
// RELEASE_SLOT (defines %releaseSlot, the stage a k-tile releases: the previous k-tile's,
// or %pending, the consumer's own previous k-tile), RELEASE_LAST (nothing, or the release
// of a tile's last k-tile after its loop), TURN_WAIT and TURN_SIGNAL (nothing, or the named
// barriers 2 and 3 that order the turns), WG_STAGING_BYTES (each consumer's staging, past
// the previous one's: 0 for cooperative consumers).
// STORE_TILE (the epilogue after the main loop: Sm90StoreStaged.mlir, whose f32 staging
// the placeholders above describe, or Sm90StoreFragments.mlir for i8 products and ping-pong
// consumers, whose own
// placeholders its header lists), COLUMN_INSIDE (the column test of C's edge tiles, or
// `true` where N is a multiple of TILE_N).
// RESIDUAL_* (nothing, or with a residual tile: an epilogue input of C's shape brought
// into shared memory by TMA, in a ring of one slot, or two on a persistent grid):
// RESIDUAL_TYPES, RESIDUAL_PARAMETER (its tensor map, after the epilogue's parameters),
// RESIDUAL_BARRIERS and RESIDUAL_INIT (two barrier groups of a barrier a slot: %rFull,
// armed by the producer; %rEmpty, the consumers' release), RESIDUAL_PREFETCH,
// RESIDUAL_LOAD (the producer's load of the tile's 128 x TILE_N residual into slot
// %rSlot at %rBase, once the consumers released the slot's previous tile), RESIDUAL_WAIT
// (the consumers' wait before their epilogue; defines %rTile) and RESIDUAL_RELEASE (after
// it), RESIDUAL_AT (the fragment epilogue's element of the residual tile).

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<{A_BOX}x{IN}, 3>, swizzle = {SWIZZLE}, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<{B_MAP_BOX}x{IN}, 3>, swizzle = {SWIZZLE}, l2promo = l2promo_256b, oob = zero, interleave = none>
// The 2-D map type the wgmma descriptors of B's stage take (the layout of its 64-column
// boxes follows from it): !tmB's, or a batched product's box without its matrix.
!tmBTile = !nvgpu.tensormap.descriptor<tensor = memref<{B_BOX}x{IN}, 3>, swizzle = {SWIZZLE}, l2promo = l2promo_256b, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {STAGES}>
!emptyBars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {EMPTY_BARRIERS}>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<{CONSUMER_ROWS}x{TILE_N}xf32>>
!wdA = !nvgpu.warpgroup.descriptor<tensor = memref<{CONSUMER_ROWS}x{TILE_K}x{IN}, 3>>
!wdB = !nvgpu.warpgroup.descriptor<tensor = memref<{B_TILE}x{IN}, 3>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!tileA = memref<{A_BOX}x{IN}, #gpu.address_space<workgroup>>
!halfA = memref<{CONSUMER_ROWS}x{TILE_K}x{IN}, #gpu.address_space<workgroup>>
!boxB = memref<{B_BOX}x{IN}, #gpu.address_space<workgroup>>
!boxBMap = memref<{B_MAP_BOX}x{IN}, #gpu.address_space<workgroup>>
!tileB = memref<{B_TILE}x{IN}, #gpu.address_space<workgroup>>
{MMA_TYPES}
!staged = memref<128x{STAGED_COLUMNS}xf32, #gpu.address_space<workgroup>>
!stagedC = memref<128x{TILE_N}xf32, strided<[{STAGED_COLUMNS}, 1]>, #gpu.address_space<workgroup>>
!stagedHalf = memref<64x{TILE_N}xf32, strided<[{STAGED_COLUMNS}, 1]>, #gpu.address_space<workgroup>>
{RESIDUAL_TYPES}
{B_RESIDENT_TYPES}

gpu.module @{MODULE} {
{STREAM_K_GLOBALS}

  // Shared memory map (bytes from `base`, a 1024-aligned offset into dynamic shared memory;
  // 128B-swizzled tiles and the wgmma descriptors with base_offset 0 need 1024 alignment):
  //   A stage s:  s * {A_STAGE_BYTES}     (128 rows of M x a k-tile, KTILE bytes a row;
  //                                        consumer w's rows from + w * {A_ROWS_OFFSET})
  //   B stage s:  {B_BASE} + s * {B_STAGE_BYTES}  ({B_BOXES} boxes of {B_BOX_BYTES} bytes,
  //                                        each 64 columns of N: 64 rows of K x KTILE
  //                                        bytes, or 64 rows of N x KTILE bytes of K);
  //               with B resident, k-tile kt of B there instead, for every kt of K
  //   C staging after a tile's main loop: 128 rows x {STAGED_COLUMNS} floats (padded
  //   against bank conflicts) from {STAGING_BASE}: reusing the ring when the CTA has no
  //   other tile to load, else past it.
  //   The residual tile, when there is one: past the ring and the staging.
  // The launch gives the ring (and, persistent, the staging) + 2048 bytes: `base` is past the small
  // static shared variables (the mbarriers, the zero-sized dynamic-shared-memory symbol)
  // and rounded up to 1024, wherever ptxas puts them.

  // C ({OUT}) = A x B ({IN}), accumulated in f32. Grid (at most ceil(M/128) *
  // ceil(N/{TILE_N}), 1, 1), block ({THREADS}, 1, 1): 384, or 288 with two CTAs an SM. %C
  // is a bare pointer to the row-major M x N output; M, N and K are anything: an operand
  // whose rows are no multiple of 16 bytes (which TMA needs) is read by the producer's
  // threads (THREAD_LOADS below), C's rows are stored in vectors that divide them.
  gpu.func @{ENTRY}({A_PARAMETER}, {B_PARAMETER}, %C: memref<{OUT}>,
                                       %M: i32, %N: i32, %K: i32{EPILOGUE_PARAMETERS}{RESIDUAL_PARAMETER}{STREAM_K_PARAMETERS})
      kernel attributes {known_block_size = array<i32: {THREADS}, 1, 1>, nvvm.minctasm = {CTAS_PER_SM} : i32} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %c1087 = arith.constant 1087 : index
    %aStageBytes = arith.constant {A_STAGE_BYTES} : index
    %bBoxBytes = arith.constant {B_BOX_BYTES} : index
    %tileM = arith.constant {TILE_M} : index
    %tileN = arith.constant {TILE_N} : index
    %tileK = arith.constant {TILE_K} : index
    %bBoxes = arith.constant {B_BOXES} : index
    %bBase = arith.constant {B_BASE} : index
    %bStageBytes = arith.constant {B_STAGE_BYTES} : index
    %stages = arith.constant {STAGES} : index
    %stageBytes = arith.constant {STAGE_BYTES} : index
    %groupM = arith.constant 8 : index
    %ticks = arith.constant 10000000 : index
    %consumerThreads = arith.constant {CONSUMER_THREADS} : i32
    %consumerThreadsIndex = arith.constant {CONSUMER_THREADS} : index
    %consumerGroups = arith.constant {CONSUMERS} : index
    %epilogueBarrier = arith.constant 1 : i32
    %m = arith.index_castui %M : i32 to index
    %n = arith.index_castui %N : i32 to index
    %k = arith.index_castui %K : i32 to index
{OPERAND_SETUP}
    // Partial tiles at the edges: TMA fills what lies outside A and B with zeros (so a K
    // tail adds nothing) and the epilogue stores only the rows and columns inside C.
    %c127 = arith.constant 127 : index
    %tileKLess = arith.subi %tileK, %c1 : index
    %kUp = arith.addi %k, %tileKLess : index
    %numK = arith.divui %kUp, %tileK : index

    // Tiles are visited in groups of 8 tile rows (M), column by column inside a group, so
    // that the CTAs running at once share A and B in the L2.
{TILES_M}
    %tileNLess = arith.subi %tileN, %c1 : index
    %nUp = arith.addi %n, %tileNLess : index
    %tilesN = arith.divui %nUp, %tileN : index
    %tiles = arith.muli %tilesM, %tilesN : index
    %splits = arith.constant {SPLITS} : index
    %perGroup = arith.muli %groupM, %tilesN : index
    %pid = gpu.block_id x
    %grid = gpu.grid_dim x
    // The work items' and the ring's arithmetic (per tile and per k-tile, in every warp)
    // is 32-bit: NVPTX's 64-bit divisions and remainders take a few dozen instructions a
    // tile, where 32-bit ones by the constant STAGES are a multiply-high. (A CTA's items
    // and k-tiles are counted in 32 bits: far more than a launch can have.)
    %c0I = arith.constant 0 : i32
    %c1I = arith.constant 1 : i32
    %groupMI = arith.constant 8 : i32
    %stagesI = arith.constant {STAGES} : i32
    %splitsI = arith.constant {SPLITS} : i32
    %hasSplits = arith.cmpi ugt, %splitsI, %c1I : i32
    %tilesI = arith.index_castui %tiles : index to i32
    %tilesMI = arith.index_castui %tilesM : index to i32
    %perGroupI = arith.index_castui %perGroup : index to i32
    %numKI = arith.index_castui %numK : index to i32
    // Stream-K (STREAM_K > 1): the first %fullItems tiles (the grid's whole waves) are an
    // item each; the %lastTiles = tiles mod grid of the last, partial wave are split
    // along K into %parts parts each (at most STREAM_K, no more than the grid has CTAs
    // for, at least a k-tile each): item %fullItems + part * %lastTiles + (tile -
    // %fullItems), a CTA's last item. Without stream-K the tiles (or split-K's parts)
    // are the items (the scf.if folds away).
    %streamKI = arith.constant {STREAM_K} : i32
    %hasStreamK = arith.cmpi ugt, %streamKI, %c1I : i32
    %fullItemsI, %partsI, %items = scf.if %hasStreamK -> (i32, i32, index) {
      %gridI = arith.index_castui %grid : index to i32
      %lastWave = arith.remui %tilesI, %gridI : i32
      %wholeWaves = arith.subi %tilesI, %lastWave : i32
      %lastWaveSome = arith.maxui %lastWave, %c1I : i32
      %partsByGrid = arith.divui %gridI, %lastWaveSome : i32
      %partsCapped = arith.minui %streamKI, %partsByGrid : i32
      %partsByK = arith.minui %partsCapped, %numKI : i32
      %partsSome = arith.maxui %partsByK, %c1I : i32
      %partItems = arith.muli %lastWave, %partsSome : i32
      %streamItemsI = arith.addi %wholeWaves, %partItems : i32
      %streamItems = arith.index_castui %streamItemsI : i32 to index
      scf.yield %wholeWaves, %partsSome, %streamItems : i32, i32, index
    } else {
      %splitItems = arith.muli %tiles, %splits : index
      scf.yield %tilesI, %c1I, %splitItems : i32, i32, index
    }
    %lastTilesI = arith.subi %tilesI, %fullItemsI : i32
    %lastTilesSomeI = arith.maxui %lastTilesI, %c1I : i32

    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %isProducer = arith.cmpi eq, %wg, %consumerGroups : index

    // The ring's 1024-aligned offset inside dynamic shared memory, past the static shared
    // variables (see the map above).
    %dyn = gpu.dynamic_shared_memory : !smem
    %addr = memref.extract_aligned_pointer_as_index %dyn : !smem -> index
    %addrUp = arith.addi %addr, %c1087 : index
    %addrRem = arith.remui %addrUp, %c1024 : index
    %aligned = arith.subi %addrUp, %addrRem : index
    %base = arith.subi %aligned, %addr : index

    // full[s]: armed by the producer (one arrival plus the TMA byte count), completes when
    // the stage has landed. empty[s]: the threads of the consumers that read the stage
    // ({EMPTY_ARRIVALS}) arrive once their wgmma on it have completed; the producer waits
    // for it before a refill. (Ping-pong consumers have one more empty barrier, which no
    // one waits for: see the release below.)
    %full = nvgpu.mbarrier.create -> !bars
    %empty = nvgpu.mbarrier.create -> !emptyBars
    %emptyBarriers = arith.constant {EMPTY_BARRIERS} : index
    %emptyArrivals = arith.constant {EMPTY_ARRIVALS} : index
    %fullArrivals = arith.constant {FULL_ARRIVALS} : index
{RESIDUAL_BARRIERS}
{B_RESIDENT_BARRIER}
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      scf.for %s = %c0 to %stages step %c1 {
        nvgpu.mbarrier.init %full[%s], %fullArrivals : !bars
      }
      scf.for %s = %c0 to %emptyBarriers step %c1 {
        nvgpu.mbarrier.init %empty[%s], %emptyArrivals : !emptyBars
      }
{RESIDUAL_INIT}
{B_RESIDENT_INIT}
      // The barriers were initialised by generic-proxy stores; the TMA unit (async proxy)
      // signals them next.
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    }
    gpu.barrier

    scf.if %isProducer {
      // With one CTA an SM, the producer keeps 40 registers: it only computes addresses.
{SHRINK_PRODUCER}
      %producerTid = arith.subi %tid, %consumerThreadsIndex : index
      %issuer = arith.cmpi eq, %producerTid, %c0 : index
      scf.if {LOADERS} {
{PREFETCH}
{RESIDUAL_PREFETCH}
{B_RESIDENT_LOAD}
        %last = arith.subi %stages, %c1 : index
        // %g counts the k-tiles this CTA loaded before the tile: the ring runs on across
        // tiles.
        %loaded = scf.for %item = %pid to %items step %grid iter_args(%g0 = %c0) -> (index) {
{ITEM_TILE}
{TILE_SETUP}
          %n0 = arith.muli %tileCol, %tileN : index
{RESIDUAL_LOAD}
          scf.for %kt = %kBegin to %kEnd step %c1 {
            // The CTA's k-tile g is fill f = g / STAGES of stage s = g % STAGES. Fill
            // f > 0 may go in once k-tile g - STAGES is released: completion f - 1 of
            // empty[s], or (cooperative consumers) completion f for the last stage, which
            // the consumers release once early (see below). Wait for that completion's
            // parity.
            %kFromBegin = arith.subi %kt, %kBegin : index
            %g = arith.addi %g0, %kFromBegin : index
            %gI = arith.index_castui %g : index to i32
            %slotI = arith.remui %gI, %stagesI : i32
            %fill = arith.divui %gI, %stagesI : i32
            %slot = arith.index_castui %slotI : i32 to index
            %refill = arith.cmpi uge, %gI, %stagesI : i32
{EARLY_LOADS}
            scf.if %refill {
              %isLast = arith.cmpi eq, %slot, %last : index
              %early = arith.constant {EARLY_RELEASES} : i32
              %extra = arith.select %isLast, %early, %c0I : i32
              %fillPlus = arith.addi %fill, %extra : i32
              %completion = arith.subi %fillPlus, %c1I : i32
              %cBit = arith.andi %completion, %c1I : i32
              %ePhase = arith.cmpi ne, %cBit, %c0I : i32
              nvgpu.mbarrier.try_wait.parity %empty[%slot], %ePhase, %ticks : !emptyBars
            }
            %k0 = arith.muli %kt, %tileK : index
            %aOff = arith.muli %slot, %aStageBytes : index
            %offA = arith.addi %base, %aOff : index
            %bOff = arith.muli %slot, %bStageBytes : index
            %bOffBase = arith.addi %base, %bBase : index
            %offB = arith.addi %bOffBase, %bOff : index
            %a = memref.view %dyn[%offA][] : !smem to !tileA
{ARM_STAGE}
            // Coordinates innermost first: A is {k, m}, B is {n, k}.
{LOAD_A}
            %stageBBoxes = arith.constant {STAGE_B_BOXES} : index
            scf.for %j = %c0 to %stageBBoxes step %c1 {
              %jOff = arith.muli %j, %bBoxBytes : index
              %offBj = arith.addi %offB, %jOff : index
              %jCol = arith.muli %j, %c64 : index
              %nj = arith.addi %n0, %jCol : index
              %bj = memref.view %dyn[%offBj][] : !smem to !boxB
{B_VIEW}
{LOAD_B_BOX}
            }
{STAGE_LOADED}
          }
          %gNext = arith.addi %g0, %kCount : index
          scf.yield %gNext : index
        }
      }
    } else {
      // Each consumer holds {CONSUMER_ROWS} x {TILE_N} f32 accumulators. With one CTA an SM it gets
      // what the producer's 128 threads gave up: 232 registers with two consumers
      // (232 * 256 + 40 * 128 <= 65536), 152 with three (152 * 384 + 40 * 128). With two
      // CTAs an SM, every thread keeps the 96 of a launch (18 warps an SM, 5 on
      // some of its 4 register-file quarters of 16384; a 24-register producer warpgroup
      // would spill: ptxas compiles the code after a setmaxnreg for its count).
{GROW_CONSUMERS}
{B_RESIDENT_WAIT}
      // Cooperative consumers: consumer w computes rows 64w.. of every tile the CTA has.
      // Ping-pong ones: consumer w computes all 128 rows of the CTA's tiles w, w + 2, ...
      // (its turns), each staging its results in a tile of its own.
      %turns = arith.constant {TURNS} : index
      %aRowsOffset = arith.constant {A_ROWS_OFFSET} : index
      %wgOffA = arith.muli %wg, %aRowsOffset : index
      %stagingBase = arith.constant {STAGING_BASE} : index
      %wgStagingBytes = arith.constant {WG_STAGING_BYTES} : index
      %wgStaging = arith.muli %wg, %wgStagingBytes : index
      %stagingAt = arith.addi %base, %stagingBase : index
      %staging = arith.addi %stagingAt, %wgStaging : index
      %turn = arith.remui %wg, %turns : index
      %turnItems = arith.muli %turn, %grid : index
      %firstItem = arith.addi %pid, %turnItems : index
      %itemStep = arith.muli %grid, %turns : index
      %gStart = arith.muli %turn, %numK : index
      // Each of the 8 consumer warps stores rows in chunks of {LANES} x {ROW_LANES} columns,
      // {LANES} elements a lane: 32 / {ROW_LANES} rows a step. LANE_MAP places lane %lane
      // at row %laneRow of the step and chunk %laneInRow of the row (see its comment).
      %mn = arith.muli %m, %n : index
      %lane = arith.remui %tid, %c32 : index
      %warp = arith.divui %tid, %c32 : index
      %rowLanes = arith.constant {ROW_LANES} : index
      %rowsPerWarp = arith.divui %c32, %rowLanes : index
      %lanes = arith.constant {LANES} : index
{LANE_MAP}
      %laneCol = arith.muli %laneInRow, %lanes : index
      %chunkColumns = arith.muli %rowLanes, %lanes : index
      %warpRow = arith.muli %warp, %rowsPerWarp : index
      %firstRow = arith.addi %warpRow, %laneRow : index
      %rowStep = arith.muli %rowsPerWarp, %c8 : index
      %consumed = scf.for %item = %firstItem to %items step %itemStep iter_args(%g0 = %gStart) -> (index) {
{ITEM_TILE}
        %split = arith.index_castui %splitI : i32 to index
{TILE_SETUP}
        %n0 = arith.muli %tileCol, %tileN : index
{COLUMN_VALUES_EARLY}
{ACC_INIT}
        // Every item has a k-tile (K > 0; split-K parts have several): told so, LLVM
        // drops the loop's bypass, which had the zero accumulators materialised twice,
        // once for each path (a move a register, every tile).
        %hasKTiles = arith.cmpi ult, %kBegin, %kEnd : index
        llvm.intr.assume %hasKTiles : i1
{TURN_WAIT}
        %res, %lastPending = scf.for %kt = %kBegin to %kEnd step %c1
            iter_args(%accIn = %init, %pending = %stages) -> ({ACC}, index) {
          // The CTA's k-tile g sits in stage g % STAGES; it is that stage's fill
          // g / STAGES, whose completion flips full[stage] to parity (g / STAGES) & 1.
          %kFromBegin = arith.subi %kt, %kBegin : index
          %g = arith.addi %g0, %kFromBegin : index
          %gI = arith.index_castui %g : index to i32
          %slotI = arith.remui %gI, %stagesI : i32
          %round = arith.divui %gI, %stagesI : i32
          %slot = arith.index_castui %slotI : i32 to index
          %roundBit = arith.andi %round, %c1I : i32
          %phase = arith.cmpi ne, %roundBit, %c0I : i32
          nvgpu.mbarrier.try_wait.parity %full[%slot], %phase, %ticks : !bars

          // This warpgroup's {CONSUMER_ROWS} rows of A, and the whole 64x{TILE_N} B tile.
          %aOff = arith.muli %slot, %aStageBytes : index
          %offA = arith.addi %base, %aOff : index
          %offAw = arith.addi %offA, %wgOffA : index
          %bOff = arith.muli {B_INDEX}, %bStageBytes : index
          %bOffBase = arith.addi %base, %bBase : index
          %offB = arith.addi %bOffBase, %bOff : index
          %a = memref.view %dyn[%offAw][] : !smem to !halfA
          %b = memref.view %dyn[%offB][] : !smem to !tileB
{DESCRIPTORS}
          // The k-tile's wgmma, ending with a wait until at most one wgmma group (this
          // one) is in flight, so that this thread's wgmma on the k-tile before have
          // completed.
{MMA}

          // Release the CTA's k-tile g-1's stage, (g + STAGES - 1) % STAGES. Cooperative
          // consumers: at kt = 0 that is the last k-tile of the previous tile (complete:
          // its epilogue waited for every wgmma), and at g = 0 the last stage, early,
          // which the producer counts. Ping-pong consumers: k-tile g - 1 at kt = 0 is the
          // other consumer's: they release the k-tile before (%pending), at kt = 0 on
          // the empty barrier no one waits for, and their tile's last k-tile after the
          // loop (RELEASE_SLOT, RELEASE_LAST). The release is unconditional: a `kt > 0`
          // test here (or a select on it) made LLVM peel the first iteration,
          // materialising the zero accumulators between wgmma.fence and the first
          // wgmma, and ptxas then serialised the wgmma: C7519/C7517.
          %aheadI = arith.subi %stagesI, %c1I : i32
          %previousI = arith.addi %gI, %aheadI : i32
          %previousSlotI = arith.remui %previousI, %stagesI : i32
          %previousSlot = arith.index_castui %previousSlotI : i32 to index
{RELEASE_SLOT}
          %tok = nvgpu.mbarrier.arrive %empty[%releaseSlot] : !emptyBars -> !nvgpu.mbarrier.token
          scf.yield %accOut, %slot : {ACC}, index
        }
{TURN_SIGNAL}
        nvvm.wgmma.wait.group.sync.aligned 0
{RELEASE_LAST}
{ACC_FINISH}
{STREAM_K_FIXUP}
        scf.if %storeTile {
{STORE_TILE}
        }
        %turnKTiles = arith.muli %kCount, %turns : index
        %gNext = arith.addi %g0, %turnKTiles : index
        scf.yield %gNext : index
      }
    }
    gpu.return
  }
}
