// RUN: kiln-opt --graph-to-linalg %s -split-input-file -verify-diagnostics

// LogSumExp of integers has no lowering.
func.func @log_sum_exp_int(%x: tensor<3x4xi32>) -> tensor<3x1xi32> {
  %axes = graph.constant dense<[1]> : tensor<1xi64>
  // expected-error @+1 {{graph.reduce_log_sum_exp: not supported on the CPU path}}
  %0 = graph.reduce_log_sum_exp %x, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<3x4xi32>, tensor<1xi64>) -> tensor<3x1xi32>
  return %0 : tensor<3x1xi32>
}

// -----

// TopK of booleans has no order to keep.
func.func @top_k_bool(%x: tensor<3x4xi1>) -> (tensor<3x2xi1>, tensor<3x2xi64>) {
  %k = graph.constant dense<[2]> : tensor<1xi64>
  // expected-error @+1 {{graph.top_k: not supported on the CPU path}}
  %v, %i = graph.top_k %x, %k {axis = 1 : i64, largest = true, sorted = true} : (tensor<3x4xi1>, tensor<1xi64>) -> (tensor<3x2xi1>, tensor<3x2xi64>)
  return %v, %i : tensor<3x2xi1>, tensor<3x2xi64>
}
