// RUN: kiln-opt --graph-to-linalg %s -split-input-file | FileCheck %s

// Per-axis dequantization: the scale and zero point are read along axis 1; unsigned
// inputs widen with uitofp.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[AXIS:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @dequantize_per_axis
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[AXIS]], #[[AXIS]], #[[ID]]]
// CHECK: arith.uitofp
// CHECK: arith.subf
// CHECK: arith.mulf
func.func @dequantize_per_axis(%x: tensor<1x3x2xui8>, %s: tensor<3xf32>, %zp: tensor<3xui8>) -> tensor<1x3x2xf32> {
  %0 = graph.dequantize_linear %x, %s, %zp {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x3x2xui8>, tensor<3xf32>, tensor<3xui8>) -> tensor<1x3x2xf32>
  return %0 : tensor<1x3x2xf32>
}

// -----

// Per-tensor quantization to int8: divide, round half to even, add the zero point and
// saturate to [-128, 127] before the conversion.
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @quantize_per_tensor
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[SCALAR]], #[[SCALAR]], #{{.*}}]
// CHECK: arith.divf
// CHECK: math.roundeven
// CHECK: arith.addf
// CHECK: arith.maxnumf
// CHECK: arith.minnumf
// CHECK: arith.fptosi {{.*}} : f32 to i8
func.func @quantize_per_tensor(%x: tensor<6xf32>, %s: tensor<f32>, %zp: tensor<i8>) -> tensor<6xi8> {
  %0 = graph.quantize_linear %x, %s, %zp {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<6xf32>, tensor<f32>, tensor<i8>) -> tensor<6xi8>
  return %0 : tensor<6xi8>
}

// -----

// MatMulInteger: one reduction generic over (m, n, k) widening by signedness and
// accumulating in i32; the per-row lhs zero point is read along m.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[NONE:.*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_integer
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[ROW]], #[[NONE]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: arith.extui {{.*}} : i8 to i32
// CHECK: arith.extsi {{.*}} : i8 to i32
// CHECK: arith.muli
// CHECK: arith.addi
func.func @matmul_integer(%a: tensor<4x3xui8>, %b: tensor<3x2xi8>, %az: tensor<4xui8>, %bz: tensor<i8>) -> tensor<4x2xi32> {
  %0 = graph.matmul_integer %a, %b, %az, %bz : (tensor<4x3xui8>, tensor<3x2xi8>, tensor<4xui8>, tensor<i8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}

// -----

// Batched activations by a matrix (a dynamically quantized transformer's [B, S, K] by
// [K, N]) and a stack broadcast against one ([1, M, K] by [3, K, N]): the iteration space
// gains the batch dimensions, a broadcast one read at 0.
// CHECK-DAG: #[[A3:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[W2:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[O3:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[A1:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d3)>
// CHECK-DAG: #[[B3:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-LABEL: func.func @matmul_integer_batched
// CHECK: linalg.generic {indexing_maps = [#[[A3]], #[[W2]], #{{.*}}, #{{.*}}, #[[O3]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK: linalg.generic {indexing_maps = [#[[A1]], #[[B3]], #{{.*}}, #{{.*}}, #[[O3]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
func.func @matmul_integer_batched(%a: tensor<?x5x3xui8>, %w: tensor<3x2xi8>, %s: tensor<1x5x3xi8>, %t: tensor<3x3x2xi8>, %az: tensor<ui8>, %bz: tensor<i8>) -> (tensor<?x5x2xi32>, tensor<3x5x2xi32>) {
  %0 = graph.matmul_integer %a, %w, %az, %bz : (tensor<?x5x3xui8>, tensor<3x2xi8>, tensor<ui8>, tensor<i8>) -> tensor<?x5x2xi32>
  %1 = graph.matmul_integer %s, %t, %bz, %bz : (tensor<1x5x3xi8>, tensor<3x3x2xi8>, tensor<i8>, tensor<i8>) -> tensor<3x5x2xi32>
  return %0, %1 : tensor<?x5x2xi32>, tensor<3x5x2xi32>
}

// -----

// DynamicQuantizeLinear: min and max reductions started at 0, a scalar scale and zero
// point, and one elementwise quantization to ui8 (i8 after conversion).
// CHECK-LABEL: func.func @dynamic_quantize_linear
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: math.roundeven
// CHECK: linalg.generic
// CHECK: arith.fptoui {{.*}} : f32 to i8
// CHECK: tensor.from_elements {{.*}} : tensor<f32>
// CHECK: tensor.from_elements {{.*}} : tensor<i8>
func.func @dynamic_quantize_linear(%x: tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) {
  %0:3 = graph.dynamic_quantize_linear %x : (tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>)
  return %0#0, %0#1, %0#2 : tensor<2x3xui8>, tensor<f32>, tensor<ui8>
}

// -----

// QLinearMatMul: each operand minus its zero point in i32 (lhs per row, read along d0;
// the unsigned rhs widened with extui), an i32 linalg.matmul, then one requantization:
// acc * (lhs_scale * rhs_scale / result_scale) in f64, plus the zero point, rounded half
// to even and saturated to [0, 255] for the ui8 result.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[NONE:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @qlinear_matmul_per_row
// CHECK: %[[LHS:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
// CHECK: arith.extsi {{.*}} : i8 to i32
// CHECK: arith.subi
// CHECK: %[[RHS:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[NONE]], #[[ID]]]
// CHECK: arith.extui {{.*}} : i8 to i32
// CHECK: %[[ACC:.*]] = linalg.matmul ins(%[[LHS]], %[[RHS]] : tensor<2x4xi32>, tensor<4x3xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[NONE]], #[[NONE]], #[[NONE]], #[[ID]]]{{.*}} ins(%[[ACC]],
// CHECK: arith.mulf {{.*}} : f32
// CHECK: arith.divf {{.*}} : f32
// CHECK: arith.sitofp {{.*}} : i32 to f64
// CHECK: arith.uitofp {{.*}} : i8 to f64
// CHECK: math.roundeven {{.*}} : f64
// CHECK: arith.constant 2.550000e+02 : f64
// CHECK: arith.fptoui {{.*}} : f64 to i8
func.func @qlinear_matmul_per_row(%a: tensor<2x4xi8>, %as: tensor<2xf32>, %az: tensor<2xi8>, %b: tensor<4x3xui8>, %bs: tensor<f32>, %bz: tensor<ui8>, %ys: tensor<f32>, %yz: tensor<ui8>) -> tensor<2x3xui8> {
  %0 = graph.qlinear_matmul %a, %as, %az, %b, %bs, %bz, %ys, %yz : (tensor<2x4xi8>, tensor<2xf32>, tensor<2xi8>, tensor<4x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// QLinearConv with a per-output-channel weight scale and zero point: the weight's zero
// point is read along its d0 and its scale along the result's channel d1; the i32
// convolution starts from the broadcast bias and pads the shifted input with zeros; the
// int8 result saturates to [-128, 127].
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[NONE:.*]] = affine_map<(d0, d1, d2, d3) -> ()>
// CHECK-DAG: #[[FILTER:.*]] = affine_map<(d0, d1, d2, d3) -> (d0)>
// CHECK-DAG: #[[CHANNEL:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @qlinear_conv_per_channel
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[NONE]], #[[ID]]]
// CHECK: arith.extui {{.*}} : i8 to i32
// CHECK: %[[WEIGHT:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[FILTER]], #[[ID]]]
// CHECK: arith.extsi {{.*}} : i8 to i32
// CHECK: %[[PADDED:.*]] = linalg.generic
// CHECK: tensor.extract {{.*}} : tensor<1x2x5x5xi32>
// CHECK: %[[BIAS:.*]] = linalg.broadcast ins(%{{.*}} : tensor<3xi32>)
// CHECK: %[[ACC:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[PADDED]], %[[WEIGHT]] : tensor<1x2x7x7xi32>, tensor<3x2x3x3xi32>) outs(%[[BIAS]] : tensor<1x3x5x5xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[NONE]], #[[CHANNEL]], #[[NONE]], #[[NONE]], #[[ID]]]{{.*}} ins(%[[ACC]],
// CHECK: math.roundeven
// CHECK: arith.constant -1.280000e+02 : f64
// CHECK: arith.constant 1.270000e+02 : f64
// CHECK: arith.fptosi {{.*}} : f64 to i8
func.func @qlinear_conv_per_channel(%x: tensor<1x2x5x5xui8>, %xs: tensor<f32>, %xz: tensor<ui8>, %w: tensor<3x2x3x3xi8>, %ws: tensor<3xf32>, %wz: tensor<3xi8>, %ys: tensor<f32>, %yz: tensor<i8>, %bias: tensor<3xi32>) -> tensor<1x3x5x5xi8> {
  %0 = graph.qlinear_conv %x, %xs, %xz, %w, %ws, %wz, %ys, %yz, %bias {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<3x2x3x3xi8>, tensor<3xf32>, tensor<3xi8>, tensor<f32>, tensor<i8>, tensor<3xi32>) -> tensor<1x3x5x5xi8>
  return %0 : tensor<1x3x5x5xi8>
}

// -----

// ConvInteger: both operands minus their zero points in i32, then the i32 convolution
// from zeros; no requantization.
// CHECK-LABEL: func.func @conv_integer
// CHECK: %[[INPUT:.*]] = linalg.generic
// CHECK: arith.extui {{.*}} : i8 to i32
// CHECK: %[[WEIGHT:.*]] = linalg.generic
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<1x1x4x4xi32>)
// CHECK: %[[RESULT:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %[[WEIGHT]] : tensor<1x1x5x5xi32>, tensor<1x1x2x2xi32>) outs(%[[ZERO]] : tensor<1x1x4x4xi32>)
// CHECK: return %[[RESULT]]
func.func @conv_integer(%x: tensor<1x1x3x3xui8>, %w: tensor<1x1x2x2xui8>, %xz: tensor<ui8>, %wz: tensor<ui8>) -> tensor<1x1x4x4xi32> {
  %0 = graph.conv_integer %x, %w, %xz, %wz {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xui8>, tensor<1x1x2x2xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x1x4x4xi32>
  return %0 : tensor<1x1x4x4xi32>
}
