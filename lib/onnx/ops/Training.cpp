//===- Training.cpp - Converters for the optimizers of ai.onnx.preview.training ===//
//
// Adagrad, Adam and Momentum (opset 1 of the training domain, the only one). Each node
// takes R, T and then its tensors grouped as ONNX orders them, which the graph ops keep.
//
//===----------------------------------------------------------------------===//

#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::onnx {

/// The operands of an optimizer node: R, T and every tensor of the variadic groups, which
/// must be `groups` groups of equal size. The node must write one output per parameter and
/// per state (`groups - 1` outputs per updated tensor).
static FailureOr<SmallVector<Value>> optimizerOperands(NodeImporter &node, size_t groups,
                                                       llvm::StringRef groupNames) {
  size_t numInputs = node.numInputs();
  if (numInputs < 2 + groups || (numInputs - 2) % groups != 0)
    return LogicalResult(node.error() << "expects R, T, then " << groupNames
                                      << " for each updated tensor (a multiple of " << groups
                                      << " inputs after R and T), got " << numInputs << " inputs");
  size_t count = (numInputs - 2) / groups;
  if (node.numOutputs() != count * (groups - 1))
    return LogicalResult(node.error() << "expects " << count * (groups - 1) << " outputs for "
                                      << count << " updated tensors, got " << node.numOutputs());
  SmallVector<Value> operands;
  for (size_t index = 0; index < numInputs; ++index) {
    auto operand = node.requiredInput(index);
    if (failed(operand))
      return failure();
    operands.push_back(*operand);
  }
  return operands;
}

static NamedAttribute floatAttribute(NodeImporter &node, llvm::StringRef name, float value) {
  OpBuilder &b = node.builder();
  return b.getNamedAttr(name, b.getF32FloatAttr(value));
}

static LogicalResult convertAdagrad(NodeImporter &node) {
  auto operands = optimizerOperands(node, 3, "X, G and H");
  auto decayFactor = node.floatAttr("decay_factor", 0.0f);
  auto epsilon = node.floatAttr("epsilon", 1e-6f);
  auto normCoefficient = node.floatAttr("norm_coefficient", 0.0f);
  if (failed(operands) || failed(decayFactor) || failed(epsilon) || failed(normCoefficient))
    return failure();
  return node.setResults(
      node.create<graph::AdagradOp>(*operands,
                                    {floatAttribute(node, "decay_factor", *decayFactor),
                                     floatAttribute(node, "epsilon", *epsilon),
                                     floatAttribute(node, "norm_coefficient", *normCoefficient)},
                                    node.numOutputs()));
}

static LogicalResult convertAdam(NodeImporter &node) {
  auto operands = optimizerOperands(node, 4, "X, G, V and H");
  auto alpha = node.floatAttr("alpha", 0.9f);
  auto beta = node.floatAttr("beta", 0.999f);
  auto epsilon = node.floatAttr("epsilon", 1e-6f);
  auto normCoefficient = node.floatAttr("norm_coefficient", 0.0f);
  auto normCoefficientPost = node.floatAttr("norm_coefficient_post", 0.0f);
  if (failed(operands) || failed(alpha) || failed(beta) || failed(epsilon) ||
      failed(normCoefficient) || failed(normCoefficientPost))
    return failure();
  return node.setResults(node.create<graph::AdamOp>(
      *operands,
      {floatAttribute(node, "alpha", *alpha), floatAttribute(node, "beta", *beta),
       floatAttribute(node, "epsilon", *epsilon),
       floatAttribute(node, "norm_coefficient", *normCoefficient),
       floatAttribute(node, "norm_coefficient_post", *normCoefficientPost)},
      node.numOutputs()));
}

static LogicalResult convertMomentum(NodeImporter &node) {
  auto operands = optimizerOperands(node, 3, "X, G and V");
  if (failed(operands))
    return failure();
  // ONNX requires every attribute of Momentum.
  auto alpha = node.floatAttr("alpha");
  auto beta = node.floatAttr("beta");
  auto normCoefficient = node.floatAttr("norm_coefficient");
  auto mode = node.stringAttr("mode");
  if (failed(alpha) || failed(beta) || failed(normCoefficient) || failed(mode))
    return failure();
  for (auto [present, name] :
       {std::pair(alpha->has_value(), "alpha"), std::pair(beta->has_value(), "beta"),
        std::pair(normCoefficient->has_value(), "norm_coefficient"),
        std::pair(mode->has_value(), "mode")})
    if (!present)
      return node.error() << "the attribute '" << name << "' is required";
  if (**mode != "standard" && **mode != "nesterov")
    return node.error() << "mode must be standard or nesterov, got '" << **mode << "'";
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::MomentumOp>(
      *operands,
      {floatAttribute(node, "alpha", **alpha), floatAttribute(node, "beta", **beta),
       b.getNamedAttr("mode", b.getStringAttr(**mode)),
       floatAttribute(node, "norm_coefficient", **normCoefficient)},
      node.numOutputs()));
}

void addTrainingConverters(ConverterRegistry &registry) {
  llvm::StringRef domain = ConverterRegistry::kTrainingDomain;
  registry.add("Adagrad", convertAdagrad, 1, domain);
  registry.add("Adam", convertAdam, 1, domain);
  registry.add("Momentum", convertMomentum, 1, domain);
}

} // namespace kiln::onnx
