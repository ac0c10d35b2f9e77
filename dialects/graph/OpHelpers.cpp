//===- OpHelpers.cpp - Shared pieces of the graph ops' C++ ---------------===//

#include "dialects/graph/OpHelpers.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

#include <algorithm>

using namespace mlir;
using namespace kiln::graph;

Type kiln::graph::tensorOf(std::optional<ArrayRef<int64_t>> shape, Type elementType) {
  if (!shape)
    return UnrankedTensorType::get(elementType);
  return RankedTensorType::get(*shape, elementType);
}

LogicalResult kiln::graph::inferBinaryOpType(
    std::optional<Location> location, Value lhs, Value rhs,
    llvm::function_ref<llvm::Expected<SmallVector<int64_t>>(ArrayRef<int64_t>, ArrayRef<int64_t>)>
        rule,
    SmallVectorImpl<Type> &inferred) {
  auto lhsType = cast<TensorType>(lhs.getType());
  auto rhsType = cast<TensorType>(rhs.getType());
  if (!lhsType.hasRank() || !rhsType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(lhsType.getElementType()));
    return success();
  }
  auto shape = rule(lhsType.getShape(), rhsType.getShape());
  if (!shape)
    return emitOptionalError(location, llvm::toString(shape.takeError()));
  inferred.push_back(tensorOf(ArrayRef(*shape), lhsType.getElementType()));
  return success();
}

kiln::graph::SliceRange kiln::graph::resolveSliceRange(int64_t dim, int64_t start, int64_t end,
                                                       int64_t step) {
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return {start, std::max<int64_t>(0, (end - start + step - 1) / step)};
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  return {start, std::max<int64_t>(0, (start - end + (-step) - 1) / (-step))};
}

std::optional<SmallVector<int64_t>> kiln::graph::getConstantInts(Value value) {
  ElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)) || !isa<IntegerType>(attr.getElementType()))
    return std::nullopt;
  SmallVector<int64_t> result;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
    for (const APInt &element : dense.getValues<APInt>())
      result.push_back(element.getSExtValue());
    return result;
  }
  if (auto blob = dyn_cast<DenseI64ResourceElementsAttr>(attr))
    if (auto values = blob.tryGetAsArrayRef())
      return SmallVector<int64_t>(*values);
  if (auto blob = dyn_cast<DenseI32ResourceElementsAttr>(attr))
    if (auto values = blob.tryGetAsArrayRef())
      return SmallVector<int64_t>(values->begin(), values->end());
  return std::nullopt;
}

LogicalResult kiln::graph::inferConvResultType(std::optional<Location> location, Value input,
                                               Value weight, ArrayRef<int64_t> strides,
                                               ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads,
                                               int64_t group, Type elementType,
                                               SmallVectorImpl<Type> &inferred, bool channelsLast) {
  // Channels last is the channels-first rule on the dimensions moved into place.
  auto channelsFirst = [&](Value value) {
    return cast<TensorType>(channelsLast ? moveChannelDim(value.getType(), /*toChannelsLast=*/false)
                                         : value.getType());
  };
  TensorType inputType = channelsFirst(input), weightType = channelsFirst(weight);
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
    return emitOptionalError(location, "expects rank 3 or more (",
                             channelsLast ? "[N, spatial..., C]" : "[N, C, spatial...]", "), got ",
                             *rank);
  int64_t spatialRank = strides.size();
  if (rank && spatialRank != *rank - 2)
    return emitOptionalError(location, "expects ", *rank - 2, " strides, got ", spatialRank);
  if (int64_t(dilations.size()) != spatialRank)
    return emitOptionalError(location, "expects ", spatialRank, " dilations, got ",
                             dilations.size());
  if (int64_t(pads.size()) != 2 * spatialRank)
    return emitOptionalError(location, "expects ", 2 * spatialRank,
                             " pads (all beginnings, then all ends), got ", pads.size());
  if (llvm::any_of(strides, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(dilations, [](int64_t d) { return d < 1; }))
    return emitOptionalError(location, "strides and dilations must be positive");
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return emitOptionalError(location, "pads must not be negative");

  int64_t outChannels = weightType.hasRank() ? weightType.getDimSize(0) : ShapedType::kDynamic;
  if (!ShapedType::isDynamic(outChannels) && outChannels % group != 0)
    return emitOptionalError(location, "output channels (", outChannels,
                             ") are not divisible by group (", group, ")");
  if (inputType.hasRank() && weightType.hasRank()) {
    int64_t inChannels = inputType.getDimSize(1), channelsPerGroup = weightType.getDimSize(1);
    if (!ShapedType::isDynamic(inChannels) && !ShapedType::isDynamic(channelsPerGroup) &&
        inChannels != channelsPerGroup * group)
      return emitOptionalError(location, "input channels (", inChannels,
                               ") differ from weight channels per group (", channelsPerGroup,
                               ") times group (", group, ")");
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
    auto extent =
        convOutputExtent(in, kernel, strides[i], dilations[i], pads[i], pads[i + spatialRank]);
    if (!extent)
      return emitOptionalError(location, "spatial dimension ", i, ": ",
                               llvm::toString(extent.takeError()));
    shape[i + 2] = *extent;
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  if (channelsLast)
    inferred.back() = moveChannelDim(inferred.back(), /*toChannelsLast=*/true);
  return success();
}

Type kiln::graph::moveChannelDim(Type type, bool toChannelsLast) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || ranked.getRank() < 3)
    return type;
  SmallVector<int64_t> shape(ranked.getShape());
  if (toChannelsLast)
    std::rotate(shape.begin() + 1, shape.begin() + 2, shape.end());
  else
    std::rotate(shape.begin() + 1, shape.end() - 1, shape.end());
  return RankedTensorType::get(shape, ranked.getElementType(), ranked.getEncoding());
}

FailureOr<int64_t> kiln::graph::normalizeAxis(std::optional<Location> location, int64_t axis,
                                              int64_t rank) {
  if (axis < -rank || axis >= rank)
    return LogicalResult(
        emitOptionalError(location, "axis ", axis, " is out of range for rank ", rank));
  return axis < 0 ? axis + rank : axis;
}

std::optional<SmallVector<double>> kiln::graph::getConstantFloats(Value value) {
  ElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)) || !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  SmallVector<double> result;
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr)) {
    for (const APFloat &element : dense.getValues<APFloat>())
      result.push_back(element.convertToDouble());
    return result;
  }
  if (auto blob = dyn_cast<DenseF32ResourceElementsAttr>(attr))
    if (auto values = blob.tryGetAsArrayRef())
      return SmallVector<double>(values->begin(), values->end());
  return std::nullopt;
}
