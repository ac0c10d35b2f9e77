// Fused epilogues sm90_gemm cannot take stay on the generic path, unchanged: an
// operand broadcast along the columns and the batches (one value per row of a matrix,
// shared by the batches of C; one value per row of C itself it takes), a kernel that stores two
// results (the product and its ReLU), a result cast to an integer type, and an
// inlined constant of several distinct values. A configuration forced on a fused kernel
// must still be legal for its product.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: kernel.func @per_row
// CHECK-LABEL: kernel.func @two_results
// CHECK-LABEL: kernel.func @to_integer
// CHECK-LABEL: kernel.func @vector_constant
// CHECK-NOT: gpu.module
// CHECK-COUNT-4: kernel.launch
kernel.func @per_row(%a: memref<2x128x64xf16>, %b: memref<64x128xf16>, %r: memref<128x1xf16>, %c: memref<2x128x128xf16>) {
  matmul ins(%a, %b, %r : memref<2x128x64xf16>, memref<64x128xf16>, memref<128x1xf16>) outs(%c : memref<2x128x128xf16>) {
  ^bb0(%x: tensor<2x128x64xf16>, %y: tensor<64x128xf16>, %z: tensor<128x1xf16>):
    %p = graph.matmul %x, %y : (tensor<2x128x64xf16>, tensor<64x128xf16>) -> tensor<2x128x128xf16>
    %s = graph.add %p, %z : (tensor<2x128x128xf16>, tensor<128x1xf16>) -> tensor<2x128x128xf16>
    kernel.yield %s : tensor<2x128x128xf16>
  }
  return
}
kernel.func @two_results(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf16>, %d: memref<128x128xf16>) {
  matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c, %d : memref<128x128xf16>, memref<128x128xf16>) {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x128xf16>):
    %p = graph.matmul %x, %y : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
    %s = graph.relu %p : tensor<128x128xf16>
    kernel.yield %p, %s : tensor<128x128xf16>, tensor<128x128xf16>
  }
  return
}
kernel.func @to_integer(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xi32>) {
  matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xi32>) {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x128xf16>):
    %p = graph.matmul %x, %y : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf16>
    %s = graph.cast %p {to = i32} : (tensor<128x128xf16>) -> tensor<128x128xi32>
    kernel.yield %s : tensor<128x128xi32>
  }
  return
}
kernel.func @vector_constant(%a: memref<128x64xf16>, %b: memref<64x8xf16>, %c: memref<128x8xf16>) {
  matmul ins(%a, %b : memref<128x64xf16>, memref<64x8xf16>) outs(%c : memref<128x8xf16>) {
  ^bb0(%x: tensor<128x64xf16>, %y: tensor<64x8xf16>):
    %k = graph.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf16>
    %p = graph.matmul %x, %y : (tensor<128x64xf16>, tensor<64x8xf16>) -> tensor<128x8xf16>
    %s = graph.mul %p, %k : (tensor<128x8xf16>, tensor<8xf16>) -> tensor<128x8xf16>
    kernel.yield %s : tensor<128x8xf16>
  }
  return
}
func.func @main(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %r: memref<128x1xf16>, %c: memref<128x128xf16>, %d: memref<128x128xf16>, %i: memref<128x128xi32>, %b8: memref<64x8xf16>, %c8: memref<128x8xf16>, %a2: memref<2x128x64xf16>, %c2: memref<2x128x128xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @per_row(%a2, %b, %r, %c2) : (memref<2x128x64xf16>, memref<64x128xf16>, memref<128x1xf16>, memref<2x128x128xf16>) -> ()
  kernel.launch @two_results(%a, %b, %c, %d) : (memref<128x64xf16>, memref<64x128xf16>, memref<128x128xf16>, memref<128x128xf16>) -> ()
  kernel.launch @to_integer(%a, %b, %i) : (memref<128x64xf16>, memref<64x128xf16>, memref<128x128xi32>) -> ()
  kernel.launch @vector_constant(%a, %b8, %c8) : (memref<128x64xf16>, memref<64x8xf16>, memref<128x8xf16>) -> ()
  return
}

// -----

// expected-error @+1 {{kernel-instantiate-templates: #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, split_k = 8> is not a configuration of this GEMM (256x3072x768)}}
kernel.func @split_too_far(%a: memref<256x768xf16>, %b: memref<768x3072xf16>, %bias: memref<3072xf16>, %c: memref<256x3072xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2, split_k = 8>} {
  matmul ins(%a, %b, %bias : memref<256x768xf16>, memref<768x3072xf16>, memref<3072xf16>) outs(%c : memref<256x3072xf16>) {
  ^bb0(%x: tensor<256x768xf16>, %y: tensor<768x3072xf16>, %z: tensor<3072xf16>):
    %p = graph.matmul %x, %y : (tensor<256x768xf16>, tensor<768x3072xf16>) -> tensor<256x3072xf16>
    %s = graph.add %p, %z : (tensor<256x3072xf16>, tensor<3072xf16>) -> tensor<256x3072xf16>
    %g = graph.gelu %s {approximate = "tanh"} : tensor<256x3072xf16>
    kernel.yield %g : tensor<256x3072xf16>
  }
  return
}
func.func @main(%a: memref<256x768xf16>, %b: memref<768x3072xf16>, %bias: memref<3072xf16>, %c: memref<256x3072xf16>) attributes {kernel.num_inputs = 3 : i64} {
  kernel.launch @split_too_far(%a, %b, %bias, %c) : (memref<256x768xf16>, memref<768x3072xf16>, memref<3072xf16>, memref<256x3072xf16>) -> ()
  return
}
