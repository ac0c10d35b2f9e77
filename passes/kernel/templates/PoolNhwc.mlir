// A 2-D max pool of channels-last buffers (pool_nhwc): y[n, oh, ow, c] is the
// largest x[n, oh * SH - PAD_TOP + r * DH, ow * SW - PAD_LEFT + s * DW, c] over the
// KH x KW window's elements inside the input (the padding never wins, as in ONNX).
//
// One thread computes V consecutive channels (one 16-byte vector) of P consecutive output
// columns of one output row. Consecutive threads take consecutive channel groups, then the
// next P columns, so a warp's loads of one input pixel are contiguous. For each window row
// the thread loads each of the COLS = (P - 1) * SW + (KW - 1) * DW + 1 input columns its
// P outputs read once and takes it into the maximum of every output that reads it. The
// loops marked `unroll` are unrolled when the template is instantiated, so the P maxima
// live in registers and the `arith.cmpi eq` tests that pair columns with outputs fold
// away. The maxima are exact, taken in A: T itself for floats (MAX is arith.maximumf,
// which propagates NaN); for i8, 16-bit lanes holding each byte in their upper half
// (WIDEN, as it is loaded: a byte shuffle with zeros), whose arith.maxsi becomes
// max.s16x2, two bytes an instruction where NVPTX has no byte maxima (it took each byte
// apart: three instructions a byte), and NARROW takes the upper bytes back to store.
//
// Index arithmetic is 32-bit (the pass checks that both buffers have fewer than 2^31
// elements). Placeholders (in braces): MODULE, ENTRY, T, A, V, P, MAX, LOWEST (A's lowest
// value: -inf, or -128 x 256), WIDEN (%widened, vector<V x A>, from %loaded) and NARROW
// (%narrowed, vector<V x T>, from %value), the problem's H W C OH OW KH KW SH SW DH DW PAD_TOP PAD_LEFT,
// CG (= C / V), OWB (= ceil(OW / P)), PER_IMAGE (= OH * OWB * CG, the threads of an
// image), COLS, X_ELEMENTS, Y_ELEMENTS (at the largest batch N) and ALIGN (the bytes of V
// elements, 16).
// Grid (ceil(N * PER_IMAGE / 256), 1, 1), block (256, 1, 1); parameters: bare pointers to
// x and y, and the batch N (a dynamic engine's is known at run time only).

gpu.module @{MODULE} {
  gpu.func @{ENTRY}(%xPointer: memref<{T}>, %yPointer: memref<{T}>, %images: i32)
      kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %threads = arith.constant 256 : i32
    %perImage = arith.constant {PER_IMAGE} : i32
    %total = arith.muli %images, %perImage : i32
    %cg = arith.constant {CG} : i32
    %owb = arith.constant {OWB} : i32
    %oh = arith.constant {OH} : i32
    %ow = arith.constant {OW} : i32
    %h = arith.constant {H} : i32
    %w = arith.constant {W} : i32
    %c = arith.constant {C} : i32
    %v = arith.constant {V} : i32
    %p = arith.constant {P} : i32
    %sh = arith.constant {SH} : i32
    %sw = arith.constant {SW} : i32
    %dh = arith.constant {DH} : i32
    %dw = arith.constant {DW} : i32
    %padTop = arith.constant {PAD_TOP} : i32
    %padLeft = arith.constant {PAD_LEFT} : i32
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %kwIndex = arith.constant {KW} : index
    %khIndex = arith.constant {KH} : index
    %pIndex = arith.constant {P} : index
    %colsIndex = arith.constant {COLS} : index
    %x = memref.reinterpret_cast %xPointer to offset: [0], sizes: [{X_ELEMENTS}], strides: [1]
        : memref<{T}> to memref<{X_ELEMENTS}x{T}>
    %y = memref.reinterpret_cast %yPointer to offset: [0], sizes: [{Y_ELEMENTS}], strides: [1]
        : memref<{T}> to memref<{Y_ELEMENTS}x{T}>

    %blockIndex = gpu.block_id x
    %tidIndex = gpu.thread_id x
    %block = arith.index_castui %blockIndex : index to i32
    %tid = arith.index_castui %tidIndex : index to i32
    %blockFirst = arith.muli %block, %threads : i32
    %t = arith.addi %blockFirst, %tid : i32
    %inside = arith.cmpi ult, %t, %total : i32
    scf.if %inside {
      // t = ((n * OH + oh) * OWB + owb) * CG + cg.
      %group = arith.remui %t, %cg : i32
      %q0 = arith.divui %t, %cg : i32
      %columnBlock = arith.remui %q0, %owb : i32
      %q1 = arith.divui %q0, %owb : i32
      %outRow = arith.remui %q1, %oh : i32
      %image = arith.divui %q1, %oh : i32
      %channel = arith.muli %group, %v : i32
      %outColumn0 = arith.muli %columnBlock, %p : i32
      %rowStart = arith.muli %outRow, %sh : i32
      %top = arith.subi %rowStart, %padTop : i32
      %columnStart = arith.muli %outColumn0, %sw : i32
      %left = arith.subi %columnStart, %padLeft : i32
      %imageRows = arith.muli %image, %h : i32
      %lowest = arith.constant dense<{LOWEST}> : vector<{V}x{A}>
      %lowestAll = arith.constant dense<{LOWEST}> : vector<{P}x{V}x{A}>

      %max = scf.for %r = %i0 to %khIndex step %i1 iter_args(%maxR = %lowestAll) -> (vector<{P}x{V}x{A}>) {
        %rI32 = arith.index_castui %r : index to i32
        %rOffset = arith.muli %rI32, %dh : i32
        %inRow = arith.addi %top, %rOffset : i32
        %rowLow = arith.cmpi sge, %inRow, %c0 : i32
        %rowHigh = arith.cmpi slt, %inRow, %h : i32
        %rowOk = arith.andi %rowLow, %rowHigh : i1
        %maxNext = scf.if %rowOk -> (vector<{P}x{V}x{A}>) {
          %inputRow = arith.addi %imageRows, %inRow : i32
          %rowPixels = arith.muli %inputRow, %w : i32
          %maxCols = scf.for %j = %i0 to %colsIndex step %i1 iter_args(%maxJ = %maxR) -> (vector<{P}x{V}x{A}>) {
            %jI32 = arith.index_castui %j : index to i32
            %inColumn = arith.addi %left, %jI32 : i32
            %columnLow = arith.cmpi sge, %inColumn, %c0 : i32
            %columnHigh = arith.cmpi slt, %inColumn, %w : i32
            %columnOk = arith.andi %columnLow, %columnHigh : i1
            %xv = scf.if %columnOk -> (vector<{V}x{A}>) {
              %pixel = arith.addi %rowPixels, %inColumn : i32
              %pixelChannels = arith.muli %pixel, %c : i32
              %xOffset = arith.addi %pixelChannels, %channel : i32
              %xIndex = arith.index_castui %xOffset : i32 to index
              %loaded = vector.load %x[%xIndex] {alignment = {ALIGN}} : memref<{X_ELEMENTS}x{T}>, vector<{V}x{T}>
{WIDEN}
              scf.yield %widened : vector<{V}x{A}>
            } else {
              scf.yield %lowest : vector<{V}x{A}>
            }
            // Every output p whose tap s reads column j: p * SW + s * DW == j (decided
            // when the loops are unrolled).
            %maxP = scf.for %pp = %i0 to %pIndex step %i1 iter_args(%maxQ = %maxJ) -> (vector<{P}x{V}x{A}>) {
              %ppI32 = arith.index_castui %pp : index to i32
              %pColumn = arith.muli %ppI32, %sw : i32
              %maxS = scf.for %s = %i0 to %kwIndex step %i1 iter_args(%maxT = %maxQ) -> (vector<{P}x{V}x{A}>) {
                %sI32 = arith.index_castui %s : index to i32
                %sColumn = arith.muli %sI32, %dw : i32
                %column = arith.addi %pColumn, %sColumn : i32
                %hit = arith.cmpi eq, %column, %jI32 : i32
                %maxHit = scf.if %hit -> (vector<{P}x{V}x{A}>) {
                  %old = vector.extract %maxT[%pp] : vector<{V}x{A}> from vector<{P}x{V}x{A}>
                  %new = {MAX} %old, %xv : vector<{V}x{A}>
                  %maxNew = vector.insert %new, %maxT[%pp] : vector<{V}x{A}> into vector<{P}x{V}x{A}>
                  scf.yield %maxNew : vector<{P}x{V}x{A}>
                } else {
                  scf.yield %maxT : vector<{P}x{V}x{A}>
                }
                scf.yield %maxHit : vector<{P}x{V}x{A}>
              } {unroll}
              scf.yield %maxS : vector<{P}x{V}x{A}>
            } {unroll}
            scf.yield %maxP : vector<{P}x{V}x{A}>
          } {unroll}
          scf.yield %maxCols : vector<{P}x{V}x{A}>
        } else {
          scf.yield %maxR : vector<{P}x{V}x{A}>
        }
        scf.yield %maxNext : vector<{P}x{V}x{A}>
      } {unroll}

      // The P outputs that lie inside the output row: one vector store each.
      %outImageRow0 = arith.muli %image, %oh : i32
      %outImageRow = arith.addi %outImageRow0, %outRow : i32
      %outRowPixels = arith.muli %outImageRow, %ow : i32
      scf.for %pp = %i0 to %pIndex step %i1 {
        %ppI32 = arith.index_castui %pp : index to i32
        %outColumn = arith.addi %outColumn0, %ppI32 : i32
        %columnOk = arith.cmpi slt, %outColumn, %ow : i32
        scf.if %columnOk {
          %value = vector.extract %max[%pp] : vector<{V}x{A}> from vector<{P}x{V}x{A}>
{NARROW}
          %outPixel = arith.addi %outRowPixels, %outColumn : i32
          %outPixelChannels = arith.muli %outPixel, %c : i32
          %yOffset = arith.addi %outPixelChannels, %channel : i32
          %yIndex = arith.index_castui %yOffset : i32 to index
          vector.store %narrowed, %y[%yIndex] {alignment = {ALIGN}} : memref<{Y_ELEMENTS}x{T}>, vector<{V}x{T}>
        }
      } {unroll}
    }
    gpu.return
  }
}
