//===- QuantizationOps.td - Quantized ops -*- tablegen -*-===//

#ifndef KILN_GRAPH_QUANTIZATION_OPS
#define KILN_GRAPH_QUANTIZATION_OPS

include "dialects/graph/GraphBase.td"

//===----------------------------------------------------------------------===//
// Linear quantization
//===----------------------------------------------------------------------===//

def Graph_QuantizeLinearOp : Graph_InferredOp<"quantize_linear"> {
  let summary =
      "Linear quantization, saturate(round(x / scale) + zero_point) (ONNX QuantizeLinear)";
  let description = [{
    Quantizes `input` (a float type or i32) with `scale` (a float type, the input's when
    the input is a float) and the optional `zero_point`, whose element type is the
    result's: i8, ui8, i16, ui16, i4, ui4 or an f8 type; without it the result is ui8 and
    the zero point 0. Rounding is half to even.

    The granularity follows the scale's shape: a scalar (or one element) quantizes per
    tensor; a 1-D scale per slice along `axis`; with `block_size` > 0 the scale has the
    input's rank and each scale element covers `block_size` consecutive elements along
    `axis`. `saturate` (opset 19) clamps values out of range of an f8 result instead of
    producing NaN or infinity; it does not apply to integer results.

    ```mlir
    %q = graph.quantize_linear %x, %scale, %zp {axis = 1 : i64, block_size = 0 : i64,
                                                 saturate = true}
        : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<1x3x8x8xi8>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$scale,
    Optional<AnyTensor>:$zero_point,
    I64Attr:$axis,
    BoolAttr:$saturate,
    I64Attr:$block_size);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_DequantizeLinearOp : Graph_InferredOp<"dequantize_linear"> {
  let summary = "Linear dequantization, (x - zero_point) * scale (ONNX DequantizeLinear)";
  let description = [{
    Dequantizes `input` (i8, ui8, i16, ui16, i4, ui4, i32 or an f8 type) with `scale`,
    whose float element type is the result's, and the optional `zero_point` (the input's
    element type; 0 when absent). The scale's shape selects per-tensor, per-axis or blocked
    granularity as for `graph.quantize_linear`.

    ```mlir
    %x = graph.dequantize_linear %q, %scale, %zp {axis = 1 : i64, block_size = 0 : i64}
        : (tensor<1x3x3x2xui8>, tensor<3xf32>, tensor<3xui8>) -> tensor<1x3x3x2xf32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$scale,
    Optional<AnyTensor>:$zero_point,
    I64Attr:$axis,
    I64Attr:$block_size);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_DynamicQuantizeLinearOp : Graph_InferredOp<"dynamic_quantize_linear"> {
  let summary = "Quantization to ui8 with a scale and zero point computed from the data "
                "(ONNX DynamicQuantizeLinear)";
  let description = [{
    Computes a per-tensor scale, (max(0, max(x)) - min(0, min(x))) / 255, and zero point,
    saturate(round(-min(0, min(x)) / scale)), from the f32 `input` and quantizes it to ui8
    with them. Returns the quantized tensor, the f32 scale and the ui8 zero point (both
    scalars).

    ```mlir
    %y, %scale, %zp = graph.dynamic_quantize_linear %x
        : (tensor<?x768xf32>) -> (tensor<?x768xui8>, tensor<f32>, tensor<ui8>)
    ```
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs TensorOf<[UI8]>:$result, TensorOf<[F32]>:$scale,
                      TensorOf<[UI8]>:$zero_point);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Quantized matmul and convolution
//===----------------------------------------------------------------------===//

def Graph_QLinearMatMulOp : Graph_InferredOp<"qlinear_matmul"> {
  let summary = "Matmul of quantized tensors with a quantized result (ONNX QLinearMatMul)";
  let description = [{
    Dequantizes `lhs` and `rhs` with their scales and zero points (zero points have their
    operand's element type), multiplies them with NumPy matmul semantics and quantizes the
    product with `result_scale` and `result_zero_point`, whose element type is the
    result's. Scales and zero points are scalars (per tensor) or 1-D (per row of `lhs`,
    per column of `rhs`).

    ```mlir
    %y = graph.qlinear_matmul %a, %as, %az, %b, %bs, %bz, %ys, %yz
        : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x3xui8>, tensor<f32>,
           tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
    ```
  }];
  let arguments = (ins
    AnyTensor:$lhs, AnyTensor:$lhs_scale, AnyTensor:$lhs_zero_point,
    AnyTensor:$rhs, AnyTensor:$rhs_scale, AnyTensor:$rhs_zero_point,
    AnyTensor:$result_scale, AnyTensor:$result_zero_point);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $lhs_scale `,` $lhs_zero_point `,` $rhs `,` $rhs_scale `,` $rhs_zero_point `,`
    $result_scale `,` $result_zero_point attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_QLinearConvOp : Graph_InferredOp<"qlinear_conv"> {
  let summary = "Convolution of quantized tensors with a quantized result (ONNX QLinearConv)";
  let description = [{
    Dequantizes `input` and `weight` with their scales and zero points, convolves them as
    `graph.conv` does (same layouts and attributes, `auto_pad` resolved into `pads` at
    import), adds the optional i32 `bias` (already in the accumulator's scale,
    input_scale * weight_scale) and quantizes the result with `result_scale` and
    `result_zero_point`, whose element type is the result's. The weight's scale and zero
    point are scalars or have one element per output channel.

    ```mlir
    %y = graph.qlinear_conv %x, %xs, %xz, %w, %ws, %wz, %ys, %yz
        {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>,
         strides = array<i64: 1, 1>}
        : (tensor<1x1x7x7xui8>, tensor<f32>, tensor<ui8>, tensor<1x1x1x1xui8>, tensor<1xf32>,
           tensor<1xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x7x7xui8>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input, AnyTensor:$input_scale, AnyTensor:$input_zero_point,
    AnyTensor:$weight, AnyTensor:$weight_scale, AnyTensor:$weight_zero_point,
    AnyTensor:$result_scale, AnyTensor:$result_zero_point,
    Optional<AnyTensor>:$bias,
    DenseI64ArrayAttr:$strides,
    DenseI64ArrayAttr:$dilations,
    DenseI64ArrayAttr:$pads,
    ConfinedAttr<I64Attr, [IntPositive]>:$group);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $input_scale `,` $input_zero_point `,` $weight `,` $weight_scale `,`
    $weight_zero_point `,` $result_scale `,` $result_zero_point (`,` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Graph_MatMulIntegerOp : Graph_InferredOp<"matmul_integer"> {
  let summary = "Integer matmul with zero points and an i32 result (ONNX MatMulInteger)";
  let description = [{
    Computes (lhs - lhs_zero_point) x (rhs - rhs_zero_point) with NumPy matmul semantics,
    accumulating in i32. `lhs` and `rhs` are i8 or ui8; each zero point has its operand's
    element type and is a scalar or 1-D (per row of `lhs`, per column of `rhs`). ONNX's
    optional zero points are imported as scalar zeros when absent.

    ```mlir
    %y = graph.matmul_integer %a, %b, %az, %bz
        : (tensor<4x3xui8>, tensor<3x2xui8>, tensor<ui8>, tensor<ui8>) -> tensor<4x2xi32>
    ```
  }];
  let arguments = (ins AnyTensor:$lhs, AnyTensor:$rhs, AnyTensor:$lhs_zero_point,
                       AnyTensor:$rhs_zero_point);
  let results = (outs TensorOf<[I32]>:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $lhs_zero_point `,` $rhs_zero_point attr-dict `:`
    functional-type(operands, results)
  }];
}

def Graph_ConvIntegerOp : Graph_InferredOp<"conv_integer"> {
  let summary = "Integer convolution with zero points and an i32 result (ONNX ConvInteger)";
  let description = [{
    Convolves (input - input_zero_point) with (weight - weight_zero_point) as `graph.conv`
    does (same layouts and attributes, `auto_pad` resolved into `pads` at import),
    accumulating in i32. `input` and `weight` are i8 or ui8; each zero point has its
    operand's element type; the weight's is a scalar or has one element per output channel.
    ONNX's optional zero points are imported as scalar zeros when absent.

    ```mlir
    %y = graph.conv_integer %x, %w, %xz, %wz
        {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>,
         strides = array<i64: 1, 1>}
        : (tensor<1x1x3x3xui8>, tensor<1x1x2x2xui8>, tensor<ui8>, tensor<ui8>)
        -> tensor<1x1x4x4xi32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input, AnyTensor:$weight, AnyTensor:$input_zero_point,
    AnyTensor:$weight_zero_point,
    DenseI64ArrayAttr:$strides,
    DenseI64ArrayAttr:$dilations,
    DenseI64ArrayAttr:$pads,
    ConfinedAttr<I64Attr, [IntPositive]>:$group);
  let results = (outs TensorOf<[I32]>:$result);
  let assemblyFormat = [{
    $input `,` $weight `,` $input_zero_point `,` $weight_zero_point attr-dict `:`
    functional-type(operands, results)
  }];
}

#endif // KILN_GRAPH_QUANTIZATION_OPS
