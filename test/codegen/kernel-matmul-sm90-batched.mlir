// sm90_gemm on batched products of two activations (a matmul of [.., M, K] by [.., K, N],
// batch dimensions broadcast): A's and B's matrices as stacks read through 3-D tensor maps
// (boxes of one matrix: 1 x 128 x 64 of A, 1 x 64 x 64 of B), C as all of its matrices'
// rows, ceil(M / 128) tiles a matrix. The operands' matrices follow from C's by their
// broadcast strides, which name the kernel with the batch extents and M. Then through
// the device lowering to PTX (3-D TMA loads). The sm80 template refuses them.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=sm80_gemm" %s -split-input-file | FileCheck %s --check-prefix=SM80

// Attention's scores of 4 x 12 heads: Q [4, 12, 128, 64] by a key [4, 1, 64, 128] that
// every head shares (a grouped-query attention's): A's strides 12 and 1, B's 1 and 0.
// CHECK-LABEL: func.func @main
// CHECK: memref.reinterpret_cast %arg0 to offset: [0], sizes: [48, 128, 64], strides: [8192, 64, 1]
// CHECK: memref.reinterpret_cast %arg1 to offset: [0], sizes: [4, 64, 128], strides: [8192, 128, 1]
// CHECK: memref.reinterpret_cast %arg2 to offset: [0], sizes: [6144, 128], strides: [128, 1]
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c1, %c128, %c64] : memref<*xf16> -> <tensor = memref<1x128x64xf16, 3>
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<1x64x64xf16, 3>
// CHECK: gpu.launch_func @kiln_sm90_gemm_f16_f16_{{.*}}_b4x12r128_sa12x1_sb1x0::
// CHECK: gpu.func @gemm_f16_f16_{{.*}}_b4x12r128_sa12x1_sb1x0(
// CHECK: memref.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [1, 64, 64]
// PTX: cp.async.bulk.tensor.3d
// SM80: kernel.func @Scores({{.*}}) attributes {kernel.config = #kernel.generic}
kernel.func @Scores(%q: memref<4x12x128x64xf16>, %k: memref<4x1x64x128xf16>, %s: memref<4x12x128x128xf16>) {
  matmul ins(%q, %k : memref<4x12x128x64xf16>, memref<4x1x64x128xf16>) outs(%s : memref<4x12x128x128xf16>) {
  ^bb0(%a: tensor<4x12x128x64xf16>, %b: tensor<4x1x64x128xf16>):
    %r = graph.matmul %a, %b : (tensor<4x12x128x64xf16>, tensor<4x1x64x128xf16>) -> tensor<4x12x128x128xf16>
    kernel.yield %r : tensor<4x12x128x128xf16>
  }
  return
}
func.func @main(%q: memref<4x12x128x64xf16>, %k: memref<4x1x64x128xf16>, %s: memref<4x12x128x128xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @Scores(%q, %k, %s) : (memref<4x12x128x64xf16>, memref<4x1x64x128xf16>, memref<4x12x128x128xf16>) -> ()
  return
}
