// NonZero (non_zero): the positions of the non-zero elements of an input of RANK
// dimensions, in row-major order, as ONNX writes them: an i64 [RANK, total] matrix (one
// row a dimension), or [total, RANK] with TRANSPOSED (PyTorch's nonzero(), the same with
// a transpose after it); or just total, the extent the engine reads back to size them.
//
// The input is cut into chunks of 4096 elements (4 tiles of 1024, one element a thread).
// CHUNKS_ENTRY, a CTA of 1024 threads a chunk, counts each chunk's non-zero elements
// into %counts. Then either TOTAL_ENTRY, one CTA, sums the counts into the total, or
// WRITE_ENTRY, again a CTA a chunk, sums the counts of the chunks before its own (where
// its positions start) and writes its positions tile by tile: a thread's place among
// the tile's non-zero elements is a prefix sum of 0/1 flags within its warp (shuffles),
// plus the warps' before it (the warps' sums, prefix-summed by one warp in shared memory).
// Sums over a CTA: each warp's by shuffles, then the 32 warps' by one warp.
//
// Placeholders: MODULE, CHUNKS_ENTRY, TOTAL_ENTRY, WRITE_ENTRY; ELEMENT (the input's
// element type), RANK; WARP_SUM:a:b (%b: the sum of %a over the warp, in every lane) and
// WARP_SCAN:a:b (%b: the inclusive prefix sum of %a over the warp's lanes); IS_NONZERO
// (%flag, i1, from %x: compared with zero, NaN non-zero); EXTENT_PARAMETERS
// (", %extent0: i32, ...": the input's extents) and WRITE_POSITION (the coordinates of
// element %e, an i32, stored as position %position of the %total in %out).
// Parameters: a bare pointer to the input (the elements in row-major order) and to the
// counts (i32, one a chunk) and output (i64); the elements %n and chunks as i32.

gpu.module @{MODULE} {
  gpu.func @{CHUNKS_ENTRY}(%inputPointer: memref<{ELEMENT}>, %countsPointer: memref<i32>, %n: i32)
      workgroup(%warpSums : memref<32xi32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 1024, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %c5 = arith.constant 5 : i32
    %c31 = arith.constant 31 : i32
    %c1024 = arith.constant 1024 : i32
    %c4096 = arith.constant 4096 : i32
    %i0 = arith.constant 0 : index
    %chunkIndex = gpu.block_id x
    %chunks = gpu.grid_dim x
    %tidIndex = gpu.thread_id x
    %chunk = arith.index_castui %chunkIndex : index to i32
    %tid = arith.index_castui %tidIndex : index to i32
    %lane = arith.andi %tid, %c31 : i32
    %warp = arith.shrui %tid, %c5 : i32
    %nIndex = arith.index_castui %n : i32 to index
    %input = memref.reinterpret_cast %inputPointer to offset: [0], sizes: [%nIndex], strides: [1]
        : memref<{ELEMENT}> to memref<?x{ELEMENT}>
    %counts = memref.reinterpret_cast %countsPointer to offset: [0], sizes: [%chunks], strides: [1]
        : memref<i32> to memref<?xi32>
    %start = arith.muli %chunk, %c4096 : i32
    %mine = scf.for %k = %c0 to %c4 step %c1 iter_args(%sum = %c0) -> (i32) : i32 {
      %tileStart = arith.muli %k, %c1024 : i32
      %tileFirst = arith.addi %start, %tileStart : i32
      %e = arith.addi %tileFirst, %tid : i32
      %inRange = arith.cmpi ult, %e, %n : i32
      %one = scf.if %inRange -> (i32) {
        %eIndex = arith.index_castui %e : i32 to index
        %x = memref.load %input[%eIndex] : memref<?x{ELEMENT}>
{IS_NONZERO}
        %flagInt = arith.extui %flag : i1 to i32
        scf.yield %flagInt : i32
      } else {
        scf.yield %c0 : i32
      }
      %more = arith.addi %sum, %one : i32
      scf.yield %more : i32
    }
{WARP_SUM:mine:warpTotal}
    %laneZero = arith.cmpi eq, %lane, %c0 : i32
    scf.if %laneZero {
      %warpIndex = arith.index_castui %warp : i32 to index
      memref.store %warpTotal, %warpSums[%warpIndex] : memref<32xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %firstWarp = arith.cmpi eq, %warp, %c0 : i32
    scf.if %firstWarp {
      %laneIndex = arith.index_castui %lane : i32 to index
      %partial = memref.load %warpSums[%laneIndex] : memref<32xi32, #gpu.address_space<workgroup>>
{WARP_SUM:partial:chunkTotal}
      scf.if %laneZero {
        memref.store %chunkTotal, %counts[%chunkIndex] : memref<?xi32>
      }
    }
    gpu.return
  }

  gpu.func @{TOTAL_ENTRY}(%countsPointer: memref<i32>, %outPointer: memref<i64>, %chunks: i32)
      workgroup(%warpSums : memref<32xi32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 1024, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %c5 = arith.constant 5 : i32
    %c31 = arith.constant 31 : i32
    %c1024 = arith.constant 1024 : i32
    %i0 = arith.constant 0 : index
    %tidIndex = gpu.thread_id x
    %tid = arith.index_castui %tidIndex : index to i32
    %lane = arith.andi %tid, %c31 : i32
    %warp = arith.shrui %tid, %c5 : i32
    %chunksIndex = arith.index_castui %chunks : i32 to index
    %counts = memref.reinterpret_cast %countsPointer to offset: [0], sizes: [%chunksIndex], strides: [1]
        : memref<i32> to memref<?xi32>
    %out = memref.reinterpret_cast %outPointer to offset: [0], sizes: [1], strides: [1]
        : memref<i64> to memref<1xi64>
    %mine = scf.for %i = %tid to %chunks step %c1024 iter_args(%sum = %c0) -> (i32) : i32 {
      %iIndex = arith.index_castui %i : i32 to index
      %count = memref.load %counts[%iIndex] : memref<?xi32>
      %more = arith.addi %sum, %count : i32
      scf.yield %more : i32
    }
{WARP_SUM:mine:warpTotal}
    %laneZero = arith.cmpi eq, %lane, %c0 : i32
    scf.if %laneZero {
      %warpIndex = arith.index_castui %warp : i32 to index
      memref.store %warpTotal, %warpSums[%warpIndex] : memref<32xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %first = arith.cmpi eq, %tid, %c0 : i32
    %firstWarp = arith.cmpi eq, %warp, %c0 : i32
    scf.if %firstWarp {
      %laneIndex = arith.index_castui %lane : i32 to index
      %partial = memref.load %warpSums[%laneIndex] : memref<32xi32, #gpu.address_space<workgroup>>
{WARP_SUM:partial:total}
      scf.if %first {
        %total64 = arith.extui %total : i32 to i64
        memref.store %total64, %out[%i0] : memref<1xi64>
      }
    }
    gpu.return
  }

  gpu.func @{WRITE_ENTRY}(%inputPointer: memref<{ELEMENT}>, %countsPointer: memref<i32>,
                          %outPointer: memref<i64>, %n: i32, %total: i32{EXTENT_PARAMETERS})
      workgroup(%warpSums : memref<32xi32, #gpu.address_space<workgroup>>,
                %chunkStart : memref<1xi32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 1024, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %c5 = arith.constant 5 : i32
    %c31 = arith.constant 31 : i32
    %c1024 = arith.constant 1024 : i32
    %c4096 = arith.constant 4096 : i32
    %i0 = arith.constant 0 : index
    %i31 = arith.constant 31 : index
    %chunkIndex = gpu.block_id x
    %chunksIndex = gpu.grid_dim x
    %tidIndex = gpu.thread_id x
    %chunk = arith.index_castui %chunkIndex : index to i32
    %tid = arith.index_castui %tidIndex : index to i32
    %lane = arith.andi %tid, %c31 : i32
    %warp = arith.shrui %tid, %c5 : i32
    %laneZero = arith.cmpi eq, %lane, %c0 : i32
    %firstWarp = arith.cmpi eq, %warp, %c0 : i32
    %first = arith.cmpi eq, %tid, %c0 : i32
    %nIndex = arith.index_castui %n : i32 to index
    %input = memref.reinterpret_cast %inputPointer to offset: [0], sizes: [%nIndex], strides: [1]
        : memref<{ELEMENT}> to memref<?x{ELEMENT}>
    %counts = memref.reinterpret_cast %countsPointer to offset: [0], sizes: [%chunksIndex], strides: [1]
        : memref<i32> to memref<?xi32>
    %rank = arith.constant {RANK} : i32
    %outElements = arith.muli %total, %rank : i32
    %outSize = arith.index_castui %outElements : i32 to index
    %out = memref.reinterpret_cast %outPointer to offset: [0], sizes: [%outSize], strides: [1]
        : memref<i64> to memref<?xi64>
    // Where the chunk's positions start: the counts of the chunks before it.
    %before = scf.for %i = %tid to %chunk step %c1024 iter_args(%sum = %c0) -> (i32) : i32 {
      %iIndex = arith.index_castui %i : i32 to index
      %count = memref.load %counts[%iIndex] : memref<?xi32>
      %more = arith.addi %sum, %count : i32
      scf.yield %more : i32
    }
{WARP_SUM:before:warpBefore}
    scf.if %laneZero {
      %slot = arith.index_castui %warp : i32 to index
      memref.store %warpBefore, %warpSums[%slot] : memref<32xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    scf.if %firstWarp {
      %slot = arith.index_castui %lane : i32 to index
      %partial = memref.load %warpSums[%slot] : memref<32xi32, #gpu.address_space<workgroup>>
{WARP_SUM:partial:offset}
      scf.if %first {
        memref.store %offset, %chunkStart[%i0] : memref<1xi32, #gpu.address_space<workgroup>>
      }
    }
    gpu.barrier
    %chunkOffset = memref.load %chunkStart[%i0] : memref<1xi32, #gpu.address_space<workgroup>>
    %start = arith.muli %chunk, %c4096 : i32
    %warpIndex = arith.index_castui %warp : i32 to index
    %laneIndex = arith.index_castui %lane : i32 to index
    %lastLane = arith.cmpi eq, %lane, %c31 : i32
    %hasWarpBefore = arith.cmpi ugt, %warp, %c0 : i32
    %finalOffset = scf.for %k = %c0 to %c4 step %c1 iter_args(%tileOffset = %chunkOffset) -> (i32) : i32 {
      // The warps' sums of the last tile were read: they may be overwritten.
      gpu.barrier
      %tileStart = arith.muli %k, %c1024 : i32
      %tileFirst = arith.addi %start, %tileStart : i32
      %e = arith.addi %tileFirst, %tid : i32
      %inRange = arith.cmpi ult, %e, %n : i32
      %isSet = scf.if %inRange -> (i1) {
        %eIndex = arith.index_castui %e : i32 to index
        %x = memref.load %input[%eIndex] : memref<?x{ELEMENT}>
{IS_NONZERO}
        scf.yield %flag : i1
      } else {
        %false = arith.constant false
        scf.yield %false : i1
      }
      %flagInt = arith.extui %isSet : i1 to i32
{WARP_SCAN:flagInt:inWarp}
      scf.if %lastLane {
        memref.store %inWarp, %warpSums[%warpIndex] : memref<32xi32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      scf.if %firstWarp {
        %warpSum = memref.load %warpSums[%laneIndex] : memref<32xi32, #gpu.address_space<workgroup>>
{WARP_SCAN:warpSum:warpsThrough}
        memref.store %warpsThrough, %warpSums[%laneIndex] : memref<32xi32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %warpsBefore = scf.if %hasWarpBefore -> (i32) {
        %previous = arith.subi %warp, %c1 : i32
        %previousIndex = arith.index_castui %previous : i32 to index
        %through = memref.load %warpSums[%previousIndex] : memref<32xi32, #gpu.address_space<workgroup>>
        scf.yield %through : i32
      } else {
        scf.yield %c0 : i32
      }
      %tileTotal = memref.load %warpSums[%i31] : memref<32xi32, #gpu.address_space<workgroup>>
      scf.if %isSet {
        %exclusive = arith.subi %inWarp, %flagInt : i32
        %inTile = arith.addi %warpsBefore, %exclusive : i32
        %position = arith.addi %tileOffset, %inTile : i32
{WRITE_POSITION}
      }
      %nextOffset = arith.addi %tileOffset, %tileTotal : i32
      scf.yield %nextOffset : i32
    }
    gpu.return
  }
}
