//===- KernelDialect.h - The kernel dialect ---------------------*- C++ -*-===//

#ifndef KILN_DIALECTS_KERNEL_KERNELDIALECT_H
#define KILN_DIALECTS_KERNEL_KERNELDIALECT_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"

#include "dialects/kernel/KernelAttrInterfaces.h.inc"

#include "dialects/kernel/KernelDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/kernel/KernelAttrs.h.inc"

namespace kiln::kernel {
/// The dialect's discardable attributes on a kernel.func (KernelDialect.td): their names
/// and typed accessors, for a context.
inline KernelDialect::ConfigAttrHelper configAttrHelper(mlir::MLIRContext *context) {
  return KernelDialect::ConfigAttrHelper(context);
}
inline KernelDialect::RowVariantsAttrHelper rowVariantsAttrHelper(mlir::MLIRContext *context) {
  return KernelDialect::RowVariantsAttrHelper(context);
}
inline KernelDialect::TuningAttrHelper tuningAttrHelper(mlir::MLIRContext *context) {
  return KernelDialect::TuningAttrHelper(context);
}

/// The names of the dialect's other discardable attributes, for the code that reads them
/// as argument attributes or by name.
inline constexpr llvm::StringLiteral kMinShapeAttr =
    KernelDialect::MinShapeAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kOptShapeAttr =
    KernelDialect::OptShapeAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kMaxShapeAttr =
    KernelDialect::MaxShapeAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kNumInputsAttr =
    KernelDialect::NumInputsAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kArenaOffsetAttr =
    KernelDialect::ArenaOffsetAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kArenaBytesAttr =
    KernelDialect::ArenaBytesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kUnplannedBytesAttr =
    KernelDialect::UnplannedBytesAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kProgrammaticLaunchAttr =
    KernelDialect::ProgrammaticLaunchAttrHelper::getNameStr();
} // namespace kiln::kernel

#endif // KILN_DIALECTS_KERNEL_KERNELDIALECT_H
