// expand-shapes-to-casts writes an expand_shape with two dynamic extents in one group
// as the reinterpret_cast of its source, and leaves the others to expand-strided-metadata.
// RUN: kiln-opt %s -split-input-file --expand-shapes-to-casts | FileCheck %s

// [batch * sequence, 32] into [batch, sequence, 32]: sizes the output_shape, strides
// [sequence * 32, 32, 1] from the source's row stride 32.
// CHECK-LABEL: func.func @two_dynamic
// CHECK-SAME: (%[[M:.*]]: memref<?x32xf32>, %[[B:.*]]: index, %[[S:.*]]: index)
// CHECK: %[[BASE:.*]], %{{.*}}, %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[M]]
// CHECK: %[[OUTER:.*]] = arith.muli %[[S]], %c32 : index
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[B]], %[[S]], 32], strides: [%[[OUTER]], 32, 1]
// CHECK-NOT: memref.expand_shape
func.func @two_dynamic(%m: memref<?x32xf32>, %b: index, %s: index) -> memref<?x?x32xf32> {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%b, %s, 32] : memref<?x32xf32> into memref<?x?x32xf32>
  return %e : memref<?x?x32xf32>
}

// -----

// One dynamic extent a group: upstream's lowering handles it.
// CHECK-LABEL: func.func @one_dynamic
// CHECK: memref.expand_shape
func.func @one_dynamic(%m: memref<?x32xf32>, %b: index) -> memref<?x4x32xf32> {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%b, 4, 32] : memref<?x32xf32> into memref<?x4x32xf32>
  return %e : memref<?x4x32xf32>
}
