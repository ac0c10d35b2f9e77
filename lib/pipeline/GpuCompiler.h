//===- GpuCompiler.h - Graph module to GPU engine ---------------*- C++ -*-===//
//
// The GPU half of compilation, shared by `kiln compile`, `kiln run --device cuda` and the
// tuner's timing modules: the GPU pipeline (passes/Pipelines.h) in one pass manager, with
// the driver's progress lines and reports at its points, then what needs the host: PTX
// and cubins (ptxas), and the engine.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_PIPELINE_GPUCOMPILER_H
#define KILN_LIB_PIPELINE_GPUCOMPILER_H

#include "passes/Pipelines.h"
#include "runtime/Engine.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <vector>

namespace mlir {
class PassManager;
} // namespace mlir

namespace kiln {

/// What kernel-autotune decided for one kernel (`kiln compile --report`, the engine).
struct TuningDecision {
  std::string kernel;  // the kernel.func
  std::string problem; // describeKernelProblem
  std::string config;  // describeKernelConfig
  std::string source;  // measured, cache, cost-model
  double micros = -1;
};

struct GpuCompileOptions {
  /// The pipeline: its stages, target, templates, tuning. Its `observe` is the driver's
  /// (see below); compileForGpu adds its own.
  GpuPipelineOptions pipeline;
  /// Build the engine after the gpu stage (PTX, cubins, packaging); off, `module` is left
  /// at the gpu stage (`kiln compile --compile-to=gpu`).
  bool buildEngine = true;
  /// Assemble cubins with ptxas when it is installed (the engine always holds PTX too).
  bool wantCubin = true;
  /// Called with a short line after each step (progress on stderr).
  std::function<void(const std::string &)> progress;
  /// Called with the module at each pipeline point (reports), after compileForGpu's own
  /// use of it.
  std::function<void(mlir::ModuleOp, PipelinePoint)> observe;
  /// Receives the tuning decisions, when set.
  std::vector<TuningDecision> *decisions = nullptr;
  /// Configures the pass manager before it runs (MLIR's pass-manager options: IR printing,
  /// timing, crash reproducers); may fail with a diagnostic.
  std::function<mlir::LogicalResult(mlir::PassManager &)> configure;
};

/// Runs the GPU pipeline on `module` (stages pipeline.from to pipeline.to; progress at
/// each point) and, when it ran to the gpu stage and `buildEngine` asks, builds `engine`
/// (its modelName and compilerVersion left to the caller); otherwise `module` is left at
/// the stage asked for. Errors are diagnostics on the module's context.
mlir::LogicalResult compileForGpu(mlir::ModuleOp module, const GpuCompileOptions &options,
                                  engine::Engine &engine);

/// The tuning decisions recorded on `module`'s kernel.funcs (kernel.config, kernel.tuning).
std::vector<TuningDecision> collectTuningDecisions(mlir::ModuleOp module);

/// Compiles the values of integer inputs into `function` as constants (ONNX "shape
/// tensors": the values a Reshape, Expand, Slice, Tile... reads to decide its result's
/// shape, which TensorRT also needs when it builds). The inputs stay in the signature,
/// unused, so the engine's IO is the model's. `values` maps input names to their values;
/// only integer inputs of at most 64 elements are bound. Returns how many were bound.
unsigned bindShapeTensorInputs(mlir::func::FuncOp function,
                               llvm::ArrayRef<std::pair<std::string, mlir::ElementsAttr>> values);

} // namespace kiln

#endif // KILN_LIB_PIPELINE_GPUCOMPILER_H
