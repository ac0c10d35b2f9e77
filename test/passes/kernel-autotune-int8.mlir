// kernel-autotune on an int8 convolution (i8 operands, i32 sums, a rescaling epilogue): the
// candidates are the sm90 template's int8 configurations (tile_k = 128, int8 = true: their
// own timing-cache keys) and the cost model picks one.
// RUN: kiln-opt --kernel-autotune %s | FileCheck %s
// CHECK-LABEL: kernel.func @Conv_0
// CHECK-SAME: kernel.config = #kernel.sm90_conv<tile_m = 128, tile_n = {{[0-9]+}}, tile_k = 128, stages = {{[0-9]+}}, consumers = 2, int8 = true>
// CHECK-SAME: source = "cost-model"
memref.global "private" constant @w : memref<256x3x3x256xi8> = dense<3>
memref.global "private" constant @scale : memref<256xf32> = dense<0.001>
kernel.func @Conv_0(%x: memref<64x14x14x256xi8>, %w: memref<256x3x3x256xi8>, %s: memref<256xf32>, %y: memref<64x14x14x256xf16>) {
  conv ins(%x, %w, %s : memref<64x14x14x256xi8>, memref<256x3x3x256xi8>, memref<256xf32>) outs(%y : memref<64x14x14x256xf16>) {
  ^bb0(%a: tensor<64x14x14x256xi8>, %k: tensor<256x3x3x256xi8>, %sc: tensor<256xf32>):
    %acc = graph.conv %a, %k {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<64x14x14x256xi8>, tensor<256x3x3x256xi8>) -> tensor<64x14x14x256xi32>
    %f = graph.cast %acc {to = f32} : (tensor<64x14x14x256xi32>) -> tensor<64x14x14x256xf32>
    %m = graph.mul %f, %sc : (tensor<64x14x14x256xf32>, tensor<256xf32>) -> tensor<64x14x14x256xf32>
    %h = graph.cast %m {to = f16} : (tensor<64x14x14x256xf32>) -> tensor<64x14x14x256xf16>
    kernel.yield %h : tensor<64x14x14x256xf16>
  }
  return
}
func.func @main(%x: memref<64x14x14x256xi8>, %y: memref<64x14x14x256xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<256x3x3x256xi8>
  %s = memref.get_global @scale : memref<256xf32>
  kernel.launch @Conv_0(%x, %w, %s, %y) : (memref<64x14x14x256xi8>, memref<256x3x3x256xi8>, memref<256xf32>, memref<64x14x14x256xf16>) -> ()
  return
}
