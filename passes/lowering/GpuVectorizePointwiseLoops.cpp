//===- GpuVectorizePointwiseLoops.cpp - 16-byte accesses for pointwise nests --===//
//
// gpu-map-loops gives each thread one iteration of a nest: an elementwise kernel over f16
// buffers loads and stores 2 bytes a thread, and a warp moves 64 bytes an instruction.
// Such kernels ran at ~0.84 TB/s on the H200 (EfficientNet-B0's squeeze-excite gates at
// batch 256: 2.9 ms of its 10.5), a fifth of the bandwidth. This pass gives each iteration
// of a nest's innermost loop 16 bytes: the loop steps by V elements, and each access that
// walks the innermost dimension becomes a vector load or store of V elements, each
// access that does not (a broadcast operand) a scalar load whose value is splat, and the
// arithmetic between them works on vectors of V. The thread's work is the same V
// iterations in order, so the results are those of the scalar nest, bit for bit.
//
// The innermost variable may also be shifted by a constant multiple of V (a concatenation
// along the innermost axis reads its second operand at `i - C`) and compared with one (the
// concatenation's choice of operand, `i >= C`): over V consecutive iterations starting at
// a multiple of V, the shifted index starts at a multiple of V too, and the comparison has
// the same value in every lane, so it stays scalar, evaluated at the first. A shift by a
// value that is a multiple of V by its arithmetic (a thread's base in a tile of
// gpu-tile-transposes, whose lanes' loops this pass takes too) is the same.
//
// V is 16 bytes of the widest element accessed along the variable, or the most lanes up
// to that which divide the extent (rows of 12 f16 take 4; a tile's run of 2, 2).
//
// Gathers: a load at positions computed from the variable (a nearest Resize reads
// in[.., f(w)], a GridSample its 4 taps) is one scalar load a lane, at the lane's indices,
// gathered into a vector; the variable used as a value is the vector of the lanes'
// values. The stores still take V elements at once, and the position arithmetic is the
// same ops on vectors (the thread computes V of them, where V threads computed one each).
//
// Strided reads: a load whose last index is s * i + c (a constant stride s of 2 to 4, c
// between 0 and s - 1 by its arithmetic: a window's offset in a pooling whose windows do
// not overlap) reads the s * V elements from s * i on as one vector (16-byte accesses) and
// takes every s-th from c: a 2x2 average pool of stride 2 reads 32 bytes a thread an
// access where it read 2, in full sectors. Its index values used otherwise are the lanes'
// s * (i + k) + c.
//
// Loops inside the thread: a reduction's scf.for (one thread an output, the sum carried
// by the loop after gpu-promote-accumulators) takes the same treatment in its body, and
// each value it carries whose initial or yielded value varies becomes a vector: a sum
// over a middle or outer axis of f16 rows reads 16 bytes a thread an iteration where it
// read 2, each lane adding the same values in the same order.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/AlignedRows.h"
#include "passes/lowering/Passes.h"
#include "passes/lowering/TopLevelNests.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln {
#define GEN_PASS_DEF_GPUVECTORIZEPOINTWISELOOPS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using kiln::alignedRows;

namespace {

/// The bytes a thread moves per access: one 16-byte vector (ld.global.v4.b32).
constexpr int64_t kVectorBytes = 16;
/// At most this many lanes (i8 buffers take 8-byte vectors, not 16 lanes of arithmetic).
constexpr int64_t kMaxLanes = 8;
/// At most this many lanes times the ops each lane computes for itself in a nest that
/// gathers (Analysis::laneWork).
constexpr int64_t kMaxGatherWork = 160;
/// The largest stride of a strided read (its vector is stride x lanes elements).
constexpr int64_t kMaxStride = 4;

/// The range [low, high] of an index value by its arithmetic (constants, the induction
/// variables of loops with constant bounds, sums and differences), if known.
std::optional<std::pair<int64_t, int64_t>> indexRange(Value value) {
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return std::make_pair(*constant, *constant);
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    auto loop = dyn_cast<scf::ForOp>(argument.getOwner()->getParentOp());
    if (!loop || argument != loop.getInductionVar())
      return std::nullopt;
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!lower || !upper || !step || *step <= 0 || *upper <= *lower)
      return std::nullopt;
    return std::make_pair(*lower, *upper - 1);
  }
  Operation *def = value.getDefiningOp();
  if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def))
    return std::nullopt;
  auto left = indexRange(def->getOperand(0));
  auto right = indexRange(def->getOperand(1));
  if (!left || !right)
    return std::nullopt;
  if (isa<arith::AddIOp>(def))
    return std::make_pair(left->first + right->first, left->second + right->second);
  return std::make_pair(left->first - right->second, left->second - right->first);
}

/// The buffer and indices of a load or store (null for other ops).
std::pair<Value, ValueRange> accessOf(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return {load.getMemRef(), load.getIndices()};
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return {store.getMemRef(), store.getIndices()};
  return {Value(), ValueRange()};
}

/// Whether consecutive elements along dimension `d` of `buffer` lie within a 32-byte
/// sector of each other (a static stride below 32 bytes: the pairs of a sampling
/// grid's [.., 2] rows), so that lanes reading along it share sectors.
bool withinSector(Value buffer, int64_t d) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || ShapedType::isDynamic(strides[d]) ||
      !type.getElementType().isIntOrFloat())
    return false;
  return strides[d] * llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8) < 32;
}

/// Whether `op` may work on vectors lane by lane: the elementwise arithmetic of the arith
/// and math dialects (which the device lowering takes as vectors: LLVM vector
/// arithmetic, libdevice calls one lane at a time), index arithmetic included (a gathered
/// element's position computed from the variable).
bool isLanewise(Operation *op) {
  return op->getNumRegions() == 0 && op->hasTrait<OpTrait::Elementwise>() &&
         op->hasTrait<OpTrait::Vectorizable>() &&
         isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
         llvm::all_of(op->getResultTypes(), [](Type type) { return type.isIntOrIndexOrFloat(); });
}

/// Whether `op` chooses between regions on values that do not vary along the innermost
/// dimension (a concatenation's `scf.index_switch` on the position along its axis, an
/// `scf.if`): kept as it is, with its regions vectorized and its results vectors.
bool isChoice(Operation *op) { return isa<scf::IfOp, scf::IndexSwitchOp>(op); }

/// Whether `predicate` orders its operands (a comparison with a block boundary is the same
/// in all lanes of the block; eq and ne are not).
bool isOrdering(arith::CmpIPredicate predicate) {
  return predicate != arith::CmpIPredicate::eq && predicate != arith::CmpIPredicate::ne;
}

/// Whether the strided index `index` (its stride in `strided`) is s * variable + c with c
/// in [0, s) by its arithmetic: the lanes' elements lie in the s * V from s * variable on.
bool withinStrideBlock(Value index, const DenseMap<Value, int64_t> &strided) {
  int64_t stride = strided.lookup(index);
  int64_t low = 0, high = 0;
  Value at = index;
  while (Operation *def = at.getDefiningOp()) {
    if (isa<arith::MulIOp>(def))
      return low >= 0 && high < stride;
    bool sub = isa<arith::SubIOp>(def);
    bool first = strided.contains(def->getOperand(0));
    auto range = indexRange(def->getOperand(first ? 1 : 0));
    if (!range)
      return false;
    low += sub ? -range->second : range->first;
    high += sub ? -range->first : range->second;
    at = def->getOperand(first ? 0 : 1);
  }
  return false;
}

/// What the innermost induction variable of a nest reaches, and what its accesses need.
struct Analysis {
  Value iv;
  /// The variable and the variable shifted by constants: the last indices of accesses.
  DenseSet<Value> indices;
  /// The constants that must be multiples of the lanes: the shifts, the bounds compared
  /// with by `<` or `>=`; and those whose successor must be (the bounds of `<=`, `>`).
  SmallVector<int64_t> multiples, successorMultiples;
  /// The shifts by values that must be multiples of the lanes (a thread's base in a tile).
  SmallVector<Value> multipleValues;
  /// Index values s * variable + c (c the same in every lane) and their stride s.
  DenseMap<Value, int64_t> strided;
  /// The buffers read at strided indices within their blocks, with the stride.
  SmallVector<std::pair<Value, int64_t>> stridedReads;
  /// Whether the nest gathers (loads at positions computed from the variable), and the
  /// ops each lane computes for itself: with gathers, what a thread of V lanes keeps in
  /// registers grows with their product.
  bool gathers = false;
  int64_t laneWork = 0;
  /// The values that depend on the variable: itself, the loads at it, and what is
  /// computed from them.
  DenseSet<Value> varying;
  /// The values loops inside the thread carry that depend on it (their block arguments).
  DenseSet<Value> carried;
  /// The buffers accessed along the variable (their last index).
  SmallVector<Value> contiguous;
  /// The widest element of those, in bytes.
  int64_t widest = 0;

  bool dependsOnVariable(Operation &op) const {
    return llvm::any_of(op.getOperands(), [&](Value v) { return varying.contains(v); });
  }
  bool usesIndex(Operation &op) const {
    return llvm::any_of(op.getOperands(), [&](Value v) { return indices.contains(v); });
  }
  bool usesStrided(Operation &op) const {
    return llvm::any_of(op.getOperands(), [&](Value v) { return strided.contains(v); });
  }
  /// Whether `value` is the same in every lane and no index of the variable.
  bool invariant(Value value) const {
    return !varying.contains(value) && !indices.contains(value) && !strided.contains(value);
  }

  /// Whether `op` makes a strided index: the variable times a constant stride of 2 to
  /// kMaxStride, or a strided index plus or minus an invariant value.
  bool makesStrided(Operation &op) {
    if (auto mul = dyn_cast<arith::MulIOp>(op)) {
      for (auto [a, b] : {std::make_pair(mul.getLhs(), mul.getRhs()),
                          std::make_pair(mul.getRhs(), mul.getLhs())}) {
        std::optional<int64_t> factor = getConstantIntValue(b);
        if (a == iv && factor && *factor >= 2 && *factor <= kMaxStride) {
          strided[mul.getResult()] = *factor;
          return true;
        }
      }
      return false;
    }
    // s * i + c, c + s * i, s * i - c.
    bool add = isa<arith::AddIOp>(op), sub = isa<arith::SubIOp>(op);
    for (unsigned first : {0u, 1u}) {
      if (!(add || (sub && first == 0)) || !strided.contains(op.getOperand(first)) ||
          !invariant(op.getOperand(1 - first)))
        continue;
      strided[op.getResult(0)] = strided.lookup(op.getOperand(first));
      return true;
    }
    return false;
  }

  bool withinBlock(Value index) const { return withinStrideBlock(index, strided); }

  /// Whether the ops of `block` (the nest's body, or a region of a choice in it, where
  /// `inRegion`) can be vectorized: accesses whose last index may be the variable and
  /// whose other indices do not depend on it, stores only in the body and only along the
  /// variable, ops that do not depend on it and have no memory effects, lanewise
  /// arithmetic, and choices on values that do not depend on it.
  bool check(Block &block, Operation *nest, bool inRegion) {
    for (Operation &op : block.without_terminator()) {
      auto [buffer, accessIndices] = accessOf(&op);
      if (buffer) {
        if (nest->isAncestor(buffer.getParentBlock()->getParentOp()))
          return false;
        bool last = !accessIndices.empty() && indices.contains(accessIndices.back());
        bool stridedLast = !accessIndices.empty() && strided.contains(accessIndices.back());
        ValueRange others = last || stridedLast ? accessIndices.drop_back() : accessIndices;
        // Strided along the variable by more than a sector: a transpose, which
        // gpu-tile-transposes stages through shared memory.
        // (A strided index too: RT-DETR's 2x2 pools of NHWC activations written NCHW read
        // 2 w + kw along W, a sector apart a lane; gathering them took 3x the scalar
        // threads' time.)
        bool acrossSectors = false;
        for (auto [d, index] : llvm::enumerate(others))
          acrossSectors |=
              (indices.contains(index) || strided.contains(index)) && !withinSector(buffer, d);
        if (acrossSectors)
          return false;
        if (llvm::any_of(others,
                         [&](Value index) {
                           return varying.contains(index) || indices.contains(index) ||
                                  strided.contains(index);
                         }) ||
            (stridedLast && (!isa<memref::LoadOp>(op) || !withinBlock(accessIndices.back())))) {
          // A load at positions computed from the variable: one scalar load a lane (a
          // gather).
          if (!isa<memref::LoadOp>(op))
            return false;
          varying.insert(op.getResult(0));
          gathers = true;
          ++laneWork;
          continue;
        }
        // (A store of the same element in every iteration is no pointwise op; one in a
        // choice's region would be made by some lanes only; the variable is no value.)
        if (auto store = dyn_cast<memref::StoreOp>(op);
            store && (!last || inRegion || indices.contains(store.getValueToStore())))
          return false;
        if (last) {
          contiguous.push_back(buffer);
          // (A vector of i1 is packed bits, where a buffer of i1 holds a byte each.)
          Type element = cast<MemRefType>(buffer.getType()).getElementType();
          if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
            return false;
          widest = std::max<int64_t>(widest, element.getIntOrFloatBitWidth() / 8);
          if (auto load = dyn_cast<memref::LoadOp>(op))
            varying.insert(load.getResult());
        }
        if (stridedLast) {
          // (A strided store was refused above: only loads get here.)
          Type element = cast<MemRefType>(buffer.getType()).getElementType();
          if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
            return false;
          widest = std::max<int64_t>(widest, element.getIntOrFloatBitWidth() / 8);
          stridedReads.push_back({buffer, strided.lookup(accessIndices.back())});
          varying.insert(op.getResult(0));
        }
        continue;
      }
      if (makesStrided(op))
        continue;
      if (usesStrided(op) && !usesIndex(op)) {
        // A strided index as a value (a pool's window clipped at the border): the lanes'.
        if (!isLanewise(&op))
          return false;
        for (Value result : op.getResults())
          varying.insert(result);
        ++laneWork;
        continue;
      }
      if (usesIndex(op)) {
        // A shift of the variable, its comparison with a constant, or it as a value.
        std::optional<int64_t> constant;
        if (op.getNumOperands() == 2 && indices.contains(op.getOperand(0)))
          constant = getConstantIntValue(op.getOperand(1));
        if (!constant && isa<arith::AddIOp>(op) && indices.contains(op.getOperand(0)) &&
            !varying.contains(op.getOperand(1)) && !indices.contains(op.getOperand(1))) {
          indices.insert(op.getResult(0));
          multipleValues.push_back(op.getOperand(1));
          continue;
        }
        auto compare = dyn_cast<arith::CmpIOp>(op);
        if (constant && isa<arith::AddIOp, arith::SubIOp>(op)) {
          indices.insert(op.getResult(0));
          multiples.push_back(*constant);
          continue;
        }
        if (!constant || !compare || !isOrdering(compare.getPredicate())) {
          // The variable as a value (a gathered element's position computed from it):
          // the vector of the lanes' variables.
          if (!isLanewise(&op))
            return false;
          for (Value result : op.getResults())
            varying.insert(result);
          ++laneWork;
          continue;
        }
        // i < C and i >= C change value at C; i <= C and i > C at C + 1.
        switch (compare.getPredicate()) {
        case arith::CmpIPredicate::slt:
        case arith::CmpIPredicate::ult:
        case arith::CmpIPredicate::sge:
        case arith::CmpIPredicate::uge:
          multiples.push_back(*constant);
          break;
        default:
          successorMultiples.push_back(*constant);
        }
        continue; // the same in every lane: an invariant
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        if (!checkLoop(loop, nest))
          return false;
        continue;
      }
      if (isChoice(&op)) {
        if (dependsOnVariable(op) ||
            !llvm::all_of(op.getResultTypes(), [](Type type) { return type.isIntOrFloat(); }))
          return false;
        for (Region &region : op.getRegions())
          if (!check(region.front(), nest, /*inRegion=*/true) ||
              usesIndex(*region.front().getTerminator()))
            return false;
        // Its results vary where some region yields a varying value.
        bool yieldsVarying = llvm::any_of(op.getRegions(), [&](Region &region) {
          return dependsOnVariable(*region.front().getTerminator());
        });
        if (yieldsVarying)
          for (Value result : op.getResults())
            varying.insert(result);
        continue;
      }
      if (!dependsOnVariable(op)) {
        // Invariant along the innermost dimension: stays scalar (index arithmetic of the
        // other dimensions, constants, a broadcast operand's conversion).
        if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
          return false;
        continue;
      }
      if (!isLanewise(&op))
        return false;
      for (Value result : op.getResults())
        varying.insert(result);
      ++laneWork;
    }
    return true;
  }

  /// A loop inside the thread (a reduction's, after gpu-promote-accumulators): its bounds
  /// the same in every lane, its body checked as a choice's region is (no stores), and
  /// each value it carries a vector (`carried`) where its initial value or what an
  /// iteration yields varies.
  bool checkLoop(scf::ForOp loop, Operation *nest) {
    for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
      if (varying.contains(bound) || indices.contains(bound))
        return false;
    for (auto [init, arg] : llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs())) {
      if (indices.contains(init) || !init.getType().isIntOrFloat())
        return false;
      if (varying.contains(init))
        carried.insert(arg);
    }
    for (Value arg : carried)
      varying.insert(arg);
    // Until the carried values that vary are known: each round may find that an
    // iteration yields a varying value where it was taken as the same in every lane.
    int64_t work = laneWork;
    Operation *yield = loop.getBody()->getTerminator();
    while (true) {
      laneWork = work;
      if (!check(*loop.getBody(), nest, /*inRegion=*/true) || usesIndex(*yield))
        return false;
      bool changed = false;
      for (auto [arg, yielded] : llvm::zip(loop.getRegionIterArgs(), yield->getOperands()))
        if (varying.contains(yielded) && carried.insert(arg).second) {
          varying.insert(arg);
          changed = true;
        }
      if (!changed)
        break;
    }
    for (auto [arg, result] : llvm::zip(loop.getRegionIterArgs(), loop.getResults()))
      if (carried.contains(arg))
        varying.insert(result);
    return true;
  }
};

/// Whether `value` is a multiple of `factor` by its arithmetic: a constant multiple, a
/// product with a multiple, a sum or difference of multiples.
bool isMultipleOf(Value value, int64_t factor) {
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return *constant % factor == 0;
  Operation *def = value.getDefiningOp();
  if (isa_and_nonnull<arith::MulIOp>(def))
    return isMultipleOf(def->getOperand(0), factor) || isMultipleOf(def->getOperand(1), factor);
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def))
    return isMultipleOf(def->getOperand(0), factor) && isMultipleOf(def->getOperand(1), factor);
  return false;
}

/// The lanes each iteration of `nest`'s innermost loop should take, if the nest can be
/// vectorized: its innermost loop runs from 0 in steps of 1 to a constant multiple of
/// them; the innermost induction variable is used only as the last index of loads and
/// stores (Analysis::check says what else the body may hold); and every buffer accessed
/// along it has aligned rows (alignedRows).
std::optional<int64_t> vectorLanes(scf::ParallelOp nest, DenseSet<Value> &indices,
                                   DenseSet<Value> &carried, DenseMap<Value, int64_t> &strided) {
  if (nest.getNumReductions() != 0)
    return std::nullopt;
  Analysis analysis;
  analysis.iv = nest.getInductionVars().back();
  analysis.indices.insert(analysis.iv);
  std::optional<int64_t> lower = getConstantIntValue(nest.getLowerBound().back());
  std::optional<int64_t> step = getConstantIntValue(nest.getStep().back());
  std::optional<int64_t> upper = getConstantIntValue(nest.getUpperBound().back());
  if (!lower || *lower != 0 || !step || *step != 1 || !upper ||
      !analysis.check(*nest.getBody(), nest, /*inRegion=*/false))
    return std::nullopt;
  // (check took each use of the variable and its shifts: a last index, a shift, a
  // comparison.)
  if (analysis.contiguous.empty() || analysis.widest == 0)
    return std::nullopt;
  // 16 bytes, or the most lanes up to that which divide the extent (a tile's run of 2).
  int64_t lanes = std::min(kMaxLanes, kVectorBytes / analysis.widest);
  while (lanes > 1 && *upper % lanes != 0)
    lanes /= 2;
  // A nest that gathers computes each lane's positions in registers: GridSample's 60-odd
  // ops a lane took 180 registers at 8 lanes (a CTA an SM, slower than one thread an
  // element), 78 at 4.
  while (lanes > 2 && analysis.gathers && lanes * analysis.laneWork > kMaxGatherWork)
    lanes /= 2;
  if (lanes < 2)
    return std::nullopt;
  if (llvm::any_of(analysis.multiples, [&](int64_t c) { return c % lanes != 0; }) ||
      llvm::any_of(analysis.successorMultiples, [&](int64_t c) { return (c + 1) % lanes != 0; }) ||
      llvm::any_of(analysis.multipleValues, [&](Value v) { return !isMultipleOf(v, lanes); }))
    return std::nullopt;
  indices = std::move(analysis.indices);
  carried = std::move(analysis.carried);
  strided = std::move(analysis.strided);
  for (Value buffer : analysis.contiguous)
    if (!alignedRows(buffer, lanes))
      return std::nullopt;
  // A strided read takes stride x lanes elements from stride x the variable: whole rows'
  // worth, inside the row.
  for (auto [buffer, stride] : analysis.stridedReads) {
    auto type = cast<MemRefType>(buffer.getType());
    if (!alignedRows(buffer, stride * lanes) || type.getRank() == 0 ||
        type.isDynamicDim(type.getRank() - 1) ||
        type.getDimSize(type.getRank() - 1) < stride * *upper)
      return std::nullopt;
  }
  return lanes;
}

/// Accesses of `nest` (directly in its body) whose index before a run of trailing zeros
/// into static unit dimensions is the innermost variable (a pool's result [B, C, 1, 1]
/// written at [b, c, 0, 0]) access a view without those dimensions instead (a
/// memref.collapse_shape made before the nest), so that they are along the variable.
void dropTrailingUnitDims(scf::ParallelOp nest) {
  Value variable = nest.getInductionVars().back();
  DenseMap<Value, Value> views;
  for (Operation &op : nest.getBody()->without_terminator()) {
    auto [buffer, indices] = accessOf(&op);
    if (!buffer || nest->isAncestor(buffer.getParentBlock()->getParentOp()))
      continue;
    auto type = cast<MemRefType>(buffer.getType());
    int64_t position = llvm::find(indices, variable) - indices.begin();
    int64_t rank = type.getRank();
    if (position + 1 >= rank)
      continue;
    bool unitTail = true;
    for (int64_t dim = position + 1; dim < rank; ++dim)
      unitTail &= type.getDimSize(dim) == 1 && isConstantIntValue(indices[dim], 0);
    if (!unitTail)
      continue;
    Value &view = views[buffer];
    if (!view) {
      SmallVector<ReassociationIndices> groups;
      for (int64_t dim = 0; dim < position; ++dim)
        groups.push_back({dim});
      groups.push_back(llvm::to_vector(llvm::seq<int64_t>(position, rank)));
      OpBuilder b(nest);
      // (A view whose merged dimensions are not contiguous, a strided layout, is left.)
      if (!memref::CollapseShapeOp::isGuaranteedCollapsible(type, groups))
        continue;
      view = memref::CollapseShapeOp::create(b, nest.getLoc(), buffer, groups);
    }
    SmallVector<Value> newIndices(indices.take_front(position + 1));
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      load.getMemrefMutable().assign(view);
      load.getIndicesMutable().assign(newIndices);
    } else {
      auto store = cast<memref::StoreOp>(op);
      store.getMemrefMutable().assign(view);
      store.getIndicesMutable().assign(newIndices);
    }
  }
}

/// The affine.apply ops of `nest` (a pooling window's `2 * w + kw`) as arith ops, whose
/// shifts and strides the analysis reads.
void expandAffineApplies(scf::ParallelOp nest) {
  SmallVector<affine::AffineApplyOp> applies;
  nest.getBody()->walk([&](affine::AffineApplyOp apply) { applies.push_back(apply); });
  for (affine::AffineApplyOp apply : applies) {
    OpBuilder b(apply);
    std::optional<SmallVector<Value>> expanded =
        affine::expandAffineMap(b, apply.getLoc(), apply.getAffineMap(), apply.getOperands());
    if (!expanded || expanded->size() != 1)
      continue;
    apply.getResult().replaceAllUsesWith(expanded->front());
    apply.erase();
  }
}

/// The vectorization of a nest that vectorLanes accepted (see the file header).
struct Vectorizer {
  /// The variable and its shifts (Analysis::indices).
  DenseSet<Value> indices;
  /// The loop-carried values that become vectors (Analysis::carried).
  DenseSet<Value> carried;
  /// The strided indices and their strides (Analysis::strided).
  DenseMap<Value, int64_t> strided;
  /// The innermost variable (the first lane's).
  Value iv;
  int64_t lanes = 0;
  /// The vector of each varying scalar value.
  DenseMap<Value, Value> vectors;
  /// The scalar ops replaced, erased once every block is done.
  SmallVector<Operation *> replaced;

  VectorType vectorType(Type scalar) const { return VectorType::get({lanes}, scalar); }

  /// How far apart `value` is in consecutive lanes when it is an index of the variable:
  /// 1 for the variable and its shifts, s for a strided index, 0 otherwise.
  int64_t laneStride(Value value) const {
    return indices.contains(value) ? 1 : strided.lookup(value);
  }

  /// The vector of `value`: its vectorized form; for the variable or a shift of it, the
  /// lanes' values (the first plus 0, 1, ...); else the scalar splat.
  Value vectorOf(OpBuilder &b, Location loc, Value value) {
    if (Value vector = vectors.lookup(value))
      return vector;
    Value splat = vector::BroadcastOp::create(b, loc, vectorType(value.getType()), value);
    int64_t stride = laneStride(value);
    if (stride == 0)
      return splat;
    SmallVector<int64_t> offsets;
    for (int64_t lane = 0; lane < lanes; ++lane)
      offsets.push_back(stride * lane);
    Value step = arith::ConstantOp::create(b, loc, b.getIndexVectorAttr(offsets));
    return arith::AddIOp::create(b, loc, splat, step);
  }

  /// A load at positions that vary otherwise than along the variable: a scalar load a
  /// lane, at the lane's indices, gathered into a vector.
  void gather(OpBuilder &b, Location loc, memref::LoadOp load) {
    SmallVector<Value> lanes;
    for (int64_t lane = 0; lane < this->lanes; ++lane) {
      SmallVector<Value> laneIndices;
      for (Value index : load.getIndices()) {
        int64_t stride = laneStride(index);
        if (Value vector = vectors.lookup(index))
          index = vector::ExtractOp::create(b, loc, vector, lane);
        else if (stride != 0 && lane != 0)
          index = arith::AddIOp::create(b, loc, index,
                                        arith::ConstantIndexOp::create(b, loc, stride * lane));
        laneIndices.push_back(index);
      }
      lanes.push_back(memref::LoadOp::create(b, loc, load.getMemRef(), laneIndices));
    }
    vectors[load.getResult()] =
        vector::FromElementsOp::create(b, loc, vectorType(load.getType()), lanes);
    replaced.push_back(load);
  }

  /// A load at s * variable + c, c in [0, s): the s x lanes elements from s * variable
  /// as one vector, every s-th from c taken (c known in the thread only: a shuffle for
  /// each value it may have, chosen by it).
  void stridedLoad(OpBuilder &b, Location loc, memref::LoadOp load) {
    Value index = load.getIndices().back();
    int64_t stride = strided.lookup(index);
    Type element = load.getType();
    Value start = arith::MulIOp::create(b, loc, iv, arith::ConstantIndexOp::create(b, loc, stride));
    SmallVector<Value> blockIndices(load.getIndices().drop_back());
    blockIndices.push_back(start);
    auto block = vector::LoadOp::create(b, loc, VectorType::get({stride * lanes}, element),
                                        load.getMemRef(), blockIndices);
    block.setAlignment(
        std::min<int64_t>(kVectorBytes, stride * lanes * element.getIntOrFloatBitWidth() / 8));
    Value offset = arith::SubIOp::create(b, loc, index, start);
    std::optional<int64_t> known = getConstantIntValue(offset);
    Value result;
    for (int64_t first = stride - 1; first >= 0; --first) {
      if (known && *known != first)
        continue;
      SmallVector<int64_t> mask;
      for (int64_t lane = 0; lane < lanes; ++lane)
        mask.push_back(first + stride * lane);
      Value taken = vector::ShuffleOp::create(b, loc, block, block, mask);
      if (!result) {
        result = taken;
        continue;
      }
      Value chosen = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, offset,
                                           arith::ConstantIndexOp::create(b, loc, first));
      result = arith::SelectOp::create(b, loc, chosen, taken, result);
    }
    vectors[load.getResult()] = result;
    replaced.push_back(load);
  }

  bool varies(Operation &op) const {
    return llvm::any_of(op.getOperands(), [&](Value v) { return vectors.contains(v); });
  }

  void run(Block &block) {
    for (Operation &op : block.without_terminator()) {
      OpBuilder b(&op);
      Location loc = op.getLoc();
      auto [buffer, indices] = accessOf(&op);
      bool last = buffer && this->indices.contains(indices.back());
      bool stridedLast = buffer && strided.contains(indices.back());
      bool scattered =
          buffer && llvm::any_of(last || stridedLast ? indices.drop_back() : indices, [&](Value v) {
            return vectors.contains(v) || this->indices.contains(v) || strided.contains(v);
          });
      if (auto load = dyn_cast<memref::LoadOp>(op); load && (scattered || stridedLast)) {
        // (A strided index that may leave its block gathers, as vectorLanes found.)
        if (!scattered && withinStrideBlock(indices.back(), strided))
          stridedLoad(b, loc, load);
        else
          gather(b, loc, load);
        continue;
      }
      if (auto load = dyn_cast<memref::LoadOp>(op); load && last) {
        Type element = load.getType();
        auto vector = vector::LoadOp::create(b, loc, vectorType(element), load.getMemRef(),
                                             load.getIndices());
        vector.setAlignment(lanes * element.getIntOrFloatBitWidth() / 8);
        vectors[load.getResult()] = vector;
        replaced.push_back(&op);
        continue;
      }
      if (auto store = dyn_cast<memref::StoreOp>(op)) {
        Value value = vectorOf(b, loc, store.getValueToStore());
        auto vector = vector::StoreOp::create(b, loc, value, store.getMemRef(), store.getIndices());
        vector.setAlignment(lanes * cast<VectorType>(value.getType()).getElementTypeBitWidth() / 8);
        replaced.push_back(&op);
        continue;
      }
      if (buffer)
        continue;
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        // The values it carries that vary become vectors (the loop retyped in place),
        // then its body is vectorized like the nest's.
        for (auto [init, arg, result] :
             llvm::zip(loop.getInitArgsMutable(), loop.getRegionIterArgs(), loop.getResults())) {
          if (!carried.contains(arg))
            continue;
          init.set(vectorOf(b, loc, init.get()));
          arg.setType(vectorType(arg.getType()));
          result.setType(vectorType(result.getType()));
          vectors[arg] = arg;
          vectors[result] = result;
        }
        run(*loop.getBody());
        Operation *yield = loop.getBody()->getTerminator();
        OpBuilder before(yield);
        for (auto [operand, arg] : llvm::zip(yield->getOpOperands(), loop.getRegionIterArgs()))
          if (carried.contains(arg))
            operand.set(vectorOf(before, yield->getLoc(), operand.get()));
        continue;
      }
      if (isChoice(&op)) {
        // Its regions first; where one yields a varying value, every region yields
        // vectors and the choice's results are vectors (the same op, retyped).
        for (Region &region : op.getRegions())
          run(region.front());
        bool yieldsVarying = llvm::any_of(op.getRegions(), [&](Region &region) {
          return varies(*region.front().getTerminator());
        });
        if (!yieldsVarying)
          continue;
        for (Region &region : op.getRegions()) {
          Operation *yield = region.front().getTerminator();
          OpBuilder before(yield);
          for (OpOperand &operand : yield->getOpOperands())
            operand.set(vectorOf(before, yield->getLoc(), operand.get()));
        }
        for (Value result : op.getResults()) {
          Type scalar = result.getType();
          result.setType(vectorType(scalar));
          vectors[result] = result;
        }
        continue;
      }
      // The variable's shifts and its comparisons with constants stay scalar (the first
      // lane's); any other use takes it as a value, the vector of the lanes' variables.
      auto compare = dyn_cast<arith::CmpIOp>(op);
      bool shiftOrBoundary =
          llvm::all_of(op.getResults(),
                       [&](Value v) { return this->indices.contains(v) || strided.contains(v); }) ||
          (compare && isOrdering(compare.getPredicate()) && getConstantIntValue(compare.getRhs()) &&
           this->indices.contains(compare.getLhs()));
      bool usesVariable = !shiftOrBoundary && llvm::any_of(op.getOperands(), [&](Value v) {
        return this->indices.contains(v) || strided.contains(v);
      });
      if (!varies(op) && !usesVariable)
        continue;
      // Lanewise arithmetic: the same op (its attributes kept) on vectors, scalar operands
      // splat.
      IRMapping mapping;
      for (Value operand : op.getOperands())
        mapping.map(operand, vectorOf(b, loc, operand));
      Operation *vectorOp = b.clone(op, mapping);
      for (auto [scalar, vector] : llvm::zip(op.getResults(), vectorOp->getResults())) {
        vector.setType(vectorType(scalar.getType()));
        vectors[scalar] = vector;
      }
      replaced.push_back(&op);
    }
  }
};

/// `nest` with `lanes` iterations of its innermost loop in each (see the file header).
void vectorize(scf::ParallelOp nest, int64_t lanes, DenseSet<Value> indices,
               DenseSet<Value> carried, DenseMap<Value, int64_t> strided) {
  Vectorizer vectorizer;
  vectorizer.indices = std::move(indices);
  vectorizer.carried = std::move(carried);
  vectorizer.strided = std::move(strided);
  vectorizer.iv = nest.getInductionVars().back();
  vectorizer.lanes = lanes;
  // (The variable and its shifts are no values any op computes with: vectorLanes checked
  // that they are only indices, shifted or compared; those ops stay scalar.)
  vectorizer.run(*nest.getBody());
  for (Operation *op : llvm::reverse(vectorizer.replaced))
    op->erase();
  OpBuilder b(nest);
  nest.getStepMutable()[nest.getNumLoops() - 1].assign(
      arith::ConstantIndexOp::create(b, nest.getLoc(), lanes));
}

struct GpuVectorizePointwiseLoops
    : kiln::impl::GpuVectorizePointwiseLoopsBase<GpuVectorizePointwiseLoops> {
  void getDependentDialects(DialectRegistry &registry) const override {
    GpuVectorizePointwiseLoopsBase::getDependentDialects(registry);
    registry.insert<vector::VectorDialect>();
  }

  void runOnOperation() override {
    SmallVector<scf::ParallelOp> nests;
    for (scf::ParallelOp nest : kiln::topLevelNests(getOperation())) {
      if (!nest->hasAttr(gpu::getMappingAttrName())) {
        nests.push_back(nest);
        continue;
      }
      // A nest of CTAs (gpu-tile-transposes): the loops of its threads' lanes.
      nest.getBody()->walk([&](scf::ParallelOp inner) {
        if (!inner->hasAttr(gpu::getMappingAttrName()))
          nests.push_back(inner);
      });
    }
    for (scf::ParallelOp nest : nests) {
      if (!nest->getParentOfType<scf::ParallelOp>())
        dropTrailingUnitDims(nest);
      expandAffineApplies(nest);
      DenseSet<Value> indices, carried;
      DenseMap<Value, int64_t> strided;
      if (std::optional<int64_t> lanes = vectorLanes(nest, indices, carried, strided))
        vectorize(nest, *lanes, std::move(indices), std::move(carried), std::move(strided));
    }
  }
};

} // namespace
