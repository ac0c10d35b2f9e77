// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(graph-fold-quantized-products),func.func(graph-reduce-precision),graph-fold-constants,func.func(graph-simplify),func.func(graph-convert-layout),func.func(graph-decompose-quantization),cse)' | FileCheck %s

// The contract with the kernel passes: two quantized conv layers as graph-quantize-int8
// leaves them, through the passes `kiln compile --int8 --fp16 --channels-last` runs.
// Each conv reaches kernel formation as an NHWC i8 x OHWI i8 -> i32 conv followed by
// pointwise ops only: the rescale (cast to f32, mul by the [O] scales), the bias add, the
// relu, and the next layer's quantization (div by its scale, round, clip to [-128, 127],
// cast to i8), all in f32 (their values only reach the quantization). The last layer's
// bias add and relu, whose value is the result, compute in f16.
// CHECK-LABEL: func.func @main
// CHECK: %[[XQ:.*]] = graph.cast %{{.*}} {to = i8} : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xi8>
// CHECK: %[[XT:.*]] = graph.transpose %[[XQ]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[C1:.*]] = graph.conv %[[XT]], %{{.*}} {channels_last, {{.*}}} : (tensor<1x8x8x16xi8>, tensor<16x3x3x16xi8>) -> tensor<1x8x8x16xi32>
// CHECK-NEXT: %[[F1:.*]] = graph.cast %[[C1]] {to = f32}
// CHECK-NEXT: %[[S1:.*]] = graph.constant dense<{{.*}}> : tensor<16xf32>
// CHECK-NEXT: %[[M1:.*]] = graph.mul %[[F1]], %[[S1]] : (tensor<1x8x8x16xf32>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
// CHECK-NEXT: %[[A1:.*]] = graph.add %[[M1]], %{{.*}} : (tensor<1x8x8x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x8x8x16xf32>
// CHECK-NEXT: %[[R1:.*]] = graph.relu %[[A1]] : tensor<1x8x8x16xf32>
// CHECK-NEXT: %[[QS:.*]] = graph.constant dense<3.000000e-02> : tensor<f32>
// CHECK-NEXT: %[[D1:.*]] = graph.div %[[R1]], %[[QS]]
// CHECK-NEXT: %[[RD:.*]] = graph.round %[[D1]]
// CHECK-NEXT: %[[CL:.*]] = graph.clip %[[RD]] min %{{.*}} max %{{.*}}
// CHECK-NEXT: %[[Q1:.*]] = graph.cast %[[CL]] {to = i8} : (tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xi8>
// CHECK-NEXT: %[[C2:.*]] = graph.conv %[[Q1]], %{{.*}} {channels_last, {{.*}}} : (tensor<1x8x8x16xi8>, tensor<16x3x3x16xi8>) -> tensor<1x8x8x16xi32>
// CHECK-NEXT: graph.cast %[[C2]] {to = f32}
// CHECK-NEXT: graph.constant
// CHECK-NEXT: graph.mul
// CHECK-NEXT: graph.cast %{{.*}} {to = f16}
// CHECK-NEXT: graph.add %{{.*}} : (tensor<1x8x8x16xf16>, tensor<1x1x1x16xf16>) -> tensor<1x8x8x16xf16>
// CHECK-NEXT: graph.relu %{{.*}} : tensor<1x8x8x16xf16>
// CHECK-NOT: graph.quantize_linear
// CHECK-NOT: graph.dequantize_linear
// CHECK: graph.transpose %{{.*}} {perm = array<i64: 0, 3, 1, 2>}
func.func @main(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %sx = graph.constant dense<0.02> : tensor<f32>
  %z = graph.constant dense<0> : tensor<i8>
  %w1 = graph.constant dense<3> : tensor<16x16x3x3xi8>
  %s1 = graph.constant dense<0.004> : tensor<16xf32>
  %z1 = graph.constant dense<0> : tensor<16xi8>
  %b1 = graph.constant dense<0.1> : tensor<16xf32>
  %s2x = graph.constant dense<0.03> : tensor<f32>
  %w2 = graph.constant dense<-2> : tensor<16x16x3x3xi8>
  %s2 = graph.constant dense<0.005> : tensor<16xf32>
  %b2 = graph.constant dense<0.2> : tensor<16xf32>
  %q0 = graph.quantize_linear %x, %sx, %z {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x16x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x16x8x8xi8> loc("conv1_q")
  %d0 = graph.dequantize_linear %q0, %sx, %z {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x16x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x16x8x8xf32> loc("conv1_dq")
  %dw1 = graph.dequantize_linear %w1, %s1, %z1 {axis = 0 : i64, block_size = 0 : i64} : (tensor<16x16x3x3xi8>, tensor<16xf32>, tensor<16xi8>) -> tensor<16x16x3x3xf32> loc("conv1_w")
  %c1 = graph.conv %d0, %dw1, %b1 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32> loc("conv1")
  %r1 = graph.relu %c1 : tensor<1x16x8x8xf32> loc("relu1")
  %q1 = graph.quantize_linear %r1, %s2x, %z {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x16x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x16x8x8xi8> loc("conv2_q")
  %d1 = graph.dequantize_linear %q1, %s2x, %z {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x16x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x16x8x8xf32> loc("conv2_dq")
  %dw2 = graph.dequantize_linear %w2, %s2, %z1 {axis = 0 : i64, block_size = 0 : i64} : (tensor<16x16x3x3xi8>, tensor<16xf32>, tensor<16xi8>) -> tensor<16x16x3x3xf32> loc("conv2_w")
  %c2 = graph.conv %d1, %dw2, %b2 {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32> loc("conv2")
  %r2 = graph.relu %c2 : tensor<1x16x8x8xf32> loc("relu2")
  return %r2 : tensor<1x16x8x8xf32>
}
