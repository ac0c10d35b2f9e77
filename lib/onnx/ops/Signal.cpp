//===- Signal.cpp - Converters for signal processing ===//

#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::onnx {

void addSignalConverters(ConverterRegistry &registry) {}

} // namespace kiln::onnx
