//===- Reduction.cpp - Graph to linalg: reductions, arg-max/min, cumulative sums and top-k ===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {

void populateReductionLowering(const TypeConverter &, RewritePatternSet &) {}

} // namespace kiln::lowering
