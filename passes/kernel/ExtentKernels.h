//===- ExtentKernels.h - What data-dependent templates match in a body -----===//
//
// The templates of data-dependent ops (non_max_suppression, non_zero) take two kernels
// graph-to-kernel forms for one op: the op's own, and its extent kernel, which yields
// the length of the op's result for the engine to read back (docs/dynamic-shapes.md).
// Both read the op's operands straight from kernel arguments. These helpers recognise
// those forms in a template op's body.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_EXTENTKERNELS_H
#define KILN_PASSES_KERNEL_EXTENTKERNELS_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Value.h"
#include "mlir/IR/ValueRange.h"

#include <cstdint>
#include <optional>

namespace kiln {

/// Whether `yielded` (what a template op's body yields) is extent `axis` of `value` in
/// the extent kernel's form: tensor.dim, cast to i64, one element (tensor.from_elements).
bool yieldsExtent(mlir::Value yielded, mlir::Value value, int64_t axis);

/// The kernel.func argument (its number) that the body argument `value` of a template op
/// stands for: `value` is an argument of `body`, the op's operand `inputs[i]` for it is
/// an argument of the function's `entry` block. nullopt otherwise.
std::optional<unsigned> entryArgumentOf(mlir::Value value, mlir::Block &body,
                                        mlir::ValueRange inputs, mlir::Block &entry);

} // namespace kiln

#endif // KILN_PASSES_KERNEL_EXTENTKERNELS_H
