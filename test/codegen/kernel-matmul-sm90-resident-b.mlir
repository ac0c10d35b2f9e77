// B resident in shared memory: a persistent grid over one column of tiles (N = 64 <=
// TILE_N) multiplies every tile by the same B, so the producer loads all 8 of its k-tiles
// once (64 KiB on a barrier of their own) and the ring's 7 stages carry A alone (16 KiB
// each). Shared memory: the ring (7 x 16 KiB), the resident B (64 KiB), the f32 staging
// past them (128 x 68 floats) and 2048 bytes of slack.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx \
// RUN:   | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x64x64_s7_ws2_p_rb8::@gemm_f16_f16_128x64x64_s7_ws2_p_rb8 blocks in (%c132,
// CHECK-SAME: dynamic_shared_memory_size %c217088_i32
// CHECK: gpu.func @gemm_f16_f16_128x64x64_s7_ws2_p_rb8
// The stages' barriers, and B's.
// CHECK: %[[FULL:.*]] = nvgpu.mbarrier.create -> <{{.*}}num_barriers = 7>
// CHECK: nvgpu.mbarrier.create -> <{{.*}}num_barriers = 7>
// CHECK: %[[READY:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>>
// The producer: B's 8 k-tiles once, before the ring; then A alone a stage.
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[READY]][%{{.*}}], %c65536
// CHECK: scf.for %{{.*}} = %{{.*}} to %c8 step
// CHECK: nvgpu.tma.async.load %{{.*}}, %[[READY]][%{{.*}}] to
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%{{.*}}], %c16384
// CHECK-NEXT: nvgpu.tma.async.load
// CHECK-NOT: nvgpu.tma.async.load
// The consumers wait for B once, before their tiles.
// CHECK: nvgpu.mbarrier.try_wait.parity %[[READY]][%{{.*}}], %false
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL]]
// PTX-LABEL: .visible .entry gemm_f16_f16_128x64x64_s7_ws2_p_rb8(
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
kernel.func @resident(%a: memref<32768x512xf16>, %b: memref<512x64xf16>, %c: memref<32768x64xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 64, tile_k = 64, stages = 7, consumers = 2, persistent = true, resident_b_k_tiles = 8>} {
  matmul ins(%a, %b : memref<32768x512xf16>, memref<512x64xf16>) outs(%c : memref<32768x64xf16>) {
  ^bb0(%x: tensor<32768x512xf16>, %y: tensor<512x64xf16>):
    %r = graph.matmul %x, %y : (tensor<32768x512xf16>, tensor<512x64xf16>) -> tensor<32768x64xf16>
    kernel.yield %r : tensor<32768x64xf16>
  }
  return
}
func.func @main(%a: memref<32768x512xf16>, %b: memref<512x64xf16>, %c: memref<32768x64xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @resident(%a, %b, %c) : (memref<32768x512xf16>, memref<512x64xf16>, memref<32768x64xf16>) -> ()
  return
}
