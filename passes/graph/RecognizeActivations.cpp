//===- RecognizeActivations.cpp - SiLU, HardSwish and RMSNorm to one op ---===//
//
// Decomposed activations and normalisations exporters write, as single graph ops:
//
//   x * Sigmoid(x)                                  -> graph.silu (a Kiln extension)
//   x * HardSigmoid(x, alpha = 1/6, beta = 0.5)     -> graph.hard_swish
//   x * Clip(x + 3, 0, 6) / 6                       -> graph.hard_swish
//     (the division as Div by 6 or Mul by 1/6, before or after the product)
//   x * Reciprocal(Sqrt(ReduceMean(x * x) + eps)) * gamma   -> graph.rms_normalization
//     (x^2 as Pow(x, 2), x / Sqrt(...) for the Reciprocal, gamma optional; a Kiln extension)
//
// Every product in either operand order; constants compared with a relative tolerance
// (1e-5); every intermediate must have no use outside the pattern. Run after
// graph-recognize-layer-norm: a LayerNorm without its mean looks like an RMSNorm of
// x - mean, which this pass leaves alone.
//
//===----------------------------------------------------------------------===//

#include "passes/graph/Passes.h"
#include "passes/graph/Recognize.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHRECOGNIZEACTIVATIONS
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::recognize;

namespace {

/// Replaces `last` by a new unary `OpTy` of `x` when it has `x`'s type (the pattern's
/// constants do not broadcast x), located at both ends of the pattern.
template <typename OpTy>
static LogicalResult replaceByUnary(Operation *first, Operation *last, Value x,
                                    PatternRewriter &rewriter) {
  if (last->getResult(0).getType() != x.getType())
    return rewriter.notifyMatchFailure(first, "the pattern broadcasts its input");
  rewriter.setInsertionPoint(last);
  Location loc = rewriter.getFusedLoc({first->getLoc(), last->getLoc()});
  Value replacement = OpTy::create(rewriter, loc, x.getType(), x);
  rewriter.replaceOp(last, replacement);
  return success();
}

/// x * Sigmoid(x) -> graph.silu x.
struct RecognizeSilu : OpRewritePattern<graph::SigmoidOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::SigmoidOp op, PatternRewriter &rewriter) const override {
    Value x = op.getInput();
    auto mul = getSingleUser<graph::MulOp>(op);
    if (!mul || getOtherOperand(mul, op.getResult()) != x)
      return rewriter.notifyMatchFailure(op, "not multiplied by its own input");
    return replaceByUnary<graph::SiluOp>(op, mul, x, rewriter);
  }
};

/// x * HardSigmoid(x, 1/6, 0.5) -> graph.hard_swish x.
struct RecognizeHardSigmoidSwish : OpRewritePattern<graph::HardSigmoidOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::HardSigmoidOp op, PatternRewriter &rewriter) const override {
    auto near = [](APFloat value, double expected) {
      return std::fabs(value.convertToDouble() - expected) <=
             kRelativeTolerance * std::fabs(expected);
    };
    if (!near(op.getAlpha(), 1.0 / 6.0) || !near(op.getBeta(), 0.5))
      return rewriter.notifyMatchFailure(op, "not HardSigmoid(x, 1/6, 0.5)");
    Value x = op.getInput();
    auto mul = getSingleUser<graph::MulOp>(op);
    if (!mul || getOtherOperand(mul, op.getResult()) != x)
      return rewriter.notifyMatchFailure(op, "not multiplied by its own input");
    return replaceByUnary<graph::HardSwishOp>(op, mul, x, rewriter);
  }
};

/// Whether `op` is a division by 6, `v / 6` or `v * (1/6)`, of `value`.
static bool isDivisionBySix(Operation *op, Value value) {
  if (auto div = dyn_cast<graph::DivOp>(op))
    return div.getLhs() == value && isConstant(div.getRhs(), 6.0);
  if (auto mul = dyn_cast<graph::MulOp>(op)) {
    Value other = getOtherOperand(mul, value);
    return other && other != value && isConstant(other, 1.0 / 6.0);
  }
  return false;
}

/// x * Clip(x + 3, 0, 6) / 6 -> graph.hard_swish x.
struct RecognizeClipSwish : OpRewritePattern<graph::ClipOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::ClipOp op, PatternRewriter &rewriter) const override {
    if (!op.getMin() || !op.getMax() || !isConstant(op.getMin(), 0.0) ||
        !isConstant(op.getMax(), 6.0))
      return rewriter.notifyMatchFailure(op, "not Clip(., 0, 6)");
    auto shift = getSingleUseOp<graph::AddOp>(op.getInput());
    if (!shift)
      return rewriter.notifyMatchFailure(op, "not Clip(x + 3, 0, 6)");
    auto operands = matchOperands(shift, [](Value v) { return isConstant(v, 3.0); });
    if (!operands)
      return rewriter.notifyMatchFailure(op, "not Clip(x + 3, 0, 6)");
    Value x = operands->second;
    Value clipped = op.getResult();
    if (!clipped.hasOneUse())
      return rewriter.notifyMatchFailure(op, "clipped value has other uses");
    Operation *user = *clipped.getUsers().begin();
    Operation *last = nullptr;
    if (auto mul = dyn_cast<graph::MulOp>(user); mul && getOtherOperand(mul, clipped) == x) {
      // (x * clip) / 6
      if (mul.getResult().hasOneUse() &&
          isDivisionBySix(*mul.getResult().getUsers().begin(), mul.getResult()))
        last = *mul.getResult().getUsers().begin();
    } else if (isDivisionBySix(user, clipped) && user->getResult(0).hasOneUse()) {
      // x * (clip / 6)
      auto mul = dyn_cast<graph::MulOp>(*user->getResult(0).getUsers().begin());
      if (mul && getOtherOperand(mul, user->getResult(0)) == x)
        last = mul;
    }
    if (!last)
      return rewriter.notifyMatchFailure(op, "not x * clip / 6");
    return replaceByUnary<graph::HardSwishOp>(op, last, x, rewriter);
  }
};

/// x * Reciprocal(Sqrt(ReduceMean(x^2) + eps)) [* gamma] -> graph.rms_normalization,
/// anchored on the Sqrt.
struct RecognizeRmsNorm : OpRewritePattern<graph::SqrtOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::SqrtOp op, PatternRewriter &rewriter) const override {
    auto add = getSingleUseOp<graph::AddOp>(op.getInput());
    if (!add)
      return rewriter.notifyMatchFailure(op, "not Sqrt(mean + eps)");
    auto operands = matchOperands(add, [](Value v) { return getSplatValue(v).has_value(); });
    if (!operands)
      return rewriter.notifyMatchFailure(op, "not Sqrt(mean + eps)");
    double epsilon = *getSplatValue(operands->first);
    auto mean = getSingleUseOp<graph::ReduceMeanOp>(operands->second);
    if (!mean || epsilon < 0)
      return rewriter.notifyMatchFailure(op, "not Sqrt(ReduceMean(.) + eps)");
    std::optional<int64_t> axis = getTrailingReductionAxis(mean);
    if (!axis)
      return rewriter.notifyMatchFailure(op, "not a reduction over trailing axes");
    Value square = mean.getData();
    Operation *squareOp = square.getDefiningOp();
    if (!squareOp || !square.hasOneUse() || squareOp->getNumOperands() != 2)
      return rewriter.notifyMatchFailure(op, "not the mean of a square");
    Value x = squareOp->getOperand(0);
    auto inputType = dyn_cast<RankedTensorType>(x.getType());
    if (!isSquareOf(square, x) || !inputType || !isa<FloatType>(inputType.getElementType()))
      return rewriter.notifyMatchFailure(op, "not the mean of a square");
    // x - ReduceMean(x) over the same axes makes this a LayerNorm: not ours.
    if (auto sub = x.getDefiningOp<graph::SubOp>())
      if (auto center = sub.getRhs().getDefiningOp<graph::ReduceMeanOp>())
        if (center.getData() == sub.getLhs() && getTrailingReductionAxis(center) == axis)
          return rewriter.notifyMatchFailure(op, "a layer normalisation");

    // x / sqrt(...) or x * reciprocal(sqrt(...)).
    Value root = op.getResult();
    if (!root.hasOneUse())
      return rewriter.notifyMatchFailure(op, "root has other uses");
    Operation *user = *root.getUsers().begin();
    Operation *normalized = nullptr;
    if (auto div = dyn_cast<graph::DivOp>(user); div && div.getLhs() == x && div.getRhs() == root)
      normalized = div;
    else if (auto reciprocal = dyn_cast<graph::ReciprocalOp>(user))
      if (auto mul = getSingleUser<graph::MulOp>(reciprocal);
          mul && getOtherOperand(mul, reciprocal.getResult()) == x)
        normalized = mul;
    if (!normalized || normalized->getResult(0).getType() != inputType)
      return rewriter.notifyMatchFailure(op, "not x / rms");

    Operation *last = normalized;
    Value scale;
    if (auto mul = getSingleUser<graph::MulOp>(normalized)) {
      Value other = getOtherOperand(mul, normalized->getResult(0));
      if (other && isNormalizationParameter(other, inputType, *axis) &&
          mul.getType() == inputType) {
        scale = other;
        last = mul;
      }
    }
    rewriter.setInsertionPoint(last);
    Location loc = rewriter.getFusedLoc({squareOp->getLoc(), last->getLoc()});
    if (!scale)
      scale = createNormalizationFill(rewriter, loc, inputType, *axis, 1.0);
    auto rmsNorm = graph::RMSNormalizationOp::create(
        rewriter, loc, x, scale, rewriter.getI64IntegerAttr(*axis),
        rewriter.getF32FloatAttr(static_cast<float>(epsilon)));
    rewriter.replaceOp(last, rmsNorm.getResult());
    return success();
  }
};

struct GraphRecognizeActivations
    : kiln::impl::GraphRecognizeActivationsBase<GraphRecognizeActivations> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RecognizeSilu, RecognizeHardSigmoidSwish, RecognizeClipSwish, RecognizeRmsNorm>(
        &getContext());
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
  }
};

} // namespace
