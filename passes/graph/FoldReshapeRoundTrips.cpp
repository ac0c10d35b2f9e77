//===- FoldReshapeRoundTrips.cpp - Reshape, transpose, reshape back as one transpose ===//
//
// Exporters transpose inner axes of a tensor by merging its leading axes first: GPT-2's
// key, [B, H, S, D], becomes [B*H, S, D], is transposed to [B*H, D, S] and reshaped to
// [B, H, D, S] (PyTorch's `k.transpose(-2, -1)` through a 3-D bmm). The chain is
// transpose(X, [0, 1, 3, 2]): one view of X that later passes fold with the transposes
// around it (graph-simplify composes transposes) and that the attention kernel reads in
// place, instead of a reshape pair that stays a copy kernel whenever an extent is
// dynamic or the merged axes are not 1.
//
// The pattern: r1 = reshape(X) merging X's first k axes into one and keeping the others;
// t = transpose(r1) leaving axis 0 in place; r2 = reshape(t) splitting axis 0 back into
// X's first k axes. The extents are compared with the symbolic shape analysis
// (SymbolicShapes.h), so a dynamic batch or sequence matches as well as a static one.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/Passes.h"
#include "passes/graph/SymbolicShapes.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHFOLDRESHAPEROUNDTRIPS
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// The symbolic extents of `value`, when the analysis has them.
const SmallVector<graph::DimExpr, 4> *extentsOf(const graph::SymbolicShapeAnalysis &shapes,
                                                Value value) {
  const graph::SymbolicShape *shape = shapes.lookup(value);
  return shape && shape->ranked ? &shape->dims : nullptr;
}

/// The permutation of X that the chain ending in `reshape` computes, or nothing.
std::optional<SmallVector<int64_t>> matchRoundTrip(graph::ReshapeOp reshape,
                                                   const graph::SymbolicShapeAnalysis &shapes) {
  auto transpose = reshape.getInput().getDefiningOp<graph::TransposeOp>();
  auto merge = transpose ? transpose.getInput().getDefiningOp<graph::ReshapeOp>() : nullptr;
  if (!merge || transpose.getPerm().empty() || transpose.getPerm()[0] != 0)
    return std::nullopt;
  Value input = merge.getInput();
  const SmallVector<graph::DimExpr, 4> *x = extentsOf(shapes, input);
  const SmallVector<graph::DimExpr, 4> *merged = extentsOf(shapes, merge.getResult());
  const SmallVector<graph::DimExpr, 4> *transposed = extentsOf(shapes, transpose.getResult());
  const SmallVector<graph::DimExpr, 4> *result = extentsOf(shapes, reshape.getResult());
  if (!x || !merged || !transposed || !result || merged->size() < 2 || merged->size() > x->size() ||
      result->size() != x->size())
    return std::nullopt;
  // r1 = [X0 * .. * X(k-1), Xk, ..]: the trailing extents kept (the leading one is then
  // the product, the element count being the same).
  size_t rank = x->size(), k = rank - merged->size() + 1;
  for (size_t dim = 1; dim < merged->size(); ++dim)
    if ((*merged)[dim] != (*x)[k - 1 + dim])
      return std::nullopt;
  // r2 = [X0, .., X(k-1), t1, ..]: axis 0 split back.
  for (size_t dim = 0; dim < rank; ++dim)
    if ((*result)[dim] != (dim < k ? (*x)[dim] : (*transposed)[dim - k + 1]))
      return std::nullopt;
  SmallVector<int64_t> permutation;
  for (size_t dim = 0; dim < k; ++dim)
    permutation.push_back(int64_t(dim));
  for (int64_t axis : transpose.getPerm().drop_front())
    permutation.push_back(int64_t(k) - 1 + axis);
  return permutation;
}

struct GraphFoldReshapeRoundTripsPass
    : kiln::impl::GraphFoldReshapeRoundTripsBase<GraphFoldReshapeRoundTripsPass> {
  using GraphFoldReshapeRoundTripsBase::GraphFoldReshapeRoundTripsBase;

  void runOnOperation() override {
    // Computed once, on the function as it comes: a rewrite reads only values that were
    // there (X) and replaces the last reshape of its chain.
    graph::SymbolicShapeAnalysis shapes(getOperation());
    SmallVector<std::pair<graph::ReshapeOp, SmallVector<int64_t>>> rewrites;
    getOperation().walk([&](graph::ReshapeOp reshape) {
      if (std::optional<SmallVector<int64_t>> permutation = matchRoundTrip(reshape, shapes))
        rewrites.push_back({reshape, *permutation});
    });
    OpBuilder builder(&getContext());
    for (auto &[reshape, permutation] : rewrites) {
      auto transpose = reshape.getInput().getDefiningOp<graph::TransposeOp>();
      auto merge = transpose.getInput().getDefiningOp<graph::ReshapeOp>();
      builder.setInsertionPoint(reshape);
      Value folded =
          graph::TransposeOp::create(
              builder, builder.getFusedLoc({merge.getLoc(), transpose.getLoc(), reshape.getLoc()}),
              reshape.getType(), merge.getInput(), builder.getDenseI64ArrayAttr(permutation))
              .getResult();
      reshape.getResult().replaceAllUsesWith(folded);
      // The chain, where nothing else reads it.
      for (Operation *op : {reshape.getOperation(), transpose.getOperation(), merge.getOperation()})
        if (op->use_empty())
          op->erase();
    }
  }
};

} // namespace
