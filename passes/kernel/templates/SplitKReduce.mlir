// The second kernel of a split-K GEMM (Sm90GemmWs.mlir with SPLITS > 1): C[i] = the sum
// over p < SPLITS of W[p * M * N + i], W being the f32 workspace of the parts' partial
// sums, rounded to OUT. M comes at run time (%M: a dynamic engine's rows; the GEMM's
// parts lay their slices M * N apart for the same M). One thread adds 4 consecutive
// elements (16-byte loads; M * N is a multiple of 4, since N is a multiple of 8). A fused
// epilogue (passes/kernel/Sm90Epilogue.h) runs here on the sums, not in the GEMM's parts.
// Placeholders (in braces in the code): MODULE, ENTRY, OUT, SPLITS, N,
// EPILOGUE_PARAMETERS and EPILOGUE (the epilogue's inputs and the op standing for its
// arithmetic on %sum, or nothing), CONVERT, STORED and STORE_ALIGNMENT (as in the GEMM
// templates). Grid (ceil(M * N / 4 / 256), 1, 1), block (256, 1, 1); the buffers are bare
// pointers.

gpu.module @{MODULE} {
  gpu.func @{ENTRY}(%workspacePointer: memref<f32>, %cPointer: memref<{OUT}>, %M: i32{EPILOGUE_PARAMETERS})
      kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %m = arith.index_castui %M : i32 to index
    %n = arith.constant {N} : index
    %elements = arith.muli %m, %n : index
    %quads = arith.divui %elements, %c4 : index
    %splits = arith.constant {SPLITS} : index
    %spanned = arith.muli %elements, %splits : index
    %workspace = memref.reinterpret_cast %workspacePointer to offset: [0],
        sizes: [%spanned], strides: [1] : memref<f32> to memref<?xf32>
    %c = memref.reinterpret_cast %cPointer to offset: [0], sizes: [%elements], strides: [1]
        : memref<{OUT}> to memref<?x{OUT}>
    %block = gpu.block_id x
    %tid = gpu.thread_id x
    %blockFirst = arith.muli %block, %c256 : index
    %quad = arith.addi %blockFirst, %tid : index
    %inside = arith.cmpi ult, %quad, %quads : index
    scf.if %inside {
      %first = arith.muli %quad, %c4 : index
      %zero = arith.constant dense<0.0> : vector<4xf32>
      %sum = scf.for %p = %c0 to %splits step %c1 iter_args(%acc = %zero) -> (vector<4xf32>) {
        %slice = arith.muli %p, %elements : index
        %at = arith.addi %slice, %first : index
        %part = vector.load %workspace[%at] {alignment = 16} : memref<?xf32>, vector<4xf32>
        %next = arith.addf %acc, %part : vector<4xf32>
        scf.yield %next : vector<4xf32>
      }
      // C's row and first column of the four elements, for the epilogue.
      %row = arith.divui %first, %n : index
      %col = arith.remui %first, %n : index
      {EPILOGUE}
      {CONVERT}
      vector.store {STORED}, %c[%first] {alignment = {STORE_ALIGNMENT}}
        : memref<?x{OUT}>, vector<4x{OUT}>
    }
    gpu.return
  }
}
