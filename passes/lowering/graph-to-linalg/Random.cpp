//===- Random.cpp - Graph to linalg: random number generators ===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {

void populateRandomLowering(const TypeConverter &, RewritePatternSet &) {}

} // namespace kiln::lowering
