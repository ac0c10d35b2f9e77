//===- RecognizeAttention.cpp - Scaled dot-product attention to one op ----===//
//
// Exporters write attention out as
//
//   scores = MatMul(Q', K') [* or / a scalar]  [+ mask]
//   probs  = Softmax(scores, axis = -1)        [Where(IsNaN(probs), 0, probs)]
//   result = MatMul(probs, V)
//
// where Q' and K' may carry scalar factors of their own (torch.export scales both by
// sqrt(1 / sqrt(D))), K' is K transposed (often by the head-splitting transpose itself),
// the mask is additive (padding, causal, or both) and the guard after the softmax zeroes
// rows masked out entirely. Half-precision scores may be widened to f32 for the softmax
// and its probabilities cast back (an fp16 export's softmax(x, dtype=float32).to(x.dtype)). Masks
// may also be fills, Where(c, scores, f) or Where(c, f, scores) (masked_fill), up to two mask
// layers in all; a fill is taken only when f absorbs any score (-inf, or at most -1e30 in f32/f64:
// s + f rounds to f for |s| < 1e22), so that it is exactly the additive mask Where(c, 0, f) or
// Where(c, f, 0). This pass matches the chain, anchored on the Softmax, and replaces the final
// MatMul by one graph.attention whose scale is the product of every scalar factor and whose mask is
// the sum of the mask terms, with K transposed back (graph-simplify then merges that
// transpose with the one that made K'). The intermediates must have no other use; the
// masks must not broadcast the scores, nor a scalar factor its operand.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ShapeInference.h"
#include "passes/graph/Passes.h"
#include "passes/graph/Recognize.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHRECOGNIZEATTENTION
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::recognize;

namespace {

/// The value of `factor` when it is a nonzero constant with all elements equal that leaves
/// the type of `op`'s other operand unchanged (no broadcast), else nullopt.
std::optional<double> getScalarFactor(Operation *op, Value factor, Value other) {
  if (other.getType() != op->getResult(0).getType())
    return std::nullopt;
  std::optional<double> value = getSplatValue(factor);
  if (!value || *value == 0.0)
    return std::nullopt;
  return value;
}

/// Strips single-use multiplications and divisions by scalar constants off `value`,
/// folding them into `scale`; returns what they scaled.
Value peelScale(Value value, double &scale) {
  while (true) {
    if (auto mul = getSingleUseOp<graph::MulOp>(value)) {
      if (auto factor = getScalarFactor(mul, mul.getRhs(), mul.getLhs())) {
        scale *= *factor;
        value = mul.getLhs();
        continue;
      }
      if (auto factor = getScalarFactor(mul, mul.getLhs(), mul.getRhs())) {
        scale *= *factor;
        value = mul.getRhs();
        continue;
      }
    }
    if (auto div = getSingleUseOp<graph::DivOp>(value))
      if (auto factor = getScalarFactor(div, div.getRhs(), div.getLhs())) {
        scale /= *factor;
        value = div.getLhs();
        continue;
      }
    return value;
  }
}

/// A matrix product of operands of rank 2 or more (no vector promotion), used once.
graph::MatMulOp getScoresProduct(Value value) {
  auto matmul = getSingleUseOp<graph::MatMulOp>(value);
  if (!matmul)
    return nullptr;
  auto lhsType = dyn_cast<RankedTensorType>(matmul.getLhs().getType());
  auto rhsType = dyn_cast<RankedTensorType>(matmul.getRhs().getType());
  if (!lhsType || !rhsType || lhsType.getRank() < 2 || rhsType.getRank() < 2)
    return nullptr;
  return matmul;
}

/// A term of the additive mask: a tensor to add, or Where(condition, 0, fill)
/// (`fillWhenTrue`: Where(condition, fill, 0)).
struct MaskTerm {
  Value additive;
  Value condition;
  double fill = 0.0;
  bool fillWhenTrue = false;
};

/// Whether `fill` masks a score of `type` out exactly as adding it would: -inf (any float
/// type), or a value so large that any realistic score added to it rounds to it (f32 and
/// f64 only).
bool isAbsorbingFill(double fill, Type type) {
  return (std::isinf(fill) && fill < 0) || ((type.isF32() || type.isF64()) && fill <= -1e30);
}

/// Whether `cast` widens f16 or bf16 to f32 (scores taken to f32 for the softmax).
bool isWideningCast(graph::CastOp cast) {
  Type from = getElementTypeOrSelf(cast.getInput().getType());
  return (from.isF16() || from.isBF16()) && cast.getTo().isF32();
}

/// The matrix product under `scores`, through at most `depth` mask layers (an Add of a
/// tensor of the scores' type, a fill Where), at most one cast widening half-precision
/// scores to f32 (`narrow` gets their type), and the scalar factors right on top of the
/// product; the masks are appended to `terms`, the factors folded into `scale`.
graph::MatMulOp matchScores(Value scores, double &scale, SmallVectorImpl<MaskTerm> &terms,
                            Type &narrow, int depth = 2) {
  double factor = 1.0;
  Value peeled = peelScale(scores, factor);
  if (auto product = getScoresProduct(peeled)) {
    scale *= factor;
    return product;
  }
  if (auto cast = getSingleUseOp<graph::CastOp>(peeled); cast && !narrow && isWideningCast(cast)) {
    narrow = getElementTypeOrSelf(cast.getInput().getType());
    double inner = 1.0;
    if (auto product = matchScores(cast.getInput(), inner, terms, narrow, depth)) {
      scale *= factor * inner;
      return product;
    }
    narrow = Type();
  }
  if (depth == 0)
    return nullptr;
  if (auto add = getSingleUseOp<graph::AddOp>(scores)) {
    for (auto [inner, other] :
         {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())}) {
      if (inner.getType() != add.getType())
        continue;
      size_t size = terms.size();
      if (auto product = matchScores(inner, scale, terms, narrow, depth - 1)) {
        terms.push_back({other, {}, 0.0, false});
        return product;
      }
      terms.resize(size);
    }
  }
  if (auto where = getSingleUseOp<graph::WhereOp>(scores)) {
    Type elementType = cast<ShapedType>(where.getType()).getElementType();
    for (auto [inner, fill, fillWhenTrue] : {std::tuple(where.getLhs(), where.getRhs(), false),
                                             std::tuple(where.getRhs(), where.getLhs(), true)}) {
      std::optional<double> fillValue = getSplatValue(fill);
      if (inner.getType() != where.getType() || !fillValue ||
          !isAbsorbingFill(*fillValue, elementType))
        continue;
      size_t size = terms.size();
      if (auto product = matchScores(inner, scale, terms, narrow, depth - 1)) {
        terms.push_back({{}, where.getCondition(), *fillValue, fillWhenTrue});
        return product;
      }
      terms.resize(size);
    }
  }
  return nullptr;
}

/// The shape of a term's mask: the tensor's, or the condition's.
Type getTermType(const MaskTerm &term) {
  return term.additive ? term.additive.getType() : term.condition.getType();
}

/// The broadcast shape of every term's, or nullopt when one is unranked or two do not
/// broadcast (nothing is created then).
std::optional<SmallVector<int64_t>> getMaskShape(ArrayRef<MaskTerm> terms) {
  SmallVector<int64_t> shape;
  for (const MaskTerm &term : terms) {
    auto type = dyn_cast<RankedTensorType>(getTermType(term));
    if (!type)
      return std::nullopt;
    auto broadcast = graph::broadcastShapes(shape, type.getShape());
    if (!broadcast) {
      llvm::consumeError(broadcast.takeError());
      return std::nullopt;
    }
    shape = *broadcast;
  }
  return shape;
}

/// The sum of `terms` (ranked and broadcasting: getMaskShape) as one additive mask of
/// `elementType`; a fill term becomes Where(condition, 0, fill) or Where(condition, fill, 0).
Value createMask(PatternRewriter &rewriter, Location loc, ArrayRef<MaskTerm> terms,
                 Type elementType) {
  auto scalar = [&](double value) -> Value {
    auto type = RankedTensorType::get({}, elementType);
    return graph::ConstantOp::create(
        rewriter, loc,
        cast<ElementsAttr>(DenseElementsAttr::get(
            type, ArrayRef<Attribute>(rewriter.getFloatAttr(elementType, value)))));
  };
  Value mask;
  SmallVector<int64_t> shape;
  for (const MaskTerm &term : terms) {
    Value value = term.additive;
    auto termShape = cast<RankedTensorType>(getTermType(term)).getShape();
    // A mask added to the scores after they were widened to f32, in their own type (-inf
    // and f32's lowest value become f16's -inf).
    if (value && getElementTypeOrSelf(value.getType()) != elementType)
      value =
          graph::CastOp::create(rewriter, loc, Type(RankedTensorType::get(termShape, elementType)),
                                value, TypeAttr::get(elementType));
    if (!value) {
      Value fill = scalar(term.fill), zero = scalar(0.0);
      value = graph::WhereOp::create(
          rewriter, loc, Type(RankedTensorType::get(termShape, elementType)), term.condition,
          term.fillWhenTrue ? fill : zero, term.fillWhenTrue ? zero : fill);
    }
    if (!mask) {
      mask = value;
      shape.assign(termShape.begin(), termShape.end());
      continue;
    }
    shape = cantFail(graph::broadcastShapes(shape, termShape));
    mask = graph::AddOp::create(rewriter, loc, TypeRange{RankedTensorType::get(shape, elementType)},
                                ValueRange{mask, value})
               .getResult();
  }
  return mask;
}

struct RecognizeAttention : OpRewritePattern<graph::SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::SoftmaxOp softmax,
                                PatternRewriter &rewriter) const override {
    auto scoresType = dyn_cast<RankedTensorType>(softmax.getInput().getType());
    if (!scoresType || scoresType.getRank() < 2 || !isa<FloatType>(scoresType.getElementType()) ||
        (softmax.getAxis() != -1 && softmax.getAxis() != scoresType.getRank() - 1))
      return rewriter.notifyMatchFailure(softmax, "not a softmax over the last axis of scores");

    // The scores: [scaled] product, under up to two mask layers.
    double scale = 1.0;
    SmallVector<MaskTerm> maskTerms;
    Type narrow;
    graph::MatMulOp product = matchScores(softmax.getInput(), scale, maskTerms, narrow);
    if (!product)
      return rewriter.notifyMatchFailure(softmax, "scores are not a matrix product");
    if (!getMaskShape(maskTerms))
      return rewriter.notifyMatchFailure(softmax, "masks that are unranked or do not broadcast");
    Value query = peelScale(product.getLhs(), scale);
    Value keyTransposed = peelScale(product.getRhs(), scale);

    // The probabilities: [back to the scores' half precision, after a softmax taken in
    // f32 (softmax(x, dtype=float32).to(x.dtype), Hugging Face's eager attention): the
    // attention's softmax is f32 anyway], [NaN guard], then the product with the values.
    Value probabilities = softmax.getResult();
    if (narrow) {
      auto back = getSingleUser<graph::CastOp>(softmax);
      if (!back || back.getTo() != narrow)
        return rewriter.notifyMatchFailure(softmax, "f32 probabilities of half-precision scores");
      probabilities = back.getResult();
    }
    bool nanToZero = false;
    if (!probabilities.hasOneUse()) {
      auto users = llvm::to_vector(probabilities.getUsers());
      graph::IsNaNOp isNan;
      graph::WhereOp guard;
      for (Operation *user : users) {
        if (auto found = dyn_cast<graph::IsNaNOp>(user))
          isNan = found;
        else if (auto found = dyn_cast<graph::WhereOp>(user))
          guard = found;
      }
      if (users.size() != 2 || !isNan || !guard || !isNan->hasOneUse() ||
          guard.getCondition() != isNan.getResult() || guard.getRhs() != probabilities ||
          !isConstant(guard.getLhs(), 0.0) || guard.getType() != probabilities.getType())
        return rewriter.notifyMatchFailure(softmax, "probabilities have other uses");
      probabilities = guard.getResult();
      nanToZero = true;
    }
    auto weighted = getSingleUser<graph::MatMulOp>(probabilities.getDefiningOp());
    if (!weighted || weighted.getLhs() != probabilities)
      return rewriter.notifyMatchFailure(softmax, "probabilities do not weight values");
    Value value = weighted.getRhs();
    auto valueType = dyn_cast<RankedTensorType>(value.getType());
    if (!valueType || valueType.getRank() < 2)
      return rewriter.notifyMatchFailure(softmax, "values are not matrices");

    rewriter.setInsertionPoint(weighted);
    Location loc = rewriter.getFusedLoc({product.getLoc(), softmax.getLoc(), weighted.getLoc()});
    Value mask;
    if (!maskTerms.empty())
      mask = createMask(rewriter, loc, maskTerms, narrow ? narrow : scoresType.getElementType());
    int64_t rank = cast<RankedTensorType>(keyTransposed.getType()).getRank();
    auto perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[rank - 1], perm[rank - 2]);
    Value key = graph::TransposeOp::create(rewriter, loc, keyTransposed, perm);
    auto attention =
        graph::AttentionOp::create(rewriter, loc, Type(weighted.getType()), query, key, value, mask,
                                   llvm::APFloat(static_cast<float>(scale)), nanToZero);
    rewriter.replaceOp(weighted, attention.getResult());
    return success();
  }
};

struct GraphRecognizeAttention : kiln::impl::GraphRecognizeAttentionBase<GraphRecognizeAttention> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RecognizeAttention>(&getContext());
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
  }
};

} // namespace
