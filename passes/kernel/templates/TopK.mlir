// TopK along one axis (top_k): row r of x, its N elements x[o, 0..N, i] (o = r / INNER,
// i = r % INNER), gives the K best (the largest or the smallest) in order, ties to the
// lower index as ONNX says, into values[o, 0..K, i] and indices[o, 0..K, i].
//
// A CTA of THREADS threads takes a row. Every element gets a 64-bit key whose order is
// the output's: its value's order in the upper half (the float's bits made monotone,
// -0 taken as +0, complemented for the largest: RANK_FLIP), its index in the lower half,
// so that no two keys are equal. Radix selection finds the K-th key a digit at a time,
// from the top 8 bits down: each pass counts, in a shared histogram, the digits of the
// keys that share the digits found so far, and one thread a bin finds the bin in which the
// K-th lies. The selection stops early when that bin holds exactly the keys still wanted
// (then every key with that prefix is in). Each thread then puts the keys at or before the
// K-th (exactly K) into shared memory, and each of the K is written where its rank, the
// number of selected keys below it, puts it: the sorted output, with its value reloaded
// from x in T and its index widened to i64.
//
// Index arithmetic is 32-bit (the pass checks that both buffers have fewer than 2^31
// elements at the largest shape). Placeholders (in braces): MODULE, ENTRY, T, THREADS,
// CAP (the most keys the shared array holds: K's largest value), TO_BITS (%bits, i32, from
// %raw, T), ORDER (%ordered, i32, monotone in the value, from %bits), RANK_FLIP (-1 for the
// largest, 0 for the smallest), OUTPUT_PARAMETERS, OUTPUT_VIEWS, STORE_VALUE and
// STORE_INDEX (the outputs the kernel writes: stores of %value, T, converted to each
// values output's type, at %outIndex into %values0, %values1, ..., and of %index, i32,
// widened, into %indices).
// Grid (ROWS, 1, 1), block (THREADS, 1, 1); parameters: a bare pointer to x, the
// outputs' (OUTPUT_PARAMETERS), then N, K (at most N and CAP) and INNER.

gpu.module @{MODULE} {
  gpu.func @{ENTRY}(%xPointer: memref<{T}>{OUTPUT_PARAMETERS}, %n: i32, %k: i32, %inner: i32)
      workgroup(%bins : memref<256xi32, #gpu.address_space<workgroup>>,
                %selected : memref<{CAP}xi64, #gpu.address_space<workgroup>>,
                %state : memref<3xi64, #gpu.address_space<workgroup>>,
                %counter : memref<1xi32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: {THREADS}, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %signBit = arith.constant -2147483648 : i32
    %c31 = arith.constant 31 : i32
    %rankFlip = arith.constant {RANK_FLIP} : i32
    %z0 = arith.constant 0 : i64
    %z1 = arith.constant 1 : i64
    %z8 = arith.constant 8 : i64
    %z32 = arith.constant 32 : i64
    %z56 = arith.constant 56 : i64
    %z255 = arith.constant 255 : i64
    %allOnes = arith.constant -1 : i64
    %lowHalf = arith.constant 4294967295 : i64
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %i2 = arith.constant 2 : index
    %threadsIndex = arith.constant {THREADS} : index
    %c256Index = arith.constant 256 : index

    %rowIndex = gpu.block_id x
    %rowsIndex = gpu.grid_dim x
    %tidIndex = gpu.thread_id x
    %row = arith.index_castui %rowIndex : index to i32
    %rows = arith.index_castui %rowsIndex : index to i32
    %tid = arith.index_castui %tidIndex : index to i32
    %kk = arith.minui %k, %n : i32
    %inElements = arith.muli %rows, %n : i32
    %outElements = arith.muli %rows, %k : i32
    %inSize = arith.index_castui %inElements : i32 to index
    %outSize = arith.index_castui %outElements : i32 to index
    %x = memref.reinterpret_cast %xPointer to offset: [0], sizes: [%inSize], strides: [1]
        : memref<{T}> to memref<?x{T}>
{OUTPUT_VIEWS}
    // Row r = o * INNER + i starts at o * N * INNER + i, its output at o * K * INNER + i.
    %outer = arith.divui %row, %inner : i32
    %innerAt = arith.remui %row, %inner : i32
    %outerIn = arith.muli %outer, %n : i32
    %outerInElements = arith.muli %outerIn, %inner : i32
    %base = arith.addi %outerInElements, %innerAt : i32
    %outerOut = arith.muli %outer, %k : i32
    %outerOutElements = arith.muli %outerOut, %inner : i32
    %outBase = arith.addi %outerOutElements, %innerAt : i32
    %nIndex = arith.index_castui %n : i32 to index
    %kkIndex = arith.index_castui %kk : i32 to index
    %kk64 = arith.extui %kk : i32 to i64

    %any = arith.cmpi ugt, %kk, %c0 : i32
    scf.if %any {
      // state: the prefix found so far, the keys still wanted in its bin, done.
      %first = arith.cmpi eq, %tid, %c0 : i32
      scf.if %first {
        memref.store %z0, %state[%i0] : memref<3xi64, #gpu.address_space<workgroup>>
        memref.store %kk64, %state[%i1] : memref<3xi64, #gpu.address_space<workgroup>>
        memref.store %z0, %state[%i2] : memref<3xi64, #gpu.address_space<workgroup>>
        memref.store %c0, %counter[%i0] : memref<1xi32, #gpu.address_space<workgroup>>
      }
      gpu.barrier

      // One pass a digit, from bits 56..63 down; %last is the shift after the last pass.
      %last = scf.while (%shift = %z56) : (i64) -> i64 {
        %doneFlag = memref.load %state[%i2] : memref<3xi64, #gpu.address_space<workgroup>>
        %notDone = arith.cmpi eq, %doneFlag, %z0 : i64
        %digitsLeft = arith.cmpi sge, %shift, %z0 : i64
        %go = arith.andi %notDone, %digitsLeft : i1
        scf.condition(%go) %shift : i64
      } do {
      ^bb0(%shift: i64):
        %prefix = memref.load %state[%i0] : memref<3xi64, #gpu.address_space<workgroup>>
        %wanted = memref.load %state[%i1] : memref<3xi64, #gpu.address_space<workgroup>>
        scf.for %b = %tidIndex to %c256Index step %threadsIndex {
          memref.store %c0, %bins[%b] : memref<256xi32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        // The keys that share the prefix: every bit above this digit.
        %highShift = arith.addi %shift, %z8 : i64
        %shifted = arith.shli %allOnes, %highShift : i64
        %top = arith.cmpi eq, %shift, %z56 : i64
        %highMask = arith.select %top, %z0, %shifted : i64
        scf.for %jIndex = %tidIndex to %nIndex step %threadsIndex {
          %j = arith.index_castui %jIndex : index to i32
{KEY}
          %high = arith.andi %key, %highMask : i64
          %match = arith.cmpi eq, %high, %prefix : i64
          scf.if %match {
            %digitWide = arith.shrui %key, %shift : i64
            %digit64 = arith.andi %digitWide, %z255 : i64
            %digit = arith.index_castui %digit64 : i64 to index
            %old = memref.atomic_rmw addi %c1, %bins[%digit]
                : (i32, memref<256xi32, #gpu.address_space<workgroup>>) -> i32
          }
        }
        gpu.barrier
        // Bin b holds the K-th key when the keys in the bins below it are fewer than
        // wanted and those up to it are not.
        scf.for %b = %tidIndex to %c256Index step %threadsIndex {
          %below = scf.for %i = %i0 to %b step %i1 iter_args(%sum = %c0) -> (i32) {
            %count = memref.load %bins[%i] : memref<256xi32, #gpu.address_space<workgroup>>
            %more = arith.addi %sum, %count : i32
            scf.yield %more : i32
          }
          %inBin = memref.load %bins[%b] : memref<256xi32, #gpu.address_space<workgroup>>
          %below64 = arith.extui %below : i32 to i64
          %inBin64 = arith.extui %inBin : i32 to i64
          %upTo = arith.addi %below64, %inBin64 : i64
          %afterBelow = arith.cmpi ult, %below64, %wanted : i64
          %withinUpTo = arith.cmpi ule, %wanted, %upTo : i64
          %here = arith.andi %afterBelow, %withinUpTo : i1
          scf.if %here {
            %b64 = arith.index_castui %b : index to i64
            %digitBits = arith.shli %b64, %shift : i64
            %nextPrefix = arith.ori %prefix, %digitBits : i64
            %stillWanted = arith.subi %wanted, %below64 : i64
            %whole = arith.cmpi eq, %inBin64, %stillWanted : i64
            %done = arith.extui %whole : i1 to i64
            memref.store %nextPrefix, %state[%i0] : memref<3xi64, #gpu.address_space<workgroup>>
            memref.store %stillWanted, %state[%i1] : memref<3xi64, #gpu.address_space<workgroup>>
            memref.store %done, %state[%i2] : memref<3xi64, #gpu.address_space<workgroup>>
          }
        }
        gpu.barrier
        %nextShift = arith.subi %shift, %z8 : i64
        scf.yield %nextShift : i64
      }

      // The K-th key: the prefix, every bit below its last digit set.
      %found = memref.load %state[%i0] : memref<3xi64, #gpu.address_space<workgroup>>
      %lowBits = arith.addi %last, %z8 : i64
      %lowBit = arith.shli %z1, %lowBits : i64
      %lowMask = arith.subi %lowBit, %z1 : i64
      %threshold = arith.ori %found, %lowMask : i64
      scf.for %jIndex = %tidIndex to %nIndex step %threadsIndex {
        %j = arith.index_castui %jIndex : index to i32
{KEY}
        %in = arith.cmpi ule, %key, %threshold : i64
        scf.if %in {
          %slot = memref.atomic_rmw addi %c1, %counter[%i0]
              : (i32, memref<1xi32, #gpu.address_space<workgroup>>) -> i32
          %slotIndex = arith.index_castui %slot : i32 to index
          memref.store %key, %selected[%slotIndex] : memref<{CAP}xi64, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      scf.for %s = %tidIndex to %kkIndex step %threadsIndex {
        %mine = memref.load %selected[%s] : memref<{CAP}xi64, #gpu.address_space<workgroup>>
        %rank = scf.for %i = %i0 to %kkIndex step %i1 iter_args(%r = %c0) -> (i32) {
          %other = memref.load %selected[%i] : memref<{CAP}xi64, #gpu.address_space<workgroup>>
          %before = arith.cmpi ult, %other, %mine : i64
          %one = arith.extui %before : i1 to i32
          %next = arith.addi %r, %one : i32
          scf.yield %next : i32
        }
        %index64 = arith.andi %mine, %lowHalf : i64
        %index = arith.trunci %index64 : i64 to i32
        %offset = arith.muli %index, %inner : i32
        %at = arith.addi %base, %offset : i32
        %atIndex = arith.index_castui %at : i32 to index
        %value = memref.load %x[%atIndex] : memref<?x{T}>
        %outOffset = arith.muli %rank, %inner : i32
        %outAt = arith.addi %outBase, %outOffset : i32
        %outIndex = arith.index_castui %outAt : i32 to index
{STORE_VALUE}
{STORE_INDEX}
      }
    }
    gpu.return
  }
}
