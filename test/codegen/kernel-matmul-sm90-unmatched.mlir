// sm90_gemm leaves to the generic lowering the matmul kernels that do not fit
// its templates: f32 operands, a K-major B (trans_b) whose rows of K are not a multiple of
// 8 (its tensor map needs 16-byte row strides; a row-major operand of such rows is loaded
// by the producer's threads: kernel-matmul-sm90-unaligned.mlir), an op after the product
// that is not elementwise (fused epilogues:
// kernel-matmul-sm90-epilogue{,-unmatched}.mlir).
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s

// CHECK-LABEL: kernel.func @f32_operands
// CHECK-LABEL: kernel.func @odd_k_transposed_b
// CHECK-LABEL: kernel.func @with_epilogue
// CHECK-NOT: gpu.module
// CHECK-COUNT-3: kernel.launch
kernel.func @f32_operands(%a: memref<128x64xf32>, %b: memref<64x128xf32>, %c: memref<128x128xf32>) {
  matmul ins(%a, %b : memref<128x64xf32>, memref<64x128xf32>) outs(%c : memref<128x128xf32>) {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64x128xf32>):
    %r = graph.matmul %x, %y : (tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<128x128xf32>
    kernel.yield %r : tensor<128x128xf32>
  }
  return
}
kernel.func @odd_k_transposed_b(%a: memref<128x100xf16>, %b: memref<128x100xf16>, %c: memref<128x128xf16>) {
  matmul ins(%a, %b : memref<128x100xf16>, memref<128x100xf16>) outs(%c : memref<128x128xf16>) {
  ^bb0(%x: tensor<128x100xf16>, %y: tensor<128x100xf16>):
    %r = graph.gemm %x, %y {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<128x100xf16>, tensor<128x100xf16>) -> tensor<128x128xf16>
    kernel.yield %r : tensor<128x128xf16>
  }
  return
}
kernel.func @with_epilogue(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>) {
  matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf16>) {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x128xf16>):
    %r = graph.matmul %x, %y : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
    %s = graph.softmax %r {axis = 1 : i64} : (tensor<128x128xf16>) -> tensor<128x128xf16>
    kernel.yield %s : tensor<128x128xf16>
  }
  return
}
func.func @main(%a: memref<128x64xf32>, %b: memref<64x128xf32>, %c: memref<128x128xf32>, %d: memref<128x100xf16>, %e: memref<128x100xf16>, %f: memref<128x128xf16>, %g: memref<128x64xf16>, %h: memref<64x128xf16>, %i: memref<128x128xf16>) attributes {kernel.num_inputs = 6 : i64} {
  kernel.launch @f32_operands(%a, %b, %c) : (memref<128x64xf32>, memref<64x128xf32>, memref<128x128xf32>) -> ()
  kernel.launch @odd_k_transposed_b(%d, %e, %f) : (memref<128x100xf16>, memref<128x100xf16>, memref<128x128xf16>) -> ()
  kernel.launch @with_epilogue(%g, %h, %i) : (memref<128x64xf16>, memref<64x128xf16>, memref<128x128xf16>) -> ()
  return
}
