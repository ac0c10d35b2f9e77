//===- DecomposeQuantization.cpp - Q/DQ as pointwise graph ops ------------===//
//
// graph-decompose-quantization: graph.quantize_linear and graph.dequantize_linear have no
// Pointwise trait (a blocked scale reads along an axis), so kernel formation never fuses
// them, and the rescale of an integer conv's accumulator and the next layer's
// quantization would each be a kernel of their own. Decomposed into pointwise ops they
// join the conv's epilogue:
//
//   dequantize_linear(x, s, zp) = (cast<f32>(x) - zp) * s
//   quantize_linear(x, s, zp)   = cast<int>(clip(round(x / s) + zp, qmin, qmax))
//
// exactly as ONNX computes them: a division (a multiplication by 1 / s would move the
// ties that round half to even decides), rounding half to even (graph.round), saturation
// to the integer type's range. The zero point is subtracted or added only when it is not
// 0. A per-axis scale becomes a constant that broadcasts along the axis by NumPy's rules.
//
// Runs after the layout passes (the layout transposes sink through the undecomposed ops
// more simply) and on every compile: ONNX models with QuantizeLinear/DequantizeLinear
// take this path whether or not --int8 made them. What is left alone: blocked scales,
// per-axis quantize_linear, scales that are not f32 constants, float8 and 4-bit types.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/ConstantBytes.h"
#include "passes/graph/Passes.h"

#include <cmath>
#include <cstring>

namespace kiln {
#define GEN_PASS_DEF_GRAPHDECOMPOSEQUANTIZATION
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// An integer type of 8, 16 or 32 bits (not i1, not the 4-bit ones, whose constants are
/// not whole bytes).
bool isWholeByteInteger(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer &&
         (integer.getWidth() == 8 || integer.getWidth() == 16 || integer.getWidth() == 32);
}

/// The elements of an integer constant (8, 16 or 32 bits, signed or unsigned by its
/// type) as doubles, or nullopt.
std::optional<std::vector<double>> readIntegerConstant(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !isWholeByteInteger(type.getElementType()))
    return std::nullopt;
  std::optional<std::vector<char>> bytes = graph::readConstantBytes(value);
  if (!bytes)
    return std::nullopt;
  auto integer = cast<IntegerType>(type.getElementType());
  unsigned width = integer.getWidth() / 8;
  bool isUnsigned = integer.isUnsigned();
  std::vector<double> values;
  for (size_t offset = 0; offset + width <= bytes->size(); offset += width) {
    uint32_t raw = 0;
    std::memcpy(&raw, bytes->data() + offset, width);
    int64_t element = raw;
    if (!isUnsigned && (raw >> (8 * width - 1)) & 1)
      element -= int64_t(1) << (8 * width);
    values.push_back(double(element));
  }
  return values;
}

/// An f32 constant holding `values`: shape [] for one value, otherwise [M] along `axis`
/// of a rank-`rank` operand shaped to broadcast by NumPy's rules ([M] when `axis` is the
/// last dimension, [M, 1, ..., 1] otherwise).
Value createScaleConstant(OpBuilder &b, Location loc, ArrayRef<float> values, int64_t axis,
                          int64_t rank, StringRef name) {
  SmallVector<int64_t> shape;
  if (values.size() != 1) {
    shape.push_back(int64_t(values.size()));
    shape.append(rank - 1 - axis, 1);
  }
  ArrayRef<char> bytes(reinterpret_cast<const char *>(values.data()),
                       values.size() * sizeof(float));
  return graph::createConstantFromBytes(b, loc, RankedTensorType::get(shape, b.getF32Type()), bytes,
                                        name);
}

Value createF32Scalar(OpBuilder &b, Location loc, float value) {
  return createScaleConstant(b, loc, {value}, 0, 0, "");
}

/// The axis of a per-axis op, in [0, rank), or -1 when out of range.
int64_t normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < 0)
    axis += rank;
  return axis >= 0 && axis < rank ? axis : -1;
}

/// dequantize_linear -> mul(sub(cast(x), zp), s); false when it does not fit.
bool decomposeDequantize(graph::DequantizeLinearOp op) {
  auto inputType = dyn_cast<RankedTensorType>(op.getInput().getType());
  auto resultType = dyn_cast<RankedTensorType>(op.getResult().getType());
  if (op.getBlockSize() != 0 || !inputType || !resultType ||
      !isWholeByteInteger(inputType.getElementType()) || !resultType.getElementType().isF32())
    return false;
  std::optional<std::vector<float>> scales = graph::readF32Constant(op.getScale());
  if (!scales || scales->empty())
    return false;
  int64_t rank = inputType.getRank();
  int64_t axis = 0;
  if (scales->size() != 1) {
    axis = normalizeAxis(static_cast<int64_t>(op.getAxis()), rank);
    if (axis < 0 || cast<RankedTensorType>(op.getScale().getType()).getRank() != 1 ||
        inputType.getDimSize(axis) != int64_t(scales->size()))
      return false;
  }
  std::vector<float> zeroPoints;
  if (Value zeroPoint = op.getZeroPoint()) {
    std::optional<std::vector<double>> values = readIntegerConstant(zeroPoint);
    if (!values || (values->size() != 1 && values->size() != scales->size()))
      return false;
    if (llvm::any_of(*values, [](double value) { return value != 0; }))
      zeroPoints.assign(values->begin(), values->end());
  }

  OpBuilder b(op);
  Location loc = op.getLoc();
  Value result = graph::CastOp::create(b, loc, resultType, op.getInput(),
                                       TypeAttr::get(b.getF32Type()), b.getBoolAttr(true));
  if (!zeroPoints.empty()) {
    Value zero = createScaleConstant(b, loc, zeroPoints, axis, rank, "dequantize_zero_point");
    result = graph::SubOp::create(b, loc, TypeRange{resultType}, ValueRange{result, zero});
  }
  Value scale = createScaleConstant(b, loc, *scales, axis, rank, "dequantize_scale");
  result = graph::MulOp::create(b, loc, TypeRange{resultType}, ValueRange{result, scale});
  op.getResult().replaceAllUsesWith(result);
  op.erase();
  return true;
}

/// quantize_linear -> cast(clip(add(round(div(x, s)), zp), qmin, qmax)); false when it
/// does not fit.
bool decomposeQuantize(graph::QuantizeLinearOp op) {
  auto inputType = dyn_cast<RankedTensorType>(op.getInput().getType());
  auto resultType = dyn_cast<RankedTensorType>(op.getResult().getType());
  if (op.getBlockSize() != 0 || !inputType || !resultType || !inputType.getElementType().isF32())
    return false;
  auto integer = dyn_cast<IntegerType>(resultType.getElementType());
  if (!integer || (integer.getWidth() != 8 && integer.getWidth() != 16) || integer.isSigned())
    return false;
  // Per tensor only: one scale, one zero point.
  std::optional<std::vector<float>> scales = graph::readF32Constant(op.getScale());
  if (!scales || scales->size() != 1)
    return false;
  double zeroPoint = 0;
  if (Value zero = op.getZeroPoint()) {
    std::optional<std::vector<double>> values = readIntegerConstant(zero);
    if (!values || values->size() != 1)
      return false;
    zeroPoint = (*values)[0];
  }
  unsigned bits = integer.getWidth();
  double lowest = integer.isUnsigned() ? 0 : -std::ldexp(1.0, bits - 1);
  double highest = integer.isUnsigned() ? std::ldexp(1.0, bits) - 1 : std::ldexp(1.0, bits - 1) - 1;

  OpBuilder b(op);
  Location loc = op.getLoc();
  auto floatType = inputType.clone(b.getF32Type());
  Value scale = createF32Scalar(b, loc, (*scales)[0]);
  Value result =
      graph::DivOp::create(b, loc, TypeRange{floatType}, ValueRange{op.getInput(), scale});
  result = graph::RoundOp::create(b, loc, floatType, result);
  if (zeroPoint != 0)
    result = graph::AddOp::create(b, loc, TypeRange{floatType},
                                  ValueRange{result, createF32Scalar(b, loc, float(zeroPoint))});
  result = graph::ClipOp::create(b, loc, floatType, result, createF32Scalar(b, loc, lowest),
                                 createF32Scalar(b, loc, highest));
  result = graph::CastOp::create(b, loc, resultType, result, TypeAttr::get(integer),
                                 b.getBoolAttr(true));
  op.getResult().replaceAllUsesWith(result);
  op.erase();
  return true;
}

struct GraphDecomposeQuantization
    : kiln::impl::GraphDecomposeQuantizationBase<GraphDecomposeQuantization> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<graph::QuantizeLinearOp, graph::DequantizeLinearOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      bool decomposed = false;
      if (auto dequantize = dyn_cast<graph::DequantizeLinearOp>(op))
        decomposed = decomposeDequantize(dequantize);
      else
        decomposed = decomposeQuantize(cast<graph::QuantizeLinearOp>(op));
      numDecomposed += decomposed;
    }
  }
};

} // namespace
