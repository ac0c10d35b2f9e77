// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-fold-batch-norm))' | FileCheck %s

// Conv without bias: per channel s = scale / sqrt(var + eps), t = B - mean * s.
// Channel 0: s = 2 / sqrt(3 + 1) = 1, t = 1 - 0.5 = 0.5; channel 1: s = 0.5 / sqrt(0 + 1)
// = 0.5, t = -1 - 2 * 0.5 = -2. The weight's channel 1 is halved, the bias is created.
// CHECK-LABEL: func.func @conv_no_bias
// CHECK-DAG: %[[W:.*]] = graph.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]], {{\[\[\[}}-5.000000e-01, 2.500000e-01], [1.250000e-01, 1.000000e+00]]]]> : tensor<2x1x2x2xf32>
// CHECK-DAG: %[[B:.*]] = graph.constant dense<[5.000000e-01, -2.000000e+00]> : tensor<2xf32>
// CHECK: %[[Y:.*]] = graph.conv %arg0, %[[W]], %[[B]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
// CHECK-NOT: graph.batch_normalization
// CHECK: return %[[Y]]
func.func @conv_no_bias(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x2x2xf32> {
  %w = graph.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[-1.0, 0.5], [0.25, 2.0]]]]> : tensor<2x1x2x2xf32>
  %y = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  %scale = graph.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %b = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mean = graph.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %var = graph.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %z = graph.batch_normalization %y, %scale, %b, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %z : tensor<1x2x2x2xf32>
}

// -----

// Conv with a bias, dynamic batch: bias' = (bias - mean) * s + B. s = 4 / sqrt(3 + 1) = 2,
// bias' = (3 - 1) * 2 + 0.5 = 4.5; the weight doubles.
// CHECK-LABEL: func.func @conv_bias
// CHECK-DAG: %[[W:.*]] = graph.constant dense<{{\[\[\[\[}}2.000000e+00, -6.000000e+00]]]]> : tensor<1x1x1x2xf32>
// CHECK-DAG: %[[B:.*]] = graph.constant dense<4.500000e+00> : tensor<1xf32>
// CHECK: graph.conv %arg0, %[[W]], %[[B]]
// CHECK-SAME: -> tensor<?x1x4x3xf32>
// CHECK-NOT: graph.batch_normalization
func.func @conv_bias(%x: tensor<?x1x4x4xf32>) -> tensor<?x1x4x3xf32> {
  %w = graph.constant dense<[[[[1.0, -3.0]]]]> : tensor<1x1x1x2xf32>
  %bias = graph.constant dense<3.0> : tensor<1xf32>
  %y = graph.conv %x, %w, %bias {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<?x1x4x4xf32>, tensor<1x1x1x2xf32>, tensor<1xf32>) -> tensor<?x1x4x3xf32>
  %scale = graph.constant dense<4.0> : tensor<1xf32>
  %b = graph.constant dense<0.5> : tensor<1xf32>
  %mean = graph.constant dense<1.0> : tensor<1xf32>
  %var = graph.constant dense<3.0> : tensor<1xf32>
  %z = graph.batch_normalization %y, %scale, %b, %mean, %var {epsilon = 1.0 : f32} : (tensor<?x1x4x3xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x1x4x3xf32>
  return %z : tensor<?x1x4x3xf32>
}

// -----

// An f16 conv: the weight and the new bias stay f16 (the parameters may be f32).
// CHECK-LABEL: func.func @conv_f16
// CHECK-DAG: graph.constant dense<{{\[\[\[\[}}5.000000e-01]]], {{\[\[\[}}3.000000e+00]]]]> : tensor<2x1x1x1xf16>
// CHECK-DAG: graph.constant dense<[-5.000000e-01, 0.000000e+00]> : tensor<2xf16>
// CHECK-NOT: graph.batch_normalization
func.func @conv_f16(%x: tensor<1x1x2x2xf16>) -> tensor<1x2x2x2xf16> {
  %w = graph.constant dense<[[[[1.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf16>
  %y = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf16>, tensor<2x1x1x1xf16>) -> tensor<1x2x2x2xf16>
  %scale = graph.constant dense<[0.5, 1.0]> : tensor<2xf16>
  %b = graph.constant dense<[0.0, 0.0]> : tensor<2xf16>
  %mean = graph.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %var = graph.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %z = graph.batch_normalization %y, %scale, %b, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2x2x2xf16>, tensor<2xf16>, tensor<2xf16>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf16>
  return %z : tensor<1x2x2x2xf16>
}

// -----

// Weights held as resource blobs (as imported) are read and written as blobs: s = 4 /
// sqrt(2 + 2) = 2, t = 2 - 2 * 2 = -2; the weights [0, 1, 2, 3, 4, 0, ...] double.
// CHECK-LABEL: func.func @conv_resource
// CHECK: %[[W:.*]] = graph.constant dense_resource<batch_norm_folded> : tensor<20x1x1x1xf32>
// CHECK: %[[B:.*]] = graph.constant dense_resource<batch_norm_folded_1> : tensor<20xf32>
// CHECK: graph.conv %arg0, %[[W]], %[[B]]
// CHECK-NOT: graph.batch_normalization
// CHECK: batch_norm_folded: "0x040000000000000000000040000080400000C0400000004100000000
// CHECK: batch_norm_folded_1: "0x04000000000000C0000000C0
func.func @conv_resource(%x: tensor<1x1x2x2xf32>) -> tensor<1x20x2x2xf32> {
  %w = graph.constant dense_resource<weight> : tensor<20x1x1x1xf32>
  %y = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<20x1x1x1xf32>) -> tensor<1x20x2x2xf32>
  %s = graph.constant dense<2.0> : tensor<20xf32>
  %four = graph.constant dense<4.0> : tensor<20xf32>
  %z = graph.batch_normalization %y, %four, %s, %s, %s {epsilon = 2.0 : f32} : (tensor<1x20x2x2xf32>, tensor<20xf32>, tensor<20xf32>, tensor<20xf32>, tensor<20xf32>) -> tensor<1x20x2x2xf32>
  return %z : tensor<1x20x2x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      weight: "0x04000000000000000000803F000000400000404000008040000000000000803F000000400000404000008040000000000000803F000000400000404000008040000000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// Gemm with trans_b: B is [N, K], row n scales by s[n]; C (scaled by beta) joins the
// bias and beta becomes 1. s = [1, 2] (scale 2 and 4, var 3, eps 1), t = B - mean * s = [0, -1].
// c' = beta * c * s + t = [0.5 * 2 * 1 + 0, 0.5 * 4 * 2 - 1] = [1, 3].
// CHECK-LABEL: func.func @gemm
// CHECK-DAG: %[[W:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [8.000000e+00, 1.000000e+01, 1.200000e+01]]> : tensor<2x3xf32>
// CHECK-DAG: %[[C:.*]] = graph.constant dense<[1.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK: graph.gemm %arg0, %[[W]], %[[C]] {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = true}
// CHECK-NOT: graph.batch_normalization
func.func @gemm(%x: tensor<?x3xf32>) -> tensor<?x2xf32> {
  %w = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %c = graph.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %y = graph.gemm %x, %w, %c {alpha = 1.0 : f32, beta = 0.5 : f32, trans_a = false, trans_b = true} : (tensor<?x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %scale = graph.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %b = graph.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %mean = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = graph.constant dense<[3.0, 3.0]> : tensor<2xf32>
  %z = graph.batch_normalization %y, %scale, %b, %mean, %var {epsilon = 1.0 : f32} : (tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %z : tensor<?x2xf32>
}

// -----

// MatMul by a constant [K, N] and an Add of a constant bias: column n scales by s[n].
// s = [1, 2], t = [0, -1]; bias' = [1 * 1 + 0, 1 * 2 - 1] = [1, 1].
// CHECK-LABEL: func.func @matmul_add
// CHECK-DAG: %[[W:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [3.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[B:.*]] = graph.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK: %[[P:.*]] = graph.matmul %arg0, %[[W]]
// CHECK: %[[S:.*]] = graph.add %[[P]], %[[B]]
// CHECK-NOT: graph.batch_normalization
// CHECK: return %[[S]]
func.func @matmul_add(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %w = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %p = graph.matmul %x, %w : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %bias = graph.constant dense<1.0> : tensor<2xf32>
  %y = graph.add %bias, %p : (tensor<2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %scale = graph.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %b = graph.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %mean = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = graph.constant dense<[3.0, 3.0]> : tensor<2xf32>
  %z = graph.batch_normalization %y, %scale, %b, %mean, %var {epsilon = 1.0 : f32} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  return %z : tensor<4x2xf32>
}

// -----

// The conv's output is used twice: it cannot change. The BatchNorm becomes pointwise, by
// [C, 1, 1] constants: s = [1, 0.5], t = [0.5, -2].
// CHECK-LABEL: func.func @conv_used_twice
// CHECK: %[[Y:.*]] = graph.conv %arg0, %{{[^,]*}} {
// CHECK-DAG: %[[S:.*]] = graph.constant dense<{{\[\[\[}}1.000000e+00]], {{\[\[}}5.000000e-01]]]> : tensor<2x1x1xf32>
// CHECK-DAG: %[[T:.*]] = graph.constant dense<{{\[\[\[}}5.000000e-01]], {{\[\[}}-2.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK: %[[M:.*]] = graph.mul %[[Y]], %[[S]] : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK: %[[A:.*]] = graph.add %[[M]], %[[T]]
// CHECK: return %[[A]], %[[Y]]
func.func @conv_used_twice(%x: tensor<1x1x3x3xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = graph.constant dense<1.0> : tensor<2x1x2x2xf32>
  %y = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  %scale = graph.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %b = graph.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mean = graph.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %var = graph.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %z = graph.batch_normalization %y, %scale, %b, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %z, %y : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A BatchNorm on a function argument (no producer to fold into), 3-D input: [C, 1].
// CHECK-LABEL: func.func @pointwise_3d
// CHECK: %[[M:.*]] = graph.mul %arg0, %{{.*}} : (tensor<?x2x5xf32>, tensor<2x1xf32>) -> tensor<?x2x5xf32>
// CHECK: graph.add %[[M]], %{{.*}} : (tensor<?x2x5xf32>, tensor<2x1xf32>) -> tensor<?x2x5xf32>
// CHECK-NOT: graph.batch_normalization
func.func @pointwise_3d(%x: tensor<?x2x5xf32>) -> tensor<?x2x5xf32> {
  %p = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %z = graph.batch_normalization %x, %p, %p, %p, %p {epsilon = 1.0e-05 : f32} : (tensor<?x2x5xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x5xf32>
  return %z : tensor<?x2x5xf32>
}

// -----

// A mean that is not a constant: nothing to fold, the BatchNorm stays.
// CHECK-LABEL: func.func @mean_not_constant
// CHECK: graph.conv
// CHECK: graph.batch_normalization
// CHECK-NOT: graph.mul
func.func @mean_not_constant(%x: tensor<1x1x3x3xf32>, %mean: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  %w = graph.constant dense<1.0> : tensor<2x1x2x2xf32>
  %y = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  %p = graph.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %z = graph.batch_normalization %y, %p, %p, %mean, %p {epsilon = 1.0 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %z : tensor<1x2x2x2xf32>
}

// -----

// Training mode normalises with the batch's statistics and updates the running ones:
// left alone.
// CHECK-LABEL: func.func @training_mode
// CHECK: graph.conv
// CHECK: graph.batch_normalization {{.*}} training_mode
// CHECK-NOT: graph.mul
func.func @training_mode(%x: tensor<1x1x3x3xf32>) -> (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %w = graph.constant dense<1.0> : tensor<2x1x2x2xf32>
  %y = graph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  %p = graph.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %z:3 = graph.batch_normalization %y, %p, %p, %p, %p {epsilon = 1.0 : f32, momentum = 0.9 : f32, training_mode} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %z#0, %z#1, %z#2 : tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>
}
