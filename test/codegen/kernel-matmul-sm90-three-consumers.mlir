// Three consumer warpgroups (`consumers = 3`) compute 192 x 192 tiles, 64 rows each (one
// m64n192k16 wgmma a k-step), fed by a producer warpgroup: 512 threads, the producer
// giving its registers to the consumers (40 kept, 152 each for the consumers). Their
// epilogue runs on the accumulator fragments and stages f16 results 64 columns at a time
// (192 rows of 64 + 8). ViT-B/16's fc1 (bias, GELU) at batch 32 on a persistent grid: 33 x
// 16 tiles on 132 CTAs, the staging past a ring of 4 stages of 48 KiB (4 x 48 KiB + 192 x
// 144 + 2048 bytes).
// kernel-matmul-sm90-three-consumers-one-wave.mlir: a CTA a tile.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx

// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_192x192x64_s4_ws3_p_add_gelu_{{[0-9a-f]+}}::@gemm_f16_f16_192x192x64_s4_ws3_p_add_gelu_{{[0-9a-f]+}} blocks in (%c132, %c1{{.*}}, %c1{{.*}}) threads in (%c512
// CHECK-SAME: dynamic_shared_memory_size %c226304_i32
// CHECK-SAME: args(%{{.*}} : !nvgpu.tensormap.descriptor<tensor = memref<192x64xf16, 3>

// The producer is warpgroup 3; every consumer thread releases a stage (384 arrivals).
// CHECK: gpu.func @gemm_f16_f16_192x192x64_s4_ws3_p_add_gelu
// CHECK: arith.cmpi eq, %{{.*}}, %c3 : index
// CHECK: nvgpu.mbarrier.init %{{.*}}, %c384 :
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.setmaxregister increase 152
// CHECK: nvgpu.warpgroup.mma {{.*}} : <tensor = memref<64x64xf16, 3>>, <tensor = memref<64x192xf16, 3>>, <fragmented = vector<64x192xf32>> -> <fragmented = vector<64x192xf32>>
// CHECK-NOT: vector<8xf32>
// CHECK: llvm.inline_asm asm_dialect = att "tanh.approx.f32
// CHECK: vector.store {{.*}} : memref<192x72xf16, #gpu.address_space<workgroup>>, vector<2xf16>

// PTX-LABEL: .visible .entry gemm_f16_f16_192x192x64_s4_ws3_p_add_gelu_
// PTX: .maxntid 512, 1, 1
// PTX: setmaxnreg.inc.sync.aligned.u32 152;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16

// ptxas keeps the wgmma asynchronous and spills nothing in 152 registers.
// REQUIRES: ptxas
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS-NOT: C75
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C75
memref.global "private" constant @bias : memref<3072xf16> = dense<0.5>
kernel.func @fc1(%a: memref<6304x768xf16>, %b: memref<768x3072xf16>, %bias: memref<3072xf16>, %c: memref<6304x3072xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 192, tile_n = 192, tile_k = 64, stages = 4, consumers = 3, persistent = true>} {
  matmul ins(%a, %b, %bias : memref<6304x768xf16>, memref<768x3072xf16>, memref<3072xf16>) outs(%c : memref<6304x3072xf16>) {
  ^bb0(%x: tensor<6304x768xf16>, %y: tensor<768x3072xf16>, %z: tensor<3072xf16>):
    %p = graph.matmul %x, %y : (tensor<6304x768xf16>, tensor<768x3072xf16>) -> tensor<6304x3072xf16>
    %s = graph.add %p, %z : (tensor<6304x3072xf16>, tensor<3072xf16>) -> tensor<6304x3072xf16>
    %g = graph.gelu %s {approximate = "none"} : tensor<6304x3072xf16>
    kernel.yield %g : tensor<6304x3072xf16>
  }
  return
}
func.func @main(%a: memref<6304x768xf16>, %b: memref<768x3072xf16>, %c: memref<6304x3072xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %bias = memref.get_global @bias : memref<3072xf16>
  kernel.launch @fc1(%a, %b, %bias, %c) : (memref<6304x768xf16>, memref<768x3072xf16>, memref<3072xf16>, memref<6304x3072xf16>) -> ()
  return
}
