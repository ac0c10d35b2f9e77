// The warp-specialised template's epilogue through an f32 staging of C ({STORE_TILE} of
// Sm90GemmWs.mlir, whose values and placeholders it uses): the accumulators are stored
// to shared memory as they lie in the wgmma fragments, read back in rows of {LANES}
// consecutive elements, put through the epilogue and stored in vectors of 16 bytes (fewer
// where N is not a multiple of 16 bytes' elements). For f16,
// bf16 and tf32 products, and split-K parts (f32 partial sums). The i8 products store
// through Sm90StoreFragments.mlir instead.
        // Epilogue. The named barrier of the 256 consumer threads (the producer does not
        // take part) waits until both consumers' wgmma have completed (when the staging
        // reuses the ring) and every thread has stored the previous tile from the staging
        // (persistent). The accumulators go to a padded 128x{TILE_N} f32 tile, then out in
        // 16-byte rows. Both warpgroups store through the same 64x{TILE_N} view of rows
        // 0..63: the fragment store (upstream's lowering) places a thread's rows by its warp
        // index tid / 32, 0..7, so warpgroup 1's fragment lands in rows 64..127 (the view's
        // row stride carries on past its 64 rows into the rest of the tile).
        nvvm.barrier id = %epilogueBarrier number_of_threads = %consumerThreads
        %padded = memref.view %dyn[%staging][] : !smem to !staged
        %cs = memref.subview %padded[0, 0] [128, {TILE_N}] [1, 1] : !staged to !stagedC
        %frag = memref.subview %padded[0, 0] [64, {TILE_N}] [1, 1] : !staged to !stagedHalf
        nvgpu.warpgroup.mma.store {ACC_F32}, %frag : !acc to !stagedHalf
        nvvm.barrier id = %epilogueBarrier number_of_threads = %consumerThreads
{RESIDUAL_WAIT}

        // This split's slice of C (the whole of C without split-K), flat.
        %cOffset = arith.muli %split, %mn : index
        %cg = memref.reinterpret_cast %C to offset: [%cOffset], sizes: [%mn], strides: [1]
          : memref<{OUT}> to memref<?x{OUT}, strided<[1], offset: ?>>
        // A thread's items: its rows %firstRow + i %rowStep of the tile (i < 128 /
        // %rowStep) times the chunks of %chunkColumns columns, {LANES} elements each. They
        // go in batches of {BATCH}: first every load and the arithmetic of the batch, then its
        // stores. Loads of the epilogue's inputs (a skip connection, per-column scales)
        // then overlap instead of each waiting out the memory latency, which they would
        // behind a store the compiler cannot prove apart from them. Rows and columns past
        // M and N (partial edge tiles) are not stored, and load at C's row and column 0
        // meanwhile; N is a multiple of {LANES}, so a vector is all inside or all
        // outside. The batch loops are unrolled once parsed (`unroll`).
{ROW_END}
        %rowsPerThread = arith.divui %c128, %rowStep : index
        %chunks = arith.divui %tileN, %chunkColumns : index
        %threadItems = arith.muli %rowsPerThread, %chunks : index
        %batch = arith.constant {BATCH} : index
        %noStore = arith.constant -1 : index
        %zeroValues = arith.constant dense<{OUT_ZERO}> : vector<{BATCH}x{LANES}x{OUT}>
{COLUMN_VALUES}
        %noOffsets = vector.broadcast %noStore : index to vector<{BATCH}xindex>
        scf.for %t0 = %c0 to %threadItems step %batch {
          %loaded:2 = scf.for %u = %c0 to %batch step %c1
              iter_args(%values = %zeroValues, %offsets = %noOffsets)
              -> (vector<{BATCH}x{LANES}x{OUT}>, vector<{BATCH}xindex>) {
            %t = arith.addi %t0, %u : index
            %itemRow = arith.divui %t, %chunks : index
            %itemChunk = arith.remui %t, %chunks : index
            %rowFromFirst = arith.muli %itemRow, %rowStep : index
            %r = arith.addi %firstRow, %rowFromFirst : index
            %chunk = arith.muli %itemChunk, %chunkColumns : index
{ROW_MAP}
            %col = arith.addi %chunk, %laneCol : index
            %gcol = arith.addi %n0, %col : index
            %rowInTile = arith.cmpi ult, %r, %rowEnd : index
            {COLUMN_INSIDE}
            %rowInside = arith.andi %rowInTile, %rowOk : i1
            %inside = arith.andi %rowInside, %colInside : i1
            // The column alone places a per-column input's load, so that a thread's
            // items of one chunk share it (CSE, once unrolled).
            %growAt = arith.select %inside, %grow, %c0 : index
            %gcolAt = arith.select %colInside, %gcol, %c0 : index
            {STAGED} = vector.load %cs[%r, %col] {alignment = {STAGED_ALIGNMENT}} : !stagedC, vector<{LANES}xf32>
{UNBIAS}
            {EPILOGUE}
            {CONVERT}
            %valuesNext = vector.insert {STORED}, %values[%u] : vector<{LANES}x{OUT}> into vector<{BATCH}x{LANES}x{OUT}>
            %rowStart = arith.muli %growAt, %n : index
            %at = arith.addi %rowStart, %gcolAt : index
            %offset = arith.select %inside, %at, %noStore : index
            %offsetsNext = vector.insert %offset, %offsets[%u] : index into vector<{BATCH}xindex>
            scf.yield %valuesNext, %offsetsNext : vector<{BATCH}x{LANES}x{OUT}>, vector<{BATCH}xindex>
          } {unroll}
          scf.for %u = %c0 to %batch step %c1 {
            %offset = vector.extract %loaded#1[%u] : index from vector<{BATCH}xindex>
            %store = arith.cmpi ne, %offset, %noStore : index
            scf.if %store {
              %value = vector.extract %loaded#0[%u] : vector<{LANES}x{OUT}> from vector<{BATCH}x{LANES}x{OUT}>
              vector.store %value, %cg[%offset] {alignment = {STORE_ALIGNMENT}}
                : memref<?x{OUT}, strided<[1], offset: ?>>, vector<{LANES}x{OUT}>
            }
          } {unroll}
        }
{RESIDUAL_RELEASE}
