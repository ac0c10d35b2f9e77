// The TMA form at D 128, causal, 64-wide KV tiles in 2 stages (sm_90a's default for it):
// the causal masking on top of O, S, the P being computed and the P held for the P V in
// flight, without spills (the form's configurations are spill-free as a precaution for the
// registers of the products in flight; 128-wide KV tiles, which spill here, are not among
// this problem's: kernel-attention-sm90-wgmma-invalid.mlir) or wgmma serialisation.
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// CHECK: Compiling entry function 'flash_attention_f16_d128_128x64x2w12_wgmma_tma_causal' for 'sm_90a'
// CHECK-NOT: C75
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
kernel.func @Wide(%q: memref<2x8x512x128xf16>, %k: memref<2x8x512x128xf16>, %v: memref<2x8x512x128xf16>, %o: memref<2x8x512x128xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 64, stages = 2, warps = 12, wgmma = true, tma = true>} {
  attention ins(%q, %k, %v : memref<2x8x512x128xf16>, memref<2x8x512x128xf16>, memref<2x8x512x128xf16>) outs(%o : memref<2x8x512x128xf16>) {
  ^bb0(%a: tensor<2x8x512x128xf16>, %b: tensor<2x8x512x128xf16>, %c: tensor<2x8x512x128xf16>):
    %r = graph.attention %a, %b, %c {causal, scale = 0.088388 : f32} : (tensor<2x8x512x128xf16>, tensor<2x8x512x128xf16>, tensor<2x8x512x128xf16>) -> tensor<2x8x512x128xf16>
    kernel.yield %r : tensor<2x8x512x128xf16>
  }
  return
}
func.func @main(%q: memref<2x8x512x128xf16>, %k: memref<2x8x512x128xf16>, %v: memref<2x8x512x128xf16>, %o: memref<2x8x512x128xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Wide(%q, %k, %v, %o) : (memref<2x8x512x128xf16>, memref<2x8x512x128xf16>, memref<2x8x512x128xf16>, memref<2x8x512x128xf16>) -> ()
  return
}
