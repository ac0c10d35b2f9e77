// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-quantize-int8{calibration-cache=%S/Inputs/calibration-cache.json}))' | FileCheck %s
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-quantize-int8{calibration-cache=%S/Inputs/calibration-cache.json emit-remarks}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A conv: its input through Q/DQ at 2.54 / 127 = 0.02, its weight quantized per output
// channel (channel 0: max 1.0, channel 1: max 0.25; 0.5 / (1 / 127) = 63.5 rounds to
// even, 64), the bias left f32.
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[S:.*]] = graph.constant dense<2.000000e-02> : tensor<f32>
// CHECK-DAG: %[[Z:.*]] = graph.constant dense<0> : tensor<i8>
// CHECK-DAG: %[[WQ:.*]] = graph.constant dense<{{\[\[\[\[}}64, -127]]], {{\[\[\[}}127, 64]]]]> : tensor<2x1x1x2xi8>
// CHECK-DAG: %[[WS:.*]] = graph.constant dense<[0.00787401571, 0.00196850393]> : tensor<2xf32>
// CHECK-DAG: %[[W:.*]] = graph.dequantize_linear %[[WQ]], %[[WS]], %{{.*}} {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x1x1x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x1x1x2xf32>
// CHECK-DAG: %[[Q:.*]] = graph.quantize_linear %arg0, %[[S]], %[[Z]] {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x1x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x1x4x4xi8>
// CHECK: %[[X:.*]] = graph.dequantize_linear %[[Q]], %[[S]], %[[Z]] {{.*}} -> tensor<1x1x4x4xf32>
// CHECK: graph.conv %[[X]], %[[W]], %{{.*}} {{.*}} : (tensor<1x1x4x4xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>)
// REMARK: remark: graph-quantize-int8: 1 activations quantized
func.func @conv(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x3xf32> {
  %w = graph.constant dense<[[[[0.5, -1.0]]], [[[0.25, 0.125]]]]> : tensor<2x1x1x2xf32>
  %b = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x1x4x4xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x2x4x3xf32> loc("conv")
  return %y : tensor<1x2x4x3xf32>
}

// -----

// A gemm with B transposed ([N, K]): channels along axis 0; a matmul the cache does not
// know stays f32.
// CHECK-LABEL: func.func @gemm_and_uncalibrated
// CHECK: graph.dequantize_linear {{.*}} {axis = 0 : i64, block_size = 0 : i64} : (tensor<3x4xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x4xf32>
// CHECK: graph.quantize_linear %arg0
// CHECK: graph.gemm
// CHECK-NOT: graph.quantize_linear
// CHECK: graph.matmul
// REMARK: remark: graph-quantize-int8: no calibration for 'other:0'; left in f32
// REMARK: remark: graph-quantize-int8: 1 activations quantized
func.func @gemm_and_uncalibrated(%x: tensor<2x4xf32>) -> tensor<2x5xf32> {
  %b = graph.constant dense<0.5> : tensor<3x4xf32>
  %y = graph.gemm %x, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32> loc("fc")
  %w = graph.constant dense<0.25> : tensor<3x5xf32>
  %z = graph.matmul %y, %w : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32> loc("other")
  return %z : tensor<2x5xf32>
}

// -----

// Already quantized (a QAT export): the activation comes from a DequantizeLinear.
// CHECK-LABEL: func.func @already_quantized
// CHECK-COUNT-1: graph.quantize_linear
// CHECK-NOT: graph.quantize_linear
func.func @already_quantized(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x3xf32> {
  %s = graph.constant dense<0.1> : tensor<f32>
  %zp = graph.constant dense<0> : tensor<i8>
  %q = graph.quantize_linear %x, %s, %zp {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x1x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x1x4x4xi8>
  %d = graph.dequantize_linear %q, %s, %zp {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x4x4xf32>
  %w = graph.constant dense<0.5> : tensor<2x1x1x2xf32>
  %y = graph.conv %d, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x1x4x4xf32>, tensor<2x1x1x2xf32>) -> tensor<1x2x4x3xf32> loc("conv")
  return %y : tensor<1x2x4x3xf32>
}

// -----

// A residual block: %x feeds the conv and the skip add. The add reads the conv's
// DequantizeLinear, so that %x is needed in int8 only; the matmul's residual stream (%y
// into the second add) stays f32.
// CHECK-LABEL: func.func @residual
// CHECK: %[[Q:.*]] = graph.quantize_linear %arg0
// CHECK: %[[X:.*]] = graph.dequantize_linear %[[Q]]
// CHECK: %[[C:.*]] = graph.conv %[[X]]
// CHECK: %[[A:.*]] = graph.add %[[C]], %[[X]]
// CHECK: %[[Y:.*]] = graph.reshape %[[A]]
// CHECK: %[[QY:.*]] = graph.quantize_linear %[[Y]]
// CHECK: %[[DY:.*]] = graph.dequantize_linear %[[QY]]
// CHECK: %[[P:.*]] = graph.gemm %[[DY]]
// CHECK: graph.add %[[P]], %[[Y]]
func.func @residual(%x: tensor<1x2x4x4xf32>) -> tensor<16x2xf32> {
  %w = graph.constant dense<0.5> : tensor<2x2x1x1xf32>
  %c = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("conv")
  %a = graph.add %c, %x : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %shape = graph.constant dense<[16, 2]> : tensor<2xi64>
  %y = graph.reshape %a, %shape {allowzero = false} : (tensor<1x2x4x4xf32>, tensor<2xi64>) -> tensor<16x2xf32>
  %b = graph.constant dense<0.25> : tensor<2x2xf32>
  %p = graph.gemm %y, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<16x2xf32>, tensor<2x2xf32>) -> tensor<16x2xf32> loc("fc")
  %r = graph.add %p, %y : (tensor<16x2xf32>, tensor<16x2xf32>) -> tensor<16x2xf32>
  return %r : tensor<16x2xf32>
}

// -----

// A projection shortcut: the add joins two quantized convolutions read by nothing else.
// The shortcut (%s, whose conv reads the earlier activation, the block's input) is
// quantized as operand 1 of "join" (6.35 / 127 = 0.05), so that its conv stores int8; the
// block's last conv (%m) stays f32, the add going into its epilogue.
// CHECK-LABEL: func.func @shortcut
// CHECK: %[[M:.*]] = graph.conv
// CHECK: %[[S:.*]] = graph.conv
// CHECK: %[[S05:.*]] = graph.constant dense<5.000000e-02> : tensor<f32>
// CHECK: %[[QS:.*]] = graph.quantize_linear %[[S]], %[[S05]]
// CHECK: %[[DS:.*]] = graph.dequantize_linear %[[QS]], %[[S05]]
// CHECK: graph.add %[[M]], %[[DS]]
// REMARK: remark: graph-quantize-int8: 3 activations quantized
func.func @shortcut(%x: tensor<1x2x4x4xf32>, %h: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.constant dense<0.5> : tensor<2x2x1x1xf32>
  %v = graph.constant dense<0.25> : tensor<2x2x1x1xf32>
  %m = graph.conv %h, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("c3")
  %s = graph.conv %x, %v {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("ds")
  %a = graph.add %m, %s : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("join")
  return %a : tensor<1x2x4x4xf32>
}

// -----

// No shortcut where a conv's output has another reader: both stay f32 (quantizing one
// would make its conv store both forms).
// CHECK-LABEL: func.func @shared_output
// CHECK: %[[M:.*]] = graph.conv
// CHECK: %[[S:.*]] = graph.conv
// CHECK-NEXT: graph.add %[[M]], %[[S]]
// REMARK: remark: graph-quantize-int8: 2 activations quantized
func.func @shared_output(%x: tensor<1x2x4x4xf32>, %h: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = graph.constant dense<0.5> : tensor<2x2x1x1xf32>
  %v = graph.constant dense<0.25> : tensor<2x2x1x1xf32>
  %m = graph.conv %h, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("c3")
  %s = graph.conv %x, %v {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> loc("ds")
  %a = graph.add %m, %s : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("join2")
  return %a, %s : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
