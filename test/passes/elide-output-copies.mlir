// RUN: kiln-opt %s -split-input-file --elide-output-copies | FileCheck %s

// A transposed convolution's interleave: the transpose writes a temporary that is
// collapsed and copied into the output. It writes the output through an expand_shape view
// instead; no temporary, no copy.
// CHECK-LABEL: func.func @interleave
// CHECK-SAME: (%[[IN:.*]]: memref<2x4x4x2x2x8xf16>, %[[OUT:.*]]: memref<2x8x8x8xf16>)
// CHECK: %[[VIEW:.*]] = memref.expand_shape %[[OUT]] {{\[\[}}0], [1, 2], [3, 4], [5]] output_shape [2, 4, 2, 4, 2, 8]
// CHECK: linalg.transpose ins(%[[IN]] : {{.*}}) outs(%[[VIEW]] : memref<2x4x2x4x2x8xf16>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
func.func @interleave(%in: memref<2x4x4x2x2x8xf16>, %out: memref<2x8x8x8xf16>) {
  %t = memref.alloc() : memref<2x4x2x4x2x8xf16>
  linalg.transpose ins(%in : memref<2x4x4x2x2x8xf16>) outs(%t : memref<2x4x2x4x2x8xf16>) permutation = [0, 1, 3, 2, 4, 5]
  %c = memref.collapse_shape %t [[0], [1, 2], [3, 4], [5]] : memref<2x4x2x4x2x8xf16> into memref<2x8x8x8xf16>
  memref.copy %c, %out : memref<2x8x8x8xf16> to memref<2x8x8x8xf16>
  return
}

// -----

// The converse: a temporary of lower rank expanded into the output: the output collapsed.
// CHECK-LABEL: func.func @expanded
// CHECK-SAME: (%[[IN:.*]]: memref<6x4xf32>, %[[OUT:.*]]: memref<2x3x4xf32>)
// CHECK: %[[VIEW:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1], [2]]
// CHECK: linalg.copy ins(%[[IN]] : memref<6x4xf32>) outs(%[[VIEW]] : memref<6x4xf32>)
// CHECK-NOT: memref.copy
func.func @expanded(%in: memref<6x4xf32>, %out: memref<2x3x4xf32>) {
  %t = memref.alloc() : memref<6x4xf32>
  linalg.copy ins(%in : memref<6x4xf32>) outs(%t : memref<6x4xf32>)
  %e = memref.expand_shape %t [[0, 1], [2]] output_shape [2, 3, 4] : memref<6x4xf32> into memref<2x3x4xf32>
  memref.copy %e, %out : memref<2x3x4xf32> to memref<2x3x4xf32>
  return
}

// -----

// What stays: the temporary read after the copy, an output the function also reads, and
// a temporary whose reshape another op reads too.
// CHECK-LABEL: func.func @stays
// CHECK-COUNT-3: memref.copy
func.func @stays(%in: memref<4x4xf32>, %out: memref<4x4xf32>, %out2: memref<16xf32>, %out3: memref<16xf32>, %other: memref<16xf32>) {
  %t = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%in : memref<4x4xf32>) outs(%t : memref<4x4xf32>)
  memref.copy %t, %out : memref<4x4xf32> to memref<4x4xf32>
  linalg.copy ins(%t : memref<4x4xf32>) outs(%in : memref<4x4xf32>)
  %u = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%in : memref<4x4xf32>) outs(%u : memref<4x4xf32>)
  %cu = memref.collapse_shape %u [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  linalg.copy ins(%out2 : memref<16xf32>) outs(%other : memref<16xf32>)
  memref.copy %cu, %out2 : memref<16xf32> to memref<16xf32>
  %w = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%in : memref<4x4xf32>) outs(%w : memref<4x4xf32>)
  %cw = memref.collapse_shape %w [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  linalg.copy ins(%cw : memref<16xf32>) outs(%other : memref<16xf32>)
  memref.copy %cw, %out3 : memref<16xf32> to memref<16xf32>
  return
}
