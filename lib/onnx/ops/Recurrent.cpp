//===- Recurrent.cpp - Converters for recurrent networks ===//

#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace kiln::onnx {

namespace {

/// How an activation function uses one of its parameters (alpha or beta).
struct Parameter {
  bool taken;
  /// The default of the ONNX operator of the same name, when it has one.
  std::optional<float> defaultValue;
};
constexpr Parameter kUnused{false, std::nullopt};
constexpr Parameter kRequired{true, std::nullopt};
constexpr Parameter defaultsTo(float value) { return {true, value}; }

/// An activation function ONNX allows in RNN, GRU and LSTM, with the parameters it takes.
struct ActivationInfo {
  StringLiteral name;
  Parameter alpha, beta;
};

/// What distinguishes RNN, GRU and LSTM for the converter.
struct RecurrentKind {
  /// The operands after X, W and R that the operator defines.
  unsigned numInputs;
  unsigned numResults;
  /// ONNX's default activations for one direction.
  ArrayRef<StringLiteral> defaultActivations;
  /// Gates stacked along W's dimension 1.
  int64_t numGates;
};

} // namespace

// The defaults are those of the ONNX operators (the experimental Affine of ONNX 1.x had
// alpha 1 and beta 0; the experimental ScaledTanh had no defaults, so a model must give
// both). ONNX Runtime instead uses 0 for ThresholdedRelu's, Affine's and ScaledTanh's.
static const ActivationInfo kActivations[] = {
    {"Relu", kUnused, kUnused},
    {"Tanh", kUnused, kUnused},
    {"Sigmoid", kUnused, kUnused},
    {"Affine", defaultsTo(1.0f), defaultsTo(0.0f)},
    {"LeakyRelu", defaultsTo(0.01f), kUnused},
    {"ThresholdedRelu", defaultsTo(1.0f), kUnused},
    {"ScaledTanh", kRequired, kRequired},
    {"HardSigmoid", defaultsTo(0.2f), defaultsTo(0.5f)},
    {"Elu", defaultsTo(1.0f), kUnused},
    {"Softsign", kUnused, kUnused},
    {"Softplus", kUnused, kUnused},
};

/// The activation named `name`; ONNX Runtime matches names regardless of case, so models
/// written for it may spell them in lower case.
static const ActivationInfo *lookupActivation(StringRef name) {
  for (const ActivationInfo &info : kActivations)
    if (name.equals_insensitive(info.name))
      return &info;
  return nullptr;
}

/// hidden_size, or when the attribute is absent the extent W (`[num_directions,
/// num_gates * hidden_size, input_size]`) or else R (`[num_directions,
/// num_gates * hidden_size, hidden_size]`) gives it.
static FailureOr<int64_t> readHiddenSize(NodeImporter &node, Value w, Value r, int64_t numGates) {
  auto hiddenSize = node.intAttr("hidden_size");
  if (failed(hiddenSize))
    return failure();
  if (*hiddenSize) {
    if (**hiddenSize < 1)
      return LogicalResult(node.error() << "hidden_size must be positive, got " << **hiddenSize);
    return **hiddenSize;
  }
  if (auto wType = dyn_cast<RankedTensorType>(w.getType());
      wType && wType.getRank() == 3 && !wType.isDynamicDim(1)) {
    int64_t rows = wType.getDimSize(1);
    if (rows < numGates || rows % numGates != 0)
      return LogicalResult(node.error() << "hidden_size is absent and W's " << rows
                                        << " rows are not " << numGates << " gates of equal size");
    return rows / numGates;
  }
  if (auto rType = dyn_cast<RankedTensorType>(r.getType());
      rType && rType.getRank() == 3 && !rType.isDynamicDim(2) && rType.getDimSize(2) > 0)
    return rType.getDimSize(2);
  return LogicalResult(node.error()
                       << "hidden_size is absent and the shapes of W and R do not give it");
}

namespace {
/// The normalised activations and their parameters: ONNX's defaults where absent, canonical
/// names, and one alpha and one beta per activation.
struct Activations {
  SmallVector<StringRef> names;
  SmallVector<float> alpha, beta;
};
} // namespace

static FailureOr<Activations> readActivations(NodeImporter &node, const RecurrentKind &kind,
                                              int64_t numDirections) {
  auto names = node.stringsAttr("activations");
  auto alphas = node.floatsAttr("activation_alpha");
  auto betas = node.floatsAttr("activation_beta");
  if (failed(names) || failed(alphas) || failed(betas))
    return failure();

  size_t expected = numDirections * kind.defaultActivations.size();
  SmallVector<const ActivationInfo *> infos;
  if (*names) {
    if ((*names)->size() != expected)
      return LogicalResult(node.error() << "expects " << expected << " activations ("
                                        << kind.defaultActivations.size() << " per direction), got "
                                        << (*names)->size());
    for (const std::string &name : **names) {
      const ActivationInfo *info = lookupActivation(name);
      if (!info)
        return LogicalResult(node.error() << "activation '" << name
                                          << "' is not one that ONNX allows in " << node.opType());
      infos.push_back(info);
    }
  } else {
    for (int64_t direction = 0; direction < numDirections; ++direction)
      for (StringRef name : kind.defaultActivations)
        infos.push_back(lookupActivation(name));
  }

  // As ONNX says and ONNX Runtime does, the listed values are consumed in the order of the
  // activations, each taking one only when it has that parameter.
  Activations result;
  SmallVector<float> alphaValues = alphas->value_or(SmallVector<float>());
  SmallVector<float> betaValues = betas->value_or(SmallVector<float>());
  size_t nextAlpha = 0, nextBeta = 0;
  // The value of `parameter` for the next activation; 0 when the activation does not take
  // it.
  auto take = [&](const ActivationInfo &info, const Parameter &parameter, StringRef what,
                  ArrayRef<float> values, size_t &next) -> FailureOr<float> {
    if (!parameter.taken)
      return 0.0f;
    if (next < values.size())
      return values[next++];
    if (parameter.defaultValue)
      return *parameter.defaultValue;
    return LogicalResult(node.error() << "activation " << info.name << " needs a value in " << what
                                      << ": it has no default");
  };
  for (const ActivationInfo *info : infos) {
    result.names.push_back(info->name);
    auto alpha = take(*info, info->alpha, "activation_alpha", alphaValues, nextAlpha);
    auto beta = take(*info, info->beta, "activation_beta", betaValues, nextBeta);
    if (failed(alpha) || failed(beta))
      return failure();
    result.alpha.push_back(*alpha);
    result.beta.push_back(*beta);
  }
  if (nextAlpha != alphaValues.size())
    return LogicalResult(node.error() << "activation_alpha has " << alphaValues.size()
                                      << " values, but the activations take " << nextAlpha);
  if (nextBeta != betaValues.size())
    return LogicalResult(node.error() << "activation_beta has " << betaValues.size()
                                      << " values, but the activations take " << nextBeta);
  return result;
}

/// Converts RNN, GRU or LSTM into `OpTy`; `extraAttributes` are the operator's own
/// (linear_before_reset, input_forget).
template <typename OpTy>
static LogicalResult convertRecurrent(NodeImporter &node, const RecurrentKind &kind,
                                      ArrayRef<NamedAttribute> extraAttributes) {
  auto x = node.requiredInput(0);
  auto w = node.requiredInput(1);
  auto r = node.requiredInput(2);
  if (failed(x) || failed(w) || failed(r))
    return failure();
  if (node.numInputs() > 3 + kind.numInputs)
    return node.error() << "has " << node.numInputs() << " inputs, " << node.opType()
                        << " takes at most " << 3 + kind.numInputs;
  SmallVector<Value> operands{*x, *w, *r};
  SmallVector<int32_t> segmentSizes{1, 1, 1};
  for (unsigned index = 3; index < 3 + kind.numInputs; ++index) {
    Value input = node.input(index);
    if (input)
      operands.push_back(input);
    segmentSizes.push_back(input ? 1 : 0);
  }

  auto direction = node.stringAttr("direction", "forward");
  auto clip = node.floatAttr("clip");
  if (failed(direction) || failed(clip))
    return failure();
  if (*direction != "forward" && *direction != "reverse" && *direction != "bidirectional")
    return node.error() << "direction '" << *direction
                        << "' is not one of forward, reverse, bidirectional";
  int64_t numDirections = *direction == "bidirectional" ? 2 : 1;
  auto hiddenSize = readHiddenSize(node, *w, *r, kind.numGates);
  if (failed(hiddenSize))
    return failure();
  auto activations = readActivations(node, kind, numDirections);
  if (failed(activations))
    return failure();
  if (*clip && !(**clip > 0.0f))
    return node.error() << "clip must be positive, got " << **clip;

  // layout exists from opset 14 on; before, X and the states are always sequence first.
  int64_t layout = 0;
  if (node.opset() >= 14) {
    auto layoutAttr = node.intAttr("layout", 0);
    if (failed(layoutAttr))
      return failure();
    if (*layoutAttr != 0 && *layoutAttr != 1)
      return node.error() << "layout must be 0 or 1, got " << *layoutAttr;
    layout = *layoutAttr;
  } else if (node.attribute("layout")) {
    return node.error() << "layout is not defined at opset " << node.opset();
  }
  // Before opset 7, output_sequence said whether Y is computed; every result is computed
  // now and Y is bound when the node names it, so the flag only needs to be valid.
  if (node.opset() < 7 && failed(node.boolAttr("output_sequence", false)))
    return failure();

  OpBuilder &builder = node.builder();
  SmallVector<NamedAttribute> attributes{
      builder.getNamedAttr("direction", builder.getStringAttr(*direction)),
      builder.getNamedAttr("hidden_size", builder.getI64IntegerAttr(*hiddenSize)),
      builder.getNamedAttr("activations", builder.getStrArrayAttr(activations->names)),
      builder.getNamedAttr("activation_alpha", builder.getDenseF32ArrayAttr(activations->alpha)),
      builder.getNamedAttr("activation_beta", builder.getDenseF32ArrayAttr(activations->beta)),
      builder.getNamedAttr("layout", builder.getI64IntegerAttr(layout)),
      builder.getNamedAttr("operandSegmentSizes", builder.getDenseI32ArrayAttr(segmentSizes))};
  if (*clip)
    attributes.push_back(builder.getNamedAttr("clip", builder.getF32FloatAttr(**clip)));
  attributes.append(extraAttributes.begin(), extraAttributes.end());

  auto op = node.create<OpTy>(operands, attributes, kind.numResults);
  if (failed(op))
    return failure();
  return node.setResults((*op)->getResults());
}

static constexpr StringLiteral kRnnActivations[] = {"Tanh"};
static constexpr StringLiteral kGruActivations[] = {"Sigmoid", "Tanh"};
static constexpr StringLiteral kLstmActivations[] = {"Sigmoid", "Tanh", "Tanh"};

static LogicalResult convertRnn(NodeImporter &node) {
  return convertRecurrent<graph::RnnOp>(node, {3, 2, kRnnActivations, 1}, {});
}

static LogicalResult convertGru(NodeImporter &node) {
  // linear_before_reset exists from opset 3 on; GRU-1 always applies the reset gate first.
  if (node.opset() < 3 && node.attribute("linear_before_reset"))
    return node.error() << "linear_before_reset is not defined at opset " << node.opset();
  auto linearBeforeReset = node.boolAttr("linear_before_reset", false);
  if (failed(linearBeforeReset))
    return failure();
  OpBuilder &builder = node.builder();
  return convertRecurrent<graph::GruOp>(
      node, {3, 2, kGruActivations, 3},
      {builder.getNamedAttr("linear_before_reset", builder.getBoolAttr(*linearBeforeReset))});
}

static LogicalResult convertLstm(NodeImporter &node) {
  auto inputForget = node.boolAttr("input_forget", false);
  if (failed(inputForget))
    return failure();
  OpBuilder &builder = node.builder();
  return convertRecurrent<graph::LstmOp>(
      node, {5, 3, kLstmActivations, 4},
      {builder.getNamedAttr("input_forget", builder.getBoolAttr(*inputForget))});
}

void addRecurrentConverters(ConverterRegistry &registry) {
  registry.add("RNN", convertRnn);
  registry.add("GRU", convertGru);
  registry.add("LSTM", convertLstm);
}

} // namespace kiln::onnx
