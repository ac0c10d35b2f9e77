//===- KernelOps.h - Operations of the kernel dialect -----------*- C++ -*-===//

#ifndef KILN_DIALECTS_KERNEL_KERNELOPS_H
#define KILN_DIALECTS_KERNEL_KERNELOPS_H

#include "dialects/kernel/KernelDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialects/kernel/KernelOps.h.inc"

#endif // KILN_DIALECTS_KERNEL_KERNELOPS_H
