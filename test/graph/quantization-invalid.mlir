// Quantized ops reject shapes and element types that contradict their ONNX semantics.
// Each failed shape rule is followed by the generic "failed to infer returned types",
// which these cases leave unchecked (only-expected).
// RUN: kiln-opt %s -split-input-file -verify-diagnostics=only-expected

func.func @quantize_input_type(%x: tensor<4xi8>, %s: tensor<f32>) {
  // expected-error @+1 {{input must be an f32, f16, bf16 or i32 tensor, got 'tensor<4xi8>'}}
  %0 = graph.quantize_linear %x, %s {axis = 1 : i64, block_size = 0 : i64, saturate = true}
      : (tensor<4xi8>, tensor<f32>) -> tensor<4xui8>
  return
}

// -----

func.func @quantize_scale_type(%x: tensor<4xi32>, %s: tensor<i32>) {
  // expected-error @+1 {{scale must be an f32, f16 or bf16 tensor, got 'tensor<i32>'}}
  %0 = graph.quantize_linear %x, %s {axis = 1 : i64, block_size = 0 : i64, saturate = true}
      : (tensor<4xi32>, tensor<i32>) -> tensor<4xui8>
  return
}

// -----

func.func @quantize_scale_differs(%x: tensor<4xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{scale element type 'f32' differs from input element type 'f16'}}
  %0 = graph.quantize_linear %x, %s {axis = 1 : i64, block_size = 0 : i64, saturate = true}
      : (tensor<4xf16>, tensor<f32>) -> tensor<4xui8>
  return
}

// -----

func.func @quantize_zero_point_type(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) {
  // expected-error @+1 {{zero point element type 'i32' is not a quantized type}}
  %0 = graph.quantize_linear %x, %s, %z {axis = 1 : i64, block_size = 0 : i64, saturate = true}
      : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xi32>
  return
}

// -----

func.func @quantize_zero_point_shape(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<i8>) {
  // expected-error @+1 {{zero point type 'tensor<i8>' does not have the shape of scale type 'tensor<3xf32>'}}
  %0 = graph.quantize_linear %x, %s, %z {axis = 1 : i64, block_size = 0 : i64, saturate = true}
      : (tensor<2x3xf32>, tensor<3xf32>, tensor<i8>) -> tensor<2x3xi8>
  return
}

// -----

func.func @quantize_negative_block_size(%x: tensor<2x3xf32>, %s: tensor<2x3xf32>) {
  // expected-error @+1 {{block_size must not be negative, got -2}}
  %0 = graph.quantize_linear %x, %s {axis = 1 : i64, block_size = -2 : i64, saturate = true}
      : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xui8>
  return
}

// -----

func.func @quantize_scale_rank(%x: tensor<2x3xf32>, %s: tensor<2x3xf32>) {
  // expected-error @+1 {{scale must be a scalar or 1-D without block_size, got rank 2}}
  %0 = graph.quantize_linear %x, %s {axis = 1 : i64, block_size = 0 : i64, saturate = true}
      : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xui8>
  return
}

// -----

func.func @quantize_axis_out_of_range(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = graph.quantize_linear %x, %s {axis = 2 : i64, block_size = 0 : i64, saturate = true}
      : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xui8>
  return
}

// -----

func.func @quantize_per_axis_count(%x: tensor<2x3xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{scale has 2 elements for extent 3 of axis 1}}
  %0 = graph.quantize_linear %x, %s {axis = 1 : i64, block_size = 0 : i64, saturate = true}
      : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xui8>
  return
}

// -----

func.func @dequantize_blocked_rank(%q: tensor<2x64xi8>, %s: tensor<2xf32>) {
  // expected-error @+1 {{blocked quantization needs a scale of rank 2, got rank 1}}
  %0 = graph.dequantize_linear %q, %s {axis = 1 : i64, block_size = 32 : i64}
      : (tensor<2x64xi8>, tensor<2xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @dequantize_blocked_extent(%q: tensor<2x64xi8>, %s: tensor<2x3xf32>) {
  // expected-error @+1 {{scale extent 3 in dimension 1 does not match the 2 blocks of size 32 expected there}}
  %0 = graph.dequantize_linear %q, %s {axis = 1 : i64, block_size = 32 : i64}
      : (tensor<2x64xi8>, tensor<2x3xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @dequantize_input_type(%q: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{input element type 'f32' is not a quantized type or i32}}
  %0 = graph.dequantize_linear %q, %s {axis = 1 : i64, block_size = 0 : i64}
      : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @dequantize_scale_type(%q: tensor<4xi8>, %s: tensor<f64>) {
  // expected-error @+1 {{scale must be an f32, f16 or bf16 tensor, got 'tensor<f64>'}}
  %0 = graph.dequantize_linear %q, %s {axis = 1 : i64, block_size = 0 : i64}
      : (tensor<4xi8>, tensor<f64>) -> tensor<4xf64>
  return
}

// -----

func.func @dequantize_zero_point_type(%q: tensor<4xi8>, %s: tensor<f32>, %z: tensor<ui8>) {
  // expected-error @+1 {{zero point element type 'ui8' differs from input element type 'i8'}}
  %0 = graph.dequantize_linear %q, %s, %z {axis = 1 : i64, block_size = 0 : i64}
      : (tensor<4xi8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  return
}

// -----

func.func @dynamic_quantize_input_type(%x: tensor<4xf16>) {
  // expected-error @+1 {{input must be an f32 tensor, got 'tensor<4xf16>'}}
  %y, %s, %z = graph.dynamic_quantize_linear %x
      : (tensor<4xf16>) -> (tensor<4xui8>, tensor<f32>, tensor<ui8>)
  return
}

// -----

func.func @qlinear_matmul_zero_point_type(%a: tensor<2x4xui8>, %b: tensor<4x3xui8>,
                                          %f: tensor<f32>, %z: tensor<ui8>, %zi: tensor<i8>) {
  // expected-error @+1 {{lhs zero point element type 'i8' differs from lhs element type 'ui8'}}
  %0 = graph.qlinear_matmul %a, %f, %zi, %b, %f, %z, %f, %z
      : (tensor<2x4xui8>, tensor<f32>, tensor<i8>, tensor<4x3xui8>, tensor<f32>, tensor<ui8>,
         tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return
}

// -----

func.func @qlinear_matmul_scale_type(%a: tensor<2x4xui8>, %b: tensor<4x3xui8>,
                                     %f: tensor<f32>, %d: tensor<f64>, %z: tensor<ui8>) {
  // expected-error @+1 {{result scale must be f32, f16 or bf16, got 'f64'}}
  %0 = graph.qlinear_matmul %a, %f, %z, %b, %f, %z, %d, %z
      : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x3xui8>, tensor<f32>, tensor<ui8>,
         tensor<f64>, tensor<ui8>) -> tensor<2x3xui8>
  return
}

// -----

func.func @qlinear_matmul_result_type(%a: tensor<2x4xui8>, %b: tensor<4x3xui8>,
                                      %f: tensor<f32>, %z: tensor<ui8>, %zr: tensor<i32>) {
  // expected-error @+1 {{result zero point element type 'i32' is not a quantized type}}
  %0 = graph.qlinear_matmul %a, %f, %z, %b, %f, %z, %f, %zr
      : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x3xui8>, tensor<f32>, tensor<ui8>,
         tensor<f32>, tensor<i32>) -> tensor<2x3xi32>
  return
}

// -----

func.func @matmul_integer_contracting(%a: tensor<2x4xi8>, %b: tensor<5x3xi8>, %z: tensor<i8>) {
  // expected-error @+1 {{contracting dimensions differ: 4 in [2, 4] against 5 in [5, 3]}}
  %0 = graph.matmul_integer %a, %b, %z, %z
      : (tensor<2x4xi8>, tensor<5x3xi8>, tensor<i8>, tensor<i8>) -> tensor<2x3xi32>
  return
}

// -----

func.func @matmul_integer_operand_type(%a: tensor<2x4xi16>, %b: tensor<4x3xi8>,
                                       %z: tensor<i8>, %zw: tensor<i16>) {
  // expected-error @+1 {{lhs must be an i8 or ui8 tensor, got 'tensor<2x4xi16>'}}
  %0 = graph.matmul_integer %a, %b, %zw, %z
      : (tensor<2x4xi16>, tensor<4x3xi8>, tensor<i16>, tensor<i8>) -> tensor<2x3xi32>
  return
}

// -----

func.func @qlinear_conv_bias_type(%x: tensor<1x1x7x7xui8>, %w: tensor<1x1x3x3xui8>,
                                  %f: tensor<f32>, %z: tensor<ui8>, %bias: tensor<1xf32>) {
  // expected-error @+1 {{bias must be an i32 tensor, got 'tensor<1xf32>'}}
  %0 = graph.qlinear_conv %x, %f, %z, %w, %f, %z, %f, %z, %bias
      {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
       group = 1}
      : (tensor<1x1x7x7xui8>, tensor<f32>, tensor<ui8>, tensor<1x1x3x3xui8>, tensor<f32>,
         tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<1xf32>) -> tensor<1x1x5x5xui8>
  return
}

// -----

func.func @qlinear_conv_bias_rank(%x: tensor<1x1x7x7xui8>, %w: tensor<1x1x3x3xui8>,
                                  %f: tensor<f32>, %z: tensor<ui8>, %bias: tensor<1x1xi32>) {
  // expected-error @+1 {{bias must have rank 1, got 2}}
  %0 = graph.qlinear_conv %x, %f, %z, %w, %f, %z, %f, %z, %bias
      {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
       group = 1}
      : (tensor<1x1x7x7xui8>, tensor<f32>, tensor<ui8>, tensor<1x1x3x3xui8>, tensor<f32>,
         tensor<ui8>, tensor<f32>, tensor<ui8>, tensor<1x1xi32>) -> tensor<1x1x5x5xui8>
  return
}

// -----

func.func @conv_integer_channels(%x: tensor<1x2x7x7xui8>, %w: tensor<1x1x3x3xui8>,
                                 %z: tensor<ui8>) {
  // expected-error @+1 {{input channels (2) differ from weight channels per group (1) times group (1)}}
  %0 = graph.conv_integer %x, %w, %z, %z
      {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
       group = 1}
      : (tensor<1x2x7x7xui8>, tensor<1x1x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x1x5x5xi32>
  return
}

// -----

func.func @conv_integer_rank(%x: tensor<1x1x7x7xui8>, %w: tensor<1x1x3xui8>, %z: tensor<ui8>) {
  // expected-error @+1 {{input rank 4 differs from weight rank 3}}
  %0 = graph.conv_integer %x, %w, %z, %z
      {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
       group = 1}
      : (tensor<1x1x7x7xui8>, tensor<1x1x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<*xi32>
  return
}

// -----

func.func @conv_integer_window(%x: tensor<1x1x2x2xui8>, %w: tensor<1x1x3x3xui8>,
                               %z: tensor<ui8>) {
  // expected-error @+1 {{spatial dimension 0: window of 3 (kernel 3, dilation 1) does not fit the padded extent 2}}
  %0 = graph.conv_integer %x, %w, %z, %z
      {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
       group = 1}
      : (tensor<1x1x2x2xui8>, tensor<1x1x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<*xi32>
  return
}

// -----

func.func @conv_integer_low_rank(%x: tensor<1x1xui8>, %w: tensor<1x1xui8>, %z: tensor<ui8>) {
  // expected-error @+1 {{expects rank 3 or more ([N, C, spatial...]), got 2}}
  %0 = graph.conv_integer %x, %w, %z, %z
      {strides = array<i64: 1>, dilations = array<i64: 1>, pads = array<i64: 0, 0>, group = 1}
      : (tensor<1x1xui8>, tensor<1x1xui8>, tensor<ui8>, tensor<ui8>) -> tensor<*xi32>
  return
}

// -----

func.func @conv_integer_stride_count(%x: tensor<1x1x7x7xui8>, %w: tensor<1x1x3x3xui8>, %z: tensor<ui8>) {
  // expected-error @+1 {{expects 2 strides, got 1}}
  %0 = graph.conv_integer %x, %w, %z, %z
      {strides = array<i64: 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x1x7x7xui8>, tensor<1x1x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<*xi32>
  return
}

// -----

func.func @conv_integer_dilation_count(%x: tensor<1x1x7x7xui8>, %w: tensor<1x1x3x3xui8>, %z: tensor<ui8>) {
  // expected-error @+1 {{expects 2 dilations, got 1}}
  %0 = graph.conv_integer %x, %w, %z, %z
      {strides = array<i64: 1, 1>, dilations = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x1x7x7xui8>, tensor<1x1x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<*xi32>
  return
}

// -----

func.func @conv_integer_pad_count(%x: tensor<1x1x7x7xui8>, %w: tensor<1x1x3x3xui8>, %z: tensor<ui8>) {
  // expected-error @+1 {{expects 4 pads (all beginnings, then all ends), got 2}}
  %0 = graph.conv_integer %x, %w, %z, %z
      {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0>, group = 1}
      : (tensor<1x1x7x7xui8>, tensor<1x1x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<*xi32>
  return
}

// -----

func.func @conv_integer_zero_stride(%x: tensor<1x1x7x7xui8>, %w: tensor<1x1x3x3xui8>, %z: tensor<ui8>) {
  // expected-error @+1 {{strides and dilations must be positive}}
  %0 = graph.conv_integer %x, %w, %z, %z
      {strides = array<i64: 0, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<1x1x7x7xui8>, tensor<1x1x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<*xi32>
  return
}

// -----

func.func @conv_integer_negative_pad(%x: tensor<1x1x7x7xui8>, %w: tensor<1x1x3x3xui8>, %z: tensor<ui8>) {
  // expected-error @+1 {{pads must not be negative}}
  %0 = graph.conv_integer %x, %w, %z, %z
      {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: -1, 0, 0, 0>, group = 1}
      : (tensor<1x1x7x7xui8>, tensor<1x1x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<*xi32>
  return
}

// -----

func.func @conv_integer_group(%x: tensor<1x2x7x7xui8>, %w: tensor<3x1x3x3xui8>, %z: tensor<ui8>) {
  // expected-error @+1 {{output channels (3) are not divisible by group (2)}}
  %0 = graph.conv_integer %x, %w, %z, %z
      {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 2}
      : (tensor<1x2x7x7xui8>, tensor<3x1x3x3xui8>, tensor<ui8>, tensor<ui8>) -> tensor<*xi32>
  return
}
