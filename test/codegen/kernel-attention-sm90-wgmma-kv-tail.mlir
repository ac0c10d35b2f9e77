// The wgmma flash-attention kernel (cp.async ring) at ViT-B/16's 197 tokens in 64-key
// tiles: the three whole tiles run the loop's step (S = Q K^T one m64n64k16 wgmma a
// k-step, P V four), the partial last one a copy of it 16 keys wide (197 = 3 x 64 + 5:
// S m64n16k16, P V one k-step), not a fourth whole tile. Same registers as without the
// copy (4 CTAs an SM), no spills.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// CHECK-LABEL: gpu.func @flash_attention_f16_d64_64x64x2w4_wgmma
// CHECK-SAME: nvvm.minctasm = 4 : i32
// CHECK: %[[WHOLE:.*]] = arith.divui %{{.*}}, %c64 : index
// CHECK: %[[MAIN:.*]] = arith.minui %{{.*}}, %[[WHOLE]] : index
// CHECK: %[[LOOP:.*]]:3 = scf.for %{{.*}} = %c0 to %[[MAIN]] step %c1
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: scf.for %{{.*}} = %[[MAIN]] to %{{.*}} step %c1 iter_args(%{{.*}} = %[[LOOP]]#0, %{{.*}} = %[[LOOP]]#1, %{{.*}} = %[[LOOP]]#2)
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16
// CHECK-NOT: wgmma.mma_async.sync.aligned.m64n64k16
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT: wgmma.mma_async
// CHECK: gpu.return
// REQUIRES: ptxas
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   | kiln-translate --emit-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS: Compiling entry function 'flash_attention_f16_d64_64x64x2w4_wgmma' for 'sm_90a'
// PTXAS-NOT: C75
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
kernel.func @Attention_0(%q: memref<2x12x197x64xf16>, %k: memref<2x12x197x64xf16>, %v: memref<2x12x197x64xf16>, %o: memref<2x12x197x64xf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 64, block_kv = 64, stages = 2, warps = 4, wgmma = true>} {
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
