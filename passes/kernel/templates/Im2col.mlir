// The explicit im2col of a channels-last convolution (kernel-conv-sm90): the matrix
// A[N*OH*OW, KP] whose row m is output position (n, oh, ow) and whose column
// k = (r * KW + s) * C + c is input element (n, oh * stride - padTop + r,
// ow * stride - padLeft + s, c), zero in the padding and for k >= KH * KW * C (the columns
// that round KP up to a multiple of 8, for TMA's 16-byte row strides). The warp-specialised
// GEMM then multiplies it by the weight. It serves convolutions whose input TMA cannot
// address directly (C not a multiple of 8: 3-channel images), whose KH*KW*C is small.
//
// One thread writes one row: KP / 8 16-byte stores. The pass writes the row out element
// by element (ROW), so that every column's filter row, tap and channel are constants: an
// element costs its predicated 2-byte load and little else (the first version, a thread
// per 8 columns walking them with running offsets, spent ~15 instructions an element and
// was issue-bound). What varies with the row is computed once: per filter row r, whether
// input row top + r is inside (%rowOk<r>) and the input offset of its tap (0, channel 0)
// (%base<r>); per tap column s, whether input column left + s is inside (%columnOk<s>).
// Arithmetic is 32-bit (the input has fewer than 2^31 elements).
//
// Placeholders (in braces below): MODULE, ENTRY, T (f16 or bf16), the problem's integers
// H W C OH OW STRIDE PAD_TOP PAD_LEFT, KP, ROWS (= N * OH * OW), INPUT_ELEMENTS
// (= N * H * W * C), and the snippets ROW_SETUP (the per-row values above) and ROW (the
// gathers and stores of a row m, as vector<8x T> chunks %chunk<i> stored at column 8 i).
// Grid (ceil(ROWS / 128), 1, 1), block (128, 1, 1); the two parameters are bare pointers
// to the NHWC input and the row-major result.

gpu.module @{MODULE} {
  gpu.func @{ENTRY}(%xPointer: memref<{T}>, %aPointer: memref<{T}>)
      kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %c128 = arith.constant 128 : i32
    %h = arith.constant {H} : i32
    %w = arith.constant {W} : i32
    %c = arith.constant {C} : i32
    %oh = arith.constant {OH} : i32
    %ow = arith.constant {OW} : i32
    %stride = arith.constant {STRIDE} : i32
    %padTop = arith.constant {PAD_TOP} : i32
    %padLeft = arith.constant {PAD_LEFT} : i32
    %rows = arith.constant {ROWS} : i32
    %x = memref.reinterpret_cast %xPointer to offset: [0], sizes: [{INPUT_ELEMENTS}], strides: [1]
        : memref<{T}> to memref<{INPUT_ELEMENTS}x{T}>
    %a = memref.reinterpret_cast %aPointer to offset: [0], sizes: [{ROWS}, {KP}], strides: [{KP}, 1]
        : memref<{T}> to memref<{ROWS}x{KP}x{T}, strided<[{KP}, 1]>>
    %zero = arith.constant 0.0 : {T}
    %zeros = vector.broadcast %zero : {T} to vector<8x{T}>

    %blockIndex = gpu.block_id x
    %tidIndex = gpu.thread_id x
    %block = arith.index_castui %blockIndex : index to i32
    %tid = arith.index_castui %tidIndex : index to i32
    %blockFirst = arith.muli %block, %c128 : i32
    %m = arith.addi %blockFirst, %tid : i32
    %inside = arith.cmpi ult, %m, %rows : i32
    scf.if %inside {
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
      %imageRows = arith.muli %image, %h : i32
      %mIndex = arith.index_castui %m : i32 to index
{ROW_SETUP}
{ROW}
    }
    gpu.return
  }
}
