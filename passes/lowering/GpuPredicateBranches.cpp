//===- GpuPredicateBranches.cpp - Host branches as predicated launches -----===//
//
// A top-level scf.if of the GPU path's host function whose branches hold real work
// (an ONNX If whose branch runs NonMaxSuppression over the detections, a choice between
// computations on a value) would otherwise run, as any other top-level compute op, in
// one single-thread launch: every loop of the branch sequential in that thread. The
// engine's schedule is straight-line, so the branch becomes straight-line too, each
// piece predicated on the condition, which the host reads back from the device where a
// kernel computes it:
//
// - an scf.parallel runs zero iterations where its branch is not taken (its first upper
//   bound becomes select(taken, upper, lower)): the launch has an empty grid, which the
//   engine skips;
// - a gpu.launch_func (a template's kernel) gets grid x = select(taken, x, 0);
// - a memref.copy copies select(taken, extent, 0) rows of its first dimension;
// - allocations, views and scalar arithmetic move out as they are (the memory plan
//   keeps both branches' buffers);
// - any other op (a sequential loop, a store) runs inside an scf.if on the predicate,
//   in the single-thread launch gpu-map-loops makes of it;
// - an scf.if nested in a branch is predicated the same way, on both conditions;
// - each result becomes the taken branch's: a select for a scalar, for a buffer a new
//   one of the taken branch's extents that the taken branch's buffer is copied into.
//
// The branch not taken may compute sizes from values it never produced; its buffers are
// planned at their bounds all the same, and where a size is a select on a condition
// read from the device, the memory plan takes the larger side (ShapeProgram.cpp).
//
//===----------------------------------------------------------------------===//

#include "dialects/kernel/KernelOps.h"
#include "passes/lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace kiln {
#define GEN_PASS_DEF_GPUPREDICATEBRANCHES
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Whether `op` has work that gpu-map-loops would launch in parallel: a parallel loop, a
/// template's launch, a copy, or a buffer (which a branch computes into).
bool hasParallelWork(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isa<scf::ParallelOp, gpu::LaunchFuncOp, memref::AllocOp, memref::CopyOp>(nested)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

bool isScalar(Type type) { return isa<IntegerType, IndexType, FloatType>(type); }

/// How an op of a branch is predicated.
enum class Handling {
  Move,     // no effect that matters: allocations, views, scalar arithmetic
  Parallel, // an scf.parallel: zero iterations
  Launch,   // a gpu.launch_func: an empty grid
  Copy,     // a memref.copy of rank >= 1: zero rows
  Branch,   // a nested scf.if: predicated in turn
  Guard,    // anything else with scalar results only: inside an scf.if
};

std::optional<Handling> classify(Operation &op);

/// A store at constant indices into a shape buffer: a static buffer that only such stores
/// and memref.reshape's shape operands use (a dynamic reshape's, which gpu-map-loops reads
/// on the host), allocated in the branch or moved out of it by gpu-hoist-allocations, so
/// that only the branch writes it. Run as it is, it writes in bounds memory that only the
/// branch's own reshapes read.
bool isShapeBufferStore(Operation &op) {
  auto store = dyn_cast<memref::StoreOp>(op);
  if (!store)
    return false;
  Value buffer = store.getMemRef();
  if (!isa_and_present<memref::AllocOp, memref::AllocaOp>(buffer.getDefiningOp()) ||
      !store.getMemRefType().hasStaticShape())
    return false;
  for (auto [index, extent] : llvm::zip(store.getIndices(), store.getMemRefType().getShape())) {
    std::optional<int64_t> at = getConstantIntValue(index);
    if (!at || *at < 0 || *at >= extent)
      return false;
  }
  return llvm::all_of(buffer.getUses(), [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (auto other = dyn_cast<memref::StoreOp>(user))
      return use.get() == other.getMemRef() && llvm::all_of(other.getIndices(), [](Value index) {
               return getConstantIntValue(index).has_value();
             });
    if (auto reshape = dyn_cast<memref::ReshapeOp>(user))
      return use.get() == reshape.getShape() && use.get() != reshape.getSource();
    return isa<memref::DeallocOp>(user);
  });
}

/// Whether every op of `ifOp`'s branches can be predicated, and every result is a scalar
/// or a buffer.
bool canPredicate(scf::IfOp ifOp) {
  if (!ifOp.getCondition().getDefiningOp())
    return false;
  if (!llvm::all_of(ifOp.getResultTypes(),
                    [](Type type) { return isScalar(type) || isa<MemRefType>(type); }))
    return false;
  for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
    for (Block &block : *region)
      for (Operation &op : block.without_terminator())
        if (!classify(op))
          return false;
  return true;
}

std::optional<Handling> classify(Operation &op) {
  // A memref.reshape reads its shape operand, but only as a view reads its buffer; a
  // read-back of the branch's count reads what its buffer holds either way (it sizes
  // only what the predicate empties).
  if (isa<memref::AllocOp, memref::AllocaOp, ViewLikeOpInterface, kiln::kernel::ReadBackOp,
          nvgpu::TmaCreateDescriptorOp>(op) ||
      (op.getNumRegions() == 0 && isMemoryEffectFree(&op)))
    return Handling::Move;
  if (isShapeBufferStore(op))
    return Handling::Move;
  if (isa<scf::ParallelOp>(op))
    return Handling::Parallel;
  if (isa<gpu::LaunchFuncOp>(op))
    return Handling::Launch;
  if (auto copy = dyn_cast<memref::CopyOp>(op);
      copy && cast<MemRefType>(copy.getSource().getType()).getRank() > 0)
    return Handling::Copy;
  if (auto nested = dyn_cast<scf::IfOp>(op);
      nested && (hasParallelWork(nested) || !llvm::all_of(nested.getResultTypes(), isScalar)))
    return canPredicate(nested) ? std::optional(Handling::Branch) : std::nullopt;
  if (llvm::all_of(op.getResultTypes(), isScalar))
    return Handling::Guard;
  return std::nullopt;
}

struct Predicator {
  IRRewriter &rewriter;
  Block &top;

  /// Whether the host computes `value` without the device: constants, read-backs,
  /// buffer extents and scalar arithmetic on those.
  bool isHostValue(Value value, unsigned depth = 0) {
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != &top || depth > 64)
      return false;
    if (isa<arith::ConstantOp, kiln::kernel::ReadBackOp, memref::DimOp>(def))
      return true;
    return def->getNumRegions() == 0 && isMemoryEffectFree(def) &&
           llvm::all_of(def->getResultTypes(), isScalar) &&
           llvm::all_of(def->getOperands(),
                        [&](Value operand) { return isHostValue(operand, depth + 1); });
  }

  /// Where a kernel computes `condition`: a 0-d buffer it stores the condition into, as
  /// an i64, for the host to read back.
  Value spill(Value condition, Location loc) {
    OpBuilder::InsertionGuard guard(rewriter);
    Operation *def = top.findAncestorOpInBlock(*condition.getDefiningOp());
    Type i64 = rewriter.getI64Type();
    rewriter.setInsertionPoint(def);
    Value buffer = memref::AllocOp::create(rewriter, loc, MemRefType::get({}, i64));
    rewriter.setInsertionPointAfter(def);
    Value widened = arith::ExtUIOp::create(rewriter, loc, i64, condition);
    memref::StoreOp::create(rewriter, loc, widened, buffer);
    return buffer;
  }

  /// The host's copy of the condition `spill` stored into `buffer`.
  Value readBack(Value buffer, Location loc) {
    Type i64 = rewriter.getI64Type();
    Value read = kiln::kernel::ReadBackOp::create(rewriter, loc, i64, buffer);
    Value zero = arith::ConstantIntOp::create(rewriter, loc, i64, 0);
    return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne, read, zero);
  }

  /// Replaces `ifOp` (in `top`) by its branches' ops, predicated; `guard` is the
  /// predicate it is itself under (null at the top).
  void predicate(scf::IfOp ifOp, Value guard) {
    Location loc = ifOp.getLoc();
    rewriter.setInsertionPoint(ifOp);
    Value condition = ifOp.getCondition();
    if (!isHostValue(condition))
      condition = readBack(spill(condition, loc), loc);
    Value taken = condition;
    Value notTaken = arith::XOrIOp::create(rewriter, loc, condition,
                                           arith::ConstantIntOp::create(rewriter, loc, 1, 1));
    if (guard) {
      taken = arith::AndIOp::create(rewriter, loc, guard, taken);
      notTaken = arith::AndIOp::create(rewriter, loc, guard, notTaken);
    }
    SmallVector<Value> thenValues = moveBranch(ifOp.getThenRegion(), taken, ifOp);
    SmallVector<Value> elseValues = moveBranch(ifOp.getElseRegion(), notTaken, ifOp);

    rewriter.setInsertionPoint(ifOp);
    SmallVector<Value> results;
    for (auto [index, result] : llvm::enumerate(ifOp.getResults())) {
      Value fromThen = thenValues[index], fromElse = elseValues[index];
      if (isScalar(result.getType())) {
        results.push_back(arith::SelectOp::create(rewriter, loc, condition, fromThen, fromElse));
        continue;
      }
      // A buffer of the taken branch's extents, which that branch's buffer is copied into.
      auto type = cast<MemRefType>(result.getType());
      SmallVector<Value> sizes;
      for (int64_t dim = 0; dim < type.getRank(); ++dim)
        if (type.isDynamicDim(dim)) {
          Value thenExtent = memref::DimOp::create(rewriter, loc, fromThen, dim);
          Value elseExtent = memref::DimOp::create(rewriter, loc, fromElse, dim);
          sizes.push_back(
              arith::SelectOp::create(rewriter, loc, condition, thenExtent, elseExtent));
        }
      auto bufferType = MemRefType::get(type.getShape(), type.getElementType());
      Value buffer = memref::AllocOp::create(rewriter, loc, bufferType, sizes);
      predicatedCopy(fromThen, buffer, taken, loc);
      predicatedCopy(fromElse, buffer, notTaken, loc);
      results.push_back(
          bufferType == type ? buffer : Value(memref::CastOp::create(rewriter, loc, type, buffer)));
    }
    rewriter.replaceOp(ifOp, results);
  }

  /// Moves `region`'s ops before `ifOp`, each predicated on `taken`; the values it yields.
  SmallVector<Value> moveBranch(Region &region, Value taken, scf::IfOp ifOp) {
    if (region.empty())
      return {};
    Block &block = region.front();
    // Classified before anything moves: a store's buffer is still seen in its branch.
    SmallVector<std::pair<Operation *, Handling>> ops;
    for (Operation &op : block.without_terminator())
      ops.push_back({&op, *classify(op)});
    for (auto [opPointer, handling] : ops) {
      Operation &op = *opPointer;
      op.moveBefore(ifOp);
      rewriter.setInsertionPoint(&op);
      Location loc = op.getLoc();
      switch (handling) {
      case Handling::Move:
        break;
      case Handling::Parallel: {
        auto loop = cast<scf::ParallelOp>(op);
        Value lower = loop.getLowerBound()[0], upper = loop.getUpperBound()[0];
        loop.getUpperBoundMutable().slice(0, 1).assign(
            arith::SelectOp::create(rewriter, loc, taken, upper, lower));
        break;
      }
      case Handling::Launch: {
        auto launch = cast<gpu::LaunchFuncOp>(op);
        Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
        launch.getGridSizeXMutable().assign(
            arith::SelectOp::create(rewriter, loc, taken, launch.getGridSizeX(), zero));
        break;
      }
      case Handling::Copy: {
        auto copy = cast<memref::CopyOp>(op);
        predicatedCopy(copy.getSource(), copy.getTarget(), taken, loc);
        rewriter.eraseOp(copy);
        break;
      }
      case Handling::Branch:
        predicate(cast<scf::IfOp>(op), taken);
        break;
      case Handling::Guard: {
        auto guarded = scf::IfOp::create(rewriter, loc, op.getResultTypes(), taken,
                                         /*withElseRegion=*/op.getNumResults() > 0);
        if (op.getNumResults() > 0) {
          rewriter.setInsertionPointToStart(guarded.elseBlock());
          SmallVector<Value> zeros;
          for (Type type : op.getResultTypes())
            zeros.push_back(arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(type)));
          scf::YieldOp::create(rewriter, loc, zeros);
        }
        rewriter.replaceAllUsesWith(op.getResults(), guarded.getResults());
        Block *thenBlock = guarded.thenBlock();
        if (op.getNumResults() > 0) {
          op.moveBefore(thenBlock, thenBlock->begin());
          rewriter.setInsertionPointAfter(&op);
          scf::YieldOp::create(rewriter, loc, op.getResults());
        } else {
          op.moveBefore(thenBlock->getTerminator());
        }
        break;
      }
      }
    }
    // Read after the moves: a guarded or predicated op's uses now take its replacement.
    return llvm::to_vector(block.getTerminator()->getOperands());
  }

  /// Copies `source` into `target` (same extents where `taken`), zero rows where not.
  void predicatedCopy(Value source, Value target, Value taken, Location loc) {
    auto type = cast<MemRefType>(source.getType());
    if (type.getRank() == 0) {
      auto guarded = scf::IfOp::create(rewriter, loc, TypeRange(), taken, false);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(guarded.thenBlock()->getTerminator());
      Value value = memref::LoadOp::create(rewriter, loc, source);
      memref::StoreOp::create(rewriter, loc, value, target);
      return;
    }
    if (type.getNumElements() == 0 && type.hasStaticShape())
      return;
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0)),
        strides(type.getRank(), rewriter.getIndexAttr(1)), sizes;
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      sizes.push_back(memref::getMixedSize(rewriter, loc, source, dim));
    Value rows = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[0]);
    sizes[0] = arith::SelectOp::create(rewriter, loc, taken, rows, zero).getResult();
    Value from = memref::SubViewOp::create(rewriter, loc, source, offsets, sizes, strides);
    Value to = memref::SubViewOp::create(rewriter, loc, target, offsets, sizes, strides);
    memref::CopyOp::create(rewriter, loc, from, to);
  }
};

struct GpuPredicateBranchesPass : kiln::impl::GpuPredicateBranchesBase<GpuPredicateBranchesPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    Block &top = function.getBody().front();
    IRRewriter rewriter(&getContext());
    Predicator predicator{rewriter, top};
    for (Operation &op : llvm::make_early_inc_range(top.without_terminator()))
      if (auto ifOp = dyn_cast<scf::IfOp>(op); ifOp && hasParallelWork(ifOp) && canPredicate(ifOp))
        predicator.predicate(ifOp, Value());
  }
};

} // namespace
