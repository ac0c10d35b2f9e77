//===- OpHelpers.cpp - Shared pieces of the graph ops' C++ ---------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

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

std::optional<SmallVector<int64_t>> kiln::graph::getConstantInts(Value value) {
  ElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)) ||
      !isa<IntegerType>(attr.getElementType()))
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
