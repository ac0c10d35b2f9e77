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
