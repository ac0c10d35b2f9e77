// RUN: kiln-opt --graph-to-linalg %s -split-input-file | FileCheck %s

// If: scf.if on the condition's single element; each branch yields its value cast to the
// (possibly less static) result type.
// CHECK-LABEL: func.func @if
// CHECK: tensor.extract
// CHECK: scf.if
// CHECK: scf.yield
// CHECK: } else {
// CHECK: scf.yield
func.func @if(%c: tensor<i1>, %a: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<5xf32> {
  %0 = graph.if %c : tensor<i1> -> tensor<5xf32> {
    graph.yield %a : tensor<5xf32>
  } else {
    graph.yield %b : tensor<5xf32>
  }
  return %0 : tensor<5xf32>
}

// -----

// RandomNormal: one linalg.generic over the output hashing the linear element index;
// Box-Muller needs a logarithm, a square root and a cosine.
// CHECK-LABEL: func.func @random_normal
// CHECK: linalg.generic
// CHECK: linalg.index
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: math.cos
func.func @random_normal() -> tensor<2x3xf32> {
  %0 = graph.random_normal {dtype = f32, mean = 0.0 : f32, scale = 1.0 : f32, shape = array<i64: 2, 3>, seed = 1.0 : f32} : () -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Bernoulli: a uniform sample compared with each probability.
// CHECK-LABEL: func.func @bernoulli
// CHECK: linalg.generic
// CHECK: arith.cmpf olt
func.func @bernoulli(%p: tensor<10xf32>) -> tensor<10xf32> {
  %0 = graph.bernoulli %p {dtype = f32} : (tensor<10xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}
