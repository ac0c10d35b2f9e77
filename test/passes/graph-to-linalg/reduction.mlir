// RUN: kiln-opt --graph-to-linalg %s -split-input-file | FileCheck %s

// A sum over a constant axis is one reducing generic (the reduced dimension kept as 1 and
// then dropped by the final elementwise step when keepdims is false).
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[KEPT:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @reduce_sum
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEPT]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.addf
func.func @reduce_sum(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %axes = graph.constant dense<[-1]> : tensor<1xi64>
  %0 = graph.reduce_sum %x, %axes {keepdims = false, noop_with_empty_axes = false} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// The mean divides the sum by the number of reduced elements; no axes reduce everything.
// CHECK-LABEL: func.func @reduce_mean_all
// CHECK: iterator_types = ["reduction", "reduction"]
// CHECK: arith.addf
// CHECK: arith.divf
func.func @reduce_mean_all(%x: tensor<3x4xf32>) -> tensor<1x1xf32> {
  %0 = graph.reduce_mean %x {keepdims = true, noop_with_empty_axes = false} : (tensor<3x4xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// LogSumExp subtracts the maximum before exp, so large inputs do not overflow.
// CHECK-LABEL: func.func @reduce_log_sum_exp
// CHECK: arith.maximumf
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: math.log
// CHECK: arith.addf
func.func @reduce_log_sum_exp(%x: tensor<3x4xf32>) -> tensor<3x1xf32> {
  %axes = graph.constant dense<[1]> : tensor<1xi64>
  %0 = graph.reduce_log_sum_exp %x, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// Integer maxima start from the type's minimum; unsigned ones compare unsigned.
// CHECK-LABEL: func.func @reduce_max_unsigned
// CHECK: arith.constant 0 : i8
// CHECK: arith.maxui
func.func @reduce_max_unsigned(%x: tensor<3x4xui8>) -> tensor<3x1xui8> {
  %axes = graph.constant dense<[1]> : tensor<1xi64>
  %0 = graph.reduce_max %x, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<3x4xui8>, tensor<1xi64>) -> tensor<3x1xui8>
  return %0 : tensor<3x1xui8>
}

// -----

// Run-time axes that the result type does not determine (dimension 1 or 2 of 3x2x2):
// both reductions are built and the axes' bit mask chooses between them.
// CHECK-LABEL: func.func @reduce_sum_runtime_axes
// CHECK: tensor.extract %{{.*}}[%{{.*}}] : tensor<1xi64>
// CHECK: scf.index_switch
// CHECK: case 4 {
// CHECK: default {
func.func @reduce_sum_runtime_axes(%x: tensor<3x2x2xf32>, %axes: tensor<1xi64>) -> tensor<3x2xf32> {
  %0 = graph.reduce_sum %x, %axes {keepdims = false, noop_with_empty_axes = false} : (tensor<3x2x2xf32>, tensor<1xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Empty run-time axes with noop_with_empty_axes return the input.
// CHECK-LABEL: func.func @reduce_sum_noop
// CHECK-NOT: linalg.generic
// CHECK: return %arg0
func.func @reduce_sum_noop(%x: tensor<3x2xf32>, %axes: tensor<0xi64>) -> tensor<3x2xf32> {
  %0 = graph.reduce_sum %x, %axes {keepdims = true, noop_with_empty_axes = true} : (tensor<3x2xf32>, tensor<0xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// ArgMax is one reducing generic with two outputs, the best value and its index.
// CHECK-LABEL: func.func @argmax
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xi64>)
// CHECK: linalg.index 1
// CHECK: arith.cmpf ogt
func.func @argmax(%x: tensor<3x4xf32>) -> tensor<3xi64> {
  %0 = graph.argmax %x {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<3x4xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// select_last_index lets an equal element replace the best.
// CHECK-LABEL: func.func @argmin_last
// CHECK: arith.cmpi sle
func.func @argmin_last(%x: tensor<3x4xi32>) -> tensor<1x4xi64> {
  %0 = graph.argmin %x {axis = 0 : i64, keepdims = true, select_last_index = true} : (tensor<3x4xi32>) -> tensor<1x4xi64>
  return %0 : tensor<1x4xi64>
}

// -----

// CumSum loops along the axis carrying the running sum of one slice.
// CHECK-LABEL: func.func @cumsum
// CHECK: scf.for {{.*}} iter_args
// CHECK: tensor.extract_slice %arg0[0, %{{.*}}] [3, 1] [1, 1]
// CHECK: arith.addf
// CHECK: tensor.insert_slice
func.func @cumsum(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %axis = graph.constant dense<1> : tensor<i64>
  %0 = graph.cumsum %x, %axis {exclusive = false, reverse = false} : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// An axis known at run time chooses one loop per possible axis.
// CHECK-LABEL: func.func @cumsum_runtime_axis
// CHECK: scf.index_switch
// CHECK: case 1 {
// CHECK: scf.for
func.func @cumsum_runtime_axis(%x: tensor<3x4xf32>, %axis: tensor<i32>) -> tensor<3x4xf32> {
  %0 = graph.cumsum %x, %axis {exclusive = true, reverse = true} : (tensor<3x4xf32>, tensor<i32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// TopK moves the axis last, collapses the rest into rows and keeps each row's k best
// sorted, inserting better elements (scf.while shifts worse ones down).
// CHECK-LABEL: func.func @top_k
// CHECK: linalg.transpose
// CHECK: tensor.collapse_shape
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.if
// CHECK: scf.while
// CHECK: tensor.expand_shape
// CHECK: linalg.transpose
func.func @top_k(%x: tensor<3x4x5xf32>, %k: tensor<1xi64>) -> (tensor<3x2x5xf32>, tensor<3x2x5xi64>) {
  %v, %i = graph.top_k %x, %k {axis = 1 : i64, largest = true, sorted = true} : (tensor<3x4x5xf32>, tensor<1xi64>) -> (tensor<3x2x5xf32>, tensor<3x2x5xi64>)
  return %v, %i : tensor<3x2x5xf32>, tensor<3x2x5xi64>
}

// -----

// A k computed at run time over a run-time extent (detectors' min(candidates, boxes)):
// read from its tensor, clamped to [0, extent], and the results' extent; a k of 0 scans
// no column.
// CHECK-LABEL: func.func @top_k_dynamic_k
// CHECK: %[[K:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<1xi64>
// CHECK: %[[KI:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK: %[[MIN:.*]] = arith.minsi %[[KI]], %{{.*}} : index
// CHECK: %[[CLAMPED:.*]] = arith.maxsi %[[MIN]], %{{.*}} : index
// CHECK: tensor.empty(%[[CLAMPED]]) : tensor<1x?xf32>
// CHECK: arith.cmpi eq, %[[CLAMPED]]
// CHECK: scf.for
// CHECK: scf.while
func.func @top_k_dynamic_k(%x: tensor<?xf32>, %k: tensor<1xi64>) -> (tensor<?xf32>, tensor<?xi64>) {
  %v, %i = graph.top_k %x, %k {axis = 0 : i64, largest = true, sorted = true} : (tensor<?xf32>, tensor<1xi64>) -> (tensor<?xf32>, tensor<?xi64>)
  return %v, %i : tensor<?xf32>, tensor<?xi64>
}
