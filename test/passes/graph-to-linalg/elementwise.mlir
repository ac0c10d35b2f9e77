// RUN: kiln-opt --graph-to-linalg %s -split-input-file | FileCheck %s

// A broadcast binary op is one linalg.generic; the broadcast operand's unit dimension
// reads index 0.
// CHECK-DAG: #[[FULL:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]], #[[FULL]]]
// CHECK: arith.addf
func.func @add_broadcast(%a: tensor<3x4xf32>, %b: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %0 = graph.add %a, %b : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Unsigned division is divui: the graph type carries the signedness.
// CHECK-LABEL: func.func @div_unsigned
// CHECK: arith.divui
func.func @div_unsigned(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = graph.div %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Dynamic extents come from the operand that does not broadcast.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[DIM:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x4xf32>
// CHECK: tensor.empty(%[[DIM]]) : tensor<?x4xf32>
func.func @dynamic(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = graph.mul %a, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
