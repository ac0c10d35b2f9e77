// graph-decompose-attention: half-precision attention whose head size no flash kernel
// takes (here the GPU pipeline's limits: multiples of 16 up to 128) becomes two products
// and a softmax.
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-decompose-attention{head-dim-multiple=16 max-head-dim=128}))' | FileCheck %s

// Head size 72, an additive mask, NaNs to 0.
// CHECK-LABEL: func.func @head_72(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x4x32x72xf16>, %[[K:[^:]*]]: tensor<2x4x32x72xf16>, %[[V:[^:]*]]: tensor<2x4x32x72xf16>, %[[M:[^:]*]]: tensor<2x1x1x32xf16>)
// CHECK: %[[KT:.*]] = graph.transpose %[[K]] {perm = array<i64: 0, 1, 3, 2>}
// CHECK: %[[S:.*]] = graph.matmul %[[Q]], %[[KT]] : (tensor<2x4x32x72xf16>, tensor<2x4x72x32xf16>) -> tensor<2x4x32x32xf16>
// CHECK: %[[SCALE:.*]] = graph.constant dense<{{.*}}> : tensor<f16>
// CHECK: %[[SCALED:.*]] = graph.mul %[[S]], %[[SCALE]]
// CHECK: %[[MASKED:.*]] = graph.add %[[SCALED]], %[[M]]
// CHECK: %[[P:.*]] = graph.softmax %[[MASKED]] {axis = -1 : i64}
// CHECK: %[[NAN:.*]] = graph.is_nan %[[P]]
// CHECK: %[[GUARDED:.*]] = graph.where %[[NAN]], %{{.*}}, %[[P]]
// CHECK: %[[Y:.*]] = graph.matmul %[[GUARDED]], %[[V]] : (tensor<2x4x32x32xf16>, tensor<2x4x32x72xf16>) -> tensor<2x4x32x72xf16>
// CHECK-NOT: graph.attention
// CHECK: return %[[Y]]
func.func @head_72(%q: tensor<2x4x32x72xf16>, %k: tensor<2x4x32x72xf16>, %v: tensor<2x4x32x72xf16>, %m: tensor<2x1x1x32xf16>) -> tensor<2x4x32x72xf16> {
  %y = graph.attention %q, %k, %v, %m {scale = 0.11785 : f32, nan_to_zero} : (tensor<2x4x32x72xf16>, tensor<2x4x32x72xf16>, tensor<2x4x32x72xf16>, tensor<2x1x1x32xf16>) -> tensor<2x4x32x72xf16>
  return %y : tensor<2x4x32x72xf16>
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
// the tensor cores either), and a causal attention whose sequence is known at run time
// only.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-3: graph.attention
// CHECK-NOT: graph.matmul
func.func @kept(%q: tensor<1x4x16x64xf16>, %q32: tensor<1x4x16x72xf32>, %qd: tensor<1x4x?x72xf16>) -> (tensor<1x4x16x64xf16>, tensor<1x4x16x72xf32>, tensor<1x4x?x72xf16>) {
  %a = graph.attention %q, %q, %q {scale = 0.125 : f32} : (tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>) -> tensor<1x4x16x64xf16>
  %b = graph.attention %q32, %q32, %q32 {scale = 0.125 : f32} : (tensor<1x4x16x72xf32>, tensor<1x4x16x72xf32>, tensor<1x4x16x72xf32>) -> tensor<1x4x16x72xf32>
  %c = graph.attention %qd, %qd, %qd {scale = 0.125 : f32, causal} : (tensor<1x4x?x72xf16>, tensor<1x4x?x72xf16>, tensor<1x4x?x72xf16>) -> tensor<1x4x?x72xf16>
  return %a, %b, %c : tensor<1x4x16x64xf16>, tensor<1x4x16x72xf32>, tensor<1x4x?x72xf16>
}
