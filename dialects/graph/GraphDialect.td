//===- GraphDialect.td - The graph dialect -----------------*- tablegen -*-===//
//
// The graph dialect holds a model as imported from ONNX: value-semantic tensor ops whose
// attributes are normalised across opsets, so graph passes see one form per op.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_DIALECT
#define KILN_GRAPH_DIALECT

include "mlir/IR/OpBase.td"

def Graph_Dialect : Dialect {
  let name = "graph";
  let cppNamespace = "::kiln::graph";
  let summary = "Tensor-level model graph, as imported from ONNX";
  let description = [{
    Ops of the `graph` dialect operate on builtin tensor types with value semantics. Their
    attributes are the normalised form of the corresponding ONNX ops (for example explicit
    pads instead of `auto_pad`), so that passes match a single form regardless of the opset
    a model was exported with. Result types may be less refined than what shape inference
    derives from the operands (a dynamic dimension where the operands imply a static one),
    never contradictory; `graph-infer-shapes` refines them.
  }];
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, traits>;

#endif // KILN_GRAPH_DIALECT
