// Round trip of the reduction and index ops, in the custom and in the generic form, with
// result types as their shape rules infer them.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// Every reduction with constant axes; keepdims keeps the axis as 1, else drops it, and
// negative axes count from the back.
// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<?x128x768xf32>) {
  %axes = graph.constant dense<[-1]> : tensor<1xi64>
  // CHECK: graph.reduce_mean %{{.*}}, %{{.*}} {keepdims = true, noop_with_empty_axes = false} : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
  %0 = graph.reduce_mean %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
  // CHECK: graph.reduce_sum {{.*}} -> tensor<?x128xf32>
  %1 = graph.reduce_sum %x, %axes {keepdims = false, noop_with_empty_axes = false}
      : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128xf32>
  // CHECK: graph.reduce_max {{.*}} -> tensor<?x128x1xf32>
  %2 = graph.reduce_max %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
  // CHECK: graph.reduce_min {{.*}} -> tensor<?x128x1xf32>
  %3 = graph.reduce_min %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
  // CHECK: graph.reduce_prod {{.*}} -> tensor<?x128x1xf32>
  %4 = graph.reduce_prod %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
  // CHECK: graph.reduce_l1 {{.*}} -> tensor<?x128x1xf32>
  %5 = graph.reduce_l1 %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
  // CHECK: graph.reduce_l2 {{.*}} -> tensor<?x128x1xf32>
  %6 = graph.reduce_l2 %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
  // CHECK: graph.reduce_log_sum {{.*}} -> tensor<?x128x1xf32>
  %7 = graph.reduce_log_sum %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
  // CHECK: graph.reduce_log_sum_exp {{.*}} -> tensor<?x128x1xf32>
  %8 = graph.reduce_log_sum_exp %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
  // CHECK: graph.reduce_sum_square {{.*}} -> tensor<?x128x1xf32>
  %9 = graph.reduce_sum_square %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
  return
}

// Without axes every dimension is reduced, unless noop_with_empty_axes makes the op the
// identity; an empty constant list behaves like absent axes.
// CHECK-LABEL: func.func @empty_axes
func.func @empty_axes(%x: tensor<2x3x4xi32>) {
  // CHECK: graph.reduce_sum %{{[^,]*}} {keepdims = false, noop_with_empty_axes = false} : (tensor<2x3x4xi32>) -> tensor<i32>
  %0 = graph.reduce_sum %x {keepdims = false, noop_with_empty_axes = false}
      : (tensor<2x3x4xi32>) -> tensor<i32>
  // CHECK: graph.reduce_sum {{.*}} -> tensor<1x1x1xi32>
  %1 = graph.reduce_sum %x {keepdims = true, noop_with_empty_axes = false}
      : (tensor<2x3x4xi32>) -> tensor<1x1x1xi32>
  // CHECK: graph.reduce_max {{.*}} -> tensor<2x3x4xi32>
  %2 = graph.reduce_max %x {keepdims = true, noop_with_empty_axes = true}
      : (tensor<2x3x4xi32>) -> tensor<2x3x4xi32>
  %empty = graph.constant dense<> : tensor<0xi64>
  // CHECK: graph.reduce_min {{.*}} -> tensor<2x3x4xi32>
  %3 = graph.reduce_min %x, %empty {keepdims = false, noop_with_empty_axes = true}
      : (tensor<2x3x4xi32>, tensor<0xi64>) -> tensor<2x3x4xi32>
  return
}

// Axes that are not constant leave the reduced extents unknown: with keepdims only
// extents of 1 are certain, without it the rank follows from the number of axes.
// CHECK-LABEL: func.func @dynamic_axes
func.func @dynamic_axes(%x: tensor<2x1x4xf16>, %axes: tensor<2xi64>, %any: tensor<?xi64>,
                        %u: tensor<*xf32>) {
  // CHECK: graph.reduce_mean {{.*}} -> tensor<?x1x?xf16>
  %0 = graph.reduce_mean %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<2x1x4xf16>, tensor<2xi64>) -> tensor<?x1x?xf16>
  // CHECK: graph.reduce_mean {{.*}} -> tensor<?xf16>
  %1 = graph.reduce_mean %x, %axes {keepdims = false, noop_with_empty_axes = false}
      : (tensor<2x1x4xf16>, tensor<2xi64>) -> tensor<?xf16>
  // CHECK: graph.reduce_l2 {{.*}} -> tensor<*xf16>
  %2 = graph.reduce_l2 %x, %any {keepdims = false, noop_with_empty_axes = false}
      : (tensor<2x1x4xf16>, tensor<?xi64>) -> tensor<*xf16>
  // CHECK: graph.reduce_log_sum_exp {{.*}} -> tensor<*xf32>
  %3 = graph.reduce_log_sum_exp %u, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<*xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// Declared result types may be less refined than the inferred ones.
// CHECK-LABEL: func.func @less_refined
func.func @less_refined(%x: tensor<4x8xbf16>) -> tensor<?x?xbf16> {
  %axes = graph.constant dense<[1]> : tensor<1xi64>
  // CHECK: graph.reduce_prod {{.*}} -> tensor<?x?xbf16>
  %0 = graph.reduce_prod %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<4x8xbf16>, tensor<1xi64>) -> tensor<?x?xbf16>
  return %0 : tensor<?x?xbf16>
}

// CHECK-LABEL: func.func @cumsum
func.func @cumsum(%x: tensor<2x?xf64>, %axis: tensor<i32>) {
  // CHECK: graph.cumsum %{{.*}}, %{{.*}} {exclusive = true, reverse = false} : (tensor<2x?xf64>, tensor<i32>) -> tensor<2x?xf64>
  %0 = graph.cumsum %x, %axis {exclusive = true, reverse = false}
      : (tensor<2x?xf64>, tensor<i32>) -> tensor<2x?xf64>
  %c = graph.constant dense<[-1]> : tensor<1xi64>
  // CHECK: graph.cumsum {{.*}} {exclusive = false, reverse = true} : (tensor<2x?xf64>, tensor<1xi64>) -> tensor<2x?xf64>
  %1 = graph.cumsum %x, %c {exclusive = false, reverse = true}
      : (tensor<2x?xf64>, tensor<1xi64>) -> tensor<2x?xf64>
  return
}

// ArgMax and ArgMin return i64 indices whatever the input's element type.
// CHECK-LABEL: func.func @arg_reductions
func.func @arg_reductions(%x: tensor<8x1000xf32>, %u: tensor<*xui8>) {
  // CHECK: graph.argmax %{{.*}} {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<8x1000xf32>) -> tensor<8xi64>
  %0 = graph.argmax %x {axis = 1 : i64, keepdims = false, select_last_index = false}
      : (tensor<8x1000xf32>) -> tensor<8xi64>
  // CHECK: graph.argmin %{{.*}} {axis = -2 : i64, keepdims = true, select_last_index = true} : (tensor<8x1000xf32>) -> tensor<1x1000xi64>
  %1 = graph.argmin %x {axis = -2 : i64, keepdims = true, select_last_index = true}
      : (tensor<8x1000xf32>) -> tensor<1x1000xi64>
  // CHECK: graph.argmax {{.*}} : (tensor<*xui8>) -> tensor<*xi64>
  %2 = graph.argmax %u {axis = 0 : i64, keepdims = true, select_last_index = false}
      : (tensor<*xui8>) -> tensor<*xi64>
  return
}

// TopK replaces the axis extent by a constant k, or by ? when k is not constant.
// CHECK-LABEL: func.func @top_k
func.func @top_k(%x: tensor<3x4xf32>, %kd: tensor<1xi64>) {
  %k = graph.constant dense<2> : tensor<1xi64>
  // CHECK: %{{.*}}, %{{.*}} = graph.top_k %{{.*}}, %{{.*}} {axis = -1 : i64, largest = true, sorted = true} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  %v, %i = graph.top_k %x, %k {axis = -1 : i64, largest = true, sorted = true}
      : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  // CHECK: graph.top_k {{.*}} {axis = 0 : i64, largest = false, sorted = false} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<?x4xf32>, tensor<?x4xi64>)
  %v2, %i2 = graph.top_k %x, %kd {axis = 0 : i64, largest = false, sorted = false}
      : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<?x4xf32>, tensor<?x4xi64>)
  return
}
