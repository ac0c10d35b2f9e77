//===- Recognize.h - Matching helpers of the graph-recognize-* passes -*- C++ -*-===//
//
// The recognition passes (RecognizeLayerNorm.cpp, RecognizeGelu.cpp,
// RecognizeActivations.cpp) match the sub-graphs exporters write for one operator
// (LayerNorm, GELU, SiLU, ...) and replace them by the graph op. They share these
// helpers: constants compared with a relative tolerance, operands of commutative ops in
// either order, single-use intermediates, trailing reduction axes.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_GRAPH_RECOGNIZE_H
#define KILN_PASSES_GRAPH_RECOGNIZE_H

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace kiln::recognize {

/// Relative tolerance of the constants a pattern expects (exporters write them in f32,
/// from expressions such as sqrt(2 / pi)).
constexpr double kRelativeTolerance = 1e-5;

/// The value of a float or integer constant whose elements are all equal (a scalar,
/// `[1]` or a splat), else nullopt.
inline std::optional<double> getSplatValue(mlir::Value value) {
  std::optional<llvm::SmallVector<double>> values = graph::getConstantFloats(value);
  if (!values) {
    std::optional<llvm::SmallVector<int64_t>> ints = graph::getConstantInts(value);
    if (!ints)
      return std::nullopt;
    values.emplace(ints->begin(), ints->end());
  }
  if (values->empty() || llvm::any_of(*values, [&](double v) { return v != values->front(); }))
    return std::nullopt;
  return values->front();
}

/// The relative tolerance for a constant of `value`'s element type: kRelativeTolerance, or
/// the type's own rounding when that is coarser (a model exported in f16 writes sqrt(2)
/// as 1.41406: 2^-11 of relative rounding; bf16 2^-8).
inline double relativeTolerance(mlir::Value value) {
  auto element = llvm::dyn_cast<mlir::FloatType>(mlir::getElementTypeOrSelf(value.getType()));
  if (!element)
    return kRelativeTolerance;
  return std::max(kRelativeTolerance,
                  std::ldexp(1.0, -static_cast<int>(element.getFPMantissaWidth())));
}

/// Whether `value` is a constant whose elements all equal `expected` within the
/// relative tolerance of its element type.
inline bool isConstant(mlir::Value value, double expected) {
  std::optional<double> actual = getSplatValue(value);
  return actual && std::fabs(*actual - expected) <= relativeTolerance(value) * std::fabs(expected);
}

/// `value`'s defining op when it is an `OpTy` whose result has no other use (an
/// intermediate the pattern may remove), else null.
template <typename OpTy> OpTy getSingleUseOp(mlir::Value value) {
  if (!value || !value.hasOneUse())
    return nullptr;
  return value.getDefiningOp<OpTy>();
}

/// The single user of `op`'s only result when it is an `OpTy` and uses it once, else null.
template <typename OpTy> OpTy getSingleUser(mlir::Operation *op) {
  if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
    return nullptr;
  return llvm::dyn_cast<OpTy>(*op->getResult(0).getUsers().begin());
}

/// For a binary op with `lhs`/`rhs` (commutative), the operand other than `known`, or
/// null when `known` is neither.
template <typename OpTy> mlir::Value getOtherOperand(OpTy op, mlir::Value known) {
  if (op.getLhs() == known)
    return op.getRhs();
  if (op.getRhs() == known)
    return op.getLhs();
  return nullptr;
}

/// For a commutative binary op, its operands ordered so that `isFirst(first)` holds, or
/// nullopt when neither order does.
template <typename OpTy>
std::optional<std::pair<mlir::Value, mlir::Value>>
matchOperands(OpTy op, llvm::function_ref<bool(mlir::Value)> isFirst) {
  if (isFirst(op.getLhs()))
    return std::make_pair(op.getLhs(), op.getRhs());
  if (isFirst(op.getRhs()))
    return std::make_pair(op.getRhs(), op.getLhs());
  return std::nullopt;
}

/// Whether `value` is `base * base` (graph.mul) or `base ^ 2` (graph.pow).
inline bool isSquareOf(mlir::Value value, mlir::Value base) {
  if (auto mul = value.getDefiningOp<graph::MulOp>())
    return mul.getLhs() == base && mul.getRhs() == base;
  if (auto pow = value.getDefiningOp<graph::PowOp>())
    return pow.getLhs() == base && isConstant(pow.getRhs(), 2.0);
  return false;
}

/// For a `graph.reduce_mean` with kept dimensions over a constant set of axes that are the
/// trailing dimensions of its ranked input ([-1], [-2, -1], [1, 2] of a rank-3 input, ...),
/// the first of them (normalised to [0, rank)), else nullopt.
inline std::optional<int64_t> getTrailingReductionAxis(graph::ReduceMeanOp mean) {
  auto inputType = llvm::dyn_cast<mlir::RankedTensorType>(mean.getData().getType());
  if (!inputType || !mean.getKeepdims() || !mean.getAxes())
    return std::nullopt;
  std::optional<llvm::SmallVector<int64_t>> axes = graph::getConstantInts(mean.getAxes());
  if (!axes || axes->empty())
    return std::nullopt;
  int64_t rank = inputType.getRank();
  llvm::SmallVector<int64_t> normalized;
  for (int64_t axis : *axes) {
    if (axis < -rank || axis >= rank)
      return std::nullopt;
    normalized.push_back(axis < 0 ? axis + rank : axis);
  }
  llvm::sort(normalized);
  for (auto [index, axis] : llvm::enumerate(normalized))
    if (axis != rank - static_cast<int64_t>(normalized.size()) + static_cast<int64_t>(index))
      return std::nullopt;
  return normalized.front();
}

/// Whether `scale` can be the scale (or bias) operand of a normalisation of `input` over
/// the dimensions from `axis` on: a ranked tensor of the input's element type that
/// broadcasts unidirectionally to those dimensions.
inline bool isNormalizationParameter(mlir::Value scale, mlir::RankedTensorType inputType,
                                     int64_t axis) {
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(scale.getType());
  if (!type || type.getElementType() != inputType.getElementType())
    return false;
  llvm::ArrayRef<int64_t> normalized = inputType.getShape().drop_front(axis);
  if (type.getRank() > static_cast<int64_t>(normalized.size()))
    return false;
  for (auto [from, to] : llvm::zip(llvm::reverse(type.getShape()), llvm::reverse(normalized)))
    if (from != 1 && from != to)
      return false;
  return true;
}

/// A constant of `inputType`'s element type filled with `value`, shaped like the
/// normalised dimensions (from `axis` on) where they are static, else `[1]`: the scale of
/// a normalisation written without one.
inline mlir::Value createNormalizationFill(mlir::PatternRewriter &rewriter, mlir::Location loc,
                                           mlir::RankedTensorType inputType, int64_t axis,
                                           double value) {
  llvm::ArrayRef<int64_t> normalized = inputType.getShape().drop_front(axis);
  llvm::SmallVector<int64_t> shape(normalized);
  if (llvm::any_of(shape, mlir::ShapedType::isDynamic))
    shape.assign(1, 1);
  auto type = mlir::RankedTensorType::get(shape, inputType.getElementType());
  mlir::Attribute element = rewriter.getFloatAttr(inputType.getElementType(), value);
  return graph::ConstantOp::create(rewriter, loc, type,
                                   mlir::DenseElementsAttr::get(type, llvm::ArrayRef(element)));
}

} // namespace kiln::recognize

#endif // KILN_PASSES_GRAPH_RECOGNIZE_H
