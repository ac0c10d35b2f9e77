// The explicit im2col of a channels-last convolution (kernel-conv-sm90): the matrix
// A[N*OH*OW, KP] whose row m is output position (n, oh, ow) and whose column
// k = (r * KW + s) * C + c is input element (n, oh * stride - padTop + r,
// ow * stride - padLeft + s, c), zero in the padding and for k >= KH * KW * C (the columns
// that round KP up to a multiple of 8 and of 16 bytes, for TMA's 16-byte row strides). The warp-specialised
// GEMM then multiplies it by the weight. It serves convolutions whose input TMA cannot
// address directly (C not a multiple of 8: 3-channel images), whose KH*KW*C is small.
//
// One thread writes CHUNK consecutive columns of one row (16 of i8, else 8): CHUNK
// gathered loads and one 16-byte store (two of f32). The loads are unconditional (a
// position in the padding loads element 0 and selects zero instead), so that they are all
// in flight at once rather than each behind a branch. The columns of one filter row r are KW * C consecutive input elements, so a
// thread walks them with one running offset (32-bit arithmetic: the input has fewer than
// 2^31 elements), testing the row once per filter row and the column by comparing the
// position inside the filter row against the columns that lie inside the input. Placeholders (in braces below): MODULE, ENTRY, T (f16, bf16; f32 for tf32; i8), ZERO
// (T's zero: 0.0, or 0 for i8), CHUNK, STORE_ALIGNMENT (the bytes of CHUNK elements, at most 16), the problem's
// integers H W C OH OW STRIDE PAD_TOP PAD_LEFT, SEGMENT (= KW * C), K (= KH * KW * C), KP,
// ROWS (= N * OH * OW), CHUNKS_PER_ROW (= KP / CHUNK), CHUNKS (= ROWS * KP / CHUNK), W_C (= W * C)
// and INPUT_ELEMENTS (= N * H * W * C).
// Grid (ceil(CHUNKS / 256), 1, 1), block (256, 1, 1); the two parameters are bare pointers
// to the NHWC input and the row-major result.

gpu.module @{MODULE} {
  gpu.func @{ENTRY}(%xPointer: memref<{T}>, %aPointer: memref<{T}>)
      kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %chunkColumns = arith.constant {CHUNK} : i32
    %c256 = arith.constant 256 : i32
    %h = arith.constant {H} : i32
    %w = arith.constant {W} : i32
    %c = arith.constant {C} : i32
    %wc = arith.constant {W_C} : i32
    %oh = arith.constant {OH} : i32
    %ow = arith.constant {OW} : i32
    %stride = arith.constant {STRIDE} : i32
    %padTop = arith.constant {PAD_TOP} : i32
    %padLeft = arith.constant {PAD_LEFT} : i32
    // The columns of one filter row: KW taps of C channels.
    %segment = arith.constant {SEGMENT} : i32
    %k = arith.constant {K} : i32
    %chunksPerRow = arith.constant {CHUNKS_PER_ROW} : i32
    %chunks = arith.constant {CHUNKS} : i32
    %x = memref.reinterpret_cast %xPointer to offset: [0], sizes: [{INPUT_ELEMENTS}], strides: [1]
        : memref<{T}> to memref<{INPUT_ELEMENTS}x{T}>
    %a = memref.reinterpret_cast %aPointer to offset: [0], sizes: [{ROWS}, {KP}], strides: [{KP}, 1]
        : memref<{T}> to memref<{ROWS}x{KP}x{T}, strided<[{KP}, 1]>>

    %blockIndex = gpu.block_id x
    %tidIndex = gpu.thread_id x
    %block = arith.index_castui %blockIndex : index to i32
    %tid = arith.index_castui %tidIndex : index to i32
    %blockFirst = arith.muli %block, %c256 : i32
    %chunk = arith.addi %blockFirst, %tid : i32
    %inside = arith.cmpi ult, %chunk, %chunks : i32
    scf.if %inside {
      %m = arith.divui %chunk, %chunksPerRow : i32
      %rowChunk = arith.remui %chunk, %chunksPerRow : i32
      %k0 = arith.muli %rowChunk, %chunkColumns : i32
      // Row m is output position (image, outRow, outColumn), whose filter window starts at
      // input row `top` and column `left` (negative inside the padding).
      %outColumn = arith.remui %m, %ow : i32
      %q = arith.divui %m, %ow : i32
      %outRow = arith.remui %q, %oh : i32
      %image = arith.divui %q, %oh : i32
      %rowStart = arith.muli %outRow, %stride : i32
      %columnStart = arith.muli %outColumn, %stride : i32
      %top = arith.subi %rowStart, %padTop : i32
      %left = arith.subi %columnStart, %padLeft : i32
      // Inside a filter row, positions [low, high) are input columns 0 .. W-1.
      %leftElements = arith.muli %left, %c : i32
      %minusLeft = arith.subi %c0, %leftElements : i32
      %low = arith.maxsi %minusLeft, %c0 : i32
      %widthElements = arith.subi %wc, %leftElements : i32
      %high = arith.minsi %widthElements, %segment : i32
      // Column k0: filter row r0, position e0 in it; the input offset of position 0 of
      // filter row r is ((image * H + top + r) * W + left) * C.
      %r0 = arith.divui %k0, %segment : i32
      %e0 = arith.remui %k0, %segment : i32
      %row0 = arith.addi %top, %r0 : i32
      %imageRows = arith.muli %image, %h : i32
      %inputRow0 = arith.addi %imageRows, %row0 : i32
      %rowPixels0 = arith.muli %inputRow0, %w : i32
      %pixel0 = arith.addi %rowPixels0, %left : i32
      %base0 = arith.muli %pixel0, %c : i32
      %zero = arith.constant {ZERO} : {T}
      %zeros = vector.broadcast %zero : {T} to vector<{CHUNK}x{T}>
      %c0Index = arith.constant 0 : index
      %c1Index = arith.constant 1 : index
      %chunkIndex = arith.constant {CHUNK} : index
      // Unrolled once parsed (`unroll`): each insert's position is a constant.
      %values:4 = scf.for %j = %c0Index to %chunkIndex step %c1Index
          iter_args(%acc = %zeros, %e = %e0, %base = %base0, %row = %row0)
          -> (vector<{CHUNK}x{T}>, i32, i32, i32) {
        %jI32 = arith.index_castui %j : index to i32
        %kj = arith.addi %k0, %jI32 : i32
        %inK = arith.cmpi ult, %kj, %k : i32
        %rowLow = arith.cmpi sge, %row, %c0 : i32
        %rowHigh = arith.cmpi slt, %row, %h : i32
        %columnLow = arith.cmpi sge, %e, %low : i32
        %columnHigh = arith.cmpi slt, %e, %high : i32
        %rowOk = arith.andi %rowLow, %rowHigh : i1
        %columnOk = arith.andi %columnLow, %columnHigh : i1
        %positionOk = arith.andi %rowOk, %columnOk : i1
        %ok = arith.andi %positionOk, %inK : i1
        %offset = arith.addi %base, %e : i32
        %safeOffset = arith.select %ok, %offset, %c0 : i32
        %offsetIndex = arith.index_castui %safeOffset : i32 to index
        %loaded = memref.load %x[%offsetIndex] : memref<{INPUT_ELEMENTS}x{T}>
        %value = arith.select %ok, %loaded, %zero : {T}
        %next = vector.insert %value, %acc[%j] : {T} into vector<{CHUNK}x{T}>
        // The next column: the next position, else position 0 of the next filter row.
        %eStep = arith.addi %e, %c1 : i32
        %wrap = arith.cmpi eq, %eStep, %segment : i32
        %eNext = arith.select %wrap, %c0, %eStep : i32
        %baseStep = arith.addi %base, %wc : i32
        %baseNext = arith.select %wrap, %baseStep, %base : i32
        %rowStep = arith.addi %row, %c1 : i32
        %rowNext = arith.select %wrap, %rowStep, %row : i32
        scf.yield %next, %eNext, %baseNext, %rowNext : vector<{CHUNK}x{T}>, i32, i32, i32
      } {unroll}
      %mIndex = arith.index_castui %m : i32 to index
      %k0Index = arith.index_castui %k0 : i32 to index
      vector.store %values#0, %a[%mIndex, %k0Index] {alignment = {STORE_ALIGNMENT}}
        : memref<{ROWS}x{KP}x{T}, strided<[{KP}, 1]>>, vector<{CHUNK}x{T}>
    }
    gpu.return
  }
}
