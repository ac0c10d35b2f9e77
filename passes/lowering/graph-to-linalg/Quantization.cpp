//===- Quantization.cpp - Graph to linalg: quantize, dequantize and integer matmul/conv ===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {

void populateQuantizationLowering(const TypeConverter &, RewritePatternSet &) {}

} // namespace kiln::lowering
