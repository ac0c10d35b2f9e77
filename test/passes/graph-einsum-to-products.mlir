// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-einsum-to-products))' | FileCheck %s

// Batched matrices: bij,bjk->bik is a matmul as it is.
// CHECK-LABEL: func.func @batched
// CHECK-NEXT: %[[P:.*]] = graph.matmul %arg0, %arg1 : (tensor<4x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
// CHECK-NEXT: return %[[P]]
func.func @batched(%a: tensor<4x2x3xf32>, %b: tensor<4x3x5xf32>) -> tensor<4x2x5xf32> {
  %y = graph.einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<4x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
  return %y : tensor<4x2x5xf32>
}

// -----

// Attention's scores written as an Einsum: K is transposed to [b, h, d, k], then Q K^T.
// CHECK-LABEL: func.func @scores
// CHECK: %[[K:.*]] = graph.transpose %arg1 {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x3x7x8xf16>) -> tensor<2x3x8x7xf16>
// CHECK: graph.matmul %arg0, %[[K]] : (tensor<2x3x5x8xf16>, tensor<2x3x8x7xf16>) -> tensor<2x3x5x7xf16>
func.func @scores(%q: tensor<2x3x5x8xf16>, %k: tensor<2x3x7x8xf16>) -> tensor<2x3x5x7xf16> {
  %s = graph.einsum %q, %k {equation = "bhqd,bhkd->bhqk"} : (tensor<2x3x5x8xf16>, tensor<2x3x7x8xf16>) -> tensor<2x3x5x7xf16>
  return %s : tensor<2x3x5x7xf16>
}

// -----

// Several row and contracted letters, the result in another order: B has no b, so b, i
// and j are A's row letters, p and q contracted, k B's column; the product
// [b*i*j, p*q] x [p*q, k], reshaped to [b, i, j, k] and transposed to k, b, i, j.
// CHECK-LABEL: func.func @merged
// CHECK: %[[A:.*]] = graph.reshape %arg0, {{.*}} -> tensor<24x20xf32>
// CHECK: %[[B:.*]] = graph.reshape %arg1, {{.*}} -> tensor<20x6xf32>
// CHECK: %[[P:.*]] = graph.matmul %[[A]], %[[B]] : (tensor<24x20xf32>, tensor<20x6xf32>) -> tensor<24x6xf32>
// CHECK: %[[R:.*]] = graph.reshape %[[P]], {{.*}} -> tensor<2x3x4x6xf32>
// CHECK: graph.transpose %[[R]] {perm = array<i64: 3, 0, 1, 2>} : (tensor<2x3x4x6xf32>) -> tensor<6x2x3x4xf32>
func.func @merged(%a: tensor<2x3x4x4x5xf32>, %b: tensor<4x5x6xf32>) -> tensor<6x2x3x4xf32> {
  %y = graph.einsum %a, %b {equation = "bijpq,pqk->kbij"} : (tensor<2x3x4x4x5xf32>, tensor<4x5x6xf32>) -> tensor<6x2x3x4xf32>
  return %y : tensor<6x2x3x4xf32>
}

// -----

// What stays: a trace (a letter twice), a letter summed within one operand, an ellipsis,
// an implicit result, three operands.
// CHECK-LABEL: func.func @stays
// CHECK-COUNT-5: graph.einsum
// CHECK-NOT: graph.matmul
func.func @stays(%a: tensor<3x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x3x4xf32>) -> (tensor<3xf32>, tensor<4xf32>, tensor<2x3x3xf32>, tensor<3x3xf32>, tensor<3x4xf32>) {
  %d = graph.einsum %a, %b {equation = "ii,ij->i"} : (tensor<3x3xf32>, tensor<3x4xf32>) -> tensor<3xf32>
  %s = graph.einsum %a, %b {equation = "ij,kl->l"} : (tensor<3x3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  %e = graph.einsum %c, %b {equation = "...j,kj->...k"} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x3xf32>
  %i = graph.einsum %a, %a {equation = "ij,jk"} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %t = graph.einsum %a, %a, %b {equation = "ij,jk,kl->il"} : (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %d, %s, %e, %i, %t : tensor<3xf32>, tensor<4xf32>, tensor<2x3x3xf32>, tensor<3x3xf32>, tensor<3x4xf32>
}
