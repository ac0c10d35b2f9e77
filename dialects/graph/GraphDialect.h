//===- GraphDialect.h - The graph dialect -----------------------*- C++ -*-===//

#ifndef KILN_DIALECTS_GRAPH_GRAPHDIALECT_H
#define KILN_DIALECTS_GRAPH_GRAPHDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"

#include "dialects/graph/GraphDialect.h.inc"

#endif // KILN_DIALECTS_GRAPH_GRAPHDIALECT_H
