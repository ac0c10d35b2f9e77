// A depthwise 2-D convolution of channels-first buffers (depthwise): output
// plane (n, m) of y[N, M, OH, OW] reads input plane (n, m / MULT) of x[N, C, H, W]
// (M = C * MULT) through the filter w[m, 0, :, :], accumulated in f32, then the fused
// epilogue and the rounding to the output type.
//
// A CTA computes a TILE_H x TILE_W tile of output positions of PLANES consecutive output
// planes (several planes when one tile covers a whole small plane). It first stages the
// input the tile reads, IN_TH x IN_TW elements of each plane (the tile's rows and columns
// times the stride, plus the filter's halo), into shared memory as f32, zero outside the
// input (the padding): consecutive threads load consecutive elements of a row, each input
// element is read from DRAM about once. Then each thread computes Q consecutive outputs of
// one row of the tile: for each filter row it reads the COLS = (Q - 1) * SW + (KW - 1) * DW
// + 1 staged columns its outputs need with one vector load (COLS_LOAD elements, aligned to
// LOAD_ALIGN bytes; the row pitch PITCH leaves room for them) and adds each, times the tap's
// weight (KH * KW scalars in registers), to the outputs that read it. The loops marked
// `unroll` are unrolled when the template is instantiated.
//
// Index arithmetic is 32-bit (the pass checks that every buffer has fewer than 2^31
// elements). Placeholders (in braces): MODULE, ENTRY, T, OUT, the problem's C H W M MULT OH
// OW KH KW SH SW DH DW PAD_TOP PAD_LEFT, PLANES_TOTAL (= N * M), the configuration's
// TILE_H Q PLANES THREADS TPR (threads a tile row: TILE_W / Q) TPP (threads a plane:
// TPR * TILE_H), TILE_W, TILES_W, TILES (tiles a plane), IN_TH, IN_TW, IN_PLANE (= IN_TH *
// IN_TW), STAGED (= PLANES * IN_PLANE), STAGE_STEPS (= ceil(STAGED / THREADS)), PITCH,
// SMEM (= PLANES * IN_TH * PITCH, f32 elements), COLS, COLS_LOAD, LOAD_ALIGN, TAPS
// (= KH * KW), X_ELEMENTS, W_ELEMENTS, Y_ELEMENTS, Y_ALIGN (bytes: Q elements when OW is
// a multiple of Q, else one), EXTEND_X, EXTEND_W, and the epilogue's EPILOGUE_PARAMETERS,
// EPILOGUE, CONVERT and STORED (on vector<1xf32>), EPILOGUE_Q, CONVERT_Q and STORED_Q (on
// vector<Qxf32>).
// Grid (TILES * ceil(PLANES_TOTAL / PLANES), 1, 1), block (THREADS, 1, 1); parameters: bare
// pointers to x, w, y, then the epilogue's inputs.

gpu.module @{MODULE} {
  gpu.func @{ENTRY}(%xPointer: memref<{T}>, %wPointer: memref<{T}>, %yPointer: memref<{OUT}>{EPILOGUE_PARAMETERS})
      workgroup(%staged : memref<{SMEM}xf32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: {THREADS}, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %threads = arith.constant {THREADS} : i32
    %tiles = arith.constant {TILES} : i32
    %tilesW = arith.constant {TILES_W} : i32
    %tileH = arith.constant {TILE_H} : i32
    %tileW = arith.constant {TILE_W} : i32
    %planes = arith.constant {PLANES} : i32
    %planesTotal = arith.constant {PLANES_TOTAL} : i32
    %c = arith.constant {C} : i32
    %h = arith.constant {H} : i32
    %w = arith.constant {W} : i32
    %m = arith.constant {M} : i32
    %mult = arith.constant {MULT} : i32
    %oh = arith.constant {OH} : i32
    %ow = arith.constant {OW} : i32
    %sh = arith.constant {SH} : i32
    %sw = arith.constant {SW} : i32
    %dh = arith.constant {DH} : i32
    %dw = arith.constant {DW} : i32
    %kw = arith.constant {KW} : i32
    %taps = arith.constant {TAPS} : i32
    %padTop = arith.constant {PAD_TOP} : i32
    %padLeft = arith.constant {PAD_LEFT} : i32
    %inTw = arith.constant {IN_TW} : i32
    %inTh = arith.constant {IN_TH} : i32
    %inPlane = arith.constant {IN_PLANE} : i32
    %stagedCount = arith.constant {STAGED} : i32
    %pitch = arith.constant {PITCH} : i32
    %tpr = arith.constant {TPR} : i32
    %tpp = arith.constant {TPP} : i32
    %q = arith.constant {Q} : i32
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %stageSteps = arith.constant {STAGE_STEPS} : index
    %khIndex = arith.constant {KH} : index
    %kwIndex = arith.constant {KW} : index
    %tapsIndex = arith.constant {TAPS} : index
    %qIndex = arith.constant {Q} : index
    %colsIndex = arith.constant {COLS} : index
    %zero = arith.constant 0.0 : f32
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
    // block = planeGroup * TILES + tileH * TILES_W + tileW.
    %tile = arith.remui %block, %tiles : i32
    %planeGroup = arith.divui %block, %tiles : i32
    %tileColumn = arith.remui %tile, %tilesW : i32
    %tileRow = arith.divui %tile, %tilesW : i32
    %outRow0 = arith.muli %tileRow, %tileH : i32
    %outColumn0 = arith.muli %tileColumn, %tileW : i32
    %plane0 = arith.muli %planeGroup, %planes : i32
    %rowStart = arith.muli %outRow0, %sh : i32
    %top = arith.subi %rowStart, %padTop : i32
    %columnStart = arith.muli %outColumn0, %sw : i32
    %left = arith.subi %columnStart, %padLeft : i32

    // Stage the input tiles (with their halo) as f32.
    scf.for %step = %i0 to %stageSteps step %i1 {
      %stepI32 = arith.index_castui %step : index to i32
      %stepFirst = arith.muli %stepI32, %threads : i32
      %e = arith.addi %stepFirst, %tid : i32
      %inStage = arith.cmpi ult, %e, %stagedCount : i32
      scf.if %inStage {
        %localPlane = arith.divui %e, %inPlane : i32
        %inTile = arith.remui %e, %inPlane : i32
        %row = arith.divui %inTile, %inTw : i32
        %column = arith.remui %inTile, %inTw : i32
        %plane = arith.addi %plane0, %localPlane : i32
        %inRow = arith.addi %top, %row : i32
        %inColumn = arith.addi %left, %column : i32
        %planeOk = arith.cmpi ult, %plane, %planesTotal : i32
        %rowLow = arith.cmpi sge, %inRow, %c0 : i32
        %rowHigh = arith.cmpi slt, %inRow, %h : i32
        %columnLow = arith.cmpi sge, %inColumn, %c0 : i32
        %columnHigh = arith.cmpi slt, %inColumn, %w : i32
        %rowOk = arith.andi %rowLow, %rowHigh : i1
        %columnOk = arith.andi %columnLow, %columnHigh : i1
        %positionOk = arith.andi %rowOk, %columnOk : i1
        %ok = arith.andi %positionOk, %planeOk : i1
        %value = scf.if %ok -> (f32) {
          // Output plane (n, mo) reads input plane (n, mo / MULT).
          %image = arith.divui %plane, %m : i32
          %outChannel = arith.remui %plane, %m : i32
          %inChannel = arith.divui %outChannel, %mult : i32
          %imageChannels = arith.muli %image, %c : i32
          %inputPlane = arith.addi %imageChannels, %inChannel : i32
          %planeRows = arith.muli %inputPlane, %h : i32
          %inputRow = arith.addi %planeRows, %inRow : i32
          %rowElements = arith.muli %inputRow, %w : i32
          %xOffset = arith.addi %rowElements, %inColumn : i32
          %xIndex = arith.index_castui %xOffset : i32 to index
          %{X_RAW} = memref.load %x[%xIndex] : memref<{X_ELEMENTS}x{T}>
          {EXTEND_X}
          scf.yield %xLoaded : f32
        } else {
          scf.yield %zero : f32
        }
        %stagedRow0 = arith.muli %localPlane, %inTh : i32
        %stagedRow = arith.addi %stagedRow0, %row : i32
        %stagedRowStart = arith.muli %stagedRow, %pitch : i32
        %stagedAt = arith.addi %stagedRowStart, %column : i32
        %stagedIndex = arith.index_castui %stagedAt : i32 to index
        memref.store %value, %staged[%stagedIndex] : memref<{SMEM}xf32, #gpu.address_space<workgroup>>
      }
    } {unroll}
    gpu.barrier

    // This thread's Q outputs: plane tid / TPP of the CTA, tile row (tid % TPP) / TPR,
    // columns Q * (tid % TPR) ...
    %localPlane = arith.divui %tid, %tpp : i32
    %inPlaneThread = arith.remui %tid, %tpp : i32
    %localRow = arith.divui %inPlaneThread, %tpr : i32
    %columnGroup = arith.remui %inPlaneThread, %tpr : i32
    %plane = arith.addi %plane0, %localPlane : i32
    %outRow = arith.addi %outRow0, %localRow : i32
    %localColumn = arith.muli %columnGroup, %q : i32
    %outColumnFirst = arith.addi %outColumn0, %localColumn : i32
    %planeOk = arith.cmpi ult, %plane, %planesTotal : i32
    %rowOk = arith.cmpi ult, %outRow, %oh : i32
    %live = arith.andi %planeOk, %rowOk : i1
    scf.if %live {
      %outChannel = arith.remui %plane, %m : i32
      // The plane's filter: KH * KW scalars.
      %filterStart = arith.muli %outChannel, %taps : i32
      %zeroTaps = arith.constant dense<0.0> : vector<{TAPS}xf32>
      %filter = scf.for %k = %i0 to %tapsIndex step %i1 iter_args(%f = %zeroTaps) -> (vector<{TAPS}xf32>) {
        %kI32 = arith.index_castui %k : index to i32
        %wOffset = arith.addi %filterStart, %kI32 : i32
        %wIndex = arith.index_castui %wOffset : i32 to index
        %{W_RAW} = memref.load %wt[%wIndex] : memref<{W_ELEMENTS}x{T}>
        {EXTEND_W}
        %fNext = vector.insert %wWide, %f[%k] : f32 into vector<{TAPS}xf32>
        scf.yield %fNext : vector<{TAPS}xf32>
      } {unroll}
      %stagedPlaneRow = arith.muli %localPlane, %inTh : i32
      %localRowStart = arith.muli %localRow, %sh : i32
      %stagedTop = arith.addi %stagedPlaneRow, %localRowStart : i32
      %stagedLeft = arith.muli %localColumn, %sw : i32
      %zeroAcc = arith.constant dense<0.0> : vector<{Q}xf32>
      %acc = scf.for %r = %i0 to %khIndex step %i1 iter_args(%accR = %zeroAcc) -> (vector<{Q}xf32>) {
        %rI32 = arith.index_castui %r : index to i32
        %rOffset = arith.muli %rI32, %dh : i32
        %sRow = arith.addi %stagedTop, %rOffset : i32
        %sRowStart = arith.muli %sRow, %pitch : i32
        %sAt = arith.addi %sRowStart, %stagedLeft : i32
        %sIndex = arith.index_castui %sAt : i32 to index
        %columns = vector.load %staged[%sIndex] {alignment = {LOAD_ALIGN}} : memref<{SMEM}xf32, #gpu.address_space<workgroup>>, vector<{COLS_LOAD}xf32>
        %accCols = scf.for %j = %i0 to %colsIndex step %i1 iter_args(%accJ = %accR) -> (vector<{Q}xf32>) {
          %jI32 = arith.index_castui %j : index to i32
          %xj = vector.extract %columns[%j] : f32 from vector<{COLS_LOAD}xf32>
          // Every output qq whose tap s reads column j: qq * SW + s * DW == j.
          %accQ = scf.for %qq = %i0 to %qIndex step %i1 iter_args(%accA = %accJ) -> (vector<{Q}xf32>) {
            %qqI32 = arith.index_castui %qq : index to i32
            %qColumn = arith.muli %qqI32, %sw : i32
            %accS = scf.for %s = %i0 to %kwIndex step %i1 iter_args(%accT = %accA) -> (vector<{Q}xf32>) {
              %sI32 = arith.index_castui %s : index to i32
              %sColumn = arith.muli %sI32, %dw : i32
              %column = arith.addi %qColumn, %sColumn : i32
              %hit = arith.cmpi eq, %column, %jI32 : i32
              %accHit = scf.if %hit -> (vector<{Q}xf32>) {
                %tapRow = arith.muli %rI32, %kw : i32
                %tap = arith.addi %tapRow, %sI32 : i32
                %tapIndex = arith.index_castui %tap : i32 to index
                %weight = vector.extract %filter[%tapIndex] : f32 from vector<{TAPS}xf32>
                %sum = vector.extract %accT[%qq] : f32 from vector<{Q}xf32>
                %product = arith.mulf %xj, %weight fastmath<contract> : f32
                %fma = arith.addf %sum, %product fastmath<contract> : f32
                %accFma = vector.insert %fma, %accT[%qq] : f32 into vector<{Q}xf32>
                scf.yield %accFma : vector<{Q}xf32>
              } else {
                scf.yield %accT : vector<{Q}xf32>
              }
              scf.yield %accHit : vector<{Q}xf32>
            } {unroll}
            scf.yield %accS : vector<{Q}xf32>
          } {unroll}
          scf.yield %accQ : vector<{Q}xf32>
        } {unroll}
        scf.yield %accCols : vector<{Q}xf32>
      } {unroll}

      // The outputs that lie inside the plane's row: epilogue, rounding, store. All Q
      // inside: one vector store (consecutive threads store consecutive vectors, so a
      // warp's stores are contiguous); else one store an output.
      %planeRows = arith.muli %plane, %oh : i32
      %yRow = arith.addi %planeRows, %outRow : i32
      %yRowStart = arith.muli %yRow, %ow : i32
      %channelIndex = arith.index_castui %outChannel : i32 to index
      %outColumnEnd = arith.addi %outColumnFirst, %q : i32
      %allInside = arith.cmpi sle, %outColumnEnd, %ow : i32
      scf.if %allInside {
        %yOffset = arith.addi %yRowStart, %outColumnFirst : i32
        %yIndex = arith.index_castui %yOffset : i32 to index
        {EPILOGUE_Q}
        {CONVERT_Q}
        vector.store {STORED_Q}, %y[%yIndex] {alignment = {Y_ALIGN}} : memref<{Y_ELEMENTS}x{OUT}>, vector<{Q}x{OUT}>
      } else {
        scf.for %qq = %i0 to %qIndex step %i1 {
          %qqI32 = arith.index_castui %qq : index to i32
          %outColumn = arith.addi %outColumnFirst, %qqI32 : i32
          %columnOk = arith.cmpi slt, %outColumn, %ow : i32
          scf.if %columnOk {
            %sumQ = vector.extract %acc[%qq] : f32 from vector<{Q}xf32>
            %value = vector.broadcast %sumQ : f32 to vector<1xf32>
            %yOffset = arith.addi %yRowStart, %outColumn : i32
            %yIndex = arith.index_castui %yOffset : i32 to index
            {EPILOGUE}
            {CONVERT}
            vector.store {STORED}, %y[%yIndex] : memref<{Y_ELEMENTS}x{OUT}>, vector<1x{OUT}>
          }
        } {unroll}
      }
    }
    gpu.return
  }
}
