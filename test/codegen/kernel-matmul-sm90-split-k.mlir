// Split-K: 1024x768 of C is 8 x 6 = 48 128x128 tiles, fewer than an H200's 132 SMs; split
// in 3 parts of 16 k-tiles (K = 3072), 144 CTAs store f32 partial sums to a 3x1024x768
// workspace (a memref.alloc the arena planner places), and the reduction kernel adds them
// up into C, 4 elements a thread (1024 * 768 / 4 / 256 = 768 blocks), M its parameter.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx \
// RUN:   | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @main
// CHECK: %[[W:.*]] = memref.alloc() : memref<3x1024x768xf32>
// CHECK: %[[WP:.*]] = memref.reinterpret_cast %[[W]] {{.*}} : memref<3x1024x768xf32> to memref<f32>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2_k3::@gemm_f16_f16_128x128x64_s4_ws2_k3 blocks in (%c144,
// CHECK-SAME: %[[WP]] : memref<f32>, %c1024_i32 : i32, %c768_i32 : i32, %c3072_i32 : i32
// CHECK: gpu.launch_func {{ *}}@kiln_split_k_reduce_f16_3x768::@split_k_reduce_f16_3x768 blocks in (%c768,
// CHECK-SAME: args(%{{.*}} : memref<f32>, %{{.*}} : memref<f16>, %c1024_i32{{.*}} : i32)
// CHECK: gpu.func @gemm_f16_f16_128x128x64_s4_ws2_k3(%{{.*}}, %{{.*}}, %{{.*}}: memref<f32>,
// PTX-LABEL: .visible .entry gemm_f16_f16_128x128x64_s4_ws2_k3(
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: st.global.v4.b32
// PTX-LABEL: .visible .entry split_k_reduce_f16_3x768(
// PTX-COUNT-3: ld.global.v4.b32
// PTX: cvt.rn.f16x2.f32
kernel.func @ffn2(%a: memref<1024x3072xf16>, %b: memref<3072x768xf16>, %c: memref<1024x768xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, split_k = 3>} {
  matmul ins(%a, %b : memref<1024x3072xf16>, memref<3072x768xf16>) outs(%c : memref<1024x768xf16>) {
  ^bb0(%x: tensor<1024x3072xf16>, %y: tensor<3072x768xf16>):
    %r = graph.matmul %x, %y : (tensor<1024x3072xf16>, tensor<3072x768xf16>) -> tensor<1024x768xf16>
    kernel.yield %r : tensor<1024x768xf16>
  }
  return
}
func.func @main(%a: memref<1024x3072xf16>, %b: memref<3072x768xf16>, %c: memref<1024x768xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @ffn2(%a, %b, %c) : (memref<1024x3072xf16>, memref<3072x768xf16>, memref<1024x768xf16>) -> ()
  return
}
