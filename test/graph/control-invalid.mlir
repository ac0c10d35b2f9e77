// RUN: kiln-opt %s -split-input-file -verify-diagnostics

func.func @if_condition(%c: tensor<2xi1>, %a: tensor<3xf32>) {
  // expected-error @+1 {{condition must be a boolean tensor with one element, got 'tensor<2xi1>'}}
  %r = graph.if %c : tensor<2xi1> -> tensor<3xf32> {
    graph.yield %a : tensor<3xf32>
  } else {
    graph.yield %a : tensor<3xf32>
  }
  return
}

// -----

func.func @if_branch_count(%c: tensor<i1>, %a: tensor<3xf32>) {
  // expected-error @+1 {{the else branch yields 2 values for 1 results}}
  %r = graph.if %c : tensor<i1> -> tensor<3xf32> {
    graph.yield %a : tensor<3xf32>
  } else {
    graph.yield %a, %a : tensor<3xf32>, tensor<3xf32>
  }
  return
}

// -----

func.func @if_branch_type(%c: tensor<i1>, %a: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{the then branch yields 'tensor<4xf32>' for result 0 of type 'tensor<3xf32>'}}
  %r = graph.if %c : tensor<i1> -> tensor<3xf32> {
    graph.yield %b : tensor<4xf32>
  } else {
    graph.yield %a : tensor<3xf32>
  }
  return
}

// -----

func.func @loop_arguments(%n: tensor<i64>, %x: tensor<2xf32>) {
  // expected-error @+1 {{the body takes 2 arguments; expected the iteration number, the condition and 1 carried values}}
  %r = graph.loop max_trip_count %n : tensor<i64> iter_args(%x : tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>):
    graph.yield %cond, %x : tensor<i1>, tensor<2xf32>
  }
  return
}

// -----

func.func @loop_carried_type(%n: tensor<i64>, %x: tensor<2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{carried value 0 has incompatible types}}
  %r = graph.loop max_trip_count %n : tensor<i64> iter_args(%x : tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<2xf32>):
    graph.yield %cond, %y : tensor<i1>, tensor<3xf32>
  }
  return
}

// -----

func.func @loop_scan_rank(%n: tensor<i64>, %x: tensor<2xf32>) {
  // expected-error @+1 {{scan output 0 has rank 1; the body yields rank 1, so the stacked result needs rank 2}}
  %r:2 = graph.loop max_trip_count %n : tensor<i64> iter_args(%x : tensor<2xf32>) -> tensor<2xf32>, tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<2xf32>):
    graph.yield %cond, %acc, %acc : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_directions(%init: tensor<2xf32>, %xs: tensor<3x2xf32>) {
  // expected-error @+1 {{directions must be 0 (forward) or 1 (backward)}}
  %r:2 = graph.scan states(%init : tensor<2xf32>) inputs(%xs : tensor<3x2xf32>) -> tensor<2xf32>, tensor<3x2xf32> {
  ^bb0(%s: tensor<2xf32>, %x: tensor<2xf32>):
    graph.yield %s, %x : tensor<2xf32>, tensor<2xf32>
  } {scan_input_axes = array<i64: 0>, scan_input_directions = array<i64: 2>,
     scan_output_axes = array<i64: 0>, scan_output_directions = array<i64: 0>}
  return
}

// -----

func.func @scan_axes_count(%init: tensor<2xf32>, %xs: tensor<3x2xf32>) {
  // expected-error @+1 {{needs one scan_input_axes and scan_input_directions entry per scan input (1)}}
  %r:2 = graph.scan states(%init : tensor<2xf32>) inputs(%xs : tensor<3x2xf32>) -> tensor<2xf32>, tensor<3x2xf32> {
  ^bb0(%s: tensor<2xf32>, %x: tensor<2xf32>):
    graph.yield %s, %x : tensor<2xf32>, tensor<2xf32>
  } {scan_input_axes = array<i64>, scan_input_directions = array<i64: 0>,
     scan_output_axes = array<i64: 0>, scan_output_directions = array<i64: 0>}
  return
}

// -----

func.func @yield_outside(%a: tensor<3xf32>) {
  // expected-error @+1 {{expects parent op to be one of 'graph.if, graph.loop, graph.scan'}}
  graph.yield %a : tensor<3xf32>
}
