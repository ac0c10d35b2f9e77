// RUN: kiln-opt --graph-to-linalg %s -split-input-file -verify-diagnostics

// An op without a lowering for its form (every lowering needs ranked tensors) is an error
// that names it, and its ONNX node when the location carries one.
func.func @no_lowering(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{graph.relu: not supported on the CPU path: no lowering for this form}}
  %0 = graph.relu %x : tensor<*xf32>
  return %0 : tensor<*xf32>
}
