// Ping-pong consumers (`pingpong = true`): on a persistent grid of one CTA an SM, each
// consumer warpgroup computes whole 128 x 128 tiles (128-row accumulators: two m64n128
// wgmma a k-step) and the two take the CTA's tiles in turns, ordered by two named
// barriers, so that one's epilogue runs under the other's wgmma. The epilogue runs on the
// accumulator fragments (bias and GELU in registers) and stages only f16 results, 64 rows
// of a consumer at a time: the dynamic shared memory is the 4-stage ring (4 x 32 KiB), two
// 64 x (128 + 8) f16 stagings and 2048 bytes of slack. ViT-B/16's fc1 at batch 32.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx

// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2_p_pp_add_gelu_{{[0-9a-f]+}}::@gemm_f16_f16_128x128x64_s4_ws2_p_pp_add_gelu_{{[0-9a-f]+}} blocks in (%c132, %c1{{.*}}, %c1{{.*}}) threads in (%c384
// CHECK-SAME: dynamic_shared_memory_size %c167936_i32
// The consumers' turns: a tile after the CTA's first waits on its consumer's barrier
// (2 + w), and a tile with a successor lets the other consumer go.
// CHECK: gpu.func @gemm_f16_f16_128x128x64_s4_ws2_p_pp_add_gelu
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// CHECK: nvgpu.warpgroup.mma {{.*}} : <tensor = memref<128x64xf16, 3>>, {{.*}}, <fragmented = vector<128x128xf32>> -> <fragmented = vector<128x128xf32>>
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// The epilogue on the fragments: no f32 staging.
// CHECK-NOT: vector<8xf32>
// CHECK: llvm.inline_asm asm_dialect = att "tanh.approx.f32
// CHECK: arith.truncf {{.*}} : vector<2xf32> to vector<2xf16>
// CHECK: vector.store {{.*}} : memref<64x136xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// PTX-LABEL: .visible .entry gemm_f16_f16_128x128x64_s4_ws2_p_pp_add_gelu_
// PTX: bar.sync {{.*}}, 256;
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: wgmma.wait_group.sync.aligned {{.*}}1;
// PTX: bar.arrive {{.*}}, 256;

// ptxas keeps the wgmma asynchronous (no C7519/C7517: nothing materialised between them)
// and spills nothing.
// REQUIRES: ptxas
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS-NOT: C75
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C75
memref.global "private" constant @bias : memref<3072xf16> = dense<0.5>
kernel.func @fc1(%a: memref<6304x768xf16>, %b: memref<768x3072xf16>, %bias: memref<3072xf16>, %c: memref<6304x3072xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true, pingpong = true>} {
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
