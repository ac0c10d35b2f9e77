//===- SignalOps.cpp - Signal processing ===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

using namespace mlir;
using namespace kiln::graph;
