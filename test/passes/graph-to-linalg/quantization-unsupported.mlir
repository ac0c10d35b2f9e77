// RUN: kiln-opt --graph-to-linalg %s -split-input-file -verify-diagnostics

// Blocked quantization has no lowering yet.
func.func @quantize_blocked(%x: tensor<3x4xf32>, %s: tensor<3x2xf32>, %zp: tensor<3x2xi8>) -> tensor<3x4xi8> {
  // expected-error @+1 {{graph.quantize_linear: not supported on the CPU path}}
  %0 = graph.quantize_linear %x, %s, %zp {axis = 1 : i64, block_size = 2 : i64, saturate = true} : (tensor<3x4xf32>, tensor<3x2xf32>, tensor<3x2xi8>) -> tensor<3x4xi8>
  return %0 : tensor<3x4xi8>
}

// -----

// A per-row lhs scale whose extent is not the number of rows.
func.func @qlinear_matmul_scale_extent(%a: tensor<2x4xui8>, %as: tensor<3xf32>, %az: tensor<ui8>, %b: tensor<4x3xui8>, %bs: tensor<f32>, %bz: tensor<ui8>, %ys: tensor<f32>, %yz: tensor<ui8>) -> tensor<2x3xui8> {
  // expected-error @+1 {{graph.qlinear_matmul: not supported on the CPU path}}
  %0 = graph.qlinear_matmul %a, %as, %az, %b, %bs, %bz, %ys, %yz : (tensor<2x4xui8>, tensor<3xf32>, tensor<ui8>, tensor<4x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// ConvInteger with dynamic spatial extents.
func.func @conv_integer_dynamic(%x: tensor<1x1x?x?xui8>, %w: tensor<1x1x2x2xui8>, %xz: tensor<ui8>, %wz: tensor<ui8>) -> tensor<1x1x?x?xi32> {
  // expected-error @+1 {{graph.conv_integer: not supported on the CPU path}}
  %0 = graph.conv_integer %x, %w, %xz, %wz {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x?x?xui8>, tensor<1x1x2x2xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x1x?x?xi32>
  return %0 : tensor<1x1x?x?xi32>
}
