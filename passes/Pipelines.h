//===- Pipelines.h - The pass pipelines of Kiln's stages --------*- C++ -*-===//
//
// The passes of each stage, in order, as functions that fill a pass manager: `kiln`
// runs them, and kiln-opt exposes them as named pipelines so any stage can be replayed
// on a module written by `kiln compile --compile-to=...`.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_PIPELINES_H
#define KILN_PASSES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace kiln {

/// The graph passes every target runs: shape inference (and, as they land, folding,
/// pattern recognition and fusion). Pipeline `kiln-graph-pipeline`.
void addGraphPasses(mlir::OpPassManager &pm);

/// Lowers a graph module to the LLVM dialect for the host CPU: graph to linalg on
/// tensors, one-shot bufferization with ownership-based deallocation, linalg to loops,
/// and the upstream conversions to LLVM. Public functions get C interfaces
/// (`_mlir_ciface_<name>`) for the JIT caller. Pipeline `kiln-lower-to-cpu`.
void addCpuLoweringPasses(mlir::OpPassManager &pm);

/// Registers the pipelines above with the pass registry (for kiln-opt).
/// Kernel formation and the generic lowering of every kernel, up to one host function of
/// allocations, weights and loop nests on buffers (the input of gpu-map-loops).
void addGpuHostLoweringPasses(mlir::OpPassManager &pm);

void registerPipelines();

} // namespace kiln

#endif // KILN_PASSES_PIPELINES_H
