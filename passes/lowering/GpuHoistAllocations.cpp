//===- GpuHoistAllocations.cpp - Buffers of nested compute move to the host ===//
//
// After bufferization, an allocation nested in compute (a branch of an scf.if, the body
// of a Loop's scf.while or a Scan's scf.for) would run inside the kernel gpu-map-loops
// makes of that compute: a call to the device heap's malloc that nothing frees, once per
// iteration and run. Each such allocation moves out, one region at a time, to the top
// level of the host function, where the memory plan places it:
// - out of a branch (scf.if, scf.index_switch, scf.execute_region), which runs at most
//   once each time its parent does, so one buffer serves;
// - out of a sequential loop (scf.for, scf.while), where every iteration allocated a
//   fresh buffer. One buffer for all iterations is right when no iteration's buffer is
//   still in use when the next iteration allocates: the buffer does not reach the values
//   the loop carries into its next iteration, or where it does, everything in the next
//   iteration that uses those values runs before the allocation. (One-shot bufferization
//   copies an scf.while's carried buffers at the start of each iteration; a Scan's body
//   reads its state before it allocates the next one.)
// An allocation whose sizes are computed inside its region, or that is inside an
// scf.parallel (whose iterations become threads), or whose buffer outlives the next
// iteration's allocation, stays where it is; gpu-map-loops refuses it.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_GPUHOISTALLOCATIONS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The terminator of `loop` that hands values to its next iteration: the scf.yield of an
/// scf.for's body or of an scf.while's after region.
Operation *nextIterationTerminator(Operation *loop) {
  if (auto forOp = dyn_cast<scf::ForOp>(loop))
    return forOp.getBody()->getTerminator();
  return cast<scf::WhileOp>(loop).getAfterBody()->getTerminator();
}

/// The block argument of `loop` that receives operand `index` of its next-iteration
/// terminator: the iteration argument of an scf.for's body, the before region's argument
/// of an scf.while.
Value carriedArgument(Operation *loop, unsigned index) {
  if (auto forOp = dyn_cast<scf::ForOp>(loop))
    return forOp.getRegionIterArgs()[index];
  return cast<scf::WhileOp>(loop).getBeforeArguments()[index];
}

/// The values that may share a buffer with `root` within one iteration of `loop`: the
/// memref results of its users (views, casts, selects), the memref block arguments and
/// results of the region ops it enters, and the memref results (and, for a loop, the
/// block arguments) of the region ops whose terminators yield it; across the scf.condition
/// of an scf.while `loop` into its after region. The next-iteration terminator of `loop`
/// is not followed: the operand positions where an alias reaches it are added to
/// `carried`.
llvm::SetVector<Value> aliasesWithin(Value root, Operation *loop,
                                     SmallVectorImpl<unsigned> &carried) {
  Operation *next = nextIterationTerminator(loop);
  llvm::SetVector<Value> aliases;
  aliases.insert(root);
  auto addMemRefs = [&](auto values) {
    for (Value value : values)
      if (isa<BaseMemRefType>(value.getType()))
        aliases.insert(value);
  };
  for (size_t index = 0; index < aliases.size(); ++index) {
    Value value = aliases[index];
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == next) {
        carried.push_back(use.getOperandNumber());
        continue;
      }
      if (auto condition = dyn_cast<scf::ConditionOp>(user);
          condition && condition->getParentOp() == loop) {
        // Forwarded to the after region (and the loop's results: after the loop).
        if (use.getOperandNumber() > 0)
          aliases.insert(cast<scf::WhileOp>(loop).getAfterArguments()[use.getOperandNumber() - 1]);
        continue;
      }
      if (user->hasTrait<OpTrait::IsTerminator>()) {
        Operation *parent = user->getParentOp();
        addMemRefs(parent->getResults());
        for (Region &region : parent->getRegions())
          for (Block &block : region)
            addMemRefs(block.getArguments());
        continue;
      }
      addMemRefs(user->getResults());
      for (Region &region : user->getRegions())
        for (Block &block : region)
          addMemRefs(block.getArguments());
    }
  }
  return aliases;
}

/// Where `op`, nested in `loop`, runs within an iteration: the region of `loop` it is in
/// (an scf.while's before region runs first) and its ancestor in that region's block.
std::pair<unsigned, Operation *> positionInIteration(Operation *op, Operation *loop) {
  for (Region &region : loop->getRegions())
    if (Operation *ancestor = region.front().findAncestorOpInBlock(*op))
      return {region.getRegionNumber(), ancestor};
  return {0, nullptr};
}

/// Whether one buffer can serve every iteration's `alloc`, nested in `loop`: see the file
/// comment.
bool isReusableAcrossIterations(memref::AllocOp alloc, Operation *loop) {
  SmallVector<unsigned> carried;
  aliasesWithin(alloc.getResult(), loop, carried);
  auto [allocRegion, allocAncestor] = positionInIteration(alloc, loop);
  for (unsigned index : carried) {
    SmallVector<unsigned> carriedAgain;
    llvm::SetVector<Value> received =
        aliasesWithin(carriedArgument(loop, index), loop, carriedAgain);
    // Carried on once more: alive when the next allocation runs.
    if (!carriedAgain.empty())
      return false;
    for (Value value : received)
      for (Operation *user : value.getUsers()) {
        auto [region, ancestor] = positionInIteration(user, loop);
        bool before = region < allocRegion || (region == allocRegion && ancestor != allocAncestor &&
                                               ancestor->isBeforeInBlock(allocAncestor));
        if (!ancestor || !before)
          return false;
      }
  }
  return true;
}

/// Moves `alloc` out of its parent op where that is right; false where it stays.
bool hoistOneLevel(memref::AllocOp alloc) {
  Operation *parent = alloc->getParentOp();
  if (isa<func::FuncOp>(parent))
    return false;
  for (Operation *ancestor = parent; ancestor; ancestor = ancestor->getParentOp())
    if (isa<scf::ParallelOp, scf::ForallOp>(ancestor))
      return false;
  for (Value size : alloc->getOperands())
    if (parent->isAncestor(size.getParentRegion()->getParentOp()))
      return false;
  bool movable = false;
  if (isa<scf::IfOp, scf::IndexSwitchOp, scf::ExecuteRegionOp>(parent))
    movable = true;
  else if (isa<scf::ForOp, scf::WhileOp>(parent))
    movable = isReusableAcrossIterations(alloc, parent);
  if (movable)
    alloc->moveBefore(parent);
  return movable;
}

struct GpuHoistAllocationsPass : kiln::impl::GpuHoistAllocationsBase<GpuHoistAllocationsPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocOp> nested;
    getOperation().walk([&](memref::AllocOp alloc) {
      if (!isa<func::FuncOp>(alloc->getParentOp()))
        nested.push_back(alloc);
    });
    // Out of one region per round: leaving an inner loop may put an allocation in an
    // outer loop's body, which the next round judges.
    for (bool moved = true; moved;) {
      moved = false;
      for (memref::AllocOp alloc : nested)
        moved |= hoistOneLevel(alloc);
    }
  }
};

} // namespace
