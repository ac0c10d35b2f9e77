// The int8 convolution template assembles for sm_90a: ResNet-50's 3x3 256-channel layer at
// batch 8 on the 128x256 tile, whose consumers hold 128 i32 accumulators a thread, 4 wgmma
// m64n256k32.s32.s8.s8 a k-tile; its epilogue rescales, adds the bias, applies ReLU and
// requantizes to i8. No spills, and the wgmma are not serialised (no C7519/C7517
// "warpgroup.arrive/wait is injected").
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv gemm-config=128x256x128_s4_ws2_i8" --kernel-instantiate-templates=target=sm_90a \
// RUN:   --kiln-lower-gpu-device %s | kiln-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// PTX-LABEL: .visible .entry conv_i8_8x14x14x256_k3x3s1p1x1_o256_128x256x128_s4_ws2_i8_cast_mul_add_relu_div_round_clip_cast_{{[0-9a-f]+}}(
// PTX: wgmma.fence.sync.aligned;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8
// PTX: wgmma.commit_group.sync.aligned;
// CHECK: Compiling entry function 'conv_i8_8x14x14x256_k3x3s1p1x1_o256_128x256x128_s4_ws2_i8_cast_mul_add_relu_div_round_clip_cast_{{[0-9a-f]+}}' for 'sm_90a'
// CHECK-NOT: C75{{[0-9]+}}
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
memref.global "private" constant @w : memref<256x3x3x256xi8> = dense<3>
memref.global "private" constant @scale : memref<256xf32> = dense<0.001>
memref.global "private" constant @bias : memref<256xf32> = dense<0.5>
kernel.func @Conv_0(%x: memref<8x14x14x256xi8>, %w: memref<256x3x3x256xi8>, %s: memref<256xf32>, %b: memref<256xf32>, %y: memref<8x14x14x256xi8>) {
  conv ins(%x, %w, %s, %b : memref<8x14x14x256xi8>, memref<256x3x3x256xi8>, memref<256xf32>, memref<256xf32>) outs(%y : memref<8x14x14x256xi8>) {
  ^bb0(%a: tensor<8x14x14x256xi8>, %k: tensor<256x3x3x256xi8>, %sc: tensor<256xf32>, %bi: tensor<256xf32>):
    %step = graph.constant dense<0.05> : tensor<f32>
    %lo = graph.constant dense<-128.0> : tensor<f32>
    %hi = graph.constant dense<127.0> : tensor<f32>
    %acc = graph.conv %a, %k {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<8x14x14x256xi8>, tensor<256x3x3x256xi8>) -> tensor<8x14x14x256xi32>
    %f = graph.cast %acc {to = f32} : (tensor<8x14x14x256xi32>) -> tensor<8x14x14x256xf32>
    %m = graph.mul %f, %sc : (tensor<8x14x14x256xf32>, tensor<256xf32>) -> tensor<8x14x14x256xf32>
    %p = graph.add %m, %bi : (tensor<8x14x14x256xf32>, tensor<256xf32>) -> tensor<8x14x14x256xf32>
    %r = graph.relu %p : tensor<8x14x14x256xf32>
    %d = graph.div %r, %step : (tensor<8x14x14x256xf32>, tensor<f32>) -> tensor<8x14x14x256xf32>
    %n = graph.round %d : tensor<8x14x14x256xf32>
    %c = graph.clip %n min %lo max %hi : (tensor<8x14x14x256xf32>, tensor<f32>, tensor<f32>) -> tensor<8x14x14x256xf32>
    %q = graph.cast %c {to = i8} : (tensor<8x14x14x256xf32>) -> tensor<8x14x14x256xi8>
    kernel.yield %q : tensor<8x14x14x256xi8>
  }
  return
}
func.func @main(%x: memref<8x14x14x256xi8>, %y: memref<8x14x14x256xi8>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<256x3x3x256xi8>
  %s = memref.get_global @scale : memref<256xf32>
  %b = memref.get_global @bias : memref<256xf32>
  kernel.launch @Conv_0(%x, %w, %s, %b, %y) : (memref<8x14x14x256xi8>, memref<256x3x3x256xi8>, memref<256xf32>, memref<256xf32>, memref<8x14x14x256xi8>) -> ()
  return
}
