//===- NNNormalization.cpp - Graph to linalg: softmax and normalisations ===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {

void populateNNNormalizationLowering(const TypeConverter &, RewritePatternSet &) {}

} // namespace kiln::lowering
