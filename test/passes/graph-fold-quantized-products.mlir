// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-fold-quantized-products))' -mlir-print-debuginfo | FileCheck %s

// What graph-quantize-int8 leaves (NCHW, per-channel weight scales, zero points 0, an
// f32 bias): the i8 conv accumulating in i32, its rescale by scale_x * scale_w[m] =
// 0.5 * [0.25, 0.125] along axis 1, the bias added as [2, 1, 1]; every new op keeps the
// conv's ONNX location. The dequantized activation stays for its other reader.
// CHECK-LABEL: func.func @nchw_bias
// CHECK: %[[WQ:.*]] = graph.constant dense<{{.*}}> : tensor<2x3x1x1xi8>
// CHECK: %[[X:.*]] = graph.dequantize_linear %arg0
// CHECK: %[[ACC:.*]] = graph.conv %arg0, %[[WQ]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x4x4xi8>, tensor<2x3x1x1xi8>) -> tensor<1x2x4x4xi32> loc(#[[LOC:loc[0-9]*]])
// CHECK: %[[S:.*]] = graph.constant dense<[1.250000e-01, 6.250000e-02]> : tensor<2xf32> loc(#[[LOC]])
// CHECK: %[[Y:.*]] = graph.dequantize_linear %[[ACC]], %[[S]] {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xi32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc(#[[LOC]])
// CHECK: %[[B:.*]] = graph.constant dense<{{\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]]> : tensor<2x1x1xf32>
// CHECK: %[[SUM:.*]] = graph.add %[[Y]], %[[B]] : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32> loc(#[[LOC]])
// CHECK-NOT: graph.dequantize_linear
// CHECK: return %[[SUM]], %[[X]]
// CHECK: #[[LOC]] = loc("conv0")
func.func @nchw_bias(%xq: tensor<1x3x4x4xi8>) -> (tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>) {
  %sx = graph.constant dense<0.5> : tensor<f32>
  %zx = graph.constant dense<0> : tensor<i8>
  %wq = graph.constant dense<[[[[1]], [[2]], [[3]]], [[[-4]], [[5]], [[-6]]]]> : tensor<2x3x1x1xi8>
  %sw = graph.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %zw = graph.constant dense<0> : tensor<2xi8>
  %b = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %x = graph.dequantize_linear %xq, %sx, %zx {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x3x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x4x4xf32>
  %w = graph.dequantize_linear %wq, %sw, %zw {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x3x1x1xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x3x1x1xf32>
  %y = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("conv0")
  return %y, %x : tensor<1x2x4x4xf32>, tensor<1x3x4x4xf32>
}

// -----

// Channels last, 1-D spatial, a per-tensor weight scale (one element, [1]) and no zero
// points: one scalar scale 0.5 * 0.1 along the last axis; the bias stays [M]; the
// dequantized operands go once nothing reads them.
// CHECK-LABEL: func.func @channels_last_per_tensor
// CHECK: %[[ACC:.*]] = graph.conv %arg0, %{{.*}} {channels_last, {{.*}}} : (tensor<2x8x3xi8>, tensor<4x3x3xi8>) -> tensor<2x6x4xi32>
// CHECK: %[[S:.*]] = graph.constant dense<5.000000e-02> : tensor<f32>
// CHECK: %[[Y:.*]] = graph.dequantize_linear %[[ACC]], %[[S]] {axis = 2 : i64, block_size = 0 : i64} : (tensor<2x6x4xi32>, tensor<f32>) -> tensor<2x6x4xf32>
// CHECK: %[[SUM:.*]] = graph.add %[[Y]], %arg1 : (tensor<2x6x4xf32>, tensor<4xf32>) -> tensor<2x6x4xf32>
// CHECK-NOT: graph.dequantize_linear
// CHECK: return %[[SUM]]
func.func @channels_last_per_tensor(%xq: tensor<2x8x3xi8>, %b: tensor<4xf32>) -> tensor<2x6x4xf32> {
  %sx = graph.constant dense<0.5> : tensor<f32>
  %wq = graph.constant dense<1> : tensor<4x3x3xi8>
  %sw = graph.constant dense<0.1> : tensor<1xf32>
  %x = graph.dequantize_linear %xq, %sx {axis = 1 : i64, block_size = 0 : i64} : (tensor<2x8x3xi8>, tensor<f32>) -> tensor<2x8x3xf32>
  %w = graph.dequantize_linear %wq, %sw {axis = 0 : i64, block_size = 0 : i64} : (tensor<4x3x3xi8>, tensor<1xf32>) -> tensor<4x3x3xf32>
  %y = graph.conv %x, %w, %b {channels_last, strides = array<i64: 1>, dilations = array<i64: 1>, pads = array<i64: 0, 0>, group = 1} : (tensor<2x8x3xf32>, tensor<4x3x3xf32>, tensor<4xf32>) -> tensor<2x6x4xf32>
  return %y : tensor<2x6x4xf32>
}

// -----

// A bias that is not a constant, channels first: reshaped to [M, 1, 1] by a graph.reshape.
// CHECK-LABEL: func.func @bias_argument
// CHECK: %[[ACC:.*]] = graph.conv %arg0, %{{.*}} {{.*}} -> tensor<1x2x4x4xi32>
// CHECK: %[[Y:.*]] = graph.dequantize_linear %[[ACC]]
// CHECK: %[[B:.*]] = graph.reshape %arg1, %{{.*}} {{.*}} : (tensor<2xf32>, tensor<3xi64>) -> tensor<2x1x1xf32>
// CHECK: graph.add %[[Y]], %[[B]]
func.func @bias_argument(%xq: tensor<1x3x4x4xi8>, %b: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %sx = graph.constant dense<0.5> : tensor<f32>
  %wq = graph.constant dense<1> : tensor<2x3x1x1xi8>
  %sw = graph.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %x = graph.dequantize_linear %xq, %sx {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x3x4x4xi8>, tensor<f32>) -> tensor<1x3x4x4xf32>
  %w = graph.dequantize_linear %wq, %sw {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x3x1x1xi8>, tensor<2xf32>) -> tensor<2x3x1x1xf32>
  %y = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Left alone: an activation zero point of 3 (cross terms the integer kernels do not
// compute), a grouped conv (the int8 kernels are dense convolutions), a weight that is
// not a constant, and an f32 input without a DequantizeLinear.
// CHECK-LABEL: func.func @not_folded
// CHECK-NOT: xi32>
// CHECK: graph.conv {{.*}} -> tensor<1x2x4x4xf32>
// CHECK: graph.conv {{.*}} group = 2 {{.*}} -> tensor<1x2x4x4xf32>
// CHECK: graph.conv {{.*}} -> tensor<1x2x4x4xf32>
// CHECK: graph.conv {{.*}} -> tensor<1x2x4x4xf32>
// CHECK-NOT: xi32>
func.func @not_folded(%xq: tensor<1x2x4x4xi8>, %wa: tensor<2x2x1x1xi8>, %xf: tensor<1x2x4x4xf32>)
    -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %sx = graph.constant dense<0.5> : tensor<f32>
  %z3 = graph.constant dense<3> : tensor<i8>
  %wq = graph.constant dense<1> : tensor<2x2x1x1xi8>
  %wg = graph.constant dense<1> : tensor<2x1x1x1xi8>
  %sw = graph.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %x = graph.dequantize_linear %xq, %sx {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %x3 = graph.dequantize_linear %xq, %sx, %z3 {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %w = graph.dequantize_linear %wq, %sw {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<2xf32>) -> tensor<2x2x1x1xf32>
  %w2 = graph.dequantize_linear %wg, %sw {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x1x1x1xi8>, tensor<2xf32>) -> tensor<2x1x1x1xf32>
  %wa2 = graph.dequantize_linear %wa, %sw {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<2xf32>) -> tensor<2x2x1x1xf32>
  %a = graph.conv %x3, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %b = graph.conv %x, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 2} : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c = graph.conv %x, %wa2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %d = graph.conv %xf, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %a, %b, %c, %d : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// A matmul of a [B, S, K] activation by a [K, N] weight with one scale per column (axis 1):
// the i8 matmul into i32, its rescale by 0.5 * [0.25, 0.5, 1.0] along the last axis.
// CHECK-LABEL: func.func @matmul_per_column
// CHECK: %[[WQ:.*]] = graph.constant dense<{{.*}}> : tensor<4x3xi8>
// CHECK: %[[ACC:.*]] = graph.matmul %arg0, %[[WQ]] : (tensor<2x5x4xi8>, tensor<4x3xi8>) -> tensor<2x5x3xi32>
// CHECK: %[[S:.*]] = graph.constant dense<[1.250000e-01, 2.500000e-01, 5.000000e-01]> : tensor<3xf32>
// CHECK: %[[Y:.*]] = graph.dequantize_linear %[[ACC]], %[[S]] {axis = 2 : i64, block_size = 0 : i64} : (tensor<2x5x3xi32>, tensor<3xf32>) -> tensor<2x5x3xf32>
// CHECK-NOT: graph.dequantize_linear
// CHECK: return %[[Y]]
func.func @matmul_per_column(%xq: tensor<2x5x4xi8>) -> tensor<2x5x3xf32> {
  %sx = graph.constant dense<0.5> : tensor<f32>
  %wq = graph.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9], [-1, -2, -3]]> : tensor<4x3xi8>
  %sw = graph.constant dense<[0.25, 0.5, 1.0]> : tensor<3xf32>
  %x = graph.dequantize_linear %xq, %sx {axis = 1 : i64, block_size = 0 : i64} : (tensor<2x5x4xi8>, tensor<f32>) -> tensor<2x5x4xf32>
  %w = graph.dequantize_linear %wq, %sw {axis = 1 : i64, block_size = 0 : i64} : (tensor<4x3xi8>, tensor<3xf32>) -> tensor<4x3xf32>
  %y = graph.matmul %x, %w : (tensor<2x5x4xf32>, tensor<4x3xf32>) -> tensor<2x5x3xf32>
  return %y : tensor<2x5x3xf32>
}

// -----

// A classifier's Gemm (trans_b, a [N, K] weight scaled per row: axis 0): a matmul by the
// weight transposed at compile time to [K, N], its rescale along axis 1, then the add of
// C; the gemm's location on the new ops.
// CHECK-LABEL: func.func @gemm_trans_b
// CHECK: %[[WT:.*]] = graph.constant dense<{{\[\[}}1, 4], [2, 5], [3, 6]]> : tensor<3x2xi8> loc(#[[LOC:loc[0-9]*]])
// CHECK: %[[ACC:.*]] = graph.matmul %arg0, %[[WT]] : (tensor<8x3xi8>, tensor<3x2xi8>) -> tensor<8x2xi32> loc(#[[LOC]])
// CHECK: %[[S:.*]] = graph.constant dense<[2.500000e-01, 5.000000e-01]> : tensor<2xf32>
// CHECK: %[[Y:.*]] = graph.dequantize_linear %[[ACC]], %[[S]] {axis = 1 : i64, block_size = 0 : i64} : (tensor<8x2xi32>, tensor<2xf32>) -> tensor<8x2xf32>
// CHECK: %[[SUM:.*]] = graph.add %[[Y]], %arg1 : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8x2xf32>
// CHECK-NOT: graph.gemm
// CHECK: return %[[SUM]]
// CHECK: #[[LOC]] = loc("fc")
func.func @gemm_trans_b(%xq: tensor<8x3xi8>, %c: tensor<2xf32>) -> tensor<8x2xf32> {
  %sx = graph.constant dense<0.5> : tensor<f32>
  %wq = graph.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
  %sw = graph.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %x = graph.dequantize_linear %xq, %sx {axis = 1 : i64, block_size = 0 : i64} : (tensor<8x3xi8>, tensor<f32>) -> tensor<8x3xf32>
  %w = graph.dequantize_linear %wq, %sw {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x3xi8>, tensor<2xf32>) -> tensor<2x3xf32>
  %y = graph.gemm %x, %w, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<8x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<8x2xf32> loc("fc")
  return %y : tensor<8x2xf32>
}

// -----

// Left alone: a Gemm with alpha 2, a matmul whose weight is scaled per row (axis 0: the
// reduction dimension, which cannot move out of the sum), and a matmul by a weight that
// is no constant.
// CHECK-LABEL: func.func @products_not_folded
// CHECK-NOT: xi32>
// CHECK: graph.gemm
// CHECK: graph.matmul {{.*}} -> tensor<8x2xf32>
// CHECK: graph.matmul {{.*}} -> tensor<8x2xf32>
// CHECK-NOT: xi32>
func.func @products_not_folded(%xq: tensor<8x3xi8>, %wa: tensor<3x2xi8>)
    -> (tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>) {
  %sx = graph.constant dense<0.5> : tensor<f32>
  %wq = graph.constant dense<1> : tensor<3x2xi8>
  %wt = graph.constant dense<1> : tensor<2x3xi8>
  %s2 = graph.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %s3 = graph.constant dense<[0.5, 1.0, 2.0]> : tensor<3xf32>
  %x = graph.dequantize_linear %xq, %sx {axis = 1 : i64, block_size = 0 : i64} : (tensor<8x3xi8>, tensor<f32>) -> tensor<8x3xf32>
  %w = graph.dequantize_linear %wt, %s2 {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x3xi8>, tensor<2xf32>) -> tensor<2x3xf32>
  %wrows = graph.dequantize_linear %wq, %s3 {axis = 0 : i64, block_size = 0 : i64} : (tensor<3x2xi8>, tensor<3xf32>) -> tensor<3x2xf32>
  %wvar = graph.dequantize_linear %wa, %s2 {axis = 1 : i64, block_size = 0 : i64} : (tensor<3x2xi8>, tensor<2xf32>) -> tensor<3x2xf32>
  %a = graph.gemm %x, %w {alpha = 2.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<8x3xf32>, tensor<2x3xf32>) -> tensor<8x2xf32>
  %b = graph.matmul %x, %wrows : (tensor<8x3xf32>, tensor<3x2xf32>) -> tensor<8x2xf32>
  %c = graph.matmul %x, %wvar : (tensor<8x3xf32>, tensor<3x2xf32>) -> tensor<8x2xf32>
  return %a, %b, %c : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>
}
