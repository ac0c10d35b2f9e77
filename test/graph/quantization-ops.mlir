// Round trip of the quantized ops, in the custom and in the generic form, with result
// types as their shape rules infer them.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// The zero point's element type is the quantized type; without one it is ui8.
// CHECK-LABEL: func.func @quantize
func.func @quantize(%x: tensor<1x3x8x8xf32>, %s: tensor<3xf32>, %z: tensor<3xi8>,
                    %st: tensor<f32>, %h: tensor<4x64xf16>, %sb: tensor<4x2xf16>,
                    %zb: tensor<4x2xf8E4M3FN>) {
  // CHECK: graph.quantize_linear %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<1x3x8x8xi8>
  %0 = graph.quantize_linear %x, %s, %z {axis = 1 : i64, block_size = 0 : i64, saturate = true}
      : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<1x3x8x8xi8>
  // CHECK: graph.quantize_linear {{.*}} : (tensor<1x3x8x8xf32>, tensor<f32>) -> tensor<1x3x8x8xui8>
  %1 = graph.quantize_linear %x, %st {axis = 1 : i64, block_size = 0 : i64, saturate = true}
      : (tensor<1x3x8x8xf32>, tensor<f32>) -> tensor<1x3x8x8xui8>
  // Blocked: 64 elements along axis 1 in blocks of 32 take 2 scales per row.
  // CHECK: graph.quantize_linear {{.*}} {axis = 1 : i64, block_size = 32 : i64, saturate = false} : (tensor<4x64xf16>, tensor<4x2xf16>, tensor<4x2xf8E4M3FN>) -> tensor<4x64xf8E4M3FN>
  %2 = graph.quantize_linear %h, %sb, %zb {axis = 1 : i64, block_size = 32 : i64, saturate = false}
      : (tensor<4x64xf16>, tensor<4x2xf16>, tensor<4x2xf8E4M3FN>) -> tensor<4x64xf8E4M3FN>
  return
}

// The result of DequantizeLinear has the scale's element type.
// CHECK-LABEL: func.func @dequantize
func.func @dequantize(%q: tensor<1x3x3x2xui8>, %s: tensor<3xbf16>, %z: tensor<3xui8>,
                      %i: tensor<?xi32>, %st: tensor<f32>) {
  // CHECK: graph.dequantize_linear %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x3x3x2xui8>, tensor<3xbf16>, tensor<3xui8>) -> tensor<1x3x3x2xbf16>
  %0 = graph.dequantize_linear %q, %s, %z {axis = 1 : i64, block_size = 0 : i64}
      : (tensor<1x3x3x2xui8>, tensor<3xbf16>, tensor<3xui8>) -> tensor<1x3x3x2xbf16>
  // CHECK: graph.dequantize_linear {{.*}} : (tensor<?xi32>, tensor<f32>) -> tensor<?xf32>
  %1 = graph.dequantize_linear %i, %st {axis = 1 : i64, block_size = 0 : i64}
      : (tensor<?xi32>, tensor<f32>) -> tensor<?xf32>
  return
}

// CHECK-LABEL: func.func @dynamic_quantize
func.func @dynamic_quantize(%x: tensor<?x768xf32>) {
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}} = graph.dynamic_quantize_linear %{{.*}} : (tensor<?x768xf32>) -> (tensor<?x768xui8>, tensor<f32>, tensor<ui8>)
  %y, %s, %z = graph.dynamic_quantize_linear %x
      : (tensor<?x768xf32>) -> (tensor<?x768xui8>, tensor<f32>, tensor<ui8>)
  return
}

// The quantized matmul and convolution take their result type from the result's zero
// point; the integer ones return i32.
// CHECK-LABEL: func.func @quantized_matmul_and_conv
func.func @quantized_matmul_and_conv(%a: tensor<2x4xui8>, %b: tensor<4x3xi8>, %f: tensor<f32>,
                                     %za: tensor<ui8>, %zb: tensor<i8>,
                                     %x: tensor<1x1x7x7xui8>, %w: tensor<2x1x3x3xi8>,
                                     %ws: tensor<2xf32>, %wz: tensor<2xi8>, %bias: tensor<2xi32>) {
  // CHECK: graph.qlinear_matmul {{.*}} : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  %0 = graph.qlinear_matmul %a, %f, %za, %b, %f, %zb, %f, %zb
      : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x3xi8>, tensor<f32>, tensor<i8>,
         tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  // CHECK: graph.matmul_integer {{.*}} : (tensor<2x4xui8>, tensor<4x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x3xi32>
  %1 = graph.matmul_integer %a, %b, %za, %zb
      : (tensor<2x4xui8>, tensor<4x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x3xi32>
  // CHECK: graph.qlinear_conv {{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
  // CHECK-SAME: -> tensor<1x2x4x4xui8>
  %2 = graph.qlinear_conv %x, %f, %za, %w, %ws, %wz, %f, %za, %bias
      {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
       group = 1}
      : (tensor<1x1x7x7xui8>, tensor<f32>, tensor<ui8>, tensor<2x1x3x3xi8>, tensor<2xf32>,
         tensor<2xi8>, tensor<f32>, tensor<ui8>, tensor<2xi32>) -> tensor<1x2x4x4xui8>
  // CHECK: graph.conv_integer {{.*}} : (tensor<1x1x7x7xui8>, tensor<2x1x3x3xi8>, tensor<ui8>, tensor<2xi8>) -> tensor<1x2x5x5xi32>
  %3 = graph.conv_integer %x, %w, %za, %wz
      {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
       group = 1}
      : (tensor<1x1x7x7xui8>, tensor<2x1x3x3xi8>, tensor<ui8>, tensor<2xi8>) -> tensor<1x2x5x5xi32>
  return
}
