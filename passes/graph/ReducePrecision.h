//===- ReducePrecision.h - FP16/BF16 with FP32 islands ----------*- C++ -*-===//
//
// The engine of graph-reduce-precision as a function, for `kiln compile --fp16/--bf16`,
// which prints the per-layer report.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_GRAPH_REDUCEPRECISION_H
#define KILN_PASSES_GRAPH_REDUCEPRECISION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Location.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::graph {

struct ReducePrecisionOptions {
  /// f16 or bf16.
  mlir::FloatType reducedType;
  /// The function's f32 inputs and outputs take the reduced type too (by default they
  /// keep f32, converted at the boundary).
  bool convertIO = false;
};

/// What happened to one op that computes on f32 tensors.
struct PrecisionDecision {
  /// The ONNX node (graph::getNodeName), or "" for ops the passes made.
  std::string node;
  /// The op's name, e.g. "graph.conv".
  std::string op;
  mlir::LocationAttr loc;
  /// Computed in the reduced type; else kept in f32 for `reason`.
  bool reduced = false;
  std::string reason;
};

struct PrecisionReport {
  std::string reducedType;
  /// In program order.
  std::vector<PrecisionDecision> decisions;
  /// Constants converted, and their elements beyond the reduced type's range (set to its
  /// largest finite value).
  int64_t constantsConverted = 0;
  int64_t elementsSaturated = 0;

  int64_t reducedCount() const;
  int64_t keptCount() const;
  /// One summary line; with `perLayer`, then one line per op.
  void print(llvm::raw_ostream &os, bool perLayer) const;
};

/// Rewrites `function` to compute in `options.reducedType` where that is safe, keeping
/// f32 islands elsewhere (graph-reduce-precision's documentation says which).
PrecisionReport reducePrecision(mlir::func::FuncOp function, const ReducePrecisionOptions &options);

/// graph-reduce-precision to `type` ("f16", "bf16"; with `convertIo`, the function's f32
/// inputs and outputs too), calling `report` (when set) with each function's result.
std::unique_ptr<mlir::Pass>
createReducePrecisionPass(llvm::StringRef type, bool convertIo,
                          std::function<void(const PrecisionReport &)> report);

} // namespace kiln::graph

#endif // KILN_PASSES_GRAPH_REDUCEPRECISION_H
