//===- KernelOps.h - Operations of the kernel dialect -----------*- C++ -*-===//

#ifndef KILN_DIALECTS_KERNEL_KERNELOPS_H
#define KILN_DIALECTS_KERNEL_KERNELOPS_H

#include "dialects/kernel/KernelDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln::kernel::detail {
/// Templates read their input buffers and write their output buffers; their bodies are
/// pure (tensors).
void getTemplateEffects(
    mlir::Operation *op, mlir::ValueRange inputs, mlir::ValueRange outputs,
    llvm::SmallVectorImpl<mlir::SideEffects::EffectInstance<mlir::MemoryEffects::Effect>> &effects);
} // namespace kiln::kernel::detail

#define GET_OP_CLASSES
#include "dialects/kernel/KernelOps.h.inc"

#endif // KILN_DIALECTS_KERNEL_KERNELOPS_H
