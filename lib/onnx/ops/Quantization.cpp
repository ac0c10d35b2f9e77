//===- Quantization.cpp - Converters for the Quantization family ===//

#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::onnx {

void addQuantizationConverters(ConverterRegistry &registry) {}

} // namespace kiln::onnx
