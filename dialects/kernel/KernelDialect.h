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

#endif // KILN_DIALECTS_KERNEL_KERNELDIALECT_H
