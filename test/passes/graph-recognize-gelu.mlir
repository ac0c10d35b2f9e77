// graph-recognize-gelu replaces the exporters' decomposed GELU (erf and tanh forms) by
// graph.gelu; near misses stay as they are.
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-recognize-gelu))' | FileCheck %s

// BERT and ViT through the TorchScript exporter (bert_base.legacy17, vit_b_16.legacy17):
// ((x * (1 + erf(x / 1.4142135))) * 0.5).
// CHECK-LABEL: func.func @erf_torchscript
// CHECK-SAME: (%[[X:.*]]: tensor<?x128x3072xf32>)
// CHECK: %[[Y:.*]] = graph.gelu %[[X]] {approximate = "none"} : tensor<?x128x3072xf32>
// CHECK-NOT: graph.erf
// CHECK: return %[[Y]]
func.func @erf_torchscript(%x: tensor<?x128x3072xf32>) -> tensor<?x128x3072xf32> {
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %0 = graph.div %x, %sqrt2 : (tensor<?x128x3072xf32>, tensor<f32>) -> tensor<?x128x3072xf32>
  %1 = graph.erf %0 : tensor<?x128x3072xf32>
  %2 = graph.add %1, %one : (tensor<?x128x3072xf32>, tensor<f32>) -> tensor<?x128x3072xf32>
  %3 = graph.mul %x, %2 : (tensor<?x128x3072xf32>, tensor<?x128x3072xf32>) -> tensor<?x128x3072xf32>
  %4 = graph.mul %3, %half : (tensor<?x128x3072xf32>, tensor<f32>) -> tensor<?x128x3072xf32>
  return %4 : tensor<?x128x3072xf32>
}

// -----

// The same models through torch.export (bert_base.dynamo, vit_b_16.dynamo): the 0.5
// applied to (1 + erf) first, x last: (x * (0.5 * (1 + erf(x / 1.4142135)))).
// CHECK-LABEL: func.func @erf_dynamo
// CHECK: graph.gelu %{{.*}} {approximate = "none"} : tensor<2x16x3072xf32>
// CHECK-NOT: graph.mul
func.func @erf_dynamo(%x: tensor<2x16x3072xf32>) -> tensor<2x16x3072xf32> {
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %0 = graph.div %x, %sqrt2 : (tensor<2x16x3072xf32>, tensor<f32>) -> tensor<2x16x3072xf32>
  %1 = graph.erf %0 : tensor<2x16x3072xf32>
  %2 = graph.add %1, %one : (tensor<2x16x3072xf32>, tensor<f32>) -> tensor<2x16x3072xf32>
  %3 = graph.mul %half, %2 : (tensor<f32>, tensor<2x16x3072xf32>) -> tensor<2x16x3072xf32>
  %4 = graph.mul %x, %3 : (tensor<2x16x3072xf32>, tensor<2x16x3072xf32>) -> tensor<2x16x3072xf32>
  return %4 : tensor<2x16x3072xf32>
}

// -----

// The argument as x * 0.70710678, the 0.5 applied to x first, operands swapped.
// CHECK-LABEL: func.func @erf_mul_form
// CHECK: graph.gelu %{{.*}} {approximate = "none"} : tensor<8xf32>
func.func @erf_mul_form(%x: tensor<8xf32>) -> tensor<8xf32> {
  %rsqrt2 = graph.constant dense<0.707106769> : tensor<1xf32>
  %one = graph.constant dense<1.0> : tensor<1xf32>
  %half = graph.constant dense<0.5> : tensor<1xf32>
  %0 = graph.mul %rsqrt2, %x : (tensor<1xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = graph.erf %0 : tensor<8xf32>
  %2 = graph.add %one, %1 : (tensor<1xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = graph.mul %half, %x : (tensor<1xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = graph.mul %2, %3 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %4 : tensor<8xf32>
}

// -----

// GPT-2 through torch.export (gpt2.dynamo): ((x * 0.5) * (1 + tanh(0.7978846 * (x +
// 0.044715 * x^3)))) with x^3 as Pow, and the constants as the exporter rounded them.
// CHECK-LABEL: func.func @tanh_gpt2
// CHECK-SAME: (%[[X:.*]]: tensor<?x3072xf32>)
// CHECK: graph.gelu %[[X]] {approximate = "tanh"} : tensor<?x3072xf32>
// CHECK-NOT: graph.tanh
// CHECK-NOT: graph.pow
func.func @tanh_gpt2(%x: tensor<?x3072xf32>) -> tensor<?x3072xf32> {
  %three = graph.constant dense<3.0> : tensor<f32>
  %c = graph.constant dense<0.044714998453855515> : tensor<f32>
  %k = graph.constant dense<0.7978845834732056> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %0 = graph.pow %x, %three : (tensor<?x3072xf32>, tensor<f32>) -> tensor<?x3072xf32>
  %1 = graph.mul %0, %c : (tensor<?x3072xf32>, tensor<f32>) -> tensor<?x3072xf32>
  %2 = graph.add %x, %1 : (tensor<?x3072xf32>, tensor<?x3072xf32>) -> tensor<?x3072xf32>
  %3 = graph.mul %2, %k : (tensor<?x3072xf32>, tensor<f32>) -> tensor<?x3072xf32>
  %4 = graph.tanh %3 : tensor<?x3072xf32>
  %5 = graph.add %4, %one : (tensor<?x3072xf32>, tensor<f32>) -> tensor<?x3072xf32>
  %6 = graph.mul %x, %half : (tensor<?x3072xf32>, tensor<f32>) -> tensor<?x3072xf32>
  %7 = graph.mul %6, %5 : (tensor<?x3072xf32>, tensor<?x3072xf32>) -> tensor<?x3072xf32>
  return %7 : tensor<?x3072xf32>
}

// -----

// x^3 as x * (x * x), the other groupings of the products.
// CHECK-LABEL: func.func @tanh_products
// CHECK: graph.gelu %{{.*}} {approximate = "tanh"} : tensor<4x8xf32>
func.func @tanh_products(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = graph.constant dense<0.044715> : tensor<f32>
  %k = graph.constant dense<0.797884583> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %sq = graph.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %cube = graph.mul %x, %sq : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = graph.mul %c, %cube : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = graph.add %1, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = graph.mul %k, %2 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = graph.tanh %3 : tensor<4x8xf32>
  %5 = graph.add %one, %4 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = graph.mul %5, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = graph.mul %half, %6 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %7 : tensor<4x8xf32>
}

// -----

// 0.6 instead of 0.5 is not GELU.
// CHECK-LABEL: func.func @wrong_half
// CHECK-NOT: graph.gelu
// CHECK: graph.erf
func.func @wrong_half(%x: tensor<8xf32>) -> tensor<8xf32> {
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.6> : tensor<f32>
  %0 = graph.div %x, %sqrt2 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = graph.erf %0 : tensor<8xf32>
  %2 = graph.add %1, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %3 = graph.mul %x, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = graph.mul %3, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %4 : tensor<8xf32>
}

// -----

// A model exported in f16 writes sqrt(2) as 1.41406 (1.1e-4 relative): within f16's own
// rounding (2^-11), so the tolerance follows the constant's type.
// CHECK-LABEL: func.func @erf_f16
// CHECK: graph.gelu %{{.*}} {approximate = "none"} : tensor<8xf16>
func.func @erf_f16(%x: tensor<8xf16>) -> tensor<8xf16> {
  %sqrt2 = graph.constant dense<1.41406> : tensor<f16>
  %one = graph.constant dense<1.0> : tensor<f16>
  %half = graph.constant dense<0.5> : tensor<f16>
  %0 = graph.div %x, %sqrt2 : (tensor<8xf16>, tensor<f16>) -> tensor<8xf16>
  %1 = graph.erf %0 : tensor<8xf16>
  %2 = graph.add %1, %one : (tensor<8xf16>, tensor<f16>) -> tensor<8xf16>
  %3 = graph.mul %x, %2 : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  %4 = graph.mul %3, %half : (tensor<8xf16>, tensor<f16>) -> tensor<8xf16>
  return %4 : tensor<8xf16>
}

// -----

// In f16 a constant further off than its rounding (1.4150, 5.6e-4 relative) still is not
// sqrt(2).
// CHECK-LABEL: func.func @wrong_sqrt2_f16
// CHECK-NOT: graph.gelu
func.func @wrong_sqrt2_f16(%x: tensor<8xf16>) -> tensor<8xf16> {
  %sqrt2 = graph.constant dense<1.4150> : tensor<f16>
  %one = graph.constant dense<1.0> : tensor<f16>
  %half = graph.constant dense<0.5> : tensor<f16>
  %0 = graph.div %x, %sqrt2 : (tensor<8xf16>, tensor<f16>) -> tensor<8xf16>
  %1 = graph.erf %0 : tensor<8xf16>
  %2 = graph.add %1, %one : (tensor<8xf16>, tensor<f16>) -> tensor<8xf16>
  %3 = graph.mul %x, %2 : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  %4 = graph.mul %3, %half : (tensor<8xf16>, tensor<f16>) -> tensor<8xf16>
  return %4 : tensor<8xf16>
}

// -----

// A constant off by more than the tolerance (1.4143 for sqrt(2), 7e-5 relative) is not
// GELU either.
// CHECK-LABEL: func.func @wrong_sqrt2
// CHECK-NOT: graph.gelu
func.func @wrong_sqrt2(%x: tensor<8xf32>) -> tensor<8xf32> {
  %sqrt2 = graph.constant dense<1.4143> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %0 = graph.div %x, %sqrt2 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = graph.erf %0 : tensor<8xf32>
  %2 = graph.add %1, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %3 = graph.mul %x, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = graph.mul %3, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %4 : tensor<8xf32>
}

// -----

// An intermediate with another use (the erf is also returned): left alone.
// CHECK-LABEL: func.func @intermediate_used_elsewhere
// CHECK-NOT: graph.gelu
func.func @intermediate_used_elsewhere(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %0 = graph.div %x, %sqrt2 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = graph.erf %0 : tensor<8xf32>
  %2 = graph.add %1, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %3 = graph.mul %x, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = graph.mul %3, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %4, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// The product of another value than the Erf's x, and a 0.5 that broadcasts x to a larger
// shape: neither is GELU of x.
// CHECK-LABEL: func.func @other_input
// CHECK-NOT: graph.gelu
func.func @other_input(%x: tensor<8xf32>, %z: tensor<8xf32>) -> tensor<8xf32> {
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %0 = graph.div %x, %sqrt2 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = graph.erf %0 : tensor<8xf32>
  %2 = graph.add %1, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %3 = graph.mul %z, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = graph.mul %3, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %4 : tensor<8xf32>
}

// CHECK-LABEL: func.func @broadcasting_constant
// CHECK-NOT: graph.gelu
func.func @broadcasting_constant(%x: tensor<8xf32>) -> tensor<2x8xf32> {
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<2x1xf32>
  %0 = graph.div %x, %sqrt2 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = graph.erf %0 : tensor<8xf32>
  %2 = graph.add %1, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %3 = graph.mul %x, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = graph.mul %3, %half : (tensor<8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}
