//===- Loss.cpp - Graph to linalg: negative log likelihood and softmax cross-entropy ===//
//
// Both losses gather, for each element of the target [N, d1, ..., dk], one log-probability
// from [N, C, d1, ..., dk] at the class the target names (a `tensor.extract` in a
// linalg.generic over the target), weight it, and either keep the per-element losses
// (reduction "none") or sum them, with the weights' sum as the mean's divisor, in one
// reduction over every dimension. Softmax cross-entropy first computes the log-softmax
// of its scores along the class dimension, which is also its second result.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

#include <limits>

using namespace mlir;

namespace kiln::lowering {
namespace {

/// The type sums are accumulated in: f32 for the narrower floats, whose own precision
/// would drop the small terms of a long sum, else the element type itself.
Type accumulatorType(Type elementType) {
  if (cast<FloatType>(elementType).getWidth() < 32)
    return Float32Type::get(elementType.getContext());
  return elementType;
}

/// The attributes both losses share.
struct LossAttributes {
  StringRef reduction;
  std::optional<int64_t> ignoreIndex;
};

template <typename OpTy> LossAttributes getLossAttributes(OpTy op) {
  LossAttributes attributes{op.getReduction(), std::nullopt};
  if (IntegerAttr ignoreIndex = op.getIgnoreIndexAttr())
    attributes.ignoreIndex = ignoreIndex.getInt();
  return attributes;
}

/// The loss of one target element and its weight in the mean's divisor, in `accType`:
/// (-logProb[n, c, d...] * weight[c], weight[c]) for the class c = `targetElement` at
/// position `indices` = (n, d...), with weight[c] = 1 without `weight`, and (0, 0) when
/// the target is `ignoreIndex`.
std::pair<Value, Value> computeElementLoss(OpBuilder &b, Location loc, ValueRange indices,
                                           Value targetElement, Value logProb, Value weight,
                                           Value lastClass, std::optional<int64_t> ignoreIndex,
                                           Type accType) {
  Type elementType = getElementTypeOrSelf(logProb.getType());
  // An ignored target need not be a class, and one outside [0, C) is undefined behaviour;
  // clamping keeps both from reading outside the tensors (their loss is then discarded or
  // unspecified).
  Value classIndex = integerToIndex(b, loc, targetElement);
  Value zeroIndex = arith::ConstantIndexOp::create(b, loc, 0);
  classIndex = arith::MaxSIOp::create(b, loc, classIndex, zeroIndex);
  classIndex = arith::MinSIOp::create(b, loc, classIndex, lastClass);

  SmallVector<Value> position{indices.front(), classIndex};
  position.append(indices.begin() + 1, indices.end());
  Value logP = tensor::ExtractOp::create(b, loc, logProb, position);
  logP = convertScalar(b, loc, logP, elementType, accType);
  Value loss = arith::NegFOp::create(b, loc, logP);
  Value classWeight = createScalarConstant(b, loc, accType, 1.0);
  if (weight) {
    classWeight = tensor::ExtractOp::create(b, loc, weight, ValueRange{classIndex});
    classWeight = convertScalar(b, loc, classWeight, elementType, accType);
    loss = arith::MulFOp::create(b, loc, loss, classWeight);
  }
  if (ignoreIndex) {
    // Compared in i64, where ignore_index lives, so that an i32 target never matches a
    // truncated value.
    Value wideTarget = targetElement;
    if (!targetElement.getType().isInteger(64))
      wideTarget = arith::ExtSIOp::create(b, loc, b.getI64Type(), targetElement);
    Value ignored =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, wideTarget,
                              arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(*ignoreIndex)));
    Value zero = createScalarConstant(b, loc, accType, 0.0);
    // A select, not a product with 0: the ignored element's log-probability may be -inf.
    loss = arith::SelectOp::create(b, loc, ignored, zero, loss);
    classWeight = arith::SelectOp::create(b, loc, ignored, zero, classWeight);
  }
  return {loss, classWeight};
}

/// The negative log likelihood loss of `logProb` [N, C, d...] for `target` [N, d...] and
/// the optional `weight` [C], of type `resultType`: per element for reduction "none",
/// else the sum, or the sum divided by the sum of the elements' weights for "mean".
Value lowerNegativeLogLikelihood(OpBuilder &b, Location loc, Value logProb, Value target,
                                 Value weight, const LossAttributes &attributes,
                                 RankedTensorType resultType) {
  MLIRContext *context = b.getContext();
  auto targetType = cast<RankedTensorType>(target.getType());
  int64_t rank = targetType.getRank();
  Type elementType = resultType.getElementType();
  Type accType = accumulatorType(elementType);
  Value lastClass = arith::SubIOp::create(b, loc, tensor::DimOp::create(b, loc, logProb, 1),
                                          arith::ConstantIndexOp::create(b, loc, 1));
  auto elementLoss = [&](OpBuilder &nested, Location nestedLoc, Value targetElement) {
    SmallVector<Value> indices;
    for (int64_t dim = 0; dim < rank; ++dim)
      indices.push_back(linalg::IndexOp::create(nested, nestedLoc, dim));
    return computeElementLoss(nested, nestedLoc, indices, targetElement, logProb, weight, lastClass,
                              attributes.ignoreIndex, accType);
  };
  AffineMap identity = b.getMultiDimIdentityMap(rank);

  if (attributes.reduction == "none") {
    Value init = createEmptyTensor(b, loc, resultType, getSizes(b, loc, target));
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{resultType}, ValueRange{target}, ValueRange{init},
        ArrayRef<AffineMap>{identity, identity}, iterators,
        [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          Value loss = elementLoss(nested, nestedLoc, args[0]).first;
          linalg::YieldOp::create(nested, nestedLoc,
                                  convertScalar(nested, nestedLoc, loss, accType, elementType));
        });
    return generic.getResult(0);
  }

  // One pass over every element sums the losses and, for the mean, the weights.
  bool mean = attributes.reduction == "mean";
  auto scalarType = RankedTensorType::get({}, accType);
  Value zero = createScalarConstant(b, loc, accType, 0.0);
  SmallVector<Value> sums{createFilledTensor(b, loc, scalarType, {}, zero)};
  if (mean)
    sums.push_back(createFilledTensor(b, loc, scalarType, {}, zero));
  SmallVector<AffineMap> maps{identity};
  maps.append(sums.size(), AffineMap::get(rank, 0, {}, context));
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange(ValueRange(sums)), ValueRange{target}, sums, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        auto [loss, classWeight] = elementLoss(nested, nestedLoc, args[0]);
        SmallVector<Value> updated{arith::AddFOp::create(nested, nestedLoc, args[1], loss)};
        if (mean)
          updated.push_back(arith::AddFOp::create(nested, nestedLoc, args[2], classWeight));
        linalg::YieldOp::create(nested, nestedLoc, updated);
      });
  Value total = tensor::ExtractOp::create(b, loc, generic.getResult(0), ValueRange{});
  if (mean) {
    // Every element ignored gives 0 / 0 = NaN, as in ONNX's reference.
    Value weightTotal = tensor::ExtractOp::create(b, loc, generic.getResult(1), ValueRange{});
    total = arith::DivFOp::create(b, loc, total, weightTotal);
  }
  total = convertScalar(b, loc, total, accType, elementType);
  return tensor::FromElementsOp::create(b, loc, resultType, ValueRange{total});
}

/// log(softmax(scores)) along dimension 1, computed as x - max - log(sum(exp(x - max))) so
/// that no exponential overflows; the sum is accumulated in accumulatorType.
Value lowerLogSoftmaxOfClasses(OpBuilder &b, Location loc, Value scores,
                               RankedTensorType resultType) {
  MLIRContext *context = b.getContext();
  auto scoresType = cast<RankedTensorType>(scores.getType());
  int64_t rank = scoresType.getRank();
  Type elementType = scoresType.getElementType();
  Type accType = accumulatorType(elementType);

  Value lowest =
      createScalarConstant(b, loc, elementType, -std::numeric_limits<double>::infinity());
  Value max = createReduction(b, loc, scores, /*axes=*/{1}, /*keepDims=*/true, lowest,
                              [](OpBuilder &nested, Location nestedLoc, Value x, Value acc) {
                                return arith::MaximumFOp::create(nested, nestedLoc, x, acc);
                              });

  // sum(exp(x - max)) along dimension 1, kept as an extent of 1 like the maximum.
  SmallVector<AffineExpr> keptExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t dim = 0; dim < rank; ++dim) {
    keptExprs.push_back(dim == 1 ? getAffineConstantExpr(0, context)
                                 : getAffineDimExpr(dim, context));
    iterators.push_back(dim == 1 ? utils::IteratorType::reduction : utils::IteratorType::parallel);
  }
  AffineMap kept = AffineMap::get(rank, 0, keptExprs, context);
  SmallVector<OpFoldResult> keptSizes = getSizes(b, loc, max);
  auto keptType = RankedTensorType::get(cast<RankedTensorType>(max.getType()).getShape(), accType);
  Value zeros =
      createFilledTensor(b, loc, keptType, keptSizes, createScalarConstant(b, loc, accType, 0.0));
  auto sumOfExps = linalg::GenericOp::create(
      b, loc, TypeRange{keptType}, ValueRange{scores, max}, ValueRange{zeros},
      ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank), kept, kept}, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value x = convertScalar(nested, nestedLoc, args[0], elementType, accType);
        Value m = convertScalar(nested, nestedLoc, args[1], elementType, accType);
        Value e =
            math::ExpOp::create(nested, nestedLoc, arith::SubFOp::create(nested, nestedLoc, x, m));
        Value sum = arith::AddFOp::create(nested, nestedLoc, args[2], e);
        linalg::YieldOp::create(nested, nestedLoc, sum);
      });

  return createElementwise(
      b, loc, resultType, ValueRange{scores, max, sumOfExps.getResult(0)},
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value x = convertScalar(nested, nestedLoc, args[0], elementType, accType);
        Value m = convertScalar(nested, nestedLoc, args[1], elementType, accType);
        Value logSum = math::LogOp::create(nested, nestedLoc, args[2]);
        Value shifted = arith::SubFOp::create(nested, nestedLoc, x, m);
        Value logProb = arith::SubFOp::create(nested, nestedLoc, shifted, logSum);
        return convertScalar(nested, nestedLoc, logProb, accType, elementType);
      });
}

bool allRanked(ValueRange values) {
  return llvm::all_of(values, [](Value value) { return isa<RankedTensorType>(value.getType()); });
}

struct NegativeLogLikelihoodLossLowering : OpConversionPattern<graph::NegativeLogLikelihoodLossOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::NegativeLogLikelihoodLossOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "unranked result");
    if (!allRanked(adaptor.getOperands()))
      return rewriter.notifyMatchFailure(op, "unranked operand");
    Value loss =
        lowerNegativeLogLikelihood(rewriter, op.getLoc(), adaptor.getInput(), adaptor.getTarget(),
                                   adaptor.getWeight(), getLossAttributes(op), resultType);
    rewriter.replaceOp(op, loss);
    return success();
  }
};

struct SoftmaxCrossEntropyLossLowering : OpConversionPattern<graph::SoftmaxCrossEntropyLossOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::SoftmaxCrossEntropyLossOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType lossType = getConvertedResultType(*getTypeConverter(), op, 0);
    RankedTensorType logProbType = getConvertedResultType(*getTypeConverter(), op, 1);
    if (!lossType || !logProbType)
      return rewriter.notifyMatchFailure(op, "unranked result");
    if (!allRanked(adaptor.getOperands()))
      return rewriter.notifyMatchFailure(op, "unranked operand");
    Location loc = op.getLoc();
    Value logProb = lowerLogSoftmaxOfClasses(rewriter, loc, adaptor.getScores(), logProbType);
    Value loss = lowerNegativeLogLikelihood(rewriter, loc, logProb, adaptor.getLabels(),
                                            adaptor.getWeights(), getLossAttributes(op), lossType);
    rewriter.replaceOp(op, ValueRange{loss, logProb});
    return success();
  }
};

} // namespace

void populateLossLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<NegativeLogLikelihoodLossLowering, SoftmaxCrossEntropyLossLowering>(
      converter, patterns.getContext());
}

} // namespace kiln::lowering
