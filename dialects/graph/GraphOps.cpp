//===- GraphOps.cpp - Operations of the graph dialect ---------------------===//
//
// The ODS-generated op classes. Each family's hand-written C++ (shape rules, folders,
// verifiers) lives in <Family>Ops.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace kiln::graph;

#define GET_OP_CLASSES
#include "dialects/graph/GraphOps.cpp.inc"
