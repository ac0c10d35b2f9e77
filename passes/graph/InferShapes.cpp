//===- InferShapes.cpp - Refine tensor types in graph functions -----------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/Passes.h"

#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHINFERSHAPES
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The meet of two compatible tensor types: every extent known to either.
Type mostRefined(Type current, Type inferred) {
  auto currentTensor = dyn_cast<TensorType>(current);
  auto inferredTensor = dyn_cast<TensorType>(inferred);
  if (!currentTensor || !inferredTensor || !inferredTensor.hasRank())
    return current;
  if (!currentTensor.hasRank())
    return inferred;
  if (currentTensor.getRank() != inferredTensor.getRank())
    return current;
  SmallVector<int64_t> shape(currentTensor.getShape());
  for (auto [extent, known] : llvm::zip(shape, inferredTensor.getShape()))
    if (ShapedType::isDynamic(extent))
      extent = known;
  return RankedTensorType::get(shape, currentTensor.getElementType(),
                               cast<RankedTensorType>(currentTensor).getEncoding());
}

/// The result types `op` should have given its operands' current types, or failure when
/// the op has no shape rule (it is left alone).
FailureOr<SmallVector<Type>> inferResultTypes(Operation *op) {
  if (auto inferable = dyn_cast<InferTypeOpInterface>(op)) {
    SmallVector<Type> types;
    if (failed(inferable.inferReturnTypes(op->getContext(), op->getLoc(), op->getOperands(),
                                          op->getAttrDictionary(), op->getPropertiesStorage(),
                                          op->getRegions(), types)))
      return failure();
    return types;
  }
  if (op->hasTrait<OpTrait::SameOperandsAndResultType>() && op->getNumOperands() > 0)
    return SmallVector<Type>(op->getNumResults(), op->getOperand(0).getType());
  return failure();
}

struct GraphInferShapes : kiln::impl::GraphInferShapesBase<GraphInferShapes> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    bool failedInference = false;
    function.walk([&](Operation *op) {
      if (!isa<kiln::graph::GraphDialect>(op->getDialect()))
        return;
      FailureOr<SmallVector<Type>> inferred = inferResultTypes(op);
      if (failed(inferred)) {
        // Graph ops with a shape rule that fails were invalid to begin with; the rule
        // has already reported why.
        failedInference |= isa<InferTypeOpInterface>(op);
        return;
      }
      for (auto [result, type] : llvm::zip(op->getResults(), *inferred))
        result.setType(mostRefined(result.getType(), type));
    });
    if (failedInference)
      return signalPassFailure();

    // The function's results follow what it returns.
    if (function.isExternal())
      return;
    Operation *terminator = function.getBody().back().getTerminator();
    auto resultTypes = llvm::to_vector(terminator->getOperandTypes());
    function.setFunctionType(
        FunctionType::get(&getContext(), function.getArgumentTypes(), resultTypes));
  }
};

} // namespace
