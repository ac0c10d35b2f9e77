//===- CoreOps.td - Constants and plumbing -*- tablegen -*-===//

#ifndef KILN_GRAPH_CORE_OPS
#define KILN_GRAPH_CORE_OPS

include "dialects/graph/GraphBase.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Graph_ConstantOp : Graph_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "A constant tensor (a weight or a folded value)";
  let description = [{
    Holds a tensor value. Weights imported from a model are `dense_resource` blobs, so a
    module with hundreds of megabytes of weights still prints and parses quickly.

    ```mlir
    %w = graph.constant dense_resource<conv1_weight> : tensor<64x3x7x7xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

#endif // KILN_GRAPH_CORE_OPS
