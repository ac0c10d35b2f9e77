//===- ReductionOps.td - Reductions and index ops -*- tablegen -*-===//

#ifndef KILN_GRAPH_REDUCTION_OPS
#define KILN_GRAPH_REDUCTION_OPS

include "dialects/graph/GraphBase.td"

//===----------------------------------------------------------------------===//
// Reductions (ONNX Reduce*, opset 18 form)
//===----------------------------------------------------------------------===//

// All ten ONNX reductions share the opset-18 signature: the axes are an optional 1-D i64
// operand, and `keepdims` / `noop_with_empty_axes` say what happens to reduced dimensions
// and to an empty axes list. They differ only in the combining function.
class Graph_ReduceOp<string mnemonic, string onnxName, string formula>
    : Graph_InferredOp<mnemonic, [Graph_Reduction]> {
  let summary = "Reduction over axes: " # formula # " (ONNX " # onnxName # ")";
  let description = [{
    Reduces `data` over the dimensions listed in `axes` (a 1-D i64 tensor; negative
    entries count from the back). With `keepdims` the reduced dimensions stay with extent
    1, otherwise they are dropped. When `axes` is absent or empty, every dimension is
    reduced, unless `noop_with_empty_axes` is set, in which case the op returns `data`
    unchanged. Older opsets' `axes` attribute is imported as a constant operand.

    ```mlir
    %m = graph.}] # mnemonic # [{ %x, %axes {keepdims = true, noop_with_empty_axes = false}
        : (tensor<?x128x768xf32>, tensor<1xi64>) -> tensor<?x128x1xf32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$data,
    Optional<AnyTensor>:$axes,
    BoolAttr:$keepdims,
    BoolAttr:$noop_with_empty_axes);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $data (`,` $axes^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_ReduceMeanOp : Graph_ReduceOp<"reduce_mean", "ReduceMean", "arithmetic mean">;
def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum", "ReduceSum", "sum">;
def Graph_ReduceMaxOp : Graph_ReduceOp<"reduce_max", "ReduceMax", "maximum">;
def Graph_ReduceMinOp : Graph_ReduceOp<"reduce_min", "ReduceMin", "minimum">;
def Graph_ReduceProdOp : Graph_ReduceOp<"reduce_prod", "ReduceProd", "product">;
def Graph_ReduceL1Op : Graph_ReduceOp<"reduce_l1", "ReduceL1", "sum of absolute values">;
def Graph_ReduceL2Op : Graph_ReduceOp<"reduce_l2", "ReduceL2",
                                      "square root of the sum of squares">;
def Graph_ReduceLogSumOp : Graph_ReduceOp<"reduce_log_sum", "ReduceLogSum", "log of the sum">;
def Graph_ReduceLogSumExpOp : Graph_ReduceOp<"reduce_log_sum_exp", "ReduceLogSumExp",
                                             "log of the sum of exponentials">;
def Graph_ReduceSumSquareOp : Graph_ReduceOp<"reduce_sum_square", "ReduceSumSquare",
                                             "sum of squares">;

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

def Graph_CumSumOp : Graph_InferredOp<"cumsum", [Graph_Reduction]> {
  let summary = "Cumulative sum along an axis (ONNX CumSum)";
  let description = [{
    Running sums of `input` along the dimension given by `axis`, a scalar (0-D, or 1-D of
    one element) i32 or i64 tensor; a negative axis counts from the back. With `exclusive`
    the j-th output excludes the j-th input (the first output is 0); with `reverse` the sums
    run from the end of the axis towards its start. The result has the input's type.

    ```mlir
    %y = graph.cumsum %x, %axis {exclusive = false, reverse = false}
        : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$axis,
    BoolAttr:$exclusive,
    BoolAttr:$reverse);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input `,` $axis attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Index ops
//===----------------------------------------------------------------------===//

class Graph_ArgReduceOp<string mnemonic, string onnxName, string which>
    : Graph_InferredOp<mnemonic, [Graph_Reduction]> {
  let summary = "Index of the " # which # " along an axis (ONNX " # onnxName # ")";
  let description = [{
    The i64 indices of the }] # which # [{ elements of `input` along `axis` (negative
    counts from the back). With `keepdims` the axis stays with extent 1, otherwise it is
    dropped. Ties resolve to the first occurrence, or to the last with
    `select_last_index`.

    ```mlir
    %i = graph.}] # mnemonic # [{ %x {axis = 1 : i64, keepdims = false, select_last_index = false}
        : (tensor<8x1000xf32>) -> tensor<8xi64>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    I64Attr:$axis,
    BoolAttr:$keepdims,
    BoolAttr:$select_last_index);
  let results = (outs TensorOf<[I64]>:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_ArgMaxOp : Graph_ArgReduceOp<"argmax", "ArgMax", "largest">;
def Graph_ArgMinOp : Graph_ArgReduceOp<"argmin", "ArgMin", "smallest">;

def Graph_TopKOp : Graph_InferredOp<"top_k", [Graph_Reduction]> {
  let summary = "The k largest or smallest elements along an axis (ONNX TopK)";
  let description = [{
    Selects `k` elements of `input` along `axis` (negative counts from the back): the
    largest with `largest`, else the smallest. `k` is a 1-D i64 tensor of one element (the
    attribute of opsets before 10 is imported as a constant). Returns the values, of the
    input's element type, and their i64 indices; both have the input's shape with the axis
    extent replaced by k. With `sorted` the results are in order (descending for largest,
    ascending otherwise); equal values keep the lower index first.

    ```mlir
    %v, %i = graph.top_k %x, %k {axis = -1 : i64, largest = true, sorted = true}
        : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    AnyTensor:$k,
    I64Attr:$axis,
    BoolAttr:$largest,
    BoolAttr:$sorted);
  let results = (outs AnyTensor:$values, TensorOf<[I64]>:$indices);
  let assemblyFormat = "$input `,` $k attr-dict `:` functional-type(operands, results)";
}

#endif // KILN_GRAPH_REDUCTION_OPS
