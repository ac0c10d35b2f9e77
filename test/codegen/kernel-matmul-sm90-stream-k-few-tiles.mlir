// Stream-K where the tiles leave most SMs idle: GPT-2's fc2 at one sequence of 128 tokens
// (128 x 3072 by 3072 x 768, bias and residual) is 6 tiles of 128 x 128. With
// `stream_k = 8` on cooperative consumers every tile is in the last (only) wave: the grid
// is 6 x 8 = 48 CTAs, each a part of 6 of the 48 k-tiles, and the last part of a tile adds
// the others' sums and runs the epilogue, which reads the residual from global memory
// (no residual tile with stream-K). No second kernel reduces the parts, as split-K's
// would.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx

// CHECK-LABEL: func.func @main
// CHECK: %[[PARTIALS:.*]] = memref.alloc() : memref<2162688xf32>
// CHECK: %[[TICKETS:.*]] = memref.alloc() : memref<264xi32>
// CHECK: gpu.memset %[[TICKETS]], %{{.*}} : memref<264xi32>, i32
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2_p_sk8_{{[a-z_0-9]+}}::@gemm_f16_f16_128x128x64_s4_ws2_p_sk8_{{[a-z_0-9]+}} blocks in (%c48, %c1{{.*}}, %c1{{.*}}) threads in (%c384
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func @gemm_f16_f16_128x128x64_s4_ws2_p_sk8
// CHECK-SAME: %{{.*}}: memref<f32>, %{{.*}}: memref<i32>)
// CHECK: nvgpu.warpgroup.mma
// CHECK: memref.atomic_rmw addi
// CHECK: scf.for
// CHECK-COUNT-16: vector.load %{{.*}} : memref<?xf32, strided<[1], offset: ?>>, vector<4xf32>
// PTX-LABEL: .visible .entry gemm_f16_f16_128x128x64_s4_ws2_p_sk8_
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: atom.global{{.*}}.add.u32

// REQUIRES: ptxas
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS-NOT: C75
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C75
memref.global "private" constant @bias : memref<768xf16> = dense<0.5>
kernel.func @fc2(%a: memref<128x3072xf16>, %b: memref<3072x768xf16>, %bias: memref<768xf16>, %r: memref<128x768xf16>, %c: memref<128x768xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true, stream_k = 8>} {
  matmul ins(%a, %b, %bias, %r : memref<128x3072xf16>, memref<3072x768xf16>, memref<768xf16>, memref<128x768xf16>) outs(%c : memref<128x768xf16>) {
  ^bb0(%x: tensor<128x3072xf16>, %y: tensor<3072x768xf16>, %z: tensor<768xf16>, %w: tensor<128x768xf16>):
    %p = graph.matmul %x, %y : (tensor<128x3072xf16>, tensor<3072x768xf16>) -> tensor<128x768xf16>
    %s = graph.add %p, %z : (tensor<128x768xf16>, tensor<768xf16>) -> tensor<128x768xf16>
    %t = graph.add %s, %w : (tensor<128x768xf16>, tensor<128x768xf16>) -> tensor<128x768xf16>
    kernel.yield %t : tensor<128x768xf16>
  }
  return
}
func.func @main(%a: memref<128x3072xf16>, %b: memref<3072x768xf16>, %r: memref<128x768xf16>, %c: memref<128x768xf16>) attributes {kernel.num_inputs = 3 : i64} {
  %bias = memref.get_global @bias : memref<768xf16>
  kernel.launch @fc2(%a, %b, %bias, %r, %c) : (memref<128x3072xf16>, memref<3072x768xf16>, memref<768xf16>, memref<128x768xf16>, memref<128x768xf16>) -> ()
  return
}

