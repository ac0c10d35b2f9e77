//===- OpHelpers.h - Shared pieces of the graph ops' C++ --------*- C++ -*-===//
//
// Helpers for the shape rules in <Family>Ops.cpp; internal to the dialect.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECTS_GRAPH_OPHELPERS_H
#define KILN_DIALECTS_GRAPH_OPHELPERS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Value.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace kiln::graph {

/// A ranked tensor of `shape`, or an unranked one when the shape is unknown.
mlir::Type tensorOf(std::optional<llvm::ArrayRef<int64_t>> shape, mlir::Type elementType);

/// The result type of a binary op whose result shape is `rule(lhs shape, rhs shape)` and
/// whose element type is the lhs's; unranked when either operand is.
mlir::LogicalResult inferBinaryOpType(std::optional<mlir::Location> location, mlir::Value lhs,
                                      mlir::Value rhs,
                                      llvm::function_ref<llvm::Expected<llvm::SmallVector<int64_t>>(
                                          llvm::ArrayRef<int64_t>, llvm::ArrayRef<int64_t>)>
                                          rule,
                                      llvm::SmallVectorImpl<mlir::Type> &inferred);

/// `axis` as a dimension index in [0, rank), negative values counting from the back; an
/// error when it is outside [-rank, rank).
mlir::FailureOr<int64_t> normalizeAxis(std::optional<mlir::Location> location, int64_t axis,
                                       int64_t rank);

/// The values of `value` when a constant of floats defines it (Resize's scales), else
/// nullopt.
std::optional<llvm::SmallVector<double>> getConstantFloats(mlir::Value value);

/// The values of `value` when a constant of integers defines it (an operand such as
/// Reshape's shape or Squeeze's axes), else nullopt.
std::optional<llvm::SmallVector<int64_t>> getConstantInts(mlir::Value value);

/// The elements ONNX Slice takes along one dimension of extent `dim` (opset 13: negative
/// bounds count from the back, then clamp): the first index and how many, `step` apart.
struct SliceRange {
  int64_t start = 0, count = 0;
};
SliceRange resolveSliceRange(int64_t dim, int64_t start, int64_t end, int64_t step);

/// The result of convolving `input` [N, C, D...] with `weight` [M, C / group, K...] (ONNX
/// layouts) into elements of `elementType`: checks the window attributes and the channel
/// counts, and computes each spatial extent. Element types are the caller's to check
/// (the integer convolutions mix i8 and ui8 operands). With `channelsLast` the input is
/// [N, D..., C], the weight [M, K..., C / group] and the result [N, O..., M].
mlir::LogicalResult
inferConvResultType(std::optional<mlir::Location> location, mlir::Value input, mlir::Value weight,
                    llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> dilations,
                    llvm::ArrayRef<int64_t> pads, int64_t group, mlir::Type elementType,
                    llvm::SmallVectorImpl<mlir::Type> &inferred, bool channelsLast = false);

/// `type` with its last dimension moved to position 1 ([N, D..., C] to [N, C, D...]), or
/// with `toChannelsLast` its dimension 1 moved to the end; unranked types and ranks below
/// 3 are returned as they are.
mlir::Type moveChannelDim(mlir::Type type, bool toChannelsLast);

} // namespace kiln::graph

#endif // KILN_DIALECTS_GRAPH_OPHELPERS_H
