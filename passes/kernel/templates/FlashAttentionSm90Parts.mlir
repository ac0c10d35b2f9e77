// Parts shared by the Hopper flash-attention kernels (FlashAttentionSm90.mlir, whose
// copies are cp.async by every thread, and FlashAttentionSm90Tma.mlir, whose producer
// warpgroup loads by TMA): what a consumer warpgroup does with the scores. Each part
// starts at a line "// @@ NAME" and is substituted for the placeholder {NAME} of those
// templates before their own placeholders; it reads the SSA values they define under
// the names used here (docs/codegen-attention.md).
//
// MASK_SETUP: the mask's addressing for this (batch, head), and whether it is read in
//   column pairs. ROW_SETUP: this thread's query rows and the softmax's units, the
//   loop's initial values. ONLINE_SOFTMAX: from S = Q K^T of tile j (%sAcc) to P
//   (%pOut#0), the new running maximum and sums (%mNew, %lNew) and alpha (%alpha), the
//   factor of what was accumulated. RESCALE_O: O (%oAcc) rescaled by alpha (%oScaled).
//   INVERSE_L: 1 / l of the loop's row sums (L_FINAL) for this thread's two rows
//   (%invAV, %invBV), and those rows in a shared tile of the CTA's (%rowSA, %rowSB).
//   O_TO_SHARED: n8 tiles {O_E0} .. {O_E1} - 1 of O / l (O_FINAL), rounded, written into
//   this thread's rows of the shared tile {O_BUF} (of type {O_BUF_TYPE}, atom {O_A0} of O
//   at its atom 0). O_ROUND (the TMA form's epilogue, one copy a round, {R} its number):
//   n8 tiles {E0} .. {E1} - 1 of this consumer's O / l, from atom {A0} on, through its
//   rows of the staging buffer (%Stage) to its 16-byte chunks in global memory,
//   {ROUND_CHUNKS} a thread. WORK_ITEM (the TMA form's producer
//   and consumers both): work item %item's query block, (batch, head), K/V tiles and Q
//   buffer.
// @@ MASK_SETUP
    // The mask of this (batch, head): element (i, j) at %mBase + i * %mRow + j * %mCol.
    %maskAll = memref.reinterpret_cast %Mask to offset: [0], sizes: [1073741824], strides: [1]
      : memref<{MT}> to memref<1073741824x{MT}>
    %mBi = arith.index_castui %mB : i32 to index
    %mHi = arith.index_castui %mH : i32 to index
    // The row stride: %mQ, or 0 for a mask the same for every row (MASK_ROW).
    {MASK_ROW}
    %mCol = arith.index_castui %mK : i32 to index
    %mBase0 = arith.muli %b, %mBi : index
    %mBase1 = arith.muli %h, %mHi : index
    %mBase = arith.addi %mBase0, %mBase1 : index
    // The mask read a pair of columns at a time (the columns 2 t, 2 t + 1 this thread holds
    // in every n8 tile, one {MASK_PAIR_BYTES}-byte load) where its columns are contiguous,
    // every row starts at an even element and the buffer is aligned to a pair; otherwise,
    // and on a tile past Skv, one element at a time (address arithmetic and a clamp each).
    %maskAddr = memref.extract_aligned_pointer_as_index %Mask : memref<{MT}> -> index
    %cPair = arith.constant {MASK_PAIR_BYTES} : index
    %maskMis = arith.remui %maskAddr, %cPair : index
    %maskAligned = arith.cmpi eq, %maskMis, %c0 : index
    %mStarts = arith.ori %mBase, %mRow : index
    %mOdd = arith.andi %mStarts, %c1 : index
    %mEven = arith.cmpi eq, %mOdd, %c0 : index
    %mContig = arith.cmpi eq, %mCol, %c1 : index
    %mPair0 = arith.andi %maskAligned, %mEven : i1
    %mPair1 = arith.andi %mPair0, %mContig : i1
    %maskPairs = arith.andi %mPair1, %hasMask : i1
    %scalePair = vector.broadcast %scale : f32 to vector<2xf32>
    %fneg0Pair = arith.constant dense<-0.0> : vector<2xf32>
// @@ ROW_SETUP
    // This warp's rows of the CTA's: 16 warp .. 16 warp + 15 (warpgroup warp / 4, its
    // warp warp % 4). Q stays in shared memory: S = Q K^T reads it through %descQ.
    %qRow0 = arith.muli %warp, %c16 : index

    // This thread's rows of each 16-row score tile mt: g and g + 8 (row index r = 2 mt,
    // 2 mt + 1 of the per-row vectors).
    %rowBase0 = arith.addi %q0, %qRow0 : index
    %rowA = arith.addi %rowBase0, %g : index
    %t2 = arith.muli %t, %c2 : index
    // The softmax's units: with a mask, scores are s = qk * scale + mask and
    // p = exp2((s - m) * log2e); without, s = qk and p = exp2(s * c - m * c) with
    // c = scale * log2e (one fma).
    %scaleLog2 = arith.mulf %scale, %log2e : f32
    %factor = arith.select %hasMask, %log2e, %scaleLog2 : f32

    %o0 = arith.constant dense<0.0> : !oacc
    %m0 = arith.constant dense<0xFF800000> : !rows
    %z0 = arith.constant dense<0.0> : !rows
    // S = Q K^T ignores its accumulator's input (scale-d = 0 on the first k-step): poison
    // there, not zeros (64-128 moves an iteration).
    %sIn = ub.poison : !sacc
// @@ ONLINE_SOFTMAX
      // Mask the scores (the additive mask, columns past Skv, causal) where this tile
      // needs it: with a mask buffer, on the last tile when Skv is not a multiple of
      // {BKV}, and (causal) on tiles reaching past this warp's first row. Elsewhere the
      // per-element index tests are skipped.
      %kvEnd = arith.addi %kv0, %cBKV : index
      %tail = arith.cmpi ugt, %kvEnd, %skv : index
      %kvLastCol = arith.subi %kvEnd, %c1 : index
      %diag0 = arith.cmpi ugt, %kvLastCol, %rowBase0 : index
      %diag = arith.andi %diag0, %causal : i1
      %needs0 = arith.ori %tail, %diag : i1
      %needs = arith.ori %needs0, %hasMask : i1
      %wholeTile = arith.cmpi ule, %kvEnd, %skv : index
      %pairTile = arith.andi %wholeTile, %maskPairs : i1
      %maskedS = scf.if %needs -> (!sacc) {
        %masked = scf.if %pairTile -> (!sacc) {
          %pk = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%pv0 = %sAcc) -> (!sacc) {
            %pRows = arith.muli %mt, %c16 : index
            %pRowT = arith.addi %rowA, %pRows : index
            %perRow = scf.for %hi = %c0 to %c2 step %c1 iter_args(%pw0 = %pv0) -> (!sacc) {
              %pHiRow = arith.muli %hi, %c8 : index
              %pRow = arith.addi %pRowT, %pHiRow : index
              // Rows past Sq (the last query block) read row Sq - 1; their results are
              // never stored.
              %pr = arith.minui %pRow, %sqLast : index
              %pa0 = arith.muli %pr, %mRow : index
              %pa1 = arith.addi %pa0, %mBase : index
              %pa2 = arith.addi %pa1, %kv0 : index
              %pa = arith.addi %pa2, %t2 : index
              %perTile = scf.for %e = %c0 to %cNTS step %c1 iter_args(%pw = %pw0) -> (!sacc) {
                %pCol = arith.muli %e, %c8 : index
                %pma = arith.addi %pa, %pCol : index
                %mv = vector.load %maskAll[%pma] {alignment = {MASK_PAIR_BYTES}}
                  : memref<1073741824x{MT}>, vector<2x{MT}>
                %mf = {MASK_EXT_PAIR}
                %px = vector.extract %pw[%mt, %e, %hi] : vector<2xf32> from !sacc
                %py = math.fma %px, %scalePair, %mf : vector<2xf32>
                %pw2 = vector.insert %py, %pw[%mt, %e, %hi] : vector<2xf32> into !sacc
                scf.yield %pw2 : !sacc
              } {unroll}
              scf.yield %perTile : !sacc
            } {unroll}
            scf.yield %perRow : !sacc
          } {unroll}
          // Causal: the tiles reaching past this warp's first row mask the scores above the
          // diagonal.
          %pc = scf.if %diag -> (!sacc) {
            %cz = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%cv0 = %pk) -> (!sacc) {
              %cMtRows = arith.muli %mt, %c16 : index
              %cRowT = arith.addi %rowA, %cMtRows : index
              %cTiles = scf.for %e = %c0 to %cNTS step %c1 iter_args(%cv = %cv0) -> (!sacc) {
                %cCol0 = arith.muli %e, %c8 : index
                %cCol1 = arith.addi %kv0, %cCol0 : index
                %cColN = arith.addi %cCol1, %t2 : index
                %cInner = scf.for %q = %c0 to %c4 step %c1 iter_args(%cw = %cv) -> (!sacc) {
                  %chi = arith.divui %q, %c2 : index
                  %clo = arith.remui %q, %c2 : index
                  %cHiRow = arith.muli %chi, %c8 : index
                  %cRow = arith.addi %cRowT, %cHiRow : index
                  %cCol = arith.addi %cColN, %clo : index
                  %cx = vector.extract %cw[%mt, %e, %chi, %clo] : f32 from !sacc
                  %cAbove = arith.cmpi ugt, %cCol, %cRow : index
                  %cy = arith.select %cAbove, %ninf, %cx : f32
                  %cw2 = vector.insert %cy, %cw[%mt, %e, %chi, %clo] : f32 into !sacc
                  scf.yield %cw2 : !sacc
                } {unroll}
                scf.yield %cInner : !sacc
              } {unroll}
              scf.yield %cTiles : !sacc
            } {unroll}
            scf.yield %cz : !sacc
          } else {
            scf.yield %pk : !sacc
          }
          scf.yield %pc : !sacc
        } else {
          %mk = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%sv0 = %sAcc) -> (!sacc) {
            %mtRows = arith.muli %mt, %c16 : index
            %rowT = arith.addi %rowA, %mtRows : index
            %perTile = scf.for %e = %c0 to %cNTS step %c1 iter_args(%sv = %sv0) -> (!sacc) {
              %colN0 = arith.muli %e, %c8 : index
              %colN1 = arith.addi %kv0, %colN0 : index
              %colN = arith.addi %colN1, %t2 : index
              %inner = scf.for %q = %c0 to %c4 step %c1 iter_args(%sw = %sv) -> (!sacc) {
                %hi = arith.divui %q, %c2 : index
                %lo = arith.remui %q, %c2 : index
                %hiRow = arith.muli %hi, %c8 : index
                %row = arith.addi %rowT, %hiRow : index
                %col = arith.addi %colN, %lo : index
                %x = vector.extract %sw[%mt, %e, %hi, %lo] : f32 from !sacc
                %xm = scf.if %hasMask -> (f32) {
                  %mr = arith.minui %row, %sqLast : index
                  %mc = arith.minui %col, %skvLast : index
                  %ma0 = arith.muli %mr, %mRow : index
                  %ma1 = arith.muli %mc, %mCol : index
                  %ma2 = arith.addi %ma0, %ma1 : index
                  %ma = arith.addi %ma2, %mBase : index
                  %mv = memref.load %maskAll[%ma] : memref<1073741824x{MT}>
                  %mf = {MASK_EXT}
                  %y = math.fma %x, %scale, %mf : f32
                  scf.yield %y : f32
                } else {
                  scf.yield %x : f32
                }
                %outside = arith.cmpi uge, %col, %skv : index
                %above0 = arith.cmpi ugt, %col, %row : index
                %above = arith.andi %above0, %causal : i1
                %dead = arith.ori %outside, %above : i1
                %sv2 = arith.select %dead, %ninf, %xm : f32
                %sw2 = vector.insert %sv2, %sw[%mt, %e, %hi, %lo] : f32 into !sacc
                scf.yield %sw2 : !sacc
              } {unroll}
              scf.yield %inner : !sacc
            } {unroll}
            scf.yield %perTile : !sacc
          } {unroll}
          scf.yield %mk : !sacc
        }
        scf.yield %masked : !sacc
      } else {
        scf.yield %sAcc : !sacc
      }
      // The row maxima of this thread's columns (max.f32 through nvvm.fmax: arith.maxnumf
      // and maximumf lower to setp.nan, setp.le and three selp each, 5 instructions).
      // Four partial maxima a row (column pair parity x even/odd tile): chains a quarter
      // as long, so that the few warps of an SM hide their latency.
      %m4 = arith.constant dense<0xFF800000> : vector<4x{ROWS}xf32>
      %rowMax4 = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%mx0 = %m4)
          -> (vector<4x{ROWS}xf32>) {
        %r2 = arith.muli %mt, %c2 : index
        %perTile = scf.for %e = %c0 to %cNTS step %c1 iter_args(%mx = %mx0)
            -> (vector<4x{ROWS}xf32>) {
          %eOdd = arith.remui %e, %c2 : index
          %part0 = arith.muli %eOdd, %c2 : index
          %inner = scf.for %q = %c0 to %c4 step %c1 iter_args(%my = %mx)
              -> (vector<4x{ROWS}xf32>) {
            %hi = arith.divui %q, %c2 : index
            %lo = arith.remui %q, %c2 : index
            %r = arith.addi %r2, %hi : index
            %part = arith.addi %part0, %lo : index
            %sx = vector.extract %maskedS[%mt, %e, %hi, %lo] : f32 from !sacc
            %mo = vector.extract %my[%part, %r] : f32 from vector<4x{ROWS}xf32>
            %mn = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%mo, %sx) : (f32, f32) -> f32
            %my2 = vector.insert %mn, %my[%part, %r] : f32 into vector<4x{ROWS}xf32>
            scf.yield %my2 : vector<4x{ROWS}xf32>
          } {unroll}
          scf.yield %inner : vector<4x{ROWS}xf32>
        } {unroll}
        scf.yield %perTile : vector<4x{ROWS}xf32>
      } {unroll}
      %rowMax = scf.for %r = %c0 to %cRows step %c1 iter_args(%rm0 = %m0) -> (!rows) {
        %x0 = vector.extract %rowMax4[0, %r] : f32 from vector<4x{ROWS}xf32>
        %x1 = vector.extract %rowMax4[1, %r] : f32 from vector<4x{ROWS}xf32>
        %x2 = vector.extract %rowMax4[2, %r] : f32 from vector<4x{ROWS}xf32>
        %x3 = vector.extract %rowMax4[3, %r] : f32 from vector<4x{ROWS}xf32>
        %y0 = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%x0, %x1) : (f32, f32) -> f32
        %y1 = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%x2, %x3) : (f32, f32) -> f32
        %y = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%y0, %y1) : (f32, f32) -> f32
        %rm1 = vector.insert %y, %rm0[%r] : f32 into !rows
        scf.yield %rm1 : !rows
      } {unroll}

      // Row maxima over the quad of lanes sharing the rows; the running maximum, the
      // rescaling of what was accumulated (alpha) and exp2 offsets.
      %mxQ0 = scf.for %r = %c0 to %cRows step %c1 iter_args(%mv0 = %rowMax) -> (!rows) {
        %mx = vector.extract %mv0[%r] : f32 from !rows
        %s1, %v1 = gpu.shuffle xor %mx, %i1, %i32w : f32
        %mx1 = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%mx, %s1) : (f32, f32) -> f32
        %s2, %v2 = gpu.shuffle xor %mx1, %i2, %i32w : f32
        %mx2 = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%mx1, %s2) : (f32, f32) -> f32
        %mv1 = vector.insert %mx2, %mv0[%r] : f32 into !rows
        scf.yield %mv1 : !rows
      } {unroll}
      %mNew = scf.for %r = %c0 to %cRows step %c1 iter_args(%mv0 = %mxQ0) -> (!rows) {
        %ma = vector.extract %mRun[%r] : f32 from !rows
        %mb = vector.extract %mv0[%r] : f32 from !rows
        %mm = llvm.call_intrinsic "llvm.nvvm.fmax.f"(%ma, %mb) : (f32, f32) -> f32
        %mv1 = vector.insert %mm, %mv0[%r] : f32 into !rows
        scf.yield %mv1 : !rows
      } {unroll}
      // A row with nothing allowed so far has m = -inf: use 0 there (p and alpha are 0).
      %ninfV = vector.broadcast %ninf : f32 to !rows
      %isEmpty = arith.cmpf oeq, %mNew, %ninfV : !rows
      %mSafe = arith.select %isEmpty, %z0, %mNew : vector<{ROWS}xi1>, !rows
      %factorV = vector.broadcast %factor : f32 to !rows
      %mScaled = arith.mulf %mSafe, %factorV : !rows
      %alphaArg = scf.if %hasMask -> (!rows) {
        %dm = arith.subf %mRun, %mSafe : !rows
        %y = arith.mulf %dm, %factorV : !rows
        scf.yield %y : !rows
      } else {
        %ms = arith.mulf %mRun, %factorV : !rows
        %y = arith.subf %ms, %mScaled : !rows
        scf.yield %y : !rows
      }
      // exp2 as ex2.approx.ftz (one MUFU op; libdevice's exp2f adds denormal scaling).
      %alpha = scf.for %r = %c0 to %cRows step %c1 iter_args(%av = %alphaArg) -> (!rows) {
        %x = vector.extract %av[%r] : f32 from !rows
        %y = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%x) : (f32) -> f32
        %av2 = vector.insert %y, %av[%r] : f32 into !rows
        scf.yield %av2 : !rows
      } {unroll}

      // P = exp2(...) (f32), this thread's row sums, P rounded to {T} as the A operand of
      // P V: k-step kk is score tiles 2 kk and 2 kk + 1.
      %fV = vector.broadcast %factor : f32 to vector<2x2xf32>
      %z2 = arith.constant dense<0.0> : vector<2x{ROWS}xf32>
      // f16 operands: P = ex2.approx.f16x2 of the arguments rounded to f16 (one MUFU op for
      // two elements; P is rounded to f16 for P V anyway), row sums in f16x2 pairs (two
      // partial sums a row), widened once a tile. bf16 (8-bit mantissa arguments would be
      // too coarse) and the option attention-f32-exp keep f32 exp2.
      %halfExp = arith.constant {HALF_EXP}
      %pOut:2 = scf.if %halfExp -> (vector<{MTW}x{NT_S}x2x2x{T}>, !rows) {
        %ph0 = ub.poison : vector<{MTW}x{NT_S}x2x2x{T}>
        %zh = arith.constant dense<0.0> : vector<2x{ROWS}x2x{T}>
        %hv:2 = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%pa0 = %ph0, %ls0 = %zh)
            -> (vector<{MTW}x{NT_S}x2x2x{T}>, vector<2x{ROWS}x2x{T}>) {
          %rA = arith.muli %mt, %c2 : index
          %rB = arith.addi %rA, %c1 : index
          %mRowA = vector.extract %mSafe[%rA] : f32 from !rows
          %mRowB = vector.extract %mSafe[%rB] : f32 from !rows
          %mScA = vector.extract %mScaled[%rA] : f32 from !rows
          %mScB = vector.extract %mScaled[%rB] : f32 from !rows
          %mR = vector.from_elements %mRowA, %mRowA, %mRowB, %mRowB : vector<2x2xf32>
          %mS = vector.from_elements %mScA, %mScA, %mScB, %mScB : vector<2x2xf32>
          %negS = arith.negf %mS : vector<2x2xf32>
          %perTile:2 = scf.for %e = %c0 to %cNTS step %c1 iter_args(%pa = %pa0, %ls = %ls0)
              -> (vector<{MTW}x{NT_S}x2x2x{T}>, vector<2x{ROWS}x2x{T}>) {
            %eOdd = arith.remui %e, %c2 : index
            %sx = vector.extract %maskedS[%mt, %e] : vector<2x2xf32> from !sacc
            %arg = scf.if %hasMask -> (vector<2x2xf32>) {
              %ds = arith.subf %sx, %mR : vector<2x2xf32>
              %y = arith.mulf %ds, %fV : vector<2x2xf32>
              scf.yield %y : vector<2x2xf32>
            } else {
              %y = math.fma %sx, %fV, %negS : vector<2x2xf32>
              scf.yield %y : vector<2x2xf32>
            }
            %argH = arith.truncf %arg : vector<2x2xf32> to vector<2x2x{T}>
            %aA = vector.extract %argH[0] : vector<2x{T}> from vector<2x2x{T}>
            %aB = vector.extract %argH[1] : vector<2x{T}> from vector<2x2x{T}>
            %wA = vector.bitcast %aA : vector<2x{T}> to vector<1xi32>
            %wB = vector.bitcast %aB : vector<2x{T}> to vector<1xi32>
            %iA = vector.extract %wA[0] : i32 from vector<1xi32>
            %iB = vector.extract %wB[0] : i32 from vector<1xi32>
            %eA = llvm.inline_asm asm_dialect = att "ex2.approx.f16x2 $0, $1;", "=r,r" %iA : (i32) -> i32
            %eB = llvm.inline_asm asm_dialect = att "ex2.approx.f16x2 $0, $1;", "=r,r" %iB : (i32) -> i32
            %vA = vector.from_elements %eA : vector<1xi32>
            %vB = vector.from_elements %eB : vector<1xi32>
            %pA = vector.bitcast %vA : vector<1xi32> to vector<2x{T}>
            %pB = vector.bitcast %vB : vector<1xi32> to vector<2x{T}>
            %pa1 = vector.insert %pA, %pa[%mt, %e, 0] : vector<2x{T}> into vector<{MTW}x{NT_S}x2x2x{T}>
            %pa2 = vector.insert %pB, %pa1[%mt, %e, 1] : vector<2x{T}> into vector<{MTW}x{NT_S}x2x2x{T}>
            %lA = vector.extract %ls[%eOdd, %rA] : vector<2x{T}> from vector<2x{ROWS}x2x{T}>
            %lB = vector.extract %ls[%eOdd, %rB] : vector<2x{T}> from vector<2x{ROWS}x2x{T}>
            %lA2 = arith.addf %lA, %pA : vector<2x{T}>
            %lB2 = arith.addf %lB, %pB : vector<2x{T}>
            %ls1 = vector.insert %lA2, %ls[%eOdd, %rA] : vector<2x{T}> into vector<2x{ROWS}x2x{T}>
            %ls2 = vector.insert %lB2, %ls1[%eOdd, %rB] : vector<2x{T}> into vector<2x{ROWS}x2x{T}>
            scf.yield %pa2, %ls2 : vector<{MTW}x{NT_S}x2x2x{T}>, vector<2x{ROWS}x2x{T}>
          } {unroll}
          scf.yield %perTile#0, %perTile#1 : vector<{MTW}x{NT_S}x2x2x{T}>, vector<2x{ROWS}x2x{T}>
        } {unroll}
        %hw = arith.extf %hv#1 : vector<2x{ROWS}x2x{T}> to vector<2x{ROWS}x2xf32>
        %hSum = scf.for %r = %c0 to %cRows step %c1 iter_args(%hs0 = %z0) -> (!rows) {
          %h0 = vector.extract %hw[0, %r, 0] : f32 from vector<2x{ROWS}x2xf32>
          %h1 = vector.extract %hw[0, %r, 1] : f32 from vector<2x{ROWS}x2xf32>
          %h2 = vector.extract %hw[1, %r, 0] : f32 from vector<2x{ROWS}x2xf32>
          %h3 = vector.extract %hw[1, %r, 1] : f32 from vector<2x{ROWS}x2xf32>
          %h01 = arith.addf %h0, %h1 : f32
          %h23 = arith.addf %h2, %h3 : f32
          %hsum = arith.addf %h01, %h23 : f32
          %hs1 = vector.insert %hsum, %hs0[%r] : f32 into !rows
          scf.yield %hs1 : !rows
        } {unroll}
        scf.yield %hv#0, %hSum : vector<{MTW}x{NT_S}x2x2x{T}>, !rows
      } else {
      %pv:2 = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%pa0 = %maskedS, %ls0 = %z2)
          -> (!sacc, vector<2x{ROWS}xf32>) {
        %rA = arith.muli %mt, %c2 : index
        %rB = arith.addi %rA, %c1 : index
        %mRowA = vector.extract %mSafe[%rA] : f32 from !rows
        %mRowB = vector.extract %mSafe[%rB] : f32 from !rows
        %mScA = vector.extract %mScaled[%rA] : f32 from !rows
        %mScB = vector.extract %mScaled[%rB] : f32 from !rows
        %mR = vector.from_elements %mRowA, %mRowA, %mRowB, %mRowB : vector<2x2xf32>
        %mS = vector.from_elements %mScA, %mScA, %mScB, %mScB : vector<2x2xf32>
        %negS = arith.negf %mS : vector<2x2xf32>
        %perTile:2 = scf.for %e = %c0 to %cNTS step %c1 iter_args(%pa = %pa0, %ls = %ls0)
            -> (!sacc, vector<2x{ROWS}xf32>) {
          %eOdd = arith.remui %e, %c2 : index
          %sx = vector.extract %pa[%mt, %e] : vector<2x2xf32> from !sacc
          %arg = scf.if %hasMask -> (vector<2x2xf32>) {
            %ds = arith.subf %sx, %mR : vector<2x2xf32>
            %y = arith.mulf %ds, %fV : vector<2x2xf32>
            scf.yield %y : vector<2x2xf32>
          } else {
            %y = math.fma %sx, %fV, %negS : vector<2x2xf32>
            scf.yield %y : vector<2x2xf32>
          }
          %x00 = vector.extract %arg[0, 0] : f32 from vector<2x2xf32>
          %x01 = vector.extract %arg[0, 1] : f32 from vector<2x2xf32>
          %x10 = vector.extract %arg[1, 0] : f32 from vector<2x2xf32>
          %x11 = vector.extract %arg[1, 1] : f32 from vector<2x2xf32>
          %p00 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%x00) : (f32) -> f32
          %p01 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%x01) : (f32) -> f32
          %p10 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%x10) : (f32) -> f32
          %p11 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%x11) : (f32) -> f32
          %p = vector.from_elements %p00, %p01, %p10, %p11 : vector<2x2xf32>
          %sumA = arith.addf %p00, %p01 : f32
          %sumB = arith.addf %p10, %p11 : f32
          %lA = vector.extract %ls[%eOdd, %rA] : f32 from vector<2x{ROWS}xf32>
          %lB = vector.extract %ls[%eOdd, %rB] : f32 from vector<2x{ROWS}xf32>
          %lA2 = arith.addf %lA, %sumA : f32
          %lB2 = arith.addf %lB, %sumB : f32
          %ls1 = vector.insert %lA2, %ls[%eOdd, %rA] : f32 into vector<2x{ROWS}xf32>
          %ls2 = vector.insert %lB2, %ls1[%eOdd, %rB] : f32 into vector<2x{ROWS}xf32>
          %pa2 = vector.insert %p, %pa[%mt, %e] : vector<2x2xf32> into !sacc
          scf.yield %pa2, %ls2 : !sacc, vector<2x{ROWS}xf32>
        } {unroll}
        scf.yield %perTile#0, %perTile#1 : !sacc, vector<2x{ROWS}xf32>
      } {unroll}
        // The row sums of this tile: two partial sums a row (even and odd n8 tiles).
        %pSumE = vector.extract %pv#1[0] : vector<{ROWS}xf32> from vector<2x{ROWS}xf32>
        %pSumO = vector.extract %pv#1[1] : vector<{ROWS}xf32> from vector<2x{ROWS}xf32>
        %pSum = arith.addf %pSumE, %pSumO : !rows
        %pHalfF = arith.truncf %pv#0 : !sacc to vector<{MTW}x{NT_S}x2x2x{T}>
        scf.yield %pHalfF, %pSum : vector<{MTW}x{NT_S}x2x2x{T}>, !rows
      }
      %lScaled = arith.mulf %lRun, %alpha : !rows
      %lNew = arith.addf %lScaled, %pOut#1 : !rows

// @@ RESCALE_O
      // O = O * alpha (+ P V, after this part).
      %oScaled = scf.for %mt = %c0 to %cMTW step %c1 iter_args(%oa0 = %oAcc) -> (!oacc) {
        %rA = arith.muli %mt, %c2 : index
        %rB = arith.addi %rA, %c1 : index
        %alphaA = vector.extract %alpha[%rA] : f32 from !rows
        %alphaB = vector.extract %alpha[%rB] : f32 from !rows
        %alphaM = vector.from_elements %alphaA, %alphaA, %alphaB, %alphaB : vector<2x2xf32>
        %perTile = scf.for %e = %c0 to %cNTO step %c1 iter_args(%oa = %oa0) -> (!oacc) {
          %ov = vector.extract %oa[%mt, %e] : vector<2x2xf32> from !oacc
          %os = arith.mulf %ov, %alphaM : vector<2x2xf32>
          %oa2 = vector.insert %os, %oa[%mt, %e] : vector<2x2xf32> into !oacc
          scf.yield %oa2 : !oacc
        } {unroll}
        scf.yield %perTile : !oacc
      } {unroll}
// @@ INVERSE_L
    // Epilogue: the row sums over the quad, and the factors of O / l (0 for an empty row
    // with nan_to_zero).
    %lSum = scf.for %r = %c0 to %cRows step %c1 iter_args(%lv0 = {L_FINAL}) -> (!rows) {
      %l = vector.extract %lv0[%r] : f32 from !rows
      %s1, %v1 = gpu.shuffle xor %l, %i1, %i32w : f32
      %l1 = arith.addf %l, %s1 : f32
      %s2, %v2 = gpu.shuffle xor %l1, %i2, %i32w : f32
      %l2 = arith.addf %l1, %s2 : f32
      %lv1 = vector.insert %l2, %lv0[%r] : f32 into !rows
      scf.yield %lv1 : !rows
    } {unroll}
    %oneV = arith.constant dense<1.0> : !rows
    %inv0 = arith.divf %oneV, %lSum : !rows
    %isZero = arith.cmpf oeq, %lSum, %z0 : !rows
    %nzV = vector.broadcast %nanToZero : i1 to vector<{ROWS}xi1>
    %zap = arith.andi %isZero, %nzV : vector<{ROWS}xi1>
    %inv = arith.select %zap, %z0, %inv0 : vector<{ROWS}xi1>, !rows
    %invA = vector.extract %inv[0] : f32 from !rows
    %invB = vector.extract %inv[1] : f32 from !rows
    %invAV = vector.broadcast %invA : f32 to vector<2xf32>
    %invBV = vector.broadcast %invB : f32 to vector<2xf32>
    %rowSA = arith.addi %qRow0, %g : index
    %rowSB = arith.addi %rowSA, %c8 : index
// @@ O_TO_SHARED
    // O goes out through shared memory, 16 bytes a store: each warp writes its 16 rows,
    // rounded to {T}, in the ring's swizzled layout (chunk c of row r at c ^ (r % 8): a
    // warp's 4-byte writes of one n8 tile hit 32 banks); after a barrier the rows are
    // stored as 16-byte chunks.
    scf.for %e = {O_E0} to {O_E1} step %c1 {
      %ov = vector.extract {O_FINAL}[0, %e] : vector<2x2xf32> from !oacc
      %eAtomAll = arith.divui %e, %c8 : index
      %eAtom = arith.subi %eAtomAll, {O_A0} : index
      %eIn = arith.remui %e, %c8 : index
      %chunkS = arith.xori %eIn, %g : index
      %c8e = arith.muli %chunkS, %c8 : index
      %col = arith.addi %c8e, %t2 : index
      %oA = vector.extract %ov[0] : vector<2xf32> from vector<2x2xf32>
      %oB = vector.extract %ov[1] : vector<2xf32> from vector<2x2xf32>
      %yA = arith.mulf %oA, %invAV : vector<2xf32>
      %yB = arith.mulf %oB, %invBV : vector<2xf32>
      %hA = arith.truncf %yA : vector<2xf32> to vector<2x{T}>
      %hB = arith.truncf %yB : vector<2xf32> to vector<2x{T}>
      vector.store %hA, {O_BUF}[%eAtom, %rowSA, %col] {alignment = 4} : {O_BUF_TYPE}, vector<2x{T}>
      vector.store %hB, {O_BUF}[%eAtom, %rowSB, %col] {alignment = 4} : {O_BUF_TYPE}, vector<2x{T}>
    } {unroll}
// @@ O_ROUND
        // Round {R}. The barrier before the writes: this warpgroup's reads of the buffer
        // (the last round's, or the last item's) are done.
        %e0R{R} = arith.constant {E0} : index
        %e1R{R} = arith.constant {E1} : index
        %a0R{R} = arith.constant {A0} : index
        %col0R{R} = arith.constant {COL0} : index
        %cprR{R} = arith.constant {ROUND_CPR} : index
        %chunksR{R} = arith.constant {ROUND_CHUNKS} : index
        nvvm.barrier id = %myStore number_of_threads = %wgThreads
{O_TO_SHARED}
        nvvm.barrier id = %myStore number_of_threads = %wgThreads
        scf.for %i = %c0 to %chunksR{R} step %c1 {
          %i0 = arith.muli %i, %c128 : index
          %chunk = arith.addi %i0, %inWg : index
          %rowInWg = arith.divui %chunk, %cprR{R} : index
          %row = arith.addi %wgRow0, %rowInWg : index
          %cc = arith.remui %chunk, %cprR{R} : index
          %r8 = arith.remui %row, %c8 : index
          %atom = arith.divui %cc, %c8 : index
          %cin = arith.remui %cc, %c8 : index
          %pc0 = arith.xori %cin, %r8 : index
          %pc = arith.muli %pc0, %c8 : index
          %colIn = arith.muli %cc, %c8 : index
          %col = arith.addi %colIn, %col0R{R} : index
          %grow = arith.addi %q0, %row : index
          %inside = arith.cmpi ult, %grow, %sq : index
          scf.if %inside {
            %y = vector.load %Stage[%atom, %row, %pc] {alignment = 16} : !stage, vector<8x{T}>
            vector.store %y, %Og[%grow, %col] {alignment = 16} : !gmem, vector<8x{T}>
          }
        } {unroll}
// @@ WORK_ITEM
      // Item = bh * blocksQ + query block; causal items run their heavier (later) query
      // blocks first. (32-bit arithmetic: the persistent loop's state stays in the
      // registers the consumers' accumulators leave.)
      %itemI = arith.index_castui %item : index to i32
      %qBlockFwdI = arith.remui %itemI, %blocksQI : i32
      %bhI = arith.divui %itemI, %blocksQI : i32
      %qBlockRevI = arith.subi %blocksQLastI, %qBlockFwdI : i32
      %qBlockI = arith.select %causal, %qBlockRevI, %qBlockFwdI : i32
      %q0I = arith.muli %qBlockI, %cBQI : i32
      %bI = arith.divui %bhI, %H : i32
      %hI = arith.remui %bhI, %H : i32
      %hkvI = arith.divui %hI, %G : i32
      %q0 = arith.index_castui %q0I : i32 to index
      %b = arith.index_castui %bI : i32 to index
      %h = arith.index_castui %hI : i32 to index
      %hkv = arith.index_castui %hkvI : i32 to index
      // KV tiles: all of them, or (causal) those with a column <= the item's last row.
      %qEnd0I = arith.addi %q0I, %cBQI : i32
      %qEndI = arith.minui %qEnd0I, %Sq : i32
      %numKvCausal0I = arith.ceildivui %qEndI, %cBKVI : i32
      %numKvCausalI = arith.minui %numKvCausal0I, %numKvAllI : i32
      %numKvI = arith.select %causal, %numKvCausalI, %numKvAllI : i32
      %numKv = arith.index_castui %numKvI : i32 to index
      // The item's Q buffer and its fill.
      %n0I = arith.index_castui %n0 : index to i32
      %qBufI = arith.remui %n0I, %cQBufsI : i32
      %qRoundI = arith.divui %n0I, %cQBufsI : i32
      %qBuf = arith.index_castui %qBufI : i32 to index
      %qRound = arith.index_castui %qRoundI : i32 to index
      %qAt0 = arith.muli %qBuf, %qBufBytes : index
      %qAt = arith.addi %base, %qAt0 : index
