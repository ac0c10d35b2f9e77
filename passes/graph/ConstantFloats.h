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

/// `value` rounded to the nearest `type` (ties to even).
double roundToFloatType(double value, mlir::FloatType type);

/// A constant of float `type` holding `values` rounded to its element type: inline when
/// at most 16 elements, else a resource blob named `blobName` (a unique suffix added).
mlir::Value createFloatConstant(mlir::OpBuilder &builder, mlir::Location loc,
                                mlir::RankedTensorType type, llvm::ArrayRef<double> values,
                                llvm::StringRef blobName);

} // namespace kiln::graph

#endif // KILN_PASSES_GRAPH_CONSTANTFLOATS_H
