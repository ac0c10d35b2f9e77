// RUN: kiln-opt --split-input-file --kernel-autotune --verify-diagnostics %s

// expected-error @+1 {{kernel-autotune: kernel.config must be a dictionary such as #kernel.generic, not "fast"}}
kernel.func @not_a_dictionary(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<1024x1024xf16>) attributes {kernel.config = "fast"} {
  matmul ins(%a, %b : memref<1024x1024xf16>, memref<1024x1024xf16>) outs(%c : memref<1024x1024xf16>) {
  ^bb0(%x: tensor<1024x1024xf16>, %y: tensor<1024x1024xf16>):
    %r = graph.matmul %x, %y : (tensor<1024x1024xf16>, tensor<1024x1024xf16>) -> tensor<1024x1024xf16>
    kernel.yield %r : tensor<1024x1024xf16>
  }
  return
}
