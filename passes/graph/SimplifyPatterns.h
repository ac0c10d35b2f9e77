//===- SimplifyPatterns.h - graph-simplify's rewrites, for other passes -*- C++ -*-===//

#ifndef KILN_PASSES_GRAPH_SIMPLIFYPATTERNS_H
#define KILN_PASSES_GRAPH_SIMPLIFYPATTERNS_H

#include "mlir/IR/PatternMatch.h"

namespace kiln {

/// The local rewrites of graph-simplify (transpose and reshape chains, no-op data
/// movement, arithmetic identities), for passes that create such chains themselves
/// (graph-convert-layout).
void populateGraphSimplifyPatterns(mlir::RewritePatternSet &patterns);

} // namespace kiln

#endif // KILN_PASSES_GRAPH_SIMPLIFYPATTERNS_H
