//===- ShapeIndexing.cpp - Graph to linalg: gathers, scatters and other indexing ===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {

void populateShapeIndexingLowering(const TypeConverter &, RewritePatternSet &) {}

} // namespace kiln::lowering
