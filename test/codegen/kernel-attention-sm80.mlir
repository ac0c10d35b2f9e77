// kernel-instantiate-templates: an attention kernel of f16/bf16 [B, H, S, D] buffers gets the
// flash-attention template (passes/kernel/templates/FlashAttention.mlir): one launch of
// ceil(Sq / 64) x B*H CTAs of 128 threads. Then the template through Kiln's device lowering
// to PTX for sm_80 and sm_90a: mma.sync m16n8k16 fed by ldmatrix, cp.async K/V tiles,
// ex2 for the softmax, and ptxas accepts it where the toolkit is present.
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=flash_attention" --kernel-instantiate-templates=target=sm_80 %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=flash_attention" --kernel-instantiate-templates=target=sm_80 --kiln-lower-gpu-device="chip=sm_80" %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=flash_attention" --kernel-instantiate-templates=target=sm_80 --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// No mask, S = 197 (tails predicated): grid (4, 6), 40960 bytes of shared memory (Q, two
// K and two V stages of 64 x 64), the buffers as bare pointers, Q standing in for the
// mask, then H, the query heads a K/V head (1), Sq, Skv, the mask strides (0) and the
// scale.
// CHECK-LABEL: func.func @main
// CHECK-NOT: kernel.launch
// CHECK-DAG: %[[Q:.*]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [], strides: [] : memref<2x3x197x64xf16> to memref<f16>
// CHECK-DAG: %[[O:.*]] = memref.reinterpret_cast %arg3 to offset: [0], sizes: [], strides: [] : memref<2x3x197x64xf16> to memref<f16>
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_64x64x2w4::@flash_attention_f16_d64_64x64x2w4 blocks in (%c4{{.*}}, %c6{{.*}}, %c1{{.*}}) threads in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}}) {{ *}}dynamic_shared_memory_size %c40960_i32 args(%[[Q]] : memref<f16>, %{{.*}} : memref<f16>, %{{.*}} : memref<f16>, %[[O]] : memref<f16>, %{{.*}} : memref<f16>, %c3_i32 : i32, %c1_i32{{.*}} : i32, %c197_i32{{.*}} : i32, %c197_i32{{.*}} : i32, %c0_i32{{.*}} : i32, %c0_i32{{.*}} : i32, %c0_i32{{.*}} : i32, %c0_i32{{.*}} : i32, %cst : f32, %c0_i32{{.*}} : i32, %c37824_i32{{.*}} : i32, %c12608_i32{{.*}} : i32, %c64_i32{{.*}} : i32, {{.*}})
// CHECK-NOT: kernel.func
// CHECK-LABEL: gpu.module @kiln_attention_f16_d64_64x64x2w4
// CHECK: gpu.func @flash_attention_f16_d64_64x64x2w4(%{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK: nvgpu.device_async_copy
// CHECK: nvgpu.ldmatrix {{.*}}transpose = false
// CHECK: nvgpu.mma.sync
// CHECK: nvgpu.ldmatrix {{.*}}transpose = true
//
// The ABI: five pointers, eight 32-bit integers, the f32 scale.
// PTX-LABEL: .visible .entry flash_attention_f16_d64_64x64x2w4(
// PTX-NEXT: .param .u64 .ptr .align 1 flash_attention_f16_d64_64x64x2w4_param_0,
// PTX: .param .u32 flash_attention_f16_d64_64x64x2w4_param_5,
// PTX: .param .f32 flash_attention_f16_d64_64x64x2w4_param_13
// PTX: .maxntid 128, 1, 1
// Q and the first K/V tile by cp.async (zero-filled past S), one group.
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group 0;
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// The main loop (LLVM rotates it: its order in the PTX varies): refill, wait for the
// tile, S = Q K^T, the online softmax (quad shuffles, ex2), P V with V transposed by
// ldmatrix, the barrier before the stage is refilled.
// PTX-DAG: cp.async.wait_group 1;
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-DAG: shfl.sync.bfly.b32
// PTX-DAG: ex2.approx.ftz.f32
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG: bar.sync 0;
// Epilogue: O / l rounded to f16.
// PTX-DAG: cvt.rn.f16x2.f32
// PTX-DAG: st.global.b32
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

// The causal fill of the exporters (where(tril, 0, -inf) of a constant boolean buffer)
// becomes the causal flag: no mask argument is read, the tiles above the diagonal are
// skipped.
// CHECK-LABEL: func.func @main
// CHECK-NOT: kernel.launch
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_64x64x2w4_causal::@flash_attention_f16_d64_64x64x2w4_causal blocks in (%c1{{.*}}, %c2{{.*}}, %c1{{.*}})
// CHECK-LABEL: gpu.module @kiln_attention_f16_d64_64x64x2w4_causal
// CHECK-NOT: memref.load
// CHECK: gpu.return
// PTX-LABEL: .visible .entry flash_attention_f16_d64_64x64x2w4_causal(
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
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

// f16's lowest value (-65504, what an exporter's finfo(f16).min or an f32 -3.4e38 becomes
// in f16) masks a score out as -inf does: the same causal kernel.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_64x64x2w4_causal::@flash_attention_f16_d64_64x64x2w4_causal
memref.global "private" constant @causal_lowest : memref<1x1x4x4xi1> = dense<[[[[true,false,false,false],[true,true,false,false],[true,true,true,false],[true,true,true,true]]]]>
kernel.func @CausalLowest_0(%m: memref<1x1x4x4xi1>, %q: memref<1x2x4x64xf16>, %k: memref<1x2x4x64xf16>, %v: memref<1x2x4x64xf16>, %o: memref<1x2x4x64xf16>) {
  attention ins(%m, %q, %k, %v : memref<1x1x4x4xi1>, memref<1x2x4x64xf16>, memref<1x2x4x64xf16>, memref<1x2x4x64xf16>) outs(%o : memref<1x2x4x64xf16>) {
  ^bb0(%cm: tensor<1x1x4x4xi1>, %a: tensor<1x2x4x64xf16>, %b: tensor<1x2x4x64xf16>, %c: tensor<1x2x4x64xf16>):
    %zero = graph.constant dense<0.000000e+00> : tensor<f16>
    %lowest = graph.constant dense<-6.550400e+04> : tensor<f16>
    %mask = graph.where %cm, %zero, %lowest : (tensor<1x1x4x4xi1>, tensor<f16>, tensor<f16>) -> tensor<1x1x4x4xf16>
    %r = graph.attention %a, %b, %c, %mask {scale = 1.250000e-01 : f32} : (tensor<1x2x4x64xf16>, tensor<1x2x4x64xf16>, tensor<1x2x4x64xf16>, tensor<1x1x4x4xf16>) -> tensor<1x2x4x64xf16>
    kernel.yield %r : tensor<1x2x4x64xf16>
  }
  return
}
func.func @main(%q: memref<1x2x4x64xf16>, %k: memref<1x2x4x64xf16>, %v: memref<1x2x4x64xf16>, %o: memref<1x2x4x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  %m = memref.get_global @causal_lowest : memref<1x1x4x4xi1>
  kernel.launch @CausalLowest_0(%m, %q, %k, %v, %o) : (memref<1x1x4x4xi1>, memref<1x2x4x64xf16>, memref<1x2x4x64xf16>, memref<1x2x4x64xf16>, memref<1x2x4x64xf16>) -> ()
  return
}

// -----

// A folded constant mask is a resource blob, not a dense attribute (graph-fold-constants
// stores large ones so): an f16 additive mask of 0 and -65504 that is exactly causal is
// the causal flag all the same (the static fp16 GPT-2 engine's).
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_64x64x2w4_causal::@flash_attention_f16_d64_64x64x2w4_causal
memref.global "private" constant @folded_mask : memref<1x1x4x4xf16> = dense_resource<folded_mask_f16>
kernel.func @CausalResource_0(%m: memref<1x1x4x4xf16>, %q: memref<1x2x4x64xf16>, %k: memref<1x2x4x64xf16>, %v: memref<1x2x4x64xf16>, %o: memref<1x2x4x64xf16>) {
  attention ins(%m, %q, %k, %v : memref<1x1x4x4xf16>, memref<1x2x4x64xf16>, memref<1x2x4x64xf16>, memref<1x2x4x64xf16>) outs(%o : memref<1x2x4x64xf16>) {
  ^bb0(%mask: tensor<1x1x4x4xf16>, %a: tensor<1x2x4x64xf16>, %b: tensor<1x2x4x64xf16>, %c: tensor<1x2x4x64xf16>):
    %r = graph.attention %a, %b, %c, %mask {scale = 1.250000e-01 : f32} : (tensor<1x2x4x64xf16>, tensor<1x2x4x64xf16>, tensor<1x2x4x64xf16>, tensor<1x1x4x4xf16>) -> tensor<1x2x4x64xf16>
    kernel.yield %r : tensor<1x2x4x64xf16>
  }
  return
}
func.func @main(%q: memref<1x2x4x64xf16>, %k: memref<1x2x4x64xf16>, %v: memref<1x2x4x64xf16>, %o: memref<1x2x4x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  %m = memref.get_global @folded_mask : memref<1x1x4x4xf16>
  kernel.launch @CausalResource_0(%m, %q, %k, %v, %o) : (memref<1x1x4x4xf16>, memref<1x2x4x64xf16>, memref<1x2x4x64xf16>, memref<1x2x4x64xf16>, memref<1x2x4x64xf16>) -> ()
  return
}

{-#
  dialect_resources: {
    builtin: {
      folded_mask_f16: "0x020000000000FFFBFFFBFFFB00000000FFFBFFFB000000000000FFFB0000000000000000"
    }
  }
#-}

// -----

// The op's own causal flag (graph-recognize-causal-masks) is the same kernel.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_64x64x2w4_causal::@flash_attention_f16_d64_64x64x2w4_causal blocks in (%c1{{.*}}, %c2{{.*}}, %c1{{.*}})
kernel.func @CausalFlag_0(%q: memref<1x2x16x64xf16>, %k: memref<1x2x16x64xf16>, %v: memref<1x2x16x64xf16>, %o: memref<1x2x16x64xf16>) {
  attention ins(%q, %k, %v : memref<1x2x16x64xf16>, memref<1x2x16x64xf16>, memref<1x2x16x64xf16>) outs(%o : memref<1x2x16x64xf16>) {
  ^bb0(%a: tensor<1x2x16x64xf16>, %b: tensor<1x2x16x64xf16>, %c: tensor<1x2x16x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 1.250000e-01 : f32, causal} : (tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>) -> tensor<1x2x16x64xf16>
    kernel.yield %r : tensor<1x2x16x64xf16>
  }
  return
}
func.func @main(%q: memref<1x2x16x64xf16>, %k: memref<1x2x16x64xf16>, %v: memref<1x2x16x64xf16>, %o: memref<1x2x16x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @CausalFlag_0(%q, %k, %v, %o) : (memref<1x2x16x64xf16>, memref<1x2x16x64xf16>, memref<1x2x16x64xf16>, memref<1x2x16x64xf16>) -> ()
  return
}

// -----

// An additive padding mask [B, 1, 1, Skv] of f16, with the NaN guard: read per key column
// (strides: batch 100, head 0, row 0, column 1); fully masked rows give 0. The mask is the
// same for every row: the kernel ("_rows1") takes the row stride as the constant 0, so a
// thread's two rows share their loads (32 a tile's pass instead of 64 on sm_90a). Its
// columns are contiguous: a whole tile reads each thread's column pairs as one 4-byte
// load at a constant offset from its row (the fallback, one element at a time, for the
// tile past Skv and for an odd row stride or a misaligned buffer).
// CHECK-LABEL: func.func @main
// CHECK: %[[M:.*]] = memref.reinterpret_cast %arg3 to offset: [0], sizes: [], strides: [] : memref<2x1x1x100xf16> to memref<f16>
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_64x64x2w4_maskf16_rows1_nz::@flash_attention_f16_d64_64x64x2w4_maskf16_rows1_nz blocks in (%c2{{.*}}, %c6{{.*}}, %c1{{.*}}) {{.*}}, %[[M]] : memref<f16>, %c3_i32 : i32, %c1_i32{{.*}} : i32, %c100_i32{{.*}} : i32, %c100_i32{{.*}} : i32, %c100_i32{{.*}} : i32, %c0_i32 : i32, %c0_i32{{.*}} : i32, %c1_i32{{[_0-9]*}} : i32, %cst : f32, {{.*}})
// CHECK: gpu.func @flash_attention_f16_d64_64x64x2w4_maskf16_rows1_nz(%{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>,
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: vector.load %{{.*}} {alignment = 4 : i64} : memref<1073741824xf16>, vector<2xf16>
// CHECK: math.fma %{{.*}} : vector<2xf32>
// CHECK: memref.load %{{.*}} : memref<1073741824xf16>
// CHECK: math.fma %{{.*}} : f32
// PTX-LABEL: .visible .entry flash_attention_f16_d64_64x64x2w4_maskf16_rows1_nz(
// PTX: ld.global.v2.b16 {{.*}}+16];
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX: ld.global.b16
kernel.func @Padding_0(%q: memref<2x3x100x64xf16>, %k: memref<2x3x100x64xf16>, %v: memref<2x3x100x64xf16>, %m: memref<2x1x1x100xf16>, %o: memref<2x3x100x64xf16>) {
  attention ins(%q, %k, %v, %m : memref<2x3x100x64xf16>, memref<2x3x100x64xf16>, memref<2x3x100x64xf16>, memref<2x1x1x100xf16>) outs(%o : memref<2x3x100x64xf16>) {
  ^bb0(%a: tensor<2x3x100x64xf16>, %b: tensor<2x3x100x64xf16>, %c: tensor<2x3x100x64xf16>, %mm: tensor<2x1x1x100xf16>):
    %r = graph.attention %a, %b, %c, %mm {scale = 1.250000e-01 : f32, nan_to_zero} : (tensor<2x3x100x64xf16>, tensor<2x3x100x64xf16>, tensor<2x3x100x64xf16>, tensor<2x1x1x100xf16>) -> tensor<2x3x100x64xf16>
    kernel.yield %r : tensor<2x3x100x64xf16>
  }
  return
}
func.func @main(%q: memref<2x3x100x64xf16>, %k: memref<2x3x100x64xf16>, %v: memref<2x3x100x64xf16>, %m: memref<2x1x1x100xf16>, %o: memref<2x3x100x64xf16>) attributes {kernel.num_inputs = 4 : i64} {
  kernel.launch @Padding_0(%q, %k, %v, %m, %o) : (memref<2x3x100x64xf16>, memref<2x3x100x64xf16>, memref<2x3x100x64xf16>, memref<2x1x1x100xf16>, memref<2x3x100x64xf16>) -> ()
  return
}

// -----

// bf16 operands: the products are nvvm.mma.sync on the operands' 32-bit registers
// (nvgpu.mma.sync does not lower bf16); head dim 128, 40960 + 32768 bytes of shared memory.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_attention_bf16_d128_64x64x2w4::@flash_attention_bf16_d128_64x64x2w4 blocks in (%c2{{.*}}, %c6{{.*}}, %c1{{.*}}) threads in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}}) {{ *}}dynamic_shared_memory_size %c81920_i32
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// PTX-LABEL: .visible .entry flash_attention_bf16_d128_64x64x2w4(
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
kernel.func @Attention_bf16(%q: memref<2x3x128x128xbf16>, %k: memref<2x3x128x128xbf16>, %v: memref<2x3x128x128xbf16>, %o: memref<2x3x128x128xbf16>) {
  attention ins(%q, %k, %v : memref<2x3x128x128xbf16>, memref<2x3x128x128xbf16>, memref<2x3x128x128xbf16>) outs(%o : memref<2x3x128x128xbf16>) {
  ^bb0(%a: tensor<2x3x128x128xbf16>, %b: tensor<2x3x128x128xbf16>, %c: tensor<2x3x128x128xbf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x3x128x128xbf16>, tensor<2x3x128x128xbf16>, tensor<2x3x128x128xbf16>) -> tensor<2x3x128x128xbf16>
    kernel.yield %r : tensor<2x3x128x128xbf16>
  }
  return
}
func.func @main(%q: memref<2x3x128x128xbf16>, %k: memref<2x3x128x128xbf16>, %v: memref<2x3x128x128xbf16>, %o: memref<2x3x128x128xbf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Attention_bf16(%q, %k, %v, %o) : (memref<2x3x128x128xbf16>, memref<2x3x128x128xbf16>, memref<2x3x128x128xbf16>, memref<2x3x128x128xbf16>) -> ()
  return
}

// -----

// Head sizes other than 64 and 128: any multiple of 16 up to 128 (RT-DETR's 32, 96). The
// shared-memory swizzle spans the largest power of two of 16-byte chunks a row has, at
// most 8 (D 32: 4 chunks, D 96: 12 chunks, XOR over 4), so that it stays inside the row.
// CHECK-LABEL: func.func @main(%arg0: memref<2x8x100x32xf16>
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d32_{{[0-9a-z_]*}}::
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d96_{{[0-9a-z_]*}}::
// CHECK-LABEL: gpu.module @kiln_attention_f16_d32_
// CHECK: arith.constant 4 : index
// PTX-LABEL: .visible .entry flash_attention_f16_d32_
// PTX: mma.sync.aligned.m16n8k16
// PTX-LABEL: .visible .entry flash_attention_f16_d96_
// PTX: mma.sync.aligned.m16n8k16
kernel.func @HeadDim32(%q: memref<2x8x100x32xf16>, %o: memref<2x8x100x32xf16>) {
  attention ins(%q : memref<2x8x100x32xf16>) outs(%o : memref<2x8x100x32xf16>) {
  ^bb0(%a: tensor<2x8x100x32xf16>):
    %r = graph.attention %a, %a, %a {scale = 0.17677669 : f32} : (tensor<2x8x100x32xf16>, tensor<2x8x100x32xf16>, tensor<2x8x100x32xf16>) -> tensor<2x8x100x32xf16>
    kernel.yield %r : tensor<2x8x100x32xf16>
  }
  return
}
kernel.func @HeadDim96(%q: memref<2x4x100x96xf16>, %o: memref<2x4x100x96xf16>) {
  attention ins(%q : memref<2x4x100x96xf16>) outs(%o : memref<2x4x100x96xf16>) {
  ^bb0(%a: tensor<2x4x100x96xf16>):
    %r = graph.attention %a, %a, %a {scale = 0.10206207 : f32} : (tensor<2x4x100x96xf16>, tensor<2x4x100x96xf16>, tensor<2x4x100x96xf16>) -> tensor<2x4x100x96xf16>
    kernel.yield %r : tensor<2x4x100x96xf16>
  }
  return
}
func.func @main(%q: memref<2x8x100x32xf16>, %p: memref<2x4x100x96xf16>) -> (memref<2x8x100x32xf16>, memref<2x4x100x96xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %o = memref.alloc() : memref<2x8x100x32xf16>
  %u = memref.alloc() : memref<2x4x100x96xf16>
  kernel.launch @HeadDim32(%q, %o) : (memref<2x8x100x32xf16>, memref<2x8x100x32xf16>) -> ()
  kernel.launch @HeadDim96(%p, %u) : (memref<2x4x100x96xf16>, memref<2x4x100x96xf16>) -> ()
  return %o, %u : memref<2x8x100x32xf16>, memref<2x4x100x96xf16>
}

// -----

// Grouped-query attention: 8 query heads, 2 key/value heads. The launch passes 4 query
// heads a K/V head; K and V's head strides are their own (128 x 64), the kernel reads
// head h / 4 of them.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_{{[0-9a-z_]*}}::@flash_attention_f16_d64_{{[0-9a-z_]*}} blocks in (%c2{{.*}}, %c16{{.*}}, %c1{{.*}}) {{.*}}, %c8_i32 : i32, %c4_i32 : i32, %c128_i32{{.*}} : i32, %c128_i32{{.*}} : i32, {{.*}}, %cst : f32, %c0_i32{{.*}} : i32, %c65536_i32{{.*}} : i32, %c8192_i32{{.*}} : i32, %c64_i32{{.*}} : i32, %c0_i32{{.*}} : i32, %c16384_i32{{.*}} : i32, %c8192_i32{{.*}} : i32, %c64_i32{{.*}} : i32,
// CHECK: gpu.func @flash_attention_f16_d64_
// CHECK: %[[GROUP:.*]] = arith.index_castui %arg6 : i32 to index
// CHECK: arith.divui %{{.*}}, %[[GROUP]] : index
// PTX-LABEL: .visible .entry flash_attention_f16_d64_
// PTX: div.u32
kernel.func @Grouped_0(%q: memref<2x8x128x64xf16>, %k: memref<2x2x128x64xf16>, %v: memref<2x2x128x64xf16>, %o: memref<2x8x128x64xf16>) {
  attention ins(%q, %k, %v : memref<2x8x128x64xf16>, memref<2x2x128x64xf16>, memref<2x2x128x64xf16>) outs(%o : memref<2x8x128x64xf16>) {
  ^bb0(%a: tensor<2x8x128x64xf16>, %b: tensor<2x2x128x64xf16>, %c: tensor<2x2x128x64xf16>):
    %r = graph.attention %a, %b, %c {scale = 0.125 : f32} : (tensor<2x8x128x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16>) -> tensor<2x8x128x64xf16>
    kernel.yield %r : tensor<2x8x128x64xf16>
  }
  return
}
func.func @main(%q: memref<2x8x128x64xf16>, %k: memref<2x2x128x64xf16>, %v: memref<2x2x128x64xf16>, %o: memref<2x8x128x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Grouped_0(%q, %k, %v, %o) : (memref<2x8x128x64xf16>, memref<2x2x128x64xf16>, memref<2x2x128x64xf16>, memref<2x8x128x64xf16>) -> ()
  return
}

// -----

// A causal attention with an additive mask besides (a bias under a causal fill, as
// ALiBi's): the causal kernel that skips the tiles above the diagonal, reading the mask
// on the others.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_attention_f16_d64_{{[0-9a-z]*}}_causal_maskf16::@flash_attention_f16_d64_{{[0-9a-z]*}}_causal_maskf16
// PTX-LABEL: .visible .entry flash_attention_f16_d64_{{[0-9a-z]*}}_causal_maskf16(
kernel.func @CausalBias_0(%q: memref<1x4x128x64xf16>, %m: memref<1x4x128x128xf16>, %o: memref<1x4x128x64xf16>) {
  attention ins(%q, %m : memref<1x4x128x64xf16>, memref<1x4x128x128xf16>) outs(%o : memref<1x4x128x64xf16>) {
  ^bb0(%a: tensor<1x4x128x64xf16>, %mm: tensor<1x4x128x128xf16>):
    %r = graph.attention %a, %a, %a, %mm {scale = 0.125 : f32, causal} : (tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128x64xf16>, tensor<1x4x128x128xf16>) -> tensor<1x4x128x64xf16>
    kernel.yield %r : tensor<1x4x128x64xf16>
  }
  return
}
func.func @main(%q: memref<1x4x128x64xf16>, %m: memref<1x4x128x128xf16>, %o: memref<1x4x128x64xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @CausalBias_0(%q, %m, %o) : (memref<1x4x128x64xf16>, memref<1x4x128x128xf16>, memref<1x4x128x64xf16>) -> ()
  return
}
