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

// Loop: an scf.while carrying the iteration number, the condition and the state; a scan
// output whose rows the type states is a buffer of those rows, written at the iteration's
// row while it fits (no allocation in the loop).
// CHECK-LABEL: func.func @loop_declared_rows
// CHECK: %[[ROWS:.*]] = tensor.empty() : tensor<5x2xf32>
// CHECK: scf.while ({{.*}}%[[STACK:.*]] = %[[ROWS]]) : (i64, i1, tensor<2xf32>, tensor<5x2xf32>)
// CHECK: arith.cmpi slt
// CHECK: } do {
// CHECK: %[[FULL:.*]] = arith.cmpi uge
// CHECK: scf.if %[[FULL]] -> (tensor<5x2xf32>)
// CHECK: } else {
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<5x2xf32>
// CHECK-NOT: tensor.extract_slice
// CHECK: return
func.func @loop_declared_rows(%n: tensor<i64>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<5x2xf32>) {
  %r:2 = graph.loop max_trip_count %n : tensor<i64> iter_args(%x : tensor<2xf32>) -> tensor<2xf32>, tensor<5x2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<2xf32>):
    %next = graph.add %acc, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    graph.yield %cond, %next, %next : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  }
  return %r#0, %r#1 : tensor<2xf32>, tensor<5x2xf32>
}

// -----

// A scan output of unknown rows grows (twice its rows when full) and is trimmed to the
// iterations run.
// CHECK-LABEL: func.func @loop_growing_rows
// CHECK: scf.while
// CHECK: } do {
// CHECK: %[[FULL:.*]] = arith.cmpi uge
// CHECK: scf.if %[[FULL]] -> (tensor<?x2xf32>)
// CHECK: arith.muli
// CHECK: tensor.empty
// CHECK: tensor.insert_slice
// CHECK: tensor.extract_slice
func.func @loop_growing_rows(%n: tensor<i64>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>) {
  %r:2 = graph.loop max_trip_count %n : tensor<i64> iter_args(%x : tensor<2xf32>) -> tensor<2xf32>, tensor<?x2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<2xf32>):
    %next = graph.add %acc, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    graph.yield %cond, %next, %next : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  }
  return %r#0, %r#1 : tensor<2xf32>, tensor<?x2xf32>
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
