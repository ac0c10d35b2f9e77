//===- GpuSplitReductions.cpp - Reductions of few outputs over many threads --===//
//
// The generic lowering gives each output of a reduction a thread, which sums its inputs
// one after another: a global average pool of EfficientNet-B0's first squeeze-excite
// block at batch 256 is 8192 threads of 12544 loads each (0.32 ms, 0.64 TB/s), and at
// batch 1 only 32 threads. This pass splits such a nest in two: S threads an output each
// sum a slice of the outermost reduction loop's iterations into an f32 workspace
// [S, outputs...], and a second nest adds each output's S partial sums and does what the
// original did with the total. A sum in another order: the same value up to rounding.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"
#include "passes/lowering/TopLevelNests.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln {
#define GEN_PASS_DEF_GPUSPLITREDUCTIONS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Iterations worth having: below this many outputs, a nest is split. gpu-vectorize-
/// pointwise-loops then gives a thread up to 4 or 8 consecutive outputs (16 bytes of
/// them), so these make 64-128K threads, each with a 16-byte load in flight: about what
/// the H200 needs to reach its bandwidth (4.3 TB/s x ~1 us of latency). At 64K
/// iterations, a sum over the outer axis of [1024, 32768] f16 ran at 36% with vectors of
/// 4 (16K threads), 58% scalar.
constexpr int64_t kEnoughThreads = 512 * 1024;
/// The fewest reduction iterations a slice keeps (a thread's loads hide little latency
/// with fewer).
constexpr int64_t kMinSliceIterations = 64;

/// The sum of a nest whose body sums into one f32 value with a perfect nest of scf.for
/// loops, each carrying the sum, from 0.0, with arith.addf in the innermost: the
/// outermost loop and the iterations of the whole loop nest.
struct SumLoop {
  scf::ForOp outer;
  int64_t iterations = 1; // of the whole loop nest
};

/// `nest`'s one sum, if its body is such a loop nest between reads and arithmetic before
/// it and anything without regions after it.
std::optional<SumLoop> sumLoop(scf::ParallelOp nest) {
  // Reads and arithmetic only before the loop and in it (both nests repeat what comes
  // before it; a slice runs part of it).
  auto readsOrComputes = [](Operation &op) {
    return op.getNumRegions() == 0 && (isMemoryEffectFree(&op) || isa<memref::LoadOp>(op));
  };
  std::optional<SumLoop> found;
  for (Operation &op : nest.getBody()->without_terminator()) {
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop) {
      if (op.getNumRegions() != 0 || (!found && !readsOrComputes(op)))
        return std::nullopt;
      continue;
    }
    if (found)
      return std::nullopt; // one reduction only
    SumLoop sum{loop, 1};
    Value init = loop.getInitArgs().size() == 1 ? loop.getInitArgs().front() : Value();
    FloatAttr zero;
    if (!init || !init.getType().isF32() || !matchPattern(init, m_Constant(&zero)) ||
        !zero.getValue().isPosZero())
      return std::nullopt;
    for (scf::ForOp level = loop;;) {
      std::optional<int64_t> lower = getConstantIntValue(level.getLowerBound());
      std::optional<int64_t> upper = getConstantIntValue(level.getUpperBound());
      std::optional<int64_t> step = getConstantIntValue(level.getStep());
      if (!lower || *lower != 0 || !upper || !step || *step != 1 || level.getInitArgs().size() != 1)
        return std::nullopt;
      sum.iterations *= *upper;
      Block *body = level.getBody();
      Value carried = level.getRegionIterArgs().front();
      auto yield = cast<scf::YieldOp>(body->getTerminator());
      // Either the next level (its only op besides the yield, carrying the sum)...
      if (auto inner = dyn_cast<scf::ForOp>(body->front());
          inner && &body->front() == yield->getPrevNode() && inner.getInitArgs().size() == 1 &&
          inner.getInitArgs().front() == carried && yield.getOperand(0) == inner.getResult(0)) {
        level = inner;
        continue;
      }
      // ... or the innermost: the sum plus a value computed without it.
      auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
      if (!add || add->getBlock() != body || !carried.hasOneUse() ||
          (add.getLhs() != carried && add.getRhs() != carried))
        return std::nullopt;
      if (!llvm::all_of(body->without_terminator(), readsOrComputes))
        return std::nullopt;
      break;
    }
    found = sum;
  }
  return found;
}

/// How many slices to split `nest`'s sum into, if it should be split: enough threads
/// (outputs x slices), each slice at least kMinSliceIterations iterations, the slices a
/// divisor of the outermost loop's trip count.
std::optional<int64_t> slicesFor(scf::ParallelOp nest, SumLoop sum) {
  int64_t outputs = 1;
  for (auto [lower, upper, step] :
       llvm::zip(nest.getLowerBound(), nest.getUpperBound(), nest.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lower), u = getConstantIntValue(upper),
                           s = getConstantIntValue(step);
    if (!l || *l != 0 || !u || !s || *s != 1)
      return std::nullopt;
    outputs *= *u;
  }
  if (outputs >= kEnoughThreads || nest.getNumReductions() != 0)
    return std::nullopt;
  int64_t outer = *getConstantIntValue(sum.outer.getUpperBound());
  int64_t inner = sum.iterations / outer;
  int64_t wanted = llvm::divideCeil(kEnoughThreads, outputs);
  int64_t best = 1;
  for (int64_t slices = 2; slices <= outer; ++slices)
    if (outer % slices == 0 && slices <= wanted && (outer / slices) * inner >= kMinSliceIterations)
      best = slices;
  if (best < 2)
    return std::nullopt;
  return best;
}

/// `nest` as the two nests of the file header, its sum in `slices` slices.
void split(scf::ParallelOp nest, SumLoop sum, int64_t slices) {
  OpBuilder b(nest);
  Location loc = nest.getLoc();
  Type f32 = b.getF32Type();
  SmallVector<int64_t> shape = {slices};
  for (Value upper : nest.getUpperBound())
    shape.push_back(*getConstantIntValue(upper));
  Value partials = memref::AllocOp::create(b, loc, MemRefType::get(shape, f32));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  int64_t outer = *getConstantIntValue(sum.outer.getUpperBound());
  Value slice = arith::ConstantIndexOp::create(b, loc, outer / slices);

  // The slices: the body up to the sum, whose outermost loop runs over the slice's part.
  SmallVector<Value> lowers = {zero}, uppers = {arith::ConstantIndexOp::create(b, loc, slices)},
                     steps = {one};
  lowers.append(nest.getLowerBound().begin(), nest.getLowerBound().end());
  uppers.append(nest.getUpperBound().begin(), nest.getUpperBound().end());
  steps.append(nest.getStep().begin(), nest.getStep().end());
  auto parts = scf::ParallelOp::create(b, loc, lowers, uppers, steps);
  {
    IRMapping mapping;
    SmallVector<Value> ivs = parts.getInductionVars();
    for (auto [old, now] : llvm::zip(nest.getInductionVars(), ArrayRef<Value>(ivs).drop_front()))
      mapping.map(old, now);
    OpBuilder in = OpBuilder::atBlockBegin(parts.getBody());
    for (Operation &op : nest.getBody()->without_terminator()) {
      if (&op == sum.outer.getOperation())
        break;
      in.clone(op, mapping);
    }
    Value first = arith::MulIOp::create(in, loc, ivs.front(), slice);
    Value end = arith::AddIOp::create(in, loc, first, slice);
    auto loop = cast<scf::ForOp>(in.clone(*sum.outer, mapping));
    loop.getLowerBoundMutable().assign(first);
    loop.getUpperBoundMutable().assign(end);
    memref::StoreOp::create(in, loc, loop.getResult(0), partials, ivs);
  }

  // The totals: the original body with the sum replaced by the partial sums' total.
  auto totals =
      scf::ParallelOp::create(b, loc, nest.getLowerBound(), nest.getUpperBound(), nest.getStep());
  {
    IRMapping mapping;
    for (auto [old, now] : llvm::zip(nest.getInductionVars(), totals.getInductionVars()))
      mapping.map(old, now);
    OpBuilder in = OpBuilder::atBlockBegin(totals.getBody());
    for (Operation &op : nest.getBody()->without_terminator()) {
      if (&op != sum.outer.getOperation()) {
        in.clone(op, mapping);
        continue;
      }
      Value init = in.clone(*sum.outer.getInitArgs().front().getDefiningOp())->getResult(0);
      auto total =
          scf::ForOp::create(in, loc, zero, uppers.front(), one, ValueRange{init},
                             [&](OpBuilder &nested, Location at, Value s, ValueRange carried) {
                               SmallVector<Value> indices = {s};
                               for (Value iv : totals.getInductionVars())
                                 indices.push_back(iv);
                               Value part = memref::LoadOp::create(nested, at, partials, indices);
                               Value next =
                                   arith::AddFOp::create(nested, at, carried.front(), part);
                               scf::YieldOp::create(nested, at, next);
                             });
      mapping.map(sum.outer.getResult(0), total.getResult(0));
    }
  }
  nest.erase();
}

struct GpuSplitReductions : kiln::impl::GpuSplitReductionsBase<GpuSplitReductions> {
  void runOnOperation() override {
    for (scf::ParallelOp nest : kiln::topLevelNests(getOperation()))
      if (std::optional<SumLoop> sum = sumLoop(nest))
        if (std::optional<int64_t> slices = slicesFor(nest, *sum))
          split(nest, *sum, *slices);
  }
};

} // namespace
