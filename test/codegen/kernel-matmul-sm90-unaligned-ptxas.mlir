// The context product over ViT's 197 tokens (P 197 x 197 by V 197 x 64, a batch of
// matrices): A's rows of 197 elements loaded by the producer's threads through cp.async raw
// buffers (every thread keeping the launch's registers), assembled by ptxas without spills
// or serialised wgmma (kernel-matmul-sm90-unaligned.mlir has the forms).
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// CHECK: Compiling entry function 'gemm_f16_f16_{{.*}}_b2x3r197_{{.*}}_ta' for 'sm_90a'
// CHECK-NOT: C75
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
kernel.func @context(%a: memref<2x3x197x197xf16>, %b: memref<2x3x197x64xf16>, %c: memref<2x3x197x64xf16>) {
  matmul ins(%a, %b : memref<2x3x197x197xf16>, memref<2x3x197x64xf16>) outs(%c : memref<2x3x197x64xf16>) {
  ^bb0(%x: tensor<2x3x197x197xf16>, %y: tensor<2x3x197x64xf16>):
    %r = graph.matmul %x, %y : (tensor<2x3x197x197xf16>, tensor<2x3x197x64xf16>) -> tensor<2x3x197x64xf16>
    kernel.yield %r : tensor<2x3x197x64xf16>
  }
  return
}
func.func @main(%a: memref<2x3x197x197xf16>, %b: memref<2x3x197x64xf16>, %c: memref<2x3x197x64xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @context(%a, %b, %c) : (memref<2x3x197x197xf16>, memref<2x3x197x64xf16>, memref<2x3x197x64xf16>) -> ()
  return
}
