// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-reduce-precision))' | FileCheck %s
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-reduce-precision{type=bf16}))' | FileCheck %s --check-prefix=BF16
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-reduce-precision{convert-io}))' | FileCheck %s --check-prefix=IO
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-reduce-precision{emit-remarks}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// conv -> relu -> add of the input: all in f16. The input is cast once (two readers),
// the weights and bias are converted at compile time, the output is widened back to f32.
// CHECK-LABEL: func.func @conv_block
// CHECK-DAG: %[[W:.*]] = graph.constant dense<5.000000e-01> : tensor<4x4x3x3xf16>
// CHECK-DAG: %[[B:.*]] = graph.constant dense<1.000000e+00> : tensor<4xf16>
// CHECK-DAG: %[[X:.*]] = graph.cast %arg0 {to = f16} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf16>
// CHECK: %[[C:.*]] = graph.conv %[[X]], %[[W]], %[[B]] {{.*}} : (tensor<1x4x8x8xf16>, tensor<4x4x3x3xf16>, tensor<4xf16>) -> tensor<1x4x8x8xf16>
// CHECK: %[[R:.*]] = graph.relu %[[C]] : tensor<1x4x8x8xf16>
// CHECK: %[[S:.*]] = graph.add %[[R]], %[[X]] : (tensor<1x4x8x8xf16>, tensor<1x4x8x8xf16>) -> tensor<1x4x8x8xf16>
// CHECK: %[[Y:.*]] = graph.cast %[[S]] {to = f32} : (tensor<1x4x8x8xf16>) -> tensor<1x4x8x8xf32>
// CHECK: return %[[Y]] : tensor<1x4x8x8xf32>
// BF16-LABEL: func.func @conv_block
// BF16: graph.conv {{.*}} -> tensor<1x4x8x8xbf16>
// With convert-io the function takes and returns f16: no cast at either end.
// IO-LABEL: func.func @conv_block(%arg0: tensor<1x4x8x8xf16>) -> tensor<1x4x8x8xf16>
// IO-NOT: graph.cast
// IO: %[[C:.*]] = graph.conv %arg0
// IO-NOT: graph.cast
// IO: return
// REMARK: remark: 3 ops in f16, 0 kept in f32, 2 constants converted, 0 elements saturated
func.func @conv_block(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense<0.5> : tensor<4x4x3x3xf32>
  %b = graph.constant dense<1.0> : tensor<4xf32>
  %c = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = graph.relu %c : tensor<1x4x8x8xf32>
  %s = graph.add %r, %x : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %s : tensor<1x4x8x8xf32>
}

// -----

// exp leaves f16's range: it stays an f32 island between two f16 ops, widened before and
// narrowed after.
// CHECK-LABEL: func.func @exp_island
// CHECK: %[[M:.*]] = graph.mul {{.*}} -> tensor<16xf16>
// CHECK: %[[WIDE:.*]] = graph.cast %[[M]] {to = f32} : (tensor<16xf16>) -> tensor<16xf32>
// CHECK: %[[E:.*]] = graph.exp %[[WIDE]] : tensor<16xf32>
// CHECK: %[[NARROW:.*]] = graph.cast %[[E]] {to = f16} : (tensor<16xf32>) -> tensor<16xf16>
// CHECK: graph.add %[[NARROW]], {{.*}} -> tensor<16xf16>
// REMARK: remark: kept in f32: range: exponentials, logarithms, powers and reciprocals leave the reduced type's range
// REMARK: remark: 2 ops in f16, 1 kept in f32
func.func @exp_island(%x: tensor<16xf32>) -> tensor<16xf32> {
  %m = graph.mul %x, %x : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %e = graph.exp %m : tensor<16xf32>
  %s = graph.add %e, %x : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

// Index arithmetic stays exact: the mul and floor that feed the cast to i64 stay f32,
// while the relu beside them, on the same input, goes to f16.
// CHECK-LABEL: func.func @index_arithmetic
// CHECK: graph.relu {{.*}} : tensor<8xf16>
// CHECK: %[[M:.*]] = graph.mul %arg0, {{.*}} -> tensor<8xf32>
// CHECK: %[[F:.*]] = graph.floor %[[M]] : tensor<8xf32>
// CHECK: graph.cast %[[F]] {to = i64} : (tensor<8xf32>) -> tensor<8xi64>
// REMARK: remark: kept in f32: feeds an integer conversion (index arithmetic)
// REMARK: remark: kept in f32: feeds an integer conversion (index arithmetic)
// REMARK: remark: kept in f32: converts to an integer
func.func @index_arithmetic(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xi64>) {
  %r = graph.relu %x : tensor<8xf32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %m = graph.mul %x, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %f = graph.floor %m : tensor<8xf32>
  %i = graph.cast %f {to = i64} : (tensor<8xf32>) -> tensor<8xi64>
  return %r, %i : tensor<8xf32>, tensor<8xi64>
}

// -----

// A mask of -1e9 (beyond f16's 65504) saturates to the largest finite f16 instead of
// becoming -inf. bf16 has f32's range: -1e9 rounds to its nearest bf16.
// CHECK-LABEL: func.func @saturated_mask
// CHECK: graph.constant dense<[0.000000e+00, -6.550400e+04]> : tensor<2xf16>
// BF16-LABEL: func.func @saturated_mask
// BF16: graph.constant dense<[0.000000e+00, -9.982440e+08]> : tensor<2xbf16>
// REMARK: remark: 1 ops in f16, 0 kept in f32, 1 constants converted, 1 elements saturated
func.func @saturated_mask(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %mask = graph.constant dense<[0.0, -1.0e9]> : tensor<2xf32>
  %y = graph.add %x, %mask : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Resize's scales are coordinates: only the data goes to f16.
// CHECK-LABEL: func.func @resize_scales
// CHECK: graph.resize %{{.*}} scales(%{{.*}}) {{.*}} : (tensor<1x3x8x8xf16>, tensor<4xf32>) -> tensor<1x3x16x16xf16>
func.func @resize_scales(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32> {
  %s = graph.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %y = graph.resize %x scales(%s) {antialias = false, coordinate_transformation_mode = "half_pixel",
      cubic_coeff_a = -0.75 : f32, exclude_outside = false, extrapolation_value = 0.0 : f32,
      keep_aspect_ratio_policy = "stretch", mode = "linear", nearest_mode = "floor"}
      : (tensor<1x3x8x8xf32>, tensor<4xf32>) -> tensor<1x3x16x16xf32>
  return %y : tensor<1x3x16x16xf32>
}

// -----

// Casts: bool -> f32 becomes bool -> f16; i64 -> f32 stays (f16 is exact only up to
// 2048); control flow and ops without a rule stay f32, fed through widening casts.
// CHECK-LABEL: func.func @casts_and_control_flow
// CHECK: graph.cast %arg0 {to = f16} : (tensor<4xi1>) -> tensor<4xf16>
// CHECK: graph.cast %arg1 {to = f32} : (tensor<4xi64>) -> tensor<4xf32>
// CHECK: graph.if {{.*}} -> tensor<4xf32>
// REMARK: remark: kept in f32: integer to float: f16 holds integers exactly only up to 2048
// REMARK: remark: kept in f32: control flow: its regions stay f32
func.func @casts_and_control_flow(%b: tensor<4xi1>, %n: tensor<4xi64>, %c: tensor<i1>) -> tensor<4xf32> {
  %fb = graph.cast %b {to = f32} : (tensor<4xi1>) -> tensor<4xf32>
  %fn = graph.cast %n {to = f32} : (tensor<4xi64>) -> tensor<4xf32>
  %s = graph.add %fb, %fn : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = graph.if %c : tensor<i1> -> tensor<4xf32> {
    graph.yield %s : tensor<4xf32>
  } else {
    graph.yield %fb : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}


// -----

// A folded quantized conv (graph-fold-quantized-products): the integer conv touches no float
// and stays; the dequantize_linear of its i32 accumulator keeps f32 (its per-channel
// scale, ~1e-5, is below f16's normal range), and so does the next layer's quantization;
// the bias add and the relu between them stay f32 too, since their values only reach the
// quantization (stored as int8: f16 would save nothing).
// CHECK-LABEL: func.func @quantized_conv
// CHECK: %[[ACC:.*]] = graph.conv %arg0, %{{.*}} {{.*}} -> tensor<1x4x8x8xi32>
// CHECK: %[[Y:.*]] = graph.dequantize_linear %[[ACC]], %{{.*}} {{.*}} : (tensor<1x4x8x8xi32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT: %[[A:.*]] = graph.add %[[Y]], %{{.*}} : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT: %[[R:.*]] = graph.relu %[[A]] : tensor<1x4x8x8xf32>
// CHECK-NEXT: %[[Q:.*]] = graph.quantize_linear %[[R]], %{{.*}}, %{{.*}} {{.*}} -> tensor<1x4x8x8xi8>
// CHECK: graph.dequantize_linear %[[Q]], %{{.*}} {{.*}} -> tensor<1x4x8x8xf32>
// REMARK: remark: kept in f32: dequantization: scales (~1e-5 for an i32 accumulator) lie below f16's normal range and i32 values beyond its range
// REMARK: remark: kept in f32: feeds only quantizations: stored as int8, the reduced type saves nothing
// REMARK: remark: kept in f32: feeds only quantizations
// REMARK: remark: kept in f32: quantization: rounding onto the integer grid needs the f32 value and scale
// REMARK: remark: kept in f32: dequantization: scales
// REMARK: remark: 0 ops in f16, 5 kept in f32
func.func @quantized_conv(%x: tensor<1x4x8x8xi8>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense<3> : tensor<4x4x3x3xi8>
  %s = graph.constant dense<[1.0e-5, 2.0e-5, 3.0e-5, 4.0e-5]> : tensor<4xf32>
  %b = graph.constant dense<0.25> : tensor<4x1x1xf32>
  %sq = graph.constant dense<0.05> : tensor<f32>
  %zq = graph.constant dense<0> : tensor<i8>
  %c = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x4x8x8xi8>, tensor<4x4x3x3xi8>) -> tensor<1x4x8x8xi32>
  %y = graph.dequantize_linear %c, %s {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x4x8x8xi32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %a = graph.add %y, %b : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r = graph.relu %a : tensor<1x4x8x8xf32>
  %q = graph.quantize_linear %r, %sq, %zq {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xi8>
  %d = graph.dequantize_linear %q, %sq, %zq {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  return %d : tensor<1x4x8x8xf32>
}

// -----

// The same, but the relu's value is also a result: it is stored as f16, so the bias add
// and the relu compute in f16.
// CHECK-LABEL: func.func @quantized_conv_with_float_use
// CHECK: %[[Y:.*]] = graph.dequantize_linear
// CHECK: %[[YH:.*]] = graph.cast %[[Y]] {to = f16}
// CHECK: %[[A:.*]] = graph.add %[[YH]], %{{.*}} : (tensor<1x4x8x8xf16>, tensor<4x1x1xf16>) -> tensor<1x4x8x8xf16>
// CHECK: %[[R:.*]] = graph.relu %[[A]] : tensor<1x4x8x8xf16>
// CHECK: %[[RF:.*]] = graph.cast %[[R]] {to = f32}
// CHECK: graph.quantize_linear %[[RF]]
// REMARK: remark: 2 ops in f16, 2 kept in f32
func.func @quantized_conv_with_float_use(%x: tensor<1x4x8x8xi8>) -> (tensor<1x4x8x8xi8>, tensor<1x4x8x8xf32>) {
  %w = graph.constant dense<3> : tensor<4x4x3x3xi8>
  %s = graph.constant dense<[1.0e-5, 2.0e-5, 3.0e-5, 4.0e-5]> : tensor<4xf32>
  %b = graph.constant dense<0.25> : tensor<4x1x1xf32>
  %sq = graph.constant dense<0.05> : tensor<f32>
  %zq = graph.constant dense<0> : tensor<i8>
  %c = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x4x8x8xi8>, tensor<4x4x3x3xi8>) -> tensor<1x4x8x8xi32>
  %y = graph.dequantize_linear %c, %s {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x4x8x8xi32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %a = graph.add %y, %b : (tensor<1x4x8x8xf32>, tensor<4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r = graph.relu %a : tensor<1x4x8x8xf32>
  %q = graph.quantize_linear %r, %sq, %zq {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xi8>
  return %q, %r : tensor<1x4x8x8xi8>, tensor<1x4x8x8xf32>
}

// -----

// A skip add of two quantized convs' values (a residual block with a downsampled skip
// connection), before the next quantization: the second conv's value is stored by a
// kernel of its own, in f16, so the add stays in f16 and only the relu after it, which
// reaches the quantization alone, computes in f32. With a dequantized skip connection
// (already f32) the add computes in f32 as well.
// CHECK-LABEL: func.func @two_chains
// CHECK: %[[A:.*]] = graph.add %{{.*}}, %{{.*}} : (tensor<1x4x8x8xf16>, tensor<1x4x8x8xf16>) -> tensor<1x4x8x8xf16>
// CHECK: %[[AF:.*]] = graph.cast %[[A]] {to = f32}
// CHECK: %[[R:.*]] = graph.relu %[[AF]] : tensor<1x4x8x8xf32>
// CHECK: %[[S:.*]] = graph.add %{{.*}}, %{{.*}} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK: graph.relu %[[S]] : tensor<1x4x8x8xf32>
func.func @two_chains(%x: tensor<1x4x8x8xi8>) -> tensor<1x4x8x8xi8> {
  %w = graph.constant dense<3> : tensor<4x4x3x3xi8>
  %s = graph.constant dense<[1.0e-5, 2.0e-5, 3.0e-5, 4.0e-5]> : tensor<4xf32>
  %sq = graph.constant dense<0.05> : tensor<f32>
  %zq = graph.constant dense<0> : tensor<i8>
  %c1 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x4x8x8xi8>, tensor<4x4x3x3xi8>) -> tensor<1x4x8x8xi32>
  %y1 = graph.dequantize_linear %c1, %s {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x4x8x8xi32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %c2 = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x4x8x8xi8>, tensor<4x4x3x3xi8>) -> tensor<1x4x8x8xi32>
  %y2 = graph.dequantize_linear %c2, %s {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x4x8x8xi32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %n2 = graph.neg %y2 : tensor<1x4x8x8xf32>
  %a = graph.add %y1, %n2 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = graph.relu %a : tensor<1x4x8x8xf32>
  %q = graph.quantize_linear %r, %sq, %zq {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xi8>
  %d = graph.dequantize_linear %q, %sq, %zq {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %c3 = graph.conv %q, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1} : (tensor<1x4x8x8xi8>, tensor<4x4x3x3xi8>) -> tensor<1x4x8x8xi32>
  %y3 = graph.dequantize_linear %c3, %s {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x4x8x8xi32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %sum = graph.add %y3, %d : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r2 = graph.relu %sum : tensor<1x4x8x8xf32>
  %q2 = graph.quantize_linear %r2, %sq, %zq {axis = 1 : i64, block_size = 0 : i64, saturate = true} : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xi8>
  return %q2 : tensor<1x4x8x8xi8>
}

// -----

// LayerNormalization reduces: its input, scale, bias and result take f16, its mean and
// inverse standard deviation stay its stash type (f32), as it infers them (it used to
// stay f32 between two casts, a kernel each on the GPU; the casts left here are no-ops
// that graph-simplify folds).
// CHECK-LABEL: func.func @layer_norm
// CHECK: graph.layer_normalization %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : (tensor<4x197x768xf16>, tensor<768xf16>, tensor<768xf16>) -> (tensor<4x197x768xf16>, tensor<4x197x1xf32>, tensor<4x197x1xf32>)
func.func @layer_norm(%x: tensor<4x197x768xf16>, %w: tensor<768x768xf16>, %scale: tensor<768xf32>, %bias: tensor<768xf32>) -> tensor<4x197x768xf16> {
  %0 = graph.cast %x {to = f32} : (tensor<4x197x768xf16>) -> tensor<4x197x768xf32>
  %y, %mean, %inv = graph.layer_normalization %0, %scale, %bias {axis = -1 : i64, epsilon = 1.0e-6 : f32, stash_type = f32} : (tensor<4x197x768xf32>, tensor<768xf32>, tensor<768xf32>) -> (tensor<4x197x768xf32>, tensor<4x197x1xf32>, tensor<4x197x1xf32>)
  %1 = graph.cast %y {to = f16} : (tensor<4x197x768xf32>) -> tensor<4x197x768xf16>
  return %1 : tensor<4x197x768xf16>
}
