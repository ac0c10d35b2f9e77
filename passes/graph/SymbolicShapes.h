//===- SymbolicShapes.h - Dynamic extents as expressions of named dims -*- C++ -*-===//
//
// What a graph function's dynamic extents are in terms of its inputs' symbolic dimensions
// (the ONNX dim_params the importer records as `graph.dims`: "batch", "sequence"): every
// extent of every tensor, and the elements of the small integer tensors that exported
// models compute shapes with (Shape -> Gather -> Unsqueeze -> Concat -> Reshape), as
// polynomials in those symbols. It is what makes a dynamic graph precise where `?` alone
// is not: BERT's `Reshape(x, Concat(b, s, -1, 64))` is [batch, sequence, 12, 64], not
// ?x?x?x?, and two `?` extents are known equal when they are the same polynomial.
//
// Every symbol stands for a positive integer (an extent of at least 1). An extent the
// analysis cannot express (a data-dependent one, or one of an op it has no rule for) gets
// a fresh symbol of its own, equal to nothing else.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_GRAPH_SYMBOLICSHAPES_H
#define KILN_PASSES_GRAPH_SYMBOLICSHAPES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::graph {

/// An integer polynomial in dimension symbols (numbered by the analysis): a sum of
/// terms, each a coefficient times a product of symbols.
class DimExpr {
public:
  /// A product of symbols: their numbers, each as often as its power, sorted.
  using Monomial = llvm::SmallVector<unsigned, 2>;

  static DimExpr constant(int64_t value);
  static DimExpr symbol(unsigned number);

  /// The value when the polynomial is a constant.
  std::optional<int64_t> getConstant() const;
  /// +1 or -1 where the sign is the same for every positive value of the symbols (all
  /// coefficients of one sign), 0 for the zero polynomial; nullopt when it depends on them.
  std::optional<int> sign() const;

  DimExpr operator+(const DimExpr &other) const;
  DimExpr operator-(const DimExpr &other) const;
  DimExpr operator*(const DimExpr &other) const;
  /// The quotient when `divisor` (a single term) divides every term exactly.
  std::optional<DimExpr> divideExactly(const DimExpr &divisor) const;

  /// The terms, each a coefficient times a product of symbols (none for zero), for
  /// code that evaluates the polynomial (kernel formation's host arithmetic).
  llvm::ArrayRef<std::pair<Monomial, int64_t>> getTerms() const { return terms; }
  /// The largest symbol number in the polynomial, or nothing for a constant.
  std::optional<unsigned> getLargestSymbol() const;

  bool operator==(const DimExpr &other) const { return terms == other.terms; }
  bool operator!=(const DimExpr &other) const { return !(*this == other); }

  /// "batch*sequence*768", "sequence + 1", "12": with the analysis's symbol names.
  void print(llvm::raw_ostream &os, llvm::ArrayRef<std::string> names) const;

private:
  /// Sorted by monomial, no zero coefficients (the zero polynomial has no terms).
  llvm::SmallVector<std::pair<Monomial, int64_t>, 2> terms;
  void normalize();
};

/// What the analysis knows of one tensor value.
struct SymbolicShape {
  /// One extent a dimension; empty for an unranked tensor (`ranked` false).
  bool ranked = false;
  llvm::SmallVector<DimExpr, 4> dims;
  /// The elements (row major) of a small integer or boolean tensor whose values are
  /// known as polynomials: a shape computation's values (booleans as 0 and 1).
  std::optional<llvm::SmallVector<DimExpr, 4>> elements;

  /// The integers the tensor holds when its elements are all known constants.
  std::optional<llvm::SmallVector<int64_t>> constantElements() const;
};

/// The symbolic extents of every tensor value of a graph function, computed once in
/// program order.
class SymbolicShapeAnalysis {
public:
  explicit SymbolicShapeAnalysis(mlir::func::FuncOp function);

  /// The shape of `value` (null for values the function does not define: non-tensors).
  const SymbolicShape *lookup(mlir::Value value) const;
  /// Symbol names, by number: the inputs' `graph.dims` names (or "<input>.<dim>" for an
  /// unnamed dynamic dimension), then "?<n>" for the extents the analysis cannot express.
  llvm::ArrayRef<std::string> symbolNames() const { return names; }
  /// How many symbols come from the function's inputs (the first ones).
  unsigned inputSymbolCount() const { return inputSymbols; }
  std::string describe(const DimExpr &expr) const;

private:
  DimExpr freshSymbol();
  SymbolicShape fromType(mlir::Type type);
  void visit(mlir::Operation *op);

  llvm::DenseMap<mlir::Value, SymbolicShape> shapes;
  std::vector<std::string> names;
  unsigned inputSymbols = 0;
};

} // namespace kiln::graph

#endif // KILN_PASSES_GRAPH_SYMBOLICSHAPES_H
