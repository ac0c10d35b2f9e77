// RUN: kiln-opt --graph-to-linalg %s -split-input-file | FileCheck %s

// Softmax: the maximum, the sum of exp(x - max), then the output: three generics.
// CHECK-LABEL: func.func @softmax
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.divf
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = graph.softmax %x {axis = -1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// LogSoftmax subtracts the log of the sum instead of dividing.
// CHECK-LABEL: func.func @log_softmax
// CHECK: math.log
// CHECK: arith.subf
func.func @log_softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = graph.log_softmax %x {axis = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Hardmax: the first maximum's index, then a one-hot generic comparing linalg.index.
// CHECK-LABEL: func.func @hardmax
// CHECK: arith.cmpf ogt
// CHECK: linalg.index 1
// CHECK: arith.cmpi eq
// CHECK: arith.select
func.func @hardmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = graph.hardmax %x {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// LayerNormalization: the sum, the squared deviations from the mean (two passes, no
// cancellation), then one output generic with scale and bias broadcast innermost.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[STAT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-DAG: #[[INNER:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @layer_norm
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: math.rsqrt
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[STAT]], #[[STAT]], #[[INNER]], #[[INNER]], #[[ID]]]
func.func @layer_norm(%x: tensor<2x4x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %y, %m, %i = graph.layer_normalization %x, %s, %b {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>)
  return %y : tensor<2x4x8xf32>
}

// -----

// RMSNormalization (a Kiln extension): the sum of squares over the normalised dimensions,
// its mean, 1 / sqrt(. + epsilon), then x * that * scale in one elementwise generic.
// CHECK-LABEL: func.func @rms_norm
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: math.rsqrt
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: arith.mulf
func.func @rms_norm(%x: tensor<2x4x8xf32>, %s: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %y:2 = graph.rms_normalization %x, %s {axis = -1 : i64, epsilon = 1.0e-06 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>)
  return %y#0 : tensor<2x4x8xf32>
}

// -----

// Its inverse RMS (graph-fold-layer-norm-into-products reads only it): f32 statistics of
// an f16 input, [2, 4, 1], returned.
// CHECK-LABEL: func.func @rms_norm_inverse
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: math.rsqrt
// CHECK: return %{{.*}} : tensor<2x4x1xf32>
func.func @rms_norm_inverse(%x: tensor<2x4x8xf16>, %s: tensor<8xf16>) -> tensor<2x4x1xf32> {
  %y:2 = graph.rms_normalization %x, %s {axis = -1 : i64, epsilon = 1.0e-06 : f32} : (tensor<2x4x8xf16>, tensor<8xf16>) -> (tensor<2x4x8xf16>, tensor<2x4x1xf32>)
  return %y#1 : tensor<2x4x1xf32>
}

// -----

// BatchNormalization (inference) is one elementwise generic reading the [C] tensors at
// the channel dimension.
// CHECK-DAG: #[[CHANNEL:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[CHANNEL]], #[[CHANNEL]], #[[CHANNEL]], #[[CHANNEL]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK: math.rsqrt
// CHECK-NOT: linalg.generic
func.func @batch_norm(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %0 = graph.batch_normalization %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

// BatchNormalization in training mode: the batch's mean and variance over every dimension
// but C (reductions keeping [1, C, 1, 1]), the output from them, then each running
// statistic blended with momentum over [C], reading the batch's at [0, c, 0, 0].
// CHECK-DAG: #[[BATCH_STAT:.*]] = affine_map<(d0) -> (0, d0, 0, 0)>
// CHECK-LABEL: func.func @batch_norm_training
// CHECK: iterator_types = ["reduction", "parallel", "reduction", "reduction"]
// CHECK: iterator_types = ["reduction", "parallel", "reduction", "reduction"]
// CHECK: math.rsqrt
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%arg0, {{.*}}, %arg1, %arg2 :
// CHECK: %[[MEAN:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[BATCH_STAT]], #{{.*}}], iterator_types = ["parallel"]} ins(%arg3, %{{.*}} : tensor<3xf32>, tensor<1x3x1x1xf32>)
// CHECK: arith.constant 0.899999{{.*}} : f32
// CHECK: %[[VAR:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[BATCH_STAT]], #{{.*}}], iterator_types = ["parallel"]} ins(%arg4, %{{.*}} : tensor<3xf32>, tensor<1x3x1x1xf32>)
// CHECK: return %[[Y]], %[[MEAN]], %[[VAR]]
func.func @batch_norm_training(%x: tensor<2x3x4x5xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %mean, %var = graph.batch_normalization %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32, momentum = 0.9 : f32, training_mode} : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y, %mean, %var : tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// InstanceNormalization reduces over the spatial dimensions of each [n, c].
// CHECK-LABEL: func.func @instance_norm
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
func.func @instance_norm(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %0 = graph.instance_normalization %x, %s, %b {epsilon = 1.0e-05 : f32} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

// GroupNormalization views [N, C, ...] as [N, G, C/G, ...] and reduces all but N and G.
// CHECK-LABEL: func.func @group_norm
// CHECK: tensor.expand_shape %arg0 {{\[\[}}0], [1, 2], [3]] output_shape [2, 2, 3, 5]
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: tensor.collapse_shape
func.func @group_norm(%x: tensor<2x6x5xf32>, %s: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<2x6x5xf32> {
  %0 = graph.group_normalization %x, %s, %b {epsilon = 1.0e-05 : f32, num_groups = 2 : i64, stash_type = f32} : (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
  return %0 : tensor<2x6x5xf32>
}

// -----

// LRN: the window across channels is an extra reduction dimension; channels outside
// [0, C) contribute 0.
// CHECK-LABEL: func.func @lrn
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK: linalg.index 4
// CHECK: tensor.extract %arg0
// CHECK: math.powf
func.func @lrn(%x: tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32> {
  %0 = graph.lrn %x {alpha = 1.0e-04 : f32, beta = 7.5e-01 : f32, bias = 1.0 : f32, size = 3 : i64} : (tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32>
  return %0 : tensor<1x5x2x2xf32>
}

// -----

// LpNormalization with p = 2 divides by the root of the sum of squares.
// CHECK-LABEL: func.func @lp_norm
// CHECK: arith.mulf
// CHECK: math.sqrt
// CHECK: arith.divf
func.func @lp_norm(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.lp_normalization %x {axis = -1 : i64, p = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// MeanVarianceNormalization: (x - mean) / (sqrt(variance) + 1e-9), as ONNX's function.
// CHECK-LABEL: func.func @mvn
// CHECK: math.sqrt
// CHECK: arith.divf
func.func @mvn(%x: tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32> {
  %0 = graph.mean_variance_normalization %x {axes = array<i64: 0, 2, 3>} : (tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32>
  return %0 : tensor<2x3x2x2xf32>
}
