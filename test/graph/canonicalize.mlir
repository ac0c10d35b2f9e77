// Folders of the graph ops.
// RUN: kiln-opt %s -canonicalize -split-input-file | FileCheck %s

// x + 0 folds to x when the zero does not broadcast x.
// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @add_zero(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %zero = graph.constant dense<0.0> : tensor<3xf32>
  %y = graph.add %x, %zero : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Commutative: a zero on the left is moved right and folded the same way.
// CHECK-LABEL: func.func @zero_add_int
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]]
func.func @zero_add_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %zero = graph.constant dense<0> : tensor<4xi32>
  %y = graph.add %zero, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

// A zero that broadcasts x to a larger shape must stay.
// CHECK-LABEL: func.func @add_zero_broadcasting
// CHECK: graph.add
func.func @add_zero_broadcasting(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %zero = graph.constant dense<0.0> : tensor<2x3xf32>
  %y = graph.add %x, %zero : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// A non-zero constant stays.
// CHECK-LABEL: func.func @add_one
// CHECK: graph.add
func.func @add_one(%x: tensor<3xf32>) -> tensor<3xf32> {
  %one = graph.constant dense<1.0> : tensor<3xf32>
  %y = graph.add %x, %one : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// Duplicate constants are merged.
// CHECK-LABEL: func.func @dedup_constants
// CHECK-COUNT-1: graph.constant
// CHECK-NOT: graph.constant
func.func @dedup_constants() -> (tensor<2xf32>, tensor<2xf32>) {
  %a = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %a, %b : tensor<2xf32>, tensor<2xf32>
}
