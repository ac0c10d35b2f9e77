// The NN family's graph ops reject shapes and attributes that contradict their ONNX
// semantics, one case per error of their shape rules. Each failed shape rule is followed
// by the generic "failed to infer returned types", left unchecked (only-expected).
// RUN: kiln-opt %s -split-input-file -verify-diagnostics=only-expected

func.func @gemm_element_type(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) {
  // expected-error @+1 {{B element type 'f16' differs from input element type 'f32'}}
  %y = graph.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false}
      : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gemm_a_rank(%a: tensor<2x3x5xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{A must have rank 2, got 3}}
  %y = graph.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false}
      : (tensor<2x3x5xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gemm_b_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{B must have rank 2, got 1}}
  %y = graph.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false}
      : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gemm_inner_dims(%a: tensor<?x3xf32>, %b: tensor<3x4xf32>) {
  // trans_b makes B' [4, 3].
  // expected-error @+1 {{inner dimensions differ: A' is [?, 3] and B' is [4, 3]}}
  %y = graph.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true}
      : (tensor<?x3xf32>, tensor<3x4xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @gemm_c_broadcast(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x1xf32>) {
  // C broadcasts to [M, N] only: [2, 1] does, [3] does not.
  %ok = graph.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false}
      : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %d = graph.constant dense<1.0> : tensor<3xf32>
  // expected-error @+1 {{C of shape [3] does not broadcast to [2, 4]}}
  %y = graph.gemm %a, %b, %d {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false}
      : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gemm_c_rank(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<1x2x4xf32>) {
  // expected-error @+1 {{C has rank 3, more than the rank 2 it broadcasts to}}
  %y = graph.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false}
      : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<1x2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @pool_input_rank(%x: tensor<1x3x8xf32>) {
  // expected-error @+1 {{expects an input of rank 4 ([N, C] and one dimension per kernel extent), got 3}}
  %y, %i = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>,
                              dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
                              ceil_mode = false, storage_order = 0}
      : (tensor<1x3x8xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  return
}

// -----

func.func @pool_no_kernel(%x: tensor<1x3xf32>) {
  // expected-error @+1 {{expects at least one kernel extent}}
  %y = graph.average_pool %x {kernel_shape = array<i64>, strides = array<i64>,
                              dilations = array<i64>, pads = array<i64>,
                              ceil_mode = false, count_include_pad = false}
      : (tensor<1x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pool_stride_count(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expects 2 strides, got 1}}
  %y = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1>,
                              dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
                              ceil_mode = false, count_include_pad = false}
      : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pool_dilation_count(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expects 2 dilations, got 3}}
  %y = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>,
                              dilations = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>,
                              ceil_mode = false, count_include_pad = false}
      : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pool_pad_count(%x: tensor<*xf32>) {
  // expected-error @+1 {{expects 4 pads (all beginnings, then all ends), got 2}}
  %y, %i = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>,
                              dilations = array<i64: 1, 1>, pads = array<i64: 0, 0>,
                              ceil_mode = false, storage_order = 0}
      : (tensor<*xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  return
}

// -----

func.func @pool_zero_stride(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{kernel_shape, strides and dilations must be positive}}
  %y = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 0, 1>,
                              dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
                              ceil_mode = false, count_include_pad = false}
      : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pool_negative_pad(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{pads must not be negative}}
  %y = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>,
                              dilations = array<i64: 1, 1>, pads = array<i64: 0, -1, 0, 0>,
                              ceil_mode = false, count_include_pad = false}
      : (tensor<1x3x8x8xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @pool_window_too_large(%x: tensor<1x3x4x8xf32>) {
  // expected-error @+1 {{spatial dimension 0: window of 5 (kernel 3, dilation 2) does not fit the padded extent 4}}
  %y, %i = graph.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>,
                              dilations = array<i64: 2, 1>, pads = array<i64: 0, 0, 0, 0>,
                              ceil_mode = false, storage_order = 0}
      : (tensor<1x3x4x8xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  return
}

// -----

func.func @pool_storage_order(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{attribute 'storage_order' failed to satisfy constraint}}
  %y, %i = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>,
                              dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
                              ceil_mode = false, storage_order = 2}
      : (tensor<1x3x4x4xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  return
}

// -----

func.func @global_pool_rank(%x: tensor<1x3xf32>) {
  // expected-error @+1 {{expects rank 3 or more ([N, C, spatial...]), got 2}}
  %y = graph.global_average_pool %x : (tensor<1x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @layer_norm_element_type(%x: tensor<2x4xf32>, %s: tensor<4xf16>) {
  // expected-error @+1 {{scale element type 'f16' differs from input element type 'f32'}}
  %y, %m, %i = graph.layer_normalization %x, %s {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32}
      : (tensor<2x4xf32>, tensor<4xf16>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<2x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{axis -3 is out of range for rank 2}}
  %y, %m, %i = graph.layer_normalization %x, %s {axis = -3 : i64, epsilon = 1.0e-05 : f32, stash_type = f32}
      : (tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @layer_norm_scale_shape(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{bias of shape [2] does not broadcast to [4]}}
  %y, %m, %i = graph.layer_normalization %x, %s, %b {axis = 1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32}
      : (tensor<2x4xf32>, tensor<4xf32>, tensor<2xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @layer_norm_stash_result_type(%x: tensor<2x4xf16>, %s: tensor<4xf16>) {
  // The statistics have the stash type, not the input's.
  // expected-error @+1 {{inferred type(s) 'tensor<2x4xf16>', 'tensor<2x1xf32>', 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf16>', 'tensor<2x1xf16>', 'tensor<2x1xf16>'}}
  %y, %m, %i = graph.layer_normalization %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32}
      : (tensor<2x4xf16>, tensor<4xf16>) -> (tensor<2x4xf16>, tensor<2x1xf16>, tensor<2x1xf16>)
  return
}

// -----

func.func @batch_norm_param_types(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{bias element type differs from scale element type 'f32'}}
  %y = graph.batch_normalization %x, %s, %b, %s, %s {epsilon = 1.0e-05 : f32}
      : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @batch_norm_stats_types(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %v: tensor<4xf16>) {
  // expected-error @+1 {{variance element type differs from mean element type 'f32'}}
  %y = graph.batch_normalization %x, %s, %s, %s, %v {epsilon = 1.0e-05 : f32}
      : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @batch_norm_integer(%x: tensor<2x4xi32>, %s: tensor<4xi32>) {
  // expected-error @+1 {{expects floating-point input and parameters}}
  %y = graph.batch_normalization %x, %s, %s, %s, %s {epsilon = 1.0e-05 : f32}
      : (tensor<2x4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  return
}

// -----

func.func @batch_norm_rank(%x: tensor<4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{expects rank 2 or more ([N, C, ...]), got 1}}
  %y = graph.batch_normalization %x, %s, %s, %s, %s {epsilon = 1.0e-05 : f32}
      : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @batch_norm_param_rank(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %m: tensor<1x4xf32>) {
  // expected-error @+1 {{mean must have rank 1, got 2}}
  %y = graph.batch_normalization %x, %s, %s, %m, %m {epsilon = 1.0e-05 : f32}
      : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @batch_norm_channels(%x: tensor<2x4x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{scale has 3 elements for 4 channels}}
  %y = graph.batch_normalization %x, %s, %s, %s, %s {epsilon = 1.0e-05 : f32}
      : (tensor<2x4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x4x3xf32>
  return
}

// -----

func.func @instance_norm_rank(%x: tensor<2x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{expects rank 3 or more ([N, C, ...]), got 2}}
  %y = graph.instance_normalization %x, %s, %s {epsilon = 1.0e-05 : f32}
      : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @instance_norm_element_type(%x: tensor<2x4x5xf32>, %s: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{bias element type 'bf16' differs from input element type 'f32'}}
  %y = graph.instance_normalization %x, %s, %b {epsilon = 1.0e-05 : f32}
      : (tensor<2x4x5xf32>, tensor<4xf32>, tensor<4xbf16>) -> tensor<2x4x5xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %y = graph.softmax %x {axis = 2 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}
