//===- RecurrentOps.td - Recurrent networks -*- tablegen -*-===//

#ifndef KILN_GRAPH_RECURRENT_OPS
#define KILN_GRAPH_RECURRENT_OPS

include "dialects/graph/GraphBase.td"

// (none yet)

#endif // KILN_GRAPH_RECURRENT_OPS
