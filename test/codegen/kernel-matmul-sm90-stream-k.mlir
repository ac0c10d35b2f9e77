// Stream-K (`stream_k = 4`, ping-pong consumers): ViT-B/16's fc2 at batch 32 (6304 x 3072
// by 3072 x 768, bias and residual) has 300 tiles of 128 x 128 on 132 CTAs: two whole
// waves, then 36 tiles that would keep 36 SMs busy for a third tile's time. The kernel
// splits those into parts along K (here min(4, 132 / 36) = 3 parts of 16 k-tiles), each a
// CTA's last item. The launch passes a workspace of a 128 x 128 f32 slot for each of the
// 132 CTAs and two tickets for each of 132 slots, which a fill step zeroes before the launch.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx

// CHECK-LABEL: func.func @main
// CHECK: %[[PARTIALS:.*]] = memref.alloc() : memref<2162688xf32>
// CHECK: %[[TICKETS:.*]] = memref.alloc() : memref<264xi32>
// CHECK: gpu.memset %[[TICKETS]], %{{.*}} : memref<264xi32>, i32
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2_p_pp_sk4_{{[a-z_0-9]+}}::@gemm_f16_f16_128x128x64_s4_ws2_p_pp_sk4_{{[a-z_0-9]+}} blocks in (%c132, %c1{{.*}}, %c1{{.*}}) threads in (%c384
// CHECK-SAME: args(
// CHECK-SAME: : memref<f32>, %{{.*}} : memref<i32>)
// The ticket of each consumer in shared memory; the part's sums stored thread-major,
// fenced, counted by the consumer's first thread; the last part adds the others'.
// CHECK: memref.global "private" @streamKTicket : memref<2xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.func @gemm_f16_f16_128x128x64_s4_ws2_p_pp_sk4
// CHECK-SAME: %{{.*}}: memref<f32>, %{{.*}}: memref<i32>)
// CHECK: nvgpu.warpgroup.mma
// CHECK-COUNT-32: vector.store %{{.*}} : memref<?xf32, strided<[1], offset: ?>>, vector<4xf32>
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: memref.atomic_rmw addi
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: scf.for
// CHECK-COUNT-32: vector.load %{{.*}} : memref<?xf32, strided<[1], offset: ?>>, vector<4xf32>
// The epilogue runs where the tile is complete.
// CHECK: scf.if
// CHECK: vector.store {{.*}} : memref<64x136xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// PTX-LABEL: .visible .entry gemm_f16_f16_128x128x64_s4_ws2_p_pp_sk4_
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: membar.gl;
// PTX: atom.global{{.*}}.add.u32
// PTX: bar.sync {{.*}}, 128;

// ptxas keeps the wgmma asynchronous and spills nothing.
// REQUIRES: ptxas
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS-NOT: C75
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C75
memref.global "private" constant @bias : memref<768xf16> = dense<0.5>
kernel.func @fc2(%a: memref<6304x3072xf16>, %b: memref<3072x768xf16>, %bias: memref<768xf16>, %r: memref<6304x768xf16>, %c: memref<6304x768xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true, pingpong = true, stream_k = 4>} {
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
