//===- Autotune.h - kernel-autotune and its GPU timer interface -*- C++ -*-===//
//
// kernel-autotune (passes/kernel/Autotune.cpp, passes/kernel/Passes.td) chooses each kernel's
// configuration. Measuring needs a GPU and the whole GPU pipeline, which the pass library
// must not depend on: the driver hands the pass a KernelTimer (lib/tuning/GpuKernelTimer.h
// is the real one), and kiln-opt runs the pass without one (cache, then cost model).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_AUTOTUNE_H
#define KILN_PASSES_KERNEL_AUTOTUNE_H

#include "dialects/kernel/KernelOps.h"
#include "passes/kernel/Passes.h"
#include "passes/kernel/TimingCache.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Pass/Pass.h"

#include <functional>
#include <memory>
#include <string>

namespace kiln {

/// Times one kernel under one configuration on a GPU.
class KernelTimer {
public:
  virtual ~KernelTimer() = default;
  /// The kernel's time in microseconds under `config` (the median of several runs), or
  /// failure with `why` set (one line: the configuration does not compile, does not
  /// load, or faults). A dynamic engine's kernel runs at the shape of `profile`
  /// (kiln::kernel::kOptShapeAttr, kiln::kernel::kMinShapeAttr: its launch's extents there).
  /// `function` is not modified.
  virtual mlir::FailureOr<double> measureMicros(kernel::FuncOp function, mlir::Attribute config,
                                                llvm::StringRef profile, std::string &why) = 0;
  /// The GPU and driver the times are measured on (the timing cache's key).
  virtual TimingGpu gpu() const = 0;
};

/// Receives kernel-autotune's progress lines ("tuning [3/12] ...").
using AutotuneProgress = std::function<void(const std::string &)>;

/// Gives kernel-autotune its GPU timer, asked only when some kernel has configurations to
/// choose from and the budget allows measuring; null, with `why` set ("no CUDA driver:
/// ..."), when there is no GPU to measure on.
using KernelTimerProvider = std::function<KernelTimer *(std::string &why)>;

/// kernel-autotune measuring with the timer `timer` gives (may be empty: cache, then cost
/// model) and reporting progress to `progress` (may be empty).
std::unique_ptr<mlir::Pass> createKernelAutotune(const KernelAutotuneOptions &options,
                                                 KernelTimerProvider timer,
                                                 AutotuneProgress progress = {});
/// kernel-autotune measuring with `timer` (may be null).
std::unique_ptr<mlir::Pass> createKernelAutotune(const KernelAutotuneOptions &options,
                                                 KernelTimer *timer,
                                                 AutotuneProgress progress = {});

/// This build's code generator fingerprint: the SHA-256 (hex) of the sources that turn
/// kernel.funcs into machine code (the kernel passes and their templates, the generic
/// lowering, the PTX target), computed by the build (cmake/CodegenFingerprint.cmake).
llvm::StringRef codegenFingerprint();

/// The timing cache's kernel key: the SHA-256 (hex) of `function` printed without its
/// symbol name, its locations, its `kernel.config`/`kernel.tuning`/`kernel.row_variants`
/// attributes and the values of its scalar float constants (an int8 layer's quantization
/// scales), so that kernels identical up to those share it and tune once; of its
/// arguments at the shape of `profile` when they have dynamic extents (the shape it is
/// timed at); and of `codegen`, the code generator's fingerprint, so that times measured
/// on another build's kernels are not reused (kernel-autotune appends the options that
/// change the generated code: TemplateOptions::codegenKey).
std::string kernelSignature(kernel::FuncOp function, llvm::StringRef codegen = codegenFingerprint(),
                            llvm::StringRef profile = kiln::kernel::kOptShapeAttr);

/// The key of a configuration: the attribute as MLIR prints it.
std::string configKey(mlir::Attribute config);

} // namespace kiln

#endif // KILN_PASSES_KERNEL_AUTOTUNE_H
