// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-pad-products))' | FileCheck %s

// A box head (N = 4) with its bias: the weight gets zero columns up to 8, the bias zeros,
// and a slice takes the 4 columns back after the Add.
// CHECK-LABEL: func.func @narrow_head
// CHECK: %[[W:.*]] = graph.constant {{.*}} : tensor<16x8xf16>
// CHECK: %[[P:.*]] = graph.matmul %arg0, %[[W]] : (tensor<2x5x16xf16>, tensor<16x8xf16>) -> tensor<2x5x8xf16>
// CHECK: %[[B:.*]] = graph.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]> : tensor<8xf16>
// CHECK: %[[A:.*]] = graph.add %[[P]], %[[B]] : (tensor<2x5x8xf16>, tensor<8xf16>) -> tensor<2x5x8xf16>
// CHECK: %[[S:.*]] = graph.slice %[[A]], {{.*}} -> tensor<2x5x4xf16>
// CHECK: return %[[S]]
func.func @narrow_head(%x: tensor<2x5x16xf16>) -> tensor<2x5x4xf16> {
  %w = graph.constant dense<1.0> : tensor<16x4xf16>
  %b = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf16>
  %p = graph.matmul %x, %w : (tensor<2x5x16xf16>, tensor<16x4xf16>) -> tensor<2x5x4xf16>
  %y = graph.add %p, %b : (tensor<2x5x4xf16>, tensor<4xf16>) -> tensor<2x5x4xf16>
  return %y : tensor<2x5x4xf16>
}

// -----

// A 4-wide input (K = 4): A gets zero columns (graph.pad of the last axis by 4), the
// weight zero rows; N = 16 needs no slice.
// CHECK-LABEL: func.func @narrow_input
// CHECK: %[[PADS:.*]] = graph.constant dense<[0, 0, 0, 4]> : tensor<4xi64>
// CHECK: %[[A:.*]] = graph.pad %arg0, %[[PADS]] {mode = "constant"} : {{.*}} -> tensor<3x8xf16>
// CHECK: graph.matmul %[[A]], %{{.*}} : (tensor<3x8xf16>, tensor<8x16xf16>) -> tensor<3x16xf16>
// CHECK-NOT: graph.slice
func.func @narrow_input(%x: tensor<3x4xf16>) -> tensor<3x16xf16> {
  %w = graph.constant dense<2.0> : tensor<4x16xf16>
  %p = graph.matmul %x, %w : (tensor<3x4xf16>, tensor<4x16xf16>) -> tensor<3x16xf16>
  return %p : tensor<3x16xf16>
}

// -----

// A classifier Gemm with trans_b (B [10, 16]) and C [10]: B gets zero rows up to 16 ([16,
// 16]), C zeros; the slice takes the 10 classes.
// CHECK-LABEL: func.func @gemm_classes
// CHECK: %[[G:.*]] = graph.gemm %arg0, %{{.*}}, %{{.*}} {{.*}} : (tensor<4x16xf16>, tensor<16x16xf16>, tensor<16xf16>) -> tensor<4x16xf16>
// CHECK: graph.slice %[[G]], {{.*}} -> tensor<4x10xf16>
func.func @gemm_classes(%x: tensor<4x16xf16>) -> tensor<4x10xf16> {
  %w = graph.constant dense<0.5> : tensor<10x16xf16>
  %c = graph.constant dense<0.25> : tensor<10xf16>
  %y = graph.gemm %x, %w, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<4x16xf16>, tensor<10x16xf16>, tensor<10xf16>) -> tensor<4x10xf16>
  return %y : tensor<4x10xf16>
}

// -----

// What stays: aligned products, f32 products (no tensor-core template takes them without
// tf32), and a weight computed at run time.
// CHECK-LABEL: func.func @stays
// CHECK-NOT: graph.pad
// CHECK-NOT: graph.slice
// CHECK: return
func.func @stays(%x: tensor<3x8xf16>, %f: tensor<3x4xf32>, %v: tensor<8x4xf16>) -> (tensor<3x16xf16>, tensor<3x4xf32>, tensor<3x4xf16>) {
  %w = graph.constant dense<1.0> : tensor<8x16xf16>
  %p = graph.matmul %x, %w : (tensor<3x8xf16>, tensor<8x16xf16>) -> tensor<3x16xf16>
  %wf = graph.constant dense<1.0> : tensor<4x4xf32>
  %q = graph.matmul %f, %wf : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  %r = graph.matmul %x, %v : (tensor<3x8xf16>, tensor<8x4xf16>) -> tensor<3x4xf16>
  return %p, %q, %r : tensor<3x16xf16>, tensor<3x4xf32>, tensor<3x4xf16>
}

// -----

// A squeeze-excite reduction: 4 output channels, SiLU, then the expansion. The reduction
// gets 4 zero filters and a zero-padded bias, the SiLU 8 channels, the expansion zero
// weights for the 4 new input channels; no slice.
// CHECK-LABEL: func.func @squeeze_excite
// CHECK: %[[R:.*]] = graph.conv %arg0, %{{.*}}, %{{.*}} {{.*}} : (tensor<2x16x1x1xf16>, tensor<8x16x1x1xf16>, tensor<8xf16>) -> tensor<2x8x1x1xf16>
// CHECK: %[[S:.*]] = graph.silu %[[R]] : tensor<2x8x1x1xf16>
// CHECK: graph.conv %[[S]], %{{.*}}, %{{.*}} {{.*}} : (tensor<2x8x1x1xf16>, tensor<16x8x1x1xf16>, tensor<16xf16>) -> tensor<2x16x1x1xf16>
// CHECK-NOT: graph.slice
func.func @squeeze_excite(%x: tensor<2x16x1x1xf16>) -> tensor<2x16x1x1xf16> {
  %w1 = graph.constant dense<0.5> : tensor<4x16x1x1xf16>
  %b1 = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf16>
  %w2 = graph.constant dense<0.25> : tensor<16x4x1x1xf16>
  %b2 = graph.constant dense<0.125> : tensor<16xf16>
  %r = graph.conv %x, %w1, %b1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<2x16x1x1xf16>, tensor<4x16x1x1xf16>, tensor<4xf16>) -> tensor<2x4x1x1xf16>
  %s = graph.silu %r : tensor<2x4x1x1xf16>
  %e = graph.conv %s, %w2, %b2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<2x4x1x1xf16>, tensor<16x4x1x1xf16>, tensor<16xf16>) -> tensor<2x16x1x1xf16>
  return %e : tensor<2x16x1x1xf16>
}

// -----

// The expansion is an int8 convolution (--int8 left the 4-channel reduction in floats):
// the reduction's value reaches it through a per-tensor quantize of zero point 0, which
// keeps the padded channels' zeros; its i8 weight gets zero input channels.
// CHECK-LABEL: func.func @squeeze_excite_int8
// CHECK: %[[R:.*]] = graph.conv %arg0, {{.*}} -> tensor<2x8x1x1xf16>
// CHECK: %[[S:.*]] = graph.silu %[[R]] : tensor<2x8x1x1xf16>
// CHECK: %[[Q:.*]] = graph.quantize_linear %[[S]], {{.*}} -> tensor<2x8x1x1xi8>
// CHECK: graph.conv %[[Q]], %{{.*}} {{.*}} : (tensor<2x8x1x1xi8>, tensor<16x8x1x1xi8>) -> tensor<2x16x1x1xi32>
func.func @squeeze_excite_int8(%x: tensor<2x16x1x1xf16>) -> tensor<2x16x1x1xi32> {
  %w1 = graph.constant dense<0.5> : tensor<4x16x1x1xf16>
  %b1 = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf16>
  %w2 = graph.constant dense<3> : tensor<16x4x1x1xi8>
  %scale = graph.constant dense<0.02> : tensor<f16>
  %zero = graph.constant dense<0> : tensor<i8>
  %r = graph.conv %x, %w1, %b1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<2x16x1x1xf16>, tensor<4x16x1x1xf16>, tensor<4xf16>) -> tensor<2x4x1x1xf16>
  %s = graph.silu %r : tensor<2x4x1x1xf16>
  %q = graph.quantize_linear %s, %scale, %zero {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<2x4x1x1xf16>, tensor<f16>, tensor<i8>) -> tensor<2x4x1x1xi8>
  %e = graph.conv %q, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<2x4x1x1xi8>, tensor<16x4x1x1xi8>) -> tensor<2x16x1x1xi32>
  return %e : tensor<2x16x1x1xi32>
}
