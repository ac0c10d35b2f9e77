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

func.func @batch_norm_training_momentum(%x: tensor<2x4xf32>, %s: tensor<4xf32>) {
  // Training mode needs the momentum of its running statistics.
  // expected-error @+1 {{momentum must be given exactly in training mode}}
  %y, %m, %v = graph.batch_normalization %x, %s, %s, %s, %s {epsilon = 1.0e-05 : f32, training_mode}
      : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @batch_norm_inference_statistics(%x: tensor<2x4xf32>, %s: tensor<4xf32>) {
  // Without training_mode there are no running statistics to return.
  // expected-error @+1 {{inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s)}}
  %y, %m, %v = graph.batch_normalization %x, %s, %s, %s, %s {epsilon = 1.0e-05 : f32}
      : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>)
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

// -----

func.func @conv_transpose_element_type(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf16>) {
  // expected-error @+1 {{weight element type 'f16' differs from input element type 'f32'}}
  %y = graph.conv_transpose %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1}
      : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf16>) -> tensor<*xf32>
  return
}

// -----

func.func @conv_transpose_rank_mismatch(%x: tensor<1x4x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{input rank 3 differs from weight rank 4}}
  %y = graph.conv_transpose %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1}
      : (tensor<1x4x8xf32>, tensor<4x2x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @conv_transpose_low_rank(%x: tensor<1x4xf32>, %w: tensor<*xf32>) {
  // expected-error @+1 {{expects rank 3 or more ([N, C, spatial...]), got 2}}
  %y = graph.conv_transpose %x, %w {strides = array<i64>, dilations = array<i64>,
      pads = array<i64>, output_padding = array<i64>, group = 1}
      : (tensor<1x4xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @conv_transpose_output_padding_count(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{expects 2 output_padding extents, got 1}}
  %y = graph.conv_transpose %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0>, group = 1}
      : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @conv_transpose_negative_output_padding(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{pads and output_padding must not be negative}}
  %y = graph.conv_transpose %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, -1>, group = 1}
      : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @conv_transpose_group(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{weight input channels (4) are not divisible by group (3)}}
  %y = graph.conv_transpose %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 3}
      : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x6x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{input channels (6) differ from weight input channels (4)}}
  %y = graph.conv_transpose %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1}
      : (tensor<1x6x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @conv_transpose_bias(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<2xf32>) {
  // Two groups of two output channels: the bias needs four.
  // expected-error @+1 {{bias has 2 elements for 4 channels}}
  %y = graph.conv_transpose %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
      pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 2}
      : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>, tensor<2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @conv_transpose_no_output(%x: tensor<1x4x1x8xf32>, %w: tensor<4x2x1x1xf32>) {
  // expected-error @+1 {{spatial dimension 0: the pads (1, 1) leave no output}}
  %y = graph.conv_transpose %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
      pads = array<i64: 1, 0, 1, 0>, output_padding = array<i64: 0, 0>, group = 1}
      : (tensor<1x4x1x8xf32>, tensor<4x2x1x1xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @lrn_integer(%x: tensor<1x4x8x8xi32>) {
  // expected-error @+1 {{expects a floating-point input, got 'i32'}}
  %y = graph.lrn %x {alpha = 1.0e-04 : f32, beta = 0.75 : f32, bias = 1.0 : f32, size = 3}
      : (tensor<1x4x8x8xi32>) -> tensor<1x4x8x8xi32>
  return
}

// -----

func.func @mvn_repeated_axis(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{axis -1 is repeated}}
  %y = graph.mean_variance_normalization %x {axes = array<i64: 3, -1>}
      : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @group_norm_groups(%x: tensor<1x6x8xf32>, %s: tensor<6xf32>) {
  // expected-error @+1 {{channels (6) are not divisible by num_groups (4)}}
  %y = graph.group_normalization %x, %s, %s {epsilon = 1.0e-05 : f32, num_groups = 4, stash_type = f32}
      : (tensor<1x6x8xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<1x6x8xf32>
  return
}

// -----

func.func @einsum_no_operands() {
  // expected-error @+1 {{expects at least one operand}}
  %y = graph.einsum {equation = "->"} : () -> tensor<f32>
  return
}

// -----

func.func @einsum_element_type(%a: tensor<2x3xf32>, %b: tensor<3xf16>) {
  // expected-error @+1 {{operand element type 'f16' differs from input element type 'f32'}}
  %y = graph.einsum %a, %b {equation = "ij,j->i"} : (tensor<2x3xf32>, tensor<3xf16>) -> tensor<2xf32>
  return
}

// -----

func.func @einsum_term_count(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{equation has 2 input terms for 1 operands}}
  %y = graph.einsum %a {equation = "ij,jk->ik"} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @einsum_two_ellipses(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{equation term '...i...' has two ellipses}}
  %y = graph.einsum %a {equation = "...i..."} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @einsum_bad_character(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{equation term 'i1' has '1', expected letters and '...'}}
  %y = graph.einsum %a {equation = "i1->i"} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @einsum_term_rank(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{equation term 'ijk' does not fit an operand of rank 2}}
  %y = graph.einsum %a {equation = "ijk->i"} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @einsum_letter_extents(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{letter 'j' stands for both 3 and 4}}
  %y = graph.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @einsum_ellipsis_broadcast(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{ellipsis dimensions:}}
  %y = graph.einsum %a, %b {equation = "...i,...i->..."} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @einsum_unknown_output_letter(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{output letter 'k' is not in any input term}}
  %y = graph.einsum %a {equation = "ij->k"} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @einsum_repeated_output_letter(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{output letter 'i' is repeated}}
  %y = graph.einsum %a {equation = "ij->ii"} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @einsum_output_ellipsis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{output has an ellipsis that no input term has}}
  %y = graph.einsum %a {equation = "ij->...i"} : (tensor<2x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @det_integer(%x: tensor<3x3xi64>) {
  // expected-error @+1 {{expects a floating-point input, got 'i64'}}
  %y = graph.det %x : (tensor<3x3xi64>) -> tensor<i64>
  return
}

// -----

func.func @det_rank(%x: tensor<3xf32>) {
  // expected-error @+1 {{expects rank 2 or more ([*, M, M]), got 1}}
  %y = graph.det %x : (tensor<3xf32>) -> tensor<f32>
  return
}

// -----

func.func @det_not_square(%x: tensor<5x3x4xf32>) {
  // expected-error @+1 {{expects square matrices, got [3, 4]}}
  %y = graph.det %x : (tensor<5x3x4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @resize_mode(%x: tensor<1x3x8x8xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{mode 'bilinear' is not one of nearest, linear, cubic}}
  %y = graph.resize %x scales(%s) {antialias = false, coordinate_transformation_mode = "half_pixel",
      cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32,
      keep_aspect_ratio_policy = "stretch", mode = "bilinear", nearest_mode = "floor"}
      : (tensor<1x3x8x8xf32>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_scales_and_sizes(%x: tensor<1x3x8x8xf32>, %s: tensor<4xf32>, %z: tensor<4xi64>) {
  // expected-error @+1 {{expects exactly one of scales and sizes}}
  %y = graph.resize %x scales(%s) sizes(%z) {antialias = false, coordinate_transformation_mode = "half_pixel",
      cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32,
      keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "floor"}
      : (tensor<1x3x8x8xf32>, tensor<4xf32>, tensor<4xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_integer_scales(%x: tensor<1x3x8x8xf32>, %s: tensor<4xi64>) {
  // expected-error @+1 {{scales must be floating-point}}
  %y = graph.resize %x scales(%s) {antialias = false, coordinate_transformation_mode = "half_pixel",
      cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32,
      keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "floor"}
      : (tensor<1x3x8x8xf32>, tensor<4xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_float_sizes(%x: tensor<1x3x8x8xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{sizes must be i64}}
  %y = graph.resize %x sizes(%s) {antialias = false, coordinate_transformation_mode = "half_pixel",
      cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32,
      keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "floor"}
      : (tensor<1x3x8x8xf32>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_integer_roi(%x: tensor<1x3x8x8xf32>, %r: tensor<8xi64>, %s: tensor<4xf32>) {
  // expected-error @+1 {{roi must be floating-point}}
  %y = graph.resize %x roi(%r) scales(%s) {antialias = false, coordinate_transformation_mode = "tf_crop_and_resize",
      cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32,
      keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "floor"}
      : (tensor<1x3x8x8xf32>, tensor<8xi64>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_repeated_axis(%x: tensor<1x3x8x8xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{axis -1 is repeated}}
  %y = graph.resize %x scales(%s) {antialias = false, axes = array<i64: 3, -1>,
      coordinate_transformation_mode = "half_pixel",
      cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32,
      keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "floor"}
      : (tensor<1x3x8x8xf32>, tensor<2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_scale_count(%x: tensor<1x3x8x8xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{scales must have 4 elements (one per resized axis), got type 'tensor<2xf32>'}}
  %y = graph.resize %x scales(%s) {antialias = false, coordinate_transformation_mode = "half_pixel",
      cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32,
      keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "floor"}
      : (tensor<1x3x8x8xf32>, tensor<2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_roi_count(%x: tensor<1x3x8x8xf32>, %r: tensor<4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{roi must have 8 elements (starts, then ends), got type 'tensor<4xf32>'}}
  %y = graph.resize %x roi(%r) scales(%s) {antialias = false, coordinate_transformation_mode = "tf_crop_and_resize",
      cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32,
      keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "floor"}
      : (tensor<1x3x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_zero_size(%x: tensor<1x3x8x8xf32>) {
  %z = graph.constant dense<[1, 3, 0, 4]> : tensor<4xi64>
  // expected-error @+1 {{sizes must be positive}}
  %y = graph.resize %x sizes(%z) {antialias = false, coordinate_transformation_mode = "half_pixel",
      cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32,
      keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "floor"}
      : (tensor<1x3x8x8xf32>, tensor<4xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @resize_negative_scale(%x: tensor<1x3x8x8xf32>) {
  %s = graph.constant dense<[1.0, 1.0, -2.0, 2.0]> : tensor<4xf32>
  // expected-error @+1 {{scales must be positive}}
  %y = graph.resize %x scales(%s) {antialias = false, coordinate_transformation_mode = "half_pixel",
      cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32,
      keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "floor"}
      : (tensor<1x3x8x8xf32>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @grid_sample_padding_mode(%x: tensor<1x3x8x8xf32>, %g: tensor<1x4x4x2xf32>) {
  // expected-error @+1 {{padding_mode 'wrap' is not one of zeros, border, reflection}}
  %y = graph.grid_sample %x, %g {align_corners = false, mode = "linear", padding_mode = "wrap"}
      : (tensor<1x3x8x8xf32>, tensor<1x4x4x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @grid_sample_integer_grid(%x: tensor<1x3x8x8xf32>, %g: tensor<1x4x4x2xi32>) {
  // expected-error @+1 {{grid must be floating-point}}
  %y = graph.grid_sample %x, %g {align_corners = false, mode = "linear", padding_mode = "zeros"}
      : (tensor<1x3x8x8xf32>, tensor<1x4x4x2xi32>) -> tensor<*xf32>
  return
}

// -----

func.func @grid_sample_rank_mismatch(%x: tensor<1x3x8x8xf32>, %g: tensor<1x4x4x4x3xf32>) {
  // expected-error @+1 {{input rank 4 differs from grid rank 5}}
  %y = graph.grid_sample %x, %g {align_corners = false, mode = "linear", padding_mode = "zeros"}
      : (tensor<1x3x8x8xf32>, tensor<1x4x4x4x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @grid_sample_low_rank(%x: tensor<1x3xf32>, %g: tensor<*xf32>) {
  // expected-error @+1 {{expects rank 3 or more ([N, C, spatial...]), got 2}}
  %y = graph.grid_sample %x, %g {align_corners = false, mode = "linear", padding_mode = "zeros"}
      : (tensor<1x3xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @grid_sample_batch(%x: tensor<2x3x8x8xf32>, %g: tensor<1x4x4x2xf32>) {
  // expected-error @+1 {{grid batch (1) differs from input batch (2)}}
  %y = graph.grid_sample %x, %g {align_corners = false, mode = "linear", padding_mode = "zeros"}
      : (tensor<2x3x8x8xf32>, tensor<1x4x4x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @grid_sample_coordinates(%x: tensor<1x3x8x8xf32>, %g: tensor<1x4x4x3xf32>) {
  // expected-error @+1 {{grid's last dimension must be 2 (one coordinate per spatial dimension), got 3}}
  %y = graph.grid_sample %x, %g {align_corners = false, mode = "linear", padding_mode = "zeros"}
      : (tensor<1x3x8x8xf32>, tensor<1x4x4x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @roi_align_mode(%x: tensor<1x3x8x8xf32>, %r: tensor<2x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{coordinate_transformation_mode 'align_corners' is not one of half_pixel, output_half_pixel}}
  %y = graph.roi_align %x, %r, %i {coordinate_transformation_mode = "align_corners", mode = "avg",
      output_height = 2, output_width = 2, sampling_ratio = 0, spatial_scale = 1.0 : f32}
      : (tensor<1x3x8x8xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @roi_align_indices_type(%x: tensor<1x3x8x8xf32>, %r: tensor<2x4xf32>, %i: tensor<2xi32>) {
  // expected-error @+1 {{batch_indices must be i64, got 'i32'}}
  %y = graph.roi_align %x, %r, %i {coordinate_transformation_mode = "half_pixel", mode = "avg",
      output_height = 2, output_width = 2, sampling_ratio = 0, spatial_scale = 1.0 : f32}
      : (tensor<1x3x8x8xf32>, tensor<2x4xf32>, tensor<2xi32>) -> tensor<*xf32>
  return
}

// -----

func.func @roi_align_input_rank(%x: tensor<1x3x8xf32>, %r: tensor<2x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{expects an input of rank 4 ([N, C, H, W]), got 3}}
  %y = graph.roi_align %x, %r, %i {coordinate_transformation_mode = "half_pixel", mode = "avg",
      output_height = 2, output_width = 2, sampling_ratio = 0, spatial_scale = 1.0 : f32}
      : (tensor<1x3x8xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @roi_align_rois(%x: tensor<1x3x8x8xf32>, %r: tensor<2x5xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{rois must be [num_rois, 4], got [2, 5]}}
  %y = graph.roi_align %x, %r, %i {coordinate_transformation_mode = "half_pixel", mode = "avg",
      output_height = 2, output_width = 2, sampling_ratio = 0, spatial_scale = 1.0 : f32}
      : (tensor<1x3x8x8xf32>, tensor<2x5xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @roi_align_batch_indices(%x: tensor<1x3x8x8xf32>, %r: tensor<2x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{batch_indices must be [2] (one per roi), got [3]}}
  %y = graph.roi_align %x, %r, %i {coordinate_transformation_mode = "half_pixel", mode = "avg",
      output_height = 2, output_width = 2, sampling_ratio = 0, spatial_scale = 1.0 : f32}
      : (tensor<1x3x8x8xf32>, tensor<2x4xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @rms_norm_axis(%x: tensor<2x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %y:2 = graph.rms_normalization %x, %s {axis = 2 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @rms_norm_scale_element_type(%x: tensor<2x4xf32>, %s: tensor<4xf16>) {
  // expected-error @+1 {{scale element type 'f16' differs from input element type 'f32'}}
  %y:2 = graph.rms_normalization %x, %s {axis = -1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<2x4xf32>, tensor<4xf16>) -> (tensor<2x4xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @rms_norm_scale_shape(%x: tensor<2x4xf32>, %s: tensor<2x4xf32>) {
  // The scale broadcasts to the normalised dimensions ([4]) only.
  // expected-error @+1 {{scale has rank 2, more than the rank 1 it broadcasts to}}
  %y:2 = graph.rms_normalization %x, %s {axis = 1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @rms_norm_integer(%x: tensor<2x4xi32>, %s: tensor<4xi32>) {
  // expected-error @+1 {{expects a float input, got 'i32'}}
  %y:2 = graph.rms_normalization %x, %s {axis = -1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<2x4xi32>, tensor<4xi32>) -> (tensor<2x4xi32>, tensor<2x1xf32>)
  return
}

// -----

// The inverse RMS of an f16 input is f32, one value a normalised row.
func.func @rms_norm_inverse_type(%x: tensor<2x4xf16>, %s: tensor<4xf16>) {
  // expected-error @+1 {{'graph.rms_normalization' op inferred type(s) 'tensor<2x4xf16>', 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf16>', 'tensor<2x1xf16>'}}
  %y:2 = graph.rms_normalization %x, %s {axis = -1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<2x4xf16>, tensor<4xf16>) -> (tensor<2x4xf16>, tensor<2x1xf16>)
  return
}

// -----

func.func @attention_integer(%q: tensor<2x8x4xi32>) {
  // expected-error @+1 {{expects a float query, got 'i32'}}
  %y = graph.attention %q, %q, %q {scale = 1.0 : f32} : (tensor<2x8x4xi32>, tensor<2x8x4xi32>, tensor<2x8x4xi32>) -> tensor<2x8x4xi32>
  return
}

// -----

func.func @attention_vector(%q: tensor<2x8x4xf32>, %k: tensor<4xf32>) {
  // expected-error @+1 {{key must have rank 2 or more, got 1}}
  %y = graph.attention %q, %k, %q {scale = 1.0 : f32} : (tensor<2x8x4xf32>, tensor<4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @attention_head_size(%q: tensor<2x8x4xf32>, %k: tensor<2x8x5xf32>) {
  // expected-error @+1 {{query and key: contracting dimensions differ: 4 in [2, 8, 4] against 5 in [2, 5, 8]}}
  %y = graph.attention %q, %k, %q {scale = 1.0 : f32} : (tensor<2x8x4xf32>, tensor<2x8x5xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @attention_value_length(%q: tensor<2x8x4xf32>, %v: tensor<2x6x4xf32>) {
  // expected-error @+1 {{scores and value: contracting dimensions differ: 8 in [2, 8, 8] against 6 in [2, 6, 4]}}
  %y = graph.attention %q, %q, %v {scale = 1.0 : f32} : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x6x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @attention_mask(%q: tensor<2x8x4xf32>, %m: tensor<3x8x8xf32>) {
  // expected-error @+1 {{mask of shape [3, 8, 8] does not broadcast to [2, 8, 8]}}
  %y = graph.attention %q, %q, %q, %m {scale = 1.0 : f32} : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<3x8x8xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @attention_mask_type(%q: tensor<2x8x4xf32>, %m: tensor<8x8xi1>) {
  // expected-error @+1 {{mask element type 'i1' differs from input element type 'f32'}}
  %y = graph.attention %q, %q, %q, %m {scale = 1.0 : f32} : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<8x8xi1>) -> tensor<2x8x4xf32>
  return
}

// -----

// An integer convolution accumulates into i32: its bias must be i32 too.
func.func @integer_conv_bias(%x: tensor<1x8x8x8xi8>, %w: tensor<4x8x1x1xi8>, %b: tensor<4xf32>) {
  // expected-error @+1 {{bias element type 'f32' differs from result element type 'i32'}}
  %y = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                              pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x8x8x8xi8>, tensor<4x8x1x1xi8>, tensor<4xf32>) -> tensor<1x4x8x8xi32>
  return
}

// -----

// Only 8-bit integer operands have an integer convolution.
func.func @integer_conv_i16(%x: tensor<1x8x8x8xi16>, %w: tensor<4x8x1x1xi16>) {
  // expected-error @+1 {{integer convolution needs i8 or ui8 operands, got 'i16'}}
  %y = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x8x8x8xi16>, tensor<4x8x1x1xi16>) -> tensor<1x4x8x8xi32>
  return
}

// -----

// Grouped-query attention: key and value heads must divide the query's.
func.func @attention_grouped_heads(%q: tensor<1x4x8x16xf32>, %k: tensor<1x3x8x16xf32>) {
  // expected-error @+1 {{query and key}}
  %y = graph.attention %q, %k, %k {scale = 1.0 : f32} : (tensor<1x4x8x16xf32>, tensor<1x3x8x16xf32>, tensor<1x3x8x16xf32>) -> tensor<1x4x8x16xf32>
  return
}
