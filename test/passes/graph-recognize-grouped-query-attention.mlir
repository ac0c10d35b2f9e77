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

// -----

// repeat_kv with a dynamic batch and sequence, the expand's and reshape's targets computed
// from the key's shape (a Hugging Face export): the symbolic extents show they keep them.
// CHECK-LABEL: func.func @repeat_kv_dynamic(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<?x8x?x64xf16> {{.*}}, %[[K:[^:]*]]: tensor<?x2x?x64xf16> {{.*}}, %[[V:[^:]*]]: tensor<?x2x?x64xf16> {{.*}})
// CHECK-NOT: graph.expand
// CHECK: graph.attention %[[Q]], %[[K]], %[[V]]
func.func @repeat_kv_dynamic(%q: tensor<?x8x?x64xf16> {graph.dims = ["batch", "", "seq", ""]}, %k: tensor<?x2x?x64xf16> {graph.dims = ["batch", "", "seq", ""]}, %v: tensor<?x2x?x64xf16> {graph.dims = ["batch", "", "seq", ""]}) -> tensor<?x8x?x64xf16> {
  %heads = graph.constant dense<8> : tensor<1xi64>
  %dim = graph.constant dense<64> : tensor<1xi64>
  %groups = graph.constant dense<[2, 4]> : tensor<2xi64>
  %i2 = graph.constant dense<2> : tensor<1xi64>
  %i0 = graph.constant dense<0> : tensor<1xi64>
  %ks = graph.shape %k {start = 0 : i64} : (tensor<?x2x?x64xf16>) -> tensor<4xi64>
  %kb = graph.gather %ks, %i0 {axis = 0 : i64} : (tensor<4xi64>, tensor<1xi64>) -> tensor<1xi64>
  %kl = graph.gather %ks, %i2 {axis = 0 : i64} : (tensor<4xi64>, tensor<1xi64>) -> tensor<1xi64>
  %ke = graph.concat %kb, %groups, %kl, %dim {axis = 0 : i64} : (tensor<1xi64>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<5xi64>
  %kr = graph.concat %kb, %heads, %kl, %dim {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  %k1 = graph.unsqueeze %k, %i2 : (tensor<?x2x?x64xf16>, tensor<1xi64>) -> tensor<?x2x1x?x64xf16>
  %k2 = graph.expand %k1, %ke : (tensor<?x2x1x?x64xf16>, tensor<5xi64>) -> tensor<?x2x4x?x64xf16>
  %k3 = graph.reshape %k2, %kr {allowzero = false} : (tensor<?x2x4x?x64xf16>, tensor<4xi64>) -> tensor<?x8x?x64xf16>
  %vs = graph.shape %v {start = 0 : i64} : (tensor<?x2x?x64xf16>) -> tensor<4xi64>
  %vb = graph.gather %vs, %i0 {axis = 0 : i64} : (tensor<4xi64>, tensor<1xi64>) -> tensor<1xi64>
  %vl = graph.gather %vs, %i2 {axis = 0 : i64} : (tensor<4xi64>, tensor<1xi64>) -> tensor<1xi64>
  %ve = graph.concat %vb, %groups, %vl, %dim {axis = 0 : i64} : (tensor<1xi64>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<5xi64>
  %vr = graph.concat %vb, %heads, %vl, %dim {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  %v1 = graph.unsqueeze %v, %i2 : (tensor<?x2x?x64xf16>, tensor<1xi64>) -> tensor<?x2x1x?x64xf16>
  %v2 = graph.expand %v1, %ve : (tensor<?x2x1x?x64xf16>, tensor<5xi64>) -> tensor<?x2x4x?x64xf16>
  %v3 = graph.reshape %v2, %vr {allowzero = false} : (tensor<?x2x4x?x64xf16>, tensor<4xi64>) -> tensor<?x8x?x64xf16>
  %y = graph.attention %q, %k3, %v3 {scale = 0.125 : f32} : (tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>) -> tensor<?x8x?x64xf16>
  return %y : tensor<?x8x?x64xf16>
}

// -----

// A sequence the reshape does not keep (the expand's target names another extent for it):
// not a repeat of heads.
// CHECK-LABEL: func.func @other_sequence(
// CHECK: graph.expand
// CHECK: graph.attention
func.func @other_sequence(%q: tensor<1x4x?x32xf16>, %k: tensor<1x2x?x32xf16>, %n: tensor<1xi64>) -> tensor<1x4x?x32xf16> {
  %axis = graph.constant dense<2> : tensor<1xi64>
  %lead = graph.constant dense<[1, 2, 2]> : tensor<3xi64>
  %dim = graph.constant dense<32> : tensor<1xi64>
  %heads = graph.constant dense<[1, 4]> : tensor<2xi64>
  %e = graph.concat %lead, %n, %dim {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<5xi64>
  %r = graph.concat %heads, %n, %dim {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  %k1 = graph.unsqueeze %k, %axis : (tensor<1x2x?x32xf16>, tensor<1xi64>) -> tensor<1x2x1x?x32xf16>
  %k2 = graph.expand %k1, %e : (tensor<1x2x1x?x32xf16>, tensor<5xi64>) -> tensor<1x2x2x?x32xf16>
  %k3 = graph.reshape %k2, %r {allowzero = false} : (tensor<1x2x2x?x32xf16>, tensor<4xi64>) -> tensor<1x4x?x32xf16>
  %y = graph.attention %q, %k3, %k3 {scale = 0.125 : f32} : (tensor<1x4x?x32xf16>, tensor<1x4x?x32xf16>, tensor<1x4x?x32xf16>) -> tensor<1x4x?x32xf16>
  return %y : tensor<1x4x?x32xf16>
}

// -----

// The groups as an axis of their own: query [B, Hkv, g, S, D] against key and value
// [B, Hkv, 1, S, D] become 8 query heads on 2 key/value heads (reshapes in, and of the
// result back); a padding mask broadcast along both head axes has them merged too.
// CHECK-LABEL: func.func @group_axis(
// CHECK: %[[Q:.*]] = graph.reshape %arg0, %{{.*}} : (tensor<?x2x4x16x64xf16>, tensor<4xi64>) -> tensor<?x8x16x64xf16>
// CHECK: %[[K:.*]] = graph.reshape %arg1, %{{.*}} : (tensor<?x2x1x16x64xf16>, tensor<4xi64>) -> tensor<?x2x16x64xf16>
// CHECK: %[[V:.*]] = graph.reshape %arg2, %{{.*}} : (tensor<?x2x1x16x64xf16>, tensor<4xi64>) -> tensor<?x2x16x64xf16>
// CHECK: %[[M:.*]] = graph.reshape %arg3, %{{.*}} : (tensor<?x1x1x1x16xf16>, tensor<4xi64>) -> tensor<?x1x1x16xf16>
// CHECK: %[[A:.*]] = graph.attention %[[Q]], %[[K]], %[[V]], %[[M]] {nan_to_zero, scale = 1.250000e-01 : f32} : (tensor<?x8x16x64xf16>, tensor<?x2x16x64xf16>, tensor<?x2x16x64xf16>, tensor<?x1x1x16xf16>) -> tensor<?x8x16x64xf16>
// CHECK: graph.reshape %[[A]], %{{.*}} : (tensor<?x8x16x64xf16>, tensor<5xi64>) -> tensor<?x2x4x16x64xf16>
func.func @group_axis(%q: tensor<?x2x4x16x64xf16>, %k: tensor<?x2x1x16x64xf16>, %v: tensor<?x2x1x16x64xf16>, %mask: tensor<?x1x1x1x16xf16>) -> tensor<?x2x4x16x64xf16> {
  %y = graph.attention %q, %k, %v, %mask {scale = 0.125 : f32, nan_to_zero} : (tensor<?x2x4x16x64xf16>, tensor<?x2x1x16x64xf16>, tensor<?x2x1x16x64xf16>, tensor<?x1x1x1x16xf16>) -> tensor<?x2x4x16x64xf16>
  return %y : tensor<?x2x4x16x64xf16>
}

// -----

// A mask that tells the kv heads apart but not the query heads of a group
// ([.., Hkv, 1, S, S]) does not merge into one head axis: left as it is.
// CHECK-LABEL: func.func @mask_per_kv_head(
// CHECK-NOT: graph.reshape
// CHECK: graph.attention %arg0, %arg1, %arg1, %arg2
func.func @mask_per_kv_head(%q: tensor<1x2x4x16x64xf16>, %k: tensor<1x2x1x16x64xf16>, %mask: tensor<1x2x1x16x16xf16>) -> tensor<1x2x4x16x64xf16> {
  %y = graph.attention %q, %k, %k, %mask {scale = 0.125 : f32} : (tensor<1x2x4x16x64xf16>, tensor<1x2x1x16x64xf16>, tensor<1x2x1x16x64xf16>, tensor<1x2x1x16x16xf16>) -> tensor<1x2x4x16x64xf16>
  return %y : tensor<1x2x4x16x64xf16>
}
