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
// AddOp
//===----------------------------------------------------------------------===//

LogicalResult AddOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                      Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferBinaryOpType(location, adaptor.getLhs(), adaptor.getRhs(), broadcastShapes, inferred);
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
