//===- ConstantFloats.h - Float constants as doubles ------------*- C++ -*-===//
//
// Rewrites that compute with weights at compile time (BatchNorm folded into a conv's
// weights, LayerNorm's scale into a product's) read a float constant's elements as
// doubles and write the results back rounded once to the weights' element type, as the
// importer stores them: inline when small, a resource blob otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_GRAPH_CONSTANTFLOATS_H
#define KILN_PASSES_GRAPH_CONSTANTFLOATS_H

#include "dialects/graph/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kiln::graph {

/// The element values of `value` as doubles when it is a graph.constant of floats (dense
/// or a resource blob of 8-, 16-, 32- or 64-bit floats) of a static shape, or nullopt.
std::optional<llvm::SmallVector<double>> readConstantFloats(mlir::Value value);

/// Rounding of doubles to the values of a float type (ties to even) and stepping between
/// those values. f16, bf16 and f32 in double arithmetic, exactly (scaling by powers of two,
/// rounding to an integer), other types through APFloat: rewrites that compute weights at
/// compile time round millions of elements.
class FloatRounding {
public:
  explicit FloatRounding(mlir::FloatType type);
  /// `value` rounded to the nearest value of the type.
  double round(double value) const;
  /// The value of the type next to `value` (one of them) downwards or upwards.
  double next(double value, bool down) const;

private:
  /// The spacing of the values at binary exponent `exponent`.
  double quantum(int exponent) const;
  /// Whether the double arithmetic takes `value`: finite, non-zero, within the range.
  bool exact(double value) const;

  mlir::FloatType type;
  /// Significand bits, least normal and largest exponents; precision 0: APFloat.
  int precision = 0, minExponent = 0, maxExponent = 0;
};

/// A constant of float `type` holding `values` rounded to its element type: inline when
/// at most 16 elements, else a resource blob named `blobName` (a unique suffix added).
mlir::Value createFloatConstant(mlir::OpBuilder &builder, mlir::Location loc,
                                mlir::RankedTensorType type, llvm::ArrayRef<double> values,
                                llvm::StringRef blobName);

} // namespace kiln::graph

#endif // KILN_PASSES_GRAPH_CONSTANTFLOATS_H
