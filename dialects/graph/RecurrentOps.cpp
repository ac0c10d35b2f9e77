//===- RecurrentOps.cpp - Recurrent networks ===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>
#include <string>

using namespace mlir;
using namespace kiln::graph;

namespace {

/// What distinguishes RNN, GRU and LSTM in their shapes.
struct RecurrentKind {
  /// Gates whose weights W and R stack along dimension 1 (1, 3, 4).
  int64_t numGates;
  /// Activations per direction (f; f, g; f, g, h).
  int64_t activationsPerDirection;
};

/// The operands of a recurrent op; the optional ones are null when absent.
struct RecurrentOperands {
  Value x, w, r, b, sequenceLens, initialH, initialC, p;
};

/// The normalised attributes shared by the recurrent ops.
struct RecurrentAttributes {
  StringRef direction;
  int64_t hiddenSize;
  ArrayAttr activations;
  ArrayRef<float> activationAlpha, activationBeta;
  std::optional<APFloat> clip;
  int64_t layout;
};

/// One dimension an operand must have: a known extent or kDynamic, shared between operands
/// (batch_size, input_size, seq_length), so the first static extent seen fixes it.
struct ExpectedDim {
  int64_t *extent;
  StringRef meaning;
};

} // namespace

/// The activation functions ONNX allows in RNN, GRU and LSTM.
static constexpr StringLiteral kRecurrentActivations[] = {
    "Relu",       "Tanh",        "Sigmoid", "Affine",   "LeakyRelu", "ThresholdedRelu",
    "ScaledTanh", "HardSigmoid", "Elu",     "Softsign", "Softplus"};

/// Checks that `value` (when ranked) has one extent per entry of `dims`, each compatible
/// with the expected extent; a dynamic expected extent takes the operand's static one, so
/// later operands are checked against it.
static LogicalResult matchShape(std::optional<Location> location, Value value, StringRef what,
                                ArrayRef<ExpectedDim> dims) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return success();
  if (type.getRank() != int64_t(dims.size())) {
    std::string layout = "[";
    for (auto [index, dim] : llvm::enumerate(dims)) {
      if (index)
        layout += ", ";
      layout += dim.meaning.str();
    }
    return emitOptionalError(location, what, " must have rank ", dims.size(), " (", layout,
                             "]), got ", type.getRank());
  }
  for (auto [index, dim] : llvm::enumerate(dims)) {
    int64_t actual = type.getDimSize(index);
    if (ShapedType::isDynamic(actual))
      continue;
    if (ShapedType::isDynamic(*dim.extent))
      *dim.extent = actual;
    else if (*dim.extent != actual)
      return emitOptionalError(location, what, " dimension ", index, " is ", actual, ", expected ",
                               *dim.extent, " (", dim.meaning, ")");
  }
  return success();
}

/// The shape rule of RNN, GRU and LSTM: checks operands and attributes against each other and
/// infers Y, Y_h and (LSTM) Y_c.
static LogicalResult inferRecurrentTypes(std::optional<Location> location, RecurrentKind kind,
                                         const RecurrentOperands &operands,
                                         const RecurrentAttributes &attributes, unsigned numResults,
                                         SmallVectorImpl<Type> &inferred) {
  StringRef direction = attributes.direction;
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return emitOptionalError(location, "direction '", direction,
                             "' is not one of forward, reverse, bidirectional");
  int64_t numDirections = direction == "bidirectional" ? 2 : 1;
  int64_t hiddenSize = attributes.hiddenSize;
  if (hiddenSize < 1)
    return emitOptionalError(location, "hidden_size must be positive, got ", hiddenSize);
  // The stacked gates' extents (up to 8 * hidden_size for LSTM's B) must not overflow.
  if (hiddenSize > std::numeric_limits<int64_t>::max() / 8)
    return emitOptionalError(location, "hidden_size ", hiddenSize, " is too large");
  if (attributes.layout != 0 && attributes.layout != 1)
    return emitOptionalError(location, "layout must be 0 or 1, got ", attributes.layout);

  size_t expectedActivations = numDirections * kind.activationsPerDirection;
  if (attributes.activations.size() != expectedActivations)
    return emitOptionalError(location, "expects ", expectedActivations, " activations (",
                             kind.activationsPerDirection, " per direction), got ",
                             attributes.activations.size());
  for (Attribute activation : attributes.activations) {
    // The ODS constraint guarantees strings once verified, but the importer asks the shape
    // rule before verifying.
    auto nameAttr = dyn_cast<StringAttr>(activation);
    if (!nameAttr)
      return emitOptionalError(location, "activations must be strings, got ", activation);
    StringRef name = nameAttr.getValue();
    if (!llvm::is_contained(kRecurrentActivations, name))
      return emitOptionalError(location, "activation '", name, "' is not one of ",
                               llvm::join(ArrayRef(kRecurrentActivations), ", "));
  }
  if (attributes.activationAlpha.size() != expectedActivations)
    return emitOptionalError(location, "activation_alpha has ", attributes.activationAlpha.size(),
                             " values for ", expectedActivations, " activations");
  if (attributes.activationBeta.size() != expectedActivations)
    return emitOptionalError(location, "activation_beta has ", attributes.activationBeta.size(),
                             " values for ", expectedActivations, " activations");
  // A clip of 0 or less would leave no range to clamp to.
  if (attributes.clip &&
      (attributes.clip->isNegative() || attributes.clip->isZero() || attributes.clip->isNaN()))
    return emitOptionalError(location, "clip must be positive, got ",
                             attributes.clip->convertToDouble());

  Type elementType = getElementTypeOrSelf(operands.x.getType());
  if (!isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(elementType))
    return emitOptionalError(location, "X element type must be f16, bf16, f32 or f64, got ",
                             elementType);
  auto checkElementType = [&](Value value, StringRef what) -> LogicalResult {
    if (!value || getElementTypeOrSelf(value.getType()) == elementType)
      return success();
    return emitOptionalError(location, what, " element type ",
                             getElementTypeOrSelf(value.getType()), " differs from X element type ",
                             elementType);
  };
  if (failed(checkElementType(operands.w, "W")) || failed(checkElementType(operands.r, "R")) ||
      failed(checkElementType(operands.b, "B")) ||
      failed(checkElementType(operands.initialH, "initial_h")) ||
      failed(checkElementType(operands.initialC, "initial_c")) ||
      failed(checkElementType(operands.p, "P")))
    return failure();
  if (operands.sequenceLens) {
    Type lensType = getElementTypeOrSelf(operands.sequenceLens.getType());
    if (!lensType.isSignlessInteger(32))
      return emitOptionalError(location, "sequence_lens element type must be i32, got ", lensType);
  }

  // Extents learnt from the operands as they are checked.
  int64_t seqLength = ShapedType::kDynamic, batchSize = ShapedType::kDynamic,
          inputSize = ShapedType::kDynamic;
  // Fixed extents, as variables because ExpectedDim points at them.
  int64_t directions = numDirections, hidden = hiddenSize, gatesHidden = kind.numGates * hiddenSize,
          biasSize = 2 * kind.numGates * hiddenSize, peepholeSize = 3 * hiddenSize;
  std::string gatesMeaning = std::to_string(kind.numGates) + " * hidden_size";
  std::string biasMeaning = std::to_string(2 * kind.numGates) + " * hidden_size";
  if (kind.numGates == 1)
    gatesMeaning = "hidden_size";
  bool batchFirst = attributes.layout == 1;

  ExpectedDim seqDim{&seqLength, "seq_length"}, batchDim{&batchSize, "batch_size"},
      inputDim{&inputSize, "input_size"}, directionsDim{&directions, "num_directions"},
      hiddenDim{&hidden, "hidden_size"};
  SmallVector<ExpectedDim> xDims = batchFirst
                                       ? SmallVector<ExpectedDim>{batchDim, seqDim, inputDim}
                                       : SmallVector<ExpectedDim>{seqDim, batchDim, inputDim};
  SmallVector<ExpectedDim> stateDims =
      batchFirst ? SmallVector<ExpectedDim>{batchDim, directionsDim, hiddenDim}
                 : SmallVector<ExpectedDim>{directionsDim, batchDim, hiddenDim};
  if (failed(matchShape(location, operands.x, "X", xDims)) ||
      failed(matchShape(location, operands.w, "W",
                        {directionsDim, {&gatesHidden, gatesMeaning}, inputDim})) ||
      failed(matchShape(location, operands.r, "R",
                        {directionsDim, {&gatesHidden, gatesMeaning}, hiddenDim})))
    return failure();
  if (operands.b &&
      failed(matchShape(location, operands.b, "B", {directionsDim, {&biasSize, biasMeaning}})))
    return failure();
  if (operands.sequenceLens &&
      failed(matchShape(location, operands.sequenceLens, "sequence_lens", {batchDim})))
    return failure();
  if (operands.initialH && failed(matchShape(location, operands.initialH, "initial_h", stateDims)))
    return failure();
  if (operands.initialC && failed(matchShape(location, operands.initialC, "initial_c", stateDims)))
    return failure();
  if (operands.p && failed(matchShape(location, operands.p, "P",
                                      {directionsDim, {&peepholeSize, "3 * hidden_size"}})))
    return failure();

  SmallVector<int64_t> yShape =
      batchFirst ? SmallVector<int64_t>{batchSize, seqLength, numDirections, hiddenSize}
                 : SmallVector<int64_t>{seqLength, numDirections, batchSize, hiddenSize};
  SmallVector<int64_t> stateShape =
      batchFirst ? SmallVector<int64_t>{batchSize, numDirections, hiddenSize}
                 : SmallVector<int64_t>{numDirections, batchSize, hiddenSize};
  inferred.push_back(RankedTensorType::get(yShape, elementType));
  for (unsigned index = 1; index < numResults; ++index)
    inferred.push_back(RankedTensorType::get(stateShape, elementType));
  return success();
}

template <typename Adaptor> static RecurrentAttributes readRecurrentAttributes(Adaptor adaptor) {
  std::optional<APFloat> clip;
  if (FloatAttr clipAttr = adaptor.getClipAttr())
    clip = clipAttr.getValue();
  // The I64Attr getters return unsigned values; the signed ones let the shape rule report
  // negative extents as they were written.
  return {adaptor.getDirection(),          adaptor.getHiddenSizeAttr().getInt(),
          adaptor.getActivations(),        adaptor.getActivationAlpha(),
          adaptor.getActivationBeta(),     clip,
          adaptor.getLayoutAttr().getInt()};
}

//===----------------------------------------------------------------------===//
// RnnOp, GruOp, LstmOp
//===----------------------------------------------------------------------===//

LogicalResult RnnOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                      Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RecurrentOperands operands{adaptor.getX(),
                             adaptor.getW(),
                             adaptor.getR(),
                             adaptor.getB(),
                             adaptor.getSequenceLens(),
                             adaptor.getInitialH(),
                             Value(),
                             Value()};
  return inferRecurrentTypes(location, {1, 1}, operands, readRecurrentAttributes(adaptor), 2,
                             inferred);
}

LogicalResult GruOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                      Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RecurrentOperands operands{adaptor.getX(),
                             adaptor.getW(),
                             adaptor.getR(),
                             adaptor.getB(),
                             adaptor.getSequenceLens(),
                             adaptor.getInitialH(),
                             Value(),
                             Value()};
  return inferRecurrentTypes(location, {3, 2}, operands, readRecurrentAttributes(adaptor), 2,
                             inferred);
}

LogicalResult LstmOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                       Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  RecurrentOperands operands{adaptor.getX(),
                             adaptor.getW(),
                             adaptor.getR(),
                             adaptor.getB(),
                             adaptor.getSequenceLens(),
                             adaptor.getInitialH(),
                             adaptor.getInitialC(),
                             adaptor.getP()};
  return inferRecurrentTypes(location, {4, 3}, operands, readRecurrentAttributes(adaptor), 3,
                             inferred);
}
