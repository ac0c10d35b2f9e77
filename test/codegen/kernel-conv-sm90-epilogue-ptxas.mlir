// A fused implicit-GEMM convolution assembles for sm_90a without spills: a 3x3 conv +
// bias + residual + ReLU at batch 32, 28x28, 128 channels.
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_conv" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// CHECK: Compiling entry function 'conv_f16_32x28x28x128_k3x3s1p1x1_o128_{{.*}}_bias_add_relu_{{[0-9a-f]+}}' for 'sm_90a'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: C7519
// CHECK-NOT: C7517
memref.global "private" constant @w : memref<128x3x3x128xf16> = dense<1.0>
memref.global "private" constant @b : memref<128xf16> = dense<0.5>
kernel.func @Conv_0(%x: memref<32x28x28x128xf16>, %w: memref<128x3x3x128xf16>, %bias: memref<128xf16>, %res: memref<32x28x28x128xf16>, %y: memref<32x28x28x128xf16>) {
  conv ins(%x, %w, %bias, %res : memref<32x28x28x128xf16>, memref<128x3x3x128xf16>, memref<128xf16>, memref<32x28x28x128xf16>) outs(%y : memref<32x28x28x128xf16>) {
  ^bb0(%a: tensor<32x28x28x128xf16>, %b: tensor<128x3x3x128xf16>, %c: tensor<128xf16>, %d: tensor<32x28x28x128xf16>):
    %r = graph.conv %a, %b, %c {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<32x28x28x128xf16>, tensor<128x3x3x128xf16>, tensor<128xf16>) -> tensor<32x28x28x128xf16>
    %s = graph.add %r, %d : (tensor<32x28x28x128xf16>, tensor<32x28x28x128xf16>) -> tensor<32x28x28x128xf16>
    %t = graph.relu %s : tensor<32x28x28x128xf16>
    kernel.yield %t : tensor<32x28x28x128xf16>
  }
  return
}
func.func @main(%x: memref<32x28x28x128xf16>, %res: memref<32x28x28x128xf16>, %y: memref<32x28x28x128xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %w = memref.get_global @w : memref<128x3x3x128xf16>
  %bb = memref.get_global @b : memref<128xf16>
  kernel.launch @Conv_0(%x, %w, %bb, %res, %y) : (memref<32x28x28x128xf16>, memref<128x3x3x128xf16>, memref<128xf16>, memref<32x28x28x128xf16>, memref<32x28x28x128xf16>) -> ()
  return
}
