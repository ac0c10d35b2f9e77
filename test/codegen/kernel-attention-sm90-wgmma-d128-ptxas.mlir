// The wgmma flash-attention kernel for heads wider than 64: a row of two 128-byte swizzle
// atoms, each atom of a tile after the other's rows. It assembles for sm_90a without
// spills at the CTAs an SM it asks for (2 for 4-warp CTAs). The k-steps of S = Q K^T move
// to the second atom after 4 (one atom of Q's 64 or K's 64 rows further: 512 descriptor
// units of 16 bytes), and V's descriptor steps O's columns an atom of the stage apart (leading byte
// offset 64 rows x 128 bytes). Grouped-query attention (8 K/V heads for 32) as Llama's.
// kernel.config names the form here (the tuner's candidate for these heads, checked on the
// H200: docs/codegen-attention.md). kernel-attention-sm90-wgmma-d80-ptxas.mlir: D = 80.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// CHECK-LABEL: gpu.func @flash_attention_f16_d128_64x64x2w4_wgmma
// CHECK-SAME: nvvm.minctasm = 2
// CHECK-DAG: arith.constant 4611686293338849280 : i64
// The descriptors of Q's k-step 4 and K's k-step 5 (the operands + 512, + 514):
// CHECK: add.s64 da, ${{[0-9]+}}, 512; add.s64 db, ${{[0-9]+}}, 512; wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-SAME: add.s64 da, ${{[0-9]+}}, 514; add.s64 db, ${{[0-9]+}}, 514; wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS: Compiling entry function 'flash_attention_f16_d128_64x64x2w4_wgmma' for 'sm_90a'
// PTXAS-NOT: C75
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
kernel.func @Attention_0(%q: memref<4x32x512x128xf16>, %k: memref<4x8x512x128xf16>, %v: memref<4x8x512x128xf16>, %o: memref<4x32x512x128xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 64, block_kv = 64, stages = 2, warps = 4, wgmma = true>} {
  attention ins(%q, %k, %v : memref<4x32x512x128xf16>, memref<4x8x512x128xf16>, memref<4x8x512x128xf16>) outs(%o : memref<4x32x512x128xf16>) {
  ^bb0(%a: tensor<4x32x512x128xf16>, %b: tensor<4x8x512x128xf16>, %c: tensor<4x8x512x128xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.088388 : f32} : (tensor<4x32x512x128xf16>, tensor<4x8x512x128xf16>, tensor<4x8x512x128xf16>) -> tensor<4x32x512x128xf16>
    kernel.yield %r : tensor<4x32x512x128xf16>
  }
  return
}
func.func @main(%q: memref<4x32x512x128xf16>, %k: memref<4x8x512x128xf16>, %v: memref<4x8x512x128xf16>, %o: memref<4x32x512x128xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Attention_0(%q, %k, %v, %o) : (memref<4x32x512x128xf16>, memref<4x8x512x128xf16>, memref<4x8x512x128xf16>, memref<4x32x512x128xf16>) -> ()
  return
}

