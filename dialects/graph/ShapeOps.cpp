//===- ShapeOps.cpp - Shape and data-movement ops --------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace kiln::graph;

static constexpr int64_t kDynamic = ShapedType::kDynamic;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// `axis` resolved against `rank` (ONNX allows [-rank, rank - 1]), or nullopt when out of
/// range.
static std::optional<int64_t> resolveAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

static LogicalResult axisOutOfRange(std::optional<Location> location, int64_t axis, int64_t rank) {
  return emitOptionalError(location, "axis ", axis, " is out of range for rank ", rank);
}

/// Checks that `value`, an operand holding a list of integers (a shape, axes, pads), is a
/// 1-D integer tensor. Returns its length when static, kDynamic otherwise.
static FailureOr<int64_t> checkIntList(std::optional<Location> location, Value value,
                                       StringRef name) {
  auto type = cast<TensorType>(value.getType());
  if (!isa<IntegerType>(type.getElementType()))
    return emitOptionalError(location, name, " must have an integer element type, got ",
                             type.getElementType());
  if (!type.hasRank())
    return kDynamic;
  if (type.getRank() != 1)
    return emitOptionalError(location, name, " must be 1-D, got rank ", type.getRank());
  return type.getDimSize(0);
}

/// Checks that `value` is a scalar (or, where ONNX allows it, a one-element 1-D tensor).
static LogicalResult checkScalar(std::optional<Location> location, Value value, StringRef name,
                                 bool allowOneElement = false) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() == 0)
    return success();
  if (allowOneElement && type.getRank() == 1 &&
      (type.getDimSize(0) == 1 || ShapedType::isDynamic(type.getDimSize(0))))
    return success();
  return emitOptionalError(location, name, " must be a scalar, got ", type);
}

/// The product of `extents`; dynamic if one of them is (unless another is 0).
static int64_t product(ArrayRef<int64_t> extents) {
  if (llvm::is_contained(extents, 0))
    return 0;
  int64_t result = 1;
  for (int64_t extent : extents) {
    if (ShapedType::isDynamic(extent))
      return kDynamic;
    result *= extent;
  }
  return result;
}

/// The value of a constant scalar (or one-element) operand of any numeric type.
static std::optional<double> getConstantScalar(Value value) {
  ElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)) || attr.getNumElements() != 1)
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (isa<FloatType>(dense.getElementType()))
      return (*dense.getValues<APFloat>().begin()).convertToDouble();
    if (auto intType = dyn_cast<IntegerType>(dense.getElementType())) {
      APInt element = *dense.getValues<APInt>().begin();
      return intType.isUnsigned() ? double(element.getZExtValue()) : double(element.getSExtValue());
    }
  }
  if (auto ints = getConstantInts(value))
    return double((*ints)[0]);
  return std::nullopt;
}

static RankedTensorType dynamicTensor(int64_t rank, Type elementType) {
  return RankedTensorType::get(SmallVector<int64_t>(rank, kDynamic), elementType);
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                          Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  auto length = checkIntList(location, adaptor.getShape(), "shape");
  if (failed(length))
    return failure();
  bool allowZero = adaptor.getAllowzero();
  std::optional<SmallVector<int64_t>> shape = getConstantInts(adaptor.getShape());
  if (!shape) {
    inferred.push_back(ShapedType::isDynamic(*length) ? Type(UnrankedTensorType::get(elementType))
                                                      : dynamicTensor(*length, elementType));
    return success();
  }

  SmallVector<int64_t> result(*shape);
  std::optional<size_t> inferredIndex;
  bool hasZero = false;
  for (auto [index, extent] : llvm::enumerate(*shape)) {
    if (extent == -1) {
      if (inferredIndex)
        return emitOptionalError(location, "shape has more than one -1");
      inferredIndex = index;
    } else if (extent < -1) {
      return emitOptionalError(location, "shape entry ", extent, " is negative");
    } else if (extent == 0) {
      hasZero = true;
      if (allowZero)
        continue;
      // 0 copies the input's extent at the same position.
      if (inputType.hasRank() && int64_t(index) >= inputType.getRank())
        return emitOptionalError(location, "shape entry ", index,
                                 " is 0 (copy the input extent) but the input has rank ",
                                 inputType.getRank());
      result[index] = inputType.hasRank() ? inputType.getDimSize(index) : kDynamic;
    }
  }
  if (allowZero && hasZero && inferredIndex)
    return emitOptionalError(location, "shape has both 0 and -1, which allowzero forbids");

  int64_t inputCount = inputType.hasRank() ? product(inputType.getShape()) : kDynamic;
  SmallVector<int64_t> known(result);
  if (inferredIndex)
    known.erase(known.begin() + *inferredIndex);
  int64_t knownCount = product(known);
  if (inferredIndex) {
    result[*inferredIndex] = kDynamic;
    if (!ShapedType::isDynamic(inputCount) && !ShapedType::isDynamic(knownCount)) {
      if (knownCount == 0 || inputCount % knownCount != 0)
        return emitOptionalError(location, "cannot reshape ", inputCount, " elements into ",
                                 "a shape with ", knownCount, " elements and a -1");
      result[*inferredIndex] = inputCount / knownCount;
    }
  } else if (!ShapedType::isDynamic(inputCount) && !ShapedType::isDynamic(knownCount) &&
             inputCount != knownCount) {
    return emitOptionalError(location, "cannot reshape ", inputCount, " elements into ",
                             knownCount);
  }
  inferred.push_back(RankedTensorType::get(result, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                            Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  int64_t rank = perm.size();
  if (inputType.hasRank() && inputType.getRank() != rank)
    return emitOptionalError(location, "perm has ", rank, " entries for an input of rank ",
                             inputType.getRank());
  SmallVector<bool> seen(rank, false);
  for (int64_t dim : perm) {
    if (dim < 0 || dim >= rank || seen[dim])
      return emitOptionalError(location, "perm is not a permutation of 0..", rank - 1);
    seen[dim] = true;
  }
  SmallVector<int64_t> shape(rank, kDynamic);
  if (inputType.hasRank())
    for (int64_t i = 0; i < rank; ++i)
      shape[i] = inputType.getDimSize(perm[i]);
  inferred.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// FlattenOp
//===----------------------------------------------------------------------===//

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                          Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  int64_t axis = adaptor.getAxis();
  if (!inputType.hasRank()) {
    inferred.push_back(dynamicTensor(2, elementType));
    return success();
  }
  int64_t rank = inputType.getRank();
  // Flatten's axis may also be `rank` (everything in the first dimension).
  if (axis < -rank || axis > rank)
    return emitOptionalError(location, "axis ", axis, " is out of range [", -rank, ", ", rank, "]");
  if (axis < 0)
    axis += rank;
  ArrayRef<int64_t> shape = inputType.getShape();
  inferred.push_back(RankedTensorType::get(
      {product(shape.take_front(axis)), product(shape.drop_front(axis))}, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// SqueezeOp
//===----------------------------------------------------------------------===//

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                          Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  Value axesOperand = adaptor.getAxes();
  std::optional<SmallVector<int64_t>> axes;
  int64_t numAxes = kDynamic;
  if (axesOperand) {
    auto length = checkIntList(location, axesOperand, "axes");
    if (failed(length))
      return failure();
    numAxes = *length;
    axes = getConstantInts(axesOperand);
  }
  if (!inputType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  int64_t rank = inputType.getRank();
  ArrayRef<int64_t> shape = inputType.getShape();
  if (!axesOperand) {
    // Without axes, which dimensions go depends on extents that must all be known.
    if (inputType.hasStaticShape()) {
      SmallVector<int64_t> result;
      llvm::copy_if(shape, std::back_inserter(result), [](int64_t d) { return d != 1; });
      inferred.push_back(RankedTensorType::get(result, elementType));
    } else {
      inferred.push_back(UnrankedTensorType::get(elementType));
    }
    return success();
  }
  if (!axes) {
    inferred.push_back(ShapedType::isDynamic(numAxes) ? Type(UnrankedTensorType::get(elementType))
                                                      : dynamicTensor(rank - numAxes, elementType));
    return success();
  }
  SmallVector<bool> removed(rank, false);
  for (int64_t axis : *axes) {
    std::optional<int64_t> resolved = resolveAxis(axis, rank);
    if (!resolved)
      return axisOutOfRange(location, axis, rank);
    if (removed[*resolved])
      return emitOptionalError(location, "axis ", axis, " is repeated");
    if (!ShapedType::isDynamic(shape[*resolved]) && shape[*resolved] != 1)
      return emitOptionalError(location, "cannot squeeze axis ", axis, " of extent ",
                               shape[*resolved]);
    removed[*resolved] = true;
  }
  SmallVector<int64_t> result;
  for (int64_t i = 0; i < rank; ++i)
    if (!removed[i])
      result.push_back(shape[i]);
  inferred.push_back(RankedTensorType::get(result, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// UnsqueezeOp
//===----------------------------------------------------------------------===//

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                            Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  auto length = checkIntList(location, adaptor.getAxes(), "axes");
  if (failed(length))
    return failure();
  if (!inputType.hasRank() || ShapedType::isDynamic(*length)) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  int64_t rank = inputType.getRank() + *length;
  std::optional<SmallVector<int64_t>> axes = getConstantInts(adaptor.getAxes());
  if (!axes) {
    inferred.push_back(dynamicTensor(rank, elementType));
    return success();
  }
  SmallVector<bool> inserted(rank, false);
  for (int64_t axis : *axes) {
    std::optional<int64_t> resolved = resolveAxis(axis, rank);
    if (!resolved)
      return emitOptionalError(location, "axis ", axis, " is out of range for result rank ", rank);
    if (inserted[*resolved])
      return emitOptionalError(location, "axis ", axis, " is repeated");
    inserted[*resolved] = true;
  }
  SmallVector<int64_t> result;
  ArrayRef<int64_t> shape = inputType.getShape();
  for (int64_t i = 0; i < rank; ++i) {
    if (inserted[i]) {
      result.push_back(1);
    } else {
      result.push_back(shape.front());
      shape = shape.drop_front();
    }
  }
  inferred.push_back(RankedTensorType::get(result, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// ExpandOp
//===----------------------------------------------------------------------===//

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                         Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  auto length = checkIntList(location, adaptor.getShape(), "shape");
  if (failed(length))
    return failure();
  std::optional<SmallVector<int64_t>> shape = getConstantInts(adaptor.getShape());
  if (!inputType.hasRank() || ShapedType::isDynamic(*length)) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  if (!shape) {
    // An entry of 1 keeps the input's extent, so nothing is known but the rank.
    inferred.push_back(dynamicTensor(std::max<int64_t>(inputType.getRank(), *length), elementType));
    return success();
  }
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return emitOptionalError(location, "shape entries must not be negative");
  auto result = broadcastShapes(inputType.getShape(), *shape);
  if (!result)
    return emitOptionalError(location, llvm::toString(result.takeError()));
  inferred.push_back(RankedTensorType::get(*result, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// TileOp
//===----------------------------------------------------------------------===//

LogicalResult TileOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                       Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  auto length = checkIntList(location, adaptor.getRepeats(), "repeats");
  if (failed(length))
    return failure();
  std::optional<SmallVector<int64_t>> repeats = getConstantInts(adaptor.getRepeats());
  if (repeats)
    for (int64_t repeat : *repeats)
      if (repeat < 0)
        return emitOptionalError(location, "repeats must not be negative, got ", repeat);
  // The rank is the input's, or the number of repeats when the input is unranked.
  int64_t rank = inputType.hasRank() ? inputType.getRank() : *length;
  if (inputType.hasRank() && !ShapedType::isDynamic(*length) && *length != rank)
    return emitOptionalError(location, "repeats has ", *length, " entries for an input of rank ",
                             rank);
  if (ShapedType::isDynamic(rank)) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  SmallVector<int64_t> shape(rank, kDynamic);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t extent = inputType.hasRank() ? inputType.getDimSize(i) : kDynamic;
    if (!repeats)
      continue;
    int64_t repeat = (*repeats)[i];
    shape[i] = repeat == 0 ? 0 : ShapedType::isDynamic(extent) ? kDynamic : extent * repeat;
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// DepthToSpaceOp, SpaceToDepthOp
//===----------------------------------------------------------------------===//

/// The shared rule of DepthToSpace (`toSpace`) and SpaceToDepth on `[N, C, H, W]`.
static LogicalResult inferBlockRearrangement(std::optional<Location> location, Value input,
                                             int64_t blockSize, bool toSpace,
                                             SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(input.getType());
  Type elementType = inputType.getElementType();
  if (!inputType.hasRank()) {
    inferred.push_back(dynamicTensor(4, elementType));
    return success();
  }
  if (inputType.getRank() != 4)
    return emitOptionalError(location, "expects a rank-4 input [N, C, H, W], got rank ",
                             inputType.getRank());
  ArrayRef<int64_t> in = inputType.getShape();
  int64_t blockArea = blockSize * blockSize;
  auto scale = [](int64_t extent, int64_t factor) {
    return ShapedType::isDynamic(extent) ? kDynamic : extent * factor;
  };
  auto divide = [&](int64_t extent, int64_t divisor, StringRef what) -> FailureOr<int64_t> {
    if (ShapedType::isDynamic(extent))
      return kDynamic;
    if (extent % divisor != 0)
      return emitOptionalError(location, what, " extent ", extent, " is not divisible by ",
                               divisor);
    return extent / divisor;
  };
  SmallVector<int64_t> shape{in[0]};
  if (toSpace) {
    auto channels = divide(in[1], blockArea, "channel");
    if (failed(channels))
      return failure();
    shape.append({*channels, scale(in[2], blockSize), scale(in[3], blockSize)});
  } else {
    auto height = divide(in[2], blockSize, "height");
    auto width = divide(in[3], blockSize, "width");
    if (failed(height) || failed(width))
      return failure();
    shape.append({scale(in[1], blockArea), *height, *width});
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult DepthToSpaceOp::inferReturnTypes(MLIRContext *context,
                                               std::optional<Location> location, Adaptor adaptor,
                                               SmallVectorImpl<Type> &inferred) {
  StringRef mode = adaptor.getMode();
  if (mode != "DCR" && mode != "CRD")
    return emitOptionalError(location, "mode must be DCR or CRD, got '", mode, "'");
  return inferBlockRearrangement(location, adaptor.getInput(), adaptor.getBlocksize(),
                                 /*toSpace=*/true, inferred);
}

LogicalResult SpaceToDepthOp::inferReturnTypes(MLIRContext *context,
                                               std::optional<Location> location, Adaptor adaptor,
                                               SmallVectorImpl<Type> &inferred) {
  return inferBlockRearrangement(location, adaptor.getInput(), adaptor.getBlocksize(),
                                 /*toSpace=*/false, inferred);
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                         Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(location, "expects at least one input");
  Type elementType = cast<TensorType>(inputs.front().getType()).getElementType();
  std::optional<int64_t> rank;
  for (Value input : inputs) {
    auto type = cast<TensorType>(input.getType());
    if (type.getElementType() != elementType)
      return emitOptionalError(location, "input element types differ: ", elementType, " and ",
                               type.getElementType());
    if (!type.hasRank())
      continue;
    if (rank && *rank != type.getRank())
      return emitOptionalError(location, "input ranks differ: ", *rank, " and ", type.getRank());
    rank = type.getRank();
  }
  if (!rank) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  int64_t axisAttr = adaptor.getAxis();
  std::optional<int64_t> axis = resolveAxis(axisAttr, *rank);
  if (!axis)
    return axisOutOfRange(location, axisAttr, *rank);
  SmallVector<int64_t> shape(*rank, kDynamic);
  shape[*axis] = 0;
  for (Value input : inputs) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type) {
      shape[*axis] = kDynamic;
      continue;
    }
    for (int64_t i = 0; i < *rank; ++i) {
      int64_t extent = type.getDimSize(i);
      if (i == *axis) {
        shape[i] = ShapedType::isDynamic(shape[i]) || ShapedType::isDynamic(extent)
                       ? kDynamic
                       : shape[i] + extent;
        continue;
      }
      if (ShapedType::isDynamic(extent))
        continue;
      if (!ShapedType::isDynamic(shape[i]) && shape[i] != extent)
        return emitOptionalError(location, "inputs differ in dimension ", i, ": ", shape[i],
                                 " and ", extent);
      shape[i] = extent;
    }
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// SplitOp
//===----------------------------------------------------------------------===//

LogicalResult SplitOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                        Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  int64_t numOutputs = adaptor.getNumOutputs();
  std::optional<SmallVector<int64_t>> split;
  if (Value splitOperand = adaptor.getSplit()) {
    auto length = checkIntList(location, splitOperand, "split");
    if (failed(length))
      return failure();
    if (!ShapedType::isDynamic(*length) && *length != numOutputs)
      return emitOptionalError(location, "split has ", *length, " entries for ", numOutputs,
                               " outputs");
    split = getConstantInts(splitOperand);
    if (split && llvm::any_of(*split, [](int64_t s) { return s < 0; }))
      return emitOptionalError(location, "split entries must not be negative");
  }
  if (!inputType.hasRank()) {
    inferred.append(numOutputs, UnrankedTensorType::get(elementType));
    return success();
  }
  int64_t rank = inputType.getRank();
  std::optional<int64_t> axis = resolveAxis(adaptor.getAxis(), rank);
  if (!axis)
    return axisOutOfRange(location, adaptor.getAxis(), rank);
  int64_t extent = inputType.getDimSize(*axis);
  SmallVector<int64_t> parts(numOutputs, kDynamic);
  if (split) {
    int64_t total = 0;
    for (int64_t part : *split)
      total += part;
    if (!ShapedType::isDynamic(extent) && total != extent)
      return emitOptionalError(location, "split sizes add up to ", total, ", not to the extent ",
                               extent, " of axis ", *axis);
    parts.assign(*split);
  } else if (!adaptor.getSplit() && !ShapedType::isDynamic(extent)) {
    // ONNX 18: parts of ceil(extent / n), the last one taking the remainder.
    int64_t partSize = (extent + numOutputs - 1) / numOutputs;
    int64_t lastSize = extent - partSize * (numOutputs - 1);
    if (lastSize < 0)
      return emitOptionalError(location, "cannot split extent ", extent, " into ", numOutputs,
                               " parts of ", partSize, ": the last part would have ", lastSize,
                               " elements");
    for (int64_t i = 0; i < numOutputs; ++i)
      parts[i] = i + 1 < numOutputs ? partSize : lastSize;
  }
  for (int64_t part : parts) {
    SmallVector<int64_t> shape(inputType.getShape());
    shape[*axis] = part;
    inferred.push_back(RankedTensorType::get(shape, elementType));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                        Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  SmallVector<std::pair<Value, StringRef>> lists{{adaptor.getStarts(), "starts"},
                                                 {adaptor.getEnds(), "ends"}};
  if (adaptor.getAxes())
    lists.push_back({adaptor.getAxes(), "axes"});
  if (adaptor.getSteps())
    lists.push_back({adaptor.getSteps(), "steps"});
  int64_t length = kDynamic;
  for (auto [value, name] : lists) {
    auto listLength = checkIntList(location, value, name);
    if (failed(listLength))
      return failure();
    if (ShapedType::isDynamic(*listLength))
      continue;
    if (!ShapedType::isDynamic(length) && length != *listLength)
      return emitOptionalError(location, "starts, ends, axes and steps differ in length");
    length = *listLength;
  }
  if (!inputType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  int64_t rank = inputType.getRank();
  if (!ShapedType::isDynamic(length) && length > rank)
    return emitOptionalError(location, "slices ", length, " axes of a rank-", rank, " input");

  std::optional<SmallVector<int64_t>> axes;
  if (adaptor.getAxes()) {
    axes = getConstantInts(adaptor.getAxes());
  } else if (!ShapedType::isDynamic(length)) {
    axes.emplace();
    for (int64_t i = 0; i < length; ++i)
      axes->push_back(i);
  }
  if (!axes) {
    // Any dimension may be sliced.
    inferred.push_back(dynamicTensor(rank, elementType));
    return success();
  }
  SmallVector<int64_t> resolvedAxes;
  SmallVector<bool> sliced(rank, false);
  for (int64_t axis : *axes) {
    std::optional<int64_t> resolved = resolveAxis(axis, rank);
    if (!resolved)
      return axisOutOfRange(location, axis, rank);
    if (sliced[*resolved])
      return emitOptionalError(location, "axis ", axis, " is repeated");
    sliced[*resolved] = true;
    resolvedAxes.push_back(*resolved);
  }
  std::optional<SmallVector<int64_t>> steps = adaptor.getSteps()
                                                  ? getConstantInts(adaptor.getSteps())
                                                  : SmallVector<int64_t>(resolvedAxes.size(), 1);
  if (steps && llvm::is_contained(*steps, 0))
    return emitOptionalError(location, "steps must not be 0");
  std::optional<SmallVector<int64_t>> starts = getConstantInts(adaptor.getStarts());
  std::optional<SmallVector<int64_t>> ends = getConstantInts(adaptor.getEnds());
  for (auto &list : {starts, ends, steps})
    if (list && list->size() != resolvedAxes.size())
      return emitOptionalError(location, "starts, ends, axes and steps differ in length");

  SmallVector<int64_t> shape(inputType.getShape());
  for (auto [index, axis] : llvm::enumerate(resolvedAxes)) {
    if (!starts || !ends || !steps || ShapedType::isDynamic(shape[axis]))
      shape[axis] = kDynamic;
    else
      shape[axis] =
          resolveSliceRange(shape[axis], (*starts)[index], (*ends)[index], (*steps)[index]).count;
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                      Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  StringRef mode = adaptor.getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    return emitOptionalError(location, "mode must be constant, reflect, edge or wrap, got '", mode,
                             "'");
  auto padsLength = checkIntList(location, adaptor.getPads(), "pads");
  if (failed(padsLength))
    return failure();
  if (Value value = adaptor.getConstantValue()) {
    if (getElementTypeOrSelf(value.getType()) != elementType)
      return emitOptionalError(location, "constant_value element type ",
                               getElementTypeOrSelf(value.getType()),
                               " differs from input element type ", elementType);
    if (failed(checkScalar(location, value, "constant_value", /*allowOneElement=*/true)))
      return failure();
  }
  std::optional<SmallVector<int64_t>> axes;
  int64_t numAxes = kDynamic;
  if (Value axesOperand = adaptor.getAxes()) {
    auto length = checkIntList(location, axesOperand, "axes");
    if (failed(length))
      return failure();
    numAxes = *length;
    axes = getConstantInts(axesOperand);
    if (axes)
      numAxes = axes->size();
  }
  if (!inputType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  int64_t rank = inputType.getRank();
  if (!adaptor.getAxes()) {
    numAxes = rank;
    axes.emplace();
    for (int64_t i = 0; i < rank; ++i)
      axes->push_back(i);
  }
  if (!ShapedType::isDynamic(*padsLength) && !ShapedType::isDynamic(numAxes) &&
      *padsLength != 2 * numAxes)
    return emitOptionalError(location, "expects ", 2 * numAxes,
                             " pads (all beginnings, then all ends), got ", *padsLength);
  std::optional<SmallVector<int64_t>> pads = getConstantInts(adaptor.getPads());
  SmallVector<int64_t> shape(inputType.getShape());
  if (!axes) {
    inferred.push_back(dynamicTensor(rank, elementType));
    return success();
  }
  SmallVector<bool> seen(rank, false);
  for (auto [index, axis] : llvm::enumerate(*axes)) {
    std::optional<int64_t> resolved = resolveAxis(axis, rank);
    if (!resolved)
      return axisOutOfRange(location, axis, rank);
    if (seen[*resolved])
      return emitOptionalError(location, "axis ", axis, " is repeated");
    seen[*resolved] = true;
    int64_t &extent = shape[*resolved];
    if (!pads || ShapedType::isDynamic(extent)) {
      extent = kDynamic;
      continue;
    }
    extent += (*pads)[index] + (*pads)[index + axes->size()];
    if (extent < 0)
      return emitOptionalError(location, "pads crop axis ", axis, " to a negative extent");
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// CenterCropPadOp
//===----------------------------------------------------------------------===//

LogicalResult CenterCropPadOp::inferReturnTypes(MLIRContext *context,
                                                std::optional<Location> location, Adaptor adaptor,
                                                SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  auto length = checkIntList(location, adaptor.getShape(), "shape");
  if (failed(length))
    return failure();
  ArrayRef<int64_t> axes = adaptor.getAxes();
  if (!ShapedType::isDynamic(*length) && *length != int64_t(axes.size()))
    return emitOptionalError(location, "shape has ", *length, " entries for ", axes.size(),
                             " axes");
  if (!inputType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  int64_t rank = inputType.getRank();
  std::optional<SmallVector<int64_t>> shape = getConstantInts(adaptor.getShape());
  SmallVector<int64_t> result(inputType.getShape());
  SmallVector<bool> seen(rank, false);
  for (auto [index, axis] : llvm::enumerate(axes)) {
    std::optional<int64_t> resolved = resolveAxis(axis, rank);
    if (!resolved)
      return axisOutOfRange(location, axis, rank);
    if (seen[*resolved])
      return emitOptionalError(location, "axis ", axis, " is repeated");
    seen[*resolved] = true;
    if (shape && (*shape)[index] < 0)
      return emitOptionalError(location, "shape entries must not be negative");
    result[*resolved] = shape ? (*shape)[index] : kDynamic;
  }
  inferred.push_back(RankedTensorType::get(result, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// GatherOp, GatherElementsOp, GatherNDOp
//===----------------------------------------------------------------------===//

static LogicalResult checkIndices(std::optional<Location> location, Value indices) {
  Type elementType = getElementTypeOrSelf(indices.getType());
  if (!elementType.isSignlessInteger(32) && !elementType.isSignlessInteger(64))
    return emitOptionalError(location, "indices must be i32 or i64, got ", elementType);
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                         Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto dataType = cast<TensorType>(adaptor.getData().getType());
  auto indicesType = cast<TensorType>(adaptor.getIndices().getType());
  Type elementType = dataType.getElementType();
  if (failed(checkIndices(location, adaptor.getIndices())))
    return failure();
  if (!dataType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  int64_t rank = dataType.getRank();
  std::optional<int64_t> axis = resolveAxis(adaptor.getAxis(), rank);
  if (!axis)
    return axisOutOfRange(location, adaptor.getAxis(), rank);
  if (!indicesType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  ArrayRef<int64_t> data = dataType.getShape();
  SmallVector<int64_t> shape(data.take_front(*axis));
  llvm::append_range(shape, indicesType.getShape());
  llvm::append_range(shape, data.drop_front(*axis + 1));
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *context,
                                                 std::optional<Location> location, Adaptor adaptor,
                                                 SmallVectorImpl<Type> &inferred) {
  auto dataType = cast<TensorType>(adaptor.getData().getType());
  auto indicesType = cast<TensorType>(adaptor.getIndices().getType());
  Type elementType = dataType.getElementType();
  if (failed(checkIndices(location, adaptor.getIndices())))
    return failure();
  std::optional<int64_t> rank;
  if (dataType.hasRank())
    rank = dataType.getRank();
  if (indicesType.hasRank()) {
    if (rank && *rank != indicesType.getRank())
      return emitOptionalError(location, "indices rank ", indicesType.getRank(),
                               " differs from data rank ", *rank);
    rank = indicesType.getRank();
  }
  if (rank && !resolveAxis(adaptor.getAxis(), *rank))
    return axisOutOfRange(location, adaptor.getAxis(), *rank);
  inferred.push_back(indicesType.hasRank()
                         ? Type(RankedTensorType::get(indicesType.getShape(), elementType))
                         : tensorOf(std::nullopt, elementType));
  if (!indicesType.hasRank() && rank)
    inferred.back() = dynamicTensor(*rank, elementType);
  return success();
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                           Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto dataType = cast<TensorType>(adaptor.getData().getType());
  auto indicesType = cast<TensorType>(adaptor.getIndices().getType());
  Type elementType = dataType.getElementType();
  Type indexType = indicesType.getElementType();
  if (!indexType.isSignlessInteger(64))
    return emitOptionalError(location, "indices must be i64, got ", indexType);
  int64_t batchDims = adaptor.getBatchDims();
  if (batchDims < 0)
    return emitOptionalError(location, "batch_dims must not be negative, got ", batchDims);
  if (dataType.hasRank() && batchDims >= dataType.getRank())
    return emitOptionalError(location, "batch_dims ", batchDims,
                             " must be less than the data rank ", dataType.getRank());
  if (indicesType.hasRank() && batchDims >= indicesType.getRank())
    return emitOptionalError(location, "batch_dims ", batchDims,
                             " must be less than the indices rank ", indicesType.getRank());
  if (!dataType.hasRank() || !indicesType.hasRank() ||
      ShapedType::isDynamic(indicesType.getShape().back())) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  int64_t indexLength = indicesType.getShape().back();
  if (indexLength < 1 || batchDims + indexLength > dataType.getRank())
    return emitOptionalError(location, "index tuples of length ", indexLength,
                             " do not fit data of rank ", dataType.getRank(), " with ", batchDims,
                             " batch dimensions");
  for (int64_t i = 0; i < batchDims; ++i)
    if (failed(verifyCompatibleDims({dataType.getDimSize(i), indicesType.getDimSize(i)})))
      return emitOptionalError(location, "batch dimension ", i,
                               " differs: ", dataType.getDimSize(i), " in data, ",
                               indicesType.getDimSize(i), " in indices");
  SmallVector<int64_t> shape(indicesType.getShape().drop_back());
  llvm::append_range(shape, dataType.getShape().drop_front(batchDims + indexLength));
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// ScatterElementsOp, ScatterNDOp
//===----------------------------------------------------------------------===//

static LogicalResult checkReduction(std::optional<Location> location, StringRef reduction) {
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" &&
      reduction != "min")
    return emitOptionalError(location, "reduction must be none, add, mul, max or min, got '",
                             reduction, "'");
  return success();
}

LogicalResult ScatterElementsOp::inferReturnTypes(MLIRContext *context,
                                                  std::optional<Location> location, Adaptor adaptor,
                                                  SmallVectorImpl<Type> &inferred) {
  auto dataType = cast<TensorType>(adaptor.getData().getType());
  auto indicesType = cast<TensorType>(adaptor.getIndices().getType());
  auto updatesType = cast<TensorType>(adaptor.getUpdates().getType());
  if (failed(checkReduction(location, adaptor.getReduction())) ||
      failed(checkIndices(location, adaptor.getIndices())))
    return failure();
  if (updatesType.getElementType() != dataType.getElementType())
    return emitOptionalError(location, "updates element type ", updatesType.getElementType(),
                             " differs from data element type ", dataType.getElementType());
  if (indicesType.hasRank() && updatesType.hasRank() &&
      failed(verifyCompatibleShape(indicesType, updatesType)))
    return emitOptionalError(location, "updates shape differs from indices shape");
  if (dataType.hasRank()) {
    int64_t rank = dataType.getRank();
    if (indicesType.hasRank() && indicesType.getRank() != rank)
      return emitOptionalError(location, "indices rank ", indicesType.getRank(),
                               " differs from data rank ", rank);
    if (!resolveAxis(adaptor.getAxis(), rank))
      return axisOutOfRange(location, adaptor.getAxis(), rank);
  }
  inferred.push_back(dataType);
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                            Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto dataType = cast<TensorType>(adaptor.getData().getType());
  auto indicesType = cast<TensorType>(adaptor.getIndices().getType());
  auto updatesType = cast<TensorType>(adaptor.getUpdates().getType());
  if (failed(checkReduction(location, adaptor.getReduction())))
    return failure();
  if (!indicesType.getElementType().isSignlessInteger(64))
    return emitOptionalError(location, "indices must be i64, got ", indicesType.getElementType());
  if (updatesType.getElementType() != dataType.getElementType())
    return emitOptionalError(location, "updates element type ", updatesType.getElementType(),
                             " differs from data element type ", dataType.getElementType());
  if (indicesType.hasRank() && indicesType.getRank() < 1)
    return emitOptionalError(location, "indices must have rank 1 or more");
  if (dataType.hasRank() && indicesType.hasRank() && updatesType.hasRank() &&
      !ShapedType::isDynamic(indicesType.getShape().back())) {
    int64_t indexLength = indicesType.getShape().back();
    if (indexLength > dataType.getRank())
      return emitOptionalError(location, "index tuples of length ", indexLength,
                               " do not fit data of rank ", dataType.getRank());
    SmallVector<int64_t> expected(indicesType.getShape().drop_back());
    llvm::append_range(expected, dataType.getShape().drop_front(indexLength));
    if (failed(verifyCompatibleShape(expected, updatesType.getShape())))
      return emitOptionalError(location, "updates shape ", updatesType,
                               " differs from indices.shape[:-1] + data.shape[", indexLength, ":]");
  }
  inferred.push_back(dataType);
  return success();
}

//===----------------------------------------------------------------------===//
// CompressOp, NonZeroOp
//===----------------------------------------------------------------------===//

LogicalResult CompressOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                           Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto conditionType = cast<TensorType>(adaptor.getCondition().getType());
  Type elementType = inputType.getElementType();
  if (!conditionType.getElementType().isInteger(1))
    return emitOptionalError(location, "condition must be i1, got ",
                             conditionType.getElementType());
  if (conditionType.hasRank() && conditionType.getRank() != 1)
    return emitOptionalError(location, "condition must be 1-D, got rank ", conditionType.getRank());
  // The selected count depends on the condition's values, known when it is a constant.
  int64_t selected = kDynamic;
  if (auto condition = getConstantInts(adaptor.getCondition()))
    selected = llvm::count_if(*condition, [](int64_t value) { return value != 0; });
  // The condition may be shorter than what it selects from, never longer.
  auto checkLength = [&](int64_t extent) -> LogicalResult {
    int64_t length = conditionType.hasRank() ? conditionType.getDimSize(0) : kDynamic;
    if (!ShapedType::isDynamic(length) && !ShapedType::isDynamic(extent) && length > extent)
      return emitOptionalError(location, "condition has ", length, " entries for ", extent,
                               " slices");
    return success();
  };
  std::optional<int64_t> axisAttr = adaptor.getAxis();
  if (!axisAttr) {
    if (inputType.hasRank() && failed(checkLength(product(inputType.getShape()))))
      return failure();
    inferred.push_back(RankedTensorType::get({selected}, elementType));
    return success();
  }
  if (!inputType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  std::optional<int64_t> axis = resolveAxis(*axisAttr, inputType.getRank());
  if (!axis)
    return axisOutOfRange(location, *axisAttr, inputType.getRank());
  if (failed(checkLength(inputType.getDimSize(*axis))))
    return failure();
  SmallVector<int64_t> shape(inputType.getShape());
  shape[*axis] = selected;
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult NonZeroOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                          Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  int64_t rank = inputType.hasRank() ? inputType.getRank() : kDynamic;
  // [rank, count], as the ONNX specification states; the count depends on the data.
  inferred.push_back(RankedTensorType::get({rank, kDynamic}, IntegerType::get(context, 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// ReverseSequenceOp, TriluOp
//===----------------------------------------------------------------------===//

LogicalResult ReverseSequenceOp::inferReturnTypes(MLIRContext *context,
                                                  std::optional<Location> location, Adaptor adaptor,
                                                  SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto lensType = cast<TensorType>(adaptor.getSequenceLens().getType());
  int64_t batchAxis = adaptor.getBatchAxis(), timeAxis = adaptor.getTimeAxis();
  if ((batchAxis != 0 && batchAxis != 1) || (timeAxis != 0 && timeAxis != 1) ||
      batchAxis == timeAxis)
    return emitOptionalError(location, "batch_axis and time_axis must be 0 and 1 in some order, ",
                             "got ", batchAxis, " and ", timeAxis);
  if (!lensType.getElementType().isSignlessInteger(64))
    return emitOptionalError(location, "sequence_lens must be i64, got ",
                             lensType.getElementType());
  if (inputType.hasRank() && inputType.getRank() < 2)
    return emitOptionalError(location, "expects rank 2 or more, got ", inputType.getRank());
  if (lensType.hasRank()) {
    if (lensType.getRank() != 1)
      return emitOptionalError(location, "sequence_lens must be 1-D, got rank ",
                               lensType.getRank());
    if (inputType.hasRank() &&
        failed(verifyCompatibleDims({lensType.getDimSize(0), inputType.getDimSize(batchAxis)})))
      return emitOptionalError(location, "sequence_lens has ", lensType.getDimSize(0),
                               " entries for a batch of ", inputType.getDimSize(batchAxis));
  }
  inferred.push_back(inputType);
  return success();
}

LogicalResult TriluOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                        Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  if (inputType.hasRank() && inputType.getRank() < 2)
    return emitOptionalError(location, "expects rank 2 or more, got ", inputType.getRank());
  if (Value k = adaptor.getK()) {
    if (!getElementTypeOrSelf(k.getType()).isSignlessInteger(64))
      return emitOptionalError(location, "k must be i64, got ", getElementTypeOrSelf(k.getType()));
    if (failed(checkScalar(location, k, "k", /*allowOneElement=*/true)))
      return failure();
  }
  inferred.push_back(inputType);
  return success();
}

//===----------------------------------------------------------------------===//
// ShapeOp, SizeOp
//===----------------------------------------------------------------------===//

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                        Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type i64 = IntegerType::get(context, 64);
  if (!inputType.hasRank()) {
    inferred.push_back(dynamicTensor(1, i64));
    return success();
  }
  // Shape clamps start and end to [0, rank] after resolving negative values.
  int64_t rank = inputType.getRank();
  auto clampToRank = [&](int64_t value) {
    return std::clamp<int64_t>(value < 0 ? value + rank : value, 0, rank);
  };
  int64_t start = clampToRank(adaptor.getStart());
  int64_t end = clampToRank(adaptor.getEnd().value_or(rank));
  inferred.push_back(RankedTensorType::get({std::max<int64_t>(0, end - start)}, i64));
  return success();
}

LogicalResult SizeOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                       Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  inferred.push_back(RankedTensorType::get({}, IntegerType::get(context, 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// RangeOp
//===----------------------------------------------------------------------===//

LogicalResult RangeOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                        Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  Value start = adaptor.getStart(), limit = adaptor.getLimit(), delta = adaptor.getDelta();
  Type elementType = getElementTypeOrSelf(start.getType());
  for (auto [value, name] : {std::pair(start, "start"), {limit, "limit"}, {delta, "delta"}}) {
    if (getElementTypeOrSelf(value.getType()) != elementType)
      return emitOptionalError(location, name, " has element type ",
                               getElementTypeOrSelf(value.getType()), ", start has ", elementType);
    if (failed(checkScalar(location, value, name)))
      return failure();
  }
  int64_t extent = kDynamic;
  if (isa<IntegerType>(elementType)) {
    // Integers exactly: max(ceil((limit - start) / delta), 0).
    auto startValue = getConstantInts(start), limitValue = getConstantInts(limit),
         deltaValue = getConstantInts(delta);
    if (deltaValue && (*deltaValue)[0] == 0)
      return emitOptionalError(location, "delta must not be 0");
    if (startValue && limitValue && deltaValue) {
      int64_t distance = (*limitValue)[0] - (*startValue)[0], step = (*deltaValue)[0];
      if (step < 0) {
        distance = -distance;
        step = -step;
      }
      extent = distance <= 0 ? 0 : (distance + step - 1) / step;
    }
  } else {
    std::optional<double> startValue = getConstantScalar(start),
                          limitValue = getConstantScalar(limit),
                          deltaValue = getConstantScalar(delta);
    if (deltaValue && *deltaValue == 0)
      return emitOptionalError(location, "delta must not be 0");
    if (startValue && limitValue && deltaValue)
      extent = std::max<int64_t>(0, int64_t(std::ceil((*limitValue - *startValue) / *deltaValue)));
  }
  inferred.push_back(RankedTensorType::get({extent}, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOfShapeOp, EyeLikeOp, OneHotOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOfShapeOp::inferReturnTypes(MLIRContext *context,
                                                  std::optional<Location> location, Adaptor adaptor,
                                                  SmallVectorImpl<Type> &inferred) {
  ElementsAttr value = adaptor.getValue();
  if (value.getNumElements() != 1)
    return emitOptionalError(location, "value must have one element, got ", value.getNumElements());
  Type elementType = value.getElementType();
  auto length = checkIntList(location, adaptor.getShape(), "shape");
  if (failed(length))
    return failure();
  if (auto shape = getConstantInts(adaptor.getShape())) {
    if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
      return emitOptionalError(location, "shape entries must not be negative");
    inferred.push_back(RankedTensorType::get(*shape, elementType));
    return success();
  }
  inferred.push_back(ShapedType::isDynamic(*length) ? Type(UnrankedTensorType::get(elementType))
                                                    : dynamicTensor(*length, elementType));
  return success();
}

LogicalResult EyeLikeOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                          Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = adaptor.getDtype();
  if (inputType.hasRank() && inputType.getRank() != 2)
    return emitOptionalError(location, "expects a 2-D input, got rank ", inputType.getRank());
  inferred.push_back(inputType.hasRank() ? RankedTensorType::get(inputType.getShape(), elementType)
                                         : dynamicTensor(2, elementType));
  return success();
}

LogicalResult OneHotOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                         Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto indicesType = cast<TensorType>(adaptor.getIndices().getType());
  auto valuesType = cast<TensorType>(adaptor.getValues().getType());
  Type elementType = valuesType.getElementType();
  if (valuesType.hasRank() &&
      (valuesType.getRank() != 1 || failed(verifyCompatibleDims({valuesType.getDimSize(0), 2}))))
    return emitOptionalError(location, "values must be [off_value, on_value], got ", valuesType);
  if (failed(checkScalar(location, adaptor.getDepth(), "depth", /*allowOneElement=*/true)))
    return failure();
  if (!indicesType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  int64_t rank = indicesType.getRank() + 1;
  std::optional<int64_t> axis = resolveAxis(adaptor.getAxis(), rank);
  if (!axis)
    return emitOptionalError(location, "axis ", adaptor.getAxis(),
                             " is out of range for result rank ", rank);
  int64_t depth = kDynamic;
  if (std::optional<double> depthValue = getConstantScalar(adaptor.getDepth())) {
    // ONNX casts a floating-point depth to an integer.
    depth = int64_t(*depthValue);
    if (depth < 1)
      return emitOptionalError(location, "depth must be positive, got ", depth);
  }
  SmallVector<int64_t> shape(indicesType.getShape());
  shape.insert(shape.begin() + *axis, depth);
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// UniqueOp
//===----------------------------------------------------------------------===//

LogicalResult UniqueOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                         Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  Type elementType = inputType.getElementType();
  Type i64 = IntegerType::get(context, 64);
  // How many unique values there are depends on the data; only the inverse indices, one
  // per input element (or slice), have a known extent.
  auto dataDependent = RankedTensorType::get({kDynamic}, i64);
  std::optional<int64_t> axis = adaptor.getAxis();
  Type y, inverse;
  if (!axis) {
    y = RankedTensorType::get({kDynamic}, elementType);
    inverse = RankedTensorType::get(
        {inputType.hasRank() ? product(inputType.getShape()) : kDynamic}, i64);
  } else if (!inputType.hasRank()) {
    y = UnrankedTensorType::get(elementType);
    inverse = dataDependent;
  } else {
    auto resolved = resolveAxis(*axis, inputType.getRank());
    if (!resolved)
      return axisOutOfRange(location, *axis, inputType.getRank());
    SmallVector<int64_t> shape(inputType.getShape());
    inverse = RankedTensorType::get({shape[*resolved]}, i64);
    shape[*resolved] = kDynamic;
    y = RankedTensorType::get(shape, elementType);
  }
  inferred.append({y, dataDependent, inverse, dataDependent});
  return success();
}
