//===- QuantizationOps.cpp - Quantized ops ---------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace kiln::graph;

/// Element types that ONNX quantizes to: 4, 8 and 16-bit integers and the f8 formats.
static bool isQuantizedType(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return !integer.isSigned() &&
           (integer.getWidth() == 4 || integer.getWidth() == 8 || integer.getWidth() == 16);
  return isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type, Float8E5M2FNUZType>(type);
}

static bool isScaleType(Type type) { return isa<Float32Type, Float16Type, BFloat16Type>(type); }

/// Checks that `scale` (and `zeroPoint`, which must have its shape) fit per-tensor,
/// per-axis or, with `blockSize` > 0, blocked quantization of `input` along `axis`.
static LogicalResult verifyQuantizationParameters(std::optional<Location> location,
                                                  TensorType inputType, TensorType scaleType,
                                                  Value zeroPoint, int64_t axis,
                                                  int64_t blockSize) {
  if (zeroPoint) {
    auto zeroPointType = cast<TensorType>(zeroPoint.getType());
    if (failed(verifyCompatibleShape(zeroPointType, scaleType)))
      return emitOptionalError(location, "zero point type ", zeroPointType,
                               " does not have the shape of scale type ", scaleType);
  }
  if (blockSize < 0)
    return emitOptionalError(location, "block_size must not be negative, got ", blockSize);
  if (!scaleType.hasRank())
    return success();
  int64_t scaleRank = scaleType.getRank();
  if (blockSize == 0 && scaleRank > 1)
    return emitOptionalError(
        location, "scale must be a scalar or 1-D without block_size, got rank ", scaleRank);
  // Without block_size a scalar or a single element is per-tensor; the axis matters
  // otherwise.
  if ((blockSize == 0 && (scaleRank == 0 || scaleType.getDimSize(0) == 1)) || !inputType.hasRank())
    return success();
  int64_t rank = inputType.getRank();
  if (axis < -rank || axis >= rank)
    return emitOptionalError(location, "axis ", axis, " is out of range for rank ", rank);
  int64_t normalizedAxis = axis < 0 ? axis + rank : axis;
  int64_t axisExtent = inputType.getDimSize(normalizedAxis);
  if (blockSize == 0) {
    if (failed(verifyCompatibleDims({scaleType.getDimSize(0), axisExtent})))
      return emitOptionalError(location, "scale has ", scaleType.getDimSize(0),
                               " elements for extent ", axisExtent, " of axis ", axis);
    return success();
  }
  if (scaleRank != rank)
    return emitOptionalError(location, "blocked quantization needs a scale of rank ", rank,
                             ", got rank ", scaleRank);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t want = inputType.getDimSize(i);
    if (i == normalizedAxis && !ShapedType::isDynamic(want))
      want = (want + blockSize - 1) / blockSize;
    if (failed(verifyCompatibleDims({scaleType.getDimSize(i), want})))
      return emitOptionalError(location, "scale extent ", scaleType.getDimSize(i), " in dimension ",
                               i, " does not match the ", want, " blocks of size ", blockSize,
                               " expected there");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// QuantizeLinearOp, DequantizeLinearOp, DynamicQuantizeLinearOp
//===----------------------------------------------------------------------===//

LogicalResult QuantizeLinearOp::inferReturnTypes(MLIRContext *context,
                                                 std::optional<Location> location, Adaptor adaptor,
                                                 SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto scaleType = cast<TensorType>(adaptor.getScale().getType());
  Type inputElement = inputType.getElementType();
  Type scaleElement = scaleType.getElementType();
  if (!isScaleType(inputElement) && !inputElement.isSignlessInteger(32))
    return emitOptionalError(location, "input must be an f32, f16, bf16 or i32 tensor, got ",
                             inputType);
  if (!isScaleType(scaleElement))
    return emitOptionalError(location, "scale must be an f32, f16 or bf16 tensor, got ", scaleType);
  if (isa<FloatType>(inputElement) && scaleElement != inputElement)
    return emitOptionalError(location, "scale element type ", scaleElement,
                             " differs from input element type ", inputElement);

  // The zero point's element type is the result's; ONNX's default is ui8.
  Type resultElement = IntegerType::get(context, 8, IntegerType::Unsigned);
  if (Value zeroPoint = adaptor.getZeroPoint()) {
    resultElement = cast<TensorType>(zeroPoint.getType()).getElementType();
    if (!isQuantizedType(resultElement))
      return emitOptionalError(location, "zero point element type ", resultElement,
                               " is not a quantized type");
  }
  if (failed(verifyQuantizationParameters(location, inputType, scaleType, adaptor.getZeroPoint(),
                                          adaptor.getAxis(), adaptor.getBlockSize())))
    return failure();
  inferred.push_back(inputType.clone(resultElement));
  return success();
}

LogicalResult DequantizeLinearOp::inferReturnTypes(MLIRContext *context,
                                                   std::optional<Location> location,
                                                   Adaptor adaptor,
                                                   SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto scaleType = cast<TensorType>(adaptor.getScale().getType());
  Type inputElement = inputType.getElementType();
  if (!isQuantizedType(inputElement) && !inputElement.isSignlessInteger(32))
    return emitOptionalError(location, "input element type ", inputElement,
                             " is not a quantized type or i32");
  if (!isScaleType(scaleType.getElementType()))
    return emitOptionalError(location, "scale must be an f32, f16 or bf16 tensor, got ", scaleType);
  if (Value zeroPoint = adaptor.getZeroPoint()) {
    Type zeroPointElement = cast<TensorType>(zeroPoint.getType()).getElementType();
    if (zeroPointElement != inputElement)
      return emitOptionalError(location, "zero point element type ", zeroPointElement,
                               " differs from input element type ", inputElement);
  }
  if (failed(verifyQuantizationParameters(location, inputType, scaleType, adaptor.getZeroPoint(),
                                          adaptor.getAxis(), adaptor.getBlockSize())))
    return failure();
  inferred.push_back(inputType.clone(scaleType.getElementType()));
  return success();
}

LogicalResult DynamicQuantizeLinearOp::inferReturnTypes(MLIRContext *context,
                                                        std::optional<Location> location,
                                                        Adaptor adaptor,
                                                        SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  if (!inputType.getElementType().isF32())
    return emitOptionalError(location, "input must be an f32 tensor, got ", inputType);
  Type ui8 = IntegerType::get(context, 8, IntegerType::Unsigned);
  inferred.push_back(inputType.clone(ui8));
  inferred.push_back(RankedTensorType::get({}, inputType.getElementType()));
  inferred.push_back(RankedTensorType::get({}, ui8));
  return success();
}

//===----------------------------------------------------------------------===//
// Matmul and convolution
//===----------------------------------------------------------------------===//

/// Checks that `zeroPoint` has the element type of the operand it belongs to.
static LogicalResult verifyZeroPointType(std::optional<Location> location, Value zeroPoint,
                                         Value operand, llvm::StringRef operandName) {
  Type zeroPointElement = getElementTypeOrSelf(zeroPoint.getType());
  Type operandElement = getElementTypeOrSelf(operand.getType());
  if (zeroPointElement != operandElement)
    return emitOptionalError(location, operandName, " zero point element type ", zeroPointElement,
                             " differs from ", operandName, " element type ", operandElement);
  return success();
}

/// Checks that a quantization scale has a float element type.
static LogicalResult verifyScaleType(std::optional<Location> location, Value scale,
                                     llvm::StringRef name) {
  Type element = getElementTypeOrSelf(scale.getType());
  if (!isScaleType(element))
    return emitOptionalError(location, name, " scale must be f32, f16 or bf16, got ", element);
  return success();
}

/// Checks that the integer matmul and conv operands are i8 or ui8.
static LogicalResult verifyInteger8(std::optional<Location> location, Value value,
                                    llvm::StringRef name) {
  auto element = dyn_cast<IntegerType>(getElementTypeOrSelf(value.getType()));
  if (!element || element.getWidth() != 8 || element.isSigned())
    return emitOptionalError(location, name, " must be an i8 or ui8 tensor, got ", value.getType());
  return success();
}

/// The matmul shape of `lhs` and `rhs` with element type `elementType`.
static LogicalResult inferMatmulType(std::optional<Location> location, Value lhs, Value rhs,
                                     Type elementType, SmallVectorImpl<Type> &inferred) {
  auto lhsType = cast<TensorType>(lhs.getType());
  auto rhsType = cast<TensorType>(rhs.getType());
  if (!lhsType.hasRank() || !rhsType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  auto shape = matmulShape(lhsType.getShape(), rhsType.getShape());
  if (!shape)
    return emitOptionalError(location, llvm::toString(shape.takeError()));
  inferred.push_back(RankedTensorType::get(*shape, elementType));
  return success();
}

LogicalResult QLinearMatMulOp::inferReturnTypes(MLIRContext *context,
                                                std::optional<Location> location, Adaptor adaptor,
                                                SmallVectorImpl<Type> &inferred) {
  if (failed(verifyZeroPointType(location, adaptor.getLhsZeroPoint(), adaptor.getLhs(), "lhs")) ||
      failed(verifyZeroPointType(location, adaptor.getRhsZeroPoint(), adaptor.getRhs(), "rhs")) ||
      failed(verifyScaleType(location, adaptor.getLhsScale(), "lhs")) ||
      failed(verifyScaleType(location, adaptor.getRhsScale(), "rhs")) ||
      failed(verifyScaleType(location, adaptor.getResultScale(), "result")))
    return failure();
  Type resultElement = getElementTypeOrSelf(adaptor.getResultZeroPoint().getType());
  if (!isQuantizedType(resultElement))
    return emitOptionalError(location, "result zero point element type ", resultElement,
                             " is not a quantized type");
  return inferMatmulType(location, adaptor.getLhs(), adaptor.getRhs(), resultElement, inferred);
}

LogicalResult QLinearConvOp::inferReturnTypes(MLIRContext *context,
                                              std::optional<Location> location, Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  if (failed(verifyZeroPointType(location, adaptor.getInputZeroPoint(), adaptor.getInput(),
                                 "input")) ||
      failed(verifyZeroPointType(location, adaptor.getWeightZeroPoint(), adaptor.getWeight(),
                                 "weight")) ||
      failed(verifyScaleType(location, adaptor.getInputScale(), "input")) ||
      failed(verifyScaleType(location, adaptor.getWeightScale(), "weight")) ||
      failed(verifyScaleType(location, adaptor.getResultScale(), "result")))
    return failure();
  Type resultElement = getElementTypeOrSelf(adaptor.getResultZeroPoint().getType());
  if (!isQuantizedType(resultElement))
    return emitOptionalError(location, "result zero point element type ", resultElement,
                             " is not a quantized type");
  if (Value bias = adaptor.getBias()) {
    auto biasType = cast<TensorType>(bias.getType());
    if (!biasType.getElementType().isSignlessInteger(32))
      return emitOptionalError(location, "bias must be an i32 tensor, got ", biasType);
    if (biasType.hasRank() && biasType.getRank() != 1)
      return emitOptionalError(location, "bias must have rank 1, got ", biasType.getRank());
  }
  return inferConvResultType(location, adaptor.getInput(), adaptor.getWeight(),
                             adaptor.getStrides(), adaptor.getDilations(), adaptor.getPads(),
                             adaptor.getGroup(), resultElement, inferred);
}

LogicalResult MatMulIntegerOp::inferReturnTypes(MLIRContext *context,
                                                std::optional<Location> location, Adaptor adaptor,
                                                SmallVectorImpl<Type> &inferred) {
  if (failed(verifyInteger8(location, adaptor.getLhs(), "lhs")) ||
      failed(verifyInteger8(location, adaptor.getRhs(), "rhs")) ||
      failed(verifyZeroPointType(location, adaptor.getLhsZeroPoint(), adaptor.getLhs(), "lhs")) ||
      failed(verifyZeroPointType(location, adaptor.getRhsZeroPoint(), adaptor.getRhs(), "rhs")))
    return failure();
  return inferMatmulType(location, adaptor.getLhs(), adaptor.getRhs(),
                         IntegerType::get(context, 32), inferred);
}

LogicalResult ConvIntegerOp::inferReturnTypes(MLIRContext *context,
                                              std::optional<Location> location, Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  if (failed(verifyInteger8(location, adaptor.getInput(), "input")) ||
      failed(verifyInteger8(location, adaptor.getWeight(), "weight")) ||
      failed(verifyZeroPointType(location, adaptor.getInputZeroPoint(), adaptor.getInput(),
                                 "input")) ||
      failed(verifyZeroPointType(location, adaptor.getWeightZeroPoint(), adaptor.getWeight(),
                                 "weight")))
    return failure();
  return inferConvResultType(location, adaptor.getInput(), adaptor.getWeight(),
                             adaptor.getStrides(), adaptor.getDilations(), adaptor.getPads(),
                             adaptor.getGroup(), IntegerType::get(context, 32), inferred);
}
