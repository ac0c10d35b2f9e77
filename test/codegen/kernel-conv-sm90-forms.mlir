// sm90_conv on the convolution forms beyond ResNet's: per-axis strides and dilations
// (the element strides and tap offsets of the 4-D boxes), groups (5-D boxes of one
// group's channels, the group from the tile's first column) and 3-D convolutions (5-D
// boxes of the NDHWC input). A configuration whose tiles would straddle two groups is
// refused.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a %s -split-input-file -verify-diagnostics | FileCheck %s

// Strides 1x2, dilations 2x1: element strides {1, 1, 2, 1} (N, H, W, C), tap (r, s) at
// input row 2r and column s past tap (0, 0)'s.
// CHECK-LABEL: func.func @main
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c2, %c7, %c16, %c64] {kiln.tma_element_strides = array<i64: 1, 1, 2, 1>} : memref<*xf16> -> <tensor = memref<2x7x8x64xf16, 3>
// CHECK: gpu.func @conv_f16_2x16x16x64_k3x3s1x2d2x1p2x1_o64_
memref.global "private" constant @w : memref<64x3x3x64xf16> = dense<1.0>
kernel.func @Dilated(%x: memref<2x16x16x64xf16>, %w: memref<64x3x3x64xf16>, %y: memref<2x14x8x64xf16>) {
  conv ins(%x, %w : memref<2x16x16x64xf16>, memref<64x3x3x64xf16>) outs(%y : memref<2x14x8x64xf16>) {
  ^bb0(%a: tensor<2x16x16x64xf16>, %b: tensor<64x3x3x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 2, 1>, group = 1 : i64, pads = array<i64: 2, 1, 0, 0>, strides = array<i64: 1, 2>} : (tensor<2x16x16x64xf16>, tensor<64x3x3x64xf16>) -> tensor<2x14x8x64xf16>
    kernel.yield %r : tensor<2x14x8x64xf16>
  }
  return
}
func.func @main(%x: memref<2x16x16x64xf16>, %y: memref<2x14x8x64xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<64x3x3x64xf16>
  kernel.launch @Dilated(%x, %w, %y) : (memref<2x16x16x64xf16>, memref<64x3x3x64xf16>, memref<2x14x8x64xf16>) -> ()
  return
}

// -----

// 2 groups of 64 filters over 32 channels each: the input as [N, H, W, 2, 32], a box of
// one group's 64 channels (32 past the group zero-filled); a tile's group is its first
// column's over 64.
// CHECK-LABEL: func.func @main
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, 8, 8, 2, 32], strides: [4096, 512, 64, 32, 1]
// CHECK: nvgpu.tma.create.descriptor {{.*}} {kiln.tma_element_strides = array<i64: 1, 1, 1, 1, 1>} : memref<*xf16> -> <tensor = memref<2x8x8x1x64xf16, 3>
// CHECK: gpu.func @conv_f16_2x8x8x32_k3x3s1p1x1g2x1_o128_
// CHECK: nvgpu.tma.async.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
memref.global "private" constant @wg : memref<128x3x3x32xf16> = dense<1.0>
kernel.func @Grouped(%x: memref<2x8x8x64xf16>, %w: memref<128x3x3x32xf16>, %y: memref<2x8x8x128xf16>) {
  conv ins(%x, %w : memref<2x8x8x64xf16>, memref<128x3x3x32xf16>) outs(%y : memref<2x8x8x128xf16>) {
  ^bb0(%a: tensor<2x8x8x64xf16>, %b: tensor<128x3x3x32xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x8x8x64xf16>, tensor<128x3x3x32xf16>) -> tensor<2x8x8x128xf16>
    kernel.yield %r : tensor<2x8x8x128xf16>
  }
  return
}
func.func @main(%x: memref<2x8x8x64xf16>, %y: memref<2x8x8x128xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @wg : memref<128x3x3x32xf16>
  kernel.launch @Grouped(%x, %w, %y) : (memref<2x8x8x64xf16>, memref<128x3x3x32xf16>, memref<2x8x8x128xf16>) -> ()
  return
}

// -----

// 3-D, 3x3x3, depth stride 2: 5-D boxes {N, D, H, W, C} with element strides
// {1, 2, 1, 1, 1}; k-tiles run over the taps (rd, r, s).
// CHECK-LABEL: func.func @main
// CHECK: nvgpu.tma.create.descriptor {{.*}} {kiln.tma_element_strides = array<i64: 1, 2, 1, 1, 1>} : memref<*xf16> -> <tensor = memref<1x4x3x6x64xf16, 3>
// CHECK: gpu.func @conv_f16_1x8x6x6x64_k3x3x3s2x1x1p1x1x1_o64_
// CHECK: nvgpu.tma.async.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
memref.global "private" constant @w3 : memref<64x3x3x3x64xf16> = dense<1.0>
kernel.func @Volume(%x: memref<1x8x6x6x64xf16>, %w: memref<64x3x3x3x64xf16>, %y: memref<1x4x6x6x64xf16>) {
  conv ins(%x, %w : memref<1x8x6x6x64xf16>, memref<64x3x3x3x64xf16>) outs(%y : memref<1x4x6x6x64xf16>) {
  ^bb0(%a: tensor<1x8x6x6x64xf16>, %b: tensor<64x3x3x3x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1, 1, 1>, strides = array<i64: 2, 1, 1>} : (tensor<1x8x6x6x64xf16>, tensor<64x3x3x3x64xf16>) -> tensor<1x4x6x6x64xf16>
    kernel.yield %r : tensor<1x4x6x6x64xf16>
  }
  return
}
func.func @main(%x: memref<1x8x6x6x64xf16>, %y: memref<1x4x6x6x64xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w3 : memref<64x3x3x3x64xf16>
  kernel.launch @Volume(%x, %w, %y) : (memref<1x8x6x6x64xf16>, memref<64x3x3x3x64xf16>, memref<1x4x6x6x64xf16>) -> ()
  return
}

// -----

// 128-wide tiles would straddle the two groups of 64 filters: not a configuration.
// expected-error @+2 {{is not a configuration of this convolution}}
memref.global "private" constant @wb : memref<128x3x3x32xf16> = dense<1.0>
kernel.func @GroupStraddled(%x: memref<2x8x8x64xf16>, %w: memref<128x3x3x32xf16>, %y: memref<2x8x8x128xf16>) attributes {kernel.config = #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>} {
  conv ins(%x, %w : memref<2x8x8x64xf16>, memref<128x3x3x32xf16>) outs(%y : memref<2x8x8x128xf16>) {
  ^bb0(%a: tensor<2x8x8x64xf16>, %b: tensor<128x3x3x32xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x8x8x64xf16>, tensor<128x3x3x32xf16>) -> tensor<2x8x8x128xf16>
    kernel.yield %r : tensor<2x8x8x128xf16>
  }
  return
}
func.func @main(%x: memref<2x8x8x64xf16>, %y: memref<2x8x8x128xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @wb : memref<128x3x3x32xf16>
  kernel.launch @GroupStraddled(%x, %w, %y) : (memref<2x8x8x64xf16>, memref<128x3x3x32xf16>, memref<2x8x8x128xf16>) -> ()
  return
}
