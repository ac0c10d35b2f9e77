//===- GpuApproximateErf.cpp - erf as a branch-free rational function ----===//
//
// The kernels' erf (GELU's, in GEMM epilogues above all) as x P(x^2) / Q(x^2) on a
// clamped x, instead of libdevice's __nv_erff, whose two ranges are two branches. P and Q
// are a least-squares fit of Kiln's own (iteratively reweighted towards the largest
// errors) on [0, 3.9], where erf is within 3.5e-8 of 1 at the end.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_GPUAPPROXIMATEERF
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

// erf(x) = x P(x^2) / Q(x^2) for |x| <= kClamp; P0 = 2 / sqrt(pi), Q0 = 1.
constexpr float kClamp = 3.9f;
constexpr float kNumerator[] = {1.128378987312317f,     0.19193792343139648f,
                                0.052966561168432236f,  0.0038367563392966986f,
                                0.0002874567871913314f, 2.050441025858163e-06f};
constexpr float kDenominator[] = {1.0f,
                                  0.5034323334693909f,
                                  0.11475697159767151f,
                                  0.015108964405953884f,
                                  0.0011817094637081027f,
                                  3.823127190116793e-05f};

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
    if (!element.isF32())
      x = arith::ExtFOp::create(rewriter, loc, wide, x);
    auto constant = [&](float value) -> Value {
      TypedAttr attr = rewriter.getF32FloatAttr(value);
      if (auto vector = dyn_cast<VectorType>(wide))
        attr = DenseElementsAttr::get(vector, attr);
      return arith::ConstantOp::create(rewriter, loc, wide, attr);
    };
    // maximumf/minimumf keep a NaN (max.NaN.f32 on sm_80 and later).
    auto clamp = [&](Value value, float bound) -> Value {
      Value low = arith::MaximumFOp::create(rewriter, loc, value, constant(-bound));
      return arith::MinimumFOp::create(rewriter, loc, low, constant(bound));
    };
    Value clamped = clamp(x, kClamp);
    Value square = arith::MulFOp::create(rewriter, loc, clamped, clamped);
    auto horner = [&](ArrayRef<float> coefficients) {
      Value sum = constant(coefficients.back());
      for (float coefficient : llvm::reverse(coefficients.drop_back()))
        sum = math::FmaOp::create(rewriter, loc, sum, square, constant(coefficient));
      return sum;
    };
    Value numerator = arith::MulFOp::create(rewriter, loc, clamped, horner(kNumerator));
    // Q >= 1 everywhere: the approximate division (div.approx.f32, 2 ulp) is safe.
    Value quotient = arith::DivFOp::create(
        rewriter, loc, numerator, horner(kDenominator),
        arith::FastMathFlagsAttr::get(rewriter.getContext(), arith::FastMathFlags::afn));
    // Rounding may carry the quotient a few ulp past 1.
    Value result = clamp(quotient, 1.0f);
    if (!element.isF32())
      result = arith::TruncFOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GpuApproximateErf : kiln::impl::GpuApproximateErfBase<GpuApproximateErf> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ApproximateErf>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
