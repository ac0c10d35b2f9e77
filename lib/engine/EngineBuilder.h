//===- EngineBuilder.h - An engine from a lowered GPU module ----*- C++ -*-===//
//
// The last step of `kiln compile`: reads the host function of a module that went through
// the GPU pipeline (allocations with arena offsets, weights as memref.global, views, and
// gpu.launch_func ops with constant sizes) and fills an engine: IO signature, schedule,
// memory plan and weights. The kernels' PTX and cubins come from lib/target.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_ENGINE_ENGINEBUILDER_H
#define KILN_LIB_ENGINE_ENGINEBUILDER_H

#include "runtime/Engine.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"

namespace kiln {

/// The IO signature of a host function as graph-to-kernel left it: arguments named by
/// `graph.name`, the first `kernel.num_inputs` of them inputs, the rest outputs, each with
/// its ONNX element type in `kernel.element_type`. Read it before kernel-to-linalg, which
/// makes integer element types signless.
mlir::LogicalResult readEngineSignature(mlir::func::FuncOp host, engine::Engine &engine);

/// A compiled gpu.module: what lib/target made of it.
struct CompiledGpuModule {
  std::string name;
  std::string ptx;
  std::vector<uint8_t> cubin;
};

/// What kernel-autotune chose for a kernel.func: the configuration (for people), where the
/// choice came from ("measured", "cache", "cost-model") and its time in microseconds.
struct KernelTuning {
  std::string config;
  std::string source;
  double micros = -1;
  /// What the kernel.func computes and moves (engine::KernelFunction).
  double flops = 0, bytes = 0;
};

/// Fills `engine`'s modules, kernels, steps, memory plan and weights from `module` (after
/// the GPU pipeline and kernel-plan-buffers) and `compiled`. Errors are emitted on the
/// offending op. `tuning` (by kernel.func name, which the launches' locations carry) fills
/// the kernels' tuning fields.
mlir::LogicalResult buildEngine(mlir::ModuleOp module, llvm::ArrayRef<CompiledGpuModule> compiled,
                                engine::Engine &engine,
                                const llvm::StringMap<KernelTuning> *tuning = nullptr);

} // namespace kiln

#endif // KILN_LIB_ENGINE_ENGINEBUILDER_H
