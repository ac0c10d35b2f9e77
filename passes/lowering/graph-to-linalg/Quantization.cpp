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

/// The map of a MatMulInteger zero point over the (m, n, k) iteration space: a scalar or
/// one element per tensor, else 1-D per row of lhs (`perDim` m) or per column of rhs (n).
AffineMap getZeroPointMap(MLIRContext *context, RankedTensorType type, int64_t extent,
                          unsigned perDim) {
  if (type.getRank() == 0)
    return AffineMap::get(3, 0, {}, context);
  if (type.getRank() != 1)
    return {};
  if (type.getDimSize(0) == 1)
    return AffineMap::get(3, 0, {getAffineConstantExpr(0, context)}, context);
  if (ShapedType::isDynamic(type.getDimSize(0)) || type.getDimSize(0) != extent)
    return {};
  return AffineMap::get(3, 0, {getAffineDimExpr(perDim, context)}, context);
}

/// graph.matmul_integer on matrices → one reduction `linalg.generic` that widens both
/// operands and their zero points to i32 by signedness, subtracts and accumulates in i32
/// (exact: no intermediate narrower than the result).
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
    if (lhsType.getRank() != 2 || rhsType.getRank() != 2 || resultType.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "only matrix operands (no batch, no vectors)");
    MLIRContext *context = getContext();
    AffineMap lhsZeroMap = getZeroPointMap(context, lhsZeroType, lhsType.getDimSize(0), 0);
    AffineMap rhsZeroMap = getZeroPointMap(context, rhsZeroType, rhsType.getDimSize(1), 1);
    if (!lhsZeroMap || !rhsZeroMap)
      return rewriter.notifyMatchFailure(op, "zero points of an unsupported shape");
    Location loc = op.getLoc();
    AffineExpr m = getAffineDimExpr(0, context), n = getAffineDimExpr(1, context),
               k = getAffineDimExpr(2, context);
    SmallVector<AffineMap> maps{AffineMap::get(3, 0, {m, k}, context),
                                AffineMap::get(3, 0, {k, n}, context), lhsZeroMap, rhsZeroMap,
                                AffineMap::get(3, 0, {m, n}, context)};
    SmallVector<OpFoldResult> sizes{getSizes(rewriter, loc, adaptor.getLhs())[0],
                                    getSizes(rewriter, loc, adaptor.getRhs())[1]};
    Value zero = createScalarConstant(rewriter, loc, rewriter.getI32Type(), 0);
    Value init = createFilledTensor(rewriter, loc, resultType, sizes, zero);
    Type lhsElement = lhsType.getElementType(), rhsElement = rhsType.getElementType();
    Type lhsZeroElement = lhsZeroType.getElementType(),
         rhsZeroElement = rhsZeroType.getElementType();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType,
        ValueRange{adaptor.getLhs(), adaptor.getRhs(), adaptor.getLhsZeroPoint(),
                   adaptor.getRhsZeroPoint()},
        ValueRange{init}, maps,
        {utils::IteratorType::parallel, utils::IteratorType::parallel,
         utils::IteratorType::reduction},
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
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
               DynamicQuantizeLinearLowering>(converter, patterns.getContext());
}

} // namespace kiln::lowering
