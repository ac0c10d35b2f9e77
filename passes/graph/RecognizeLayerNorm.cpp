//===- RecognizeLayerNorm.cpp - Decomposed LayerNorm to one op ------------===//
//
// Exporters before ONNX opset 17 (and models written by hand) spell LayerNorm out:
//
//   mean = ReduceMean(x, axes)            d = Sub(x, mean)
//   var = ReduceMean(Pow(d, 2) or Mul(d, d), axes)
//   y = Div(d, Sqrt(Add(var, eps)))       or Mul(d, Reciprocal(Sqrt(Add(var, eps))))
//   y = Add(Mul(y, gamma), beta)          (each optional)
//
// This pass matches that chain, anchored on the Div (or Mul), and replaces it by one
// graph.layer_normalization: one reduction kernel instead of seven ops.
//
//===----------------------------------------------------------------------===//

#include "passes/graph/Passes.h"
#include "passes/graph/Recognize.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHRECOGNIZELAYERNORM
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::recognize;

namespace {

/// The pieces of a matched normalisation `d / sqrt(var + eps)`.
struct Normalization {
  Value input;         // x
  int64_t axis;        // the first normalised dimension
  double epsilon;      // eps
  Operation *result;   // the Div or Mul computing the normalised value
  Operation *squareOp; // Pow(d, 2) or Mul(d, d)
};

/// `denominator` as `Sqrt(Add(ReduceMean(square), eps))` with single-use intermediates:
/// the square's value, the reduction's first axis and eps.
static std::optional<std::tuple<Value, int64_t, double>> matchRootOfMean(Value denominator) {
  auto sqrt = getSingleUseOp<graph::SqrtOp>(denominator);
  if (!sqrt)
    return std::nullopt;
  auto add = getSingleUseOp<graph::AddOp>(sqrt.getInput());
  if (!add)
    return std::nullopt;
  auto operands = matchOperands(add, [](Value v) { return getSplatValue(v).has_value(); });
  if (!operands)
    return std::nullopt;
  auto [epsValue, variance] = *operands;
  double epsilon = *getSplatValue(epsValue);
  auto mean = getSingleUseOp<graph::ReduceMeanOp>(variance);
  if (!mean || epsilon < 0)
    return std::nullopt;
  std::optional<int64_t> axis = getTrailingReductionAxis(mean);
  if (!axis)
    return std::nullopt;
  return std::make_tuple(mean.getData(), *axis, epsilon);
}

/// `op` (graph.div or graph.mul) as `d / sqrt(var + eps)` or `d * reciprocal(sqrt(...))`
/// where `d = x - ReduceMean(x)` and `var = ReduceMean(d^2)` over the same trailing axes,
/// every intermediate used only inside the pattern.
static std::optional<Normalization> matchNormalization(Operation *op) {
  Value deviation, denominator;
  if (auto div = dyn_cast<graph::DivOp>(op)) {
    deviation = div.getLhs();
    denominator = div.getRhs();
  } else if (auto mul = dyn_cast<graph::MulOp>(op)) {
    auto operands = matchOperands(
        mul, [](Value v) { return static_cast<bool>(getSingleUseOp<graph::ReciprocalOp>(v)); });
    if (!operands)
      return std::nullopt;
    denominator = operands->first.getDefiningOp<graph::ReciprocalOp>().getInput();
    deviation = operands->second;
  } else {
    return std::nullopt;
  }
  auto root = matchRootOfMean(denominator);
  if (!root)
    return std::nullopt;
  auto [square, axis, epsilon] = *root;
  auto sub = deviation.getDefiningOp<graph::SubOp>();
  if (!sub || !isSquareOf(square, deviation) || !square.hasOneUse())
    return std::nullopt;
  Operation *squareOp = square.getDefiningOp();
  // d feeds exactly the square and the normalised value.
  if (llvm::any_of(deviation.getUsers(),
                   [&](Operation *user) { return user != squareOp && user != op; }))
    return std::nullopt;
  Value input = sub.getLhs();
  auto mean = getSingleUseOp<graph::ReduceMeanOp>(sub.getRhs());
  if (!mean || mean.getData() != input)
    return std::nullopt;
  std::optional<int64_t> meanAxis = getTrailingReductionAxis(mean);
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  if (!meanAxis || *meanAxis != axis || !inputType || !isa<FloatType>(inputType.getElementType()))
    return std::nullopt;
  // The subtraction and the normalisation must not broadcast x to something larger.
  if (deviation.getType() != inputType || op->getResult(0).getType() != inputType)
    return std::nullopt;
  return Normalization{input, axis, epsilon, op, squareOp};
}

template <typename OpTy> struct RecognizeLayerNorm : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    std::optional<Normalization> norm = matchNormalization(op);
    if (!norm)
      return rewriter.notifyMatchFailure(op, "not a decomposed layer normalisation");
    auto inputType = cast<RankedTensorType>(norm->input.getType());

    // The affine part: Mul by gamma, then Add of beta, each optional.
    Operation *last = op;
    Value scale, bias;
    Value normalized = op.getResult();
    if (auto mul = getSingleUser<graph::MulOp>(last)) {
      Value other = getOtherOperand(mul, normalized);
      if (other && isNormalizationParameter(other, inputType, norm->axis) &&
          mul.getType() == inputType) {
        scale = other;
        last = mul;
      }
    }
    if (auto add = getSingleUser<graph::AddOp>(last)) {
      Value other = getOtherOperand(add, last->getResult(0));
      if (other && isNormalizationParameter(other, inputType, norm->axis) &&
          add.getType() == inputType) {
        bias = other;
        last = add;
      }
    }

    rewriter.setInsertionPoint(last);
    Location loc = rewriter.getFusedLoc({op.getLoc(), last->getLoc()});
    if (!scale)
      scale = createNormalizationFill(rewriter, loc, inputType, norm->axis, 1.0);
    SmallVector<int64_t> statsShape(inputType.getShape());
    std::fill(statsShape.begin() + norm->axis, statsShape.end(), 1);
    auto statsType = RankedTensorType::get(statsShape, rewriter.getF32Type());
    auto layerNorm = graph::LayerNormalizationOp::create(
        rewriter, loc, TypeRange{inputType, statsType, statsType}, norm->input, scale, bias,
        rewriter.getI64IntegerAttr(norm->axis),
        rewriter.getF32FloatAttr(static_cast<float>(norm->epsilon)),
        TypeAttr::get(rewriter.getF32Type()));
    rewriter.replaceOp(last, layerNorm.getResult());
    return success();
  }
};

struct GraphRecognizeLayerNorm : kiln::impl::GraphRecognizeLayerNormBase<GraphRecognizeLayerNorm> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RecognizeLayerNorm<graph::DivOp>, RecognizeLayerNorm<graph::MulOp>>(&getContext());
    // Only the matched chains change: no folding, no constant merging.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
  }
};

} // namespace
