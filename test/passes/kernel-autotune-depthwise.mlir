// kernel-autotune offers depthwise convolution kernels depthwise's
// configurations on every GPU target; without a timer the cost model keeps the default
// (its first candidate), ahead of the generic lowering.
// RUN: kiln-opt --split-input-file --kernel-autotune %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kernel-autotune=target=sm_80 %s | FileCheck %s

// CHECK-LABEL: kernel.func @Nhwc
// CHECK-SAME: kernel.config = #kernel.depthwise<pixels = 4, threads = 256>
// CHECK-SAME: source = "cost-model"
memref.global "private" constant @w : memref<96x3x3x1xf16> = dense<1.0>
kernel.func @Nhwc(%x: memref<32x56x56x96xf16>, %w: memref<96x3x3x1xf16>, %y: memref<32x56x56x96xf16>) {
  conv ins(%x, %w : memref<32x56x56x96xf16>, memref<96x3x3x1xf16>) outs(%y : memref<32x56x56x96xf16>) {
  ^bb0(%a: tensor<32x56x56x96xf16>, %b: tensor<96x3x3x1xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 96 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<32x56x56x96xf16>, tensor<96x3x3x1xf16>) -> tensor<32x56x56x96xf16>
    kernel.yield %r : tensor<32x56x56x96xf16>
  }
  return
}
func.func @main(%x: memref<32x56x56x96xf16>, %y: memref<32x56x56x96xf16>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<96x3x3x1xf16>
  kernel.launch @Nhwc(%x, %w, %y) : (memref<32x56x56x96xf16>, memref<96x3x3x1xf16>, memref<32x56x56x96xf16>) -> ()
  return
}

// -----

// CHECK-LABEL: kernel.func @Nchw
// CHECK-SAME: kernel.config = #kernel.depthwise<pixels = 4, tile_h = 28, tile_w = 28, planes = 1>
// CHECK-SAME: source = "cost-model"
memref.global "private" constant @w : memref<192x1x3x3xf32> = dense<1.0>
kernel.func @Nchw(%x: memref<32x192x28x28xf32>, %w: memref<192x1x3x3xf32>, %y: memref<32x192x28x28xf32>) {
  conv ins(%x, %w : memref<32x192x28x28xf32>, memref<192x1x3x3xf32>) outs(%y : memref<32x192x28x28xf32>) {
  ^bb0(%a: tensor<32x192x28x28xf32>, %b: tensor<192x1x3x3xf32>):
    %r = graph.conv %a, %b {dilations = array<i64: 1, 1>, group = 192 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<32x192x28x28xf32>, tensor<192x1x3x3xf32>) -> tensor<32x192x28x28xf32>
    kernel.yield %r : tensor<32x192x28x28xf32>
  }
  return
}
func.func @main(%x: memref<32x192x28x28xf32>, %y: memref<32x192x28x28xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %w = memref.get_global @w : memref<192x1x3x3xf32>
  kernel.launch @Nchw(%x, %w, %y) : (memref<32x192x28x28xf32>, memref<192x1x3x3xf32>, memref<32x192x28x28xf32>) -> ()
  return
}
