// The warp-specialised template's epilogue on the accumulator fragments ({STORE_TILE} of
// Sm90GemmWs.mlir, whose values and placeholders it uses), for i8 products and ping-pong
// consumers: the epilogue's arithmetic runs on the sums where wgmma left them, in
// registers, and only its results go through shared memory, to leave in 16-byte rows.
// An f32 staging would move two or four times the results' bytes through shared memory,
// behind a barrier of the consumer warpgroups, and keep the epilogue's loads and
// arithmetic waiting on it.
//
// The accumulators are FRAGMENT_SLICES slices of 64 rows (one for cooperative consumers,
// whose warps 0..7 hold rows 16 w.. of the tile; two for a ping-pong consumer, whose
// warps w = 0..3 of the warpgroup hold rows 64 s + 16 w.. of slice s). In slice s, a
// thread holds, for each group j of 8 columns, the sums of rows 64 s + 16 w + lane / 4
// and 8 rows below, columns 8 j + 2 (lane % 4) and the next: %accValues[s
// FRAGMENT_SLICE_VALUES + 4 j + 2 h + {0, 1}] for h = 0, 1 (the wgmma D fragment), as
// f32 (ACC_FINISH). The residual tile, when there is one, lies in
// rows padded by 16 bytes (RESIDUAL_AT), so that the 8 rows a warp reads at once fall on
// different banks. The results go to a STAGED_ROWS x OUT_PITCH staging (the rows the
// consumer holds of a slice: 192, 128 or 64; rows padded by 16 bytes
// for the same reason), 2 elements a store (PAIR_ALIGNMENT bytes), PASS_COLUMNS columns
// at a time (FRAGMENT_PASSES passes over the tile's columns: a staging of 64 columns
// leaves the ring room for another stage); warp w then stores the 16 rows of the pass
// it holds itself, so warp-level barriers order the two.
// Its own placeholders: OUT_PITCH (PASS_COLUMNS + 16 bytes of OUT), PASS_COLUMNS,
// PASS_GROUPS (PASS_COLUMNS / 8), FRAGMENT_PASSES (TILE_N / PASS_COLUMNS), FRAGMENT_SLICES,
// FRAGMENT_WARPS (the warps that hold a slice: 8, 12 or 4),
// FRAGMENT_SLICE_VALUES (TILE_N / 2), FRAGMENT_VALUES (all of a thread's: FRAGMENT_SLICES
// TILE_N / 2), PAIR_ALIGNMENT, FRAGMENT_LOOP (`unroll`,
// and `hoist_loads` where registers allow: unrollMarkedLoops), FRAGMENT_BARRIER (the
// warpgroups' barrier, or nothing), COLUMN_INSIDE (the column test, or `true` where N is
// a multiple of TILE_N), OUT_CHUNKS (PASS_COLUMNS / LANES) and OUT_ITEMS (a lane's chunks
// of its warp's 16 rows in a pass).
        // The staging reuses the ring when the CTA has one tile: both consumers' wgmma
        // must be complete first (FRAGMENT_BARRIER; nothing on a persistent grid, whose
        // staging lies past the ring and whose warps each reuse their own rows).
{FRAGMENT_BARRIER}
{RESIDUAL_WAIT}
        %outTile = memref.view %dyn[%staging][] : !smem to memref<{STAGED_ROWS}x{OUT_PITCH}x{OUT}, #gpu.address_space<workgroup>>
        %quad = arith.remui %lane, %c4 : index
        %quadRow = arith.divui %lane, %c4 : index
        %fragRowsPerWarp = arith.constant 16 : index
        %fullWarp = arith.constant -1 : i32
        %fragWarps = arith.constant {FRAGMENT_WARPS} : index
        %fragWarp = arith.remui %warp, %fragWarps : index
        %warpRowsInSlice = arith.muli %fragWarp, %fragRowsPerWarp : index
        %fragCol = arith.muli %quad, %c2 : index
        %fragSliceValues = arith.constant {FRAGMENT_SLICE_VALUES} : index
{ROW_END}
        %passGroups = arith.constant {PASS_GROUPS} : index
        %passColumns = arith.constant {PASS_COLUMNS} : index
        %fragPasses = arith.constant {FRAGMENT_PASSES} : index
        %fragSlices = arith.constant {FRAGMENT_SLICES} : index
        scf.for %s = %c0 to %fragSlices step %c1 {
        %sliceRows = arith.muli %s, %c64 : index
        %warpRows = arith.addi %sliceRows, %warpRowsInSlice : index
        %fragRow = arith.addi %warpRows, %quadRow : index
        %sliceValues = arith.muli %s, %fragSliceValues : index
        scf.for %pass = %c0 to %fragPasses step %c1 {
        %passCol = arith.muli %pass, %passColumns : index
        %passGroup = arith.muli %pass, %passGroups : index
        scf.for %jInPass = %c0 to %passGroups step %c1 {
          %j = arith.addi %passGroup, %jInPass : index
          scf.for %h = %c0 to %c2 step %c1 {
            %hRows = arith.muli %h, %c8 : index
            %r = arith.addi %fragRow, %hRows : index
            %jCols = arith.muli %j, %c8 : index
            %col = arith.addi %jCols, %fragCol : index
            %jValues = arith.muli %j, %c4 : index
            %hValues = arith.muli %h, %c2 : index
            %jhValues = arith.addi %jValues, %hValues : index
            %e0 = arith.addi %sliceValues, %jhValues : index
            %e1 = arith.addi %e0, %c1 : index
            %v0 = vector.extract %accValues[%e0] : f32 from vector<{FRAGMENT_VALUES}xf32>
            %v1 = vector.extract %accValues[%e1] : f32 from vector<{FRAGMENT_VALUES}xf32>
            {STAGED} = vector.from_elements %v0, %v1 : vector<2xf32>
{UNBIAS}
{ROW_MAP}
            %gcol = arith.addi %n0, %col : index
            %rowInTile = arith.cmpi ult, %r, %rowEnd : index
            {COLUMN_INSIDE}
            %rowInside = arith.andi %rowInTile, %rowOk : i1
            %inside = arith.andi %rowInside, %colInside : i1
            %growAt = arith.select %inside, %grow, %c0 : index
            %gcolAt = arith.select %colInside, %gcol, %c0 : index
{RESIDUAL_AT}
            {EPILOGUE}
            {CONVERT}
            %stagedRow = arith.subi %r, %sliceRows : index
            %stagedCol = arith.subi %col, %passCol : index
            vector.store {STORED}, %outTile[%stagedRow, %stagedCol] {alignment = {PAIR_ALIGNMENT}} : memref<{STAGED_ROWS}x{OUT_PITCH}x{OUT}, #gpu.address_space<workgroup>>, vector<2x{OUT}>
          } {unroll}
        } {{FRAGMENT_LOOP}}
        nvvm.bar.warp.sync %fullWarp : i32

        // This warp's 16 rows of the pass, {LANES} elements (16 or 8 bytes) a lane at once: consecutive
        // lanes take consecutive chunks of a row. Rows and columns past M and N (edge
        // tiles) are not stored; N is a multiple of {LANES}. Every load first, then the
        // stores.
        %cg = memref.reinterpret_cast %C to offset: [0], sizes: [%mn], strides: [1]
          : memref<{OUT}> to memref<?x{OUT}, strided<[1], offset: ?>>
        %outChunks = arith.constant {OUT_CHUNKS} : index
        %outItems = arith.constant {OUT_ITEMS} : index
        %outLanes = arith.constant {LANES} : index
        %noStore = arith.constant -1 : index
        %zeroValues = arith.constant dense<{OUT_ZERO}> : vector<{OUT_ITEMS}x{LANES}x{OUT}>
        %noOffsets = vector.broadcast %noStore : index to vector<{OUT_ITEMS}xindex>
        %loaded:2 = scf.for %u = %c0 to %outItems step %c1
            iter_args(%values = %zeroValues, %offsets = %noOffsets)
            -> (vector<{OUT_ITEMS}x{LANES}x{OUT}>, vector<{OUT_ITEMS}xindex>) {
          %uChunks = arith.muli %u, %c32 : index
          %flatChunk = arith.addi %uChunks, %lane : index
          %rowInWarp = arith.divui %flatChunk, %outChunks : index
          %chunkInRow = arith.remui %flatChunk, %outChunks : index
          %r = arith.addi %warpRows, %rowInWarp : index
          %stagedCol = arith.muli %chunkInRow, %outLanes : index
          %col = arith.addi %passCol, %stagedCol : index
{ROW_MAP}
          %gcol = arith.addi %n0, %col : index
          %rowInTile = arith.cmpi ult, %r, %rowEnd : index
          {COLUMN_INSIDE}
          %rowInside = arith.andi %rowInTile, %rowOk : i1
          %inside = arith.andi %rowInside, %colInside : i1
          %stagedRow = arith.addi %warpRowsInSlice, %rowInWarp : index
          %value = vector.load %outTile[%stagedRow, %stagedCol] {alignment = {STORE_ALIGNMENT}}
            : memref<{STAGED_ROWS}x{OUT_PITCH}x{OUT}, #gpu.address_space<workgroup>>, vector<{LANES}x{OUT}>
          %valuesNext = vector.insert %value, %values[%u] : vector<{LANES}x{OUT}> into vector<{OUT_ITEMS}x{LANES}x{OUT}>
          %rowStart = arith.muli %grow, %n : index
          %at = arith.addi %rowStart, %gcol : index
          %offset = arith.select %inside, %at, %noStore : index
          %offsetsNext = vector.insert %offset, %offsets[%u] : index into vector<{OUT_ITEMS}xindex>
          scf.yield %valuesNext, %offsetsNext : vector<{OUT_ITEMS}x{LANES}x{OUT}>, vector<{OUT_ITEMS}xindex>
        } {unroll}
        scf.for %u = %c0 to %outItems step %c1 {
          %offset = vector.extract %loaded#1[%u] : index from vector<{OUT_ITEMS}xindex>
          %store = arith.cmpi ne, %offset, %noStore : index
          scf.if %store {
            %value = vector.extract %loaded#0[%u] : vector<{LANES}x{OUT}> from vector<{OUT_ITEMS}x{LANES}x{OUT}>
            vector.store %value, %cg[%offset] {alignment = {STORE_ALIGNMENT}}
              : memref<?x{OUT}, strided<[1], offset: ?>>, vector<{LANES}x{OUT}>
          }
        } {unroll}
        // The next pass's, slice's or tile's results go to the same rows.
        nvvm.bar.warp.sync %fullWarp : i32
        } {unroll}
        } {unroll}
{RESIDUAL_RELEASE}
