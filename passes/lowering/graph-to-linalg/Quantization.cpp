//===- Quantization.cpp - Graph to linalg: quantize, dequantize and integer matmul/conv ===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

#include "llvm/ADT/Sequence.h"

using namespace mlir;

namespace kiln::lowering {
namespace {

/// The map that reads a per-tensor (rank 0 or one element) or per-axis (1-D) scale or zero
/// point of `type` for each element of a result of rank `rank` quantized along `axis`, or
/// null when the shape selects a granularity this lowering does not handle (blocked).
AffineMap getQuantParamMap(MLIRContext *context, RankedTensorType type, int64_t rank,
                           int64_t axis) {
  if (type.getRank() == 0)
    return AffineMap::get(rank, 0, {}, context);
  if (type.getRank() != 1)
    return {};
  if (type.getDimSize(0) == 1)
    return AffineMap::get(rank, 0, {getAffineConstantExpr(0, context)}, context);
  if (axis < 0 || axis >= rank)
    return {};
  return AffineMap::get(rank, 0, {getAffineDimExpr(axis, context)}, context);
}

/// The normalised quantization axis of a rank-`rank` tensor, or -1 when out of range.
int64_t normaliseAxis(int64_t axis, int64_t rank) {
  if (axis < 0)
    axis += rank;
  return axis >= 0 && axis < rank ? axis : -1;
}

/// A `linalg.generic` over `resultType` reading `input` elementwise and the quantization
/// parameters `params` (scale, optional zero point) through `paramMap`.
Value createQuantGeneric(OpBuilder &builder, Location loc, RankedTensorType resultType, Value input,
                         ValueRange params, AffineMap paramMap, ScalarBody body) {
  SmallVector<Value> inputs{input};
  llvm::append_range(inputs, params);
  SmallVector<AffineMap> maps{builder.getMultiDimIdentityMap(resultType.getRank())};
  maps.append(params.size(), paramMap);
  return createParallelGeneric(builder, loc, resultType, getSizes(builder, loc, input), inputs,
                               maps, body);
}

/// The quantization parameters of a (de)quantize op: the map reading them (see
/// getQuantParamMap) and the operands, the scale and the zero point when there is one (of
/// the scale's shape). A match failure of `op` for shapes this lowering does not handle.
struct QuantParams {
  AffineMap map;
  SmallVector<Value> operands;
};
FailureOr<QuantParams> getQuantParams(ConversionPatternRewriter &rewriter, Operation *op,
                                      RankedTensorType resultType, int64_t axisAttr,
                                      RankedTensorType scaleType, Value scale, Value zeroPoint) {
  int64_t rank = resultType.getRank();
  int64_t axis = rank == 0 ? 0 : normaliseAxis(axisAttr, rank);
  QuantParams params{getQuantParamMap(rewriter.getContext(), scaleType, rank, axis), {scale}};
  if (!params.map)
    return rewriter.notifyMatchFailure(op, "scale of an unsupported shape");
  if (zeroPoint) {
    auto zeroPointType = dyn_cast<RankedTensorType>(zeroPoint.getType());
    if (!zeroPointType || zeroPointType.getShape() != scaleType.getShape())
      return rewriter.notifyMatchFailure(op, "zero point shaped unlike the scale");
    params.operands.push_back(zeroPoint);
  }
  return params;
}

/// graph.dequantize_linear → (float(x) - float(zero_point)) * scale, per tensor or per
/// axis.
struct DequantizeLinearLowering : OpConversionPattern<graph::DequantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::DequantizeLinearOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto inputType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto scaleType = dyn_cast<RankedTensorType>(adaptor.getScale().getType());
    if (!resultType || !inputType || !scaleType)
      return rewriter.notifyMatchFailure(op, "unranked operands");
    Type graphInputElement = inputType.getElementType();
    auto floatType = dyn_cast<FloatType>(resultType.getElementType());
    if (!isa<IntegerType>(graphInputElement) || !floatType ||
        scaleType.getElementType() != floatType)
      return rewriter.notifyMatchFailure(op, "only integer inputs dequantize (no f8)");
    if (op.getBlockSize() != 0)
      return rewriter.notifyMatchFailure(op, "blocked dequantization");
    FailureOr<QuantParams> params =
        getQuantParams(rewriter, op, resultType, op.getAxis(), scaleType, adaptor.getScale(),
                       adaptor.getZeroPoint());
    if (failed(params))
      return failure();
    Type graphZeroPointElement;
    if (adaptor.getZeroPoint())
      graphZeroPointElement = cast<ShapedType>(op.getZeroPoint().getType()).getElementType();
    Location loc = op.getLoc();
    Value result = createQuantGeneric(
        rewriter, loc, resultType, adaptor.getInput(), params->operands, params->map,
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) -> Value {
          Value value = convertScalar(b, bodyLoc, args[0], graphInputElement, floatType);
          if (args.size() > 2) {
            Value zero = convertScalar(b, bodyLoc, args[2], graphZeroPointElement, floatType);
            value = arith::SubFOp::create(b, bodyLoc, value, zero);
          }
          return arith::MulFOp::create(b, bodyLoc, value, args[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// graph.quantize_linear → clamp(roundeven(x / scale) + zero_point) in the result's
/// integer range, computed in the scale's float type, per tensor or per axis.
struct QuantizeLinearLowering : OpConversionPattern<graph::QuantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::QuantizeLinearOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto inputType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto scaleType = dyn_cast<RankedTensorType>(adaptor.getScale().getType());
    auto graphResultType = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!resultType || !inputType || !scaleType || !graphResultType)
      return rewriter.notifyMatchFailure(op, "unranked operands");
    auto resultElement = dyn_cast<IntegerType>(resultType.getElementType());
    auto floatType = dyn_cast<FloatType>(scaleType.getElementType());
    if (!resultElement || !floatType)
      return rewriter.notifyMatchFailure(op, "only integer results quantize (no f8)");
    if (resultElement.getWidth() > 16)
      return rewriter.notifyMatchFailure(op, "integer results wider than 16 bits");
    Type graphInputElement = inputType.getElementType();
    if (!isa<FloatType>(graphInputElement) && !isa<IntegerType>(graphInputElement))
      return rewriter.notifyMatchFailure(op, "input of an unsupported element type");
    if (op.getBlockSize() != 0)
      return rewriter.notifyMatchFailure(op, "blocked quantization");
    FailureOr<QuantParams> params =
        getQuantParams(rewriter, op, resultType, op.getAxis(), scaleType, adaptor.getScale(),
                       adaptor.getZeroPoint());
    if (failed(params))
      return failure();
    Type graphResultElement = graphResultType.getElementType();
    bool isUnsignedResult = isUnsigned(graphResultType);
    unsigned width = resultElement.getWidth();
    APInt minValue = isUnsignedResult ? APInt::getMinValue(width) : APInt::getSignedMinValue(width);
    APInt maxValue = isUnsignedResult ? APInt::getMaxValue(width) : APInt::getSignedMaxValue(width);
    double lowest = isUnsignedResult ? minValue.roundToDouble(false) : minValue.roundToDouble(true);
    double highest =
        isUnsignedResult ? maxValue.roundToDouble(false) : maxValue.roundToDouble(true);
    Location loc = op.getLoc();
    Value result = createQuantGeneric(
        rewriter, loc, resultType, adaptor.getInput(), params->operands, params->map,
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) -> Value {
          Value value = convertScalar(b, bodyLoc, args[0], graphInputElement, floatType);
          value = arith::DivFOp::create(b, bodyLoc, value, args[1]);
          value = math::RoundEvenOp::create(b, bodyLoc, value);
          if (args.size() > 2) {
            Value zero = convertScalar(b, bodyLoc, args[2], graphResultElement, floatType);
            value = arith::AddFOp::create(b, bodyLoc, value, zero);
          }
          // Saturate in float: the bounds are exact for integer results up to 16 bits;
          // maxnum/minnum send NaN to a bound so the conversion below stays defined.
          Value low = createScalarConstant(b, bodyLoc, floatType, lowest);
          Value high = createScalarConstant(b, bodyLoc, floatType, highest);
          value = arith::MaxNumFOp::create(b, bodyLoc, value, low);
          value = arith::MinNumFOp::create(b, bodyLoc, value, high);
          if (isUnsignedResult)
            return arith::FPToUIOp::create(b, bodyLoc, resultElement, value);
          return arith::FPToSIOp::create(b, bodyLoc, resultElement, value);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `value` (an integer element of graph type `graphType`) widened to i32 by its
/// signedness.
Value widenToI32(OpBuilder &builder, Location loc, Value value, Type graphType) {
  Type i32 = builder.getI32Type();
  if (value.getType() == i32)
    return value;
  if (isUnsigned(graphType))
    return arith::ExtUIOp::create(builder, loc, i32, value);
  return arith::ExtSIOp::create(builder, loc, i32, value);
}

/// The map of a MatMulInteger zero point over its iteration space of `dims` dimensions: a
/// scalar or one element per tensor, else 1-D per row of lhs (`perDim` m) or per column of
/// rhs (n).
AffineMap getZeroPointMap(MLIRContext *context, RankedTensorType type, int64_t extent,
                          unsigned dims, unsigned perDim) {
  if (type.getRank() == 0)
    return AffineMap::get(dims, 0, {}, context);
  if (type.getRank() != 1)
    return {};
  if (type.getDimSize(0) == 1)
    return AffineMap::get(dims, 0, {getAffineConstantExpr(0, context)}, context);
  if (ShapedType::isDynamic(type.getDimSize(0)) || type.getDimSize(0) != extent)
    return {};
  return AffineMap::get(dims, 0, {getAffineDimExpr(perDim, context)}, context);
}

/// The map of a MatMulInteger operand of `type` ([.., rows, columns], its batch dimensions
/// right-aligned with the result's `batch` ones and broadcast where they are 1) over the
/// iteration space (batch.., m, n, k): `rows` and `columns` are the dimensions of its last
/// two axes; null where a batch extent is neither 1 nor the result's.
AffineMap getOperandMap(MLIRContext *context, RankedTensorType type, ArrayRef<int64_t> batch,
                        unsigned rows, unsigned columns) {
  int64_t rank = type.getRank(), lead = int64_t(batch.size()) - (rank - 2);
  unsigned dims = batch.size() + 3;
  SmallVector<AffineExpr> results;
  for (int64_t axis = 0; axis < rank - 2; ++axis) {
    int64_t extent = type.getDimSize(axis), resultExtent = batch[lead + axis];
    if (extent == 1 && resultExtent != 1)
      results.push_back(getAffineConstantExpr(0, context));
    else if (extent == resultExtent || ShapedType::isDynamic(extent))
      results.push_back(getAffineDimExpr(lead + axis, context));
    else
      return {};
  }
  results.push_back(getAffineDimExpr(rows, context));
  results.push_back(getAffineDimExpr(columns, context));
  return AffineMap::get(dims, 0, results, context);
}

/// graph.matmul_integer → one reduction `linalg.generic` over (batch.., m, n, k) that
/// widens both operands and their zero points to i32 by signedness, subtracts and
/// accumulates in i32 (exact: no intermediate narrower than the result). Batch dimensions
/// broadcast as NumPy's matmul (a dynamically quantized transformer's [B, S, K]
/// activations by a [K, N] weight).
struct MatMulIntegerLowering : OpConversionPattern<graph::MatMulIntegerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::MatMulIntegerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto lhsType = dyn_cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = dyn_cast<RankedTensorType>(op.getRhs().getType());
    auto lhsZeroType = dyn_cast<RankedTensorType>(op.getLhsZeroPoint().getType());
    auto rhsZeroType = dyn_cast<RankedTensorType>(op.getRhsZeroPoint().getType());
    if (!resultType || !lhsType || !rhsType || !lhsZeroType || !rhsZeroType)
      return rewriter.notifyMatchFailure(op, "unranked operands");
    int64_t rank = resultType.getRank();
    if (lhsType.getRank() < 2 || rhsType.getRank() < 2 || rank < 2 ||
        std::max(lhsType.getRank(), rhsType.getRank()) != rank)
      return rewriter.notifyMatchFailure(op, "vector operands");
    MLIRContext *context = getContext();
    ArrayRef<int64_t> batch = resultType.getShape().drop_back(2);
    unsigned dims = rank + 1, m = rank - 2, n = rank - 1, k = rank;
    AffineMap lhsMap = getOperandMap(context, lhsType, batch, m, k);
    AffineMap rhsMap = getOperandMap(context, rhsType, batch, k, n);
    AffineMap lhsZeroMap =
        getZeroPointMap(context, lhsZeroType, lhsType.getDimSize(lhsType.getRank() - 2), dims, m);
    AffineMap rhsZeroMap =
        getZeroPointMap(context, rhsZeroType, rhsType.getDimSize(rhsType.getRank() - 1), dims, n);
    if (!lhsMap || !rhsMap)
      return rewriter.notifyMatchFailure(op, "batch dimensions that do not broadcast");
    if (!lhsZeroMap || !rhsZeroMap)
      return rewriter.notifyMatchFailure(op, "zero points of an unsupported shape");
    Location loc = op.getLoc();
    SmallVector<AffineMap> maps{
        lhsMap, rhsMap, lhsZeroMap, rhsZeroMap,
        AffineMap::getMultiDimIdentityMap(dims, context).getMajorSubMap(rank)};
    // The result's extents: a batch one from the operand that has it (not broadcast), m
    // from lhs, n from rhs.
    SmallVector<OpFoldResult> lhsSizes = getSizes(rewriter, loc, adaptor.getLhs());
    SmallVector<OpFoldResult> rhsSizes = getSizes(rewriter, loc, adaptor.getRhs());
    SmallVector<OpFoldResult> sizes;
    for (int64_t axis = 0; axis < rank - 2; ++axis) {
      int64_t lhsAxis = axis - (rank - lhsType.getRank());
      int64_t rhsAxis = axis - (rank - rhsType.getRank());
      bool fromLhs = lhsAxis >= 0 && lhsType.getDimSize(lhsAxis) != 1;
      if (!ShapedType::isDynamic(resultType.getDimSize(axis)))
        sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(axis)));
      else
        sizes.push_back(fromLhs || rhsAxis < 0 ? lhsSizes[lhsAxis] : rhsSizes[rhsAxis]);
    }
    sizes.push_back(lhsSizes[lhsType.getRank() - 2]);
    sizes.push_back(rhsSizes[rhsType.getRank() - 1]);
    Value zero = createScalarConstant(rewriter, loc, rewriter.getI32Type(), 0);
    Value init = createFilledTensor(rewriter, loc, resultType, sizes, zero);
    Type lhsElement = lhsType.getElementType(), rhsElement = rhsType.getElementType();
    Type lhsZeroElement = lhsZeroType.getElementType(),
         rhsZeroElement = rhsZeroType.getElementType();
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType,
        ValueRange{adaptor.getLhs(), adaptor.getRhs(), adaptor.getLhsZeroPoint(),
                   adaptor.getRhsZeroPoint()},
        ValueRange{init}, maps, iterators, [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
          Value lhs = arith::SubIOp::create(b, bodyLoc, widenToI32(b, bodyLoc, args[0], lhsElement),
                                            widenToI32(b, bodyLoc, args[2], lhsZeroElement));
          Value rhs = arith::SubIOp::create(b, bodyLoc, widenToI32(b, bodyLoc, args[1], rhsElement),
                                            widenToI32(b, bodyLoc, args[3], rhsZeroElement));
          Value product = arith::MulIOp::create(b, bodyLoc, lhs, rhs);
          linalg::YieldOp::create(b, bodyLoc,
                                  Value(arith::AddIOp::create(b, bodyLoc, args[4], product)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// The map reading a scale or zero point of `type` for each element of a tensor of rank
/// `rank`: per tensor (rank 0 or one element), or 1-D along `axis` with `extent` elements
/// (static). Null for any other shape or when the tensor has no such axis.
AffineMap getAxisParamMap(MLIRContext *context, Type type, int64_t rank, int64_t axis,
                          int64_t extent) {
  auto rankedType = dyn_cast<RankedTensorType>(type);
  if (!rankedType || !rankedType.hasStaticShape())
    return {};
  if (isSingleElement(rankedType) && rankedType.getRank() <= 1)
    return getQuantParamMap(context, rankedType, rank, axis);
  if (rankedType.getRank() != 1 || axis < 0 || axis >= rank || ShapedType::isDynamic(extent) ||
      rankedType.getDimSize(0) != extent)
    return {};
  return getQuantParamMap(context, rankedType, rank, axis);
}

/// `input` (integer elements of graph type `inputElement`) minus its zero point (read
/// through `zeroPointMap`, graph element type `zeroPointElement`), both widened to i32 by
/// their signedness: the exact operand of an integer accumulation.
Value subtractZeroPoint(OpBuilder &builder, Location loc, Value input, Type inputElement,
                        Value zeroPoint, Type zeroPointElement, AffineMap zeroPointMap) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto resultType = RankedTensorType::get(inputType.getShape(), builder.getI32Type());
  return createParallelGeneric(
      builder, loc, resultType, getSizes(builder, loc, input), ValueRange{input, zeroPoint},
      {builder.getMultiDimIdentityMap(inputType.getRank()), zeroPointMap},
      [&](OpBuilder &b, Location bodyLoc, ValueRange args) -> Value {
        return arith::SubIOp::create(b, bodyLoc, widenToI32(b, bodyLoc, args[0], inputElement),
                                     widenToI32(b, bodyLoc, args[1], zeroPointElement));
      });
}

/// One quantization parameter of a requantization: the tensor and its map over the result.
struct ParamRead {
  Value value;
  AffineMap map;
};

/// The i32 accumulator `accumulator` of a QLinear op requantized to `resultType` (graph
/// element type `graphResultElement`): acc * (lhsScale * rhsScale / resultScale) +
/// resultZeroPoint, rounded half to even and saturated, as ONNX's reference computes it:
/// the multiplier in the scales' float type, the rest in f64 (exact for the i32
/// accumulator).
Value requantize(OpBuilder &builder, Location loc, Value accumulator, RankedTensorType resultType,
                 Type graphResultElement, ParamRead lhsScale, ParamRead rhsScale,
                 ParamRead resultScale, ParamRead resultZeroPoint) {
  auto resultElement = cast<IntegerType>(resultType.getElementType());
  bool isUnsignedResult = isUnsigned(graphResultElement);
  unsigned width = resultElement.getWidth();
  APInt minValue = isUnsignedResult ? APInt::getMinValue(width) : APInt::getSignedMinValue(width);
  APInt maxValue = isUnsignedResult ? APInt::getMaxValue(width) : APInt::getSignedMaxValue(width);
  double lowest = minValue.roundToDouble(!isUnsignedResult);
  double highest = maxValue.roundToDouble(!isUnsignedResult);
  int64_t rank = resultType.getRank();
  return createParallelGeneric(
      builder, loc, resultType, getSizes(builder, loc, accumulator),
      ValueRange{accumulator, lhsScale.value, rhsScale.value, resultScale.value,
                 resultZeroPoint.value},
      {builder.getMultiDimIdentityMap(rank), lhsScale.map, rhsScale.map, resultScale.map,
       resultZeroPoint.map},
      [&](OpBuilder &b, Location bodyLoc, ValueRange args) -> Value {
        Value multiplier = arith::DivFOp::create(
            b, bodyLoc, arith::MulFOp::create(b, bodyLoc, args[1], args[2]), args[3]);
        Value value = arith::MulFOp::create(b, bodyLoc, toF64(b, bodyLoc, args[0]),
                                            toF64(b, bodyLoc, multiplier));
        Value zeroPoint = toF64(b, bodyLoc, args[4], isUnsignedResult);
        value = math::RoundEvenOp::create(b, bodyLoc,
                                          arith::AddFOp::create(b, bodyLoc, value, zeroPoint));
        // Saturate in f64 (exact bounds); maxnum/minnum send NaN to a bound so that the
        // conversion stays defined.
        value = arith::MaxNumFOp::create(b, bodyLoc, value, createF64Constant(b, bodyLoc, lowest));
        value = arith::MinNumFOp::create(b, bodyLoc, value, createF64Constant(b, bodyLoc, highest));
        if (isUnsignedResult)
          return arith::FPToUIOp::create(b, bodyLoc, resultElement, value);
        return arith::FPToSIOp::create(b, bodyLoc, resultElement, value);
      });
}

/// Whether `type` has 8-bit integer elements (i8 or ui8 in the graph).
bool hasInt8Elements(Type type) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  return shaped && shaped.getElementType().isInteger(8);
}

/// Whether `type` is a ranked tensor of float elements.
bool hasFloatElements(Type type) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  return shaped && isa<FloatType>(shaped.getElementType());
}

/// graph.qlinear_matmul → both operands minus their zero points in i32 (per tensor, per
/// row of lhs or per column of rhs), createMatMul accumulating in i32, and requantize.
struct QLinearMatMulLowering : OpConversionPattern<graph::QLinearMatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::QLinearMatMulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto lhsType = dyn_cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = dyn_cast<RankedTensorType>(op.getRhs().getType());
    if (!resultType || !lhsType || !rhsType || !resultType.hasStaticShape() ||
        !lhsType.hasStaticShape() || !rhsType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic or unranked operands");
    if (lhsType.getRank() < 2 || rhsType.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "vector operands");
    if (!hasInt8Elements(lhsType) || !hasInt8Elements(rhsType) || !hasInt8Elements(resultType) ||
        !hasFloatElements(adaptor.getLhsScale().getType()))
      return rewriter.notifyMatchFailure(op, "only 8-bit integer operands with float scales");
    Type scaleType = adaptor.getLhsScale().getType();
    auto scaleElement = cast<RankedTensorType>(scaleType).getElementType();
    for (Value scale : {adaptor.getRhsScale(), adaptor.getResultScale()})
      if (cast<RankedTensorType>(scale.getType()).getElementType() != scaleElement)
        return rewriter.notifyMatchFailure(op, "scales of different float types");
    MLIRContext *context = getContext();
    int64_t lhsRank = lhsType.getRank(), rhsRank = rhsType.getRank();
    int64_t rank = resultType.getRank();
    int64_t rows = lhsType.getDimSize(lhsRank - 2), columns = rhsType.getDimSize(rhsRank - 1);
    // Over each operand: lhs per row, rhs per column.
    AffineMap lhsZeroMap =
        getAxisParamMap(context, adaptor.getLhsZeroPoint().getType(), lhsRank, lhsRank - 2, rows);
    AffineMap rhsZeroMap = getAxisParamMap(context, adaptor.getRhsZeroPoint().getType(), rhsRank,
                                           rhsRank - 1, columns);
    // Over the result [..., rows, columns].
    AffineMap lhsScaleMap =
        getAxisParamMap(context, adaptor.getLhsScale().getType(), rank, rank - 2, rows);
    AffineMap rhsScaleMap =
        getAxisParamMap(context, adaptor.getRhsScale().getType(), rank, rank - 1, columns);
    AffineMap resultScaleMap =
        getAxisParamMap(context, adaptor.getResultScale().getType(), rank, 0, 0);
    AffineMap resultZeroMap =
        getAxisParamMap(context, adaptor.getResultZeroPoint().getType(), rank, 0, 0);
    if (!lhsZeroMap || !rhsZeroMap || !lhsScaleMap || !rhsScaleMap || !resultScaleMap ||
        !resultZeroMap)
      return rewriter.notifyMatchFailure(op, "scales or zero points of an unsupported shape");

    Location loc = op.getLoc();
    auto elementOf = [](Value value) { return getElementTypeOrSelf(value.getType()); };
    Value lhs =
        subtractZeroPoint(rewriter, loc, adaptor.getLhs(), lhsType.getElementType(),
                          adaptor.getLhsZeroPoint(), elementOf(op.getLhsZeroPoint()), lhsZeroMap);
    Value rhs =
        subtractZeroPoint(rewriter, loc, adaptor.getRhs(), rhsType.getElementType(),
                          adaptor.getRhsZeroPoint(), elementOf(op.getRhsZeroPoint()), rhsZeroMap);
    auto accumulatorType = RankedTensorType::get(resultType.getShape(), rewriter.getI32Type());
    FailureOr<Value> accumulator = createMatMul(rewriter, loc, lhs, rhs, accumulatorType);
    if (failed(accumulator))
      return rewriter.notifyMatchFailure(op, "operand shapes the matmul lowering rejects");
    rewriter.replaceOp(
        op, requantize(rewriter, loc, *accumulator, resultType, elementOf(op.getResult()),
                       {adaptor.getLhsScale(), lhsScaleMap}, {adaptor.getRhsScale(), rhsScaleMap},
                       {adaptor.getResultScale(), resultScaleMap},
                       {adaptor.getResultZeroPoint(), resultZeroMap}));
    return success();
  }
};

/// The i32 convolution of a ConvInteger or QLinearConv: the input minus its (per tensor)
/// zero point, the weight minus its zero point (per tensor or per output channel), and
/// createGraphConvolution accumulating in i32 from `bias` (or zero) over the padded
/// difference (padding with zeros there is padding the input with its zero point).
template <typename OpTy>
FailureOr<Value> createIntegerConvolution(OpTy op, ConversionPatternRewriter &rewriter, Value input,
                                          Value inputZeroPoint, Value weight, Value weightZeroPoint,
                                          Value bias, ArrayRef<int64_t> resultShape) {
  auto inputType = dyn_cast<RankedTensorType>(op.getInput().getType());
  auto weightType = dyn_cast<RankedTensorType>(op.getWeight().getType());
  if (!inputType || !weightType || !weightType.hasStaticShape() || inputType.getRank() < 3 ||
      weightType.getRank() != inputType.getRank())
    return rewriter.notifyMatchFailure(op, "dynamic or unranked operands");
  if (!hasInt8Elements(inputType) || !hasInt8Elements(weightType))
    return rewriter.notifyMatchFailure(op, "only 8-bit integer operands");
  MLIRContext *context = rewriter.getContext();
  int64_t rank = inputType.getRank();
  AffineMap inputZeroMap = getAxisParamMap(context, inputZeroPoint.getType(), rank, 0, 0);
  AffineMap weightZeroMap =
      getAxisParamMap(context, weightZeroPoint.getType(), rank, 0, weightType.getDimSize(0));
  if (!inputZeroMap || !weightZeroMap)
    return rewriter.notifyMatchFailure(op, "zero points of an unsupported shape");
  if (bias) {
    auto biasType = dyn_cast<RankedTensorType>(bias.getType());
    if (!biasType || biasType.getRank() != 1 || !biasType.getElementType().isInteger(32))
      return rewriter.notifyMatchFailure(op, "bias is not a 1-D i32 tensor");
  }
  Location loc = op.getLoc();
  auto elementOf = [](Value value) { return getElementTypeOrSelf(value.getType()); };
  Value shiftedInput =
      subtractZeroPoint(rewriter, loc, input, inputType.getElementType(), inputZeroPoint,
                        elementOf(op.getInputZeroPoint()), inputZeroMap);
  Value shiftedWeight =
      subtractZeroPoint(rewriter, loc, weight, weightType.getElementType(), weightZeroPoint,
                        elementOf(op.getWeightZeroPoint()), weightZeroMap);
  auto accumulatorType = RankedTensorType::get(resultShape, rewriter.getI32Type());
  FailureOr<Value> result =
      createGraphConvolution(rewriter, loc, shiftedInput, shiftedWeight, bias, accumulatorType,
                             op.getStrides(), op.getDilations(), op.getPads(), op.getGroup());
  if (failed(result))
    return rewriter.notifyMatchFailure(
        op, "dynamic or mismatched convolution shapes, or attributes that do not match them");
  return *result;
}

/// graph.conv_integer → createIntegerConvolution.
struct ConvIntegerLowering : OpConversionPattern<graph::ConvIntegerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::ConvIntegerOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "unranked result");
    FailureOr<Value> result = createIntegerConvolution(
        op, rewriter, adaptor.getInput(), adaptor.getInputZeroPoint(), adaptor.getWeight(),
        adaptor.getWeightZeroPoint(), Value(), resultType.getShape());
    if (failed(result))
      return failure();
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// graph.qlinear_conv → createIntegerConvolution from the i32 bias, and requantize (the
/// weight's scale per tensor or per output channel).
struct QLinearConvLowering : OpConversionPattern<graph::QLinearConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::QLinearConvOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType || !resultType.hasStaticShape() || !hasInt8Elements(resultType))
      return rewriter.notifyMatchFailure(op, "result is not a static 8-bit integer tensor");
    Type scaleElement = getElementTypeOrSelf(adaptor.getInputScale().getType());
    for (Value scale :
         {adaptor.getInputScale(), adaptor.getWeightScale(), adaptor.getResultScale()})
      if (!hasFloatElements(scale.getType()) ||
          getElementTypeOrSelf(scale.getType()) != scaleElement)
        return rewriter.notifyMatchFailure(op, "scales of different or non-float types");
    MLIRContext *context = getContext();
    int64_t rank = resultType.getRank();
    AffineMap inputScaleMap =
        getAxisParamMap(context, adaptor.getInputScale().getType(), rank, 0, 0);
    AffineMap weightScaleMap = getAxisParamMap(context, adaptor.getWeightScale().getType(), rank, 1,
                                               resultType.getDimSize(1));
    AffineMap resultScaleMap =
        getAxisParamMap(context, adaptor.getResultScale().getType(), rank, 0, 0);
    AffineMap resultZeroMap =
        getAxisParamMap(context, adaptor.getResultZeroPoint().getType(), rank, 0, 0);
    if (!inputScaleMap || !weightScaleMap || !resultScaleMap || !resultZeroMap)
      return rewriter.notifyMatchFailure(op, "scales or zero points of an unsupported shape");
    FailureOr<Value> accumulator = createIntegerConvolution(
        op, rewriter, adaptor.getInput(), adaptor.getInputZeroPoint(), adaptor.getWeight(),
        adaptor.getWeightZeroPoint(), adaptor.getBias(), resultType.getShape());
    if (failed(accumulator))
      return failure();
    rewriter.replaceOp(op, requantize(rewriter, op.getLoc(), *accumulator, resultType,
                                      getElementTypeOrSelf(op.getResult().getType()),
                                      {adaptor.getInputScale(), inputScaleMap},
                                      {adaptor.getWeightScale(), weightScaleMap},
                                      {adaptor.getResultScale(), resultScaleMap},
                                      {adaptor.getResultZeroPoint(), resultZeroMap}));
    return success();
  }
};

/// graph.dynamic_quantize_linear → two reductions (min and max, started at 0 so they
/// include it as ONNX requires), scalar arithmetic for the scale and zero point, and one
/// elementwise generic quantizing to ui8 with them.
struct DynamicQuantizeLinearLowering : OpConversionPattern<graph::DynamicQuantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::DynamicQuantizeLinearOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op, 0);
    RankedTensorType scaleType = getConvertedResultType(*getTypeConverter(), op, 1);
    RankedTensorType zeroPointType = getConvertedResultType(*getTypeConverter(), op, 2);
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!resultType || !scaleType || !zeroPointType || !inputType)
      return rewriter.notifyMatchFailure(op, "unranked operands");
    auto f32 = dyn_cast<Float32Type>(inputType.getElementType());
    if (!f32 || scaleType.getRank() != 0 || zeroPointType.getRank() != 0)
      return rewriter.notifyMatchFailure(op, "only f32 input and scalar scale, zero point");
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, inputType.getRank()));
    Value zero = createScalarConstant(rewriter, loc, f32, 0.0);
    auto reduceToScalar = [&](bool isMax) -> Value {
      Value reduced = createReduction(
          rewriter, loc, input, axes, /*keepDims=*/false, zero,
          [&](OpBuilder &b, Location bodyLoc, Value element, Value accumulator) -> Value {
            if (isMax)
              return arith::MaximumFOp::create(b, bodyLoc, element, accumulator);
            return arith::MinimumFOp::create(b, bodyLoc, element, accumulator);
          });
      return tensor::ExtractOp::create(rewriter, loc, reduced, ValueRange{});
    };
    Value minimum = reduceToScalar(false);
    Value maximum = reduceToScalar(true);
    Value low = createScalarConstant(rewriter, loc, f32, 0.0);
    Value high = createScalarConstant(rewriter, loc, f32, 255.0);
    auto saturate = [&](OpBuilder &b, Location bodyLoc, Value value) -> Value {
      value = arith::MaxNumFOp::create(b, bodyLoc, value, low);
      return arith::MinNumFOp::create(b, bodyLoc, value, high);
    };
    Value range = arith::SubFOp::create(rewriter, loc, maximum, minimum);
    Value scale = arith::DivFOp::create(rewriter, loc, range, high);
    Value negativeMinimum = arith::NegFOp::create(rewriter, loc, minimum);
    Value zeroPoint =
        saturate(rewriter, loc,
                 math::RoundEvenOp::create(
                     rewriter, loc, arith::DivFOp::create(rewriter, loc, negativeMinimum, scale)));
    Type i8 = rewriter.getI8Type();
    Value result = createElementwise(
        rewriter, loc, resultType, ValueRange{input},
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) -> Value {
          Value value = arith::DivFOp::create(b, bodyLoc, args[0], scale);
          value = math::RoundEvenOp::create(b, bodyLoc, value);
          value = arith::AddFOp::create(b, bodyLoc, value, zeroPoint);
          return arith::FPToUIOp::create(b, bodyLoc, i8, saturate(b, bodyLoc, value));
        });
    Value scaleTensor = tensor::FromElementsOp::create(rewriter, loc, scaleType, scale);
    Value zeroPointTensor = tensor::FromElementsOp::create(
        rewriter, loc, zeroPointType, Value(arith::FPToUIOp::create(rewriter, loc, i8, zeroPoint)));
    rewriter.replaceOp(op, ValueRange{result, scaleTensor, zeroPointTensor});
    return success();
  }
};

} // namespace

void populateQuantizationLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DequantizeLinearLowering, QuantizeLinearLowering, MatMulIntegerLowering,
               DynamicQuantizeLinearLowering, QLinearMatMulLowering, ConvIntegerLowering,
               QLinearConvLowering>(converter, patterns.getContext());
}

} // namespace kiln::lowering
