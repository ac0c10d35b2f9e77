//===- CompileReport.cpp - What kernel formation saves, in kernels and bytes ----===//

#include "lib/pipeline/CompileReport.h"

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace kiln {

namespace {

/// Bytes of a value of static shape (booleans as bytes), or none.
std::optional<uint64_t> getValueBytes(Value value) {
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  return static_cast<uint64_t>(type.getNumElements()) * ((bits + 7) / 8);
}

void addValues(const llvm::SetVector<Value> &values, TrafficEstimate &estimate) {
  for (Value value : values) {
    if (!isa<ShapedType>(value.getType()))
      continue;
    if (!cast<ShapedType>(value.getType()).getElementType().isIntOrFloat())
      continue;
    if (std::optional<uint64_t> bytes = getValueBytes(value))
      estimate.bytes += *bytes;
    else
      ++estimate.unknownValues;
  }
}

} // namespace

TrafficEstimate estimateGraphTraffic(ModuleOp module, StringRef stage) {
  TrafficEstimate estimate;
  estimate.stage = stage.str();
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    for (Operation &op : function.getBody().front().without_terminator()) {
      if (isa<graph::ConstantOp>(op) ||
          op.getDialect() !=
              op.getContext()->getLoadedDialect(graph::GraphDialect::getDialectNamespace()))
        continue;
      ++estimate.kernels;
      llvm::SetVector<Value> values(op.getOperands().begin(), op.getOperands().end());
      values.insert(op.getResults().begin(), op.getResults().end());
      addValues(values, estimate);
    }
  }
  return estimate;
}

TrafficEstimate estimateKernelTraffic(ModuleOp module, StringRef stage) {
  TrafficEstimate estimate;
  estimate.stage = stage.str();
  module.walk([&](kernel::LaunchOp launch) {
    ++estimate.kernels;
    llvm::SetVector<Value> values(launch->getOperands().begin(), launch->getOperands().end());
    addValues(values, estimate);
  });
  return estimate;
}

void printCompileReport(raw_ostream &os, StringRef model,
                        const std::vector<TrafficEstimate> &rows) {
  os << "kiln compile report: " << model << "\n";
  // Ratios against the first row whose every size is known (an imported graph with
  // dynamic shapes has values of unknown size until the graph passes fold its shapes).
  const TrafficEstimate *base = nullptr;
  for (const TrafficEstimate &row : rows)
    if (!base && row.bytes && !row.unknownValues)
      base = &row;
  os << llvm::formatv("  {0,-44} {1,8} {2,14}  {3}\n", "stage", "kernels", "bytes moved",
                      base ? "against '" + base->stage + "'" : std::string());
  for (const TrafficEstimate &row : rows) {
    std::string bytes = !row.bytes         ? std::string("-")
                        : row.bytes < 1024 ? llvm::formatv("{0} B", row.bytes).str()
                        : row.bytes < 1048576
                            ? llvm::formatv("{0:f1} KiB", row.bytes / 1024.0).str()
                            : llvm::formatv("{0:f1} MiB", row.bytes / 1048576.0).str();
    std::string change;
    if (base && &row != base && base->kernels && row.kernels && !row.unknownValues) {
      change = llvm::formatv("kernels x{0:f2}", double(row.kernels) / base->kernels);
      if (row.bytes)
        change += llvm::formatv(", bytes x{0:f2}", double(row.bytes) / base->bytes);
    }
    if (row.unknownValues)
      change += llvm::formatv("{0}{1} values of unknown size left out", change.empty() ? "" : "; ",
                              row.unknownValues);
    os << llvm::formatv("  {0,-44} {1,8} {2,14}  {3}\n", row.stage, row.kernels, bytes, change);
  }
}

} // namespace kiln
