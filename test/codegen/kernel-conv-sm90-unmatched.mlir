// sm90_conv leaves to the generic lowering what its template cannot compute: a weight
// computed at run time, channels-first convolutions, C no multiple of 8 with KH*KW*C over
// 512 (too big an explicit im2col), int8 ones without an epilogue. An illegal kernel.config
// is an error.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a %s -split-input-file -verify-diagnostics | FileCheck %s

// A weight computed at run time (a function argument) keeps the generic lowering.
// CHECK-LABEL: kernel.func @RuntimeWeight
// CHECK: kernel.launch @RuntimeWeight
kernel.func @RuntimeWeight(%x: memref<1x8x8x64xf16>, %w: memref<64x1x1x64xf16>, %y: memref<1x8x8x64xf16>) {
  conv ins(%x, %w : memref<1x8x8x64xf16>, memref<64x1x1x64xf16>) outs(%y : memref<1x8x8x64xf16>) {
  ^bb0(%a: tensor<1x8x8x64xf16>, %b: tensor<64x1x1x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x64xf16>, tensor<64x1x1x64xf16>) -> tensor<1x8x8x64xf16>
    kernel.yield %r : tensor<1x8x8x64xf16>
  }
  return
}
func.func @main(%x: memref<1x8x8x64xf16>, %w: memref<64x1x1x64xf16>, %y: memref<1x8x8x64xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @RuntimeWeight(%x, %w, %y) : (memref<1x8x8x64xf16>, memref<64x1x1x64xf16>, memref<1x8x8x64xf16>) -> ()
  return
}

// -----

// Channels first, and C = 5 with an 11x11 filter (KH*KW*C = 605): generic.
// CHECK-LABEL: kernel.func @ChannelsFirst
// CHECK-LABEL: kernel.func @FewChannels
// CHECK-NOT: gpu.module
memref.global "private" constant @w1 : memref<64x64x1x1xf16> = dense<1.0>
memref.global "private" constant @w2 : memref<64x11x11x5xf16> = dense<1.0>
kernel.func @ChannelsFirst(%x: memref<1x64x8x8xf16>, %w: memref<64x64x1x1xf16>, %y: memref<1x64x8x8xf16>) {
  conv ins(%x, %w : memref<1x64x8x8xf16>, memref<64x64x1x1xf16>) outs(%y : memref<1x64x8x8xf16>) {
  ^bb0(%a: tensor<1x64x8x8xf16>, %b: tensor<64x64x1x1xf16>):
    %r = graph.conv %a, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x64x8x8xf16>, tensor<64x64x1x1xf16>) -> tensor<1x64x8x8xf16>
    kernel.yield %r : tensor<1x64x8x8xf16>
  }
  return
}
kernel.func @FewChannels(%x: memref<1x16x16x5xf16>, %w: memref<64x11x11x5xf16>, %y: memref<1x6x6x64xf16>) {
  conv ins(%x, %w : memref<1x16x16x5xf16>, memref<64x11x11x5xf16>) outs(%y : memref<1x6x6x64xf16>) {
  ^bb0(%a: tensor<1x16x16x5xf16>, %b: tensor<64x11x11x5xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x16x16x5xf16>, tensor<64x11x11x5xf16>) -> tensor<1x6x6x64xf16>
    kernel.yield %r : tensor<1x6x6x64xf16>
  }
  return
}
func.func @main(%x: memref<1x64x8x8xf16>, %y: memref<1x64x8x8xf16>, %x2: memref<1x16x16x5xf16>, %y2: memref<1x6x6x64xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %w = memref.get_global @w1 : memref<64x64x1x1xf16>
  %w2 = memref.get_global @w2 : memref<64x11x11x5xf16>
  kernel.launch @ChannelsFirst(%x, %w, %y) : (memref<1x64x8x8xf16>, memref<64x64x1x1xf16>, memref<1x64x8x8xf16>) -> ()
  kernel.launch @FewChannels(%x2, %w2, %y2) : (memref<1x16x16x5xf16>, memref<64x11x11x5xf16>, memref<1x6x6x64xf16>) -> ()
  return
}

// -----

// expected-error @+2 {{is not a configuration of this convolution}}
memref.global "private" constant @w : memref<128x1x1x64xf16> = dense<1.0>
kernel.func @BadConfig(%x: memref<1x8x8x64xf16>, %w: memref<128x1x1x64xf16>, %y: memref<1x8x8x128xf16>) attributes {kernel.config = #kernel.sm90_conv<tile_m = 128, tile_n = 512, tile_k = 64, stages = 4, consumers = 2>} {
  conv ins(%x, %w : memref<1x8x8x64xf16>, memref<128x1x1x64xf16>) outs(%y : memref<1x8x8x128xf16>) {
  ^bb0(%a: tensor<1x8x8x64xf16>, %b: tensor<128x1x1x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x64xf16>, tensor<128x1x1x64xf16>) -> tensor<1x8x8x128xf16>
    kernel.yield %r : tensor<1x8x8x128xf16>
  }
  return
}
func.func @main(%x: memref<1x8x8x64xf16>, %y: memref<1x8x8x128xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<128x1x1x64xf16>
  kernel.launch @BadConfig(%x, %w, %y) : (memref<1x8x8x64xf16>, memref<128x1x1x64xf16>, memref<1x8x8x128xf16>) -> ()
  return
}

// -----

// An int8 convolution without an epilogue (its i32 sums the output) keeps the generic
// lowering: the template's int8 sums leave only through an epilogue.
// CHECK-LABEL: kernel.func @Int8NoEpilogue
// CHECK: kernel.launch @Int8NoEpilogue
memref.global "private" constant @w2 : memref<64x1x1x64xi8> = dense<1>
kernel.func @Int8NoEpilogue(%x: memref<1x8x8x64xi8>, %w: memref<64x1x1x64xi8>, %y: memref<1x8x8x64xi32>) {
  conv ins(%x, %w : memref<1x8x8x64xi8>, memref<64x1x1x64xi8>) outs(%y : memref<1x8x8x64xi32>) {
  ^bb0(%a: tensor<1x8x8x64xi8>, %k: tensor<64x1x1x64xi8>):
    %acc = graph.conv %a, %k {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x64xi8>, tensor<64x1x1x64xi8>) -> tensor<1x8x8x64xi32>
    kernel.yield %acc : tensor<1x8x8x64xi32>
  }
  return
}
func.func @int8_no_epilogue(%x: memref<1x8x8x64xi8>, %y: memref<1x8x8x64xi32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w2 : memref<64x1x1x64xi8>
  kernel.launch @Int8NoEpilogue(%x, %w, %y) : (memref<1x8x8x64xi8>, memref<64x1x1x64xi8>, memref<1x8x8x64xi32>) -> ()
  return
}
