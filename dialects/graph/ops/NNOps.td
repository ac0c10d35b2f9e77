//===- NNOps.td - Convolution, pooling, normalisation, matmul -*- tablegen -*-===//

#ifndef KILN_GRAPH_NN_OPS
#define KILN_GRAPH_NN_OPS

include "dialects/graph/GraphBase.td"

//===----------------------------------------------------------------------===//
// Anchor ops: convolution and matrix multiplication
//===----------------------------------------------------------------------===//

def Graph_ConvOp : Graph_InferredOp<"conv"> {
  let summary = "N-dimensional convolution (ONNX Conv), channels first";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`, `weight` is `[M, C / group, K1, ..., Kk]` and the
    optional `bias` is `[M]`. `strides` and `dilations` have one entry per spatial dimension;
    `pads` has two, all beginnings then all ends, as in ONNX. ONNX's `auto_pad` is resolved
    into `pads` at import.

    ```mlir
    %y = graph.conv %x, %w, %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>,
                                pads = array<i64: 3, 3, 3, 3>, group = 1}
        : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>)
        -> tensor<1x64x112x112xf32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$weight,
    Optional<AnyTensor>:$bias,
    DenseI64ArrayAttr:$strides,
    DenseI64ArrayAttr:$dilations,
    DenseI64ArrayAttr:$pads,
    ConfinedAttr<I64Attr, [IntPositive]>:$group);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_MatMulOp : Graph_InferredOp<"matmul", [SameOperandsAndResultElementType]> {
  let summary = "Matrix product with NumPy semantics (ONNX MatMul)";
  let description = [{
    Multiplies the two innermost dimensions and broadcasts the leading (batch) ones. A 1-D
    operand is treated as a row (`lhs`) or a column (`rhs`) vector and that dimension is
    dropped from the result.

    ```mlir
    %y = graph.matmul %a, %b : (tensor<?x128x768xf32>, tensor<768x768xf32>)
        -> tensor<?x128x768xf32>
    ```
  }];
  let arguments = (ins AnyTensor:$lhs, AnyTensor:$rhs);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

#endif // KILN_GRAPH_NN_OPS
