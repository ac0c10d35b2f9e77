// NonMaxSuppression (non_max_suppression): for each batch b and class c (a pair,
// p = b * CLASSES + c), the boxes of b whose score for c passes the threshold, greedily by
// score (ties to the lower box index): a box is kept unless a kept box overlaps it by an
// IoU above the threshold, at most MAX_PER_CLASS of them. ONNX's output: one row
// [b, c, box] per kept box, pairs in order, each pair's boxes in the order kept.
//
// Two kernels. RANK_ENTRY, grid (ceil(N / 256), PAIRS), 256 threads: each candidate's
// rank among its pair's candidates (the number of candidates of higher score, or of equal
// score and lower index) is where its index goes in %order[p, 0..]: the pair's candidates
// sorted, without a sort. Each block walks the pair's scores in tiles of 256 in shared
// memory; a score that is not a candidate's is NaN there, which no comparison counts.
//
// SELECT_ENTRY, a grid of CTAS CTAs of 1024 threads, all resident (a grid barrier, a
// counter in %sync that the ranking zeroes, separates the steps below), walks the pairs in
// order (an output row's place is the count of the rows before it). A pair's sorted
// candidates go by blocks of 64; every CTA does the same for a block: the IoUs within it
// become a 64 x 64 bit matrix in shared memory (a thread a few pairs), one thread walks it
// in order (shared memory only), keeping each box still alive and clearing the bits of
// those it overlaps. CTA 0 writes the rows of the boxes kept, a thread each. Then each CTA
// takes its share of the later boxes still alive and clears those that a box kept in this
// block overlaps. Which boxes are alive is a bitmap of the pair's candidates in global
// memory (%alive, N bits), read and cleared by atomics. With COUNT_ONLY CTA 0 writes the
// number of rows instead of the rows (the engine reads it back to size the output).
//
// Placeholders: MODULE, RANK_ENTRY, SELECT_ENTRY; CORNERS_BLOCK (the corners %y0,
// %x0, %y1, %x1 of box %box) and CORNERS_LATER (%b0..%b3 of %box), from the boxes in f32:
// either corner first, or center and size with center_point_box; OVERLAP_PAIR (%hit, i1:
// the IoU of block boxes %qi and %qj above %iouThreshold) and OVERLAP_SWEEP (%hit: of
// %a0..%a3 and %b0..%b3); SCORE_TEST_SELF (%candidate from %score), SCORE_TEST_OTHER
// (%otherPasses from %other), SCORE_TEST_COUNT (%counted from %pairScore): the score above
// the threshold, or true without one; OUTPUT_VIEW, WRITE_ROW (the row at %row: batch %b,
// class %c, box %boxIndex) and WRITE_COUNT (the rows, %total).
// Parameters: bare pointers to the boxes [B, N, 4] and scores [B, C, N] (f32), the order
// [B * C, N] (i32), the output (rows i64 [?, 3], or the count i64 [1]), the bitmap
// (ceil(N / 32) i32) and the barrier's counter (i32); N, C, B * C as i32, the most boxes a
// pair keeps (i64), and the thresholds (f32).

gpu.module @{MODULE} {
  gpu.func @{RANK_ENTRY}(%scoresPointer: memref<f32>, %orderPointer: memref<i32>,
                         %syncPointer: memref<i32>, %n: i32, %pairs: i32, %scoreThreshold: f32)
      workgroup(%tile : memref<256xf32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c256 = arith.constant 256 : i32
    %nan = arith.constant 0x7FC00000 : f32
    %blockIndex = gpu.block_id x
    %pairIndex = gpu.block_id y
    %tidIndex = gpu.thread_id x
    %blockX = arith.index_castui %blockIndex : index to i32
    %pair = arith.index_castui %pairIndex : index to i32
    %tid = arith.index_castui %tidIndex : index to i32
    %elements = arith.muli %pairs, %n : i32
    %size = arith.index_castui %elements : i32 to index
    %scores = memref.reinterpret_cast %scoresPointer to offset: [0], sizes: [%size], strides: [1]
        : memref<f32> to memref<?xf32>
    %order = memref.reinterpret_cast %orderPointer to offset: [0], sizes: [%size], strides: [1]
        : memref<i32> to memref<?xi32>
    // The selection's grid barrier starts from zero.
    %blockFirst = arith.addi %blockX, %pair : i32
    %blockAndThread = arith.addi %blockFirst, %tid : i32
    %zeroes = arith.cmpi eq, %blockAndThread, %c0 : i32
    scf.if %zeroes {
      %sync = memref.reinterpret_cast %syncPointer to offset: [0], sizes: [1], strides: [1]
          : memref<i32> to memref<1xi32>
      %i0 = arith.constant 0 : index
      memref.store %c0, %sync[%i0] : memref<1xi32>
    }
    %rowStart = arith.muli %pair, %n : i32
    %firstOfBlock = arith.muli %blockX, %c256 : i32
    %i = arith.addi %firstOfBlock, %tid : i32
    %inRange = arith.cmpi ult, %i, %n : i32
    // Out of range, a thread still loads tiles: the block's barriers need every thread.
    %iClamped = arith.select %inRange, %i, %c0 : i32
    %at = arith.addi %rowStart, %iClamped : i32
    %atIndex = arith.index_castui %at : i32 to index
    %score = memref.load %scores[%atIndex] : memref<?xf32>
{SCORE_TEST_SELF}
    %mine = arith.andi %candidate, %inRange : i1
    %tiles = arith.ceildivui %n, %c256 : i32
    %rank = scf.for %t = %c0 to %tiles step %c1 iter_args(%count = %c0) -> (i32) : i32 {
      %tileStart = arith.muli %t, %c256 : i32
      %j = arith.addi %tileStart, %tid : i32
      %jInRange = arith.cmpi ult, %j, %n : i32
      %jClamped = arith.select %jInRange, %j, %c0 : i32
      %jAt = arith.addi %rowStart, %jClamped : i32
      %jAtIndex = arith.index_castui %jAt : i32 to index
      %other = memref.load %scores[%jAtIndex] : memref<?xf32>
{SCORE_TEST_OTHER}
      %otherCandidate = arith.andi %otherPasses, %jInRange : i1
      %kept = arith.select %otherCandidate, %other, %nan : f32
      gpu.barrier
      memref.store %kept, %tile[%tidIndex] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %upTo = arith.subi %n, %tileStart : i32
      %inTile = arith.minui %upTo, %c256 : i32
      %next = scf.for %k = %c0 to %inTile step %c1 iter_args(%sum = %count) -> (i32) : i32 {
        %kIndex = arith.index_castui %k : i32 to index
        %s = memref.load %tile[%kIndex] : memref<256xf32, #gpu.address_space<workgroup>>
        %jj = arith.addi %tileStart, %k : i32
        %higher = arith.cmpf ogt, %s, %score : f32
        %equal = arith.cmpf oeq, %s, %score : f32
        %lower = arith.cmpi ult, %jj, %i : i32
        %tie = arith.andi %equal, %lower : i1
        %before = arith.ori %higher, %tie : i1
        %one = arith.extui %before : i1 to i32
        %more = arith.addi %sum, %one : i32
        scf.yield %more : i32
      }
      scf.yield %next : i32
    }
    scf.if %mine {
      %slot = arith.addi %rowStart, %rank : i32
      %slotIndex = arith.index_castui %slot : i32 to index
      memref.store %i, %order[%slotIndex] : memref<?xi32>
    }
    gpu.return
  }

  gpu.func @{SELECT_ENTRY}(%boxesPointer: memref<f32>, %scoresPointer: memref<f32>,
                           %orderPointer: memref<i32>, %outPointer: memref<i64>,
                           %alivePointer: memref<i32>, %syncPointer: memref<i32>, %n: i32,
                           %classes: i32, %pairs: i32, %maxPerClass: i64, %iouThreshold: f32,
                           %scoreThreshold: f32)
      workgroup(%mask : memref<64xi64, #gpu.address_space<workgroup>>,
                %blockBoxes : memref<256xf32, #gpu.address_space<workgroup>>,
                %keptList : memref<64xi32, #gpu.address_space<workgroup>>,
                %blockIndex : memref<64xi32, #gpu.address_space<workgroup>>,
                // candidates, kept so far in the pair, kept in this block
                %state : memref<3xi32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 1024, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %c5 = arith.constant 5 : i32
    %c6 = arith.constant 6 : i32
    %false = arith.constant false
    %c31 = arith.constant 31 : i32
    %c32 = arith.constant 32 : i32
    %c63 = arith.constant 63 : i32
    %c64 = arith.constant 64 : i32
    %c1024 = arith.constant 1024 : i32
    %c4096 = arith.constant 4096 : i32
    %allOnes = arith.constant -1 : i32
    %z0 = arith.constant 0 : i64
    %z1 = arith.constant 1 : i64
    %z32 = arith.constant 32 : i64
    %allBits = arith.constant -1 : i64
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %i2 = arith.constant 2 : index
    %c32i = arith.constant 32 : i32
    %tidIndex = gpu.thread_id x
    %tid = arith.index_castui %tidIndex : index to i32
    %first = arith.cmpi eq, %tid, %c0 : i32
    %ctaIndex = gpu.block_id x
    %ctasIndex = gpu.grid_dim x
    %cta = arith.index_castui %ctaIndex : index to i32
    %ctas = arith.index_castui %ctasIndex : index to i32
    %leader = arith.cmpi eq, %cta, %c0 : i32
    %ctaFirst = arith.muli %cta, %c1024 : i32
    %gtid = arith.addi %ctaFirst, %tid : i32
    %stride = arith.muli %ctas, %c1024 : i32
    %words = arith.ceildivui %n, %c32i : i32
    %wordsIndex = arith.index_castui %words : i32 to index
    %alive = memref.reinterpret_cast %alivePointer to offset: [0], sizes: [%wordsIndex], strides: [1]
        : memref<i32> to memref<?xi32>
    %sync = memref.reinterpret_cast %syncPointer to offset: [0], sizes: [1], strides: [1]
        : memref<i32> to memref<1xi32>
    %elements = arith.muli %pairs, %n : i32
    %size = arith.index_castui %elements : i32 to index
    %scores = memref.reinterpret_cast %scoresPointer to offset: [0], sizes: [%size], strides: [1]
        : memref<f32> to memref<?xf32>
    %order = memref.reinterpret_cast %orderPointer to offset: [0], sizes: [%size], strides: [1]
        : memref<i32> to memref<?xi32>
    %batches = arith.divui %pairs, %classes : i32
    %boxElements = arith.muli %batches, %n : i32
    %boxElements4 = arith.muli %boxElements, %c4 : i32
    %boxSize = arith.index_castui %boxElements4 : i32 to index
    %boxes = memref.reinterpret_cast %boxesPointer to offset: [0], sizes: [%boxSize], strides: [1]
        : memref<f32> to memref<?xf32>
{OUTPUT_VIEW}
    %total = scf.for %pair = %c0 to %pairs step %c1 iter_args(%rowsBefore = %c0) -> (i32) : i32 {
      %b = arith.divui %pair, %classes : i32
      %c = arith.remui %pair, %classes : i32
      %rowStart = arith.muli %pair, %n : i32
      %boxRow = arith.muli %b, %n : i32
      // The pair's candidates: a count per thread, then one atomic add each.
      scf.if %first {
        memref.store %c0, %state[%i0] : memref<3xi32, #gpu.address_space<workgroup>>
        memref.store %c0, %state[%i1] : memref<3xi32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %mineCount = scf.for %i = %tid to %n step %c1024 iter_args(%sum = %c0) -> (i32) : i32 {
        %at = arith.addi %rowStart, %i : i32
        %atIndex = arith.index_castui %at : i32 to index
        %pairScore = memref.load %scores[%atIndex] : memref<?xf32>
{SCORE_TEST_COUNT}
        %one = arith.extui %counted : i1 to i32
        %more = arith.addi %sum, %one : i32
        scf.yield %more : i32
      }
      %unused = memref.atomic_rmw addi %mineCount, %state[%i0]
          : (i32, memref<3xi32, #gpu.address_space<workgroup>>) -> i32
      scf.for %w = %gtid to %words step %stride : i32 {
        %wIndex = arith.index_castui %w : i32 to index
        memref.store %allOnes, %alive[%wIndex] : memref<?xi32>
      }
      scf.for %q = %tid to %c64 step %c1024 : i32 {
        %qIndex = arith.index_castui %q : i32 to index
        memref.store %z0, %mask[%qIndex] : memref<64xi64, #gpu.address_space<workgroup>>
      }
      // Every CTA's words set before any is read (grid barrier: every CTA is resident).
      gpu.barrier
      scf.if %first {
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
        %initArrived = memref.atomic_rmw addi %c1, %sync[%i0] : (i32, memref<1xi32>) -> i32
        %initGeneration = arith.divui %initArrived, %ctas : i32
        %initNext = arith.addi %initGeneration, %c1 : i32
        %initTarget = arith.muli %initNext, %ctas : i32
        scf.while : () -> () {
          %initNow = memref.atomic_rmw addi %c0, %sync[%i0] : (i32, memref<1xi32>) -> i32
          %initWait = arith.cmpi ult, %initNow, %initTarget : i32
          scf.condition(%initWait)
        } do {
          scf.yield
        }
        nvvm.memory.barrier #nvvm.mem_scope<gpu>
      }
      gpu.barrier
      %m = memref.load %state[%i0] : memref<3xi32, #gpu.address_space<workgroup>>
      %m64 = arith.extui %m : i32 to i64
      %limit64 = arith.minui %maxPerClass, %m64 : i64
      %limit = arith.trunci %limit64 : i64 to i32
      %blocks = arith.ceildivui %m, %c64 : i32
      // The blocks, while the pair may keep more (every thread reads the count after a
      // barrier: the loop is uniform).
      %done = scf.while (%blk = %c0) : (i32) -> i32 {
        %keptSoFar = memref.load %state[%i1] : memref<3xi32, #gpu.address_space<workgroup>>
        %blocksLeft = arith.cmpi ult, %blk, %blocks : i32
        %room = arith.cmpi ult, %keptSoFar, %limit : i32
        %go = arith.andi %blocksLeft, %room : i1
        scf.condition(%go) %blk : i32
      } do {
      ^bb0(%blk: i32):
        %base = arith.muli %blk, %c64 : i32
        %left = arith.subi %m, %base : i32
        %count = arith.minui %left, %c64 : i32
        // The block's boxes' corners, in shared memory.
        %loads = arith.cmpi ult, %tid, %count : i32
        scf.if %loads {
          %position = arith.addi %base, %tid : i32
          %orderAt = arith.addi %rowStart, %position : i32
          %orderAtIndex = arith.index_castui %orderAt : i32 to index
          %box = memref.load %order[%orderAtIndex] : memref<?xi32>
          memref.store %box, %blockIndex[%tidIndex] : memref<64xi32, #gpu.address_space<workgroup>>
{CORNERS_BLOCK}
          %slot = arith.muli %tid, %c4 : i32
          %slot1 = arith.addi %slot, %c1 : i32
          %slot2 = arith.addi %slot, %c2 : i32
          %slot3 = arith.addi %slot, %c3 : i32
          %s0 = arith.index_castui %slot : i32 to index
          %s1 = arith.index_castui %slot1 : i32 to index
          %s2 = arith.index_castui %slot2 : i32 to index
          %s3 = arith.index_castui %slot3 : i32 to index
          memref.store %y0, %blockBoxes[%s0] : memref<256xf32, #gpu.address_space<workgroup>>
          memref.store %x0, %blockBoxes[%s1] : memref<256xf32, #gpu.address_space<workgroup>>
          memref.store %y1, %blockBoxes[%s2] : memref<256xf32, #gpu.address_space<workgroup>>
          memref.store %x1, %blockBoxes[%s3] : memref<256xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        // The overlaps within the block: bit j of mask[i] for j after i.
        scf.for %q = %tid to %c4096 step %c1024 : i32 {
          %qi = arith.shrui %q, %c6 : i32
          %qj = arith.andi %q, %c63 : i32
          %after = arith.cmpi ugt, %qj, %qi : i32
          %jIn = arith.cmpi ult, %qj, %count : i32
          %both = arith.andi %after, %jIn : i1
          scf.if %both {
{OVERLAP_PAIR}
            scf.if %hit {
              %qj64 = arith.extui %qj : i32 to i64
              %bit = arith.shli %z1, %qj64 : i64
              %qiIndex = arith.index_castui %qi : i32 to index
              %old = memref.atomic_rmw ori %bit, %mask[%qiIndex]
                  : (i64, memref<64xi64, #gpu.address_space<workgroup>>) -> i64
            }
          }
        }
        gpu.barrier
        // One thread keeps the block's boxes still alive, in order.
        scf.if %first {
          %word0 = arith.muli %blk, %c2 : i32
          %word1 = arith.addi %word0, %c1 : i32
          %w0 = arith.index_castui %word0 : i32 to index
          %w1 = arith.index_castui %word1 : i32 to index
          %low = memref.atomic_rmw ori %c0, %alive[%w0] : (i32, memref<?xi32>) -> i32
          %hasHigh = arith.cmpi ult, %word1, %words : i32
          %high = scf.if %hasHigh -> (i32) {
            %h = memref.atomic_rmw ori %c0, %alive[%w1] : (i32, memref<?xi32>) -> i32
            scf.yield %h : i32
          } else {
            scf.yield %c0 : i32
          }
          %low64 = arith.extui %low : i32 to i64
          %high64 = arith.extui %high : i32 to i64
          %highShifted = arith.shli %high64, %z32 : i64
          %aliveBits = arith.ori %low64, %highShifted : i64
          %keptBefore = memref.load %state[%i1] : memref<3xi32, #gpu.address_space<workgroup>>
          %result:3 = scf.for %i = %c0 to %count step %c1
              iter_args(%bits = %aliveBits, %kept = %keptBefore, %here = %c0) -> (i64, i32, i32) : i32 {
            %i64 = arith.extui %i : i32 to i64
            %shifted = arith.shrui %bits, %i64 : i64
            %bitSet = arith.andi %shifted, %z1 : i64
            %isAlive = arith.cmpi ne, %bitSet, %z0 : i64
            %roomInBlock = arith.cmpi ult, %kept, %limit : i32
            %keep = arith.andi %isAlive, %roomInBlock : i1
            %next:3 = scf.if %keep -> (i64, i32, i32) {
              %hereIndex = arith.index_castui %here : i32 to index
              memref.store %i, %keptList[%hereIndex] : memref<64xi32, #gpu.address_space<workgroup>>
              %iIndex = arith.index_castui %i : i32 to index
              %overlapped = memref.load %mask[%iIndex] : memref<64xi64, #gpu.address_space<workgroup>>
              %keepMask = arith.xori %overlapped, %allBits : i64
              %remaining = arith.andi %bits, %keepMask : i64
              %kept1 = arith.addi %kept, %c1 : i32
              %here1 = arith.addi %here, %c1 : i32
              scf.yield %remaining, %kept1, %here1 : i64, i32, i32
            } else {
              scf.yield %bits, %kept, %here : i64, i32, i32
            }
            scf.yield %next#0, %next#1, %next#2 : i64, i32, i32
          }
          memref.store %result#1, %state[%i1] : memref<3xi32, #gpu.address_space<workgroup>>
          memref.store %result#2, %state[%i2] : memref<3xi32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        %keptHere = memref.load %state[%i2] : memref<3xi32, #gpu.address_space<workgroup>>
        %keptNow = memref.load %state[%i1] : memref<3xi32, #gpu.address_space<workgroup>>
        // The rows of the boxes kept here, a thread each (the walk touched shared memory
        // only).
        %writesHere = arith.cmpi ult, %tid, %keptHere : i32
        %writes = arith.andi %writesHere, %leader : i1
        scf.if %writes {
          %which = memref.load %keptList[%tidIndex] : memref<64xi32, #gpu.address_space<workgroup>>
          %whichIndex = arith.index_castui %which : i32 to index
          %boxIndex = memref.load %blockIndex[%whichIndex] : memref<64xi32, #gpu.address_space<workgroup>>
          %firstHere = arith.subi %keptNow, %keptHere : i32
          %inPair = arith.addi %firstHere, %tid : i32
          %row = arith.addi %rowsBefore, %inPair : i32
{WRITE_ROW}
        }
        // Every later box still alive that a box kept here overlaps is suppressed.
        %any = arith.cmpi ugt, %keptHere, %c0 : i32
        %room = arith.cmpi ult, %keptNow, %limit : i32
        %sweep = arith.andi %any, %room : i1
        scf.if %sweep {
          %nextBlock = arith.addi %base, %c64 : i32
          %start = arith.addi %nextBlock, %gtid : i32
          scf.for %p = %start to %m step %stride : i32 {
            %word = arith.shrui %p, %c5 : i32
            %wordIndex = arith.index_castui %word : i32 to index
            %bitAt = arith.andi %p, %c31 : i32
            %bitMask = arith.shli %c1, %bitAt : i32
            %current = memref.atomic_rmw ori %c0, %alive[%wordIndex] : (i32, memref<?xi32>) -> i32
            %isSet = arith.andi %current, %bitMask : i32
            %stillAlive = arith.cmpi ne, %isSet, %c0 : i32
            scf.if %stillAlive {
              %orderAt = arith.addi %rowStart, %p : i32
              %orderAtIndex = arith.index_castui %orderAt : i32 to index
              %box = memref.load %order[%orderAtIndex] : memref<?xi32>
{CORNERS_LATER}
              %suppressed = scf.while (%k = %c0) : (i32) -> i32 {
                %more = arith.cmpi ult, %k, %keptHere : i32
                %hitSoFar = scf.if %more -> (i1) {
                  %kIndex = arith.index_castui %k : i32 to index
                  %which = memref.load %keptList[%kIndex] : memref<64xi32, #gpu.address_space<workgroup>>
                  %slot = arith.muli %which, %c4 : i32
                  %slot1 = arith.addi %slot, %c1 : i32
                  %slot2 = arith.addi %slot, %c2 : i32
                  %slot3 = arith.addi %slot, %c3 : i32
                  %s0 = arith.index_castui %slot : i32 to index
                  %s1 = arith.index_castui %slot1 : i32 to index
                  %s2 = arith.index_castui %slot2 : i32 to index
                  %s3 = arith.index_castui %slot3 : i32 to index
                  %a0 = memref.load %blockBoxes[%s0] : memref<256xf32, #gpu.address_space<workgroup>>
                  %a1 = memref.load %blockBoxes[%s1] : memref<256xf32, #gpu.address_space<workgroup>>
                  %a2 = memref.load %blockBoxes[%s2] : memref<256xf32, #gpu.address_space<workgroup>>
                  %a3 = memref.load %blockBoxes[%s3] : memref<256xf32, #gpu.address_space<workgroup>>
{OVERLAP_SWEEP}
                  scf.yield %hit : i1
                } else {
                  scf.yield %false : i1
                }
                %notHit = arith.cmpi eq, %hitSoFar, %false : i1
                %go = arith.andi %more, %notHit : i1
                scf.condition(%go) %k : i32
              } do {
              ^bb0(%k: i32):
                %k1 = arith.addi %k, %c1 : i32
                scf.yield %k1 : i32
              }
              %wasHit = arith.cmpi ult, %suppressed, %keptHere : i32
              scf.if %wasHit {
                %clear = arith.xori %bitMask, %allOnes : i32
                %old = memref.atomic_rmw andi %clear, %alive[%wordIndex]
                    : (i32, memref<?xi32>) -> i32
              }
            }
          }
        }
        scf.for %q = %tid to %c64 step %c1024 : i32 {
          %qIndex = arith.index_castui %q : i32 to index
          memref.store %z0, %mask[%qIndex] : memref<64xi64, #gpu.address_space<workgroup>>
        }
        // Every CTA's sweep done before the next block reads the bitmap.
        gpu.barrier
        scf.if %first {
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
          %arrived = memref.atomic_rmw addi %c1, %sync[%i0] : (i32, memref<1xi32>) -> i32
          %generation = arith.divui %arrived, %ctas : i32
          %nextGeneration = arith.addi %generation, %c1 : i32
          %target = arith.muli %nextGeneration, %ctas : i32
          scf.while : () -> () {
            %now = memref.atomic_rmw addi %c0, %sync[%i0] : (i32, memref<1xi32>) -> i32
            %wait = arith.cmpi ult, %now, %target : i32
            scf.condition(%wait)
          } do {
            scf.yield
          }
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
        }
        gpu.barrier
        %nextBlk = arith.addi %blk, %c1 : i32
        scf.yield %nextBlk : i32
      }
      %keptInPair = memref.load %state[%i1] : memref<3xi32, #gpu.address_space<workgroup>>
      %rowsAfter = arith.addi %rowsBefore, %keptInPair : i32
      gpu.barrier
      scf.yield %rowsAfter : i32
    }
{WRITE_COUNT}
    gpu.return
  }
}
