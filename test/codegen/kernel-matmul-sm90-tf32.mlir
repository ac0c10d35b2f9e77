// sm90_gemm with allow-tf32: f32 products reach the warp-specialised template
// with tf32 operands (k-tiles of 32 f32 elements, wgmma m64nNk8, f32 accumulation). tf32
// wgmma reads B K-major only: a constant row-major B becomes a transposed constant global
// (N x K) made at compile time, a graph.gemm's transposed B is K-major as it is. Without
// allow-tf32 f32 kernels stay generic, and so does an f32 B computed at run time.
// graph.gemm (transposed B, a bias) reaches the template for f16 too.
// kernel-matmul-sm90-tf32-unmatched.mlir: what stays generic.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm allow-tf32=true" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s --check-prefix=OFF
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm allow-tf32=true" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// A constant B: transposed into @w_nxk (512 x 256), both tensor maps of 32-element
// (128-byte) k-tiles, B's in boxes of 64 rows of N. 256x512 has 2 x 4 tiles of 128x128:
// the 128x128 tile with 4 stages comes first; its shared memory is the f16 kernel's.
// CHECK-LABEL: memref.global "private" constant @w_nxk : memref<512x256xf32>
// CHECK-LABEL: func.func @main
// CHECK: memref.get_global @w_nxk : memref<512x256xf32>
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c128, %c32] : memref<*xf32> -> <tensor = memref<128x32xf32, 3>
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c64, %c32{{.*}}] : memref<*xf32> -> <tensor = memref<64x32xf32, 3>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f32_f32_bt_128x128x32_s4_ws2_tf32::@gemm_f32_f32_bt_128x128x32_s4_ws2_tf32 blocks in (%c8, %c1, %c1) threads in (%c384, %c1, %c1) {{ *}}dynamic_shared_memory_size %c133120_i32
// CHECK: gpu.func @gemm_f32_f32_bt_128x128x32_s4_ws2_tf32(
// B's boxes at (k0, n0 + 64 j), K innermost as in A's (k0, m0).
// CHECK: nvgpu.tma.async.load %arg0[%[[K0:[0-9]+]], %{{.*}}] to %{{.*}} : <tensor = memref<128x32xf32, 3>
// CHECK: nvgpu.tma.async.load %arg1[%[[K0]], %{{.*}}] to %{{.*}} : <tensor = memref<64x32xf32, 3>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// OFF-LABEL: func.func @main
// OFF: kernel.launch @MatMul_0
// OFF-NOT: gpu.launch_func
// PTX-LABEL: .visible .entry gemm_f32_f32_bt_128x128x32_s4_ws2_tf32(
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: wgmma.fence.sync.aligned;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// PTX: wgmma.commit_group.sync.aligned;
// PTX: wgmma.wait_group.sync.aligned 1;
memref.global "private" constant @w : memref<256x512xf32> = dense<0.5>
kernel.func @MatMul_0(%a: memref<256x256xf32>, %b: memref<256x512xf32>, %c: memref<256x512xf32>) {
  matmul ins(%a, %b : memref<256x256xf32>, memref<256x512xf32>) outs(%c : memref<256x512xf32>) {
  ^bb0(%x: tensor<256x256xf32>, %y: tensor<256x512xf32>):
    %r = graph.matmul %x, %y : (tensor<256x256xf32>, tensor<256x512xf32>) -> tensor<256x512xf32>
    kernel.yield %r : tensor<256x512xf32>
  }
  return
}
func.func @main(%a: memref<256x256xf32>, %c: memref<256x512xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<256x512xf32>
  kernel.launch @MatMul_0(%a, %w, %c) : (memref<256x256xf32>, memref<256x512xf32>, memref<256x512xf32>) -> ()
  return
}

// -----

// graph.gemm with a transposed B (N x K, here an input: nothing is copied) and a bias C
// (per column, added first by the epilogue): K-major as it is. 2 x 1 tiles of 128x128.
// CHECK-LABEL: func.func @main
// CHECK-NOT: memref.get_global
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c64, %c32{{.*}}] : memref<*xf32> -> <tensor = memref<64x32xf32, 3>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f32_f32_bt_128x128x32_s4_ws2_tf32_bias_{{[0-9a-f]+}}::@gemm_f32_f32_bt_128x128x32_s4_ws2_tf32_bias_{{[0-9a-f]+}} blocks in (%c2,
// OFF-LABEL: func.func @main
// OFF: kernel.launch @Gemm_0
// PTX-LABEL: .visible .entry gemm_f32_f32_bt_128x128x32_s4_ws2_tf32_bias_{{[0-9a-f]+}}(
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
kernel.func @Gemm_0(%a: memref<256x2048xf32>, %b: memref<128x2048xf32>, %bias: memref<128xf32>, %c: memref<256x128xf32>) {
  matmul ins(%a, %b, %bias : memref<256x2048xf32>, memref<128x2048xf32>, memref<128xf32>) outs(%c : memref<256x128xf32>) {
  ^bb0(%x: tensor<256x2048xf32>, %y: tensor<128x2048xf32>, %z: tensor<128xf32>):
    %r = graph.gemm %x, %y, %z {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<256x2048xf32>, tensor<128x2048xf32>, tensor<128xf32>) -> tensor<256x128xf32>
    kernel.yield %r : tensor<256x128xf32>
  }
  return
}
func.func @main(%a: memref<256x2048xf32>, %b: memref<128x2048xf32>, %bias: memref<128xf32>, %c: memref<256x128xf32>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @Gemm_0(%a, %b, %bias, %c) : (memref<256x2048xf32>, memref<128x2048xf32>, memref<128xf32>, memref<256x128xf32>) -> ()
  return
}

// -----

// A kernel.config that asks for tf32 (kernel-autotune's choice) is taken without the
// pass option, as when the GPU timer compiles a candidate.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f32_f32_bt_128x64x32_s6_ws2_tf32::
// OFF-LABEL: func.func @main
// OFF: gpu.launch_func {{ *}}@kiln_sm90_gemm_f32_f32_bt_128x64x32_s6_ws2_tf32::
memref.global "private" constant @w2 : memref<256x512xf32> = dense<0.25>
kernel.func @MatMul_2(%a: memref<256x256xf32>, %b: memref<256x512xf32>, %c: memref<256x512xf32>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 64, tile_k = 32, stages = 6, consumers = 2, tf32 = true>} {
  matmul ins(%a, %b : memref<256x256xf32>, memref<256x512xf32>) outs(%c : memref<256x512xf32>) {
  ^bb0(%x: tensor<256x256xf32>, %y: tensor<256x512xf32>):
    %r = graph.matmul %x, %y : (tensor<256x256xf32>, tensor<256x512xf32>) -> tensor<256x512xf32>
    kernel.yield %r : tensor<256x512xf32>
  }
  return
}
func.func @main(%a: memref<256x256xf32>, %c: memref<256x512xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w2 : memref<256x512xf32>
  kernel.launch @MatMul_2(%a, %w, %c) : (memref<256x256xf32>, memref<256x512xf32>, memref<256x512xf32>) -> ()
  return
}

// -----

// f16 graph.gemm with a transposed B and a bias (ResNet-50's classifier): the K-major B
// goes to wgmma m64nNk16 as it is (16-bit operands: no tf32 needed, so also without the
// option); B's boxes are 64 rows of N x 64 of K. In PTX no transposes (the last two
// immediates 0: both operands K-major).
// CHECK-LABEL: func.func @main
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c64{{.*}}] : memref<*xf16> -> <tensor = memref<64x64xf16, 3>
// CHECK: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_bt_128x128x64_s4_ws2_bias_{{[0-9a-f]+}}_nt::
// OFF-LABEL: func.func @main
// OFF: gpu.launch_func {{ *}}@kiln_sm90_gemm_f16_f16_bt_128x128x64_s4_ws2_bias_{{[0-9a-f]+}}_nt::
// PTX-LABEL: .visible .entry gemm_f16_f16_bt_128x128x64_s4_ws2_bias_{{[0-9a-f]+}}_nt(
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
memref.global "private" constant @fc : memref<1000x2048xf16> = dense<0.5>
memref.global "private" constant @fc_bias : memref<1000xf16> = dense<0.5>
kernel.func @Gemm_1(%a: memref<32x2048xf16>, %b: memref<1000x2048xf16>, %bias: memref<1000xf16>, %c: memref<32x1000xf16>) {
  matmul ins(%a, %b, %bias : memref<32x2048xf16>, memref<1000x2048xf16>, memref<1000xf16>) outs(%c : memref<32x1000xf16>) {
  ^bb0(%x: tensor<32x2048xf16>, %y: tensor<1000x2048xf16>, %z: tensor<1000xf16>):
    %r = graph.gemm %x, %y, %z {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<32x2048xf16>, tensor<1000x2048xf16>, tensor<1000xf16>) -> tensor<32x1000xf16>
    kernel.yield %r : tensor<32x1000xf16>
  }
  return
}
func.func @main(%a: memref<32x2048xf16>, %c: memref<32x1000xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @fc : memref<1000x2048xf16>
  %bias = memref.get_global @fc_bias : memref<1000xf16>
  kernel.launch @Gemm_1(%a, %w, %bias, %c) : (memref<32x2048xf16>, memref<1000x2048xf16>, memref<1000xf16>, memref<32x1000xf16>) -> ()
  return
}
