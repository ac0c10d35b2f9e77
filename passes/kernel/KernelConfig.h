//===- KernelConfig.h - Tunable configurations of kernel templates -*- C++ -*-===//
//
// The contract between the template passes (kernel-matmul-sm90, ...) and kernel-autotune.
// A template that can compute a kernel in several ways lists them as configurations; the
// tuner (or the cost model) picks one and records it on the kernel.func as the
// `kernel.config` dictionary; the template pass then instantiates that configuration.
// `{template = "generic"}` asks for the generic lowering (no template).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_KERNELCONFIG_H
#define KILN_PASSES_KERNEL_KERNELCONFIG_H

#include "dialects/kernel/KernelOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace kiln {

/// The attribute of a kernel.func holding its chosen configuration.
constexpr llvm::StringLiteral kKernelConfigAttr = "kernel.config";
/// The `template` entry of a configuration that keeps the generic lowering.
constexpr llvm::StringLiteral kGenericTemplate = "generic";

/// The sm_90a GEMM (kernel-matmul-sm90): C[M, N] = A[M, K] x B[K, N], f16/bf16 operands.
struct Sm90GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  mlir::Type operand; // f16 or bf16
  mlir::Type result;  // the operands' type
};

/// One way the sm_90a GEMM template computes a product. As a dictionary:
/// {template = "sm90_gemm", tile_m, tile_n, tile_k, stages, consumers}.
struct Sm90GemmConfig {
  static constexpr llvm::StringLiteral kTemplate = "sm90_gemm";
  int64_t tileM = 128, tileN = 128, tileK = 64;
  /// Depth of the TMA/mbarrier ring.
  int64_t stages = 3;
  /// Consumer warpgroups (wgmma); 0 is the template without warp specialisation (one
  /// warpgroup both loads and computes), else a producer warpgroup feeds this many.
  int64_t consumers = 0;

  mlir::DictionaryAttr toAttr(mlir::MLIRContext *context) const;
  static std::optional<Sm90GemmConfig> fromAttr(mlir::DictionaryAttr attr);
  /// "sm90 wgmma+TMA 128x256x64, 4 stages, 2 consumer warpgroups": for reports and engines.
  std::string describe() const;
  /// "128x256x64_s4_ws2": the kernel's name suffix and the `default-config` option's value.
  std::string name() const;
  /// Threads per block and dynamic shared memory bytes of a launch.
  int64_t threads() const;
  int64_t sharedBytes() const;
};

/// The GEMM `function` computes, when it is a kernel.matmul holding only one 2-D
/// graph.matmul of f16/bf16 row-major buffers that some configuration can compute.
std::optional<Sm90GemmProblem> matchSm90Gemm(kernel::FuncOp function);

/// The legal configurations for `problem`, the default (what runs untuned) first.
llvm::SmallVector<Sm90GemmConfig> sm90GemmConfigs(const Sm90GemmProblem &problem);

} // namespace kiln

#endif // KILN_PASSES_KERNEL_KERNELCONFIG_H
