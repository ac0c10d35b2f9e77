//===- Random.cpp - Converters for random number generation ===//

#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::onnx {

void addRandomConverters(ConverterRegistry &registry) {}

} // namespace kiln::onnx
