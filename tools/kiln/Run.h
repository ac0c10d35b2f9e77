//===- Run.h - `kiln run`: execute a model on inputs ------------*- C++ -*-===//

#ifndef KILN_TOOLS_KILN_RUN_H
#define KILN_TOOLS_KILN_RUN_H

#include "lib/pipeline/Calibration.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llvm::cl {
class SubCommand;
} // namespace llvm::cl

namespace mlir {
class PassManager;
class Diagnostic;
} // namespace mlir

namespace kiln::engine {
struct Engine;
} // namespace kiln::engine

namespace kiln::tool {

/// Prints a diagnostic as "FILE: error: message" (one line, notes after it).
void printDiagnostic(mlir::Diagnostic &diagnostic);

struct RunOptions {
  std::string model;
  /// `NAME=FILE` pairs (or bare FILEs, taken in input order).
  std::vector<std::string> inputs;
  /// The folder of this run's inputs; `inputsDirs` lists every run's (several: runs of
  /// one compilation at each folder's shapes).
  std::string inputsDir;
  std::vector<std::string> inputsDirs;
  /// `NAME=FILE` pairs (or bare FILEs, taken in output order).
  std::vector<std::string> expects;
  std::string expectDir;
  std::string outputDir;
  /// "cpu", "cuda", or empty: by the model (an engine runs on cuda, ONNX on the cpu).
  std::string device;
  double rtol = 1e-4;
  double atol = 1e-5;
  bool quiet = false;
  /// --channels-last: graph-convert-layout after the graph passes (an ONNX model).
  bool channelsLast = false;
  /// --tf32: f32 products and convolutions with tf32 operands (an ONNX model on cuda).
  bool allowTf32 = false;
  /// --fp16 / --bf16 (an ONNX model): "fp32", "fp16" or "bf16" (reduceGraphPrecision).
  std::string precision = "fp32";
  /// --int8 and its calibration (an ONNX model): quantizeGraphInt8.
  bool int8 = false;
  CalibrationOptions calibration;
  /// An optimization profile (an ONNX model): compiled once for its range, with the
  /// inputs' shapes inside it, rather than for the inputs' shapes (docs/dynamic-shapes.md).
  std::string minShapes, optShapes, maxShapes;
  /// graph-fold-layer-norm-into-products on or off (unset: on for the GPU, off for the CPU).
  std::optional<bool> foldLayerNorms;
};

/// Exit codes of `kiln run`, which scripts (the conformance runner) rely on.
enum RunExitCode {
  RunSucceeded = 0,
  /// An output differs from its expected value beyond the tolerances.
  RunMismatch = 1,
  /// Bad usage or unreadable input/expected files.
  RunBadInput = 2,
  /// The model uses an operator or a form of one that Kiln does not support.
  RunUnsupported = 3,
  /// Anything else failed while compiling or running.
  RunFailed = 4,
};

/// Runs `kiln run` with `options`; prints results on stdout, problems on stderr.
int runModel(const RunOptions &options);

/// Registers MLIR's pass-manager options (`--mlir-print-ir-after-all`,
/// `--mlir-print-ir-after=PASS`, `--mlir-timing`, `--mlir-pass-pipeline-crash-reproducer`,
/// ...) and MLIR context options for `subcommands`, before the command line is parsed.
void registerPassManagerOptions(llvm::ArrayRef<llvm::cl::SubCommand *> subcommands);

/// Applies those options to `pm`; a failure has been reported.
mlir::LogicalResult configurePassManager(mlir::PassManager &pm);

} // namespace kiln::tool

#endif // KILN_TOOLS_KILN_RUN_H
