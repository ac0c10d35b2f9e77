//===- HostExtents.h - A host buffer's extent, traced to its sources -*- C++ -*-===//
//
// The memory plan (kernel-plan-buffers) bounds the extents of dynamic buffers, and the
// engine builder turns them into its shape program. Both trace an extent of a host buffer
// back through the views kernel lowering leaves on the host (reshapes, casts, the
// reinterpret_casts that state extents) to what sized it: an allocation's size operand,
// an argument's extent, or a constant.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_ANALYSIS_HOSTEXTENTS_H
#define KILN_PASSES_ANALYSIS_HOSTEXTENTS_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln {

/// One factor of an extent: a constant, an index value computed on the host, or extent
/// `dim` of block argument `argument`.
struct ExtentFactor {
  mlir::OpFoldResult value;
  mlir::BlockArgument argument;
  int64_t dim = 0;
};

/// Extent `dim` of `buffer` as a product of factors (a collapse_shape's extent is the
/// product of its source's), or failure for a buffer some other op makes.
inline mlir::FailureOr<llvm::SmallVector<ExtentFactor>> traceExtent(mlir::Value buffer,
                                                                    int64_t dim) {
  using namespace mlir;
  auto type = cast<MemRefType>(buffer.getType());
  llvm::SmallVector<ExtentFactor> factors;
  if (!type.isDynamicDim(dim)) {
    factors.push_back({Builder(buffer.getContext()).getIndexAttr(type.getDimSize(dim)), {}, 0});
    return factors;
  }
  if (auto argument = dyn_cast<BlockArgument>(buffer)) {
    factors.push_back({OpFoldResult(), argument, dim});
    return factors;
  }
  Operation *op = buffer.getDefiningOp();
  if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
    factors.push_back(
        {getMixedValues(type.getShape(), alloc.getDynamicSizes(), op->getContext())[dim], {}, 0});
    return factors;
  }
  if (auto view = dyn_cast<memref::ReinterpretCastOp>(op)) {
    factors.push_back({view.getMixedSizes()[dim], {}, 0});
    return factors;
  }
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(op)) {
    factors.push_back({expand.getMixedOutputShape()[dim], {}, 0});
    return factors;
  }
  if (auto cast = dyn_cast<memref::CastOp>(op))
    return traceExtent(cast.getSource(), dim);
  if (auto subview = dyn_cast<memref::SubViewOp>(op)) {
    // The result's dimensions are the sizes that were not dropped (rank reduction).
    llvm::SmallBitVector dropped = subview.getDroppedDims();
    SmallVector<OpFoldResult> sizes = subview.getMixedSizes();
    int64_t seen = 0;
    for (int64_t sourceDim = 0; sourceDim < static_cast<int64_t>(sizes.size()); ++sourceDim) {
      if (dropped.test(sourceDim))
        continue;
      if (seen++ == dim) {
        factors.push_back({sizes[sourceDim], {}, 0});
        return factors;
      }
    }
    return failure();
  }
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(op)) {
    for (int64_t sourceDim : collapse.getReassociationIndices()[dim]) {
      FailureOr<llvm::SmallVector<ExtentFactor>> inner = traceExtent(collapse.getSrc(), sourceDim);
      if (failed(inner))
        return failure();
      factors.append(inner->begin(), inner->end());
    }
    return factors;
  }
  return failure();
}

} // namespace kiln

#endif // KILN_PASSES_ANALYSIS_HOSTEXTENTS_H
