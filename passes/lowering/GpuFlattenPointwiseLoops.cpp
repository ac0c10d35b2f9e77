//===- GpuFlattenPointwiseLoops.cpp - Pointwise nests of run-time extents as 1-D ------===//
//
// gpu-map-loops gives each thread one iteration of a nest, delinearising the thread's
// index into the induction variables. With run-time extents that takes a division and a
// remainder by a run-time value per dimension (a dozen instructions each, against a
// multiply-shift for a constant), in kernels that do one load and one add: GPT-2's
// residual adds over [batch, sequence, 768] ran 15% slower in a dynamic engine than in a
// static one. A nest whose every access reads or writes a whole buffer at its induction
// variables in order (an elementwise op over buffers of the nest's shape) needs no
// delinearisation at all: the thread's index is the element's offset in each of them.
// This pass makes such nests one-dimensional over row-major views of their buffers.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"
#include "passes/lowering/TopLevelNests.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace kiln {
#define GEN_PASS_DEF_GPUFLATTENPOINTWISELOOPS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Whether extent `dim` of `buffer` is `bound`: the same constant, the size its
/// allocation or view was made with, or a memref.dim of it.
bool extentIs(Value buffer, int64_t dim, Value bound) {
  auto type = cast<MemRefType>(buffer.getType());
  std::optional<int64_t> constant = getConstantIntValue(bound);
  if (!type.isDynamicDim(dim))
    return constant && *constant == type.getDimSize(dim);
  if (auto read = bound.getDefiningOp<memref::DimOp>()) {
    std::optional<int64_t> index = read.getConstantIndex();
    if (read.getSource() == buffer && index && *index == dim)
      return true;
  }
  Operation *producer = buffer.getDefiningOp();
  if (auto alloc = dyn_cast_if_present<memref::AllocOp>(producer))
    return alloc.getDynamicSizes()[type.getDynamicDimIndex(dim)] == bound;
  if (auto view = dyn_cast_if_present<memref::ReinterpretCastOp>(producer)) {
    OpFoldResult size = view.getMixedSizes()[dim];
    return size == OpFoldResult(bound) || (constant && getConstantIntValue(size) == constant);
  }
  return false;
}

/// The buffers `nest` accesses at exactly its induction variables in order, when those
/// accesses are the only uses of the induction variables and each such buffer is
/// row-major with the nest's extents (so that the flat index is the element's offset).
std::optional<SetVector<Value>> pointwiseBuffers(scf::ParallelOp nest) {
  SmallVector<Value> ivs = nest.getInductionVars();
  SetVector<Value> buffers;
  auto atInductionVars = [&](Value buffer, ValueRange indices) {
    if (indices.size() != ivs.size() || !llvm::equal(indices, ivs))
      return false;
    auto type = cast<MemRefType>(buffer.getType());
    if (!type.getLayout().isIdentity() || nest->isAncestor(buffer.getParentBlock()->getParentOp()))
      return false;
    for (auto [dim, bound] : llvm::enumerate(nest.getUpperBound()))
      if (!extentIs(buffer, dim, bound))
        return false;
    buffers.insert(buffer);
    return true;
  };
  for (Value iv : ivs)
    for (Operation *user : iv.getUsers()) {
      if (auto load = dyn_cast<memref::LoadOp>(user)) {
        if (!atInductionVars(load.getMemRef(), load.getIndices()))
          return std::nullopt;
      } else if (auto store = dyn_cast<memref::StoreOp>(user)) {
        if (store.getValueToStore() == iv ||
            !atInductionVars(store.getMemRef(), store.getIndices()))
          return std::nullopt;
      } else {
        return std::nullopt;
      }
    }
  return buffers;
}

/// `nest` over [0, ub_0) x ... x [0, ub_n) in steps of 1, with a bound known only at run
/// time, made one loop over the product of the bounds, if it is pointwise.
void flatten(scf::ParallelOp nest) {
  if (nest.getNumLoops() < 2 || !llvm::all_of(nest.getLowerBound(), isZeroInteger) ||
      !llvm::all_of(nest.getStep(), [](Value step) { return isConstantIntValue(step, 1); }) ||
      llvm::all_of(nest.getUpperBound(), [](Value ub) { return getConstantIntValue(ub); }) ||
      nest.getNumReductions() != 0)
    return;
  std::optional<SetVector<Value>> buffers = pointwiseBuffers(nest);
  if (!buffers || buffers->empty())
    return;
  OpBuilder b(nest);
  Location loc = nest.getLoc();
  Value total = nest.getUpperBound().front();
  for (Value bound : nest.getUpperBound().drop_front())
    total = arith::MulIOp::create(b, loc, total, bound);
  // Row-major views of one dimension, made before the nest (gpu-map-loops recomputes
  // views in the kernel).
  llvm::DenseMap<Value, Value> flat;
  for (Value buffer : *buffers) {
    ReassociationIndices all =
        llvm::to_vector(llvm::seq<int64_t>(0, cast<MemRefType>(buffer.getType()).getRank()));
    flat[buffer] =
        memref::CollapseShapeOp::create(b, loc, buffer, ArrayRef<ReassociationIndices>{all});
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto flatNest =
      scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{total}, ValueRange{one});
  // The old body, minus its terminator, at the start of the new one.
  Block *body = flatNest.getBody();
  Block *old = nest.getBody();
  body->getOperations().splice(body->begin(), old->getOperations(), old->begin(),
                               std::prev(old->end()));
  // Every access at the induction variables (their only users) reads or writes its
  // buffer's view at the flat index instead.
  Value index = flatNest.getInductionVars().front();
  SetVector<Operation *> accesses;
  for (Value iv : nest.getInductionVars())
    accesses.insert_range(iv.getUsers());
  for (Operation *access : accesses) {
    if (auto load = dyn_cast<memref::LoadOp>(access)) {
      load.getMemrefMutable().assign(flat[load.getMemRef()]);
      load.getIndicesMutable().assign(index);
    } else {
      auto store = cast<memref::StoreOp>(access);
      store.getMemrefMutable().assign(flat[store.getMemRef()]);
      store.getIndicesMutable().assign(index);
    }
  }
  nest.erase();
}

struct GpuFlattenPointwiseLoops
    : kiln::impl::GpuFlattenPointwiseLoopsBase<GpuFlattenPointwiseLoops> {
  void runOnOperation() override {
    for (scf::ParallelOp nest : kiln::topLevelNests(getOperation()))
      flatten(nest);
  }
};

} // namespace
