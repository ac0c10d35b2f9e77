//===- NNNormalization.cpp - Graph to linalg: softmax and normalisations ===//
//
// Every op here reduces statistics over some dimensions of its input, then maps each
// element with them. The statistics are reducing linalg.generics whose results keep the
// reduced dimensions as 1, so the final elementwise generic reads them by broadcasting:
//  - Softmax, LogSoftmax: the maximum, then the sum of exp(x - max) (stable for large
//    inputs), then the output: three passes over the data.
//  - LayerNormalization, InstanceNormalization, GroupNormalization,
//    MeanVarianceNormalization: the sum, then the sum of squared deviations from the mean
//    (two passes rather than E[x^2] - E[x]^2, which cancels catastrophically), then the
//    output; statistics in the stash type (f32 for narrow floats).
//  - BatchNormalization: in inference mode one elementwise generic reading the [C]
//    tensors; in training mode the moments over every dimension but C, the output from
//    them, and one generic per running statistic.
//  - Hardmax: the first maximum's index, then a one-hot generic.
//  - LpNormalization: the norm, then a division. LRN: a windowed sum of squares across
//    channels (the window is a reduction dimension; out-of-range channels add 0).
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;

namespace kiln::lowering {
namespace {

/// The type statistics of `elementType` are computed in: f32 for narrower floats.
Type getComputeType(OpBuilder &b, Type elementType) {
  if (elementType.getIntOrFloatBitWidth() < 32)
    return b.getF32Type();
  return elementType;
}

/// `value` converted between float types (no-op when equal).
Value convertFloat(OpBuilder &b, Location loc, Value value, Type type) {
  return convertScalar(b, loc, value, value.getType(), type);
}

/// The number of elements of `input` along `axes`, as a float of `type`.
Value createCount(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes, Type type) {
  return indexToFloat(b, loc, createExtentProduct(b, loc, input, axes), type,
                      /*isUnsignedValue=*/true);
}

/// The mean and the variance (population) of `input` over `axes`, in `statType`, each
/// with the reduced dimensions kept as 1.
std::pair<Value, Value> createMoments(OpBuilder &b, Location loc, Value input,
                                      ArrayRef<int64_t> axes, Type statType) {
  Value zero = createScalarConstant(b, loc, statType, 0.0);
  Value count = createCount(b, loc, input, axes, statType);
  Value sum = createReductionWithStats(b, loc, input, axes, /*keepDims=*/true, {}, zero,
                                       [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                                         Value x = convertFloat(nb, nl, args[0], statType);
                                         return arith::AddFOp::create(nb, nl, x, args[1]);
                                       });
  auto statsType = cast<RankedTensorType>(sum.getType());
  Value mean = createElementwise(b, loc, statsType, ValueRange{sum},
                                 [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                                   return arith::DivFOp::create(nb, nl, args[0], count);
                                 });
  Value squares =
      createReductionWithStats(b, loc, input, axes, /*keepDims=*/true, ValueRange{mean}, zero,
                               [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                                 Value x = convertFloat(nb, nl, args[0], statType);
                                 Value deviation = arith::SubFOp::create(nb, nl, x, args[1]);
                                 Value square = arith::MulFOp::create(nb, nl, deviation, deviation);
                                 return arith::AddFOp::create(nb, nl, square, args[2]);
                               });
  Value variance = createElementwise(b, loc, statsType, ValueRange{squares},
                                     [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                                       return arith::DivFOp::create(nb, nl, args[0], count);
                                     });
  return {mean, variance};
}

/// 1 / sqrt(variance + epsilon), elementwise.
Value createInverseStdDev(OpBuilder &b, Location loc, Value variance, double epsilon) {
  auto type = cast<RankedTensorType>(variance.getType());
  return createElementwise(b, loc, type, ValueRange{variance},
                           [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                             Value eps =
                                 createScalarConstant(nb, nl, type.getElementType(), epsilon);
                             Value sum = arith::AddFOp::create(nb, nl, args[0], eps);
                             return math::RsqrtOp::create(nb, nl, sum);
                           });
}

/// Whether every given type is a float type.
bool allFloat(TypeRange types) {
  return llvm::all_of(types, [](Type type) { return isa<FloatType>(getElementTypeOrSelf(type)); });
}

/// The converted result type and the type of `input` of a normalisation `op` when both are
/// ranked float tensors and the input has rank `minRank` or more; otherwise a match
/// failure saying `requirement`.
FailureOr<std::pair<RankedTensorType, RankedTensorType>>
matchFloatTypes(ConversionPatternRewriter &rewriter, const TypeConverter &converter, Operation *op,
                Value input, int64_t minRank, StringRef requirement) {
  RankedTensorType resultType = getConvertedResultType(converter, op);
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  if (!resultType || !inputType || inputType.getRank() < minRank ||
      !allFloat(TypeRange{inputType, resultType}))
    return rewriter.notifyMatchFailure(op, requirement);
  return std::make_pair(resultType, inputType);
}

/// `axis` of `op` normalised for a rank-`rank` input, or a match failure.
FailureOr<int64_t> matchAxis(ConversionPatternRewriter &rewriter, Operation *op, int64_t axis,
                             int64_t rank) {
  FailureOr<int64_t> normalized = normalizeAxis(axis, rank);
  if (failed(normalized))
    return rewriter.notifyMatchFailure(op, "axis out of range");
  return normalized;
}

/// Whether `value` is a [C] float tensor, a per-channel parameter.
bool isChannelParameter(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getRank() == 1 && isa<FloatType>(type.getElementType());
}

/// The final pass of the channel-wise normalisations: each element of `input` ([N, C,
/// ...]) minus `mean`, times `invStdDev` (both with reduced dimensions kept as 1), times
/// `scale[c]` plus `bias[c]` ([C] tensors read at `channelDims`: one dimension, or two
/// for a [G, C/G] view), in `statType`.
Value createChannelAffine(OpBuilder &b, Location loc, RankedTensorType resultType, Value input,
                          Value mean, Value invStdDev, Value scale, Value bias,
                          ArrayRef<int64_t> channelDims, Type statType) {
  MLIRContext *context = b.getContext();
  int64_t rank = resultType.getRank();
  SmallVector<AffineExpr> channelExprs;
  for (int64_t dim : channelDims)
    channelExprs.push_back(getAffineDimExpr(dim, context));
  AffineMap channelMap = AffineMap::get(rank, 0, channelExprs, context);
  SmallVector<AffineMap> maps{
      b.getMultiDimIdentityMap(rank),
      getBroadcastMap(context, cast<RankedTensorType>(mean.getType()), rank),
      getBroadcastMap(context, cast<RankedTensorType>(invStdDev.getType()), rank), channelMap,
      channelMap};
  return createParallelGeneric(
      b, loc, resultType, getSizes(b, loc, input), ValueRange{input, mean, invStdDev, scale, bias},
      maps, [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Value x = convertFloat(nb, nl, args[0], statType);
        Value centered = arith::SubFOp::create(nb, nl, x, args[1]);
        Value normalized = arith::MulFOp::create(nb, nl, centered, args[2]);
        Value scaled =
            arith::MulFOp::create(nb, nl, normalized, convertFloat(nb, nl, args[3], statType));
        Value shifted =
            arith::AddFOp::create(nb, nl, scaled, convertFloat(nb, nl, args[4], statType));
        return convertFloat(nb, nl, shifted, resultType.getElementType());
      });
}

//===----------------------------------------------------------------------===//
// Softmax, LogSoftmax, Hardmax
//===----------------------------------------------------------------------===//

template <typename OpTy, bool Log> struct SoftmaxLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult matchAndRewrite(OpTy op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto types = matchFloatTypes(rewriter, *this->getTypeConverter(), op, input, 1,
                                 "needs ranked float tensors of rank 1 or more");
    if (failed(types))
      return failure();
    RankedTensorType resultType = types->first, inputType = types->second;
    FailureOr<int64_t> axis = matchAxis(rewriter, op, op.getAxis(), inputType.getRank());
    if (failed(axis))
      return failure();
    Type elementType = inputType.getElementType();
    Type computeType = getComputeType(rewriter, elementType);

    Value lowest = createExtremeConstant(rewriter, loc, elementType, /*largest=*/false,
                                         /*isUnsignedType=*/false);
    Value maximum =
        createReductionWithStats(rewriter, loc, input, {*axis}, /*keepDims=*/true, {}, lowest,
                                 [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
                                   return arith::MaximumFOp::create(b, nl, args[0], args[1]);
                                 });
    Value zero = createScalarConstant(rewriter, loc, computeType, 0.0);
    Value sum = createReductionWithStats(
        rewriter, loc, input, {*axis}, /*keepDims=*/true, ValueRange{maximum}, zero,
        [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
          Value shifted = arith::SubFOp::create(b, nl, convertFloat(b, nl, args[0], computeType),
                                                convertFloat(b, nl, args[1], computeType));
          return arith::AddFOp::create(b, nl, math::ExpOp::create(b, nl, shifted), args[2]);
        });
    Value result = createElementwise(
        rewriter, loc, resultType, ValueRange{input, maximum, sum},
        [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
          Value shifted = arith::SubFOp::create(b, nl, convertFloat(b, nl, args[0], computeType),
                                                convertFloat(b, nl, args[1], computeType));
          Value value;
          if (Log)
            value = arith::SubFOp::create(b, nl, shifted, math::LogOp::create(b, nl, args[2]));
          else
            value = arith::DivFOp::create(b, nl, math::ExpOp::create(b, nl, shifted), args[2]);
          return convertFloat(b, nl, value, resultType.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct HardmaxLowering : OpConversionPattern<graph::HardmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::HardmaxOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto types = matchFloatTypes(rewriter, *getTypeConverter(), op, input, 1,
                                 "needs ranked float tensors of rank 1 or more");
    if (failed(types))
      return failure();
    RankedTensorType resultType = types->first, inputType = types->second;
    int64_t rank = inputType.getRank();
    FailureOr<int64_t> axis = matchAxis(rewriter, op, op.getAxis(), inputType.getRank());
    if (failed(axis))
      return failure();
    Type elementType = inputType.getElementType();
    MLIRContext *context = rewriter.getContext();

    // The index of the first maximum along the axis (a NaN-free slice of only -inf
    // gives 0, as the first element is always taken).
    auto [shape, sizes] = getReducedShape(rewriter, loc, input, {*axis}, /*keepDims=*/true);
    Type indexType = rewriter.getIndexType();
    Value lowest = createExtremeConstant(rewriter, loc, elementType, /*largest=*/false,
                                         /*isUnsignedType=*/false);
    Value bestValues =
        createFilledTensor(rewriter, loc, RankedTensorType::get(shape, elementType), sizes, lowest);
    Value bestIndices = createFilledTensor(rewriter, loc, RankedTensorType::get(shape, indexType),
                                           sizes, arith::ConstantIndexOp::create(rewriter, loc, 0));
    AffineMap kept = getKeptMap(context, rank, {*axis});
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators[*axis] = utils::IteratorType::reduction;
    auto argmax = linalg::GenericOp::create(
        rewriter, loc, TypeRange{bestValues.getType(), bestIndices.getType()}, ValueRange{input},
        ValueRange{bestValues, bestIndices},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank), kept, kept}, iterators,
        [&](OpBuilder &b, Location nl, ValueRange args) {
          Value index = linalg::IndexOp::create(b, nl, *axis);
          Value better = arith::CmpFOp::create(b, nl, arith::CmpFPredicate::OGT, args[0], args[1]);
          Value zero = arith::ConstantIndexOp::create(b, nl, 0);
          Value first = arith::CmpIOp::create(b, nl, arith::CmpIPredicate::eq, index, zero);
          Value take = arith::OrIOp::create(b, nl, better, first);
          linalg::YieldOp::create(b, nl,
                                  ValueRange{arith::SelectOp::create(b, nl, take, args[0], args[1]),
                                             arith::SelectOp::create(b, nl, take, index, args[2])});
        });
    Value result = createElementwise(
        rewriter, loc, resultType, ValueRange{argmax.getResult(1)},
        [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
          Value index = linalg::IndexOp::create(b, nl, *axis);
          Value isBest = arith::CmpIOp::create(b, nl, arith::CmpIPredicate::eq, index, args[0]);
          Type type = resultType.getElementType();
          return arith::SelectOp::create(b, nl, isBest, createScalarConstant(b, nl, type, 1.0),
                                         createScalarConstant(b, nl, type, 0.0));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// LayerNormalization
//===----------------------------------------------------------------------===//

struct LayerNormalizationLowering : OpConversionPattern<graph::LayerNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::LayerNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TypeConverter &converter = *getTypeConverter();
    RankedTensorType resultType = getConvertedResultType(converter, op, 0);
    RankedTensorType meanType = getConvertedResultType(converter, op, 1);
    RankedTensorType invStdDevType = getConvertedResultType(converter, op, 2);
    Value input = adaptor.getInput();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!resultType || !meanType || !invStdDevType || !inputType ||
        !isa<RankedTensorType>(adaptor.getScale().getType()) ||
        (adaptor.getBias() && !isa<RankedTensorType>(adaptor.getBias().getType())))
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    Type statType = op.getStashType();
    if (!allFloat(TypeRange{inputType, resultType, adaptor.getScale().getType()}) ||
        meanType.getElementType() != statType || invStdDevType.getElementType() != statType)
      return rewriter.notifyMatchFailure(op, "needs float tensors and statistics of stash_type");
    int64_t rank = inputType.getRank();
    FailureOr<int64_t> axis = normalizeAxis(op.getAxis(), rank);
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    if (meanType.getRank() != rank || invStdDevType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "statistics of another rank than the input");
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(*axis, rank));
    // Statistics of narrow stash types are still accumulated in f32.
    Type computeType = getComputeType(rewriter, statType);

    auto [mean, variance] = createMoments(rewriter, loc, input, axes, computeType);
    Value invStdDev =
        createInverseStdDev(rewriter, loc, variance, op.getEpsilon().convertToDouble());
    SmallVector<Value> operands{input, mean, invStdDev, adaptor.getScale()};
    if (adaptor.getBias())
      operands.push_back(adaptor.getBias());
    Value result = createElementwise(
        rewriter, loc, resultType, operands,
        [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
          Value x = convertFloat(b, nl, args[0], computeType);
          Value normalized =
              arith::MulFOp::create(b, nl, arith::SubFOp::create(b, nl, x, args[1]), args[2]);
          Value value =
              arith::MulFOp::create(b, nl, normalized, convertFloat(b, nl, args[3], computeType));
          if (args.size() > 4)
            value = arith::AddFOp::create(b, nl, value, convertFloat(b, nl, args[4], computeType));
          return convertFloat(b, nl, value, resultType.getElementType());
        });
    auto toStatType = [&](Value stats, RankedTensorType type) -> Value {
      auto statsType = cast<RankedTensorType>(stats.getType());
      if (statsType.getElementType() != type.getElementType())
        stats = createElementwise(rewriter, loc, statsType.clone(type.getElementType()),
                                  ValueRange{stats},
                                  [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
                                    return convertFloat(b, nl, args[0], type.getElementType());
                                  });
      return castToType(rewriter, loc, stats, type);
    };
    rewriter.replaceOp(op,
                       {result, toStatType(mean, meanType), toStatType(invStdDev, invStdDevType)});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// RMSNormalization (a Kiln extension)
//===----------------------------------------------------------------------===//

struct RMSNormalizationLowering : OpConversionPattern<graph::RMSNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::RMSNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto types = matchFloatTypes(rewriter, *getTypeConverter(), op, input, 1,
                                 "needs a ranked float input and result");
    if (failed(types))
      return failure();
    auto [resultType, inputType] = *types;
    RankedTensorType invRmsType = getConvertedResultType(*getTypeConverter(), op, 1);
    if (!isa<RankedTensorType>(adaptor.getScale().getType()) || !invRmsType)
      return rewriter.notifyMatchFailure(op, "unranked scale or inverse RMS");
    int64_t rank = inputType.getRank();
    FailureOr<int64_t> axis = matchAxis(rewriter, op, op.getAxis(), rank);
    if (failed(axis))
      return failure();
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(*axis, rank));
    Type computeType = getComputeType(rewriter, inputType.getElementType());
    if (invRmsType.getElementType() != computeType || invRmsType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "an inverse RMS of another type than its statistics");

    // mean(x^2) over the normalised dimensions (kept as 1), then 1 / sqrt(. + epsilon).
    Value zero = createScalarConstant(rewriter, loc, computeType, 0.0);
    Value count = createCount(rewriter, loc, input, axes, computeType);
    Value squares = createReductionWithStats(
        rewriter, loc, input, axes, /*keepDims=*/true, {}, zero,
        [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
          Value x = convertFloat(b, nl, args[0], computeType);
          return arith::AddFOp::create(b, nl, arith::MulFOp::create(b, nl, x, x), args[1]);
        });
    auto statsType = cast<RankedTensorType>(squares.getType());
    Value meanSquare = createElementwise(rewriter, loc, statsType, ValueRange{squares},
                                         [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
                                           return arith::DivFOp::create(b, nl, args[0], count);
                                         });
    Value invRms =
        createInverseStdDev(rewriter, loc, meanSquare, op.getEpsilon().convertToDouble());
    Value result =
        createElementwise(rewriter, loc, resultType, ValueRange{input, invRms, adaptor.getScale()},
                          [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
                            Value x = convertFloat(b, nl, args[0], computeType);
                            Value normalized = arith::MulFOp::create(b, nl, x, args[1]);
                            Value scaled = arith::MulFOp::create(
                                b, nl, normalized, convertFloat(b, nl, args[2], computeType));
                            return convertFloat(b, nl, scaled, resultType.getElementType());
                          });
    rewriter.replaceOp(op, {result, castToType(rewriter, loc, invRms, invRmsType)});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// BatchNormalization, InstanceNormalization, GroupNormalization
//===----------------------------------------------------------------------===//

struct BatchNormalizationLowering : OpConversionPattern<graph::BatchNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::BatchNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    SmallVector<Value> parameters{adaptor.getScale(), adaptor.getBias(), adaptor.getMean(),
                                  adaptor.getVariance()};
    StringRef requirement = "needs float [N, C, ...] input and [C] parameters";
    auto types = matchFloatTypes(rewriter, *getTypeConverter(), op, input, 2, requirement);
    if (failed(types))
      return failure();
    RankedTensorType resultType = types->first, inputType = types->second;
    if (!llvm::all_of(parameters, isChannelParameter))
      return rewriter.notifyMatchFailure(op, requirement);
    MLIRContext *context = rewriter.getContext();
    int64_t rank = inputType.getRank();
    // Computed in the widest of the types involved, at least f32.
    Type computeType = rewriter.getF32Type();
    for (Value value : parameters)
      if (getElementTypeOrSelf(value.getType()).getIntOrFloatBitWidth() > 32)
        computeType = rewriter.getF64Type();
    if (inputType.getElementType().getIntOrFloatBitWidth() > 32)
      computeType = rewriter.getF64Type();
    double epsilon = op.getEpsilon().convertToDouble();
    if (op.getTrainingMode())
      return lowerTraining(op, adaptor, rewriter, resultType, computeType);

    AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(1, context));
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank), channel, channel, channel,
                                channel};
    SmallVector<Value> inputs{input};
    llvm::append_range(inputs, parameters);
    Value result = createParallelGeneric(
        rewriter, loc, resultType, getSizes(rewriter, loc, input), inputs, maps,
        [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
          auto at = [&](unsigned index) { return convertFloat(b, nl, args[index], computeType); };
          Value eps = createScalarConstant(b, nl, computeType, epsilon);
          Value invStdDev = math::RsqrtOp::create(b, nl, arith::AddFOp::create(b, nl, at(4), eps));
          Value centered = arith::SubFOp::create(b, nl, at(0), at(3));
          Value factor = arith::MulFOp::create(b, nl, invStdDev, at(1));
          Value value =
              arith::AddFOp::create(b, nl, arith::MulFOp::create(b, nl, centered, factor), at(2));
          return convertFloat(b, nl, value, resultType.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Training mode: Y normalised with the batch's mean and (population) variance over
  /// every dimension but C, and the running statistics blended from the given ones and the
  /// batch's with `momentum`.
  LogicalResult lowerTraining(graph::BatchNormalizationOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter, RankedTensorType resultType,
                              Type computeType) const {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    SmallVector<RankedTensorType> statsTypes;
    for (unsigned index : {1u, 2u}) {
      RankedTensorType type = getConvertedResultType(*getTypeConverter(), op, index);
      if (!type || !allFloat(TypeRange{type}))
        return rewriter.notifyMatchFailure(op, "needs ranked float running statistics");
      statsTypes.push_back(type);
    }
    int64_t rank = resultType.getRank();
    SmallVector<int64_t> axes{0};
    llvm::append_range(axes, llvm::seq<int64_t>(2, rank));
    auto [mean, variance] = createMoments(rewriter, loc, input, axes, computeType);
    Value invStdDev =
        createInverseStdDev(rewriter, loc, variance, op.getEpsilon().convertToDouble());
    Value result = createChannelAffine(rewriter, loc, resultType, input, mean, invStdDev,
                                       adaptor.getScale(), adaptor.getBias(), {1}, computeType);

    // running = given * momentum + batch * (1 - momentum), over C; the batch's statistics
    // are [1, C, 1, ...] and read at channel d0.
    MLIRContext *context = rewriter.getContext();
    SmallVector<AffineExpr> channelExprs(rank, getAffineConstantExpr(0, context));
    channelExprs[1] = getAffineDimExpr(0, context);
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(1),
                                AffineMap::get(1, 0, channelExprs, context)};
    double momentum = op.getMomentumAttr().getValueAsDouble();
    SmallVector<Value> results{result};
    SmallVector<Value> givenStats{adaptor.getMean(), adaptor.getVariance()};
    SmallVector<Value> batchStats{mean, variance};
    for (auto [given, batch, type] : llvm::zip(givenStats, batchStats, statsTypes)) {
      Type statsElementType = type.getElementType();
      results.push_back(createParallelGeneric(
          rewriter, loc, type, getSizes(rewriter, loc, given), ValueRange{given, batch}, maps,
          [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
            Value keep = createScalarConstant(b, nl, computeType, momentum);
            Value take = createScalarConstant(b, nl, computeType, 1.0 - momentum);
            Value old =
                arith::MulFOp::create(b, nl, convertFloat(b, nl, args[0], computeType), keep);
            Value blended =
                arith::AddFOp::create(b, nl, old, arith::MulFOp::create(b, nl, args[1], take));
            return convertFloat(b, nl, blended, statsElementType);
          }));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct InstanceNormalizationLowering : OpConversionPattern<graph::InstanceNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::InstanceNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    StringRef requirement = "needs float [N, C, ...] input and [C] parameters";
    auto types = matchFloatTypes(rewriter, *getTypeConverter(), op, input, 2, requirement);
    if (failed(types))
      return failure();
    RankedTensorType resultType = types->first, inputType = types->second;
    if (!isChannelParameter(adaptor.getScale()) || !isChannelParameter(adaptor.getBias()))
      return rewriter.notifyMatchFailure(op, requirement);
    int64_t rank = inputType.getRank();
    Type computeType = getComputeType(rewriter, inputType.getElementType());
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(2, rank));
    auto [mean, variance] = createMoments(rewriter, loc, input, axes, computeType);
    Value invStdDev =
        createInverseStdDev(rewriter, loc, variance, op.getEpsilon().convertToDouble());
    rewriter.replaceOp(op, createChannelAffine(rewriter, loc, resultType, input, mean, invStdDev,
                                               adaptor.getScale(), adaptor.getBias(), {1},
                                               computeType));
    return success();
  }
};

struct GroupNormalizationLowering : OpConversionPattern<graph::GroupNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::GroupNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    StringRef requirement = "needs float [N, C, ...] input and [C] parameters";
    auto types = matchFloatTypes(rewriter, *getTypeConverter(), op, input, 2, requirement);
    if (failed(types))
      return failure();
    RankedTensorType resultType = types->first, inputType = types->second;
    if (!isChannelParameter(adaptor.getScale()) || !isChannelParameter(adaptor.getBias()))
      return rewriter.notifyMatchFailure(op, requirement);
    int64_t rank = inputType.getRank();
    int64_t channels = inputType.getDimSize(1);
    int64_t groups = op.getNumGroups();
    if (ShapedType::isDynamic(channels) || groups <= 0 || channels % groups != 0)
      return rewriter.notifyMatchFailure(op, "needs a static channel count divisible by groups");
    int64_t perGroup = channels / groups;
    Type elementType = inputType.getElementType();
    Type computeType = getComputeType(rewriter, op.getStashType());

    // [N, C, D...] viewed as [N, G, C/G, D...]; statistics over all but the first two.
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, input);
    SmallVector<int64_t> groupedShape{inputType.getDimSize(0), groups, perGroup};
    SmallVector<OpFoldResult> groupedSizes{sizes[0], rewriter.getIndexAttr(groups),
                                           rewriter.getIndexAttr(perGroup)};
    SmallVector<ReassociationIndices> reassociation{{0}, {1, 2}};
    for (int64_t dim = 2; dim < rank; ++dim) {
      groupedShape.push_back(inputType.getDimSize(dim));
      groupedSizes.push_back(sizes[dim]);
      reassociation.push_back({dim + 1});
    }
    auto groupedType = RankedTensorType::get(groupedShape, elementType);
    Value grouped = tensor::ExpandShapeOp::create(rewriter, loc, groupedType, input, reassociation,
                                                  groupedSizes);
    auto groupedParameter = [&](Value parameter) -> Value {
      auto type = cast<RankedTensorType>(parameter.getType());
      return tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get({groups, perGroup}, type.getElementType()),
          parameter, SmallVector<ReassociationIndices>{{0, 1}},
          SmallVector<OpFoldResult>{rewriter.getIndexAttr(groups),
                                    rewriter.getIndexAttr(perGroup)});
    };
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(2, rank + 1));
    auto [mean, variance] = createMoments(rewriter, loc, grouped, axes, computeType);
    Value invStdDev =
        createInverseStdDev(rewriter, loc, variance, op.getEpsilon().convertToDouble());
    Value normalized =
        createChannelAffine(rewriter, loc, groupedType.clone(resultType.getElementType()), grouped,
                            mean, invStdDev, groupedParameter(adaptor.getScale()),
                            groupedParameter(adaptor.getBias()), {1, 2}, computeType);
    Value result = tensor::CollapseShapeOp::create(rewriter, loc, normalized, reassociation);
    rewriter.replaceOp(op, castToType(rewriter, loc, result, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// MeanVarianceNormalization, LpNormalization, LRN
//===----------------------------------------------------------------------===//

struct MeanVarianceNormalizationLowering : OpConversionPattern<graph::MeanVarianceNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::MeanVarianceNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto types =
        matchFloatTypes(rewriter, *getTypeConverter(), op, input, 0, "needs ranked float tensors");
    if (failed(types))
      return failure();
    RankedTensorType resultType = types->first, inputType = types->second;
    int64_t rank = inputType.getRank();
    SmallVector<int64_t> axes;
    for (int64_t axis : op.getAxes()) {
      FailureOr<int64_t> normalized = normalizeAxis(axis, rank);
      if (failed(normalized))
        return rewriter.notifyMatchFailure(op, "axis out of range");
      if (!llvm::is_contained(axes, *normalized))
        axes.push_back(*normalized);
    }
    llvm::sort(axes);
    Type computeType = getComputeType(rewriter, inputType.getElementType());
    auto [mean, variance] = createMoments(rewriter, loc, input, axes, computeType);
    // ONNX's function body: (x - mean) / (sqrt(variance) + 1e-9).
    Value result =
        createElementwise(rewriter, loc, resultType, ValueRange{input, mean, variance},
                          [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
                            Value x = convertFloat(b, nl, args[0], computeType);
                            Value deviation = arith::SubFOp::create(b, nl, x, args[1]);
                            Value stdDev = math::SqrtOp::create(b, nl, args[2]);
                            Value denominator = arith::AddFOp::create(
                                b, nl, stdDev, createScalarConstant(b, nl, computeType, 1e-9));
                            Value value = arith::DivFOp::create(b, nl, deviation, denominator);
                            return convertFloat(b, nl, value, resultType.getElementType());
                          });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LpNormalizationLowering : OpConversionPattern<graph::LpNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::LpNormalizationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto types = matchFloatTypes(rewriter, *getTypeConverter(), op, input, 1,
                                 "needs ranked float tensors of rank 1 or more");
    if (failed(types))
      return failure();
    RankedTensorType resultType = types->first, inputType = types->second;
    FailureOr<int64_t> axis = matchAxis(rewriter, op, op.getAxis(), inputType.getRank());
    if (failed(axis))
      return failure();
    int64_t p = op.getP();
    if (p != 1 && p != 2)
      return rewriter.notifyMatchFailure(op, "p must be 1 or 2");
    Type computeType = getComputeType(rewriter, inputType.getElementType());
    Value zero = createScalarConstant(rewriter, loc, computeType, 0.0);
    Value norm =
        createReductionWithStats(rewriter, loc, input, {*axis}, /*keepDims=*/true, {}, zero,
                                 [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
                                   Value x = convertFloat(b, nl, args[0], computeType);
                                   Value term =
                                       p == 1 ? math::AbsFOp::create(b, nl, x).getResult()
                                              : arith::MulFOp::create(b, nl, x, x).getResult();
                                   return arith::AddFOp::create(b, nl, term, args[1]);
                                 });
    Value result =
        createElementwise(rewriter, loc, resultType, ValueRange{input, norm},
                          [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
                            Value x = convertFloat(b, nl, args[0], computeType);
                            Value denominator =
                                p == 1 ? args[1] : math::SqrtOp::create(b, nl, args[1]).getResult();
                            Value value = arith::DivFOp::create(b, nl, x, denominator);
                            return convertFloat(b, nl, value, resultType.getElementType());
                          });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LRNLowering : OpConversionPattern<graph::LRNOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::LRNOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto types = matchFloatTypes(rewriter, *getTypeConverter(), op, input, 2,
                                 "needs float [N, C, ...] tensors");
    if (failed(types))
      return failure();
    RankedTensorType resultType = types->first, inputType = types->second;
    MLIRContext *context = rewriter.getContext();
    int64_t rank = inputType.getRank();
    int64_t size = op.getSize();
    if (size <= 0)
      return rewriter.notifyMatchFailure(op, "size must be positive");
    Type computeType = getComputeType(rewriter, inputType.getElementType());
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    double bias = op.getBias().convertToDouble();
    int64_t before = (size - 1) / 2;

    // The windowed sum of squares: the window offset is an extra reduction dimension
    // (read through an empty [size] operand that gives its extent).
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, input);
    Value channelCount = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[1]);
    auto sumType = RankedTensorType::get(inputType.getShape(), computeType);
    Value sumInit = createFilledTensor(rewriter, loc, sumType, sizes,
                                       createScalarConstant(rewriter, loc, computeType, 0.0));
    Value window = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{size}, computeType);
    SmallVector<AffineMap> maps{
        AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, context)),
        AffineMap::getMultiDimIdentityMap(rank + 1, context).getMajorSubMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    auto sum = linalg::GenericOp::create(
        rewriter, loc, TypeRange{sumType}, ValueRange{window}, ValueRange{sumInit}, maps, iterators,
        [&](OpBuilder &b, Location nl, ValueRange args) {
          SmallVector<Value> indices;
          for (int64_t dim = 0; dim < rank; ++dim)
            indices.push_back(linalg::IndexOp::create(b, nl, dim));
          Value offset = linalg::IndexOp::create(b, nl, rank);
          Value zero = arith::ConstantIndexOp::create(b, nl, 0);
          // channel = c - before + offset, in range [0, C) or contributing nothing.
          Value channel =
              arith::SubIOp::create(b, nl, arith::AddIOp::create(b, nl, indices[1], offset),
                                    arith::ConstantIndexOp::create(b, nl, before));
          Value inRange = arith::AndIOp::create(
              b, nl, arith::CmpIOp::create(b, nl, arith::CmpIPredicate::sge, channel, zero),
              arith::CmpIOp::create(b, nl, arith::CmpIPredicate::slt, channel, channelCount));
          Value last =
              arith::SubIOp::create(b, nl, channelCount, arith::ConstantIndexOp::create(b, nl, 1));
          indices[1] =
              arith::MinSIOp::create(b, nl, arith::MaxSIOp::create(b, nl, channel, zero), last);
          Value x =
              convertFloat(b, nl, tensor::ExtractOp::create(b, nl, input, indices), computeType);
          Value square = arith::MulFOp::create(b, nl, x, x);
          Value term = arith::SelectOp::create(b, nl, inRange, square,
                                               createScalarConstant(b, nl, computeType, 0.0));
          linalg::YieldOp::create(b, nl, arith::AddFOp::create(b, nl, term, args[1]).getResult());
        });
    Value result = createElementwise(
        rewriter, loc, resultType, ValueRange{input, sum.getResult(0)},
        [&](OpBuilder &b, Location nl, ValueRange args) -> Value {
          Value x = convertFloat(b, nl, args[0], computeType);
          Value scaled = arith::MulFOp::create(
              b, nl, args[1], createScalarConstant(b, nl, computeType, alpha / size));
          Value base =
              arith::AddFOp::create(b, nl, scaled, createScalarConstant(b, nl, computeType, bias));
          Value denominator =
              math::PowFOp::create(b, nl, base, createScalarConstant(b, nl, computeType, beta));
          return convertFloat(b, nl, arith::DivFOp::create(b, nl, x, denominator),
                              resultType.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateNNNormalizationLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns
      .add<SoftmaxLowering<graph::SoftmaxOp, false>, SoftmaxLowering<graph::LogSoftmaxOp, true>,
           HardmaxLowering, LayerNormalizationLowering, RMSNormalizationLowering,
           BatchNormalizationLowering, InstanceNormalizationLowering, GroupNormalizationLowering,
           MeanVarianceNormalizationLowering, LpNormalizationLowering, LRNLowering>(
          converter, patterns.getContext());
}

} // namespace kiln::lowering
