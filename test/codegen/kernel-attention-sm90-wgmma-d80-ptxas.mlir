// The wgmma flash-attention kernel at D = 80 (kernel-attention-sm90-wgmma-d128-ptxas.mlir
// says how wider heads are laid out): the second swizzle atom of a row holds 16 elements
// (the rest is never written or read), S = Q K^T takes 5 k-steps and O = P V is one
// m64n80 wgmma a k-step over both atoms. 128-row KV tiles: 2 CTAs an SM, no spills.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// CHECK-LABEL: gpu.func @flash_attention_f16_d80_64x128x2w4_wgmma
// CHECK-DAG: arith.constant 4611686293372403712 : i64
// K's k-step 4 in the second atom, 128 rows of 128 bytes (1024 units) further, and Q's
// 64 rows (512):
// CHECK: add.s64 da, ${{[0-9]+}}, 512; add.s64 db, ${{[0-9]+}}, 1024; wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK: wgmma.mma_async.sync.aligned.m64n80k16.f32.f16.f16
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS: Compiling entry function 'flash_attention_f16_d80_64x128x2w4_wgmma' for 'sm_90a'
// PTXAS-NOT: C75
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
kernel.func @Attention_0(%q: memref<8x12x512x80xf16>, %k: memref<8x12x512x80xf16>, %v: memref<8x12x512x80xf16>, %o: memref<8x12x512x80xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 64, block_kv = 128, stages = 2, warps = 4, wgmma = true>} {
  attention ins(%q, %k, %v : memref<8x12x512x80xf16>, memref<8x12x512x80xf16>, memref<8x12x512x80xf16>) outs(%o : memref<8x12x512x80xf16>) {
  ^bb0(%a: tensor<8x12x512x80xf16>, %b: tensor<8x12x512x80xf16>, %c: tensor<8x12x512x80xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.111803 : f32} : (tensor<8x12x512x80xf16>, tensor<8x12x512x80xf16>, tensor<8x12x512x80xf16>) -> tensor<8x12x512x80xf16>
    kernel.yield %r : tensor<8x12x512x80xf16>
  }
  return
}
func.func @main(%q: memref<8x12x512x80xf16>, %k: memref<8x12x512x80xf16>, %v: memref<8x12x512x80xf16>, %o: memref<8x12x512x80xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Attention_0(%q, %k, %v, %o) : (memref<8x12x512x80xf16>, memref<8x12x512x80xf16>, memref<8x12x512x80xf16>, memref<8x12x512x80xf16>) -> ()
  return
}
