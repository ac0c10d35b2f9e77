//===- Reduction.cpp - Converters for the Reduction family ===//

#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::onnx {

void addReductionConverters(ConverterRegistry &registry) {}

} // namespace kiln::onnx
