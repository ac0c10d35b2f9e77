// RUN: kiln-opt --graph-to-linalg %s -split-input-file -verify-diagnostics

// A convolution needs static channel and spatial extents (kiln run specialises shapes).
func.func @conv_dynamic_spatial(%x: tensor<1x3x?x?xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x?x?xf32> {
  // expected-error @+1 {{graph.conv: not supported on the CPU path: no lowering for this form}}
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x3x?x?xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x?x?xf32>
  return %0 : tensor<1x8x?x?xf32>
}

// -----

// A channels-last max pool computes no indices (graph-convert-layout converts only pools
// whose indices are unused).
func.func @max_pool_channels_last_indices(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xi64> {
  // expected-error @+1 {{graph.max_pool: not supported on the CPU path: no lowering for this form}}
  %0, %1 = graph.max_pool %x {channels_last, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, storage_order = 0} : (tensor<1x4x4x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  return %1 : tensor<1x2x2x2xi64>
}

// -----

// A matrix product whose dynamic batch extent may broadcast.
func.func @matmul_dynamic_broadcast(%a: tensor<?x4x5xf32>, %b: tensor<1x5x6xf32>) -> tensor<?x4x6xf32> {
  // expected-error @+1 {{graph.matmul: not supported on the CPU path: no lowering for this form}}
  %0 = graph.matmul %a, %b : (tensor<?x4x5xf32>, tensor<1x5x6xf32>) -> tensor<?x4x6xf32>
  return %0 : tensor<?x4x6xf32>
}

// -----

// Average pooling is defined on floats only.
func.func @average_pool_integer(%x: tensor<1x1x4x4xi32>) -> tensor<1x1x2x2xi32> {
  // expected-error @+1 {{graph.average_pool: not supported on the CPU path: no lowering for this form}}
  %0 = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x4x4xi32>) -> tensor<1x1x2x2xi32>
  return %0 : tensor<1x1x2x2xi32>
}
