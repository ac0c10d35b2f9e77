// The explicit im2col of a channels-last convolution (kernel-conv-sm90): the matrix
// A[N*OH*OW, KP] whose row m is output position (n, oh, ow) and whose column
// k = (r * KW + s) * C + c is input element (n, oh * stride - padTop + r,
// ow * stride - padLeft + s, c), zero in the padding and for k >= KH * KW * C (the columns
// that round KP up to a multiple of 8, for TMA's 16-byte row strides). The warp-specialised
// GEMM then multiplies it by the weight. It serves convolutions whose input TMA cannot
// address directly (C not a multiple of 8: 3-channel images), whose KH*KW*C is small.
//
// One thread writes 8 consecutive columns of one row: 8 gathered loads and one 16-byte
// store. Placeholders (in braces below): MODULE, ENTRY, T (f16 or bf16), the problem's
// integers N H W C OH OW KW STRIDE PAD_TOP PAD_LEFT, K (= KH * KW * C), KP, ROWS
// (= N * OH * OW), CHUNKS (= ROWS * KP / 8), W_C and H_W_C (products of W, H and C).
// Grid (ceil(CHUNKS / 256), 1, 1), block (256, 1, 1); the two parameters are bare pointers
// to the NHWC input and the row-major result.

gpu.module @{MODULE} {
  gpu.func @{ENTRY}(%xPointer: memref<{T}>, %aPointer: memref<{T}>)
      kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %n = arith.constant {N} : index
    %h = arith.constant {H} : index
    %w = arith.constant {W} : index
    %c = arith.constant {C} : index
    %oh = arith.constant {OH} : index
    %ow = arith.constant {OW} : index
    %kw = arith.constant {KW} : index
    %stride = arith.constant {STRIDE} : index
    %padTop = arith.constant {PAD_TOP} : index
    %padLeft = arith.constant {PAD_LEFT} : index
    %k = arith.constant {K} : index
    %kp = arith.constant {KP} : index
    %chunks = arith.constant {CHUNKS} : index
    %x = memref.reinterpret_cast %xPointer to offset: [0], sizes: [{N}, {H}, {W}, {C}],
        strides: [{H_W_C}, {W_C}, {C}, 1] : memref<{T}> to memref<{N}x{H}x{W}x{C}x{T}, strided<[{H_W_C}, {W_C}, {C}, 1]>>
    %a = memref.reinterpret_cast %aPointer to offset: [0], sizes: [{ROWS}, {KP}], strides: [{KP}, 1]
        : memref<{T}> to memref<{ROWS}x{KP}x{T}, strided<[{KP}, 1]>>

    %block = gpu.block_id x
    %tid = gpu.thread_id x
    %blockFirst = arith.muli %block, %c256 : index
    %chunk = arith.addi %blockFirst, %tid : index
    %inside = arith.cmpi ult, %chunk, %chunks : index
    scf.if %inside {
      %chunksPerRow = arith.divui %kp, %c8 : index
      %m = arith.divui %chunk, %chunksPerRow : index
      %rowChunk = arith.remui %chunk, %chunksPerRow : index
      %k0 = arith.muli %rowChunk, %c8 : index
      // Row m is output position (image, outRow, outColumn).
      %outColumn = arith.remui %m, %ow : index
      %q = arith.divui %m, %ow : index
      %outRow = arith.remui %q, %oh : index
      %image = arith.divui %q, %oh : index
      %rowStart = arith.muli %outRow, %stride : index
      %columnStart = arith.muli %outColumn, %stride : index
      %top = arith.subi %rowStart, %padTop : index
      %left = arith.subi %columnStart, %padLeft : index
      %zero = arith.constant 0.0 : {T}
      %zeros = vector.broadcast %zero : {T} to vector<8x{T}>
      // Column k0's filter tap (r, s) and channel; the columns after it step through the
      // channels, then the taps, without dividing again.
      %channel0 = arith.remui %k0, %c : index
      %tap0 = arith.divui %k0, %c : index
      %s0 = arith.remui %tap0, %kw : index
      %r0 = arith.divui %tap0, %kw : index
      // The loop has constant bounds: LLVM unrolls it, and each insert's position becomes
      // a constant.
      %values:4 = scf.for %j = %c0 to %c8 step %c1
          iter_args(%acc = %zeros, %channel = %channel0, %s = %s0, %r = %r0)
          -> (vector<8x{T}>, index, index, index) {
        %kj = arith.addi %k0, %j : index
        %row = arith.addi %top, %r : index
        %column = arith.addi %left, %s : index
        // Signed comparisons: the padding's rows and columns are negative.
        %inK = arith.cmpi ult, %kj, %k : index
        %rowLow = arith.cmpi sge, %row, %c0 : index
        %rowHigh = arith.cmpi slt, %row, %h : index
        %columnLow = arith.cmpi sge, %column, %c0 : index
        %columnHigh = arith.cmpi slt, %column, %w : index
        %rowOk = arith.andi %rowLow, %rowHigh : i1
        %columnOk = arith.andi %columnLow, %columnHigh : i1
        %positionOk = arith.andi %rowOk, %columnOk : i1
        %ok = arith.andi %positionOk, %inK : i1
        %value = scf.if %ok -> ({T}) {
          %loaded = memref.load %x[%image, %row, %column, %channel]
            : memref<{N}x{H}x{W}x{C}x{T}, strided<[{H_W_C}, {W_C}, {C}, 1]>>
          scf.yield %loaded : {T}
        } else {
          scf.yield %zero : {T}
        }
        %next = vector.insert %value, %acc[%j] : {T} into vector<8x{T}>
        // The next column: channel + 1, else the next tap of the row, else the next row.
        %channelNext = arith.addi %channel, %c1 : index
        %tapDone = arith.cmpi eq, %channelNext, %c : index
        %sStep = arith.addi %s, %c1 : index
        %sNext = arith.select %tapDone, %sStep, %s : index
        %rowDone = arith.cmpi eq, %sNext, %kw : index
        %rStep = arith.addi %r, %c1 : index
        %rNext = arith.select %rowDone, %rStep, %r : index
        %channelOut = arith.select %tapDone, %c0, %channelNext : index
        %sOut = arith.select %rowDone, %c0, %sNext : index
        scf.yield %next, %channelOut, %sOut, %rNext : vector<8x{T}>, index, index, index
      }
      vector.store %values#0, %a[%m, %k0] {alignment = 16}
        : memref<{ROWS}x{KP}x{T}, strided<[{KP}, 1]>>, vector<8x{T}>
    }
    gpu.return
  }
}
