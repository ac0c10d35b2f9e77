// An int8 implicit-GEMM convolution with B resident: ResNet-50's layer1 3x3 (C = 64, 64-byte
// k-tiles, one per tap) at batch 8, 64 output channels, so every tile is in one column and
// the producer loads the weight's 9 k-tiles (36 KiB) once; 16 stages of A. It assembles for
// sm_90a without spills or serialised wgmma.
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s --check-prefix=IR
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// IR: gpu.launch_func {{ *}}@kiln_sm90_conv_i8_8x56x56x64_k3x3s1p1x1_o64_128x64x64_s16_ws2_p_i8_rb9_{{.*}} blocks in (%c132,
// IR: nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%{{.*}}], %c36864
// IR: nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%{{.*}}], %c8192
// IR: nvgpu.tma.async.load %arg0
// IR-NOT: nvgpu.tma.async.load
// IR: nvgpu.mbarrier.try_wait.parity %{{.*}}[%{{.*}}], %false
// CHECK: Compiling entry function 'conv_i8_8x56x56x64_k3x3s1p1x1_o64_128x64x64_s16_ws2_p_i8_rb9_{{.*}}' for 'sm_90a'
// CHECK-NOT: C75{{[0-9]+}}
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
memref.global "private" constant @w : memref<64x3x3x64xi8> = dense<3>
memref.global "private" constant @scale : memref<64xf32> = dense<0.001>
memref.global "private" constant @bias : memref<64xf32> = dense<0.5>
kernel.func @Conv_0(%x: memref<8x56x56x64xi8>, %w: memref<64x3x3x64xi8>, %s: memref<64xf32>, %b: memref<64xf32>, %y: memref<8x56x56x64xi8>) attributes {kernel.config = #kernel.sm90_conv<tile_m = 128, tile_n = 64, tile_k = 64, stages = 16, consumers = 2, persistent = true, int8 = true, resident_b_k_tiles = 9>} {
  conv ins(%x, %w, %s, %b : memref<8x56x56x64xi8>, memref<64x3x3x64xi8>, memref<64xf32>, memref<64xf32>) outs(%y : memref<8x56x56x64xi8>) {
  ^bb0(%a: tensor<8x56x56x64xi8>, %k: tensor<64x3x3x64xi8>, %sc: tensor<64xf32>, %bi: tensor<64xf32>):
    %step = graph.constant dense<0.05> : tensor<f32>
    %lo = graph.constant dense<-128.0> : tensor<f32>
    %hi = graph.constant dense<127.0> : tensor<f32>
    %acc = graph.conv %a, %k {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<8x56x56x64xi8>, tensor<64x3x3x64xi8>) -> tensor<8x56x56x64xi32>
    %f = graph.cast %acc {to = f32} : (tensor<8x56x56x64xi32>) -> tensor<8x56x56x64xf32>
    %m = graph.mul %f, %sc : (tensor<8x56x56x64xf32>, tensor<64xf32>) -> tensor<8x56x56x64xf32>
    %p = graph.add %m, %bi : (tensor<8x56x56x64xf32>, tensor<64xf32>) -> tensor<8x56x56x64xf32>
    %r = graph.relu %p : tensor<8x56x56x64xf32>
    %d = graph.div %r, %step : (tensor<8x56x56x64xf32>, tensor<f32>) -> tensor<8x56x56x64xf32>
    %n = graph.round %d : tensor<8x56x56x64xf32>
    %c = graph.clip %n min %lo max %hi : (tensor<8x56x56x64xf32>, tensor<f32>, tensor<f32>) -> tensor<8x56x56x64xf32>
    %q = graph.cast %c {to = i8} : (tensor<8x56x56x64xf32>) -> tensor<8x56x56x64xi8>
    kernel.yield %q : tensor<8x56x56x64xi8>
  }
  return
}
func.func @main(%x: memref<8x56x56x64xi8>, %y: memref<8x56x56x64xi8>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<64x3x3x64xi8>
  %s = memref.get_global @scale : memref<64xf32>
  %b = memref.get_global @bias : memref<64xf32>
  kernel.launch @Conv_0(%x, %w, %s, %b, %y) : (memref<8x56x56x64xi8>, memref<64x3x3x64xi8>, memref<64xf32>, memref<64xf32>, memref<8x56x56x64xi8>) -> ()
  return
}
