//===- GraphOps.td - Operations of the graph dialect -------*- tablegen -*-===//
//
// The ops, one file per family under ops/; their C++ lives in <Family>Ops.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_OPS
#define KILN_GRAPH_OPS

include "dialects/graph/ops/ControlOps.td"
include "dialects/graph/ops/CoreOps.td"
include "dialects/graph/ops/ElementwiseOps.td"
include "dialects/graph/ops/NNOps.td"
include "dialects/graph/ops/QuantizationOps.td"
include "dialects/graph/ops/RandomOps.td"
include "dialects/graph/ops/RecurrentOps.td"
include "dialects/graph/ops/ReductionOps.td"
include "dialects/graph/ops/ShapeOps.td"
include "dialects/graph/ops/SignalOps.td"
include "dialects/graph/ops/TrainingOps.td"

#endif // KILN_GRAPH_OPS
