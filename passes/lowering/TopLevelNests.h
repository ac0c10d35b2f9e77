//===- TopLevelNests.h - The launches-to-be of a GPU host function --*- C++ -*-===//
//
// gpu-map-loops makes each top-level scf.parallel of a host function a launch; the passes
// before it that reshape those nests (gpu-flatten-pointwise-loops,
// gpu-vectorize-pointwise-loops, gpu-block-reductions) walk the same list.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_LOWERING_TOPLEVELNESTS_H
#define KILN_PASSES_LOWERING_TOPLEVELNESTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace kiln {

/// The scf.parallel ops directly in `function`'s blocks, in order (collected first, so
/// that the caller may replace them).
inline llvm::SmallVector<mlir::scf::ParallelOp> topLevelNests(mlir::func::FuncOp function) {
  llvm::SmallVector<mlir::scf::ParallelOp> nests;
  for (mlir::Block &block : function.getBody())
    for (auto nest : block.getOps<mlir::scf::ParallelOp>())
      nests.push_back(nest);
  return nests;
}

} // namespace kiln

#endif // KILN_PASSES_LOWERING_TOPLEVELNESTS_H
