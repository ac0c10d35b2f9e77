//===- GpuInterchangeReductions.cpp - Parallel loops outside reductions ---===//
//
// convert-linalg-to-parallel-loops nests a linalg op's loops in the order of its
// iterators. A reduction over a leading axis (ReduceSum over rows, a softmax or ArgMax
// over axis 0, a reduction over a middle axis) has a reduction iterator before parallel
// ones, so it becomes `scf.for (reduced) { scf.parallel (outputs) { ... } }`: gpu-map-loops
// turns a top-level scf.for into a single-thread launch, and one thread then walks the
// whole tensor. Ordered parallel iterators first, reductions last (each group keeping its
// order), the same op becomes `scf.parallel (outputs) { scf.for (reduced) { ... } }`: a
// thread an output, neighbouring threads reading neighbouring elements, the accumulator
// promoted to a register (gpu-promote-accumulators) and several threads of a CTA an
// output where there are few outputs (gpu-block-reductions). A linalg op's value does not depend
// on its loop order (the reduction's rounding order aside), so the interchange is always
// legal; named ops are generalized first where their order would change.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {
#define GEN_PASS_DEF_GPUINTERCHANGEREDUCTIONS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The loop order with `op`'s parallel iterators first: the old loop of each new position;
/// empty when that is the order it has.
SmallVector<unsigned> parallelFirst(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> order;
  for (auto [index, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::parallel)
      order.push_back(index);
  for (auto [index, iterator] : llvm::enumerate(iterators))
    if (iterator != utils::IteratorType::parallel)
      order.push_back(index);
  bool identity = llvm::all_of(llvm::enumerate(order),
                               [](auto entry) { return entry.index() == entry.value(); });
  return identity ? SmallVector<unsigned>() : order;
}

struct GpuInterchangeReductionsPass
    : kiln::impl::GpuInterchangeReductionsBase<GpuInterchangeReductionsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<unsigned>>> reordered;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (SmallVector<unsigned> order = parallelFirst(op); !order.empty())
        reordered.emplace_back(op, std::move(order));
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, order] : reordered) {
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized = linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue; // stays in its order: correct, only slower
        generic = *generalized;
      }
      // (A permutation of the op's own loops: it does not fail.)
      (void)linalg::interchangeGenericOp(rewriter, generic, order);
    }
  }
};

} // namespace
