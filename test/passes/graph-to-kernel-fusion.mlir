// RUN: kiln-opt --graph-to-kernel %s -split-input-file | FileCheck %s

// Vertical fusion: a conv, the residual add and the relu are one kernel (conv template,
// epilogue add + relu); only the relu's value leaves it.
// CHECK-LABEL: kernel.func @Conv_0(
// CHECK-SAME: memref<1x4x8x8xf32>, %{{.*}}: memref<4x4x3x3xf32>, %{{.*}}: memref<1x4x8x8xf32>, %{{.*}}: memref<1x4x8x8xf32>)
// CHECK: conv ins
// CHECK: %[[C:.*]] = graph.conv
// CHECK: %[[A:.*]] = graph.add %[[C]], %{{.*}}
// CHECK: %[[R:.*]] = graph.relu %[[A]]
// CHECK: kernel.yield %[[R]] : tensor<1x4x8x8xf32>
// CHECK-NOT: kernel.func
// CHECK-LABEL: func.func @residual(
// CHECK: kernel.launch @Conv_0(%arg0, %{{.*}}, %arg1, %arg2)
// CHECK-NEXT: return
func.func @residual(%x: tensor<1x4x8x8xf32>, %r: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.constant dense_resource<w> : tensor<4x4x3x3xf32>
  %0 = graph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64, kernel_shape = array<i64: 3, 3>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32> loc("Conv_0")
  %1 = graph.add %0, %r : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("Add_1")
  %2 = graph.relu %1 : tensor<1x4x8x8xf32> loc("Relu_2")
  return %2 : tensor<1x4x8x8xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x04000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    }
  }
#-}

// -----

// An epilogue op stays out of the group when it would change the iteration space (the
// add broadcasts the product to a larger shape).
// CHECK-LABEL: kernel.func @MatMul_0(
// CHECK: graph.matmul
// CHECK-NEXT: kernel.yield
// CHECK-LABEL: kernel.func @Add_1(
// CHECK: pointwise ins
func.func @broadcast(%a: tensor<2x4xf32>, %b: tensor<4x8xf32>, %c: tensor<3x2x8xf32>) -> tensor<3x2x8xf32> {
  %0 = graph.matmul %a, %b : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32> loc("MatMul_0")
  %1 = graph.add %0, %c : (tensor<2x8xf32>, tensor<3x2x8xf32>) -> tensor<3x2x8xf32> loc("Add_1")
  return %1 : tensor<3x2x8xf32>
}

// -----

// A value another kernel reads before the candidate epilogue op keeps the group closed:
// the group would be launched after its reader.
// CHECK-LABEL: kernel.func @MatMul_0(
// CHECK: graph.matmul
// CHECK-NEXT: kernel.yield
// CHECK-LABEL: kernel.func @Reduce_1(
// CHECK-LABEL: kernel.func @Relu_2(
// CHECK-LABEL: func.func @early_reader(
// CHECK: kernel.launch @MatMul_0
// CHECK: kernel.launch @Reduce_1
// CHECK: kernel.launch @Relu_2
func.func @early_reader(%a: tensor<2x4xf32>, %b: tensor<4x8xf32>) -> (tensor<2x1xf32>, tensor<2x8xf32>) {
  %axes = graph.constant dense<1> : tensor<1xi64>
  %0 = graph.matmul %a, %b : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32> loc("MatMul_0")
  %1 = graph.reduce_sum %0, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32> loc("Reduce_1")
  %2 = graph.relu %0 : tensor<2x8xf32> loc("Relu_2")
  return %1, %2 : tensor<2x1xf32>, tensor<2x8xf32>
}

// -----

// A value of a product's group read after it as well ends the group's epilogue there: the
// tensor-core templates store one value, so the ops after it (the relu) become a
// pointwise kernel of their own rather than a second result.
// CHECK-LABEL: kernel.func @MatMul_0(
// CHECK-SAME: %{{.*}}: memref<2x4xf32>, %{{.*}}: memref<4x8xf32>, %{{.*}}: memref<2x8xf32>)
// CHECK: %[[P:.*]] = graph.matmul
// CHECK: kernel.yield %[[P]] :
// CHECK-LABEL: kernel.func @Relu_1(
// CHECK: graph.relu
// CHECK-LABEL: func.func @two_results(
// CHECK: kernel.launch @MatMul_0
// CHECK-NEXT: kernel.launch @Relu_1
// CHECK-NEXT: kernel.launch @Reduce_2
func.func @two_results(%a: tensor<2x4xf32>, %b: tensor<4x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>) {
  %axes = graph.constant dense<1> : tensor<1xi64>
  %0 = graph.matmul %a, %b : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32> loc("MatMul_0")
  %1 = graph.relu %0 : tensor<2x8xf32> loc("Relu_1")
  %2 = graph.reduce_sum %0, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32> loc("Reduce_2")
  return %1, %2 : tensor<2x8xf32>, tensor<2x1xf32>
}

// -----

// Data movement feeding only the matrix product is its prologue: the transposes are in
// the matmul kernel's body, before the anchor.
// CHECK-LABEL: kernel.func @MatMul_2(
// CHECK: matmul ins
// CHECK: graph.transpose
// CHECK: graph.transpose
// CHECK: graph.matmul
// CHECK-NOT: kernel.func
func.func @prologue(%a: tensor<4x2xf32>, %b: tensor<8x4xf32>) -> tensor<2x8xf32> {
  %0 = graph.transpose %a {perm = array<i64: 1, 0>} : (tensor<4x2xf32>) -> tensor<2x4xf32> loc("Transpose_0")
  %1 = graph.transpose %b {perm = array<i64: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32> loc("Transpose_1")
  %2 = graph.matmul %0, %1 : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32> loc("MatMul_2")
  return %2 : tensor<2x8xf32>
}

// -----

// A half-precision product keeps its transposes out (the heads merged before a
// transformer's output projection): the GEMM templates read A row-major by TMA, so the
// transpose and the reshape after it are a movement kernel of their own and the matmul
// kernel reads their result as it is.
// CHECK-LABEL: kernel.func @Reshape_1(
// CHECK: graph.transpose
// CHECK: graph.reshape
// CHECK-NOT: graph.matmul
// CHECK: kernel.yield
// CHECK-LABEL: kernel.func @MatMul_2(
// CHECK-NOT: graph.transpose
// CHECK-NOT: graph.reshape
// CHECK: graph.matmul
// CHECK: kernel.yield
// CHECK: kernel.launch @Reshape_1
// CHECK-NEXT: kernel.launch @MatMul_2
func.func @half_prologue(%a: tensor<2x4x3x8xf16>, %b: tensor<32x16xf16>) -> tensor<2x3x16xf16> {
  %shape = graph.constant dense<[2, 3, 32]> : tensor<3xi64>
  %0 = graph.transpose %a {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x3x8xf16>) -> tensor<2x3x4x8xf16> loc("Transpose_0")
  %1 = graph.reshape %0, %shape {allowzero = false} : (tensor<2x3x4x8xf16>, tensor<3xi64>) -> tensor<2x3x32xf16> loc("Reshape_1")
  %2 = graph.matmul %1, %b : (tensor<2x3x32xf16>, tensor<32x16xf16>) -> tensor<2x3x16xf16> loc("MatMul_2")
  return %2 : tensor<2x3x16xf16>
}

// -----

// A half-precision convolution takes no prologue: the tensor-core template reads its
// input buffer by TMA, so the layout transpose in front of a network's first convolution
// stays a kernel of its own. In fp32 (no template) the transpose is the prologue.
// CHECK-LABEL: kernel.func @Transpose_0(
// CHECK: graph.transpose
// CHECK-NOT: graph.conv
// CHECK: kernel.yield
// CHECK-LABEL: kernel.func @Conv_1(
// CHECK-NOT: graph.transpose
// CHECK: graph.conv
// CHECK: graph.relu
// CHECK: kernel.yield
// CHECK-LABEL: kernel.func @Conv_4(
// CHECK: graph.transpose
// CHECK: graph.conv
// CHECK: kernel.yield
func.func @conv_prologue(%x: tensor<2x3x8x8xf16>, %y: tensor<2x3x8x8xf32>) -> (tensor<2x8x8x8xf16>, tensor<2x8x8x8xf32>) {
  %w = graph.constant dense<1.0> : tensor<8x3x3x3xf16>
  %0 = graph.transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x3x8x8xf16>) -> tensor<2x8x8x3xf16> loc("Transpose_0")
  %1 = graph.conv %0, %w {channels_last, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<2x8x8x3xf16>, tensor<8x3x3x3xf16>) -> tensor<2x8x8x8xf16> loc("Conv_1")
  %2 = graph.relu %1 : tensor<2x8x8x8xf16> loc("Relu_2")
  %v = graph.constant dense<1.0> : tensor<8x3x3x3xf32>
  %3 = graph.transpose %y {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x8x8x3xf32> loc("Transpose_3")
  %4 = graph.conv %3, %v {channels_last, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<2x8x8x3xf32>, tensor<8x3x3x3xf32>) -> tensor<2x8x8x8xf32> loc("Conv_4")
  return %2, %4 : tensor<2x8x8x8xf16>, tensor<2x8x8x8xf32>
}

// -----

// An int8 convolution takes no prologue either: the quantization and layout transpose in
// front of a quantized network's first convolution are a kernel of their own. Its
// epilogue (the rescale, the f16 round trip and the relu) stays with it: casts do not
// count against the ten ops.
// CHECK-LABEL: kernel.func @Transpose_5(
// CHECK: graph.div
// CHECK: graph.transpose
// CHECK-NOT: graph.conv
// CHECK: kernel.yield
// CHECK-LABEL: kernel.func @Conv_6(
// CHECK-NEXT: conv ins
// CHECK-NEXT: ^bb0
// CHECK: graph.conv
// CHECK: graph.cast
// CHECK: graph.mul
// CHECK: graph.relu
// CHECK: kernel.yield
func.func @int8_conv_prologue(%x: tensor<2x16x8x8xf32>) -> tensor<2x8x8x16xf16> {
  %s = graph.constant dense<0.02> : tensor<f32>
  %lo = graph.constant dense<-128.0> : tensor<f32>
  %hi = graph.constant dense<127.0> : tensor<f32>
  %w = graph.constant dense<3> : tensor<16x3x3x16xi8>
  %scale = graph.constant dense<0.001> : tensor<16xf32>
  %0 = graph.div %x, %s : (tensor<2x16x8x8xf32>, tensor<f32>) -> tensor<2x16x8x8xf32> loc("Quantize_0")
  %1 = graph.round %0 : tensor<2x16x8x8xf32> loc("Quantize_1")
  %2 = graph.clip %1 min %lo max %hi : (tensor<2x16x8x8xf32>, tensor<f32>, tensor<f32>) -> tensor<2x16x8x8xf32> loc("Quantize_2")
  %3 = graph.cast %2 {to = i8} : (tensor<2x16x8x8xf32>) -> tensor<2x16x8x8xi8> loc("Quantize_3")
  %4 = graph.transpose %3 {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x16x8x8xi8>) -> tensor<2x8x8x16xi8> loc("Transpose_5")
  %5 = graph.conv %4, %w {channels_last, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<2x8x8x16xi8>, tensor<16x3x3x16xi8>) -> tensor<2x8x8x16xi32> loc("Conv_6")
  %6 = graph.cast %5 {to = f32} : (tensor<2x8x8x16xi32>) -> tensor<2x8x8x16xf32> loc("Conv_6")
  %7 = graph.mul %6, %scale : (tensor<2x8x8x16xf32>, tensor<16xf32>) -> tensor<2x8x8x16xf32> loc("Conv_6")
  %8 = graph.cast %7 {to = f16} : (tensor<2x8x8x16xf32>) -> tensor<2x8x8x16xf16> loc("Conv_6")
  %9 = graph.relu %8 : tensor<2x8x8x16xf16> loc("Relu_7")
  return %9 : tensor<2x8x8x16xf16>
}

// -----

// A quantization round trip (a cast to an integer and back) in front of a product is a
// kernel of its own, not the product's prologue: rounded once, and the product can read
// its operand directly (a scale alone would be its prologue, as in @scaled).
// CHECK-LABEL: kernel.func @Quantize_0(
// CHECK: graph.round
// CHECK: graph.cast
// CHECK-NOT: graph.matmul
// CHECK: kernel.yield
// CHECK-LABEL: kernel.func @MatMul_3(
// CHECK-NEXT: matmul ins
// CHECK-NEXT: ^bb0
// CHECK-NEXT: graph.matmul
func.func @quantized_operand(%a: tensor<2x4xf32>, %b: tensor<4x8xf32>) -> tensor<2x8xf32> {
  %s = graph.constant dense<0.02> : tensor<f32>
  %0 = graph.div %a, %s : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32> loc("Quantize_0")
  %1 = graph.round %0 : tensor<2x4xf32> loc("Quantize_0")
  %2 = graph.cast %1 {to = i8} : (tensor<2x4xf32>) -> tensor<2x4xi8> loc("Quantize_1")
  %3 = graph.cast %2 {to = f32} : (tensor<2x4xi8>) -> tensor<2x4xf32> loc("Dequantize_2")
  %4 = graph.mul %3, %s : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32> loc("Dequantize_2")
  %5 = graph.matmul %4, %b : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32> loc("MatMul_3")
  return %5 : tensor<2x8xf32>
}

// -----

// At most ten ops per kernel: a chain of eleven pointwise ops is two kernels.
// CHECK-LABEL: kernel.func @Neg_0(
// CHECK-COUNT-10: graph.neg
// CHECK: kernel.yield
// CHECK-LABEL: kernel.func @Neg_10(
// CHECK-COUNT-1: graph.neg
// CHECK: kernel.yield
func.func @limit(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.neg %x : tensor<4xf32> loc("Neg_0")
  %1 = graph.neg %0 : tensor<4xf32> loc("Neg_1")
  %2 = graph.neg %1 : tensor<4xf32> loc("Neg_2")
  %3 = graph.neg %2 : tensor<4xf32> loc("Neg_3")
  %4 = graph.neg %3 : tensor<4xf32> loc("Neg_4")
  %5 = graph.neg %4 : tensor<4xf32> loc("Neg_5")
  %6 = graph.neg %5 : tensor<4xf32> loc("Neg_6")
  %7 = graph.neg %6 : tensor<4xf32> loc("Neg_7")
  %8 = graph.neg %7 : tensor<4xf32> loc("Neg_8")
  %9 = graph.neg %8 : tensor<4xf32> loc("Neg_9")
  %10 = graph.neg %9 : tensor<4xf32> loc("Neg_10")
  return %10 : tensor<4xf32>
}

// -----

// A pointwise op (a scale) feeding only the product is in its prologue too. The exp
// would join the first product as its epilogue, but the product is a result too, so the
// exp is split off into a kernel of its own; the neg cannot join that (MatMul_4, before
// it, already reads it), so it becomes the prologue of the product it feeds.
// CHECK-LABEL: kernel.func @MatMul_2(
// CHECK: matmul ins
// CHECK: graph.mul
// CHECK: %[[P:.*]] = graph.matmul
// CHECK: kernel.yield %[[P]] :
// CHECK-LABEL: kernel.func @Exp_3(
// CHECK: graph.exp
// CHECK-LABEL: kernel.func @MatMul_4(
// CHECK-NEXT: matmul ins
// CHECK-NEXT: ^bb0
// CHECK-NEXT: graph.matmul
// CHECK-LABEL: kernel.func @MatMul_6(
// CHECK: graph.neg
// CHECK: graph.matmul
// CHECK-LABEL: func.func @scaled(
// CHECK: kernel.launch @MatMul_2
// CHECK: kernel.launch @Exp_3
// CHECK-NEXT: kernel.launch @MatMul_4
// CHECK-NEXT: kernel.launch @MatMul_6
// CHECK-NEXT: return
func.func @scaled(%a: tensor<2x4xf32>, %b: tensor<4x8xf32>, %c: tensor<8x4xf32>) -> (tensor<2x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %half = graph.constant dense<0.5> : tensor<f32>
  %0 = graph.mul %a, %half : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32> loc("Mul_1")
  %1 = graph.matmul %0, %b : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32> loc("MatMul_2")
  %2 = graph.exp %1 : tensor<2x8xf32> loc("Exp_3")
  %3 = graph.matmul %2, %c : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32> loc("MatMul_4")
  %4 = graph.neg %2 : tensor<2x8xf32> loc("Neg_5")
  %5 = graph.matmul %4, %c : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32> loc("MatMul_6")
  return %1, %3, %5 : tensor<2x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// An epilogue op takes the producers of its other operands that only it reads: the select
// that turns a boolean mask into an additive one is computed where the masked add reads it,
// broadcast over the heads; a mask another op also reads stays a kernel of its own.
// CHECK-LABEL: kernel.func @MatMul_0(
// CHECK: matmul ins
// CHECK: %[[P:.*]] = graph.matmul
// CHECK: %[[M:.*]] = graph.where
// CHECK: %[[S:.*]] = graph.add %[[P]], %[[M]]
// CHECK: kernel.yield %[[S]]
// CHECK-LABEL: kernel.func @Where_4(
// CHECK: pointwise ins
// CHECK-LABEL: kernel.func @MatMul_3(
// CHECK: graph.matmul
// CHECK-NEXT: graph.add
// CHECK-NEXT: kernel.yield
// CHECK-LABEL: func.func @masked(
// CHECK-COUNT-3: kernel.launch
// CHECK-NEXT: return
func.func @masked(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x8x4xf32>, %mask: tensor<1x1x4x4xi1>, %shared: tensor<1x1x4x4xi1>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>) {
  %zero = graph.constant dense<0.0> : tensor<f32>
  %ninf = graph.constant dense<0xFF800000> : tensor<f32>
  %0 = graph.matmul %q, %k : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32> loc("MatMul_0")
  %1 = graph.where %mask, %zero, %ninf : (tensor<1x1x4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x4x4xf32> loc("Where_1")
  %2 = graph.add %0, %1 : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> loc("Add_2")
  %3 = graph.matmul %q, %k : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32> loc("MatMul_3")
  %4 = graph.where %shared, %zero, %ninf : (tensor<1x1x4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x4x4xf32> loc("Where_4")
  %5 = graph.add %3, %4 : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> loc("Add_5")
  return %2, %5, %4 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>
}

// -----

// Attention is one kernel of the attention template; the head-splitting reshapes and
// transposes feeding only it are its prologue, the mask an input.
// CHECK-LABEL: kernel.func @Attention_3(
// CHECK-SAME: %{{.*}}: memref<1x8x16xf32>, %{{.*}}: memref<1x8x16xf32>, %{{.*}}: memref<1x8x16xf32>, %{{.*}}: memref<1x1x8x8xf32>, %{{.*}}: memref<1x2x8x8xf32>)
// CHECK: attention ins
// CHECK-COUNT-3: graph.transpose
// CHECK: graph.attention
// CHECK-NEXT: kernel.yield
// CHECK-LABEL: func.func @attention(
// CHECK-COUNT-1: kernel.launch
// CHECK-NEXT: return
func.func @attention(%q: tensor<1x8x16xf32>, %k: tensor<1x8x16xf32>, %v: tensor<1x8x16xf32>, %mask: tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %shape = graph.constant dense<[1, 8, 2, 8]> : tensor<4xi64>
  %0 = graph.reshape %q, %shape {allowzero = false} : (tensor<1x8x16xf32>, tensor<4xi64>) -> tensor<1x8x2x8xf32>
  %1 = graph.transpose %0 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x8xf32>) -> tensor<1x2x8x8xf32> loc("Transpose_0")
  %2 = graph.reshape %k, %shape {allowzero = false} : (tensor<1x8x16xf32>, tensor<4xi64>) -> tensor<1x8x2x8xf32>
  %3 = graph.transpose %2 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x8xf32>) -> tensor<1x2x8x8xf32> loc("Transpose_1")
  %4 = graph.reshape %v, %shape {allowzero = false} : (tensor<1x8x16xf32>, tensor<4xi64>) -> tensor<1x8x2x8xf32>
  %5 = graph.transpose %4 {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x8x2x8xf32>) -> tensor<1x2x8x8xf32> loc("Transpose_2")
  %6 = graph.attention %1, %3, %5, %mask {scale = 0.35355339 : f32, nan_to_zero} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32> loc("Attention_3")
  return %6 : tensor<1x2x8x8xf32>
}

// -----

// Q, K and V padded along their head size (graph-decompose-attention's zeros for a head
// size the flash kernels do not take): a pad is data movement but no view the template
// reads, so each stays a kernel of its own and the attention takes their buffers.
// CHECK-LABEL: kernel.func @pad(
// CHECK: graph.pad
// CHECK-LABEL: kernel.func @attention(
// CHECK-SAME: %{{.*}}: memref<1x2x8x16xf16>, %{{.*}}: memref<1x2x8x16xf16>, %{{.*}}: memref<1x2x8x16xf16>, %{{.*}}: memref<1x2x8x16xf16>)
// CHECK: attention ins
// CHECK-NOT: graph.pad
// CHECK: graph.attention
// CHECK-LABEL: func.func @padded_heads(
// CHECK-COUNT-5: kernel.launch
func.func @padded_heads(%q: tensor<1x2x8x12xf16>, %k: tensor<1x2x8x12xf16>, %v: tensor<1x2x8x12xf16>) -> tensor<1x2x8x12xf16> {
  %pads = graph.constant dense<[0, 0, 0, 0, 0, 0, 0, 4]> : tensor<8xi64>
  %pq = graph.pad %q, %pads {mode = "constant"} : (tensor<1x2x8x12xf16>, tensor<8xi64>) -> tensor<1x2x8x16xf16>
  %pk = graph.pad %k, %pads {mode = "constant"} : (tensor<1x2x8x12xf16>, tensor<8xi64>) -> tensor<1x2x8x16xf16>
  %pv = graph.pad %v, %pads {mode = "constant"} : (tensor<1x2x8x12xf16>, tensor<8xi64>) -> tensor<1x2x8x16xf16>
  %a = graph.attention %pq, %pk, %pv {scale = 0.288675 : f32} : (tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16>
  %starts = graph.constant dense<0> : tensor<1xi64>
  %ends = graph.constant dense<12> : tensor<1xi64>
  %axes = graph.constant dense<3> : tensor<1xi64>
  %y = graph.slice %a, %starts, %ends axes %axes : (tensor<1x2x8x16xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x2x8x12xf16>
  return %y : tensor<1x2x8x12xf16>
}

// -----

// nn.MultiheadAttention's split of a fused, sequence-first QKV projection: the reshape,
// transpose and squeeze that all of Q, K and V read join the attention kernel too (its
// template reads any strided view of the projection), instead of copying the projection
// in a movement kernel of their own.
// CHECK-LABEL: kernel.func @Attention(
// CHECK-SAME: %{{.*}}: memref<4x2x48xf16>, %{{.*}}: memref<2x2x4x8xf16>)
// CHECK: attention ins
// CHECK: graph.squeeze
// CHECK-COUNT-3: graph.gather
// CHECK: graph.attention
// CHECK-LABEL: func.func @shared_split(
// CHECK-COUNT-1: kernel.launch
// CHECK-NEXT: return
func.func @shared_split(%qkv: tensor<4x2x48xf16>) -> tensor<2x2x4x8xf16> {
  %split = graph.constant dense<[4, 2, 3, 16]> : tensor<4xi64>
  %axis0 = graph.constant dense<0> : tensor<1xi64>
  %axis3 = graph.constant dense<3> : tensor<1xi64>
  %heads = graph.constant dense<[4, 4, 8]> : tensor<3xi64>
  %bhsd = graph.constant dense<[2, 2, 4, 8]> : tensor<4xi64>
  %i0 = graph.constant dense<0> : tensor<i64>
  %i1 = graph.constant dense<1> : tensor<i64>
  %i2 = graph.constant dense<2> : tensor<i64>
  %r = graph.reshape %qkv, %split {allowzero = false} : (tensor<4x2x48xf16>, tensor<4xi64>) -> tensor<4x2x3x16xf16>
  %u = graph.unsqueeze %r, %axis0 : (tensor<4x2x3x16xf16>, tensor<1xi64>) -> tensor<1x4x2x3x16xf16>
  %t = graph.transpose %u {perm = array<i64: 3, 1, 2, 0, 4>} : (tensor<1x4x2x3x16xf16>) -> tensor<3x4x2x1x16xf16>
  %s = graph.squeeze %t, %axis3 : (tensor<3x4x2x1x16xf16>, tensor<1xi64>) -> tensor<3x4x2x16xf16>
  %q0 = graph.gather %s, %i0 {axis = 0 : i64} : (tensor<3x4x2x16xf16>, tensor<i64>) -> tensor<4x2x16xf16>
  %q1 = graph.reshape %q0, %heads {allowzero = false} : (tensor<4x2x16xf16>, tensor<3xi64>) -> tensor<4x4x8xf16>
  %q2 = graph.transpose %q1 {perm = array<i64: 1, 0, 2>} : (tensor<4x4x8xf16>) -> tensor<4x4x8xf16>
  %q = graph.reshape %q2, %bhsd {allowzero = false} : (tensor<4x4x8xf16>, tensor<4xi64>) -> tensor<2x2x4x8xf16>
  %k0 = graph.gather %s, %i1 {axis = 0 : i64} : (tensor<3x4x2x16xf16>, tensor<i64>) -> tensor<4x2x16xf16>
  %k1 = graph.reshape %k0, %heads {allowzero = false} : (tensor<4x2x16xf16>, tensor<3xi64>) -> tensor<4x4x8xf16>
  %k2 = graph.transpose %k1 {perm = array<i64: 1, 0, 2>} : (tensor<4x4x8xf16>) -> tensor<4x4x8xf16>
  %k = graph.reshape %k2, %bhsd {allowzero = false} : (tensor<4x4x8xf16>, tensor<4xi64>) -> tensor<2x2x4x8xf16>
  %v0 = graph.gather %s, %i2 {axis = 0 : i64} : (tensor<3x4x2x16xf16>, tensor<i64>) -> tensor<4x2x16xf16>
  %v1 = graph.reshape %v0, %heads {allowzero = false} : (tensor<4x2x16xf16>, tensor<3xi64>) -> tensor<4x4x8xf16>
  %v2 = graph.transpose %v1 {perm = array<i64: 1, 0, 2>} : (tensor<4x4x8xf16>) -> tensor<4x4x8xf16>
  %v = graph.reshape %v2, %bhsd {allowzero = false} : (tensor<4x4x8xf16>, tensor<4xi64>) -> tensor<2x2x4x8xf16>
  %a = graph.attention %q, %k, %v {scale = 0.35355339 : f32} : (tensor<2x2x4x8xf16>, tensor<2x2x4x8xf16>, tensor<2x2x4x8xf16>) -> tensor<2x2x4x8xf16> loc("Attention")
  return %a : tensor<2x2x4x8xf16>
}

// -----

// A dequantization (a cast from i8 to f32) joins no producer's epilogue, which would
// store four bytes an element where its reader can load one: the quantizing kernel
// stores i8 (a result, so it stays a kernel), and the product's epilogue converts it as
// it reads it (a quantized skip connection).
// CHECK-LABEL: kernel.func @Neg_0(
// CHECK-SAME: memref<2x8xi8>)
// CHECK: graph.neg
// CHECK: graph.cast %{{.*}} {to = i8}
// CHECK-NOT: graph.cast
// CHECK: kernel.yield
// CHECK-LABEL: kernel.func @MatMul_3(
// CHECK-SAME: memref<2x8xi8>
// CHECK: graph.matmul
// CHECK: graph.cast %{{.*}} {to = f32} : (tensor<2x8xi8>) -> tensor<2x8xf32>
// CHECK: graph.add
func.func @dequantization(%x: tensor<2x8xf32>, %y: tensor<2x4xf32>, %w: tensor<4x8xf32>) -> (tensor<2x8xi8>, tensor<2x8xf32>) {
  %n = graph.neg %x : tensor<2x8xf32> loc("Neg_0")
  %q = graph.cast %n {to = i8} : (tensor<2x8xf32>) -> tensor<2x8xi8> loc("Cast_1")
  %f = graph.cast %q {to = f32} : (tensor<2x8xi8>) -> tensor<2x8xf32> loc("Cast_2")
  %m = graph.matmul %y, %w : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32> loc("MatMul_3")
  %a = graph.add %m, %f : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32> loc("Add_4")
  return %q, %a : tensor<2x8xi8>, tensor<2x8xf32>
}

// -----

// A quantized projection shortcut (graph-quantize-int8): its conv's epilogue ends in the
// requantization, stored as i8 only; the dequantization (cast, scale) joins no producer's
// epilogue, and the add, although it reads the shortcut first, joins the other conv's
// group (a product's or conv's group before a pointwise one), whose epilogue converts the
// i8 as it loads it.
// CHECK-LABEL: kernel.func @Conv_1(
// CHECK-SAME: memref<1x4x4x8xi8>)
// CHECK: graph.conv
// CHECK: graph.round
// CHECK: graph.cast %{{.*}} {to = i8}
// CHECK-NOT: graph.cast
// CHECK: kernel.yield
// CHECK-LABEL: kernel.func @Conv_0(
// CHECK-SAME: memref<1x4x4x8xi8>
// CHECK: graph.conv
// CHECK: graph.cast %{{.*}} {to = f32} : (tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xf32>
// CHECK: graph.mul
// CHECK: graph.add
// CHECK: graph.relu
// CHECK-NOT: kernel.func
func.func @shortcut(%x: tensor<1x4x4x8xf32>, %h: tensor<1x4x4x8xf32>, %w: tensor<8x1x1x8xf32>, %v: tensor<8x1x1x8xf32>) -> tensor<1x4x4x8xf32> {
  %step = graph.constant dense<0.05> : tensor<f32>
  %lo = graph.constant dense<-128.0> : tensor<f32>
  %hi = graph.constant dense<127.0> : tensor<f32>
  %m = graph.conv %h, %w {channels_last, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x4x4x8xf32>, tensor<8x1x1x8xf32>) -> tensor<1x4x4x8xf32> loc("Conv_0")
  %s = graph.conv %x, %v {channels_last, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1} : (tensor<1x4x4x8xf32>, tensor<8x1x1x8xf32>) -> tensor<1x4x4x8xf32> loc("Conv_1")
  %d = graph.div %s, %step : (tensor<1x4x4x8xf32>, tensor<f32>) -> tensor<1x4x4x8xf32>
  %r = graph.round %d : tensor<1x4x4x8xf32>
  %c = graph.clip %r min %lo max %hi : (tensor<1x4x4x8xf32>, tensor<f32>, tensor<f32>) -> tensor<1x4x4x8xf32>
  %q = graph.cast %c {to = i8} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xi8>
  %f = graph.cast %q {to = f32} : (tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xf32>
  %g = graph.mul %f, %step : (tensor<1x4x4x8xf32>, tensor<f32>) -> tensor<1x4x4x8xf32>
  %a = graph.add %g, %m : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %y = graph.relu %a : tensor<1x4x4x8xf32>
  return %y : tensor<1x4x4x8xf32>
}

// -----

// The merge of the heads after attention (transpose [B, H, S, D] to [B, S, H, D], reshape
// to [B, S, H * D]) joins the attention kernel, which stores the merged layout; the
// output projection reads it as its row-major A (no movement kernel between them).
// CHECK-LABEL: kernel.func @Attention_0(
// CHECK-SAME: %{{.*}}: memref<1x2x8x8xf16>, %{{.*}}: memref<1x8x16xf16>)
// CHECK: attention ins
// CHECK: graph.attention
// CHECK-NEXT: graph.transpose
// CHECK-NEXT: graph.reshape
// CHECK-NEXT: kernel.yield
// CHECK-LABEL: func.func @merged_heads(
// CHECK-COUNT-2: kernel.launch
// CHECK-NEXT: return
func.func @merged_heads(%q: tensor<1x2x8x8xf16>, %w: tensor<16x16xf16>) -> tensor<1x8x16xf16> {
  %shape = graph.constant dense<[1, 8, 16]> : tensor<3xi64>
  %a = graph.attention %q, %q, %q {scale = 0.35355339 : f32} : (tensor<1x2x8x8xf16>, tensor<1x2x8x8xf16>, tensor<1x2x8x8xf16>) -> tensor<1x2x8x8xf16> loc("Attention_0")
  %t = graph.transpose %a {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x8x8xf16>) -> tensor<1x8x2x8xf16>
  %r = graph.reshape %t, %shape {allowzero = false} : (tensor<1x8x2x8xf16>, tensor<3xi64>) -> tensor<1x8x16xf16>
  %m = graph.matmul %r, %w : (tensor<1x8x16xf16>, tensor<16x16xf16>) -> tensor<1x8x16xf16>
  return %m : tensor<1x8x16xf16>
}

// -----

// A classifier head on the class token: the Gather in front of an f16 product stays a
// kernel of its own (the GEMM templates read A row-major through TMA, so as a prologue it
// would leave the product to the generic loops).
// CHECK-LABEL: kernel.func @Gather_0(
// CHECK: movement ins
// CHECK-LABEL: kernel.func @Head_1(
// CHECK: matmul ins
// CHECK-NOT: graph.gather
// CHECK: graph.matmul
func.func @class_token_head(%x: tensor<4x197x64xf16>, %w: tensor<64x10xf16>) -> tensor<4x10xf16> {
  %zero = graph.constant dense<0> : tensor<i64>
  %t = graph.gather %x, %zero {axis = 1 : i64} : (tensor<4x197x64xf16>, tensor<i64>) -> tensor<4x64xf16> loc("Gather_0")
  %m = graph.matmul %t, %w : (tensor<4x64xf16>, tensor<64x10xf16>) -> tensor<4x10xf16> loc("Head_1")
  return %m : tensor<4x10xf16>
}

// -----

// In front of a half-precision attention only views join its kernel (the flash
// templates read strided views of buffers): the cast of a model input, a rotary
// embedding's arithmetic and a boolean mask given at run time each stay a kernel of their
// own, whose buffer the attention kernel reads.
// CHECK-LABEL: kernel.func @Cast_0(
// CHECK: graph.cast
// CHECK-LABEL: kernel.func @Rotary_1(
// CHECK: graph.mul
// CHECK: graph.add
// CHECK-LABEL: kernel.func @Mask_2(
// CHECK: graph.where
// CHECK-LABEL: kernel.func @Attention_3(
// CHECK-SAME: %{{.*}}: memref<1x2x8x16xf16>, %{{.*}}: memref<1x2x8x16xf16>, %{{.*}}: memref<1x2x8x16xf16>, %{{.*}}: memref<1x1x1x8xf16>, %{{.*}}: memref<1x2x8x16xf16>)
// CHECK: attention ins
// CHECK-NOT: graph.cast
// CHECK-NOT: graph.mul
// CHECK-NOT: graph.where
// CHECK: graph.attention
// CHECK-NEXT: kernel.yield
// CHECK-LABEL: func.func @attention_prologues(
// CHECK-COUNT-4: kernel.launch
// CHECK-NEXT: return
func.func @attention_prologues(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>, %cos: tensor<8x16xf16>, %keep: tensor<1x1x1x8xi1>) -> tensor<1x2x8x16xf16> {
  %zero = graph.constant dense<0.0> : tensor<f16>
  %ninf = graph.constant dense<0xFC00> : tensor<f16>
  %q16 = graph.cast %q {to = f16} : (tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf16> loc("Cast_0")
  %kc = graph.mul %k, %cos : (tensor<1x2x8x16xf16>, tensor<8x16xf16>) -> tensor<1x2x8x16xf16> loc("Rotary_1")
  %kr = graph.add %kc, %k : (tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16> loc("Rotary_1")
  %mask = graph.where %keep, %zero, %ninf : (tensor<1x1x1x8xi1>, tensor<f16>, tensor<f16>) -> tensor<1x1x1x8xf16> loc("Mask_2")
  %a = graph.attention %q16, %kr, %v, %mask {scale = 0.25 : f32} : (tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x1x1x8xf16>) -> tensor<1x2x8x16xf16> loc("Attention_3")
  return %a : tensor<1x2x8x16xf16>
}

// -----

// The epilogue of a half-precision product takes what the GEMM templates' epilogues read:
// a scalar (the scale) and a tensor of the result's shape, not a mask shared by the
// batches of a batched product, which a kernel of its own (here with the softmax that
// reads it) adds instead.
// CHECK-LABEL: kernel.func @Scores_0(
// CHECK: matmul ins
// CHECK: graph.matmul
// CHECK-NEXT: graph.mul
// CHECK-NEXT: kernel.yield
// CHECK-LABEL: kernel.func @Mask_1(
// CHECK: graph.add
// CHECK: graph.softmax
func.func @batched_epilogue(%q: tensor<2x4x8x24xf16>, %kt: tensor<2x4x24x8xf16>, %causal: tensor<8x8xf16>) -> tensor<2x4x8x8xf16> {
  %scale = graph.constant dense<0.2> : tensor<f16>
  %s = graph.matmul %q, %kt : (tensor<2x4x8x24xf16>, tensor<2x4x24x8xf16>) -> tensor<2x4x8x8xf16> loc("Scores_0")
  %scaled = graph.mul %s, %scale : (tensor<2x4x8x8xf16>, tensor<f16>) -> tensor<2x4x8x8xf16> loc("Scores_0")
  %masked = graph.add %scaled, %causal : (tensor<2x4x8x8xf16>, tensor<8x8xf16>) -> tensor<2x4x8x8xf16> loc("Mask_1")
  %p = graph.softmax %masked {axis = -1 : i64} : (tensor<2x4x8x8xf16>) -> tensor<2x4x8x8xf16> loc("Mask_1")
  return %p : tensor<2x4x8x8xf16>
}

// -----

// A folded LayerNorm (graph-fold-layer-norm-into-products): its statistic is a rows kernel
// of its own, and the product's epilogue takes it as one value per row of the result
// ([2, 8, 1] against [2, 8, 32]) with the cast, the shift and the cast back.
// CHECK-LABEL: kernel.func @Norm_0(
// CHECK: reduction ins
// CHECK: graph.layer_normalization
// CHECK-LABEL: kernel.func @Proj_1(
// CHECK: matmul ins
// CHECK: graph.matmul
// CHECK-NEXT: graph.cast
// CHECK-NEXT: graph.mul
// CHECK-NEXT: graph.add
// CHECK-NEXT: graph.cast
// CHECK-NEXT: kernel.yield
func.func @per_row_epilogue(%x: tensor<2x8x16xf16>) -> tensor<2x8x32xf16> {
  %gamma = graph.constant dense<1.0> : tensor<16xf16>
  %w = graph.constant dense<0.5> : tensor<16x32xf16>
  %shift = graph.constant dense<0.25> : tensor<32xf32>
  %y, %mean, %inv = graph.layer_normalization %x, %gamma {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32} : (tensor<2x8x16xf16>, tensor<16xf16>) -> (tensor<2x8x16xf16>, tensor<2x8x1xf32>, tensor<2x8x1xf32>) loc("Norm_0")
  %p = graph.matmul %x, %w : (tensor<2x8x16xf16>, tensor<16x32xf16>) -> tensor<2x8x32xf16> loc("Proj_1")
  %wide = graph.cast %p {to = f32} : (tensor<2x8x32xf16>) -> tensor<2x8x32xf32> loc("Proj_1")
  %scaled = graph.mul %wide, %inv : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32> loc("Proj_1")
  %shifted = graph.add %scaled, %shift : (tensor<2x8x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32> loc("Proj_1")
  %o = graph.cast %shifted {to = f16} : (tensor<2x8x32xf32>) -> tensor<2x8x32xf16> loc("Proj_1")
  return %o : tensor<2x8x32xf16>
}
