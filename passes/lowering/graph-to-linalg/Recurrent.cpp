//===- Recurrent.cpp - Graph to linalg: RNN, GRU and LSTM ===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {

void populateRecurrentLowering(const TypeConverter &, RewritePatternSet &) {}

} // namespace kiln::lowering
