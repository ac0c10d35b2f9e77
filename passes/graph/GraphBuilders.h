//===- GraphBuilders.h - Small graph ops that rewrites create --*- C++ -*-===//
//
// The index constants, reshapes, transposes and gathers that the graph rewrites (patch
// embeddings, convolution forms, padded products, attention's decomposition) build
// around the ops they replace.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_GRAPH_GRAPHBUILDERS_H
#define KILN_PASSES_GRAPH_GRAPHBUILDERS_H

#include "dialects/graph/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace kiln::graph {

/// A 1-D i64 graph.constant of `values` (a shape, starts, axes, pads).
inline mlir::Value createIndexConstant(mlir::OpBuilder &b, mlir::Location loc,
                                       llvm::ArrayRef<int64_t> values) {
  auto type = mlir::RankedTensorType::get({int64_t(values.size())}, b.getI64Type());
  return ConstantOp::create(
      b, loc, mlir::cast<mlir::ElementsAttr>(mlir::DenseElementsAttr::get(type, values)));
}

/// A reshape of `input` to `target` (ONNX's: 0 copies the input's extent there, so a
/// dynamic batch passes through; -1 is inferred), typed `type`.
inline mlir::Value createReshape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                                 llvm::ArrayRef<int64_t> target, mlir::RankedTensorType type) {
  return ReshapeOp::create(b, loc, type, input, createIndexConstant(b, loc, target),
                           b.getBoolAttr(false));
}

/// `input` transposed by `perm` (dimension d of the result is dimension perm[d] of it).
inline mlir::Value createTranspose(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                                   llvm::ArrayRef<int64_t> perm) {
  auto type = mlir::cast<mlir::RankedTensorType>(input.getType());
  llvm::SmallVector<int64_t> shape;
  for (int64_t dim : perm)
    shape.push_back(type.getDimSize(dim));
  return TransposeOp::create(b, loc, mlir::RankedTensorType::get(shape, type.getElementType()),
                             input, b.getDenseI64ArrayAttr(perm));
}

/// `value` with zeros appended along `axis` up to `extent` (graph.pad, constant mode).
inline mlir::Value createZeroPad(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                                 int64_t axis, int64_t extent) {
  auto type = mlir::cast<mlir::RankedTensorType>(value.getType());
  llvm::SmallVector<int64_t> pads(2 * type.getRank(), 0);
  pads[type.getRank() + axis] = extent - type.getDimSize(axis);
  llvm::SmallVector<int64_t> shape(type.getShape());
  shape[axis] = extent;
  return PadOp::create(b, loc, type.clone(shape), value, createIndexConstant(b, loc, pads),
                       /*constant_value=*/mlir::Value(), /*axes=*/mlir::Value(),
                       b.getStringAttr("constant"));
}

/// The first `extent` elements of `value` along `axis` (graph.slice), typed `type`.
inline mlir::Value createPrefixSlice(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                                     int64_t axis, int64_t extent, mlir::RankedTensorType type) {
  return SliceOp::create(b, loc, type, value, createIndexConstant(b, loc, {0}),
                         createIndexConstant(b, loc, {extent}), createIndexConstant(b, loc, {axis}),
                         /*steps=*/mlir::Value());
}

/// `keyOrValue` ([.., Hkv, S, D]) with each head repeated for the query heads of its
/// group when it has fewer heads than `queryHeads`, a divisor of them (grouped-query
/// attention: a gather of head h / (H / Hkv) along the head axis); else `keyOrValue`.
inline mlir::Value createRepeatedHeads(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value keyOrValue, int64_t queryHeads) {
  auto type = mlir::cast<mlir::RankedTensorType>(keyOrValue.getType());
  int64_t rank = type.getRank();
  int64_t heads = rank >= 3 ? type.getDimSize(rank - 3) : 1;
  if (mlir::ShapedType::isDynamic(heads) || mlir::ShapedType::isDynamic(queryHeads) || heads <= 1 ||
      heads == queryHeads || queryHeads % heads != 0)
    return keyOrValue;
  llvm::SmallVector<int64_t> indices;
  for (int64_t head = 0; head < queryHeads; ++head)
    indices.push_back(head / (queryHeads / heads));
  llvm::SmallVector<int64_t> shape(type.getShape());
  shape[rank - 3] = queryHeads;
  return GatherOp::create(b, loc, type.clone(shape), keyOrValue,
                          createIndexConstant(b, loc, indices), b.getI64IntegerAttr(rank - 3));
}

} // namespace kiln::graph

#endif // KILN_PASSES_GRAPH_GRAPHBUILDERS_H
