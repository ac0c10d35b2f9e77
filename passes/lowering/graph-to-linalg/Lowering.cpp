//===- Lowering.cpp - Graph to linalg: shared building blocks -------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;

namespace kiln::lowering {

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

GraphTypeConverter::GraphTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion([](IntegerType type) -> Type {
    if (type.isUnsigned())
      return IntegerType::get(type.getContext(), type.getWidth());
    return type;
  });
  addConversion([this](RankedTensorType type) -> Type {
    return type.clone(convertType(type.getElementType()));
  });
  addConversion([this](UnrankedTensorType type) -> Type {
    return UnrankedTensorType::get(convertType(type.getElementType()));
  });
  // Values of a converted type flowing into unconverted users (and back) during the
  // conversion; none survive a complete lowering.
  auto materialize = [](OpBuilder &builder, Type type, ValueRange inputs, Location loc) -> Value {
    if (inputs.size() != 1)
      return Value();
    return UnrealizedConversionCastOp::create(builder, loc, type, inputs).getResult(0);
  };
  addSourceMaterialization(materialize);
  addTargetMaterialization(materialize);
}

bool isUnsigned(Type graphType) { return getElementTypeOrSelf(graphType).isUnsignedInteger(); }

FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return failure();
  return axis < 0 ? axis + rank : axis;
}

RankedTensorType getConvertedResultType(const TypeConverter &converter, Operation *op,
                                        unsigned index) {
  return dyn_cast_or_null<RankedTensorType>(converter.convertType(op->getResult(index).getType()));
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

SmallVector<OpFoldResult> getSizes(OpBuilder &builder, Location loc, Value tensor) {
  return tensor::getMixedSizes(builder, loc, tensor);
}

Value createEmptyTensor(OpBuilder &builder, Location loc, RankedTensorType type,
                        ArrayRef<OpFoldResult> sizes) {
  SmallVector<Value> dynamicSizes;
  for (auto [extent, size] : llvm::zip_equal(type.getShape(), sizes))
    if (ShapedType::isDynamic(extent))
      dynamicSizes.push_back(getValueOrCreateConstantIndexOp(builder, loc, size));
  return tensor::EmptyOp::create(builder, loc, type, dynamicSizes);
}

Value createFilledTensor(OpBuilder &builder, Location loc, RankedTensorType type,
                         ArrayRef<OpFoldResult> sizes, Value value) {
  Value empty = createEmptyTensor(builder, loc, type, sizes);
  return linalg::FillOp::create(builder, loc, value, empty).getResult(0);
}

AffineMap getBroadcastMap(MLIRContext *context, RankedTensorType operandType, int64_t resultRank) {
  int64_t rank = operandType.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t resultDim = resultRank - rank + dim;
    if (operandType.getDimSize(dim) == 1)
      exprs.push_back(getAffineConstantExpr(0, context));
    else
      exprs.push_back(getAffineDimExpr(resultDim, context));
  }
  return AffineMap::get(resultRank, 0, exprs, context);
}

SmallVector<OpFoldResult> getBroadcastSizes(OpBuilder &builder, Location loc,
                                            RankedTensorType resultType, ValueRange operands) {
  int64_t resultRank = resultType.getRank();
  SmallVector<OpFoldResult> sizes;
  for (int64_t dim = 0; dim < resultRank; ++dim) {
    int64_t extent = resultType.getDimSize(dim);
    if (!ShapedType::isDynamic(extent)) {
      sizes.push_back(builder.getIndexAttr(extent));
      continue;
    }
    OpFoldResult size;
    for (Value operand : operands) {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t operandDim = dim - (resultRank - type.getRank());
      if (operandDim < 0 || type.getDimSize(operandDim) == 1)
        continue;
      size = tensor::DimOp::create(builder, loc, operand, operandDim).getResult();
      break;
    }
    // Every operand has extent 1 there, so the dynamic result extent is 1 too.
    sizes.push_back(size ? size : builder.getIndexAttr(1));
  }
  return sizes;
}

Value createElementwise(OpBuilder &builder, Location loc, RankedTensorType resultType,
                        ValueRange operands, ScalarBody body) {
  MLIRContext *context = builder.getContext();
  int64_t rank = resultType.getRank();
  SmallVector<OpFoldResult> sizes = getBroadcastSizes(builder, loc, resultType, operands);
  SmallVector<AffineMap> maps;
  for (Value operand : operands)
    maps.push_back(getBroadcastMap(context, cast<RankedTensorType>(operand.getType()), rank));
  return createParallelGeneric(builder, loc, resultType, sizes, operands, maps, body);
}

AffineMap getKeptMap(MLIRContext *context, int64_t rank, ArrayRef<int64_t> axes, bool keepDims) {
  SmallVector<AffineExpr> exprs;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (!llvm::is_contained(axes, dim))
      exprs.push_back(getAffineDimExpr(dim, context));
    else if (keepDims)
      exprs.push_back(getAffineConstantExpr(0, context));
  }
  return AffineMap::get(rank, 0, exprs, context);
}

std::pair<SmallVector<int64_t>, SmallVector<OpFoldResult>>
getReducedShape(OpBuilder &builder, Location loc, Value input, ArrayRef<int64_t> axes,
                bool keepDims) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> sizes = getSizes(builder, loc, input);
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> resultSizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    if (!llvm::is_contained(axes, dim)) {
      shape.push_back(type.getDimSize(dim));
      resultSizes.push_back(sizes[dim]);
    } else if (keepDims) {
      shape.push_back(1);
      resultSizes.push_back(builder.getIndexAttr(1));
    }
  }
  return {shape, resultSizes};
}

Value createReductionWithStats(
    OpBuilder &builder, Location loc, Value input, ArrayRef<int64_t> axes, bool keepDims,
    ValueRange stats, Value init,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> combine) {
  MLIRContext *context = builder.getContext();
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  auto [shape, sizes] = getReducedShape(builder, loc, input, axes, keepDims);
  auto resultType = RankedTensorType::get(shape, init.getType());
  Value filled = createFilledTensor(builder, loc, resultType, sizes, init);
  SmallVector<Value> inputs{input};
  llvm::append_range(inputs, stats);
  SmallVector<AffineMap> maps{builder.getMultiDimIdentityMap(rank)};
  maps.append(stats.size(), getKeptMap(context, rank, axes, /*keepDims=*/true));
  maps.push_back(getKeptMap(context, rank, axes, keepDims));
  SmallVector<utils::IteratorType> iterators;
  for (int64_t dim = 0; dim < rank; ++dim)
    iterators.push_back(llvm::is_contained(axes, dim) ? utils::IteratorType::reduction
                                                      : utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{resultType}, inputs, ValueRange{filled}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc, combine(nested, nestedLoc, args));
      });
  return generic.getResult(0);
}

Value createReduction(
    OpBuilder &builder, Location loc, Value input, ArrayRef<int64_t> axes, bool keepDims,
    Value init,
    llvm::function_ref<Value(OpBuilder &, Location, Value element, Value accumulator)> combine) {
  return createReductionWithStats(builder, loc, input, axes, keepDims, ValueRange{}, init,
                                  [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                                    return combine(nested, nestedLoc, args[0], args[1]);
                                  });
}

Value createExtentProduct(OpBuilder &builder, Location loc, Value tensor, ArrayRef<int64_t> dims) {
  SmallVector<OpFoldResult> sizes = getSizes(builder, loc, tensor);
  Value product = arith::ConstantIndexOp::create(builder, loc, 1);
  for (int64_t dim : dims)
    product = arith::MulIOp::create(builder, loc, product,
                                    getValueOrCreateConstantIndexOp(builder, loc, sizes[dim]));
  return product;
}

Value castToType(OpBuilder &builder, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(builder, loc, type, value);
}

Value createParallelGeneric(OpBuilder &builder, Location loc, RankedTensorType resultType,
                            ArrayRef<OpFoldResult> sizes, ValueRange inputs,
                            ArrayRef<AffineMap> inputMaps, ScalarBody body) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(builder.getMultiDimIdentityMap(rank));
  Value init = createEmptyTensor(builder, loc, resultType, sizes);
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc, body(nested, nestedLoc, args.drop_back()));
      });
  return generic.getResult(0);
}

Value createIndexedGeneric(OpBuilder &builder, Location loc, RankedTensorType type,
                           ArrayRef<OpFoldResult> sizes, IndexedBody body) {
  int64_t rank = type.getRank();
  Value init = createEmptyTensor(builder, loc, type, sizes);
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{builder.getMultiDimIdentityMap(rank)}, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange) {
        SmallVector<Value> indices;
        for (int64_t dim = 0; dim < rank; ++dim)
          indices.push_back(linalg::IndexOp::create(nested, nestedLoc, dim));
        linalg::YieldOp::create(nested, nestedLoc, body(nested, nestedLoc, indices));
      });
  return generic.getResult(0);
}

Value createPaddedGather(OpBuilder &builder, Location loc, RankedTensorType resultType,
                         ArrayRef<OpFoldResult> sizes, Value input, Value padValue,
                         PaddedSourceIndex sourceIndex) {
  return createIndexedGeneric(
      builder, loc, resultType, sizes,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange indices) -> Value {
        SmallVector<Value> sourceIndices;
        Value inside;
        for (auto [dim, index] : llvm::enumerate(indices)) {
          auto [source, inBounds] = sourceIndex(nested, nestedLoc, dim, index);
          sourceIndices.push_back(source);
          if (inBounds)
            inside = inside ? arith::AndIOp::create(nested, nestedLoc, inside, inBounds).getResult()
                            : inBounds;
        }
        Value element = tensor::ExtractOp::create(nested, nestedLoc, input, sourceIndices);
        if (!inside)
          return element;
        return arith::SelectOp::create(nested, nestedLoc, inside, element, padValue);
      });
}

bool isSingleElement(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  return ranked && ranked.hasStaticShape() && ranked.getNumElements() == 1;
}

Value extractScalar(OpBuilder &builder, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> zeros(type.getRank(), arith::ConstantIndexOp::create(builder, loc, 0));
  return tensor::ExtractOp::create(builder, loc, tensor, zeros);
}

Value createSwitch(OpBuilder &builder, Location loc, Value selector, ArrayRef<int64_t> caseValues,
                   Type resultType,
                   llvm::function_ref<Value(OpBuilder &, Location, size_t)> build) {
  auto switchOp = scf::IndexSwitchOp::create(builder, loc, TypeRange{resultType}, selector,
                                             caseValues.drop_front(), caseValues.size() - 1);
  OpBuilder::InsertionGuard guard(builder);
  auto fillRegion = [&](Region &region, size_t caseIndex) {
    Block *block = builder.createBlock(&region);
    builder.setInsertionPointToStart(block);
    Value result = castToType(builder, loc, build(builder, loc, caseIndex), resultType);
    scf::YieldOp::create(builder, loc, result);
  };
  fillRegion(switchOp.getDefaultRegion(), 0);
  for (auto [index, region] : llvm::enumerate(switchOp.getCaseRegions()))
    fillRegion(region, index + 1);
  return switchOp.getResult(0);
}

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

Value createScalarConstant(OpBuilder &builder, Location loc, Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(builder, loc, builder.getFloatAttr(floatType, value));
  if (type.isIndex())
    return arith::ConstantIndexOp::create(builder, loc, static_cast<int64_t>(value));
  auto integerType = cast<IntegerType>(type);
  auto signless = IntegerType::get(builder.getContext(), integerType.getWidth());
  return arith::ConstantOp::create(builder, loc,
                                   builder.getIntegerAttr(signless, static_cast<int64_t>(value)));
}

Value convertScalar(OpBuilder &builder, Location loc, Value value, Type from, Type to) {
  from = getElementTypeOrSelf(from);
  to = getElementTypeOrSelf(to);
  if (from == to)
    return value;
  auto signless = [&](Type type) -> Type {
    if (auto integer = dyn_cast<IntegerType>(type))
      return IntegerType::get(builder.getContext(), integer.getWidth());
    return type;
  };
  Type target = signless(to);
  bool fromBool = from.isInteger(1);
  bool fromUnsigned = from.isUnsignedInteger() || fromBool;

  if (to.isInteger(1)) {
    if (isa<FloatType>(from)) {
      Value zero = createScalarConstant(builder, loc, from, 0.0);
      return arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::UNE, value, zero);
    }
    Value zero = createScalarConstant(builder, loc, value.getType(), 0.0);
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne, value, zero);
  }
  if (auto fromFloat = dyn_cast<FloatType>(from)) {
    if (auto toFloat = dyn_cast<FloatType>(to)) {
      if (fromFloat.getWidth() < toFloat.getWidth())
        return arith::ExtFOp::create(builder, loc, toFloat, value);
      if (fromFloat.getWidth() > toFloat.getWidth())
        return arith::TruncFOp::create(builder, loc, toFloat, value);
      // f16 <-> bf16: through f32, which holds both exactly.
      Value wide = arith::ExtFOp::create(builder, loc, builder.getF32Type(), value);
      return arith::TruncFOp::create(builder, loc, toFloat, wide);
    }
    if (to.isUnsignedInteger())
      return arith::FPToUIOp::create(builder, loc, target, value);
    return arith::FPToSIOp::create(builder, loc, target, value);
  }
  // From an integer (or bool).
  if (isa<FloatType>(to)) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(builder, loc, target, value);
    return arith::SIToFPOp::create(builder, loc, target, value);
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth < toWidth) {
    if (fromUnsigned)
      return arith::ExtUIOp::create(builder, loc, target, value);
    return arith::ExtSIOp::create(builder, loc, target, value);
  }
  if (fromWidth > toWidth)
    return arith::TruncIOp::create(builder, loc, target, value);
  // Same width, different signedness: the bits are the value.
  return value;
}

Value indexToInteger(OpBuilder &builder, Location loc, Value index, Type type) {
  return arith::IndexCastOp::create(builder, loc, type, index);
}

Value integerToIndex(OpBuilder &builder, Location loc, Value integer) {
  return arith::IndexCastOp::create(builder, loc, builder.getIndexType(), integer);
}

Value wrapNegativeIndex(OpBuilder &builder, Location loc, Value index, Value extent) {
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value negative = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, index, zero);
  Value wrapped = arith::AddIOp::create(builder, loc, index, extent);
  return arith::SelectOp::create(builder, loc, negative, wrapped, index);
}

Value indexToFloat(OpBuilder &builder, Location loc, Value index, Type floatType,
                   bool isUnsignedValue) {
  Value integer = indexToInteger(builder, loc, index, builder.getI64Type());
  if (isUnsignedValue)
    return arith::UIToFPOp::create(builder, loc, floatType, integer);
  return arith::SIToFPOp::create(builder, loc, floatType, integer);
}

Value floatToIndex(OpBuilder &builder, Location loc, Value value) {
  Value integer = arith::FPToSIOp::create(builder, loc, builder.getI64Type(), value);
  return integerToIndex(builder, loc, integer);
}

Value createF64Constant(OpBuilder &builder, Location loc, double value) {
  return createScalarConstant(builder, loc, builder.getF64Type(), value);
}

Value toF64(OpBuilder &builder, Location loc, Value value, bool isUnsignedInt) {
  Type type = value.getType();
  Type f64 = builder.getF64Type();
  if (auto floatType = dyn_cast<FloatType>(type)) {
    if (floatType.getWidth() < 64)
      return arith::ExtFOp::create(builder, loc, f64, value);
    return value;
  }
  if (type.isIndex())
    return indexToFloat(builder, loc, value, f64, isUnsignedInt);
  if (isUnsignedInt)
    return arith::UIToFPOp::create(builder, loc, f64, value);
  return arith::SIToFPOp::create(builder, loc, f64, value);
}

Value fromF64(OpBuilder &builder, Location loc, Value value, Type type) {
  if (cast<FloatType>(type).getWidth() < 64)
    return arith::TruncFOp::create(builder, loc, type, value);
  return value;
}

Value f64ToIndex(OpBuilder &builder, Location loc, Value value) {
  value = arith::MaximumFOp::create(builder, loc, value, createF64Constant(builder, loc, -1e15));
  value = arith::MinimumFOp::create(builder, loc, value, createF64Constant(builder, loc, 1e15));
  return floatToIndex(builder, loc, value);
}

Value createExtremeConstant(OpBuilder &builder, Location loc, Type type, bool largest,
                            bool isUnsignedType) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        builder, loc,
        builder.getFloatAttr(floatType, APFloat::getInf(floatType.getFloatSemantics(),
                                                        /*Negative=*/!largest)));
  unsigned width = type.getIntOrFloatBitWidth();
  APInt value = isUnsignedType
                    ? (largest ? APInt::getMaxValue(width) : APInt::getMinValue(width))
                    : (largest ? APInt::getSignedMaxValue(width) : APInt::getSignedMinValue(width));
  return arith::ConstantOp::create(builder, loc, builder.getIntegerAttr(type, value));
}

Value createMinMax(OpBuilder &builder, Location loc, Value lhs, Value rhs, bool max,
                   bool isUnsignedType) {
  if (isa<FloatType>(lhs.getType()))
    return max ? arith::MaximumFOp::create(builder, loc, lhs, rhs).getResult()
               : arith::MinimumFOp::create(builder, loc, lhs, rhs).getResult();
  if (isUnsignedType)
    return max ? arith::MaxUIOp::create(builder, loc, lhs, rhs).getResult()
               : arith::MinUIOp::create(builder, loc, lhs, rhs).getResult();
  return max ? arith::MaxSIOp::create(builder, loc, lhs, rhs).getResult()
             : arith::MinSIOp::create(builder, loc, lhs, rhs).getResult();
}

//===----------------------------------------------------------------------===//
// Families
//===----------------------------------------------------------------------===//

void populateGraphToLinalgPatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  populateCoreLowering(converter, patterns);
  populateElementwiseLowering(converter, patterns);
  populateShapeLowering(converter, patterns);
  populateReductionLowering(converter, patterns);
  populateNNLowering(converter, patterns);
  populateQuantizationLowering(converter, patterns);
  populateRecurrentLowering(converter, patterns);
  populateSignalLowering(converter, patterns);
  populateRandomLowering(converter, patterns);
  populateControlLowering(converter, patterns);
  populateLossLowering(converter, patterns);
  populateTrainingLowering(converter, patterns);
}

} // namespace kiln::lowering
