// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-decompose-quantization))' | FileCheck %s

// The rescale of an integer conv's accumulator (channels last, per channel along the
// last axis): cast to f32, times the scales as [M].
// CHECK-LABEL: func.func @dequantize_accumulator
// CHECK: %[[F:.*]] = graph.cast %arg0 {to = f32} : (tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xf32>
// CHECK: %[[S:.*]] = graph.constant dense<[9.99999974E-6, 2.000000e-05, 3.000000e-05]> : tensor<3xf32>
// CHECK: %[[Y:.*]] = graph.mul %[[F]], %[[S]] : (tensor<1x4x4x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
// CHECK: return %[[Y]]
func.func @dequantize_accumulator(%acc: tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xf32> {
  %s = graph.constant dense<[1.0e-5, 2.0e-5, 3.0e-5]> : tensor<3xf32>
  %y = graph.dequantize_linear %acc, %s {axis = 3 : i64, block_size = 0 : i64} : (tensor<1x4x4x3xi32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  return %y : tensor<1x4x4x3xf32>
}

// -----

// Channels first, per channel along axis 1, with non-zero ui8 zero points: the scales
// and the zero points (as f32) shaped [M, 1, 1]; a zero point of 0 is not subtracted.
// CHECK-LABEL: func.func @dequantize_axis_zero_point
// CHECK: %[[F:.*]] = graph.cast %arg0 {to = f32} : (tensor<1x2x4x4xui8>) -> tensor<1x2x4x4xf32>
// CHECK: %[[Z:.*]] = graph.constant dense<{{\[\[\[}}1.280000e+02]], {{\[\[}}2.000000e+02]]]> : tensor<2x1x1xf32>
// CHECK: %[[D:.*]] = graph.sub %[[F]], %[[Z]] : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
// CHECK: %[[S:.*]] = graph.constant dense<{{\[\[\[}}5.000000e-01]], {{\[\[}}2.500000e-01]]]> : tensor<2x1x1xf32>
// CHECK: %[[Y:.*]] = graph.mul %[[D]], %[[S]]
// CHECK: %[[G:.*]] = graph.cast %arg1 {to = f32} : (tensor<4xi8>) -> tensor<4xf32>
// CHECK-NOT: graph.sub
// CHECK: graph.mul %[[G]], %{{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NOT: graph.dequantize_linear
func.func @dequantize_axis_zero_point(%x: tensor<1x2x4x4xui8>, %v: tensor<4xi8>) -> (tensor<1x2x4x4xf32>, tensor<4xf32>) {
  %s = graph.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %z = graph.constant dense<[128, 200]> : tensor<2xui8>
  %y = graph.dequantize_linear %x, %s, %z {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<2xf32>, tensor<2xui8>) -> tensor<1x2x4x4xf32>
  %t = graph.constant dense<0.125> : tensor<f32>
  %z0 = graph.constant dense<0> : tensor<i8>
  %w = graph.dequantize_linear %v, %t, %z0 {axis = 1 : i64, block_size = 0 : i64} : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  return %y, %w : tensor<1x2x4x4xf32>, tensor<4xf32>
}

// -----

// Per-tensor quantization to i8 with zero point 0: a division (ties round as ONNX
// does), rounding half to even, saturation to [-128, 127], the cast; no add of 0.
// CHECK-LABEL: func.func @quantize_i8
// CHECK: %[[D:.*]] = graph.div %arg0, %{{.*}} : (tensor<1x8x8x4xf32>, tensor<f32>) -> tensor<1x8x8x4xf32>
// CHECK: %[[R:.*]] = graph.round %[[D]] : tensor<1x8x8x4xf32>
// CHECK-NOT: graph.add
// CHECK-DAG: %[[LO:.*]] = graph.constant dense<-1.280000e+02> : tensor<f32>
// CHECK-DAG: %[[HI:.*]] = graph.constant dense<1.270000e+02> : tensor<f32>
// CHECK: %[[C:.*]] = graph.clip %[[R]] min %[[LO]] max %[[HI]] : (tensor<1x8x8x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x8x8x4xf32>
// CHECK: %[[Q:.*]] = graph.cast %[[C]] {to = i8} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xi8>
// CHECK: return %[[Q]]
func.func @quantize_i8(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xi8> {
  %s = graph.constant dense<0.05> : tensor<f32>
  %z = graph.constant dense<0> : tensor<i8>
  %q = graph.quantize_linear %x, %s, %z {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x8x8x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x8x4xi8>
  return %q : tensor<1x8x8x4xi8>
}

// -----

// ui8 with zero point 128 (and one without a zero point: ui8, 0): the zero point added
// after rounding, saturation to [0, 255].
// CHECK-LABEL: func.func @quantize_ui8
// CHECK: %[[D:.*]] = graph.div %arg0
// CHECK: %[[R:.*]] = graph.round %[[D]]
// CHECK: %[[Z:.*]] = graph.constant dense<1.280000e+02> : tensor<f32>
// CHECK: %[[A:.*]] = graph.add %[[R]], %[[Z]]
// CHECK-DAG: %[[LO:.*]] = graph.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[HI:.*]] = graph.constant dense<2.550000e+02> : tensor<f32>
// CHECK: %[[C:.*]] = graph.clip %[[A]] min %[[LO]] max %[[HI]]
// CHECK: graph.cast %[[C]] {to = ui8} : (tensor<6xf32>) -> tensor<6xui8>
// CHECK: graph.div %arg0
// CHECK-NOT: graph.add
// CHECK: graph.cast %{{.*}} {to = ui8} : (tensor<6xf32>) -> tensor<6xui8>
func.func @quantize_ui8(%x: tensor<6xf32>) -> (tensor<6xui8>, tensor<6xui8>) {
  %s = graph.constant dense<2.0> : tensor<f32>
  %z = graph.constant dense<128> : tensor<ui8>
  %q = graph.quantize_linear %x, %s, %z {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<6xf32>, tensor<f32>, tensor<ui8>) -> tensor<6xui8>
  %p = graph.quantize_linear %x, %s {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<6xf32>, tensor<f32>) -> tensor<6xui8>
  return %q, %p : tensor<6xui8>, tensor<6xui8>
}

// -----

// Left alone: per-axis quantization, an f16 input, a float8 result, a blocked scale and
// a scale that is not a constant.
// CHECK-LABEL: func.func @left_alone
// CHECK: graph.quantize_linear
// CHECK: graph.quantize_linear
// CHECK: graph.quantize_linear
// CHECK: graph.dequantize_linear
// CHECK: graph.dequantize_linear
// CHECK-NOT: graph.round
func.func @left_alone(%x: tensor<2x4xf32>, %h: tensor<2x4xf16>, %q: tensor<2x4xi8>, %sa: tensor<f32>)
    -> (tensor<2x4xi8>, tensor<2x4xi8>, tensor<2x4xf8E4M3FN>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %s4 = graph.constant dense<[0.5, 0.25, 0.125, 1.0]> : tensor<4xf32>
  %z4 = graph.constant dense<0> : tensor<4xi8>
  %a = graph.quantize_linear %x, %s4, %z4 {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xi8>) -> tensor<2x4xi8>
  %sh = graph.constant dense<0.5> : tensor<f16>
  %zh = graph.constant dense<0> : tensor<i8>
  %b = graph.quantize_linear %h, %sh, %zh {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<2x4xf16>, tensor<f16>, tensor<i8>) -> tensor<2x4xi8>
  %s = graph.constant dense<0.5> : tensor<f32>
  %z8 = graph.constant dense<0.0> : tensor<f8E4M3FN>
  %c = graph.quantize_linear %x, %s, %z8 {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<2x4xf32>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<2x4xf8E4M3FN>
  %sb = graph.constant dense<0.5> : tensor<2x2xf32>
  %d = graph.dequantize_linear %q, %sb {axis = 1 : i64, block_size = 2 : i64} : (tensor<2x4xi8>, tensor<2x2xf32>) -> tensor<2x4xf32>
  %e = graph.dequantize_linear %q, %sa {axis = 1 : i64, block_size = 0 : i64} : (tensor<2x4xi8>, tensor<f32>) -> tensor<2x4xf32>
  return %a, %b, %c, %d, %e : tensor<2x4xi8>, tensor<2x4xi8>, tensor<2x4xf8E4M3FN>, tensor<2x4xf32>, tensor<2x4xf32>
}
