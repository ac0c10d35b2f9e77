// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-pad-products))' | FileCheck %s
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-pad-products{slice-convolutions=false}))' | FileCheck %s --check-prefix=NOSLICE
// With unaligned-rows (sm_90a, whose GEMM reads rows of any length and stores C's): only a
// constant row-major B's N (at compile time, then the slice) and a transposed B's K.
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-pad-products{unaligned-rows=true}))' | FileCheck %s --check-prefix=UNALIGNED

// A box head (N = 4) with its bias: the weight gets zero columns up to 8, the bias zeros,
// and a slice takes the 4 columns back after the Add.
// CHECK-LABEL: func.func @narrow_head
// CHECK: %[[W:.*]] = graph.constant {{.*}} : tensor<16x8xf16>
// CHECK: %[[P:.*]] = graph.matmul %arg0, %[[W]] : (tensor<2x5x16xf16>, tensor<16x8xf16>) -> tensor<2x5x8xf16>
// CHECK: %[[B:.*]] = graph.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]> : tensor<8xf16>
// CHECK: %[[A:.*]] = graph.add %[[P]], %[[B]] : (tensor<2x5x8xf16>, tensor<8xf16>) -> tensor<2x5x8xf16>
// CHECK: %[[S:.*]] = graph.slice %[[A]], {{.*}} -> tensor<2x5x4xf16>
// CHECK: return %[[S]]
// UNALIGNED-LABEL: func.func @narrow_head
// UNALIGNED: graph.constant {{.*}} : tensor<16x8xf16>
// UNALIGNED: graph.slice {{.*}} -> tensor<2x5x4xf16>
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
// UNALIGNED-LABEL: func.func @narrow_input
// UNALIGNED-NOT: graph.pad
// UNALIGNED: graph.matmul %arg0, %{{.*}} : (tensor<3x4xf16>, tensor<4x16xf16>) -> tensor<3x16xf16>
// UNALIGNED-NOT: graph.slice
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
// UNALIGNED-LABEL: func.func @gemm_classes
// UNALIGNED: graph.gemm %arg0, %{{.*}}, %{{.*}} {{.*}} : (tensor<4x16xf16>, tensor<10x16xf16>, tensor<10xf16>) -> tensor<4x10xf16>
// UNALIGNED-NOT: graph.slice
func.func @gemm_classes(%x: tensor<4x16xf16>) -> tensor<4x10xf16> {
  %w = graph.constant dense<0.5> : tensor<10x16xf16>
  %c = graph.constant dense<0.25> : tensor<10xf16>
  %y = graph.gemm %x, %w, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<4x16xf16>, tensor<10x16xf16>, tensor<10xf16>) -> tensor<4x10xf16>
  return %y : tensor<4x10xf16>
}

// -----

// What stays: aligned products, and f32 products (no tensor-core template takes them
// without tf32).
// CHECK-LABEL: func.func @stays
// CHECK-NOT: graph.pad
// CHECK-NOT: graph.slice
// CHECK: return
func.func @stays(%x: tensor<3x8xf16>, %f: tensor<3x4xf32>) -> (tensor<3x16xf16>, tensor<3x4xf32>) {
  %w = graph.constant dense<1.0> : tensor<8x16xf16>
  %p = graph.matmul %x, %w : (tensor<3x8xf16>, tensor<8x16xf16>) -> tensor<3x16xf16>
  %wf = graph.constant dense<1.0> : tensor<4x4xf32>
  %q = graph.matmul %f, %wf : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  return %p, %q : tensor<3x16xf16>, tensor<3x4xf32>
}

// -----

// A B computed at run time (an lm-head of 50257 tied to another output, here 12): padded
// by graph.pad at run time along its last axis, then sliced back.
// CHECK-LABEL: func.func @runtime_weight
// CHECK: %[[PADS:.*]] = graph.constant dense<[0, 0, 0, 4]> : tensor<4xi64>
// CHECK: %[[B:.*]] = graph.pad %arg1, %[[PADS]] {mode = "constant"} : {{.*}} -> tensor<8x16xf16>
// CHECK: %[[P:.*]] = graph.matmul %arg0, %[[B]] : (tensor<3x8xf16>, tensor<8x16xf16>) -> tensor<3x16xf16>
// CHECK: graph.slice %[[P]], {{.*}} -> tensor<3x12xf16>
// UNALIGNED-LABEL: func.func @runtime_weight
// UNALIGNED-NOT: graph.pad
// UNALIGNED-NOT: graph.slice
// UNALIGNED: return
func.func @runtime_weight(%x: tensor<3x8xf16>, %v: tensor<8x12xf16>) -> tensor<3x12xf16> {
  %r = graph.matmul %x, %v : (tensor<3x8xf16>, tensor<8x12xf16>) -> tensor<3x12xf16>
  return %r : tensor<3x12xf16>
}

// -----

// Attention scores over 197 tokens, decomposed (Q K^T, K^T a transpose of K): N = 197.
// The key matrix is padded before its transpose (rows of K, axis 2), so the product still
// reads K^T as a view; the scores are sliced back to 197 columns.
// CHECK-LABEL: func.func @scores
// CHECK: %[[PADS:.*]] = graph.constant dense<[0, 0, 0, 0, 0, 0, 3, 0]> : tensor<8xi64>
// CHECK: %[[K:.*]] = graph.pad %arg1, %[[PADS]] {{.*}} -> tensor<2x3x200x64xf16>
// CHECK: %[[KT:.*]] = graph.transpose %[[K]] {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x3x200x64xf16>) -> tensor<2x3x64x200xf16>
// CHECK: %[[S:.*]] = graph.matmul %arg0, %[[KT]] : {{.*}} -> tensor<2x3x197x200xf16>
// CHECK: graph.slice %[[S]], {{.*}} -> tensor<2x3x197x197xf16>
// UNALIGNED-LABEL: func.func @scores
// UNALIGNED-NOT: graph.pad
// UNALIGNED-NOT: graph.slice
// UNALIGNED: return
func.func @scores(%q: tensor<2x3x197x64xf16>, %k: tensor<2x3x197x64xf16>) -> tensor<2x3x197x197xf16> {
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<2x3x197x64xf16>) -> tensor<2x3x64x197xf16>
  %s = graph.matmul %q, %kt : (tensor<2x3x197x64xf16>, tensor<2x3x64x197xf16>) -> tensor<2x3x197x197xf16>
  return %s : tensor<2x3x197x197xf16>
}

// -----

// The context product (P [.., 197, 197] by V [.., 197, 64]): K = 197, so P gets 3 zero
// columns and V 3 zero rows; N = 64 needs no slice.
// CHECK-LABEL: func.func @context
// CHECK-DAG: %[[V:.*]] = graph.pad %arg1, {{.*}} -> tensor<2x3x200x64xf16>
// CHECK-DAG: %[[P:.*]] = graph.pad %arg0, {{.*}} -> tensor<2x3x197x200xf16>
// CHECK: graph.matmul %[[P]], %[[V]] : {{.*}} -> tensor<2x3x197x64xf16>
// CHECK-NOT: graph.slice
// UNALIGNED-LABEL: func.func @context
// UNALIGNED-NOT: graph.pad
// UNALIGNED: graph.matmul %arg0, %arg1 : {{.*}} -> tensor<2x3x197x64xf16>
func.func @context(%p: tensor<2x3x197x197xf16>, %v: tensor<2x3x197x64xf16>) -> tensor<2x3x197x64xf16> {
  %o = graph.matmul %p, %v : (tensor<2x3x197x197xf16>, tensor<2x3x197x64xf16>) -> tensor<2x3x197x64xf16>
  return %o : tensor<2x3x197x64xf16>
}

// -----

// A Gemm whose trans_b B [250, 100] is computed at run time: B padded along both axes
// ([256, 104]), A along K, the result sliced to 250 columns.
// CHECK-LABEL: func.func @gemm_runtime_b
// CHECK-DAG: %[[B:.*]] = graph.pad {{.*}} -> tensor<256x104xf16>
// CHECK-DAG: %[[A:.*]] = graph.pad %arg0, {{.*}} -> tensor<4x104xf16>
// CHECK: %[[G:.*]] = graph.gemm %[[A]], %[[B]] {{.*}} -> tensor<4x256xf16>
// CHECK: graph.slice %[[G]], {{.*}} -> tensor<4x250xf16>
// The transposed B's rows of K = 100 are what its tensor map reads: K is padded (A too),
// N is not.
// UNALIGNED-LABEL: func.func @gemm_runtime_b
// UNALIGNED-DAG: %[[B:.*]] = graph.pad {{.*}} -> tensor<250x104xf16>
// UNALIGNED-DAG: %[[A:.*]] = graph.pad %arg0, {{.*}} -> tensor<4x104xf16>
// UNALIGNED: graph.gemm %[[A]], %[[B]] {{.*}} -> tensor<4x250xf16>
// UNALIGNED-NOT: graph.slice
// UNALIGNED: return
func.func @gemm_runtime_b(%x: tensor<4x100xf16>, %w: tensor<250x100xf16>) -> tensor<4x250xf16> {
  %y = graph.gemm %x, %w {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<4x100xf16>, tensor<250x100xf16>) -> tensor<4x250xf16>
  return %y : tensor<4x250xf16>
}

// -----

// A B computed at run time whose rows 1024 rows of A read (8 row tiles of 128): copied once
// to aligned rows in both modes (with unaligned-rows, the threads' loads in each of 8 tiles
// would cost more), the result sliced back.
// CHECK-LABEL: func.func @many_rows
// CHECK: graph.pad %arg1, {{.*}} -> tensor<64x104xf16>
// CHECK: graph.slice {{.*}} -> tensor<1024x100xf16>
// UNALIGNED-LABEL: func.func @many_rows
// UNALIGNED: graph.pad %arg1, {{.*}} -> tensor<64x104xf16>
// UNALIGNED: graph.slice {{.*}} -> tensor<1024x100xf16>
func.func @many_rows(%x: tensor<1024x64xf16>, %v: tensor<64x100xf16>) -> tensor<1024x100xf16> {
  %r = graph.matmul %x, %v : (tensor<1024x64xf16>, tensor<64x100xf16>) -> tensor<1024x100xf16>
  return %r : tensor<1024x100xf16>
}

// -----

// A detector's class head: 12 output channels that a reshape reads: zero filters and bias
// up to 16, then a slice of the first 12 channels (axis 1).
// CHECK-LABEL: func.func @class_head
// CHECK: %[[C:.*]] = graph.conv %arg0, %{{.*}}, %{{.*}} {{.*}} : (tensor<2x16x5x5xf16>, tensor<16x16x1x1xf16>, tensor<16xf16>) -> tensor<2x16x5x5xf16>
// CHECK: %[[AXES:.*]] = graph.constant dense<1> : tensor<1xi64>
// CHECK: %[[S:.*]] = graph.slice %[[C]], %{{.*}}, %{{.*}} axes %[[AXES]] : {{.*}} -> tensor<2x12x5x5xf16>
// CHECK: graph.reshape %[[S]]
// NOSLICE-LABEL: func.func @class_head
// NOSLICE: graph.conv {{.*}} -> tensor<2x12x5x5xf16>
// NOSLICE-NOT: graph.slice
func.func @class_head(%x: tensor<2x16x5x5xf16>) -> tensor<2x12x25xf16> {
  %w = graph.constant dense<0.5> : tensor<12x16x1x1xf16>
  %b = graph.constant dense<0.25> : tensor<12xf16>
  %c = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<2x16x5x5xf16>, tensor<12x16x1x1xf16>, tensor<12xf16>) -> tensor<2x12x5x5xf16>
  %shape = graph.constant dense<[2, 12, 25]> : tensor<3xi64>
  %r = graph.reshape %c, %shape {allowzero = false} : (tensor<2x12x5x5xf16>, tensor<3xi64>) -> tensor<2x12x25xf16>
  return %r : tensor<2x12x25xf16>
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

