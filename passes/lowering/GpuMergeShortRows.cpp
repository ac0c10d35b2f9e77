//===- GpuMergeShortRows.cpp - Nests over rows too short for vectors ------===//
//
// gpu-vectorize-pointwise-loops gives a thread V consecutive iterations of a nest's
// innermost loop, where V divides its extent. Rows of an odd length take none: a CNN's
// input converted to channels last at fp16 ([B, 3, H, W] f32 to [B, H, W, 3] f16, 29 MB
// at batch 32) stored 2 bytes a thread and ran at 21% of the H200's bandwidth. Where
// every store writes a buffer at the nest's last two variables (a, b), contiguous over
// them, the rows are one run of A * B elements: this pass makes those two loops one, f
// over [0, A * B), whose V consecutive iterations the vectorizer can take (672 elements
// a row of 224 pixels: vectors of 8). Accesses at (a, b) of buffers contiguous over them
// go through a view that merges those two dimensions, at f; other uses of a and b take
// f / B and f % B (a transpose's reads become gathers: each lane's element).
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"
#include "passes/lowering/TopLevelNests.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace kiln {
#define GEN_PASS_DEF_GPUMERGESHORTROWS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Rows shorter than this (and odd) are merged: a longer row's threads already store
/// runs of consecutive elements.
constexpr int64_t kShortRow = 16;

/// The buffer and indices of a load or store (null for other ops).
std::pair<Value, ValueRange> accessOf(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return {load.getMemRef(), load.getIndices()};
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return {store.getMemRef(), store.getIndices()};
  return {Value(), ValueRange()};
}

/// Whether `op` accesses its buffer at (a, b) as its last two indices, with neither in
/// the others, and the buffer's last two dimensions are contiguous rows of `rowLength`
/// elements (strides `rowLength` and 1).
bool accessesRow(Operation *op, Value a, Value b, int64_t rowLength) {
  auto [buffer, indices] = accessOf(op);
  if (!buffer || indices.size() < 2 || indices.take_back(2) != ValueRange{a, b} ||
      llvm::is_contained(indices.drop_back(2), a) || llvm::is_contained(indices.drop_back(2), b))
    return false;
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t rank = type.getRank();
  return type.getDimSize(rank - 1) == rowLength && strides[rank - 1] == 1 &&
         strides[rank - 2] == rowLength;
}

/// `nest` with its last two loops merged into one, when its rows are short (see the
/// file header).
void merge(scf::ParallelOp nest) {
  unsigned rank = nest.getNumLoops();
  if (rank < 2 || nest.getNumReductions() != 0 || nest->hasAttr(gpu::getMappingAttrName()))
    return;
  for (unsigned dim = rank - 2; dim < rank; ++dim)
    if (!matchPattern(nest.getLowerBound()[dim], m_Zero()) ||
        !matchPattern(nest.getStep()[dim], m_One()))
      return;
  std::optional<int64_t> rows = getConstantIntValue(nest.getUpperBound()[rank - 2]);
  std::optional<int64_t> rowLength = getConstantIntValue(nest.getUpperBound()[rank - 1]);
  if (!rows || !rowLength || *rowLength % 2 == 0 || *rowLength >= kShortRow || *rows < 2 ||
      (*rows * *rowLength) % 2 != 0)
    return;
  Value a = nest.getInductionVars()[rank - 2];
  Value b = nest.getInductionVars()[rank - 1];
  // Every store writes rows at (a, b) (so that the merged loop's stores are runs); the
  // accesses that do go through merged views.
  SmallVector<Operation *> rowAccesses;
  bool storesRows = true, stores = false;
  nest.getBody()->walk([&](Operation *op) {
    bool row = accessesRow(op, a, b, *rowLength);
    if (isa<memref::StoreOp>(op)) {
      stores = true;
      storesRows &= row && op->getBlock() == nest.getBody();
    }
    if (row)
      rowAccesses.push_back(op);
  });
  if (!stores || !storesRows)
    return;

  OpBuilder builder(nest);
  Location loc = nest.getLoc();
  // The views, made before the nest (gpu-map-loops recomputes views in the kernel).
  DenseMap<Value, Value> merged;
  for (Operation *access : rowAccesses) {
    Value buffer = accessOf(access).first;
    if (merged.count(buffer))
      continue;
    int64_t bufferRank = cast<MemRefType>(buffer.getType()).getRank();
    SmallVector<ReassociationIndices> groups;
    for (int64_t dim = 0; dim + 2 < bufferRank; ++dim)
      groups.push_back({dim});
    groups.push_back({bufferRank - 2, bufferRank - 1});
    merged[buffer] = memref::CollapseShapeOp::create(builder, loc, buffer, groups);
  }
  SmallVector<Value> lower(nest.getLowerBound().drop_back()), upper(nest.getUpperBound()),
      steps(nest.getStep().drop_back());
  upper.pop_back();
  upper.back() = arith::ConstantIndexOp::create(builder, loc, *rows * *rowLength);
  auto replacement = scf::ParallelOp::create(builder, loc, lower, upper, steps);
  Block *body = replacement.getBody();
  Block *old = nest.getBody();
  body->getOperations().splice(body->begin(), old->getOperations(), old->begin(),
                               std::prev(old->end()));
  SmallVector<Value> ivs = llvm::to_vector(replacement.getInductionVars());
  Value flat = ivs.back();
  for (unsigned dim = 0; dim + 2 < rank; ++dim)
    nest.getInductionVars()[dim].replaceAllUsesWith(ivs[dim]);
  for (Operation *access : rowAccesses) {
    auto [buffer, indices] = accessOf(access);
    SmallVector<Value> newIndices(indices.drop_back(2));
    newIndices.push_back(flat);
    if (auto load = dyn_cast<memref::LoadOp>(access)) {
      load.getMemrefMutable().assign(merged[buffer]);
      load.getIndicesMutable().assign(newIndices);
    } else {
      auto store = cast<memref::StoreOp>(access);
      store.getMemrefMutable().assign(merged[buffer]);
      store.getIndicesMutable().assign(newIndices);
    }
  }
  // The other uses of a and b: the row and the position in it.
  builder.setInsertionPointToStart(body);
  Value length = arith::ConstantIndexOp::create(builder, loc, *rowLength);
  a.replaceAllUsesWith(arith::DivUIOp::create(builder, loc, flat, length).getResult());
  b.replaceAllUsesWith(arith::RemUIOp::create(builder, loc, flat, length).getResult());
  nest.erase();
}

struct GpuMergeShortRows : kiln::impl::GpuMergeShortRowsBase<GpuMergeShortRows> {
  void runOnOperation() override {
    for (scf::ParallelOp nest : kiln::topLevelNests(getOperation()))
      merge(nest);
  }
};

} // namespace
