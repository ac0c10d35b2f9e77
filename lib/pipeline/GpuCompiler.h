//===- GpuCompiler.h - Graph module to GPU engine ---------------*- C++ -*-===//
//
// The GPU half of the pipeline, shared by `kiln compile` and `kiln run --device cuda`:
// kernel formation, the generic lowering of every kernel, mapping onto GPU launches,
// NVVM and PTX (and cubins where ptxas is installed), the memory plan, and the engine.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_PIPELINE_GPUCOMPILER_H
#define KILN_LIB_PIPELINE_GPUCOMPILER_H

#include "runtime/Engine.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <vector>

namespace kiln {

class KernelTimer;

/// What kernel-autotune decided for one kernel (`kiln compile --report`, the engine).
struct TuningDecision {
  std::string kernel;  // the kernel.func
  std::string problem; // describeKernelProblem
  std::string config;  // describeKernelConfig
  std::string source;  // measured, cache, cost-model
  double micros = -1;
};

struct GpuCompileOptions {
  /// "sm_90a" or "sm_80".
  std::string target = "sm_90a";
  /// The sm_90a GEMM configuration of kernels that have none (kernel-matmul-sm90's
  /// default-config; empty: the template's default).
  std::string gemmConfig;
  /// f32 products and convolutions on tensor cores with tf32 operands (10-bit mantissa,
  /// f32 accumulation: ~1e-3 relative error; `kiln compile --tf32`). Off: fp32 stays exact
  /// (the generic loops). One flag for every pass that has a tf32 form (kernel-autotune,
  /// kernel-matmul-sm90, kernel-conv-sm90, ...: their `allow-tf32`).
  bool allowTf32 = false;
  /// Assemble cubins with ptxas when it is installed (the engine always holds PTX too).
  bool wantCubin = true;
  /// Where to stop: after kernel formation ("kernel"), after the GPU lowering ("gpu",
  /// host schedule plus gpu.modules in NVVM), or at the engine ("engine").
  std::string stopAfter = "engine";
  /// Called with a short line after each step (progress on stderr).
  std::function<void(const std::string &)> progress;
  /// Called with the module right after kernel formation (for `kiln compile --report`).
  std::function<void(mlir::ModuleOp)> afterFormation;

  /// Run kernel-autotune between kernel formation and the template passes (only when
  /// lowering further than "kernel").
  bool autotune = true;
  /// Gives the GPU timer, asked only when some kernel has configurations to choose from
  /// and the budget allows measuring; null (with `why`) or unset: no GPU, so the timing
  /// cache then the cost model decide (said once in a progress line).
  std::function<KernelTimer *(std::string &why)> timer;
  /// The timing cache file; empty: none.
  std::string timingCache;
  /// Seconds of measurement at most (0: never measure).
  double tuneBudget = 300;
  /// Receives the decisions, when set.
  std::vector<TuningDecision> *decisions = nullptr;
};

/// Lowers `module` (graph dialect, after the graph passes, static shapes) for the GPU.
/// With `stopAfter` "engine" fills `engine` (its modelName left to the caller); otherwise
/// leaves `module` at the requested stage. Errors are diagnostics on the module's context.
mlir::LogicalResult compileGraphForGpu(mlir::ModuleOp module, const GpuCompileOptions &options,
                                       engine::Engine &engine);

/// The half of compileGraphForGpu after kernel formation (and tuning): `module` holds
/// kernel.funcs (with their `kernel.config`, if chosen) and the host function that
/// launches them (`kernel.num_inputs`); the template passes, the generic lowering, NVVM,
/// the buffer plan, PTX and cubins, and the engine. `options.stopAfter` "gpu" stops after
/// the GPU lowering. Also what lib/tuning/GpuKernelTimer compiles each candidate with.
mlir::LogicalResult compileKernelsForGpu(mlir::ModuleOp module, const GpuCompileOptions &options,
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
