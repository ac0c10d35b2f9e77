// The producer's epilogue ({PRODUCER_EPILOGUE} of Sm90GemmWs.mlir, in the producer
// warpgroup after its loads, whose values and placeholders it uses; the consumers' side is
// Sm90HandoffStage.mlir): warps 1-3 of the producer warpgroup (warp 0's first thread
// issues the loads) walk the CTA's tiles as the consumers do; for each, they wait for the
// staging to fill (barrier 8), read its rows in chunks of LANES elements (16 bytes),
// widen them to f32, run the epilogue ({EPILOGUE} on %v at [%growAt, %gcolAt]) and store
// the chunk into C, then free the staging (barrier 7) unless the tile was the CTA's last.
// A thread's chunks are 96 apart: where TILE_N / LANES (OUT_CHUNKS) divides 96 they all
// have the same columns, and HANDOFF_COLUMNS (the marker of the epilogue's per-column
// inputs, or nothing) lets the epilogue load those once a tile. TILE_CHUNKS: TILE_M x
// OUT_CHUNKS.
      %handoffFree = arith.constant 7 : i32
      %handoffFull = arith.constant 8 : i32
      %handoffThreads = arith.constant {HANDOFF_THREADS} : i32
      %producerWarp = arith.divui %producerTid, %c32 : index
      %isEpilogueWarp = arith.cmpi uge, %producerWarp, %c1 : index
      scf.if %isEpilogueWarp {
        %epThread = arith.subi %producerTid, %c32 : index
        %epThreads = arith.constant 96 : index
        nvvm.barrier.arrive id = %handoffFree number_of_threads = %handoffThreads
        %mn = arith.muli %m, %n : index
        %cg = memref.reinterpret_cast %C to offset: [0], sizes: [%mn], strides: [1]
          : memref<{OUT}> to memref<?x{OUT}, strided<[1], offset: ?>>
        %stagingAt = arith.constant {STAGING_BASE} : index
        %staging = arith.addi %base, %stagingAt : index
        %sumsTile = memref.view %dyn[%staging][] : !smem to memref<{TILE_M}x{OUT_PITCH}x{OUT}, #gpu.address_space<workgroup>>
        %outChunks = arith.constant {OUT_CHUNKS} : index
        %outLanes = arith.constant {LANES} : index
        %tileChunks = arith.constant {TILE_CHUNKS} : index
        %laneInRow = arith.remui %epThread, %outChunks : index
        %laneCol = arith.muli %laneInRow, %outLanes : index
        scf.for %item = %pid to %items step %grid {
{ITEM_TILE}
{TILE_SETUP}
          %n0 = arith.muli %tileCol, %tileN : index
{ROW_END}
{HANDOFF_COLUMNS}
          nvvm.barrier id = %handoffFull number_of_threads = %handoffThreads
          scf.for %q = %epThread to %tileChunks step %epThreads {
            %r = arith.divui %q, %outChunks : index
            %chunkInRow = arith.remui %q, %outChunks : index
            %col = arith.muli %chunkInRow, %outLanes : index
{ROW_MAP}
            %gcol = arith.addi %n0, %col : index
            %rowInTile = arith.cmpi ult, %r, %rowEnd : index
            {COLUMN_INSIDE}
            %rowInside = arith.andi %rowInTile, %rowOk : i1
            %inside = arith.andi %rowInside, %colInside : i1
            %growAt = arith.select %inside, %grow, %c0 : index
            %gcolAt = arith.select %colInside, %gcol, %c0 : index
            %sums = vector.load %sumsTile[%r, %col] {alignment = {STORE_ALIGNMENT}} : memref<{TILE_M}x{OUT_PITCH}x{OUT}, #gpu.address_space<workgroup>>, vector<{LANES}x{OUT}>
            %v = arith.extf %sums : vector<{LANES}x{OUT}> to vector<{LANES}xf32>
            {EPILOGUE}
            {CONVERT}
            scf.if %inside {
              %rowStart = arith.muli %grow, %n : index
              %at = arith.addi %rowStart, %gcol : index
              vector.store {STORED}, %cg[%at] {alignment = {STORE_ALIGNMENT}}
                : memref<?x{OUT}, strided<[1], offset: ?>>, vector<{LANES}x{OUT}>
            }
          }
          %nextItem = arith.addi %item, %grid : index
          %hasNext = arith.cmpi ult, %nextItem, %items : index
          scf.if %hasNext {
            nvvm.barrier.arrive id = %handoffFree number_of_threads = %handoffThreads
          }
        }
      }
