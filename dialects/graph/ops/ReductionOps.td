//===- ReductionOps.td - Reductions and index ops -*- tablegen -*-===//

#ifndef KILN_GRAPH_REDUCTION_OPS
#define KILN_GRAPH_REDUCTION_OPS

include "dialects/graph/GraphBase.td"

// (none yet)

#endif // KILN_GRAPH_REDUCTION_OPS
