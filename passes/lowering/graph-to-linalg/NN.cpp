//===- NN.cpp - Graph to linalg: convolution, pooling, matmul, normalisation and resampling ===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {

void populateNNLowering(const TypeConverter &, RewritePatternSet &) {}

} // namespace kiln::lowering
