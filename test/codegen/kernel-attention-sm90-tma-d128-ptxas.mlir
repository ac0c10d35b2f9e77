// The TMA form of the flash-attention kernel at D 128 with 128-wide KV tiles, where the
// softmax of a tile runs with O (64 registers a thread) and the P of the previous tile (32)
// held for the P V in flight, besides S (64) and the new P: no spills in the 232 registers
// the consumers take from the producer (setmaxnreg; ptxas reports the launch's 168), no
// wgmma serialisation (C75xx: nothing touches the registers of the products in flight). kernel-attention-sm90-tma-mask-ptxas.mlir: D 80 with a padding mask.
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// CHECK: Compiling entry function 'flash_attention_f16_d128_128x128x2w12_wgmma_tma' for 'sm_90a'
// CHECK-NOT: C75
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
kernel.func @Wide(%q: memref<2x8x512x128xf16>, %k: memref<2x8x512x128xf16>, %v: memref<2x8x512x128xf16>, %o: memref<2x8x512x128xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 128, stages = 2, warps = 12, wgmma = true, tma = true>} {
  attention ins(%q, %k, %v : memref<2x8x512x128xf16>, memref<2x8x512x128xf16>, memref<2x8x512x128xf16>) outs(%o : memref<2x8x512x128xf16>) {
  ^bb0(%a: tensor<2x8x512x128xf16>, %b: tensor<2x8x512x128xf16>, %c: tensor<2x8x512x128xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.088388 : f32} : (tensor<2x8x512x128xf16>, tensor<2x8x512x128xf16>, tensor<2x8x512x128xf16>) -> tensor<2x8x512x128xf16>
    kernel.yield %r : tensor<2x8x512x128xf16>
  }
  return
}
func.func @main(%q: memref<2x8x512x128xf16>, %k: memref<2x8x512x128xf16>, %v: memref<2x8x512x128xf16>, %o: memref<2x8x512x128xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Wide(%q, %k, %v, %o) : (memref<2x8x512x128xf16>, memref<2x8x512x128xf16>, memref<2x8x512x128xf16>, memref<2x8x512x128xf16>) -> ()
  return
}
