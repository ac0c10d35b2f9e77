// RUN: kiln-opt --graph-to-kernel %s -split-input-file -verify-diagnostics | FileCheck %s

// The gemm and the relu after it form one kernel (vertical fusion: the relu is the
// matmul template's epilogue); the host function takes its results as output buffers and
// launches the kernel, which writes the returned value straight into the output buffer.
// CHECK: memref.global "private" constant @fc_weight : memref<4x8xf32>
// CHECK-LABEL: kernel.func @Gemm_0(
// CHECK-SAME: %{{.*}}: memref<2x4xf32>, %{{.*}}: memref<4x8xf32>, %{{.*}}: memref<2x8xf32>)
// CHECK: matmul ins(%{{.*}}, %{{.*}} : memref<2x4xf32>, memref<4x8xf32>) outs(%{{.*}} : memref<2x8xf32>)
// CHECK: ^bb0(%{{.*}}: tensor<2x4xf32>, %{{.*}}: tensor<4x8xf32>):
// CHECK: %[[P:.*]] = graph.gemm
// CHECK: %[[R:.*]] = graph.relu %[[P]]
// CHECK: yield %[[R]]
// CHECK-NOT: kernel.func
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:[^:]*]]: memref<2x4xf32> {graph.name = "x", kernel.element_type = f32}, %[[Y:[^:]*]]: memref<2x8xf32> {graph.name = "y", kernel.element_type = f32})
// CHECK-SAME: attributes {kernel.num_inputs = 1 : i64}
// CHECK: %[[W:.*]] = memref.get_global @fc_weight : memref<4x8xf32>
// CHECK-NEXT: kernel.launch @Gemm_0(%[[X]], %[[W]], %[[Y]])
// CHECK-NEXT: return
func.func @main(%x: tensor<2x4xf32> {graph.name = "x"}) -> (tensor<2x8xf32> {graph.name = "y"}) {
  %w = graph.constant dense_resource<fc_weight> : tensor<4x8xf32>
  %0 = graph.gemm %x, %w {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32> loc("Gemm_0")
  %1 = graph.relu %0 : tensor<2x8xf32> loc("Relu_1")
  return %1 : tensor<2x8xf32>
}
{-#
  dialect_resources: {
    builtin: {
      fc_weight: "0x0400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    }
  }
#-}

// -----

// Small constants (axes here) are copied into the kernel; a reduction gets the reduction
// template, a transpose the movement one, an op without a template the generic one.
// CHECK-LABEL: kernel.func @reduce_sum(
// CHECK-SAME: %{{.*}}: memref<3x4xf32>, %{{.*}}: memref<3x1xf32>)
// CHECK: reduction ins
// CHECK: graph.constant dense<1> : tensor<1xi64>
// CHECK: graph.reduce_sum
// CHECK-LABEL: kernel.func @transpose(
// CHECK: movement ins
// CHECK-LABEL: kernel.func @max_pool(
// CHECK: generic ins
// CHECK-LABEL: func.func @kinds
// CHECK: kernel.launch @reduce_sum
// CHECK: kernel.launch @transpose
// CHECK: kernel.launch @max_pool
func.func @kinds(%x: tensor<3x4xf32>, %image: tensor<1x1x4x4xf32>) -> (tensor<3x1xf32>, tensor<4x3xf32>, tensor<1x1x2x2xf32>) {
  %axes = graph.constant dense<1> : tensor<1xi64>
  %0 = graph.reduce_sum %x, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  %1 = graph.transpose %x {perm = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %2:2 = graph.max_pool %image {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, storage_order = 0} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  return %0, %1, %2#0 : tensor<3x1xf32>, tensor<4x3xf32>, tensor<1x1x2x2xf32>
}

// -----

// A result that is an input, or returned twice, is copied into its output buffers.
// CHECK-LABEL: func.func @copies(
// CHECK: %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK: kernel.launch @neg(%arg0, %[[T]])
// CHECK: memref.copy %arg0, %arg1
// CHECK: memref.copy %[[T]], %arg2
// CHECK: memref.copy %[[T]], %arg3
func.func @copies(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = graph.neg %x : tensor<4xf32>
  return %x, %0, %0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
