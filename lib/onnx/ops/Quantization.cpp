//===- Quantization.cpp - Converters for the Quantization family ===//

#include "lib/onnx/ConvAttributes.h"
#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::onnx {

/// Binds the node's outputs to the results of `op`, or fails when `op` does.
static LogicalResult finish(NodeImporter &node, FailureOr<Operation *> op) {
  if (failed(op))
    return failure();
  return node.setResults((*op)->getResults());
}

/// The element type of an ONNX TensorProto data type that QuantizeLinear may produce
/// (its `output_dtype`), or null.
static Type quantizedElementType(MLIRContext *context, int64_t dataType) {
  switch (dataType) {
  case 2: // UINT8
    return IntegerType::get(context, 8, IntegerType::Unsigned);
  case 3: // INT8
    return IntegerType::get(context, 8);
  case 4: // UINT16
    return IntegerType::get(context, 16, IntegerType::Unsigned);
  case 5: // INT16
    return IntegerType::get(context, 16);
  case 17: // FLOAT8E4M3FN
    return Float8E4M3FNType::get(context);
  case 18: // FLOAT8E4M3FNUZ
    return Float8E4M3FNUZType::get(context);
  case 19: // FLOAT8E5M2
    return Float8E5M2Type::get(context);
  case 20: // FLOAT8E5M2FNUZ
    return Float8E5M2FNUZType::get(context);
  case 21: // UINT4
    return IntegerType::get(context, 4, IntegerType::Unsigned);
  case 22: // INT4
    return IntegerType::get(context, 4);
  default:
    return nullptr;
  }
}

/// `axis` (default 1, from opset 13) and `block_size` (default 0, from opset 21) of
/// QuantizeLinear and DequantizeLinear, as named attributes.
static FailureOr<SmallVector<NamedAttribute>> quantizationAxisAttributes(NodeImporter &node) {
  int64_t axis = 1, blockSize = 0;
  if (node.opset() >= 13) {
    auto axisAttr = node.intAttr("axis", 1);
    if (failed(axisAttr))
      return failure();
    axis = *axisAttr;
  }
  if (node.opset() >= 21) {
    auto blockSizeAttr = node.intAttr("block_size", 0);
    if (failed(blockSizeAttr))
      return failure();
    if (*blockSizeAttr < 0)
      return LogicalResult(node.error() << "attribute 'block_size' must not be negative, got "
                                        << *blockSizeAttr);
    blockSize = *blockSizeAttr;
  }
  OpBuilder &b = node.builder();
  return SmallVector<NamedAttribute>{b.getNamedAttr("axis", b.getI64IntegerAttr(axis)),
                                     b.getNamedAttr("block_size", b.getI64IntegerAttr(blockSize))};
}

//===----------------------------------------------------------------------===//
// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear
//===----------------------------------------------------------------------===//

static LogicalResult convertQuantizeLinear(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto scale = node.requiredInput(1);
  if (failed(input) || failed(scale))
    return failure();
  Value zeroPoint = node.input(2);
  auto attributes = quantizationAxisAttributes(node);
  if (failed(attributes))
    return failure();

  // `saturate` (opset 19) only changes f8 results; earlier opsets have no f8 results.
  bool saturate = true;
  if (node.opset() >= 19) {
    auto saturateAttr = node.intAttr("saturate", 1);
    if (failed(saturateAttr))
      return failure();
    if (*saturateAttr != 0 && *saturateAttr != 1)
      return node.error() << "attribute 'saturate' must be 0 or 1, got " << *saturateAttr;
    saturate = *saturateAttr == 1;
  }

  // `output_dtype` (opset 21) names the result type when there is no zero point to carry
  // it; the normalised form has the zero point carry it, so an absent one becomes zeros.
  if (node.opset() >= 21) {
    auto outputDtype = node.intAttr("output_dtype", 0);
    if (failed(outputDtype))
      return failure();
    if (*outputDtype != 0) {
      Type outputType = quantizedElementType(node.context(), *outputDtype);
      if (!outputType)
        return node.error() << "attribute 'output_dtype' " << *outputDtype
                            << " is not a type QuantizeLinear produces";
      if (zeroPoint) {
        Type zeroPointType = cast<TensorType>(zeroPoint.getType()).getElementType();
        if (zeroPointType != outputType)
          return node.error() << "output_dtype " << outputType
                              << " differs from the zero point's element type " << zeroPointType;
      } else if (!outputType.isUnsignedInteger(8)) {
        auto scaleType = dyn_cast<RankedTensorType>(scale->getType());
        if (!scaleType || !scaleType.hasStaticShape())
          return node.error() << "output_dtype " << outputType
                              << " without a zero point needs a scale of static shape";
        zeroPoint = node.constant(
            cast<ElementsAttr>(node.builder().getZeroAttr(scaleType.clone(outputType))));
      }
    }
  }

  OpBuilder &b = node.builder();
  attributes->push_back(b.getNamedAttr("saturate", b.getBoolAttr(saturate)));
  SmallVector<Value> operands{*input, *scale};
  if (zeroPoint)
    operands.push_back(zeroPoint);
  return finish(node, node.create<graph::QuantizeLinearOp>(operands, *attributes));
}

static LogicalResult convertDequantizeLinear(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto scale = node.requiredInput(1);
  if (failed(input) || failed(scale))
    return failure();
  auto attributes = quantizationAxisAttributes(node);
  if (failed(attributes))
    return failure();
  SmallVector<Value> operands{*input, *scale};
  if (Value zeroPoint = node.input(2))
    operands.push_back(zeroPoint);
  return finish(node, node.create<graph::DequantizeLinearOp>(operands, *attributes));
}

static LogicalResult convertDynamicQuantizeLinear(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  return finish(node, node.create<graph::DynamicQuantizeLinearOp>({*input}, {},
                                                                  /*numResults=*/3));
}

//===----------------------------------------------------------------------===//
// QLinearMatMul, MatMulInteger
//===----------------------------------------------------------------------===//

static LogicalResult convertQLinearMatMul(NodeImporter &node) {
  SmallVector<Value> operands;
  for (size_t i = 0; i < 8; ++i) {
    auto operand = node.requiredInput(i);
    if (failed(operand))
      return failure();
    operands.push_back(*operand);
  }
  return finish(node, node.create<graph::QLinearMatMulOp>(operands));
}

/// Zero point `index` of an integer matmul or convolution, or a scalar 0 of `operand`'s
/// element type (ONNX's default) when the node omits it.
static Value zeroPointOrZero(NodeImporter &node, size_t index, Value operand) {
  if (Value zeroPoint = node.input(index))
    return zeroPoint;
  Type element = cast<TensorType>(operand.getType()).getElementType();
  return node.constant(
      cast<ElementsAttr>(node.builder().getZeroAttr(RankedTensorType::get({}, element))));
}

static LogicalResult convertMatMulInteger(NodeImporter &node) {
  auto lhs = node.requiredInput(0);
  auto rhs = node.requiredInput(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  return finish(node,
                node.create<graph::MatMulIntegerOp>(
                    {*lhs, *rhs, zeroPointOrZero(node, 2, *lhs), zeroPointOrZero(node, 3, *rhs)}));
}

//===----------------------------------------------------------------------===//
// QLinearConv, ConvInteger
//===----------------------------------------------------------------------===//

static LogicalResult convertQLinearConv(NodeImporter &node) {
  SmallVector<Value> operands;
  for (size_t i = 0; i < 8; ++i) {
    auto operand = node.requiredInput(i);
    if (failed(operand))
      return failure();
    operands.push_back(*operand);
  }
  if (Value bias = node.input(8))
    operands.push_back(bias);
  auto attributes = convAttributes(node, operands[0], operands[3]);
  if (failed(attributes))
    return failure();
  return finish(node, node.create<graph::QLinearConvOp>(operands, *attributes));
}

static LogicalResult convertConvInteger(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto weight = node.requiredInput(1);
  if (failed(input) || failed(weight))
    return failure();
  auto attributes = convAttributes(node, *input, *weight);
  if (failed(attributes))
    return failure();
  return finish(
      node, node.create<graph::ConvIntegerOp>({*input, *weight, zeroPointOrZero(node, 2, *input),
                                               zeroPointOrZero(node, 3, *weight)},
                                              *attributes));
}

void addQuantizationConverters(ConverterRegistry &registry) {
  registry.add("QuantizeLinear", convertQuantizeLinear);
  registry.add("DequantizeLinear", convertDequantizeLinear);
  registry.add("DynamicQuantizeLinear", convertDynamicQuantizeLinear);
  registry.add("QLinearMatMul", convertQLinearMatMul);
  registry.add("QLinearConv", convertQLinearConv);
  registry.add("MatMulInteger", convertMatMulInteger);
  registry.add("ConvInteger", convertConvInteger);
}

} // namespace kiln::onnx
