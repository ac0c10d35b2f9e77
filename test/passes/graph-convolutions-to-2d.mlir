// RUN: kiln-opt --split-input-file --graph-convolutions-to-2d %s | FileCheck %s

// 1-D: a 2-D convolution of unit height (stride, dilation 1 and no padding along it), the
// constant weight reshaped at compile time; the group and the bias kept.
// CHECK-LABEL: func.func @conv1d
// CHECK: %[[X:.*]] = graph.reshape %{{.*}}, %{{.*}} {{.*}} : (tensor<?x16x20xf16>, tensor<4xi64>) -> tensor<?x16x1x20xf16>
// CHECK: %[[W:.*]] = graph.constant dense<1.000000e+00> : tensor<24x8x1x3xf16>
// CHECK: %[[Y:.*]] = graph.conv %[[X]], %[[W]], %{{.*}} {dilations = array<i64: 1, 2>, group = 2 : i64, pads = array<i64: 0, 1, 0, 2>, strides = array<i64: 1, 2>} : (tensor<?x16x1x20xf16>, tensor<24x8x1x3xf16>, tensor<24xf16>) -> tensor<?x24x1x10xf16>
// CHECK: %[[R:.*]] = graph.reshape %[[Y]], %{{.*}} {{.*}} -> tensor<?x24x10xf16>
// CHECK: return %[[R]]
func.func @conv1d(%x: tensor<?x16x20xf16>, %b: tensor<24xf16>) -> tensor<?x24x10xf16> {
  %w = graph.constant dense<1.0> : tensor<24x8x3xf16>
  %y = graph.conv %x, %w, %b {strides = array<i64: 2>, dilations = array<i64: 2>, pads = array<i64: 1, 2>, group = 2} : (tensor<?x16x20xf16>, tensor<24x8x3xf16>, tensor<24xf16>) -> tensor<?x24x10xf16>
  return %y : tensor<?x24x10xf16>
}

// -----

// A weight computed at run time is reshaped in the graph.
// CHECK-LABEL: func.func @conv1d_runtime_weight
// CHECK: graph.reshape %{{.*}}, %{{.*}} {{.*}} : (tensor<8x4x5xf32>, tensor<4xi64>) -> tensor<8x4x1x5xf32>
// CHECK: graph.conv {{.*}} -> tensor<1x8x1x12xf32>
func.func @conv1d_runtime_weight(%x: tensor<1x4x16xf32>, %w: tensor<8x4x5xf32>) -> tensor<1x8x12xf32> {
  %y = graph.conv %x, %w {strides = array<i64: 1>, dilations = array<i64: 1>, pads = array<i64: 0, 0>, group = 1} : (tensor<1x4x16xf32>, tensor<8x4x5xf32>) -> tensor<1x8x12xf32>
  return %y : tensor<1x8x12xf32>
}

// -----

// 3-D, 3x3x3 with depth stride 2 and padding 1, one group, a constant weight, 4 input
// channels (too few for the templates' 5-D boxes): channels last, padded along depth; tap
// kd's depths kd, kd + 2 (a strided slice), the three side by side as 3 x 4 channels of
// N * 2 images; one 2-D convolution by w'[o, kd * 4 + c] = w[o, c, kd] with the bias; the
// images back into [N, O, OD, OH, OW].
// CHECK-LABEL: func.func @conv3d
// CHECK-DAG: %[[W:.*]] = graph.constant dense<5.000000e-01> : tensor<16x12x3x3xf16>
// CHECK: %[[L:.*]] = graph.transpose %arg0 {perm = array<i64: 0, 2, 3, 4, 1>} : (tensor<?x4x4x6x6xf16>) -> tensor<?x4x6x6x4xf16>
// CHECK: %[[P:.*]] = graph.pad %[[L]], {{.*}} -> tensor<?x6x6x6x4xf16>
// CHECK: %[[S0:.*]] = graph.slice %[[P]], {{.*}} -> tensor<?x2x6x6x4xf16>
// CHECK: %[[S1:.*]] = graph.slice %[[P]], {{.*}} -> tensor<?x2x6x6x4xf16>
// CHECK: %[[S2:.*]] = graph.slice %[[P]], {{.*}} -> tensor<?x2x6x6x4xf16>
// CHECK: %[[U:.*]] = graph.concat %[[S0]], %[[S1]], %[[S2]] {axis = 4 : i64} {{.*}} -> tensor<?x2x6x6x12xf16>
// CHECK: %[[I:.*]] = graph.reshape %[[U]], {{.*}} -> tensor<?x6x6x12xf16>
// CHECK: %[[F:.*]] = graph.transpose %[[I]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: %[[C:.*]] = graph.conv %[[F]], %[[W]], %arg1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x12x6x6xf16>, tensor<16x12x3x3xf16>, tensor<16xf16>) -> tensor<?x16x6x6xf16>
// CHECK: %[[B:.*]] = graph.transpose %[[C]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[V:.*]] = graph.reshape %[[B]], {{.*}} -> tensor<?x2x6x6x16xf16>
// CHECK: %[[R:.*]] = graph.transpose %[[V]] {perm = array<i64: 0, 4, 1, 2, 3>} : (tensor<?x2x6x6x16xf16>) -> tensor<?x16x2x6x6xf16>
// CHECK: return %[[R]]
func.func @conv3d(%x: tensor<?x4x4x6x6xf16>, %b: tensor<16xf16>) -> tensor<?x16x2x6x6xf16> {
  %w = graph.constant dense<0.5> : tensor<16x4x3x3x3xf16>
  %y = graph.conv %x, %w, %b {strides = array<i64: 2, 1, 1>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>, group = 1} : (tensor<?x4x4x6x6xf16>, tensor<16x4x3x3x3xf16>, tensor<16xf16>) -> tensor<?x16x2x6x6xf16>
  return %y : tensor<?x16x2x6x6xf16>
}

// -----

// A grouped one keeps its groups: a sum over the depth taps of grouped 2-D convolutions.
// CHECK-LABEL: func.func @conv3d_grouped
// CHECK-COUNT-2: graph.conv {{.*}} group = 2 : i64{{.*}} -> tensor<2x8x4x4xf32>
// CHECK: graph.add
func.func @conv3d_grouped(%x: tensor<1x8x2x4x4xf32>) -> tensor<1x8x2x4x4xf32> {
  %w = graph.constant dense<0.5> : tensor<8x4x2x1x1xf32>
  %y = graph.conv %x, %w {strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 1, 0, 0>, group = 2} : (tensor<1x8x2x4x4xf32>, tensor<8x4x2x1x1xf32>) -> tensor<1x8x2x4x4xf32>
  return %y : tensor<1x8x2x4x4xf32>
}

// -----

// The depth slices start at kd * dilation: 0 and 2 of a depth-dilated 2x1x1 kernel with no
// depth padding, and a weight computed at run time is sliced in the graph.
// CHECK-LABEL: func.func @conv3d_dilated
// CHECK-NOT: graph.pad
// CHECK: %[[Z:.*]] = graph.constant dense<0> : tensor<1xi64>
// CHECK-NEXT: graph.slice %arg0, %[[Z]], {{.*}} -> tensor<1x4x1x3x3xf32>
// CHECK: graph.slice %arg1, {{.*}} -> tensor<8x4x1x1x1xf32>
// CHECK: graph.conv {{.*}} -> tensor<1x8x3x3xf32>
// CHECK: %[[END:.*]] = graph.constant dense<3> : tensor<1xi64>
// CHECK-NEXT: %[[T:.*]] = graph.constant dense<2> : tensor<1xi64>
// CHECK-NEXT: graph.slice %arg0, %[[T]], %[[END]] {{.*}} -> tensor<1x4x1x3x3xf32>
// CHECK: graph.slice %arg1, {{.*}} -> tensor<8x4x1x1x1xf32>
// CHECK: graph.conv {{.*}} -> tensor<1x8x3x3xf32>
// CHECK: graph.add
func.func @conv3d_dilated(%x: tensor<1x4x3x3x3xf32>, %w: tensor<8x4x2x1x1xf32>) -> tensor<1x8x1x3x3xf32> {
  %y = graph.conv %x, %w {strides = array<i64: 1, 1, 1>, dilations = array<i64: 2, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, group = 1} : (tensor<1x4x3x3x3xf32>, tensor<8x4x2x1x1xf32>) -> tensor<1x8x1x3x3xf32>
  return %y : tensor<1x8x1x3x3xf32>
}

// -----

// Left alone: 2-D convolutions, channels last, a 3-D one with a dynamic spatial extent, a
// 3-D one the templates take as it is (one group, 8 input and 8 output channels).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-4: graph.conv
// CHECK-NOT: graph.reshape
func.func @left_alone(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %xl: tensor<1x8x8x4xf32>, %wl: tensor<8x3x3x4xf32>, %xd: tensor<1x4x?x8x8xf32>, %wd: tensor<8x4x1x1x1xf32>, %x3: tensor<2x8x4x6x6xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x6x6x8xf32>, tensor<1x8x?x8x8xf32>, tensor<2x8x4x6x6xf32>) {
  %w3 = graph.constant dense<0.5> : tensor<8x8x3x3x3xf32>
  %e = graph.conv %x3, %w3 {strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>, group = 1} : (tensor<2x8x4x6x6xf32>, tensor<8x8x3x3x3xf32>) -> tensor<2x8x4x6x6xf32>
  %a = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %b = graph.conv %xl, %wl {channels_last, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>) -> tensor<1x6x6x8xf32>
  %c = graph.conv %xd, %wd {strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, group = 1} : (tensor<1x4x?x8x8xf32>, tensor<8x4x1x1x1xf32>) -> tensor<1x8x?x8x8xf32>
  return %a, %b, %c, %e : tensor<1x8x6x6xf32>, tensor<1x6x6x8xf32>, tensor<1x8x?x8x8xf32>, tensor<2x8x4x6x6xf32>
}
