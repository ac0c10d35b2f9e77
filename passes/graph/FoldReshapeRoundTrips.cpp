//===- FoldReshapeRoundTrips.cpp - Reshape, transpose, reshape back as one transpose ===//
//
// Exporters transpose axes of a tensor through reshapes around the transpose: GPT-2's
// key, [B, H, S, D], becomes [B*H, S, D], is transposed to [B*H, D, S] and reshaped to
// [B, H, D, S] (PyTorch's `k.transpose(-2, -1)` through a 3-D bmm); a ViT's patch
// embedding, channels last after graph-convert-layout, is [N, 196, C] split to
// [N, 14, 14, C], transposed to NCHW and merged to [N, C, 196]. Each chain is one
// transpose of X (transpose(X, [0, 1, 3, 2]), transpose(X, [0, 2, 1])): a view that later
// passes fold with the transposes around it (graph-simplify composes transposes; the
// ViT's then cancel) and that the attention kernel reads in place, instead of reshapes
// that stay copy kernels.
//
// The pattern: r1 = reshape(X) grouping X's axes into blocks (axes split, merged or
// kept), t = transpose(r1) moving whole blocks, r2 = reshape(t) giving each block back
// X's extents. The extents are compared with the symbolic shape analysis
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

/// The product of `extents[begin, end)`.
graph::DimExpr productOf(ArrayRef<graph::DimExpr> extents, size_t begin, size_t end) {
  graph::DimExpr product = graph::DimExpr::constant(1);
  for (size_t dim = begin; dim < end; ++dim)
    product = product * extents[dim];
  return product;
}

/// A reshape of X as blocks: block b is X's axes [x[b], x[b + 1]) and the reshape's axes
/// [r[b], r[b + 1]), of equal products; each block as small as the extents allow (one
/// axis split, several merged, or one kept). Nothing when no such blocks exist (a reshape
/// that regroups axes across each other, or extents the analysis cannot compare).
struct Blocks {
  SmallVector<size_t> x, r;
};
std::optional<Blocks> blocksOf(ArrayRef<graph::DimExpr> x, ArrayRef<graph::DimExpr> r) {
  Blocks blocks;
  size_t i = 0, j = 0;
  blocks.x.push_back(0);
  blocks.r.push_back(0);
  while (i < x.size() && j < r.size()) {
    // The smallest pair of runs (fewest axes in all) whose products agree.
    std::optional<std::pair<size_t, size_t>> found;
    for (size_t total = 2; !found && total <= (x.size() - i) + (r.size() - j); ++total)
      for (size_t k = 1; k < total && !found; ++k) {
        size_t l = total - k;
        if (i + k <= x.size() && j + l <= r.size() &&
            productOf(x, i, i + k) == productOf(r, j, j + l))
          found = {k, l};
      }
    if (!found)
      return std::nullopt;
    i += found->first;
    j += found->second;
    blocks.x.push_back(i);
    blocks.r.push_back(j);
  }
  // Extents of 1 left at either end have no block; such reshapes are not taken.
  if (i != x.size() || j != r.size())
    return std::nullopt;
  return blocks;
}

/// The permutation of X that the chain ending in `reshape` computes, or nothing. The chain
/// is r1 = reshape(X), t = transpose(r1), r2 = reshape(t). r1 groups X's axes into blocks
/// (blocksOf); when t moves every block whole (its axes adjacent and in order) and r2
/// gives each block back X's extents, the chain is a transpose of X's axes, block by
/// block: GPT-2's key ([B, H] merged, the other axes swapped, split back) and a channels-
/// last patch embedding read back as tokens ([N, 196, C] -> [N, 14, 14, C] -> NCHW ->
/// [N, C, 196]: transpose(X, [0, 2, 1])).
std::optional<SmallVector<int64_t>> matchRoundTrip(graph::ReshapeOp reshape,
                                                   const graph::SymbolicShapeAnalysis &shapes) {
  auto transpose = reshape.getInput().getDefiningOp<graph::TransposeOp>();
  auto first = transpose ? transpose.getInput().getDefiningOp<graph::ReshapeOp>() : nullptr;
  if (!first)
    return std::nullopt;
  const SmallVector<graph::DimExpr, 4> *x = extentsOf(shapes, first.getInput());
  const SmallVector<graph::DimExpr, 4> *reshaped = extentsOf(shapes, first.getResult());
  const SmallVector<graph::DimExpr, 4> *result = extentsOf(shapes, reshape.getResult());
  if (!x || !reshaped || !result || result->size() != x->size() || x->empty())
    return std::nullopt;
  std::optional<Blocks> blocks = blocksOf(*x, *reshaped);
  if (!blocks)
    return std::nullopt;
  // The block of each of r1's axes.
  size_t count = blocks->x.size() - 1;
  SmallVector<size_t> blockOf(reshaped->size());
  for (size_t b = 0; b < count; ++b)
    for (size_t axis = blocks->r[b]; axis < blocks->r[b + 1]; ++axis)
      blockOf[axis] = b;
  // t's output, block by block: each block's axes adjacent and in order.
  ArrayRef<int64_t> perm = transpose.getPerm();
  if (perm.size() != reshaped->size())
    return std::nullopt;
  SmallVector<size_t> order;
  for (size_t position = 0; position < perm.size();) {
    size_t b = blockOf[perm[position]];
    for (size_t axis = blocks->r[b]; axis < blocks->r[b + 1]; ++axis, ++position)
      if (position >= perm.size() || size_t(perm[position]) != axis)
        return std::nullopt;
    order.push_back(b);
  }
  // r2: X's extents, its blocks in t's order.
  SmallVector<int64_t> permutation;
  for (size_t b : order)
    for (size_t axis = blocks->x[b]; axis < blocks->x[b + 1]; ++axis)
      permutation.push_back(int64_t(axis));
  for (size_t dim = 0; dim < permutation.size(); ++dim)
    if ((*result)[dim] != (*x)[permutation[dim]])
      return std::nullopt;
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
