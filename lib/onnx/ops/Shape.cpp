//===- Shape.cpp - Converters for the Shape family ===//

#include "lib/onnx/NodeImporter.h"
#include "lib/onnx/Tensors.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::onnx {

/// The integers of attribute `name` as a constant operand (the newest opset's form of an
/// attribute that became an input), or null when the attribute is absent.
static FailureOr<Value> intsAttrAsOperand(NodeImporter &node, StringRef name) {
  auto values = node.intsAttr(name);
  if (failed(values))
    return failure();
  if (!*values)
    return Value();
  return node.constantI64(**values);
}

static LogicalResult convertReshape(NodeImporter &node) {
  auto input = node.requiredInput(0);
  // Before opset 5 the shape was an attribute.
  if (node.opset() < 5) {
    auto shapeAttr = node.intsAttr("shape");
    if (failed(input) || failed(shapeAttr))
      return failure();
    if (!*shapeAttr)
      return node.error() << "attribute 'shape' is required before opset 5";
    OpBuilder &b = node.builder();
    return node.setResults(
        node.create<graph::ReshapeOp>({*input, node.constantI64(**shapeAttr)},
                                      {b.getNamedAttr("allowzero", b.getBoolAttr(false))}));
  }
  auto shape = node.requiredInput(1);
  // allowzero exists from opset 14; before, 0 always copied the input extent.
  auto allowZero = node.intAttr("allowzero", 0);
  if (failed(input) || failed(shape) || failed(allowZero))
    return failure();
  if (node.opset() < 14 && node.attribute("allowzero"))
    return node.error() << "allowzero exists from opset 14; the model imports opset "
                        << node.opset();
  if (*allowZero != 0 && *allowZero != 1)
    return node.error() << "allowzero must be 0 or 1, got " << *allowZero;
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::ReshapeOp>(
      {*input, *shape}, {b.getNamedAttr("allowzero", b.getBoolAttr(*allowZero))}));
}

static LogicalResult convertTranspose(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto perm = node.intsAttr("perm");
  if (failed(input) || failed(perm))
    return failure();
  SmallVector<int64_t> permValue;
  if (*perm) {
    permValue = **perm;
  } else {
    // The default reverses the dimensions, which needs the rank.
    auto type = dyn_cast<RankedTensorType>(input->getType());
    if (!type)
      return node.error() << "needs perm or an input of known rank";
    for (int64_t i = type.getRank() - 1; i >= 0; --i)
      permValue.push_back(i);
  }
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::TransposeOp>(
      {*input}, {b.getNamedAttr("perm", b.getDenseI64ArrayAttr(permValue))}));
}

static LogicalResult convertFlatten(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto axis = node.intAttr("axis", 1);
  if (failed(input) || failed(axis))
    return failure();
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::FlattenOp>(
      {*input}, {b.getNamedAttr("axis", b.getI64IntegerAttr(*axis))}));
}

/// Squeeze and Unsqueeze: `axes` is an attribute before opset 13 and an input since.
template <typename OpTy>
static LogicalResult convertSqueezeLike(NodeImporter &node, bool axesRequired) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  Value axes;
  if (node.opset() < 13) {
    auto fromAttr = intsAttrAsOperand(node, "axes");
    if (failed(fromAttr))
      return failure();
    axes = *fromAttr;
  } else {
    axes = node.input(1);
  }
  if (!axes && axesRequired)
    return node.error() << "needs axes";
  SmallVector<Value> operands{*input};
  if (axes)
    operands.push_back(axes);
  return node.setResults(node.create<OpTy>(operands));
}

static LogicalResult convertSqueeze(NodeImporter &node) {
  return convertSqueezeLike<graph::SqueezeOp>(node, /*axesRequired=*/false);
}

static LogicalResult convertUnsqueeze(NodeImporter &node) {
  return convertSqueezeLike<graph::UnsqueezeOp>(node, /*axesRequired=*/true);
}

static LogicalResult convertExpand(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto shape = node.requiredInput(1);
  if (failed(input) || failed(shape))
    return failure();
  return node.setResults(node.create<graph::ExpandOp>({*input, *shape}));
}

static LogicalResult convertTile(NodeImporter &node) {
  // Tile-1 took `tiles` and `axis` inputs; from opset 6 one `repeats` per dimension.
  if (node.opset() < 6)
    return node.error() << "Tile before opset 6 (tiles and axis inputs) is not supported";
  auto input = node.requiredInput(0);
  auto repeats = node.requiredInput(1);
  if (failed(input) || failed(repeats))
    return failure();
  return node.setResults(node.create<graph::TileOp>({*input, *repeats}));
}

static LogicalResult convertDepthToSpace(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto blockSize = node.intAttr("blocksize");
  // mode exists from opset 11; DCR is the earlier behaviour.
  auto mode = node.stringAttr("mode", "DCR");
  if (failed(input) || failed(blockSize) || failed(mode))
    return failure();
  if (!*blockSize || **blockSize < 1)
    return node.error() << "needs a positive blocksize";
  if (*mode != "DCR" && !(*mode == "CRD" && node.opset() >= 11))
    return node.error() << "unsupported mode '" << *mode << "' at opset " << node.opset();
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::DepthToSpaceOp>(
      {*input}, {b.getNamedAttr("blocksize", b.getI64IntegerAttr(**blockSize)),
                 b.getNamedAttr("mode", b.getStringAttr(*mode))}));
}

static LogicalResult convertSpaceToDepth(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto blockSize = node.intAttr("blocksize");
  if (failed(input) || failed(blockSize))
    return failure();
  if (!*blockSize || **blockSize < 1)
    return node.error() << "needs a positive blocksize";
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::SpaceToDepthOp>(
      {*input}, {b.getNamedAttr("blocksize", b.getI64IntegerAttr(**blockSize))}));
}

static LogicalResult convertConcat(NodeImporter &node) {
  SmallVector<Value> inputs;
  for (size_t i = 0; i < node.numInputs(); ++i) {
    auto input = node.requiredInput(i);
    if (failed(input))
      return failure();
    inputs.push_back(*input);
  }
  auto axis = node.intAttr("axis");
  if (failed(axis))
    return failure();
  // Before opset 4, axis was optional and defaulted to 1.
  if (!*axis && node.opset() < 4)
    *axis = 1;
  if (!*axis)
    return node.error() << "needs axis";
  OpBuilder &b = node.builder();
  return node.setResults(
      node.create<graph::ConcatOp>(inputs, {b.getNamedAttr("axis", b.getI64IntegerAttr(**axis))}));
}

static LogicalResult convertSplit(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto axis = node.intAttr("axis", 0);
  if (failed(input) || failed(axis))
    return failure();
  int64_t numOutputs = node.numOutputs();
  Value split;
  if (node.opset() < 13) {
    auto fromAttr = intsAttrAsOperand(node, "split");
    if (failed(fromAttr))
      return failure();
    split = *fromAttr;
  } else {
    split = node.input(1);
  }
  if (node.opset() >= 18) {
    auto numOutputsAttr = node.intAttr("num_outputs");
    if (failed(numOutputsAttr))
      return failure();
    if (split && *numOutputsAttr)
      return node.error() << "takes either the split input or num_outputs, not both";
    if (!split && !*numOutputsAttr)
      return node.error() << "needs the split input or num_outputs";
    if (*numOutputsAttr && **numOutputsAttr != numOutputs)
      return node.error() << "num_outputs is " << **numOutputsAttr << " but the node has "
                          << numOutputs << " outputs";
  }
  if (numOutputs < 1)
    return node.error() << "needs at least one output";
  // Before opset 18 a split without sizes had to be even; since, the last part may be
  // smaller, which is the graph op's rule.
  auto inputType = dyn_cast<RankedTensorType>(input->getType());
  if (node.opset() < 18 && !split && inputType && *axis >= -inputType.getRank() &&
      *axis < inputType.getRank()) {
    int64_t extent = inputType.getDimSize(*axis < 0 ? *axis + inputType.getRank() : *axis);
    if (!ShapedType::isDynamic(extent) && extent % numOutputs != 0)
      return node.error() << "cannot split extent " << extent << " evenly into " << numOutputs
                          << " outputs";
  }
  SmallVector<Value> operands{*input};
  if (split)
    operands.push_back(split);
  OpBuilder &b = node.builder();
  return node.setResults(
      node.create<graph::SplitOp>(operands,
                                  {b.getNamedAttr("axis", b.getI64IntegerAttr(*axis)),
                                   b.getNamedAttr("num_outputs", b.getI64IntegerAttr(numOutputs))},
                                  numOutputs));
}

static LogicalResult convertSlice(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  Value starts, ends, axes, steps;
  if (node.opset() < 10) {
    // Opsets 1-9 had starts, ends and axes as attributes, and no steps.
    auto startsAttr = intsAttrAsOperand(node, "starts");
    auto endsAttr = intsAttrAsOperand(node, "ends");
    auto axesAttr = intsAttrAsOperand(node, "axes");
    if (failed(startsAttr) || failed(endsAttr) || failed(axesAttr))
      return failure();
    if (!*startsAttr || !*endsAttr)
      return node.error() << "needs starts and ends";
    starts = *startsAttr;
    ends = *endsAttr;
    axes = *axesAttr;
  } else {
    auto startsInput = node.requiredInput(1);
    auto endsInput = node.requiredInput(2);
    if (failed(startsInput) || failed(endsInput))
      return failure();
    starts = *startsInput;
    ends = *endsInput;
    axes = node.input(3);
    steps = node.input(4);
  }
  SmallVector<Value> operands{*input, starts, ends};
  if (axes)
    operands.push_back(axes);
  if (steps)
    operands.push_back(steps);
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::SliceOp>(
      operands, {b.getNamedAttr("operandSegmentSizes",
                                b.getDenseI32ArrayAttr({1, 1, 1, axes ? 1 : 0, steps ? 1 : 0}))}));
}

static LogicalResult convertPad(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto mode = node.stringAttr("mode", "constant");
  if (failed(input) || failed(mode))
    return failure();
  if (*mode != "constant" && *mode != "reflect" && *mode != "edge" &&
      !(*mode == "wrap" && node.opset() >= 19))
    return node.error() << "unsupported mode '" << *mode << "' at opset " << node.opset();
  Value pads, constantValue, axes;
  if (node.opset() < 11) {
    // Opsets 2-10 had pads and the fill value as attributes; opset 1 called pads
    // `paddings`.
    auto padsAttr = intsAttrAsOperand(node, node.opset() < 2 ? "paddings" : "pads");
    auto value = node.floatAttr("value", 0.0f);
    if (failed(padsAttr) || failed(value))
      return failure();
    if (!*padsAttr)
      return node.error() << "needs pads";
    pads = *padsAttr;
    if (*value != 0.0f) {
      auto type = dyn_cast<FloatType>(getElementTypeOrSelf(input->getType()));
      if (!type)
        return node.error() << "a non-zero value needs a floating-point input";
      APFloat fill(*value);
      bool losesInfo;
      fill.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
      constantValue = node.constant(DenseElementsAttr::get(RankedTensorType::get({}, type), fill));
    }
  } else {
    auto padsInput = node.requiredInput(1);
    if (failed(padsInput))
      return failure();
    pads = *padsInput;
    constantValue = node.input(2);
    axes = node.input(3);
  }
  SmallVector<Value> operands{*input, pads};
  if (constantValue)
    operands.push_back(constantValue);
  if (axes)
    operands.push_back(axes);
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::PadOp>(
      operands,
      {b.getNamedAttr("mode", b.getStringAttr(*mode)),
       b.getNamedAttr("operandSegmentSizes",
                      b.getDenseI32ArrayAttr({1, 1, constantValue ? 1 : 0, axes ? 1 : 0}))}));
}

static LogicalResult convertCenterCropPad(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto shape = node.requiredInput(1);
  auto axes = node.intsAttr("axes");
  if (failed(input) || failed(shape) || failed(axes))
    return failure();
  SmallVector<int64_t> axesValue;
  if (*axes) {
    axesValue = **axes;
  } else {
    // The default is every axis, which needs the rank.
    auto type = dyn_cast<RankedTensorType>(input->getType());
    if (!type)
      return node.error() << "needs axes or an input of known rank";
    for (int64_t i = 0; i < type.getRank(); ++i)
      axesValue.push_back(i);
  }
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::CenterCropPadOp>(
      {*input, *shape}, {b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axesValue))}));
}

/// Gather and GatherElements: data, indices and an axis (default 0).
template <typename OpTy> static LogicalResult convertGatherLike(NodeImporter &node) {
  auto data = node.requiredInput(0);
  auto indices = node.requiredInput(1);
  auto axis = node.intAttr("axis", 0);
  if (failed(data) || failed(indices) || failed(axis))
    return failure();
  OpBuilder &b = node.builder();
  return node.setResults(
      node.create<OpTy>({*data, *indices}, {b.getNamedAttr("axis", b.getI64IntegerAttr(*axis))}));
}

static LogicalResult convertGatherND(NodeImporter &node) {
  auto data = node.requiredInput(0);
  auto indices = node.requiredInput(1);
  // batch_dims exists from opset 12.
  auto batchDims = node.intAttr("batch_dims", 0);
  if (failed(data) || failed(indices) || failed(batchDims))
    return failure();
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::GatherNDOp>(
      {*data, *indices}, {b.getNamedAttr("batch_dims", b.getI64IntegerAttr(*batchDims))}));
}

/// The reduction of ScatterElements and ScatterND: none before opset 16, add and mul from
/// 16, max and min from 18.
static FailureOr<std::string> scatterReduction(NodeImporter &node) {
  auto reduction = node.stringAttr("reduction", "none");
  if (failed(reduction))
    return failure();
  bool known = *reduction == "none" ||
               (node.opset() >= 16 && (*reduction == "add" || *reduction == "mul")) ||
               (node.opset() >= 18 && (*reduction == "max" || *reduction == "min"));
  if (!known)
    return LogicalResult(node.error() << "unsupported reduction '" << *reduction << "' at opset "
                                      << node.opset());
  return *reduction;
}

/// ScatterElements, and the deprecated Scatter (opsets 9-10) that it replaced.
static LogicalResult convertScatterElements(NodeImporter &node) {
  auto data = node.requiredInput(0);
  auto indices = node.requiredInput(1);
  auto updates = node.requiredInput(2);
  auto axis = node.intAttr("axis", 0);
  if (failed(data) || failed(indices) || failed(updates) || failed(axis))
    return failure();
  auto reduction = scatterReduction(node);
  if (failed(reduction))
    return failure();
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::ScatterElementsOp>(
      {*data, *indices, *updates}, {b.getNamedAttr("axis", b.getI64IntegerAttr(*axis)),
                                    b.getNamedAttr("reduction", b.getStringAttr(*reduction))}));
}

static LogicalResult convertScatter(NodeImporter &node) {
  if (node.opset() >= 11)
    return node.error() << "Scatter was removed in opset 11; use ScatterElements";
  return convertScatterElements(node);
}

static LogicalResult convertScatterND(NodeImporter &node) {
  auto data = node.requiredInput(0);
  auto indices = node.requiredInput(1);
  auto updates = node.requiredInput(2);
  if (failed(data) || failed(indices) || failed(updates))
    return failure();
  auto reduction = scatterReduction(node);
  if (failed(reduction))
    return failure();
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::ScatterNDOp>(
      {*data, *indices, *updates}, {b.getNamedAttr("reduction", b.getStringAttr(*reduction))}));
}

static LogicalResult convertCompress(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto condition = node.requiredInput(1);
  auto axis = node.intAttr("axis");
  if (failed(input) || failed(condition) || failed(axis))
    return failure();
  SmallVector<NamedAttribute> attributes;
  OpBuilder &b = node.builder();
  if (*axis)
    attributes.push_back(b.getNamedAttr("axis", b.getI64IntegerAttr(**axis)));
  return node.setResults(node.create<graph::CompressOp>({*input, *condition}, attributes));
}

static LogicalResult convertNonZero(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  return node.setResults(node.create<graph::NonZeroOp>({*input}));
}

static LogicalResult convertReverseSequence(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto lens = node.requiredInput(1);
  auto batchAxis = node.intAttr("batch_axis", 1);
  auto timeAxis = node.intAttr("time_axis", 0);
  if (failed(input) || failed(lens) || failed(batchAxis) || failed(timeAxis))
    return failure();
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::ReverseSequenceOp>(
      {*input, *lens}, {b.getNamedAttr("batch_axis", b.getI64IntegerAttr(*batchAxis)),
                        b.getNamedAttr("time_axis", b.getI64IntegerAttr(*timeAxis))}));
}

static LogicalResult convertTrilu(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto upper = node.intAttr("upper", 1);
  if (failed(input) || failed(upper))
    return failure();
  SmallVector<Value> operands{*input};
  if (Value k = node.input(1))
    operands.push_back(k);
  OpBuilder &b = node.builder();
  return node.setResults(
      node.create<graph::TriluOp>(operands, {b.getNamedAttr("upper", b.getBoolAttr(*upper != 0))}));
}

static LogicalResult convertShape(NodeImporter &node) {
  auto input = node.requiredInput(0);
  // start and end exist from opset 15.
  auto start = node.intAttr("start", 0);
  auto end = node.intAttr("end");
  if (failed(input) || failed(start) || failed(end))
    return failure();
  OpBuilder &b = node.builder();
  SmallVector<NamedAttribute> attributes{b.getNamedAttr("start", b.getI64IntegerAttr(*start))};
  if (*end)
    attributes.push_back(b.getNamedAttr("end", b.getI64IntegerAttr(**end)));
  return node.setResults(node.create<graph::ShapeOp>({*input}, attributes));
}

static LogicalResult convertSize(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  return node.setResults(node.create<graph::SizeOp>({*input}));
}

static LogicalResult convertRange(NodeImporter &node) {
  auto start = node.requiredInput(0);
  auto limit = node.requiredInput(1);
  auto delta = node.requiredInput(2);
  if (failed(start) || failed(limit) || failed(delta))
    return failure();
  return node.setResults(node.create<graph::RangeOp>({*start, *limit, *delta}));
}

static LogicalResult convertConstantOfShape(NodeImporter &node) {
  auto shape = node.requiredInput(0);
  auto value = node.tensorAttr("value");
  if (failed(shape) || failed(value))
    return failure();
  OpBuilder &b = node.builder();
  ElementsAttr fill =
      *value
          ? **value
          : ElementsAttr(DenseElementsAttr::get(RankedTensorType::get({1}, b.getF32Type()), 0.0f));
  return node.setResults(
      node.create<graph::ConstantOfShapeOp>({*shape}, {b.getNamedAttr("value", fill)}));
}

static LogicalResult convertEyeLike(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto dtype = node.intAttr("dtype");
  auto k = node.intAttr("k", 0);
  if (failed(input) || failed(dtype) || failed(k))
    return failure();
  Type resultElementType = getElementTypeOrSelf(input->getType());
  if (*dtype) {
    auto converted = elementType(*node.context(), int(**dtype));
    if (!converted)
      return node.error() << "unsupported dtype: " << llvm::toString(converted.takeError());
    resultElementType = *converted;
  }
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::EyeLikeOp>(
      {*input}, {b.getNamedAttr("dtype", TypeAttr::get(resultElementType)),
                 b.getNamedAttr("k", b.getI64IntegerAttr(*k))}));
}

static LogicalResult convertOneHot(NodeImporter &node) {
  auto indices = node.requiredInput(0);
  auto depth = node.requiredInput(1);
  auto values = node.requiredInput(2);
  auto axis = node.intAttr("axis", -1);
  if (failed(indices) || failed(depth) || failed(values) || failed(axis))
    return failure();
  OpBuilder &b = node.builder();
  return node.setResults(node.create<graph::OneHotOp>(
      {*indices, *depth, *values}, {b.getNamedAttr("axis", b.getI64IntegerAttr(*axis))}));
}

static LogicalResult convertUnique(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto axis = node.intAttr("axis");
  auto sorted = node.intAttr("sorted", 1);
  if (failed(input) || failed(axis) || failed(sorted))
    return failure();
  if (*sorted != 0 && *sorted != 1)
    return node.error() << "sorted must be 0 or 1, got " << *sorted;
  OpBuilder &b = node.builder();
  SmallVector<NamedAttribute> attributes{b.getNamedAttr("sorted", b.getBoolAttr(*sorted))};
  // An absent axis means the flattened input, so it stays absent.
  if (*axis)
    attributes.push_back(b.getNamedAttr("axis", b.getI64IntegerAttr(**axis)));
  return node.setResults(node.create<graph::UniqueOp>({*input}, attributes, 4));
}

void addShapeConverters(ConverterRegistry &registry) {
  registry.add("CenterCropPad", convertCenterCropPad, 18);
  registry.add("Compress", convertCompress, 9);
  registry.add("Concat", convertConcat);
  registry.add("ConstantOfShape", convertConstantOfShape, 9);
  registry.add("DepthToSpace", convertDepthToSpace);
  registry.add("Expand", convertExpand, 8);
  registry.add("EyeLike", convertEyeLike, 9);
  registry.add("Flatten", convertFlatten);
  registry.add("Gather", convertGatherLike<graph::GatherOp>);
  registry.add("GatherElements", convertGatherLike<graph::GatherElementsOp>, 11);
  registry.add("GatherND", convertGatherND, 11);
  registry.add("NonZero", convertNonZero, 9);
  registry.add("OneHot", convertOneHot, 9);
  registry.add("Pad", convertPad);
  registry.add("Range", convertRange, 11);
  registry.add("Reshape", convertReshape);
  registry.add("ReverseSequence", convertReverseSequence, 10);
  registry.add("Scatter", convertScatter, 9);
  registry.add("ScatterElements", convertScatterElements, 11);
  registry.add("ScatterND", convertScatterND, 11);
  registry.add("Shape", convertShape);
  registry.add("Size", convertSize);
  registry.add("Slice", convertSlice);
  registry.add("SpaceToDepth", convertSpaceToDepth);
  registry.add("Split", convertSplit);
  registry.add("Squeeze", convertSqueeze);
  registry.add("Tile", convertTile);
  registry.add("Transpose", convertTranspose);
  registry.add("Trilu", convertTrilu, 14);
  registry.add("Unsqueeze", convertUnsqueeze);
  registry.add("Unique", convertUnique, 11);
}

} // namespace kiln::onnx
