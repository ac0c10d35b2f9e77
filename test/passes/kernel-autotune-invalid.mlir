// kernel-autotune's bad options are errors naming the pass. (A `kernel.config` that is no
// template configuration is the kernel dialect's error: test/kernel/invalid.mlir.)
// RUN: kiln-opt --kernel-autotune=budget=-1 --verify-diagnostics %s

// expected-error @below {{kernel-autotune: the budget is -1.00 s; it must be 0 or more}}
module {
  kernel.func @matmul(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<1024x1024xf16>) {
    matmul ins(%a, %b : memref<1024x1024xf16>, memref<1024x1024xf16>) outs(%c : memref<1024x1024xf16>) {
    ^bb0(%x: tensor<1024x1024xf16>, %y: tensor<1024x1024xf16>):
      %r = graph.matmul %x, %y : (tensor<1024x1024xf16>, tensor<1024x1024xf16>) -> tensor<1024x1024xf16>
      kernel.yield %r : tensor<1024x1024xf16>
    }
    return
  }
}
