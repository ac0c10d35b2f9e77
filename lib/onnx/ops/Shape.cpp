//===- Shape.cpp - Converters for the Shape family ===//

#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::onnx {

void addShapeConverters(ConverterRegistry &registry) {}

} // namespace kiln::onnx
