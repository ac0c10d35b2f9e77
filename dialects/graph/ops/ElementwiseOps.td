//===- ElementwiseOps.td - Elementwise math and logic -*- tablegen -*-===//

#ifndef KILN_GRAPH_ELEMENTWISE_OPS
#define KILN_GRAPH_ELEMENTWISE_OPS

include "dialects/graph/GraphBase.td"

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

def Graph_AddOp : Graph_InferredOp<"add",
    [Commutative, SameOperandsAndResultElementType]> {
  let summary = "Elementwise addition with NumPy broadcasting (ONNX Add)";
  let arguments = (ins AnyTensor:$lhs, AnyTensor:$rhs);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_ReluOp : Graph_Op<"relu", [Pure, SameOperandsAndResultType]> {
  let summary = "Rectified linear unit, max(x, 0) (ONNX Relu)";
  let arguments = (ins AnyTensor:$input);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

#endif // KILN_GRAPH_ELEMENTWISE_OPS
