// The wgmma flash-attention kernel at its widest head, D = 256 (four 128-byte swizzle
// atoms a row), in the form sm_90a takes beyond 128 where no tensor map describes the
// operands (kernel-attention-sm90-tma-d256-ptxas.mlir where one does): 128 query rows a
// CTA, two warpgroups sharing each K/V tile (197 KB of shared memory), one CTA an SM. O's
// accumulators are 128 registers a thread; it assembles without spills. S = Q K^T is 16
// k-steps of m64n64k16 across the atoms, O += P V four of m64n256k16.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// CHECK-LABEL: gpu.func @flash_attention_f16_d256_128x64x2w8_wgmma
// CHECK-SAME: nvvm.minctasm = 1
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS: Compiling entry function 'flash_attention_f16_d256_128x64x2w8_wgmma' for 'sm_90a'
// PTXAS-NOT: C75
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
kernel.func @Attention_0(%q: memref<2x8x512x256xf16>, %k: memref<2x8x512x256xf16>, %v: memref<2x8x512x256xf16>, %o: memref<2x8x512x256xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 64, stages = 2, warps = 8, wgmma = true>} {
  attention ins(%q, %k, %v : memref<2x8x512x256xf16>, memref<2x8x512x256xf16>, memref<2x8x512x256xf16>) outs(%o : memref<2x8x512x256xf16>) {
  ^bb0(%a: tensor<2x8x512x256xf16>, %b: tensor<2x8x512x256xf16>, %c: tensor<2x8x512x256xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.0625 : f32} : (tensor<2x8x512x256xf16>, tensor<2x8x512x256xf16>, tensor<2x8x512x256xf16>) -> tensor<2x8x512x256xf16>
    kernel.yield %r : tensor<2x8x512x256xf16>
  }
  return
}
func.func @main(%q: memref<2x8x512x256xf16>, %k: memref<2x8x512x256xf16>, %v: memref<2x8x512x256xf16>, %o: memref<2x8x512x256xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Attention_0(%q, %k, %v, %o) : (memref<2x8x512x256xf16>, memref<2x8x512x256xf16>, memref<2x8x512x256xf16>, memref<2x8x512x256xf16>) -> ()
  return
}
