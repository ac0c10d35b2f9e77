// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-move-row-transposes))' | FileCheck %s

// nn.MultiheadAttention's sequence-first projection: the transpose [B, S, E] -> [S, B, E]
// before the QKV product and its bias moves after them, next to the head split (a
// reshape) that reads it.
// CHECK-LABEL: func.func @down_to_the_split
// CHECK: %[[P:.*]] = graph.matmul %arg0, %{{.*}} : (tensor<2x5x8xf16>, tensor<8x24xf16>) -> tensor<2x5x24xf16>
// CHECK: %[[B:.*]] = graph.add %[[P]], %{{.*}} : (tensor<2x5x24xf16>, tensor<24xf16>) -> tensor<2x5x24xf16>
// CHECK: %[[T:.*]] = graph.transpose %[[B]] {perm = array<i64: 1, 0, 2>} : (tensor<2x5x24xf16>) -> tensor<5x2x24xf16>
// CHECK: graph.reshape %[[T]]
func.func @down_to_the_split(%x: tensor<2x5x8xf16>, %w: tensor<8x24xf16>, %b: tensor<24xf16>) -> tensor<5x2x3x8xf16> {
  %shape = graph.constant dense<[5, 2, 3, 8]> : tensor<4xi64>
  %t = graph.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<2x5x8xf16>) -> tensor<5x2x8xf16>
  %p = graph.matmul %t, %w : (tensor<5x2x8xf16>, tensor<8x24xf16>) -> tensor<5x2x24xf16>
  %q = graph.add %p, %b : (tensor<5x2x24xf16>, tensor<24xf16>) -> tensor<5x2x24xf16>
  %r = graph.reshape %q, %shape {allowzero = false} : (tensor<5x2x24xf16>, tensor<4xi64>) -> tensor<5x2x3x8xf16>
  return %r : tensor<5x2x3x8xf16>
}

// -----

// After the output projection: the transpose back to [B, S, E] moves before the product
// and its bias, next to the merge of the heads (a reshape); the residual Add then reads
// the product in its own layout.
// CHECK-LABEL: func.func @up_to_the_merge
// CHECK: %[[R:.*]] = graph.reshape
// CHECK: %[[T:.*]] = graph.transpose %[[R]] {perm = array<i64: 1, 0, 2>} : (tensor<5x2x8xf16>) -> tensor<2x5x8xf16>
// CHECK: %[[P:.*]] = graph.matmul %[[T]], %{{.*}} : (tensor<2x5x8xf16>, tensor<8x8xf16>) -> tensor<2x5x8xf16>
// CHECK: %[[B:.*]] = graph.add %[[P]], %{{.*}} : (tensor<2x5x8xf16>, tensor<8xf16>) -> tensor<2x5x8xf16>
// CHECK: graph.add %[[B]], %arg1
func.func @up_to_the_merge(%o: tensor<5x2x2x4xf16>, %x: tensor<2x5x8xf16>, %w: tensor<8x8xf16>, %b: tensor<8xf16>) -> tensor<2x5x8xf16> {
  %shape = graph.constant dense<[5, 2, 8]> : tensor<3xi64>
  %r = graph.reshape %o, %shape {allowzero = false} : (tensor<5x2x2x4xf16>, tensor<3xi64>) -> tensor<5x2x8xf16>
  %p = graph.matmul %r, %w : (tensor<5x2x8xf16>, tensor<8x8xf16>) -> tensor<5x2x8xf16>
  %q = graph.add %p, %b : (tensor<5x2x8xf16>, tensor<8xf16>) -> tensor<5x2x8xf16>
  %t = graph.transpose %q {perm = array<i64: 1, 0, 2>} : (tensor<5x2x8xf16>) -> tensor<2x5x8xf16>
  %y = graph.add %t, %x : (tensor<2x5x8xf16>, tensor<2x5x8xf16>) -> tensor<2x5x8xf16>
  return %y : tensor<2x5x8xf16>
}

// -----

// What stays: a transpose that moves the last axis; one whose chain meets data movement
// at neither end (a residual Add after it, a LayerNorm before); one whose product has
// another user; one already next to a reshape.
// CHECK-LABEL: func.func @stays
// CHECK: graph.transpose %arg0 {perm = array<i64: 0, 2, 1>}
// CHECK: graph.transpose %arg1 {perm = array<i64: 1, 0, 2>}
// CHECK-NEXT: graph.matmul
// CHECK-LABEL: func.func @shared_product
// CHECK: graph.matmul %arg0
// CHECK-NEXT: graph.transpose
// CHECK-LABEL: func.func @next_to_a_reshape
// CHECK: graph.reshape
// CHECK-NEXT: graph.transpose
// CHECK-NEXT: graph.matmul
func.func @stays(%a: tensor<2x5x8xf16>, %x: tensor<2x5x8xf16>, %w: tensor<8x8xf16>, %r: tensor<5x2x8xf16>) -> (tensor<2x8x5xf16>, tensor<5x2x8xf16>) {
  %t = graph.transpose %a {perm = array<i64: 0, 2, 1>} : (tensor<2x5x8xf16>) -> tensor<2x8x5xf16>
  %u = graph.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<2x5x8xf16>) -> tensor<5x2x8xf16>
  %p = graph.matmul %u, %w : (tensor<5x2x8xf16>, tensor<8x8xf16>) -> tensor<5x2x8xf16>
  %y = graph.add %p, %r : (tensor<5x2x8xf16>, tensor<5x2x8xf16>) -> tensor<5x2x8xf16>
  return %t, %y : tensor<2x8x5xf16>, tensor<5x2x8xf16>
}
func.func @shared_product(%x: tensor<5x2x8xf16>, %w: tensor<8x8xf16>) -> (tensor<5x2x8xf16>, tensor<2x5x8xf16>) {
  %p = graph.matmul %x, %w : (tensor<5x2x8xf16>, tensor<8x8xf16>) -> tensor<5x2x8xf16>
  %t = graph.transpose %p {perm = array<i64: 1, 0, 2>} : (tensor<5x2x8xf16>) -> tensor<2x5x8xf16>
  return %p, %t : tensor<5x2x8xf16>, tensor<2x5x8xf16>
}
func.func @next_to_a_reshape(%o: tensor<5x2x2x4xf16>, %w: tensor<8x8xf16>) -> tensor<2x5x8xf16> {
  %shape = graph.constant dense<[5, 2, 8]> : tensor<3xi64>
  %r = graph.reshape %o, %shape {allowzero = false} : (tensor<5x2x2x4xf16>, tensor<3xi64>) -> tensor<5x2x8xf16>
  %t = graph.transpose %r {perm = array<i64: 1, 0, 2>} : (tensor<5x2x8xf16>) -> tensor<2x5x8xf16>
  %p = graph.matmul %t, %w : (tensor<2x5x8xf16>, tensor<8x8xf16>) -> tensor<2x5x8xf16>
  return %p : tensor<2x5x8xf16>
}
