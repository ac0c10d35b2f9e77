//===- GpuFuseLoopNests.cpp - One loop nest per kernel on the generic path ----===//
//
// Each top-level scf.parallel becomes one GPU launch (gpu-map-loops), so a kernel whose
// body lowered to several nests (a convolution's padding, its bias initialisation, the
// accumulation and the fused epilogue) would cost several launches and a round trip
// through device memory between them. This pass runs on the bufferized kernel functions
// before they are inlined into the schedule and merges their nests:
//
//  1. Allocations move to the top of the function, so that nothing with side effects
//     separates the nests.
//  2. Cheap producers are inlined: a nest that writes every element of a local buffer
//     exactly once, from straight-line code of loads, index arithmetic, comparisons,
//     selects and a few float operations (padding, broadcasts, transposes), is
//     recomputed at each load of that buffer; the nest and the buffer disappear.
//  3. Adjacent nests with the same iteration space are fused when every element the
//     first writes is touched by the second only in the same iteration (and every element
//     the first reads is written by the second only in the same iteration): initialise,
//     accumulate, apply the epilogue, per output element.
//  4. In each fused body, a load of an element stored earlier in the same block is
//     replaced by the stored value, and local buffers that are then only written are
//     removed.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"
#include "passes/lowering/RootBuffer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln {
#define GEN_PASS_DEF_GPUFUSELOOPNESTS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using kiln::getRootBuffer;

namespace {

/// Whether two index values are the same in `first`'s numbering after `mapping`
/// (induction variables of one nest mapped to the other's): the same SSA value or equal
/// constants.
bool sameIndex(Value first, Value second, const IRMapping &mapping) {
  Value mapped = mapping.lookupOrDefault(first);
  if (mapped == second)
    return true;
  std::optional<int64_t> a = getConstantIntValue(mapped), b = getConstantIntValue(second);
  return a && b && *a == *b;
}

bool sameIndices(ValueRange first, ValueRange second, const IRMapping &mapping) {
  if (first.size() != second.size())
    return false;
  for (auto [a, b] : llvm::zip(first, second))
    if (!sameIndex(a, b, mapping))
      return false;
  return true;
}

/// The loads and stores of a nest; false when it holds anything else that touches memory
/// (calls, copies, allocations, nested parallel loops), which this pass does not reason
/// about.
struct Accesses {
  SmallVector<memref::LoadOp> loads;
  SmallVector<memref::StoreOp> stores;
};

bool collectAccesses(scf::ParallelOp nest, Accesses &accesses) {
  WalkResult result = nest.getBody()->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      accesses.loads.push_back(load);
      return WalkResult::advance();
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      accesses.stores.push_back(store);
      return WalkResult::advance();
    }
    if (isa<scf::ParallelOp>(op))
      return WalkResult::interrupt();
    if (op->getNumRegions() != 0 || isMemoryEffectFree(op))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

/// Constant trip counts of a nest with zero lower bounds and unit steps.
std::optional<SmallVector<int64_t>> getTripCounts(scf::ParallelOp nest) {
  SmallVector<int64_t> trips;
  for (auto [lower, upper, step] :
       llvm::zip(nest.getLowerBound(), nest.getUpperBound(), nest.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lower), u = getConstantIntValue(upper),
                           s = getConstantIntValue(step);
    if (!l || !u || !s || *l != 0 || *s != 1)
      return std::nullopt;
    trips.push_back(*u);
  }
  return trips;
}

//===----------------------------------------------------------------------===//
// 2. Inlining cheap producers
//===----------------------------------------------------------------------===//

/// Float operations a producer may hold and still be recomputed at every use.
constexpr int kMaxInlinedFloatOps = 4;
constexpr int kMaxInlinedOps = 48;

/// Whether `op` is cheap enough to recompute at every read of what it produces.
bool isCheapOp(Operation *op, int &floatOps) {
  if (isa<memref::LoadOp, arith::ConstantOp, arith::SelectOp, arith::CmpIOp, arith::CmpFOp,
          arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp, arith::SIToFPOp, arith::UIToFPOp, arith::BitcastOp>(op))
    return true;
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::NegFOp, arith::MaximumFOp,
          arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp>(op))
    return ++floatOps <= kMaxInlinedFloatOps;
  // Integer and index arithmetic (the index computations of views and padding).
  return op->getDialect() && op->getDialect()->getNamespace() == "arith" &&
         op->getNumResults() == 1 && op->getResult(0).getType().isIntOrIndex() &&
         !isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(op) &&
         isMemoryEffectFree(op);
}

/// For each dimension of `type`, the induction variable of the nest with body `body` and
/// trip counts `trips` that `indices` index it by (-1: a size-1 dimension indexed by 0),
/// when accesses at `indices` touch each element once over the nest's iterations:
/// distinct induction variables whose trip counts are the dimensions' sizes, every other
/// loop running once.
std::optional<SmallVector<int>> elementPerIteration(ValueRange indices, Block *body,
                                                    ArrayRef<int64_t> trips, MemRefType type) {
  SmallVector<int> dimToLoop;
  llvm::SmallBitVector seen(trips.size());
  for (auto [dim, index] : llvm::enumerate(indices)) {
    auto argument = dyn_cast<BlockArgument>(index);
    if (argument && argument.getOwner() == body) {
      unsigned loop = argument.getArgNumber();
      if (seen.test(loop) || trips[loop] != type.getDimSize(dim))
        return std::nullopt;
      seen.set(loop);
      dimToLoop.push_back(loop);
      continue;
    }
    std::optional<int64_t> constant = getConstantIntValue(index);
    if (!constant || *constant != 0 || type.getDimSize(dim) != 1)
      return std::nullopt;
    dimToLoop.push_back(-1);
  }
  for (auto [loop, trip] : llvm::enumerate(trips))
    if (!seen.test(loop) && trip != 1)
      return std::nullopt;
  return dimToLoop;
}

/// Whether `reads` are one load, in the body of a nest, that reads each element of the
/// buffer of `type` once (a copy or a transpose of it).
bool readsEachElementOnce(ArrayRef<memref::LoadOp> reads, MemRefType type) {
  if (reads.size() != 1)
    return false;
  memref::LoadOp load = reads.front();
  auto nest = dyn_cast<scf::ParallelOp>(load->getParentOp());
  std::optional<SmallVector<int64_t>> trips = nest ? getTripCounts(nest) : std::nullopt;
  return trips && elementPerIteration(load.getIndices(), nest.getBody(), *trips, type);
}

/// Buffers (their roots) written by the ops after `op` in its block.
llvm::DenseSet<Value> getBuffersWrittenAfter(Operation *op) {
  llvm::DenseSet<Value> written;
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    next->walk([&](Operation *inner) {
      if (auto store = dyn_cast<memref::StoreOp>(inner))
        written.insert(getRootBuffer(store.getMemRef()));
      else if (auto effects = dyn_cast<MemoryEffectOpInterface>(inner)) {
        SmallVector<MemoryEffects::EffectInstance> instances;
        effects.getEffects(instances);
        for (auto &instance : instances)
          if (isa<MemoryEffects::Write>(instance.getEffect()) && instance.getValue())
            written.insert(getRootBuffer(instance.getValue()));
      }
    });
  return written;
}

/// Inlines `producer` into every load of the buffer it writes, if it qualifies; returns
/// whether it did (the producer and its buffer are then erased).
bool inlineProducer(scf::ParallelOp producer) {
  std::optional<SmallVector<int64_t>> trips = getTripCounts(producer);
  Block *body = producer.getBody();
  if (!trips || body->getOperations().size() > kMaxInlinedOps)
    return false;

  // Straight-line code with one store, of the whole of a local buffer, at the induction
  // variables (each once; size-1 dimensions may be indexed by a constant 0).
  // Arithmetic beyond the cheap ops (a quantization's division, rounding and conversion)
  // is recomputed only where the buffer's one reader reads each element once.
  memref::StoreOp store;
  int floatOps = 0;
  bool costly = false;
  for (Operation &op : body->without_terminator()) {
    if (auto candidate = dyn_cast<memref::StoreOp>(op)) {
      if (store)
        return false;
      store = candidate;
      continue;
    }
    if (op.getNumRegions() != 0)
      return false;
    if (!isCheapOp(&op, floatOps)) {
      if (!isMemoryEffectFree(&op))
        return false;
      costly = true;
    }
  }
  if (!store || !isa<scf::ReduceOp>(body->getTerminator()) ||
      body->getTerminator()->getNumOperands() != 0)
    return false;
  auto buffer = store.getMemRef().getDefiningOp<memref::AllocOp>();
  if (!buffer || buffer->getBlock() != producer->getBlock())
    return false;
  MemRefType type = buffer.getType();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return false;
  // For each buffer dimension, the induction variable that indexes it (or -1).
  std::optional<SmallVector<int>> dimToLoop =
      elementPerIteration(store.getIndices(), body, *trips, type);
  if (!dimToLoop)
    return false;

  // The buffer is only read, by plain loads, after the producer; what the producer reads
  // does not change between it and those loads.
  SmallVector<memref::LoadOp> reads;
  for (Operation *user : buffer->getUsers()) {
    if (user == store)
      continue;
    auto load = dyn_cast<memref::LoadOp>(user);
    if (!load || !producer->isBeforeInBlock(
                     producer->getBlock()->findAncestorOpInBlock(*load.getOperation())))
      return false;
    reads.push_back(load);
  }
  if (costly && !readsEachElementOnce(reads, type))
    return false;
  llvm::DenseSet<Value> writtenAfter = getBuffersWrittenAfter(producer);
  for (Operation &op : body->without_terminator())
    if (auto load = dyn_cast<memref::LoadOp>(op))
      if (writtenAfter.contains(getRootBuffer(load.getMemRef())))
        return false;

  // Recompute the stored value at each read.
  for (memref::LoadOp load : reads) {
    OpBuilder builder(load);
    IRMapping mapping;
    for (auto [dim, loop] : llvm::enumerate(*dimToLoop))
      if (loop >= 0)
        mapping.map(body->getArgument(loop), load.getIndices()[dim]);
    for (Operation &op : body->without_terminator())
      if (&op != store)
        builder.clone(op, mapping);
    load.replaceAllUsesWith(mapping.lookupOrDefault(store.getValueToStore()));
    load.erase();
  }
  producer.erase();
  buffer.erase();
  return true;
}

//===----------------------------------------------------------------------===//
// 3. Fusing adjacent nests
//===----------------------------------------------------------------------===//

/// Whether every access of `later` to a buffer `earlier` writes (and every write of
/// `later` to a buffer `earlier` reads) is to the same element in the same iteration.
bool accessesStayInIteration(const Accesses &earlier, const Accesses &later,
                             const IRMapping &earlierToLater) {
  auto conflicts = [&](Value earlierMemref, ValueRange earlierIndices, Value laterMemref,
                       ValueRange laterIndices) {
    if (getRootBuffer(earlierMemref) != getRootBuffer(laterMemref))
      return false;
    return earlierMemref != laterMemref ||
           !sameIndices(earlierIndices, laterIndices, earlierToLater);
  };
  // A store of the earlier nest at a computed index may write an element another
  // iteration of the later nest reads: the later nest must not touch that buffer.
  auto touches = [&](Value root) {
    return llvm::any_of(later.loads,
                        [&](memref::LoadOp l) { return getRootBuffer(l.getMemRef()) == root; }) ||
           llvm::any_of(later.stores,
                        [&](memref::StoreOp s) { return getRootBuffer(s.getMemRef()) == root; });
  };
  for (memref::StoreOp store : earlier.stores)
    for (Value index : store.getIndices())
      if (!getConstantIntValue(index) && !earlierToLater.contains(index) &&
          touches(getRootBuffer(store.getMemRef())))
        return false;
  for (memref::StoreOp store : earlier.stores) {
    for (memref::LoadOp load : later.loads)
      if (conflicts(store.getMemRef(), store.getIndices(), load.getMemRef(), load.getIndices()))
        return false;
    for (memref::StoreOp other : later.stores)
      if (conflicts(store.getMemRef(), store.getIndices(), other.getMemRef(), other.getIndices()))
        return false;
  }
  for (memref::LoadOp load : earlier.loads)
    for (memref::StoreOp store : later.stores)
      if (conflicts(load.getMemRef(), load.getIndices(), store.getMemRef(), store.getIndices()))
        return false;
  return true;
}

/// The positions of a nest's loops with more than one iteration, and their trip counts.
void getNonUnitLoops(ArrayRef<int64_t> trips, SmallVectorImpl<unsigned> &loops,
                     SmallVectorImpl<int64_t> &counts) {
  for (auto [loop, trip] : llvm::enumerate(trips))
    if (trip != 1) {
      loops.push_back(loop);
      counts.push_back(trip);
    }
}

/// Whether `later` reads something `earlier` writes (fusing them saves a round trip).
bool readsWhatItWrites(const Accesses &earlier, const Accesses &later) {
  llvm::DenseSet<Value> written;
  for (memref::StoreOp store : earlier.stores)
    written.insert(getRootBuffer(store.getMemRef()));
  return llvm::any_of(later.loads, [&](memref::LoadOp load) {
    return written.contains(getRootBuffer(load.getMemRef()));
  });
}

/// Rows longer than this stay parallel rather than becoming a loop inside one thread.
constexpr int64_t kMaxSequentialRow = 4096;
/// A row kernel (one thread per row) only when there are at least this many rows: with
/// fewer, the threads cannot fill the GPU and a second launch costs less than the lost
/// parallelism (measured on the H200: BERT-base at batch 1, 128 rows of 768, took 5 ms
/// longer with LayerNorm and Softmax as one-thread-per-row kernels).
constexpr int64_t kMinRowKernelRows = 65536;

/// `nest` with its loops after the first `keep` turned into sequential scf.for loops
/// inside each thread (a row kernel: one thread per row of the outer loops).
scf::ParallelOp sequentializeInnerLoops(scf::ParallelOp nest, unsigned keep) {
  OpBuilder builder(nest);
  Location loc = nest.getLoc();
  auto outer = scf::ParallelOp::create(builder, loc, nest.getLowerBound().take_front(keep),
                                       nest.getUpperBound().take_front(keep),
                                       nest.getStep().take_front(keep));
  IRMapping mapping;
  for (unsigned i = 0; i < keep; ++i)
    mapping.map(nest.getInductionVars()[i], outer.getInductionVars()[i]);
  builder.setInsertionPointToStart(outer.getBody());
  for (unsigned i = keep, e = nest.getNumLoops(); i < e; ++i) {
    auto loop = scf::ForOp::create(builder, loc, nest.getLowerBound()[i], nest.getUpperBound()[i],
                                   nest.getStep()[i]);
    mapping.map(nest.getInductionVars()[i], loop.getInductionVar());
    builder.setInsertionPointToStart(loop.getBody());
  }
  for (Operation &op : nest.getBody()->without_terminator())
    builder.clone(op, mapping);
  nest.erase();
  return outer;
}

/// Moves `earlier`'s body to the start of `later`'s, if that is legal; returns the nest
/// that holds both (null when nothing changed). Loops of one iteration do not count: the
/// index they stand for is 0. When `later` iterates over `earlier`'s space and more
/// (normalising rows after reducing them), its extra loops first become sequential.
scf::ParallelOp fuseNests(scf::ParallelOp earlier, scf::ParallelOp later) {
  std::optional<SmallVector<int64_t>> earlierTrips = getTripCounts(earlier),
                                      laterTrips = getTripCounts(later);
  if (!earlierTrips || !laterTrips || earlier.getNumReductions() != 0 ||
      later.getNumReductions() != 0)
    return nullptr;
  Accesses earlierAccesses, laterAccesses;
  if (!collectAccesses(earlier, earlierAccesses) || !collectAccesses(later, laterAccesses))
    return nullptr;
  SmallVector<unsigned> earlierLoops, laterLoops;
  SmallVector<int64_t> earlierCounts, laterCounts;
  getNonUnitLoops(*earlierTrips, earlierLoops, earlierCounts);
  getNonUnitLoops(*laterTrips, laterLoops, laterCounts);
  // Row kernels: `later` iterates over `earlier`'s space in its leading loops and over a
  // row short enough for one thread in the rest.
  unsigned keep = later.getNumLoops();
  if (earlierCounts != laterCounts) {
    if (laterCounts.size() <= earlierCounts.size() || earlierCounts.empty() ||
        !llvm::equal(earlierCounts, ArrayRef(laterCounts).take_front(earlierCounts.size())) ||
        !readsWhatItWrites(earlierAccesses, laterAccesses))
      return nullptr;
    int64_t row = 1, rows = 1;
    for (int64_t count : ArrayRef(laterCounts).drop_front(earlierCounts.size()))
      row *= count;
    for (int64_t count : earlierCounts)
      rows *= count;
    if (row > kMaxSequentialRow || rows < kMinRowKernelRows)
      return nullptr;
    keep = laterLoops[earlierCounts.size() - 1] + 1;
  }

  // Earlier's loops of more than one iteration map to later's, in order; the others
  // stand for index 0.
  auto mapInductionVars = [&](scf::ParallelOp target, IRMapping &mapping, Value zero) {
    for (auto [loop, iv] : llvm::enumerate(earlier.getInductionVars())) {
      auto position = llvm::find(earlierLoops, loop);
      mapping.map(iv, position == earlierLoops.end()
                          ? zero
                          : target.getInductionVars()[laterLoops[position - earlierLoops.begin()]]);
    }
  };
  OpBuilder builder(earlier);
  Value zero = arith::ConstantIndexOp::create(builder, earlier.getLoc(), 0);
  IRMapping earlierToLater;
  mapInductionVars(later, earlierToLater, zero);
  if (!accessesStayInIteration(earlierAccesses, laterAccesses, earlierToLater)) {
    zero.getDefiningOp()->erase();
    return nullptr;
  }
  if (keep < later.getNumLoops()) {
    later = sequentializeInnerLoops(later, keep);
    earlierToLater.clear();
    mapInductionVars(later, earlierToLater, zero);
  }
  builder.setInsertionPointToStart(later.getBody());
  for (Operation &op : earlier.getBody()->without_terminator())
    builder.clone(op, earlierToLater);
  if (zero.use_empty())
    zero.getDefiningOp()->erase();
  // The launch reports the ONNX nodes of both (the earlier, the anchor, first).
  later->setLoc(FusedLoc::get(later.getContext(), {earlier.getLoc(), later.getLoc()}));
  earlier.erase();
  return later;
}

/// Top-level copies between buffers of static shape as nests (one loop per dimension of
/// more than one element), so that they fuse like the rest.
void copiesToNests(Block &block) {
  for (auto copy : llvm::make_early_inc_range(block.getOps<memref::CopyOp>())) {
    auto source = dyn_cast<MemRefType>(copy.getSource().getType());
    auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
    if (!source || !target || !source.hasStaticShape() || source.getShape() != target.getShape() ||
        !source.getLayout().isIdentity() || !target.getLayout().isIdentity())
      continue;
    OpBuilder builder(copy);
    Location loc = copy.getLoc();
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    SmallVector<Value> lower, upper, steps;
    for (int64_t size : source.getShape())
      if (size != 1) {
        lower.push_back(zero);
        upper.push_back(arith::ConstantIndexOp::create(builder, loc, size));
        steps.push_back(one);
      }
    if (upper.empty()) {
      lower.push_back(zero);
      upper.push_back(one);
      steps.push_back(one);
    }
    auto nest = scf::ParallelOp::create(builder, loc, lower, upper, steps);
    builder.setInsertionPointToStart(nest.getBody());
    SmallVector<Value> indices;
    unsigned next = 0;
    for (int64_t size : source.getShape())
      indices.push_back(size == 1 ? zero : nest.getInductionVars()[next++]);
    Value value = memref::LoadOp::create(builder, loc, copy.getSource(), indices);
    memref::StoreOp::create(builder, loc, value, copy.getTarget(), indices);
    copy.erase();
  }
}

//===----------------------------------------------------------------------===//
// 4. Forwarding stored values and removing write-only buffers
//===----------------------------------------------------------------------===//

void forwardStores(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        forwardStores(inner);
    auto load = dyn_cast<memref::LoadOp>(op);
    if (!load)
      continue;
    Value root = getRootBuffer(load.getMemRef());
    IRMapping identity;
    // The nearest earlier op in the block that may write the buffer must be a store of
    // this element.
    for (Operation *previous = op.getPrevNode(); previous; previous = previous->getPrevNode()) {
      if (auto store = dyn_cast<memref::StoreOp>(previous)) {
        if (getRootBuffer(store.getMemRef()) != root)
          continue;
        if (store.getMemRef() == load.getMemRef() &&
            sameIndices(store.getIndices(), load.getIndices(), identity)) {
          load.replaceAllUsesWith(store.getValueToStore());
          load.erase();
        }
        break;
      }
      if (previous->getNumRegions() != 0 || !isMemoryEffectFree(previous))
        if (!isa<memref::LoadOp>(previous))
          break;
    }
  }
}

/// Local buffers whose every use (through views) is a store: nothing reads them.
void eraseWriteOnlyBuffers(func::FuncOp function) {
  SmallVector<memref::AllocOp> allocs;
  function.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  for (memref::AllocOp alloc : allocs) {
    SmallVector<Operation *> stores;
    SmallVector<Value> worklist = {alloc.getResult()};
    bool onlyWritten = true;
    while (!worklist.empty() && onlyWritten) {
      Value value = worklist.pop_back_val();
      for (OpOperand &use : value.getUses()) {
        Operation *user = use.getOwner();
        auto store = dyn_cast<memref::StoreOp>(user);
        if (store && store.getMemRef() == value) {
          stores.push_back(user);
        } else if (auto view = dyn_cast<ViewLikeOpInterface>(user);
                   view && view.getViewSource() == value) {
          worklist.push_back(user->getResult(0));
        } else if (!isa<memref::DeallocOp>(user)) {
          onlyWritten = false;
          break;
        }
      }
    }
    if (!onlyWritten)
      continue;
    for (Operation *store : stores)
      store->erase();
    // Views and deallocations left without uses go with the allocation.
    SmallVector<Operation *> dead;
    std::function<void(Value)> collect = [&](Value value) {
      for (Operation *user : value.getUsers()) {
        for (Value result : user->getResults())
          collect(result);
        dead.push_back(user);
      }
    };
    collect(alloc.getResult());
    for (Operation *op : llvm::reverse(dead))
      if (op->use_empty())
        op->erase();
    if (alloc->use_empty())
      alloc.erase();
  }
}

struct GpuFuseLoopNestsPass : kiln::impl::GpuFuseLoopNestsBase<GpuFuseLoopNestsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    Block &entry = function.getBody().front();

    // 1. Allocations of static shape first.
    SmallVector<memref::AllocOp> allocs;
    for (auto alloc : entry.getOps<memref::AllocOp>())
      if (alloc->getNumOperands() == 0)
        allocs.push_back(alloc);
    for (memref::AllocOp alloc : llvm::reverse(allocs))
      alloc->moveBefore(&entry, entry.begin());

    copiesToNests(entry);

    // 2. Cheap producers recomputed where they are read.
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto nest : llvm::make_early_inc_range(entry.getOps<scf::ParallelOp>()))
        if (inlineProducer(nest)) {
          changed = true;
          break;
        }
    }

    // 3. Adjacent nests with nothing with side effects between them.
    scf::ParallelOp previous;
    for (Operation &op : llvm::make_early_inc_range(entry)) {
      if (auto nest = dyn_cast<scf::ParallelOp>(op)) {
        scf::ParallelOp fused = previous ? fuseNests(previous, nest) : nullptr;
        previous = fused ? fused : nest;
        continue;
      }
      if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
        previous = nullptr;
    }

    // 4. Values that no longer need a trip through memory.
    forwardStores(entry);
    eraseWriteOnlyBuffers(function);
  }
};

} // namespace
