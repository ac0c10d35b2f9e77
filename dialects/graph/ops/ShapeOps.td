//===- ShapeOps.td - Shape and data-movement ops -*- tablegen -*-===//

#ifndef KILN_GRAPH_SHAPE_OPS
#define KILN_GRAPH_SHAPE_OPS

include "dialects/graph/GraphBase.td"

// Axes follow ONNX: an axis attribute may be negative and counts from the back
// ([-rank, rank - 1]); the shape rules resolve it against the operand's rank.

//===----------------------------------------------------------------------===//
// Reshaping and reordering
//===----------------------------------------------------------------------===//

def Graph_ReshapeOp : Graph_InferredOp<"reshape", [Graph_DataMovement]> {
  let summary = "Reshape to a given shape (ONNX Reshape)";
  let description = [{
    `shape` is a 1-D integer tensor. An entry of -1 (at most one) is inferred from the
    element count; an entry of 0 copies the input's extent at that position unless
    `allowzero` is set, in which case it means an empty dimension.

    ```mlir
    %y = graph.reshape %x, %s {allowzero = false}
        : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$input, AnyTensor:$shape, BoolAttr:$allowzero);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input `,` $shape attr-dict `:` functional-type(operands, results)";
}

def Graph_TransposeOp : Graph_InferredOp<"transpose", [Graph_DataMovement]> {
  let summary = "Permute dimensions (ONNX Transpose)";
  let description = [{
    Result dimension `i` is input dimension `perm[i]`. ONNX's default permutation (the
    reverse order) is filled in at import.
  }];
  let arguments = (ins AnyTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_FlattenOp : Graph_InferredOp<"flatten", [Graph_DataMovement]> {
  let summary = "Flatten into a 2-D tensor (ONNX Flatten)";
  let description = [{
    The result is `[d0 * ... * d(axis-1), d(axis) * ... * d(n-1)]`; `axis` is in
    `[-rank, rank]`.
  }];
  let arguments = (ins AnyTensor:$input, I64Attr:$axis);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_SqueezeOp : Graph_InferredOp<"squeeze", [Graph_DataMovement]> {
  let summary = "Remove dimensions of extent 1 (ONNX Squeeze)";
  let description = [{
    Removes the dimensions listed in the 1-D integer operand `axes`, each of which must
    have extent 1; without `axes`, removes every dimension of extent 1.
  }];
  let arguments = (ins AnyTensor:$input, Optional<AnyTensor>:$axes);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input (`,` $axes^)? attr-dict `:` functional-type(operands, results)";
}

def Graph_UnsqueezeOp : Graph_InferredOp<"unsqueeze", [Graph_DataMovement]> {
  let summary = "Insert dimensions of extent 1 (ONNX Unsqueeze)";
  let description = [{
    `axes` (1-D integers) are positions in the result, in `[-r, r - 1]` where `r` is the
    result's rank.
  }];
  let arguments = (ins AnyTensor:$input, AnyTensor:$axes);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input `,` $axes attr-dict `:` functional-type(operands, results)";
}

def Graph_ExpandOp : Graph_InferredOp<"expand", [Graph_DataMovement]> {
  let summary = "Broadcast to a shape (ONNX Expand)";
  let description = [{
    The result shape is the NumPy broadcast of the input's shape and the values of the
    1-D integer operand `shape` (bidirectional: an entry of 1 keeps the input's extent).
  }];
  let arguments = (ins AnyTensor:$input, AnyTensor:$shape);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input `,` $shape attr-dict `:` functional-type(operands, results)";
}

def Graph_TileOp : Graph_InferredOp<"tile", [Graph_DataMovement]> {
  let summary = "Repeat a tensor along each dimension (ONNX Tile)";
  let description = [{
    `repeats` is a 1-D integer tensor with one non-negative entry per input dimension;
    result extent `i` is `input extent i * repeats[i]`.
  }];
  let arguments = (ins AnyTensor:$input, AnyTensor:$repeats);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input `,` $repeats attr-dict `:` functional-type(operands, results)";
}

def Graph_DepthToSpaceOp : Graph_InferredOp<"depth_to_space", [Graph_DataMovement]> {
  let summary = "Move channel blocks into spatial blocks (ONNX DepthToSpace)";
  let description = [{
    `[N, C, H, W]` becomes `[N, C / (b * b), H * b, W * b]` for `blocksize` b. `mode` is
    "DCR" (depth-column-row, the default) or "CRD" (column-row-depth).
  }];
  let arguments = (ins AnyTensor:$input, ConfinedAttr<I64Attr, [IntPositive]>:$blocksize,
                       StrAttr:$mode);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_SpaceToDepthOp : Graph_InferredOp<"space_to_depth", [Graph_DataMovement]> {
  let summary = "Move spatial blocks into channels (ONNX SpaceToDepth)";
  let description = [{
    `[N, C, H, W]` becomes `[N, C * b * b, H / b, W / b]` for `blocksize` b.
  }];
  let arguments = (ins AnyTensor:$input, ConfinedAttr<I64Attr, [IntPositive]>:$blocksize);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Joining, splitting and slicing
//===----------------------------------------------------------------------===//

def Graph_ConcatOp : Graph_InferredOp<"concat", [Graph_DataMovement]> {
  let summary = "Concatenate tensors along an axis (ONNX Concat)";
  let description = [{
    All inputs have the same rank and element type and agree on every dimension except
    `axis`.
  }];
  let arguments = (ins Variadic<AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
}

def Graph_SplitOp : Graph_InferredOp<"split", [Graph_DataMovement]> {
  let summary = "Split a tensor into parts along an axis (ONNX Split)";
  let description = [{
    Produces `num_outputs` results. With the optional 1-D integer operand `split`, part
    `i` has extent `split[i]`; without it, the parts have extent `ceil(d / num_outputs)`,
    the last one taking what is left (opset 18; earlier opsets split evenly, which is the
    same where it was valid).
  }];
  let arguments = (ins AnyTensor:$input, Optional<AnyTensor>:$split, I64Attr:$axis,
                       ConfinedAttr<I64Attr, [IntPositive]>:$num_outputs);
  let results = (outs Variadic<AnyTensor>:$results);
  let assemblyFormat = "$input (`,` $split^)? attr-dict `:` functional-type(operands, results)";
}

def Graph_SliceOp : Graph_InferredOp<"slice", [AttrSizedOperandSegments, Graph_DataMovement]> {
  let summary = "Strided slice (ONNX Slice)";
  let description = [{
    `starts`, `ends` and the optional `axes` (default: 0, 1, ...) and `steps` (default:
    all 1) are 1-D integer tensors of one length. Negative starts and ends count from the
    back; out-of-range values are clamped as the ONNX specification says.
  }];
  let arguments = (ins AnyTensor:$input, AnyTensor:$starts, AnyTensor:$ends,
                       Optional<AnyTensor>:$axes, Optional<AnyTensor>:$steps);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $starts `,` $ends (`axes` $axes^)? (`steps` $steps^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Graph_PadOp : Graph_InferredOp<"pad", [AttrSizedOperandSegments, Graph_DataMovement]> {
  let summary = "Pad a tensor (ONNX Pad)";
  let description = [{
    `pads` (1-D integers) holds all beginnings, then all ends, for the dimensions in
    `axes` (default: every dimension); negative pads crop. `mode` is "constant" (fill with
    `constant_value`, default 0), "reflect", "edge" or "wrap".
  }];
  let arguments = (ins AnyTensor:$input, AnyTensor:$pads, Optional<AnyTensor>:$constant_value,
                       Optional<AnyTensor>:$axes, StrAttr:$mode);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $pads (`value` $constant_value^)? (`axes` $axes^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Graph_CenterCropPadOp : Graph_InferredOp<"center_crop_pad", [Graph_DataMovement]> {
  let summary = "Center crop or pad to a shape (ONNX CenterCropPad)";
  let description = [{
    Crops or zero-pads the dimensions in `axes` around their centre to the extents in the
    1-D integer operand `shape`.
  }];
  let arguments = (ins AnyTensor:$input, AnyTensor:$shape, DenseI64ArrayAttr:$axes);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input `,` $shape attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Gathering and scattering
//===----------------------------------------------------------------------===//

def Graph_GatherOp : Graph_InferredOp<"gather", [Graph_DataMovement]> {
  let summary = "Gather slices along an axis (ONNX Gather)";
  let description = [{
    The result shape is `data.shape[:axis] + indices.shape + data.shape[axis + 1:]`.
    Negative indices count from the back.
  }];
  let arguments = (ins AnyTensor:$data, AnyTensor:$indices, I64Attr:$axis);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Graph_GatherElementsOp : Graph_InferredOp<"gather_elements", [Graph_DataMovement]> {
  let summary = "Gather elements along an axis (ONNX GatherElements)";
  let description = [{
    `indices` has the rank of `data`; the result has the shape of `indices`.
  }];
  let arguments = (ins AnyTensor:$data, AnyTensor:$indices, I64Attr:$axis);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Graph_GatherNDOp : Graph_InferredOp<"gather_nd", [Graph_DataMovement]> {
  let summary = "Gather slices by N-dimensional indices (ONNX GatherND)";
  let description = [{
    With `b = batch_dims` and `k = indices.shape[-1]`, the result shape is
    `indices.shape[:-1] + data.shape[b + k:]`.
  }];
  let arguments = (ins AnyTensor:$data, AnyTensor:$indices, I64Attr:$batch_dims);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Graph_ScatterElementsOp : Graph_InferredOp<"scatter_elements", [Graph_DataMovement]> {
  let summary = "Scatter elements along an axis (ONNX ScatterElements, Scatter)";
  let description = [{
    Writes `updates` into a copy of `data` at the positions `indices` give along `axis`,
    combining with `reduction`: "none", "add", "mul", "max" or "min".
  }];
  let arguments = (ins AnyTensor:$data, AnyTensor:$indices, AnyTensor:$updates, I64Attr:$axis,
                       StrAttr:$reduction);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_ScatterNDOp : Graph_InferredOp<"scatter_nd", [Graph_DataMovement]> {
  let summary = "Scatter slices by N-dimensional indices (ONNX ScatterND)";
  let description = [{
    Writes `updates` into a copy of `data` at the index tuples of `indices`, combining
    with `reduction`: "none", "add", "mul", "max" or "min". `updates` has shape
    `indices.shape[:-1] + data.shape[indices.shape[-1]:]`.
  }];
  let arguments = (ins AnyTensor:$data, AnyTensor:$indices, AnyTensor:$updates,
                       StrAttr:$reduction);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_CompressOp : Graph_InferredOp<"compress", [Graph_DataMovement]> {
  let summary = "Select slices where a condition holds (ONNX Compress)";
  let description = [{
    Keeps the slices along `axis` whose entry in the 1-D i1 `condition` is true; without
    `axis`, works on the flattened input. The selected extent depends on the data and is
    dynamic.
  }];
  let arguments = (ins AnyTensor:$input, AnyTensor:$condition, OptionalAttr<I64Attr>:$axis);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input `,` $condition attr-dict `:` functional-type(operands, results)";
}

def Graph_NonZeroOp : Graph_InferredOp<"non_zero", [Graph_DataMovement]> {
  let summary = "Indices of the non-zero elements (ONNX NonZero)";
  let description = [{
    An i64 tensor `[rank, count]`; the count depends on the data and is dynamic.
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_ReverseSequenceOp : Graph_InferredOp<"reverse_sequence", [Graph_DataMovement]> {
  let summary = "Reverse variable-length sequences (ONNX ReverseSequence)";
  let description = [{
    For each batch entry `i` along `batch_axis`, reverses the first `sequence_lens[i]`
    elements along `time_axis` (both 0 or 1).
  }];
  let arguments = (ins AnyTensor:$input, AnyTensor:$sequence_lens, I64Attr:$batch_axis,
                       I64Attr:$time_axis);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $sequence_lens attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_TriluOp : Graph_InferredOp<"trilu", [Graph_DataMovement]> {
  let summary = "Upper or lower triangle of matrices (ONNX Trilu)";
  let description = [{
    Keeps the upper (`upper` true) or lower triangle of the two innermost dimensions,
    offset by the optional scalar integer `k` (default 0), and zeroes the rest.
  }];
  let arguments = (ins AnyTensor:$input, Optional<AnyTensor>:$k, BoolAttr:$upper);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input (`,` $k^)? attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Shapes as values, and tensors made from shapes
//===----------------------------------------------------------------------===//

def Graph_ShapeOp : Graph_InferredOp<"shape", [Graph_DataMovement]> {
  let summary = "The shape of a tensor as a 1-D i64 tensor (ONNX Shape)";
  let description = [{
    Returns extents `start` to `end` (exclusive; default: the rank). Negative values count
    from the back; both are clamped to `[0, rank]`.
  }];
  let arguments = (ins AnyTensor:$input, I64Attr:$start, OptionalAttr<I64Attr>:$end);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_SizeOp : Graph_InferredOp<"size", [Graph_DataMovement]> {
  let summary = "The number of elements as an i64 scalar (ONNX Size)";
  let description = [{
    The product of the input's extents, as a rank-0 i64 tensor.
  }];
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_RangeOp : Graph_InferredOp<"range", [Graph_DataMovement]> {
  let summary = "A 1-D arithmetic sequence (ONNX Range)";
  let description = [{
    `start`, `limit` and `delta` are scalars of one element type; the result has
    `max(ceil((limit - start) / delta), 0)` elements, known when all three are constants.
  }];
  let arguments = (ins AnyTensor:$start, AnyTensor:$limit, AnyTensor:$delta);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $start `,` $limit `,` $delta attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_ConstantOfShapeOp : Graph_InferredOp<"constant_of_shape", [Graph_DataMovement]> {
  let summary = "A tensor of a given shape filled with one value (ONNX ConstantOfShape)";
  let description = [{
    `shape` is a 1-D integer tensor; `value` is a one-element tensor whose element type
    is the result's (ONNX's default, a float 0, is filled in at import).
  }];
  let arguments = (ins AnyTensor:$shape, ElementsAttr:$value);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$shape attr-dict `:` functional-type(operands, results)";
}

def Graph_EyeLikeOp : Graph_InferredOp<"eye_like", [Graph_DataMovement]> {
  let summary = "An identity-like 2-D tensor of the input's shape (ONNX EyeLike)";
  let description = [{
    Ones on the diagonal offset by `k`, zeros elsewhere; the element type is `dtype`
    (ONNX's default, the input's element type, is filled in at import).
  }];
  let arguments = (ins AnyTensor:$input, TypeAttr:$dtype, I64Attr:$k);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_OneHotOp : Graph_InferredOp<"one_hot", [Graph_DataMovement]> {
  let summary = "One-hot encoding (ONNX OneHot)";
  let description = [{
    Inserts a dimension of extent `depth` (a scalar or one-element tensor) at `axis`
    (in `[-r - 1, r]` for input rank r); `values` is `[off_value, on_value]` and gives
    the result's element type.
  }];
  let arguments = (ins AnyTensor:$indices, AnyTensor:$depth, AnyTensor:$values, I64Attr:$axis);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $indices `,` $depth `,` $values attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_UniqueOp : Graph_InferredOp<"unique", [Graph_DataMovement]> {
  let summary = "Unique elements or slices of a tensor (ONNX Unique)";
  let description = [{
    Without `axis`, the unique elements of `input` flattened; with `axis` (in `[-r, r - 1]`,
    negative counts from the end), the unique slices along it. With `sorted` they come in
    ascending order, otherwise in order of first occurrence. The results are the unique
    values `y` (1-D without `axis`, else the input's shape with a data-dependent extent at
    `axis`), and the 1-D i64 tensors `indices` (the first occurrence of each in the input),
    `inverse_indices` (for each input element or slice, its position in `y`) and `counts`.

    ```mlir
    %y, %indices, %inverse, %counts = graph.unique %x {sorted = true}
        : (tensor<2x3xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
    ```
  }];
  let arguments = (ins AnyTensor:$input, OptionalAttr<I64Attr>:$axis, BoolAttr:$sorted);
  let results = (outs AnyTensor:$y, AnyTensor:$indices, AnyTensor:$inverse_indices,
                      AnyTensor:$counts);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

#endif // KILN_GRAPH_SHAPE_OPS
