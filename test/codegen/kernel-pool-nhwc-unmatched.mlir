// pool_nhwc leaves the max pools it cannot take to the generic lowering.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=pool_nhwc" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s

// 3 channels (no 16-byte vector), and a channels-first pool.
// CHECK-LABEL: kernel.func @Rgb
// CHECK: graph.max_pool
// CHECK-LABEL: kernel.func @Planes
// CHECK: graph.max_pool
// CHECK-LABEL: func.func @main
// CHECK-NOT: gpu.launch_func
// CHECK: kernel.launch @Rgb
// CHECK: kernel.launch @Planes
kernel.func @Rgb(%x: memref<1x8x8x3xf16>, %y: memref<1x4x4x3xf16>) {
  generic ins(%x : memref<1x8x8x3xf16>) outs(%y : memref<1x4x4x3xf16>) {
  ^bb0(%a: tensor<1x8x8x3xf16>):
    %r, %i = graph.max_pool %a {ceil_mode = false, channels_last, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, storage_order = 0 : i64, strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf16>) -> (tensor<1x4x4x3xf16>, tensor<1x4x4x3xi64>)
    kernel.yield %r : tensor<1x4x4x3xf16>
  }
  return
}
kernel.func @Planes(%x: memref<1x16x8x8xf16>, %y: memref<1x16x4x4xf16>) {
  generic ins(%x : memref<1x16x8x8xf16>) outs(%y : memref<1x16x4x4xf16>) {
  ^bb0(%a: tensor<1x16x8x8xf16>):
    %r, %i = graph.max_pool %a {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, storage_order = 0 : i64, strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf16>) -> (tensor<1x16x4x4xf16>, tensor<1x16x4x4xi64>)
    kernel.yield %r : tensor<1x16x4x4xf16>
  }
  return
}
func.func @main(%x: memref<1x8x8x3xf16>, %y: memref<1x4x4x3xf16>, %u: memref<1x16x8x8xf16>, %v: memref<1x16x4x4xf16>) attributes {kernel.num_inputs = 2 : i64} {
  kernel.launch @Rgb(%x, %y) : (memref<1x8x8x3xf16>, memref<1x4x4x3xf16>) -> ()
  kernel.launch @Planes(%u, %v) : (memref<1x16x8x8xf16>, memref<1x16x4x4xf16>) -> ()
  return
}
