// sm90_gemm with and without allow-tf32: what stays generic. An f32 B computed
// at run time (tf32 wgmma reads B K-major only, and there is no constant to transpose at
// compile time); graph.gemm with a scale (alpha) or a transposed A.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm allow-tf32=true" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s --check-prefix=OFF

// An f32 B computed at run time (no constant to transpose) stays generic, tf32 or not.
// CHECK-LABEL: func.func @main
// CHECK: kernel.launch @MatMul_1
// CHECK-NOT: gpu.launch_func
// OFF-LABEL: func.func @main
// OFF: kernel.launch @MatMul_1
kernel.func @MatMul_1(%a: memref<256x256xf32>, %b: memref<256x512xf32>, %c: memref<256x512xf32>) {
  matmul ins(%a, %b : memref<256x256xf32>, memref<256x512xf32>) outs(%c : memref<256x512xf32>) {
  ^bb0(%x: tensor<256x256xf32>, %y: tensor<256x512xf32>):
    %r = graph.matmul %x, %y : (tensor<256x256xf32>, tensor<256x512xf32>) -> tensor<256x512xf32>
    kernel.yield %r : tensor<256x512xf32>
  }
  return
}
func.func @main(%a: memref<256x256xf32>, %b: memref<256x512xf32>, %c: memref<256x512xf32>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @MatMul_1(%a, %b, %c) : (memref<256x256xf32>, memref<256x512xf32>, memref<256x512xf32>) -> ()
  return
}

// -----

// graph.gemm forms the template does not take: a scaled product (alpha), a transposed A.
// OFF-LABEL: func.func @main
// OFF: kernel.launch @Gemm_2
// OFF: kernel.launch @Gemm_3
// CHECK-LABEL: func.func @main
// CHECK: kernel.launch @Gemm_2
// CHECK: kernel.launch @Gemm_3
// CHECK-NOT: gpu.launch_func
kernel.func @Gemm_2(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf16>) {
  matmul ins(%a, %b : memref<256x256xf16>, memref<256x256xf16>) outs(%c : memref<256x256xf16>) {
  ^bb0(%x: tensor<256x256xf16>, %y: tensor<256x256xf16>):
    %r = graph.gemm %x, %y {alpha = 2.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16>
    kernel.yield %r : tensor<256x256xf16>
  }
  return
}
kernel.func @Gemm_3(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf16>) {
  matmul ins(%a, %b : memref<256x256xf16>, memref<256x256xf16>) outs(%c : memref<256x256xf16>) {
  ^bb0(%x: tensor<256x256xf16>, %y: tensor<256x256xf16>):
    %r = graph.gemm %x, %y {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = true, trans_b = false} : (tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16>
    kernel.yield %r : tensor<256x256xf16>
  }
  return
}
func.func @main(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf16>, %d: memref<256x256xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @Gemm_2(%a, %b, %c) : (memref<256x256xf16>, memref<256x256xf16>, memref<256x256xf16>) -> ()
  kernel.launch @Gemm_3(%a, %b, %d) : (memref<256x256xf16>, memref<256x256xf16>, memref<256x256xf16>) -> ()
  return
}
