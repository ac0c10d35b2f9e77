//===- Sm80Template.h - Instantiating the sm_80 kernel templates -*- C++ -*-===//
//
// The sm_80 templates (mma.sync, ldmatrix, cp.async; passes/kernel/templates/
// FlashAttention.mlir, Sm80Gemm.mlir) are written with small loops over register arrays
// marked `unroll`, which the passes unroll once parsed (unrollMarkedLoops, Sm90Template.h),
// so that every vector index becomes a constant. sm80_gemm and sm80_conv share the
// GEMM template, which they feed different A operands (docs/codegen-sm80.md).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_SM80TEMPLATE_H
#define KILN_PASSES_KERNEL_SM80TEMPLATE_H

#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/Sm90Epilogue.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include <string>

namespace kiln {

/// nvgpu.mma.sync does not lower bf16 operands: rewrites those under `root` into the same
/// m16n8k16 product as nvvm.mma.sync on the operands' 32-bit registers.
void lowerBf16MmaSync(mlir::Operation *root);

/// How the GEMM template gets its A operand (see the template's header).
struct Sm80AOperand {
  std::string extent;  // {A_EXTENT}: defines %aExtent
  std::string address; // {A_ADDRESS}: from %arow, %acol defines %aOk and %aIndex
};

/// The A operand of a row-major M x K matrix: products, and pointwise convolutions.
const Sm80AOperand &rowMajorSm80A();

/// The GEMM template for `config`, operand type `operand`, result type `result` and A
/// operand `a`, as kernel `entry` of a new gpu.module `kiln_sm80_<entry>` of `module`
/// (reused when it exists). With a non-empty `epilogue` the kernel applies it before its
/// stores, its inputs being parameters after %K, and its key is appended to `entry`.
/// `pass` names the caller in errors.
mlir::FailureOr<mlir::gpu::GPUFuncOp>
instantiateSm80Gemm(mlir::ModuleOp module, mlir::SymbolTable &symbols, llvm::StringRef pass,
                    llvm::StringRef entry, mlir::Type operand, mlir::Type result,
                    const Sm80GemmConfig &config, const Sm80AOperand &a,
                    const Sm90Epilogue *epilogue);

/// At `b`: launches `gemm` (instantiated for `config`) over the M x N result `output`, A
/// and B being the buffers `a` and `bMatrix` (bare pointers), with the buffers of the
/// epilogue's inputs after M, N, K.
void launchSm80Gemm(mlir::OpBuilder &b, mlir::Location loc, mlir::gpu::GPUFuncOp gemm,
                    const Sm80GemmConfig &config, mlir::Value a, mlir::Value bMatrix,
                    mlir::Value output, int64_t m, int64_t n, int64_t k,
                    mlir::ValueRange epilogueBuffers);

} // namespace kiln

#endif // KILN_PASSES_KERNEL_SM80TEMPLATE_H
