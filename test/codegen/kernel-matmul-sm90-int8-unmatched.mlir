// sm90_gemm leaves these i8 products to the generic lowering: one whose i32 sums
// are stored as they are (the template computes its epilogue in f32 from the accumulators,
// so an i8 product needs an epilogue that rescales them), and one whose B is computed at
// run time (int8 wgmma reads B K-major only, and only a constant is transposed at compile
// time).
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=sm90_gemm" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK: kernel.launch @raw
// CHECK: kernel.launch @runtime_b
// CHECK-NOT: gpu.launch_func
kernel.func @raw(%a: memref<256x256xi8>, %b: memref<256x256xi8>, %c: memref<256x256xi32>) {
  matmul ins(%a, %b : memref<256x256xi8>, memref<256x256xi8>) outs(%c : memref<256x256xi32>) {
  ^bb0(%x: tensor<256x256xi8>, %y: tensor<256x256xi8>):
    %p = graph.matmul %x, %y : (tensor<256x256xi8>, tensor<256x256xi8>) -> tensor<256x256xi32>
    kernel.yield %p : tensor<256x256xi32>
  }
  return
}
kernel.func @runtime_b(%a: memref<256x256xi8>, %b: memref<256x256xi8>, %c: memref<256x256xf32>) {
  matmul ins(%a, %b : memref<256x256xi8>, memref<256x256xi8>) outs(%c : memref<256x256xf32>) {
  ^bb0(%x: tensor<256x256xi8>, %y: tensor<256x256xi8>):
    %p = graph.matmul %x, %y : (tensor<256x256xi8>, tensor<256x256xi8>) -> tensor<256x256xi32>
    %f = graph.cast %p {to = f32} : (tensor<256x256xi32>) -> tensor<256x256xf32>
    kernel.yield %f : tensor<256x256xf32>
  }
  return
}
func.func @main(%a: memref<256x256xi8>, %b: memref<256x256xi8>, %c: memref<256x256xi32>, %d: memref<256x256xf32>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @raw(%a, %b, %c) : (memref<256x256xi8>, memref<256x256xi8>, memref<256x256xi32>) -> ()
  kernel.launch @runtime_b(%a, %b, %d) : (memref<256x256xi8>, memref<256x256xi8>, memref<256x256xf32>) -> ()
  return
}
