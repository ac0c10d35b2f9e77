// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-convert-layout))' | FileCheck %s
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-convert-layout{tensor-core-only}))' | FileCheck %s --check-prefix=TC
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-convert-layout{global-pool-as-reduce-mean=false}))' | FileCheck %s --check-prefix=PROLOGUE
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-convert-layout{emit-remarks}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// conv -> relu -> conv: one transpose where the channels-first input enters, one where
// the result leaves, none between; the weights are permuted constants (OHWI).
// CHECK-LABEL: func.func @conv_relu_conv
// CHECK: %[[IN:.*]] = graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x16x8x8xf32>) -> tensor<1x8x8x16xf32>
// CHECK: %[[C0:.*]] = graph.conv %[[IN]], %{{.*}}, %{{.*}} {channels_last, {{.*}}} : (tensor<1x8x8x16xf32>, tensor<32x3x3x16xf32>, tensor<32xf32>) -> tensor<1x8x8x32xf32>
// CHECK-NOT: graph.transpose
// CHECK: %[[R:.*]] = graph.relu %[[C0]] : tensor<1x8x8x32xf32>
// CHECK-NOT: graph.transpose
// CHECK: %[[C1:.*]] = graph.conv %[[R]], %{{.*}} {channels_last, {{.*}}} : (tensor<1x8x8x32xf32>, tensor<16x1x1x32xf32>) -> tensor<1x8x8x16xf32>
// CHECK: %[[OUT:.*]] = graph.transpose %[[C1]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x16xf32>) -> tensor<1x16x8x8xf32>
// CHECK: return %[[OUT]]
// REMARK: remark: graph-convert-layout: 2 convs channels last, 2 transposes left
func.func @conv_relu_conv(%x: tensor<1x16x8x8xf32>, %w0: tensor<32x16x3x3xf32>, %b0: tensor<32xf32>) -> tensor<1x16x8x8xf32> {
  %w = graph.constant dense<0.5> : tensor<32x16x3x3xf32>
  %b = graph.constant dense<1.0> : tensor<32xf32>
  %c0 = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> tensor<1x32x8x8xf32>
  %r = graph.relu %c0 : tensor<1x32x8x8xf32>
  %w1 = graph.constant dense<0.25> : tensor<16x32x1x1xf32>
  %c1 = graph.conv %r, %w1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x8x8xf32>, tensor<16x32x1x1xf32>) -> tensor<1x16x8x8xf32>
  return %c1 : tensor<1x16x8x8xf32>
}

// -----

// The weight's elements move: [M=2, C=2, 1, 2] -> [M, 1, 2, C] (the relu keeps the conv
// channels last; see @isolated_conv_reverted):
// w[m][c][0][k] = 1 + 4m + 2c + k lands at [m][0][k][c].
// CHECK-LABEL: func.func @weight_permuted
// CHECK: graph.constant dense<{{\[\[\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]], {{\[\[\[}}5.000000e+00, 7.000000e+00], [6.000000e+00, 8.000000e+00]]]]> : tensor<2x1x2x2xf32>
func.func @weight_permuted(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x3xf32> {
  %w = graph.constant dense<[[[[1.0, 2.0]], [[3.0, 4.0]]], [[[5.0, 6.0]], [[7.0, 8.0]]]]> : tensor<2x2x1x2xf32>
  %c = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x2x4x4xf32>, tensor<2x2x1x2xf32>) -> tensor<1x2x4x3xf32>
  %r = graph.relu %c : tensor<1x2x4x3xf32>
  return %r : tensor<1x2x4x3xf32>
}

// -----

// A residual block: both branches channels last, the add between them too; the block's
// input feeds a conv and the add, and only the block's ends keep transposes.
// CHECK-LABEL: func.func @residual_add
// CHECK: %[[IN:.*]] = graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[A:.*]] = graph.conv %[[IN]], {{.*}}channels_last
// CHECK: %[[RA:.*]] = graph.relu %[[A]] : tensor<1x8x8x16xf32>
// CHECK: %[[B:.*]] = graph.conv %[[RA]], {{.*}}channels_last
// CHECK: %[[S:.*]] = graph.add %[[B]], %[[RA]] : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
// CHECK: %[[R:.*]] = graph.relu %[[S]] : tensor<1x8x8x16xf32>
// CHECK: %[[OUT:.*]] = graph.transpose %[[R]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: return %[[OUT]]
// REMARK: remark: graph-convert-layout: 2 convs channels last, 2 transposes left
func.func @residual_add(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w = graph.constant dense<0.5> : tensor<16x16x3x3xf32>
  %a = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %ra = graph.relu %a : tensor<1x16x8x8xf32>
  %b = graph.conv %ra, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %s = graph.add %b, %ra : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %r = graph.relu %s : tensor<1x16x8x8xf32>
  return %r : tensor<1x16x8x8xf32>
}

// -----

// Two branches concatenated along their channels (an Inception block's) and read by a
// conv: the concatenation moves behind the branches' transposes (along the channels-last
// axis, 3), so nothing between the convs is transposed. A concat whose operands carry
// different transposes stays.
// CHECK-LABEL: func.func @concat_channels
// CHECK: %[[IN:.*]] = graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[A:.*]] = graph.conv %[[IN]], {{.*}}channels_last
// CHECK: %[[B:.*]] = graph.conv %[[IN]], {{.*}}channels_last
// CHECK: %[[J:.*]] = graph.concat %[[A]], %[[B]] {axis = 3 : i64} : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x32xf32>
// CHECK-NEXT: %[[C:.*]] = graph.conv %[[J]], {{.*}}channels_last
// CHECK: %[[OUT:.*]] = graph.transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: return %[[OUT]]
// CHECK-LABEL: func.func @concat_mixed
// CHECK: graph.concat %{{.*}}, %arg1 {axis = 1 : i64}
// The channels as a negative axis (-3, as exporters may write it) move the same way.
// CHECK-LABEL: func.func @concat_negative_axis
// CHECK: graph.concat %{{.*}}, %{{.*}} {axis = 3 : i64} : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x32xf32>
func.func @concat_channels(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w = graph.constant dense<0.5> : tensor<16x16x3x3xf32>
  %w2 = graph.constant dense<0.25> : tensor<16x32x1x1xf32>
  %a = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %wb = graph.constant dense<0.75> : tensor<16x16x3x3xf32>
  %b = graph.conv %x, %wb {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %j = graph.concat %a, %b {axis = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32>
  %c = graph.conv %j, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x8x8xf32>, tensor<16x32x1x1xf32>) -> tensor<1x16x8x8xf32>
  return %c : tensor<1x16x8x8xf32>
}
func.func @concat_mixed(%x: tensor<1x16x8x8xf32>, %y: tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %w = graph.constant dense<0.5> : tensor<16x16x3x3xf32>
  %a = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %j = graph.concat %a, %y {axis = 1 : i64} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32>
  return %j : tensor<1x32x8x8xf32>
}
func.func @concat_negative_axis(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w = graph.constant dense<0.5> : tensor<16x16x3x3xf32>
  %w2 = graph.constant dense<0.25> : tensor<16x32x1x1xf32>
  %a = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %wb = graph.constant dense<0.75> : tensor<16x16x3x3xf32>
  %b = graph.conv %x, %wb {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %j = graph.concat %a, %b {axis = -3 : i64} : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32>
  %c = graph.conv %j, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x32x8x8xf32>, tensor<16x32x1x1xf32>) -> tensor<1x16x8x8xf32>
  return %c : tensor<1x16x8x8xf32>
}

// -----

// A constant bias [C, 1, 1] broadcast over NCHW becomes [1, 1, 1, C] over NHWC (its
// values in channel order); a scalar Clip bound stays as it is.
// CHECK-LABEL: func.func @constant_bias_permuted
// CHECK: %[[BIAS:.*]] = graph.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]]]]> : tensor<1x1x1x8xf32>
// CHECK: %[[C:.*]] = graph.conv {{.*}}channels_last
// CHECK: %[[A:.*]] = graph.add %[[C]], %[[BIAS]] : (tensor<1x4x4x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK: graph.clip %[[A]] min %{{.*}} max %{{.*}} : (tensor<1x4x4x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4x4x8xf32>
// CHECK: graph.transpose {{.*}} {perm = array<i64: 0, 3, 1, 2>}
func.func @constant_bias_permuted(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %w = graph.constant dense<1.0> : tensor<8x8x1x1xf32>
  %c = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %bias = graph.constant dense<[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]]]> : tensor<8x1x1xf32>
  %a = graph.add %c, %bias : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %lo = graph.constant dense<0.0> : tensor<f32>
  %hi = graph.constant dense<6.0> : tensor<f32>
  %y = graph.clip %a min %lo max %hi : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// The rule. By default every 2-D conv is channels last, a depthwise one and one of odd
// channel counts included. With tensor-core-only, the depthwise conv (C / group = 1) and
// the 3 -> 5 conv are not picked on their own; the depthwise one follows its
// channels-last input anyway, the 3 -> 5 one (a channels-first input) stays. By default
// the 3 -> 5 conv is converted and goes back, as nothing next to it takes the layout.
// CHECK-LABEL: func.func @rule
// CHECK: graph.conv {{.*}}channels_last{{.*}} : (tensor<1x6x6x8xf32>, tensor<8x1x1x8xf32>)
// CHECK: graph.conv {{.*}}channels_last{{.*}}group = 8{{.*}} : (tensor<1x6x6x8xf32>, tensor<8x3x3x1xf32>)
// CHECK: graph.conv %arg1, {{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, {{.*}}} : (tensor<1x3x6x6xf32>, tensor<5x3x3x3xf32>
// TC-LABEL: func.func @rule
// TC: graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// TC: graph.conv {{.*}}channels_last{{.*}} : (tensor<1x6x6x8xf32>, tensor<8x1x1x8xf32>)
// TC: graph.conv {{.*}}channels_last{{.*}}group = 8{{.*}} : (tensor<1x6x6x8xf32>, tensor<8x3x3x1xf32>)
// TC: graph.conv %arg1, {{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, {{.*}}} : (tensor<1x3x6x6xf32>, tensor<5x3x3x3xf32>
func.func @rule(%x: tensor<1x8x6x6xf32>, %y: tensor<1x3x6x6xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x5x6x6xf32>) {
  %wp = graph.constant dense<0.5> : tensor<8x8x1x1xf32>
  %p = graph.conv %x, %wp {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %wd = graph.constant dense<0.5> : tensor<8x1x3x3xf32>
  %d = graph.conv %p, %wd {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 8} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32>
  %wo = graph.constant dense<0.5> : tensor<5x3x3x3xf32>
  %o = graph.conv %y, %wo {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x3x6x6xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x6x6xf32>
  return %d, %o : tensor<1x8x6x6xf32>, tensor<1x5x6x6xf32>
}

// -----

// Max pooling keeps the layout: the pool becomes channels last. The global pool becomes
// a reduce_mean over H and W, and the [1, 1, 1, C] -> [1, C, 1, 1] transpose left after it
// moves no data: a reshape. With global-pool-as-reduce-mean=false the global pool reads
// its input through the transpose (kernel formation makes that its prologue).
// CHECK-LABEL: func.func @pools
// CHECK: %[[AXES:.*]] = graph.constant dense<[1, 2]> : tensor<2xi64>
// CHECK: %[[C:.*]] = graph.conv {{.*}}channels_last
// CHECK: %[[P:.*]], %{{.*}} = graph.max_pool %[[C]] {ceil_mode = false, channels_last, {{.*}}} : (tensor<1x8x8x8xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x4x4x8xi64>)
// CHECK: %[[M:.*]] = graph.reduce_mean %[[P]], %[[AXES]] {keepdims = true, noop_with_empty_axes = false} : (tensor<1x4x4x8xf32>, tensor<2xi64>) -> tensor<1x1x1x8xf32>
// CHECK: %[[R:.*]] = graph.reshape %[[M]], %{{.*}} {allowzero = false} : (tensor<1x1x1x8xf32>, tensor<4xi64>) -> tensor<1x8x1x1xf32>
// CHECK-NOT: graph.transpose
// CHECK: return %[[R]]
// PROLOGUE-LABEL: func.func @pools
// PROLOGUE: %[[C:.*]] = graph.conv {{.*}}channels_last
// PROLOGUE: %[[P:.*]], %{{.*}} = graph.max_pool %[[C]] {ceil_mode = false, channels_last, {{.*}}} : (tensor<1x8x8x8xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x4x4x8xi64>)
// PROLOGUE: %[[T:.*]] = graph.transpose %[[P]] {perm = array<i64: 0, 3, 1, 2>}
// PROLOGUE: graph.global_average_pool %[[T]]
// REMARK: remark: graph-convert-layout: 1 convs channels last, 1 transposes left
func.func @pools(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x1x1xf32> {
  %w = graph.constant dense<0.5> : tensor<8x8x1x1xf32>
  %c = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %p, %i = graph.max_pool %c {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, storage_order = 0} : (tensor<1x8x8x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xi64>)
  %g = graph.global_average_pool %p : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  return %g : tensor<1x8x1x1xf32>
}

// -----

// Average and Lp pools keep the layout too (a ResNet-D shortcut: a 2x2 ceil-mode average
// pool between two convs): both pools channels last, no transpose between the convs.
// CHECK-LABEL: func.func @average_and_lp_pools
// CHECK: %[[IN:.*]] = graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[C:.*]] = graph.conv %[[IN]], {{.*}}channels_last
// CHECK: %[[A:.*]] = graph.average_pool %[[C]] {ceil_mode = true, channels_last, count_include_pad = false, {{.*}}} : (tensor<1x7x7x8xf32>) -> tensor<1x4x4x8xf32>
// CHECK: %[[L:.*]] = graph.lp_pool %[[A]] {ceil_mode = false, channels_last, {{.*}}} : (tensor<1x4x4x8xf32>) -> tensor<1x3x3x8xf32>
// CHECK-NOT: graph.transpose
// CHECK: graph.conv %[[L]], {{.*}}channels_last
// CHECK: graph.transpose %{{.*}} {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: graph.transpose
// REMARK: remark: graph-convert-layout: 2 convs channels last, 2 transposes left
func.func @average_and_lp_pools(%x: tensor<1x8x7x7xf32>) -> tensor<1x16x3x3xf32> {
  %w = graph.constant dense<0.5> : tensor<8x8x1x1xf32>
  %c = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x7x7xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x7x7xf32>
  %a = graph.average_pool %c {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = true, count_include_pad = false} : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32>
  %l = graph.lp_pool %a {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, p = 2} : (tensor<1x8x4x4xf32>) -> tensor<1x8x3x3xf32>
  %w2 = graph.constant dense<0.25> : tensor<16x8x1x1xf32>
  %o = graph.conv %l, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x3x3xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x3x3xf32>
  return %o : tensor<1x16x3x3xf32>
}

// -----

// Resizing keeps the layout (an FPN's top-down path: an upsampled map concatenated with
// a lateral one): the resize gets `axes` naming the channels-last dimensions, its scales
// as they were, and the concatenation of two channels-last values stays channels last.
// A resize that names its axes has them mapped.
// CHECK-LABEL: func.func @resize_concat
// CHECK: %[[C0:.*]] = graph.conv {{.*}}channels_last{{.*}} -> tensor<1x4x4x8xf32>
// CHECK-NOT: graph.transpose
// CHECK: %[[R:.*]] = graph.resize %[[C0]] scales(%{{.*}}) {antialias = false, axes = array<i64: 0, 3, 1, 2>, {{.*}}} : (tensor<1x4x4x8xf32>, tensor<4xf32>) -> tensor<1x8x8x8xf32>
// CHECK: %[[C1:.*]] = graph.conv {{.*}}channels_last{{.*}} -> tensor<1x8x8x8xf32>
// CHECK: %[[CAT:.*]] = graph.concat %[[R]], %[[C1]] {axis = 3 : i64}
// CHECK: %[[S:.*]] = graph.resize %[[CAT]] sizes(%{{.*}}) {antialias = false, axes = array<i64: 1, 2>, {{.*}}} : (tensor<1x8x8x16xf32>, tensor<2xi64>) -> tensor<1x4x4x16xf32>
// CHECK: graph.conv %[[S]], {{.*}}channels_last
// CHECK: graph.transpose
// CHECK-NOT: graph.transpose
// REMARK: remark: graph-convert-layout: 3 convs channels last, 3 transposes left
func.func @resize_concat(%x: tensor<1x8x4x4xf32>, %y: tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %w = graph.constant dense<0.5> : tensor<8x8x1x1xf32>
  %c0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %scales = graph.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %r = graph.resize %c0 scales(%scales) {antialias = false, coordinate_transformation_mode = "asymmetric", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "floor"} : (tensor<1x8x4x4xf32>, tensor<4xf32>) -> tensor<1x8x8x8xf32>
  %c1 = graph.conv %y, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %cat = graph.concat %r, %c1 {axis = 1 : i64} : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x16x8x8xf32>
  %sizes = graph.constant dense<[4, 4]> : tensor<2xi64>
  %s = graph.resize %cat sizes(%sizes) {antialias = false, axes = array<i64: 2, 3>, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, keep_aspect_ratio_policy = "stretch", mode = "linear", nearest_mode = "floor"} : (tensor<1x16x8x8xf32>, tensor<2xi64>) -> tensor<1x16x4x4xf32>
  %w2 = graph.constant dense<0.25> : tensor<8x16x1x1xf32>
  %o = graph.conv %s, %w2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x16x4x4xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x4x4xf32>
  return %o : tensor<1x8x4x4xf32>
}

// -----

// A transpose that cannot sink stays: softmax over the channels has no channels-last
// form, and the other operand of the mul is a channels-first value of full size.
// CHECK-LABEL: func.func @cannot_sink
// CHECK: %[[C:.*]] = graph.conv {{.*}}channels_last
// CHECK: %[[R:.*]] = graph.relu %[[C]]
// CHECK: %[[T:.*]] = graph.transpose %[[R]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: graph.softmax %[[T]]
// CHECK: graph.mul %[[T]], %arg1
// REMARK: remark: graph-convert-layout: 1 convs channels last, 2 transposes left
func.func @cannot_sink(%x: tensor<1x8x4x4xf32>, %y: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %w = graph.constant dense<0.5> : tensor<8x8x1x1xf32>
  %c = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %r = graph.relu %c : tensor<1x8x4x4xf32>
  %s = graph.softmax %r {axis = 1 : i64} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %m = graph.mul %r, %y : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %s, %m : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

// Squeeze-and-excite: the gate [N, C, 1, 1] from channels-first ops multiplies a
// channels-last value; moving its unit dimensions is a reshape, so the mul sinks.
// CHECK-LABEL: func.func @gate_reshaped
// CHECK: %[[C:.*]] = graph.conv {{.*}}channels_last
// CHECK: %[[G:.*]] = graph.reshape %arg1, %{{.*}} : (tensor<1x8x1x1xf32>, tensor<4xi64>) -> tensor<1x1x1x8xf32>
// CHECK: graph.mul %[[G]], %[[C]] : (tensor<1x1x1x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
func.func @gate_reshaped(%x: tensor<1x8x4x4xf32>, %gate: tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %w = graph.constant dense<0.5> : tensor<8x8x1x1xf32>
  %c = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %m = graph.mul %gate, %c : (tensor<1x8x1x1xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %m : tensor<1x8x4x4xf32>
}

// -----

// Convs with a weight that is not a constant, or a dynamic spatial extent, stay.
// CHECK-LABEL: func.func @not_converted
// CHECK-NOT: channels_last
// CHECK-NOT: graph.transpose
func.func @not_converted(%x: tensor<1x8x4x4xf32>, %w: tensor<8x8x1x1xf32>, %d: tensor<1x8x?x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x?x4xf32>) {
  %c = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %k = graph.constant dense<0.5> : tensor<8x8x1x1xf32>
  %e = graph.conv %d, %k {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x?x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x?x4xf32>
  return %c, %e : tensor<1x8x4x4xf32>, tensor<1x8x?x4xf32>
}

// -----

// A conv nothing next to it takes the layout from (its residual is a channels-first
// argument of full size) goes back to channels first: no transposes, the weight as it
// was (OIHW; permuted there and back).
// CHECK-LABEL: func.func @isolated_conv_reverted
// CHECK-NOT: graph.transpose
// CHECK: %[[W:.*]] = graph.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00]], {{\[\[}}3.000000e+00, 4.000000e+00]]], {{\[\[\[}}5.000000e+00, 6.000000e+00]], {{\[\[}}7.000000e+00, 8.000000e+00]]]]> : tensor<2x2x1x2xf32>
// CHECK-NOT: graph.transpose
// CHECK: %[[C:.*]] = graph.conv %arg0, %[[W]] {dilations = {{.*}}} : (tensor<1x2x4x4xf32>, tensor<2x2x1x2xf32>) -> tensor<1x2x4x3xf32>
// CHECK-NOT: channels_last
// CHECK: graph.add %[[C]], %arg1
// CHECK-NOT: graph.transpose
// REMARK: remark: graph-convert-layout: 0 convs channels last, 0 transposes left
func.func @isolated_conv_reverted(%x: tensor<1x2x4x4xf32>, %r: tensor<1x2x4x3xf32>) -> tensor<1x2x4x3xf32> {
  %w = graph.constant dense<[[[[1.0, 2.0]], [[3.0, 4.0]]], [[[5.0, 6.0]], [[7.0, 8.0]]]]> : tensor<2x2x1x2xf32>
  %c = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x2x4x4xf32>, tensor<2x2x1x2xf32>) -> tensor<1x2x4x3xf32>
  %a = graph.add %c, %r : (tensor<1x2x4x3xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x4x3xf32>
  %y = graph.relu %a : tensor<1x2x4x3xf32>
  return %y : tensor<1x2x4x3xf32>
}

// -----

// Two integer convs of graph-fold-quantized-products's form: both channels last (their i8
// weights permuted, the i8 element order checked on the first), and the transposes sink
// through the per-channel dequantize_linear (its axis 1 becomes 3), the bias add (the
// [32, 1, 1] constant permuted), the relu and the per-tensor quantize_linear between
// them: none is left between the convs.
// CHECK-LABEL: func.func @integer_convs
// CHECK: graph.constant dense<{{\[\[\[\[}}1, 3], [2, 4]]], {{\[\[\[}}5, 7], [6, 8]]]]> : tensor<2x1x2x2xi8>
// CHECK: %[[IN:.*]] = graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x8x8xi8>) -> tensor<1x8x8x2xi8>
// CHECK: %[[C0:.*]] = graph.conv %[[IN]], %{{.*}} {channels_last, {{.*}}} : (tensor<1x8x8x2xi8>, tensor<2x1x2x2xi8>) -> tensor<1x8x7x2xi32>
// CHECK-NOT: graph.transpose
// CHECK: %[[D:.*]] = graph.dequantize_linear %[[C0]], %{{.*}} {axis = 3 : i64, block_size = 0 : i64} : (tensor<1x8x7x2xi32>, tensor<2xf32>) -> tensor<1x8x7x2xf32>
// CHECK: %[[A:.*]] = graph.add %[[D]], %{{.*}} : (tensor<1x8x7x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x8x7x2xf32>
// CHECK: %[[R:.*]] = graph.relu %[[A]] : tensor<1x8x7x2xf32>
// CHECK: %[[Q:.*]] = graph.quantize_linear %[[R]], %{{.*}}, %{{.*}} {axis = 3 : i64, {{.*}}} : (tensor<1x8x7x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x7x2xi8>
// CHECK-NOT: graph.transpose
// CHECK: %[[C1:.*]] = graph.conv %[[Q]], %{{.*}} {channels_last, {{.*}}} : (tensor<1x8x7x2xi8>, tensor<4x1x1x2xi8>) -> tensor<1x8x7x4xi32>
// CHECK: %[[D1:.*]] = graph.dequantize_linear %[[C1]], %{{.*}} {axis = 3 : i64, block_size = 0 : i64} : (tensor<1x8x7x4xi32>, tensor<f32>) -> tensor<1x8x7x4xf32>
// CHECK: %[[OUT:.*]] = graph.transpose %[[D1]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: return %[[OUT]]
// REMARK: remark: graph-convert-layout: 2 convs channels last, 2 transposes left
func.func @integer_convs(%x: tensor<1x2x8x8xi8>) -> tensor<1x4x8x7xf32> {
  %w0 = graph.constant dense<[[[[1, 2]], [[3, 4]]], [[[5, 6]], [[7, 8]]]]> : tensor<2x2x1x2xi8>
  %s0 = graph.constant dense<[1.0e-4, 2.0e-4]> : tensor<2xf32>
  %b0 = graph.constant dense<[[[0.5]], [[0.25]]]> : tensor<2x1x1xf32>
  %sq = graph.constant dense<0.05> : tensor<f32>
  %zq = graph.constant dense<0> : tensor<i8>
  %w1 = graph.constant dense<1> : tensor<4x2x1x1xi8>
  %s1 = graph.constant dense<3.0e-4> : tensor<f32>
  %c0 = graph.conv %x, %w0 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x2x8x8xi8>, tensor<2x2x1x2xi8>) -> tensor<1x2x8x7xi32>
  %d0 = graph.dequantize_linear %c0, %s0 {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x2x8x7xi32>, tensor<2xf32>) -> tensor<1x2x8x7xf32>
  %a0 = graph.add %d0, %b0 : (tensor<1x2x8x7xf32>, tensor<2x1x1xf32>) -> tensor<1x2x8x7xf32>
  %r0 = graph.relu %a0 : tensor<1x2x8x7xf32>
  %q0 = graph.quantize_linear %r0, %sq, %zq {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x2x8x7xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x8x7xi8>
  %c1 = graph.conv %q0, %w1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x2x8x7xi8>, tensor<4x2x1x1xi8>) -> tensor<1x4x8x7xi32>
  %d1 = graph.dequantize_linear %c1, %s1 {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x4x8x7xi32>, tensor<f32>) -> tensor<1x4x8x7xf32>
  return %d1 : tensor<1x4x8x7xf32>
}

// -----

// An isolated conv the implicit-GEMM templates take (one group, 8 output channels) stays
// channels last between its two transposes: they cost far less than a generic
// convolution.
// CHECK-LABEL: func.func @isolated_template_conv_kept
// CHECK: graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK: graph.conv {{.*}}channels_last{{.*}} -> tensor<1x4x4x8xf32>
// CHECK: graph.transpose {{.*}} {perm = array<i64: 0, 3, 1, 2>}
func.func @isolated_template_conv_kept(%x: tensor<1x8x4x4xf32>, %r: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %w = graph.constant dense<0.5> : tensor<8x8x3x3xf32>
  %c = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x8x4x4xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32>
  %a = graph.add %c, %r : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %a : tensor<1x8x4x4xf32>
}

// -----

// A 3-D conv becomes channels last too: NDHWC activations, an ODHWI weight.
// CHECK-LABEL: func.func @conv3d
// CHECK: graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 4, 1>} : (tensor<2x8x4x6x6xf16>) -> tensor<2x4x6x6x8xf16>
// CHECK: graph.conv {{.*}}channels_last{{.*}} : (tensor<2x4x6x6x8xf16>, tensor<16x3x3x3x8xf16>) -> tensor<2x4x6x6x16xf16>
// CHECK: graph.transpose {{.*}} {perm = array<i64: 0, 4, 1, 2, 3>} : (tensor<2x4x6x6x16xf16>) -> tensor<2x16x4x6x6xf16>
func.func @conv3d(%x: tensor<2x8x4x6x6xf16>) -> tensor<2x16x4x6x6xf16> {
  %w = graph.constant dense<0.5> : tensor<16x8x3x3x3xf16>
  %y = graph.conv %x, %w {strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>, group = 1} : (tensor<2x8x4x6x6xf16>, tensor<16x8x3x3x3xf16>) -> tensor<2x16x4x6x6xf16>
  return %y : tensor<2x16x4x6x6xf16>
}
