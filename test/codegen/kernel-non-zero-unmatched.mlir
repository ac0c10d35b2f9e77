// kernel-select-templates: the NonZero kernels the non_zero family does not take stay
// with the generic lowering (a kernel.launch of the kernel.func).
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=non_zero" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s

// An input computed in the kernel (a fused comparison) is not a buffer the family reads.
// CHECK-LABEL: func.func @main
// CHECK: kernel.launch @NonZero_computed
kernel.func @NonZero_computed(%x: memref<100xf32>, %out: memref<1x?xi64>) {
  movement ins(%x : memref<100xf32>) outs(%out : memref<1x?xi64>) {
  ^bb0(%a: tensor<100xf32>):
    %zero = graph.constant dense<0.0> : tensor<f32>
    %p = graph.greater %a, %zero : (tensor<100xf32>, tensor<f32>) -> tensor<100xi1>
    %nz = graph.non_zero %p : (tensor<100xi1>) -> tensor<1x?xi64>
    kernel.yield %nz : tensor<1x?xi64>
  }
  return
}
func.func @main(%x: memref<100xf32>, %rows: index) attributes {kernel.num_inputs = 1 : i64} {
  %out = memref.alloc(%rows) : memref<1x?xi64>
  kernel.launch @NonZero_computed(%x, %out) : (memref<100xf32>, memref<1x?xi64>) -> ()
  return
}

// -----

// Positions rearranged by anything but the transpose of their two axes (here a reshape
// of a rank-1 input's [1, n] positions) are not a layout the family writes.
// CHECK-LABEL: func.func @main
// CHECK: kernel.launch @NonZero_reshaped
kernel.func @NonZero_reshaped(%x: memref<100xf32>, %out: memref<?xi64>) {
  movement ins(%x : memref<100xf32>) outs(%out : memref<?xi64>) {
  ^bb0(%a: tensor<100xf32>):
    %nz = graph.non_zero %a : (tensor<100xf32>) -> tensor<1x?xi64>
    %shape = graph.constant dense<-1> : tensor<1xi64>
    %r = graph.reshape %nz, %shape {allowzero = false} : (tensor<1x?xi64>, tensor<1xi64>) -> tensor<?xi64>
    kernel.yield %r : tensor<?xi64>
  }
  return
}
func.func @main(%x: memref<100xf32>, %rows: index) attributes {kernel.num_inputs = 1 : i64} {
  %out = memref.alloc(%rows) : memref<?xi64>
  kernel.launch @NonZero_reshaped(%x, %out) : (memref<100xf32>, memref<?xi64>) -> ()
  return
}

// -----

// Unsigned elements (ONNX's uint8) stay generic: the kernels compare with arith, which
// takes signless integers only.
// CHECK-LABEL: func.func @main
// CHECK: kernel.launch @NonZero_unsigned
kernel.func @NonZero_unsigned(%x: memref<100xui8>, %out: memref<1x?xi64>) {
  movement ins(%x : memref<100xui8>) outs(%out : memref<1x?xi64>) {
  ^bb0(%a: tensor<100xui8>):
    %nz = graph.non_zero %a : (tensor<100xui8>) -> tensor<1x?xi64>
    kernel.yield %nz : tensor<1x?xi64>
  }
  return
}
func.func @main(%x: memref<100xui8>, %rows: index) attributes {kernel.num_inputs = 1 : i64} {
  %out = memref.alloc(%rows) : memref<1x?xi64>
  kernel.launch @NonZero_unsigned(%x, %out) : (memref<100xui8>, memref<1x?xi64>) -> ()
  return
}
