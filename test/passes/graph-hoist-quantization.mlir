// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-hoist-quantization))' | FileCheck %s

// A stem: ReLU, MaxPool, then two quantizations alike (a block's first conv and its
// downsampling conv). The quantization moves in front of the pool, which then pools i8.
// CHECK-LABEL: func.func @stem
// CHECK: %[[R:.*]] = graph.relu %arg0
// CHECK: %[[Q:.*]] = graph.quantize_linear %[[R]], %{{.*}}, %{{.*}} {{.*}} : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xi8>
// CHECK: %[[P:.*]], %{{.*}} = graph.max_pool %[[Q]] {{.*}} : (tensor<1x4x8x8xi8>) -> (tensor<1x4x4x4xi8>, tensor<1x4x4x4xi64>)
// CHECK-NOT: graph.quantize_linear
// CHECK: %[[D:.*]] = graph.dequantize_linear %[[P]]
// CHECK: %[[E:.*]] = graph.dequantize_linear %[[P]]
// CHECK: return %[[D]], %[[E]]
func.func @stem(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %s = graph.constant dense<0.05> : tensor<f32>
  %z = graph.constant dense<0> : tensor<i8>
  %s2 = graph.constant dense<0.05> : tensor<f32>
  %r = graph.relu %x : tensor<1x4x8x8xf32>
  %p, %i = graph.max_pool %r {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, ceil_mode = false, storage_order = 0} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
  %q1 = graph.quantize_linear %p, %s, %z {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x4x4xi8>
  %q2 = graph.quantize_linear %p, %s2, %z {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x4x4xi8>
  %d1 = graph.dequantize_linear %q1, %s, %z {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x4x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x4x4xf32>
  %d2 = graph.dequantize_linear %q2, %s2, %z {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x4x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x4x4xf32>
  return %d1, %d2 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// What stays: a pool read as a float too, two different scales, a negative scale (not
// monotonic increasing), a per-channel scale, and read indices.
// CHECK-LABEL: func.func @stays
// CHECK-COUNT-5: graph.max_pool %arg0 {{.*}} : (tensor<1x2x4x4xf32>)
func.func @stays(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xi64>) {
  %s = graph.constant dense<0.05> : tensor<f32>
  %t = graph.constant dense<0.1> : tensor<f32>
  %n = graph.constant dense<-0.05> : tensor<f32>
  %c = graph.constant dense<[0.05, 0.1]> : tensor<2xf32>
  %z = graph.constant dense<0> : tensor<i8>
  %zc = graph.constant dense<0> : tensor<2xi8>
  %p1, %i1 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, storage_order = 0} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  %q1 = graph.quantize_linear %p1, %s, %z {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x2x2xi8>
  %p2, %i2 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, storage_order = 0} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  %q2 = graph.quantize_linear %p2, %s, %z {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x2x2xi8>
  %q3 = graph.quantize_linear %p2, %t, %z {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x2x2xi8>
  %p3, %i3 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, storage_order = 0} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  %q4 = graph.quantize_linear %p3, %n, %z {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x2x2xi8>
  %p4, %i4 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, storage_order = 0} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  %q5 = graph.quantize_linear %p4, %c, %zc {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xi8>) -> tensor<1x2x2x2xi8>
  %p5, %i5 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, storage_order = 0} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  %q6 = graph.quantize_linear %p5, %s, %z {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x2x2xi8>
  return %p1, %q1, %q2, %q3, %q4, %q5, %i5 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xi64>
}
