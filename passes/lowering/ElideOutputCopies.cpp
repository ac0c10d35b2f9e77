//===- ElideOutputCopies.cpp - Kernels compute into their output buffers --===//
//
// A kernel whose result is a reshape of what it computes (a transposed convolution's
// phases interleaved: [N, Q1, Q2, s1, s2, O] transposed to [N, Q1, s1, Q2, s2, O], then
// collapsed to [N, H, W, O]) bufferizes into a temporary for the computation, a
// collapse_shape view of it and a memref.copy into the output argument: a second kernel
// that moves every byte again. The output argument seen through the inverse reshape
// (expand_shape of the collapse's reassociation, or the converse) is a view with the
// temporary's type, so the computation can write there directly: the temporary becomes
// that view and the copy goes. A copy of a whole temporary into an output of its type is
// elided the same way.
//
// Taken where nothing else could observe the change: the temporary is an allocation of
// static shape and identity layout whose other users all come before the copy in its
// block, the reshape's only user is the copy, and the output is a function argument of
// identity layout that nothing else in the function touches.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace kiln {
#define GEN_PASS_DEF_ELIDEOUTPUTCOPIES
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

bool hasIdentityLayout(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && type.getLayout().isIdentity();
}

/// Makes `copy`'s source temporary a view of its output argument; false where the
/// conditions above do not hold.
bool elide(func::FuncOp function, memref::CopyOp copy) {
  Value target = copy.getTarget();
  auto argument = dyn_cast<BlockArgument>(target);
  if (!argument || argument.getOwner() != &function.getBody().front() || !target.hasOneUse() ||
      !hasIdentityLayout(target))
    return false;
  Value source = copy.getSource();
  Operation *reshape = source.getDefiningOp();
  auto collapse = dyn_cast_or_null<memref::CollapseShapeOp>(reshape);
  auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(reshape);
  Value base = collapse ? collapse.getSrc() : expand ? expand.getSrc() : source;
  if ((collapse || expand) && !source.hasOneUse())
    return false;
  auto alloc = base.getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getType().hasStaticShape() || !hasIdentityLayout(alloc) ||
      alloc->getBlock() != copy->getBlock())
    return false;
  for (Operation *user : alloc->getUsers())
    if (user != reshape && user != copy.getOperation() &&
        (user->getBlock() != copy->getBlock() || !user->isBeforeInBlock(copy)))
      return false;
  OpBuilder builder(alloc);
  Location loc = alloc.getLoc();
  Value view = target;
  if (collapse) {
    SmallVector<OpFoldResult> shape;
    for (int64_t extent : alloc.getType().getShape())
      shape.push_back(builder.getIndexAttr(extent));
    view = memref::ExpandShapeOp::create(builder, loc, alloc.getType(), target,
                                         collapse.getReassociationIndices(), shape);
  } else if (expand) {
    view = memref::CollapseShapeOp::create(builder, loc, target, expand.getReassociationIndices());
  }
  if (view.getType() != alloc.getType())
    return false;
  copy->erase();
  if (reshape && reshape->use_empty())
    reshape->erase();
  alloc.getResult().replaceAllUsesWith(view);
  alloc->erase();
  return true;
}

struct ElideOutputCopies : kiln::impl::ElideOutputCopiesBase<ElideOutputCopies> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    SmallVector<memref::CopyOp> copies;
    function.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies)
      elide(function, copy);
  }
};

} // namespace
