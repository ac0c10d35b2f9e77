// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-simplify))' | FileCheck %s

// Dead pure ops go.
// CHECK-LABEL: func.func @dead
// CHECK-NOT: graph.exp
// CHECK: return %arg0
func.func @dead(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = graph.exp %x : tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

// Transpose by the identity permutation, and two transposes that cancel.
// CHECK-LABEL: func.func @transpose_identity
// CHECK-NOT: graph.transpose
// CHECK: return %arg0, %arg0
func.func @transpose_identity(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %t = graph.transpose %x {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = graph.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %b = graph.transpose %a {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %t, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Two transposes compose: result dim i is input dim p1[p2[i]].
// CHECK-LABEL: func.func @transpose_compose
// CHECK: %[[T:.*]] = graph.transpose %arg0 {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NOT: graph.transpose
// CHECK: return %[[T]]
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %a = graph.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %b = graph.transpose %a {perm = array<i64: 2, 1, 0>} : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  return %b : tensor<4x2x3xf32>
}

// -----

// Data movement to the input's own type is no movement.
// CHECK-LABEL: func.func @same_type
// CHECK-NOT: graph.reshape
// CHECK-NOT: graph.expand
// CHECK-NOT: graph.cast
// CHECK-NOT: graph.squeeze
// CHECK-NOT: graph.flatten
// CHECK: return %arg0, %arg0, %arg0, %arg0, %arg0
func.func @same_type(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = graph.constant dense<[2, 3]> : tensor<2xi64>
  %r = graph.reshape %x, %s {allowzero = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %one = graph.constant dense<1> : tensor<1xi64>
  %e = graph.expand %x, %one : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x3xf32>
  %c = graph.cast %x {to = f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %q = graph.squeeze %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f = graph.flatten %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r, %e, %c, %q, %f : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Not the same: a reshape between types with two dynamic extents may move them, and an
// expand of a dynamic extent may broadcast a 1.
// CHECK-LABEL: func.func @same_type_dynamic
// CHECK: graph.reshape
// CHECK: graph.expand
func.func @same_type_dynamic(%x: tensor<?x?xf32>, %s: tensor<2xi64>, %y: tensor<?x3xf32>) -> (tensor<?x?xf32>, tensor<?x3xf32>) {
  %r = graph.reshape %x, %s {allowzero = false} : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %e = graph.expand %y, %s : (tensor<?x3xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  return %r, %e : tensor<?x?xf32>, tensor<?x3xf32>
}

// -----

// Reshape of a reshape (and of a flatten) is one reshape to the final, static shape.
// CHECK-LABEL: func.func @reshape_reshape
// CHECK: %[[S:.*]] = graph.constant dense<[3, 8]> : tensor<2xi64>
// CHECK: %[[R:.*]] = graph.reshape %arg0, %[[S]] {allowzero = false} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<3x8xf32>
// CHECK: %[[F:.*]] = graph.reshape %arg0, %{{.*}} {allowzero = false} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
// CHECK: return %[[R]], %[[F]]
func.func @reshape_reshape(%x: tensor<2x3x4xf32>) -> (tensor<3x8xf32>, tensor<4x6xf32>) {
  %s1 = graph.constant dense<[6, 4]> : tensor<2xi64>
  %a = graph.reshape %x, %s1 {allowzero = false} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %s2 = graph.constant dense<[3, -1]> : tensor<2xi64>
  %b = graph.reshape %a, %s2 {allowzero = false} : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<3x8xf32>
  %f = graph.flatten %x {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %s3 = graph.constant dense<[4, 6]> : tensor<2xi64>
  %g = graph.reshape %f, %s3 {allowzero = false} : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  return %b, %g : tensor<3x8xf32>, tensor<4x6xf32>
}

// -----

// With a dynamic batch, the outer reshape's own constant target serves when it holds no 0
// (0 would copy an extent of the other input).
// CHECK-LABEL: func.func @reshape_reshape_dynamic
// CHECK: %[[S:.*]] = graph.constant dense<[-1, 8]> : tensor<2xi64>
// CHECK: %[[R:.*]] = graph.reshape %arg0, %[[S]] {allowzero = false} : (tensor<?x2x4xf32>, tensor<2xi64>) -> tensor<?x8xf32>
// CHECK: %[[Z:.*]] = graph.reshape %{{.*}}, %{{.*}} {allowzero = false} : (tensor<?x8xf32>, tensor<3xi64>) -> tensor<?x4x2xf32>
// CHECK: return %[[R]], %[[Z]]
func.func @reshape_reshape_dynamic(%x: tensor<?x2x4xf32>) -> (tensor<?x8xf32>, tensor<?x4x2xf32>) {
  %s1 = graph.constant dense<[-1, 4]> : tensor<2xi64>
  %a = graph.reshape %x, %s1 {allowzero = false} : (tensor<?x2x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  %s2 = graph.constant dense<[-1, 8]> : tensor<2xi64>
  %b = graph.reshape %a, %s2 {allowzero = false} : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x8xf32>
  %s3 = graph.constant dense<[0, 4, 2]> : tensor<3xi64>
  %c = graph.reshape %b, %s3 {allowzero = false} : (tensor<?x8xf32>, tensor<3xi64>) -> tensor<?x4x2xf32>
  return %b, %c : tensor<?x8xf32>, tensor<?x4x2xf32>
}

// -----

// Unsqueeze then Squeeze of the same axis cancel; Squeeze then Unsqueeze too. Otherwise
// the pair becomes one reshape.
// CHECK-LABEL: func.func @squeeze_pairs
// CHECK: %[[R:.*]] = graph.reshape %arg1, %{{.*}} : (tensor<1x3xf32>, tensor<2xi64>) -> tensor<3x1xf32>
// CHECK-NOT: graph.squeeze
// CHECK-NOT: graph.unsqueeze
// CHECK: return %arg0, %arg1, %[[R]]
func.func @squeeze_pairs(%x: tensor<?x3xf32>, %y: tensor<1x3xf32>) -> (tensor<?x3xf32>, tensor<1x3xf32>, tensor<3x1xf32>) {
  %axes = graph.constant dense<0> : tensor<1xi64>
  %u = graph.unsqueeze %x, %axes : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<1x?x3xf32>
  %s = graph.squeeze %u, %axes : (tensor<1x?x3xf32>, tensor<1xi64>) -> tensor<?x3xf32>
  %q = graph.squeeze %y, %axes : (tensor<1x3xf32>, tensor<1xi64>) -> tensor<3xf32>
  %v = graph.unsqueeze %q, %axes : (tensor<3xf32>, tensor<1xi64>) -> tensor<1x3xf32>
  %last = graph.constant dense<1> : tensor<1xi64>
  %w = graph.unsqueeze %q, %last : (tensor<3xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  return %s, %v, %w : tensor<?x3xf32>, tensor<1x3xf32>, tensor<3x1xf32>
}

// -----

// A widening middle type is exact: f16 -> f32 -> f64 is f16 -> f64, i8 -> i32 -> f32 is
// i8 -> f32. A narrowing one rounds and stays: f32 -> f16 -> f32.
// CHECK-LABEL: func.func @cast_cast
// CHECK: %[[A:.*]] = graph.cast %arg0 {to = f64} : (tensor<4xf16>) -> tensor<4xf64>
// CHECK: %[[B:.*]] = graph.cast %arg1 {to = f32} : (tensor<4xi8>) -> tensor<4xf32>
// CHECK: %[[C1:.*]] = graph.cast %arg2 {to = f16} : (tensor<4xf32>) -> tensor<4xf16>
// CHECK: %[[C2:.*]] = graph.cast %[[C1]] {to = f32} : (tensor<4xf16>) -> tensor<4xf32>
// CHECK: return %[[A]], %[[B]], %[[C2]], %arg0
func.func @cast_cast(%x: tensor<4xf16>, %i: tensor<4xi8>, %y: tensor<4xf32>) -> (tensor<4xf64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>) {
  %a1 = graph.cast %x {to = f32} : (tensor<4xf16>) -> tensor<4xf32>
  %a2 = graph.cast %a1 {to = f64} : (tensor<4xf32>) -> tensor<4xf64>
  %b1 = graph.cast %i {to = i32} : (tensor<4xi8>) -> tensor<4xi32>
  %b2 = graph.cast %b1 {to = f32} : (tensor<4xi32>) -> tensor<4xf32>
  %c1 = graph.cast %y {to = f16} : (tensor<4xf32>) -> tensor<4xf16>
  %c2 = graph.cast %c1 {to = f32} : (tensor<4xf16>) -> tensor<4xf32>
  %d2 = graph.cast %a1 {to = f16} : (tensor<4xf32>) -> tensor<4xf16>
  return %a2, %b2, %c2, %d2 : tensor<4xf64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>
}

// -----

// A slice of everything (INT64_MAX ends, static or dynamic extents) goes; one that drops
// an element or reverses stays.
// CHECK-LABEL: func.func @slice
// CHECK: %[[S:.*]] = graph.slice %arg0
// CHECK-SAME: -> tensor<?x3xf32>
// CHECK: %[[R:.*]] = graph.slice %arg0
// CHECK-SAME: steps
// CHECK: return %arg0, %[[S]], %[[R]]
func.func @slice(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x3xf32>, tensor<?x4xf32>) {
  %zeros = graph.constant dense<0> : tensor<2xi64>
  %max = graph.constant dense<9223372036854775807> : tensor<2xi64>
  %all = graph.slice %x, %zeros, %max : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x4xf32>
  %zero = graph.constant dense<0> : tensor<1xi64>
  %three = graph.constant dense<3> : tensor<1xi64>
  %one = graph.constant dense<1> : tensor<1xi64>
  %part = graph.slice %x, %zero, %three axes %one : (tensor<?x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x3xf32>
  %minus = graph.constant dense<-1> : tensor<1xi64>
  %min = graph.constant dense<-9223372036854775807> : tensor<1xi64>
  %rev = graph.slice %x, %minus, %min axes %one steps %minus : (tensor<?x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x4xf32>
  return %all, %part, %rev : tensor<?x4xf32>, tensor<?x3xf32>, tensor<?x4xf32>
}

// -----

// Concat of a single input.
// CHECK-LABEL: func.func @concat_single
// CHECK-NOT: graph.concat
// CHECK: return %arg0
func.func @concat_single(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = graph.concat %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

// x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1 are x; integers too.
// CHECK-LABEL: func.func @arithmetic_identities
// CHECK-NOT: graph.add
// CHECK-NOT: graph.sub
// CHECK-NOT: graph.mul
// CHECK-NOT: graph.div
// CHECK: return %arg0, %arg0, %arg0, %arg0, %arg0, %arg1
func.func @arithmetic_identities(%x: tensor<2x3xf32>, %i: tensor<4xi64>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi64>) {
  %zero = graph.constant dense<0.0> : tensor<3xf32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %a = graph.add %zero, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = graph.sub %a, %zero : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %m = graph.mul %one, %x : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %n = graph.mul %x, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %d = graph.div %x, %one : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %ione = graph.constant dense<1> : tensor<4xi64>
  %j = graph.mul %i, %ione : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %a, %s, %m, %n, %d, %j : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi64>
}

// -----

// Not identities: 0 - x, 1 / x, a one that broadcasts x to a larger shape, a constant
// that is not all ones.
// CHECK-LABEL: func.func @arithmetic_not_identities
// CHECK: graph.sub
// CHECK: graph.div
// CHECK: graph.mul
// CHECK: graph.mul
func.func @arithmetic_not_identities(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>) {
  %zero = graph.constant dense<0.0> : tensor<3xf32>
  %one = graph.constant dense<1.0> : tensor<3xf32>
  %s = graph.sub %zero, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %d = graph.div %one, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %ones = graph.constant dense<1.0> : tensor<2x3xf32>
  %b = graph.mul %x, %ones : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %mixed = graph.constant dense<[1.0, 2.0, 1.0]> : tensor<3xf32>
  %m = graph.mul %x, %mixed : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %s, %d, %b, %m : tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<3xf32>
}

// -----

// A Split with static parts becomes one Slice per used part (each can be a prologue of
// its consumer's kernel): GPT-2's split of the fused QKV projection, three equal parts
// along the last axis, the middle one unused.
// CHECK-LABEL: func.func @split_to_slices
// CHECK-NOT: graph.split
// CHECK-DAG: %[[Z:.*]] = graph.constant dense<0> : tensor<1xi64>
// CHECK-DAG: %[[FOUR:.*]] = graph.constant dense<4> : tensor<1xi64>
// CHECK-DAG: %[[EIGHT:.*]] = graph.constant dense<8> : tensor<1xi64>
// CHECK-DAG: %[[TWELVE:.*]] = graph.constant dense<12> : tensor<1xi64>
// CHECK-DAG: %[[AXIS:.*]] = graph.constant dense<2> : tensor<1xi64>
// CHECK-DAG: %[[Q:.*]] = graph.slice %arg0, %[[Z]], %[[FOUR]] axes %[[AXIS]] : {{.*}} -> tensor<1x3x4xf32>
// CHECK-DAG: %[[V:.*]] = graph.slice %arg0, %[[EIGHT]], %[[TWELVE]] axes %[[AXIS]] : {{.*}} -> tensor<1x3x4xf32>
// CHECK: return %[[Q]], %[[V]]
func.func @split_to_slices(%x: tensor<1x3x12xf32>) -> (tensor<1x3x4xf32>, tensor<1x3x4xf32>) {
  %q, %k, %v = graph.split %x {axis = -1 : i64, num_outputs = 3 : i64} : (tensor<1x3x12xf32>) -> (tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>)
  return %q, %v : tensor<1x3x4xf32>, tensor<1x3x4xf32>
}

// -----

// Explicit split sizes, with a dynamic dimension elsewhere: the parts' extents along the
// axis are static, so the slices are [0, 1) and [1, 3) of axis 0.
// CHECK-LABEL: func.func @split_sizes_to_slices
// CHECK-NOT: graph.split
// CHECK-DAG: %[[Z:.*]] = graph.constant dense<0> : tensor<1xi64>
// CHECK-DAG: %[[ONE:.*]] = graph.constant dense<1> : tensor<1xi64>
// CHECK-DAG: %[[THREE:.*]] = graph.constant dense<3> : tensor<1xi64>
// CHECK-DAG: graph.slice %arg0, %[[Z]], %[[ONE]] axes %[[Z]] : {{.*}} -> tensor<1x?xf32>
// CHECK-DAG: graph.slice %arg0, %[[ONE]], %[[THREE]] axes %[[Z]] : {{.*}} -> tensor<2x?xf32>
func.func @split_sizes_to_slices(%x: tensor<3x?xf32>) -> (tensor<1x?xf32>, tensor<2x?xf32>) {
  %sizes = graph.constant dense<[1, 2]> : tensor<2xi64>
  %a, %b = graph.split %x, %sizes {axis = 0 : i64, num_outputs = 2 : i64} : (tensor<3x?xf32>, tensor<2xi64>) -> (tensor<1x?xf32>, tensor<2x?xf32>)
  return %a, %b : tensor<1x?xf32>, tensor<2x?xf32>
}

// -----

// Parts of unknown extent (a dynamic axis, no split sizes) stay a Split.
// CHECK-LABEL: func.func @split_dynamic_stays
// CHECK: graph.split
// CHECK-NOT: graph.slice
func.func @split_dynamic_stays(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %a, %b = graph.split %x {axis = 0 : i64, num_outputs = 2 : i64} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>)
  return %a, %b : tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// GPT-2's key (gpt2.dynamo) goes through [B, H, S, D] -> [B*H, S, D] -> transposed ->
// [B, H, D, S]; graph-recognize-attention transposes it back. The transposes move before
// the reshapes that only drop or add unit dimensions, compose, and the chain is the
// head-splitting transpose alone.
// CHECK-LABEL: func.func @unit_reshape_transposes
// CHECK-SAME: (%[[X:.*]]: tensor<1x128x12x64xf32>)
// CHECK-NEXT: %[[T:.*]] = graph.transpose %[[X]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-NEXT: return %[[T]]
func.func @unit_reshape_transposes(%x: tensor<1x128x12x64xf32>) -> tensor<1x12x128x64xf32> {
  %flat = graph.constant dense<[-1, 128, 64]> : tensor<3xi64>
  %heads = graph.constant dense<[1, 12, 64, 128]> : tensor<4xi64>
  %0 = graph.transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x128x12x64xf32>) -> tensor<1x12x128x64xf32>
  %1 = graph.reshape %0, %flat {allowzero = false} : (tensor<1x12x128x64xf32>, tensor<3xi64>) -> tensor<12x128x64xf32>
  %2 = graph.transpose %1 {perm = array<i64: 0, 2, 1>} : (tensor<12x128x64xf32>) -> tensor<12x64x128xf32>
  %3 = graph.reshape %2, %heads {allowzero = false} : (tensor<12x64x128xf32>, tensor<4xi64>) -> tensor<1x12x64x128xf32>
  %4 = graph.transpose %3 {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x12x64x128xf32>) -> tensor<1x12x128x64xf32>
  return %4 : tensor<1x12x128x64xf32>
}

// -----

// A reshape that merges non-unit dimensions keeps the transpose after it.
// CHECK-LABEL: func.func @merging_reshape
// CHECK: graph.reshape
// CHECK: graph.transpose %{{.*}} {perm = array<i64: 1, 0>}
func.func @merging_reshape(%x: tensor<4x3x2xf32>) -> tensor<6x4xf32> {
  %shape = graph.constant dense<[4, 6]> : tensor<2xi64>
  %0 = graph.transpose %x {perm = array<i64: 0, 1, 2>} : (tensor<4x3x2xf32>) -> tensor<4x3x2xf32>
  %1 = graph.transpose %0 {perm = array<i64: 0, 2, 1>} : (tensor<4x3x2xf32>) -> tensor<4x2x3xf32>
  %2 = graph.reshape %1, %shape {allowzero = false} : (tensor<4x2x3xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  %3 = graph.transpose %2 {perm = array<i64: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  return %3 : tensor<6x4xf32>
}
