// The fused-epilogue GEMM assembles for sm_90a without spills: BERT's ffn1 (bias + GELU,
// erf from libdevice) on the 128x256 tile, whose consumers hold 128 f32 accumulators a
// thread. kernel-conv-sm90-epilogue-ptxas.mlir: a fused convolution.
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm gemm-config=128x256x64_s4_ws2" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// CHECK: Compiling entry function 'gemm_f16_f16_128x256x64_s4_ws2_add_gelu_{{[0-9a-f]+}}' for 'sm_90a'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: C7519
// CHECK-NOT: C7517
memref.global "private" constant @bias : memref<3072xf16> = dense<0.5>
kernel.func @ffn1(%a: memref<1024x768xf16>, %b: memref<768x3072xf16>, %bias: memref<3072xf16>, %c: memref<1024x3072xf16>) {
  matmul ins(%a, %b, %bias : memref<1024x768xf16>, memref<768x3072xf16>, memref<3072xf16>) outs(%c : memref<1024x3072xf16>) {
  ^bb0(%x: tensor<1024x768xf16>, %y: tensor<768x3072xf16>, %z: tensor<3072xf16>):
    %p = graph.matmul %x, %y : (tensor<1024x768xf16>, tensor<768x3072xf16>) -> tensor<1024x3072xf16>
    %s = graph.add %p, %z : (tensor<1024x3072xf16>, tensor<3072xf16>) -> tensor<1024x3072xf16>
    %g = graph.gelu %s {approximate = "none"} : tensor<1024x3072xf16>
    kernel.yield %g : tensor<1024x3072xf16>
  }
  return
}
func.func @main(%a: memref<1024x768xf16>, %b: memref<768x3072xf16>, %c: memref<1024x3072xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %bias = memref.get_global @bias : memref<3072xf16>
  kernel.launch @ffn1(%a, %b, %bias, %c) : (memref<1024x768xf16>, memref<768x3072xf16>, memref<3072xf16>, memref<1024x3072xf16>) -> ()
  return
}
