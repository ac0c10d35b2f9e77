// RUN: kiln-opt --graph-to-linalg %s -split-input-file -verify-diagnostics

// Multinomial (sequential sampling over the classes' cumulative probabilities) has no
// lowering yet.
func.func @multinomial(%x: tensor<3x5xf32>) -> tensor<3x7xi32> {
  // expected-error @+1 {{graph.multinomial: not supported on the CPU path}}
  %0 = graph.multinomial %x {dtype = i32, sample_size = 7 : i64} : (tensor<3x5xf32>) -> tensor<3x7xi32>
  return %0 : tensor<3x7xi32>
}
