// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(graph-reduce-precision{type=f8}))' -verify-diagnostics

// expected-error @below {{graph-reduce-precision: type must be f16 or bf16, not 'f8'}}
func.func @unknown_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
