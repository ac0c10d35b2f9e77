//===- RandomOps.td - Random number generation -*- tablegen -*-===//

#ifndef KILN_GRAPH_RANDOM_OPS
#define KILN_GRAPH_RANDOM_OPS

include "dialects/graph/GraphBase.td"

// (none yet)

#endif // KILN_GRAPH_RANDOM_OPS
