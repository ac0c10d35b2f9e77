//===- StridedView.h - What a chain of view ops reads of a kernel buffer -*- C++ -*-===//
//
// A template that reads its operands through loads with strides (flash attention's Q, K
// and V) can take a reshape, transpose, slice or gather of a buffer as it is, without a
// copy, when the chain is a strided view of the buffer: element (i0, ..., in) at
// offset + i0 * stride0 + ... + in * striden. matchStridedView finds that view, with
// extents and strides that may depend on run-time extents (a dynamic engine's batch).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_STRIDEDVIEW_H
#define KILN_PASSES_KERNEL_STRIDEDVIEW_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kiln {

/// A run-time extent a kernel's host code can read: extent `dim` of buffer argument
/// `argument`, or (dim -1) the index argument `argument` itself (one of the kernel's
/// symbols).
struct KernelExtent {
  int argument = -1;
  int dim = -1;
  bool operator==(const KernelExtent &other) const {
    return argument == other.argument && dim == other.dim;
  }
  bool operator<(const KernelExtent &other) const {
    return argument != other.argument ? argument < other.argument : dim < other.dim;
  }
};

/// A constant times a product of run-time extents: an extent or a stride of a view.
struct ExtentProduct {
  int64_t factor = 1;
  llvm::SmallVector<KernelExtent, 2> extents; // sorted

  static ExtentProduct constant(int64_t value) { return {value, {}}; }
  static ExtentProduct of(KernelExtent extent) { return {1, {extent}}; }
  bool isStatic() const { return extents.empty(); }
  /// The value when static.
  int64_t value() const { return factor; }
  ExtentProduct operator*(const ExtentProduct &other) const;
  /// This divided by `divisor`, when `divisor` divides the factor.
  std::optional<ExtentProduct> divide(int64_t divisor) const;
  bool operator==(const ExtentProduct &other) const {
    return factor == other.factor && extents == other.extents;
  }
  bool operator!=(const ExtentProduct &other) const { return !(*this == other); }
  /// "2304*a3.d0*a5": for diagnostics and tests.
  std::string describe() const;
};

/// A strided view of kernel argument `argument`: element (i0, ..., in) at the sum of
/// `offset`'s terms plus sum(ik * strides[k]), in elements.
struct StridedView {
  int argument = -1;
  llvm::SmallVector<ExtentProduct> offset;
  llvm::SmallVector<ExtentProduct> extents, strides;
};

/// How matchStridedView finds buffers: the kernel argument a value of the kernel body
/// is (-1 when it is none), and that argument's buffer type (identity layout).
struct StridedViewSources {
  llvm::function_ref<int(mlir::Value)> argumentOf;
  llvm::function_ref<mlir::MemRefType(int)> bufferType;
  /// The kernel index symbol a value of a reshape's shape is, -1 when none (a dynamic
  /// reshape's extents the analysis cannot derive are read from them).
  llvm::function_ref<int(mlir::Value)> symbolOf;
};

/// The strided view `value` is of a buffer: the buffer itself (row major, `value` a tensor
/// of the kernel body or the memref argument), or the result
/// of graph reshapes, squeezes, unsqueezes, transposes, slices with constant bounds and
/// gathers of constant indices applied to one. nullopt when some dimension of the result
/// is no single stride of the buffer (a transpose merged by a reshape) or the chain has
/// another op.
std::optional<StridedView> matchStridedView(mlir::Value value, const StridedViewSources &sources);

/// The strided view of buffer `argument` that `result` is written as when the kernel
/// stores `stored` there (row major), `stored` being `result` or the result of reshapes,
/// squeezes, unsqueezes, flattens and transposes of it: a template that writes `result`
/// through strides stores the rearranged layout directly.
std::optional<StridedView> matchStoredView(mlir::Value result, mlir::Value stored, int argument,
                                           const StridedViewSources &sources);

} // namespace kiln

#endif // KILN_PASSES_KERNEL_STRIDEDVIEW_H
