//===- NNOps.td - Convolution, pooling, normalisation, matmul -*- tablegen -*-===//

#ifndef KILN_GRAPH_NN_OPS
#define KILN_GRAPH_NN_OPS

include "dialects/graph/GraphBase.td"

//===----------------------------------------------------------------------===//
// Anchor ops: convolution and matrix multiplication
//===----------------------------------------------------------------------===//

def Graph_ConvOp : Graph_InferredOp<"conv"> {
  let summary = "N-dimensional convolution (ONNX Conv), channels first or channels last";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`, `weight` is `[M, C / group, K1, ..., Kk]` and the
    optional `bias` is `[M]`. `strides` and `dilations` have one entry per spatial dimension;
    `pads` has two, all beginnings then all ends, as in ONNX. ONNX's `auto_pad` is resolved
    into `pads` at import.

    With the `channels_last` unit attribute (a Kiln extension, set by
    `graph-convert-layout`; ONNX imports never have it) the channel dimension is the
    innermost one of all three tensors: `input` is `[N, D1, ..., Dk, C]`, `weight` is
    `[M, K1, ..., Kk, C / group]` and the result `[N, O1, ..., Ok, M]` (NHWC and OHWI for
    2-D). `bias`, the window attributes and `group` mean what they mean without it.

    Integer operands (a Kiln extension, ONNX ConvInteger without zero points): `input` and
    `weight` both i8 or both ui8 accumulate into an i32 result, and `bias`, when present,
    is i32. `graph-fold-quantized-products` makes quantized convolutions this form, so that the
    kernels can run them on int8 tensor cores; the rescale to float follows as a
    `graph.dequantize_linear` of the result.

    ```mlir
    %y = graph.conv %x, %w, %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>,
                                pads = array<i64: 3, 3, 3, 3>, group = 1}
        : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>)
        -> tensor<1x64x112x112xf32>
    %z = graph.conv %xt, %wt {channels_last, strides = array<i64: 1, 1>,
                              dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
                              group = 1}
        : (tensor<1x56x56x64xf32>, tensor<64x3x3x64xf32>) -> tensor<1x56x56x64xf32>
    %acc = graph.conv %xq, %wq {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                                pads = array<i64: 0, 0, 0, 0>, group = 1}
        : (tensor<1x64x56x56xi8>, tensor<64x64x1x1xi8>) -> tensor<1x64x56x56xi32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$weight,
    Optional<AnyTensor>:$bias,
    DenseI64ArrayAttr:$strides,
    DenseI64ArrayAttr:$dilations,
    DenseI64ArrayAttr:$pads,
    ConfinedAttr<I64Attr, [IntPositive]>:$group,
    UnitAttr:$channels_last);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_MatMulOp : Graph_InferredOp<"matmul"> {
  let summary = "Matrix product with NumPy semantics (ONNX MatMul)";
  let description = [{
    Multiplies the two innermost dimensions and broadcasts the leading (batch) ones. A 1-D
    operand is treated as a row (`lhs`) or a column (`rhs`) vector and that dimension is
    dropped from the result. Both operands have one element type, which the result has
    too, except that i8 operands accumulate into an i32 result (ONNX MatMulInteger without
    zero points: the form graph-fold-quantized-products gives quantized products, so that
    the kernels can run them on int8 tensor cores).

    ```mlir
    %y = graph.matmul %a, %b : (tensor<?x128x768xf32>, tensor<768x768xf32>)
        -> tensor<?x128x768xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$lhs, AnyTensor:$rhs);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Matrix ops
//===----------------------------------------------------------------------===//

def Graph_GemmOp : Graph_InferredOp<"gemm"> {
  let summary = "General matrix multiplication, alpha * A' * B' + beta * C (ONNX Gemm)";
  let description = [{
    `A'` is `a` (`[M, K]`) or its transpose when `trans_a` is set, `B'` is `b` (`[K, N]`) or
    its transpose when `trans_b` is set. The optional `c` broadcasts unidirectionally to
    `[M, N]`; without it the sum has no `beta * C` term.

    ```mlir
    %y = graph.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false,
                                trans_b = true}
        : (tensor<?x2048xf32>, tensor<1000x2048xf32>, tensor<1000xf32>) -> tensor<?x1000xf32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$a,
    AnyTensor:$b,
    Optional<AnyTensor>:$c,
    F32Attr:$alpha,
    F32Attr:$beta,
    BoolAttr:$trans_a,
    BoolAttr:$trans_b);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

def Graph_MaxPoolOp : Graph_InferredOp<"max_pool"> {
  let summary = "N-dimensional max pooling with the argmax indices (ONNX MaxPool)";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`. `kernel_shape`, `strides` and `dilations` have one
    entry per spatial dimension, `pads` two (all beginnings, then all ends); ONNX's
    `auto_pad` is resolved into `pads` at import. With `ceil_mode` the output extents round
    up, but a window that would start in the end padding is dropped.

    The second result holds the i64 index of each maximum into the whole input tensor
    flattened (batch and channel included, padding excluded), row major when
    `storage_order` is 0 and column major when it is 1; it is computed only when used.

    With `channels_last` (a Kiln extension, set by `graph-convert-layout`) `input` and
    the results are `[N, D1, ..., Dk, C]`; the indices are then not computed (the pass
    converts only max pools whose indices are unused; lowering one whose indices are
    used fails).

    ```mlir
    %y, %i = graph.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                                dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
                                ceil_mode = false, storage_order = 0}
        : (tensor<1x64x112x112xf32>) -> (tensor<1x64x56x56xf32>, tensor<1x64x56x56xi64>)
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    DenseI64ArrayAttr:$kernel_shape,
    DenseI64ArrayAttr:$strides,
    DenseI64ArrayAttr:$dilations,
    DenseI64ArrayAttr:$pads,
    BoolAttr:$ceil_mode,
    ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<1>]>:$storage_order,
    UnitAttr:$channels_last);
  let results = (outs AnyTensor:$result, AnyTensor:$indices);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_AveragePoolOp : Graph_InferredOp<"average_pool"> {
  let summary = "N-dimensional average pooling (ONNX AveragePool)";
  let description = [{
    Windows as in `graph.max_pool`. With `count_include_pad` the padding counts towards each
    window's divisor, otherwise only the input elements it covers do. With
    `channels_last` (a Kiln extension, set by `graph-convert-layout`) `input` and the
    result are `[N, D1, ..., Dk, C]`.

    ```mlir
    %y = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
                                ceil_mode = false, count_include_pad = false}
        : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    DenseI64ArrayAttr:$kernel_shape,
    DenseI64ArrayAttr:$strides,
    DenseI64ArrayAttr:$dilations,
    DenseI64ArrayAttr:$pads,
    BoolAttr:$ceil_mode,
    BoolAttr:$count_include_pad,
    UnitAttr:$channels_last);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

class Graph_GlobalPoolOp<string mnemonic, string onnxName, string reduction>
    : Graph_InferredOp<mnemonic, [Graph_Reduction]> {
  let summary = reduction # " over all spatial dimensions (ONNX " # onnxName # ")";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`; the result is `[N, C, 1, ..., 1]`.
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_GlobalAveragePoolOp
    : Graph_GlobalPoolOp<"global_average_pool", "GlobalAveragePool", "Mean">;
def Graph_GlobalMaxPoolOp : Graph_GlobalPoolOp<"global_max_pool", "GlobalMaxPool", "Maximum">;

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

def Graph_LayerNormalizationOp : Graph_InferredOp<"layer_normalization", [Graph_Reduction]> {
  let summary = "Layer normalisation over the dimensions from `axis` on (ONNX LayerNormalization)";
  let description = [{
    Normalises `input` over its dimensions `axis, ..., rank - 1` (a negative `axis` counts
    from the end): `(x - mean) / sqrt(variance + epsilon) * scale + bias`. `scale` and the
    optional `bias` broadcast unidirectionally to those dimensions. The statistics are
    computed in `stash_type`, which is also the element type of the `mean` and
    `inv_std_dev` results: the input's shape with the normalised dimensions set to 1.
    Those two results are computed only when used.

    ```mlir
    %y, %mean, %inv = graph.layer_normalization %x, %scale, %bias
        {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32}
        : (tensor<?x128x768xf32>, tensor<768xf32>, tensor<768xf32>)
        -> (tensor<?x128x768xf32>, tensor<?x128x1xf32>, tensor<?x128x1xf32>)
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$scale,
    Optional<AnyTensor>:$bias,
    I64Attr:$axis,
    F32Attr:$epsilon,
    TypeAttrOf<AnyFloat>:$stash_type);
  let results = (outs AnyTensor:$result, AnyTensor:$mean, AnyTensor:$inv_std_dev);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

// Kiln extension: no ONNX node imports as graph.rms_normalization;
// graph-recognize-activations forms it from the decomposed RMSNorm of exported LLMs.
def Graph_RMSNormalizationOp : Graph_InferredOp<"rms_normalization", [Graph_Reduction]> {
  let summary = "Root-mean-square normalisation over the dimensions from `axis` on: a Kiln extension";
  let description = [{
    Normalises `input` over its dimensions `axis, ..., rank - 1` (a negative `axis` counts
    from the end) by their root mean square: `x / sqrt(mean(x^2) + epsilon) * scale`.
    `scale` broadcasts unidirectionally to those dimensions; the result has the type of
    `input`. Narrow float inputs are reduced in f32. `inv_rms` is the factor
    `1 / sqrt(mean(x^2) + epsilon)` of each normalised group: the input's shape with the
    normalised dimensions set to 1, in f32 (f64 for an f64 input); it is computed only
    when used (`graph-fold-layer-norm-into-products` reads it alone).

    A Kiln extension: no ONNX node imports as it (ONNX's RMSNormalization, opset 23, is not
    imported). The `graph-recognize-activations` pass forms it from the decomposed
    `x * Reciprocal(Sqrt(ReduceMean(x * x) + epsilon)) * scale` that LLM exporters write.

    ```mlir
    %y, %inv = graph.rms_normalization %x, %scale {axis = -1 : i64, epsilon = 1.0e-06 : f32}
        : (tensor<?x128x4096xf16>, tensor<4096xf16>)
        -> (tensor<?x128x4096xf16>, tensor<?x128x1xf32>)
    ```
  }];
  let arguments = (ins AnyTensor:$input, AnyTensor:$scale, I64Attr:$axis, F32Attr:$epsilon);
  let results = (outs AnyTensor:$result, AnyTensor:$inv_rms);
  let assemblyFormat = [{
    $input `,` $scale attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_BatchNormalizationOp : Graph_InferredOp<"batch_normalization", [Graph_Reduction]> {
  let summary = "Batch normalisation (ONNX BatchNormalization), inference or training mode";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]` (k may be 0); `scale`, `bias`, `mean` and `variance`
    are `[C]`: `(x - mean) / sqrt(variance + epsilon) * scale + bias`. As in ONNX, `scale`
    and `bias` share an element type, and `mean` and `variance` share one that may differ.

    With `training_mode` (ONNX opset 14 on, `training_mode = 1`), the result is normalised
    with the statistics of the batch instead, `current_mean` and `current_var` (the
    population variance) over every dimension but C, computed in f32 at least; the op then
    has two more results, the `[C]` running statistics updated with `momentum`:

        running_mean = mean * momentum + current_mean * (1 - momentum)
        running_var = variance * momentum + current_var * (1 - momentum)

    `momentum` is present exactly in training mode (the importer fills in ONNX's 0.9).

    ```mlir
    %y = graph.batch_normalization %x, %scale, %bias, %mean, %var {epsilon = 1.0e-05 : f32}
        : (tensor<?x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>,
           tensor<64xf32>) -> tensor<?x64x56x56xf32>
    %t:3 = graph.batch_normalization %x, %scale, %bias, %mean, %var
        {epsilon = 1.0e-05 : f32, momentum = 0.899999976 : f32, training_mode}
        : (tensor<?x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>,
           tensor<64xf32>) -> (tensor<?x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>)
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$scale,
    AnyTensor:$bias,
    AnyTensor:$mean,
    AnyTensor:$variance,
    F32Attr:$epsilon,
    UnitAttr:$training_mode,
    OptionalAttr<F32Attr>:$momentum);
  // In training mode, `running_statistics` holds running_mean and running_var; otherwise
  // it is empty.
  let results = (outs AnyTensor:$result, Variadic<AnyTensor>:$running_statistics);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Graph_InstanceNormalizationOp : Graph_InferredOp<"instance_normalization", [Graph_Reduction]> {
  let summary = "Instance normalisation over the spatial dimensions (ONNX InstanceNormalization)";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`; each `[n, c]` slice is normalised over its spatial
    dimensions, then scaled and shifted by the `[C]` tensors `scale` and `bias`:
    `(x - mean) / sqrt(variance + epsilon) * scale[c] + bias[c]`.

    ```mlir
    %y = graph.instance_normalization %x, %scale, %bias {epsilon = 1.0e-05 : f32}
        : (tensor<1x3x224x224xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x224x224xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$input, AnyTensor:$scale, AnyTensor:$bias, F32Attr:$epsilon);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Softmax family
//===----------------------------------------------------------------------===//

class Graph_AxisOp<string mnemonic, string onnxName, string what>
    : Graph_InferredOp<mnemonic, [Graph_Reduction]> {
  let summary = what # " along one axis (ONNX " # onnxName # ")";
  let description = [{
    Computed along dimension `axis` of `input` (negative counts from the end), as in
    opset 13 and later. The result has the input's type.
  }];
  let arguments = (ins AnyTensor:$input, I64Attr:$axis);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_SoftmaxOp : Graph_AxisOp<"softmax", "Softmax", "Softmax, exp(x) / sum(exp(x)),">;
def Graph_LogSoftmaxOp
    : Graph_AxisOp<"log_softmax", "LogSoftmax", "Logarithm of the softmax, x - log(sum(exp(x))),">;

def Graph_AttentionOp : Graph_InferredOp<"attention"> {
  let summary = "Scaled dot-product attention, softmax(Q K^T * scale + mask) V: a Kiln extension";
  let description = [{
    `query` is `[..., Sq, D]`, `key` `[..., Skv, D]` and `value` `[..., Skv, Dv]`; their
    leading (batch, head) dimensions broadcast as in `graph.matmul`, except that `key` and
    `value` may have fewer heads (dimension -3) than `query`, a divisor of its number:
    grouped-query attention, where query head h reads key and value head h / (H / Hkv)
    (`graph-recognize-attention` forms it from the heads repeated for the products). The scores
    `matmul(query, transpose(key)) * scale`, plus `mask` when present (an additive mask,
    0 where attention is allowed and a large negative value or -inf where not, that
    broadcasts unidirectionally to the scores `[..., Sq, Skv]`: padding and causal masks
    alike), go through a softmax over the last axis and weight `value`: the result is
    `[..., Sq, Dv]`. With `nan_to_zero`, NaN probabilities (a row masked out entirely) are
    0, as the guard PyTorch's exporter writes after the softmax makes them. With `causal`,
    the score of key position j for query position i is masked out where j > i (the upper
    triangle of `[Sq, Skv]`, aligned at the top left as PyTorch's `is_causal`), besides
    `mask`: `graph-recognize-causal-masks` sets it for a mask computed to be exactly that.

    A Kiln extension: no ONNX node imports as it. The `graph-recognize-attention` pass forms
    it from the MatMul, scale, mask, Softmax, MatMul chain exporters write; on GPUs it
    becomes one `kernel.attention`. The multi-head reshapes and transposes around it stay
    graph ops, which kernel formation folds into the kernel's loads.

    ```mlir
    %y = graph.attention %q, %k, %v, %mask {scale = 0.125 : f32}
        : (tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>,
           tensor<1x1x1x128xf32>) -> tensor<1x12x128x64xf32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$query,
    AnyTensor:$key,
    AnyTensor:$value,
    Optional<AnyTensor>:$mask,
    F32Attr:$scale,
    UnitAttr:$nan_to_zero,
    UnitAttr:$causal);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`,` $mask^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Transposed convolution
//===----------------------------------------------------------------------===//

def Graph_ConvTransposeOp : Graph_InferredOp<"conv_transpose"> {
  let summary = "N-dimensional transposed convolution (ONNX ConvTranspose), channels first";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`, `weight` is `[C, M / group, K1, ..., Kk]` and the
    optional `bias` is `[M]`. Each output extent is
    `strides[i] * (Di - 1) + output_padding[i] + dilations[i] * (Ki - 1) + 1 - pads[i] -
    pads[i + k]`. ONNX's `auto_pad` and `output_shape` are resolved into `pads` at import.

    ```mlir
    %y = graph.conv_transpose %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>,
                                      pads = array<i64: 1, 1, 1, 1>,
                                      output_padding = array<i64: 1, 1>, group = 1}
        : (tensor<1x64x16x16xf32>, tensor<64x32x3x3xf32>) -> tensor<1x32x32x32xf32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$weight,
    Optional<AnyTensor>:$bias,
    DenseI64ArrayAttr:$strides,
    DenseI64ArrayAttr:$dilations,
    DenseI64ArrayAttr:$pads,
    DenseI64ArrayAttr:$output_padding,
    ConfinedAttr<I64Attr, [IntPositive]>:$group);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Lp pooling
//===----------------------------------------------------------------------===//

def Graph_LpPoolOp : Graph_InferredOp<"lp_pool"> {
  let summary = "N-dimensional Lp-norm pooling (ONNX LpPool)";
  let description = [{
    `(sum |x|^p)^(1/p)` over each window; windows as in `graph.max_pool`, the padding
    contributing zeros. With `channels_last` (a Kiln extension, set by
    `graph-convert-layout`) `input` and the result are `[N, D1, ..., Dk, C]`.

    ```mlir
    %y = graph.lp_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                           dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
                           ceil_mode = false, p = 2}
        : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    DenseI64ArrayAttr:$kernel_shape,
    DenseI64ArrayAttr:$strides,
    DenseI64ArrayAttr:$dilations,
    DenseI64ArrayAttr:$pads,
    BoolAttr:$ceil_mode,
    ConfinedAttr<I64Attr, [IntPositive]>:$p,
    UnitAttr:$channels_last);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_GlobalLpPoolOp : Graph_InferredOp<"global_lp_pool", [Graph_Reduction]> {
  let summary = "Lp norm over all spatial dimensions (ONNX GlobalLpPool)";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`; the result is `[N, C, 1, ..., 1]`, each element
    `(sum |x|^p)^(1/p)` over its `[n, c]` slice.
  }];
  let arguments = (ins AnyTensor:$input, ConfinedAttr<I64Attr, [IntPositive]>:$p);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// More normalisation
//===----------------------------------------------------------------------===//

def Graph_HardmaxOp : Graph_AxisOp<"hardmax", "Hardmax",
    "One-hot of the first maximum, 1 there and 0 elsewhere,">;

def Graph_LRNOp : Graph_InferredOp<"lrn"> {
  let summary = "Local response normalisation across channels (ONNX LRN)";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`; each element is divided by
    `(bias + alpha / size * sum of squares over the size nearest channels) ^ beta`, the
    window spanning channels `c - floor((size - 1) / 2)` to `c + ceil((size - 1) / 2)`.
  }];
  let arguments = (ins
    AnyTensor:$input,
    F32Attr:$alpha,
    F32Attr:$beta,
    F32Attr:$bias,
    ConfinedAttr<I64Attr, [IntPositive]>:$size);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_MeanVarianceNormalizationOp : Graph_InferredOp<"mean_variance_normalization", [Graph_Reduction]> {
  let summary = "Zero mean, unit variance over `axes` (ONNX MeanVarianceNormalization)";
  let description = [{
    `(x - mean) / sqrt(variance)` with the statistics taken over `axes` (negative count
    from the end), as ONNX computes it (with an epsilon of 1e-9 under the square root).
  }];
  let arguments = (ins AnyTensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_GroupNormalizationOp : Graph_InferredOp<"group_normalization", [Graph_Reduction]> {
  let summary = "Group normalisation (ONNX GroupNormalization, opset 21 form)";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`; its channels are split into `num_groups` groups and
    each `[n, group]` is normalised over its channels and spatial dimensions, then scaled
    and shifted per channel by the `[C]` tensors `scale` and `bias` (opset 21; opset 18's
    per-group values are expanded at import). The statistics are computed in `stash_type`.
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$scale,
    AnyTensor:$bias,
    F32Attr:$epsilon,
    ConfinedAttr<I64Attr, [IntPositive]>:$num_groups,
    TypeAttrOf<AnyFloat>:$stash_type);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Graph_LpNormalizationOp : Graph_InferredOp<"lp_normalization", [Graph_Reduction]> {
  let summary = "Division by the Lp norm along one axis (ONNX LpNormalization)";
  let description = [{
    `x / (sum |x|^p)^(1/p)` along dimension `axis` (negative counts from the end); `p` is 1
    or 2.
  }];
  let arguments = (ins
    AnyTensor:$input,
    I64Attr:$axis,
    ConfinedAttr<I64Attr, [IntMinValue<1>, IntMaxValue<2>]>:$p);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Graph_EinsumOp : Graph_InferredOp<"einsum"> {
  let summary = "Einstein summation (ONNX Einsum)";
  let description = [{
    `equation` names each operand's dimensions with letters, one comma-separated term per
    operand, optionally `...` for broadcast leading dimensions, and optionally `->` and the
    result's dimensions; without `->` the result has the ellipsis dimensions followed by
    the letters used once, in alphabetical order. Letters missing from the result are
    summed over.

    ```mlir
    %y = graph.einsum %a, %b {equation = "bij,bjk->bik"}
        : (tensor<4x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyTensor>:$inputs, StrAttr:$equation);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
}

def Graph_DetOp : Graph_InferredOp<"det"> {
  let summary = "Determinant of square matrices (ONNX Det)";
  let description = [{
    `input` is `[*, M, M]`; the result `[*]` holds the determinant of each matrix.
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Resampling
//===----------------------------------------------------------------------===//

def Graph_ResizeOp : Graph_InferredOp<"resize", [AttrSizedOperandSegments]> {
  let summary = "Resizing by interpolation (ONNX Resize, opset 19 form)";
  let description = [{
    Resizes `input` along `axes` (all dimensions when absent) to `sizes`, or by the float
    `scales`; exactly one of the two is given. `roi` (start and end per axis, normalised
    coordinates) is used only with `coordinate_transformation_mode = "tf_crop_and_resize"`.
    `mode` is `nearest`, `linear` or `cubic`; the attributes mean what they mean in ONNX
    Resize-19, whose defaults the importer fills in. Resize-10 and Upsample are imported in
    this form.

    With `sizes` and a `keep_aspect_ratio_policy` of `not_larger` or `not_smaller`, the
    output extents are `round(in * scale)` for one scale chosen over all axes.

    ```mlir
    %y = graph.resize %x scales(%s) {mode = "nearest", ...}
        : (tensor<1x3x16x16xf32>, tensor<4xf32>) -> tensor<1x3x32x32xf32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    Optional<AnyTensor>:$roi,
    Optional<AnyTensor>:$scales,
    Optional<AnyTensor>:$sizes,
    BoolAttr:$antialias,
    OptionalAttr<DenseI64ArrayAttr>:$axes,
    StrAttr:$coordinate_transformation_mode,
    F32Attr:$cubic_coeff_a,
    BoolAttr:$exclude_outside,
    F32Attr:$extrapolation_value,
    StrAttr:$keep_aspect_ratio_policy,
    StrAttr:$mode,
    StrAttr:$nearest_mode);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $input (`roi` `(` $roi^ `)`)? (`scales` `(` $scales^ `)`)? (`sizes` `(` $sizes^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_GridSampleOp : Graph_InferredOp<"grid_sample"> {
  let summary = "Sampling at grid locations (ONNX GridSample, opset 20 form)";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]` and `grid` is `[N, O1, ..., Ok, k]`, normalised
    coordinates in `[-1, 1]` (innermost first: x, y, ...); the result is
    `[N, C, O1, ..., Ok]`. `mode` is `linear`, `nearest` or `cubic` (opset 16's `bilinear`
    and `bicubic` are imported as `linear` and `cubic`), `padding_mode` is `zeros`,
    `border` or `reflection`.
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$grid,
    BoolAttr:$align_corners,
    StrAttr:$mode,
    StrAttr:$padding_mode);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input `,` $grid attr-dict `:` functional-type(operands, results)";
}

def Graph_RoiAlignOp : Graph_InferredOp<"roi_align"> {
  let summary = "Region of interest align pooling (ONNX RoiAlign, opset 16 form)";
  let description = [{
    `input` is `[N, C, H, W]`, `rois` is `[R, 4]` (x1, y1, x2, y2 in input coordinates
    before `spatial_scale`) and `batch_indices` is the i64 `[R]`; the result is
    `[R, C, output_height, output_width]`. `mode` is `avg` or `max`;
    `coordinate_transformation_mode` is `half_pixel` or `output_half_pixel` (RoiAlign-10's
    behaviour).
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$rois,
    AnyTensor:$batch_indices,
    StrAttr:$coordinate_transformation_mode,
    StrAttr:$mode,
    ConfinedAttr<I64Attr, [IntPositive]>:$output_height,
    ConfinedAttr<I64Attr, [IntPositive]>:$output_width,
    ConfinedAttr<I64Attr, [IntMinValue<0>]>:$sampling_ratio,
    F32Attr:$spatial_scale);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Unpooling and box selection
//===----------------------------------------------------------------------===//

def Graph_MaxUnpoolOp : Graph_InferredOp<"max_unpool"> {
  let summary = "Partial inverse of max pooling (ONNX MaxUnpool)";
  let description = [{
    Scatters each element of `input` (`[N, C, D1, ..., Dk]`, typically `graph.max_pool`'s
    first result) to the position that `indices` (i64, the input's shape, `graph.max_pool`'s
    second result: offsets into the whole output flattened row major) names; every other
    output element is zero. Without `output_shape` each output extent is
    `(Di - 1) * strides[i] + kernel_shape[i] - pads[i] - pads[i + k]`; with it (a 1-D i64
    tensor holding the full output shape), that shape, and `pads` are not used.

    ```mlir
    %y = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>,
                                  strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>}
        : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$indices,
    Optional<AnyTensor>:$output_shape,
    DenseI64ArrayAttr:$kernel_shape,
    DenseI64ArrayAttr:$strides,
    DenseI64ArrayAttr:$pads);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $indices (`,` $output_shape^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_NonMaxSuppressionOp
    : Graph_InferredOp<"non_max_suppression", [AttrSizedOperandSegments]> {
  let summary = "Greedy selection of boxes by score and overlap (ONNX NonMaxSuppression)";
  let description = [{
    `boxes` is `[num_batches, spatial_dimension, 4]`, corners `[y1, x1, y2, x2]` when
    `center_point_box` is 0 and `[x_center, y_center, width, height]` when it is 1;
    `scores` is `[num_batches, num_classes, spatial_dimension]`. Per batch and class, boxes
    are taken by decreasing score, dropping those whose IoU with a kept box exceeds
    `iou_threshold` or whose score is not above `score_threshold`, up to
    `max_output_boxes_per_class`. The three thresholds are optional scalars (i64, f32,
    f32); ONNX's defaults apply when absent: no boxes, 0 and no score filter. The result
    is the i64 `[num_selected, 3]` of `[batch_index, class_index, box_index]` rows.

    ```mlir
    %sel = graph.non_max_suppression %boxes, %scores max_output_boxes_per_class(%max)
        iou_threshold(%iou) score_threshold(%score) {center_point_box = 0 : i64}
        : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<i64>, tensor<f32>, tensor<f32>)
        -> tensor<?x3xi64>
    ```
  }];
  let arguments = (ins
    AnyTensor:$boxes,
    AnyTensor:$scores,
    Optional<AnyTensor>:$max_output_boxes_per_class,
    Optional<AnyTensor>:$iou_threshold,
    Optional<AnyTensor>:$score_threshold,
    ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<1>]>:$center_point_box);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $boxes `,` $scores (`max_output_boxes_per_class` `(` $max_output_boxes_per_class^ `)`)?
    (`iou_threshold` `(` $iou_threshold^ `)`)? (`score_threshold` `(` $score_threshold^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

class Graph_LossOp<string mnemonic, list<Trait> traits = []>
    : Graph_InferredOp<mnemonic, traits> {
  // `reduction` is "none", "sum" or "mean" (checked by the shape rule); `ignore_index`,
  // when present, names the target value whose elements contribute nothing.
  dag lossAttributes = (ins StrAttr:$reduction, OptionalAttr<I64Attr>:$ignore_index);
}

def Graph_NegativeLogLikelihoodLossOp : Graph_LossOp<"negative_log_likelihood_loss"> {
  let summary = "Negative log likelihood loss (ONNX NegativeLogLikelihoodLoss)";
  let description = [{
    `input` is `[N, C, d1, ..., dk]` (k may be 0) and holds log-probabilities of the `C`
    classes; `target` is the i32 or i64 `[N, d1, ..., dk]` of class indices in `[0, C)`;
    the optional `weight` is `[C]`, with `input`'s element type. Each element's loss is

        loss[n, d...] = -input[n, target[n, d...], d...] * w[n, d...]

    where `w[n, d...]` is `weight[target[n, d...]]` (1 without `weight`), and 0 where
    `target[n, d...]` equals `ignore_index` (when that attribute is present; such targets
    need not be valid class indices). Other targets outside `[0, C)` are undefined
    behaviour. `reduction` is one of:

    - `"none"`: the result is `loss`, `[N, d1, ..., dk]`;
    - `"sum"`: the result is the scalar `sum(loss)`;
    - `"mean"`: the result is the scalar `sum(loss) / sum(w)` (the plain mean when there is
      neither `weight` nor `ignore_index`; NaN when every element is ignored).

    ONNX opsets 12 and 13 share this form; ONNX's defaults (`reduction = "mean"`, no
    `ignore_index`) are filled in by the importer.

    ```mlir
    %loss = graph.negative_log_likelihood_loss %x, %t, %w
        {reduction = "mean", ignore_index = -1 : i64}
        : (tensor<?x5x6xf32>, tensor<?x6xi64>, tensor<5xf32>) -> tensor<f32>
    ```
  }];
  let arguments = !con((ins AnyTensor:$input, AnyTensor:$target, Optional<AnyTensor>:$weight),
                       lossAttributes);
  let results = (outs AnyTensor:$loss);
  let assemblyFormat = [{
    $input `,` $target (`,` $weight^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_SoftmaxCrossEntropyLossOp : Graph_LossOp<"softmax_cross_entropy_loss"> {
  let summary = "Softmax cross-entropy loss (ONNX SoftmaxCrossEntropyLoss)";
  let description = [{
    `scores` is `[N, C, d1, ..., dk]` (k may be 0), unnormalised scores of the `C` classes;
    `labels` is the i32 or i64 `[N, d1, ..., dk]`; the optional `weights` is `[C]`, with the
    scores' element type. The second result, `log_prob`, is `log(softmax(scores))` along
    dimension 1, with the scores' shape (which the labels and weights may refine). The
    first, `loss`, is `graph.negative_log_likelihood_loss` of `log_prob`, `labels` and
    `weights` with the same `reduction` and `ignore_index`: `[N, d1, ..., dk]` for
    `"none"`, a scalar for `"sum"` and `"mean"`.

    ONNX opsets 12 and 13 share this form (13 adds bf16); ONNX's defaults
    (`reduction = "mean"`, no `ignore_index`) are filled in by the importer.

    ```mlir
    %loss, %log_prob = graph.softmax_cross_entropy_loss %scores, %labels
        {reduction = "none"}
        : (tensor<3x5x2xf32>, tensor<3x2xi64>) -> (tensor<3x2xf32>, tensor<3x5x2xf32>)
    ```
  }];
  let arguments = !con((ins AnyTensor:$scores, AnyTensor:$labels, Optional<AnyTensor>:$weights),
                       lossAttributes);
  let results = (outs AnyTensor:$loss, AnyTensor:$log_prob);
  let assemblyFormat = [{
    $scores `,` $labels (`,` $weights^)? attr-dict `:` functional-type(operands, results)
  }];
}

#endif // KILN_GRAPH_NN_OPS
