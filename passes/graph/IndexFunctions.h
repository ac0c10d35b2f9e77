//===- IndexFunctions.h - Tensors known as functions of their indices -*- C++ -*-===//
//
// Exported models compute masks and positions from shapes alone: PyTorch's causal mask is
// `arange(S)[None, :] <= arange(S)[:, None]`, and its "same document" term compares
// cumulative sums of `positions[1:] - positions[:-1] != 1` over `arange`, which are 0
// everywhere. With static shapes constant folding evaluates them; with dynamic ones they
// stay run-time tensors of [batch, 1, S, S] that the attention kernels would read. This
// analysis knows such integer and boolean tensors as functions of their element's
// indices (i_0, ..., i_{r-1}):
//   - affine: constant + sum_d coefficient_d * i_d (a uniform tensor has no
//     coefficients; a boolean one is 0 or 1);
//   - a comparison: (constant + sum_d coefficient_d * i_d) <= 0, == 0 or != 0 (booleans).
// It follows Range, ConstantOfShape, splat constants, Unsqueeze, Squeeze, Expand, Slice and
// Concat (index maps), Add, Sub, Neg, Mul by a uniform factor, comparisons, Not, And, Or,
// Where, Cast, Max and Min of uniform operands, CumSum and Gather/GatherND of uniform ones,
// and nothing else. A dimension's coefficient is only kept where the extent is the
// result's (SymbolicShapes.h proves it), so broadcasting never stretches an index.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_GRAPH_INDEXFUNCTIONS_H
#define KILN_PASSES_GRAPH_INDEXFUNCTIONS_H

#include "passes/graph/SymbolicShapes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kiln::graph {

/// One tensor's elements as a function of their indices (see the file comment).
struct IndexFunction {
  /// How the affine part is read: as the value, or compared with 0.
  enum class Kind { Affine, LessOrEqualZero, EqualZero, NotEqualZero };
  Kind kind = Kind::Affine;
  /// One per dimension of the tensor.
  llvm::SmallVector<int64_t, 4> coefficients;
  int64_t constant = 0;

  /// Whether every element is the same (an affine part without coefficients).
  bool isUniform() const;
  /// The one value of a uniform tensor (a comparison evaluated: 1 or 0).
  std::optional<int64_t> uniformValue() const;
  bool operator==(const IndexFunction &other) const {
    return kind == other.kind && coefficients == other.coefficients && constant == other.constant;
  }
  bool operator!=(const IndexFunction &other) const { return !(*this == other); }
};

/// The index functions of a graph function's integer and boolean values, computed once in
/// program order.
class IndexFunctionAnalysis {
public:
  IndexFunctionAnalysis(mlir::func::FuncOp function, const SymbolicShapeAnalysis &shapes);

  /// What is known of `value`, or null.
  const IndexFunction *lookup(mlir::Value value) const;
  /// `value`'s function over the dimensions of `result` (right-aligned, as broadcasting
  /// aligns them), or nullopt when nothing is known or one of its varying dimensions is
  /// not the result's.
  std::optional<IndexFunction> broadcastTo(mlir::Value value, mlir::Value result) const;

private:
  void visit(mlir::Operation *op);
  /// The integer elements of a small constant tensor (the symbolic analysis's).
  std::optional<llvm::SmallVector<int64_t>> constantElements(mlir::Value value) const;
  /// The extent of `value`'s dimension `dim`, when constant.
  std::optional<int64_t> constantExtent(mlir::Value value, int64_t dim) const;

  const SymbolicShapeAnalysis &shapes;
  llvm::DenseMap<mlir::Value, IndexFunction> functions;
};

} // namespace kiln::graph

#endif // KILN_PASSES_GRAPH_INDEXFUNCTIONS_H
