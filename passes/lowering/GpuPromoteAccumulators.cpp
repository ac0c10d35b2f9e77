//===- GpuPromoteAccumulators.cpp - Reductions accumulate in registers ----===//
//
// convert-linalg-to-parallel-loops lowers a reduction (a pooling window, a sum over an
// axis) to sequential scf.for loops that load the output element, combine, and store it
// back on every iteration. In a kernel LLVM cannot keep that element in a register: it
// does not know that the output is not one of the buffers the loop reads, so each load
// of the input waits for the previous store, and the loop runs at one memory latency an
// iteration (ResNet-50's 3x3 max pool: 9 dependent round trips a thread, ~10x its
// bandwidth time). Here the load moves before the loop, the value is carried as an
// iter_arg, and one store follows the loop; nests of such loops, innermost first,
// accumulate in one register. A store of the initial value just before the loop is
// taken as that value instead (and dropped: the store after the loop overwrites it).
//
// The rewrite needs the loop to write nothing but that element, at indices fixed for the
// loop, and everything it reads to lie in other buffers: other allocations, function
// arguments or globals than the accumulator's, seen through views. The buffers of a
// schedule are such allocations (kernel-plan-buffers places them later, never two live
// at once at one address).
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"
#include "passes/lowering/RootBuffer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln {
#define GEN_PASS_DEF_GPUPROMOTEACCUMULATORS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Whether root buffers `a` and `b` (getRootBuffer) are known not to overlap.
bool distinctBuffers(Value a, Value b) {
  if (a == b)
    return false;
  auto known = [](Value buffer) {
    return isa<BlockArgument>(buffer) || buffer.getDefiningOp<memref::AllocOp>() ||
           buffer.getDefiningOp<memref::AllocaOp>() || buffer.getDefiningOp<memref::GetGlobalOp>();
  };
  if (!known(a) || !known(b))
    return false;
  auto globalA = a.getDefiningOp<memref::GetGlobalOp>();
  auto globalB = b.getDefiningOp<memref::GetGlobalOp>();
  return !globalA || !globalB || globalA.getName() != globalB.getName();
}

/// The load and store of the element `loop` accumulates into, when it can be promoted.
std::optional<std::pair<memref::LoadOp, memref::StoreOp>> findAccumulator(scf::ForOp loop) {
  Block *body = loop.getBody();
  memref::StoreOp store;
  for (Operation &op : body->without_terminator()) {
    if (auto candidate = dyn_cast<memref::StoreOp>(&op)) {
      if (store)
        return std::nullopt;
      store = candidate;
    }
  }
  if (!store || !llvm::all_of(store.getIndices(),
                              [&](Value index) { return loop.isDefinedOutsideOfLoop(index); }))
    return std::nullopt;
  memref::LoadOp load;
  for (Operation &op : body->without_terminator()) {
    if (&op == store.getOperation())
      break;
    auto candidate = dyn_cast<memref::LoadOp>(&op);
    if (candidate && candidate.getMemref() == store.getMemref() &&
        candidate.getIndices() == store.getIndices())
      load = candidate;
  }
  if (!load)
    return std::nullopt;
  // Nothing else in the loop writes memory, and what it reads lies in other buffers.
  Value accumulator = kiln::getRootBuffer(store.getMemref());
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (op == load.getOperation() || op == store.getOperation())
      return WalkResult::advance();
    if (auto read = dyn_cast<memref::LoadOp>(op))
      return distinctBuffers(kiln::getRootBuffer(read.getMemref()), accumulator)
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() || isMemoryEffectFree(op))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return std::nullopt;
  return std::make_pair(load, store);
}

/// Carries `loop`'s accumulator in an iter_arg.
void promote(IRRewriter &rewriter, scf::ForOp loop, memref::LoadOp load, memref::StoreOp store) {
  Value memref = store.getMemref();
  SmallVector<Value> indices(store.getIndices());
  rewriter.setInsertionPoint(loop);
  // The element's value on entry: a store just before the loop gives it.
  Value initial;
  auto before = dyn_cast_or_null<memref::StoreOp>(loop->getPrevNode());
  if (before && before.getMemref() == memref && before.getIndices() == store.getIndices()) {
    initial = before.getValueToStore();
    rewriter.eraseOp(before);
  } else {
    initial = memref::LoadOp::create(rewriter, load.getLoc(), memref, indices);
  }
  Value stored = store.getValueToStore();
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) { return SmallVector<Value>{stored}; });
  auto promoted = cast<scf::ForOp>(replaced->getOperation());
  rewriter.replaceOp(load, promoted.getRegionIterArgs().back());
  // The store's location outlives it: the value goes back after the loop.
  Location storeLoc = store.getLoc();
  rewriter.eraseOp(store);
  rewriter.setInsertionPointAfter(promoted);
  memref::StoreOp::create(rewriter, storeLoc, promoted.getResults().back(), memref, indices);
}

struct GpuPromoteAccumulators : kiln::impl::GpuPromoteAccumulatorsBase<GpuPromoteAccumulators> {
  void runOnOperation() override {
    // Innermost loops first: promoting one leaves its load and store in the loop around
    // it, which may then be promoted too.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk<WalkOrder::PostOrder>([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops)
      if (auto accumulator = findAccumulator(loop))
        promote(rewriter, loop, accumulator->first, accumulator->second);
  }
};

} // namespace
