// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-unflatten-matmuls))' | FileCheck %s

// GPT-2's linear layer: Reshape [1, 3, 2] -> [3, 2], Gemm by a constant, Reshape back to
// [1, 3, 4]. It becomes one matmul of the 3-D input, so the residual Add after it has the
// anchor's shape.
// CHECK-LABEL: func.func @gpt2_linear
// CHECK: %[[P:.*]] = graph.matmul %arg0, %{{.*}} : (tensor<1x3x2xf32>, tensor<2x4xf32>) -> tensor<1x3x4xf32>
// CHECK: %[[Y:.*]] = graph.add %[[P]], %arg1
// CHECK-NOT: graph.reshape
// CHECK-NOT: graph.gemm
// CHECK: return %[[Y]]
func.func @gpt2_linear(%x: tensor<1x3x2xf32>, %residual: tensor<1x3x4xf32>) -> tensor<1x3x4xf32> {
  %flat = graph.constant dense<[-1, 2]> : tensor<2xi64>
  %shape = graph.constant dense<[1, 3, 4]> : tensor<3xi64>
  %w = graph.constant dense<1.0> : tensor<2x4xf32>
  %r = graph.reshape %x, %flat {allowzero = true} : (tensor<1x3x2xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  %g = graph.gemm %r, %w {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %y = graph.reshape %g, %shape {allowzero = true} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<1x3x4xf32>
  %z = graph.add %y, %residual : (tensor<1x3x4xf32>, tensor<1x3x4xf32>) -> tensor<1x3x4xf32>
  return %z : tensor<1x3x4xf32>
}

// -----

// A trans_b Gemm with a bias C: the [N, K] weight is transposed at compile time, C becomes
// an Add; two leading dimensions.
// CHECK-LABEL: func.func @gemm_trans_b_bias
// CHECK-DAG: %[[W:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG: %[[C:.*]] = graph.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK: %[[P:.*]] = graph.matmul %arg0, %[[W]] : (tensor<2x2x2xf32>, tensor<2x3xf32>) -> tensor<2x2x3xf32>
// CHECK: %[[Y:.*]] = graph.add %[[P]], %[[C]] : (tensor<2x2x3xf32>, tensor<3xf32>) -> tensor<2x2x3xf32>
// CHECK: return %[[Y]]
func.func @gemm_trans_b_bias(%x: tensor<2x2x2xf32>) -> tensor<2x2x3xf32> {
  %flat = graph.constant dense<[4, 2]> : tensor<2xi64>
  %shape = graph.constant dense<[2, 2, 3]> : tensor<3xi64>
  %w = graph.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %c = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %r = graph.reshape %x, %flat {allowzero = false} : (tensor<2x2x2xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  %g = graph.gemm %r, %w, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<4x2xf32>, tensor<3x2xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %y = graph.reshape %g, %shape {allowzero = false} : (tensor<4x3xf32>, tensor<3xi64>) -> tensor<2x2x3xf32>
  return %y : tensor<2x2x3xf32>
}

// -----

// MatMul and an Add of a bias between it and the reshape (both used only by the chain).
// CHECK-LABEL: func.func @matmul_add
// CHECK: %[[P:.*]] = graph.matmul %arg0, %{{.*}} : (tensor<1x3x2xf32>, tensor<2x4xf32>) -> tensor<1x3x4xf32>
// CHECK: %[[Y:.*]] = graph.add %[[P]], %{{.*}} : (tensor<1x3x4xf32>, tensor<1x4xf32>) -> tensor<1x3x4xf32>
// CHECK: return %[[Y]]
func.func @matmul_add(%x: tensor<1x3x2xf32>) -> tensor<1x3x4xf32> {
  %flat = graph.constant dense<[3, 2]> : tensor<2xi64>
  %shape = graph.constant dense<[1, 3, 4]> : tensor<3xi64>
  %w = graph.constant dense<1.0> : tensor<2x4xf32>
  %b = graph.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %r = graph.reshape %x, %flat {allowzero = false} : (tensor<1x3x2xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  %p = graph.matmul %r, %w : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %a = graph.add %b, %p : (tensor<1x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %y = graph.reshape %a, %shape {allowzero = false} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<1x3x4xf32>
  return %y : tensor<1x3x4xf32>
}

// -----

// The 2-D operand is not a reshape of a [1, 3, K] value (here a function argument; in
// GPT-2 the flattened attention output): a Reshape to [1, 3, 2] goes before the matmul,
// where the kernel takes it as a prologue.
// CHECK-LABEL: func.func @already_2d
// CHECK: %[[S:.*]] = graph.constant dense<[1, 3, 2]> : tensor<3xi64>
// CHECK: %[[X:.*]] = graph.reshape %arg0, %[[S]] {allowzero = false} : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<1x3x2xf32>
// CHECK: %[[P:.*]] = graph.matmul %[[X]], %{{.*}} -> tensor<1x3x4xf32>
// CHECK: return %[[P]]
func.func @already_2d(%x: tensor<3x2xf32>) -> tensor<1x3x4xf32> {
  %shape = graph.constant dense<[1, 3, 4]> : tensor<3xi64>
  %w = graph.constant dense<1.0> : tensor<2x4xf32>
  %p = graph.matmul %x, %w : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %y = graph.reshape %p, %shape {allowzero = false} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<1x3x4xf32>
  return %y : tensor<1x3x4xf32>
}

// -----

// Left alone: a Gemm with alpha 2; a product with another user; a reshape that also
// splits N (its result's last extent is not N); a Gemm whose C differs per row ([M, N]).
// Rewritten: a dynamic leading extent the analysis follows through [-1, 2] and back
// through [-1, 3, 4] (3 * x.0 rows on both sides).
// CHECK-LABEL: func.func @alpha
// CHECK: graph.gemm
// CHECK-LABEL: func.func @other_user
// CHECK: graph.matmul {{.*}} -> tensor<3x4xf32>
// CHECK-LABEL: func.func @splits_n
// CHECK: graph.matmul {{.*}} -> tensor<3x4xf32>
// CHECK-LABEL: func.func @dynamic
// CHECK: graph.matmul %arg0, %{{.*}} : (tensor<?x3x2xf32>, tensor<2x4xf32>) -> tensor<?x3x4xf32>
// CHECK-LABEL: func.func @full_c
// CHECK: graph.gemm
func.func @alpha(%x: tensor<1x3x2xf32>) -> tensor<1x3x4xf32> {
  %flat = graph.constant dense<[3, 2]> : tensor<2xi64>
  %shape = graph.constant dense<[1, 3, 4]> : tensor<3xi64>
  %w = graph.constant dense<1.0> : tensor<2x4xf32>
  %r = graph.reshape %x, %flat {allowzero = false} : (tensor<1x3x2xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  %g = graph.gemm %r, %w {alpha = 2.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %y = graph.reshape %g, %shape {allowzero = false} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<1x3x4xf32>
  return %y : tensor<1x3x4xf32>
}
func.func @other_user(%x: tensor<1x3x2xf32>) -> (tensor<1x3x4xf32>, tensor<3x4xf32>) {
  %flat = graph.constant dense<[3, 2]> : tensor<2xi64>
  %shape = graph.constant dense<[1, 3, 4]> : tensor<3xi64>
  %w = graph.constant dense<1.0> : tensor<2x4xf32>
  %r = graph.reshape %x, %flat {allowzero = false} : (tensor<1x3x2xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  %p = graph.matmul %r, %w : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %y = graph.reshape %p, %shape {allowzero = false} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<1x3x4xf32>
  return %y, %p : tensor<1x3x4xf32>, tensor<3x4xf32>
}
func.func @splits_n(%x: tensor<1x3x2xf32>) -> tensor<1x3x2x2xf32> {
  %flat = graph.constant dense<[3, 2]> : tensor<2xi64>
  %shape = graph.constant dense<[1, 3, 2, 2]> : tensor<4xi64>
  %w = graph.constant dense<1.0> : tensor<2x4xf32>
  %r = graph.reshape %x, %flat {allowzero = false} : (tensor<1x3x2xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  %p = graph.matmul %r, %w : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  %y = graph.reshape %p, %shape {allowzero = false} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<1x3x2x2xf32>
  return %y : tensor<1x3x2x2xf32>
}
func.func @dynamic(%x: tensor<?x3x2xf32>) -> tensor<?x3x4xf32> {
  %flat = graph.constant dense<[-1, 2]> : tensor<2xi64>
  %shape = graph.constant dense<[-1, 3, 4]> : tensor<3xi64>
  %w = graph.constant dense<1.0> : tensor<2x4xf32>
  %r = graph.reshape %x, %flat {allowzero = false} : (tensor<?x3x2xf32>, tensor<2xi64>) -> tensor<?x2xf32>
  %p = graph.matmul %r, %w : (tensor<?x2xf32>, tensor<2x4xf32>) -> tensor<?x4xf32>
  %y = graph.reshape %p, %shape {allowzero = false} : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<?x3x4xf32>
  return %y : tensor<?x3x4xf32>
}
func.func @full_c(%x: tensor<1x3x2xf32>) -> tensor<1x3x4xf32> {
  %flat = graph.constant dense<[3, 2]> : tensor<2xi64>
  %shape = graph.constant dense<[1, 3, 4]> : tensor<3xi64>
  %w = graph.constant dense<1.0> : tensor<2x4xf32>
  %c = graph.constant dense<1.0> : tensor<3x4xf32>
  %r = graph.reshape %x, %flat {allowzero = false} : (tensor<1x3x2xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  %g = graph.gemm %r, %w, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<3x2xf32>, tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %y = graph.reshape %g, %shape {allowzero = false} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<1x3x4xf32>
  return %y : tensor<1x3x4xf32>
}

// -----

// A dynamic engine's linear layer: [batch, sequence, 2] flattened to [-1, 2], and back to
// [batch, sequence, 4] through a shape the graph computes. The symbolic analysis proves
// the rows batch*sequence on both sides, so it becomes the 3-D matmul as above.
// CHECK-LABEL: func.func @dynamic_linear
// CHECK: %[[P:.*]] = graph.matmul %arg0, %{{.*}} : (tensor<?x?x2xf32>, tensor<2x4xf32>) -> tensor<?x?x4xf32>
// CHECK: %[[Y:.*]] = graph.add %[[P]], %{{.*}} : (tensor<?x?x4xf32>, tensor<4xf32>)
// CHECK-NOT: graph.gemm
// CHECK: return %[[Y]]
func.func @dynamic_linear(%x: tensor<?x?x2xf32> {graph.dims = ["batch", "sequence", ""]}) -> tensor<?x?x4xf32> {
  %flat = graph.constant dense<[-1, 2]> : tensor<2xi64>
  %w = graph.constant dense<1.0> : tensor<2x4xf32>
  %c = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %shape = graph.shape %x {start = 0 : i64} : (tensor<?x?x2xf32>) -> tensor<3xi64>
  %leading = graph.constant dense<[0, 1]> : tensor<2xi64>
  %dims = graph.gather %shape, %leading {axis = 0 : i64} : (tensor<3xi64>, tensor<2xi64>) -> tensor<2xi64>
  %n = graph.constant dense<[4]> : tensor<1xi64>
  %target = graph.concat %dims, %n {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
  %r = graph.reshape %x, %flat {allowzero = false} : (tensor<?x?x2xf32>, tensor<2xi64>) -> tensor<?x2xf32>
  %g = graph.gemm %r, %w, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<?x2xf32>, tensor<2x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %y = graph.reshape %g, %target {allowzero = false} : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<?x?x4xf32>
  return %y : tensor<?x?x4xf32>
}

// -----

// Reshaped back to extents the analysis cannot tie to the input's (a shape from another
// input): not rewritten.
// CHECK-LABEL: func.func @dynamic_unrelated
// CHECK: graph.gemm
func.func @dynamic_unrelated(%x: tensor<?x?x2xf32> {graph.dims = ["batch", "sequence", ""]}, %target: tensor<3xi64>) -> tensor<?x?x4xf32> {
  %flat = graph.constant dense<[-1, 2]> : tensor<2xi64>
  %w = graph.constant dense<1.0> : tensor<2x4xf32>
  %r = graph.reshape %x, %flat {allowzero = false} : (tensor<?x?x2xf32>, tensor<2xi64>) -> tensor<?x2xf32>
  %g = graph.gemm %r, %w {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<?x2xf32>, tensor<2x4xf32>) -> tensor<?x4xf32>
  %y = graph.reshape %g, %target {allowzero = false} : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<?x?x4xf32>
  return %y : tensor<?x?x4xf32>
}

// -----

// An attention's output projection in a dynamic engine: [batch, sequence, 2 heads, 3]
// flattened to [-1, 6], the product reshaped back to [batch, sequence, 4]. The input's
// leading extents are the result's and its others multiply to K: the matmul reads a
// Reshape to [batch, sequence, 6] that keeps the leading extents as they are (0s, with
// allowzero false), and the residual Add after it is of the matmul's shape.
// CHECK-LABEL: func.func @dynamic_heads
// CHECK: %[[TARGET:.*]] = graph.constant dense<[0, 0, 6]> : tensor<3xi64>
// CHECK: %[[IN:.*]] = graph.reshape %arg0, %[[TARGET]] {allowzero = false} : (tensor<?x?x2x3xf32>, tensor<3xi64>) -> tensor<?x?x6xf32>
// CHECK: %[[P:.*]] = graph.matmul %[[IN]], %{{.*}} : (tensor<?x?x6xf32>, tensor<6x4xf32>) -> tensor<?x?x4xf32>
// CHECK: graph.add %[[P]], %arg1
// CHECK-NOT: graph.gemm
func.func @dynamic_heads(%x: tensor<?x?x2x3xf32> {graph.dims = ["batch", "sequence", "", ""]}, %residual: tensor<?x?x4xf32> {graph.dims = ["batch", "sequence", ""]}) -> tensor<?x?x4xf32> {
  %flat = graph.constant dense<[-1, 6]> : tensor<2xi64>
  %w = graph.constant dense<1.0> : tensor<6x4xf32>
  %shape = graph.shape %x {start = 0 : i64, end = 2 : i64} : (tensor<?x?x2x3xf32>) -> tensor<2xi64>
  %n = graph.constant dense<[4]> : tensor<1xi64>
  %target = graph.concat %shape, %n {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
  %r = graph.reshape %x, %flat {allowzero = false} : (tensor<?x?x2x3xf32>, tensor<2xi64>) -> tensor<?x6xf32>
  %g = graph.gemm %r, %w {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<?x6xf32>, tensor<6x4xf32>) -> tensor<?x4xf32>
  %y = graph.reshape %g, %target {allowzero = true} : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<?x?x4xf32>
  %sum = graph.add %y, %residual : (tensor<?x?x4xf32>, tensor<?x?x4xf32>) -> tensor<?x?x4xf32>
  return %sum : tensor<?x?x4xf32>
}
