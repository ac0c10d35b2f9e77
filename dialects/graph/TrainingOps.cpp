//===- TrainingOps.cpp - Optimizers of ai.onnx.preview.training ===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

#include <string>

using namespace mlir;
using namespace kiln::graph;

/// Fails unless `type` holds a single element (rank 0, or every extent 1, as ONNX writes
/// scalars) when ranked; `what` names the operand.
static LogicalResult checkScalar(std::optional<Location> location, Type type, StringRef what) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return success();
  if (llvm::any_of(ranked.getShape(), [](int64_t extent) { return extent != 1; }))
    return emitOptionalError(location, what, " must be a scalar, got ", type);
  return success();
}

/// The most refined type both `a` and `b` describe (same element type): an error naming
/// `what` when their shapes contradict.
static FailureOr<Type> joinTypes(std::optional<Location> location, Type a, Type b, StringRef what) {
  auto rankedA = dyn_cast<RankedTensorType>(a);
  auto rankedB = dyn_cast<RankedTensorType>(b);
  if (!rankedB)
    return a;
  if (!rankedA)
    return tensorOf(rankedB.getShape(), getElementTypeOrSelf(a));
  if (rankedA.getRank() != rankedB.getRank())
    return emitOptionalError(location, what, " has rank ", rankedB.getRank(), ", expected ",
                             rankedA.getRank());
  SmallVector<int64_t> shape(rankedA.getShape());
  for (auto [index, extent] : llvm::enumerate(rankedB.getShape())) {
    if (ShapedType::isDynamic(extent))
      continue;
    if (ShapedType::isDynamic(shape[index]))
      shape[index] = extent;
    else if (shape[index] != extent)
      return emitOptionalError(location, what, " dimension ", index, " is ", extent, ", expected ",
                               shape[index]);
  }
  return tensorOf(ArrayRef<int64_t>(shape), getElementTypeOrSelf(a));
}

/// The shape rule of every optimizer: `learningRate` a float scalar, `iteration` an i64
/// scalar, `inputs` grouped as `groupNames` (X, G, then the states), each group of the same
/// count; one result per parameter and per state, each of the join of its group index's
/// types.
static LogicalResult inferOptimizerTypes(std::optional<Location> location, Value learningRate,
                                         Value iteration, ValueRange inputs,
                                         ArrayRef<StringRef> groupNames,
                                         SmallVectorImpl<Type> &inferred) {
  if (!isa<FloatType>(getElementTypeOrSelf(learningRate.getType())))
    return emitOptionalError(location, "learning rate R must be a float tensor, got ",
                             learningRate.getType());
  if (failed(checkScalar(location, learningRate.getType(), "learning rate R")))
    return failure();
  Type iterationElement = getElementTypeOrSelf(iteration.getType());
  if (!iterationElement.isSignlessInteger(64))
    return emitOptionalError(location, "iteration count T must be an i64 tensor, got ",
                             iteration.getType());
  if (failed(checkScalar(location, iteration.getType(), "iteration count T")))
    return failure();

  size_t groups = groupNames.size();
  if (inputs.empty() || inputs.size() % groups != 0) {
    std::string names;
    for (StringRef name : groupNames)
      names += (names.empty() ? "" : ", ") + name.str();
    return emitOptionalError(location, "expects ", names,
                             " for each updated tensor (a multiple of ", groups,
                             " operands after R and T), got ", inputs.size());
  }
  size_t count = inputs.size() / groups;
  // One joined type per tensor, from its parameter, gradient and states.
  SmallVector<Type> joined;
  for (size_t index = 0; index < count; ++index) {
    Type type = inputs[index].getType();
    Type elementType = getElementTypeOrSelf(type);
    std::string parameter = groupNames[0].str() + std::to_string(index + 1);
    if (!isa<FloatType>(elementType))
      return emitOptionalError(location, parameter, " must be a float tensor, got ", type);
    for (size_t group = 1; group < groups; ++group) {
      Type other = inputs[group * count + index].getType();
      std::string name = groupNames[group].str() + std::to_string(index + 1);
      if (getElementTypeOrSelf(other) != elementType)
        return emitOptionalError(location, name, " element type ", getElementTypeOrSelf(other),
                                 " differs from ", parameter, " element type ", elementType);
      FailureOr<Type> join = joinTypes(location, type, other, name);
      if (failed(join))
        return failure();
      type = *join;
    }
    joined.push_back(type);
  }
  // The new parameters, then the new states of each kind; gradients have no result.
  for (size_t group = 0; group < groups; ++group)
    if (group != 1)
      llvm::append_range(inferred, joined);
  return success();
}

//===----------------------------------------------------------------------===//
// AdagradOp, AdamOp, MomentumOp
//===----------------------------------------------------------------------===//

LogicalResult AdagradOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                          Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferOptimizerTypes(location, adaptor.getLearningRate(), adaptor.getIteration(),
                             adaptor.getInputs(), {"X", "G", "H"}, inferred);
}

LogicalResult AdamOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                       Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferOptimizerTypes(location, adaptor.getLearningRate(), adaptor.getIteration(),
                             adaptor.getInputs(), {"X", "G", "V", "H"}, inferred);
}

LogicalResult MomentumOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                           Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  StringRef mode = adaptor.getMode();
  if (mode != "standard" && mode != "nesterov")
    return emitOptionalError(location, "mode must be standard or nesterov, got '", mode, "'");
  return inferOptimizerTypes(location, adaptor.getLearningRate(), adaptor.getIteration(),
                             adaptor.getInputs(), {"X", "G", "V"}, inferred);
}
