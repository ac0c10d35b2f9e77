//===- GpuApproximateErf.cpp - erf as a branch-free rational function ----===//
//
// The kernels' erf (GELU's, in GEMM epilogues above all) as x P(x^2) / Q(x^2) on a
// clamped x, instead of libdevice's __nv_erff, whose two ranges are two branches. P and Q
// (degree 3 each, P0 = 2 / sqrt(pi)) are a least-squares fit of Kiln's own (iteratively
// reweighted towards the largest errors) on [0, 3.3]: within 2.4e-6 of erf everywhere in
// f32 (6.5e-7 relative below 0.5), and below 1 in magnitude (7.8e-7 below it at the
// clamp, more than div.approx's 2 ulp), so the quotient needs no clamp.
//
// GELU, 0.5 x (1 + erf(x / sqrt(2))), is where it runs most: a constant scale of erf's
// input is folded into the coefficients (erf(s x) = x P'(x^2) / Q'(x^2), P'_k = s^(2k+1)
// P_k, Q'_k = s^(2k) Q_k, the clamp at 3.3 / |s|), and h (1 + erf) becomes fma(h, erf, h):
// 14 instructions an element instead of 24 in the epilogue of ViT's fc1, which the
// tensor cores wait on (ping-pong consumers: the GELU epilogue of one warpgroup is longer
// than the other's main loop at K = 768).
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace kiln {
#define GEN_PASS_DEF_GPUAPPROXIMATEERF
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

// erf(x) = x P(x^2) / Q(x^2) for |x| <= kClamp; P0 = 2 / sqrt(pi), Q0 = 1.
constexpr double kClamp = 3.3;
constexpr double kNumerator[] = {1.12837923, 0.154805839, 0.0431217588, 0.000744258228};
constexpr double kDenominator[] = {1.0, 0.470539898, 0.0949654281, 0.00925178826};

/// The constant `value` is everywhere (a scalar or a splat), if it is one.
std::optional<double> splatValue(Value value) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  if (auto splat = dyn_cast<SplatElementsAttr>(attr))
    attr = splat.getSplatValue<Attribute>();
  if (auto number = dyn_cast<FloatAttr>(attr))
    return number.getValueAsDouble();
  return std::nullopt;
}

/// x where `value` is x * s (or s * x) for a constant s, with s; else nothing.
std::optional<std::pair<Value, double>> scaledInput(Value value) {
  auto mul = value.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return std::nullopt;
  for (int side = 0; side < 2; ++side)
    if (std::optional<double> scale = splatValue(mul->getOperand(side)))
      if (*scale != 0 && std::isfinite(*scale))
        return std::make_pair(mul->getOperand(1 - side), *scale);
  return std::nullopt;
}

/// The mulf computing h * (1 + e) from `e`'s single use, 1 + e (or e + 1), itself used
/// once by it; and h.
std::optional<std::pair<arith::MulFOp, Value>> onePlusTimes(Value e) {
  if (!e.hasOneUse())
    return std::nullopt;
  auto add = dyn_cast<arith::AddFOp>(*e.getUsers().begin());
  if (!add || !add->hasOneUse())
    return std::nullopt;
  Value other = add.getLhs() == e ? add.getRhs() : add.getLhs();
  std::optional<double> one = splatValue(other);
  if (!one || *one != 1.0)
    return std::nullopt;
  auto mul = dyn_cast<arith::MulFOp>(*add->getUsers().begin());
  if (!mul)
    return std::nullopt;
  Value h = mul.getLhs() == add.getResult() ? mul.getRhs() : mul.getLhs();
  return std::make_pair(mul, h);
}

struct ApproximateErf : OpRewritePattern<math::ErfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ErfOp op, PatternRewriter &rewriter) const override {
    Type type = op.getType();
    Type element = getElementTypeOrSelf(type);
    if (!element.isF32() && !element.isF16() && !element.isBF16())
      return rewriter.notifyMatchFailure(op, "not a 32-bit, 16-bit or bf16 float");
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Type wide = f32;
    if (auto vector = dyn_cast<VectorType>(type))
      wide = vector.clone(f32);
    Value x = op.getOperand();
    // erf(s x) on x: s in the coefficients (f32 operands; a half product keeps its mul).
    double scale = 1.0;
    if (element.isF32())
      if (std::optional<std::pair<Value, double>> scaled = scaledInput(x))
        std::tie(x, scale) = *scaled;
    if (!element.isF32())
      x = arith::ExtFOp::create(rewriter, loc, wide, x);
    auto constant = [&](double value) -> Value {
      TypedAttr attr = rewriter.getF32FloatAttr(static_cast<float>(value));
      if (auto vector = dyn_cast<VectorType>(wide))
        attr = DenseElementsAttr::get(vector, attr);
      return arith::ConstantOp::create(rewriter, loc, wide, attr);
    };
    // maximumf/minimumf keep a NaN (max.NaN.f32 on sm_80 and later).
    double bound = kClamp / std::abs(scale);
    Value low = arith::MaximumFOp::create(rewriter, loc, x, constant(-bound));
    Value clamped = arith::MinimumFOp::create(rewriter, loc, low, constant(bound));
    Value square = arith::MulFOp::create(rewriter, loc, clamped, clamped);
    auto horner = [&](ArrayRef<double> coefficients, double first) {
      // Coefficient k times first * scale^(2k).
      auto at = [&](size_t k) { return coefficients[k] * first * std::pow(scale, 2.0 * k); };
      Value sum = constant(at(coefficients.size() - 1));
      for (size_t k = coefficients.size() - 1; k-- > 0;)
        sum = math::FmaOp::create(rewriter, loc, sum, square, constant(at(k)));
      return sum;
    };
    Value numerator = arith::MulFOp::create(rewriter, loc, clamped, horner(kNumerator, scale));
    // Q >= 1 everywhere: the approximate division (div.approx.f32, 2 ulp) is safe.
    Value result = arith::DivFOp::create(
        rewriter, loc, numerator, horner(kDenominator, 1.0),
        arith::FastMathFlagsAttr::get(rewriter.getContext(), arith::FastMathFlags::afn));
    if (!element.isF32()) {
      result = arith::TruncFOp::create(rewriter, loc, type, result);
    } else if (std::optional<std::pair<arith::MulFOp, Value>> gelu = onePlusTimes(op.getResult())) {
      // h (1 + erf) as fma(h, erf, h): GELU's tail, one rounding instead of two.
      auto [mul, h] = *gelu;
      Operation *add = *op->getUsers().begin();
      rewriter.setInsertionPoint(mul);
      rewriter.replaceOpWithNewOp<math::FmaOp>(mul, h, result, h);
      rewriter.eraseOp(add);
      rewriter.eraseOp(op);
      return success();
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GpuApproximateErf : kiln::impl::GpuApproximateErfBase<GpuApproximateErf> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ApproximateErf>(&getContext());
    // No folding here: an erf of a constant is approximated like any other (the
    // canonicalizer after folds the arithmetic), so that a kernel computes what its
    // constants' folds compute.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
