//===- Passes.h - Every Kiln pass -------------------------------*- C++ -*-===//
//
// The passes of every stage, for the drivers and tools that run them; a pass's own code
// includes only its stage's header (passes/graph/Passes.h, passes/lowering/Passes.h,
// passes/kernel/Passes.h).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_PASSES_H
#define KILN_PASSES_PASSES_H

#include "passes/graph/Passes.h"
#include "passes/kernel/Passes.h"
#include "passes/lowering/Passes.h"

namespace kiln {

/// Registers every Kiln pass with MLIR's pass registry (kiln-opt, and the pass-manager
/// options of the kiln tool that name passes).
void registerKilnPasses();

} // namespace kiln

#endif // KILN_PASSES_PASSES_H
