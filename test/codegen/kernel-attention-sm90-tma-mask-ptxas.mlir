// The TMA form of the flash-attention kernel, D 80 (two swizzle atoms, the second partly
// used) with a padding mask [B, 1, 1, Skv] read in column pairs: no spills in the
// consumers' 232 registers with 64-wide KV tiles (128-wide ones, 36 bytes of spills with a
// mask, are not among its configurations), no wgmma serialisation (C75xx).
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// CHECK: Compiling entry function 'flash_attention_f16_d80_128x64x2w12_wgmma_tma_maskf16_rows1' for 'sm_90a'
// CHECK-NOT: C75
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
kernel.func @Padded(%q: memref<2x3x128x80xf16>, %k: memref<2x3x128x80xf16>, %v: memref<2x3x128x80xf16>, %m: memref<2x1x1x128xf16>, %o: memref<2x3x128x80xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 64, stages = 2, warps = 12, wgmma = true, tma = true>} {
  attention ins(%q, %k, %v, %m : memref<2x3x128x80xf16>, memref<2x3x128x80xf16>, memref<2x3x128x80xf16>, memref<2x1x1x128xf16>) outs(%o : memref<2x3x128x80xf16>) {
  ^bb0(%a: tensor<2x3x128x80xf16>, %b: tensor<2x3x128x80xf16>, %c: tensor<2x3x128x80xf16>, %d: tensor<2x1x1x128xf16>):
    %r = graph.attention %a, %b, %c, %d {scale = 0.111803 : f32} : (tensor<2x3x128x80xf16>, tensor<2x3x128x80xf16>, tensor<2x3x128x80xf16>, tensor<2x1x1x128xf16>) -> tensor<2x3x128x80xf16>
    kernel.yield %r : tensor<2x3x128x80xf16>
  }
  return
}
func.func @main(%q2: memref<2x3x128x80xf16>, %k2: memref<2x3x128x80xf16>, %v2: memref<2x3x128x80xf16>, %m2: memref<2x1x1x128xf16>, %o2: memref<2x3x128x80xf16>) attributes {kernel.num_inputs = 4 : i64} {
  kernel.launch @Padded(%q2, %k2, %v2, %m2, %o2) : (memref<2x3x128x80xf16>, memref<2x3x128x80xf16>, memref<2x3x128x80xf16>, memref<2x1x1x128xf16>, memref<2x3x128x80xf16>) -> ()
  return
}
