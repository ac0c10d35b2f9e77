//===- ExpandShapesToCasts.cpp - Dynamic expand_shapes as casts -----------===//
//
// memref.expand_shape with two or more dynamic extents in one reassociation group
// ([batch * sequence, 768] back into [batch, sequence, 768], what the lowering of a
// matmul over dynamic batch dimensions leaves) crashes upstream's expand-strided-metadata
// (LLVM 22: its size computation assumes at most one dynamic extent a group). Such an
// expand_shape is a reinterpret_cast of its source whose sizes are its output_shape and
// whose strides follow from the source's: this pass writes it so, before that pass runs.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_EXPANDSHAPESTOCASTS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct ExpandShapeToCast : OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    MemRefType result = expand.getResultType();
    auto groups = expand.getReassociationIndices();
    bool twoDynamic = llvm::any_of(groups, [&](const ReassociationIndices &group) {
      return llvm::count_if(group, [&](int64_t dim) { return result.isDynamicDim(dim); }) > 1;
    });
    if (!twoDynamic)
      return rewriter.notifyMatchFailure(expand, "upstream's lowering handles it");
    MemRefType source = expand.getSrcType();
    auto [sourceStrides, sourceOffset] = source.getStridesAndOffset();
    Location loc = expand.getLoc();
    auto metadata = memref::ExtractStridedMetadataOp::create(rewriter, loc, expand.getSrc());
    auto known = [&](int64_t value, Value dynamic) -> OpFoldResult {
      return ShapedType::isDynamic(value) ? OpFoldResult(dynamic)
                                          : OpFoldResult(rewriter.getIndexAttr(value));
    };
    auto multiply = [&](OpFoldResult a, OpFoldResult b) -> OpFoldResult {
      std::optional<int64_t> x = getConstantIntValue(a), y = getConstantIntValue(b);
      if (x && y)
        return rewriter.getIndexAttr(*x * *y);
      return arith::MulIOp::create(rewriter, loc, getValueOrCreateConstantIndexOp(rewriter, loc, a),
                                   getValueOrCreateConstantIndexOp(rewriter, loc, b))
          .getResult();
    };
    // Each group's innermost extent keeps the stride of the source dimension it splits;
    // the ones outside it step over the extents inside.
    SmallVector<OpFoldResult> sizes = expand.getMixedOutputShape();
    SmallVector<OpFoldResult> strides(result.getRank());
    for (auto [sourceDim, group] : llvm::enumerate(groups)) {
      OpFoldResult stride = known(sourceStrides[sourceDim], metadata.getStrides()[sourceDim]);
      for (int64_t dim : llvm::reverse(group)) {
        strides[dim] = stride;
        stride = multiply(stride, sizes[dim]);
      }
    }
    // The result type's static strides are the ones computed here (the op verified them).
    auto [resultStrides, resultOffset] = result.getStridesAndOffset();
    for (auto [stride, expected] : llvm::zip(strides, resultStrides))
      if (!ShapedType::isDynamic(expected))
        stride = rewriter.getIndexAttr(expected);
    OpFoldResult offset = known(sourceOffset, metadata.getOffset());
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(expand, result, metadata.getBaseBuffer(),
                                                           offset, sizes, strides);
    return success();
  }
};

struct ExpandShapesToCasts : kiln::impl::ExpandShapesToCastsBase<ExpandShapesToCasts> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandShapeToCast>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
