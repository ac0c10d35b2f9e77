//===- Calibration.h - INT8 post-training calibration -----------*- C++ -*-===//
//
// `kiln compile --int8 --calib DIR`: the fp32 model runs on the host over the
// calibration batches, the activations graph-quantize-int8 will quantize observed, and
// each one's clipping threshold chosen (lib/quantization). The result is a calibration
// cache, reused while it matches the model and the method.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_PIPELINE_CALIBRATION_H
#define KILN_LIB_PIPELINE_CALIBRATION_H

#include "passes/quantization/CalibrationCache.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {

struct CalibrationOptions {
  /// The calibration data: `<input name>.npy` for each model input, or, for a model with
  /// one input, any `.npy` files; each holds samples stacked along the first axis, used in
  /// chunks of the model's batch size.
  std::string dataDir;
  quant::CalibrationMethod method = quant::CalibrationMethod::MinMax;
  double percentile = 99.99;
  /// Read when it matches the model and the method (then nothing runs), else written.
  std::string cachePath;
  /// Print each layer's SQNR when quantized alone (measureInt8Sensitivity).
  bool sensitivityReport = false;
  /// Layers whose SQNR alone falls below this (dB) stay in floats; 0: none.
  double minLayerSqnr = 0;
};

/// How much one quantized layer loses: the SQNR (dB) of its output over the calibration
/// data when it alone is quantized, against its f32 output for the same f32 inputs.
struct LayerSensitivity {
  std::string key; // the calibration key, "<ONNX node>:<operand>"
  double sqnr;
};

/// The SHA-256 of the file at `path` (hex): what a calibration cache is valid for.
llvm::Expected<std::string> fingerprintModel(llvm::StringRef path);

/// Calibrates the activations of `module` (the graph after the graph passes, f32; not
/// modified) that graph-quantize-int8 quantizes. `fingerprint` identifies the model in
/// the cache.
llvm::Expected<quant::CalibrationCache>
calibrateInt8(mlir::ModuleOp module, llvm::StringRef fingerprint, const CalibrationOptions &options,
              llvm::function_ref<void(const llvm::Twine &)> progress);

/// Each calibrated layer of `module` (f32, not modified) quantized alone with
/// `thresholds`, measured on the host over the calibration data in `dataDir`, in
/// program order.
llvm::Expected<std::vector<LayerSensitivity>>
measureInt8Sensitivity(mlir::ModuleOp module, const llvm::StringMap<double> &thresholds,
                       llvm::StringRef dataDir);

/// What INT8 post-training quantization needs from the host: each activation's threshold
/// (calibrateInt8 on the model after the graph passes), less the layers kept in floats.
struct Int8Calibration {
  std::shared_ptr<const llvm::StringMap<double>> thresholds;
  /// Layers whose SQNR alone fell below CalibrationOptions::minLayerSqnr (left out of
  /// `thresholds`).
  int64_t keptInFloat = 0;
};

/// Calibrates `imported` (the model as imported, shapes specialised) for the graph stage's
/// graph-quantize-int8: the graph passes on a copy, then calibrateInt8 (and the
/// sensitivity report with CalibrationOptions::sensitivityReport, on stderr). An error
/// for a quantizable layer of dynamic shape.
llvm::Expected<Int8Calibration>
calibrateGraphInt8(mlir::ModuleOp imported, llvm::StringRef modelPath,
                   const CalibrationOptions &options,
                   llvm::function_ref<void(const llvm::Twine &)> progress);

/// The progress line after quantization: "int8: 52 convolutions and products quantized,
/// 16 shortcut outputs, 2 below 30 dB kept in float".
std::string describeInt8(int64_t quantized, int64_t shortcuts, int64_t uncalibrated,
                         int64_t keptInFloat, double minLayerSqnr);

} // namespace kiln

#endif // KILN_LIB_PIPELINE_CALIBRATION_H
