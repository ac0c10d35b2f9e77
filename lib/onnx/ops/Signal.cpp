//===- Signal.cpp - Converters for signal processing ===//

#include "lib/onnx/NodeImporter.h"
#include "lib/onnx/Tensors.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::onnx {

/// The element type that the `output_datatype` attribute names (ONNX's default: FLOAT).
static FailureOr<Type> outputDatatype(NodeImporter &node) {
  auto code = node.intAttr("output_datatype", 1);
  if (failed(code))
    return failure();
  auto type = elementType(*node.context(), int(*code));
  if (!type)
    return LogicalResult(node.error() << "unsupported output_datatype " << dataTypeName(int(*code))
                                      << ": " << llvm::toString(type.takeError()));
  return *type;
}

static LogicalResult convertDFT(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto inverse = node.boolAttr("inverse", false);
  auto onesided = node.boolAttr("onesided", false);
  if (failed(input) || failed(inverse) || failed(onesided))
    return failure();
  int64_t axis;
  if (node.opset() < 20) {
    // DFT-17 has axis as an attribute, by default the first dimension after the batch.
    if (node.input(2))
      return node.error() << "axis is an input from opset 20; the model imports opset "
                          << node.opset();
    auto axisAttr = node.intAttr("axis", 1);
    if (failed(axisAttr))
      return failure();
    axis = *axisAttr;
  } else {
    // DFT-20 made axis an optional input, by default the last signal dimension; the graph
    // op keeps it an attribute, so it must be a constant.
    axis = -2;
    if (node.input(2)) {
      auto values = node.constantInts(2);
      if (!values || values->size() != 1)
        return node.error() << "axis must be a constant integer scalar";
      axis = (*values)[0];
    }
  }
  SmallVector<Value> operands{*input};
  if (Value dftLength = node.input(1))
    operands.push_back(dftLength);
  OpBuilder &b = node.builder();
  return node.setResults(
      node.create<graph::DFTOp>(operands, {b.getNamedAttr("axis", b.getI64IntegerAttr(axis)),
                                           b.getNamedAttr("inverse", b.getBoolAttr(*inverse)),
                                           b.getNamedAttr("onesided", b.getBoolAttr(*onesided))}));
}

static LogicalResult convertSTFT(NodeImporter &node) {
  auto signal = node.requiredInput(0);
  auto frameStep = node.requiredInput(1);
  auto onesided = node.boolAttr("onesided", true);
  if (failed(signal) || failed(frameStep) || failed(onesided))
    return failure();
  Value window = node.input(2), frameLength = node.input(3);
  SmallVector<Value> operands{*signal, *frameStep};
  for (Value optional : {window, frameLength})
    if (optional)
      operands.push_back(optional);
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::STFTOp>(
      operands,
      {b.getNamedAttr("onesided", b.getBoolAttr(*onesided)),
       b.getNamedAttr("operandSegmentSizes",
                      b.getDenseI32ArrayAttr({1, 1, window ? 1 : 0, frameLength ? 1 : 0}))}));
}

template <typename WindowOp> static LogicalResult convertWindow(NodeImporter &node) {
  auto size = node.requiredInput(0);
  auto periodic = node.boolAttr("periodic", true);
  auto datatype = outputDatatype(node);
  if (failed(size) || failed(periodic) || failed(datatype))
    return failure();
  OpBuilder &b = node.builder();
  return node.setResults(node.create<WindowOp>(
      {*size}, {b.getNamedAttr("periodic", b.getBoolAttr(*periodic)),
                b.getNamedAttr("output_datatype", TypeAttr::get(*datatype))}));
}

static LogicalResult convertMelWeightMatrix(NodeImporter &node) {
  SmallVector<Value> operands;
  for (size_t index = 0; index < 5; ++index) {
    auto operand = node.requiredInput(index);
    if (failed(operand))
      return failure();
    operands.push_back(*operand);
  }
  auto datatype = outputDatatype(node);
  if (failed(datatype))
    return failure();
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::MelWeightMatrixOp>(
      operands, {b.getNamedAttr("output_datatype", TypeAttr::get(*datatype))}));
}

void addSignalConverters(ConverterRegistry &registry) {
  registry.add("DFT", convertDFT, 17);
  registry.add("STFT", convertSTFT, 17);
  registry.add("HannWindow", convertWindow<graph::HannWindowOp>, 17);
  registry.add("HammingWindow", convertWindow<graph::HammingWindowOp>, 17);
  registry.add("BlackmanWindow", convertWindow<graph::BlackmanWindowOp>, 17);
  registry.add("MelWeightMatrix", convertMelWeightMatrix, 17);
}

} // namespace kiln::onnx
