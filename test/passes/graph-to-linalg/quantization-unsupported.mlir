// RUN: kiln-opt --graph-to-linalg %s -split-input-file -verify-diagnostics

// Blocked quantization has no lowering yet.
func.func @quantize_blocked(%x: tensor<3x4xf32>, %s: tensor<3x2xf32>, %zp: tensor<3x2xi8>) -> tensor<3x4xi8> {
  // expected-error @+1 {{graph.quantize_linear: not supported on the CPU path}}
  %0 = graph.quantize_linear %x, %s, %zp {axis = 1 : i64, block_size = 2 : i64, saturate = true} : (tensor<3x4xf32>, tensor<3x2xf32>, tensor<3x2xi8>) -> tensor<3x4xi8>
  return %0 : tensor<3x4xi8>
}
