// Graph ops reject shapes and attributes that contradict their ONNX semantics.
// Each failed shape rule is followed by the generic "failed to infer returned types",
// which these cases leave unchecked (only-expected).
// RUN: kiln-opt %s -split-input-file -verify-diagnostics=only-expected

func.func @conv_channel_mismatch(%x: tensor<1x4x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{input channels (4) differ from weight channels per group (3) times group (1)}}
  %y = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x4x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

// Channels last: the channels are the last dimension of the input and the weight, so an
// input read as channels first ([N, C, H, W] with C = 3) does not match.
func.func @conv_channels_last_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{input channels (8) differ from weight channels per group (3) times group (1)}}
  %y = graph.conv %x, %w {channels_last, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x6x6x8xf32>
  return
}

// -----

// The declared result must be the channels-last one.
func.func @conv_channels_last_result(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'graph.conv' op inferred type(s) 'tensor<1x6x6x4xf32>' are incompatible with return type(s) of operation 'tensor<1x4x6x6xf32>'}}
  %y = graph.conv %x, %w {channels_last, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_wrong_pad_count(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{expects 4 pads (all beginnings, then all ends), got 2}}
  %y = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 1, 1>, group = 1}
      : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  return
}

// -----

func.func @conv_wrong_stride_count(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{expects 2 strides, got 1}}
  %y = graph.conv %x, %w {strides = array<i64: 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{strides and dilations must be positive}}
  %y = graph.conv %x, %w {strides = array<i64: 0, 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_group_not_dividing(%x: tensor<1x6x8x8xf32>, %w: tensor<8x2x3x3xf32>) {
  // expected-error @+1 {{output channels (8) are not divisible by group (3)}}
  %y = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 0, 0, 0, 0>, group = 3}
      : (tensor<1x6x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_non_positive_group(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{attribute 'group' failed to satisfy constraint}}
  %y = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 0, 0, 0, 0>, group = 0}
      : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_kernel_larger_than_input(%x: tensor<1x3x2x2xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{spatial dimension 0: window of 3 (kernel 3, dilation 1) does not fit the padded extent 2}}
  %y = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x3x2x2xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x1x1xf32>
  return
}

// -----

func.func @conv_bias_size(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{bias has 4 elements for 8 output channels}}
  %y = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                              pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<4xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_wrong_result_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<1x8x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x8x8x8xf32>'}}
  %y = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  return
}

// -----

func.func @conv_rank_too_low(%x: tensor<3x8xf32>, %w: tensor<8x3xf32>) {
  // expected-error @+1 {{expects rank 3 or more ([N, C, spatial...]), got 2}}
  %y = graph.conv %x, %w {strides = array<i64>, dilations = array<i64>,
                          pads = array<i64>, group = 1}
      : (tensor<3x8xf32>, tensor<8x3xf32>) -> tensor<3x8xf32>
  return
}

// -----

func.func @matmul_contracting_mismatch(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>) {
  // expected-error @+1 {{contracting dimensions differ: 8 in [4, 8] against 7 in [7, 16]}}
  %c = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<7x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) {
  // expected-error @+1 {{batch dimensions: shapes [2] and [3] do not broadcast}}
  %c = graph.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x16xf32>) -> tensor<2x4x16xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<4x8xf32>, %b: tensor<8x16xf16>) {
  // expected-error @+1 {{rhs element type 'f16' differs from lhs element type 'f32'}}
  %c = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf16>) -> tensor<4x16xf32>
  return
}

// -----

func.func @matmul_unsigned_bytes(%a: tensor<4x8xui8>, %b: tensor<8x16xui8>) {
  // expected-error @+1 {{an 8-bit matmul needs signless i8 operands, got 'ui8'}}
  %c = graph.matmul %a, %b : (tensor<4x8xui8>, tensor<8x16xui8>) -> tensor<4x16xi32>
  return
}

// -----

func.func @matmul_i8_result(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>) {
  // expected-error @+1 {{inferred type(s) 'tensor<4x16xi32>' are incompatible with return type(s) of operation 'tensor<4x16xi8>'}}
  %c = graph.matmul %a, %b : (tensor<4x8xi8>, tensor<8x16xi8>) -> tensor<4x16xi8>
  return
}

// -----

func.func @add_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{shapes [2, 3] and [4, 3] do not broadcast}}
  %c = graph.add %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @add_rank_mismatch_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{are incompatible with return type(s)}}
  %c = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @relu_type_change(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %c = "graph.relu"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf16>
  return
}

// -----

func.func @constant_type_mismatch() {
  // expected-error @+1 {{failed to verify that all of {value, result} have same type}}
  %c = "graph.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}
