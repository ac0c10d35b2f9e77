// The second kernel of a split-K GEMM (Sm90GemmWs.mlir with SPLITS > 1): C[i] = the sum
// over p < SPLITS of W[p * M * N + i], W being the f32 workspace of the parts' partial
// sums, rounded to OUT. One thread adds 4 consecutive elements (16-byte loads; M * N is a
// multiple of 4, since N is a multiple of 8). A fused epilogue (passes/kernel/Sm90Epilogue.h)
// runs here on the sums, not in the GEMM's parts. Placeholders (in braces in the code):
// MODULE, ENTRY, OUT, SPLITS, ELEMENTS (= M * N), QUADS (= M * N / 4), M, N,
// EPILOGUE_PARAMETERS and EPILOGUE (the epilogue's inputs and the op standing for its
// arithmetic on %sum, or nothing), CONVERT, STORED and STORE_ALIGNMENT (as in the GEMM
// templates). Grid (ceil(QUADS / 256), 1, 1), block (256, 1, 1); every parameter is a
// bare pointer.

gpu.module @{MODULE} {
  gpu.func @{ENTRY}(%workspacePointer: memref<f32>, %cPointer: memref<{OUT}>{EPILOGUE_PARAMETERS})
      kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %quads = arith.constant {QUADS} : index
    %splits = arith.constant {SPLITS} : index
    %workspace = memref.reinterpret_cast %workspacePointer to offset: [0],
        sizes: [{SPLITS}, {ELEMENTS}], strides: [{ELEMENTS}, 1]
        : memref<f32> to memref<{SPLITS}x{ELEMENTS}xf32>
    %c = memref.reinterpret_cast %cPointer to offset: [0], sizes: [{ELEMENTS}], strides: [1]
        : memref<{OUT}> to memref<{ELEMENTS}x{OUT}>
    %block = gpu.block_id x
    %tid = gpu.thread_id x
    %blockFirst = arith.muli %block, %c256 : index
    %quad = arith.addi %blockFirst, %tid : index
    %inside = arith.cmpi ult, %quad, %quads : index
    scf.if %inside {
      %first = arith.muli %quad, %c4 : index
      %zero = arith.constant dense<0.0> : vector<4xf32>
      %sum = scf.for %p = %c0 to %splits step %c1 iter_args(%acc = %zero) -> (vector<4xf32>) {
        %part = vector.load %workspace[%p, %first] {alignment = 16}
          : memref<{SPLITS}x{ELEMENTS}xf32>, vector<4xf32>
        %next = arith.addf %acc, %part : vector<4xf32>
        scf.yield %next : vector<4xf32>
      }
      // C's row and first column of the four elements, for the epilogue.
      %m = arith.constant {M} : index
      %n = arith.constant {N} : index
      %row = arith.divui %first, %n : index
      %col = arith.remui %first, %n : index
      {EPILOGUE}
      {CONVERT}
      vector.store {STORED}, %c[%first] {alignment = {STORE_ALIGNMENT}}
        : memref<{ELEMENTS}x{OUT}>, vector<4x{OUT}>
    }
    gpu.return
  }
}
