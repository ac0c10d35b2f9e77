// graph-decompose-attention: half-precision attention whose head size no flash kernel
// takes (here the GPU pipeline's limits: multiples of 16 up to 128) gets one with zeros
// where that is enough, else becomes two products and a softmax.
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-decompose-attention{head-dim-multiple=16 max-head-dim=128}))' | FileCheck %s

// Head size 72, an additive mask, NaNs to 0: Q, K and V padded with zeros to 80 (the scale,
// the mask and the guard kept), the result sliced back to 72.
// CHECK-LABEL: func.func @head_72(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x4x32x72xf16>, %[[K:[^:]*]]: tensor<2x4x32x72xf16>, %[[V:[^:]*]]: tensor<2x4x32x72xf16>, %[[M:[^:]*]]: tensor<2x1x1x32xf16>)
// CHECK: %[[PQ:.*]] = graph.pad %[[Q]], %{{.*}} {mode = "constant"} : {{.*}} -> tensor<2x4x32x80xf16>
// CHECK: %[[PK:.*]] = graph.pad %[[K]], {{.*}} -> tensor<2x4x32x80xf16>
// CHECK: %[[PV:.*]] = graph.pad %[[V]], {{.*}} -> tensor<2x4x32x80xf16>
// CHECK: %[[A:.*]] = graph.attention %[[PQ]], %[[PK]], %[[PV]], %[[M]] {nan_to_zero, scale = 1.178500e-01 : f32} : {{.*}} -> tensor<2x4x32x80xf16>
// CHECK: %[[Y:.*]] = graph.slice %[[A]], {{.*}} -> tensor<2x4x32x72xf16>
// CHECK-NOT: graph.matmul
// CHECK: return %[[Y]]
func.func @head_72(%q: tensor<2x4x32x72xf16>, %k: tensor<2x4x32x72xf16>, %v: tensor<2x4x32x72xf16>, %m: tensor<2x1x1x32xf16>) -> tensor<2x4x32x72xf16> {
  %y = graph.attention %q, %k, %v, %m {scale = 0.11785 : f32, nan_to_zero} : (tensor<2x4x32x72xf16>, tensor<2x4x32x72xf16>, tensor<2x4x32x72xf16>, tensor<2x1x1x32xf16>) -> tensor<2x4x32x72xf16>
  return %y : tensor<2x4x32x72xf16>
}

// -----

// A value head size other than the key's (64 and 40): V padded to 64, the result sliced
// back to 40; Q and K as they are.
// CHECK-LABEL: func.func @value_40(
// CHECK: %[[PV:.*]] = graph.pad %arg2, {{.*}} -> tensor<1x2x8x64xf16>
// CHECK: %[[A:.*]] = graph.attention %arg0, %arg1, %[[PV]] {{.*}} -> tensor<1x2x8x64xf16>
// CHECK: graph.slice %[[A]], {{.*}} -> tensor<1x2x8x40xf16>
func.func @value_40(%q: tensor<1x2x8x64xf16>, %k: tensor<1x2x8x64xf16>, %v: tensor<1x2x8x40xf16>) -> tensor<1x2x8x40xf16> {
  %y = graph.attention %q, %k, %v {scale = 0.125 : f32} : (tensor<1x2x8x64xf16>, tensor<1x2x8x64xf16>, tensor<1x2x8x40xf16>) -> tensor<1x2x8x40xf16>
  return %y : tensor<1x2x8x40xf16>
}

// -----

// Head size 256, causal, grouped-query (2 key/value heads for 4): the heads repeated by a
// gather, the causal flag a constant mask.
// CHECK-LABEL: func.func @head_256_causal_grouped(
// CHECK: %[[HEADS:.*]] = graph.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
// CHECK: %[[K:.*]] = graph.gather %{{.*}}, %[[HEADS]] {axis = 1 : i64} : (tensor<1x2x4x256xbf16>, tensor<4xi64>) -> tensor<1x4x4x256xbf16>
// CHECK: %[[V:.*]] = graph.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1x2x4x256xbf16>, tensor<4xi64>) -> tensor<1x4x4x256xbf16>
// CHECK: graph.matmul
// CHECK: %[[CAUSAL:.*]] = graph.constant dense<{{\[\[}}0.000000e+00, 0xFF80, 0xFF80, 0xFF80], [0.000000e+00, 0.000000e+00, 0xFF80, 0xFF80], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF80], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<4x4xbf16>
// CHECK: graph.add %{{.*}}, %[[CAUSAL]]
// CHECK: graph.softmax
// CHECK: graph.matmul %{{.*}}, %[[V]]
func.func @head_256_causal_grouped(%q: tensor<1x4x4x256xbf16>, %k: tensor<1x2x4x256xbf16>, %v: tensor<1x2x4x256xbf16>) -> tensor<1x4x4x256xbf16> {
  %y = graph.attention %q, %k, %v {scale = 0.0625 : f32, causal} : (tensor<1x4x4x256xbf16>, tensor<1x2x4x256xbf16>, tensor<1x2x4x256xbf16>) -> tensor<1x4x4x256xbf16>
  return %y : tensor<1x4x4x256xbf16>
}

// -----

// Left alone: a head size a flash kernel takes, f32 attention (no batched f32 product on
// the tensor cores either), and a causal attention of head size 136 (padded, 144 would
// exceed the limit) whose sequence is known at run time only.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-3: graph.attention
// CHECK-NOT: graph.matmul
func.func @kept(%q: tensor<1x4x16x64xf16>, %q32: tensor<1x4x16x72xf32>, %qd: tensor<1x4x?x136xf16>) -> (tensor<1x4x16x64xf16>, tensor<1x4x16x72xf32>, tensor<1x4x?x136xf16>) {
  %a = graph.attention %q, %q, %q {scale = 0.125 : f32} : (tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>) -> tensor<1x4x16x64xf16>
  %b = graph.attention %q32, %q32, %q32 {scale = 0.125 : f32} : (tensor<1x4x16x72xf32>, tensor<1x4x16x72xf32>, tensor<1x4x16x72xf32>) -> tensor<1x4x16x72xf32>
  %c = graph.attention %qd, %qd, %qd {scale = 0.125 : f32, causal} : (tensor<1x4x?x136xf16>, tensor<1x4x?x136xf16>, tensor<1x4x?x136xf16>) -> tensor<1x4x?x136xf16>
  return %a, %b, %c : tensor<1x4x16x64xf16>, tensor<1x4x16x72xf32>, tensor<1x4x?x136xf16>
}
