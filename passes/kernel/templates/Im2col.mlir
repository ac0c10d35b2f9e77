// The explicit im2col of a channels-last convolution (kernel-conv-sm90): the matrix
// A[N*OH*OW, KP] whose row m is output position (n, oh, ow) and whose column
// k = (r * KW + s) * C + c is input element (n, oh * stride - padTop + r,
// ow * stride - padLeft + s, c), zero in the padding and for k >= KH * KW * C (the columns
// that round KP up to a multiple of 8 and of 16 bytes, for TMA's 16-byte row strides). The
// warp-specialised GEMM then multiplies it by the weight. It serves convolutions whose
// input TMA cannot address directly (C not a multiple of 8: 3-channel images), whose
// KH*KW*C is small.
//
// A CTA writes the rows of OWB consecutive output positions of one output row (n, oh):
// OWB * KP consecutive elements of A. Their windows overlap (each input element lies in
// about KH * KW / stride^2 rows of A), so the CTA first copies the input they read into
// shared memory: KH window rows of WINDOW_ROW elements from the last LOAD-aligned one at
// or before the windows' first element (`shift` elements before it), in LOAD-element vectors
// (LOAD divides W * C, so that a vector lies wholly inside an input row or wholly in the
// padding: zeros), and a KH + 1st row of zeros. A thread then builds CHUNK columns of A
// (16 bytes) of a row in registers and stores them: thread t takes chunk t % CHUNKS_PER_ROW
// of the rows of positions t / CHUNKS_PER_ROW, + GROUPS, ..., so that the window offsets
// of its columns, (k / SEGMENT) * WINDOW_ROW + k % SEGMENT (the zero row's first for
// k >= K), do not change from row to row (LLVM computes them once) and a row takes one
// window load an element, and consecutive threads store consecutive 16 bytes of A. (Rows
// built a byte at a time in shared memory, ~10 instructions an element, made the i8 stem's
// im2col issue-bound.) 32-bit arithmetic but for A's offsets: the input and A's rows
// number fewer than 2^31 (the pass checks).
//
// Placeholders (in braces below): MODULE, ENTRY, T (f16, bf16; f32 for tf32; i8), ZERO
// (T's zero: 0.0, or 0 for i8), CHUNK, STORE_ALIGNMENT (the bytes of CHUNK elements, at
// most 16), LOAD (the window's vector elements: a power of two dividing CHUNK and W * C),
// LOAD_ALIGNMENT (its bytes), the problem's integers H C OH OW STRIDE PAD_TOP PAD_LEFT KH,
// SEGMENT (= KW * C), K (= KH * KW * C), KP, CHUNKS_PER_ROW (= KP / CHUNK), GROUPS
// (= 256 / CHUNKS_PER_ROW), A_ELEMENTS (= N * OH * OW * KP), W_C (= W * C),
// INPUT_ELEMENTS (= N * H * W * C), OWB, BLOCKS_PER_ROW (= ceil(OW / OWB)), WINDOW_ROW
// (a multiple of LOAD of at least ((OWB - 1) * STRIDE + KW) * C + LOAD - 1), ZERO_ROW
// (= KH * WINDOW_ROW), ROW_LOADS (= WINDOW_ROW / LOAD), WINDOW_LOADS
// (= (KH + 1) * ROW_LOADS), WINDOW_STEPS (= ceil(WINDOW_LOADS / 256)) and WINDOW_PADDED
// (= WINDOW_STEPS * 256 * LOAD).
// Grid (N * OH * BLOCKS_PER_ROW, 1, 1), block (256, 1, 1); the two parameters are bare
// pointers to the NHWC input and the row-major result.

gpu.module @{MODULE} {
  gpu.func @{ENTRY}(%xPointer: memref<{T}>, %aPointer: memref<{T}>)
      workgroup(%window: memref<{WINDOW_PADDED}x{T}, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %c256 = arith.constant 256 : i32
    %h = arith.constant {H} : i32
    %kh = arith.constant {KH} : i32
    %wc = arith.constant {W_C} : i32
    %c = arith.constant {C} : i32
    %oh = arith.constant {OH} : i32
    %ow = arith.constant {OW} : i32
    %stride = arith.constant {STRIDE} : i32
    %padTop = arith.constant {PAD_TOP} : i32
    %padLeft = arith.constant {PAD_LEFT} : i32
    %owb = arith.constant {OWB} : i32
    %blocksPerRow = arith.constant {BLOCKS_PER_ROW} : i32
    %load = arith.constant {LOAD} : i32
    %rowLoads = arith.constant {ROW_LOADS} : i32
    %windowLoads = arith.constant {WINDOW_LOADS} : i32
    %x = memref.reinterpret_cast %xPointer to offset: [0], sizes: [{INPUT_ELEMENTS}], strides: [1]
        : memref<{T}> to memref<{INPUT_ELEMENTS}x{T}>
    %zeros = arith.constant dense<{ZERO}> : vector<{LOAD}x{T}>

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
    // The window: input rows top .. top + KH - 1 from element windowStart of each (negative
    // or past W * C in the padding), LOAD-aligned: the windows' first element, leftElement,
    // is `shift` elements in.
    %rowStart = arith.muli %outRow, %stride : i32
    %top = arith.subi %rowStart, %padTop : i32
    %columnStart = arith.muli %firstColumn, %stride : i32
    %left = arith.subi %columnStart, %padLeft : i32
    %leftElement = arith.muli %left, %c : i32
    %remainder = arith.remsi %leftElement, %load : i32
    %negative = arith.cmpi slt, %remainder, %c0 : i32
    %wrapped = arith.addi %remainder, %load : i32
    %shift = arith.select %negative, %wrapped, %remainder : i32
    %windowStart = arith.subi %leftElement, %shift : i32
    %imageRows = arith.muli %image, %h : i32

    // A thread's WINDOW_STEPS vectors of the window, unrolled with their loads hoisted
    // ahead of the stores, so that they are in flight together. No branch: the window is
    // padded to WINDOW_STEPS * 256 vectors, and those past WINDOW_LOADS (zeros) are never
    // read. Row KH is the zero row.
    %c0Index = arith.constant 0 : index
    %c1Index = arith.constant 1 : index
    %windowSteps = arith.constant {WINDOW_STEPS} : index
    scf.for %step = %c0Index to %windowSteps step %c1Index {
      %stepI32 = arith.index_castui %step : index to i32
      %stepFirst = arith.muli %stepI32, %c256 : i32
      %at = arith.addi %stepFirst, %tid : i32
      %inWindow = arith.cmpi ult, %at, %windowLoads : i32
      %r = arith.divui %at, %rowLoads : i32
      %vectorInRow = arith.remui %at, %rowLoads : i32
      %elementInRow = arith.muli %vectorInRow, %load : i32
      %inputRow = arith.addi %top, %r : i32
      %element = arith.addi %windowStart, %elementInRow : i32
      %filterRow = arith.cmpi ult, %r, %kh : i32
      %rowLow = arith.cmpi sge, %inputRow, %c0 : i32
      %rowHigh = arith.cmpi slt, %inputRow, %h : i32
      %elementLow = arith.cmpi sge, %element, %c0 : i32
      %elementHigh = arith.cmpi slt, %element, %wc : i32
      %rowInside = arith.andi %rowLow, %rowHigh : i1
      %rowOk = arith.andi %rowInside, %filterRow : i1
      %elementOk = arith.andi %elementLow, %elementHigh : i1
      %inside = arith.andi %rowOk, %elementOk : i1
      %ok = arith.andi %inside, %inWindow : i1
      %rowOfImage = arith.addi %imageRows, %inputRow : i32
      %rowOffset = arith.muli %rowOfImage, %wc : i32
      %offset = arith.addi %rowOffset, %element : i32
      %safeOffset = arith.select %ok, %offset, %c0 : i32
      %offsetIndex = arith.index_castui %safeOffset : i32 to index
      %loaded = vector.load %x[%offsetIndex] {alignment = {LOAD_ALIGNMENT}}
        : memref<{INPUT_ELEMENTS}x{T}>, vector<{LOAD}x{T}>
      %value = arith.select %ok, %loaded, %zeros : vector<{LOAD}x{T}>
      %to = arith.muli %at, %load : i32
      %toIndex = arith.index_castui %to : i32 to index
      vector.store %value, %window[%toIndex] {alignment = {LOAD_ALIGNMENT}}
        : memref<{WINDOW_PADDED}x{T}, #gpu.address_space<workgroup>>, vector<{LOAD}x{T}>
    } {unroll, hoist_loads}
    gpu.barrier

    // Thread tid builds chunk `chunk` (columns chunk * CHUNK ..) of the rows of positions
    // group, group + GROUPS, ...; the threads past GROUPS * CHUNKS_PER_ROW build none.
    %chunksPerRow = arith.constant {CHUNKS_PER_ROW} : i32
    %groups = arith.constant {GROUPS} : i32
    %chunkColumns = arith.constant {CHUNK} : i32
    %segment = arith.constant {SEGMENT} : i32
    %windowRow = arith.constant {WINDOW_ROW} : i32
    %zeroRow = arith.constant {ZERO_ROW} : i32
    %k = arith.constant {K} : i32
    %strideC = arith.muli %stride, %c : i32
    %chunk = arith.remui %tid, %chunksPerRow : i32
    %group = arith.divui %tid, %chunksPerRow : i32
    %building = arith.cmpi ult, %group, %groups : i32
    %firstPosition = arith.select %building, %group, %owCount : i32
    %firstPositionIndex = arith.index_castui %firstPosition : i32 to index
    %owCountIndex = arith.index_castui %owCount : i32 to index
    %groupsIndex = arith.index_castui %groups : i32 to index
    %chunkFirst = arith.muli %chunk, %chunkColumns : i32
    %rowsFirst = arith.muli %image, %oh : i32
    %rowsOfImage = arith.addi %rowsFirst, %outRow : i32
    %rowsBefore = arith.muli %rowsOfImage, %ow : i32
    %firstRow = arith.addi %rowsBefore, %firstColumn : i32
    %kpIndex = arith.constant {KP} : index
    %chunkFirstIndex = arith.index_castui %chunkFirst : i32 to index
    %aFlat = memref.reinterpret_cast %aPointer to offset: [0], sizes: [{A_ELEMENTS}], strides: [1]
        : memref<{T}> to memref<{A_ELEMENTS}x{T}>
    %chunkZeros = arith.constant dense<{ZERO}> : vector<{CHUNK}x{T}>
    %chunkSteps = arith.constant {CHUNK} : index
    scf.for %positionAt = %firstPositionIndex to %owCountIndex step %groupsIndex {
      %position = arith.index_castui %positionAt : index to i32
      %positionStart = arith.muli %position, %strideC : i32
      %base = arith.addi %positionStart, %shift : i32
      %values = scf.for %e = %c0Index to %chunkSteps step %c1Index
          iter_args(%partial = %chunkZeros) -> (vector<{CHUNK}x{T}>) {
        %eI32 = arith.index_castui %e : index to i32
        %column = arith.addi %chunkFirst, %eI32 : i32
        %real = arith.cmpi ult, %column, %k : i32
        %r = arith.divui %column, %segment : i32
        %inSegment = arith.remui %column, %segment : i32
        %rowFirst = arith.muli %r, %windowRow : i32
        %inWindow = arith.addi %rowFirst, %inSegment : i32
        %from = arith.select %real, %inWindow, %zeroRow : i32
        %at = arith.addi %from, %base : i32
        %atIndex = arith.index_castui %at : i32 to index
        %value = memref.load %window[%atIndex]
          : memref<{WINDOW_PADDED}x{T}, #gpu.address_space<workgroup>>
        %next = vector.insert %value, %partial [%e] : {T} into vector<{CHUNK}x{T}>
        scf.yield %next : vector<{CHUNK}x{T}>
      } {unroll}
      %row = arith.addi %firstRow, %position : i32
      %rowIndex = arith.index_castui %row : i32 to index
      %rowElement = arith.muli %rowIndex, %kpIndex : index
      %global = arith.addi %rowElement, %chunkFirstIndex : index
      vector.store %values, %aFlat[%global] {alignment = {STORE_ALIGNMENT}}
        : memref<{A_ELEMENTS}x{T}>, vector<{CHUNK}x{T}>
    }
    gpu.return
  }
}
