// graph-recognize-activations replaces decomposed SiLU, HardSwish and RMSNorm by
// graph.silu, graph.hard_swish and graph.rms_normalization; near misses stay.
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-recognize-activations))' | FileCheck %s

// EfficientNet-B0 (efficientnet_b0.legacy17): Mul(conv, Sigmoid(conv)), and the other
// operand order.
// CHECK-LABEL: func.func @silu
// CHECK-SAME: (%[[X:.*]]: tensor<1x32x112x112xf32>)
// CHECK: %[[A:.*]] = graph.silu %[[X]] : tensor<1x32x112x112xf32>
// CHECK: %[[B:.*]] = graph.silu %[[A]] : tensor<1x32x112x112xf32>
// CHECK-NOT: graph.sigmoid
// CHECK: return %[[B]]
func.func @silu(%x: tensor<1x32x112x112xf32>) -> tensor<1x32x112x112xf32> {
  %0 = graph.sigmoid %x : tensor<1x32x112x112xf32>
  %1 = graph.mul %x, %0 : (tensor<1x32x112x112xf32>, tensor<1x32x112x112xf32>) -> tensor<1x32x112x112xf32>
  %2 = graph.sigmoid %1 : tensor<1x32x112x112xf32>
  %3 = graph.mul %2, %1 : (tensor<1x32x112x112xf32>, tensor<1x32x112x112xf32>) -> tensor<1x32x112x112xf32>
  return %3 : tensor<1x32x112x112xf32>
}

// -----

// EfficientNet's squeeze-excite gate multiplies the Sigmoid of one value into another:
// not a SiLU. A Sigmoid also used elsewhere stays too.
// CHECK-LABEL: func.func @not_silu
// CHECK-NOT: graph.silu
func.func @not_silu(%x: tensor<1x32x56x56xf32>, %s: tensor<1x32x1x1xf32>, %y: tensor<8xf32>)
    -> (tensor<1x32x56x56xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = graph.sigmoid %s : tensor<1x32x1x1xf32>
  %1 = graph.mul %x, %0 : (tensor<1x32x56x56xf32>, tensor<1x32x1x1xf32>) -> tensor<1x32x56x56xf32>
  %2 = graph.sigmoid %y : tensor<8xf32>
  %3 = graph.mul %y, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %1, %3, %2 : tensor<1x32x56x56xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// x * HardSigmoid(x, 1/6, 0.5) is HardSwish; with alpha 0.2 (ONNX's default) it is not.
// CHECK-LABEL: func.func @hard_sigmoid_swish
// CHECK-SAME: (%[[X:.*]]: tensor<1x16x56x56xf32>)
// CHECK: %[[Y:.*]] = graph.hard_swish %[[X]] : tensor<1x16x56x56xf32>
// CHECK: %[[S:.*]] = graph.hard_sigmoid %[[Y]] {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32}
// CHECK: graph.mul %[[Y]], %[[S]]
func.func @hard_sigmoid_swish(%x: tensor<1x16x56x56xf32>) -> tensor<1x16x56x56xf32> {
  %0 = graph.hard_sigmoid %x {alpha = 0.166666672 : f32, beta = 5.000000e-01 : f32} : tensor<1x16x56x56xf32>
  %1 = graph.mul %x, %0 : (tensor<1x16x56x56xf32>, tensor<1x16x56x56xf32>) -> tensor<1x16x56x56xf32>
  %2 = graph.hard_sigmoid %1 {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : tensor<1x16x56x56xf32>
  %3 = graph.mul %1, %2 : (tensor<1x16x56x56xf32>, tensor<1x16x56x56xf32>) -> tensor<1x16x56x56xf32>
  return %3 : tensor<1x16x56x56xf32>
}

// -----

// x * Clip(x + 3, 0, 6) / 6, the division after the product (Div by 6) or on the Clip
// (Mul by 1/6).
// CHECK-LABEL: func.func @clip_swish
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK: %[[A:.*]] = graph.hard_swish %[[X]] : tensor<8x16xf32>
// CHECK: %[[B:.*]] = graph.hard_swish %[[A]] : tensor<8x16xf32>
// CHECK-NOT: graph.clip
// CHECK: return %[[B]]
func.func @clip_swish(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %three = graph.constant dense<3.0> : tensor<f32>
  %zero = graph.constant dense<0.0> : tensor<f32>
  %six = graph.constant dense<6.0> : tensor<f32>
  %sixth = graph.constant dense<0.166666672> : tensor<f32>
  %0 = graph.add %x, %three : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  %1 = graph.clip %0 min %zero max %six : (tensor<8x16xf32>, tensor<f32>, tensor<f32>) -> tensor<8x16xf32>
  %2 = graph.mul %x, %1 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %3 = graph.div %2, %six : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  %4 = graph.add %three, %3 : (tensor<f32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %5 = graph.clip %4 min %zero max %six : (tensor<8x16xf32>, tensor<f32>, tensor<f32>) -> tensor<8x16xf32>
  %6 = graph.mul %sixth, %5 : (tensor<f32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %7 = graph.mul %6, %3 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %7 : tensor<8x16xf32>
}

// -----

// MobileNet-V2's ReLU6 (Clip(x, 0, 6) without the shift) and a Clip to 5 are not
// HardSwish.
// CHECK-LABEL: func.func @not_clip_swish
// CHECK-NOT: graph.hard_swish
func.func @not_clip_swish(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %three = graph.constant dense<3.0> : tensor<f32>
  %zero = graph.constant dense<0.0> : tensor<f32>
  %five = graph.constant dense<5.0> : tensor<f32>
  %six = graph.constant dense<6.0> : tensor<f32>
  %0 = graph.clip %x min %zero max %six : (tensor<8xf32>, tensor<f32>, tensor<f32>) -> tensor<8xf32>
  %1 = graph.mul %x, %0 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %2 = graph.div %1, %six : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %3 = graph.add %x, %three : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %4 = graph.clip %3 min %zero max %five : (tensor<8xf32>, tensor<f32>, tensor<f32>) -> tensor<8xf32>
  %5 = graph.mul %x, %4 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %6 = graph.div %5, %six : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %2, %6 : tensor<8xf32>, tensor<8xf32>
}

// -----

// RMSNorm as LLM exporters write it (LLaMA, T5): x * Reciprocal(Sqrt(ReduceMean(Pow(x, 2))
// + eps)) * gamma. x keeps its other use (the residual).
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:.*]]: tensor<?x32x4096xf32>, %[[G:.*]]: tensor<4096xf32>)
// CHECK: %[[Y:[^,]*]], %{{.*}} = graph.rms_normalization %[[X]], %[[G]] {axis = 2 : i64, epsilon = 9.99999997E-7 : f32}
// CHECK-SAME: (tensor<?x32x4096xf32>, tensor<4096xf32>) -> (tensor<?x32x4096xf32>, tensor<?x32x1xf32>)
// CHECK-NOT: graph.reduce_mean
// CHECK: graph.add %[[X]], %[[Y]]
func.func @rms_norm(%x: tensor<?x32x4096xf32>, %gamma: tensor<4096xf32>) -> tensor<?x32x4096xf32> {
  %axes = graph.constant dense<-1> : tensor<1xi64>
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-6> : tensor<f32>
  %0 = graph.pow %x, %two : (tensor<?x32x4096xf32>, tensor<f32>) -> tensor<?x32x4096xf32>
  %1 = graph.reduce_mean %0, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<?x32x4096xf32>, tensor<1xi64>) -> tensor<?x32x1xf32>
  %2 = graph.add %1, %eps : (tensor<?x32x1xf32>, tensor<f32>) -> tensor<?x32x1xf32>
  %3 = graph.sqrt %2 : tensor<?x32x1xf32>
  %4 = graph.reciprocal %3 : tensor<?x32x1xf32>
  %5 = graph.mul %x, %4 : (tensor<?x32x4096xf32>, tensor<?x32x1xf32>) -> tensor<?x32x4096xf32>
  %6 = graph.mul %gamma, %5 : (tensor<4096xf32>, tensor<?x32x4096xf32>) -> tensor<?x32x4096xf32>
  %7 = graph.add %x, %6 : (tensor<?x32x4096xf32>, tensor<?x32x4096xf32>) -> tensor<?x32x4096xf32>
  return %7 : tensor<?x32x4096xf32>
}

// -----

// The Div form with x * x and no gamma: a scale of ones.
// CHECK-LABEL: func.func @rms_norm_div
// CHECK: %[[ONES:.*]] = graph.constant dense<1.000000e+00> : tensor<64xf32>
// CHECK: graph.rms_normalization %{{.*}}, %[[ONES]] {axis = 1 : i64, epsilon = 9.99999974E-6 : f32}
func.func @rms_norm_div(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %axes = graph.constant dense<1> : tensor<1xi64>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %0 = graph.mul %x, %x : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.reduce_mean %0, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<4x64xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %2 = graph.add %eps, %1 : (tensor<f32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %3 = graph.sqrt %2 : tensor<4x1xf32>
  %4 = graph.div %x, %3 : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  return %4 : tensor<4x64xf32>
}

// -----

// Not RMSNorm: the mean over a non-trailing axis; the mean of squares used elsewhere.
// CHECK-LABEL: func.func @not_rms_norm
// CHECK-NOT: graph.rms_normalization
func.func @not_rms_norm(%x: tensor<2x8x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x1xf32>) {
  %axis1 = graph.constant dense<1> : tensor<1xi64>
  %axes = graph.constant dense<-1> : tensor<1xi64>
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %0 = graph.mul %x, %x : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %1 = graph.reduce_mean %0, %axis1 {keepdims = true, noop_with_empty_axes = false} : (tensor<2x8x16xf32>, tensor<1xi64>) -> tensor<2x1x16xf32>
  %2 = graph.add %1, %eps : (tensor<2x1x16xf32>, tensor<f32>) -> tensor<2x1x16xf32>
  %3 = graph.sqrt %2 : tensor<2x1x16xf32>
  %4 = graph.div %x, %3 : (tensor<2x8x16xf32>, tensor<2x1x16xf32>) -> tensor<2x8x16xf32>
  %5 = graph.mul %x, %x : (tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %6 = graph.reduce_mean %5, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<2x8x16xf32>, tensor<1xi64>) -> tensor<2x8x1xf32>
  %7 = graph.add %6, %eps : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8x1xf32>
  %8 = graph.sqrt %7 : tensor<2x8x1xf32>
  %9 = graph.div %x, %8 : (tensor<2x8x16xf32>, tensor<2x8x1xf32>) -> tensor<2x8x16xf32>
  return %4, %9, %6 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x1xf32>
}

// -----

// A LayerNorm whose mean has another use (so graph-recognize-layer-norm left it) is not
// taken for an RMSNorm of x - mean.
// CHECK-LABEL: func.func @layer_norm_left_alone
// CHECK-NOT: graph.rms_normalization
func.func @layer_norm_left_alone(%x: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x1xf32>) {
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
  return %n, %mean : tensor<4x64xf32>, tensor<4x1xf32>
}
