//===- RowBias.h - A product's bias along its last axis ---------*- C++ -*-===//
//
// Rewrites of products with constant weights (sibling fusion, folding a LayerNorm into
// them) take the Add of a bias that is the same for every row of the product's result:
// that bias joins the rewritten product's own.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_GRAPH_ROWBIAS_H
#define KILN_PASSES_GRAPH_ROWBIAS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

namespace kiln::graph {

/// Whether `bias` broadcasts against a [..., n] result along its last axis only: a scalar,
/// [n], [1, n], [1, 1, n], ... of the result's element type and at most its rank.
inline bool isRowBias(mlir::Value bias, mlir::RankedTensorType result) {
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(bias.getType());
  if (!type || !type.hasStaticShape() || type.getElementType() != result.getElementType() ||
      type.getRank() > result.getRank())
    return false;
  int64_t n = result.getShape().back();
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    int64_t extent = type.getDimSize(dim);
    if (extent != 1 && !(dim == type.getRank() - 1 && extent == n))
      return false;
  }
  return true;
}

} // namespace kiln::graph

#endif // KILN_PASSES_GRAPH_ROWBIAS_H
