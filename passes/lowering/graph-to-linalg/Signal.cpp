//===- Signal.cpp - Graph to linalg: DFT, STFT and window functions ===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {

void populateSignalLowering(const TypeConverter &, RewritePatternSet &) {}

} // namespace kiln::lowering
