// depthwise leaves alone what is not a depthwise convolution it can compute:
// one group (an ordinary convolution), groups of several channels, a weight computed at
// run time, a 1-D convolution, a kernel asking for the generic lowering. A configuration
// that is not legal for the kernel is an error naming the pass.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=depthwise" --kernel-instantiate-templates=target=sm_90a %s -split-input-file -verify-diagnostics | FileCheck %s

// One group over 8 channels, and groups of 2 channels (group 4 of 8): not depthwise.
// (Nor is one input channel, group 1, with any number of outputs: sm90_conv's.)
// CHECK-LABEL: kernel.func @OneGroup
// CHECK-LABEL: kernel.func @TwoChannelGroups
// CHECK-NOT: gpu.module
// CHECK: kernel.launch @OneGroup
// CHECK: kernel.launch @TwoChannelGroups
memref.global "private" constant @w1 : memref<8x8x3x3xf32> = dense<1.0>
memref.global "private" constant @w2 : memref<8x2x3x3xf32> = dense<1.0>
kernel.func @OneGroup(%x: memref<1x8x8x8xf32>, %w: memref<8x8x3x3xf32>, %y: memref<1x8x8x8xf32>) {
  conv ins(%x, %w : memref<1x8x8x8xf32>, memref<8x8x3x3xf32>) outs(%y : memref<1x8x8x8xf32>) {
  ^bb0(%a: tensor<1x8x8x8xf32>, %b: tensor<8x8x3x3xf32>):
    %r = graph.conv %a, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
    kernel.yield %r : tensor<1x8x8x8xf32>
  }
  return
}
kernel.func @TwoChannelGroups(%x: memref<1x8x8x8xf32>, %w: memref<8x2x3x3xf32>, %y: memref<1x8x8x8xf32>) {
  conv ins(%x, %w : memref<1x8x8x8xf32>, memref<8x2x3x3xf32>) outs(%y : memref<1x8x8x8xf32>) {
  ^bb0(%a: tensor<1x8x8x8xf32>, %b: tensor<8x2x3x3xf32>):
    %r = graph.conv %a, %b {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x8x8xf32>
    kernel.yield %r : tensor<1x8x8x8xf32>
  }
  return
}
func.func @main(%x: memref<1x8x8x8xf32>, %y: memref<1x8x8x8xf32>, %z: memref<1x8x8x8xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w1 = memref.get_global @w1 : memref<8x8x3x3xf32>
  %w2 = memref.get_global @w2 : memref<8x2x3x3xf32>
  kernel.launch @OneGroup(%x, %w1, %y) : (memref<1x8x8x8xf32>, memref<8x8x3x3xf32>, memref<1x8x8x8xf32>) -> ()
  kernel.launch @TwoChannelGroups(%x, %w2, %z) : (memref<1x8x8x8xf32>, memref<8x2x3x3xf32>, memref<1x8x8x8xf32>) -> ()
  return
}

// -----

// A weight computed at run time (a function argument) keeps the generic lowering.
// CHECK-LABEL: kernel.func @RuntimeWeight
// CHECK-NOT: gpu.module
// CHECK: kernel.launch @RuntimeWeight
kernel.func @RuntimeWeight(%x: memref<1x8x8x16xf16>, %w: memref<16x3x3x1xf16>, %y: memref<1x8x8x16xf16>) {
  conv ins(%x, %w : memref<1x8x8x16xf16>, memref<16x3x3x1xf16>) outs(%y : memref<1x8x8x16xf16>) {
  ^bb0(%a: tensor<1x8x8x16xf16>, %b: tensor<16x3x3x1xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 16 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x16xf16>, tensor<16x3x3x1xf16>) -> tensor<1x8x8x16xf16>
    kernel.yield %r : tensor<1x8x8x16xf16>
  }
  return
}
func.func @main(%x: memref<1x8x8x16xf16>, %w: memref<16x3x3x1xf16>, %y: memref<1x8x8x16xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @RuntimeWeight(%x, %w, %y) : (memref<1x8x8x16xf16>, memref<16x3x3x1xf16>, memref<1x8x8x16xf16>) -> ()
  return
}

// -----

// A 1-D depthwise convolution, and a kernel that asks for the generic lowering.
// CHECK-LABEL: kernel.func @OneDimensional
// CHECK-LABEL: kernel.func @Generic
// CHECK-NOT: gpu.module
memref.global "private" constant @w1 : memref<8x1x3xf32> = dense<1.0>
memref.global "private" constant @w2 : memref<8x1x3x3xf32> = dense<1.0>
kernel.func @OneDimensional(%x: memref<1x8x16xf32>, %w: memref<8x1x3xf32>, %y: memref<1x8x16xf32>) {
  conv ins(%x, %w : memref<1x8x16xf32>, memref<8x1x3xf32>) outs(%y : memref<1x8x16xf32>) {
  ^bb0(%a: tensor<1x8x16xf32>, %b: tensor<8x1x3xf32>):
    %r = graph.conv %a, %b {dilations = array<i64: 1>, group = 8 : i64, pads = array<i64: 1, 1>, strides = array<i64: 1>} : (tensor<1x8x16xf32>, tensor<8x1x3xf32>) -> tensor<1x8x16xf32>
    kernel.yield %r : tensor<1x8x16xf32>
  }
  return
}
kernel.func @Generic(%x: memref<1x8x8x8xf32>, %w: memref<8x1x3x3xf32>, %y: memref<1x8x8x8xf32>) attributes {kernel.config = #kernel.generic} {
  conv ins(%x, %w : memref<1x8x8x8xf32>, memref<8x1x3x3xf32>) outs(%y : memref<1x8x8x8xf32>) {
  ^bb0(%a: tensor<1x8x8x8xf32>, %b: tensor<8x1x3x3xf32>):
    %r = graph.conv %a, %b {dilations = array<i64: 1, 1>, group = 8 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x8x8xf32>
    kernel.yield %r : tensor<1x8x8x8xf32>
  }
  return
}
func.func @main(%x: memref<1x8x16xf32>, %y: memref<1x8x16xf32>, %x2: memref<1x8x8x8xf32>, %y2: memref<1x8x8x8xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w1 = memref.get_global @w1 : memref<8x1x3xf32>
  %w2 = memref.get_global @w2 : memref<8x1x3x3xf32>
  kernel.launch @OneDimensional(%x, %w1, %y) : (memref<1x8x16xf32>, memref<8x1x3xf32>, memref<1x8x16xf32>) -> ()
  kernel.launch @Generic(%x2, %w2, %y2) : (memref<1x8x8x8xf32>, memref<8x1x3x3xf32>, memref<1x8x8x8xf32>) -> ()
  return
}

// -----

// A tile wider than the rows (channels first), and a channels-first configuration for a
// channels-last kernel: errors.
memref.global "private" constant @w : memref<8x1x3x3xf32> = dense<1.0>
// expected-error @+1 {{kernel-instantiate-templates: #kernel.depthwise<pixels = 4, tile_h = 8, tile_w = 64, planes = 1> is not a configuration of this depthwise convolution (depthwise 1x8x8x8 k3x3 s1 f32 NCHW)}}
kernel.func @TooWide(%x: memref<1x8x8x8xf32>, %w: memref<8x1x3x3xf32>, %y: memref<1x8x8x8xf32>) attributes {kernel.config = #kernel.depthwise<pixels = 4, tile_h = 8, tile_w = 64, planes = 1>} {
  conv ins(%x, %w : memref<1x8x8x8xf32>, memref<8x1x3x3xf32>) outs(%y : memref<1x8x8x8xf32>) {
  ^bb0(%a: tensor<1x8x8x8xf32>, %b: tensor<8x1x3x3xf32>):
    %r = graph.conv %a, %b {dilations = array<i64: 1, 1>, group = 8 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x8x8xf32>
    kernel.yield %r : tensor<1x8x8x8xf32>
  }
  return
}
func.func @main(%x: memref<1x8x8x8xf32>, %y: memref<1x8x8x8xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<8x1x3x3xf32>
  kernel.launch @TooWide(%x, %w, %y) : (memref<1x8x8x8xf32>, memref<8x1x3x3xf32>, memref<1x8x8x8xf32>) -> ()
  return
}

// -----

memref.global "private" constant @w : memref<16x3x3x1xf16> = dense<1.0>
// expected-error @+1 {{is not a configuration of this depthwise convolution (depthwise 1x16x8x8 k3x3 s1 f16 NHWC)}}
kernel.func @WrongLayout(%x: memref<1x8x8x16xf16>, %w: memref<16x3x3x1xf16>, %y: memref<1x8x8x16xf16>) attributes {kernel.config = #kernel.depthwise<pixels = 1, tile_h = 8, tile_w = 8, planes = 1>} {
  conv ins(%x, %w : memref<1x8x8x16xf16>, memref<16x3x3x1xf16>) outs(%y : memref<1x8x8x16xf16>) {
  ^bb0(%a: tensor<1x8x8x16xf16>, %b: tensor<16x3x3x1xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 16 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x16xf16>, tensor<16x3x3x1xf16>) -> tensor<1x8x8x16xf16>
    kernel.yield %r : tensor<1x8x8x16xf16>
  }
  return
}
func.func @main(%x: memref<1x8x8x16xf16>, %y: memref<1x8x8x16xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<16x3x3x1xf16>
  kernel.launch @WrongLayout(%x, %w, %y) : (memref<1x8x8x16xf16>, memref<16x3x3x1xf16>, memref<1x8x8x16xf16>) -> ()
  return
}

// -----

// One input channel (group 1 = C) with 16 outputs: an ordinary convolution.
// CHECK-LABEL: kernel.func @OneChannel
// CHECK-NOT: gpu.module
memref.global "private" constant @w : memref<16x3x3x1xf16> = dense<1.0>
kernel.func @OneChannel(%x: memref<1x8x8x1xf16>, %w: memref<16x3x3x1xf16>, %y: memref<1x8x8x16xf16>) {
  conv ins(%x, %w : memref<1x8x8x1xf16>, memref<16x3x3x1xf16>) outs(%y : memref<1x8x8x16xf16>) {
  ^bb0(%a: tensor<1x8x8x1xf16>, %b: tensor<16x3x3x1xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x1xf16>, tensor<16x3x3x1xf16>) -> tensor<1x8x8x16xf16>
    kernel.yield %r : tensor<1x8x8x16xf16>
  }
  return
}
func.func @main(%x: memref<1x8x8x1xf16>, %y: memref<1x8x8x16xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<16x3x3x1xf16>
  kernel.launch @OneChannel(%x, %w, %y) : (memref<1x8x8x1xf16>, memref<16x3x3x1xf16>, memref<1x8x8x16xf16>) -> ()
  return
}
