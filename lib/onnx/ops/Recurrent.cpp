//===- Recurrent.cpp - Converters for recurrent networks ===//

#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::onnx {

void addRecurrentConverters(ConverterRegistry &registry) {}

} // namespace kiln::onnx
