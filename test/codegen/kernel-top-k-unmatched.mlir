// kernel-select-templates: the TopK kernels the top_k family leaves to the generic
// lowering (kernel-top-k.mlir: those it takes).
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=top_k" %s | FileCheck %s

// What the family leaves to the generic lowering: i64 values (no 32-bit order), and k
// beyond the 4096 keys a CTA ranks in shared memory.
// CHECK: kernel.func @Wide({{.*}}) attributes {kernel.config = #kernel.generic}
// CHECK: kernel.func @Many({{.*}}) attributes {kernel.config = #kernel.generic}
// CHECK-LABEL: func.func @main
// CHECK: kernel.launch @Wide
// CHECK: kernel.launch @Many
kernel.func @Wide(%x: memref<2x100xi64>, %i: memref<2x10xi64>) {
  reduction ins(%x : memref<2x100xi64>) outs(%i : memref<2x10xi64>) {
  ^bb0(%a: tensor<2x100xi64>):
    %k = graph.constant dense<10> : tensor<1xi64>
    %values, %indices = graph.top_k %a, %k {axis = 1 : i64, largest = true, sorted = true} : (tensor<2x100xi64>, tensor<1xi64>) -> (tensor<2x10xi64>, tensor<2x10xi64>)
    kernel.yield %indices : tensor<2x10xi64>
  }
  return
}
kernel.func @Many(%x: memref<10000xf32>, %i: memref<5000xi64>) {
  reduction ins(%x : memref<10000xf32>) outs(%i : memref<5000xi64>) {
  ^bb0(%a: tensor<10000xf32>):
    %k = graph.constant dense<5000> : tensor<1xi64>
    %values, %indices = graph.top_k %a, %k {axis = 0 : i64, largest = true, sorted = true} : (tensor<10000xf32>, tensor<1xi64>) -> (tensor<5000xf32>, tensor<5000xi64>)
    kernel.yield %indices : tensor<5000xi64>
  }
  return
}
func.func @main(%x: memref<2x100xi64>, %y: memref<10000xf32>) -> (memref<2x10xi64>, memref<5000xi64>) attributes {kernel.num_inputs = 2 : i64} {
  %i = memref.alloc() : memref<2x10xi64>
  kernel.launch @Wide(%x, %i) : (memref<2x100xi64>, memref<2x10xi64>) -> ()
  %j = memref.alloc() : memref<5000xi64>
  kernel.launch @Many(%y, %j) : (memref<10000xf32>, memref<5000xi64>) -> ()
  return %i, %j : memref<2x10xi64>, memref<5000xi64>
}
