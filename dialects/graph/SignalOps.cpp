//===- SignalOps.cpp - Signal processing ===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace kiln::graph;

static constexpr int64_t kDynamic = ShapedType::kDynamic;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Fails unless `value` is a scalar (or a one-element 1-D tensor, as exporters often
/// write) whose element type satisfies `isExpected`; `what` names the operand and
/// `expected` the element types it may have.
static LogicalResult checkScalarOperand(std::optional<Location> location, Value value,
                                        function_ref<bool(Type)> isExpected, StringRef what,
                                        StringRef expected) {
  auto type = cast<TensorType>(value.getType());
  if (!isExpected(type.getElementType()))
    return emitOptionalError(location, what, " must have ", expected, " element type, got ",
                             type.getElementType());
  if (type.hasRank() && type.getRank() != 0 &&
      (type.getRank() != 1 || failed(verifyCompatibleDims({type.getDimSize(0), 1}))))
    return emitOptionalError(location, what, " must be a scalar, got ", type);
  return success();
}

/// The element types ONNX allows for the signal ops' integer scalars (sizes, lengths).
static bool isI32OrI64(Type type) {
  return type.isSignlessInteger(32) || type.isSignlessInteger(64);
}

/// Checks that `value` is an i32 or i64 scalar; returns its value when it is a constant.
static FailureOr<std::optional<int64_t>> integerScalar(std::optional<Location> location,
                                                       Value value, StringRef what) {
  if (failed(checkScalarOperand(location, value, isI32OrI64, what, "i32 or i64")))
    return failure();
  if (auto values = getConstantInts(value); values && values->size() == 1)
    return std::optional<int64_t>((*values)[0]);
  return std::optional<int64_t>();
}

/// Checks the trailing real/complex dimension of a signal: its extent, 1 or 2, or dynamic.
static FailureOr<int64_t> checkComplexDimension(std::optional<Location> location,
                                                RankedTensorType type, StringRef what) {
  int64_t parts = type.getShape().back();
  if (!ShapedType::isDynamic(parts) && parts != 1 && parts != 2)
    return emitOptionalError(location, what,
                             " must end in a dimension of 1 (real) or 2 (complex), got ", type);
  return parts;
}

//===----------------------------------------------------------------------===//
// DFTOp
//===----------------------------------------------------------------------===//

LogicalResult DFTOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                      Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  if (!isa<FloatType>(elementType))
    return emitOptionalError(location, "input must have a float element type, got ", elementType);
  // A onesided spectrum is the output of a forward transform of a real signal, never of
  // an inverse one (ONNX rejects the combination).
  if (adaptor.getOnesided() && adaptor.getInverse())
    return emitOptionalError(location, "onesided and inverse cannot both be set");
  std::optional<int64_t> length;
  if (Value dftLength = adaptor.getDftLength()) {
    auto value = integerScalar(location, dftLength, "dft_length");
    if (failed(value))
      return failure();
    if (*value && **value < 1)
      return emitOptionalError(location, "dft_length must be positive, got ", **value);
    length = value->value_or(kDynamic);
  }
  auto rankedType = dyn_cast<RankedTensorType>(inputType);
  if (!rankedType) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  int64_t rank = rankedType.getRank();
  if (rank < 2)
    return emitOptionalError(location,
                             "expects an input of rank 2 or more ([batch, signal..., 1 or 2]), "
                             "got rank ",
                             rank);
  auto parts = checkComplexDimension(location, rankedType, "input");
  if (failed(parts))
    return failure();
  if (adaptor.getOnesided() && *parts == 2)
    return emitOptionalError(location, "onesided needs a real input (last dimension 1), got ",
                             rankedType);
  // The last dimension holds the real and imaginary parts and is never transformed.
  int64_t axis = adaptor.getAxis();
  if (axis < -rank || axis == -1 || axis > rank - 2)
    return emitOptionalError(location, "axis ", axis, " is out of range for rank ", rank,
                             " (a signal dimension, not the last one)");
  if (axis < 0)
    axis += rank;

  SmallVector<int64_t> shape(rankedType.getShape());
  int64_t extent = length.value_or(shape[axis]);
  if (adaptor.getOnesided() && !ShapedType::isDynamic(extent))
    extent = extent / 2 + 1;
  shape[axis] = extent;
  shape.back() = 2;
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// STFTOp
//===----------------------------------------------------------------------===//

LogicalResult STFTOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                       Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto signalType = cast<TensorType>(adaptor.getSignal().getType());
  Type elementType = signalType.getElementType();
  if (!isa<FloatType>(elementType))
    return emitOptionalError(location, "signal must have a float element type, got ", elementType);
  auto step = integerScalar(location, adaptor.getFrameStep(), "frame_step");
  if (failed(step))
    return failure();
  if (*step && **step < 1)
    return emitOptionalError(location, "frame_step must be positive, got ", **step);

  Value window = adaptor.getWindow(), frameLengthOperand = adaptor.getFrameLength();
  if (!window && !frameLengthOperand)
    return emitOptionalError(location, "needs a window or a frame_length");
  int64_t frameLength = kDynamic;
  if (frameLengthOperand) {
    auto value = integerScalar(location, frameLengthOperand, "frame_length");
    if (failed(value))
      return failure();
    if (*value && **value < 1)
      return emitOptionalError(location, "frame_length must be positive, got ", **value);
    frameLength = value->value_or(kDynamic);
  }
  if (window) {
    auto windowType = cast<TensorType>(window.getType());
    if (windowType.getElementType() != elementType)
      return emitOptionalError(location, "window element type ", windowType.getElementType(),
                               " differs from signal element type ", elementType);
    if (windowType.hasRank()) {
      if (windowType.getRank() != 1)
        return emitOptionalError(location, "window must be 1-D, got ", windowType);
      int64_t windowLength = windowType.getDimSize(0);
      if (failed(verifyCompatibleDims({windowLength, frameLength})))
        return emitOptionalError(location, "window has ", windowLength,
                                 " elements for a frame_length of ", frameLength);
      if (ShapedType::isDynamic(frameLength))
        frameLength = windowLength;
    }
  }

  int64_t batch = kDynamic, signalLength = kDynamic;
  if (auto rankedType = dyn_cast<RankedTensorType>(signalType)) {
    if (rankedType.getRank() != 3)
      return emitOptionalError(location, "signal must be [batch, signal_length, 1 or 2], got rank ",
                               rankedType.getRank());
    auto parts = checkComplexDimension(location, rankedType, "signal");
    if (failed(parts))
      return failure();
    if (adaptor.getOnesided() && *parts == 2)
      return emitOptionalError(location, "onesided needs a real signal (last dimension 1), got ",
                               rankedType);
    batch = rankedType.getDimSize(0);
    signalLength = rankedType.getDimSize(1);
  }
  int64_t frames = kDynamic;
  if (!ShapedType::isDynamic(signalLength) && !ShapedType::isDynamic(frameLength)) {
    if (frameLength > signalLength)
      return emitOptionalError(location, "frame_length ", frameLength,
                               " is longer than the signal (", signalLength, ")");
    if (*step)
      frames = (signalLength - frameLength) / **step + 1;
  }
  int64_t bins = frameLength;
  if (adaptor.getOnesided() && !ShapedType::isDynamic(frameLength))
    bins = frameLength / 2 + 1;
  inferred.push_back(RankedTensorType::get({batch, frames, bins, 2}, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// Window functions
//===----------------------------------------------------------------------===//

static bool isNumeric(Type type) {
  return isa<FloatType>(type) || (isa<IntegerType>(type) && !type.isInteger(1));
}

/// The `[size]` tensor of `elementType` that a window op produces.
static LogicalResult inferWindowType(std::optional<Location> location, Value size, Type elementType,
                                     SmallVectorImpl<Type> &inferred) {
  if (!isNumeric(elementType))
    return emitOptionalError(location, "output_datatype must be a numeric type, got ", elementType);
  auto value = integerScalar(location, size, "size");
  if (failed(value))
    return failure();
  if (*value && **value < 0)
    return emitOptionalError(location, "size must not be negative, got ", **value);
  inferred.push_back(RankedTensorType::get({value->value_or(kDynamic)}, elementType));
  return success();
}

LogicalResult HannWindowOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                             Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferWindowType(location, adaptor.getSize(), adaptor.getOutputDatatype(), inferred);
}

LogicalResult HammingWindowOp::inferReturnTypes(MLIRContext *context,
                                                std::optional<Location> location, Adaptor adaptor,
                                                SmallVectorImpl<Type> &inferred) {
  return inferWindowType(location, adaptor.getSize(), adaptor.getOutputDatatype(), inferred);
}

LogicalResult BlackmanWindowOp::inferReturnTypes(MLIRContext *context,
                                                 std::optional<Location> location, Adaptor adaptor,
                                                 SmallVectorImpl<Type> &inferred) {
  return inferWindowType(location, adaptor.getSize(), adaptor.getOutputDatatype(), inferred);
}

//===----------------------------------------------------------------------===//
// MelWeightMatrixOp
//===----------------------------------------------------------------------===//

LogicalResult MelWeightMatrixOp::inferReturnTypes(MLIRContext *context,
                                                  std::optional<Location> location, Adaptor adaptor,
                                                  SmallVectorImpl<Type> &inferred) {
  Type elementType = adaptor.getOutputDatatype();
  if (!isNumeric(elementType))
    return emitOptionalError(location, "output_datatype must be a numeric type, got ", elementType);
  auto numMelBins = integerScalar(location, adaptor.getNumMelBins(), "num_mel_bins");
  auto dftLength = integerScalar(location, adaptor.getDftLength(), "dft_length");
  auto sampleRate = integerScalar(location, adaptor.getSampleRate(), "sample_rate");
  if (failed(numMelBins) || failed(dftLength) || failed(sampleRate))
    return failure();
  auto isFloat = [](Type type) { return isa<FloatType>(type); };
  if (failed(checkScalarOperand(location, adaptor.getLowerEdgeHertz(), isFloat, "lower_edge_hertz",
                                "a float")) ||
      failed(checkScalarOperand(location, adaptor.getUpperEdgeHertz(), isFloat, "upper_edge_hertz",
                                "a float")))
    return failure();
  if (*numMelBins && **numMelBins < 1)
    return emitOptionalError(location, "num_mel_bins must be positive, got ", **numMelBins);
  if (*dftLength && **dftLength < 1)
    return emitOptionalError(location, "dft_length must be positive, got ", **dftLength);
  if (*sampleRate && **sampleRate < 1)
    return emitOptionalError(location, "sample_rate must be positive, got ", **sampleRate);
  int64_t spectrumBins = *dftLength ? **dftLength / 2 + 1 : kDynamic;
  inferred.push_back(
      RankedTensorType::get({spectrumBins, numMelBins->value_or(kDynamic)}, elementType));
  return success();
}
