//===- RowMajorView.h - A dense row-major memref over a base -------*- C++ -*-===//
//
// Kernel formation (the host's dynamic output buffers) and gpu-pass-buffer-extents (a
// kernel's dynamic buffers) both state a buffer's run-time extents with a
// `memref.reinterpret_cast` of offset 0 and row-major strides.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_LOWERING_ROWMAJORVIEW_H
#define KILN_PASSES_LOWERING_ROWMAJORVIEW_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln {

/// A view of `base`'s memory as `type` (identity layout) with extents `sizes` (one a
/// dimension: constants where `type` has them).
inline mlir::Value createRowMajorView(mlir::OpBuilder &builder, mlir::Location loc,
                                      mlir::MemRefType type, mlir::Value base,
                                      llvm::ArrayRef<mlir::OpFoldResult> sizes) {
  llvm::SmallVector<mlir::OpFoldResult> strides(sizes.size());
  mlir::OpFoldResult stride = builder.getIndexAttr(1);
  for (int64_t dim = static_cast<int64_t>(sizes.size()) - 1; dim >= 0; --dim) {
    strides[dim] = stride;
    std::optional<int64_t> inner = mlir::getConstantIntValue(stride);
    std::optional<int64_t> extent = mlir::getConstantIntValue(sizes[dim]);
    if (inner && extent) {
      stride = builder.getIndexAttr(*inner * *extent);
      continue;
    }
    stride = mlir::arith::MulIOp::create(
                 builder, loc, mlir::getValueOrCreateConstantIndexOp(builder, loc, stride),
                 mlir::getValueOrCreateConstantIndexOp(builder, loc, sizes[dim]))
                 .getResult();
  }
  return mlir::memref::ReinterpretCastOp::create(builder, loc, type, base, builder.getIndexAttr(0),
                                                 sizes, strides);
}

} // namespace kiln

#endif // KILN_PASSES_LOWERING_ROWMAJORVIEW_H
