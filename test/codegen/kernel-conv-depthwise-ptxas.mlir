// The channels-last depthwise kernel assembles for sm_90a and sm_80 without spills:
// MobileNetV2's 144-channel 3x3 layer (fp16 NHWC, bias + ReLU6), batch 32.
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=depthwise" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=depthwise" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_80" %s \
// RUN:   | kiln-translate --emit-ptx -o %t80.ptx
// RUN: %ptxas -arch=sm_80 -v %t80.ptx -o %t80.cubin 2>&1 | FileCheck %s
// CHECK: Compiling entry function 'depthwise_nhwc_f16_f16_32x144x56x56x1_k3x3s1x1d1x1p1x1_o56x56_p4_t256_bias_clip_{{[0-9a-f]+}}'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
memref.global "private" constant @w : memref<144x3x3x1xf16> = dense<1.0>
memref.global "private" constant @b : memref<144xf16> = dense<0.5>
kernel.func @Nhwc(%x: memref<32x56x56x144xf16>, %w: memref<144x3x3x1xf16>, %bias: memref<144xf16>, %y: memref<32x56x56x144xf16>) {
  conv ins(%x, %w, %bias : memref<32x56x56x144xf16>, memref<144x3x3x1xf16>, memref<144xf16>) outs(%y : memref<32x56x56x144xf16>) {
  ^bb0(%a: tensor<32x56x56x144xf16>, %b: tensor<144x3x3x1xf16>, %c: tensor<144xf16>):
    %lo = graph.constant dense<0.0> : tensor<f16>
    %hi = graph.constant dense<6.0> : tensor<f16>
    %r = graph.conv %a, %b, %c {channels_last, dilations = array<i64: 1, 1>, group = 144 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<32x56x56x144xf16>, tensor<144x3x3x1xf16>, tensor<144xf16>) -> tensor<32x56x56x144xf16>
    %s = graph.clip %r min %lo max %hi : (tensor<32x56x56x144xf16>, tensor<f16>, tensor<f16>) -> tensor<32x56x56x144xf16>
    kernel.yield %s : tensor<32x56x56x144xf16>
  }
  return
}
func.func @main(%x: memref<32x56x56x144xf16>, %y: memref<32x56x56x144xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<144x3x3x1xf16>
  %b = memref.get_global @b : memref<144xf16>
  kernel.launch @Nhwc(%x, %w, %b, %y) : (memref<32x56x56x144xf16>, memref<144x3x3x1xf16>, memref<144xf16>, memref<32x56x56x144xf16>) -> ()
  return
}
