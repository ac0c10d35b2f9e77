//===- Core.cpp - Converters for constants and plumbing -------------------===//

#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::onnx {

/// Constant: exactly one of value, value_float(s), value_int(s) (strings and sparse
/// tensors are not supported).
static LogicalResult convertConstant(NodeImporter &node) {
  OpBuilder &b = node.builder();
  auto value = node.tensorAttr("value");
  auto valueFloat = node.floatAttr("value_float");
  auto valueFloats = node.floatsAttr("value_floats");
  auto valueInt = node.intAttr("value_int");
  auto valueInts = node.intsAttr("value_ints");
  if (failed(value) || failed(valueFloat) || failed(valueFloats) || failed(valueInt) ||
      failed(valueInts))
    return failure();
  for (const char *unsupported : {"sparse_value", "value_string", "value_strings"})
    if (node.attribute(unsupported))
      return node.error() << "attribute '" << unsupported << "' is not supported";

  ElementsAttr elements;
  int given = 0;
  if (*value)
    elements = **value, ++given;
  if (*valueFloat)
    elements = DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()), **valueFloat),
    ++given;
  if (*valueFloats)
    elements = DenseElementsAttr::get(
        RankedTensorType::get({int64_t((*valueFloats)->size())}, b.getF32Type()),
        ArrayRef<float>(**valueFloats)),
    ++given;
  if (*valueInt)
    elements = DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()), **valueInt),
    ++given;
  if (*valueInts)
    elements = DenseElementsAttr::get(
        RankedTensorType::get({int64_t((*valueInts)->size())}, b.getI64Type()),
        ArrayRef<int64_t>(**valueInts)),
    ++given;
  if (given != 1)
    return node.error() << "expects exactly one value attribute, got " << given;
  return node.setResult(node.constant(elements));
}

/// Identity forwards its input; no op is needed.
static LogicalResult convertIdentity(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  return node.setResult(*input);
}

void addCoreConverters(ConverterRegistry &registry) {
  registry.add("Constant", convertConstant);
  registry.add("Identity", convertIdentity);
}

} // namespace kiln::onnx
