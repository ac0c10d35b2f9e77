// Stream-K on cooperative consumers (`stream_k = 4`, 128 x 256 tiles, 3 stages): ViT-B/16's
// fc2 at batch 32 is 150 such tiles, 1.14 waves of 132 CTAs: the 18 of the last wave are
// split into 4 parts along K (12 k-tiles each). Each consumer holds 64 rows of a tile: it
// stores its half of the part's slot and counts in a ticket of its own (two a tile). The
// fragment epilogue stages f16 results, which leaves room for the 3-stage ring: 3 x 48
// KiB + 128 x 528 bytes + 2048 of slack.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx

// CHECK-LABEL: func.func @main
// CHECK: %[[PARTIALS:.*]] = memref.alloc() : memref<4325376xf32>
// CHECK: %[[TICKETS:.*]] = memref.alloc() : memref<264xi32>
// CHECK: gpu.memset %[[TICKETS]], %{{.*}} : memref<264xi32>, i32
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x256x64_s3_ws2_p_sk4_{{[a-z_0-9]+}}::@gemm_f16_f16_128x256x64_s3_ws2_p_sk4_{{[a-z_0-9]+}} blocks in (%c132, %c1{{.*}}, %c1{{.*}}) threads in (%c384
// CHECK-SAME: dynamic_shared_memory_size %c217088_i32
// CHECK: gpu.func @gemm_f16_f16_128x256x64_s3_ws2_p_sk4
// CHECK-SAME: %{{.*}}: memref<f32>, %{{.*}}: memref<i32>)
// CHECK: nvgpu.warpgroup.mma {{.*}} -> <fragmented = vector<64x256xf32>>
// CHECK-COUNT-32: vector.store %{{.*}} : memref<?xf32, strided<[1], offset: ?>>, vector<4xf32>
// CHECK: memref.atomic_rmw addi
// CHECK-COUNT-32: vector.load %{{.*}} : memref<?xf32, strided<[1], offset: ?>>, vector<4xf32>
// CHECK: vector.store {{.*}} : memref<128x264xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// PTX-LABEL: .visible .entry gemm_f16_f16_128x256x64_s3_ws2_p_sk4_
// PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PTX: atom.global{{.*}}.add.u32

// REQUIRES: ptxas
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS-NOT: C75
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C75
memref.global "private" constant @bias : memref<768xf16> = dense<0.5>
kernel.func @fc2(%a: memref<6304x3072xf16>, %b: memref<3072x768xf16>, %bias: memref<768xf16>, %r: memref<6304x768xf16>, %c: memref<6304x768xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 256, tile_k = 64, stages = 3, consumers = 2, persistent = true, stream_k = 4>} {
  matmul ins(%a, %b, %bias, %r : memref<6304x3072xf16>, memref<3072x768xf16>, memref<768xf16>, memref<6304x768xf16>) outs(%c : memref<6304x768xf16>) {
  ^bb0(%x: tensor<6304x3072xf16>, %y: tensor<3072x768xf16>, %z: tensor<768xf16>, %w: tensor<6304x768xf16>):
    %p = graph.matmul %x, %y : (tensor<6304x3072xf16>, tensor<3072x768xf16>) -> tensor<6304x768xf16>
    %s = graph.add %p, %z : (tensor<6304x768xf16>, tensor<768xf16>) -> tensor<6304x768xf16>
    %t = graph.add %s, %w : (tensor<6304x768xf16>, tensor<6304x768xf16>) -> tensor<6304x768xf16>
    kernel.yield %t : tensor<6304x768xf16>
  }
  return
}
func.func @main(%a: memref<6304x3072xf16>, %b: memref<3072x768xf16>, %r: memref<6304x768xf16>, %c: memref<6304x768xf16>) attributes {kernel.num_inputs = 3 : i64} {
  %bias = memref.get_global @bias : memref<768xf16>
  kernel.launch @fc2(%a, %b, %bias, %r, %c) : (memref<6304x3072xf16>, memref<3072x768xf16>, memref<768xf16>, memref<6304x768xf16>, memref<6304x768xf16>) -> ()
  return
}
