//===- Simplify.cpp - Canonical forms of graph ops ------------------------===//
//
// Local rewrites, applied greedily until none applies: no-op data movement and casts
// disappear, chains of transposes and of reshapes become one op, identities of
// arithmetic (x + 0, x * 1) go. A value is only ever replaced by one of the same type,
// so users and function results keep the types they were checked against.
//
// A Split with static part sizes becomes one Slice per part: the canonical form of data
// movement here is one op per result, so that each part can become a prologue of the one
// kernel that reads it (kernel formation absorbs single-result producers) instead of the
// Split being a kernel of its own that writes every part.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/Passes.h"
#include "passes/graph/SimplifyPatterns.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace kiln {
#define GEN_PASS_DEF_GRAPHSIMPLIFY
#include "passes/graph/Passes.h.inc"
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

/// A transpose of a transposed value seen through a reshape that only inserts or removes
/// unit dimensions, T2(R(T1(x))), becomes R'(T2'(T1(x))): the reshape changes nothing but
/// where the 1s are, so the outer transpose moves before it and then composes with the
/// inner one (exporters write attention's key as such chains, [B, H, S, D] -> [B*H, S, D]
/// -> transposed -> [B, H, D, S]). Static shapes only.
struct HoistTransposeAboveUnitReshape : OpRewritePattern<graph::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::TransposeOp op, PatternRewriter &rewriter) const override {
    Operation *reshape = op.getInput().getDefiningOp();
    if (!isReshapeLike(reshape) || !reshape->getResult(0).hasOneUse())
      return failure();
    Value source = reshape->getOperand(0);
    if (!source.getDefiningOp<graph::TransposeOp>())
      return failure();
    auto sourceType = dyn_cast<RankedTensorType>(source.getType());
    auto reshapedType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!sourceType || !reshapedType || !resultType || !sourceType.hasStaticShape() ||
        !reshapedType.hasStaticShape() || !resultType.hasStaticShape() ||
        op.getPerm().size() != size_t(reshapedType.getRank()))
      return failure();
    // The non-unit dimensions on both sides of the reshape must be the same sequence.
    auto nonUnit = [](ArrayRef<int64_t> shape) {
      SmallVector<int64_t> positions;
      for (auto [index, extent] : llvm::enumerate(shape))
        if (extent != 1)
          positions.push_back(index);
      return positions;
    };
    SmallVector<int64_t> before = nonUnit(sourceType.getShape());
    SmallVector<int64_t> after = nonUnit(reshapedType.getShape());
    if (before.size() != after.size())
      return failure();
    for (auto [from, to] : llvm::zip(before, after))
      if (sourceType.getDimSize(from) != reshapedType.getDimSize(to))
        return failure();
    // The order the transpose puts the non-unit dimensions in, applied before the reshape.
    SmallVector<int64_t> order;
    for (int64_t dim : op.getPerm()) {
      if (dim < 0 || dim >= reshapedType.getRank())
        return failure();
      if (reshapedType.getDimSize(dim) != 1)
        order.push_back(llvm::find(after, dim) - after.begin());
    }
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, sourceType.getRank()));
    SmallVector<int64_t> shape(sourceType.getShape());
    for (auto [index, which] : llvm::enumerate(order)) {
      perm[before[index]] = before[which];
      shape[before[index]] = sourceType.getDimSize(before[which]);
    }
    Location loc = op.getLoc();
    Value transposed = graph::TransposeOp::create(
        rewriter, loc, RankedTensorType::get(shape, sourceType.getElementType()), source,
        rewriter.getDenseI64ArrayAttr(perm));
    auto shapeType = RankedTensorType::get({resultType.getRank()}, rewriter.getI64Type());
    Value target = graph::ConstantOp::create(
        rewriter, loc,
        cast<ElementsAttr>(DenseElementsAttr::get(shapeType, resultType.getShape())));
    rewriter.replaceOpWithNewOp<graph::ReshapeOp>(op, resultType, transposed, target,
                                                  rewriter.getBoolAttr(false));
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

/// split(x) along an axis into parts of static extents = one slice(x) per part, from the
/// parts before it to their end. Unused parts get no slice.
struct SplitToSlices : OpRewritePattern<graph::SplitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::SplitOp op, PatternRewriter &rewriter) const override {
    auto inputType = dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!inputType)
      return failure();
    int64_t rank = inputType.getRank();
    int64_t axis = op.getAxis();
    if (axis < -rank || axis >= rank)
      return failure();
    if (axis < 0)
      axis += rank;
    SmallVector<int64_t> extents;
    for (Value result : op.getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!type || type.getRank() != rank || type.isDynamicDim(axis))
        return failure();
      extents.push_back(type.getDimSize(axis));
    }
    auto indexType = RankedTensorType::get({1}, rewriter.getI64Type());
    auto makeIndex = [&](int64_t value) -> Value {
      return graph::ConstantOp::create(
          rewriter, op.getLoc(),
          cast<ElementsAttr>(DenseElementsAttr::get(indexType, ArrayRef(value))));
    };
    SmallVector<Value> slices;
    Value axisIndex = makeIndex(axis);
    int64_t offset = 0;
    for (auto [result, extent] : llvm::zip_equal(op.getResults(), extents)) {
      Value slice;
      if (!result.use_empty()) {
        Value start = makeIndex(offset);
        Value end = makeIndex(offset + extent);
        slice = graph::SliceOp::create(rewriter, op.getLoc(), result.getType(), op.getInput(),
                                       start, end, axisIndex, /*steps=*/Value());
      }
      slices.push_back(slice);
      offset += extent;
    }
    for (auto [result, slice] : llvm::zip_equal(op.getResults(), slices))
      if (slice)
        rewriter.replaceAllUsesWith(result, slice);
    rewriter.eraseOp(op);
    return success();
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
  patterns
      .add<RemoveSameTypeOp<graph::ReshapeOp>, RemoveSameTypeOp<graph::ExpandOp>,
           RemoveSameTypeOp<graph::CastOp>, RemoveSameTypeOp<graph::SqueezeOp>,
           RemoveSameTypeOp<graph::UnsqueezeOp>, RemoveSameTypeOp<graph::FlattenOp>,
           RemoveIdentityTranspose, ComposeTransposes, HoistTransposeAboveUnitReshape,
           MergeReshapes, MergeWideningCasts, RemoveFullSlice, RemoveSingleConcat, SplitToSlices,
           RemoveArithmeticIdentity<graph::SubOp, /*one=*/false, /*commutative=*/false>,
           RemoveArithmeticIdentity<graph::MulOp, /*one=*/true, /*commutative=*/true>,
           RemoveArithmeticIdentity<graph::DivOp, /*one=*/true, /*commutative=*/false>>(context);
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
