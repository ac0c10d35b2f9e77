// The tf32 GEMM assembles for sm_90a: BERT's ffn1 in fp32 (its bias add and ReLU fused) on the
// 128x256 tile, whose consumers hold 128 f32 accumulators a thread, with 4 wgmma
// m64n256k8.f32.tf32.tf32 a k-tile; no spills, and the wgmma are not serialised (no
// C7519/C7517 "warpgroup.arrive/wait is injected").
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm allow-tf32=true gemm-config=128x256x32_s4_ws2_tf32" --kernel-instantiate-templates=target=sm_90a \
// RUN:   --kiln-lower-gpu-device %s | kiln-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// PTX-LABEL: .visible .entry gemm_f32_f32_bt_128x256x32_s4_ws2_tf32_add_relu_{{[0-9a-f]+}}(
// PTX: wgmma.fence.sync.aligned;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32
// PTX: wgmma.commit_group.sync.aligned;
// CHECK: Compiling entry function 'gemm_f32_f32_bt_128x256x32_s4_ws2_tf32_add_relu_{{[0-9a-f]+}}' for 'sm_90a'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: C7519
// CHECK-NOT: C7517
memref.global "private" constant @w : memref<768x3072xf32> = dense<0.5>
memref.global "private" constant @bias : memref<3072xf32> = dense<0.5>
kernel.func @ffn1(%a: memref<1024x768xf32>, %b: memref<768x3072xf32>, %bias: memref<3072xf32>, %c: memref<1024x3072xf32>) {
  matmul ins(%a, %b, %bias : memref<1024x768xf32>, memref<768x3072xf32>, memref<3072xf32>) outs(%c : memref<1024x3072xf32>) {
  ^bb0(%x: tensor<1024x768xf32>, %y: tensor<768x3072xf32>, %z: tensor<3072xf32>):
    %p = graph.matmul %x, %y : (tensor<1024x768xf32>, tensor<768x3072xf32>) -> tensor<1024x3072xf32>
    %s = graph.add %p, %z : (tensor<1024x3072xf32>, tensor<3072xf32>) -> tensor<1024x3072xf32>
    %r = graph.relu %s : tensor<1024x3072xf32>
    kernel.yield %r : tensor<1024x3072xf32>
  }
  return
}
func.func @main(%a: memref<1024x768xf32>, %c: memref<1024x3072xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<768x3072xf32>
  %bias = memref.get_global @bias : memref<3072xf32>
  kernel.launch @ffn1(%a, %w, %bias, %c) : (memref<1024x768xf32>, memref<768x3072xf32>, memref<3072xf32>, memref<1024x3072xf32>) -> ()
  return
}
