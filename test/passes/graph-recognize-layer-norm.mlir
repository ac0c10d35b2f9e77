// graph-recognize-layer-norm replaces the decomposed LayerNorm exporters write before
// opset 17 by one graph.layer_normalization; anything that is not exactly that stays.
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-recognize-layer-norm))' | FileCheck %s

// The TorchScript exporter's form (opset < 17, axes an attribute imported as a constant):
// Pow(d, 2), Div by the root, then Mul by gamma and Add of beta. All of it is one op.
// CHECK-LABEL: func.func @torchscript_form
// CHECK-SAME: (%[[X:.*]]: tensor<?x128x768xf32>, %[[G:.*]]: tensor<768xf32>, %[[B:.*]]: tensor<768xf32>)
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}} = graph.layer_normalization %[[X]], %[[G]], %[[B]] {axis = 2 : i64, epsilon = 9.99999996E-13 : f32, stash_type = f32}
// CHECK-SAME: -> (tensor<?x128x768xf32>, tensor<?x128x1xf32>, tensor<?x128x1xf32>)
// CHECK-NOT: graph.reduce_mean
// CHECK-NOT: graph.sqrt
// CHECK: return %[[Y]]
func.func @torchscript_form(%x: tensor<?x128x768xf32>, %gamma: tensor<768xf32>, %beta: tensor<768xf32>) -> tensor<?x128x768xf32> {
  %axes = graph.constant dense<-1> : tensor<1xi64>
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-12> : tensor<f32>
  %mean = graph.reduce_mean %x, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
  %d = graph.sub %x, %mean : (tensor<?x128x768xf32>, tensor<?x128x1xf32>) -> tensor<?x128x768xf32>
  %sq = graph.pow %d, %two : (tensor<?x128x768xf32>, tensor<f32>) -> tensor<?x128x768xf32>
  %var = graph.reduce_mean %sq, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
  %ve = graph.add %var, %eps : (tensor<?x128x1xf32>, tensor<f32>) -> tensor<?x128x1xf32>
  %s = graph.sqrt %ve : tensor<?x128x1xf32>
  %n = graph.div %d, %s : (tensor<?x128x768xf32>, tensor<?x128x1xf32>) -> tensor<?x128x768xf32>
  %g = graph.mul %n, %gamma : (tensor<?x128x768xf32>, tensor<768xf32>) -> tensor<?x128x768xf32>
  %y = graph.add %g, %beta : (tensor<?x128x768xf32>, tensor<768xf32>) -> tensor<?x128x768xf32>
  return %y : tensor<?x128x768xf32>
}

// -----

// The opset-18 form (axes an input, an initializer), with d * d, the root as
// Mul(Reciprocal), eps + var and gamma * n in the other operand order.
// CHECK-LABEL: func.func @reciprocal_form
// CHECK: graph.layer_normalization %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 9.99999974E-6 : f32, stash_type = f32}
// CHECK-NOT: graph.reciprocal
func.func @reciprocal_form(%x: tensor<4x64xf32>, %gamma: tensor<64xf32>, %beta: tensor<64xf32>) -> tensor<4x64xf32> {
  %axes = graph.constant dense<[1]> : tensor<1xi64>
  %eps = graph.constant dense<1.0e-5> : tensor<1xf32>
  %mean = graph.reduce_mean %x, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<4x64xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %d = graph.sub %x, %mean : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %sq = graph.mul %d, %d : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %var = graph.reduce_mean %sq, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<4x64xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %ve = graph.add %eps, %var : (tensor<1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %s = graph.sqrt %ve : tensor<4x1xf32>
  %r = graph.reciprocal %s : tensor<4x1xf32>
  %n = graph.mul %r, %d : (tensor<4x1xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %g = graph.mul %gamma, %n : (tensor<64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = graph.add %beta, %g : (tensor<64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// -----

// Without gamma and beta: a scale of ones shaped like the normalised dimensions, no bias.
// A trailing axis set ([-2, -1]) normalises from axis 1.
// CHECK-LABEL: func.func @no_affine_two_axes
// CHECK: %[[ONES:.*]] = graph.constant dense<1.000000e+00> : tensor<8x16xf32>
// CHECK: graph.layer_normalization %{{.*}}, %[[ONES]] {axis = 1 : i64
// CHECK-SAME: (tensor<2x8x16xf32>, tensor<8x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
func.func @no_affine_two_axes(%x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %axes = graph.constant dense<[-2, -1]> : tensor<2xi64>
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %mean = graph.reduce_mean %x, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<2x8x16xf32>, tensor<2xi64>) -> tensor<2x1x1xf32>
  %d = graph.sub %x, %mean : (tensor<2x8x16xf32>, tensor<2x1x1xf32>) -> tensor<2x8x16xf32>
  %sq = graph.pow %d, %two : (tensor<2x8x16xf32>, tensor<f32>) -> tensor<2x8x16xf32>
  %var = graph.reduce_mean %sq, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<2x8x16xf32>, tensor<2xi64>) -> tensor<2x1x1xf32>
  %ve = graph.add %var, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %s = graph.sqrt %ve : tensor<2x1x1xf32>
  %n = graph.div %d, %s : (tensor<2x8x16xf32>, tensor<2x1x1xf32>) -> tensor<2x8x16xf32>
  return %n : tensor<2x8x16xf32>
}

// -----

// An intermediate with another use (the deviation is also returned): left alone.
// CHECK-LABEL: func.func @deviation_used_elsewhere
// CHECK-NOT: graph.layer_normalization
// CHECK: graph.reduce_mean
func.func @deviation_used_elsewhere(%x: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
  %axes = graph.constant dense<-1> : tensor<1xi64>
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %mean = graph.reduce_mean %x, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<4x64xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %d = graph.sub %x, %mean : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %sq = graph.pow %d, %two : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %var = graph.reduce_mean %sq, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<4x64xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %ve = graph.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %s = graph.sqrt %ve : tensor<4x1xf32>
  %n = graph.div %d, %s : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  return %n, %d : tensor<4x64xf32>, tensor<4x64xf32>
}

// -----

// The variance used elsewhere too: left alone.
// CHECK-LABEL: func.func @variance_used_elsewhere
// CHECK-NOT: graph.layer_normalization
func.func @variance_used_elsewhere(%x: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x1xf32>) {
  %axes = graph.constant dense<-1> : tensor<1xi64>
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %mean = graph.reduce_mean %x, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<4x64xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %d = graph.sub %x, %mean : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %sq = graph.pow %d, %two : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %var = graph.reduce_mean %sq, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<4x64xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %ve = graph.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %s = graph.sqrt %ve : tensor<4x1xf32>
  %n = graph.div %d, %s : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  return %n, %var : tensor<4x64xf32>, tensor<4x1xf32>
}

// -----

// A reduction over a non-trailing axis (axis 1 of a rank-3 input) is not a LayerNorm.
// CHECK-LABEL: func.func @non_trailing_axis
// CHECK-NOT: graph.layer_normalization
func.func @non_trailing_axis(%x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %axes = graph.constant dense<1> : tensor<1xi64>
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %mean = graph.reduce_mean %x, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<2x8x16xf32>, tensor<1xi64>) -> tensor<2x1x16xf32>
  %d = graph.sub %x, %mean : (tensor<2x8x16xf32>, tensor<2x1x16xf32>) -> tensor<2x8x16xf32>
  %sq = graph.pow %d, %two : (tensor<2x8x16xf32>, tensor<f32>) -> tensor<2x8x16xf32>
  %var = graph.reduce_mean %sq, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<2x8x16xf32>, tensor<1xi64>) -> tensor<2x1x16xf32>
  %ve = graph.add %var, %eps : (tensor<2x1x16xf32>, tensor<f32>) -> tensor<2x1x16xf32>
  %s = graph.sqrt %ve : tensor<2x1x16xf32>
  %n = graph.div %d, %s : (tensor<2x8x16xf32>, tensor<2x1x16xf32>) -> tensor<2x8x16xf32>
  return %n : tensor<2x8x16xf32>
}

// -----

// A square that is not one (Pow by 3), and the two means over different axes: left alone.
// CHECK-LABEL: func.func @wrong_exponent
// CHECK-NOT: graph.layer_normalization
func.func @wrong_exponent(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %axes = graph.constant dense<-1> : tensor<1xi64>
  %three = graph.constant dense<3.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %mean = graph.reduce_mean %x, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<4x64xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %d = graph.sub %x, %mean : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %sq = graph.pow %d, %three : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %var = graph.reduce_mean %sq, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<4x64xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %ve = graph.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %s = graph.sqrt %ve : tensor<4x1xf32>
  %n = graph.div %d, %s : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  return %n : tensor<4x64xf32>
}

// CHECK-LABEL: func.func @different_axes
// CHECK-NOT: graph.layer_normalization
func.func @different_axes(%x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %axes = graph.constant dense<-1> : tensor<1xi64>
  %both = graph.constant dense<[1, 2]> : tensor<2xi64>
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %mean = graph.reduce_mean %x, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<2x8x16xf32>, tensor<1xi64>) -> tensor<2x8x1xf32>
  %d = graph.sub %x, %mean : (tensor<2x8x16xf32>, tensor<2x8x1xf32>) -> tensor<2x8x16xf32>
  %sq = graph.pow %d, %two : (tensor<2x8x16xf32>, tensor<f32>) -> tensor<2x8x16xf32>
  %var = graph.reduce_mean %sq, %both {keepdims = true, noop_with_empty_axes = false} : (tensor<2x8x16xf32>, tensor<2xi64>) -> tensor<2x1x1xf32>
  %ve = graph.add %var, %eps : (tensor<2x1x1xf32>, tensor<f32>) -> tensor<2x1x1xf32>
  %s = graph.sqrt %ve : tensor<2x1x1xf32>
  %n = graph.div %d, %s : (tensor<2x8x16xf32>, tensor<2x1x1xf32>) -> tensor<2x8x16xf32>
  return %n : tensor<2x8x16xf32>
}

// -----

// A gamma that does not broadcast to the normalised dimensions alone ([4, 1] against
// [64]) stays a separate Mul after the recognised LayerNorm.
// CHECK-LABEL: func.func @gamma_not_a_parameter
// CHECK: %[[Y:.*]], %{{.*}}, %{{.*}} = graph.layer_normalization
// CHECK: graph.mul %[[Y]], %{{.*}}
func.func @gamma_not_a_parameter(%x: tensor<4x64xf32>, %gamma: tensor<4x1xf32>) -> tensor<4x64xf32> {
  %axes = graph.constant dense<-1> : tensor<1xi64>
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %mean = graph.reduce_mean %x, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<4x64xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %d = graph.sub %x, %mean : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %sq = graph.pow %d, %two : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %var = graph.reduce_mean %sq, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<4x64xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %ve = graph.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %s = graph.sqrt %ve : tensor<4x1xf32>
  %n = graph.div %d, %s : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %g = graph.mul %n, %gamma : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  return %g : tensor<4x64xf32>
}
