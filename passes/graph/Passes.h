//===- Passes.h - The graph passes ------------------------------*- C++ -*-===//
//
// The passes on the graph dialect that every target runs (passes/graph/Passes.td). They
// need neither the kernel dialect nor a GPU dialect: the graph passes build and link
// without them.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_GRAPH_PASSES_H
#define KILN_PASSES_GRAPH_PASSES_H

#include "dialects/graph/GraphDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln {

#define GEN_PASS_DECL
#include "passes/graph/Passes.h.inc"

// Declares registerGraphPasses().
#define GEN_PASS_REGISTRATION
#include "passes/graph/Passes.h.inc"

} // namespace kiln

#endif // KILN_PASSES_GRAPH_PASSES_H
