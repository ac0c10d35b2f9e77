//===- GpuSerializeInvariantDims.cpp - Share a nest's invariant work across a dimension ===//
//
// gpu-map-loops gives each thread one iteration of a nest. Where most of an iteration's
// work does not depend on one of the nest's variables, each thread recomputes what its
// neighbours along that variable compute too: a GridSample computes the positions and
// weights of its taps from the grid (60-odd f64 ops) for every channel, though they
// depend on the batch and the output pixel only; a nearest Resize computes its source
// indices (20-odd f64 ops) for every channel and batch. On the H200 such kernels ran at
// 6-22% of the bandwidth, bound by that arithmetic.
//
// This pass runs such a dimension inside the thread: T consecutive iterations of it
// become an scf.for in the thread's body, after the ops that do not depend on it
// (computed once for the T), and the nest keeps the extent divided by T. The dimension
// is the one with the most such work; T is the most iterations up to kMaxSerial that
// divide its extent and leave at least kMinIterations iterations in the nest (enough
// threads to fill the GPU several times). Every thread still does the same iterations'
// work in some order, with the same ops on the same values, so results are those of the
// nest, bit for bit.
//
// The loop runs U iterations at a time (U of 2 or 4 dividing T), their loads first and
// their stores after, where the iterations' own ops read no buffer the nest writes (then
// no load can see a store, in any order): a loop of one iteration a turn issues its loads
// only after the last turn's stores, which the compiler keeps in order, not knowing the
// buffers apart, and waits out a memory latency each turn. A GridSample's channel loop
// issued 8 taps at a time that way and spent 84% of its time waiting for them.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"
#include "passes/lowering/RootBuffer.h"
#include "passes/lowering/TopLevelNests.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln {
#define GEN_PASS_DEF_GPUSERIALIZEINVARIANTDIMS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The work an iteration must share before a dimension is serialized for it: more than
/// the few ops of a broadcast operand's index (a bias read once per channel), which
/// cost less than the parallelism they would take.
constexpr int64_t kMinSharedWork = 16;
/// At most this many iterations of the dimension a thread.
constexpr int64_t kMaxSerial = 16;
/// At least this many iterations left in the nest: 2^18, about 8 CTAs of 256 threads an
/// SM of the H200 (132 SMs).
constexpr int64_t kMinIterations = int64_t(1) << 18;
/// At most this many iterations of the loop a turn.
constexpr int64_t kMaxUnroll = 4;
/// At most this many 32-bit registers of loaded values in flight for a turn's loads.
constexpr int64_t kMaxLoadedRegisters = 32;

/// The ops of a nest's body with their work, and which of them may be computed before a
/// loop over one of its dimensions.
struct BodyWork {
  /// The buffers (roots) the nest writes.
  DenseSet<Value> written;
  /// Whether some write's buffer is unknown (then no read moves).
  bool unknownWrite = false;

  explicit BodyWork(scf::ParallelOp nest) {
    nest.getBody()->walk([&](Operation *op) {
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (!effects) {
        if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
          unknownWrite = true;
        return;
      }
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance &instance : instances) {
        if (!isa<MemoryEffects::Write>(instance.getEffect()))
          continue;
        if (Value buffer = instance.getValue())
          written.insert(kiln::getRootBuffer(buffer));
        else
          unknownWrite = true;
      }
    });
  }

  /// Whether `op` may run once before the loop: no regions, and free of memory effects
  /// or reading only buffers the nest does not write.
  bool movable(Operation *op) const {
    if (op->getNumRegions() != 0)
      return false;
    if (isMemoryEffectFree(op))
      return true;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || unknownWrite)
      return false;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    return llvm::all_of(instances, [&](const MemoryEffects::EffectInstance &instance) {
      return isa<MemoryEffects::Read>(instance.getEffect()) && instance.getValue() &&
             !written.contains(kiln::getRootBuffer(instance.getValue()));
    });
  }
};

/// The work of `op`: one for each op it holds that computes (constants and terminators
/// are none).
int64_t workOf(Operation *op) {
  int64_t work = 0;
  op->walk([&](Operation *inner) {
    if (!inner->hasTrait<OpTrait::ConstantLike>() && !inner->hasTrait<OpTrait::IsTerminator>())
      ++work;
  });
  return work;
}

/// The ops of `nest`'s body that may run before a loop over variable `dim`: movable, and
/// computed from values defined outside the nest or by such ops only.
DenseSet<Operation *> invariantOps(scf::ParallelOp nest, unsigned dim, const BodyWork &body) {
  DenseSet<Operation *> invariant;
  Value variable = nest.getInductionVars()[dim];
  for (Operation &op : nest.getBody()->without_terminator()) {
    if (!body.movable(&op))
      continue;
    bool free = llvm::all_of(op.getOperands(), [&](Value operand) {
      if (operand == variable)
        return false;
      // (The nest's other variables are block arguments: free.)
      Operation *producer = operand.getDefiningOp();
      return !producer || !nest->isAncestor(producer) || invariant.contains(producer);
    });
    if (free)
      invariant.insert(&op);
  }
  return invariant;
}

/// The trip count of dimension `dim` of `nest` when its bounds and step are constants.
std::optional<int64_t> tripCount(scf::ParallelOp nest, unsigned dim) {
  std::optional<int64_t> lower = getConstantIntValue(nest.getLowerBound()[dim]);
  std::optional<int64_t> upper = getConstantIntValue(nest.getUpperBound()[dim]);
  std::optional<int64_t> step = getConstantIntValue(nest.getStep()[dim]);
  if (!lower || !upper || !step || *step <= 0)
    return std::nullopt;
  return llvm::divideCeil(std::max<int64_t>(*upper - *lower, 0), *step);
}

/// The dimension of `nest` to serialize and its iterations a thread, if one is worth it.
std::optional<std::pair<unsigned, int64_t>> chooseDimension(scf::ParallelOp nest) {
  unsigned rank = nest.getNumLoops();
  if (rank < 2 || nest.getNumReductions() != 0 || nest->hasAttr("mapping"))
    return std::nullopt;
  bool nested = false;
  nest.getBody()->walk([&](scf::ParallelOp) { nested = true; });
  if (nested)
    return std::nullopt;
  // The nest's iterations (run-time extents count as one: at least that many).
  int64_t iterations = 1;
  for (unsigned dim = 0; dim < rank; ++dim)
    iterations *= std::max<int64_t>(tripCount(nest, dim).value_or(1), 1);
  BodyWork body(nest);
  int64_t total = 0;
  for (Operation &op : nest.getBody()->without_terminator())
    total += workOf(&op);

  std::optional<std::pair<unsigned, int64_t>> best;
  int64_t bestShared = 0, bestExtent = 0;
  // Not the innermost: consecutive threads take consecutive iterations of it, which is
  // what makes their accesses coalesce.
  for (unsigned dim = 0; dim + 1 < rank; ++dim) {
    std::optional<int64_t> extent = tripCount(nest, dim);
    if (!extent || *extent < 2 || !matchPattern(nest.getLowerBound()[dim], m_Zero()) ||
        !matchPattern(nest.getStep()[dim], m_One()))
      continue;
    int64_t shared = 0;
    for (Operation *op : invariantOps(nest, dim, body))
      shared += workOf(op);
    if (shared < kMinSharedWork || shared < total - shared)
      continue;
    int64_t serial = 0;
    for (int64_t t = std::min(kMaxSerial, *extent); t >= 2; --t)
      if (*extent % t == 0 && iterations / t >= kMinIterations) {
        serial = t;
        break;
      }
    if (serial == 0)
      continue;
    if (shared > bestShared || (shared == bestShared && *extent > bestExtent)) {
      best = {{dim, serial}};
      bestShared = shared;
      bestExtent = *extent;
    }
  }
  return best;
}

/// The 32-bit registers `op`'s results take (a vector of 8 f16 takes 4; an f16 takes 1).
int64_t registersOf(Operation *op) {
  int64_t registers = 0;
  for (Type type : op->getResultTypes()) {
    int64_t bits = 64;
    if (auto vector = dyn_cast<VectorType>(type))
      bits = vector.getNumElements() * vector.getElementType().getIntOrFloatBitWidth();
    else if (type.isIntOrFloat())
      bits = type.getIntOrFloatBitWidth();
    registers += llvm::divideCeil(bits, 32);
  }
  return registers;
}

/// The iterations of the serial loop a turn (1, 2 or 4, dividing `serial`): more than one
/// where the loop's ops (those not in `invariant`) hold no regions, their writes are
/// result-free (stores) and their reads touch no buffer the nest writes, so that a turn's
/// stores can all follow its loads; as many as keep the loaded values within
/// kMaxLoadedRegisters.
int64_t chooseUnroll(scf::ParallelOp nest, const BodyWork &body,
                     const DenseSet<Operation *> &invariant, int64_t serial) {
  if (body.unknownWrite)
    return 1;
  int64_t loaded = 0;
  for (Operation &op : nest.getBody()->without_terminator()) {
    if (invariant.contains(&op) || isMemoryEffectFree(&op))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(&op);
    if (!effects || op.getNumRegions() != 0)
      return 1;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    bool writes = false;
    for (const MemoryEffects::EffectInstance &instance : instances) {
      if (isa<MemoryEffects::Write>(instance.getEffect())) {
        writes = true;
        continue;
      }
      if (!isa<MemoryEffects::Read>(instance.getEffect()) || !instance.getValue() ||
          body.written.contains(kiln::getRootBuffer(instance.getValue())))
        return 1;
    }
    if (writes && op.getNumResults() != 0)
      return 1;
    if (!writes)
      loaded += registersOf(&op);
  }
  int64_t unroll = kMaxUnroll;
  while (unroll > 1 && (serial % unroll != 0 || unroll * loaded > kMaxLoadedRegisters))
    unroll /= 2;
  return unroll;
}

/// Rewrites `nest` with `serial` consecutive iterations of dimension `dim` a thread.
void serialize(scf::ParallelOp nest, unsigned dim, int64_t serial) {
  BodyWork body(nest);
  DenseSet<Operation *> invariant = invariantOps(nest, dim, body);
  int64_t extent = *tripCount(nest, dim);
  bool whole = serial == extent;
  SmallVector<Value> lower, upper, steps;
  OpBuilder b(nest);
  Location loc = nest.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value serialCount = arith::ConstantIndexOp::create(b, loc, serial);
  for (unsigned d = 0; d < nest.getNumLoops(); ++d) {
    if (d == dim && whole)
      continue;
    lower.push_back(nest.getLowerBound()[d]);
    steps.push_back(nest.getStep()[d]);
    upper.push_back(d == dim ? arith::ConstantIndexOp::create(b, loc, extent / serial)
                             : nest.getUpperBound()[d]);
  }
  auto replacement = scf::ParallelOp::create(b, loc, lower, upper, steps);
  replacement->setDiscardableAttrs(nest->getDiscardableAttrDictionary());
  Block *newBody = replacement.getBody();
  b.setInsertionPoint(newBody->getTerminator());
  IRMapping mapping;
  SmallVector<Value> newIvs = llvm::to_vector(replacement.getInductionVars());
  for (unsigned d = 0, n = 0; d < nest.getNumLoops(); ++d) {
    if (d == dim && whole)
      continue;
    if (d != dim)
      mapping.map(nest.getInductionVars()[d], newIvs[n]);
    ++n;
  }
  for (Operation &op : nest.getBody()->without_terminator())
    if (invariant.contains(&op))
      b.clone(op, mapping);
  int64_t unroll = chooseUnroll(nest, body, invariant, serial);
  SmallVector<Value> offsets{zero}; // of the turn's iterations from its first
  for (int64_t u = 1; u < unroll; ++u)
    offsets.push_back(u == 1 ? one : arith::ConstantIndexOp::create(b, loc, u).getResult());
  Value turn = unroll == 1 ? one : arith::ConstantIndexOp::create(b, loc, unroll).getResult();
  auto loop = scf::ForOp::create(b, loc, zero, serialCount, turn);
  b.setInsertionPointToStart(loop.getBody());
  Value first = loop.getInductionVar();
  if (!whole) {
    unsigned position = dim; // dims before `dim` are all kept
    first = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, newIvs[position], serialCount), first);
  }
  // The turn's iterations, each with its own mapping; their writes after all of them.
  SmallVector<std::pair<Operation *, IRMapping>> writes;
  for (int64_t u = 0; u < unroll; ++u) {
    IRMapping iteration = mapping;
    Value variable = u == 0 ? first : arith::AddIOp::create(b, loc, first, offsets[u]).getResult();
    iteration.map(nest.getInductionVars()[dim], variable);
    for (Operation &op : nest.getBody()->without_terminator()) {
      if (invariant.contains(&op))
        continue;
      if (unroll > 1 && !isMemoryEffectFree(&op) && hasEffect<MemoryEffects::Write>(&op))
        writes.push_back({&op, iteration});
      else
        b.clone(op, iteration);
    }
  }
  for (auto &[op, iteration] : writes)
    b.clone(*op, iteration);
  nest.erase();
}

struct GpuSerializeInvariantDimsPass
    : kiln::impl::GpuSerializeInvariantDimsBase<GpuSerializeInvariantDimsPass> {
  void runOnOperation() override {
    for (scf::ParallelOp nest : kiln::topLevelNests(getOperation()))
      if (std::optional<std::pair<unsigned, int64_t>> choice = chooseDimension(nest))
        serialize(nest, choice->first, choice->second);
  }
};

} // namespace
