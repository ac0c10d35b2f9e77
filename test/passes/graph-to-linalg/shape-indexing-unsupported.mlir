// RUN: kiln-opt --graph-to-linalg %s -split-input-file -verify-diagnostics

// GatherND needs the length of its index tuples at compile time.
func.func @gather_nd_dynamic_tuple(%data: tensor<2x2xf32>, %indices: tensor<3x?xi64>) -> tensor<*xf32> {
  // expected-error @+1 {{graph.gather_nd: not supported on the CPU path}}
  %0 = graph.gather_nd %data, %indices {batch_dims = 0 : i64} : (tensor<2x2xf32>, tensor<3x?xi64>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// ScatterND likewise needs the length of its index tuples.
func.func @scatter_nd_dynamic_tuple(%data: tensor<4xf32>, %indices: tensor<2x?xi64>, %updates: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{graph.scatter_nd: not supported on the CPU path}}
  %0 = graph.scatter_nd %data, %indices, %updates {reduction = "add"} : (tensor<4xf32>, tensor<2x?xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Unique of a scalar has no rows.
func.func @unique_scalar(%x: tensor<f32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<1xi64>, tensor<?xi64>) {
  // expected-error @+1 {{graph.unique: not supported on the CPU path}}
  %y, %indices, %inverse, %counts = graph.unique %x {sorted = true} : (tensor<f32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<1xi64>, tensor<?xi64>)
  return %y, %indices, %inverse, %counts : tensor<?xf32>, tensor<?xi64>, tensor<1xi64>, tensor<?xi64>
}
