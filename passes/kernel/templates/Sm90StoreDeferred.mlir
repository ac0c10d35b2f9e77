// The warp-specialised template's deferred epilogue (Sm90GemmWs.mlir, whose values and
// placeholders it uses), for three cooperative consumers on a persistent grid: a tile's
// epilogue runs while the tensor cores compute the next tile, not after its main loop.
// After the main loop (STAGE) each warp rounds its 16 rows of sums to OUT as they lie in
// the wgmma fragments and stages them (rows padded by 16 bytes: the 8 rows a warp writes
// at once fall on different banks); then, in the next tile's main loop, after each k-tile's
// wgmma is issued, it takes one of its OUT_ITEMS items (a lane's LANES consecutive
// elements of its 16 rows) through the epilogue to C (DRAIN, item %du of the tile at
// (%dm0, %dn0)): the epilogue's loads and arithmetic (a GELU's erf chain) fill the
// issue slots the consumers leave idle while wgmma runs. Items a short K leaves (fewer
// k-tiles than items) drain before the next staging, and the CTA's last tile after its
// loop. Each warp reads back only rows it staged itself: warp-level barriers order the two.
// The sums are rounded to OUT before the epilogue (as a product and a separate epilogue
// kernel would round them): the staging holds TILE_M x TILE_N of OUT beside the ring.
// @@ DRAIN
          %dChunks = arith.constant {OUT_CHUNKS} : index
          %dLanes = arith.constant {LANES} : index
          %dFlat0 = arith.muli %du, %c32 : index
          %dFlat = arith.addi %dFlat0, %lane : index
          %dRowInWarp = arith.divui %dFlat, %dChunks : index
          %dChunkInRow = arith.remui %dFlat, %dChunks : index
          %dRow = arith.addi %dWarpRows, %dRowInWarp : index
          %dCol = arith.muli %dChunkInRow, %dLanes : index
          %grow = arith.addi %dm0, %dRow : index
          %gcol = arith.addi %dn0, %dCol : index
          %rowInside = arith.cmpi ult, %grow, %m : index
          {COLUMN_INSIDE}
          %inside = arith.andi %rowInside, %colInside : i1
          %growAt = arith.select %inside, %grow, %c0 : index
          %gcolAt = arith.select %colInside, %gcol, %c0 : index
          %dTile = memref.view %dyn[%staging][] : !smem to memref<{STAGED_ROWS}x{OUT_PITCH}x{OUT}, #gpu.address_space<workgroup>>
          %dStaged = vector.load %dTile[%dRow, %dCol] {alignment = {STORE_ALIGNMENT}}
            : memref<{STAGED_ROWS}x{OUT_PITCH}x{OUT}, #gpu.address_space<workgroup>>, vector<{LANES}x{OUT}>
          %v = arith.extf %dStaged : vector<{LANES}x{OUT}> to vector<{LANES}xf32>
          {EPILOGUE}
          {CONVERT}
          scf.if %inside {
            %dCg = memref.reinterpret_cast %C to offset: [0], sizes: [%mn], strides: [1]
              : memref<{OUT}> to memref<?x{OUT}, strided<[1], offset: ?>>
            %dRowStart = arith.muli %grow, %n : index
            %dAt = arith.addi %dRowStart, %gcol : index
            vector.store {STORED}, %dCg[%dAt] {alignment = {STORE_ALIGNMENT}}
              : memref<?x{OUT}, strided<[1], offset: ?>>, vector<{LANES}x{OUT}>
          }
// @@ STAGE
        // The previous tile's items this tile's k-tiles did not drain.
        %fullWarpMask = arith.constant -1 : i32
        scf.if %hasPrev {
          %leftFrom = arith.minui %kCount, %outItems : index
          scf.for %du = %leftFrom to %outItems step %c1 {
            %dm0 = arith.addi %prevM0, %c0 : index
            %dn0 = arith.addi %prevN0, %c0 : index
{DRAIN}
          }
        }
        nvvm.bar.warp.sync %fullWarpMask : i32
        // This tile's sums, rounded, into the warp's rows of the staging.
        %outTile = memref.view %dyn[%staging][] : !smem to memref<{STAGED_ROWS}x{OUT_PITCH}x{OUT}, #gpu.address_space<workgroup>>
        %quad = arith.remui %lane, %c4 : index
        %quadRow = arith.divui %lane, %c4 : index
        %fragRow = arith.addi %dWarpRows, %quadRow : index
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
            vector.store %pairOut, %outTile[%r, %col] {alignment = {PAIR_ALIGNMENT}} : memref<{STAGED_ROWS}x{OUT_PITCH}x{OUT}, #gpu.address_space<workgroup>>, vector<2x{OUT}>
          } {unroll}
        } {unroll}
        nvvm.bar.warp.sync %fullWarpMask : i32
// @@ IN_LOOP
          %dDrain0 = arith.cmpi ult, %kFromBegin, %outItems : index
          %dDrain = arith.andi %dDrain0, %hasPrev : i1
          scf.if %dDrain {
            %du = arith.addi %kFromBegin, %c0 : index
            %dm0 = arith.addi %prevM0, %c0 : index
            %dn0 = arith.addi %prevN0, %c0 : index
{DRAIN}
          }
// @@ FLUSH
      // The CTA's last tile.
      scf.if %consumed#3 {
        scf.for %du = %c0 to %outItems step %c1 {
          %dm0 = arith.addi %consumed#1, %c0 : index
          %dn0 = arith.addi %consumed#2, %c0 : index
{DRAIN}
        }
      }
