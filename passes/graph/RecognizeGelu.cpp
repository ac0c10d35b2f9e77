//===- RecognizeGelu.cpp - Decomposed GELU to one op ----------------------===//
//
// Exporters before ONNX Gelu (opset 20) write GELU out in one of two forms:
//
//   erf:  x * 0.5 * (1 + Erf(x / 1.4142135))      (or x * 0.70710678 inside the Erf)
//   tanh: 0.5 * x * (1 + Tanh(0.7978846 * (x + 0.044715 * x^3)))
//         (x^3 as Pow(x, 3), Mul(x, Mul(x, x)) or Mul(Mul(x, x), x))
//
// and the three factors x, 0.5 and (1 + ...) multiply in any grouping and order:
//   ((x * t) * 0.5)     TorchScript exporter, BERT and ViT
//   (x * (0.5 * t))     torch.export exporter, BERT and ViT
//   ((x * 0.5) * t)     torch.export exporter, GPT-2's tanh form
// This pass matches them, anchored on the Erf or Tanh, and replaces the final product by
// graph.gelu with approximate = "none" or "tanh". Constants are compared with a relative
// tolerance (1e-5); every intermediate must have no use outside the pattern.
//
//===----------------------------------------------------------------------===//

#include "passes/graph/Passes.h"
#include "passes/graph/Recognize.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace kiln {
#define GEN_PASS_DEF_GRAPHRECOGNIZEGELU
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::recognize;

namespace {

const double kSqrt2 = std::sqrt(2.0);
const double kSqrt2OverPi = std::sqrt(2.0 / M_PI);
const double kTanhCubeCoefficient = 0.044715;

/// The input x of the erf form's argument, `x / sqrt(2)` or `x * (1 / sqrt(2))` (single
/// use), else null.
static Value matchErfArgument(Value argument) {
  if (auto div = getSingleUseOp<graph::DivOp>(argument))
    return isConstant(div.getRhs(), kSqrt2) ? div.getLhs() : Value();
  if (auto mul = getSingleUseOp<graph::MulOp>(argument))
    if (auto operands = matchOperands(mul, [](Value v) { return isConstant(v, 1.0 / kSqrt2); }))
      return operands->second;
  return nullptr;
}

/// Whether `value` is x^3: Pow(x, 3), Mul(x, Mul(x, x)) or Mul(Mul(x, x), x), with
/// single-use intermediates.
static bool isCubeOf(Value value, Value x) {
  if (auto pow = getSingleUseOp<graph::PowOp>(value))
    return pow.getLhs() == x && isConstant(pow.getRhs(), 3.0);
  auto mul = getSingleUseOp<graph::MulOp>(value);
  if (!mul)
    return false;
  Value square = getOtherOperand(mul, x);
  return square && square.hasOneUse() && isSquareOf(square, x) &&
         square.getDefiningOp<graph::MulOp>();
}

/// The input x of the tanh form's argument, `sqrt(2 / pi) * (x + 0.044715 * x^3)` (every
/// product in either order; single-use intermediates), else null.
static Value matchTanhArgument(Value argument) {
  auto outer = getSingleUseOp<graph::MulOp>(argument);
  if (!outer)
    return nullptr;
  auto scaled = matchOperands(outer, [](Value v) { return isConstant(v, kSqrt2OverPi); });
  if (!scaled)
    return nullptr;
  auto sum = getSingleUseOp<graph::AddOp>(scaled->second);
  if (!sum)
    return nullptr;
  for (auto [x, term] :
       {std::pair(sum.getLhs(), sum.getRhs()), std::pair(sum.getRhs(), sum.getLhs())}) {
    auto product = getSingleUseOp<graph::MulOp>(term);
    if (!product)
      continue;
    auto cubic =
        matchOperands(product, [](Value v) { return isConstant(v, kTanhCubeCoefficient); });
    if (cubic && isCubeOf(cubic->second, x))
      return x;
  }
  return nullptr;
}

/// Whether `value` is the constant 0.5.
static bool isHalf(Value value) { return isConstant(value, 0.5); }

/// The op computing `x * 0.5 * one_plus` in any grouping, starting from `onePlus`'s single
/// user, else null.
static Operation *matchHalfProduct(Value onePlus, Value x) {
  auto first = getSingleUser<graph::MulOp>(onePlus.getDefiningOp());
  if (!first)
    return nullptr;
  Value other = getOtherOperand(first, onePlus);
  if (!other)
    return nullptr;
  // (x * 0.5) * t or (0.5 * x) * t.
  if (auto half = getSingleUseOp<graph::MulOp>(other))
    if (auto operands = matchOperands(half, isHalf); operands && operands->second == x)
      return first;
  // (x * t) * 0.5 or (0.5 * t) * x: the second product brings the missing factor.
  bool firstHasX = other == x;
  if (!firstHasX && !isHalf(other))
    return nullptr;
  auto second = getSingleUser<graph::MulOp>(first);
  if (!second)
    return nullptr;
  Value last = getOtherOperand(second, first.getResult());
  if (!last || (firstHasX ? !isHalf(last) : last != x))
    return nullptr;
  return second;
}

/// Matches GELU around `activation` (graph.erf or graph.tanh) whose argument gave `x`.
static LogicalResult rewriteGelu(Operation *activation, Value x, StringRef approximate,
                                 PatternRewriter &rewriter) {
  if (!x)
    return rewriter.notifyMatchFailure(activation, "argument is not the GELU form");
  auto onePlus = getSingleUser<graph::AddOp>(activation);
  Value one = onePlus ? getOtherOperand(onePlus, activation->getResult(0)) : Value();
  if (!one || !isConstant(one, 1.0))
    return rewriter.notifyMatchFailure(activation, "not followed by 1 + ...");
  Operation *last = matchHalfProduct(onePlus.getResult(), x);
  if (!last)
    return rewriter.notifyMatchFailure(activation, "not multiplied by x and 0.5");
  // graph.gelu has its operand's type: the constants must not broadcast x.
  if (last->getResult(0).getType() != x.getType())
    return rewriter.notifyMatchFailure(activation, "the constants broadcast x");
  rewriter.setInsertionPoint(last);
  Location loc = rewriter.getFusedLoc({activation->getLoc(), last->getLoc()});
  Value gelu =
      graph::GeluOp::create(rewriter, loc, x.getType(), x, rewriter.getStringAttr(approximate));
  rewriter.replaceOp(last, gelu);
  return success();
}

struct RecognizeErfGelu : OpRewritePattern<graph::ErfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::ErfOp op, PatternRewriter &rewriter) const override {
    return rewriteGelu(op, matchErfArgument(op.getInput()), "none", rewriter);
  }
};

struct RecognizeTanhGelu : OpRewritePattern<graph::TanhOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::TanhOp op, PatternRewriter &rewriter) const override {
    return rewriteGelu(op, matchTanhArgument(op.getInput()), "tanh", rewriter);
  }
};

struct GraphRecognizeGelu : kiln::impl::GraphRecognizeGeluBase<GraphRecognizeGelu> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RecognizeErfGelu, RecognizeTanhGelu>(&getContext());
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
  }
};

} // namespace
