//===- PTX.h - PTX from gpu.module ops through NVPTX ------------*- C++ -*-===//

#ifndef KILN_LIB_TARGET_PTX_H
#define KILN_LIB_TARGET_PTX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace kiln {

/// Writes the PTX of every gpu.module in `module` to `os`, each preceded by a comment
/// line naming it. Each gpu.module must already be in the LLVM and NVVM dialects and carry
/// an #nvvm.target (`nvvm-attach-target` adds one); the PTX comes from LLVM's NVPTX
/// backend for that target's chip and features. Errors are reported on the gpu.module.
mlir::LogicalResult emitPTX(mlir::ModuleOp module, llvm::raw_ostream &os);

/// Registers `--emit-ptx` with the translation registry (for kiln-translate).
void registerEmitPTXTranslation();

/// Registers `--mlir-to-llvmir` for the dialects Kiln lowers through. Upstream's version
/// registers every dialect's translation, OpenMP and OpenACC included.
void registerToLLVMIRTranslation();

} // namespace kiln

#endif // KILN_LIB_TARGET_PTX_H
