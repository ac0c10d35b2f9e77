// The wgmma flash-attention kernels that kernel-autotune measures assemble for sm_90a
// without spills at the CTAs an SM they ask for (nvvm.minctasm): 64x128 w4 (3 CTAs).
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// CHECK: Compiling entry function 'flash_attention_f16_d64_64x128x2w4_wgmma' for 'sm_90a'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: C7515
kernel.func @Attention_0(%q: memref<8x12x512x64xf16>, %k: memref<8x12x512x64xf16>, %v: memref<8x12x512x64xf16>, %o: memref<8x12x512x64xf16>) {
  attention ins(%q, %k, %v : memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x12x512x64xf16>) outs(%o : memref<8x12x512x64xf16>) {
  ^bb0(%a: tensor<8x12x512x64xf16>, %b: tensor<8x12x512x64xf16>, %c: tensor<8x12x512x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<8x12x512x64xf16>, tensor<8x12x512x64xf16>, tensor<8x12x512x64xf16>) -> tensor<8x12x512x64xf16>
    kernel.yield %r : tensor<8x12x512x64xf16>
  }
  return
}
func.func @main(%q: memref<8x12x512x64xf16>, %k: memref<8x12x512x64xf16>, %v: memref<8x12x512x64xf16>, %o: memref<8x12x512x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Attention_0(%q, %k, %v, %o) : (memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x12x512x64xf16>, memref<8x12x512x64xf16>) -> ()
  return
}
