// graph-infer-shapes refines result types from the ops' shape rules.
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-infer-shapes))' | FileCheck %s

// Dynamic extents that the operands determine become static, through a chain of ops,
// and the function's result type follows.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: -> tensor<1x8x6x6xf32>
// CHECK: graph.conv {{.*}} -> tensor<1x8x6x6xf32>
// CHECK: graph.relu %{{.*}} : tensor<1x8x6x6xf32>
// CHECK: graph.add {{.*}} -> tensor<1x8x6x6xf32>
func.func @chain(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x?x?x?xf32> {
  %y = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  %r = graph.relu %y : tensor<?x?x?x?xf32>
  %s = graph.add %r, %y : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %s : tensor<?x?x?x?xf32>
}

// -----

// Unranked results become ranked; extents the operands leave open stay dynamic.
// CHECK-LABEL: func.func @unranked
// CHECK-SAME: -> tensor<?x12x128x?xf32>
// CHECK: graph.matmul {{.*}} -> tensor<?x12x128x?xf32>
func.func @unranked(%q: tensor<?x12x128x64xf32>, %k: tensor<?x12x64x?xf32>) -> tensor<*xf32> {
  %s = graph.matmul %q, %k : (tensor<?x12x128x64xf32>, tensor<?x12x64x?xf32>) -> tensor<*xf32>
  return %s : tensor<*xf32>
}

// -----

// A declared static extent is kept even where the operands leave it open.
// CHECK-LABEL: func.func @keeps_declared
// CHECK: graph.add {{.*}} -> tensor<4x3xf32>
func.func @keeps_declared(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %c = graph.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %c : tensor<4x3xf32>
}
