// What sm80_gemm and sm80_conv leave to the generic lowering: products
// whose N or K is no multiple of 8 (16-byte copies of rows), f32 operands, batched
// products, convolutions of an RGB image (C = 3) or with a weight computed at run time.
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=sm80_gemm,sm80_conv" --kernel-instantiate-templates=target=sm_80 %s -split-input-file | FileCheck %s

// N = 50 (GPT-2's lm-head has 50257 columns).
// CHECK-LABEL: kernel.func @odd_n
// CHECK-NOT: gpu.launch_func
// CHECK: kernel.launch @odd_n
kernel.func @odd_n(%a: memref<64x64xf16>, %b: memref<64x50xf16>, %c: memref<64x50xf16>) {
  matmul ins(%a, %b : memref<64x64xf16>, memref<64x50xf16>) outs(%c : memref<64x50xf16>) {
  ^bb0(%x: tensor<64x64xf16>, %y: tensor<64x50xf16>):
    %r = graph.matmul %x, %y : (tensor<64x64xf16>, tensor<64x50xf16>) -> tensor<64x50xf16>
    kernel.yield %r : tensor<64x50xf16>
  }
  return
}
func.func @main(%a: memref<64x64xf16>, %b: memref<64x50xf16>, %c: memref<64x50xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @odd_n(%a, %b, %c) : (memref<64x64xf16>, memref<64x50xf16>, memref<64x50xf16>) -> ()
  return
}

// -----

// K = 36.
// CHECK-LABEL: kernel.func @odd_k
// CHECK-NOT: gpu.launch_func
// CHECK: kernel.launch @odd_k
kernel.func @odd_k(%a: memref<64x36xf16>, %b: memref<36x64xf16>, %c: memref<64x64xf16>) {
  matmul ins(%a, %b : memref<64x36xf16>, memref<36x64xf16>) outs(%c : memref<64x64xf16>) {
  ^bb0(%x: tensor<64x36xf16>, %y: tensor<36x64xf16>):
    %r = graph.matmul %x, %y : (tensor<64x36xf16>, tensor<36x64xf16>) -> tensor<64x64xf16>
    kernel.yield %r : tensor<64x64xf16>
  }
  return
}
func.func @main(%a: memref<64x36xf16>, %b: memref<36x64xf16>, %c: memref<64x64xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @odd_k(%a, %b, %c) : (memref<64x36xf16>, memref<36x64xf16>, memref<64x64xf16>) -> ()
  return
}

// -----

// f32 operands.
// CHECK-LABEL: kernel.func @single
// CHECK-NOT: gpu.launch_func
// CHECK: kernel.launch @single
kernel.func @single(%a: memref<128x128xf32>, %b: memref<128x128xf32>, %c: memref<128x128xf32>) {
  matmul ins(%a, %b : memref<128x128xf32>, memref<128x128xf32>) outs(%c : memref<128x128xf32>) {
  ^bb0(%x: tensor<128x128xf32>, %y: tensor<128x128xf32>):
    %r = graph.matmul %x, %y : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
    kernel.yield %r : tensor<128x128xf32>
  }
  return
}
func.func @main(%a: memref<128x128xf32>, %b: memref<128x128xf32>, %c: memref<128x128xf32>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @single(%a, %b, %c) : (memref<128x128xf32>, memref<128x128xf32>, memref<128x128xf32>) -> ()
  return
}

// -----

// A batched product.
// CHECK-LABEL: kernel.func @batched
// CHECK-NOT: gpu.launch_func
// CHECK: kernel.launch @batched
kernel.func @batched(%a: memref<2x64x64xf16>, %b: memref<2x64x64xf16>, %c: memref<2x64x64xf16>) {
  matmul ins(%a, %b : memref<2x64x64xf16>, memref<2x64x64xf16>) outs(%c : memref<2x64x64xf16>) {
  ^bb0(%x: tensor<2x64x64xf16>, %y: tensor<2x64x64xf16>):
    %r = graph.matmul %x, %y : (tensor<2x64x64xf16>, tensor<2x64x64xf16>) -> tensor<2x64x64xf16>
    kernel.yield %r : tensor<2x64x64xf16>
  }
  return
}
func.func @main(%a: memref<2x64x64xf16>, %b: memref<2x64x64xf16>, %c: memref<2x64x64xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @batched(%a, %b, %c) : (memref<2x64x64xf16>, memref<2x64x64xf16>, memref<2x64x64xf16>) -> ()
  return
}

// -----

// An RGB stem (C = 3): no 16-byte chunks of channels.
// CHECK-LABEL: kernel.func @stem
// CHECK-NOT: gpu.launch_func
// CHECK: kernel.launch @stem
memref.global "private" constant @stem_w : memref<64x7x7x3xf16> = dense<1.0>
kernel.func @stem(%x: memref<2x32x32x3xf16>, %w: memref<64x7x7x3xf16>, %y: memref<2x16x16x64xf16>) {
  conv ins(%x, %w : memref<2x32x32x3xf16>, memref<64x7x7x3xf16>) outs(%y : memref<2x16x16x64xf16>) {
  ^bb0(%a: tensor<2x32x32x3xf16>, %b: tensor<64x7x7x3xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<2x32x32x3xf16>, tensor<64x7x7x3xf16>) -> tensor<2x16x16x64xf16>
    kernel.yield %r : tensor<2x16x16x64xf16>
  }
  return
}
func.func @main(%x: memref<2x32x32x3xf16>, %y: memref<2x16x16x64xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @stem_w : memref<64x7x7x3xf16>
  kernel.launch @stem(%x, %w, %y) : (memref<2x32x32x3xf16>, memref<64x7x7x3xf16>, memref<2x16x16x64xf16>) -> ()
  return
}

// -----

// A weight computed at run time (a kernel input): no compile-time permutation.
// CHECK-LABEL: kernel.func @runtime_weight
// CHECK-NOT: gpu.launch_func
// CHECK: kernel.launch @runtime_weight
kernel.func @runtime_weight(%x: memref<2x8x8x64xf16>, %w: memref<64x3x3x64xf16>, %y: memref<2x8x8x64xf16>) {
  conv ins(%x, %w : memref<2x8x8x64xf16>, memref<64x3x3x64xf16>) outs(%y : memref<2x8x8x64xf16>) {
  ^bb0(%a: tensor<2x8x8x64xf16>, %b: tensor<64x3x3x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x8x8x64xf16>, tensor<64x3x3x64xf16>) -> tensor<2x8x8x64xf16>
    kernel.yield %r : tensor<2x8x8x64xf16>
  }
  return
}
func.func @main(%x: memref<2x8x8x64xf16>, %w: memref<64x3x3x64xf16>, %y: memref<2x8x8x64xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @runtime_weight(%x, %w, %y) : (memref<2x8x8x64xf16>, memref<64x3x3x64xf16>, memref<2x8x8x64xf16>) -> ()
  return
}
