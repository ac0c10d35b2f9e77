// Round trip of graph.if, graph.loop and graph.scan.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// Branches may yield more refined types than the result; bodies use outer values.
// CHECK-LABEL: func.func @if
// CHECK: graph.if %{{.*}} : tensor<i1> -> tensor<?xf32> {
// CHECK: graph.yield %{{.*}} : tensor<3xf32>
// CHECK: } else {
// CHECK: graph.yield %{{.*}} : tensor<4xf32>
func.func @if(%c: tensor<i1>, %a: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<?xf32> {
  %r = graph.if %c : tensor<i1> -> tensor<?xf32> {
    graph.yield %a : tensor<3xf32>
  } else {
    graph.yield %b : tensor<4xf32>
  }
  return %r : tensor<?xf32>
}

// CHECK-LABEL: func.func @loop
// CHECK: graph.loop max_trip_count %{{.*}} : tensor<i64> iter_args(%{{.*}} : tensor<2xf32>) -> tensor<2xf32>, tensor<?x2xf32>
// CHECK: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<2xf32>):
// CHECK: graph.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<i1>, tensor<2xf32>, tensor<2xf32>
func.func @loop(%n: tensor<i64>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>) {
  %r:2 = graph.loop max_trip_count %n : tensor<i64> iter_args(%x : tensor<2xf32>) -> tensor<2xf32>, tensor<?x2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<2xf32>):
    %next = graph.add %acc, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    graph.yield %cond, %next, %next : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  }
  return %r#0, %r#1 : tensor<2xf32>, tensor<?x2xf32>
}

// CHECK-LABEL: func.func @scan
// CHECK: graph.scan states(%{{.*}} : tensor<2xf32>) inputs(%{{.*}} : tensor<3x2xf32>) -> tensor<2xf32>, tensor<3x2xf32>
// CHECK: scan_input_directions = array<i64: 1>
func.func @scan(%init: tensor<2xf32>, %xs: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  %r:2 = graph.scan states(%init : tensor<2xf32>) inputs(%xs : tensor<3x2xf32>) -> tensor<2xf32>, tensor<3x2xf32> {
  ^bb0(%s: tensor<2xf32>, %x: tensor<2xf32>):
    %n = graph.add %s, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    graph.yield %n, %n : tensor<2xf32>, tensor<2xf32>
  } {scan_input_axes = array<i64: 0>, scan_input_directions = array<i64: 1>,
     scan_output_axes = array<i64: 0>, scan_output_directions = array<i64: 0>}
  return %r#0, %r#1 : tensor<2xf32>, tensor<3x2xf32>
}
