//===- Passes.td - Every Kiln pass, for the reference ------*- tablegen -*-===//
//
// The passes are declared by stage, beside their code: passes/graph/Passes.td,
// passes/lowering/Passes.td, passes/kernel/Passes.td. This file gathers them for the
// generated reference (docs/reference/Passes.md, `scripts/generate-docs.sh`).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES
#define KILN_PASSES

include "passes/graph/Passes.td"
include "passes/lowering/Passes.td"
include "passes/kernel/Passes.td"

#endif // KILN_PASSES
