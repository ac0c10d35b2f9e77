//===- GpuBlockReductions.cpp - A CTA's threads on each output of a reduction ---===//
//
// The generic lowering gives each output of a reduction a thread, which combines its
// inputs one after another (gpu-interchange-reductions puts the outputs' loops outside,
// gpu-promote-accumulators carries the value in registers). Where the outputs are few,
// the GPU holds few loads in flight: EfficientNet-B0's last squeeze-excite pool at batch
// 32 is 4608 threads (vectors of 8 channels) of 49 loads each, its first 128 threads of
// 12544 loads, and they ran at 12-30% of the H200's bandwidth.
//
// This pass gives each output Y threads of a CTA. A CTA of 256 threads takes X = 256 / Y
// consecutive outputs (in the nest's row-major order, so that a warp's reads stay
// contiguous across outputs); thread (x, y) combines iterations y, y + Y, y + 2Y, ... of
// the output's reduction (the loop nest collapsed into one loop), from the combining op's
// identity, and leaves its partial value in shared memory; after a barrier, the X threads
// of y = 0 each combine their output's Y partial values (where Y > 16, first threads
// y < Y / 16 combine 16 each, behind another barrier), from the loop's initial value,
// and run the rest of the nest's body on the total. Where even that leaves the GPU with
// few threads, a CTA first takes fewer outputs (down to a 32-byte sector of them) and
// more threads each; then the reduction is also split into S slices across CTAs: each
// CTA combines one slice into an S x outputs workspace, and a second nest of the
// original bounds combines each output's S values and runs the rest of the body (a
// second launch, itself shared the same way, without slices).
//
// The combining ops are those of an associative reduction (addf, mulf, the float minima
// and maxima, addi, muli, the integer minima and maxima, andi, ori, xori); floats are
// combined in another order, so a sum's value is the same up to rounding. The pass runs
// after gpu-vectorize-pointwise-loops, so a thread's output may be a vector of lanes, its
// loads 16 bytes each.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"
#include "passes/lowering/TopLevelNests.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/TypeSwitch.h"

namespace kiln {
#define GEN_PASS_DEF_GPUBLOCKREDUCTIONS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Threads of a CTA.
constexpr int64_t kCtaThreads = 256;
/// Threads that fill the H200: 132 SMs of 2048 resident threads each.
constexpr int64_t kThreadsToFill = 256 * 1024;
/// The fewest iterations of the reduction a thread keeps: with fewer, the combining in
/// shared memory costs about what the loads do.
constexpr int64_t kMinThreadIterations = 4;
/// The fewest iterations a slice's thread keeps (a slice also costs a workspace write and
/// a read in the second nest).
constexpr int64_t kMinSliceThreadIterations = 8;
/// Iterations of its reduction a thread runs at once (their loads in flight together).
constexpr int64_t kUnroll = 4;
/// Values an output one thread combines in shared memory, at most, between barriers.
constexpr int64_t kFanIn = 16;
/// Bytes a warp should read contiguously of consecutive outputs (a cache line): the
/// fewest outputs a CTA takes are those that span it.
constexpr int64_t kLineBytes = 128;
/// The fewest bytes of consecutive outputs a warp reads where the CTAs would be too few
/// otherwise (a 32-byte sector: no byte the DRAM delivers goes unused).
constexpr int64_t kSectorBytes = 32;

/// Whether `op` only reads memory or computes (no regions).
bool readsOrComputes(Operation *op) {
  if (op->getNumRegions() != 0)
    return false;
  if (isMemoryEffectFree(op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && effects.onlyHasEffect<MemoryEffects::Read>();
}

/// The identity of `combine` (one of the file header's ops) for values of `type`, or null.
TypedAttr identityOf(Operation *combine, Type type) {
  Type element = getElementTypeOrSelf(type);
  TypedAttr scalar;
  if (auto floatType = dyn_cast<FloatType>(element)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    std::optional<APFloat> value =
        TypeSwitch<Operation *, std::optional<APFloat>>(combine)
            .Case([&](arith::AddFOp) { return APFloat::getZero(semantics, /*Negative=*/true); })
            .Case([&](arith::MulFOp) { return APFloat::getOne(semantics); })
            .Case<arith::MaximumFOp, arith::MaxNumFOp>(
                [&](Operation *) { return APFloat::getInf(semantics, /*Negative=*/true); })
            .Case<arith::MinimumFOp, arith::MinNumFOp>(
                [&](Operation *) { return APFloat::getInf(semantics, /*Negative=*/false); })
            .Default([](Operation *) { return std::nullopt; });
    if (!value)
      return {};
    scalar = FloatAttr::get(element, *value);
  } else if (auto integer = dyn_cast<IntegerType>(element)) {
    unsigned width = integer.getWidth();
    std::optional<APInt> value =
        TypeSwitch<Operation *, std::optional<APInt>>(combine)
            .Case<arith::AddIOp, arith::OrIOp, arith::XOrIOp, arith::MaxUIOp>(
                [&](Operation *) { return APInt::getZero(width); })
            .Case([&](arith::MulIOp) { return APInt(width, 1); })
            .Case<arith::AndIOp, arith::MinUIOp>(
                [&](Operation *) { return APInt::getAllOnes(width); })
            .Case([&](arith::MaxSIOp) { return APInt::getSignedMinValue(width); })
            .Case([&](arith::MinSIOp) { return APInt::getSignedMaxValue(width); })
            .Default([](Operation *) { return std::nullopt; });
    if (!value)
      return {};
    scalar = IntegerAttr::get(element, *value);
  } else {
    return {};
  }
  if (auto vector = dyn_cast<VectorType>(type))
    return DenseElementsAttr::get(vector, ArrayRef<Attribute>(scalar));
  return scalar;
}

/// A nest's reduction: a perfect nest of scf.for loops of constant bounds in its body,
/// carrying values that the innermost loop's body combines each with one value computed
/// without them.
struct Reduction {
  SmallVector<scf::ForOp> levels;     // outermost first
  SmallVector<int64_t> trips;         // of each level
  SmallVector<int64_t> lowers, steps; // of each level
  int64_t iterations = 1;             // of the whole loop nest
  SmallVector<Operation *> combines;  // the innermost body's op for each carried value
  /// Whether a load walks the innermost level's variable in its last index (reads
  /// contiguous along the reduction, as a sum over an NCHW image's pixels).
  bool contiguous = false;

  scf::ForOp outer() const { return levels.front(); }
  scf::ForOp inner() const { return levels.back(); }
};

/// Whether `value` is computed from `iv` (through ops in `block`).
bool dependsOn(Value value, Value iv, Block *block) {
  if (value == iv)
    return true;
  Operation *def = value.getDefiningOp();
  if (!def || !block->getParentOp()->isProperAncestor(def))
    return false;
  return llvm::any_of(def->getOperands(),
                      [&](Value operand) { return dependsOn(operand, iv, block); });
}

/// `nest`'s reduction, if its body is reads and arithmetic, then the loop nest, then
/// anything without loops.
std::optional<Reduction> findReduction(scf::ParallelOp nest) {
  std::optional<Reduction> found;
  for (Operation &op : nest.getBody()->without_terminator()) {
    auto loop = dyn_cast<scf::ForOp>(op);
    if (found) {
      // After the reduction: its epilogue, which one thread an output runs. Loops there
      // (a softmax's second pass) would run on the few threads of y = 0 only.
      bool loops = op.walk([](Operation *nested) {
                       return isa<LoopLikeOpInterface>(nested) ? WalkResult::interrupt()
                                                               : WalkResult::advance();
                     }).wasInterrupted();
      if (loops)
        return std::nullopt;
      continue;
    }
    if (!loop) {
      if (!readsOrComputes(&op))
        return std::nullopt;
      continue;
    }
    Reduction reduction;
    unsigned carried = loop.getNumRegionIterArgs();
    if (carried == 0)
      return std::nullopt;
    for (scf::ForOp level = loop;;) {
      std::optional<int64_t> lower = getConstantIntValue(level.getLowerBound());
      std::optional<int64_t> upper = getConstantIntValue(level.getUpperBound());
      std::optional<int64_t> step = getConstantIntValue(level.getStep());
      if (!lower || !upper || !step || *step <= 0 || *upper <= *lower ||
          level.getNumRegionIterArgs() != carried)
        return std::nullopt;
      reduction.levels.push_back(level);
      reduction.lowers.push_back(*lower);
      reduction.steps.push_back(*step);
      reduction.trips.push_back(llvm::divideCeil(*upper - *lower, *step));
      reduction.iterations *= reduction.trips.back();
      Block *body = level.getBody();
      auto yield = cast<scf::YieldOp>(body->getTerminator());
      // Either the next level, alone with the yield and carrying the values through...
      if (auto next = dyn_cast<scf::ForOp>(body->front());
          next && &body->front() == yield->getPrevNode() &&
          llvm::equal(next.getInitArgs(), level.getRegionIterArgs()) &&
          llvm::equal(yield.getOperands(), next.getResults())) {
        level = next;
        continue;
      }
      // ... or the innermost: reads and arithmetic, each carried value combined once.
      if (!llvm::all_of(body->without_terminator(),
                        [](Operation &inner) { return readsOrComputes(&inner); }))
        return std::nullopt;
      for (auto [value, yielded] : llvm::zip(level.getRegionIterArgs(), yield.getOperands())) {
        Operation *combine = yielded.getDefiningOp();
        if (!combine || combine->getBlock() != body || !value.hasOneUse() ||
            !combine->hasOneUse() || combine->getNumOperands() != 2 ||
            (combine->getOperand(0) != value && combine->getOperand(1) != value) ||
            !identityOf(combine, value.getType()))
          return std::nullopt;
        reduction.combines.push_back(combine);
      }
      body->walk([&](Operation *read) {
        Value last;
        if (auto load = dyn_cast<memref::LoadOp>(read); load && !load.getIndices().empty())
          last = load.getIndices().back();
        if (auto load = dyn_cast<vector::LoadOp>(read); load && !load.getIndices().empty())
          last = load.getIndices().back();
        if (last && dependsOn(last, level.getInductionVar(), body))
          reduction.contiguous = true;
      });
      break;
    }
    found = std::move(reduction);
  }
  return found;
}

/// How the pass shares a nest's reduction: X outputs and Y threads an output a CTA, S
/// slices across CTAs.
struct Shape {
  int64_t outputs = 0, outputsPerCta = 0, threadsPerOutput = 0, slices = 1;
};

/// The shape for a nest of `outputs` iterations reading `bytes` an iteration of its
/// reduction, if sharing its reduction pays; in slices too if `slices`.
std::optional<Shape> shapeFor(int64_t outputs, const Reduction &reduction, int64_t bytes,
                              bool slices) {
  // Enough threads already, one an output.
  if (outputs >= kThreadsToFill / 2)
    return std::nullopt;
  Shape shape;
  shape.outputs = outputs;
  // The fewest outputs whose reads span a line, as many threads an output as the rest of
  // the CTA, fewer where the reduction is short or the outputs alone fill the GPU.
  int64_t fewest = reduction.contiguous
                       ? 1
                       : std::clamp<int64_t>(kLineBytes / std::max<int64_t>(bytes, 1), 1, 32);
  int64_t y = kCtaThreads / fewest;
  while (y > 1 &&
         (y * kMinThreadIterations > reduction.iterations || outputs * y > 2 * kThreadsToFill))
    y /= 2;
  // Too few CTAs still: fewer outputs a CTA, down to those whose reads span a sector,
  // and more threads each (before slices, which cost a second launch).
  int64_t fewestInSector =
      reduction.contiguous
          ? 1
          : std::clamp<int64_t>(kSectorBytes / std::max<int64_t>(bytes, 1), 1, fewest);
  while (kCtaThreads / y > fewestInSector &&
         llvm::divideCeil(outputs, kCtaThreads / y) * kCtaThreads < kThreadsToFill / 2 &&
         2 * y * kMinThreadIterations <= reduction.iterations)
    y *= 2;
  if (y < 2)
    return std::nullopt;
  shape.threadsPerOutput = y;
  shape.outputsPerCta = kCtaThreads / y;
  int64_t ctas = llvm::divideCeil(outputs, shape.outputsPerCta);
  if (slices && ctas * kCtaThreads < kThreadsToFill / 2) {
    int64_t wanted = llvm::divideCeil(kThreadsToFill, ctas * kCtaThreads);
    int64_t most = reduction.iterations / (y * kMinSliceThreadIterations);
    shape.slices = std::max<int64_t>(1, std::min(wanted, most));
  }
  return shape;
}

/// The widest access of the reduction's innermost body, in bytes.
int64_t bytesPerIteration(const Reduction &reduction) {
  int64_t bytes = 0;
  reduction.inner().getBody()->walk([&](Operation *op) {
    if (!isa<memref::LoadOp, vector::LoadOp>(op))
      return;
    Type type = op->getResult(0).getType();
    int64_t elements = 1;
    if (auto vector = dyn_cast<VectorType>(type))
      elements = vector.getNumElements();
    int64_t width = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
    bytes = std::max(bytes, elements * std::max<int64_t>(width / 8, 1));
  });
  return bytes;
}

/// Builds the CTA nest (and, with slices, the workspace and the second nest) that
/// replace `nest`.
class BlockReduction {
public:
  BlockReduction(scf::ParallelOp nest, const Reduction &reduction, const Shape &shape)
      : nest(nest), reduction(reduction), shape(shape), b(nest), loc(nest.getLoc()) {
    for (auto [lower, upper, step] :
         llvm::zip(nest.getLowerBound(), nest.getUpperBound(), nest.getStep())) {
      int64_t l = *getConstantIntValue(lower), s = *getConstantIntValue(step);
      lowers.push_back(l);
      steps.push_back(s);
      trips.push_back(llvm::divideCeil(*getConstantIntValue(upper) - l, s));
    }
  }

  /// Replaces the nest; returns the second nest, if the reduction has slices.
  scf::ParallelOp run() {
    SmallVector<Value> workspaces;
    if (shape.slices > 1)
      for (Value init : reduction.outer().getInitArgs())
        workspaces.push_back(allocate(init.getType(), {shape.slices, shape.outputs}, {}));
    buildCtaNest(workspaces);
    scf::ParallelOp totals;
    if (shape.slices > 1)
      totals = buildTotals(workspaces);
    nest.erase();
    return totals;
  }

private:
  scf::ParallelOp nest;
  const Reduction &reduction;
  Shape shape;
  OpBuilder b;
  Location loc;
  SmallVector<int64_t> lowers, steps, trips;

  Value constant(OpBuilder &at, int64_t v) { return arith::ConstantIndexOp::create(at, loc, v); }

  /// A buffer of `shape` values of `type` (a vector's lanes its innermost dimension):
  /// shared memory in `space`, global memory without.
  Value allocate(Type type, ArrayRef<int64_t> sizes, Attribute space) {
    SmallVector<int64_t> dims(sizes);
    Type element = type;
    if (auto vector = dyn_cast<VectorType>(type)) {
      dims.push_back(vector.getNumElements());
      element = vector.getElementType();
    }
    auto memref = MemRefType::get(dims, element, AffineMap(), space);
    if (space)
      return memref::AllocaOp::create(b, loc, memref);
    return memref::AllocOp::create(b, loc, memref);
  }

  void store(OpBuilder &at, Value value, Value buffer, SmallVector<Value> indices) {
    if (isa<VectorType>(value.getType())) {
      indices.push_back(constant(at, 0));
      vector::StoreOp::create(at, loc, value, buffer, indices);
      return;
    }
    memref::StoreOp::create(at, loc, value, buffer, indices);
  }

  Value load(OpBuilder &at, Type type, Value buffer, SmallVector<Value> indices) {
    if (auto vector = dyn_cast<VectorType>(type)) {
      indices.push_back(constant(at, 0));
      return vector::LoadOp::create(at, loc, vector, buffer, indices);
    }
    return memref::LoadOp::create(at, loc, buffer, indices);
  }

  /// `combine` (a reduction's op) applied to `acc` and `value`.
  Value combineWith(OpBuilder &at, Operation *combine, Value acc, Value value) {
    Operation *op = at.clone(*combine);
    op->setOperands({acc, value});
    return op->getResult(0);
  }

  /// The variables of loops of `trips` iterations from `lowers` in `steps` at iteration
  /// `linear` of their row-major order (the nest's outputs, a reduction's levels).
  SmallVector<Value> delinearize(OpBuilder &at, Value linear, ArrayRef<int64_t> trips,
                                 ArrayRef<int64_t> lowers, ArrayRef<int64_t> steps) {
    SmallVector<Value> ivs(trips.size());
    Value rest = linear;
    for (int64_t d = static_cast<int64_t>(trips.size()) - 1; d >= 0; --d) {
      Value index = rest;
      if (d > 0) {
        index = arith::RemUIOp::create(at, loc, rest, constant(at, trips[d]));
        rest = arith::DivUIOp::create(at, loc, rest, constant(at, trips[d]));
      }
      if (steps[d] != 1)
        index = arith::MulIOp::create(at, loc, index, constant(at, steps[d]));
      if (lowers[d] != 0)
        index = arith::AddIOp::create(at, loc, index, constant(at, lowers[d]));
      ivs[d] = index;
    }
    return ivs;
  }

  /// The nest's variables at output `linear`.
  SmallVector<Value> outputIvs(OpBuilder &at, Value linear) {
    return delinearize(at, linear, trips, lowers, steps);
  }

  /// The row-major index of the nest's variables `ivs`.
  Value linearOf(OpBuilder &at, ValueRange ivs) {
    Value linear;
    for (auto [d, iv] : llvm::enumerate(ivs)) {
      Value index = iv;
      if (lowers[d] != 0)
        index = arith::SubIOp::create(at, loc, index, constant(at, lowers[d]));
      if (steps[d] != 1)
        index = arith::DivUIOp::create(at, loc, index, constant(at, steps[d]));
      linear = linear ? arith::AddIOp::create(
                            at, loc, arith::MulIOp::create(at, loc, linear, constant(at, trips[d])),
                            index)
                      : index;
    }
    return linear;
  }

  /// The body's ops before the reduction, at `at` with the variables mapped.
  void clonePrologue(OpBuilder &at, IRMapping &mapping) {
    for (Operation &op : nest.getBody()->without_terminator()) {
      if (&op == reduction.outer().getOperation())
        break;
      at.clone(op, mapping);
    }
  }

  /// The body's ops after the reduction (its results mapped to `totals`), at `at`.
  void cloneEpilogue(OpBuilder &at, IRMapping &mapping, ValueRange totals) {
    for (auto [result, total] : llvm::zip(reduction.outer().getResults(), totals))
      mapping.map(result, total);
    bool after = false;
    for (Operation &op : nest.getBody()->without_terminator()) {
      if (after)
        at.clone(op, mapping);
      after |= &op == reduction.outer().getOperation();
    }
  }

  /// A loop over the reduction's iterations [first, end) in steps of `stride`, each
  /// running the innermost body (the levels' variables delinearised), combining into
  /// values that start at the identities. The loop takes kUnroll iterations at once, so
  /// that their loads are in flight together: each runs the body from the identity at
  /// its iteration, or at the last one where it is past the end (a valid read, whose
  /// value is then replaced by the identity), and the values are combined in order.
  SmallVector<Value> partialLoop(OpBuilder &at, IRMapping &mapping, Value first, Value end,
                                 int64_t stride) {
    SmallVector<Value> inits;
    for (auto [combine, init] : llvm::zip(reduction.combines, reduction.outer().getInitArgs()))
      inits.push_back(arith::ConstantOp::create(at, loc, identityOf(combine, init.getType())));
    Value last = arith::SubIOp::create(at, loc, end, constant(at, 1));
    auto loop = scf::ForOp::create(
        at, loc, first, end, constant(at, stride * kUnroll), inits,
        [&](OpBuilder &in, Location, Value start, ValueRange carried) {
          SmallVector<Value> acc(carried);
          for (int64_t u = 0; u < kUnroll; ++u) {
            Value r = start, inside;
            if (u > 0) {
              Value next = arith::AddIOp::create(in, loc, start, constant(in, u * stride));
              inside = arith::CmpIOp::create(in, loc, arith::CmpIPredicate::ult, next, end);
              r = arith::MinUIOp::create(in, loc, next, last);
            }
            SmallVector<Value> ivs =
                delinearize(in, r, reduction.trips, reduction.lowers, reduction.steps);
            for (auto [forOp, iv] : llvm::zip(reduction.levels, ivs))
              mapping.map(scf::ForOp(forOp).getInductionVar(), iv);
            for (auto [arg, identity] : llvm::zip(reduction.inner().getRegionIterArgs(), inits))
              mapping.map(arg, identity);
            Block *body = reduction.inner().getBody();
            for (Operation &op : body->without_terminator())
              in.clone(op, mapping);
            for (auto [j, yielded] : llvm::enumerate(body->getTerminator()->getOperands())) {
              Value term = mapping.lookupOrDefault(yielded);
              if (inside)
                term = arith::SelectOp::create(in, loc, inside, term, inits[j]);
              acc[j] = combineWith(in, reduction.combines[j], acc[j], term);
            }
          }
          scf::YieldOp::create(in, loc, acc);
        });
    return loop.getResults();
  }

  /// Combines `count` values, `read(k)` each, into `start` (one a carried value).
  SmallVector<Value> fold(OpBuilder &at, ArrayRef<Value> starts, int64_t count,
                          function_ref<Value(OpBuilder &, unsigned, Value)> read) {
    auto loop = scf::ForOp::create(
        at, loc, constant(at, 0), constant(at, count), constant(at, 1), starts,
        [&](OpBuilder &in, Location, Value k, ValueRange carried) {
          SmallVector<Value> next;
          for (auto [j, acc] : llvm::enumerate(carried))
            next.push_back(combineWith(in, reduction.combines[j], acc, read(in, j, k)));
          scf::YieldOp::create(in, loc, next);
        });
    return loop.getResults();
  }

  /// The CTAs: partial values in shared memory, then each output's total (or its slice's
  /// value, into `workspaces`).
  void buildCtaNest(ArrayRef<Value> workspaces) {
    MLIRContext *context = b.getContext();
    int64_t x = shape.outputsPerCta, y = shape.threadsPerOutput;
    int64_t tiles = llvm::divideCeil(shape.outputs, x);
    auto mapping = [&](ArrayRef<gpu::Processor> processors) {
      AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
      return llvm::map_to_vector(processors, [&](gpu::Processor p) {
        return gpu::ParallelLoopDimMappingAttr::get(context, p, identity, identity);
      });
    };
    Value zero = constant(b, 0), one = constant(b, 1);
    auto grid = scf::ParallelOp::create(
        b, loc, ValueRange{zero}, ValueRange{constant(b, tiles * shape.slices)}, ValueRange{one});
    (void)gpu::setMappingAttr(grid, mapping({gpu::Processor::BlockX}));
    for (NamedAttribute attr : nest->getDiscardableAttrs())
      grid->setAttr(attr.getName(), attr.getValue());

    OpBuilder cta = OpBuilder::atBlockBegin(grid.getBody());
    Value ctaIndex = grid.getInductionVars()[0];
    Value tile = ctaIndex, slice;
    if (shape.slices > 1 && tiles == 1) {
      tile = constant(cta, 0);
      slice = ctaIndex;
    } else if (shape.slices > 1) {
      tile = arith::RemUIOp::create(cta, loc, ctaIndex, constant(cta, tiles));
      slice = arith::DivUIOp::create(cta, loc, ctaIndex, constant(cta, tiles));
    }
    Value base = arith::MulIOp::create(cta, loc, tile, constant(cta, x));
    Attribute workgroup = gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
    SmallVector<Value> partials;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(grid.getBody());
      for (Value init : reduction.outer().getInitArgs())
        partials.push_back(allocate(init.getType(), {y, x}, workgroup));
    }
    // Threads: the outputs' x fastest, unless the reads are contiguous along the
    // reduction (then its y: a warp reads consecutive elements).
    SmallVector<gpu::Processor> processors = {gpu::Processor::ThreadY, gpu::Processor::ThreadX};
    if (reduction.contiguous)
      std::swap(processors[0], processors[1]);
    auto phase = [&](function_ref<void(OpBuilder &, Value tx, Value ty, Value output)> body) {
      auto threads =
          scf::ParallelOp::create(cta, loc, ValueRange{constant(cta, 0), constant(cta, 0)},
                                  ValueRange{constant(cta, y), constant(cta, x)},
                                  ValueRange{constant(cta, 1), constant(cta, 1)});
      (void)gpu::setMappingAttr(threads, mapping(processors));
      OpBuilder in = OpBuilder::atBlockBegin(threads.getBody());
      Value ty = threads.getInductionVars()[0], tx = threads.getInductionVars()[1];
      Value output = arith::AddIOp::create(in, loc, base, tx);
      body(in, tx, ty, output);
    };
    auto guardIf = [&](OpBuilder &in, Value condition) {
      auto inside = scf::IfOp::create(in, loc, condition, /*withElseRegion=*/false);
      in.setInsertionPointToStart(inside.thenBlock());
    };
    auto below = [&](OpBuilder &in, Value v, int64_t bound) -> Value {
      return arith::CmpIOp::create(in, loc, arith::CmpIPredicate::ult, v, constant(in, bound));
    };

    // Phase 1: thread (x, y) combines iterations y, y + Y, ... of its output's slice.
    phase([&](OpBuilder &in, Value tx, Value ty, Value output) {
      if (shape.outputs % x != 0)
        guardIf(in, below(in, output, shape.outputs));
      IRMapping mapping;
      for (auto [old, now] : llvm::zip(nest.getInductionVars(), outputIvs(in, output)))
        mapping.map(old, now);
      clonePrologue(in, mapping);
      Value first = ty, end = constant(in, reduction.iterations);
      if (shape.slices > 1) {
        int64_t length = llvm::divideCeil(reduction.iterations, shape.slices);
        Value start = arith::MulIOp::create(in, loc, slice, constant(in, length));
        first = arith::AddIOp::create(in, loc, start, ty);
        end = arith::MinUIOp::create(
            in, loc, arith::AddIOp::create(in, loc, start, constant(in, length)), end);
      }
      SmallVector<Value> values = partialLoop(in, mapping, first, end, y);
      for (auto [value, buffer] : llvm::zip(values, partials))
        store(in, value, buffer, {ty, tx});
    });
    gpu::BarrierOp::create(cta, loc);

    // Between: while more than kFanIn values an output remain, threads y < count / kFanIn
    // each combine kFanIn of them (y, y + count / kFanIn, ...: consecutive threads read
    // consecutive words) into their own slot, which no other thread reads.
    int64_t count = y;
    while (count > kFanIn) {
      int64_t next = count / kFanIn;
      phase([&](OpBuilder &in, Value tx, Value ty, Value output) {
        Value active = below(in, ty, next);
        if (shape.outputs % x != 0)
          active = arith::AndIOp::create(in, loc, active, below(in, output, shape.outputs));
        guardIf(in, active);
        SmallVector<Value> starts;
        for (auto [combine, init] : llvm::zip(reduction.combines, reduction.outer().getInitArgs()))
          starts.push_back(arith::ConstantOp::create(in, loc, identityOf(combine, init.getType())));
        SmallVector<Value> values =
            fold(in, starts, kFanIn, [&](OpBuilder &at, unsigned j, Value k) {
              Value slot = arith::AddIOp::create(
                  at, loc, ty, arith::MulIOp::create(at, loc, k, constant(at, next)));
              return load(at, starts[j].getType(), partials[j], {slot, tx});
            });
        for (auto [value, buffer] : llvm::zip(values, partials))
          store(in, value, buffer, {ty, tx});
      });
      gpu::BarrierOp::create(cta, loc);
      count = next;
    }

    // Last: the threads of y = 0 combine their output's remaining values.
    phase([&](OpBuilder &in, Value tx, Value ty, Value output) {
      Value first = arith::CmpIOp::create(in, loc, arith::CmpIPredicate::eq, ty, constant(in, 0));
      if (shape.outputs % x != 0)
        first = arith::AndIOp::create(in, loc, first, below(in, output, shape.outputs));
      guardIf(in, first);
      IRMapping mapping;
      for (auto [old, now] : llvm::zip(nest.getInductionVars(), outputIvs(in, output)))
        mapping.map(old, now);
      clonePrologue(in, mapping);
      SmallVector<Value> starts;
      for (auto [combine, init] : llvm::zip(reduction.combines, reduction.outer().getInitArgs())) {
        if (shape.slices > 1)
          starts.push_back(arith::ConstantOp::create(in, loc, identityOf(combine, init.getType())));
        else
          starts.push_back(mapping.lookupOrDefault(init));
      }
      SmallVector<Value> totals = fold(in, starts, count, [&](OpBuilder &at, unsigned j, Value k) {
        return load(at, starts[j].getType(), partials[j], {k, tx});
      });
      if (shape.slices > 1) {
        for (auto [total, workspace] : llvm::zip(totals, workspaces))
          store(in, total, workspace, {slice, output});
        return;
      }
      cloneEpilogue(in, mapping, totals);
    });
    eraseDeadOps(grid);
  }

  /// The second nest: each output's slices combined, then the rest of the body.
  scf::ParallelOp buildTotals(ArrayRef<Value> workspaces) {
    auto totals =
        scf::ParallelOp::create(b, loc, nest.getLowerBound(), nest.getUpperBound(), nest.getStep());
    for (NamedAttribute attr : nest->getDiscardableAttrs())
      totals->setAttr(attr.getName(), attr.getValue());
    OpBuilder in = OpBuilder::atBlockBegin(totals.getBody());
    IRMapping mapping;
    for (auto [old, now] : llvm::zip(nest.getInductionVars(), totals.getInductionVars()))
      mapping.map(old, now);
    clonePrologue(in, mapping);
    Value output = linearOf(in, totals.getInductionVars());
    SmallVector<Value> starts = llvm::map_to_vector(
        reduction.outer().getInitArgs(), [&](Value init) { return mapping.lookupOrDefault(init); });
    SmallVector<Value> values =
        fold(in, starts, shape.slices, [&](OpBuilder &at, unsigned j, Value s) {
          return load(at, starts[j].getType(), workspaces[j], {s, output});
        });
    cloneEpilogue(in, mapping, values);
    eraseDeadOps(totals);
    return totals;
  }

  /// Ops of `root` whose results nothing uses (the prologue's reads the phase does not
  /// need).
  static void eraseDeadOps(Operation *root) {
    root->walk<WalkOrder::PostOrder, mlir::ReverseIterator>([&](Operation *op) {
      if (op != root && isOpTriviallyDead(op))
        op->erase();
    });
  }
};

struct GpuBlockReductions : kiln::impl::GpuBlockReductionsBase<GpuBlockReductions> {
  void runOnOperation() override {
    // The second nest of a reduction in slices is itself a reduction of few outputs (over
    // the slices): shared in turn where that pays, in one launch (no slices again).
    SmallVector<scf::ParallelOp> worklist = kiln::topLevelNests(getOperation());
    DenseSet<Operation *> totals;
    while (!worklist.empty()) {
      scf::ParallelOp nest = worklist.pop_back_val();
      if (nest.getNumReductions() != 0 || nest->hasAttr(gpu::getMappingAttrName()))
        continue;
      int64_t outputs = 1;
      bool constant = true;
      for (auto [lower, upper, step] :
           llvm::zip(nest.getLowerBound(), nest.getUpperBound(), nest.getStep())) {
        std::optional<int64_t> l = getConstantIntValue(lower), u = getConstantIntValue(upper),
                               s = getConstantIntValue(step);
        constant &= l && u && s && *s > 0 && *u > *l;
        if (constant)
          outputs *= llvm::divideCeil(*u - *l, *s);
      }
      if (!constant)
        continue;
      std::optional<Reduction> reduction = findReduction(nest);
      if (!reduction)
        continue;
      if (std::optional<Shape> shape = shapeFor(outputs, *reduction, bytesPerIteration(*reduction),
                                                /*slices=*/!totals.contains(nest)))
        if (scf::ParallelOp second = BlockReduction(nest, *reduction, *shape).run()) {
          totals.insert(second);
          worklist.push_back(second);
        }
    }
  }
};

} // namespace
