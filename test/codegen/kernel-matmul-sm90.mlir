// kernel-instantiate-templates: a matmul kernel of f16/bf16 operands and tile-multiple extents gets
// the Hopper GEMM template; its launch becomes two tensor maps and a gpu.launch_func.
// Kernels that do not fit are left alone. Then the template through Kiln's device lowering
// to PTX, where the tensor-core instructions must be. This file checks the one-warpgroup
// template (passes/kernel/templates/Sm90Gemm.mlir, configuration 128x128x64_s3);
// kernel-matmul-sm90-ws.mlir the warp-specialised one.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm gemm-config=128x128x64_s3" --kernel-instantiate-templates=target=sm_90a %s -split-input-file \
// RUN:   | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm gemm-config=128x128x64_s3" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s \
// RUN:   -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// C (f16) = A x B of f16: the host makes A's tensor map in boxes of 128 x 64 and B's in
// 64 x 64, and launches N/128 x M/128 blocks of 128 threads with 100352 bytes of dynamic
// shared memory; C goes as a bare pointer, then M, N, K.
// CHECK-LABEL: func.func @main
// CHECK-NOT: kernel.launch
// CHECK: %[[A:.*]] = memref.cast %arg0 : memref<256x512xf16> to memref<*xf16>
// CHECK: %[[MAPA:.*]] = nvgpu.tma.create.descriptor %[[A]] box[%c128, %c64]
// CHECK: %[[B:.*]] = memref.cast %arg1 : memref<512x384xf16> to memref<*xf16>
// CHECK: %[[MAPB:.*]] = nvgpu.tma.create.descriptor %[[B]] box[%{{.*}}, %{{.*}}]
// CHECK: %[[C:.*]] = memref.reinterpret_cast %arg2 to offset: [0], sizes: [], strides: [] : memref<256x384xf16> to memref<f16>
// CHECK: gpu.launch_func @kiln_sm90_gemm_f16_f16_128x128x64_s3::@gemm_f16_f16_128x128x64_s3 blocks in (%c3, %c2, %c1) threads in (%c128{{.*}}, %c1, %c1) dynamic_shared_memory_size %c100352_i32 args(%[[MAPA]] : {{.*}}, %[[MAPB]] : {{.*}}, %[[C]] : memref<f16>, %c256_i32 : i32, %c384_i32 : i32, %c512_i32 : i32)
// CHECK-NOT: kernel.func
// CHECK-LABEL: gpu.module @kiln_sm90_gemm_f16_f16_128x128x64_s3
// CHECK: gpu.func @gemm_f16_f16_128x128x64_s3(%{{.*}}: !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b{{.*}}>, %{{.*}}: !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b{{.*}}>, %{{.*}}: memref<f16>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK: nvgpu.warpgroup.mma
// CHECK: arith.truncf %{{.*}} : vector<4xf32> to vector<4xf16>
//
// PTX: .target sm_90a
// The ABI: two tensor maps (generic addresses), the C pointer, then M, N, K as i32.
// PTX-LABEL: .visible .entry gemm_f16_f16_128x128x64_s3(
// PTX-NEXT: .param .u64 .ptr .align 1 gemm_f16_f16_128x128x64_s3_param_0,
// PTX-NEXT: .param .u64 .ptr .align 1 gemm_f16_f16_128x128x64_s3_param_1,
// PTX-NEXT: .param .u64 .ptr .align 1 gemm_f16_f16_128x128x64_s3_param_2,
// PTX-NEXT: .param .u32 gemm_f16_f16_128x128x64_s3_param_3,
// Barrier set-up by one thread, made visible to the TMA unit; a 3-stage prologue.
// PTX: mbarrier.init.shared.b64
// PTX: fence.proxy.async.shared::cta
// PTX: prefetch.tensormap
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// Main loop: wait for the stage, 8 wgmma (2 along M x 4 along K), one group in flight.
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: wgmma.fence.sync.aligned;
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: wgmma.commit_group.sync.aligned;
// PTX: wgmma.wait_group.sync.aligned 1;
// The refill of the stage released.
// PTX: mbarrier.arrive.shared.b64
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// Epilogue: drain, stage C through shared memory, rounded to f16, 8-byte stores.
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX: cvt.rn.f16x2.f32
// PTX: st.global.v2.b32
kernel.func @MatMul_0(%a: memref<256x512xf16>, %b: memref<512x384xf16>, %c: memref<256x384xf16>) {
  matmul ins(%a, %b : memref<256x512xf16>, memref<512x384xf16>) outs(%c : memref<256x384xf16>) {
  ^bb0(%x: tensor<256x512xf16>, %y: tensor<512x384xf16>):
    %r = graph.matmul %x, %y : (tensor<256x512xf16>, tensor<512x384xf16>) -> tensor<256x384xf16>
    kernel.yield %r : tensor<256x384xf16>
  }
  return
}
func.func @main(%a: memref<256x512xf16>, %b: memref<512x384xf16>, %c: memref<256x384xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @MatMul_0(%a, %b, %c) : (memref<256x512xf16>, memref<512x384xf16>, memref<256x384xf16>) -> ()
  return
}

// -----

// bf16 operands and result.
// CHECK-LABEL: gpu.module @kiln_sm90_gemm_bf16_bf16_128x128x64_s3
// CHECK: gpu.func @gemm_bf16_bf16_128x128x64_s3(%{{.*}}: !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>
// CHECK: arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// PTX-LABEL: .visible .entry gemm_bf16_bf16_128x128x64_s3(
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
kernel.func @MatMul_1(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xbf16>) {
  matmul ins(%a, %b : memref<128x64xbf16>, memref<64x128xbf16>) outs(%c : memref<128x128xbf16>) {
  ^bb0(%x: tensor<128x64xbf16>, %y: tensor<64x128xbf16>):
    %r = graph.matmul %x, %y : (tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<128x128xbf16>
    kernel.yield %r : tensor<128x128xbf16>
  }
  return
}
func.func @main(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xbf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @MatMul_1(%a, %b, %c) : (memref<128x64xbf16>, memref<64x128xbf16>, memref<128x128xbf16>) -> ()
  return
}

