//===- Passes.h - The lowering passes ---------------------------*- C++ -*-===//
//
// From the graph dialect to kernels and linalg, the generic lowering of kernels, and the
// CPU and GPU lowerings' own passes (passes/lowering/Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_LOWERING_PASSES_H
#define KILN_PASSES_LOWERING_PASSES_H

#include "dialects/graph/GraphDialect.h"
#include "dialects/kernel/KernelDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln {

#define GEN_PASS_DECL
#include "passes/lowering/Passes.h.inc"

// Declares registerLoweringPasses().
#define GEN_PASS_REGISTRATION
#include "passes/lowering/Passes.h.inc"

} // namespace kiln

#endif // KILN_PASSES_LOWERING_PASSES_H
