// The explicit im2col of a channels-last convolution (sm90_conv): the matrix
// A[N*OH*OW, KP] whose row m is output position (n, oh, ow) and whose column
// k = (r * KW + s) * C + c is input element (n, oh * SH - padTop + r * DH,
// ow * SW - padLeft + s * DW, c) (strides SH, SW; dilations DH, DW), zero in the padding
// and for k >= KH * KW * C (the columns
// that round KP up to a multiple of 8 and of 16 bytes, for TMA's 16-byte row strides). The
// warp-specialised GEMM then multiplies it by the weight. It serves convolutions whose
// input TMA cannot address directly (C not a multiple of 8: 3-channel images), whose
// KH*KW*C is small.
//
// A CTA writes the rows of OWB consecutive output positions of one output row (n, oh):
// OWB * KP consecutive elements of A. Their windows overlap (each input element lies in
// about KH * KW / (SH * SW) rows of A), so the CTA first copies the input they read,
// WINDOW_ROWS = (KH - 1) * DH + 1 rows of WIN = (OWB - 1) * SW + (KW - 1) * DW + 1 pixels
// (WIN_C = WIN * C elements each, zero outside the input), into shared memory with
// coalesced loads. The KW * C columns of filter row r of a position's row are then KW
// runs of C consecutive elements of window row r * DH, DW * C apart (one run without
// dilation): each warp builds the rows of its positions in shared memory, its lanes along a row's
// columns, so that a warp's accesses are a few runs of consecutive elements. Last,
// consecutive threads store consecutive CHUNK elements (16 bytes) of the CTA's rows of
// A. 32-bit arithmetic but for A's offsets: the input and A's rows number fewer than
// 2^31 (the pass checks).
//
// Placeholders (in braces below): MODULE, ENTRY, T (f16, bf16; f32 for tf32; i8), ZERO
// (T's zero: 0.0, or 0 for i8), CHUNK, STORE_ALIGNMENT (the bytes of CHUNK elements, at
// most 16), the problem's integers H C OH OW STRIDE_H STRIDE_W PAD_TOP PAD_LEFT, SEGMENT
// (= KW * C), ROW_STEP (= DH * WIN_C), SEGMENT_OFFSET (the MLIR that computes %inSegment,
// a column's offset in its window row, from %e, its column in the segment), K (= KH * KW * C), KP, COLUMN_STEPS (= ceil(KP / 32)), A_ELEMENTS
// (= N * OH * OW * KP), CHUNKS_PER_ROW (= KP / CHUNK), W_C (= W * C), INPUT_ELEMENTS
// (= N * H * W * C), OWB, BLOCKS_PER_ROW (= ceil(OW / OWB)), WIN_C, WINDOW
// (= WINDOW_ROWS * WIN_C), WINDOW_STEPS (= ceil(WINDOW / 256)), WINDOW_PADDED
// (= WINDOW_STEPS * 256) and STAGED (= OWB * KP).
// Grid (N * OH * BLOCKS_PER_ROW, 1, 1), block (256, 1, 1); the two parameters are bare
// pointers to the NHWC input and the row-major result.

gpu.module @{MODULE} {
  gpu.func @{ENTRY}(%xPointer: memref<{T}>, %aPointer: memref<{T}>)
      workgroup(%window: memref<{WINDOW_PADDED}x{T}, #gpu.address_space<workgroup>>,
                %rows: memref<{STAGED}x{T}, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %c256 = arith.constant 256 : i32
    %h = arith.constant {H} : i32
    %wc = arith.constant {W_C} : i32
    %c = arith.constant {C} : i32
    %oh = arith.constant {OH} : i32
    %ow = arith.constant {OW} : i32
    %strideH = arith.constant {STRIDE_H} : i32
    %strideW = arith.constant {STRIDE_W} : i32
    %padTop = arith.constant {PAD_TOP} : i32
    %padLeft = arith.constant {PAD_LEFT} : i32
    %segment = arith.constant {SEGMENT} : i32
    %chunksPerRow = arith.constant {CHUNKS_PER_ROW} : i32
    %owb = arith.constant {OWB} : i32
    %blocksPerRow = arith.constant {BLOCKS_PER_ROW} : i32
    %winC = arith.constant {WIN_C} : i32
    %windowElements = arith.constant {WINDOW} : i32
    %x = memref.reinterpret_cast %xPointer to offset: [0], sizes: [{INPUT_ELEMENTS}], strides: [1]
        : memref<{T}> to memref<{INPUT_ELEMENTS}x{T}>
    %zero = arith.constant {ZERO} : {T}

    %blockIndex = gpu.block_id x
    %tidIndex = gpu.thread_id x
    %block = arith.index_castui %blockIndex : index to i32
    %tid = arith.index_castui %tidIndex : index to i32
    // The CTA's output positions: (image, outRow, firstColumn ..), owCount of them.
    %columnBlock = arith.remui %block, %blocksPerRow : i32
    %q = arith.divui %block, %blocksPerRow : i32
    %outRow = arith.remui %q, %oh : i32
    %image = arith.divui %q, %oh : i32
    %firstColumn = arith.muli %columnBlock, %owb : i32
    %columnsLeft = arith.subi %ow, %firstColumn : i32
    %owCount = arith.minui %columnsLeft, %owb : i32
    // The window: input rows top .. top + WINDOW_ROWS - 1, elements leftElement .. + WIN_C - 1 of
    // each (negative or past W * C in the padding).
    %rowStart = arith.muli %outRow, %strideH : i32
    %top = arith.subi %rowStart, %padTop : i32
    %columnStart = arith.muli %firstColumn, %strideW : i32
    %left = arith.subi %columnStart, %padLeft : i32
    %leftElement = arith.muli %left, %c : i32
    %imageRows = arith.muli %image, %h : i32

    // A thread's WINDOW_STEPS elements of the window, unrolled with their loads hoisted
    // ahead of the stores, so that they are in flight together (in a loop each waited out
    // the last one's global-memory latency, which made the im2col latency-bound). No
    // branch: the window is padded to WINDOW_STEPS * 256 elements, and the elements past
    // WINDOW (zeros) are never read.
    %c0Index = arith.constant 0 : index
    %c1Index = arith.constant 1 : index
    %windowSteps = arith.constant {WINDOW_STEPS} : index
    scf.for %step = %c0Index to %windowSteps step %c1Index {
      %stepI32 = arith.index_castui %step : index to i32
      %stepFirst = arith.muli %stepI32, %c256 : i32
      %at = arith.addi %stepFirst, %tid : i32
      %inWindow = arith.cmpi ult, %at, %windowElements : i32
      %r = arith.divui %at, %winC : i32
      %e = arith.remui %at, %winC : i32
      %inputRow = arith.addi %top, %r : i32
      %element = arith.addi %leftElement, %e : i32
      %rowLow = arith.cmpi sge, %inputRow, %c0 : i32
      %rowHigh = arith.cmpi slt, %inputRow, %h : i32
      %elementLow = arith.cmpi sge, %element, %c0 : i32
      %elementHigh = arith.cmpi slt, %element, %wc : i32
      %rowOk = arith.andi %rowLow, %rowHigh : i1
      %elementOk = arith.andi %elementLow, %elementHigh : i1
      %inside = arith.andi %rowOk, %elementOk : i1
      %ok = arith.andi %inside, %inWindow : i1
      %rowOfImage = arith.addi %imageRows, %inputRow : i32
      %rowOffset = arith.muli %rowOfImage, %wc : i32
      %offset = arith.addi %rowOffset, %element : i32
      %safeOffset = arith.select %ok, %offset, %c0 : i32
      %offsetIndex = arith.index_castui %safeOffset : i32 to index
      %loaded = memref.load %x[%offsetIndex] : memref<{INPUT_ELEMENTS}x{T}>
      %value = arith.select %ok, %loaded, %zero : {T}
      %atIndex = arith.index_castui %at : i32 to index
      memref.store %value, %window[%atIndex] : memref<{WINDOW_PADDED}x{T}, #gpu.address_space<workgroup>>
    } {unroll, hoist_loads}
    gpu.barrier

    // Each warp builds the rows of A of positions warp, warp + 8, ... in shared memory:
    // lane l writes columns k = l + 32 i of the row, window element
    // (k / SEGMENT) * ROW_STEP + the offset of k % SEGMENT in its row past the position's
    // first (zero for k >= K).
    // A warp's 32 loads then read a few runs of consecutive window elements and its 32
    // stores are consecutive: one or two shared-memory wavefronts each. (A thread per
    // (position, filter row) copying the row's segment made every access of a warp hit
    // other rows: bank conflicts kept shared memory busy throughout, for 1-byte elements
    // too.) The column offsets depend on the lane and i only: LLVM computes them once.
    %c32 = arith.constant 32 : i32
    %kp = arith.constant {KP} : i32
    %k = arith.constant {K} : i32
    %strideC = arith.muli %strideW, %c : i32
    %rowStep = arith.constant {ROW_STEP} : i32
    %lane = arith.remui %tid, %c32 : i32
    %warp = arith.divui %tid, %c32 : i32
    %warpIndex = arith.index_castui %warp : i32 to index
    %owCountIndex = arith.index_castui %owCount : i32 to index
    %warps = arith.constant 8 : index
    %columnSteps = arith.constant {COLUMN_STEPS} : index
    scf.for %positionAt = %warpIndex to %owCountIndex step %warps {
      %position = arith.index_castui %positionAt : index to i32
      %positionStart = arith.muli %position, %strideC : i32
      %rowOfA = arith.muli %position, %kp : i32
      scf.for %i = %c0Index to %columnSteps step %c1Index {
        %iI32 = arith.index_castui %i : index to i32
        %stepFirst = arith.muli %iI32, %c32 : i32
        %column = arith.addi %stepFirst, %lane : i32
        %real = arith.cmpi ult, %column, %k : i32
        %r = arith.divui %column, %segment : i32
        %e = arith.remui %column, %segment : i32
{SEGMENT_OFFSET}
        %windowRow = arith.muli %r, %rowStep : i32
        %inRow = arith.addi %windowRow, %inSegment : i32
        %from = arith.addi %inRow, %positionStart : i32
        %safeFrom = arith.select %real, %from, %c0 : i32
        %fromIndex = arith.index_castui %safeFrom : i32 to index
        %loaded = memref.load %window[%fromIndex] : memref<{WINDOW_PADDED}x{T}, #gpu.address_space<workgroup>>
        %value = arith.select %real, %loaded, %zero : {T}
        %inside = arith.cmpi ult, %column, %kp : i32
        scf.if %inside {
          %to = arith.addi %rowOfA, %column : i32
          %toIndex = arith.index_castui %to : i32 to index
          memref.store %value, %rows[%toIndex] : memref<{STAGED}x{T}, #gpu.address_space<workgroup>>
        }
      } {unroll}
    }
    gpu.barrier

    // The CTA's rows of A, consecutive in A: CHUNK elements a thread at once.
    %rowsFirst = arith.muli %image, %oh : i32
    %rowsOfImage = arith.addi %rowsFirst, %outRow : i32
    %rowsBefore = arith.muli %rowsOfImage, %ow : i32
    %firstRow = arith.addi %rowsBefore, %firstColumn : i32
    %firstRowIndex = arith.index_castui %firstRow : i32 to index
    %kpIndex = arith.constant {KP} : index
    %firstElementIndex = arith.muli %firstRowIndex, %kpIndex : index
    %chunks = arith.muli %owCount, %chunksPerRow : i32
    %chunksEnd = arith.index_castui %chunks : i32 to index
    %tidStart = arith.index_castui %tid : i32 to index
    %c256Index = arith.constant 256 : index
    %chunkColumnsIndex = arith.constant {CHUNK} : index
    %aFlat = memref.reinterpret_cast %aPointer to offset: [0], sizes: [{A_ELEMENTS}], strides: [1]
        : memref<{T}> to memref<{A_ELEMENTS}x{T}>
    scf.for %chunkAt = %tidStart to %chunksEnd step %c256Index {
      %at = arith.muli %chunkAt, %chunkColumnsIndex : index
      %values = vector.load %rows[%at] {alignment = {STORE_ALIGNMENT}}
        : memref<{STAGED}x{T}, #gpu.address_space<workgroup>>, vector<{CHUNK}x{T}>
      %global = arith.addi %firstElementIndex, %at : index
      vector.store %values, %aFlat[%global] {alignment = {STORE_ALIGNMENT}}
        : memref<{A_ELEMENTS}x{T}>, vector<{CHUNK}x{T}>
    }
    gpu.return
  }
}
