//===- AttentionMasks.h - What an additive attention mask's values mean -*- C++ -*-===//
//
// Shared by graph-recognize-causal-masks and the flash-attention matcher, which both read
// a mask `Where(allowed, 0, f)` as allowed / masked out.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_GRAPH_ATTENTIONMASKS_H
#define KILN_PASSES_GRAPH_ATTENTIONMASKS_H

#include "dialects/graph/GraphOps.h"

#include "llvm/ADT/APFloat.h"

#include <optional>

namespace kiln {

/// Whether adding `value` to a score masks it out: -inf, at most -1e30, or the lowest
/// finite value of its type (`finfo(dtype).min`, which exporters write; f16's -65504, what
/// an f32 mask of -3.4e38 becomes in f16). The scores are accumulated in f32, where
/// exp(s - 65504 - max) is 0 for any score an attention layer computes.
inline bool isMaskedOutScore(const llvm::APFloat &value) {
  if (!value.isNegative())
    return false;
  if (value.isInfinity() || value.convertToDouble() <= -1e30)
    return true;
  return value.bitwiseIsEqual(llvm::APFloat::getLargest(value.getSemantics(), /*Negative=*/true));
}

/// The one float a splat graph.constant holds (a mask's `0` or `f`).
inline std::optional<llvm::APFloat> getSplatFloat(mlir::Value value) {
  auto constant = value.getDefiningOp<graph::ConstantOp>();
  auto dense = constant ? llvm::dyn_cast<mlir::DenseFPElementsAttr>(constant.getValue()) : nullptr;
  if (!dense || !dense.isSplat())
    return std::nullopt;
  return dense.getSplatValue<llvm::APFloat>();
}

} // namespace kiln

#endif // KILN_PASSES_GRAPH_ATTENTIONMASKS_H
