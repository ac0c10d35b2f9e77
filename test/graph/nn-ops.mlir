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

// CHECK-LABEL: func.func @softmaxes
func.func @softmaxes(%x: tensor<?x12x128x128xf32>, %u: tensor<*xbf16>)
    -> (tensor<?x12x128x128xf32>, tensor<*xbf16>) {
  // CHECK: graph.softmax %{{.*}} {axis = -1 : i64} : (tensor<?x12x128x128xf32>) -> tensor<?x12x128x128xf32>
  %y = graph.softmax %x {axis = -1 : i64} : (tensor<?x12x128x128xf32>) -> tensor<?x12x128x128xf32>
  // CHECK: graph.log_softmax %{{.*}} {axis = 3 : i64} : (tensor<*xbf16>) -> tensor<*xbf16>
  %z = graph.log_softmax %u {axis = 3 : i64} : (tensor<*xbf16>) -> tensor<*xbf16>
  return %y, %z : tensor<?x12x128x128xf32>, tensor<*xbf16>
}
