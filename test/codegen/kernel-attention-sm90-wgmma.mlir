// flash_attention with target=sm_90a: for D = 64 the Hopper variant of the template
// (passes/kernel/templates/FlashAttentionSm90.mlir): both products on wgmma m64nNk16, Q,
// K and V read by the tensor cores through shared-memory descriptors (128-byte swizzle),
// P from registers, each product one inline-asm block (fence, k-steps, commit, wait 0);
// the tiles at a 1024-aligned offset (1024 bytes more shared memory), a proxy fence after
// the cp.async copies land. Then through Kiln's device lowering to PTX for sm_90a.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=flash_attention" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device="chip=sm_90a" %s \
// RUN:   -split-input-file | kiln-translate --emit-ptx -split-input-file \
// RUN:   | FileCheck %s --check-prefix=PTX

// Untuned, unmasked, S = 197 (tails predicated): 64 rows a CTA (one warpgroup), 128-wide
// KV tiles, 2 stages: grid (4, 6), (64 + 2 x 2 x 128) x 128 + 1024 bytes.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_64x128x2w4_wgmma::@flash_attention_f16_d64_64x128x2w4_wgmma blocks in (%c4{{.*}}, %c6{{.*}}, %c1{{.*}}) threads in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}}) {{ *}}dynamic_shared_memory_size %c74752_i32
// CHECK-LABEL: gpu.module @kiln_attention_f16_d64_64x128x2w4_wgmma
// CHECK: nvvm.minctasm = 3
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: nvgpu.device_async_copy
// CHECK-NOT: nvgpu.ldmatrix
// CHECK-NOT: nvgpu.mma.sync
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// S = Q K^T: four k-steps, A and B through descriptors (each step's the block's own
// register: the operand's plus the step's 32 bytes), the first ignoring the input.
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{ .reg .pred p0, p1; .reg .b64 da, db; {{.*}} wgmma.fence.sync.aligned; add.s64 da, $[[A:[0-9]+]], 0; add.s64 db, $[[B:[0-9]+]], 0; wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, da, db, p0, 1, 1, 0, 0; add.s64 da, $[[A]], 2; add.s64 db, $[[B]], 2; {{.*}}wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0; }"
// O += P V: P from registers ({$..}), V transposed by the descriptor (imm-trans-b 1).
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{ .reg .pred p0, p1; {{.*}} wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}}, {${{[0-9]+}}, ${{[0-9]+}}, ${{[0-9]+}}, ${{[0-9]+}}}, db, p1, 1, 1, 1;
// CHECK-NOT: nvgpu.mma.sync
// CHECK: gpu.return
// PTX-LABEL: .visible .entry flash_attention_f16_d64_64x128x2w4_wgmma(
// PTX: .maxntid 128, 1, 1
// PTX: .minnctapersm 3
// PTX: cp.async.cg.shared.global
// PTX-DAG: fence.proxy.async.shared::cta;
// PTX-DAG: wgmma.fence.sync.aligned;
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX-DAG: wgmma.commit_group.sync.aligned;
// PTX-DAG: wgmma.wait_group.sync.aligned 0;
// f16: P = exp2 two elements at a time in f16 (ex2.approx.f16x2, row sums in f16x2);
// alpha stays f32.
// PTX-DAG: ex2.approx.f16x2
// PTX-DAG: add.rn.f16x2
// PTX-DAG: ex2.approx.ftz.f32
// PTX-DAG: shfl.sync.bfly.b32
// O leaves through shared memory in 16-byte stores.
// PTX-DAG: ld.shared.v4.b32
// PTX-DAG: st.global.v4.b32
// PTX-NOT: mma.sync.aligned
// PTX-NOT: ldmatrix
kernel.func @Attention_0(%q: memref<2x3x197x64xf16>, %k: memref<2x3x197x64xf16>, %v: memref<2x3x197x64xf16>, %o: memref<2x3x197x64xf16>) {
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

// Causal (the exporters' where(tril, 0, -inf)): 64x64 KV tiles (a causal CTA computes up
// to a KV tile past its diagonal), 4 CTAs an SM (126 registers; 5 would spill).
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_64x64x2w4_wgmma_causal::@flash_attention_f16_d64_64x64x2w4_wgmma_causal blocks in (%c1{{.*}}, %c2{{.*}}, %c1{{.*}}) threads in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}}) {{ *}}dynamic_shared_memory_size %c41984_i32
// CHECK-LABEL: gpu.module @kiln_attention_f16_d64_64x64x2w4_wgmma_causal
// CHECK-NOT: memref.load
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: gpu.return
// PTX-LABEL: .visible .entry flash_attention_f16_d64_64x64x2w4_wgmma_causal(
// PTX: .minnctapersm 4
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
memref.global "private" constant @causal : memref<1x1x16x16xi1> = dense<[[[[true,false,false,false,false,false,false,false,false,false,false,false,false,false,false,false],[true,true,false,false,false,false,false,false,false,false,false,false,false,false,false,false],[true,true,true,false,false,false,false,false,false,false,false,false,false,false,false,false],[true,true,true,true,false,false,false,false,false,false,false,false,false,false,false,false],[true,true,true,true,true,false,false,false,false,false,false,false,false,false,false,false],[true,true,true,true,true,true,false,false,false,false,false,false,false,false,false,false],[true,true,true,true,true,true,true,false,false,false,false,false,false,false,false,false],[true,true,true,true,true,true,true,true,false,false,false,false,false,false,false,false],[true,true,true,true,true,true,true,true,true,false,false,false,false,false,false,false],[true,true,true,true,true,true,true,true,true,true,false,false,false,false,false,false],[true,true,true,true,true,true,true,true,true,true,true,false,false,false,false,false],[true,true,true,true,true,true,true,true,true,true,true,true,false,false,false,false],[true,true,true,true,true,true,true,true,true,true,true,true,true,false,false,false],[true,true,true,true,true,true,true,true,true,true,true,true,true,true,false,false],[true,true,true,true,true,true,true,true,true,true,true,true,true,true,true,false],[true,true,true,true,true,true,true,true,true,true,true,true,true,true,true,true]]]]>
kernel.func @Causal_0(%m: memref<1x1x16x16xi1>, %q: memref<1x2x16x64xf16>, %k: memref<1x2x16x64xf16>, %v: memref<1x2x16x64xf16>, %o: memref<1x2x16x64xf16>) {
  attention ins(%m, %q, %k, %v : memref<1x1x16x16xi1>, memref<1x2x16x64xf16>, memref<1x2x16x64xf16>, memref<1x2x16x64xf16>) outs(%o : memref<1x2x16x64xf16>) {
  ^bb0(%cm: tensor<1x1x16x16xi1>, %a: tensor<1x2x16x64xf16>, %b: tensor<1x2x16x64xf16>, %c: tensor<1x2x16x64xf16>):
    %zero = graph.constant dense<0.000000e+00> : tensor<f16>
    %ninf = graph.constant dense<0xFC00> : tensor<f16>
    %mask = graph.where %cm, %zero, %ninf : (tensor<1x1x16x16xi1>, tensor<f16>, tensor<f16>) -> tensor<1x1x16x16xf16>
    %r = graph.attention %a, %b, %c, %mask {scale = 1.250000e-01 : f32} : (tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x1x16x16xf16>) -> tensor<1x2x16x64xf16>
    kernel.yield %r : tensor<1x2x16x64xf16>
  }
  return
}
func.func @main(%q: memref<1x2x16x64xf16>, %k: memref<1x2x16x64xf16>, %v: memref<1x2x16x64xf16>, %o: memref<1x2x16x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  %m = memref.get_global @causal : memref<1x1x16x16xi1>
  kernel.launch @Causal_0(%m, %q, %k, %v, %o) : (memref<1x1x16x16xi1>, memref<1x2x16x64xf16>, memref<1x2x16x64xf16>, memref<1x2x16x64xf16>, memref<1x2x16x64xf16>) -> ()
  return
}

// -----

// bf16, a configuration asked for: two warpgroups of 64 rows (256 threads), 2 CTAs an SM.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_attention_bf16_d64_128x64x2w8_wgmma::@flash_attention_bf16_d64_128x64x2w8_wgmma blocks in (%c1{{.*}}, %c6{{.*}}, %c1{{.*}}) threads in (%c256{{.*}}, %c1{{.*}}, %c1{{.*}}) {{ *}}dynamic_shared_memory_size %c50176_i32
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTX-LABEL: .visible .entry flash_attention_bf16_d64_128x64x2w8_wgmma(
// PTX: .maxntid 256, 1, 1
// PTX: .minnctapersm 2
// bf16 keeps exp2 in f32.
// PTX-NOT: ex2.approx.f16x2
// PTX: ex2.approx.ftz.f32
// PTX-NOT: ex2.approx.f16x2
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
kernel.func @Asks_8_warps(%q: memref<2x3x128x64xbf16>, %k: memref<2x3x128x64xbf16>, %v: memref<2x3x128x64xbf16>, %o: memref<2x3x128x64xbf16>) attributes {kernel.config = #kernel.flash_attention<block_q = 128, block_kv = 64, stages = 2, warps = 8, wgmma = true>} {
  attention ins(%q, %k, %v : memref<2x3x128x64xbf16>, memref<2x3x128x64xbf16>, memref<2x3x128x64xbf16>) outs(%o : memref<2x3x128x64xbf16>) {
  ^bb0(%a: tensor<2x3x128x64xbf16>, %b: tensor<2x3x128x64xbf16>, %c: tensor<2x3x128x64xbf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x64xbf16>, tensor<2x3x128x64xbf16>, tensor<2x3x128x64xbf16>) -> tensor<2x3x128x64xbf16>
    kernel.yield %r : tensor<2x3x128x64xbf16>
  }
  return
}
func.func @main(%q: memref<2x3x128x64xbf16>, %k: memref<2x3x128x64xbf16>, %v: memref<2x3x128x64xbf16>, %o: memref<2x3x128x64xbf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Asks_8_warps(%q, %k, %v, %o) : (memref<2x3x128x64xbf16>, memref<2x3x128x64xbf16>, memref<2x3x128x64xbf16>, memref<2x3x128x64xbf16>) -> ()
  return
}

// -----

// D = 128, untuned: the TMA form, 128x128 in 2 stages (ahead of the cp.async forms for heads
// of 80 to 128 on the H200); a 256-byte row is two swizzle atoms, so Q K^T's eight k-steps
// cross from one atom to the next and P V's N is the whole 128 (as is S's). Its softmax
// takes exp2 in f32 (faster there than f16x2 pairs).
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d128_128x128x2w12_wgmma_tma::@flash_attention_f16_d128_128x128x2w12_wgmma_tma
// PTX-LABEL: .visible .entry flash_attention_f16_d128_128x128x2w12_wgmma_tma(
// PTX-NOT: wgmma.mma_async.sync.aligned.m64n64k16
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX-DAG: ex2.approx.ftz.f32
// PTX-NOT: ex2.approx.f16x2
// PTX-NOT: mma.sync.aligned.m16n8k16
kernel.func @Head_dim_128(%q: memref<2x3x128x128xf16>, %k: memref<2x3x128x128xf16>, %v: memref<2x3x128x128xf16>, %o: memref<2x3x128x128xf16>) {
  attention ins(%q, %k, %v : memref<2x3x128x128xf16>, memref<2x3x128x128xf16>, memref<2x3x128x128xf16>) outs(%o : memref<2x3x128x128xf16>) {
  ^bb0(%a: tensor<2x3x128x128xf16>, %b: tensor<2x3x128x128xf16>, %c: tensor<2x3x128x128xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x128xf16>, tensor<2x3x128x128xf16>, tensor<2x3x128x128xf16>) -> tensor<2x3x128x128xf16>
    kernel.yield %r : tensor<2x3x128x128xf16>
  }
  return
}
func.func @main(%q: memref<2x3x128x128xf16>, %k: memref<2x3x128x128xf16>, %v: memref<2x3x128x128xf16>, %o: memref<2x3x128x128xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Head_dim_128(%q, %k, %v, %o) : (memref<2x3x128x128xf16>, memref<2x3x128x128xf16>, memref<2x3x128x128xf16>, memref<2x3x128x128xf16>) -> ()
  return
}
