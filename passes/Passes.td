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

//===----------------------------------------------------------------------===//
// Lowering passes (passes/lowering)
//===----------------------------------------------------------------------===//

def GraphToLinalg : Pass<"graph-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower the graph dialect to linalg, tensor, arith, math and scf on tensors";
  let description = [{
    Rewrites every graph op into upstream dialects on tensors: elementwise ops, reductions,
    normalisations and data movement into `linalg.generic` and named linalg ops, shape
    changes into `tensor` ops, control flow and data-dependent algorithms into `scf`. The
    result is the input of bufferization and of the CPU pipeline (`kiln-lower-to-cpu`).

    Graph tensor types with unsigned elements (`ui8`) become signless (`i8`); the ops that
    care (division, comparison, conversion) read the signedness from the graph types
    before conversion. Function signatures are converted the same way.

    The lowering of each op family lives in passes/lowering/graph-to-linalg/<Family>.cpp.
    An op, or a form of an op, without a lowering is an error that names it and the ONNX
    node it came from.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // KILN_PASSES
