//===- Compiler.h - The compile pipeline driver -----------------*- C++ -*-===//
//
// `kiln compile` as a library: the pipeline's stages in order, and a driver that runs
// them up to a chosen one. Each stage's output can be written out as MLIR, so any prefix
// of the pipeline can be inspected or continued with kiln-opt.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_PIPELINE_COMPILER_H
#define KILN_LIB_PIPELINE_COMPILER_H

#include "lib/pipeline/Calibration.h"
#include "passes/Pipelines.h"
#include "passes/graph/ReducePrecision.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class PassManager;
} // namespace mlir

namespace kiln {

class KernelTimer;
class Progress;

struct CompileOptions {
  std::string modelPath;
  /// Where the result goes: MLIR text for a stage before Engine, else the engine file.
  std::string outputPath;
  Stage compileTo = Stage::Engine;
  /// "sm_90a", "sm_80" or "cpu" (the host; the engine is then a native object file with
  /// the C interface `_mlir_ciface_main`).
  std::string target = "sm_90a";
  /// Input shapes for dynamic inputs, trtexec's syntax: `name:1x3x224x224,name2:...`.
  std::string shapes;
  /// An optimization profile, trtexec's `--minShapes/--optShapes/--maxShapes` in the same
  /// syntax (docs/dynamic-shapes.md). Where min = opt = max the engine is built for those
  /// shapes (as with `shapes`); a range leaves the dimension dynamic, with the profile on
  /// the input (`kernel.min_shape`, `kernel.opt_shape`, `kernel.max_shape`). The GPU
  /// pipeline compiles such a module to the gpu stage; engines of ranges are refused until
  /// the engine format carries run-time shapes.
  std::string minShapes, optShapes, maxShapes;
  /// Write MLIR stages as bytecode (weights as raw bytes) rather than text.
  bool emitBytecode = false;
  /// No progress lines on stderr.
  bool quiet = false;
  /// Print kernels and estimated bytes moved before and after the graph passes and
  /// kernel formation (lib/pipeline/CompileReport.h) on stderr.
  bool report = false;
  /// Run graph-convert-layout after the graph passes: channels-last convolutions (off by
  /// default: the generic GPU convolution loops are faster channels first).
  bool channelsLast = false;
  /// f32 products and convolutions with tf32 operands (GpuCompileOptions::allowTf32).
  bool allowTf32 = false;
  /// "fp32" (as the model says), "fp16" or "bf16": graph-reduce-precision after the graph
  /// passes (FP32 islands where accuracy needs them).
  std::string precision = "fp32";
  /// With a reduced precision: the model's f32 inputs and outputs take it too.
  bool reducedIO = false;
  /// With a reduced precision: every layer's precision on stderr (else one summary line).
  bool precisionReport = false;
  /// INT8 post-training quantization of the convolutions and matrix products
  /// (quantizeGraphInt8 with `calibration`), before any reduced precision.
  bool int8 = false;
  CalibrationOptions calibration;
  /// For kernel developers: the GEMM templates' configuration for every product and
  /// convolution (by name, e.g. 128x256x64_s4_ws2) where it is legal (no tuning then);
  /// the flash-attention configuration of every attention ("64x128x2x4xwgmma"), f32 exp2
  /// in the wgmma attention, the CTAs an SM it asks ptxas for (TemplateOptions).
  std::string gemmConfig;
  std::string attentionConfig;
  /// For kernel developers: graph-fold-layer-norm-into-products on or off (unset: the
  /// target's default, on for GPUs, off for the CPU).
  std::optional<bool> foldLayerNorms;
  bool attentionF32Exp = false;
  int64_t attentionMinCtas = 0;

  /// kernel-autotune (docs/tuning.md): seconds of GPU measurement at most (0: never
  /// measure; the timing cache, then the cost model decide).
  double tuneBudget = 300;
  /// The timing cache file; empty: TimingCache::defaultPath().
  std::string timingCache;
  /// Neither read nor write a timing cache.
  bool noTimingCache = false;
  /// Makes the GPU timer for the templates' target (the driver links
  /// lib/tuning/GpuKernelTimer, which this library cannot). Null result (with `why`): no
  /// GPU; so does an unset function.
  std::function<std::unique_ptr<KernelTimer>(const TemplateOptions &templates, std::string &why)>
      makeTimer;
  /// Configures each pass manager before it runs: MLIR's pass-manager options (IR
  /// printing, timing, crash reproducers) that `kiln compile` takes; may fail with a
  /// diagnostic.
  std::function<mlir::LogicalResult(mlir::PassManager &)> configurePassManager;
};

/// The graph stage's reports as `kiln compile` and `kiln run` print them: the INT8
/// calibration made on the host, and what the stage's passes report.
struct GraphReports {
  Int8Calibration int8;
  /// The graph stage's options for `options` (precision, layout, int8 with `int8`'s
  /// thresholds) reporting to this object.
  GraphStageOptions stageOptions(const CompileOptions &options);
  /// The progress lines after the graph stage: "graph passes", the int8 summary, and the
  /// precision summary (or every layer's precision with options.precisionReport, on
  /// stderr).
  void print(const CompileOptions &options, Progress &progress) const;

private:
  std::mutex mutex;
  std::vector<graph::PrecisionReport> precision;
  int64_t quantized = 0, shortcuts = 0, uncalibrated = 0;
};

/// Parses trtexec's shape list `name:AxBxC,name2:D` (an empty list is valid); errors
/// name the list as `flag` gives it.
mlir::FailureOr<std::vector<std::pair<std::string, llvm::SmallVector<int64_t>>>>
parseShapeList(mlir::MLIRContext &context, llvm::StringRef list, llvm::StringRef flag = "--shapes");

/// One input's optimization profile: its smallest, best and largest shapes.
struct InputProfile {
  std::string name;
  llvm::SmallVector<int64_t> min, opt, max;
};

/// What to build for, from `options`.
struct ResolvedShapes {
  /// Each named input's shape: `shapes`, or the profile's with `ShapedType::kDynamic`
  /// where it ranges.
  std::vector<std::pair<std::string, llvm::SmallVector<int64_t>>> shapes;
  /// The profile of `minShapes`, `optShapes` and `maxShapes`, when given.
  std::vector<InputProfile> profile;
  /// The first dimension the profile ranges over ("input 'x' dimension 0 ranges from 1 to
  /// 64"), empty when every profile shape is a single one.
  std::string firstRange;
};

/// The shapes to build for from `options`: `shapes`, or the profile of `minShapes`,
/// `optShapes` and `maxShapes` (each naming the same inputs with the same ranks, min <= opt
/// <= max in every dimension; errors name the input and dimension).
mlir::FailureOr<ResolvedShapes> resolveInputShapes(mlir::MLIRContext &context,
                                                   const CompileOptions &options);

/// Records `profile` on the inputs of graph function `function` it names, as the
/// `kernel.min_shape`, `kernel.opt_shape` and `kernel.max_shape` argument attributes that
/// kernel formation and the memory plan read.
void annotateProfile(mlir::func::FuncOp function, llvm::ArrayRef<InputProfile> profile);

/// Gives the inputs of graph function `function` named in `shapes` those shapes (static,
/// or `ShapedType::kDynamic` for a dimension left dynamic); each must be compatible with
/// the declared type (same rank, equal static extents).
mlir::LogicalResult
specializeInputShapes(mlir::func::FuncOp function,
                      llvm::ArrayRef<std::pair<std::string, llvm::SmallVector<int64_t>>> shapes);

/// Runs the pipeline on `options.modelPath` up to `options.compileTo` and writes the result.
/// Problems are reported as diagnostics on `context`; nothing is written on failure.
mlir::LogicalResult compile(mlir::MLIRContext &context, const CompileOptions &options);

} // namespace kiln

#endif // KILN_LIB_PIPELINE_COMPILER_H
