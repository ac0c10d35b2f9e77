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

namespace kiln {

struct GpuCompileOptions {
  /// "sm_90a" or "sm_80".
  std::string target = "sm_90a";
  /// The sm_90a GEMM configuration of kernels that have none (kernel-matmul-sm90's
  /// default-config; empty: the template's default).
  std::string gemmConfig;
  /// Assemble cubins with ptxas when it is installed (the engine always holds PTX too).
  bool wantCubin = true;
  /// Where to stop: after kernel formation ("kernel"), after the GPU lowering ("gpu",
  /// host schedule plus gpu.modules in NVVM), or at the engine ("engine").
  std::string stopAfter = "engine";
  /// Called with a short line after each step (progress on stderr).
  std::function<void(const std::string &)> progress;
  /// Called with the module right after kernel formation (for `kiln compile --report`).
  std::function<void(mlir::ModuleOp)> afterFormation;
};

/// Lowers `module` (graph dialect, after the graph passes, static shapes) for the GPU.
/// With `stopAfter` "engine" fills `engine` (its modelName left to the caller); otherwise
/// leaves `module` at the requested stage. Errors are diagnostics on the module's context.
mlir::LogicalResult compileGraphForGpu(mlir::ModuleOp module, const GpuCompileOptions &options,
                                       engine::Engine &engine);

/// Compiles the values of integer inputs into `function` as constants (ONNX "shape
/// tensors": the values a Reshape, Expand, Slice, Tile... reads to decide its result's
/// shape, which TensorRT also needs when it builds). The inputs stay in the signature,
/// unused, so the engine's IO is the model's. `values` maps input names to their values;
/// only integer inputs of at most 64 elements are bound. Returns how many were bound.
unsigned bindShapeTensorInputs(mlir::func::FuncOp function,
                               llvm::ArrayRef<std::pair<std::string, mlir::ElementsAttr>> values);

} // namespace kiln

#endif // KILN_LIB_PIPELINE_GPUCOMPILER_H
