// The channels-first depthwise kernel assembles for sm_90a and sm_80 without spills:
// EfficientNet-B0's 240-channel 5x5 layer (fp32 NCHW, bias + SiLU), batch 32.
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=depthwise" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=depthwise" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_80" %s \
// RUN:   | kiln-translate --emit-ptx -o %t80.ptx
// RUN: %ptxas -arch=sm_80 -v %t80.ptx -o %t80.cubin 2>&1 | FileCheck %s
// CHECK: Compiling entry function 'depthwise_nchw_f32_f32_32x240x28x28x1_k5x5s1x1d1x1p2x2_o28x28_p4_28x28x1_bias_silu_{{[0-9a-f]+}}'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
memref.global "private" constant @w5 : memref<240x1x5x5xf32> = dense<1.0>
memref.global "private" constant @b5 : memref<240xf32> = dense<0.5>
kernel.func @Nchw(%x: memref<32x240x28x28xf32>, %w: memref<240x1x5x5xf32>, %bias: memref<240xf32>, %y: memref<32x240x28x28xf32>) {
  conv ins(%x, %w, %bias : memref<32x240x28x28xf32>, memref<240x1x5x5xf32>, memref<240xf32>) outs(%y : memref<32x240x28x28xf32>) {
  ^bb0(%a: tensor<32x240x28x28xf32>, %b: tensor<240x1x5x5xf32>, %c: tensor<240xf32>):
    %r = graph.conv %a, %b, %c {dilations = array<i64: 1, 1>, group = 240 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<32x240x28x28xf32>, tensor<240x1x5x5xf32>, tensor<240xf32>) -> tensor<32x240x28x28xf32>
    %s = graph.silu %r : tensor<32x240x28x28xf32>
    kernel.yield %s : tensor<32x240x28x28xf32>
  }
  return
}
func.func @main(%x5: memref<32x240x28x28xf32>, %y5: memref<32x240x28x28xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w5 = memref.get_global @w5 : memref<240x1x5x5xf32>
  %b5 = memref.get_global @b5 : memref<240xf32>
  kernel.launch @Nchw(%x5, %w5, %b5, %y5) : (memref<32x240x28x28xf32>, memref<240x1x5x5xf32>, memref<240xf32>, memref<32x240x28x28xf32>) -> ()
  return
}
