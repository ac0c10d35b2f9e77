// The wgmma flash-attention kernel's one-stage form at ViT-B/16's 197 tokens: one KV tile
// holds all of Skv, rounded up to 208 keys (13 k-steps of P V), not to 256. Q and K are
// one copy group and V another: S = Q K^T (one m64n208k16 wgmma a k-step) waits for the
// first (wait_group 1), P V for both (wait_group 0) after a proxy fence and a barrier.
// Nothing refills the stage: one KV tile's copies (13 of 16 bytes a thread for K, 13 for V).
// Two CTAs an SM, no spills.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// CHECK-LABEL: gpu.func @flash_attention_f16_d64_64x208x1w4_wgmma
// CHECK-SAME: nvvm.minctasm = 2 : i32
// K's copies (a whole tile: no zero fill), a group, then V's:
// CHECK-COUNT-13: ], 8 {bypassL1}
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK-COUNT-13: ], 8 {bypassL1}
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: } else {
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: wgmma.mma_async.sync.aligned.m64n208k16.f32.f16.f16
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: gpu.barrier
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS: Compiling entry function 'flash_attention_f16_d64_64x208x1w4_wgmma' for 'sm_90a'
// PTXAS-NOT: C75
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
kernel.func @Attention_0(%q: memref<2x12x197x64xf16>, %k: memref<2x12x197x64xf16>, %v: memref<2x12x197x64xf16>, %o: memref<2x12x197x64xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 64, block_kv = 208, stages = 1, warps = 4, wgmma = true>} {
  attention ins(%q, %k, %v : memref<2x12x197x64xf16>, memref<2x12x197x64xf16>, memref<2x12x197x64xf16>) outs(%o : memref<2x12x197x64xf16>) {
  ^bb0(%a: tensor<2x12x197x64xf16>, %b: tensor<2x12x197x64xf16>, %c: tensor<2x12x197x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x12x197x64xf16>, tensor<2x12x197x64xf16>, tensor<2x12x197x64xf16>) -> tensor<2x12x197x64xf16>
    kernel.yield %r : tensor<2x12x197x64xf16>
  }
  return
}
func.func @main(%q: memref<2x12x197x64xf16>, %k: memref<2x12x197x64xf16>, %v: memref<2x12x197x64xf16>, %o: memref<2x12x197x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Attention_0(%q, %k, %v, %o) : (memref<2x12x197x64xf16>, memref<2x12x197x64xf16>, memref<2x12x197x64xf16>, memref<2x12x197x64xf16>) -> ()
  return
}
