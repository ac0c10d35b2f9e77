//===- GpuBinary.h - PTX and cubin of every gpu.module ----------*- C++ -*-===//
//
// The last step of GPU code generation: each gpu.module (already in the NVVM and LLVM
// dialects, with an #nvvm.target) becomes PTX through LLVM's NVPTX backend and, where
// the CUDA toolkit's ptxas is installed, a cubin for the target's chip. Without ptxas
// the engine carries PTX only and the driver compiles it when it loads.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TARGET_GPUBINARY_H
#define KILN_LIB_TARGET_GPUBINARY_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// The compiled form of one gpu.module.
struct GpuBinary {
  /// The gpu.module's symbol name (gpu.launch_func refers to `@moduleName::@kernel`).
  std::string moduleName;
  /// The target chip, e.g. "sm_90a".
  std::string chip;
  /// PTX text from LLVM's NVPTX backend.
  std::string ptx;
  /// ptxas's ELF for `chip`; empty when no cubin was asked for or ptxas is missing.
  std::vector<uint8_t> cubin;
};

/// ptxas to assemble with: $KILN_PTXAS if set (an empty value means none), else
/// `ptxas` on PATH, else /usr/local/cuda/bin/ptxas; nothing if none is executable.
std::optional<std::string> findPtxas();

/// Compiles every gpu.module in `module` (in order) to PTX and, when `wantCubin` and
/// ptxas is found, to a cubin (`ptxas -arch=<chip>`). ptxas's messages (warnings) are
/// appended to `ptxasLog`. Errors (no #nvvm.target, no PTX, ptxas rejecting the PTX,
/// with its output) are reported on the gpu.module; a missing ptxas is not an error.
mlir::FailureOr<std::vector<GpuBinary>> compileGpuModules(mlir::ModuleOp module, bool wantCubin,
                                                          std::string &ptxasLog);

} // namespace kiln

#endif // KILN_LIB_TARGET_GPUBINARY_H
