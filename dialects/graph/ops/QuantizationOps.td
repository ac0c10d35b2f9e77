//===- QuantizationOps.td - Quantized ops -*- tablegen -*-===//

#ifndef KILN_GRAPH_QUANTIZATION_OPS
#define KILN_GRAPH_QUANTIZATION_OPS

include "dialects/graph/GraphBase.td"

// (none yet)

#endif // KILN_GRAPH_QUANTIZATION_OPS
