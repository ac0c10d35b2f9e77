// The int8 GEMM assembles for sm_90a: BERT's ffn1 in int8 (the rescale, bias, ReLU and
// the f16 result fused) on the 128x128 tile with 128-byte k-tiles, 4 wgmma
// m64n128k32.s32.s8.s8 a k-tile; no spills, and the wgmma are not serialised (no
// C7519/C7517 "warpgroup.arrive/wait is injected").
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// PTX-LABEL: .visible .entry gemm_i8_f16_bt_128x128x128_s4_ws2_i8_cast_mul_add_relu_cast_{{[0-9a-f]+}}(
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8
// CHECK: Compiling entry function 'gemm_i8_f16_bt_128x128x128_s4_ws2_i8_cast_mul_add_relu_cast_{{[0-9a-f]+}}' for 'sm_90a'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: C7519
// CHECK-NOT: C7517
memref.global "private" constant @w : memref<768x3072xi8> = dense<3>
memref.global "private" constant @scale : memref<3072xf32> = dense<0.002>
memref.global "private" constant @bias : memref<3072xf32> = dense<0.5>
kernel.func @ffn1(%a: memref<1024x768xi8>, %b: memref<768x3072xi8>, %s: memref<3072xf32>, %bias: memref<3072xf32>, %c: memref<1024x3072xf16>) {
  matmul ins(%a, %b, %s, %bias : memref<1024x768xi8>, memref<768x3072xi8>, memref<3072xf32>, memref<3072xf32>) outs(%c : memref<1024x3072xf16>) {
  ^bb0(%x: tensor<1024x768xi8>, %y: tensor<768x3072xi8>, %sc: tensor<3072xf32>, %z: tensor<3072xf32>):
    %p = graph.matmul %x, %y : (tensor<1024x768xi8>, tensor<768x3072xi8>) -> tensor<1024x3072xi32>
    %f = graph.cast %p {to = f32} : (tensor<1024x3072xi32>) -> tensor<1024x3072xf32>
    %m = graph.mul %f, %sc : (tensor<1024x3072xf32>, tensor<3072xf32>) -> tensor<1024x3072xf32>
    %t = graph.add %m, %z : (tensor<1024x3072xf32>, tensor<3072xf32>) -> tensor<1024x3072xf32>
    %r = graph.relu %t : tensor<1024x3072xf32>
    %h = graph.cast %r {to = f16} : (tensor<1024x3072xf32>) -> tensor<1024x3072xf16>
    kernel.yield %h : tensor<1024x3072xf16>
  }
  return
}
func.func @main(%a: memref<1024x768xi8>, %c: memref<1024x3072xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<768x3072xi8>
  %s = memref.get_global @scale : memref<3072xf32>
  %bias = memref.get_global @bias : memref<3072xf32>
  kernel.launch @ffn1(%a, %w, %s, %bias, %c) : (memref<1024x768xi8>, memref<768x3072xi8>, memref<3072xf32>, memref<3072xf32>, memref<1024x3072xf16>) -> ()
  return
}


