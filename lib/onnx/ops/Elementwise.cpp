//===- Elementwise.cpp - Converters for elementwise math and logic --------===//

#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::onnx {

/// A binary op with NumPy broadcasting. Opsets before 7 had a `broadcast` attribute; the
/// importer starts at opset 7, where broadcasting is implicit.
template <typename OpTy>
static LogicalResult convertBinary(NodeImporter &node) {
  auto lhs = node.requiredInput(0);
  auto rhs = node.requiredInput(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  auto op = node.create<OpTy>({*lhs, *rhs});
  if (failed(op))
    return failure();
  return node.setResults((*op)->getResults());
}

/// A unary op whose result has its operand's type.
template <typename OpTy>
static LogicalResult convertUnary(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  auto op = node.create<OpTy>({*input});
  if (failed(op))
    return failure();
  return node.setResults((*op)->getResults());
}

void addElementwiseConverters(ConverterRegistry &registry) {
  registry.add("Add", convertBinary<graph::AddOp>);
  registry.add("Relu", convertUnary<graph::ReluOp>);
}

} // namespace kiln::onnx
