// kernel-autotune with allow-tf32: an f32 product whose B is a constant gets the sm90
// template's tf32 configurations as candidates (tile_k = 32, tf32 = true: their own
// timing-cache keys) and the cost model picks one; without the option the f32 kernel has
// nothing to tune.
// RUN: kiln-opt --kernel-autotune=allow-tf32 %s | FileCheck %s
// RUN: kiln-opt --kernel-autotune %s | FileCheck %s --check-prefix=OFF
// CHECK-LABEL: kernel.func @large
// CHECK-SAME: kernel.config = #kernel.sm90_gemm<tile_m = 128, tile_n = {{[0-9]+}}, tile_k = 32, stages = {{[0-9]+}}, consumers = 2, tf32 = true>
// CHECK-SAME: source = "cost-model"
// OFF-LABEL: kernel.func @large
// OFF-NOT: kernel.config
memref.global "private" constant @w : memref<2048x2048xf32> = dense<0.5>
kernel.func @large(%a: memref<2048x2048xf32>, %b: memref<2048x2048xf32>, %c: memref<2048x2048xf32>) {
  matmul ins(%a, %b : memref<2048x2048xf32>, memref<2048x2048xf32>) outs(%c : memref<2048x2048xf32>) {
  ^bb0(%x: tensor<2048x2048xf32>, %y: tensor<2048x2048xf32>):
    %r = graph.matmul %x, %y : (tensor<2048x2048xf32>, tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
    kernel.yield %r : tensor<2048x2048xf32>
  }
  return
}
func.func @main(%a: memref<2048x2048xf32>, %c: memref<2048x2048xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<2048x2048xf32>
  kernel.launch @large(%a, %w, %c) : (memref<2048x2048xf32>, memref<2048x2048xf32>, memref<2048x2048xf32>) -> ()
  return
}
