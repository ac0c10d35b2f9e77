//===- GpuTileTransposes.cpp - Transposed reads staged through shared memory ---===//
//
// gpu-map-loops gives consecutive threads consecutive values of a nest's innermost
// variable, so the stores along the innermost axis are coalesced. A read whose
// contiguous axis follows another variable (a transpose, out[j, k] = in[k, j]) then
// strides by a row from thread to thread: every thread takes its own 32-byte sector, and
// the transposes that move the innermost axis ran at 15-27% of the H200's bandwidth.
//
// This pass gives such a nest tiles. A CTA takes a square tile of the variable k that the
// read walks contiguously and the innermost variable j, at one point of the other
// variables. Its threads first read the tile along k, a warp 128 consecutive bytes of a
// row, into shared memory; after a barrier, they run the nest's body along j, a warp
// 128 consecutive bytes of the output's row, with the read replaced by the tile's
// element. A thread moves 4 bytes at once in both phases (2 f16 or 4 u8 as one
// access: with 2-byte accesses the f16 transposes reached 69-75% of the bandwidth, the
// f32 ones 87-89%): phase 1 reads a vector, and phase 2 runs a loop of lanes that
// gpu-vectorize-pointwise-loops makes one. The result is a nest of CTAs (an scf.parallel
// of CTAs mapped to block_x, holding the shared tiles and two scf.parallel phases mapped
// to threads, with a gpu.barrier between them), which gpu-map-loops turns into a launch.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/AlignedRows.h"
#include "passes/lowering/Passes.h"
#include "passes/lowering/TopLevelNests.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_GPUTILETRANSPOSES
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using kiln::alignedRows;

namespace {

/// Thread rows of a CTA (32 x 8 threads).
constexpr int64_t kThreadRows = 8;
/// Extents below this are left to the one-thread-per-iteration mapping: most of a tile
/// would be idle threads.
constexpr int64_t kMinExtent = 16;
/// Shared memory the tiles of one nest may take.
constexpr int64_t kMaxTileBytes = 48 * 1024;

/// The nest's induction variables' coefficients in `value`, where it is a sum of them
/// times constants plus what does not vary within the nest; nothing otherwise.
std::optional<SmallVector<int64_t>> coefficients(Value value, scf::ParallelOp nest) {
  int64_t rank = nest.getNumLoops();
  SmallVector<int64_t> zero(rank, 0);
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner() == nest.getBody()) {
      zero[arg.getArgNumber()] = 1;
      return zero;
    }
    return nest->isAncestor(arg.getOwner()->getParentOp()) ? std::nullopt : std::optional(zero);
  }
  Operation *def = value.getDefiningOp();
  if (!nest->isAncestor(def))
    return zero;
  if (def->getBlock() != nest.getBody() || def->getNumRegions() != 0 || !isMemoryEffectFree(def) ||
      def->getNumResults() != 1)
    return std::nullopt;
  if (matchPattern(value, m_Constant()))
    return zero;
  auto both = [&]() -> std::optional<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>> {
    std::optional<SmallVector<int64_t>> lhs = coefficients(def->getOperand(0), nest),
                                        rhs = coefficients(def->getOperand(1), nest);
    if (!lhs || !rhs)
      return std::nullopt;
    return std::make_pair(*lhs, *rhs);
  };
  auto isZero = [](ArrayRef<int64_t> c) { return llvm::all_of(c, [](int64_t v) { return !v; }); };
  if (isa<arith::AddIOp, arith::SubIOp>(def)) {
    auto terms = both();
    if (!terms)
      return std::nullopt;
    int64_t sign = isa<arith::SubIOp>(def) ? -1 : 1;
    for (int64_t d = 0; d < rank; ++d)
      zero[d] = terms->first[d] + sign * terms->second[d];
    return zero;
  }
  if (isa<arith::MulIOp>(def)) {
    auto terms = both();
    if (!terms)
      return std::nullopt;
    APInt factor;
    if (isZero(terms->second) && matchPattern(def->getOperand(1), m_ConstantInt(&factor)))
      return llvm::map_to_vector(terms->first,
                                 [&](int64_t c) { return c * factor.getSExtValue(); });
    if (isZero(terms->first) && matchPattern(def->getOperand(0), m_ConstantInt(&factor)))
      return llvm::map_to_vector(terms->second,
                                 [&](int64_t c) { return c * factor.getSExtValue(); });
    if (isZero(terms->first) && isZero(terms->second))
      return zero;
    return std::nullopt;
  }
  // Anything else computed from values that do not vary.
  for (Value operand : def->getOperands()) {
    std::optional<SmallVector<int64_t>> c = coefficients(operand, nest);
    if (!c || !isZero(*c))
      return std::nullopt;
  }
  return zero;
}

/// Whether `value` depends on induction variable `iv` of `nest`.
bool dependsOn(Value value, scf::ParallelOp nest, unsigned iv) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner() == nest.getBody() && arg.getArgNumber() == iv;
  Operation *def = value.getDefiningOp();
  return nest->isAncestor(def) &&
         llvm::any_of(def->getOperands(), [&](Value v) { return dependsOn(v, nest, iv); });
}

/// The ops of the nest's body that compute `load`'s indices, in order, where they are
/// all memory-effect-free ops without regions directly in the body (recomputable
/// anywhere in the iteration); nothing otherwise (an index read from memory: a gather).
std::optional<SmallVector<Operation *>> indexSlice(memref::LoadOp load, scf::ParallelOp nest) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work(load.getIndices().begin(), load.getIndices().end());
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !nest->isAncestor(def) || slice.contains(def))
      continue;
    if (def->getBlock() != nest.getBody() || def->getNumRegions() != 0 || !isMemoryEffectFree(def))
      return std::nullopt;
    slice.insert(def);
    work.append(def->operand_begin(), def->operand_end());
  }
  SmallVector<Operation *> ordered = slice.takeVector();
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Whether `buffer`'s innermost stride is 1 (its rows are contiguous).
bool hasContiguousRows(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return type.getRank() > 0 && succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// A nest to tile: the variable k its transposed reads walk contiguously, and the reads.
struct Plan {
  unsigned k;
  SmallVector<memref::LoadOp> loads;
};

/// The reads of `nest` (static-rank loads directly in its body, indices recomputable)
/// whose last index is `i_k + c` for a variable k other than the innermost, j, whose other
/// indices depend on j, of buffers with contiguous rows; the k most of them share; where
/// some store writes along j (last index `i_j + c`, contiguous rows).
std::optional<Plan> planTiles(scf::ParallelOp nest) {
  unsigned rank = nest.getNumLoops();
  if (rank < 2 || nest.getNumResults() != 0)
    return std::nullopt;
  for (auto [lb, step] : llvm::zip(nest.getLowerBound(), nest.getStep()))
    if (!matchPattern(lb, m_Zero()) || !matchPattern(step, m_One()))
      return std::nullopt;
  unsigned j = rank - 1;

  auto lastCoefficients = [&](Value buffer, ValueRange indices) {
    std::optional<SmallVector<int64_t>> none;
    if (indices.empty() || !hasContiguousRows(buffer))
      return none;
    return coefficients(indices.back(), nest);
  };
  bool storesAlongJ = false;
  for (auto store : nest.getBody()->getOps<memref::StoreOp>()) {
    std::optional<SmallVector<int64_t>> c = lastCoefficients(store.getMemRef(), store.getIndices());
    storesAlongJ |= c && (*c)[j] == 1;
  }
  if (!storesAlongJ)
    return std::nullopt;

  DenseMap<unsigned, SmallVector<memref::LoadOp>> byVariable;
  for (auto load : nest.getBody()->getOps<memref::LoadOp>()) {
    std::optional<SmallVector<int64_t>> c = lastCoefficients(load.getMemRef(), load.getIndices());
    if (!c || (*c)[j] != 0 || llvm::count_if(*c, [](int64_t v) { return v != 0; }) != 1)
      continue;
    unsigned k = llvm::find_if(*c, [](int64_t v) { return v != 0; }) - c->begin();
    if ((*c)[k] != 1 || !indexSlice(load, nest))
      continue;
    if (llvm::none_of(load.getIndices().drop_back(),
                      [&](Value index) { return dependsOn(index, nest, j); }))
      continue; // the same element along j: a broadcast, not a transpose
    byVariable[k].push_back(load);
  }
  std::optional<Plan> best;
  for (auto &[k, loads] : byVariable)
    if (!best || loads.size() > best->loads.size() ||
        (loads.size() == best->loads.size() && k > best->k))
      best = Plan{k, loads};
  if (!best)
    return std::nullopt;
  for (unsigned d : {best->k, j}) {
    std::optional<int64_t> extent = getConstantIntValue(nest.getUpperBound()[d]);
    if (extent && *extent < kMinExtent)
      return std::nullopt;
  }
  return best;
}

/// Bytes of an element of `type` in memory.
int64_t elementBytes(Type type) {
  return std::max<int64_t>(1, llvm::divideCeil(type.getIntOrFloatBitWidth(), 8));
}

/// The elements a thread moves at once: 4 bytes of the narrowest tiled read, where every
/// tiled read takes them as one vector (its last index the variable itself, aligned
/// rows) and the extent along k is a constant multiple of them; 1 otherwise.
int64_t laneCount(const Plan &plan, scf::ParallelOp nest) {
  int64_t narrowest = 4;
  for (memref::LoadOp load : plan.loads)
    narrowest = std::min(narrowest, elementBytes(load.getType()));
  int64_t lanes = 4 / narrowest;
  std::optional<int64_t> extent = getConstantIntValue(nest.getUpperBound()[plan.k]);
  Value k = nest.getInductionVars()[plan.k];
  bool vectors = lanes > 1 && extent && *extent % lanes == 0 &&
                 llvm::all_of(plan.loads, [&](memref::LoadOp load) {
                   return load.getIndices().back() == k && alignedRows(load.getMemRef(), lanes);
                 });
  return vectors ? lanes : 1;
}

struct GpuTileTransposesPass : public kiln::impl::GpuTileTransposesBase<GpuTileTransposesPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    GpuTileTransposesBase::getDependentDialects(registry);
    registry.insert<vector::VectorDialect>();
  }

  void runOnOperation() override {
    for (scf::ParallelOp nest : kiln::topLevelNests(getOperation()))
      if (std::optional<Plan> plan = planTiles(nest))
        tile(nest, *plan);
  }

  void tile(scf::ParallelOp nest, Plan plan);
};

void GpuTileTransposesPass::tile(scf::ParallelOp nest, Plan plan) {
  MLIRContext *context = nest.getContext();
  Location loc = nest.getLoc();
  IRRewriter rewriter(context);
  rewriter.setInsertionPoint(nest);
  unsigned rank = nest.getNumLoops(), j = rank - 1, k = plan.k;

  // A thread moves `lanes` consecutive elements along k in phase 1 and along j in phase
  // 2; the tile is 32 x lanes square. Its rows run along j (phase 2 reads them as
  // vectors), padded by `lanes` elements: an odd number of 4-byte words for the elements
  // of up to 4 bytes, so that the column phase 1 writes falls in distinct banks (two ways
  // at 2 lanes).
  int64_t lanes = laneCount(plan, nest);
  int64_t extent = 32 * lanes, rowsPerThread = extent / kThreadRows;
  auto workgroup = gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
  SmallVector<MemRefType> tileTypes;
  int64_t tileBytes = 0;
  for (memref::LoadOp load : plan.loads) {
    int64_t bytes = extent * (extent + lanes) * elementBytes(load.getType());
    if (tileBytes + bytes > kMaxTileBytes)
      break;
    tileBytes += bytes;
    tileTypes.push_back(
        MemRefType::get({extent, extent + lanes}, load.getType(), AffineMap(), workgroup));
  }
  plan.loads.resize(tileTypes.size());

  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  // Products and quotients of extents, folded where they are constants (gpu-map-loops
  // sizes a launch of constant extents at compile time).
  auto mul = [&](Value a, Value b) -> Value {
    std::optional<int64_t> x = getConstantIntValue(a), y = getConstantIntValue(b);
    if (x && y)
      return constant(*x * *y);
    return arith::MulIOp::create(rewriter, loc, a, b);
  };
  auto ceilDiv = [&](Value a, int64_t b) -> Value {
    if (std::optional<int64_t> x = getConstantIntValue(a))
      return constant(llvm::divideCeil(*x, b));
    return arith::CeilDivUIOp::create(rewriter, loc, a, constant(b));
  };
  auto divides = [](int64_t d, Value value) {
    std::optional<int64_t> x = getConstantIntValue(value);
    return x && *x % d == 0;
  };
  SmallVector<Value> extents(nest.getUpperBound());
  SmallVector<unsigned> others;
  for (unsigned d = 0; d < rank; ++d)
    if (d != j && d != k)
      others.push_back(d);
  Value tilesK = ceilDiv(extents[k], extent), tilesJ = ceilDiv(extents[j], extent);
  Value ctas = mul(tilesK, tilesJ);
  for (unsigned d : others)
    ctas = mul(ctas, extents[d]);
  bool guardK = !divides(extent, extents[k]), guardJ = !divides(extent, extents[j]);
  // Phase 2 guards a thread's run of lanes along j as one where they are all inside or all
  // outside; otherwise each lane (which keeps them scalar).
  bool guardLanes = guardJ && !divides(lanes, extents[j]);

  auto mapping = [&](ArrayRef<gpu::Processor> processors) {
    AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
    return llvm::map_to_vector(processors, [&](gpu::Processor p) {
      return gpu::ParallelLoopDimMappingAttr::get(context, p, identity, identity);
    });
  };
  Value zero = constant(0), one = constant(1);
  auto grid =
      scf::ParallelOp::create(rewriter, loc, ValueRange{zero}, ValueRange{ctas}, ValueRange{one});
  (void)gpu::setMappingAttr(grid, mapping({gpu::Processor::BlockX}));
  rewriter.setInsertionPointToStart(grid.getBody());

  // The CTA's tile and point of the other variables: the tile along j fastest.
  Value rest = grid.getInductionVars()[0];
  auto next = [&](Value count) -> Value {
    if (matchPattern(count, m_One()))
      return zero;
    Value index = arith::RemUIOp::create(rewriter, loc, rest, count);
    rest = arith::DivUIOp::create(rewriter, loc, rest, count);
    return index;
  };
  SmallVector<Value> point(rank);
  Value j0 = arith::MulIOp::create(rewriter, loc, next(tilesJ), constant(extent));
  Value k0 = arith::MulIOp::create(rewriter, loc, next(tilesK), constant(extent));
  for (unsigned d : llvm::reverse(others))
    point[d] = d == others.front() ? rest : next(extents[d]);

  SmallVector<Value> tiles = llvm::map_to_vector(tileTypes, [&](MemRefType type) -> Value {
    return memref::AllocaOp::create(rewriter, loc, type);
  });

  auto add = [&](Value a, Value b) -> Value { return arith::AddIOp::create(rewriter, loc, a, b); };
  auto times = [&](Value a, int64_t c) -> Value {
    return c == 1 ? a : arith::MulIOp::create(rewriter, loc, a, constant(c)).getResult();
  };
  auto below = [&](Value v, Value bound) -> Value {
    return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, v, bound);
  };
  auto guardIf = [&](Value condition) {
    if (!condition)
      return;
    auto inside = scf::IfOp::create(rewriter, loc, condition, /*withElseRegion=*/false);
    rewriter.setInsertionPointToStart(inside.thenBlock());
  };
  auto both = [&](Value a, Value b) -> Value {
    if (!a || !b)
      return a ? a : b;
    return arith::AndIOp::create(rewriter, loc, a, b);
  };
  // One phase: 8 x 32 threads (x fastest), each running `steps` iterations.
  auto phase = [&](int64_t steps, function_ref<void(Value tx, Value ty, Value step)> body) {
    auto threads = scf::ParallelOp::create(rewriter, loc, ValueRange{zero, zero},
                                           ValueRange{constant(kThreadRows), constant(32)},
                                           ValueRange{one, one});
    (void)gpu::setMappingAttr(threads, mapping({gpu::Processor::ThreadY, gpu::Processor::ThreadX}));
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(threads.getBody());
    Value ty = threads.getInductionVars()[0], tx = threads.getInductionVars()[1];
    auto loop = scf::ForOp::create(rewriter, loc, zero, constant(steps), one);
    rewriter.setInsertionPointToStart(loop.getBody());
    body(tx, ty, loop.getInductionVar());
  };

  // Phase 1, along k: thread x reads elements k0 + lanes x ... + lanes - 1 (one vector) of
  // rows j0 + y, j0 + y + 8, ... and writes them down a column of the tile.
  phase(rowsPerThread, [&](Value tx, Value ty, Value step) {
    Value jl = add(ty, times(step, kThreadRows)), kl = times(tx, lanes);
    SmallVector<Value> ivs(point);
    ivs[j] = add(j0, jl);
    ivs[k] = add(k0, kl);
    guardIf(both(guardJ ? below(ivs[j], extents[j]) : Value(),
                 guardK ? below(ivs[k], extents[k]) : Value()));
    for (auto [load, tile] : llvm::zip(plan.loads, tiles)) {
      IRMapping map;
      for (unsigned d = 0; d < rank; ++d)
        map.map(nest.getInductionVars()[d], ivs[d]);
      // (The slice held in a local: a range-for over `*indexSlice(...)` would iterate
      // a destroyed temporary.)
      SmallVector<Operation *> slice = *indexSlice(load, nest);
      for (Operation *op : slice)
        rewriter.clone(*op, map);
      SmallVector<Value> indices =
          llvm::map_to_vector(load.getIndices(), [&](Value v) { return map.lookupOrDefault(v); });
      if (lanes == 1) {
        Value value = memref::LoadOp::create(rewriter, loc, load.getMemRef(), indices);
        memref::StoreOp::create(rewriter, loc, value, tile, ValueRange{kl, jl});
        continue;
      }
      Type element = load.getType();
      auto vector = vector::LoadOp::create(rewriter, loc, VectorType::get({lanes}, element),
                                           load.getMemRef(), indices);
      vector.setAlignment(lanes * elementBytes(element));
      for (int64_t lane = 0; lane < lanes; ++lane) {
        Value value = vector::ExtractOp::create(rewriter, loc, vector, lane);
        memref::StoreOp::create(rewriter, loc, value, tile,
                                ValueRange{add(kl, constant(lane)), jl});
      }
    }
  });
  gpu::BarrierOp::create(rewriter, loc);

  // Phase 2, along j: thread x runs iterations j0 + lanes x ... + lanes - 1 (a loop of
  // `lanes` iterations, which gpu-vectorize-pointwise-loops makes one vector iteration)
  // of rows k0 + y, k0 + y + 8, ..., the nest's body with the tiled reads from the tile.
  phase(rowsPerThread, [&](Value tx, Value ty, Value step) {
    Value kl = add(ty, times(step, kThreadRows)), jlBase = times(tx, lanes);
    Value jBase = add(j0, jlBase);
    SmallVector<Value> ivs(point);
    ivs[k] = add(k0, kl);
    guardIf(both(guardK ? below(ivs[k], extents[k]) : Value(),
                 guardJ && !guardLanes ? below(jBase, extents[j]) : Value()));
    Value jl = jlBase;
    ivs[j] = jBase;
    if (lanes > 1) {
      auto run = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                         ValueRange{constant(lanes)}, ValueRange{one});
      rewriter.setInsertionPointToStart(run.getBody());
      Value lane = run.getInductionVars()[0];
      // The lane first, then its base (a multiple of the lanes): the vectorizer's shift.
      jl = add(lane, jlBase);
      ivs[j] = add(lane, jBase);
    }
    if (guardLanes)
      guardIf(below(ivs[j], extents[j]));
    Block *body = nest.getBody();
    rewriter.eraseOp(body->getTerminator());
    rewriter.inlineBlockBefore(body, rewriter.getInsertionBlock()->getTerminator(), ivs);
    for (auto [load, tile] : llvm::zip(plan.loads, tiles)) {
      rewriter.setInsertionPoint(load);
      rewriter.replaceOpWithNewOp<memref::LoadOp>(load, tile, ValueRange{kl, jl});
    }
  });
  rewriter.eraseOp(nest);
  // The index arithmetic only the tiled reads used.
  grid->walk<WalkOrder::PostOrder, mlir::ReverseIterator>([&](Operation *op) {
    if (isOpTriviallyDead(op))
      rewriter.eraseOp(op);
  });
}

} // namespace
