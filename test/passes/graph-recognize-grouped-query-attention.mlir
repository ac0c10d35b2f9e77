// graph-recognize-grouped-query-attention: key and value heads repeated for the query
// heads of their group (Unsqueeze/Expand/Reshape as Hugging Face's repeat_kv, or a Gather
// of head h / g) are read unrepeated by graph.attention.
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-recognize-grouped-query-attention))' | FileCheck %s

// repeat_kv: 2 key/value heads for 8 query heads; the repeats are erased.
// CHECK-LABEL: func.func @repeat_kv(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x8x16x64xf16>, %[[K:[^:]*]]: tensor<2x2x16x64xf16>, %[[V:[^:]*]]: tensor<2x2x16x64xf16>)
// CHECK-NOT: graph.expand
// CHECK: graph.attention %[[Q]], %[[K]], %[[V]] {scale = 1.250000e-01 : f32} : (tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16>
func.func @repeat_kv(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  %axis = graph.constant dense<2> : tensor<1xi64>
  %expanded = graph.constant dense<[2, 2, 4, 16, 64]> : tensor<5xi64>
  %merged = graph.constant dense<[2, 8, 16, 64]> : tensor<4xi64>
  %k1 = graph.unsqueeze %k, %axis : (tensor<2x2x16x64xf16>, tensor<1xi64>) -> tensor<2x2x1x16x64xf16>
  %k2 = graph.expand %k1, %expanded : (tensor<2x2x1x16x64xf16>, tensor<5xi64>) -> tensor<2x2x4x16x64xf16>
  %k3 = graph.reshape %k2, %merged {allowzero = false} : (tensor<2x2x4x16x64xf16>, tensor<4xi64>) -> tensor<2x8x16x64xf16>
  %v1 = graph.unsqueeze %v, %axis : (tensor<2x2x16x64xf16>, tensor<1xi64>) -> tensor<2x2x1x16x64xf16>
  %v2 = graph.expand %v1, %expanded : (tensor<2x2x1x16x64xf16>, tensor<5xi64>) -> tensor<2x2x4x16x64xf16>
  %v3 = graph.reshape %v2, %merged {allowzero = false} : (tensor<2x2x4x16x64xf16>, tensor<4xi64>) -> tensor<2x8x16x64xf16>
  %y = graph.attention %q, %k3, %v3 {scale = 0.125 : f32} : (tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16>
  return %y : tensor<2x8x16x64xf16>
}

// -----

// A Gather of head h / 2 along the head axis, with a dynamic batch.
// CHECK-LABEL: func.func @gathered_heads(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<?x4x16x32xf16>, %[[K:[^:]*]]: tensor<?x2x16x32xf16>, %[[V:[^:]*]]: tensor<?x2x16x32xf16>)
// CHECK-NOT: graph.gather
// CHECK: graph.attention %[[Q]], %[[K]], %[[V]]
func.func @gathered_heads(%q: tensor<?x4x16x32xf16>, %k: tensor<?x2x16x32xf16>, %v: tensor<?x2x16x32xf16>) -> tensor<?x4x16x32xf16> {
  %heads = graph.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
  %k1 = graph.gather %k, %heads {axis = 1 : i64} : (tensor<?x2x16x32xf16>, tensor<4xi64>) -> tensor<?x4x16x32xf16>
  %v1 = graph.gather %v, %heads {axis = 1 : i64} : (tensor<?x2x16x32xf16>, tensor<4xi64>) -> tensor<?x4x16x32xf16>
  %y = graph.attention %q, %k1, %v1 {scale = 0.125 : f32} : (tensor<?x4x16x32xf16>, tensor<?x4x16x32xf16>, tensor<?x4x16x32xf16>) -> tensor<?x4x16x32xf16>
  return %y : tensor<?x4x16x32xf16>
}

// -----

// Not grouped-query attention: heads tiled (head h reads h % 2, Tile's order), key and
// value repeated in different groups. Both stay.
// CHECK-LABEL: func.func @not_grouped(
// CHECK-COUNT-2: graph.gather
// CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f32} : (tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16>)
// CHECK-COUNT-2: graph.gather
// CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f32} : (tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16>)
func.func @not_grouped(%q: tensor<1x4x16x32xf16>, %k: tensor<1x2x16x32xf16>, %v: tensor<1x2x16x32xf16>, %k1h: tensor<1x1x16x32xf16>) -> (tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16>) {
  %tiled = graph.constant dense<[0, 1, 0, 1]> : tensor<4xi64>
  %kt = graph.gather %k, %tiled {axis = 1 : i64} : (tensor<1x2x16x32xf16>, tensor<4xi64>) -> tensor<1x4x16x32xf16>
  %vt = graph.gather %v, %tiled {axis = 1 : i64} : (tensor<1x2x16x32xf16>, tensor<4xi64>) -> tensor<1x4x16x32xf16>
  %y = graph.attention %q, %kt, %vt {scale = 0.125 : f32} : (tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16>) -> tensor<1x4x16x32xf16>
  %halves = graph.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
  %all = graph.constant dense<[0, 0, 0, 0]> : tensor<4xi64>
  %kg = graph.gather %k, %halves {axis = 1 : i64} : (tensor<1x2x16x32xf16>, tensor<4xi64>) -> tensor<1x4x16x32xf16>
  %vg = graph.gather %k1h, %all {axis = 1 : i64} : (tensor<1x1x16x32xf16>, tensor<4xi64>) -> tensor<1x4x16x32xf16>
  %z = graph.attention %q, %kg, %vg {scale = 0.125 : f32} : (tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16>) -> tensor<1x4x16x32xf16>
  return %y, %z : tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16>
}
