// sm80_gemm (passes/kernel/templates/Sm80Gemm.mlir): a GEMM on mma.sync m16n8k16
// fed by ldmatrix from a cp.async ring, for products of f16/bf16 row-major buffers; then
// its PTX for sm_80.
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=sm80_gemm" --kernel-instantiate-templates=target=sm_80 %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=sm80_gemm" --kernel-instantiate-templates=target=sm_80 --kiln-lower-gpu-device="chip=sm_80 features=+ptx80" \
// RUN:   %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// 256x512 (K 512): 8 tiles of 128x128 would leave SMs idle; 64x128 (16 tiles) does too,
// so the default is the smallest tile, 64x64: 32 CTAs of 4 warps (32x32 each), a 4-stage
// ring of 64 x 40 (A) and 32 x 72 (B) elements a stage, 4 * (5120 + 4608) bytes, below the
// f32 staging of C (64 x 72 floats, 18432 bytes).
// CHECK-LABEL: func.func @main
// CHECK: %[[A:[a-z_0-9]+]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [], strides: [] : memref<256x512xf16> to memref<f16>
// CHECK: gpu.launch_func {{ *}}@kiln_sm80_gemm_f16_f16_64x64x32_s4_w2x2::@gemm_f16_f16_64x64x32_s4_w2x2 blocks in (%c32, %c1, %c1) threads in (%c128, %c1, %c1) {{ *}}dynamic_shared_memory_size %c38912_i32 args(%[[A]] : memref<f16>, %{{.*}} : memref<f16>, %{{.*}} : memref<f16>, %c256_i32 : i32, %c512_i32 : i32, %c512_i32{{.*}} : i32)
// CHECK-NOT: kernel.func
// CHECK: gpu.func @gemm_f16_f16_64x64x32_s4_w2x2(%{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// The prologue fills 3 stages, 2 A and 2 B copies a thread each, zero-filled past the edges.
// CHECK-COUNT-12: nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1}
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 2
// CHECK: gpu.barrier
// A warp's 32x32 tile: per k16 step 2 A and 2 B (transposed) ldmatrix.x4, 2 x 4 mma.sync.
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-8: nvgpu.mma.sync
// The epilogue: the fragments to shared memory, then rows of C, 4 elements a thread.
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: vector.store {{.*}} : memref<64x72xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: arith.truncf {{.*}} : vector<4xf32> to vector<4xf16>
//
// PTX-LABEL: .visible .entry gemm_f16_f16_64x64x32_s4_w2x2(
// PTX: .maxntid 128, 1, 1
// (The loop's blocks are laid out in LLVM's order: the checks below in any order.)
// PTX-DAG: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// PTX-DAG: cp.async.commit_group;
// PTX-DAG: cp.async.wait_group 2;
// PTX-DAG: bar.sync 0;
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-DAG: cvt.rn.f16x2.f32
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

// -----

// 4096 x 4096 bf16: the 128x256 tile fills the GPU (512 tiles), 8 warps of 64x64, a
// 3-stage ring below the f32 staging of C (128 x 264 floats). bf16 products are
// nvvm.mma.sync on the operands' 32-bit registers.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm80_gemm_bf16_bf16_128x256x32_s3_w2x4::@gemm_bf16_bf16_128x256x32_s3_w2x4 blocks in (%c512, %c1, %c1) threads in (%c256, %c1, %c1) {{ *}}dynamic_shared_memory_size %c135168_i32
// CHECK: gpu.func @gemm_bf16_bf16_128x256x32_s3_w2x4
// CHECK-NOT: nvgpu.mma.sync
// CHECK: nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// PTX-LABEL: .visible .entry gemm_bf16_bf16_128x256x32_s3_w2x4(
// PTX: .maxntid 256, 1, 1
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
kernel.func @MatMul_0(%a: memref<4096x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<4096x4096xbf16>) {
  matmul ins(%a, %b : memref<4096x4096xbf16>, memref<4096x4096xbf16>) outs(%c : memref<4096x4096xbf16>) {
  ^bb0(%x: tensor<4096x4096xbf16>, %y: tensor<4096x4096xbf16>):
    %r = graph.matmul %x, %y : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>
    kernel.yield %r : tensor<4096x4096xbf16>
  }
  return
}
func.func @main(%a: memref<4096x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<4096x4096xbf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @MatMul_0(%a, %b, %c) : (memref<4096x4096xbf16>, memref<4096x4096xbf16>, memref<4096x4096xbf16>) -> ()
  return
}

// -----

// Partial tiles: M = 100, N = 72, K = 40 (N and K multiples of 8, M anything) with the
// 64x64 tile: 2 x 2 tiles, 2 k-tiles, the second half past K (zero-filled). Copies test
// their chunk against M, N and K; stores their row against M and their columns against N.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm80_gemm_f16_f16_64x64x32_s4_w2x2::@gemm_f16_f16_64x64x32_s4_w2x2 blocks in (%c4, %c1, %c1)
// CHECK-SAME: %c100_i32 : i32, %c72_i32 : i32, %c40_i32 : i32)
// CHECK: gpu.func @gemm_f16_f16_64x64x32_s4_w2x2
// CHECK: %[[NUMK:.*]] = arith.ceildivui %{{.*}}, %c32 : index
// CHECK: scf.for %{{.*}} = %c0 to %[[NUMK]] step %c1
kernel.func @MatMul_0(%a: memref<100x40xf16>, %b: memref<40x72xf16>, %c: memref<100x72xf16>) {
  matmul ins(%a, %b : memref<100x40xf16>, memref<40x72xf16>) outs(%c : memref<100x72xf16>) {
  ^bb0(%x: tensor<100x40xf16>, %y: tensor<40x72xf16>):
    %r = graph.matmul %x, %y : (tensor<100x40xf16>, tensor<40x72xf16>) -> tensor<100x72xf16>
    kernel.yield %r : tensor<100x72xf16>
  }
  return
}
func.func @main(%a: memref<100x40xf16>, %b: memref<40x72xf16>, %c: memref<100x72xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @MatMul_0(%a, %b, %c) : (memref<100x40xf16>, memref<40x72xf16>, memref<100x72xf16>) -> ()
  return
}

// -----

// A fused epilogue (BERT's ffn1: bias + GELU, rounded to f16) through the sm90 templates'
// matching and emission: the bias is the fourth parameter, read per column.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_sm80_gemm_f16_f16_{{.*}}_add_gelu_[[KEY:[0-9a-f]+]]::@gemm_f16_f16_{{.*}}_add_gelu_[[KEY]]
// CHECK-SAME: %c768_i32 : i32, %{{.*}} : memref<f16>)
// CHECK: gpu.func @gemm_f16_f16_{{.*}}_add_gelu_[[KEY]]({{.*}}: i32, %[[BIAS:.*]]: memref<f16>)
// CHECK: memref.reinterpret_cast %[[BIAS]] to offset: [0], sizes: [%{{.*}}], strides: [1] : memref<f16> to memref<?xf16>
// CHECK: llvm.inline_asm asm_dialect = att "tanh.approx.f32
// PTX-LABEL: .visible .entry gemm_f16_f16_{{.*}}_add_gelu_
// PTX: _param_6
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
memref.global "private" constant @bias : memref<3072xf16> = dense<0.5>
kernel.func @ffn1(%a: memref<1024x768xf16>, %b: memref<768x3072xf16>, %bias: memref<3072xf16>, %c: memref<1024x3072xf16>) {
  matmul ins(%a, %b, %bias : memref<1024x768xf16>, memref<768x3072xf16>, memref<3072xf16>) outs(%c : memref<1024x3072xf16>) {
  ^bb0(%x: tensor<1024x768xf16>, %y: tensor<768x3072xf16>, %z: tensor<3072xf16>):
    %p = graph.matmul %x, %y : (tensor<1024x768xf16>, tensor<768x3072xf16>) -> tensor<1024x3072xf16>
    %s = graph.add %p, %z : (tensor<1024x3072xf16>, tensor<3072xf16>) -> tensor<1024x3072xf16>
    %g = graph.gelu %s {approximate = "none"} : tensor<1024x3072xf16>
    kernel.yield %g : tensor<1024x3072xf16>
  }
  return
}
func.func @main(%a: memref<1024x768xf16>, %b: memref<768x3072xf16>, %c: memref<1024x3072xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %bias = memref.get_global @bias : memref<3072xf16>
  kernel.launch @ffn1(%a, %b, %bias, %c) : (memref<1024x768xf16>, memref<768x3072xf16>, memref<3072xf16>, memref<1024x3072xf16>) -> ()
  return
}
