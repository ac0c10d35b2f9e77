//===- Passes.td - Every Kiln pass -------------------------*- tablegen -*-===//
//
// All of Kiln's passes, grouped by the stage of the pipeline they belong to. Each is
// implemented in its own file under passes/<stage>/ and tested in test/passes/<name>.mlir.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES
#define KILN_PASSES

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Graph passes (passes/graph)
//===----------------------------------------------------------------------===//

def GraphInferShapes : Pass<"graph-infer-shapes", "::mlir::func::FuncOp"> {
  let summary = "Refine tensor types from the graph ops' shape rules";
  let description = [{
    Walks a graph function in order and gives every op result the most refined type its
    operands imply: a dynamic dimension becomes static where the op's shape rule
    determines it, an unranked tensor becomes ranked. Types are only ever refined, never
    changed into contradicting ones. The function's result types follow its returned
    values, so graph functions are expected to be entry points, not callees.
  }];
}

#endif // KILN_PASSES
