//===- Passes.h - The kernel passes -----------------------------*- C++ -*-===//
//
// Tuning, the template families' selection and instantiation, and the buffer plan
// (passes/kernel/Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_PASSES_H
#define KILN_PASSES_KERNEL_PASSES_H

#include "dialects/kernel/KernelDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln {

#define GEN_PASS_DECL
#include "passes/kernel/Passes.h.inc"

// Declares registerKernelPasses().
#define GEN_PASS_REGISTRATION
#include "passes/kernel/Passes.h.inc"

} // namespace kiln

#endif // KILN_PASSES_KERNEL_PASSES_H
