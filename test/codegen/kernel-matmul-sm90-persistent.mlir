// A persistent configuration of the warp-specialised GEMM: one CTA per SM of an H200 (132)
// walks the 8192/128 * 1024/128 = 512 tiles; the epilogue stages C past the 4-stage ring
// (4 * 32 KiB), so the dynamic shared memory is the ring, 128 x 132 floats and 2048 bytes
// of slack. (kernel-matmul-sm90-config.mlir: where a persistent grid is no configuration.)
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx \
// RUN:   | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s4_ws2_p::@gemm_f16_f16_128x128x64_s4_ws2_p blocks in (%c132, %c1{{.*}}, %c1{{.*}}) threads in (%c384
// CHECK-SAME: dynamic_shared_memory_size %c200704_i32
// CHECK: gpu.func @gemm_f16_f16_128x128x64_s4_ws2_p
// CHECK: gpu.grid_dim x
// PTX-LABEL: .visible .entry gemm_f16_f16_128x128x64_s4_ws2_p(
// PTX: %nctaid.x
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
kernel.func @persistent(%a: memref<8192x512xf16>, %b: memref<512x1024xf16>, %c: memref<8192x1024xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, persistent = true>} {
  matmul ins(%a, %b : memref<8192x512xf16>, memref<512x1024xf16>) outs(%c : memref<8192x1024xf16>) {
  ^bb0(%x: tensor<8192x512xf16>, %y: tensor<512x1024xf16>):
    %r = graph.matmul %x, %y : (tensor<8192x512xf16>, tensor<512x1024xf16>) -> tensor<8192x1024xf16>
    kernel.yield %r : tensor<8192x1024xf16>
  }
  return
}
func.func @main(%a: memref<8192x512xf16>, %b: memref<512x1024xf16>, %c: memref<8192x1024xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @persistent(%a, %b, %c) : (memref<8192x512xf16>, memref<512x1024xf16>, memref<8192x1024xf16>) -> ()
  return
}
