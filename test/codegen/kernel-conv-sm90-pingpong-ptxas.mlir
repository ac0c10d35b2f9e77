// Ping-pong consumers on an implicit-GEMM convolution (f16): ResNet-50's layer2 3x3
// convolution at batch 32 with bias and ReLU, each consumer computing whole 128x128 tiles
// of im2col boxes in turns with the other. It assembles for sm_90a without spills or
// serialised wgmma (the 128-row accumulators' wgmma stay asynchronous).
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s --check-prefix=IR
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// IR: gpu.launch_func {{ *}}@kiln_sm90_conv_f16_32x28x28x128_k3x3s1p1x1_o128_128x128x64_s4_ws2_p_pp_{{.*}} blocks in (%c132,
// IR: nvvm.barrier id
// IR: nvgpu.warpgroup.mma {{.*}} <fragmented = vector<128x128xf32>>
// IR: nvvm.barrier.arrive id
// CHECK: Compiling entry function 'conv_f16_32x28x28x128_k3x3s1p1x1_o128_128x128x64_s4_ws2_p_pp_{{.*}}' for 'sm_90a'
// CHECK-NOT: C75{{[0-9]+}}
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
memref.global "private" constant @w : memref<128x3x3x128xf16> = dense<0.01>
memref.global "private" constant @bias : memref<128xf16> = dense<0.5>
kernel.func @Conv_0(%x: memref<32x28x28x128xf16>, %w: memref<128x3x3x128xf16>, %b: memref<128xf16>, %y: memref<32x28x28x128xf16>) attributes {kernel.config = #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true, pingpong = true>} {
  conv ins(%x, %w, %b : memref<32x28x28x128xf16>, memref<128x3x3x128xf16>, memref<128xf16>) outs(%y : memref<32x28x28x128xf16>) {
  ^bb0(%a: tensor<32x28x28x128xf16>, %k: tensor<128x3x3x128xf16>, %bi: tensor<128xf16>):
    %c = graph.conv %a, %k, %bi {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<32x28x28x128xf16>, tensor<128x3x3x128xf16>, tensor<128xf16>) -> tensor<32x28x28x128xf16>
    %r = graph.relu %c : tensor<32x28x28x128xf16>
    kernel.yield %r : tensor<32x28x28x128xf16>
  }
  return
}
func.func @main(%x: memref<32x28x28x128xf16>, %y: memref<32x28x28x128xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<128x3x3x128xf16>
  %b = memref.get_global @bias : memref<128xf16>
  kernel.launch @Conv_0(%x, %w, %b, %y) : (memref<32x28x28x128xf16>, memref<128x3x3x128xf16>, memref<128xf16>, memref<32x28x28x128xf16>) -> ()
  return
}
