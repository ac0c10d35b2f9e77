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
  auto materialize = [](OpBuilder &builder, Type type, ValueRange inputs,
                        Location loc) -> Value {
    if (inputs.size() != 1)
      return Value();
    return UnrealizedConversionCastOp::create(builder, loc, type, inputs).getResult(0);
  };
  addSourceMaterialization(materialize);
  addTargetMaterialization(materialize);
}

bool isUnsigned(Type graphType) {
  return getElementTypeOrSelf(graphType).isUnsignedInteger();
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

AffineMap getBroadcastMap(MLIRContext *context, RankedTensorType operandType,
                          int64_t resultRank) {
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
  SmallVector<AffineMap> maps;
  for (Value operand : operands)
    maps.push_back(getBroadcastMap(context, cast<RankedTensorType>(operand.getType()), rank));
  maps.push_back(builder.getMultiDimIdentityMap(rank));
  Value init = createEmptyTensor(builder, loc, resultType,
                                 getBroadcastSizes(builder, loc, resultType, operands));
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(builder, 
      loc, TypeRange{resultType}, operands, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

Value createReduction(
    OpBuilder &builder, Location loc, Value input, ArrayRef<int64_t> axes, bool keepDims,
    Value init,
    llvm::function_ref<Value(OpBuilder &, Location, Value element, Value accumulator)> combine) {
  MLIRContext *context = builder.getContext();
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> resultShape;
  SmallVector<OpFoldResult> resultSizes;
  SmallVector<AffineExpr> resultExprs;
  SmallVector<utils::IteratorType> iterators;
  SmallVector<OpFoldResult> inputSizes = getSizes(builder, loc, input);
  for (int64_t dim = 0; dim < rank; ++dim) {
    bool reduced = llvm::is_contained(axes, dim);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced) {
      resultShape.push_back(inputType.getDimSize(dim));
      resultSizes.push_back(inputSizes[dim]);
      resultExprs.push_back(getAffineDimExpr(dim, context));
    } else if (keepDims) {
      resultShape.push_back(1);
      resultSizes.push_back(builder.getIndexAttr(1));
      resultExprs.push_back(getAffineConstantExpr(0, context));
    }
  }
  auto resultType = RankedTensorType::get(resultShape, init.getType());
  Value filled = createFilledTensor(builder, loc, resultType, resultSizes, init);
  SmallVector<AffineMap> maps{builder.getMultiDimIdentityMap(rank),
                              AffineMap::get(rank, 0, resultExprs, context)};
  auto generic = linalg::GenericOp::create(builder, 
      loc, TypeRange{resultType}, ValueRange{input}, ValueRange{filled}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc, combine(nested, nestedLoc, args[0], args[1]));
      });
  return generic.getResult(0);
}

Value castToType(OpBuilder &builder, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(builder, loc, type, value);
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
  return arith::ConstantOp::create(builder, 
      loc, builder.getIntegerAttr(signless, static_cast<int64_t>(value)));
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

//===----------------------------------------------------------------------===//
// Families
//===----------------------------------------------------------------------===//

void populateGraphToLinalgPatterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns) {
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
}

} // namespace kiln::lowering
