//===- QuantizeInt8.h - Post-training INT8 quantization ---------*- C++ -*-===//
//
// What graph-quantize-int8 quantizes, for the calibration driver (which observes exactly
// those activations) and the pass itself.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_GRAPH_QUANTIZEINT8_H
#define KILN_PASSES_GRAPH_QUANTIZEINT8_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::graph {

/// An activation graph-quantize-int8 quantizes: operand `operand` of `op`, a conv,
/// matmul or gemm with a constant f32 weight, or an add or subtraction of which it is a
/// shortcut convolution's output (QuantizeInt8.cpp). `key` names it in calibration caches:
/// "<ONNX node>:<operand>" (with "#<k>" when a node name repeats or is missing).
struct Int8Activation {
  mlir::Operation *op;
  unsigned operand;
  std::string key;
  /// A shortcut convolution's output, read by the add `op`: no weight to quantize, and
  /// no layer of its own for the sensitivity report.
  bool shortcut = false;
};

/// The activations to quantize in `function`, in program order.
std::vector<Int8Activation> findInt8Activations(mlir::func::FuncOp function);

/// A conv, matmul or gemm with a constant f32 weight that quantizeInt8 leaves alone only
/// because its activation's shape is dynamic (calibration and the int8 kernels need
/// static shapes), or null.
mlir::Operation *findDynamicInt8Candidate(mlir::func::FuncOp function);

struct Int8Report {
  /// Convolutions and products with their activation quantized.
  int64_t quantized = 0;
  /// Shortcut convolutions' outputs quantized.
  int64_t shortcuts = 0;
  /// Activations without a threshold in the calibration (left in f32).
  std::vector<std::string> uncalibrated;
  /// Activations left in floats because the int8 templates do not take their product's
  /// rows (with `tensorCoreRows`).
  std::vector<std::string> keptForTemplates;
};

/// Inserts QuantizeLinear/DequantizeLinear pairs (symmetric int8) on each activation with
/// a threshold in `thresholds` (by key: scale threshold / 127) and quantizes its op's
/// weight per output channel (an int8 constant and a DequantizeLinear), as a QAT export
/// would carry them. With `tensorCoreRows` (GPU targets), products whose rows the int8
/// tensor-core templates do not take (N not a multiple of 8; depthwise; a matrix product's
/// K not of 16) stay in floats.
Int8Report quantizeInt8(mlir::func::FuncOp function, const llvm::StringMap<double> &thresholds,
                        bool tensorCoreRows = false);

/// graph-quantize-int8 with `thresholds` (each activation's, by key; the calibration the
/// driver made) instead of a calibration cache file, calling `report` (when set) with each
/// function's result.
std::unique_ptr<mlir::Pass>
createQuantizeInt8Pass(std::shared_ptr<const llvm::StringMap<double>> thresholds,
                       std::function<void(const Int8Report &)> report = {},
                       bool tensorCoreRows = false);

} // namespace kiln::graph

#endif // KILN_PASSES_GRAPH_QUANTIZEINT8_H
