//===- CompileReport.h - What kernel formation saves, in kernels and bytes -*- C++ -*-===//
//
// `kiln compile --report`: the number of kernels and an estimate of the bytes they move
// through device memory (each kernel reads its inputs once and writes its outputs once,
// weights included), at four points: the graph as imported (one kernel per op), after the
// graph passes (still one per op), after kernel formation (one per fused group), and the
// engine's launches. The estimate is a floor of the traffic, the quantity fusion
// reduces: an intermediate a group keeps inside is neither written nor read back.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_PIPELINE_COMPILEREPORT_H
#define KILN_LIB_PIPELINE_COMPILEREPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace kiln {

struct TrafficEstimate {
  std::string stage;
  size_t kernels = 0;
  uint64_t bytes = 0;
  /// Values whose size is not known (dynamic shapes), left out of `bytes`.
  size_t unknownValues = 0;
};

/// One kernel per graph op of the module's functions (constants are not kernels; the
/// weights they hold count where they are read).
TrafficEstimate estimateGraphTraffic(mlir::ModuleOp module, llvm::StringRef stage);

/// One kernel per `kernel.launch` of the host function graph-to-kernel made, reading and
/// writing the buffers it is launched on.
TrafficEstimate estimateKernelTraffic(mlir::ModuleOp module, llvm::StringRef stage);

/// The table, with each row's change against the first.
void printCompileReport(llvm::raw_ostream &os, llvm::StringRef model,
                        const std::vector<TrafficEstimate> &rows);

} // namespace kiln

#endif // KILN_LIB_PIPELINE_COMPILEREPORT_H
