// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-quantize-int8{calibration-cache=%S/Inputs/calibration-cache.json tensor-core-rows}))' | FileCheck %s
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-quantize-int8{calibration-cache=%S/Inputs/calibration-cache.json tensor-core-rows emit-remarks}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-quantize-int8{calibration-cache=%S/Inputs/calibration-cache.json}))' | FileCheck %s --check-prefix=ALL

// With tensor-core-rows (the GPU pipeline's), products whose rows the int8 templates do
// not take stay in floats: a conv of 2 output channels (N not a multiple of 8), a gemm
// of K = 4 (not 16). Without it, both are quantized.
// CHECK-LABEL: func.func @unaligned
// CHECK-NOT: graph.quantize_linear
// CHECK-NOT: graph.dequantize_linear
// REMARK: remark: graph-quantize-int8: 'conv:0' left in floats: the int8 templates do not take its rows
// REMARK: remark: graph-quantize-int8: 'fc:0' left in floats: the int8 templates do not take its rows
// REMARK: remark: graph-quantize-int8: 0 activations quantized
// ALL-LABEL: func.func @unaligned
// ALL-COUNT-2: graph.quantize_linear
func.func @unaligned(%x: tensor<1x1x4x4xf32>, %a: tensor<2x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<2x8xf32>) {
  %w = graph.constant dense<0.5> : tensor<2x1x1x1xf32>
  %y = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  %b = graph.constant dense<0.5> : tensor<8x4xf32>
  %z = graph.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<2x4xf32>, tensor<8x4xf32>) -> tensor<2x8xf32> loc("fc")
  return %y, %z : tensor<1x2x4x4xf32>, tensor<2x8xf32>
}

// -----

// Aligned ones are quantized: a conv of 8 output channels (any input channels: an
// explicit im2col reads them), a matmul of K = 16 and N = 8; a depthwise conv (one
// input channel a group) stays in floats, its template reads 16-bit floats.
// CHECK-LABEL: func.func @aligned
// CHECK: %[[Q:.*]] = graph.quantize_linear %arg0
// CHECK: %[[DQ:.*]] = graph.dequantize_linear %[[Q]]
// CHECK: graph.conv %[[DQ]], {{.*}} group = 1 : i64
// CHECK-NOT: graph.quantize_linear %arg0
// CHECK: graph.conv %arg0, {{.*}} group = 8 : i64
// CHECK: graph.quantize_linear %arg1
// CHECK: graph.matmul
// REMARK: remark: graph-quantize-int8: 'ds:0' left in floats: the int8 templates do not take its rows
// REMARK: remark: graph-quantize-int8: 2 activations quantized
func.func @aligned(%x: tensor<1x8x4x4xf32>, %a: tensor<2x16xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<2x8xf32>) {
  %w = graph.constant dense<0.5> : tensor<8x8x1x1xf32>
  %y = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> loc("conv")
  %d = graph.constant dense<0.5> : tensor<8x1x3x3xf32>
  %e = graph.conv %x, %d {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 8} : (tensor<1x8x4x4xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x4x4xf32> loc("ds")
  %b = graph.constant dense<0.5> : tensor<16x8xf32>
  %z = graph.matmul %a, %b : (tensor<2x16xf32>, tensor<16x8xf32>) -> tensor<2x8xf32> loc("fc")
  return %y, %e, %z : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<2x8xf32>
}
