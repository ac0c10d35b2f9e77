// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-fuse-sibling-matmuls{column-alignment=1}))' | FileCheck %s
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-fuse-sibling-matmuls{column-alignment=1}))' --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-fuse-sibling-matmuls))' | FileCheck %s --check-prefix=ALIGN

// BERT's Q, K and V: three matmuls of one input, each followed by a bias Add, become one
// matmul by the [K, 2 + 2 + 1] concatenated weight (row by row), one Add of the
// concatenated bias and a slice of the last axis per projection.
// CHECK-LABEL: func.func @qkv_bias
// CHECK: %[[W:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, 5.000000e+00, 6.000000e+00, 9.000000e+00], [3.000000e+00, 4.000000e+00, 7.000000e+00, 8.000000e+00, 1.000000e+01]]> : tensor<2x5xf32>
// CHECK: %[[P:.*]] = graph.matmul %arg0, %[[W]] : (tensor<1x3x2xf32>, tensor<2x5xf32>) -> tensor<1x3x5xf32>
// CHECK: %[[B:.*]] = graph.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01, 5.000000e-01]> : tensor<5xf32>
// CHECK: %[[Y:.*]] = graph.add %[[P]], %[[B]] : (tensor<1x3x5xf32>, tensor<5xf32>) -> tensor<1x3x5xf32>
// CHECK-DAG: %[[Q:.*]] = graph.slice %[[Y]], {{.*}} -> tensor<1x3x2xf32>
// CHECK-DAG: %[[K:.*]] = graph.slice %[[Y]], {{.*}} -> tensor<1x3x2xf32>
// CHECK-DAG: %[[V:.*]] = graph.slice %[[Y]], {{.*}} -> tensor<1x3x1xf32>
// CHECK-NOT: graph.matmul
// CHECK: return %[[Q]], %[[K]], %[[V]]
func.func @qkv_bias(%x: tensor<1x3x2xf32>) -> (tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x1xf32>) {
  %wq = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %bq = graph.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %wk = graph.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %bk = graph.constant dense<[0.3, 0.4]> : tensor<2xf32>
  %wv = graph.constant dense<[[9.0], [10.0]]> : tensor<2x1xf32>
  %bv = graph.constant dense<0.5> : tensor<1xf32>
  %pq = graph.matmul %x, %wq : (tensor<1x3x2xf32>, tensor<2x2xf32>) -> tensor<1x3x2xf32>
  %q = graph.add %pq, %bq : (tensor<1x3x2xf32>, tensor<2xf32>) -> tensor<1x3x2xf32>
  %pk = graph.matmul %x, %wk : (tensor<1x3x2xf32>, tensor<2x2xf32>) -> tensor<1x3x2xf32>
  %k = graph.add %bk, %pk : (tensor<2xf32>, tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  %pv = graph.matmul %x, %wv : (tensor<1x3x2xf32>, tensor<2x1xf32>) -> tensor<1x3x1xf32>
  %v = graph.add %pv, %bv : (tensor<1x3x1xf32>, tensor<1xf32>) -> tensor<1x3x1xf32>
  return %q, %k, %v : tensor<1x3x2xf32>, tensor<1x3x2xf32>, tensor<1x3x1xf32>
}

// -----

// The slices take [0, 2) and [2, 4) of the last axis; the locations of the fused ops are
// the fused locations of the originals. (The other RUN lines give column-alignment=1.)
// By default each sibling's columns start at a multiple of 8 elements: zero columns pad
// the first, the second takes [8, 10) of a [3, 10] product.
// ALIGN-LABEL: func.func @slice_bounds
// ALIGN-DAG: %[[EIGHT:.*]] = graph.constant dense<8> : tensor<1xi64>
// ALIGN-DAG: %[[TEN:.*]] = graph.constant dense<10> : tensor<1xi64>
// ALIGN-DAG: graph.matmul %arg0, %{{.*}} : (tensor<3x2xf32>, tensor<2x10xf32>) -> tensor<3x10xf32>
// ALIGN-DAG: graph.slice %{{.*}}, %[[EIGHT]], %[[TEN]] axes %{{.*}} : {{.*}} -> tensor<3x2xf32>
// CHECK-LABEL: func.func @slice_bounds
// CHECK-DAG: %[[Z:.*]] = graph.constant dense<0> : tensor<1xi64>
// CHECK-DAG: %[[TWO:.*]] = graph.constant dense<2> : tensor<1xi64>
// CHECK-DAG: %[[FOUR:.*]] = graph.constant dense<4> : tensor<1xi64>
// CHECK-DAG: %[[AXIS:.*]] = graph.constant dense<1> : tensor<1xi64>
// CHECK-DAG: graph.slice %{{.*}}, %[[Z]], %[[TWO]] axes %[[AXIS]] : {{.*}} -> tensor<3x2xf32>
// CHECK-DAG: graph.slice %{{.*}}, %{{.*}}, %[[FOUR]] axes %[[AXIS]] : {{.*}} -> tensor<3x2xf32>
// LOC-LABEL: func.func @slice_bounds
// LOC: graph.matmul %arg0, %{{.*}} loc(#[[FUSED:[a-z0-9]+]])
// LOC: graph.slice {{.*}} loc(#[[A:[a-z0-9]+]])
// LOC: graph.slice {{.*}} loc(#[[B:[a-z0-9]+]])
// LOC-DAG: #[[A]] = loc("a")
// LOC-DAG: #[[B]] = loc("b")
// LOC-DAG: #[[FUSED]] = loc(fused[#[[A]], #[[B]]])
func.func @slice_bounds(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %wa = graph.constant dense<1.0> : tensor<2x2xf32>
  %wb = graph.constant dense<2.0> : tensor<2x2xf32>
  %a = graph.matmul %x, %wa : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32> loc("a")
  %b = graph.matmul %x, %wb : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32> loc("b")
  return %a, %b : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Without any bias there is no Add; one sibling without a bias among biased ones gets
// zeros.
// CHECK-LABEL: func.func @no_bias
// CHECK: %[[P:.*]] = graph.matmul %arg0, %{{.*}} : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
// CHECK-NOT: graph.add
// CHECK: graph.slice %[[P]]
// CHECK: graph.slice %[[P]]
// CHECK-LABEL: func.func @some_bias
// CHECK: %[[B:.*]] = graph.constant dense<[0.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK: graph.add %{{.*}}, %[[B]]
func.func @no_bias(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %wa = graph.constant dense<1.0> : tensor<2x2xf32>
  %wb = graph.constant dense<2.0> : tensor<2x2xf32>
  %a = graph.matmul %x, %wa : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %b = graph.matmul %x, %wb : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %a, %b : tensor<4x2xf32>, tensor<4x2xf32>
}
func.func @some_bias(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %wa = graph.constant dense<1.0> : tensor<2x2xf32>
  %wb = graph.constant dense<2.0> : tensor<2x2xf32>
  %bb = graph.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %a = graph.matmul %x, %wa : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %pb = graph.matmul %x, %wb : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %b = graph.add %pb, %bb : (tensor<4x2xf32>, tensor<1x2xf32>) -> tensor<4x2xf32>
  return %a, %b : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// A Gemm with trans_b: its [N, K] weight is transposed before the concatenation, its C
// (beta 1) is its bias; mixed with a plain matmul of the same input.
// CHECK-LABEL: func.func @gemm_trans_b
// CHECK: %[[W:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00, 7.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00, 8.000000e+00]]> : tensor<2x4xf32>
// CHECK: %[[P:.*]] = graph.matmul %arg0, %[[W]]
// CHECK: %[[B:.*]] = graph.constant dense<[1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00]> : tensor<4xf32>
// CHECK: graph.add %[[P]], %[[B]]
// CHECK-NOT: graph.gemm
func.func @gemm_trans_b(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %wa = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %c = graph.constant dense<1.0> : tensor<f32>
  %a = graph.gemm %x, %wa, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  %wb = graph.constant dense<[[5.0, 7.0], [6.0, 8.0]]> : tensor<2x2xf32>
  %b = graph.matmul %x, %wb : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %a, %b : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Left alone: different inputs; a weight that is not a constant; a product read by its
// bias Add and by another op (the fused kernel would write both); a Gemm with alpha 2;
// a dynamic K. Each function has a single candidate at most.
// CHECK-LABEL: func.func @different_inputs
// CHECK-COUNT-2: graph.matmul
// CHECK-NOT: graph.slice
// CHECK-LABEL: func.func @non_constant_weight
// CHECK-COUNT-2: graph.matmul
// CHECK-NOT: graph.slice
// CHECK-LABEL: func.func @other_user
// CHECK-COUNT-2: graph.matmul
// CHECK-NOT: graph.slice
// CHECK-LABEL: func.func @gemm_alpha
// CHECK: graph.gemm
// CHECK: graph.matmul
// CHECK-NOT: graph.slice
// CHECK-LABEL: func.func @dynamic_k
// CHECK-COUNT-2: graph.matmul
// CHECK-NOT: graph.slice
func.func @different_inputs(%x: tensor<4x2xf32>, %y: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %w = graph.constant dense<1.0> : tensor<2x2xf32>
  %a = graph.matmul %x, %w : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %b = graph.matmul %y, %w : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %a, %b : tensor<4x2xf32>, tensor<4x2xf32>
}
func.func @non_constant_weight(%x: tensor<4x2xf32>, %w: tensor<2x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %wb = graph.constant dense<1.0> : tensor<2x2xf32>
  %a = graph.matmul %x, %w : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %b = graph.matmul %x, %wb : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %a, %b : tensor<4x2xf32>, tensor<4x2xf32>
}
func.func @other_user(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %wa = graph.constant dense<1.0> : tensor<2x2xf32>
  %wb = graph.constant dense<2.0> : tensor<2x2xf32>
  %bias = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %pa = graph.matmul %x, %wa : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %r = graph.relu %pa : tensor<4x2xf32>
  %a = graph.add %pa, %bias : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %b = graph.matmul %x, %wb : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %a, %b, %r : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}
func.func @gemm_alpha(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %wa = graph.constant dense<1.0> : tensor<2x2xf32>
  %wb = graph.constant dense<2.0> : tensor<2x2xf32>
  %a = graph.gemm %x, %wa {alpha = 2.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %b = graph.matmul %x, %wb : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %a, %b : tensor<4x2xf32>, tensor<4x2xf32>
}
func.func @dynamic_k(%x: tensor<4x?xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %wa = graph.constant dense<1.0> : tensor<2x2xf32>
  %wb = graph.constant dense<2.0> : tensor<2x2xf32>
  %a = graph.matmul %x, %wa : (tensor<4x?xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %b = graph.matmul %x, %wb : (tensor<4x?xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return %a, %b : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// A dynamic engine's projections: batch and sequence known only at run time. The fused
// product keeps the input's leading extents; each slice is the sibling's type.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: %[[W:.*]] = graph.constant dense_resource<sibling_weights> : tensor<4x5xf32>
// CHECK: %[[P:.*]] = graph.matmul %arg0, %[[W]] : (tensor<?x?x4xf32>, tensor<4x5xf32>) -> tensor<?x?x5xf32>
// CHECK: %[[B:.*]] = graph.add %[[P]], %{{.*}} : (tensor<?x?x5xf32>, tensor<5xf32>) -> tensor<?x?x5xf32>
// CHECK: graph.slice %[[B]], {{.*}} -> tensor<?x?x2xf32>
// CHECK: graph.slice %[[B]], {{.*}} -> tensor<?x?x3xf32>
// CHECK-NOT: graph.matmul
func.func @dynamic_rows(%x: tensor<?x?x4xf32>) -> (tensor<?x?x2xf32>, tensor<?x?x3xf32>) {
  %wa = graph.constant dense<1.0> : tensor<4x2xf32>
  %wb = graph.constant dense<2.0> : tensor<4x3xf32>
  %bias = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %a = graph.matmul %x, %wa : (tensor<?x?x4xf32>, tensor<4x2xf32>) -> tensor<?x?x2xf32>
  %pb = graph.matmul %x, %wb : (tensor<?x?x4xf32>, tensor<4x3xf32>) -> tensor<?x?x3xf32>
  %b = graph.add %pb, %bias : (tensor<?x?x3xf32>, tensor<3xf32>) -> tensor<?x?x3xf32>
  return %a, %b : tensor<?x?x2xf32>, tensor<?x?x3xf32>
}
