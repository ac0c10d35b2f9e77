//===- Shape.cpp - Graph to linalg: reshapes, slices, gathers and other data movement ===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {

/// Gathers, scatters and other indexing ops (ShapeIndexing.cpp).
void populateShapeIndexingLowering(const TypeConverter &converter, RewritePatternSet &patterns);

void populateShapeLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  populateShapeIndexingLowering(converter, patterns);
}

} // namespace kiln::lowering
