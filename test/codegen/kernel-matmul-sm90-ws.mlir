// sm90_gemm's warp-specialised template (passes/kernel/templates/Sm90GemmWs.mlir),
// configuration 128x256x64_s4_ws2: a producer warpgroup (TMA) and two consumer warpgroups
// (wgmma m64n256k16) in 384 threads, a 4-stage ring, a 1-D grid of tiles; then its PTX.
// kernel-matmul-sm90-edges.mlir checks the default choice and partial tiles.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm gemm-config=128x256x64_s4_ws2" --kernel-instantiate-templates=target=sm_90a %s -split-input-file \
// RUN:   | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm gemm-config=128x256x64_s4_ws2" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device \
// RUN:   %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// 256x512 (K 512): 2 x 2 tiles of 128x256; 4 * (16384 + 32768) + 2048 bytes of shared memory.
// CHECK-LABEL: func.func @main
// CHECK: %[[MAPA:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c128, %c64]
// CHECK: %[[MAPB:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c64{{.*}}]
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x256x64_s4_ws2::@gemm_f16_f16_128x256x64_s4_ws2 blocks in (%c4, %c1, %c1) threads in (%c384, %c1, %c1) {{ *}}dynamic_shared_memory_size %c198656_i32
// CHECK: gpu.func @gemm_f16_f16_128x256x64_s4_ws2(%{{.*}}: !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvgpu.tma.async.load
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvgpu.warpgroup.mma {{.*}} -> <fragmented = vector<64x256xf32>>
//
// PTX-LABEL: .visible .entry gemm_f16_f16_128x256x64_s4_ws2(
// PTX: .maxntid 384, 1, 1
// PTX: mbarrier.init.shared.b64
// PTX: bar.sync 0;
// The producer: fewer registers, TMA into the ring.
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// The consumers: more registers, wait for a stage, 4 wgmma along K, one group in flight.
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: wgmma.fence.sync.aligned;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PTX: wgmma.commit_group.sync.aligned;
// PTX: wgmma.wait_group.sync.aligned 1;
// PTX: mbarrier.arrive.shared.b64
// Epilogue among the 256 consumer threads only.
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX: bar.sync 1, 256;
// PTX: bar.sync 1, 256;
// PTX: cvt.rn.f16x2.f32
kernel.func @MatMul_0(%a: memref<256x512xf16>, %b: memref<512x512xf16>, %c: memref<256x512xf16>) {
  matmul ins(%a, %b : memref<256x512xf16>, memref<512x512xf16>) outs(%c : memref<256x512xf16>) {
  ^bb0(%x: tensor<256x512xf16>, %y: tensor<512x512xf16>):
    %r = graph.matmul %x, %y : (tensor<256x512xf16>, tensor<512x512xf16>) -> tensor<256x512xf16>
    kernel.yield %r : tensor<256x512xf16>
  }
  return
}
func.func @main(%a: memref<256x512xf16>, %b: memref<512x512xf16>, %c: memref<256x512xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @MatMul_0(%a, %b, %c) : (memref<256x512xf16>, memref<512x512xf16>, memref<256x512xf16>) -> ()
  return
}
