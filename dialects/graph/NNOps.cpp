//===- NNOps.cpp - Convolution, pooling, normalisation, matmul -------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace kiln::graph;

//===----------------------------------------------------------------------===//
// ConvOp
//===----------------------------------------------------------------------===//

LogicalResult ConvOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                       Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto weightType = cast<TensorType>(adaptor.getWeight().getType());
  Type elementType = inputType.getElementType();
  if (weightType.getElementType() != elementType)
    return emitOptionalError(location, "weight element type ", weightType.getElementType(),
                             " differs from input element type ", elementType);

  // The rank comes from whichever of input and weight is ranked.
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
                    pads = adaptor.getPads();
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

  int64_t group = adaptor.getGroup();
  int64_t outChannels = weightType.hasRank() ? weightType.getDimSize(0) : ShapedType::kDynamic;
  if (weightType.hasRank() && !ShapedType::isDynamic(outChannels) && outChannels % group != 0)
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
  if (Value bias = adaptor.getBias()) {
    auto biasType = cast<TensorType>(bias.getType());
    if (biasType.getElementType() != elementType)
      return emitOptionalError(location, "bias element type differs from input element type");
    if (biasType.hasRank()) {
      if (biasType.getRank() != 1)
        return emitOptionalError(location, "bias must have rank 1, got ", biasType.getRank());
      if (failed(verifyCompatibleDims({biasType.getDimSize(0), outChannels})))
        return emitOptionalError(location, "bias has ", biasType.getDimSize(0), " elements for ",
                                 outChannels, " output channels");
    }
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
  inferred.push_back(tensorOf(ArrayRef(shape), elementType));
  return success();
}

//===----------------------------------------------------------------------===//
// MatMulOp
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                         Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferBinaryOpType(location, adaptor.getLhs(), adaptor.getRhs(), matmulShape, inferred);
}
