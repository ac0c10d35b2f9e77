// RUN: kiln-opt --split-input-file --graph-patchify-convolutions %s | FileCheck %s

// A ViT patch embedding (16x16, stride 16): the input's patches times the weight as a
// matrix, the bias added, back to [N, O, OH, OW].
// CHECK-LABEL: func.func @patch_embedding
// CHECK-NOT: graph.conv
// CHECK: %[[S1:.*]] = graph.constant dense<[0, 3, 14, 16, 14, 16]> : tensor<6xi64>
// CHECK: %[[P1:.*]] = graph.reshape %{{.*}}, %[[S1]] {{.*}} -> tensor<2x3x14x16x14x16xf16>
// CHECK: %[[P2:.*]] = graph.transpose %[[P1]] {perm = array<i64: 0, 2, 4, 1, 3, 5>} : (tensor<2x3x14x16x14x16xf16>) -> tensor<2x14x14x3x16x16xf16>
// CHECK: %[[S2:.*]] = graph.constant dense<[0, 196, 768]> : tensor<3xi64>
// CHECK: %[[P3:.*]] = graph.reshape %[[P2]], %[[S2]] {{.*}} -> tensor<2x196x768xf16>
// CHECK: %[[W1:.*]] = graph.reshape %{{.*}}, %{{.*}} {{.*}} -> tensor<64x768xf16>
// CHECK: %[[W2:.*]] = graph.transpose %[[W1]] {perm = array<i64: 1, 0>} : (tensor<64x768xf16>) -> tensor<768x64xf16>
// CHECK: %[[M:.*]] = graph.matmul %[[P3]], %[[W2]] : (tensor<2x196x768xf16>, tensor<768x64xf16>) -> tensor<2x196x64xf16>
// CHECK: %[[A:.*]] = graph.add %[[M]], %{{.*}} : (tensor<2x196x64xf16>, tensor<64xf16>) -> tensor<2x196x64xf16>
// CHECK: %[[G:.*]] = graph.reshape %[[A]], %{{.*}} {{.*}} -> tensor<2x14x14x64xf16>
// CHECK: %[[R:.*]] = graph.transpose %[[G]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x14x14x64xf16>) -> tensor<2x64x14x14xf16>
// CHECK: return %[[R]]
func.func @patch_embedding(%x: tensor<2x3x224x224xf16>, %w: tensor<64x3x16x16xf16>, %b: tensor<64xf16>) -> tensor<2x64x14x14xf16> {
  %y = graph.conv %x, %w, %b {strides = array<i64: 16, 16>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<2x3x224x224xf16>, tensor<64x3x16x16xf16>, tensor<64xf16>) -> tensor<2x64x14x14xf16>
  return %y : tensor<2x64x14x14xf16>
}

// -----

// A dynamic batch passes through the reshapes (their 0s copy it).
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-NOT: graph.conv
// CHECK: graph.matmul %{{.*}}, %{{.*}} : (tensor<?x4x8xf32>, tensor<8x5xf32>) -> tensor<?x4x5xf32>
// CHECK: graph.transpose %{{.*}} {perm = array<i64: 0, 3, 1, 2>} : (tensor<?x2x2x5xf32>) -> tensor<?x5x2x2xf32>
func.func @dynamic_batch(%x: tensor<?x2x4x4xf32>, %w: tensor<5x2x2x2xf32>) -> tensor<?x5x2x2xf32> {
  %y = graph.conv %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<?x2x4x4xf32>, tensor<5x2x2x2xf32>) -> tensor<?x5x2x2xf32>
  return %y : tensor<?x5x2x2xf32>
}

// -----

// Left alone: padding, a stride other than the kernel, overlapping windows, a 1x1 kernel
// (the convolution templates' plain GEMM), groups, a ragged edge (14 is no multiple of 4),
// channels last.
// CHECK-LABEL: func.func @not_patches
// CHECK-COUNT-7: graph.conv
// CHECK-NOT: graph.matmul
func.func @not_patches(%x: tensor<1x4x16x16xf32>, %w: tensor<8x4x4x4xf32>, %w1: tensor<8x4x1x1xf32>, %wg: tensor<8x2x4x4xf32>, %r: tensor<1x4x14x14xf32>, %xl: tensor<1x16x16x4xf32>, %wl: tensor<8x4x4x4xf32>) -> (tensor<1x8x5x5xf32>, tensor<1x8x7x7xf32>, tensor<1x8x13x13xf32>, tensor<1x8x16x16xf32>, tensor<1x8x4x4xf32>, tensor<1x8x3x3xf32>, tensor<1x4x4x8xf32>) {
  %a = graph.conv %x, %w {strides = array<i64: 4, 4>, dilations = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, group = 1} : (tensor<1x4x16x16xf32>, tensor<8x4x4x4xf32>) -> tensor<1x8x5x5xf32>
  %b = graph.conv %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x4x16x16xf32>, tensor<8x4x4x4xf32>) -> tensor<1x8x7x7xf32>
  %c = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x4x16x16xf32>, tensor<8x4x4x4xf32>) -> tensor<1x8x13x13xf32>
  %d = graph.conv %x, %w1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x4x16x16xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x16x16xf32>
  %e = graph.conv %x, %wg {strides = array<i64: 4, 4>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 2} : (tensor<1x4x16x16xf32>, tensor<8x2x4x4xf32>) -> tensor<1x8x4x4xf32>
  %f = graph.conv %r, %w {strides = array<i64: 4, 4>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x4x14x14xf32>, tensor<8x4x4x4xf32>) -> tensor<1x8x3x3xf32>
  %g = graph.conv %xl, %wl {channels_last, strides = array<i64: 4, 4>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x16x16x4xf32>, tensor<8x4x4x4xf32>) -> tensor<1x4x4x8xf32>
  return %a, %b, %c, %d, %e, %f, %g : tensor<1x8x5x5xf32>, tensor<1x8x7x7xf32>, tensor<1x8x13x13xf32>, tensor<1x8x16x16xf32>, tensor<1x8x4x4xf32>, tensor<1x8x3x3xf32>, tensor<1x4x4x8xf32>
}
