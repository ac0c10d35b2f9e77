//===- Control.cpp - Graph to linalg: If, Loop and Scan ===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {

void populateControlLowering(const TypeConverter &, RewritePatternSet &) {}

} // namespace kiln::lowering
