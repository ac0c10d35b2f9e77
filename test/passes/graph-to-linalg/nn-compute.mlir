// RUN: kiln-opt --graph-to-linalg %s -split-input-file | FileCheck %s

// A matrix product of 2-D operands is one linalg.matmul into zeros.
// CHECK-LABEL: func.func @matmul_2d
// CHECK: linalg.fill
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<4x5xf32>)
func.func @matmul_2d(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = graph.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// A batched left operand times a matrix: the batch is folded into the rows of one
// linalg.matmul.
// CHECK-LABEL: func.func @matmul_batch_by_matrix
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x8x16xf32> into tensor<16x16xf32>
// CHECK: linalg.matmul
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]]
func.func @matmul_batch_by_matrix(%a: tensor<2x8x16xf32>, %b: tensor<16x4xf32>) -> tensor<2x8x4xf32> {
  %0 = graph.matmul %a, %b : (tensor<2x8x16xf32>, tensor<16x4xf32>) -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// -----

// Broadcast batch dimensions: the operand with the unit batch extent is broadcast, then
// the batches are collapsed into one linalg.batch_matmul.
// CHECK-DAG: #[[BCAST:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[BCAST]]
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<6x4x5xf32>, tensor<6x5x7xf32>)
func.func @matmul_broadcast(%a: tensor<2x3x4x5xf32>, %b: tensor<1x3x5x7xf32>) -> tensor<2x3x4x7xf32> {
  %0 = graph.matmul %a, %b : (tensor<2x3x4x5xf32>, tensor<1x3x5x7xf32>) -> tensor<2x3x4x7xf32>
  return %0 : tensor<2x3x4x7xf32>
}

// -----

// A 1-D right operand is a column: [K] -> [K, 1], and the unit dimension is dropped again.
// CHECK-LABEL: func.func @matmul_vector
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [4, 1]
// CHECK: linalg.matmul
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<3x1xf32> into tensor<3xf32>
func.func @matmul_vector(%a: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<3xf32> {
  %0 = graph.matmul %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Gemm with trans_b and alpha = 1: the product accumulates into beta * C broadcast.
// CHECK-LABEL: func.func @gemm
// CHECK: linalg.transpose ins(%{{.*}} : tensor<5x4xf32>) outs(%{{.*}} : tensor<4x5xf32>) permutation = [1, 0]
// CHECK: %[[C:.*]] = linalg.generic
// CHECK: arith.mulf
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<4x5xf32>) outs(%[[C]] : tensor<3x5xf32>)
func.func @gemm(%a: tensor<3x4xf32>, %b: tensor<5x4xf32>, %c: tensor<5xf32>) -> tensor<3x5xf32> {
  %0 = graph.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 2.0 : f32, trans_a = false, trans_b = true} : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// A half-precision Gemm accumulates in f32 (as graph.matmul does) and is rounded once,
// after the bias: a K of thousands summed in f16 loses digits.
// CHECK-LABEL: func.func @gemm_f16
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x768xf32>)
// CHECK: %[[P:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x768xf16>, tensor<768x768xf16>) outs(%[[ZEROS]] : tensor<?x768xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<?x768xf32>, tensor<768xf16>) outs(%{{.*}} : tensor<?x768xf16>)
// CHECK: ^bb0(%[[SUM:.*]]: f32, %[[BIAS:.*]]: f16, %{{.*}}: f16):
// CHECK: %[[WIDE:.*]] = arith.extf %[[BIAS]] : f16 to f32
// CHECK: %[[BIASED:.*]] = arith.addf %[[SUM]], %[[WIDE]] : f32
// CHECK: arith.truncf %[[BIASED]] : f32 to f16
func.func @gemm_f16(%a: tensor<?x768xf16>, %b: tensor<768x768xf16>, %c: tensor<768xf16>) -> tensor<?x768xf16> {
  %0 = graph.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<?x768xf16>, tensor<768x768xf16>, tensor<768xf16>) -> tensor<?x768xf16>
  return %0 : tensor<?x768xf16>
}

// -----

// A 2-D convolution: zero padding (a gather generic), the bias broadcast as the initial
// value, then linalg.conv_2d_nchw_fchw with the strides and dilations.
// CHECK-LABEL: func.func @conv_2d
// CHECK: linalg.generic
// CHECK: tensor.extract
// CHECK: -> tensor<1x3x10x10xf32>
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<1x8x4x4xf32>) dimensions = [0, 2, 3]
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
func.func @conv_2d(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %0 = graph.conv %x, %w, %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// A depthwise convolution (group = C = M): linalg.depthwise_conv_2d_nchw_chw on the
// weight with its unit dimension collapsed.
// CHECK-LABEL: func.func @conv_depthwise
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<4x1x3x3xf32> into tensor<4x3x3xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw
func.func @conv_depthwise(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 4} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// A grouped 2-D convolution: the channels split into [G, C/G], linalg.conv_2d_ngchw_gfchw.
// CHECK-LABEL: func.func @conv_grouped
// CHECK: tensor.expand_shape %{{.*}} : tensor<1x4x8x8xf32> into tensor<1x2x2x8x8xf32>
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x2x3x6x6xf32> into tensor<1x6x6x6xf32>
func.func @conv_grouped(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32> {
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 2} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// A grouped 1-D convolution has no named op: a generic over [n, m, o, c, k] whose input
// channel is (m floordiv (M/G)) * (C/G) + c.
// CHECK-DAG: #[[INPUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, (d1 floordiv 2) * 2 + d3, d2 + d4)>
// CHECK-DAG: #[[WEIGHT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d4)>
// CHECK-LABEL: func.func @conv_grouped_1d
// CHECK: linalg.generic {indexing_maps = [#[[INPUT]], #[[WEIGHT]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
func.func @conv_grouped_1d(%x: tensor<1x4x8xf32>, %w: tensor<4x2x3xf32>) -> tensor<1x4x6xf32> {
  %0 = graph.conv %x, %w {strides = array<i64: 1>, dilations = array<i64: 1>, pads = array<i64: 0, 0>, group = 2} : (tensor<1x4x8xf32>, tensor<4x2x3xf32>) -> tensor<1x4x6xf32>
  return %0 : tensor<1x4x6xf32>
}

// -----

// A transposed convolution: the input spread by the strides and padded by K - 1 - pad
// with zeros (a gather generic: position j reads (j - 2) floordiv 2 where on the grid),
// the weight flipped with its channels swapped, then a stride-1 convolution.
// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, -d2 + 2, -d3 + 2)>
// CHECK-LABEL: func.func @conv_transpose
// CHECK: linalg.generic
// CHECK: arith.floordivsi
// CHECK: -> tensor<1x1x9x9xf32>
// CHECK: linalg.generic {indexing_maps = [#[[FLIP]]
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
func.func @conv_transpose(%x: tensor<1x1x3x3xf32>, %w: tensor<1x2x3x3xf32>) -> tensor<1x2x7x7xf32> {
  %0 = graph.conv_transpose %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x7x7xf32>
  return %0 : tensor<1x2x7x7xf32>
}

// -----

// Max pooling in ceil mode: -inf padding, one more row and column at the end for the
// last window, linalg.pooling_nchw_max.
// CHECK-LABEL: func.func @max_pool_ceil
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.generic
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[NEGINF]]
// CHECK: -> tensor<1x1x6x6xf32>
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
func.func @max_pool_ceil(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %0, %1 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = true, storage_order = 0} : (tensor<1x1x5x5xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>)
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// Max pooling with the indices: a pooling generic over [n, c, oh, ow, kh, kw] with a
// second (i64) output that takes the flat index where the value is strictly greater.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pool_indices
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[WIN]], #[[OUT]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK: arith.cmpf ogt
// CHECK: -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
func.func @max_pool_indices(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) {
  %0, %1 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, storage_order = 0} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  return %0, %1 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>
}

// -----

// Average pooling without count_include_pad: a sum pooling over the zero-padded input,
// then a division by the number of window taps inside the input, computed per output
// position from linalg.index.
// CHECK-LABEL: func.func @average_pool
// CHECK: linalg.pooling_nchw_sum
// CHECK: linalg.generic
// CHECK: linalg.index 2
// CHECK: arith.floordivsi
// CHECK: arith.divf
func.func @average_pool(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %0 = graph.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// A channels-last average pool (set by graph-convert-layout) in ceil mode: the zero
// padding and the sum pooling over [N, H, W, C], the divisor from the output's H and W
// (linalg.index 1 and 2), f16 summed in f32.
// CHECK-LABEL: func.func @average_pool_channels_last
// CHECK: -> tensor<2x8x8x16xf16>
// CHECK: linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<2x8x8x16xf16>, tensor<2x2xf32>) outs(%{{.*}} : tensor<2x4x4x16xf32>)
// CHECK: linalg.generic
// CHECK-DAG: linalg.index 1
// CHECK-DAG: linalg.index 2
// CHECK: arith.divf
// CHECK: arith.truncf
// CHECK: -> tensor<2x4x4x16xf16>
func.func @average_pool_channels_last(%x: tensor<2x7x7x16xf16>) -> tensor<2x4x4x16xf16> {
  %0 = graph.average_pool %x {channels_last, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = true, count_include_pad = false} : (tensor<2x7x7x16xf16>) -> tensor<2x4x4x16xf16>
  return %0 : tensor<2x4x4x16xf16>
}

// -----

// A channels-last Lp pool: the pooling generic's loops are [n, oh, ow, c, kh, kw], the
// input read at [n, oh * 2 + kh, ow * 2 + kw, c].
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @lp_pool_channels_last
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.*}}, #[[OUT]]]
// CHECK: math.sqrt
// CHECK: -> tensor<1x2x2x8xf32>
func.func @lp_pool_channels_last(%x: tensor<1x4x4x8xf32>) -> tensor<1x2x2x8xf32> {
  %0 = graph.lp_pool %x {channels_last, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, p = 2} : (tensor<1x4x4x8xf32>) -> tensor<1x2x2x8xf32>
  return %0 : tensor<1x2x2x8xf32>
}

// -----

// Lp pooling: a pooling generic summing x * x (p = 2), then the square root.
// CHECK-LABEL: func.func @lp_pool
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: math.sqrt
func.func @lp_pool(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %0 = graph.lp_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, p = 2} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// Global average pooling: a reduction over the spatial dimensions kept as 1, then the
// division by their product.
// CHECK-DAG: #[[RED:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
// CHECK-LABEL: func.func @global_average_pool
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[RED]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
// CHECK: arith.divf
func.func @global_average_pool(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32> {
  %0 = graph.global_average_pool %x : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  return %0 : tensor<2x3x1x1xf32>
}

// -----

// Global max pooling of unsigned integers: maxui from 0.
// CHECK-LABEL: func.func @global_max_pool_unsigned
// CHECK: arith.maxui
func.func @global_max_pool_unsigned(%x: tensor<1x3x4x4xui8>) -> tensor<1x3x1x1xui8> {
  %0 = graph.global_max_pool %x : (tensor<1x3x4x4xui8>) -> tensor<1x3x1x1xui8>
  return %0 : tensor<1x3x1x1xui8>
}

// -----

// Max unpooling scatters each input element to its index in an scf.for over the
// flattened input, skipping indices outside the output.
// CHECK-LABEL: func.func @max_unpool
// CHECK: scf.for
// CHECK: scf.if
// CHECK: tensor.insert
// CHECK: tensor.expand_shape %{{.*}} : tensor<16xf32> into tensor<1x1x4x4xf32>
func.func @max_unpool(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32> {
  %0 = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Einsum: loops are the output labels (b, i, k) then the summed one (j).
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @einsum_batch_matmul
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
func.func @einsum_batch_matmul(%a: tensor<4x2x3xf32>, %b: tensor<4x3x5xf32>) -> tensor<4x2x5xf32> {
  %0 = graph.einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<4x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
  return %0 : tensor<4x2x5xf32>
}

// -----

// Einsum with a repeated label reads the diagonal.
// CHECK-DAG: #[[DIAG:.*]] = affine_map<(d0, d1) -> (d0, d1, d1)>
// CHECK-LABEL: func.func @einsum_diagonal
// CHECK: linalg.generic {indexing_maps = [#[[DIAG]], #{{.*}}], iterator_types = ["parallel", "parallel"]}
func.func @einsum_diagonal(%a: tensor<2x3x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.einsum %a {equation = "...ii->...i"} : (tensor<2x3x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Det: per matrix, LU with partial pivoting in nested scf.for loops.
// CHECK-LABEL: func.func @det
// CHECK: scf.for
// CHECK: scf.for
// CHECK: math.absf
// CHECK: arith.negf
// CHECK: arith.divf
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1xf32> into tensor<f32>
func.func @det(%x: tensor<3x3xf32>) -> tensor<f32> {
  %0 = graph.det %x : (tensor<3x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Attention lowers as the ops it stands for: the key transposed, the scaled scores with the
// mask added, the softmax (maximum, sum of exponentials), NaNs to 0, the product with V.
// CHECK-LABEL: func.func @attention
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x4x8xf32>) permutation = [0, 2, 1]
// CHECK: linalg.batch_matmul
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.cmpf uno
// CHECK: linalg.batch_matmul
// CHECK-NOT: graph.
func.func @attention(%q: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x4xf32>, %m: tensor<8x8xf32>) -> tensor<2x8x4xf32> {
  %0 = graph.attention %q, %k, %v, %m {scale = 0.5 : f32, nan_to_zero} : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<8x8xf32>) -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// -----

// With f16 operands the scores, scale, mask and softmax are f32 (Q, K and the mask
// extended first) and only the probabilities are rounded to f16 for the product with V:
// scores of unnormalised Q and K overflow f16 before the softmax makes them small.
// CHECK-LABEL: func.func @attention_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x8x4xf32>, tensor<2x4x8xf32>)
// CHECK: arith.mulf %{{.*}} : f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x8x8xf16>, tensor<2x8x4xf16>)
// CHECK-NOT: graph.
func.func @attention_f16(%q: tensor<2x8x4xf16>, %k: tensor<2x8x4xf16>, %v: tensor<2x8x4xf16>, %m: tensor<8x8xf16>) -> tensor<2x8x4xf16> {
  %0 = graph.attention %q, %k, %v, %m {scale = 0.5 : f32} : (tensor<2x8x4xf16>, tensor<2x8x4xf16>, tensor<2x8x4xf16>, tensor<8x8xf16>) -> tensor<2x8x4xf16>
  return %0 : tensor<2x8x4xf16>
}

// -----

// A causal op's scores are -inf where the key's index (the last) exceeds the query's,
// chosen per element from the generic's indices, before the softmax.
// CHECK-LABEL: func.func @attention_causal
// CHECK: linalg.batch_matmul
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[J:.*]] = linalg.index 2 : index
// CHECK: %[[SCORE:.*]] = tensor.extract %{{.*}}[%{{.*}}, %[[I]], %[[J]]] : tensor<2x6x8xf32>
// CHECK: %[[ALLOWED:.*]] = arith.cmpi ule, %[[J]], %[[I]] : index
// CHECK: arith.select %[[ALLOWED]], %[[SCORE]], %cst{{.*}} : f32
// CHECK: math.exp
// CHECK: linalg.batch_matmul
// CHECK-NOT: graph.
func.func @attention_causal(%q: tensor<2x6x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x4xf32>) -> tensor<2x6x4xf32> {
  %0 = graph.attention %q, %k, %v {scale = 0.5 : f32, causal} : (tensor<2x6x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x6x4xf32>
  return %0 : tensor<2x6x4xf32>
}

// -----

// Channels last (graph-convert-layout's form): padding along H and W (dimensions 1 and
// 2), the bias broadcast along all but the last dimension, linalg.conv_2d_nhwc_fhwc.
// CHECK-LABEL: func.func @conv_2d_channels_last
// CHECK: linalg.generic
// CHECK: -> tensor<1x10x10x3xf32>
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<1x4x4x8xf32>) dimensions = [0, 1, 2]
// CHECK: linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x10x10x3xf32>, tensor<8x3x3x3xf32>)
func.func @conv_2d_channels_last(%x: tensor<1x8x8x3xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x4x4x8xf32> {
  %0 = graph.conv %x, %w, %b {channels_last, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x8x8x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

// -----

// A grouped channels-last convolution: a generic over [n, oh, ow, m, c, kh, kw] reading
// input channel (m floordiv (M / G)) * (C / G) + c.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d5, d2 + d6, (d3 floordiv 3) * 2 + d4)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d5, d6, d4)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_grouped_channels_last
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
func.func @conv_grouped_channels_last(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x2xf32>) -> tensor<1x6x6x6xf32> {
  %0 = graph.conv %x, %w {channels_last, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 2} : (tensor<1x8x8x4xf32>, tensor<6x3x3x2xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// Channels-last max pooling (indices unused): linalg.pooling_nhwc_max on the padded input.
// CHECK-LABEL: func.func @max_pool_channels_last
// CHECK: -> tensor<1x6x6x2xf32>
// CHECK: linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x6x6x2xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x3x3x2xf32>)
func.func @max_pool_channels_last(%x: tensor<1x5x5x2xf32>) -> tensor<1x3x3x2xf32> {
  %0, %1 = graph.max_pool %x {channels_last, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = true, storage_order = 0} : (tensor<1x5x5x2xf32>) -> (tensor<1x3x3x2xf32>, tensor<1x3x3x2xi64>)
  return %0 : tensor<1x3x3x2xf32>
}

// -----

// Channels-last max pooling of integers (an int8 model's pool): a pooling generic whose
// loops are those of linalg's NHWC poolings, [N, OH, OW, C, KH, KW], so that channels are
// the innermost parallel loop (consecutive GPU threads) and the nest matches the
// output's fill.
// CHECK-DAG: #[[INPUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d3)>
// CHECK-DAG: #[[WINDOW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[OUTPUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pool_channels_last_i8
// CHECK: linalg.generic {indexing_maps = [#[[INPUT]], #[[WINDOW]], #[[OUTPUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x6x6x2xi8>, tensor<2x2xi8>) outs(%{{.*}} : tensor<1x3x3x2xi8>)
// CHECK: arith.maxsi
func.func @max_pool_channels_last_i8(%x: tensor<1x5x5x2xi8>) -> tensor<1x3x3x2xi8> {
  %0, %1 = graph.max_pool %x {channels_last, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = true, storage_order = 0} : (tensor<1x5x5x2xi8>) -> (tensor<1x3x3x2xi8>, tensor<1x3x3x2xi64>)
  return %0 : tensor<1x3x3x2xi8>
}

// -----

// Half-precision products accumulate in f32: the matmul extends its f16 operands into an
// f32 accumulator, rounded to f16 once at the end.
// CHECK-LABEL: func.func @matmul_f16_accumulates_in_f32
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x3xf16>) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: -> tensor<4x3xf16>
func.func @matmul_f16_accumulates_in_f32(%a: tensor<4x8xf16>, %b: tensor<8x3xf16>) -> tensor<4x3xf16> {
  %0 = graph.matmul %a, %b : (tensor<4x8xf16>, tensor<8x3xf16>) -> tensor<4x3xf16>
  return %0 : tensor<4x3xf16>
}

// -----

// So do half-precision convolutions, the bias extended into the f32 initial value.
// CHECK-LABEL: func.func @conv_bf16_accumulates_in_f32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<2xf32>) outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x6x6xbf16>, tensor<2x4x3x3xbf16>) outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: -> tensor<1x2x4x4xbf16>
func.func @conv_bf16_accumulates_in_f32(%x: tensor<1x4x6x6xbf16>, %w: tensor<2x4x3x3xbf16>, %bias: tensor<2xbf16>) -> tensor<1x2x4x4xbf16> {
  %0 = graph.conv %x, %w, %bias {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x4x6x6xbf16>, tensor<2x4x3x3xbf16>, tensor<2xbf16>) -> tensor<1x2x4x4xbf16>
  return %0 : tensor<1x2x4x4xbf16>
}

// -----

// A grouped half-precision convolution (a generic): each operand extended before the
// multiply-accumulate.
// CHECK-LABEL: func.func @conv_grouped_f16
// CHECK: linalg.generic
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @conv_grouped_f16(%x: tensor<1x4x8xf16>, %w: tensor<4x2x3xf16>) -> tensor<1x4x6xf16> {
  %0 = graph.conv %x, %w {strides = array<i64: 1>, dilations = array<i64: 1>, pads = array<i64: 0, 0>, group = 2} : (tensor<1x4x8xf16>, tensor<4x2x3xf16>) -> tensor<1x4x6xf16>
  return %0 : tensor<1x4x6xf16>
}

// -----

// An integer convolution (graph-fold-quantized-products's form): the i8 input padded with an
// i8 zero, the i32 bias as the initial value, and linalg.conv_2d_nchw_fchw reading i8
// operands into an i32 accumulator (it sign-extends them).
// CHECK-LABEL: func.func @conv_2d_i8
// CHECK: arith.constant 0 : i8
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x3x10x10xi8>)
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<4xi32>) outs(%{{.*}} : tensor<1x4x8x8xi32>) dimensions = [0, 2, 3]
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x3x10x10xi8>, tensor<4x3x3x3xi8>) outs(%{{.*}} : tensor<1x4x8x8xi32>)
func.func @conv_2d_i8(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) -> tensor<1x4x8x8xi32> {
  %0 = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>) -> tensor<1x4x8x8xi32>
  return %0 : tensor<1x4x8x8xi32>
}

// -----

// Channels last, 2-D: linalg.conv_2d_nhwc_fhwc of i8 operands into i32 zeros.
// CHECK-LABEL: func.func @conv_2d_i8_channels_last
// CHECK: linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<1x8x8x4xi32>)
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x8x3xi8>, tensor<4x1x1x3xi8>) outs(%{{.*}} : tensor<1x8x8x4xi32>)
func.func @conv_2d_i8_channels_last(%x: tensor<1x8x8x3xi8>, %w: tensor<4x1x1x3xi8>) -> tensor<1x8x8x4xi32> {
  %0 = graph.conv %x, %w {channels_last, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x8x3xi8>, tensor<4x1x1x3xi8>) -> tensor<1x8x8x4xi32>
  return %0 : tensor<1x8x8x4xi32>
}

// -----

// Channels last, 1-D (a linalg.generic): the i8 products sign-extended to i32 first.
// CHECK-LABEL: func.func @conv_1d_i8_channels_last
// CHECK: linalg.generic
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.muli
// CHECK: arith.addi
func.func @conv_1d_i8_channels_last(%x: tensor<1x8x3xi8>, %w: tensor<4x3x3xi8>) -> tensor<1x6x4xi32> {
  %0 = graph.conv %x, %w {channels_last, strides = array<i64: 1>, dilations = array<i64: 1>, pads = array<i64: 0, 0>, group = 1} : (tensor<1x8x3xi8>, tensor<4x3x3xi8>) -> tensor<1x6x4xi32>
  return %0 : tensor<1x6x4xi32>
}

// -----

// ui8 operands are zero-extended to i32 before the convolution, which then runs in i32.
// CHECK-LABEL: func.func @conv_2d_ui8
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x3x8x8xi32>, tensor<4x3x1x1xi32>) outs(%{{.*}} : tensor<1x4x8x8xi32>)
func.func @conv_2d_ui8(%x: tensor<1x3x8x8xui8>, %w: tensor<4x3x1x1xui8>) -> tensor<1x4x8x8xi32> {
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x3x8x8xui8>, tensor<4x3x1x1xui8>) -> tensor<1x4x8x8xi32>
  return %0 : tensor<1x4x8x8xi32>
}
