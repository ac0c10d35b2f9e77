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
// rows masked out entirely. This pass matches the chain, anchored on the Softmax, and
// replaces the final MatMul by one graph.attention whose scale is the product of every
// scalar factor, with K transposed back (graph-simplify then merges that transpose with
// the one that made K'). The intermediates must have no other use; the mask must not
// broadcast the scores, nor a scalar factor its operand.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/graph/Recognize.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHRECOGNIZEATTENTION
#include "passes/Passes.h.inc"
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

struct RecognizeAttention : OpRewritePattern<graph::SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::SoftmaxOp softmax,
                                PatternRewriter &rewriter) const override {
    auto scoresType = dyn_cast<RankedTensorType>(softmax.getInput().getType());
    if (!scoresType || scoresType.getRank() < 2 || !isa<FloatType>(scoresType.getElementType()) ||
        (softmax.getAxis() != -1 && softmax.getAxis() != scoresType.getRank() - 1))
      return rewriter.notifyMatchFailure(softmax, "not a softmax over the last axis of scores");

    // The scores: [scaled] product, plus an optional mask.
    double scale = 1.0;
    Value mask;
    graph::MatMulOp product;
    if (auto add = getSingleUseOp<graph::AddOp>(softmax.getInput())) {
      for (auto [scaled, other] :
           {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())}) {
        double factor = 1.0;
        if (scaled.getType() != add.getType())
          continue;
        if (auto found = getScoresProduct(peelScale(scaled, factor))) {
          product = found;
          mask = other;
          scale = factor;
          break;
        }
      }
    } else {
      product = getScoresProduct(peelScale(softmax.getInput(), scale));
    }
    if (!product)
      return rewriter.notifyMatchFailure(softmax, "scores are not a matrix product");
    Value query = peelScale(product.getLhs(), scale);
    Value keyTransposed = peelScale(product.getRhs(), scale);

    // The probabilities: [NaN guard], then the product with the values.
    Value probabilities = softmax.getResult();
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
