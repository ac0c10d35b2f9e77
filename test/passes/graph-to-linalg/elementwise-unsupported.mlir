// RUN: kiln-opt --graph-to-linalg %s -split-input-file -verify-diagnostics

// A remainder of booleans has no meaning in ONNX (Mod takes numbers): rejected by name.
func.func @mod_bool(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{graph.mod: not supported on the CPU path: no lowering for this form}}
  %0 = graph.mod %a, %b {fmod = false} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Likewise a power of booleans.
func.func @pow_bool(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{graph.pow: not supported on the CPU path: no lowering for this form}}
  %0 = graph.pow %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
