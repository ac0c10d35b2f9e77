// Reduction and index ops reject shapes and attributes that contradict their ONNX
// semantics. Each failed shape rule is followed by the generic "failed to infer returned
// types", which these cases leave unchecked (only-expected).
// RUN: kiln-opt %s -split-input-file -verify-diagnostics=only-expected

func.func @reduce_axis_out_of_range(%x: tensor<2x3xf32>) {
  %axes = graph.constant dense<[2]> : tensor<1xi64>
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = graph.reduce_sum %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_axis_twice(%x: tensor<2x3xf32>) {
  %axes = graph.constant dense<[1, -1]> : tensor<2xi64>
  // expected-error @+1 {{axis -1 is reduced twice}}
  %0 = graph.reduce_mean %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x1xf32>
  return
}

// -----

func.func @reduce_axes_not_i64(%x: tensor<2x3xf32>, %axes: tensor<1xi32>) {
  // expected-error @+1 {{axes must have element type i64, got 'i32'}}
  %0 = graph.reduce_max %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @reduce_axes_not_1d(%x: tensor<2x3xf32>, %axes: tensor<1x1xi64>) {
  // expected-error @+1 {{axes must be a 1-D tensor, got rank 2}}
  %0 = graph.reduce_min %x, %axes {keepdims = true, noop_with_empty_axes = false}
      : (tensor<2x3xf32>, tensor<1x1xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @reduce_too_many_axes(%x: tensor<2x3xf32>, %axes: tensor<3xi64>) {
  // expected-error @+1 {{3 axes given for rank 2}}
  %0 = graph.reduce_prod %x, %axes {keepdims = false, noop_with_empty_axes = false}
      : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @reduce_wrong_result(%x: tensor<2x3xf32>) {
  %axes = graph.constant dense<[0]> : tensor<1xi64>
  // expected-error @+1 {{'graph.reduce_l2' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  %0 = graph.reduce_l2 %x, %axes {keepdims = false, noop_with_empty_axes = false}
      : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @cumsum_axis_not_integer(%x: tensor<2x3xf32>, %axis: tensor<f32>) {
  // expected-error @+1 {{axis must have element type i32 or i64, got 'f32'}}
  %0 = graph.cumsum %x, %axis {exclusive = false, reverse = false}
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @cumsum_axis_not_scalar(%x: tensor<2x3xf32>, %axis: tensor<2xi64>) {
  // expected-error @+1 {{axis must be a scalar, got a tensor of type 'tensor<2xi64>'}}
  %0 = graph.cumsum %x, %axis {exclusive = false, reverse = false}
      : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @cumsum_axis_out_of_range(%x: tensor<2x3xf32>) {
  %axis = graph.constant dense<-3> : tensor<i64>
  // expected-error @+1 {{axis -3 is out of range for rank 2}}
  %0 = graph.cumsum %x, %axis {exclusive = false, reverse = false}
      : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @argmax_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = graph.argmax %x {axis = 2 : i64, keepdims = true, select_last_index = false}
      : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return
}

// -----

func.func @top_k_k_not_i64(%x: tensor<3x4xf32>, %k: tensor<1xi32>) {
  // expected-error @+1 {{k must have element type i64, got 'i32'}}
  %v, %i = graph.top_k %x, %k {axis = -1 : i64, largest = true, sorted = true}
      : (tensor<3x4xf32>, tensor<1xi32>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
  return
}

// -----

func.func @top_k_k_not_one_element(%x: tensor<3x4xf32>, %k: tensor<2xi64>) {
  // expected-error @+1 {{k must be a 1-D tensor of one element, got 'tensor<2xi64>'}}
  %v, %i = graph.top_k %x, %k {axis = -1 : i64, largest = true, sorted = true}
      : (tensor<3x4xf32>, tensor<2xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
  return
}

// -----

func.func @top_k_negative_k(%x: tensor<3x4xf32>) {
  %k = graph.constant dense<-1> : tensor<1xi64>
  // expected-error @+1 {{k must not be negative, got -1}}
  %v, %i = graph.top_k %x, %k {axis = -1 : i64, largest = true, sorted = true}
      : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
  return
}

// -----

func.func @top_k_k_too_large(%x: tensor<3x4xf32>) {
  %k = graph.constant dense<5> : tensor<1xi64>
  // expected-error @+1 {{k (5) exceeds the extent 4 of axis -1}}
  %v, %i = graph.top_k %x, %k {axis = -1 : i64, largest = true, sorted = true}
      : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
  return
}

// -----

func.func @top_k_axis_out_of_range(%x: tensor<3x4xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %v, %i = graph.top_k %x, %k {axis = 2 : i64, largest = true, sorted = true}
      : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
  return
}
