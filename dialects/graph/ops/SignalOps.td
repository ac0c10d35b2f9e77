//===- SignalOps.td - Signal processing -*- tablegen -*-===//

#ifndef KILN_GRAPH_SIGNAL_OPS
#define KILN_GRAPH_SIGNAL_OPS

include "dialects/graph/GraphBase.td"

// (none yet)

#endif // KILN_GRAPH_SIGNAL_OPS
