//===- CalibrationCache.h - Calibration results kept in a file --*- C++ -*-===//
//
// The result of a calibration run, so that later compiles of the same model can skip it.
// Stored as JSON (docs/quantization.md shows a file):
//
//   {"format": "kiln-calibration", "version": 1, "method": "entropy", "percentile": 99.99,
//    "model": "<fingerprint>",
//    "tensors": {"<tensor key>": {"amax": 6.25, "threshold": 4.1}, ...}}
//
// Written atomically (a temporary file in the same folder, then a rename), and doubles
// round-trip exactly. Reading is strict: any problem is one error naming the file.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_QUANTIZATION_CALIBRATIONCACHE_H
#define KILN_PASSES_QUANTIZATION_CALIBRATIONCACHE_H

#include "passes/quantization/Calibration.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace kiln::quant {

/// What calibration found for one tensor.
struct TensorCalibration {
  /// The largest finite |x| seen.
  double amax = 0;
  /// The clipping threshold: the int8 scale is int8Scale(threshold).
  double threshold = 0;
};

struct CalibrationCache {
  static constexpr llvm::StringLiteral kFormat = "kiln-calibration";
  static constexpr int kVersion = 1;

  /// How the thresholds were chosen.
  CalibrationMethod method = CalibrationMethod::Entropy;
  /// The percentile the Percentile method used (recorded whatever the method).
  double percentile = 99.99;
  /// Identifies the model calibrated, so a cache is not applied to another one; its form
  /// is the caller's.
  std::string model;
  /// By tensor key (any UTF-8 string, e.g. an ONNX value name).
  std::map<std::string, TensorCalibration> tensors;

  /// Writes the cache to `path` through a temporary file in the same folder renamed into
  /// place: `path` holds either its old contents or the whole new cache, and a failed
  /// write leaves no temporary file. The folder must exist. Refuses (before touching any
  /// file) what read() would reject: non-UTF-8 strings, a negative or non-finite amax,
  /// threshold or percentile, a percentile outside (0, 100].
  llvm::Error write(llvm::StringRef path) const;

  /// Reads a cache written by write(). Errors start with the file's path and say what is
  /// wrong: unreadable, not JSON, another format or version, a missing or mistyped field,
  /// an unknown method, a value out of range.
  static llvm::Expected<CalibrationCache> read(llvm::StringRef path);
};

} // namespace kiln::quant

#endif // KILN_PASSES_QUANTIZATION_CALIBRATIONCACHE_H
