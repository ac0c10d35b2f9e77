//===- NNSampling.cpp - Graph to linalg: resampling, RoI align and non-max suppression ===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {

void populateNNSamplingLowering(const TypeConverter &, RewritePatternSet &) {}

} // namespace kiln::lowering
