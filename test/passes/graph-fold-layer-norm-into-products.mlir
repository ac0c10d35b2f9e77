// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-fold-layer-norm-into-products))' | FileCheck %s
// Its two forms: graph.layer_normalization (centred weights) and graph.rms_normalization.

// f16, K = 4, N = 2: gamma = [1, 2, 1, 2] scales W's rows to [[1, 0], [0, 2], [1, 1],
// [4, -2]], whose column means 1.5 and 0.25 are subtracted: Wc = [[-0.5, -0.25], [-1.5,
// 1.75], [-0.5, 0.75], [2.5, -2.25]]. beta W = 0.5 * W's row 0 = [0.5, 0], plus the bias
// [1, 2]: [1.5, 2]. The product reads x; 1 / sigma scales it in f32.
// CHECK-LABEL: func.func @bias
// CHECK: %{{.*}}, %{{.*}}, %[[INV:.*]] = graph.layer_normalization %arg0
// CHECK: %[[WC:.*]] = graph.constant dense<{{\[\[}}-5.000000e-01, -2.500000e-01], [-1.500000e+00, 1.750000e+00], [-5.000000e-01, 7.500000e-01], [2.500000e+00, -2.250000e+00]]> : tensor<4x2xf16>
// CHECK: %[[P:.*]] = graph.matmul %arg0, %[[WC]] : (tensor<3x4xf16>, tensor<4x2xf16>) -> tensor<3x2xf16>
// CHECK: %[[WIDE:.*]] = graph.cast %[[P]] {to = f32} : (tensor<3x2xf16>) -> tensor<3x2xf32>
// CHECK: %[[SCALED:.*]] = graph.mul %[[WIDE]], %[[INV]] : (tensor<3x2xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
// CHECK: %[[SHIFT:.*]] = graph.constant dense<[1.500000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: %[[SHIFTED:.*]] = graph.add %[[SCALED]], %[[SHIFT]] : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK: %[[OUT:.*]] = graph.cast %[[SHIFTED]] {to = f16} : (tensor<3x2xf32>) -> tensor<3x2xf16>
// CHECK-NOT: graph.matmul
// CHECK: return %[[OUT]]
func.func @bias(%x: tensor<3x4xf16>) -> tensor<3x2xf16> {
  %gamma = graph.constant dense<[1.0, 2.0, 1.0, 2.0]> : tensor<4xf16>
  %beta = graph.constant dense<[0.5, 0.0, 0.0, 0.0]> : tensor<4xf16>
  %w = graph.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]]> : tensor<4x2xf16>
  %b = graph.constant dense<[1.0, 2.0]> : tensor<2xf16>
  %y, %mean, %inv = graph.layer_normalization %x, %gamma, %beta {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32} : (tensor<3x4xf16>, tensor<4xf16>, tensor<4xf16>) -> (tensor<3x4xf16>, tensor<3x1xf32>, tensor<3x1xf32>)
  %p = graph.matmul %y, %w : (tensor<3x4xf16>, tensor<4x2xf16>) -> tensor<3x2xf16>
  %z = graph.add %p, %b : (tensor<3x2xf16>, tensor<2xf16>) -> tensor<3x2xf16>
  return %z : tensor<3x2xf16>
}

// -----

// Two products of one LayerNorm (separate Q and K projections), f32, a dynamic batch, no
// beta and no bias: no shift, no casts. gamma 1: Wc is W less its column means.
// CHECK-LABEL: func.func @two_products
// CHECK: %{{.*}}, %{{.*}}, %[[INV:.*]] = graph.layer_normalization %arg0
// CHECK: %[[W1:.*]] = graph.constant dense<{{\[\[}}-1.000000e+00], [1.000000e+00]]> : tensor<2x1xf32>
// CHECK: %[[P1:.*]] = graph.matmul %arg0, %[[W1]] : (tensor<?x5x2xf32>, tensor<2x1xf32>) -> tensor<?x5x1xf32>
// CHECK: %[[S1:.*]] = graph.mul %[[P1]], %[[INV]] : (tensor<?x5x1xf32>, tensor<?x5x1xf32>) -> tensor<?x5x1xf32>
// CHECK: %[[W2:.*]] = graph.constant dense<0.000000e+00> : tensor<2x1xf32>
// CHECK: %[[P2:.*]] = graph.matmul %arg0, %[[W2]]
// CHECK: %[[S2:.*]] = graph.mul %[[P2]], %[[INV]]
// CHECK-NOT: graph.add
// CHECK: return %[[S1]], %[[S2]]
func.func @two_products(%x: tensor<?x5x2xf32>) -> (tensor<?x5x1xf32>, tensor<?x5x1xf32>) {
  %gamma = graph.constant dense<1.0> : tensor<2xf32>
  %w1 = graph.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %w2 = graph.constant dense<[[2.0], [2.0]]> : tensor<2x1xf32>
  %y, %mean, %inv = graph.layer_normalization %x, %gamma {axis = 2 : i64, epsilon = 1.0e-05 : f32, stash_type = f32} : (tensor<?x5x2xf32>, tensor<2xf32>) -> (tensor<?x5x2xf32>, tensor<?x5x1xf32>, tensor<?x5x1xf32>)
  %q = graph.matmul %y, %w1 : (tensor<?x5x2xf32>, tensor<2x1xf32>) -> tensor<?x5x1xf32>
  %k = graph.matmul %y, %w2 : (tensor<?x5x2xf32>, tensor<2x1xf32>) -> tensor<?x5x1xf32>
  return %q, %k : tensor<?x5x1xf32>, tensor<?x5x1xf32>
}

// -----

// Left alone: the normalised rows are also read by something else (a post-norm block's
// residual), so they are written anyway.
// CHECK-LABEL: func.func @other_reader
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}} = graph.layer_normalization
// CHECK: graph.matmul %[[Y]]
// CHECK: graph.add %[[Y]]
func.func @other_reader(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %gamma = graph.constant dense<1.0> : tensor<2xf32>
  %w = graph.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %y, %mean, %inv = graph.layer_normalization %x, %gamma {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32} : (tensor<3x2xf32>, tensor<2xf32>) -> (tensor<3x2xf32>, tensor<3x1xf32>, tensor<3x1xf32>)
  %p = graph.matmul %y, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %z = graph.add %y, %p : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %z : tensor<3x2xf32>
}

// -----

// Left alone: a weight computed at run time, a normalisation over two axes, a gamma that is
// an input.
// CHECK-LABEL: func.func @not_constant
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}} = graph.layer_normalization
// CHECK: graph.matmul %[[Y]], %arg1
// CHECK-LABEL: func.func @two_axes
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}} = graph.layer_normalization
// CHECK: graph.matmul %[[Y]]
// CHECK-LABEL: func.func @input_gamma
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}} = graph.layer_normalization
// CHECK: graph.matmul %[[Y]]
func.func @not_constant(%x: tensor<3x2xf32>, %w: tensor<2x2xf32>) -> tensor<3x2xf32> {
  %gamma = graph.constant dense<1.0> : tensor<2xf32>
  %y, %mean, %inv = graph.layer_normalization %x, %gamma {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32} : (tensor<3x2xf32>, tensor<2xf32>) -> (tensor<3x2xf32>, tensor<3x1xf32>, tensor<3x1xf32>)
  %p = graph.matmul %y, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %p : tensor<3x2xf32>
}
func.func @two_axes(%x: tensor<3x2x2xf32>) -> tensor<3x2x2xf32> {
  %gamma = graph.constant dense<1.0> : tensor<2x2xf32>
  %w = graph.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %y, %mean, %inv = graph.layer_normalization %x, %gamma {axis = 1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32} : (tensor<3x2x2xf32>, tensor<2x2xf32>) -> (tensor<3x2x2xf32>, tensor<3x1x1xf32>, tensor<3x1x1xf32>)
  %p = graph.matmul %y, %w : (tensor<3x2x2xf32>, tensor<2x2xf32>) -> tensor<3x2x2xf32>
  return %p : tensor<3x2x2xf32>
}
func.func @input_gamma(%x: tensor<3x2xf32>, %gamma: tensor<2xf32>) -> tensor<3x2xf32> {
  %w = graph.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %y, %mean, %inv = graph.layer_normalization %x, %gamma {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32} : (tensor<3x2xf32>, tensor<2xf32>) -> (tensor<3x2xf32>, tensor<3x1xf32>, tensor<3x1xf32>)
  %p = graph.matmul %y, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %p : tensor<3x2xf32>
}

// -----

// RMSNorm (LLaMA's, f16, K = 4, N = 2, a bias): no centring, W's rows scaled by gamma = [1,
// 2, 1, 2]: [[1, 0], [0, 2], [1, 1], [4, -2]]; the product reads x, 1 / rms (the op's
// inv_rms) scales it in f32, the bias [1, 2] is the shift.
// CHECK-LABEL: func.func @rms_norm
// CHECK: %{{.*}}, %[[INV:.*]] = graph.rms_normalization %arg0
// CHECK: %[[WG:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00], [0.000000e+00, 2.000000e+00], [1.000000e+00, 1.000000e+00], [4.000000e+00, -2.000000e+00]]> : tensor<4x2xf16>
// CHECK: %[[P:.*]] = graph.matmul %arg0, %[[WG]] : (tensor<3x4xf16>, tensor<4x2xf16>) -> tensor<3x2xf16>
// CHECK: %[[WIDE:.*]] = graph.cast %[[P]] {to = f32} : (tensor<3x2xf16>) -> tensor<3x2xf32>
// CHECK: %[[SCALED:.*]] = graph.mul %[[WIDE]], %[[INV]] : (tensor<3x2xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
// CHECK: %[[SHIFT:.*]] = graph.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: %[[SHIFTED:.*]] = graph.add %[[SCALED]], %[[SHIFT]]
// CHECK: %[[OUT:.*]] = graph.cast %[[SHIFTED]] {to = f16} : (tensor<3x2xf32>) -> tensor<3x2xf16>
// CHECK-NOT: graph.matmul
// CHECK: return %[[OUT]]
func.func @rms_norm(%x: tensor<3x4xf16>) -> tensor<3x2xf16> {
  %gamma = graph.constant dense<[1.0, 2.0, 1.0, 2.0]> : tensor<4xf16>
  %w = graph.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]]> : tensor<4x2xf16>
  %b = graph.constant dense<[1.0, 2.0]> : tensor<2xf16>
  %y, %inv = graph.rms_normalization %x, %gamma {axis = -1 : i64, epsilon = 1.0e-06 : f32} : (tensor<3x4xf16>, tensor<4xf16>) -> (tensor<3x4xf16>, tensor<3x1xf32>)
  %p = graph.matmul %y, %w : (tensor<3x4xf16>, tensor<4x2xf16>) -> tensor<3x2xf16>
  %z = graph.add %p, %b : (tensor<3x2xf16>, tensor<2xf16>) -> tensor<3x2xf16>
  return %z : tensor<3x2xf16>
}

// -----

// Left alone: an RMSNorm whose rows the residual also reads, and one over two axes.
// CHECK-LABEL: func.func @rms_norm_other_reader
// CHECK: %[[Y:.*]], %{{.*}} = graph.rms_normalization
// CHECK: graph.matmul %[[Y]]
// CHECK: graph.add %[[Y]]
// CHECK: %[[Y2:.*]], %{{.*}} = graph.rms_normalization
// CHECK: graph.matmul %[[Y2]]
func.func @rms_norm_other_reader(%x: tensor<3x4xf32>, %x3: tensor<2x3x4xf32>) -> (tensor<3x4xf32>, tensor<2x3x4xf32>) {
  %gamma = graph.constant dense<1.0> : tensor<4xf32>
  %w = graph.constant dense<1.0> : tensor<4x4xf32>
  %y, %inv = graph.rms_normalization %x, %gamma {axis = -1 : i64, epsilon = 1.0e-06 : f32} : (tensor<3x4xf32>, tensor<4xf32>) -> (tensor<3x4xf32>, tensor<3x1xf32>)
  %p = graph.matmul %y, %w : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  %r = graph.add %y, %p : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %gamma2 = graph.constant dense<1.0> : tensor<3x4xf32>
  %y2, %inv2 = graph.rms_normalization %x3, %gamma2 {axis = 1 : i64, epsilon = 1.0e-06 : f32} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>)
  %p2 = graph.matmul %y2, %w : (tensor<2x3x4xf32>, tensor<4x4xf32>) -> tensor<2x3x4xf32>
  return %r, %p2 : tensor<3x4xf32>, tensor<2x3x4xf32>
}
