//===- CpuOrderLoops.cpp - Unit-stride innermost loops for the host -------===//

#include "passes/lowering/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {
#define GEN_PASS_DEF_CPUORDERLOOPS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Whether dimension `dim` appears in `map` only within its last result, so stepping it
/// walks the operand's innermost (unit-stride, row-major) extent.
bool onlyInInnermost(AffineMap map, unsigned dim) {
  for (unsigned result = 0; result < map.getNumResults(); ++result) {
    bool uses = map.getResult(result).isFunctionOfDim(dim);
    if (uses && result + 1 != map.getNumResults())
      return false;
  }
  return true;
}

/// The loop order that makes the output's innermost dimension the innermost loop, or an
/// empty vector when there is nothing to gain.
SmallVector<unsigned> innermostOutputOrder(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
    return {};
  AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outputMap.getNumResults() == 0)
    return {};
  auto innermost = dyn_cast<AffineDimExpr>(outputMap.getResults().back());
  if (!innermost)
    return {};
  unsigned dim = innermost.getPosition();
  unsigned numLoops = op.getNumLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators[dim] != utils::IteratorType::parallel || dim + 1 == numLoops)
    return {};
  for (AffineMap map : op.getIndexingMapsArray())
    if (!onlyInInnermost(map, dim))
      return {};
  SmallVector<unsigned> order;
  for (unsigned loop = 0; loop < numLoops; ++loop)
    if (loop != dim)
      order.push_back(loop);
  order.push_back(dim);
  return order;
}

struct CpuOrderLoopsPass : kiln::impl::CpuOrderLoopsBase<CpuOrderLoopsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.getNumReductionLoops() > 0)
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        // Named ops (matmul, conv) become generics, as linalg-to-loops would see them.
        FailureOr<linalg::GenericOp> generalized = linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      SmallVector<unsigned> order = innermostOutputOrder(generic);
      if (!order.empty())
        (void)linalg::interchangeGenericOp(rewriter, generic, order);
    }
  }
};

} // namespace
