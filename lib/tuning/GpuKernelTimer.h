//===- GpuKernelTimer.h - Timing kernel candidates on the GPU ---*- C++ -*-===//
//
// The KernelTimer `kiln compile` hands kernel-autotune when a GPU is present. For one
// kernel and one configuration it
//  1. builds a module holding a copy of the kernel.func (with `kernel.config` set) and a
//     host function (`kernel.num_inputs`) that launches it once on its own buffers;
//  2. compiles it through the GPU pipeline's gpu stage without tuning (compileForGpu:
//     kernel-instantiate-templates, the generic lowering, NVVM, PTX, cubin) into an
//     engine in memory;
//  3. loads it (kiln::Engine::create) and times it: a warmup, then the median of N runs,
//     each between two CUDA events, rotating among enough execution contexts (each with
//     its own input and output buffers) that their buffers together exceed twice the L2
//     (50 MB on the H200), so that no run finds its operands in the L2 from its last run.
// A candidate that fails to compile, load or run is reported in `why` and never fatal;
// the diagnostics of a failed compile are captured, not printed.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TUNING_GPUKERNELTIMER_H
#define KILN_LIB_TUNING_GPUKERNELTIMER_H

#include "dialects/kernel/KernelDialect.h"
#include "passes/kernel/Autotune.h"
#include "passes/kernel/KernelTemplate.h"
#include "runtime/Engine.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>

namespace kiln {

class Runtime;

class GpuKernelTimer : public KernelTimer {
public:
  struct Options {
    /// Untimed runs first (at least one per rotating copy).
    int warmup = 3;
    /// Timed runs; the median is the result.
    int iterations = 25;
    /// Rotate until the copies hold at least this many bytes (2x the H200's 50 MB L2).
    uint64_t rotationBytes = 100ull << 20;
    /// At most this many copies, and at most this many bytes in all.
    int maxCopies = 256;
    uint64_t maxRotationBytes = 8ull << 30;
  };

  /// A timer on GPU 0 of kernels compiled with `templates` (its target and the options that
  /// change their code), or null with `why` ("no CUDA driver: ...", "no CUDA GPU: ...", or
  /// a GPU that cannot run the target).
  static std::unique_ptr<GpuKernelTimer> create(const TemplateOptions &templates, std::string &why,
                                                Options options);
  static std::unique_ptr<GpuKernelTimer> create(const TemplateOptions &templates,
                                                std::string &why) {
    return create(templates, why, Options());
  }
  ~GpuKernelTimer() override;

  mlir::FailureOr<double> measureMicros(kernel::FuncOp function, mlir::Attribute config,
                                        llvm::StringRef profile, std::string &why) override;
  TimingGpu gpu() const override;

  /// Step 1: the module that times `function` under `config`, a dynamic kernel at the
  /// shape of `profile` (null with `why` when the kernel cannot be launched alone, e.g.
  /// scalar arguments or strided buffers).
  static mlir::OwningOpRef<mlir::ModuleOp>
  buildTimingModule(kernel::FuncOp function, mlir::Attribute config, std::string &why,
                    llvm::StringRef profile = kiln::kernel::kOptShapeAttr);
  /// Step 2: that module compiled into an engine (no GPU needed); diagnostics are captured
  /// into `why`.
  static mlir::FailureOr<engine::Engine>
  compileTimingModule(mlir::ModuleOp module, const TemplateOptions &templates, std::string &why);

private:
  GpuKernelTimer(std::shared_ptr<Runtime> runtime, TemplateOptions templates, Options options);
  std::shared_ptr<Runtime> runtime;
  TemplateOptions templates;
  Options options;
};

} // namespace kiln

#endif // KILN_LIB_TUNING_GPUKERNELTIMER_H
