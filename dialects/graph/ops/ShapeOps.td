//===- ShapeOps.td - Shape and data-movement ops -*- tablegen -*-===//

#ifndef KILN_GRAPH_SHAPE_OPS
#define KILN_GRAPH_SHAPE_OPS

include "dialects/graph/GraphBase.td"

// (none yet)

#endif // KILN_GRAPH_SHAPE_OPS
