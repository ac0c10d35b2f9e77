//===- Shape.cpp - Graph to linalg: reshapes, slices, gathers and other data movement ===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {

void populateShapeLowering(const TypeConverter &, RewritePatternSet &) {}

} // namespace kiln::lowering
