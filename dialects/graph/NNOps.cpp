//===- NNOps.cpp - Convolution, pooling, normalisation, matmul -------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;
using namespace kiln::graph;

//===----------------------------------------------------------------------===//
// ConvOp
//===----------------------------------------------------------------------===//

LogicalResult ConvOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                       Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  Type elementType = cast<TensorType>(adaptor.getInput().getType()).getElementType();
  auto weightType = cast<TensorType>(adaptor.getWeight().getType());
  if (weightType.getElementType() != elementType)
    return emitOptionalError(location, "weight element type ", weightType.getElementType(),
                             " differs from input element type ", elementType);
  // Integer operands (i8 x i8, ui8 x ui8) accumulate into i32, as ONNX ConvInteger does
  // without its zero points: the form graph-fold-quantized-products gives quantized convs, so
  // that the kernels can run them on int8 tensor cores.
  Type resultType = elementType;
  if (auto integer = dyn_cast<IntegerType>(elementType)) {
    if (integer.getWidth() != 8 || integer.isSigned())
      return emitOptionalError(location, "integer convolution needs i8 or ui8 operands, got ",
                               elementType);
    resultType = IntegerType::get(context, 32);
  }
  if (failed(inferConvResultType(location, adaptor.getInput(), adaptor.getWeight(),
                                 adaptor.getStrides(), adaptor.getDilations(), adaptor.getPads(),
                                 adaptor.getGroup(), resultType, inferred,
                                 adaptor.getChannelsLast())))
    return failure();
  if (Value bias = adaptor.getBias()) {
    auto biasType = cast<TensorType>(bias.getType());
    if (biasType.getElementType() != resultType)
      return emitOptionalError(location, "bias element type ", biasType.getElementType(),
                               " differs from result element type ", resultType);
    if (biasType.hasRank()) {
      if (biasType.getRank() != 1)
        return emitOptionalError(location, "bias must have rank 1, got ", biasType.getRank());
      int64_t outChannels = weightType.hasRank() ? weightType.getDimSize(0) : ShapedType::kDynamic;
      if (failed(verifyCompatibleDims({biasType.getDimSize(0), outChannels})))
        return emitOptionalError(location, "bias has ", biasType.getDimSize(0), " elements for ",
                                 outChannels, " output channels");
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MatMulOp
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                         Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  Type elementType = getElementTypeOrSelf(adaptor.getLhs().getType());
  Type rhsElementType = getElementTypeOrSelf(adaptor.getRhs().getType());
  if (rhsElementType != elementType)
    return emitOptionalError(location, "rhs element type ", rhsElementType,
                             " differs from lhs element type ", elementType);
  // 8-bit operands (which ONNX MatMul never has) accumulate into i32: signless i8 only,
  // the signedness the int8 tensor cores and the CPU lowering's sign extension share.
  auto integer = dyn_cast<IntegerType>(elementType);
  bool eightBit = integer && integer.getWidth() == 8;
  if (eightBit && !integer.isSignless())
    return emitOptionalError(location, "an 8-bit matmul needs signless i8 operands, got ",
                             elementType);
  if (failed(
          inferBinaryOpType(location, adaptor.getLhs(), adaptor.getRhs(), matmulShape, inferred)))
    return failure();
  if (eightBit)
    inferred.back() = cast<TensorType>(inferred.back()).clone(IntegerType::get(context, 32));
  return success();
}

//===----------------------------------------------------------------------===//
// Shared pieces of the shape rules below
//===----------------------------------------------------------------------===//

/// A shape for messages, with `?` for dynamic extents.
static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [index, extent] : llvm::enumerate(shape)) {
    if (index)
      text += ", ";
    text += ShapedType::isDynamic(extent) ? "?" : std::to_string(extent);
  }
  return text + "]";
}

/// Fails unless `type`'s element type is `expected`; `what` names the operand.
static LogicalResult checkElementType(std::optional<Location> location, Type type, Type expected,
                                      StringRef what) {
  Type elementType = getElementTypeOrSelf(type);
  if (elementType != expected)
    return emitOptionalError(location, what, " element type ", elementType,
                             " differs from input element type ", expected);
  return success();
}

/// Fails unless `type` is unranked or a vector whose extent is compatible with `extent`.
static LogicalResult checkChannelVector(std::optional<Location> location, Type type, int64_t extent,
                                        StringRef what) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return success();
  if (ranked.getRank() != 1)
    return emitOptionalError(location, what, " must have rank 1, got ", ranked.getRank());
  if (failed(verifyCompatibleDims({ranked.getDimSize(0), extent})))
    return emitOptionalError(location, what, " has ", ranked.getDimSize(0), " elements for ",
                             extent, " channels");
  return success();
}

/// Fails unless `from` broadcasts unidirectionally to `to` (NumPy rules, `to` unchanged).
static LogicalResult checkUnidirectionalBroadcast(std::optional<Location> location,
                                                  ArrayRef<int64_t> from, ArrayRef<int64_t> to,
                                                  StringRef what) {
  if (from.size() > to.size())
    return emitOptionalError(location, what, " has rank ", from.size(), ", more than the rank ",
                             to.size(), " it broadcasts to");
  for (auto [fromDim, toDim] : llvm::zip(llvm::reverse(from), llvm::reverse(to))) {
    if (fromDim == 1 || ShapedType::isDynamic(fromDim) || ShapedType::isDynamic(toDim) ||
        fromDim == toDim)
      continue;
    return emitOptionalError(location, what, " of shape ", shapeString(from),
                             " does not broadcast to ", shapeString(to));
  }
  return success();
}

/// One spatial output extent of a pooling window. With `ceilMode` the division rounds up,
/// but (as in ONNX's reference and PyTorch) a last window that would start in the end
/// padding is dropped.
static llvm::Expected<int64_t> poolOutputExtent(int64_t in, int64_t kernel, int64_t stride,
                                                int64_t dilation, int64_t padBegin, int64_t padEnd,
                                                bool ceilMode) {
  auto floorExtent = convOutputExtent(in, kernel, stride, dilation, padBegin, padEnd);
  if (!floorExtent || !ceilMode || ShapedType::isDynamic(*floorExtent))
    return floorExtent;
  int64_t span = in + padBegin + padEnd - dilation * (kernel - 1) - 1;
  int64_t extent = llvm::divideCeil(span, stride) + 1;
  if ((extent - 1) * stride >= in + padBegin)
    --extent;
  return extent;
}

/// The result shape of a pooling window over `inputType` ([N, C, spatial...]), or nullopt
/// when the input is unranked.
static FailureOr<std::optional<SmallVector<int64_t>>>
inferPoolShape(std::optional<Location> location, TensorType inputType,
               ArrayRef<int64_t> kernelShape, ArrayRef<int64_t> strides,
               ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads, bool ceilMode) {
  int64_t spatialRank = kernelShape.size();
  if (inputType.hasRank() && inputType.getRank() != spatialRank + 2)
    return emitOptionalError(location, "expects an input of rank ", spatialRank + 2,
                             " ([N, C] and one dimension per kernel extent), got ",
                             inputType.getRank());
  if (spatialRank == 0)
    return emitOptionalError(location, "expects at least one kernel extent");
  if (int64_t(strides.size()) != spatialRank)
    return emitOptionalError(location, "expects ", spatialRank, " strides, got ", strides.size());
  if (int64_t(dilations.size()) != spatialRank)
    return emitOptionalError(location, "expects ", spatialRank, " dilations, got ",
                             dilations.size());
  if (int64_t(pads.size()) != 2 * spatialRank)
    return emitOptionalError(location, "expects ", 2 * spatialRank,
                             " pads (all beginnings, then all ends), got ", pads.size());
  auto nonPositive = [](int64_t v) { return v < 1; };
  if (llvm::any_of(kernelShape, nonPositive) || llvm::any_of(strides, nonPositive) ||
      llvm::any_of(dilations, nonPositive))
    return emitOptionalError(location, "kernel_shape, strides and dilations must be positive");
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return emitOptionalError(location, "pads must not be negative");
  if (!inputType.hasRank())
    return std::optional<SmallVector<int64_t>>();

  SmallVector<int64_t> shape(inputType.getShape());
  for (int64_t i = 0; i < spatialRank; ++i) {
    auto extent = poolOutputExtent(shape[i + 2], kernelShape[i], strides[i], dilations[i], pads[i],
                                   pads[i + spatialRank], ceilMode);
    if (!extent)
      return emitOptionalError(location, "spatial dimension ", i, ": ",
                               llvm::toString(extent.takeError()));
    shape[i + 2] = *extent;
  }
  return std::optional<SmallVector<int64_t>>(std::move(shape));
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

LogicalResult GemmOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                       Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto aType = cast<TensorType>(adaptor.getA().getType());
  auto bType = cast<TensorType>(adaptor.getB().getType());
  Type elementType = aType.getElementType();
  if (failed(checkElementType(location, bType, elementType, "B")))
    return failure();
  if (Value c = adaptor.getC())
    if (failed(checkElementType(location, c.getType(), elementType, "C")))
      return failure();

  // [rows, columns] of A' and B' after the optional transposes.
  auto dims = [](TensorType type, bool transpose) -> std::pair<int64_t, int64_t> {
    if (!type.hasRank())
      return {ShapedType::kDynamic, ShapedType::kDynamic};
    return transpose ? std::pair(type.getDimSize(1), type.getDimSize(0))
                     : std::pair(type.getDimSize(0), type.getDimSize(1));
  };
  if (aType.hasRank() && aType.getRank() != 2)
    return emitOptionalError(location, "A must have rank 2, got ", aType.getRank());
  if (bType.hasRank() && bType.getRank() != 2)
    return emitOptionalError(location, "B must have rank 2, got ", bType.getRank());
  auto [m, aK] = dims(aType, adaptor.getTransA());
  auto [bK, n] = dims(bType, adaptor.getTransB());
  if (failed(verifyCompatibleDims({aK, bK})))
    return emitOptionalError(location, "inner dimensions differ: A' is ", shapeString({m, aK}),
                             " and B' is ", shapeString({bK, n}));
  SmallVector<int64_t> shape{m, n};
  if (Value c = adaptor.getC())
    if (auto cType = dyn_cast<RankedTensorType>(c.getType()))
      if (failed(checkUnidirectionalBroadcast(location, cType.getShape(), shape, "C")))
        return failure();
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling ops
//===----------------------------------------------------------------------===//

/// The result types of a windowed pool of `input` ([N, C, spatial...], or [N, spatial...,
/// C] with `channelsLast`: the channels-first rule on the input with C moved back to
/// dimension 1, its results moved to the end again): one of the input's element type,
/// then one of each of `extraElementTypes` (max_pool's indices) of the same shape.
static LogicalResult inferWindowedPoolTypes(std::optional<Location> location, Value input,
                                            ArrayRef<int64_t> kernelShape,
                                            ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                                            ArrayRef<int64_t> pads, bool ceilMode,
                                            bool channelsLast, TypeRange extraElementTypes,
                                            SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(
      channelsLast ? moveChannelDim(input.getType(), /*toChannelsLast=*/false) : input.getType());
  auto shape = inferPoolShape(location, inputType, kernelShape, strides, dilations, pads, ceilMode);
  if (failed(shape))
    return failure();
  std::optional<ArrayRef<int64_t>> shapeRef;
  if (*shape)
    shapeRef = ArrayRef(**shape);
  size_t first = inferred.size();
  inferred.push_back(tensorOf(shapeRef, inputType.getElementType()));
  for (Type elementType : extraElementTypes)
    inferred.push_back(tensorOf(shapeRef, elementType));
  if (channelsLast)
    for (Type &type : MutableArrayRef<Type>(inferred).drop_front(first))
      type = moveChannelDim(type, /*toChannelsLast=*/true);
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                          Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferWindowedPoolTypes(location, adaptor.getInput(), adaptor.getKernelShape(),
                                adaptor.getStrides(), adaptor.getDilations(), adaptor.getPads(),
                                adaptor.getCeilMode(), adaptor.getChannelsLast(),
                                IntegerType::get(context, 64), inferred);
}

LogicalResult AveragePoolOp::inferReturnTypes(MLIRContext *context,
                                              std::optional<Location> location, Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  return inferWindowedPoolTypes(location, adaptor.getInput(), adaptor.getKernelShape(),
                                adaptor.getStrides(), adaptor.getDilations(), adaptor.getPads(),
                                adaptor.getCeilMode(), adaptor.getChannelsLast(), {}, inferred);
}

/// [N, C, 1, ..., 1] for an [N, C, spatial...] input.
static LogicalResult inferGlobalPoolType(std::optional<Location> location, Value input,
                                         SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(input.getType());
  if (!inputType.hasRank()) {
    inferred.push_back(inputType);
    return success();
  }
  if (inputType.getRank() < 3)
    return emitOptionalError(location, "expects rank 3 or more ([N, C, spatial...]), got ",
                             inputType.getRank());
  SmallVector<int64_t> shape(inputType.getShape());
  std::fill(shape.begin() + 2, shape.end(), 1);
  inferred.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

LogicalResult GlobalAveragePoolOp::inferReturnTypes(MLIRContext *context,
                                                    std::optional<Location> location,
                                                    Adaptor adaptor,
                                                    SmallVectorImpl<Type> &inferred) {
  return inferGlobalPoolType(location, adaptor.getInput(), inferred);
}

LogicalResult GlobalMaxPoolOp::inferReturnTypes(MLIRContext *context,
                                                std::optional<Location> location, Adaptor adaptor,
                                                SmallVectorImpl<Type> &inferred) {
  return inferGlobalPoolType(location, adaptor.getInput(), inferred);
}

//===----------------------------------------------------------------------===//
// Normalisation ops
//===----------------------------------------------------------------------===//

LogicalResult LayerNormalizationOp::inferReturnTypes(MLIRContext *context,
                                                     std::optional<Location> location,
                                                     Adaptor adaptor,
                                                     SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  Type stashType = adaptor.getStashType();
  if (failed(checkElementType(location, adaptor.getScale().getType(), elementType, "scale")))
    return failure();
  if (Value bias = adaptor.getBias())
    if (failed(checkElementType(location, bias.getType(), elementType, "bias")))
      return failure();
  if (!inputType.hasRank()) {
    inferred.append(
        {inputType, UnrankedTensorType::get(stashType), UnrankedTensorType::get(stashType)});
    return success();
  }
  int64_t rank = inputType.getRank();
  auto axis = normalizeAxis(location, adaptor.getAxis(), rank);
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> normalized = inputType.getShape().drop_front(*axis);
  for (auto [operand, name] :
       {std::pair(adaptor.getScale(), "scale"), std::pair(adaptor.getBias(), "bias")}) {
    if (!operand)
      continue;
    if (auto ranked = dyn_cast<RankedTensorType>(operand.getType()))
      if (failed(checkUnidirectionalBroadcast(location, ranked.getShape(), normalized, name)))
        return failure();
  }
  SmallVector<int64_t> statsShape(inputType.getShape());
  std::fill(statsShape.begin() + *axis, statsShape.end(), 1);
  inferred.push_back(inputType);
  inferred.push_back(RankedTensorType::get(statsShape, stashType));
  inferred.push_back(RankedTensorType::get(statsShape, stashType));
  return success();
}

LogicalResult RMSNormalizationOp::inferReturnTypes(MLIRContext *context,
                                                   std::optional<Location> location,
                                                   Adaptor adaptor,
                                                   SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  if (!isa<FloatType>(inputType.getElementType()))
    return emitOptionalError(location, "expects a float input, got ", inputType.getElementType());
  if (failed(checkElementType(location, adaptor.getScale().getType(), inputType.getElementType(),
                              "scale")))
    return failure();
  // The inverse RMS: f32, or f64 for an f64 input (the lowering's compute type).
  Type statsElement = inputType.getElementType().getIntOrFloatBitWidth() > 32
                          ? inputType.getElementType()
                          : Float32Type::get(context);
  if (!inputType.hasRank()) {
    inferred.append({inputType, UnrankedTensorType::get(statsElement)});
    return success();
  }
  auto axis = normalizeAxis(location, adaptor.getAxis(), inputType.getRank());
  if (failed(axis))
    return failure();
  if (auto scaleType = dyn_cast<RankedTensorType>(adaptor.getScale().getType()))
    if (failed(checkUnidirectionalBroadcast(location, scaleType.getShape(),
                                            inputType.getShape().drop_front(*axis), "scale")))
      return failure();
  SmallVector<int64_t> statsShape(inputType.getShape());
  std::fill(statsShape.begin() + *axis, statsShape.end(), 1);
  inferred.push_back(inputType);
  inferred.push_back(RankedTensorType::get(statsShape, statsElement));
  return success();
}

/// `keyOrValue`'s shape with its head dimension (-3) widened to the query's when it is a
/// divisor of it (grouped-query attention: query head h reads key and value head
/// h / (H / Hkv)), so that matmul's broadcasting rules apply to the rest.
static SmallVector<int64_t> withQueryHeads(ArrayRef<int64_t> keyOrValue, ArrayRef<int64_t> query) {
  SmallVector<int64_t> shape(keyOrValue);
  if (shape.size() < 3 || shape.size() != query.size())
    return shape;
  int64_t &heads = shape[shape.size() - 3];
  int64_t queryHeads = query[query.size() - 3];
  if (!ShapedType::isDynamic(heads) && !ShapedType::isDynamic(queryHeads) && heads > 1 &&
      queryHeads % heads == 0)
    heads = queryHeads;
  return shape;
}

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                            Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto queryType = cast<TensorType>(adaptor.getQuery().getType());
  Type elementType = queryType.getElementType();
  if (!isa<FloatType>(elementType))
    return emitOptionalError(location, "expects a float query, got ", elementType);
  for (auto [operand, name] :
       {std::pair(adaptor.getKey(), "key"), std::pair(adaptor.getValue(), "value"),
        std::pair(adaptor.getMask(), "mask")})
    if (operand && failed(checkElementType(location, operand.getType(), elementType, name)))
      return failure();
  auto keyType = cast<TensorType>(adaptor.getKey().getType());
  auto valueType = cast<TensorType>(adaptor.getValue().getType());
  if (!queryType.hasRank() || !keyType.hasRank() || !valueType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  for (auto [type, name] :
       {std::pair(queryType, "query"), std::pair(keyType, "key"), std::pair(valueType, "value")})
    if (type.getRank() < 2)
      return emitOptionalError(location, name, " must have rank 2 or more, got ", type.getRank());
  // The scores are query x key^T, the result scores x value, both with matmul's rules.
  SmallVector<int64_t> keyTransposed = withQueryHeads(keyType.getShape(), queryType.getShape());
  std::swap(keyTransposed[keyTransposed.size() - 1], keyTransposed[keyTransposed.size() - 2]);
  auto scores = matmulShape(queryType.getShape(), keyTransposed);
  if (!scores)
    return emitOptionalError(location, "query and key: ", llvm::toString(scores.takeError()));
  if (Value mask = adaptor.getMask())
    if (auto maskType = dyn_cast<RankedTensorType>(mask.getType()))
      if (failed(checkUnidirectionalBroadcast(location, maskType.getShape(), *scores, "mask")))
        return failure();
  auto result = matmulShape(*scores, withQueryHeads(valueType.getShape(), queryType.getShape()));
  if (!result)
    return emitOptionalError(location, "scores and value: ", llvm::toString(result.takeError()));
  inferred.push_back(RankedTensorType::get(*result, elementType));
  return success();
}

/// The channel count C of an [N, C, ...] input, dynamic if unknown; fails below `minRank`.
static FailureOr<int64_t> channelCount(std::optional<Location> location, TensorType inputType,
                                       int64_t minRank) {
  if (!inputType.hasRank())
    return ShapedType::kDynamic;
  if (inputType.getRank() < minRank)
    return emitOptionalError(location, "expects rank ", minRank, " or more ([N, C, ...]), got ",
                             inputType.getRank());
  return inputType.getDimSize(1);
}

LogicalResult BatchNormalizationOp::inferReturnTypes(MLIRContext *context,
                                                     std::optional<Location> location,
                                                     Adaptor adaptor,
                                                     SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  // ONNX lets scale and bias share one element type and mean and variance another.
  Type paramType = getElementTypeOrSelf(adaptor.getScale().getType());
  Type statsType = getElementTypeOrSelf(adaptor.getMean().getType());
  if (getElementTypeOrSelf(adaptor.getBias().getType()) != paramType)
    return emitOptionalError(location, "bias element type differs from scale element type ",
                             paramType);
  if (getElementTypeOrSelf(adaptor.getVariance().getType()) != statsType)
    return emitOptionalError(location, "variance element type differs from mean element type ",
                             statsType);
  if (!isa<FloatType>(inputType.getElementType()) || !isa<FloatType>(paramType) ||
      !isa<FloatType>(statsType))
    return emitOptionalError(location, "expects floating-point input and parameters");
  auto channels = channelCount(location, inputType, 2);
  if (failed(channels))
    return failure();
  for (auto [operand, name] :
       {std::pair(adaptor.getScale(), "scale"), std::pair(adaptor.getBias(), "bias"),
        std::pair(adaptor.getMean(), "mean"), std::pair(adaptor.getVariance(), "variance")})
    if (failed(checkChannelVector(location, operand.getType(), *channels, name)))
      return failure();
  if (adaptor.getTrainingMode() != bool(adaptor.getMomentumAttr()))
    return emitOptionalError(location, "momentum must be given exactly in training mode");
  inferred.push_back(inputType);
  if (adaptor.getTrainingMode()) {
    // The running statistics: [C], with the extent from the input or the statistics.
    int64_t extent = *channels;
    for (Value operand : {adaptor.getMean(), adaptor.getVariance()})
      if (auto ranked = dyn_cast<RankedTensorType>(operand.getType()))
        if (ShapedType::isDynamic(extent))
          extent = ranked.getDimSize(0);
    inferred.push_back(RankedTensorType::get({extent}, statsType));
    inferred.push_back(RankedTensorType::get({extent}, statsType));
  }
  return success();
}

LogicalResult InstanceNormalizationOp::inferReturnTypes(MLIRContext *context,
                                                        std::optional<Location> location,
                                                        Adaptor adaptor,
                                                        SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  if (failed(checkElementType(location, adaptor.getScale().getType(), elementType, "scale")) ||
      failed(checkElementType(location, adaptor.getBias().getType(), elementType, "bias")))
    return failure();
  auto channels = channelCount(location, inputType, 3);
  if (failed(channels))
    return failure();
  if (failed(checkChannelVector(location, adaptor.getScale().getType(), *channels, "scale")) ||
      failed(checkChannelVector(location, adaptor.getBias().getType(), *channels, "bias")))
    return failure();
  inferred.push_back(inputType);
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax family
//===----------------------------------------------------------------------===//

/// The input's type, after checking that `axis` is one of its dimensions.
static LogicalResult inferAxisOpType(std::optional<Location> location, Value input, int64_t axis,
                                     SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(input.getType());
  if (inputType.hasRank() && failed(normalizeAxis(location, axis, inputType.getRank())))
    return failure();
  inferred.push_back(inputType);
  return success();
}

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                          Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferAxisOpType(location, adaptor.getInput(), adaptor.getAxis(), inferred);
}

LogicalResult LogSoftmaxOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                             Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferAxisOpType(location, adaptor.getInput(), adaptor.getAxis(), inferred);
}

//===----------------------------------------------------------------------===//
// ConvTransposeOp
//===----------------------------------------------------------------------===//

LogicalResult ConvTransposeOp::inferReturnTypes(MLIRContext *context,
                                                std::optional<Location> location, Adaptor adaptor,
                                                SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto weightType = cast<TensorType>(adaptor.getWeight().getType());
  Type elementType = inputType.getElementType();
  if (failed(checkElementType(location, weightType, elementType, "weight")))
    return failure();

  std::optional<int64_t> rank;
  if (inputType.hasRank())
    rank = inputType.getRank();
  if (weightType.hasRank()) {
    if (rank && *rank != weightType.getRank())
      return emitOptionalError(location, "input rank ", *rank, " differs from weight rank ",
                               weightType.getRank());
    rank = weightType.getRank();
  }
  if (rank && *rank < 3)
    return emitOptionalError(location, "expects rank 3 or more ([N, C, spatial...]), got ", *rank);

  ArrayRef<int64_t> strides = adaptor.getStrides(), dilations = adaptor.getDilations(),
                    pads = adaptor.getPads(), outputPadding = adaptor.getOutputPadding();
  int64_t spatialRank = strides.size();
  if (rank && spatialRank != *rank - 2)
    return emitOptionalError(location, "expects ", *rank - 2, " strides, got ", spatialRank);
  if (int64_t(dilations.size()) != spatialRank)
    return emitOptionalError(location, "expects ", spatialRank, " dilations, got ",
                             dilations.size());
  if (int64_t(outputPadding.size()) != spatialRank)
    return emitOptionalError(location, "expects ", spatialRank, " output_padding extents, got ",
                             outputPadding.size());
  if (int64_t(pads.size()) != 2 * spatialRank)
    return emitOptionalError(location, "expects ", 2 * spatialRank,
                             " pads (all beginnings, then all ends), got ", pads.size());
  if (llvm::any_of(strides, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(dilations, [](int64_t d) { return d < 1; }))
    return emitOptionalError(location, "strides and dilations must be positive");
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }) ||
      llvm::any_of(outputPadding, [](int64_t p) { return p < 0; }))
    return emitOptionalError(location, "pads and output_padding must not be negative");

  // The weight is [C, M / group, K...]: its first dimension is the input channels.
  int64_t group = adaptor.getGroup();
  int64_t outChannels = ShapedType::kDynamic;
  if (weightType.hasRank()) {
    int64_t inChannels = weightType.getDimSize(0);
    if (!ShapedType::isDynamic(inChannels) && inChannels % group != 0)
      return emitOptionalError(location, "weight input channels (", inChannels,
                               ") are not divisible by group (", group, ")");
    if (inputType.hasRank() && failed(verifyCompatibleDims({inputType.getDimSize(1), inChannels})))
      return emitOptionalError(location, "input channels (", inputType.getDimSize(1),
                               ") differ from weight input channels (", inChannels, ")");
    if (!ShapedType::isDynamic(weightType.getDimSize(1)))
      outChannels = weightType.getDimSize(1) * group;
  }
  if (Value bias = adaptor.getBias()) {
    if (failed(checkElementType(location, bias.getType(), elementType, "bias")) ||
        failed(checkChannelVector(location, bias.getType(), outChannels, "bias")))
      return failure();
  }

  if (!rank) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  SmallVector<int64_t> shape(*rank, ShapedType::kDynamic);
  if (inputType.hasRank())
    shape[0] = inputType.getDimSize(0);
  shape[1] = outChannels;
  for (int64_t i = 0; i < spatialRank; ++i) {
    int64_t in = inputType.hasRank() ? inputType.getDimSize(i + 2) : ShapedType::kDynamic;
    int64_t kernel = weightType.hasRank() ? weightType.getDimSize(i + 2) : ShapedType::kDynamic;
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel))
      continue;
    int64_t extent = strides[i] * (in - 1) + outputPadding[i] + dilations[i] * (kernel - 1) + 1 -
                     pads[i] - pads[i + spatialRank];
    if (extent < 1)
      return emitOptionalError(location, "spatial dimension ", i, ": the pads (", pads[i], ", ",
                               pads[i + spatialRank], ") leave no output");
    shape[i + 2] = extent;
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// Lp pooling
//===----------------------------------------------------------------------===//

LogicalResult LpPoolOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                         Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferWindowedPoolTypes(location, adaptor.getInput(), adaptor.getKernelShape(),
                                adaptor.getStrides(), adaptor.getDilations(), adaptor.getPads(),
                                adaptor.getCeilMode(), adaptor.getChannelsLast(), {}, inferred);
}

LogicalResult GlobalLpPoolOp::inferReturnTypes(MLIRContext *context,
                                               std::optional<Location> location, Adaptor adaptor,
                                               SmallVectorImpl<Type> &inferred) {
  return inferGlobalPoolType(location, adaptor.getInput(), inferred);
}

//===----------------------------------------------------------------------===//
// More normalisation
//===----------------------------------------------------------------------===//

LogicalResult HardmaxOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                          Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferAxisOpType(location, adaptor.getInput(), adaptor.getAxis(), inferred);
}

LogicalResult LRNOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                      Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  if (!isa<FloatType>(inputType.getElementType()))
    return emitOptionalError(location, "expects a floating-point input, got ",
                             inputType.getElementType());
  if (failed(channelCount(location, inputType, 2)))
    return failure();
  inferred.push_back(inputType);
  return success();
}

LogicalResult MeanVarianceNormalizationOp::inferReturnTypes(MLIRContext *context,
                                                            std::optional<Location> location,
                                                            Adaptor adaptor,
                                                            SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  if (!isa<FloatType>(inputType.getElementType()))
    return emitOptionalError(location, "expects a floating-point input, got ",
                             inputType.getElementType());
  if (inputType.hasRank()) {
    int64_t rank = inputType.getRank();
    llvm::SmallDenseSet<int64_t> seen;
    for (int64_t axis : adaptor.getAxes()) {
      auto normalized = normalizeAxis(location, axis, rank);
      if (failed(normalized))
        return failure();
      if (!seen.insert(*normalized).second)
        return emitOptionalError(location, "axis ", axis, " is repeated");
    }
  }
  inferred.push_back(inputType);
  return success();
}

LogicalResult GroupNormalizationOp::inferReturnTypes(MLIRContext *context,
                                                     std::optional<Location> location,
                                                     Adaptor adaptor,
                                                     SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  if (failed(checkElementType(location, adaptor.getScale().getType(), elementType, "scale")) ||
      failed(checkElementType(location, adaptor.getBias().getType(), elementType, "bias")))
    return failure();
  auto channels = channelCount(location, inputType, 2);
  if (failed(channels))
    return failure();
  int64_t groups = adaptor.getNumGroups();
  if (!ShapedType::isDynamic(*channels) && *channels % groups != 0)
    return emitOptionalError(location, "channels (", *channels,
                             ") are not divisible by num_groups (", groups, ")");
  if (failed(checkChannelVector(location, adaptor.getScale().getType(), *channels, "scale")) ||
      failed(checkChannelVector(location, adaptor.getBias().getType(), *channels, "bias")))
    return failure();
  inferred.push_back(inputType);
  return success();
}

LogicalResult LpNormalizationOp::inferReturnTypes(MLIRContext *context,
                                                  std::optional<Location> location, Adaptor adaptor,
                                                  SmallVectorImpl<Type> &inferred) {
  return inferAxisOpType(location, adaptor.getInput(), adaptor.getAxis(), inferred);
}

//===----------------------------------------------------------------------===//
// EinsumOp
//===----------------------------------------------------------------------===//

namespace {
/// One term of an Einsum equation: its letters, and where the ellipsis stands among them
/// (nullopt without one).
struct EinsumTerm {
  std::string letters;
  std::optional<size_t> ellipsisAt;
};
} // namespace

/// Parses one comma-separated term (spaces already removed).
static FailureOr<EinsumTerm> parseEinsumTerm(std::optional<Location> location, StringRef text) {
  EinsumTerm term;
  for (size_t i = 0; i < text.size();) {
    if (text.substr(i).starts_with("...")) {
      if (term.ellipsisAt)
        return emitOptionalError(location, "equation term '", text, "' has two ellipses");
      term.ellipsisAt = term.letters.size();
      i += 3;
      continue;
    }
    if (!llvm::isAlpha(text[i]))
      return emitOptionalError(location, "equation term '", text, "' has '", text.substr(i, 1),
                               "', expected letters and '...'");
    term.letters.push_back(text[i++]);
  }
  return term;
}

LogicalResult EinsumOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                         Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(location, "expects at least one operand");
  Type elementType = getElementTypeOrSelf(inputs.front().getType());
  for (Value input : inputs.drop_front())
    if (failed(checkElementType(location, input.getType(), elementType, "operand")))
      return failure();

  std::string equation;
  for (char c : adaptor.getEquation())
    if (!llvm::isSpace(c))
      equation.push_back(c);
  StringRef lhs = equation, rhs;
  bool explicitOutput = false;
  if (size_t arrow = lhs.find("->"); arrow != StringRef::npos) {
    rhs = lhs.substr(arrow + 2);
    lhs = lhs.substr(0, arrow);
    explicitOutput = true;
  }
  SmallVector<StringRef> termTexts;
  lhs.split(termTexts, ',');
  if (termTexts.size() != inputs.size())
    return emitOptionalError(location, "equation has ", termTexts.size(), " input terms for ",
                             inputs.size(), " operands");

  // Extents of each letter and the broadcast shape of the ellipsis dimensions, as far as
  // the operands tell them.
  std::map<char, int64_t> letterExtents;
  std::map<char, int> letterCounts;
  std::optional<SmallVector<int64_t>> ellipsisShape = SmallVector<int64_t>();
  bool anyEllipsis = false;
  for (auto [text, input] : llvm::zip(termTexts, inputs)) {
    auto term = parseEinsumTerm(location, text);
    if (failed(term))
      return failure();
    for (char letter : term->letters) {
      ++letterCounts[letter];
      letterExtents.try_emplace(letter, ShapedType::kDynamic);
    }
    anyEllipsis |= term->ellipsisAt.has_value();
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type) {
      if (term->ellipsisAt)
        ellipsisShape.reset();
      continue;
    }
    int64_t numLetters = term->letters.size();
    if (term->ellipsisAt ? type.getRank() < numLetters : type.getRank() != numLetters)
      return emitOptionalError(location, "equation term '", text,
                               "' does not fit an operand of rank ", type.getRank());
    int64_t ellipsisRank = type.getRank() - numLetters;
    size_t ellipsisAt = term->ellipsisAt.value_or(numLetters);
    for (auto [index, letter] : llvm::enumerate(term->letters)) {
      int64_t dim = index < ellipsisAt ? index : index + ellipsisRank;
      int64_t extent = type.getDimSize(dim);
      int64_t &known = letterExtents[letter];
      if (failed(verifyCompatibleDims({known, extent})))
        return emitOptionalError(location, "letter '", StringRef(&letter, 1), "' stands for both ",
                                 known, " and ", extent);
      if (!ShapedType::isDynamic(extent))
        known = extent;
    }
    if (term->ellipsisAt && ellipsisShape) {
      auto dims = type.getShape().slice(ellipsisAt, ellipsisRank);
      auto broadcast = broadcastShapes(*ellipsisShape, dims);
      if (!broadcast)
        return emitOptionalError(location,
                                 "ellipsis dimensions: ", llvm::toString(broadcast.takeError()));
      ellipsisShape = *broadcast;
    }
  }

  EinsumTerm output;
  if (explicitOutput) {
    auto term = parseEinsumTerm(location, rhs);
    if (failed(term))
      return failure();
    output = *term;
    llvm::SmallDenseSet<char> seen;
    for (char letter : output.letters) {
      if (!letterCounts.count(letter))
        return emitOptionalError(location, "output letter '", StringRef(&letter, 1),
                                 "' is not in any input term");
      if (!seen.insert(letter).second)
        return emitOptionalError(location, "output letter '", StringRef(&letter, 1),
                                 "' is repeated");
    }
    if (output.ellipsisAt && !anyEllipsis)
      return emitOptionalError(location, "output has an ellipsis that no input term has");
  } else {
    // Implicit output: the ellipsis dimensions, then the letters used once, sorted.
    if (anyEllipsis)
      output.ellipsisAt = 0;
    for (auto [letter, count] : letterCounts)
      if (count == 1)
        output.letters.push_back(letter);
  }

  if (output.ellipsisAt && !ellipsisShape) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  SmallVector<int64_t> shape;
  for (auto [index, letter] : llvm::enumerate(output.letters)) {
    if (output.ellipsisAt == index)
      shape.append(*ellipsisShape);
    shape.push_back(letterExtents[letter]);
  }
  if (output.ellipsisAt == output.letters.size())
    shape.append(*ellipsisShape);
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// DetOp
//===----------------------------------------------------------------------===//

LogicalResult DetOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                      Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  if (!isa<FloatType>(elementType))
    return emitOptionalError(location, "expects a floating-point input, got ", elementType);
  if (!inputType.hasRank()) {
    inferred.push_back(inputType);
    return success();
  }
  int64_t rank = inputType.getRank();
  if (rank < 2)
    return emitOptionalError(location, "expects rank 2 or more ([*, M, M]), got ", rank);
  if (failed(
          verifyCompatibleDims({inputType.getDimSize(rank - 2), inputType.getDimSize(rank - 1)})))
    return emitOptionalError(location, "expects square matrices, got ",
                             shapeString(inputType.getShape().take_back(2)));
  inferred.push_back(RankedTensorType::get(inputType.getShape().drop_back(2), elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// ResizeOp
//===----------------------------------------------------------------------===//

/// Fails unless `value` is one of `allowed`; `name` names the attribute.
static LogicalResult checkOneOf(std::optional<Location> location, StringRef name, StringRef value,
                                ArrayRef<StringRef> allowed) {
  if (llvm::is_contained(allowed, value))
    return success();
  return emitOptionalError(location, name, " '", value, "' is not one of ",
                           llvm::join(allowed, ", "));
}

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                         Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  StringRef transform = adaptor.getCoordinateTransformationMode();
  StringRef policy = adaptor.getKeepAspectRatioPolicy();
  if (failed(checkOneOf(location, "mode", adaptor.getMode(), {"nearest", "linear", "cubic"})) ||
      failed(checkOneOf(location, "coordinate_transformation_mode", transform,
                        {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                         "align_corners", "asymmetric", "tf_crop_and_resize"})) ||
      failed(checkOneOf(location, "nearest_mode", adaptor.getNearestMode(),
                        {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})) ||
      failed(checkOneOf(location, "keep_aspect_ratio_policy", policy,
                        {"stretch", "not_larger", "not_smaller"})))
    return failure();
  Value scales = adaptor.getScales(), sizes = adaptor.getSizes(), roi = adaptor.getRoi();
  if (bool(scales) == bool(sizes))
    return emitOptionalError(location, "expects exactly one of scales and sizes");
  if (scales && !isa<FloatType>(getElementTypeOrSelf(scales.getType())))
    return emitOptionalError(location, "scales must be floating-point");
  if (sizes && !getElementTypeOrSelf(sizes.getType()).isInteger(64))
    return emitOptionalError(location, "sizes must be i64");
  if (roi && !isa<FloatType>(getElementTypeOrSelf(roi.getType())))
    return emitOptionalError(location, "roi must be floating-point");

  if (!inputType.hasRank()) {
    inferred.push_back(inputType);
    return success();
  }
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> axes;
  if (auto axesAttr = adaptor.getAxes()) {
    for (int64_t axis : *axesAttr) {
      auto normalized = normalizeAxis(location, axis, rank);
      if (failed(normalized))
        return failure();
      if (llvm::is_contained(axes, *normalized))
        return emitOptionalError(location, "axis ", axis, " is repeated");
      axes.push_back(*normalized);
    }
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  int64_t numAxes = axes.size();
  Value factors = scales ? scales : sizes;
  if (auto factorsType = dyn_cast<RankedTensorType>(factors.getType())) {
    if (factorsType.getRank() != 1 ||
        failed(verifyCompatibleDims({factorsType.getDimSize(0), numAxes})))
      return emitOptionalError(location, scales ? "scales" : "sizes", " must have ", numAxes,
                               " elements (one per resized axis), got type ", factorsType);
  }
  if (auto roiType = dyn_cast_or_null<RankedTensorType>(roi ? roi.getType() : Type()))
    if (roiType.getRank() != 1 ||
        failed(verifyCompatibleDims({roiType.getDimSize(0), 2 * numAxes})))
      return emitOptionalError(location, "roi must have ", 2 * numAxes,
                               " elements (starts, then ends), got type ", roiType);

  SmallVector<int64_t> shape(inputType.getShape());
  for (int64_t axis : axes)
    shape[axis] = ShapedType::kDynamic;
  if (sizes) {
    if (auto values = getConstantInts(sizes)) {
      if (llvm::any_of(*values, [](int64_t size) { return size < 1; }))
        return emitOptionalError(location, "sizes must be positive");
      if (policy == "stretch") {
        for (auto [axis, size] : llvm::zip(axes, *values))
          shape[axis] = size;
      } else if (llvm::none_of(axes, [&](int64_t axis) {
                   return ShapedType::isDynamic(inputType.getDimSize(axis));
                 })) {
        // One scale for all axes keeps the aspect ratio: the largest that fits (not_larger)
        // or the smallest that covers (not_smaller) the requested sizes.
        std::optional<double> scale;
        for (auto [axis, size] : llvm::zip(axes, *values)) {
          double axisScale = double(size) / double(inputType.getDimSize(axis));
          if (!scale || (policy == "not_larger" ? axisScale < *scale : axisScale > *scale))
            scale = axisScale;
        }
        for (int64_t axis : axes)
          shape[axis] = int64_t(std::floor(*scale * double(inputType.getDimSize(axis)) + 0.5));
      }
    }
  } else if (auto values = getConstantFloats(scales)) {
    if (llvm::any_of(*values, [](double scale) { return scale <= 0; }))
      return emitOptionalError(location, "scales must be positive");
    // With tf_crop_and_resize the output covers the roi's part of each axis.
    std::optional<SmallVector<double>> roiValues;
    if (transform == "tf_crop_and_resize")
      roiValues = getConstantFloats(roi);
    for (auto [index, axis] : llvm::enumerate(axes)) {
      int64_t in = inputType.getDimSize(axis);
      if (ShapedType::isDynamic(in))
        continue;
      // ONNX computes the extent in single precision.
      float extent = float(in) * float((*values)[index]);
      if (transform == "tf_crop_and_resize") {
        if (!roiValues)
          continue;
        extent = float(in) * float((*roiValues)[index + numAxes] - (*roiValues)[index]) *
                 float((*values)[index]);
      }
      shape[axis] = int64_t(std::floor(extent));
    }
  }
  inferred.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// GridSampleOp
//===----------------------------------------------------------------------===//

LogicalResult GridSampleOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                             Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto gridType = cast<TensorType>(adaptor.getGrid().getType());
  if (failed(checkOneOf(location, "mode", adaptor.getMode(), {"linear", "nearest", "cubic"})) ||
      failed(checkOneOf(location, "padding_mode", adaptor.getPaddingMode(),
                        {"zeros", "border", "reflection"})))
    return failure();
  if (!isa<FloatType>(gridType.getElementType()))
    return emitOptionalError(location, "grid must be floating-point");

  std::optional<int64_t> rank;
  if (inputType.hasRank())
    rank = inputType.getRank();
  if (gridType.hasRank()) {
    if (rank && *rank != gridType.getRank())
      return emitOptionalError(location, "input rank ", *rank, " differs from grid rank ",
                               gridType.getRank());
    rank = gridType.getRank();
  }
  if (!rank) {
    inferred.push_back(UnrankedTensorType::get(inputType.getElementType()));
    return success();
  }
  if (*rank < 3)
    return emitOptionalError(location, "expects rank 3 or more ([N, C, spatial...]), got ", *rank);
  SmallVector<int64_t> shape(*rank, ShapedType::kDynamic);
  if (inputType.hasRank()) {
    shape[0] = inputType.getDimSize(0);
    shape[1] = inputType.getDimSize(1);
  }
  if (gridType.hasRank()) {
    if (failed(verifyCompatibleDims({shape[0], gridType.getDimSize(0)})))
      return emitOptionalError(location, "grid batch (", gridType.getDimSize(0),
                               ") differs from input batch (", shape[0], ")");
    if (failed(verifyCompatibleDims({gridType.getDimSize(*rank - 1), *rank - 2})))
      return emitOptionalError(location, "grid's last dimension must be ", *rank - 2,
                               " (one coordinate per spatial dimension), got ",
                               gridType.getDimSize(*rank - 1));
    if (ShapedType::isDynamic(shape[0]))
      shape[0] = gridType.getDimSize(0);
    for (int64_t i = 1; i < *rank - 1; ++i)
      shape[i + 1] = gridType.getDimSize(i);
  }
  inferred.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// RoiAlignOp
//===----------------------------------------------------------------------===//

LogicalResult RoiAlignOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                           Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto roisType = cast<TensorType>(adaptor.getRois().getType());
  auto indicesType = cast<TensorType>(adaptor.getBatchIndices().getType());
  Type elementType = inputType.getElementType();
  if (failed(checkOneOf(location, "mode", adaptor.getMode(), {"avg", "max"})) ||
      failed(checkOneOf(location, "coordinate_transformation_mode",
                        adaptor.getCoordinateTransformationMode(),
                        {"half_pixel", "output_half_pixel"})) ||
      failed(checkElementType(location, roisType, elementType, "rois")))
    return failure();
  if (!indicesType.getElementType().isInteger(64))
    return emitOptionalError(location, "batch_indices must be i64, got ",
                             indicesType.getElementType());
  if (inputType.hasRank() && inputType.getRank() != 4)
    return emitOptionalError(location, "expects an input of rank 4 ([N, C, H, W]), got ",
                             inputType.getRank());
  int64_t numRois = ShapedType::kDynamic;
  if (roisType.hasRank()) {
    if (roisType.getRank() != 2 || failed(verifyCompatibleDims({roisType.getDimSize(1), 4})))
      return emitOptionalError(location, "rois must be [num_rois, 4], got ",
                               shapeString(roisType.getShape()));
    numRois = roisType.getDimSize(0);
  }
  if (indicesType.hasRank()) {
    if (indicesType.getRank() != 1 ||
        failed(verifyCompatibleDims({indicesType.getDimSize(0), numRois})))
      return emitOptionalError(location, "batch_indices must be ", shapeString({numRois}),
                               " (one per roi), got ", shapeString(indicesType.getShape()));
    if (ShapedType::isDynamic(numRois))
      numRois = indicesType.getDimSize(0);
  }
  int64_t channels = inputType.hasRank() ? inputType.getDimSize(1) : ShapedType::kDynamic;
  inferred.push_back(RankedTensorType::get(
      {numRois, channels, int64_t(adaptor.getOutputHeight()), int64_t(adaptor.getOutputWidth())},
      elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// MaxUnpoolOp
//===----------------------------------------------------------------------===//

LogicalResult MaxUnpoolOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                            Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto indicesType = cast<TensorType>(adaptor.getIndices().getType());
  Type elementType = inputType.getElementType();
  if (!isa<FloatType>(elementType))
    return emitOptionalError(location, "input must have a float element type, got ", elementType);
  if (!indicesType.getElementType().isInteger(64))
    return emitOptionalError(location, "indices must be i64, got ", indicesType.getElementType());

  ArrayRef<int64_t> kernel = adaptor.getKernelShape(), strides = adaptor.getStrides(),
                    pads = adaptor.getPads();
  int64_t spatialRank = kernel.size();
  int64_t rank = spatialRank + 2;
  if (spatialRank == 0)
    return emitOptionalError(location, "kernel_shape must not be empty");
  if (int64_t(strides.size()) != spatialRank)
    return emitOptionalError(location, "expects ", spatialRank, " strides, got ", strides.size());
  if (int64_t(pads.size()) != 2 * spatialRank)
    return emitOptionalError(location, "expects ", 2 * spatialRank,
                             " pads (all beginnings, then all ends), got ", pads.size());
  if (llvm::any_of(kernel, [](int64_t k) { return k < 1; }) ||
      llvm::any_of(strides, [](int64_t s) { return s < 1; }))
    return emitOptionalError(location, "kernel_shape and strides must be positive");
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return emitOptionalError(location, "pads must not be negative");

  // The input and the indices share one shape; take what either knows.
  SmallVector<int64_t> inputShape(rank, ShapedType::kDynamic);
  for (TensorType type : {inputType, indicesType}) {
    if (!type.hasRank())
      continue;
    if (type.getRank() != rank)
      return emitOptionalError(location, "expects input and indices of rank ", rank, " for a ",
                               spatialRank, "-D kernel_shape, got ", shapeString(type.getShape()));
    for (int64_t i = 0; i < rank; ++i) {
      int64_t extent = type.getDimSize(i);
      if (failed(verifyCompatibleDims({inputShape[i], extent})))
        return emitOptionalError(location, "indices shape ", shapeString(indicesType.getShape()),
                                 " differs from input shape ", shapeString(inputType.getShape()));
      if (!ShapedType::isDynamic(extent))
        inputShape[i] = extent;
    }
  }

  SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
  shape[0] = inputShape[0];
  shape[1] = inputShape[1];
  if (Value outputShape = adaptor.getOutputShape()) {
    auto outputShapeType = cast<TensorType>(outputShape.getType());
    if (!outputShapeType.getElementType().isInteger(64))
      return emitOptionalError(location, "output_shape must be i64, got ",
                               outputShapeType.getElementType());
    if (outputShapeType.hasRank() &&
        (outputShapeType.getRank() != 1 ||
         failed(verifyCompatibleDims({outputShapeType.getDimSize(0), rank}))))
      return emitOptionalError(location, "output_shape must be a 1-D tensor of ", rank,
                               " extents, got ", outputShapeType);
    // The type check above makes a constant hold `rank` extents.
    if (auto values = getConstantInts(outputShape); values && int64_t(values->size()) == rank) {
      for (int64_t i = 0; i < rank; ++i) {
        if ((*values)[i] < 0)
          return emitOptionalError(location, "output_shape extents must not be negative");
        if (i < 2 && failed(verifyCompatibleDims({(*values)[i], inputShape[i]})))
          return emitOptionalError(location, "output_shape ", shapeString(*values),
                                   " changes the batch or channel extent of input shape ",
                                   shapeString(inputShape));
        shape[i] = (*values)[i];
      }
    }
  } else {
    for (int64_t i = 0; i < spatialRank; ++i) {
      int64_t in = inputShape[i + 2];
      if (ShapedType::isDynamic(in))
        continue;
      int64_t extent = (in - 1) * strides[i] + kernel[i] - pads[i] - pads[i + spatialRank];
      if (extent < 1)
        return emitOptionalError(location, "spatial dimension ", i, ": pads ", pads[i], " and ",
                                 pads[i + spatialRank], " leave no output of input extent ", in);
      shape[i + 2] = extent;
    }
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// NonMaxSuppressionOp
//===----------------------------------------------------------------------===//

/// Fails unless the optional operand `value` is a scalar (or a one-element 1-D tensor, as
/// exporters often write) of element type `expected`.
static LogicalResult checkScalarOperand(std::optional<Location> location, Value value,
                                        Type expected, StringRef what) {
  if (!value)
    return success();
  auto type = cast<TensorType>(value.getType());
  if (type.getElementType() != expected)
    return emitOptionalError(location, what, " must be a scalar of ", expected, ", got ", type);
  if (type.hasRank() && type.getRank() != 0 &&
      (type.getRank() != 1 || failed(verifyCompatibleDims({type.getDimSize(0), 1}))))
    return emitOptionalError(location, what, " must be a scalar, got ", type);
  return success();
}

LogicalResult NonMaxSuppressionOp::inferReturnTypes(MLIRContext *context,
                                                    std::optional<Location> location,
                                                    Adaptor adaptor,
                                                    SmallVectorImpl<Type> &inferred) {
  auto boxesType = cast<TensorType>(adaptor.getBoxes().getType());
  auto scoresType = cast<TensorType>(adaptor.getScores().getType());
  Builder b(context);
  // ONNX defines NonMaxSuppression for f32 boxes and scores only.
  if (!boxesType.getElementType().isF32())
    return emitOptionalError(location, "boxes must be f32, got ", boxesType.getElementType());
  if (!scoresType.getElementType().isF32())
    return emitOptionalError(location, "scores must be f32, got ", scoresType.getElementType());
  if (failed(checkScalarOperand(location, adaptor.getMaxOutputBoxesPerClass(), b.getI64Type(),
                                "max_output_boxes_per_class")) ||
      failed(checkScalarOperand(location, adaptor.getIouThreshold(), b.getF32Type(),
                                "iou_threshold")) ||
      failed(checkScalarOperand(location, adaptor.getScoreThreshold(), b.getF32Type(),
                                "score_threshold")))
    return failure();
  if (boxesType.hasRank() &&
      (boxesType.getRank() != 3 || failed(verifyCompatibleDims({boxesType.getDimSize(2), 4}))))
    return emitOptionalError(location, "boxes must be [num_batches, spatial_dimension, 4], got ",
                             shapeString(boxesType.getShape()));
  if (scoresType.hasRank() && scoresType.getRank() != 3)
    return emitOptionalError(location,
                             "scores must be [num_batches, num_classes, spatial_dimension], got ",
                             shapeString(scoresType.getShape()));
  if (boxesType.hasRank() && scoresType.hasRank() &&
      (failed(verifyCompatibleDims({boxesType.getDimSize(0), scoresType.getDimSize(0)})) ||
       failed(verifyCompatibleDims({boxesType.getDimSize(1), scoresType.getDimSize(2)}))))
    return emitOptionalError(location, "scores ", shapeString(scoresType.getShape()),
                             " do not match boxes ", shapeString(boxesType.getShape()),
                             " in batches or boxes");
  // How many boxes survive depends on the data.
  inferred.push_back(RankedTensorType::get({ShapedType::kDynamic, 3}, b.getI64Type()));
  return success();
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

namespace {
/// The operands of a loss as its shape rule sees them, with the names its op gives them
/// (NegativeLogLikelihoodLoss's input/target/weight, SoftmaxCrossEntropyLoss's
/// scores/labels/weights) so that messages use the user's words.
struct LossOperands {
  Value input, target, weight;
  StringRef inputName, targetName, weightName;
};

/// What the operands of a loss say about its shapes.
struct LossShapes {
  /// [N, d1, ..., dk], static wherever the input or the target knows the extent; nullopt
  /// when both are unranked.
  std::optional<SmallVector<int64_t>> perElement;
  /// C, dynamic when unknown.
  int64_t classes = ShapedType::kDynamic;
};
} // namespace

/// The shape rule shared by both losses: checks `reduction`, the element types, and that
/// `input` [N, C, d1, ..., dk], `target` [N, d1, ..., dk] and the optional `weight` [C]
/// agree.
static FailureOr<LossShapes> checkLossOperands(std::optional<Location> location,
                                               const LossOperands &operands, StringRef reduction) {
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return emitOptionalError(location, "reduction must be none, sum or mean, got '", reduction,
                             "'");
  auto inputType = cast<TensorType>(operands.input.getType());
  auto targetType = cast<TensorType>(operands.target.getType());
  Type elementType = inputType.getElementType();
  if (!isa<FloatType>(elementType))
    return emitOptionalError(location, operands.inputName,
                             " must have a floating-point element type, got ", elementType);
  if (!targetType.getElementType().isSignlessInteger(32) &&
      !targetType.getElementType().isSignlessInteger(64))
    return emitOptionalError(location, operands.targetName,
                             " element type must be i32 or i64, got ", targetType.getElementType());

  LossShapes shapes;
  if (inputType.hasRank()) {
    if (inputType.getRank() < 2)
      return emitOptionalError(location, operands.inputName,
                               " must have rank 2 or more ([N, C, d1, ..., dk]), got ",
                               inputType.getRank());
    ArrayRef<int64_t> shape = inputType.getShape();
    shapes.classes = shape[1];
    shapes.perElement.emplace();
    shapes.perElement->push_back(shape[0]);
    shapes.perElement->append(shape.begin() + 2, shape.end());
  }
  if (targetType.hasRank()) {
    ArrayRef<int64_t> targetShape = targetType.getShape();
    if (!shapes.perElement) {
      if (targetShape.empty())
        return emitOptionalError(location, operands.targetName,
                                 " must have rank 1 or more ([N, d1, ..., dk]), got 0");
      shapes.perElement.emplace(targetShape);
    } else if (targetShape.size() != shapes.perElement->size()) {
      return emitOptionalError(location, operands.targetName, " must have rank ",
                               shapes.perElement->size(), " (", operands.inputName,
                               " rank minus 1), got ", targetShape.size());
    } else {
      for (auto [extent, targetExtent] : llvm::zip(*shapes.perElement, targetShape)) {
        if (failed(verifyCompatibleDims({extent, targetExtent})))
          return emitOptionalError(location, operands.targetName, " of shape ",
                                   shapeString(targetShape), " does not match ", operands.inputName,
                                   " of shape ", shapeString(inputType.getShape()),
                                   " ([N, d1, ..., dk] for [N, C, d1, ..., dk])");
        if (ShapedType::isDynamic(extent))
          extent = targetExtent;
      }
    }
  }

  if (Value weight = operands.weight) {
    auto weightType = cast<TensorType>(weight.getType());
    if (weightType.getElementType() != elementType)
      return emitOptionalError(location, operands.weightName, " element type ",
                               weightType.getElementType(), " differs from ", operands.inputName,
                               " element type ", elementType);
    if (weightType.hasRank()) {
      if (weightType.getRank() != 1)
        return emitOptionalError(location, operands.weightName, " must have rank 1 ([C]), got ",
                                 weightType.getRank());
      if (failed(verifyCompatibleDims({weightType.getDimSize(0), shapes.classes})))
        return emitOptionalError(location, operands.weightName, " has ", weightType.getDimSize(0),
                                 " elements for ", shapes.classes, " classes");
      if (ShapedType::isDynamic(shapes.classes))
        shapes.classes = weightType.getDimSize(0);
    }
  }
  return shapes;
}

/// The loss: [N, d1, ..., dk] for reduction "none", a scalar otherwise.
static Type lossType(const LossShapes &shapes, StringRef reduction, Type elementType) {
  if (reduction != "none")
    return RankedTensorType::get({}, elementType);
  if (!shapes.perElement)
    return UnrankedTensorType::get(elementType);
  return RankedTensorType::get(*shapes.perElement, elementType);
}

LogicalResult NegativeLogLikelihoodLossOp::inferReturnTypes(MLIRContext *context,
                                                            std::optional<Location> location,
                                                            Adaptor adaptor,
                                                            SmallVectorImpl<Type> &inferred) {
  auto shapes = checkLossOperands(
      location,
      {adaptor.getInput(), adaptor.getTarget(), adaptor.getWeight(), "input", "target", "weight"},
      adaptor.getReduction());
  if (failed(shapes))
    return failure();
  inferred.push_back(lossType(*shapes, adaptor.getReduction(),
                              getElementTypeOrSelf(adaptor.getInput().getType())));
  return success();
}

LogicalResult SoftmaxCrossEntropyLossOp::inferReturnTypes(MLIRContext *context,
                                                          std::optional<Location> location,
                                                          Adaptor adaptor,
                                                          SmallVectorImpl<Type> &inferred) {
  auto shapes = checkLossOperands(location,
                                  {adaptor.getScores(), adaptor.getLabels(), adaptor.getWeights(),
                                   "scores", "labels", "weights"},
                                  adaptor.getReduction());
  if (failed(shapes))
    return failure();
  Type elementType = getElementTypeOrSelf(adaptor.getScores().getType());
  inferred.push_back(lossType(*shapes, adaptor.getReduction(), elementType));
  // log_prob, the log-softmax of the scores along C, has the scores' shape [N, C, d1, ..., dk],
  // which the labels and weights may refine.
  if (!shapes->perElement) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  SmallVector<int64_t> logProbShape(*shapes->perElement);
  logProbShape.insert(logProbShape.begin() + 1, shapes->classes);
  inferred.push_back(RankedTensorType::get(logProbShape, elementType));
  return success();
}
