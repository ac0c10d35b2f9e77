//===- KernelDialect.h - The kernel dialect ---------------------*- C++ -*-===//

#ifndef KILN_DIALECTS_KERNEL_KERNELDIALECT_H
#define KILN_DIALECTS_KERNEL_KERNELDIALECT_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"

#include "dialects/kernel/KernelDialect.h.inc"

namespace kiln::kernel {
/// Parses and prints `[e0, e1, ...]`, the tile of a #kernel.config.
mlir::FailureOr<llvm::SmallVector<int64_t>> parseTile(mlir::AsmParser &parser);
void printTile(mlir::AsmPrinter &printer, llvm::ArrayRef<int64_t> tile);
} // namespace kiln::kernel

#define GET_ATTRDEF_CLASSES
#include "dialects/kernel/KernelAttrs.h.inc"

#endif // KILN_DIALECTS_KERNEL_KERNELDIALECT_H
