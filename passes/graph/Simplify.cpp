//===- Simplify.cpp - Canonical forms of graph ops ------------------------===//
//
// Local rewrites, applied greedily until none applies: no-op data movement and casts
// disappear, chains of transposes and of reshapes become one op, identities of
// arithmetic (x + 0, x * 1) go. A value is only ever replaced by one of the same type,
// so users and function results keep the types they were checked against.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/Passes.h"
#include "passes/graph/SimplifyPatterns.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace kiln {
#define GEN_PASS_DEF_GRAPHSIMPLIFY
#include "passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// Replaces `op`'s one result by `value` when their types are equal.
LogicalResult replaceBy(PatternRewriter &rewriter, Operation *op, Value value) {
  if (value.getType() != op->getResult(0).getType())
    return rewriter.notifyMatchFailure(op, "the replacement has another type");
  rewriter.replaceOp(op, value);
  return success();
}

/// Whether a tensor type has a rank and at most one dynamic extent: two tensors of this
/// type with the same number of elements then have the same shape.
bool shapeDeterminedByCount(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && llvm::count_if(tensor.getShape(), ShapedType::isDynamic) <= 1;
}

/// Reshape, Flatten, Squeeze and Unsqueeze keep the elements in order: only the shape
/// changes.
bool isReshapeLike(Operation *op) {
  return isa_and_nonnull<graph::ReshapeOp, graph::FlattenOp, graph::SqueezeOp, graph::UnsqueezeOp>(
      op);
}

/// Data movement whose result has its input's type: nothing moves. A reshape or expand
/// to a type with two dynamic extents might still change the shape, so those need the
/// shape to be determined by the type.
template <typename OpTy> struct RemoveSameTypeOp : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    Value input = op->getOperand(0);
    if (input.getType() != op.getType())
      return failure();
    if (!isa<graph::CastOp>(op) && !shapeDeterminedByCount(input.getType()))
      return failure();
    // A dynamic extent of the input could be 1 and broadcast: Expand needs static ones.
    if (isa<graph::ExpandOp>(op) && !cast<RankedTensorType>(input.getType()).hasStaticShape())
      return failure();
    return replaceBy(rewriter, op, input);
  }
};

bool isIdentity(ArrayRef<int64_t> perm) {
  for (auto [index, dim] : llvm::enumerate(perm))
    if (dim != int64_t(index))
      return false;
  return true;
}

/// Transpose by the identity permutation.
struct RemoveIdentityTranspose : OpRewritePattern<graph::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::TransposeOp op, PatternRewriter &rewriter) const override {
    if (!isIdentity(op.getPerm()))
      return failure();
    return replaceBy(rewriter, op, op.getInput());
  }
};

/// transpose(transpose(x, p1), p2) = transpose(x, p1[p2[i]]), removed when that is the
/// identity.
struct ComposeTransposes : OpRewritePattern<graph::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::TransposeOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<graph::TransposeOp>();
    if (!inner || inner.getPerm().size() != op.getPerm().size())
      return failure();
    SmallVector<int64_t> perm;
    for (int64_t dim : op.getPerm()) {
      if (dim < 0 || dim >= int64_t(inner.getPerm().size()))
        return failure();
      perm.push_back(inner.getPerm()[dim]);
    }
    if (isIdentity(perm) && inner.getInput().getType() == op.getType())
      return replaceBy(rewriter, op, inner.getInput());
    rewriter.replaceOpWithNewOp<graph::TransposeOp>(op, op.getType(), inner.getInput(),
                                                    rewriter.getDenseI64ArrayAttr(perm));
    return success();
  }
};

/// Two reshape-like ops in a row become one Reshape: to a constant shape when the result
/// is static (or to the outer Reshape's own target when it names no input extent, i.e.
/// holds no 0), and nothing at all when the pair cancels (Unsqueeze then Squeeze of the
/// same axis, say).
struct MergeReshapes : RewritePattern {
  MergeReshapes(MLIRContext *context) : RewritePattern(MatchAnyOpTypeTag(), 1, context) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isReshapeLike(op))
      return failure();
    Operation *inner = op->getOperand(0).getDefiningOp();
    if (!isReshapeLike(inner))
      return failure();
    Value source = inner->getOperand(0);
    Type resultType = op->getResult(0).getType();
    if (source.getType() == resultType && shapeDeterminedByCount(resultType))
      return replaceBy(rewriter, op, source);

    Value shape;
    bool allowZero = false;
    auto result = dyn_cast<RankedTensorType>(resultType);
    if (result && result.hasStaticShape() && !llvm::is_contained(result.getShape(), 0)) {
      auto shapeType = RankedTensorType::get({result.getRank()}, rewriter.getI64Type());
      shape = graph::ConstantOp::create(
          rewriter, op->getLoc(),
          cast<ElementsAttr>(DenseElementsAttr::get(shapeType, result.getShape())));
    } else if (auto reshape = dyn_cast<graph::ReshapeOp>(op)) {
      DenseIntElementsAttr target;
      if (!matchPattern(reshape.getShape(), m_Constant(&target)))
        return failure();
      allowZero = reshape.getAllowzero();
      if (!allowZero && llvm::any_of(target.getValues<APInt>(),
                                     [](const APInt &extent) { return extent.isZero(); }))
        return failure();
      shape = reshape.getShape();
    } else {
      return failure();
    }
    rewriter.replaceOpWithNewOp<graph::ReshapeOp>(op, resultType, source, shape,
                                                  rewriter.getBoolAttr(allowZero));
    return success();
  }
};

/// Whether a conversion from `from` to `to` is exact for every value of `from`.
bool isExactWidening(Type from, Type to) {
  if (from == to)
    return true;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    // The standard IEEE-like formats, each contained in the next wider one.
    auto rank = [](FloatType type) -> int {
      if (type.isF16() || type.isBF16())
        return 1;
      if (type.isF32())
        return 2;
      if (type.isF64())
        return 3;
      return 0;
    };
    int fromRank = rank(fromFloat), toRank = rank(toFloat);
    return fromRank != 0 && toRank != 0 && fromRank < toRank;
  }
  auto fromInt = dyn_cast<IntegerType>(from);
  if (!fromInt)
    return false;
  // Booleans are 0 and 1 in every type.
  if (fromInt.getWidth() == 1)
    return isa<FloatType, IntegerType>(to);
  // Graph integers are signed unless marked unsigned.
  bool fromSigned = !fromInt.isUnsigned();
  if (auto toInt = dyn_cast<IntegerType>(to)) {
    if (toInt.getWidth() == 1)
      return false;
    bool toSigned = !toInt.isUnsigned();
    if (fromSigned == toSigned)
      return toInt.getWidth() >= fromInt.getWidth();
    return !fromSigned && toInt.getWidth() > fromInt.getWidth();
  }
  if (toFloat && toFloat.getFPMantissaWidth() > 0)
    return int(fromInt.getWidth()) - (fromSigned ? 1 : 0) <= int(toFloat.getFPMantissaWidth()) &&
           (toFloat.isF16() || toFloat.isBF16() || toFloat.isF32() || toFloat.isF64());
  return false;
}

/// cast(cast(x, B), C) = cast(x, C) when B holds every value of x's type exactly: the
/// second conversion then sees the same number the direct one would.
struct MergeWideningCasts : OpRewritePattern<graph::CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::CastOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<graph::CastOp>();
    if (!inner)
      return failure();
    Type source = getElementTypeOrSelf(inner.getInput().getType());
    Type middle = getElementTypeOrSelf(inner.getType());
    if (!isExactWidening(source, middle))
      return failure();
    rewriter.replaceOpWithNewOp<graph::CastOp>(op, TypeRange{op.getType()},
                                               ValueRange{inner.getInput()}, op->getAttrs());
    return success();
  }
};

/// The integer values of a constant operand, or nullopt.
std::optional<SmallVector<int64_t>> getConstantInts(Value value) {
  DenseIntElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &number : attr.getValues<APInt>())
    values.push_back(number.getSExtValue());
  return values;
}

/// A Slice with step 1 from the start to (at least) the end of every axis it names.
struct RemoveFullSlice : OpRewritePattern<graph::SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::SliceOp op, PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto starts = getConstantInts(op.getStarts());
    auto ends = getConstantInts(op.getEnds());
    if (!type || !starts || !ends || starts->size() != ends->size())
      return failure();
    int64_t rank = type.getRank();
    SmallVector<int64_t> axes;
    if (op.getAxes()) {
      auto values = getConstantInts(op.getAxes());
      if (!values)
        return failure();
      axes = *values;
    } else {
      axes = llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
    }
    if (axes.size() != starts->size())
      return failure();
    if (op.getSteps()) {
      auto steps = getConstantInts(op.getSteps());
      if (!steps || steps->size() != starts->size() ||
          llvm::any_of(*steps, [](int64_t step) { return step != 1; }))
        return failure();
    }
    for (auto [axis, start, end] : llvm::zip_equal(axes, *starts, *ends)) {
      if (axis < -rank || axis >= rank)
        return failure();
      int64_t extent = type.getDimSize(axis < 0 ? axis + rank : axis);
      if (ShapedType::isDynamic(extent)) {
        // Exporters write "to the end" as INT64_MAX (or INT32_MAX).
        if (start != 0 || end < std::numeric_limits<int32_t>::max())
          return failure();
        continue;
      }
      if ((start < 0 ? start + extent : start) > 0)
        return failure();
      if ((end < 0 ? end + extent : end) < extent)
        return failure();
    }
    return replaceBy(rewriter, op, op.getInput());
  }
};

/// Concat of one input.
struct RemoveSingleConcat : OpRewritePattern<graph::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::ConcatOp op, PatternRewriter &rewriter) const override {
    if (op.getInputs().size() != 1)
      return failure();
    return replaceBy(rewriter, op, op.getInputs().front());
  }
};

/// Whether `value` is a constant splat of zero (`one` false) or one.
bool isSplatConstant(Value value, bool one) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return false;
  if (one)
    return matchPattern(attr, m_OneFloat()) || matchPattern(attr, m_One());
  return matchPattern(attr, m_AnyZeroFloat()) || matchPattern(attr, m_Zero());
}

/// x - 0, x * 1, 1 * x and x / 1 are x, when the constant does not broadcast x to a larger
/// shape (the types then differ). x + 0 is AddOp's folder. As there, -0.0 and +0.0 are not
/// kept apart.
template <typename OpTy, bool one, bool commutative>
struct RemoveArithmeticIdentity : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    if (isSplatConstant(op.getRhs(), one) && op.getLhs().getType() == op.getType())
      return replaceBy(rewriter, op, op.getLhs());
    if (commutative && isSplatConstant(op.getLhs(), one) && op.getRhs().getType() == op.getType())
      return replaceBy(rewriter, op, op.getRhs());
    return failure();
  }
};

} // namespace

void kiln::populateGraphSimplifyPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<RemoveSameTypeOp<graph::ReshapeOp>, RemoveSameTypeOp<graph::ExpandOp>,
                 RemoveSameTypeOp<graph::CastOp>, RemoveSameTypeOp<graph::SqueezeOp>,
                 RemoveSameTypeOp<graph::UnsqueezeOp>, RemoveSameTypeOp<graph::FlattenOp>,
                 RemoveIdentityTranspose, ComposeTransposes, MergeReshapes, MergeWideningCasts,
                 RemoveFullSlice, RemoveSingleConcat,
                 RemoveArithmeticIdentity<graph::SubOp, /*one=*/false, /*commutative=*/false>,
                 RemoveArithmeticIdentity<graph::MulOp, /*one=*/true, /*commutative=*/true>,
               RemoveArithmeticIdentity<graph::DivOp, /*one=*/true, /*commutative=*/false>>(
      context);
}

namespace {

struct GraphSimplifyPass : kiln::impl::GraphSimplifyBase<GraphSimplifyPass> {
  using GraphSimplifyBase::GraphSimplifyBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    kiln::populateGraphSimplifyPatterns(patterns);
    // Dead pure ops go as a matter of course; folders (x + 0) run too. Not reaching a
    // fixed point within the driver's limit leaves a correct, less simplified graph.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace
