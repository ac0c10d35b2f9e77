//===- AlignedRows.h - Whether a buffer's rows take aligned vectors --*- C++ -*-===//
//
// gpu-vectorize-pointwise-loops and gpu-tile-transposes both access runs of consecutive
// elements of a buffer's rows as one vector, which must be aligned to its size.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_LOWERING_ALIGNEDROWS_H
#define KILN_PASSES_LOWERING_ALIGNEDROWS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

namespace kiln {

/// Whether `lanes` consecutive elements of `buffer`'s rows, starting at a multiple of
/// `lanes`, are contiguous and aligned to their size at an aligned base (the engine aligns
/// every buffer to 256 bytes): its innermost stride is 1, and its offset and every other
/// stride are static multiples of `lanes`.
inline bool alignedRows(mlir::Value buffer, int64_t lanes) {
  auto type = llvm::cast<mlir::MemRefType>(buffer.getType());
  llvm::SmallVector<int64_t> strides;
  int64_t offset;
  if (type.getRank() == 0 || mlir::failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || mlir::ShapedType::isDynamic(offset) || offset % lanes != 0)
    return false;
  return llvm::all_of(llvm::ArrayRef<int64_t>(strides).drop_back(), [&](int64_t stride) {
    return !mlir::ShapedType::isDynamic(stride) && stride % lanes == 0;
  });
}

} // namespace kiln

#endif // KILN_PASSES_LOWERING_ALIGNEDROWS_H
