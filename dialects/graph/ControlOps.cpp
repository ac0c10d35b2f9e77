//===- ControlOps.cpp - Control flow: If, Loop, Scan ----------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace kiln::graph;

/// The values `region`'s graph.yield returns.
static OperandRange yielded(Region &region) {
  return cast<YieldOp>(region.front().getTerminator()).getValues();
}

/// Whether `type` is a tensor of `element` with exactly one element, e.g. a condition.
static bool isSingleElement(Type type, Type element) {
  auto tensor = dyn_cast<TensorType>(type);
  if (!tensor || tensor.getElementType() != element)
    return false;
  return !tensor.hasRank() || llvm::all_of(tensor.getShape(), [](int64_t d) {
    return d == 1 || ShapedType::isDynamic(d);
  });
}

/// Whether two types can describe the same value: equal element types, compatible shapes.
static bool compatible(Type a, Type b) {
  return isRefinementCompatible(TypeRange(a), TypeRange(b));
}

/// Checks a scan output: `result` stacks values of type `slice` along one more dimension.
static LogicalResult verifyStacked(Operation *op, unsigned index, Type slice, Type result) {
  auto sliceType = cast<TensorType>(slice), resultType = cast<TensorType>(result);
  if (sliceType.getElementType() != resultType.getElementType())
    return op->emitOpError("scan output ")
           << index << " has element type " << resultType.getElementType() << ", the body yields "
           << sliceType.getElementType();
  if (sliceType.hasRank() && resultType.hasRank() &&
      resultType.getRank() != sliceType.getRank() + 1)
    return op->emitOpError("scan output ")
           << index << " has rank " << resultType.getRank() << "; the body yields rank "
           << sliceType.getRank() << ", so the stacked result needs rank "
           << sliceType.getRank() + 1;
  return success();
}

//===----------------------------------------------------------------------===//
// IfOp
//===----------------------------------------------------------------------===//

LogicalResult IfOp::verify() {
  Type i1 = IntegerType::get(getContext(), 1);
  if (!isSingleElement(getCondition().getType(), i1))
    return emitOpError("condition must be a boolean tensor with one element, got ")
           << getCondition().getType();
  for (Region *branch : {&getThenBranch(), &getElseBranch()}) {
    const char *name = branch == &getThenBranch() ? "then" : "else";
    OperandRange values = yielded(*branch);
    if (values.size() != getNumResults())
      return emitOpError() << "the " << name << " branch yields " << values.size() << " values for "
                           << getNumResults() << " results";
    for (auto [index, pair] : llvm::enumerate(llvm::zip(values.getTypes(), getResultTypes()))) {
      auto [value, result] = pair;
      if (!compatible(value, result))
        return emitOpError() << "the " << name << " branch yields " << value << " for result "
                             << index << " of type " << result;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LoopOp
//===----------------------------------------------------------------------===//

LogicalResult LoopOp::verify() {
  MLIRContext *context = getContext();
  Type i64 = IntegerType::get(context, 64), i1 = IntegerType::get(context, 1);
  if (Value count = getMaxTripCount())
    if (!isSingleElement(count.getType(), i64))
      return emitOpError("max_trip_count must be an i64 tensor with one element, got ")
             << count.getType();
  if (Value condition = getCondition())
    if (!isSingleElement(condition.getType(), i1))
      return emitOpError("condition must be a boolean tensor with one element, got ")
             << condition.getType();

  Block &body = getBody().front();
  size_t carried = getInitialValues().size();
  if (body.getNumArguments() != carried + 2)
    return emitOpError("the body takes ") << body.getNumArguments()
                                          << " arguments; expected the iteration number, the "
                                             "condition and "
                                          << carried << " carried values";
  if (!isSingleElement(body.getArgument(0).getType(), i64) ||
      !isSingleElement(body.getArgument(1).getType(), i1))
    return emitOpError("the body's first arguments must be the iteration number (i64) and the "
                       "condition (i1)");
  OperandRange values = yielded(getBody());
  if (values.size() < carried + 1 || getNumResults() != values.size() - 1)
    return emitOpError("the body yields ")
           << values.size() << " values; expected the condition, " << carried
           << " carried values and one per scan output (" << getNumResults() - carried << ")";
  if (!isSingleElement(values[0].getType(), i1))
    return emitOpError("the body must yield the condition (i1) first");
  for (size_t i = 0; i < carried; ++i) {
    Type initial = getInitialValues()[i].getType(), argument = body.getArgument(i + 2).getType(),
         next = values[i + 1].getType(), result = getResult(i).getType();
    if (!compatible(initial, argument) || !compatible(next, argument) ||
        !compatible(initial, result) || !compatible(next, result))
      return emitOpError("carried value ")
             << i << " has incompatible types: initial " << initial << ", body argument "
             << argument << ", yielded " << next << ", result " << result;
  }
  for (size_t j = carried; j < getNumResults(); ++j)
    if (failed(verifyStacked(*this, j - carried, values[j + 1].getType(), getResult(j).getType())))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

LogicalResult ScanOp::verify() {
  size_t states = getInitialStates().size(), inputs = getScanInputs().size();
  if (getScanInputAxes().size() != inputs || getScanInputDirections().size() != inputs)
    return emitOpError("needs one scan_input_axes and scan_input_directions entry per scan "
                       "input (")
           << inputs << ")";
  if (getNumResults() < states)
    return emitOpError("has fewer results than states");
  size_t outputs = getNumResults() - states;
  if (getScanOutputAxes().size() != outputs || getScanOutputDirections().size() != outputs)
    return emitOpError("needs one scan_output_axes and scan_output_directions entry per scan "
                       "output (")
           << outputs << ")";
  auto isDirection = [](int64_t d) { return d == 0 || d == 1; };
  if (!llvm::all_of(getScanInputDirections(), isDirection) ||
      !llvm::all_of(getScanOutputDirections(), isDirection))
    return emitOpError("directions must be 0 (forward) or 1 (backward)");

  Block &body = getBody().front();
  if (body.getNumArguments() != states + inputs)
    return emitOpError("the body takes ")
           << body.getNumArguments() << " arguments; expected " << states << " states and "
           << inputs << " scan input slices";
  OperandRange values = yielded(getBody());
  if (values.size() != states + outputs)
    return emitOpError("the body yields ") << values.size() << " values; expected " << states
                                           << " states and " << outputs << " scan outputs";
  for (size_t i = 0; i < states; ++i) {
    Type initial = getInitialStates()[i].getType(), argument = body.getArgument(i).getType(),
         next = values[i].getType(), result = getResult(i).getType();
    if (!compatible(initial, argument) || !compatible(next, argument) ||
        !compatible(initial, result) || !compatible(next, result))
      return emitOpError("state ")
             << i << " has incompatible types: initial " << initial << ", body argument "
             << argument << ", yielded " << next << ", result " << result;
  }
  for (size_t j = 0; j < inputs; ++j)
    if (failed(verifyStacked(*this, j, body.getArgument(states + j).getType(),
                             getScanInputs()[j].getType())))
      return failure();
  for (size_t j = 0; j < outputs; ++j)
    if (failed(
            verifyStacked(*this, j, values[states + j].getType(), getResult(states + j).getType())))
      return failure();
  return success();
}
