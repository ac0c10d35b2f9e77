//===- GraphBase.td - Base classes of graph ops ------------*- tablegen -*-===//

#ifndef KILN_GRAPH_BASE
#define KILN_GRAPH_BASE

include "dialects/graph/GraphDialect.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// An op whose result types are derived from its operands and attributes. The declared
// result types may be less refined than the inferred ones (see the dialect description).
def Graph_InferTypeWithRefinement : InferTypeOpAdaptorBase<[{
  static bool isCompatibleReturnTypes(::mlir::TypeRange inferred, ::mlir::TypeRange actual) {
    return ::kiln::graph::isRefinementCompatible(inferred, actual);
  }
}]>;

class Graph_InferredOp<string mnemonic, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat(traits, [Pure, Graph_InferTypeWithRefinement])>;

// What kind of computation an op is, for kernel formation (graph-to-kernel picks the
// kernel template from it): elementwise with broadcasting, a reduction or normalisation
// along some axes, or data movement (shape changes, gathers, scatters). Ops with none of
// these become generic kernels. The C++ side is in GraphTraits.h.
def Graph_Pointwise : NativeOpTrait<"Pointwise"> { let cppNamespace = "::kiln::graph::OpTrait"; }
def Graph_Reduction : NativeOpTrait<"Reduction"> { let cppNamespace = "::kiln::graph::OpTrait"; }
def Graph_DataMovement : NativeOpTrait<"DataMovement"> {
  let cppNamespace = "::kiln::graph::OpTrait";
}

#endif // KILN_GRAPH_BASE
