//===- GraphDialect.h - The graph dialect -----------------------*- C++ -*-===//

#ifndef KILN_DIALECTS_GRAPH_GRAPHDIALECT_H
#define KILN_DIALECTS_GRAPH_GRAPHDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"

#include "dialects/graph/GraphDialect.h.inc"

#include <string>

namespace kiln::graph {
/// The ONNX node an op came from: the first name in its location (the importer gives
/// every op a NameLoc of its node), or "" when there is none.
std::string getNodeName(mlir::Location loc);
} // namespace kiln::graph

#endif // KILN_DIALECTS_GRAPH_GRAPHDIALECT_H
