// Configurations with two CTAs an SM (ctas_per_sm = 2): the kernel asks ptxas for two
// resident CTAs (.minnctapersm 2), has a producer warp instead of a warpgroup (288
// threads, so 96 registers a thread) and, unlike the one-CTA kernels, moves no registers
// between producer and consumers (no setmaxnreg).
// 100352 x 64 x 64 (a 1x1 convolution's GEMM) has 784 tiles of 128x64.
//  - 4 stages, one CTA a tile: the ring is 4 x 24 KiB, where C is staged too; 2048
//    bytes of slack.
//  - 3 stages, persistent: two CTAs on each of the 132 SMs walk the tiles; C is staged
//    past the 3 x 24 KiB ring (128 x 68 floats).
// And 100352 x 256 x 64 in 1568 tiles of 128x128 with 3 stages of 32 KiB, in which the
// 128 x 132 floats of C's staging fit too.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s | kiln-translate --emit-ptx \
// RUN:   | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x64x64_s4_ws2_c2::@gemm_f16_f16_128x64x64_s4_ws2_c2 blocks in (%c784, %c1{{.*}}, %c1{{.*}}) threads in (%c288
// CHECK-SAME: dynamic_shared_memory_size %c100352_i32
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x64x64_s3_ws2_p_c2::@gemm_f16_f16_128x64x64_s3_ws2_p_c2 blocks in (%c264, %c1{{.*}}, %c1{{.*}}) threads in (%c288
// CHECK-SAME: dynamic_shared_memory_size %c110592_i32
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_128x128x64_s3_ws2_c2::@gemm_f16_f16_128x128x64_s3_ws2_c2 blocks in (%c1568, %c1{{.*}}, %c1{{.*}}) threads in (%c288
// CHECK-SAME: dynamic_shared_memory_size %c100352_i32
// CHECK: gpu.func @gemm_f16_f16_128x64x64_s4_ws2_c2
// CHECK-SAME: nvvm.minctasm = 2 : i32
// CHECK-NOT: nvvm.setmaxregister
// CHECK: gpu.func @gemm_f16_f16_128x64x64_s3_ws2_p_c2
// CHECK-SAME: nvvm.minctasm = 2 : i32
// CHECK-NOT: nvvm.setmaxregister
// CHECK: gpu.grid_dim x

// PTX-LABEL: .visible .entry gemm_f16_f16_128x64x64_s4_ws2_c2(
// PTX: .maxntid 288, 1, 1
// PTX-NEXT: .minnctapersm 2
// PTX-NOT: setmaxnreg
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX-NOT: setmaxnreg
// PTX-LABEL: .visible .entry gemm_f16_f16_128x64x64_s3_ws2_p_c2(
// PTX: .minnctapersm 2
// PTX-NOT: setmaxnreg
// PTX: %nctaid.x
// PTX-NOT: setmaxnreg
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
kernel.func @blocked(%a: memref<100352x64xf16>, %b: memref<64x64xf16>, %c: memref<100352x64xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 64, tile_k = 64, stages = 4, consumers = 2, ctas_per_sm = 2>} {
  matmul ins(%a, %b : memref<100352x64xf16>, memref<64x64xf16>) outs(%c : memref<100352x64xf16>) {
  ^bb0(%x: tensor<100352x64xf16>, %y: tensor<64x64xf16>):
    %r = graph.matmul %x, %y : (tensor<100352x64xf16>, tensor<64x64xf16>) -> tensor<100352x64xf16>
    kernel.yield %r : tensor<100352x64xf16>
  }
  return
}
kernel.func @persistent(%a: memref<100352x64xf16>, %b: memref<64x64xf16>, %c: memref<100352x64xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 64, tile_k = 64, stages = 3, consumers = 2, persistent = true, ctas_per_sm = 2>} {
  matmul ins(%a, %b : memref<100352x64xf16>, memref<64x64xf16>) outs(%c : memref<100352x64xf16>) {
  ^bb0(%x: tensor<100352x64xf16>, %y: tensor<64x64xf16>):
    %r = graph.matmul %x, %y : (tensor<100352x64xf16>, tensor<64x64xf16>) -> tensor<100352x64xf16>
    kernel.yield %r : tensor<100352x64xf16>
  }
  return
}
kernel.func @wide(%a: memref<100352x64xf16>, %b: memref<64x256xf16>, %c: memref<100352x256xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 3, consumers = 2, ctas_per_sm = 2>} {
  matmul ins(%a, %b : memref<100352x64xf16>, memref<64x256xf16>) outs(%c : memref<100352x256xf16>) {
  ^bb0(%x: tensor<100352x64xf16>, %y: tensor<64x256xf16>):
    %r = graph.matmul %x, %y : (tensor<100352x64xf16>, tensor<64x256xf16>) -> tensor<100352x256xf16>
    kernel.yield %r : tensor<100352x256xf16>
  }
  return
}
func.func @main(%a: memref<100352x64xf16>, %b: memref<64x64xf16>, %b2: memref<64x256xf16>, %c: memref<100352x64xf16>, %d: memref<100352x64xf16>, %c2: memref<100352x256xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @blocked(%a, %b, %c) : (memref<100352x64xf16>, memref<64x64xf16>, memref<100352x64xf16>) -> ()
  kernel.launch @persistent(%a, %b, %d) : (memref<100352x64xf16>, memref<64x64xf16>, memref<100352x64xf16>) -> ()
  kernel.launch @wide(%a, %b2, %c2) : (memref<100352x64xf16>, memref<64x256xf16>, memref<100352x256xf16>) -> ()
  return
}

