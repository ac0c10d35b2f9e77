// A tf32 configuration is no configuration of a half-precision product (nor a 16-bit one
// of an f32 product taken as tf32): an error naming the pass.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm allow-tf32=true" --kernel-instantiate-templates=target=sm_90a %s -split-input-file -verify-diagnostics

// expected-error @+1 {{kernel-instantiate-templates: #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 32, stages = 4, consumers = 2, tf32 = true> is not a configuration of this GEMM (256x256x256)}}
kernel.func @MatMul_0(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf16>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 32, stages = 4, consumers = 2, tf32 = true>} {
  matmul ins(%a, %b : memref<256x256xf16>, memref<256x256xf16>) outs(%c : memref<256x256xf16>) {
  ^bb0(%x: tensor<256x256xf16>, %y: tensor<256x256xf16>):
    %r = graph.matmul %x, %y : (tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16>
    kernel.yield %r : tensor<256x256xf16>
  }
  return
}
func.func @main(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @MatMul_0(%a, %b, %c) : (memref<256x256xf16>, memref<256x256xf16>, memref<256x256xf16>) -> ()
  return
}

// -----

memref.global "private" constant @w : memref<256x256xf32> = dense<0.5>
// expected-error @+1 {{kernel-instantiate-templates: #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2> is for a GEMM of half-precision (or tf32, int8) row-major buffers with a fusable epilogue, which this kernel is not}}
kernel.func @MatMul_1(%a: memref<256x256xf32>, %b: memref<256x256xf32>, %c: memref<256x256xf32>) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>} {
  matmul ins(%a, %b : memref<256x256xf32>, memref<256x256xf32>) outs(%c : memref<256x256xf32>) {
  ^bb0(%x: tensor<256x256xf32>, %y: tensor<256x256xf32>):
    %r = graph.matmul %x, %y : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
    kernel.yield %r : tensor<256x256xf32>
  }
  return
}
func.func @main(%a: memref<256x256xf32>, %c: memref<256x256xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<256x256xf32>
  kernel.launch @MatMul_1(%a, %w, %c) : (memref<256x256xf32>, memref<256x256xf32>, memref<256x256xf32>) -> ()
  return
}
