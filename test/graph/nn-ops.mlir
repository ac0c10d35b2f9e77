// Round trip of the NN family's graph ops, in the custom and in the generic form, with the
// result types their shape rules infer.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @gemm_classifier
func.func @gemm_classifier(%a: tensor<?x2048xf32>, %b: tensor<1000x2048xf32>,
                           %c: tensor<1000xf32>) -> tensor<?x1000xf32> {
  // B is transposed and C broadcasts along M.
  // CHECK: graph.gemm %{{.*}}, %{{.*}}, %{{.*}} {alpha = 1.{{0+}}e+00 : f32, beta = 5.{{0+}}e-01 : f32, trans_a = false, trans_b = true}
  // CHECK-SAME: (tensor<?x2048xf32>, tensor<1000x2048xf32>, tensor<1000xf32>) -> tensor<?x1000xf32>
  %y = graph.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 0.5 : f32, trans_a = false, trans_b = true}
      : (tensor<?x2048xf32>, tensor<1000x2048xf32>, tensor<1000xf32>) -> tensor<?x1000xf32>
  return %y : tensor<?x1000xf32>
}

// CHECK-LABEL: func.func @gemm_transposed_a_no_c
func.func @gemm_transposed_a_no_c(%a: tensor<4x3xf16>, %b: tensor<4x5xf16>) -> tensor<*xf16> {
  // The declared result may be less refined than the inferred [3, 5].
  // CHECK: graph.gemm %{{.*}}, %{{.*}} {{{.*}}trans_a = true{{.*}}} : (tensor<4x3xf16>, tensor<4x5xf16>) -> tensor<*xf16>
  %y = graph.gemm %a, %b {alpha = 2.0 : f32, beta = 1.0 : f32, trans_a = true, trans_b = false}
      : (tensor<4x3xf16>, tensor<4x5xf16>) -> tensor<*xf16>
  return %y : tensor<*xf16>
}

// CHECK-LABEL: func.func @resnet_max_pool
func.func @resnet_max_pool(%x: tensor<?x64x112x112xf32>) -> (tensor<?x64x56x56xf32>, tensor<?x64x56x56xi64>) {
  // CHECK: %{{.*}}, %{{.*}} = graph.max_pool %{{.*}} {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, storage_order = 0 : i64, strides = array<i64: 2, 2>}
  // CHECK-SAME: (tensor<?x64x112x112xf32>) -> (tensor<?x64x56x56xf32>, tensor<?x64x56x56xi64>)
  %y, %i = graph.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                              dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
                              ceil_mode = false, storage_order = 0}
      : (tensor<?x64x112x112xf32>) -> (tensor<?x64x56x56xf32>, tensor<?x64x56x56xi64>)
  return %y, %i : tensor<?x64x56x56xf32>, tensor<?x64x56x56xi64>
}

// CHECK-LABEL: func.func @max_pool_ceil_dilated_unranked
func.func @max_pool_ceil_dilated_unranked(%x: tensor<1x1x4x4xui8>, %u: tensor<*xf32>)
    -> (tensor<1x1x2x2xui8>, tensor<*xf32>) {
  // ceil_mode rounds (4 - 3) / 2 up: 2 windows. Dilation 2 makes a 3x3 window of 2x2.
  // CHECK: graph.max_pool {{.*}} : (tensor<1x1x4x4xui8>) -> (tensor<1x1x2x2xui8>, tensor<1x1x2x2xi64>)
  %y, %i = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                              dilations = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                              ceil_mode = true, storage_order = 1}
      : (tensor<1x1x4x4xui8>) -> (tensor<1x1x2x2xui8>, tensor<1x1x2x2xi64>)
  // An unranked input gives unranked results.
  // CHECK: graph.max_pool {{.*}} : (tensor<*xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  %v, %j = graph.max_pool %u {kernel_shape = array<i64: 2>, strides = array<i64: 1>,
                              dilations = array<i64: 1>, pads = array<i64: 0, 0>,
                              ceil_mode = false, storage_order = 0}
      : (tensor<*xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  return %y, %v : tensor<1x1x2x2xui8>, tensor<*xf32>
}

// CHECK-LABEL: func.func @average_pool
func.func @average_pool(%x: tensor<1x3x32x?xf32>, %v: tensor<1x1x5xf32>)
    -> (tensor<1x3x16x?xf32>, tensor<1x1x3xf32>) {
  // A dynamic spatial extent stays dynamic.
  // CHECK: graph.average_pool {{.*}}count_include_pad = true{{.*}} : (tensor<1x3x32x?xf32>) -> tensor<1x3x16x?xf32>
  %y = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                              dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
                              ceil_mode = false, count_include_pad = true}
      : (tensor<1x3x32x?xf32>) -> tensor<1x3x16x?xf32>
  // ceil_mode drops a last window that would start in the end padding:
  // ceil((5 + 1 + 1 - 2) / 2) + 1 = 4, but window 4 starts at 6 >= 5 + 1.
  // CHECK: graph.average_pool {{.*}} : (tensor<1x1x5xf32>) -> tensor<1x1x3xf32>
  %w = graph.average_pool %v {kernel_shape = array<i64: 2>, strides = array<i64: 2>,
                              dilations = array<i64: 1>, pads = array<i64: 1, 1>,
                              ceil_mode = true, count_include_pad = false}
      : (tensor<1x1x5xf32>) -> tensor<1x1x3xf32>
  return %y, %w : tensor<1x3x16x?xf32>, tensor<1x1x3xf32>
}

// CHECK-LABEL: func.func @global_pools
func.func @global_pools(%x: tensor<?x2048x7x7xf32>, %u: tensor<*xf16>)
    -> (tensor<?x2048x1x1xf32>, tensor<*xf16>) {
  // CHECK: graph.global_average_pool %{{.*}} : (tensor<?x2048x7x7xf32>) -> tensor<?x2048x1x1xf32>
  %y = graph.global_average_pool %x : (tensor<?x2048x7x7xf32>) -> tensor<?x2048x1x1xf32>
  // CHECK: graph.global_max_pool %{{.*}} : (tensor<*xf16>) -> tensor<*xf16>
  %z = graph.global_max_pool %u : (tensor<*xf16>) -> tensor<*xf16>
  return %y, %z : tensor<?x2048x1x1xf32>, tensor<*xf16>
}

// CHECK-LABEL: func.func @bert_layer_norm
func.func @bert_layer_norm(%x: tensor<?x128x768xf16>, %s: tensor<768xf16>, %b: tensor<768xf16>)
    -> (tensor<?x128x768xf16>, tensor<?x128x1xf32>) {
  // Mean and InvStdDev have the stash type and ones in the normalised dimensions.
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}} = graph.layer_normalization %{{.*}}, %{{.*}}, %{{.*}} {axis = -1 : i64, epsilon = 9.99999974E-6 : f32, stash_type = f32}
  // CHECK-SAME: (tensor<?x128x768xf16>, tensor<768xf16>, tensor<768xf16>) -> (tensor<?x128x768xf16>, tensor<?x128x1xf32>, tensor<?x128x1xf32>)
  %y, %m, %i = graph.layer_normalization %x, %s, %b {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32}
      : (tensor<?x128x768xf16>, tensor<768xf16>, tensor<768xf16>)
      -> (tensor<?x128x768xf16>, tensor<?x128x1xf32>, tensor<?x128x1xf32>)
  return %y, %m : tensor<?x128x768xf16>, tensor<?x128x1xf32>
}

// CHECK-LABEL: func.func @layer_norm_axis1_no_bias
func.func @layer_norm_axis1_no_bias(%x: tensor<2x3x4xf32>, %s: tensor<1x4xf32>) -> tensor<2x1x1xf32> {
  // CHECK: graph.layer_normalization %{{.*}}, %{{.*}} {axis = 1 : i64{{.*}}} : (tensor<2x3x4xf32>, tensor<1x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  %y, %m, %i = graph.layer_normalization %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32}
      : (tensor<2x3x4xf32>, tensor<1x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return %i : tensor<2x1x1xf32>
}

// graph.rms_normalization is a Kiln extension (graph-recognize-activations forms it); the
// result has the input's type, a rank-1 scale broadcasts to the trailing dimension, and the
// inverse RMS is f32 with the normalised dimensions 1.
// CHECK-LABEL: func.func @rms_norm
// CHECK: graph.rms_normalization %{{.*}}, %{{.*}} {axis = -1 : i64, epsilon = 9.99999997E-7 : f32} : (tensor<?x128x4096xf16>, tensor<4096xf16>) -> (tensor<?x128x4096xf16>, tensor<?x128x1xf32>)
// CHECK: graph.rms_normalization %{{.*}}, %{{.*}} {axis = 1 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x3x4xf32>, tensor<1x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>)
func.func @rms_norm(%x: tensor<?x128x4096xf16>, %s: tensor<4096xf16>, %y: tensor<2x3x4xf32>, %t: tensor<1x4xf32>)
    -> (tensor<?x128x4096xf16>, tensor<2x3x4xf32>) {
  %0:2 = graph.rms_normalization %x, %s {axis = -1 : i64, epsilon = 1.0e-06 : f32}
      : (tensor<?x128x4096xf16>, tensor<4096xf16>) -> (tensor<?x128x4096xf16>, tensor<?x128x1xf32>)
  %1:2 = graph.rms_normalization %y, %t {axis = 1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<2x3x4xf32>, tensor<1x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>)
  return %0#0, %1#0 : tensor<?x128x4096xf16>, tensor<2x3x4xf32>
}

// graph.attention is a Kiln extension (graph-recognize-attention forms it): heads as a
// batch dimension, an optional additive mask broadcasting to the scores, a key with
// fewer leading dimensions that broadcasts like a matmul operand, a causal flag, and
// grouped-query attention (key and value with a divisor of the query's heads).
// CHECK-LABEL: func.func @attention
// CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {nan_to_zero, scale = 1.250000e-01 : f32} : (tensor<?x12x128x64xf16>, tensor<?x12x256x64xf16>, tensor<?x12x256x32xf16>, tensor<?x1x1x256xf16>) -> tensor<?x12x128x32xf16>
// CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 1.000000e+00 : f32} : (tensor<4x8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<4x8x16xf32>
// CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f32} : (tensor<?x8x128x64xf16>, tensor<?x2x128x64xf16>, tensor<?x2x128x64xf16>) -> tensor<?x8x128x64xf16>
func.func @attention(%q: tensor<?x12x128x64xf16>, %k: tensor<?x12x256x64xf16>, %v: tensor<?x12x256x32xf16>,
                     %m: tensor<?x1x1x256xf16>, %x: tensor<4x8x16xf32>, %y: tensor<8x16xf32>,
                     %gq: tensor<?x8x128x64xf16>, %gkv: tensor<?x2x128x64xf16>)
    -> (tensor<?x12x128x32xf16>, tensor<4x8x16xf32>, tensor<?x8x128x64xf16>) {
  %0 = graph.attention %q, %k, %v, %m {scale = 0.125 : f32, nan_to_zero}
      : (tensor<?x12x128x64xf16>, tensor<?x12x256x64xf16>, tensor<?x12x256x32xf16>, tensor<?x1x1x256xf16>)
      -> tensor<?x12x128x32xf16>
  %1 = graph.attention %x, %y, %y {scale = 1.0 : f32, causal}
      : (tensor<4x8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<4x8x16xf32>
  %2 = graph.attention %gq, %gkv, %gkv {scale = 0.125 : f32}
      : (tensor<?x8x128x64xf16>, tensor<?x2x128x64xf16>, tensor<?x2x128x64xf16>) -> tensor<?x8x128x64xf16>
  return %0, %1, %2 : tensor<?x12x128x32xf16>, tensor<4x8x16xf32>, tensor<?x8x128x64xf16>
}

// CHECK-LABEL: func.func @batch_and_instance_norm
func.func @batch_and_instance_norm(%x: tensor<?x64x56x56xf16>, %p: tensor<64xf16>, %s: tensor<64xf32>,
                                   %u: tensor<*xf32>, %q: tensor<?xf32>)
    -> (tensor<?x64x56x56xf16>, tensor<*xf32>) {
  // Scale and bias may have another element type than mean and variance (opset 15).
  // CHECK: graph.batch_normalization %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.{{0+}}e-03 : f32}
  // CHECK-SAME: (tensor<?x64x56x56xf16>, tensor<64xf16>, tensor<64xf16>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64x56x56xf16>
  %y = graph.batch_normalization %x, %p, %p, %s, %s {epsilon = 1.0e-03 : f32}
      : (tensor<?x64x56x56xf16>, tensor<64xf16>, tensor<64xf16>, tensor<64xf32>, tensor<64xf32>)
      -> tensor<?x64x56x56xf16>
  // CHECK: graph.instance_normalization %{{.*}}, %{{.*}}, %{{.*}} {epsilon = {{.*}}} : (tensor<*xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<*xf32>
  %z = graph.instance_normalization %u, %q, %q {epsilon = 1.0e-05 : f32}
      : (tensor<*xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<*xf32>
  return %y, %z : tensor<?x64x56x56xf16>, tensor<*xf32>
}

// CHECK-LABEL: func.func @batch_norm_training
func.func @batch_norm_training(%x: tensor<?x3x4x5xf16>, %p: tensor<3xf16>, %s: tensor<?xf32>)
    -> (tensor<?x3x4x5xf16>, tensor<?xf32>, tensor<?xf32>) {
  // Training mode adds the running statistics: [C] of the statistics' element type.
  // CHECK: graph.batch_normalization {{.*}} {epsilon = {{.*}}, momentum = 0.8999{{.*}} : f32, training_mode}
  // CHECK-SAME: -> (tensor<?x3x4x5xf16>, tensor<?xf32>, tensor<?xf32>)
  %y, %mean, %var = graph.batch_normalization %x, %p, %p, %s, %s
      {epsilon = 1.0e-05 : f32, momentum = 0.9 : f32, training_mode}
      : (tensor<?x3x4x5xf16>, tensor<3xf16>, tensor<3xf16>, tensor<?xf32>, tensor<?xf32>)
      -> (tensor<?x3x4x5xf16>, tensor<?xf32>, tensor<?xf32>)
  return %y, %mean, %var : tensor<?x3x4x5xf16>, tensor<?xf32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @softmaxes
func.func @softmaxes(%x: tensor<?x12x128x128xf32>, %u: tensor<*xbf16>)
    -> (tensor<?x12x128x128xf32>, tensor<*xbf16>) {
  // CHECK: graph.softmax %{{.*}} {axis = -1 : i64} : (tensor<?x12x128x128xf32>) -> tensor<?x12x128x128xf32>
  %y = graph.softmax %x {axis = -1 : i64} : (tensor<?x12x128x128xf32>) -> tensor<?x12x128x128xf32>
  // CHECK: graph.log_softmax %{{.*}} {axis = 3 : i64} : (tensor<*xbf16>) -> tensor<*xbf16>
  %z = graph.log_softmax %u {axis = 3 : i64} : (tensor<*xbf16>) -> tensor<*xbf16>
  return %y, %z : tensor<?x12x128x128xf32>, tensor<*xbf16>
}

// CHECK-LABEL: func.func @conv_transpose
func.func @conv_transpose(%x: tensor<1x64x16x16xf32>, %w: tensor<64x16x3x3xf32>, %b: tensor<32xf32>)
    -> tensor<1x32x32x32xf32> {
  // 2 * (16 - 1) + 1 + 3 - 1 - 1 = 32 per spatial dimension; 16 channels per group, 2 groups.
  // CHECK: graph.conv_transpose %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
  // CHECK-SAME: (tensor<1x64x16x16xf32>, tensor<64x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x32x32xf32>
  %y = graph.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>,
                                        pads = array<i64: 1, 1, 1, 1>,
                                        output_padding = array<i64: 1, 1>, group = 2}
      : (tensor<1x64x16x16xf32>, tensor<64x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x32x32xf32>
  return %y : tensor<1x32x32x32xf32>
}

// CHECK-LABEL: func.func @lp_pools
func.func @lp_pools(%x: tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>) {
  // CHECK: graph.lp_pool %{{.*}} {{{.*}}p = 3 : i64{{.*}}} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  %y = graph.lp_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                         dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
                         ceil_mode = false, p = 3}
      : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  // CHECK: graph.global_lp_pool %{{.*}} {p = 2 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x1x1xf32>
  %z = graph.global_lp_pool %x {p = 2} : (tensor<1x3x8x8xf32>) -> tensor<1x3x1x1xf32>
  return %y, %z : tensor<1x3x4x4xf32>, tensor<1x3x1x1xf32>
}

// CHECK-LABEL: func.func @normalisations
func.func @normalisations(%x: tensor<2x8x4x4xf32>, %c: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  // CHECK: graph.hardmax %{{.*}} {axis = 1 : i64} : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %a = graph.hardmax %x {axis = 1} : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  // CHECK: graph.lrn %{{.*}} {alpha = {{.*}}, beta = 7.5{{0*}}e-01 : f32, bias = 1.{{0+}}e+00 : f32, size = 5 : i64} : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %b = graph.lrn %a {alpha = 1.0e-04 : f32, beta = 0.75 : f32, bias = 1.0 : f32, size = 5}
      : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  // CHECK: graph.mean_variance_normalization %{{.*}} {axes = array<i64: 0, 2, 3>} : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %m = graph.mean_variance_normalization %b {axes = array<i64: 0, 2, 3>}
      : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  // CHECK: graph.group_normalization %{{.*}}, %{{.*}}, %{{.*}} {epsilon = {{.*}}, num_groups = 4 : i64, stash_type = f32} : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  %g = graph.group_normalization %m, %c, %c {epsilon = 1.0e-05 : f32, num_groups = 4, stash_type = f32}
      : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
  // CHECK: graph.lp_normalization %{{.*}} {axis = -1 : i64, p = 1 : i64} : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %l = graph.lp_normalization %g {axis = -1, p = 1} : (tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  return %l : tensor<2x8x4x4xf32>
}

// CHECK-LABEL: func.func @einsums
func.func @einsums(%a: tensor<4x2x3xf32>, %b: tensor<4x3x5xf32>, %d: tensor<7x?x3x3xf64>, %u: tensor<*xf32>)
    -> (tensor<4x2x5xf32>, tensor<7x?x3xf64>, tensor<3x2x4xf32>, tensor<*xf32>) {
  // CHECK: graph.einsum %{{.*}}, %{{.*}} {equation = "bij,bjk->bik"} : (tensor<4x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
  %m = graph.einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<4x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
  // The ellipsis keeps the leading dimensions; a repeated letter takes a diagonal.
  // CHECK: graph.einsum %{{.*}} {equation = "...ii ->...i"} : (tensor<7x?x3x3xf64>) -> tensor<7x?x3xf64>
  %g = graph.einsum %d {equation = "...ii ->...i"} : (tensor<7x?x3x3xf64>) -> tensor<7x?x3xf64>
  // Without "->" the result has the letters used once, sorted: "kji" gives i, j, k.
  // CHECK: graph.einsum %{{.*}} {equation = "kji"} : (tensor<4x2x3xf32>) -> tensor<3x2x4xf32>
  %t = graph.einsum %a {equation = "kji"} : (tensor<4x2x3xf32>) -> tensor<3x2x4xf32>
  // An unranked operand under an ellipsis leaves the rank unknown.
  // CHECK: graph.einsum %{{.*}}, %{{.*}} {equation = "...j,bjk"} : (tensor<*xf32>, tensor<4x3x5xf32>) -> tensor<*xf32>
  %v = graph.einsum %u, %b {equation = "...j,bjk"} : (tensor<*xf32>, tensor<4x3x5xf32>) -> tensor<*xf32>
  return %m, %g, %t, %v : tensor<4x2x5xf32>, tensor<7x?x3xf64>, tensor<3x2x4xf32>, tensor<*xf32>
}

// CHECK-LABEL: func.func @det
func.func @det(%x: tensor<2x?x3x3xf32>) -> tensor<2x?xf32> {
  // CHECK: graph.det %{{.*}} : (tensor<2x?x3x3xf32>) -> tensor<2x?xf32>
  %d = graph.det %x : (tensor<2x?x3x3xf32>) -> tensor<2x?xf32>
  return %d : tensor<2x?xf32>
}

// CHECK-LABEL: func.func @resizes
func.func @resizes(%x: tensor<1x3x16x16xf32>, %s: tensor<4xf32>, %roi: tensor<4xf32>)
    -> (tensor<1x3x32x24xf32>, tensor<1x3x8x8xf32>, tensor<1x3x?x?xf32>, tensor<1x3x12x12xf32>) {
  %scales = graph.constant dense<[1.0, 1.0, 2.0, 1.5]> : tensor<4xf32>
  // Constant scales give floor(in * scale).
  // CHECK: graph.resize %{{.*}} scales(%{{.*}}) {antialias = false, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.5{{0*}}e-01 : f32, exclude_outside = false, extrapolation_value = 0.{{0+}}e+00 : f32, keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "round_prefer_floor"}
  // CHECK-SAME: (tensor<1x3x16x16xf32>, tensor<4xf32>) -> tensor<1x3x32x24xf32>
  %a = graph.resize %x scales(%scales) {antialias = false, coordinate_transformation_mode = "half_pixel",
      cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32,
      keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "round_prefer_floor"}
      : (tensor<1x3x16x16xf32>, tensor<4xf32>) -> tensor<1x3x32x24xf32>
  // Constant sizes over axes [3, 2] with not_larger: one scale, min(8 / 16, 20 / 16).
  %sizes = graph.constant dense<[8, 20]> : tensor<2xi64>
  // CHECK: graph.resize %{{.*}} sizes(%{{.*}}) {{{.*}}axes = array<i64: 3, 2>{{.*}}keep_aspect_ratio_policy = "not_larger"{{.*}}mode = "linear"
  // CHECK-SAME: (tensor<1x3x16x16xf32>, tensor<2xi64>) -> tensor<1x3x8x8xf32>
  %b = graph.resize %x sizes(%sizes) {antialias = true, axes = array<i64: 3, 2>,
      coordinate_transformation_mode = "half_pixel_symmetric",
      cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32,
      keep_aspect_ratio_policy = "not_larger", mode = "linear", nearest_mode = "round_prefer_floor"}
      : (tensor<1x3x16x16xf32>, tensor<2xi64>) -> tensor<1x3x8x8xf32>
  // Scales that are not constant leave the resized extents dynamic.
  // CHECK: graph.resize %{{.*}} scales(%{{.*}}) {{.*}} : (tensor<1x3x16x16xf32>, tensor<4xf32>) -> tensor<1x3x?x?xf32>
  %c = graph.resize %x scales(%s) {antialias = false, coordinate_transformation_mode = "asymmetric",
      cubic_coeff_a = -0.5 : f32, exclude_outside = true, extrapolation_value = 0.0 : f32,
      keep_aspect_ratio_policy = "stretch", mode = "cubic", nearest_mode = "floor"}
      : (tensor<1x3x16x16xf32>, tensor<4xf32>) -> tensor<1x3x?x?xf32>
  // tf_crop_and_resize scales the roi's part: floor(16 * (0.8 - 0.2) * 1.25) = 12.
  %box = graph.constant dense<[0.0, 0.0, 0.2, 0.2, 1.0, 1.0, 0.8, 0.8]> : tensor<8xf32>
  %crop = graph.constant dense<[1.0, 1.0, 1.25, 1.25]> : tensor<4xf32>
  // CHECK: graph.resize %{{.*}} roi(%{{.*}}) scales(%{{.*}}) {{.*}} : (tensor<1x3x16x16xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<1x3x12x12xf32>
  %d = graph.resize %x roi(%box) scales(%crop) {antialias = false,
      coordinate_transformation_mode = "tf_crop_and_resize",
      cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 1.0 : f32,
      keep_aspect_ratio_policy = "stretch", mode = "linear", nearest_mode = "round_prefer_floor"}
      : (tensor<1x3x16x16xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<1x3x12x12xf32>
  return %a, %b, %c, %d : tensor<1x3x32x24xf32>, tensor<1x3x8x8xf32>, tensor<1x3x?x?xf32>, tensor<1x3x12x12xf32>
}

// CHECK-LABEL: func.func @grid_sample_and_roi_align
func.func @grid_sample_and_roi_align(%x: tensor<2x3x16x16xf32>, %grid: tensor<2x5x7x2xf32>,
                                     %rois: tensor<?x4xf32>, %idx: tensor<?xi64>)
    -> (tensor<2x3x5x7xf32>, tensor<?x3x4x6xf32>) {
  // CHECK: graph.grid_sample %{{.*}}, %{{.*}} {align_corners = false, mode = "linear", padding_mode = "border"} : (tensor<2x3x16x16xf32>, tensor<2x5x7x2xf32>) -> tensor<2x3x5x7xf32>
  %g = graph.grid_sample %x, %grid {align_corners = false, mode = "linear", padding_mode = "border"}
      : (tensor<2x3x16x16xf32>, tensor<2x5x7x2xf32>) -> tensor<2x3x5x7xf32>
  // CHECK: graph.roi_align %{{.*}}, %{{.*}}, %{{.*}} {coordinate_transformation_mode = "half_pixel", mode = "max", output_height = 4 : i64, output_width = 6 : i64, sampling_ratio = 2 : i64, spatial_scale = 6.25{{0*}}e-02 : f32}
  // CHECK-SAME: (tensor<2x3x16x16xf32>, tensor<?x4xf32>, tensor<?xi64>) -> tensor<?x3x4x6xf32>
  %r = graph.roi_align %x, %rois, %idx {coordinate_transformation_mode = "half_pixel", mode = "max",
      output_height = 4, output_width = 6, sampling_ratio = 2, spatial_scale = 0.0625 : f32}
      : (tensor<2x3x16x16xf32>, tensor<?x4xf32>, tensor<?xi64>) -> tensor<?x3x4x6xf32>
  return %g, %r : tensor<2x3x5x7xf32>, tensor<?x3x4x6xf32>
}

// The channels-last forms (set by graph-convert-layout): NHWC input, OHWI weight, NHWC
// result; a depthwise one; max, average and Lp pooling over [N, H, W, C].
// CHECK-LABEL: func.func @channels_last
func.func @channels_last(%x: tensor<?x56x56x64xf32>, %w: tensor<128x3x3x64xf32>,
                         %b: tensor<128xf32>, %d: tensor<64x3x3x1xf32>)
    -> (tensor<?x28x28x128xf32>, tensor<?x56x56x64xf32>, tensor<?x28x28x64xf32>,
        tensor<?x28x28x64xf32>, tensor<?x28x28x64xf32>) {
  // CHECK: graph.conv %{{.*}}, %{{.*}}, %{{.*}} {channels_last, {{.*}}} : (tensor<?x56x56x64xf32>, tensor<128x3x3x64xf32>, tensor<128xf32>) -> tensor<?x28x28x128xf32>
  %y = graph.conv %x, %w, %b {channels_last, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>,
                              pads = array<i64: 1, 1, 1, 1>, group = 1}
      : (tensor<?x56x56x64xf32>, tensor<128x3x3x64xf32>, tensor<128xf32>) -> tensor<?x28x28x128xf32>
  // CHECK: graph.conv %{{.*}}, %{{.*}} {channels_last, {{.*}}group = 64 : i64{{.*}}} : (tensor<?x56x56x64xf32>, tensor<64x3x3x1xf32>) -> tensor<?x56x56x64xf32>
  %z = graph.conv %x, %d {channels_last, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 1, 1, 1, 1>, group = 64}
      : (tensor<?x56x56x64xf32>, tensor<64x3x3x1xf32>) -> tensor<?x56x56x64xf32>
  // CHECK: graph.max_pool %{{.*}} {ceil_mode = false, channels_last, {{.*}}} : (tensor<?x56x56x64xf32>) -> (tensor<?x28x28x64xf32>, tensor<?x28x28x64xi64>)
  %p, %i = graph.max_pool %x {channels_last, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                              dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
                              ceil_mode = false, storage_order = 0}
      : (tensor<?x56x56x64xf32>) -> (tensor<?x28x28x64xf32>, tensor<?x28x28x64xi64>)
  // CHECK: graph.average_pool %{{.*}} {ceil_mode = true, channels_last, {{.*}}} : (tensor<?x56x56x64xf32>) -> tensor<?x28x28x64xf32>
  %a = graph.average_pool %x {channels_last, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                              dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
                              ceil_mode = true, count_include_pad = false}
      : (tensor<?x56x56x64xf32>) -> tensor<?x28x28x64xf32>
  // CHECK: graph.lp_pool %{{.*}} {ceil_mode = false, channels_last, {{.*}}} : (tensor<?x56x56x64xf32>) -> tensor<?x28x28x64xf32>
  %l = graph.lp_pool %x {channels_last, kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                         dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
                         ceil_mode = false, p = 2}
      : (tensor<?x56x56x64xf32>) -> tensor<?x28x28x64xf32>
  return %y, %z, %p, %a, %l : tensor<?x28x28x128xf32>, tensor<?x56x56x64xf32>, tensor<?x28x28x64xf32>,
                              tensor<?x28x28x64xf32>, tensor<?x28x28x64xf32>
}

// Integer matmuls (graph-fold-quantized-products's form): i8 x i8 accumulates into i32,
// batch dimensions broadcast as for floats.
// CHECK-LABEL: func.func @integer_matmul
func.func @integer_matmul(%x: tensor<2x5x8xi8>, %w: tensor<8x16xi8>) -> tensor<2x5x16xi32> {
  // CHECK: graph.matmul %{{.*}}, %{{.*}} : (tensor<2x5x8xi8>, tensor<8x16xi8>) -> tensor<2x5x16xi32>
  %y = graph.matmul %x, %w : (tensor<2x5x8xi8>, tensor<8x16xi8>) -> tensor<2x5x16xi32>
  return %y : tensor<2x5x16xi32>
}

// Integer convolutions (graph-fold-quantized-products's form): i8 x i8 and ui8 x ui8
// accumulate into i32, with an i32 bias; channels first and channels last.
// CHECK-LABEL: func.func @integer_conv
func.func @integer_conv(%x: tensor<1x8x16x16xi8>, %w: tensor<4x8x3x3xi8>, %b: tensor<4xi32>,
                        %xu: tensor<1x16x16x8xui8>, %wu: tensor<4x1x1x8xui8>)
    -> (tensor<1x4x16x16xi32>, tensor<1x16x16x4xi32>) {
  // CHECK: graph.conv %{{.*}}, %{{.*}}, %{{.*}} {{{.*}}} : (tensor<1x8x16x16xi8>, tensor<4x8x3x3xi8>, tensor<4xi32>) -> tensor<1x4x16x16xi32>
  %y = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                              pads = array<i64: 1, 1, 1, 1>, group = 1}
      : (tensor<1x8x16x16xi8>, tensor<4x8x3x3xi8>, tensor<4xi32>) -> tensor<1x4x16x16xi32>
  // CHECK: graph.conv %{{.*}}, %{{.*}} {channels_last, {{.*}}} : (tensor<1x16x16x8xui8>, tensor<4x1x1x8xui8>) -> tensor<1x16x16x4xi32>
  %z = graph.conv %xu, %wu {channels_last, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                            pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x16x16x8xui8>, tensor<4x1x1x8xui8>) -> tensor<1x16x16x4xi32>
  return %y, %z : tensor<1x4x16x16xi32>, tensor<1x16x16x4xi32>
}
