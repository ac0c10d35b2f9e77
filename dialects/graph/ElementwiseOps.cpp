//===- ElementwiseOps.cpp - Elementwise math and logic ---------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace kiln::graph;

//===----------------------------------------------------------------------===//
// Shared shape rules
//===----------------------------------------------------------------------===//

/// Fails unless `operands` all have one element type.
static LogicalResult verifySameElementType(std::optional<Location> location, ValueRange operands) {
  if (operands.empty())
    return success();
  Type expected = getElementTypeOrSelf(operands.front().getType());
  for (Value operand : operands.drop_front()) {
    Type actual = getElementTypeOrSelf(operand.getType());
    if (actual != expected)
      return emitOptionalError(location, "operands have different element types: ", expected,
                               " and ", actual);
  }
  return success();
}

/// The type of the NumPy broadcast of all `operands`' shapes with element type
/// `elementType`; unranked when any operand is.
static LogicalResult inferBroadcastType(std::optional<Location> location, ValueRange operands,
                                        Type elementType, SmallVectorImpl<Type> &inferred) {
  if (operands.empty())
    return emitOptionalError(location, "expects at least one operand");
  std::optional<SmallVector<int64_t>> shape = SmallVector<int64_t>();
  for (Value operand : operands) {
    auto type = cast<TensorType>(operand.getType());
    if (!type.hasRank()) {
      shape.reset();
      break;
    }
    auto broadcast = broadcastShapes(*shape, type.getShape());
    if (!broadcast)
      return emitOptionalError(location, llvm::toString(broadcast.takeError()));
    shape = std::move(*broadcast);
  }
  inferred.push_back(
      tensorOf(shape ? std::optional<ArrayRef<int64_t>>(*shape) : std::nullopt, elementType));
  return success();
}

/// An op whose operands share one element type and broadcast together; the result has
/// that element type, or `resultElementType` when given (comparisons give i1).
static LogicalResult inferSameTypeBroadcast(std::optional<Location> location, ValueRange operands,
                                            SmallVectorImpl<Type> &inferred,
                                            Type resultElementType = {}) {
  if (failed(verifySameElementType(location, operands)))
    return failure();
  if (!resultElementType && !operands.empty())
    resultElementType = getElementTypeOrSelf(operands.front().getType());
  return inferBroadcastType(location, operands, resultElementType, inferred);
}

/// The operand's shape with element type i1 (IsNaN, IsInf).
static LogicalResult inferPredicateType(MLIRContext *context, Value input,
                                        SmallVectorImpl<Type> &inferred) {
  inferred.push_back(cast<TensorType>(input.getType()).clone(IntegerType::get(context, 1)));
  return success();
}

// Ops whose operands share one element type that the result keeps.
#define GRAPH_SAME_TYPE_BROADCAST_OP(OpTy)                                                         \
  LogicalResult OpTy::inferReturnTypes(MLIRContext *, std::optional<Location> location,            \
                                       Adaptor adaptor, SmallVectorImpl<Type> &inferred) {         \
    return inferSameTypeBroadcast(location, adaptor.getOperands(), inferred);                      \
  }
GRAPH_SAME_TYPE_BROADCAST_OP(SubOp)
GRAPH_SAME_TYPE_BROADCAST_OP(MulOp)
GRAPH_SAME_TYPE_BROADCAST_OP(DivOp)
GRAPH_SAME_TYPE_BROADCAST_OP(BitwiseAndOp)
GRAPH_SAME_TYPE_BROADCAST_OP(BitwiseOrOp)
GRAPH_SAME_TYPE_BROADCAST_OP(BitwiseXorOp)
GRAPH_SAME_TYPE_BROADCAST_OP(AndOp)
GRAPH_SAME_TYPE_BROADCAST_OP(OrOp)
GRAPH_SAME_TYPE_BROADCAST_OP(XorOp)
GRAPH_SAME_TYPE_BROADCAST_OP(MaxOp)
GRAPH_SAME_TYPE_BROADCAST_OP(MinOp)
GRAPH_SAME_TYPE_BROADCAST_OP(SumOp)
GRAPH_SAME_TYPE_BROADCAST_OP(MeanOp)
#undef GRAPH_SAME_TYPE_BROADCAST_OP

// Comparisons: operands of one element type, an i1 result.
#define GRAPH_COMPARISON_OP(OpTy)                                                                  \
  LogicalResult OpTy::inferReturnTypes(MLIRContext *context, std::optional<Location> location,     \
                                       Adaptor adaptor, SmallVectorImpl<Type> &inferred) {         \
    return inferSameTypeBroadcast(location, adaptor.getOperands(), inferred,                       \
                                  IntegerType::get(context, 1));                                   \
  }
GRAPH_COMPARISON_OP(EqualOp)
GRAPH_COMPARISON_OP(LessOp)
GRAPH_COMPARISON_OP(LessOrEqualOp)
GRAPH_COMPARISON_OP(GreaterOp)
GRAPH_COMPARISON_OP(GreaterOrEqualOp)
#undef GRAPH_COMPARISON_OP

//===----------------------------------------------------------------------===//
// AddOp
//===----------------------------------------------------------------------===//

LogicalResult AddOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                                      Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  // The same rule as the other broadcasting ops, so that mixed element types get the same
  // message at import as from the parser.
  return inferSameTypeBroadcast(location, adaptor.getOperands(), inferred);
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  // x + 0 is x, provided the zero does not broadcast x to a larger shape. Like other
  // graph-level compilers, the graph dialect does not keep -0.0 apart from +0.0.
  auto isZero = [](Attribute attr) {
    return attr && (matchPattern(attr, m_AnyZeroFloat()) || matchPattern(attr, m_Zero()));
  };
  if (isZero(adaptor.getRhs()) && getLhs().getType() == getType())
    return getLhs();
  if (isZero(adaptor.getLhs()) && getRhs().getType() == getType())
    return getRhs();
  return {};
}

//===----------------------------------------------------------------------===//
// Binary ops with attributes or mixed element types
//===----------------------------------------------------------------------===//

LogicalResult PowOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                                      Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  // The exponent may have another element type (ONNX Pow since opset 12).
  return inferBroadcastType(location, adaptor.getOperands(),
                            getElementTypeOrSelf(adaptor.getLhs().getType()), inferred);
}

LogicalResult ModOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                                      Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  Type elementType = getElementTypeOrSelf(adaptor.getLhs().getType());
  if (!adaptor.getFmod() && !isa<IntegerType>(elementType))
    return emitOptionalError(
        location, "fmod = false (integer remainder) needs integer operands, got ", elementType);
  return inferSameTypeBroadcast(location, adaptor.getOperands(), inferred);
}

LogicalResult BitShiftOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                                           Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  StringRef direction = adaptor.getDirection();
  if (direction != "LEFT" && direction != "RIGHT")
    return emitOptionalError(location, "direction must be \"LEFT\" or \"RIGHT\", got \"", direction,
                             "\"");
  return inferSameTypeBroadcast(location, adaptor.getOperands(), inferred);
}

LogicalResult PReluOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                                        Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  if (failed(verifySameElementType(location, adaptor.getOperands())))
    return failure();
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto slopeType = cast<TensorType>(adaptor.getSlope().getType());
  if (!inputType.hasRank() || !slopeType.hasRank()) {
    inferred.push_back(inputType);
    return success();
  }
  // The slope broadcasts to the input (unidirectionally): the result keeps the input's
  // rank, and a static input extent may not grow.
  auto broadcast = broadcastShapes(inputType.getShape(), slopeType.getShape());
  bool fits = broadcast && broadcast->size() == size_t(inputType.getRank());
  for (int64_t i = 0; fits && i < inputType.getRank(); ++i)
    fits = inputType.isDynamicDim(i) || (*broadcast)[i] == inputType.getDimSize(i);
  if (!broadcast)
    llvm::consumeError(broadcast.takeError());
  if (!fits)
    return emitOptionalError(location, "slope of type ", slopeType,
                             " does not broadcast to the input of type ", inputType);
  inferred.push_back(inputType.clone(*broadcast));
  return success();
}

//===----------------------------------------------------------------------===//
// WhereOp, ClipOp
//===----------------------------------------------------------------------===//

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                                        Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  if (failed(verifySameElementType(location, {adaptor.getLhs(), adaptor.getRhs()})))
    return failure();
  return inferBroadcastType(location, adaptor.getOperands(),
                            getElementTypeOrSelf(adaptor.getLhs().getType()), inferred);
}

LogicalResult ClipOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                                       Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  for (auto [name, bound] : {std::pair<StringRef, Value>{"min", adaptor.getMin()},
                             std::pair<StringRef, Value>{"max", adaptor.getMax()}}) {
    if (!bound)
      continue;
    auto boundType = cast<TensorType>(bound.getType());
    if (boundType.getElementType() != inputType.getElementType())
      return emitOptionalError(location, name, " has element type ", boundType.getElementType(),
                               ", expected the input's ", inputType.getElementType());
    if (boundType.hasRank() && boundType.getRank() != 0)
      return emitOptionalError(location, name, " must be a scalar (rank 0), got ", boundType);
  }
  inferred.push_back(inputType);
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                                       Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  Type to = adaptor.getTo();
  if (!isa<IntegerType, FloatType>(to))
    return emitOptionalError(location, "cannot cast to ", to,
                             ": `to` must be an integer or float type");
  inferred.push_back(cast<TensorType>(adaptor.getInput().getType()).clone(to));
  return success();
}

//===----------------------------------------------------------------------===//
// Predicates and activations
//===----------------------------------------------------------------------===//

LogicalResult IsNaNOp::inferReturnTypes(MLIRContext *context, std::optional<Location>,
                                        Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferPredicateType(context, adaptor.getInput(), inferred);
}

LogicalResult IsInfOp::inferReturnTypes(MLIRContext *context, std::optional<Location>,
                                        Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferPredicateType(context, adaptor.getInput(), inferred);
}

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("approximate must be \"none\" or \"tanh\", got \"")
           << getApproximate() << "\"";
  return success();
}
