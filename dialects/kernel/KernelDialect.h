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
} // namespace kiln::kernel

#endif // KILN_DIALECTS_KERNEL_KERNELDIALECT_H
