//===- RootBuffer.h - The buffer a memref is a view of ------------*- C++ -*-===//
//
// The loop-level GPU passes (gpu-fuse-loop-nests, gpu-promote-accumulators) reason about
// which buffers accesses touch: two accesses can overlap only through the same root.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_LOWERING_ROOTBUFFER_H
#define KILN_PASSES_LOWERING_ROOTBUFFER_H

#include "mlir/IR/Value.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace kiln {

/// The buffer `memref` is a view of: through views to an allocation, a global or a
/// function argument (or whatever else defines it).
inline mlir::Value getRootBuffer(mlir::Value memref) {
  while (auto view = memref.getDefiningOp<mlir::ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

} // namespace kiln

#endif // KILN_PASSES_LOWERING_ROOTBUFFER_H
