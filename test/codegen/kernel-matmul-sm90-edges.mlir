// sm90_gemm's default configuration and partial tiles. A product whose 128x256
// tiles fill an H200 (>= 132 CTAs) gets them; a smaller one gets 128x128 tiles (more CTAs).
// Extents need not be tile multiples: N and K multiples of 8 (16-byte TMA row strides)
// suffice; TMA zero-fills the loads past the edges and the epilogue guards its stores.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// 4096 x 8192: 32 x 32 = 1024 tiles of 128x256.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x256x64_s4_ws2::@gemm_f16_f16_128x256x64_s4_ws2 blocks in (%c1024, %c1, %c1)
// PTX-LABEL: .visible .entry gemm_f16_f16_128x256x64_s4_ws2(
kernel.func @MatMul_0(%a: memref<4096x64xf16>, %b: memref<64x8192xf16>, %c: memref<4096x8192xf16>) {
  matmul ins(%a, %b : memref<4096x64xf16>, memref<64x8192xf16>) outs(%c : memref<4096x8192xf16>) {
  ^bb0(%x: tensor<4096x64xf16>, %y: tensor<64x8192xf16>):
    %r = graph.matmul %x, %y : (tensor<4096x64xf16>, tensor<64x8192xf16>) -> tensor<4096x8192xf16>
    kernel.yield %r : tensor<4096x8192xf16>
  }
  return
}
func.func @main(%a: memref<4096x64xf16>, %b: memref<64x8192xf16>, %c: memref<4096x8192xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @MatMul_0(%a, %b, %c) : (memref<4096x64xf16>, memref<64x8192xf16>, memref<4096x8192xf16>) -> ()
  return
}

// -----

// M = 200, N = 1000, K = 72 (bf16): ceil(200/128) x ceil(1000/128) = 2 x 8 tiles of 128x128,
// K in two steps of 64 (the second one zero-filled past 72). Stores are guarded by the
// rows left (min(M - m0, 128)) and by column < N.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_bf16_bf16_128x128x64_s4_ws2_nt::@gemm_bf16_bf16_128x128x64_s4_ws2_nt blocks in (%c16, %c1, %c1) threads in (%c384, %c1, %c1) {{ *}}dynamic_shared_memory_size %c133120_i32
// CHECK-SAME: %c200_i32 : i32, %c1000_i32 : i32, %c72_i32 : i32
// CHECK: nvgpu.warpgroup.mma {{.*}} -> <fragmented = vector<64x128xf32>>
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: scf.if
// CHECK: vector.store
// PTX-LABEL: .visible .entry gemm_bf16_bf16_128x128x64_s4_ws2_nt(
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
kernel.func @MatMul_1(%a: memref<200x72xbf16>, %b: memref<72x1000xbf16>, %c: memref<200x1000xbf16>) {
  matmul ins(%a, %b : memref<200x72xbf16>, memref<72x1000xbf16>) outs(%c : memref<200x1000xbf16>) {
  ^bb0(%x: tensor<200x72xbf16>, %y: tensor<72x1000xbf16>):
    %r = graph.matmul %x, %y : (tensor<200x72xbf16>, tensor<72x1000xbf16>) -> tensor<200x1000xbf16>
    kernel.yield %r : tensor<200x1000xbf16>
  }
  return
}
func.func @main(%a: memref<200x72xbf16>, %b: memref<72x1000xbf16>, %c: memref<200x1000xbf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @MatMul_1(%a, %b, %c) : (memref<200x72xbf16>, memref<72x1000xbf16>, memref<200x1000xbf16>) -> ()
  return
}
