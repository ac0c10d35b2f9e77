// The consumers' side of the producer's epilogue ({STORE_TILE} of Sm90GemmWs.mlir, whose
// values and placeholders it uses; the other side is Sm90HandoffEpilogue.mlir): the
// consumers hand the tile's sums over in shared memory and go on to the next tile's main
// loop, while three warps of the producer warpgroup run the epilogue on them. The staging
// holds TILE_M rows of OUT_PITCH elements of OUT (TILE_N and 16 bytes of padding, so that
// the 8 rows a warp's fragment stores at once fall on different banks); the sums are
// rounded to OUT there, as an unfused product's result would be.
// Named barrier 7 (HANDOFF_THREADS: the consumers' and the epilogue warps' threads) says
// the staging is free: the epilogue warps arrive once before any tile and once after
// reading each tile but the last; barrier 8 says it is full.
// Warp w of the consumers holds rows 16 w + lane / 4 and 8 below of the tile (64 rows a
// warpgroup), columns 8 j + 2 (lane % 4) and the next for each group j of 8 columns:
// %accValues[4 j + 2 h + {0, 1}] for h = 0, 1 (the wgmma D fragment).
        %handoffFree = arith.constant 7 : i32
        %handoffFull = arith.constant 8 : i32
        %handoffThreads = arith.constant {HANDOFF_THREADS} : i32
        nvvm.barrier id = %handoffFree number_of_threads = %handoffThreads
        %sumsTile = memref.view %dyn[%staging][] : !smem to memref<{TILE_M}x{OUT_PITCH}x{OUT}, #gpu.address_space<workgroup>>
        %quad = arith.remui %lane, %c4 : index
        %quadRow = arith.divui %lane, %c4 : index
        %fragRowsPerWarp = arith.constant 16 : index
        %warpRows = arith.muli %warp, %fragRowsPerWarp : index
        %fragRow = arith.addi %warpRows, %quadRow : index
        %fragCol = arith.muli %quad, %c2 : index
        %fragGroups = arith.constant {FRAGMENT_GROUPS} : index
        scf.for %j = %c0 to %fragGroups step %c1 {
          scf.for %h = %c0 to %c2 step %c1 {
            %hRows = arith.muli %h, %c8 : index
            %r = arith.addi %fragRow, %hRows : index
            %jCols = arith.muli %j, %c8 : index
            %col = arith.addi %jCols, %fragCol : index
            %jValues = arith.muli %j, %c4 : index
            %hValues = arith.muli %h, %c2 : index
            %e0 = arith.addi %jValues, %hValues : index
            %e1 = arith.addi %e0, %c1 : index
            %v0 = vector.extract %accValues[%e0] : f32 from vector<{FRAGMENT_VALUES}xf32>
            %v1 = vector.extract %accValues[%e1] : f32 from vector<{FRAGMENT_VALUES}xf32>
            %pair = vector.from_elements %v0, %v1 : vector<2xf32>
            %pairOut = arith.truncf %pair : vector<2xf32> to vector<2x{OUT}>
            vector.store %pairOut, %sumsTile[%r, %col] {alignment = {PAIR_ALIGNMENT}} : memref<{TILE_M}x{OUT_PITCH}x{OUT}, #gpu.address_space<workgroup>>, vector<2x{OUT}>
          } {unroll}
        } {unroll}
        nvvm.barrier.arrive id = %handoffFull number_of_threads = %handoffThreads
