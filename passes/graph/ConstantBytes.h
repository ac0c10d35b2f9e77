//===- ConstantBytes.h - Constants as raw element bytes ---------*- C++ -*-===//
//
// Rewrites that rearrange weights at compile time (concatenating sibling weights,
// transposing a Gemm's B) move elements without computing with them, so they work on the
// constant's bytes: every element type whose width is a whole number of bytes, dense or
// resource blob, copied exactly.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_GRAPH_CONSTANTBYTES_H
#define KILN_PASSES_GRAPH_CONSTANTBYTES_H

#include "dialects/graph/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>
#include <optional>
#include <vector>

namespace kiln::graph {

/// The width in bytes of one element of `type`, or 0 when it is not a whole number of
/// bytes (i1) or not an integer or float.
inline unsigned getElementBytes(mlir::Type type) {
  if (!type.isIntOrFloat())
    return 0;
  unsigned bits = type.getIntOrFloatBitWidth();
  return bits % 8 == 0 ? bits / 8 : 0;
}

/// The elements of `value`, row major, as the bytes the importer stores (little-endian),
/// when it is a graph.constant of a static shape with whole-byte elements; else nullopt.
inline std::optional<std::vector<char>> readConstantBytes(mlir::Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  mlir::ElementsAttr attr = constant.getValue();
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(attr.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  unsigned bytes = getElementBytes(type.getElementType());
  if (bytes == 0)
    return std::nullopt;
  size_t size = size_t(type.getNumElements()) * bytes;
  if (auto dense = llvm::dyn_cast<mlir::DenseElementsAttr>(attr)) {
    llvm::ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      if (raw.size() != bytes)
        return std::nullopt;
      std::vector<char> data;
      data.reserve(size);
      for (int64_t i = 0, e = type.getNumElements(); i < e; ++i)
        data.insert(data.end(), raw.begin(), raw.end());
      return data;
    }
    if (raw.size() != size)
      return std::nullopt;
    return std::vector<char>(raw.begin(), raw.end());
  }
  auto resource = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(attr);
  if (!resource)
    return std::nullopt;
  mlir::AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (!blob || blob->getData().size() != size)
    return std::nullopt;
  llvm::ArrayRef<char> raw = blob->getData();
  return std::vector<char>(raw.begin(), raw.end());
}

/// The name of `value`'s resource blob when it is a graph.constant holding one, else "".
inline llvm::StringRef getResourceName(mlir::Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return {};
  if (auto resource = llvm::dyn_cast<mlir::DenseResourceElementsAttr>(constant.getValue()))
    return resource.getRawHandle().getKey();
  return {};
}

/// A graph.constant of `type` holding `data` (row major): inline when small, a resource
/// blob named after `name` otherwise (as the importer stores weights).
inline mlir::Value createConstantFromBytes(mlir::OpBuilder &builder, mlir::Location loc,
                                           mlir::RankedTensorType type, llvm::ArrayRef<char> data,
                                           llvm::StringRef name) {
  unsigned bytes = getElementBytes(type.getElementType());
  mlir::ElementsAttr attr;
  if (type.getNumElements() <= 16)
    attr = mlir::DenseElementsAttr::getFromRawBuffer(type, data);
  else
    attr = mlir::DenseResourceElementsAttr::get(
        type, name, mlir::HeapAsmResourceBlob::allocateAndCopyWithAlign(data, bytes));
  return ConstantOp::create(builder, loc, attr);
}

/// The [cols, rows] transpose of a row-major [rows, cols] matrix of `bytes`-wide elements.
inline std::vector<char> transposeBytes(llvm::ArrayRef<char> data, int64_t rows, int64_t cols,
                                        unsigned bytes) {
  std::vector<char> result(data.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::copy_n(data.data() + (r * cols + c) * bytes, bytes,
                  result.data() + (c * rows + r) * bytes);
  return result;
}

/// The elements of `value` when it is an f32 graph.constant of a static shape (scales,
/// quantization parameters); else nullopt.
inline std::optional<std::vector<float>> readF32Constant(mlir::Value value) {
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
  if (!type || !type.getElementType().isF32())
    return std::nullopt;
  std::optional<std::vector<char>> bytes = readConstantBytes(value);
  if (!bytes)
    return std::nullopt;
  std::vector<float> values(bytes->size() / sizeof(float));
  std::memcpy(values.data(), bytes->data(), values.size() * sizeof(float));
  return values;
}

} // namespace kiln::graph

#endif // KILN_PASSES_GRAPH_CONSTANTBYTES_H
