//===- ConstantEvaluator.h - How graph-fold-constants computes --*- C++ -*-===//
//
// graph-fold-constants evaluates constant sub-graphs by compiling and running them; the
// code that can (the CPU backend, lib/cpu) depends on the passes, so it is plugged in
// here at tool start-up rather than linked into the pass.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_GRAPH_CONSTANTEVALUATOR_H
#define KILN_PASSES_GRAPH_CONSTANTEVALUATOR_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

#include <functional>

namespace kiln {

/// Runs function `name` of `module` (graph dialect, no arguments, static result types;
/// the module is consumed) and returns its results as attributes of the result types,
/// or failure with diagnostics on the module's context.
using ConstantEvaluator = std::function<mlir::FailureOr<llvm::SmallVector<mlir::ElementsAttr>>(
    mlir::ModuleOp module, llvm::StringRef name)>;

/// Sets the evaluator graph-fold-constants uses (tools call this at start-up).
void setConstantEvaluator(ConstantEvaluator evaluator);
/// The evaluator, or null when none was set.
const ConstantEvaluator &getConstantEvaluator();

} // namespace kiln

#endif // KILN_PASSES_GRAPH_CONSTANTEVALUATOR_H
