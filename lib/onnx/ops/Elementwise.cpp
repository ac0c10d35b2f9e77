//===- Elementwise.cpp - Converters for elementwise math and logic --------===//

#include "lib/onnx/NodeImporter.h"
#include "lib/onnx/Tensors.h"

#include "dialects/graph/GraphOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::onnx {

/// Creates `OpTy` from `operands` and `attributes` and binds the node's outputs to it.
template <typename OpTy>
static LogicalResult createAndBind(NodeImporter &node, ValueRange operands,
                                   ArrayRef<NamedAttribute> attributes = {}) {
  auto op = node.create<OpTy>(operands, attributes);
  if (failed(op))
    return failure();
  return node.setResults((*op)->getResults());
}

/// The node's inputs 0 to `count - 1`, all required.
static FailureOr<SmallVector<Value>> requiredInputs(NodeImporter &node, size_t count) {
  SmallVector<Value> inputs;
  for (size_t index = 0; index < count; ++index) {
    auto input = node.requiredInput(index);
    if (failed(input))
      return failure();
    inputs.push_back(*input);
  }
  return inputs;
}

/// A constant scalar or tensor of `type` whose every element is `value`.
static DenseElementsAttr splat(ShapedType type, double value) {
  Type elementType = type.getElementType();
  if (isa<FloatType>(elementType))
    return DenseElementsAttr::get(type, FloatAttr::get(elementType, value));
  return DenseElementsAttr::get(type, IntegerAttr::get(elementType, int64_t(value)));
}

//===----------------------------------------------------------------------===//
// Fixed-arity ops
//===----------------------------------------------------------------------===//

/// `value` with `count` trailing dimensions of extent 1 added (an Unsqueeze).
static FailureOr<Value> appendUnitDims(NodeImporter &node, Value value, int64_t rank,
                                       int64_t count) {
  if (count == 0)
    return value;
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < count; ++i)
    axes.push_back(rank + i);
  auto op = node.create<graph::UnsqueezeOp>({value, node.constantI64(axes)});
  if (failed(op))
    return failure();
  return (*op)->getResult(0);
}

/// Before opset 7, binary ops broadcast only with `broadcast = 1`, aligning the second
/// operand with the first from `axis` on (default: the trailing dimensions). Rewrites the
/// second operand so that NumPy broadcasting, the newest form, gives the same result.
static LogicalResult legacyBroadcast(NodeImporter &node, SmallVector<Value> &operands) {
  auto broadcast = node.intAttr("broadcast", 0);
  auto axis = node.intAttr("axis");
  if (failed(broadcast) || failed(axis))
    return failure();
  if (*broadcast == 0 || !*axis)
    return success(); // equal shapes, or trailing alignment: NumPy does the same
  auto lhsType = dyn_cast<RankedTensorType>(operands[0].getType());
  auto rhsType = dyn_cast<RankedTensorType>(operands[1].getType());
  if (!lhsType || !rhsType)
    return node.error() << "broadcast with an axis needs operands of known rank";
  int64_t lhsRank = lhsType.getRank(), rhsRank = rhsType.getRank();
  int64_t start = **axis < 0 ? **axis + lhsRank : **axis;
  int64_t trailing = lhsRank - start - rhsRank;
  if (start < 0 || trailing < 0)
    return node.error() << "broadcast axis " << **axis << " does not fit a rank-" << rhsRank
                        << " operand into rank " << lhsRank;
  auto aligned = appendUnitDims(node, operands[1], rhsRank, trailing);
  if (failed(aligned))
    return failure();
  operands[1] = *aligned;
  return success();
}

/// A binary op with NumPy broadcasting (from opset 7; older forms are rewritten to it).
template <typename OpTy> static LogicalResult convertBinary(NodeImporter &node) {
  auto operands = requiredInputs(node, 2);
  if (failed(operands))
    return failure();
  if (node.opset() < 7 && failed(legacyBroadcast(node, *operands)))
    return failure();
  return createAndBind<OpTy>(node, *operands);
}

/// PRelu: from opset 7 the slope broadcasts to X the NumPy way. Before, a 1-D slope held
/// one value per channel (dimension 1 of X); it is given trailing unit dimensions.
static LogicalResult convertPRelu(NodeImporter &node) {
  auto operands = requiredInputs(node, 2);
  if (failed(operands))
    return failure();
  auto inputType = dyn_cast<RankedTensorType>((*operands)[0].getType());
  auto slopeType = dyn_cast<RankedTensorType>((*operands)[1].getType());
  if (node.opset() < 7 && inputType && slopeType && slopeType.getRank() == 1 &&
      slopeType.getDimSize(0) != 1 && inputType.getRank() > 2) {
    auto slope = appendUnitDims(node, (*operands)[1], 1, inputType.getRank() - 2);
    if (failed(slope))
      return failure();
    (*operands)[1] = *slope;
  }
  return createAndBind<graph::PReluOp>(node, *operands);
}

/// A unary op without attributes.
template <typename OpTy> static LogicalResult convertUnary(NodeImporter &node) {
  auto operands = requiredInputs(node, 1);
  if (failed(operands))
    return failure();
  return createAndBind<OpTy>(node, *operands);
}

/// An ONNX FLOAT attribute with its default, e.g. Elu's alpha.
struct FloatAttrDefault {
  const char *name;
  float defaultValue;
};

/// A unary op whose attributes are floats with ONNX defaults (Elu, Selu, ...).
template <typename OpTy>
static LogicalResult convertUnaryWithFloats(NodeImporter &node,
                                            ArrayRef<FloatAttrDefault> defaults) {
  auto operands = requiredInputs(node, 1);
  if (failed(operands))
    return failure();
  SmallVector<NamedAttribute> attributes;
  for (const FloatAttrDefault &attr : defaults) {
    auto value = node.floatAttr(attr.name, attr.defaultValue);
    if (failed(value))
      return failure();
    attributes.push_back(
        node.builder().getNamedAttr(attr.name, node.builder().getF32FloatAttr(*value)));
  }
  return createAndBind<OpTy>(node, *operands, attributes);
}

/// Max, Min, Sum, Mean: one or more inputs broadcast together. Their opset 6 versions,
/// which opset 7 models still use, required equal shapes; broadcasting them is the same.
template <typename OpTy> static LogicalResult convertVariadic(NodeImporter &node) {
  if (node.numInputs() == 0)
    return node.error() << "expects at least one input";
  auto operands = requiredInputs(node, node.numInputs());
  if (failed(operands))
    return failure();
  return createAndBind<OpTy>(node, *operands);
}

//===----------------------------------------------------------------------===//
// Ops with attributes
//===----------------------------------------------------------------------===//

static LogicalResult convertMod(NodeImporter &node) {
  auto operands = requiredInputs(node, 2);
  auto fmod = node.boolAttr("fmod", false);
  if (failed(operands) || failed(fmod))
    return failure();
  // Said here with the node's name rather than left to graph.mod's shape rule.
  Type elementType = getElementTypeOrSelf((*operands)[0].getType());
  if (!*fmod && !isa<IntegerType>(elementType))
    return node.error() << "fmod = 0 (the integer remainder) needs integer inputs, got "
                        << elementType << "; set fmod = 1 for floats";
  OpBuilder &b = node.builder();
  return createAndBind<graph::ModOp>(node, *operands,
                                     {b.getNamedAttr("fmod", b.getBoolAttr(*fmod))});
}

static LogicalResult convertBitShift(NodeImporter &node) {
  auto operands = requiredInputs(node, 2);
  if (failed(operands))
    return failure();
  auto direction = node.stringAttr("direction");
  if (failed(direction))
    return failure();
  if (!*direction)
    return node.error() << "attribute 'direction' is required";
  if (**direction != "LEFT" && **direction != "RIGHT")
    return node.error() << "attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \""
                        << **direction << "\"";
  OpBuilder &b = node.builder();
  return createAndBind<graph::BitShiftOp>(
      node, *operands, {b.getNamedAttr("direction", b.getStringAttr(**direction))});
}

static LogicalResult convertIsInf(NodeImporter &node) {
  auto operands = requiredInputs(node, 1);
  auto negative = node.boolAttr("detect_negative", true);
  auto positive = node.boolAttr("detect_positive", true);
  if (failed(operands) || failed(negative) || failed(positive))
    return failure();
  OpBuilder &b = node.builder();
  return createAndBind<graph::IsInfOp>(
      node, *operands,
      {b.getNamedAttr("detect_negative", b.getBoolAttr(*negative)),
       b.getNamedAttr("detect_positive", b.getBoolAttr(*positive))});
}

static LogicalResult convertGelu(NodeImporter &node) {
  auto operands = requiredInputs(node, 1);
  if (failed(operands))
    return failure();
  auto approximate = node.stringAttr("approximate", "none");
  if (failed(approximate))
    return failure();
  if (*approximate != "none" && *approximate != "tanh")
    return node.error() << "attribute 'approximate' must be \"none\" or \"tanh\", got \""
                        << *approximate << "\"";
  OpBuilder &b = node.builder();
  return createAndBind<graph::GeluOp>(
      node, *operands, {b.getNamedAttr("approximate", b.getStringAttr(*approximate))});
}

//===----------------------------------------------------------------------===//
// Where, Clip
//===----------------------------------------------------------------------===//

static LogicalResult convertWhere(NodeImporter &node) {
  auto operands = requiredInputs(node, 3);
  if (failed(operands))
    return failure();
  return createAndBind<graph::WhereOp>(node, *operands);
}

static LogicalResult convertClip(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  Value min, max;
  if (node.opset() >= 11) {
    min = node.input(1);
    max = node.input(2);
  } else {
    // Opsets 6 to 10 had float attributes; they become scalar constants of the input's
    // element type, the operands of the newest form. An absent bound stays absent.
    auto elementType = getElementTypeOrSelf((*input).getType());
    auto minAttr = node.floatAttr("min");
    auto maxAttr = node.floatAttr("max");
    if (failed(minAttr) || failed(maxAttr))
      return failure();
    if ((*minAttr || *maxAttr) && !isa<FloatType>(elementType))
      return node.error() << "min and max attributes need a float input, got " << elementType;
    auto scalarType = RankedTensorType::get({}, elementType);
    if (*minAttr)
      min = node.constant(splat(scalarType, **minAttr));
    if (*maxAttr)
      max = node.constant(splat(scalarType, **maxAttr));
  }
  SmallVector<Value> operands = {*input};
  if (min)
    operands.push_back(min);
  if (max)
    operands.push_back(max);
  OpBuilder &b = node.builder();
  return createAndBind<graph::ClipOp>(
      node, operands,
      {b.getNamedAttr("operandSegmentSizes",
                      b.getDenseI32ArrayAttr({1, min ? 1 : 0, max ? 1 : 0}))});
}

//===----------------------------------------------------------------------===//
// Cast, CastLike
//===----------------------------------------------------------------------===//

/// Cast's and CastLike's `saturate` (opset 19), true before it: it only matters for 8-bit
/// float targets, which earlier opsets did not have.
static FailureOr<bool> saturateAttr(NodeImporter &node) {
  if (node.opset() < 19)
    return true;
  return node.boolAttr("saturate", true);
}

static LogicalResult createCast(NodeImporter &node, Value input, Type to) {
  auto saturate = saturateAttr(node);
  if (failed(saturate))
    return failure();
  OpBuilder &b = node.builder();
  return createAndBind<graph::CastOp>(node, input,
                                      {b.getNamedAttr("to", TypeAttr::get(to)),
                                       b.getNamedAttr("saturate", b.getBoolAttr(*saturate))});
}

static LogicalResult convertCast(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  auto to = node.intAttr("to");
  if (failed(to))
    return failure();
  if (!*to)
    return node.error() << "attribute 'to' is required";
  auto elementType = kiln::onnx::elementType(*node.context(), int(**to));
  if (!elementType)
    return node.error() << "cannot cast to " << dataTypeName(int(**to)) << ": "
                        << llvm::toString(elementType.takeError());
  return createCast(node, *input, *elementType);
}

static LogicalResult convertCastLike(NodeImporter &node) {
  auto operands = requiredInputs(node, 2);
  if (failed(operands))
    return failure();
  return createCast(node, (*operands)[0], getElementTypeOrSelf((*operands)[1].getType()));
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

/// Dropout at inference forwards its input, as Identity does. Its mask, when requested,
/// keeps every element: a constant, which needs a static shape.
static LogicalResult convertDropout(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  if (node.opset() >= 12 && node.input(2)) {
    auto training = node.constantInts(2);
    if (!training || training->size() != 1)
      return node.error()
             << "training_mode must be absent or a constant false; training is not supported";
    if ((*training)[0] != 0)
      return node.error() << "training_mode is true; training is not supported";
  }
  Value mask;
  if (node.hasOutput(1)) {
    auto type = dyn_cast<RankedTensorType>((*input).getType());
    if (!type || !type.hasStaticShape())
      return node.error() << "the mask output needs a static input shape, got "
                          << (*input).getType();
    // The mask was of the input's type before opset 10, boolean since.
    Type maskElementType = node.opset() >= 10 ? node.builder().getI1Type() : type.getElementType();
    mask = node.constant(splat(type.clone(maskElementType), 1.0));
  }
  return node.setResults({*input, mask});
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void addElementwiseConverters(ConverterRegistry &registry) {
  // Broadcasting arithmetic and logic.
  registry.add("Add", convertBinary<graph::AddOp>);
  registry.add("Sub", convertBinary<graph::SubOp>);
  registry.add("Mul", convertBinary<graph::MulOp>);
  registry.add("Div", convertBinary<graph::DivOp>);
  registry.add("Pow", convertBinary<graph::PowOp>);
  registry.add("Mod", convertMod);
  registry.add("PRelu", convertPRelu);
  registry.add("And", convertBinary<graph::AndOp>);
  registry.add("Or", convertBinary<graph::OrOp>);
  registry.add("Xor", convertBinary<graph::XorOp>);
  registry.add("BitShift", convertBitShift);
  registry.add("BitwiseAnd", convertBinary<graph::BitwiseAndOp>);
  registry.add("BitwiseOr", convertBinary<graph::BitwiseOrOp>);
  registry.add("BitwiseXor", convertBinary<graph::BitwiseXorOp>);

  // Comparisons.
  registry.add("Equal", convertBinary<graph::EqualOp>);
  registry.add("Less", convertBinary<graph::LessOp>);
  registry.add("LessOrEqual", convertBinary<graph::LessOrEqualOp>);
  registry.add("Greater", convertBinary<graph::GreaterOp>);
  registry.add("GreaterOrEqual", convertBinary<graph::GreaterOrEqualOp>);

  // Variadic.
  registry.add("Max", convertVariadic<graph::MaxOp>);
  registry.add("Min", convertVariadic<graph::MinOp>);
  registry.add("Sum", convertVariadic<graph::SumOp>);
  registry.add("Mean", convertVariadic<graph::MeanOp>);

  // Selection, clamping, conversion, dropout.
  registry.add("Where", convertWhere);
  registry.add("Clip", convertClip);
  registry.add("Cast", convertCast);
  registry.add("CastLike", convertCastLike);
  registry.add("Dropout", convertDropout);

  // Unary math.
  registry.add("Abs", convertUnary<graph::AbsOp>);
  registry.add("Neg", convertUnary<graph::NegOp>);
  registry.add("Sign", convertUnary<graph::SignOp>);
  registry.add("Not", convertUnary<graph::NotOp>);
  registry.add("BitwiseNot", convertUnary<graph::BitwiseNotOp>);
  registry.add("Reciprocal", convertUnary<graph::ReciprocalOp>);
  registry.add("Sqrt", convertUnary<graph::SqrtOp>);
  registry.add("Exp", convertUnary<graph::ExpOp>);
  registry.add("Log", convertUnary<graph::LogOp>);
  registry.add("Erf", convertUnary<graph::ErfOp>);
  registry.add("Floor", convertUnary<graph::FloorOp>);
  registry.add("Ceil", convertUnary<graph::CeilOp>);
  registry.add("Round", convertUnary<graph::RoundOp>);
  registry.add("Sin", convertUnary<graph::SinOp>);
  registry.add("Cos", convertUnary<graph::CosOp>);
  registry.add("Tan", convertUnary<graph::TanOp>);
  registry.add("Asin", convertUnary<graph::AsinOp>);
  registry.add("Acos", convertUnary<graph::AcosOp>);
  registry.add("Atan", convertUnary<graph::AtanOp>);
  registry.add("Sinh", convertUnary<graph::SinhOp>);
  registry.add("Cosh", convertUnary<graph::CoshOp>);
  registry.add("Tanh", convertUnary<graph::TanhOp>);
  registry.add("Asinh", convertUnary<graph::AsinhOp>);
  registry.add("Acosh", convertUnary<graph::AcoshOp>);
  registry.add("Atanh", convertUnary<graph::AtanhOp>);
  registry.add("IsNaN", convertUnary<graph::IsNaNOp>);
  registry.add("IsInf", convertIsInf);

  // Activations.
  registry.add("Relu", convertUnary<graph::ReluOp>);
  registry.add("Sigmoid", convertUnary<graph::SigmoidOp>);
  registry.add("Softplus", convertUnary<graph::SoftplusOp>);
  registry.add("Softsign", convertUnary<graph::SoftsignOp>);
  registry.add("Mish", convertUnary<graph::MishOp>);
  registry.add("HardSwish", convertUnary<graph::HardSwishOp>);
  registry.add("Gelu", convertGelu);
  registry.add("Elu", [](NodeImporter &node) {
    return convertUnaryWithFloats<graph::EluOp>(node, {{"alpha", 1.0f}});
  });
  registry.add("Celu", [](NodeImporter &node) {
    return convertUnaryWithFloats<graph::CeluOp>(node, {{"alpha", 1.0f}});
  });
  registry.add("Selu", [](NodeImporter &node) {
    return convertUnaryWithFloats<graph::SeluOp>(
        node, {{"alpha", 1.67326319217681884765625f}, {"gamma", 1.05070102214813232421875f}});
  });
  registry.add("LeakyRelu", [](NodeImporter &node) {
    return convertUnaryWithFloats<graph::LeakyReluOp>(node, {{"alpha", 0.01f}});
  });
  registry.add("HardSigmoid", [](NodeImporter &node) {
    return convertUnaryWithFloats<graph::HardSigmoidOp>(node, {{"alpha", 0.2f}, {"beta", 0.5f}});
  });
  registry.add("ThresholdedRelu", [](NodeImporter &node) {
    return convertUnaryWithFloats<graph::ThresholdedReluOp>(node, {{"alpha", 1.0f}});
  });
  registry.add("Shrink", [](NodeImporter &node) {
    return convertUnaryWithFloats<graph::ShrinkOp>(node, {{"bias", 0.0f}, {"lambd", 0.5f}});
  });
}

} // namespace kiln::onnx
