// A depthwise 2-D convolution of channels-last buffers (depthwise): output
// channel m of y[N, OH, OW, M] reads input channel m / MULT of x[N, H, W, C] (M = C * MULT)
// through its own KH x KW filter, accumulated in f32, then the fused epilogue and the
// rounding to the output type.
//
// One thread computes V consecutive output channels (one 16-byte vector for MULT = 1: 8
// f16/bf16 or 4 f32) of P consecutive output columns of one output row. Consecutive
// threads take consecutive channel groups, then the next P columns, so a warp's loads of
// one input pixel are contiguous. For each filter row the thread loads each of the COLS
// = (P - 1) * SW + (KW - 1) * DW + 1 input columns its P outputs read once (zero outside
// the input: the padding) and adds it, times the tap's weights, to every output that reads
// it; the filter row's KW weight vectors are loaded once per row (the weight is repacked
// at compile time as [KH, KW, M], so they are contiguous). The loops marked `unroll` are
// unrolled when the template is instantiated, so the accumulators and weights live in
// registers and the `arith.cmpi eq` tests that pair columns with outputs fold away.
//
// Index arithmetic is 32-bit (the pass checks that every buffer has fewer than 2^31
// elements). Placeholders (in braces): MODULE, ENTRY, T (input and weight type), OUT
// (output type), V, P, THREADS, the problem's N H W C M MULT OH OW KH KW SH SW DH DW
// PAD_TOP PAD_LEFT, CG (= M / V), OWB (= ceil(OW / P)), TOTAL (= N * OH * OWB * CG), COLS,
// X_ELEMENTS, W_ELEMENTS, Y_ELEMENTS, X_ALIGN, W_ALIGN, Y_ALIGN (bytes), X_RAW, W_RAW,
// EXTEND_X, EXTEND_W (the loaded vectors' names and their widening to f32, none for f32),
// and the epilogue's EPILOGUE_PARAMETERS, EPILOGUE (a marker op
// the pass replaces), CONVERT and STORED.
// Grid (ceil(TOTAL / THREADS), 1, 1), block (THREADS, 1, 1); parameters: bare pointers to
// x, the repacked weight, y, then the epilogue's inputs.

gpu.module @{MODULE} {
  gpu.func @{ENTRY}(%xPointer: memref<{T}>, %wPointer: memref<{T}>, %yPointer: memref<{OUT}>{EPILOGUE_PARAMETERS})
      kernel attributes {known_block_size = array<i32: {THREADS}, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %threads = arith.constant {THREADS} : i32
    %total = arith.constant {TOTAL} : i32
    %cg = arith.constant {CG} : i32
    %owb = arith.constant {OWB} : i32
    %oh = arith.constant {OH} : i32
    %ow = arith.constant {OW} : i32
    %h = arith.constant {H} : i32
    %w = arith.constant {W} : i32
    %c = arith.constant {C} : i32
    %m = arith.constant {M} : i32
    %mult = arith.constant {MULT} : i32
    %v = arith.constant {V} : i32
    %p = arith.constant {P} : i32
    %kw = arith.constant {KW} : i32
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
    %wt = memref.reinterpret_cast %wPointer to offset: [0], sizes: [{W_ELEMENTS}], strides: [1]
        : memref<{T}> to memref<{W_ELEMENTS}x{T}>
    %y = memref.reinterpret_cast %yPointer to offset: [0], sizes: [{Y_ELEMENTS}], strides: [1]
        : memref<{OUT}> to memref<{Y_ELEMENTS}x{OUT}>

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
      %inChannel = arith.divui %channel, %mult : i32
      %outColumn0 = arith.muli %columnBlock, %p : i32
      %rowStart = arith.muli %outRow, %sh : i32
      %top = arith.subi %rowStart, %padTop : i32
      %columnStart = arith.muli %outColumn0, %sw : i32
      %left = arith.subi %columnStart, %padLeft : i32
      %imageRows = arith.muli %image, %h : i32
      %zeroV = arith.constant dense<0.0> : vector<{V}xf32>
      %zeroAcc = arith.constant dense<0.0> : vector<{P}x{V}xf32>
      %zeroW = arith.constant dense<0.0> : vector<{KW}x{V}xf32>

      %acc = scf.for %r = %i0 to %khIndex step %i1 iter_args(%accR = %zeroAcc) -> (vector<{P}x{V}xf32>) {
        %rI32 = arith.index_castui %r : index to i32
        %rOffset = arith.muli %rI32, %dh : i32
        %inRow = arith.addi %top, %rOffset : i32
        %rowLow = arith.cmpi sge, %inRow, %c0 : i32
        %rowHigh = arith.cmpi slt, %inRow, %h : i32
        %rowOk = arith.andi %rowLow, %rowHigh : i1
        %accNext = scf.if %rowOk -> (vector<{P}x{V}xf32>) {
          // The filter row's weights: KW vectors of V channels.
          %weights = scf.for %s = %i0 to %kwIndex step %i1 iter_args(%ws = %zeroW) -> (vector<{KW}x{V}xf32>) {
            %sI32 = arith.index_castui %s : index to i32
            %tapRow = arith.muli %rI32, %kw : i32
            %tap = arith.addi %tapRow, %sI32 : i32
            %tapChannels = arith.muli %tap, %m : i32
            %wOffset = arith.addi %tapChannels, %channel : i32
            %wIndex = arith.index_castui %wOffset : i32 to index
            %{W_RAW} = vector.load %wt[%wIndex] {alignment = {W_ALIGN}} : memref<{W_ELEMENTS}x{T}>, vector<{V}x{T}>
            {EXTEND_W}
            %wsNext = vector.insert %wWide, %ws[%s] : vector<{V}xf32> into vector<{KW}x{V}xf32>
            scf.yield %wsNext : vector<{KW}x{V}xf32>
          } {unroll}
          %inputRow = arith.addi %imageRows, %inRow : i32
          %rowPixels = arith.muli %inputRow, %w : i32
          %accCols = scf.for %j = %i0 to %colsIndex step %i1 iter_args(%accJ = %accR) -> (vector<{P}x{V}xf32>) {
            %jI32 = arith.index_castui %j : index to i32
            %inColumn = arith.addi %left, %jI32 : i32
            %columnLow = arith.cmpi sge, %inColumn, %c0 : i32
            %columnHigh = arith.cmpi slt, %inColumn, %w : i32
            %columnOk = arith.andi %columnLow, %columnHigh : i1
            %xWide = scf.if %columnOk -> (vector<{V}xf32>) {
              %pixel = arith.addi %rowPixels, %inColumn : i32
              %pixelChannels = arith.muli %pixel, %c : i32
              %xOffset = arith.addi %pixelChannels, %inChannel : i32
              %xIndex = arith.index_castui %xOffset : i32 to index
              %{X_RAW} = vector.load %x[%xIndex] {alignment = {X_ALIGN}} : memref<{X_ELEMENTS}x{T}>, vector<{V}x{T}>
              {EXTEND_X}
              scf.yield %xLoaded : vector<{V}xf32>
            } else {
              scf.yield %zeroV : vector<{V}xf32>
            }
            // Every output p whose tap s reads column j: p * SW + s * DW == j (decided
            // when the loops are unrolled).
            %accP = scf.for %pp = %i0 to %pIndex step %i1 iter_args(%accQ = %accJ) -> (vector<{P}x{V}xf32>) {
              %ppI32 = arith.index_castui %pp : index to i32
              %pColumn = arith.muli %ppI32, %sw : i32
              %accS = scf.for %s = %i0 to %kwIndex step %i1 iter_args(%accT = %accQ) -> (vector<{P}x{V}xf32>) {
                %sI32 = arith.index_castui %s : index to i32
                %sColumn = arith.muli %sI32, %dw : i32
                %column = arith.addi %pColumn, %sColumn : i32
                %hit = arith.cmpi eq, %column, %jI32 : i32
                %accHit = scf.if %hit -> (vector<{P}x{V}xf32>) {
                  %tapWeights = vector.extract %weights[%s] : vector<{V}xf32> from vector<{KW}x{V}xf32>
                  %sum = vector.extract %accT[%pp] : vector<{V}xf32> from vector<{P}x{V}xf32>
                  %fma = vector.fma %xWide, %tapWeights, %sum : vector<{V}xf32>
                  %accFma = vector.insert %fma, %accT[%pp] : vector<{V}xf32> into vector<{P}x{V}xf32>
                  scf.yield %accFma : vector<{P}x{V}xf32>
                } else {
                  scf.yield %accT : vector<{P}x{V}xf32>
                }
                scf.yield %accHit : vector<{P}x{V}xf32>
              } {unroll}
              scf.yield %accS : vector<{P}x{V}xf32>
            } {unroll}
            scf.yield %accP : vector<{P}x{V}xf32>
          } {unroll}
          scf.yield %accCols : vector<{P}x{V}xf32>
        } else {
          scf.yield %accR : vector<{P}x{V}xf32>
        }
        scf.yield %accNext : vector<{P}x{V}xf32>
      } {unroll}

      // The P outputs that lie inside the output row: epilogue, rounding, one vector store.
      %outImageRow0 = arith.muli %image, %oh : i32
      %outImageRow = arith.addi %outImageRow0, %outRow : i32
      %outRowPixels = arith.muli %outImageRow, %ow : i32
      %channelIndex = arith.index_castui %channel : i32 to index
      scf.for %pp = %i0 to %pIndex step %i1 {
        %ppI32 = arith.index_castui %pp : index to i32
        %outColumn = arith.addi %outColumn0, %ppI32 : i32
        %columnOk = arith.cmpi slt, %outColumn, %ow : i32
        scf.if %columnOk {
          %value = vector.extract %acc[%pp] : vector<{V}xf32> from vector<{P}x{V}xf32>
          %outPixel = arith.addi %outRowPixels, %outColumn : i32
          %outPixelChannels = arith.muli %outPixel, %m : i32
          %yOffset = arith.addi %outPixelChannels, %channel : i32
          %yIndex = arith.index_castui %yOffset : i32 to index
          {EPILOGUE}
          {CONVERT}
          vector.store {STORED}, %y[%yIndex] {alignment = {Y_ALIGN}} : memref<{Y_ELEMENTS}x{OUT}>, vector<{V}x{OUT}>
        }
      } {unroll}
    }
    gpu.return
  }
}
