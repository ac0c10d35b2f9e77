// kernel-attention-sm80 with target=sm_90a and softmax_overlap = true: the wgmma variant in
// the FlashAttention-3 order (passes/kernel/templates/FlashAttentionSm90Overlap.mlir).
// S(0) is one block that waits (wait_group 0); in the loop S(j+1) and P(j) V(j) are issue
// blocks (fence, k-steps, commit, no wait), and three wait blocks pass the accumulators
// through wgmma.wait_group (0 before O is rescaled, 1 after P(j) V(j) is issued, 0 after
// the loop). Past the last tile no S is issued (ub.poison, no moves into the registers
// of a group in flight). K and V refills sit at the two barriers of an iteration.
// RUN: env KILN_FLASH_ATTENTION_OVERLAP=1 kiln-opt --kernel-attention-sm80="target=sm_90a" %s -split-input-file | FileCheck %s
// RUN: env KILN_FLASH_ATTENTION_OVERLAP=1 kiln-opt --kernel-attention-sm80="target=sm_90a" --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   -split-input-file | kiln-translate --emit-ptx -split-input-file \
// RUN:   | FileCheck %s --check-prefix=PTX

// 64x64, 4 warps, S = 197 (tails): same launch as the plain wgmma 64x64 (grid (4, 6),
// (64 + 2 x 2 x 64) x 128 + 1024 bytes), 3 CTAs an SM (two S accumulators).
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_64x64x2w4_wgmma_ov::@flash_attention_f16_d64_64x64x2w4_wgmma_ov blocks in (%c4, %c6, %c1) threads in (%c128, %c1, %c1) {{ *}}dynamic_shared_memory_size %c41984_i32
// CHECK-LABEL: gpu.module @kiln_attention_f16_d64_64x64x2w4_wgmma_ov
// CHECK: nvvm.minctasm = 3
// CHECK: %[[NONE:.*]] = ub.poison : vector<1x8x2x2xf32>
// S(0): issued and waited for in one block.
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p0, 1, 1, 0, 0; {{.*}}wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0; }"
// CHECK: scf.for
// S(j+1) issued only while there is a next tile; else poison.
// CHECK: scf.if
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p0, 1, 1, 0, 0; {{.*}}wgmma.commit_group.sync.aligned; }"
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[NONE]]
// CHECK: ex2.approx.ftz.f
// CHECK: "wgmma.wait_group.sync.aligned 0;", "=f,
// CHECK: gpu.barrier
// O += P V from registers, issued without a wait.
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}}, {${{[0-9]+}}, ${{[0-9]+}}, ${{[0-9]+}}, ${{[0-9]+}}}, ${{[0-9]+}}, p1, 1, 1, 1; {{.*}}wgmma.commit_group.sync.aligned; }"
// CHECK: "wgmma.wait_group.sync.aligned 1;", "=f,
// CHECK: scf.yield
// CHECK: "wgmma.wait_group.sync.aligned 0;", "=f,
// CHECK: gpu.return
// PTX-LABEL: .visible .entry flash_attention_f16_d64_64x64x2w4_wgmma_ov(
// PTX: .minnctapersm 3
// PTX: cp.async.cg.shared.global
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX-DAG: wgmma.wait_group.sync.aligned 1;
// PTX-DAG: fence.proxy.async.shared::cta;
// PTX-DAG: ex2.approx.ftz.f32
// PTX-DAG: st.global.v4.b32
// PTX-NOT: mma.sync.aligned
// PTX-NOT: ldmatrix
kernel.func @Attention_0(%q: memref<2x3x197x64xf16>, %k: memref<2x3x197x64xf16>, %v: memref<2x3x197x64xf16>, %o: memref<2x3x197x64xf16>) attributes {kernel.config = {template = "flash_attention_wgmma", block_q = 64, block_kv = 64, stages = 2, warps = 4, softmax_overlap = true}} {
  attention ins(%q, %k, %v : memref<2x3x197x64xf16>, memref<2x3x197x64xf16>, memref<2x3x197x64xf16>) outs(%o : memref<2x3x197x64xf16>) {
  ^bb0(%a: tensor<2x3x197x64xf16>, %b: tensor<2x3x197x64xf16>, %c: tensor<2x3x197x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x197x64xf16>, tensor<2x3x197x64xf16>, tensor<2x3x197x64xf16>) -> tensor<2x3x197x64xf16>
    kernel.yield %r : tensor<2x3x197x64xf16>
  }
  return
}
func.func @main(%q: memref<2x3x197x64xf16>, %k: memref<2x3x197x64xf16>, %v: memref<2x3x197x64xf16>, %o: memref<2x3x197x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Attention_0(%q, %k, %v, %o) : (memref<2x3x197x64xf16>, memref<2x3x197x64xf16>, memref<2x3x197x64xf16>, memref<2x3x197x64xf16>) -> ()
  return
}

// -----

// 64x128 (2 CTAs an SM) and 8 warps (two warpgroups, each with its own S accumulators
// and waits; 1 CTA an SM).
// CHECK-LABEL: func.func @main
// CHECK: @kiln_attention_f16_d64_64x128x2w4_wgmma_ov::@flash_attention_f16_d64_64x128x2w4_wgmma_ov blocks in (%c8, %c6, %c1)
// CHECK-LABEL: gpu.module @kiln_attention_f16_d64_64x128x2w4_wgmma_ov
// CHECK: nvvm.minctasm = 2
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX-LABEL: .visible .entry flash_attention_f16_d64_64x128x2w4_wgmma_ov(
// PTX: .minnctapersm 2
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
kernel.func @Attention_1(%q: memref<2x3x512x64xf16>, %k: memref<2x3x512x64xf16>, %v: memref<2x3x512x64xf16>, %o: memref<2x3x512x64xf16>) attributes {kernel.config = {template = "flash_attention_wgmma", block_q = 64, block_kv = 128, stages = 2, warps = 4, softmax_overlap = true}} {
  attention ins(%q, %k, %v : memref<2x3x512x64xf16>, memref<2x3x512x64xf16>, memref<2x3x512x64xf16>) outs(%o : memref<2x3x512x64xf16>) {
  ^bb0(%a: tensor<2x3x512x64xf16>, %b: tensor<2x3x512x64xf16>, %c: tensor<2x3x512x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x512x64xf16>, tensor<2x3x512x64xf16>, tensor<2x3x512x64xf16>) -> tensor<2x3x512x64xf16>
    kernel.yield %r : tensor<2x3x512x64xf16>
  }
  return
}
func.func @main(%q: memref<2x3x512x64xf16>, %k: memref<2x3x512x64xf16>, %v: memref<2x3x512x64xf16>, %o: memref<2x3x512x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Attention_1(%q, %k, %v, %o) : (memref<2x3x512x64xf16>, memref<2x3x512x64xf16>, memref<2x3x512x64xf16>, memref<2x3x512x64xf16>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @main
// CHECK: @kiln_attention_f16_d64_128x64x2w8_wgmma_ov::@flash_attention_f16_d64_128x64x2w8_wgmma_ov blocks in (%c4, %c6, %c1) threads in (%c256, %c1, %c1)
// CHECK-LABEL: gpu.module @kiln_attention_f16_d64_128x64x2w8_wgmma_ov
// CHECK: nvvm.minctasm = 1
// PTX-LABEL: .visible .entry flash_attention_f16_d64_128x64x2w8_wgmma_ov(
// PTX: .maxntid 256, 1, 1
kernel.func @Attention_2(%q: memref<2x3x512x64xf16>, %k: memref<2x3x512x64xf16>, %v: memref<2x3x512x64xf16>, %o: memref<2x3x512x64xf16>) attributes {kernel.config = {template = "flash_attention_wgmma", block_q = 128, block_kv = 64, stages = 2, warps = 8, softmax_overlap = true}} {
  attention ins(%q, %k, %v : memref<2x3x512x64xf16>, memref<2x3x512x64xf16>, memref<2x3x512x64xf16>) outs(%o : memref<2x3x512x64xf16>) {
  ^bb0(%a: tensor<2x3x512x64xf16>, %b: tensor<2x3x512x64xf16>, %c: tensor<2x3x512x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x512x64xf16>, tensor<2x3x512x64xf16>, tensor<2x3x512x64xf16>) -> tensor<2x3x512x64xf16>
    kernel.yield %r : tensor<2x3x512x64xf16>
  }
  return
}
func.func @main(%q: memref<2x3x512x64xf16>, %k: memref<2x3x512x64xf16>, %v: memref<2x3x512x64xf16>, %o: memref<2x3x512x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Attention_2(%q, %k, %v, %o) : (memref<2x3x512x64xf16>, memref<2x3x512x64xf16>, memref<2x3x512x64xf16>, memref<2x3x512x64xf16>) -> ()
  return
}
