// RUN: kiln-opt --split-input-file --graph-conv-transpose-to-conv %s | FileCheck %s

// 4x4, stride 2, padding 1 (a GAN's or FCN's upsampling): tap k of each axis reads input
// q - floor((k - 1) / 2), offsets 1, 0, 0, -1: row phase 0 takes taps 1 and 3 (offsets 0
// and -1), row phase 1 taps 0 and 2 (1 and 0). The union window (3x3 for 4 phases, 36
// products a position) multiplies 1.5x what one convolution per row phase does (2 x 2x3
// windows of the 2 column phases, 24): two convolutions of 2 x 8 channels, the bias tiled
// twice, padded rows 1/0 and 0/1 and columns 1/1 ([N, C, 5, 6] -> [N, 16, 5, 6] each).
// Channels last each is every other output row whole ([N, 5, 1, 12, 8]); a concatenation
// of the two along the row phase and a reshape give [N, 10, 12, 8], then channels first.
// CHECK-LABEL: func.func @upsample_4x4
// CHECK-NOT: graph.conv_transpose
// CHECK: %[[W0:.*]] = graph.constant {{.*}} : tensor<16x16x2x3xf16>
// CHECK: %[[B0:.*]] = graph.constant {{.*}} : tensor<16xf16>
// CHECK: %[[C0:.*]] = graph.conv %arg0, %[[W0]], %[[B0]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 0, 1>, strides = array<i64: 1, 1>} : (tensor<?x16x5x6xf16>, tensor<16x16x2x3xf16>, tensor<16xf16>) -> tensor<?x16x5x6xf16>
// CHECK: %[[L0:.*]] = graph.transpose %[[C0]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<?x16x5x6xf16>) -> tensor<?x5x6x16xf16>
// CHECK: %[[R0:.*]] = graph.reshape %[[L0]], %{{.*}} -> tensor<?x5x1x12x8xf16>
// CHECK: %[[C1:.*]] = graph.conv %arg0, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 1, 1, 1>, strides = array<i64: 1, 1>}
// CHECK: %[[R1:.*]] = graph.reshape %{{.*}} -> tensor<?x5x1x12x8xf16>
// CHECK: %[[J:.*]] = graph.concat %[[R0]], %[[R1]] {axis = 2 : i64} : (tensor<?x5x1x12x8xf16>, tensor<?x5x1x12x8xf16>) -> tensor<?x5x2x12x8xf16>
// CHECK: %[[R:.*]] = graph.reshape %[[J]], %{{.*}} -> tensor<?x10x12x8xf16>
// CHECK-NOT: graph.slice
// CHECK: %[[F:.*]] = graph.transpose %[[R]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<?x10x12x8xf16>) -> tensor<?x8x10x12xf16>
// CHECK: return %[[F]]
func.func @upsample_4x4(%x: tensor<?x16x5x6xf16>) -> tensor<?x8x10x12xf16> {
  %w = graph.constant dense<0.5> : tensor<16x8x4x4xf16>
  %b = graph.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf16>
  %y = graph.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 0, 0>, group = 1} : (tensor<?x16x5x6xf16>, tensor<16x8x4x4xf16>, tensor<8xf16>) -> tensor<?x8x10x12xf16>
  return %y : tensor<?x8x10x12xf16>
}

// -----

// The kernel is the stride (a U-Net's 2x2, stride 2): one tap a phase, a 1x1 convolution.
// CHECK-LABEL: func.func @upsample_2x2
// CHECK: graph.conv %arg0, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x4x4xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x4x4xf32>
// CHECK: graph.transpose {{.*}} -> tensor<1x4x2x4x2x8xf32>
// CHECK: graph.reshape {{.*}} -> tensor<1x8x8x8xf32>
func.func @upsample_2x2(%x: tensor<1x16x4x4xf32>) -> tensor<1x8x8x8xf32> {
  %w = graph.constant dense<0.25> : tensor<16x8x2x2xf32>
  %y = graph.conv_transpose %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1} : (tensor<1x16x4x4xf32>, tensor<16x8x2x2xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

// 3x3, stride 2, padding 1, output padding 1 of a 1-D input (7 -> 14): window 2, 7
// outputs a phase; a bias computed at run time is added after the interleave. A stride
// that does not divide the output (5 -> 3 * 4 + 5 - 3 = 14 of stride 3, taps at offsets
// 1, 1, 0, 0, 0) computes ceil(14 / 3) = 5 outputs a phase and slices off the last.
// CHECK-LABEL: func.func @one_d
// CHECK: graph.conv %arg0, %{{.*}} {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 0, 1>, strides = array<i64: 1>} : (tensor<2x8x7xf32>, tensor<16x8x2xf32>) -> tensor<2x16x7xf32>
// CHECK: graph.reshape {{.*}} -> tensor<2x14x8xf32>
// CHECK: graph.transpose {{.*}} -> tensor<2x8x14xf32>
// CHECK: graph.reshape %arg2, {{.*}} -> tensor<8x1xf32>
// CHECK: graph.add
// CHECK: graph.conv %arg1, %{{.*}} {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 0, 1>, strides = array<i64: 1>} : (tensor<1x8x5xf32>, tensor<24x8x2xf32>) -> tensor<1x24x5xf32>
// CHECK: graph.reshape {{.*}} -> tensor<1x15x8xf32>
// CHECK: graph.slice {{.*}} -> tensor<1x14x8xf32>
// CHECK: graph.transpose {{.*}} -> tensor<1x8x14xf32>
func.func @one_d(%x: tensor<2x8x7xf32>, %x3: tensor<1x8x5xf32>, %b: tensor<8xf32>) -> (tensor<2x8x14xf32>, tensor<1x8x14xf32>) {
  %w = graph.constant dense<1.0> : tensor<8x8x3xf32>
  %y = graph.conv_transpose %x, %w, %b {strides = array<i64: 2>, dilations = array<i64: 1>, pads = array<i64: 1, 1>, output_padding = array<i64: 1>, group = 1} : (tensor<2x8x7xf32>, tensor<8x8x3xf32>, tensor<8xf32>) -> tensor<2x8x14xf32>
  %w3 = graph.constant dense<1.0> : tensor<8x8x5xf32>
  %z = graph.conv_transpose %x3, %w3 {strides = array<i64: 3>, dilations = array<i64: 1>, pads = array<i64: 2, 1>, output_padding = array<i64: 0>, group = 1} : (tensor<1x8x5xf32>, tensor<8x8x5xf32>) -> tensor<1x8x14xf32>
  return %y, %z : tensor<2x8x14xf32>, tensor<1x8x14xf32>
}

// -----

// Left alone: groups, a weight computed at run time, a dynamic spatial extent.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: graph.conv_transpose
// CHECK-NOT: graph.conv
func.func @left_alone(%x: tensor<1x8x4x4xf32>, %wr: tensor<8x4x2x2xf32>, %xd: tensor<1x8x?x4xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x?x8xf32>) {
  %wg = graph.constant dense<1.0> : tensor<8x4x2x2xf32>
  %a = graph.conv_transpose %x, %wg {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 2} : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>) -> tensor<1x8x8x8xf32>
  %b = graph.conv_transpose %x, %wr {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1} : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x8x8xf32>
  %c = graph.conv_transpose %xd, %wg {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1} : (tensor<1x8x?x4xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x?x8xf32>
  return %a, %b, %c : tensor<1x8x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x?x8xf32>
}
