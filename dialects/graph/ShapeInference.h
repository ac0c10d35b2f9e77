//===- ShapeInference.h - Shape rules of graph ops --------------*- C++ -*-===//
//
// The shape arithmetic behind the graph ops' result-type inference, kept free of op
// classes so it can be unit-tested and reused by the importer and by passes.
// Shapes use ShapedType::kDynamic for unknown extents.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECTS_GRAPH_SHAPEINFERENCE_H
#define KILN_DIALECTS_GRAPH_SHAPEINFERENCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

namespace kiln::graph {

/// The NumPy broadcast of two shapes. Fails (with a message) when two static extents
/// differ and neither is 1.
llvm::Expected<llvm::SmallVector<int64_t>> broadcastShapes(llvm::ArrayRef<int64_t> lhs,
                                                           llvm::ArrayRef<int64_t> rhs);

/// One spatial output extent of a convolution or pooling window:
/// floor((in + padBegin + padEnd - dilation * (kernel - 1) - 1) / stride) + 1.
/// Dynamic if `in` or `kernel` is. Fails when the window does not fit the padded input.
llvm::Expected<int64_t> convOutputExtent(int64_t in, int64_t kernel, int64_t stride,
                                         int64_t dilation, int64_t padBegin, int64_t padEnd);

/// The result shape of a NumPy matmul (ONNX MatMul) of two ranked operands.
llvm::Expected<llvm::SmallVector<int64_t>> matmulShape(llvm::ArrayRef<int64_t> lhs,
                                                       llvm::ArrayRef<int64_t> rhs);

/// True when `actual` types may stand for `inferred` ones: the same element types and
/// shapes that agree wherever both are known. This is the contract between a graph op's
/// declared result types and what its operands imply.
bool isRefinementCompatible(mlir::TypeRange inferred, mlir::TypeRange actual);

} // namespace kiln::graph

#endif // KILN_DIALECTS_GRAPH_SHAPEINFERENCE_H
