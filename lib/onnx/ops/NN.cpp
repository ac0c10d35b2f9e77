//===- NN.cpp - Converters for convolution, pooling, normalisation, matmul ===//

#include "lib/onnx/ConvAttributes.h"
#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace kiln::onnx {

static LogicalResult convertConv(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto weight = node.requiredInput(1);
  if (failed(input) || failed(weight))
    return failure();
  auto attributes = convAttributes(node, *input, *weight);
  if (failed(attributes))
    return failure();
  SmallVector<Value> operands{*input, *weight};
  if (Value bias = node.input(2))
    operands.push_back(bias);
  return node.setResults(node.create<graph::ConvOp>(operands, *attributes));
}

/// Creates `OpTy` from `operands` and `attributes` and binds its results to the node's
/// outputs in order.
template <typename OpTy>
static LogicalResult createAndBind(NodeImporter &node, ValueRange operands,
                                   ArrayRef<NamedAttribute> attributes = {},
                                   unsigned numResults = 1) {
  auto op = node.create<OpTy>(operands, attributes, numResults);
  if (failed(op))
    return failure();
  return node.setResults((*op)->getResults());
}

/// Fails when any output from `firstUnsupported` on is used, naming `why`.
static LogicalResult rejectOutputsFrom(NodeImporter &node, size_t firstUnsupported,
                                       llvm::StringRef why) {
  for (size_t index = firstUnsupported; index < node.numOutputs(); ++index)
    if (node.hasOutput(index))
      return node.error() << "output " << index << " is not supported: " << why;
  return success();
}

static LogicalResult convertGemm(NodeImporter &node) {
  auto a = node.requiredInput(0);
  auto b = node.requiredInput(1);
  if (failed(a) || failed(b))
    return failure();
  auto alpha = node.floatAttr("alpha", 1.0f);
  auto beta = node.floatAttr("beta", 1.0f);
  auto transA = node.boolAttr("transA", false);
  auto transB = node.boolAttr("transB", false);
  if (failed(alpha) || failed(beta) || failed(transA) || failed(transB))
    return failure();
  // Opsets before 11 require C; from 11 on it is optional. Either way an absent C means
  // no bias term.
  SmallVector<Value> operands{*a, *b};
  if (Value c = node.input(2))
    operands.push_back(c);
  OpBuilder &builder = node.builder();
  return createAndBind<graph::GemmOp>(
      node, operands,
      {builder.getNamedAttr("alpha", builder.getF32FloatAttr(*alpha)),
       builder.getNamedAttr("beta", builder.getF32FloatAttr(*beta)),
       builder.getNamedAttr("trans_a", builder.getBoolAttr(*transA)),
       builder.getNamedAttr("trans_b", builder.getBoolAttr(*transB))});
}

/// The window attributes shared by MaxPool and AveragePool, with ONNX defaults filled in
/// and auto_pad resolved into pads.
struct PoolWindow {
  SmallVector<int64_t> kernelShape, strides, dilations, pads;
  bool ceilMode = false;
};

static FailureOr<PoolWindow> readPoolWindow(NodeImporter &node, Value input, bool hasDilations) {
  auto kernelShape = node.intsAttr("kernel_shape");
  auto strides = node.intsAttr("strides");
  auto dilations = node.intsAttr("dilations");
  auto pads = node.intsAttr("pads");
  auto autoPad = node.stringAttr("auto_pad", "NOTSET");
  // ceil_mode exists from opset 10 on; before, output extents always round down.
  auto ceilMode = node.boolAttr("ceil_mode", false);
  if (failed(kernelShape) || failed(strides) || failed(dilations) || failed(pads) ||
      failed(autoPad) || failed(ceilMode))
    return failure();
  if (!*kernelShape)
    return LogicalResult(node.error() << "needs kernel_shape");

  PoolWindow window;
  window.kernelShape = **kernelShape;
  size_t rank = window.kernelShape.size();
  window.strides = strides->value_or(SmallVector<int64_t>(rank, 1));
  window.dilations = SmallVector<int64_t>(rank, 1);
  if (*dilations) {
    if (!hasDilations)
      return LogicalResult(node.error() << "dilations are not defined at opset " << node.opset());
    window.dilations = **dilations;
  }
  if (window.strides.size() != rank || window.dilations.size() != rank)
    return LogicalResult(node.error() << "strides and dilations need " << rank << " extents");
  window.ceilMode = *ceilMode;
  if (*autoPad == "NOTSET") {
    window.pads = pads->value_or(SmallVector<int64_t>(2 * rank, 0));
    return window;
  }
  if (*pads)
    return LogicalResult(node.error()
                         << "pads and auto_pad " << *autoPad << " are mutually exclusive");
  SmallVector<int64_t> inputSpatial;
  if (auto inputType = dyn_cast<RankedTensorType>(input.getType());
      inputType && inputType.getRank() >= 2)
    inputSpatial.assign(inputType.getShape().drop_front(2).begin(), inputType.getShape().end());
  auto resolved = resolveAutoPad(node, *autoPad, inputSpatial, window.kernelShape, window.strides,
                                 window.dilations);
  if (failed(resolved))
    return failure();
  window.pads = *resolved;
  return window;
}

static SmallVector<NamedAttribute> poolWindowAttributes(OpBuilder &builder,
                                                        const PoolWindow &window) {
  return {builder.getNamedAttr("kernel_shape", builder.getDenseI64ArrayAttr(window.kernelShape)),
          builder.getNamedAttr("strides", builder.getDenseI64ArrayAttr(window.strides)),
          builder.getNamedAttr("dilations", builder.getDenseI64ArrayAttr(window.dilations)),
          builder.getNamedAttr("pads", builder.getDenseI64ArrayAttr(window.pads)),
          builder.getNamedAttr("ceil_mode", builder.getBoolAttr(window.ceilMode))};
}

static LogicalResult convertMaxPool(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  // dilations arrived in opset 10.
  auto window = readPoolWindow(node, *input, node.opset() >= 10);
  auto storageOrder = node.intAttr("storage_order", 0);
  if (failed(window) || failed(storageOrder))
    return failure();
  if (*storageOrder != 0 && *storageOrder != 1)
    return node.error() << "storage_order must be 0 (row major) or 1 (column major), got "
                        << *storageOrder;
  OpBuilder &builder = node.builder();
  SmallVector<NamedAttribute> attributes = poolWindowAttributes(builder, *window);
  attributes.push_back(
      builder.getNamedAttr("storage_order", builder.getI64IntegerAttr(*storageOrder)));
  return createAndBind<graph::MaxPoolOp>(node, *input, attributes, /*numResults=*/2);
}

static LogicalResult convertAveragePool(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  // dilations arrived in opset 19.
  auto window = readPoolWindow(node, *input, node.opset() >= 19);
  auto countIncludePad = node.boolAttr("count_include_pad", false);
  if (failed(window) || failed(countIncludePad))
    return failure();
  OpBuilder &builder = node.builder();
  SmallVector<NamedAttribute> attributes = poolWindowAttributes(builder, *window);
  attributes.push_back(
      builder.getNamedAttr("count_include_pad", builder.getBoolAttr(*countIncludePad)));
  return createAndBind<graph::AveragePoolOp>(node, *input, attributes);
}

/// An op whose only operand is the node's first input and that has no attributes.
template <typename OpTy> static LogicalResult convertUnaryNoAttributes(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  return createAndBind<OpTy>(node, *input);
}

/// The float type of an ONNX TensorProto data type used as a computation type.
static FailureOr<Type> floatTypeOf(NodeImporter &node, int64_t dataType, llvm::StringRef what) {
  OpBuilder &builder = node.builder();
  switch (dataType) {
  case 1:
    return Type(builder.getF32Type());
  case 10:
    return Type(builder.getF16Type());
  case 11:
    return Type(builder.getF64Type());
  case 16:
    return Type(builder.getBF16Type());
  default:
    return LogicalResult(node.error()
                         << what << " " << dataType << " is not a floating-point data type");
  }
}

static LogicalResult convertLayerNormalization(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto scale = node.requiredInput(1);
  if (failed(input) || failed(scale))
    return failure();
  auto axis = node.intAttr("axis", -1);
  auto epsilon = node.floatAttr("epsilon", 1e-5f);
  auto stashType = node.intAttr("stash_type", 1);
  if (failed(axis) || failed(epsilon) || failed(stashType))
    return failure();
  auto stashFloatType = floatTypeOf(node, *stashType, "stash_type");
  if (failed(stashFloatType))
    return failure();
  SmallVector<Value> operands{*input, *scale};
  if (Value bias = node.input(2))
    operands.push_back(bias);
  OpBuilder &builder = node.builder();
  return createAndBind<graph::LayerNormalizationOp>(
      node, operands,
      {builder.getNamedAttr("axis", builder.getI64IntegerAttr(*axis)),
       builder.getNamedAttr("epsilon", builder.getF32FloatAttr(*epsilon)),
       builder.getNamedAttr("stash_type", TypeAttr::get(*stashFloatType))},
      /*numResults=*/3);
}

static LogicalResult convertBatchNormalization(NodeImporter &node) {
  SmallVector<Value> operands;
  for (size_t index = 0; index < 5; ++index) {
    auto operand = node.requiredInput(index);
    if (failed(operand))
      return failure();
    operands.push_back(*operand);
  }
  auto epsilon = node.floatAttr("epsilon", 1e-5f);
  if (failed(epsilon))
    return failure();
  if (node.opset() < 9) {
    // spatial = 0 kept statistics per element of [C, D1, ..., Dk], which the graph op's
    // per-channel form cannot represent.
    auto spatial = node.intAttr("spatial", 1);
    if (failed(spatial))
      return failure();
    if (*spatial != 1)
      return node.error() << "spatial = " << *spatial << " is not supported, only 1";
  }
  OpBuilder &builder = node.builder();
  SmallVector<NamedAttribute> attributes{
      builder.getNamedAttr("epsilon", builder.getF32FloatAttr(*epsilon))};
  bool training = false;
  if (node.opset() >= 14) {
    auto trainingMode = node.boolAttr("training_mode", false);
    if (failed(trainingMode))
      return failure();
    training = *trainingMode;
  }
  if (training) {
    // Y from the batch's statistics, and the running statistics as outputs 1 and 2.
    auto momentum = node.floatAttr("momentum", 0.9f);
    if (failed(momentum))
      return failure();
    attributes.push_back(builder.getNamedAttr("training_mode", builder.getUnitAttr()));
    attributes.push_back(builder.getNamedAttr("momentum", builder.getF32FloatAttr(*momentum)));
    if (failed(rejectOutputsFrom(node, 3, "BatchNormalization has three outputs")))
      return failure();
    return createAndBind<graph::BatchNormalizationOp>(node, operands, attributes,
                                                      /*numResults=*/3);
  }
  // Before opset 14, outputs 1 to 4 were the statistics of the old training mode
  // (is_test = 0 or several outputs); from 14 on, outputs 1 and 2 need training_mode = 1.
  if (failed(rejectOutputsFrom(node, 1,
                               node.opset() < 14
                                   ? "the training-mode statistics of opsets before 14 are "
                                     "not supported"
                                   : "the running statistics need training_mode = 1")))
    return failure();
  return createAndBind<graph::BatchNormalizationOp>(node, operands, attributes);
}

static LogicalResult convertInstanceNormalization(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto scale = node.requiredInput(1);
  auto bias = node.requiredInput(2);
  auto epsilon = node.floatAttr("epsilon", 1e-5f);
  if (failed(input) || failed(scale) || failed(bias) || failed(epsilon))
    return failure();
  OpBuilder &builder = node.builder();
  return createAndBind<graph::InstanceNormalizationOp>(
      node, {*input, *scale, *bias},
      {builder.getNamedAttr("epsilon", builder.getF32FloatAttr(*epsilon))});
}

/// The axis of Softmax, LogSoftmax and Hardmax in the opset-13 form. Before opset 13
/// (default axis 1) these ops flattened the dimensions from `axis` on into one; that is the
/// same as working along one axis when at most one of those dimensions is not 1 (then that
/// one is the axis). Other cases are reported as unsupported.
static FailureOr<int64_t> softmaxAxis(NodeImporter &node, Value input) {
  bool flattens = node.opset() < 13;
  auto axis = node.intAttr("axis", flattens ? 1 : -1);
  if (failed(axis))
    return failure();
  if (!flattens)
    return *axis;
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  if (!inputType)
    return LogicalResult(node.error() << "needs an input of known rank at opset " << node.opset()
                                      << ", where the dimensions from axis on are flattened");
  int64_t rank = inputType.getRank();
  if (*axis < -rank || *axis >= rank)
    return LogicalResult(node.error() << "axis " << *axis << " is out of range for rank " << rank);
  int64_t first = *axis < 0 ? *axis + rank : *axis;
  std::optional<int64_t> nonUnit;
  for (int64_t dim = first; dim < rank; ++dim) {
    if (inputType.getDimSize(dim) == 1)
      continue;
    if (nonUnit)
      return LogicalResult(node.error()
                           << "at opset " << node.opset() << " the dimensions from axis " << *axis
                           << " on are flattened into one; that is only supported when at most "
                              "one of them is not 1, got shape "
                           << inputType);
    nonUnit = dim;
  }
  return nonUnit.value_or(first);
}

template <typename OpTy> static LogicalResult convertSoftmaxLike(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  auto axis = softmaxAxis(node, *input);
  if (failed(axis))
    return failure();
  OpBuilder &builder = node.builder();
  return createAndBind<OpTy>(node, *input,
                             {builder.getNamedAttr("axis", builder.getI64IntegerAttr(*axis))});
}

static LogicalResult convertConvTranspose(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto weight = node.requiredInput(1);
  if (failed(input) || failed(weight))
    return failure();
  Value bias = node.input(2);

  auto weightType = dyn_cast<RankedTensorType>(weight->getType());
  auto inputType = dyn_cast<RankedTensorType>(input->getType());
  auto kernelShape = node.intsAttr("kernel_shape");
  auto strides = node.intsAttr("strides");
  auto dilations = node.intsAttr("dilations");
  auto pads = node.intsAttr("pads");
  auto outputPadding = node.intsAttr("output_padding");
  auto outputShape = node.intsAttr("output_shape");
  auto group = node.intAttr("group", 1);
  auto autoPad = node.stringAttr("auto_pad", "NOTSET");
  if (failed(kernelShape) || failed(strides) || failed(dilations) || failed(pads) ||
      failed(outputPadding) || failed(outputShape) || failed(group) || failed(autoPad))
    return failure();

  SmallVector<int64_t> kernel;
  if (*kernelShape)
    kernel = **kernelShape;
  else if (weightType && weightType.getRank() >= 3)
    kernel.assign(weightType.getShape().drop_front(2).begin(), weightType.getShape().end());
  else
    return node.error() << "needs kernel_shape or a weight of known rank";
  size_t rank = kernel.size();
  if (weightType && size_t(weightType.getRank()) != rank + 2)
    return node.error() << "kernel_shape has " << rank << " extents for a weight of rank "
                        << weightType.getRank();
  // The weight decides the kernel; a kernel_shape that contradicts it is a broken model.
  if (weightType)
    for (size_t i = 0; i < rank; ++i)
      if (!weightType.isDynamicDim(i + 2) && weightType.getDimSize(i + 2) != kernel[i])
        return node.error() << "kernel_shape differs from the weight's kernel extents";
  SmallVector<int64_t> stridesValue = strides->value_or(SmallVector<int64_t>(rank, 1));
  SmallVector<int64_t> dilationsValue = dilations->value_or(SmallVector<int64_t>(rank, 1));
  SmallVector<int64_t> outputPaddingValue = outputPadding->value_or(SmallVector<int64_t>(rank, 0));
  if (stridesValue.size() != rank || dilationsValue.size() != rank ||
      outputPaddingValue.size() != rank)
    return node.error() << "strides, dilations and output_padding need " << rank << " extents";
  if (*autoPad != "NOTSET" && *autoPad != "VALID" && *autoPad != "SAME_UPPER" &&
      *autoPad != "SAME_LOWER")
    return node.error() << "unknown auto_pad '" << *autoPad << "'";

  SmallVector<int64_t> padsValue(2 * rank, 0);
  bool sameAutoPad = *autoPad == "SAME_UPPER" || *autoPad == "SAME_LOWER";
  if (*outputShape || sameAutoPad) {
    // Pads that give the requested output extents (SAME_*: input extent times stride).
    if (*pads && *outputShape == std::nullopt)
      return node.error() << "pads and auto_pad " << *autoPad << " are mutually exclusive";
    SmallVector<int64_t> targets;
    if (*outputShape) {
      targets = **outputShape;
      // Some exporters write the whole output shape; the spatial part is what counts.
      if (targets.size() == rank + 2)
        targets.erase(targets.begin(), targets.begin() + 2);
      if (targets.size() != rank)
        return node.error() << "output_shape has " << targets.size() << " extents, expected "
                            << rank;
    }
    for (size_t i = 0; i < rank; ++i) {
      int64_t in = inputType && inputType.getRank() == int64_t(rank + 2)
                       ? inputType.getDimSize(i + 2)
                       : ShapedType::kDynamic;
      if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel[i]))
        return node.error() << (*outputShape ? "output_shape" : "auto_pad")
                            << " needs static spatial input extents and kernel";
      int64_t target = *outputShape ? targets[i] : in * stridesValue[i];
      int64_t natural = stridesValue[i] * (in - 1) + outputPaddingValue[i] +
                        dilationsValue[i] * (kernel[i] - 1) + 1;
      int64_t total = natural - target;
      if (total < 0) {
        // A larger output than the windows cover: the extra end positions hold only the
        // bias, which is what output_padding adds.
        outputPaddingValue[i] -= total;
        continue;
      }
      int64_t half = total / 2;
      padsValue[i] = *autoPad == "SAME_UPPER" ? half : total - half;
      padsValue[i + rank] = *autoPad == "SAME_UPPER" ? total - half : half;
    }
  } else if (*autoPad == "NOTSET") {
    padsValue = pads->value_or(SmallVector<int64_t>(2 * rank, 0));
  } else if (*pads) {
    return node.error() << "pads and auto_pad " << *autoPad << " are mutually exclusive";
  }

  OpBuilder &b = node.builder();
  SmallVector<Value> operands{*input, *weight};
  if (bias)
    operands.push_back(bias);
  return createAndBind<graph::ConvTransposeOp>(
      node, operands,
      {b.getNamedAttr("strides", b.getDenseI64ArrayAttr(stridesValue)),
       b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(dilationsValue)),
       b.getNamedAttr("pads", b.getDenseI64ArrayAttr(padsValue)),
       b.getNamedAttr("output_padding", b.getDenseI64ArrayAttr(outputPaddingValue)),
       b.getNamedAttr("group", b.getI64IntegerAttr(*group))});
}

static LogicalResult convertLpPool(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  // dilations and ceil_mode arrived in opset 18.
  auto window = readPoolWindow(node, *input, node.opset() >= 18);
  auto p = node.intAttr("p", 2);
  if (failed(window) || failed(p))
    return failure();
  if (*p < 1)
    return node.error() << "p must be positive, got " << *p;
  OpBuilder &builder = node.builder();
  SmallVector<NamedAttribute> attributes = poolWindowAttributes(builder, *window);
  attributes.push_back(builder.getNamedAttr("p", builder.getI64IntegerAttr(*p)));
  return createAndBind<graph::LpPoolOp>(node, *input, attributes);
}

static LogicalResult convertGlobalLpPool(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto p = node.intAttr("p", 2);
  if (failed(input) || failed(p))
    return failure();
  if (*p < 1)
    return node.error() << "p must be positive, got " << *p;
  OpBuilder &builder = node.builder();
  return createAndBind<graph::GlobalLpPoolOp>(
      node, *input, {builder.getNamedAttr("p", builder.getI64IntegerAttr(*p))});
}

static LogicalResult convertLRN(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto alpha = node.floatAttr("alpha", 1e-4f);
  auto beta = node.floatAttr("beta", 0.75f);
  auto bias = node.floatAttr("bias", 1.0f);
  auto size = node.intAttr("size");
  if (failed(input) || failed(alpha) || failed(beta) || failed(bias) || failed(size))
    return failure();
  if (!*size)
    return node.error() << "needs size";
  if (**size < 1)
    return node.error() << "size must be positive, got " << **size;
  OpBuilder &builder = node.builder();
  return createAndBind<graph::LRNOp>(
      node, *input,
      {builder.getNamedAttr("alpha", builder.getF32FloatAttr(*alpha)),
       builder.getNamedAttr("beta", builder.getF32FloatAttr(*beta)),
       builder.getNamedAttr("bias", builder.getF32FloatAttr(*bias)),
       builder.getNamedAttr("size", builder.getI64IntegerAttr(**size))});
}

static LogicalResult convertMeanVarianceNormalization(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto axes = node.intsAttr("axes");
  if (failed(input) || failed(axes))
    return failure();
  OpBuilder &builder = node.builder();
  return createAndBind<graph::MeanVarianceNormalizationOp>(
      node, *input,
      {builder.getNamedAttr(
          "axes", builder.getDenseI64ArrayAttr(axes->value_or(SmallVector<int64_t>{0, 2, 3})))});
}

/// Opset 18's per-group scale or bias `value` as opset 21's per-channel one: each of the
/// `groups` values repeated for the `channels / groups` channels of its group. Only
/// constants can be expanded here.
static FailureOr<Value> expandPerGroup(NodeImporter &node, Value value, int64_t groups,
                                       int64_t channels, llvm::StringRef what) {
  DenseElementsAttr attr;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!matchPattern(value, m_Constant(&attr)) || !type || type.getRank() != 1 ||
      type.getDimSize(0) != groups || !isa<FloatType>(type.getElementType()))
    return LogicalResult(node.error()
                         << "at opset " << node.opset() << " " << what
                         << " is per group; only a constant [num_groups] float tensor can be "
                            "expanded to the per-channel form of opset 21");
  SmallVector<APFloat> values(attr.getValues<APFloat>());
  SmallVector<APFloat> expanded;
  for (int64_t channel = 0; channel < channels; ++channel)
    expanded.push_back(values[channel / (channels / groups)]);
  return node.constant(
      DenseElementsAttr::get(RankedTensorType::get({channels}, type.getElementType()), expanded));
}

static LogicalResult convertGroupNormalization(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto scale = node.requiredInput(1);
  auto bias = node.requiredInput(2);
  auto epsilon = node.floatAttr("epsilon", 1e-5f);
  auto numGroups = node.intAttr("num_groups");
  auto stashType = node.intAttr("stash_type", 1);
  if (failed(input) || failed(scale) || failed(bias) || failed(epsilon) || failed(numGroups) ||
      failed(stashType))
    return failure();
  if (!*numGroups)
    return node.error() << "needs num_groups";
  if (**numGroups < 1)
    return node.error() << "num_groups must be positive, got " << **numGroups;
  auto stashFloatType = floatTypeOf(node, *stashType, "stash_type");
  if (failed(stashFloatType))
    return failure();
  Value scaleValue = *scale, biasValue = *bias;
  if (node.opset() < 21) {
    auto inputType = dyn_cast<RankedTensorType>(input->getType());
    if (!inputType || inputType.getRank() < 2 || inputType.isDynamicDim(1))
      return node.error() << "at opset " << node.opset()
                          << " needs a static channel count to expand the per-group scale "
                             "and bias";
    int64_t channels = inputType.getDimSize(1);
    if (channels % **numGroups != 0)
      return node.error() << "channels (" << channels << ") are not divisible by num_groups ("
                          << **numGroups << ")";
    auto expandedScale = expandPerGroup(node, scaleValue, **numGroups, channels, "scale");
    if (failed(expandedScale))
      return failure();
    auto expandedBias = expandPerGroup(node, biasValue, **numGroups, channels, "bias");
    if (failed(expandedBias))
      return failure();
    scaleValue = *expandedScale;
    biasValue = *expandedBias;
  }
  OpBuilder &builder = node.builder();
  return createAndBind<graph::GroupNormalizationOp>(
      node, {*input, scaleValue, biasValue},
      {builder.getNamedAttr("epsilon", builder.getF32FloatAttr(*epsilon)),
       builder.getNamedAttr("num_groups", builder.getI64IntegerAttr(**numGroups)),
       builder.getNamedAttr("stash_type", TypeAttr::get(*stashFloatType))});
}

static LogicalResult convertLpNormalization(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto axis = node.intAttr("axis", -1);
  auto p = node.intAttr("p", 2);
  if (failed(input) || failed(axis) || failed(p))
    return failure();
  if (*p != 1 && *p != 2)
    return node.error() << "p must be 1 or 2, got " << *p;
  OpBuilder &builder = node.builder();
  return createAndBind<graph::LpNormalizationOp>(
      node, *input,
      {builder.getNamedAttr("axis", builder.getI64IntegerAttr(*axis)),
       builder.getNamedAttr("p", builder.getI64IntegerAttr(*p))});
}

static LogicalResult convertEinsum(NodeImporter &node) {
  auto equation = node.stringAttr("equation");
  if (failed(equation))
    return failure();
  if (!*equation)
    return node.error() << "needs equation";
  SmallVector<Value> operands;
  for (size_t index = 0; index < node.numInputs(); ++index) {
    auto operand = node.requiredInput(index);
    if (failed(operand))
      return failure();
    operands.push_back(*operand);
  }
  OpBuilder &builder = node.builder();
  return createAndBind<graph::EinsumOp>(
      node, operands, {builder.getNamedAttr("equation", builder.getStringAttr(**equation))});
}

/// Whether `value` is known to hold no elements: ONNX writes an absent roi or scales of
/// Resize-11 as an empty tensor.
static bool isEmptyTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getNumElements() == 0;
}

/// Creates graph.resize with the Resize-19 attributes; `attributes` has the ONNX values
/// (defaults filled in) that the opset defines.
static LogicalResult createResize(NodeImporter &node, Value input, Value roi, Value scales,
                                  Value sizes, ArrayRef<NamedAttribute> attributes) {
  SmallVector<Value> operands{input};
  for (Value operand : {roi, scales, sizes})
    if (operand)
      operands.push_back(operand);
  OpBuilder &builder = node.builder();
  SmallVector<NamedAttribute> allAttributes(attributes);
  allAttributes.push_back(builder.getNamedAttr(
      "operandSegmentSizes",
      builder.getDenseI32ArrayAttr({1, roi ? 1 : 0, scales ? 1 : 0, sizes ? 1 : 0})));
  return createAndBind<graph::ResizeOp>(node, operands, allAttributes);
}

/// The Resize-19 attributes of a Resize-10 or Upsample node: no roi, asymmetric
/// coordinates and nearest rounding down, as those ops computed.
static FailureOr<SmallVector<NamedAttribute>> legacyResizeAttributes(NodeImporter &node) {
  auto mode = node.stringAttr("mode", "nearest");
  if (failed(mode))
    return failure();
  // Upsample-7 spelled linear interpolation in two dimensions "bilinear" in some exporters.
  std::string modeValue = *mode == "bilinear" ? "linear" : *mode;
  if (modeValue != "nearest" && modeValue != "linear")
    return LogicalResult(node.error()
                         << "mode '" << *mode << "' is not supported, only nearest and linear");
  OpBuilder &b = node.builder();
  return SmallVector<NamedAttribute>{
      b.getNamedAttr("antialias", b.getBoolAttr(false)),
      b.getNamedAttr("coordinate_transformation_mode", b.getStringAttr("asymmetric")),
      b.getNamedAttr("cubic_coeff_a", b.getF32FloatAttr(-0.75f)),
      b.getNamedAttr("exclude_outside", b.getBoolAttr(false)),
      b.getNamedAttr("extrapolation_value", b.getF32FloatAttr(0.0f)),
      b.getNamedAttr("keep_aspect_ratio_policy", b.getStringAttr("stretch")),
      b.getNamedAttr("mode", b.getStringAttr(modeValue)),
      b.getNamedAttr("nearest_mode", b.getStringAttr("floor"))};
}

static LogicalResult convertUpsample(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  auto attributes = legacyResizeAttributes(node);
  if (failed(attributes))
    return failure();
  Value scales;
  if (node.opset() < 9) {
    // Upsample-7 had the scales as an attribute; Upsample-9 made them an input.
    auto values = node.floatsAttr("scales");
    if (failed(values))
      return failure();
    if (!*values)
      return node.error() << "needs scales";
    auto type = RankedTensorType::get({int64_t((*values)->size())}, node.builder().getF32Type());
    scales = node.constant(DenseElementsAttr::get(type, ArrayRef<float>(**values)));
  } else {
    auto scalesInput = node.requiredInput(1);
    if (failed(scalesInput))
      return failure();
    scales = *scalesInput;
  }
  return createResize(node, *input, Value(), scales, Value(), *attributes);
}

static LogicalResult convertResize(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  if (node.opset() < 11) {
    auto scales = node.requiredInput(1);
    auto attributes = legacyResizeAttributes(node);
    if (failed(scales) || failed(attributes))
      return failure();
    return createResize(node, *input, Value(), *scales, Value(), *attributes);
  }

  Value roi = node.input(1), scales = node.input(2), sizes = node.input(3);
  if (roi && isEmptyTensor(roi))
    roi = Value();
  if (scales && isEmptyTensor(scales))
    scales = Value();
  auto antialias = node.boolAttr("antialias", false);
  auto axes = node.intsAttr("axes");
  auto transform = node.stringAttr("coordinate_transformation_mode", "half_pixel");
  auto cubicCoeffA = node.floatAttr("cubic_coeff_a", -0.75f);
  auto excludeOutside = node.boolAttr("exclude_outside", false);
  auto extrapolationValue = node.floatAttr("extrapolation_value", 0.0f);
  auto policy = node.stringAttr("keep_aspect_ratio_policy", "stretch");
  auto mode = node.stringAttr("mode", "nearest");
  auto nearestMode = node.stringAttr("nearest_mode", "round_prefer_floor");
  if (failed(antialias) || failed(axes) || failed(transform) || failed(cubicCoeffA) ||
      failed(excludeOutside) || failed(extrapolationValue) || failed(policy) || failed(mode) ||
      failed(nearestMode))
    return failure();
  std::string transformValue = *transform, nearestModeValue = *nearestMode;
  if (transformValue == "tf_half_pixel_for_nn") {
    // Resize-11's tf_half_pixel_for_nn maps x to (x + 0.5) / scale, half_pixel's mapping
    // plus 0.5. Rounding that sum down is rounding the half_pixel coordinate half up, and
    // rounding it to nearest with ties down is taking the ceiling of the half_pixel one.
    if (node.opset() >= 13)
      return node.error() << "coordinate_transformation_mode tf_half_pixel_for_nn was removed "
                             "in opset 13";
    if (*mode != "nearest")
      return node.error() << "coordinate_transformation_mode tf_half_pixel_for_nn is only "
                             "supported with mode nearest";
    if (nearestModeValue == "floor")
      nearestModeValue = "round_prefer_ceil";
    else if (nearestModeValue == "round_prefer_floor")
      nearestModeValue = "ceil";
    else
      return node.error() << "coordinate_transformation_mode tf_half_pixel_for_nn is not "
                             "supported with nearest_mode "
                          << nearestModeValue;
    transformValue = "half_pixel";
  }
  // roi only matters to tf_crop_and_resize; elsewhere it is dropped so that passes need
  // not look at it.
  if (*transform != "tf_crop_and_resize")
    roi = Value();
  else if (!roi)
    return node.error() << "tf_crop_and_resize needs roi";
  OpBuilder &b = node.builder();
  SmallVector<NamedAttribute> attributes{
      b.getNamedAttr("antialias", b.getBoolAttr(*antialias)),
      b.getNamedAttr("coordinate_transformation_mode", b.getStringAttr(transformValue)),
      b.getNamedAttr("cubic_coeff_a", b.getF32FloatAttr(*cubicCoeffA)),
      b.getNamedAttr("exclude_outside", b.getBoolAttr(*excludeOutside)),
      b.getNamedAttr("extrapolation_value", b.getF32FloatAttr(*extrapolationValue)),
      b.getNamedAttr("keep_aspect_ratio_policy", b.getStringAttr(*policy)),
      b.getNamedAttr("mode", b.getStringAttr(*mode)),
      b.getNamedAttr("nearest_mode", b.getStringAttr(nearestModeValue))};
  if (*axes)
    attributes.push_back(b.getNamedAttr("axes", b.getDenseI64ArrayAttr(**axes)));
  return createResize(node, *input, roi, scales, sizes, attributes);
}

static LogicalResult convertGridSample(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto grid = node.requiredInput(1);
  auto alignCorners = node.boolAttr("align_corners", false);
  // Opset 20 renamed bilinear and bicubic to linear and cubic (and made linear default).
  auto mode = node.stringAttr("mode", node.opset() < 20 ? "bilinear" : "linear");
  auto paddingMode = node.stringAttr("padding_mode", "zeros");
  if (failed(input) || failed(grid) || failed(alignCorners) || failed(mode) || failed(paddingMode))
    return failure();
  std::string modeValue = *mode;
  if (modeValue == "bilinear")
    modeValue = "linear";
  else if (modeValue == "bicubic")
    modeValue = "cubic";
  OpBuilder &b = node.builder();
  return createAndBind<graph::GridSampleOp>(
      node, {*input, *grid},
      {b.getNamedAttr("align_corners", b.getBoolAttr(*alignCorners)),
       b.getNamedAttr("mode", b.getStringAttr(modeValue)),
       b.getNamedAttr("padding_mode", b.getStringAttr(*paddingMode))});
}

static LogicalResult convertRoiAlign(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto rois = node.requiredInput(1);
  auto batchIndices = node.requiredInput(2);
  // RoiAlign-10 had no coordinate_transformation_mode and behaved as output_half_pixel.
  auto transform = node.stringAttr("coordinate_transformation_mode",
                                   node.opset() < 16 ? "output_half_pixel" : "half_pixel");
  auto mode = node.stringAttr("mode", "avg");
  auto outputHeight = node.intAttr("output_height", 1);
  auto outputWidth = node.intAttr("output_width", 1);
  auto samplingRatio = node.intAttr("sampling_ratio", 0);
  auto spatialScale = node.floatAttr("spatial_scale", 1.0f);
  if (failed(input) || failed(rois) || failed(batchIndices) || failed(transform) || failed(mode) ||
      failed(outputHeight) || failed(outputWidth) || failed(samplingRatio) || failed(spatialScale))
    return failure();
  if (*outputHeight < 1 || *outputWidth < 1 || *samplingRatio < 0)
    return node.error() << "output_height and output_width must be positive and sampling_ratio "
                           "not negative";
  OpBuilder &b = node.builder();
  return createAndBind<graph::RoiAlignOp>(
      node, {*input, *rois, *batchIndices},
      {b.getNamedAttr("coordinate_transformation_mode", b.getStringAttr(*transform)),
       b.getNamedAttr("mode", b.getStringAttr(*mode)),
       b.getNamedAttr("output_height", b.getI64IntegerAttr(*outputHeight)),
       b.getNamedAttr("output_width", b.getI64IntegerAttr(*outputWidth)),
       b.getNamedAttr("sampling_ratio", b.getI64IntegerAttr(*samplingRatio)),
       b.getNamedAttr("spatial_scale", b.getF32FloatAttr(*spatialScale))});
}

static LogicalResult convertMatMul(NodeImporter &node) {
  auto lhs = node.requiredInput(0);
  auto rhs = node.requiredInput(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  auto op = node.create<graph::MatMulOp>({*lhs, *rhs});
  if (failed(op))
    return failure();
  return node.setResults((*op)->getResults());
}

static LogicalResult convertMaxUnpool(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto indices = node.requiredInput(1);
  auto kernelShape = node.intsAttr("kernel_shape");
  auto strides = node.intsAttr("strides");
  auto pads = node.intsAttr("pads");
  if (failed(input) || failed(indices) || failed(kernelShape) || failed(strides) || failed(pads))
    return failure();
  if (!*kernelShape)
    return node.error() << "attribute 'kernel_shape' is required";
  size_t rank = (*kernelShape)->size();
  SmallVector<int64_t> stridesValue = strides->value_or(SmallVector<int64_t>(rank, 1));
  SmallVector<int64_t> padsValue = pads->value_or(SmallVector<int64_t>(2 * rank, 0));
  // MaxUnpool-11 added the output_shape input.
  Value outputShape = node.input(2);
  if (outputShape && node.opset() < 11)
    return node.error() << "output_shape exists from opset 11; the model imports opset "
                        << node.opset();
  SmallVector<Value> operands{*input, *indices};
  if (outputShape)
    operands.push_back(outputShape);
  OpBuilder &b = node.builder();
  return createAndBind<graph::MaxUnpoolOp>(
      node, operands,
      {b.getNamedAttr("kernel_shape", b.getDenseI64ArrayAttr(**kernelShape)),
       b.getNamedAttr("strides", b.getDenseI64ArrayAttr(stridesValue)),
       b.getNamedAttr("pads", b.getDenseI64ArrayAttr(padsValue))});
}

static LogicalResult convertNonMaxSuppression(NodeImporter &node) {
  auto boxes = node.requiredInput(0);
  auto scores = node.requiredInput(1);
  auto centerPointBox = node.intAttr("center_point_box", 0);
  if (failed(boxes) || failed(scores) || failed(centerPointBox))
    return failure();
  if (*centerPointBox != 0 && *centerPointBox != 1)
    return node.error() << "center_point_box must be 0 or 1, got " << *centerPointBox;
  // Each of the three scalars may be omitted ("") independently.
  Value maxOutput = node.input(2), iouThreshold = node.input(3), scoreThreshold = node.input(4);
  SmallVector<Value> operands{*boxes, *scores};
  for (Value optional : {maxOutput, iouThreshold, scoreThreshold})
    if (optional)
      operands.push_back(optional);
  OpBuilder &b = node.builder();
  return createAndBind<graph::NonMaxSuppressionOp>(
      node, operands,
      {b.getNamedAttr("center_point_box", b.getI64IntegerAttr(*centerPointBox)),
       b.getNamedAttr("operandSegmentSizes",
                      b.getDenseI32ArrayAttr({1, 1, maxOutput ? 1 : 0, iouThreshold ? 1 : 0,
                                              scoreThreshold ? 1 : 0}))});
}

/// The attributes of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, which opsets 12
/// and 13 define alike: ONNX's default reduction ("mean") filled in, and ignore_index kept
/// only when present, since its absence means that no target is ignored.
static FailureOr<SmallVector<NamedAttribute>> lossAttributes(NodeImporter &node) {
  auto reduction = node.stringAttr("reduction", "mean");
  auto ignoreIndex = node.intAttr("ignore_index");
  if (failed(reduction) || failed(ignoreIndex))
    return failure();
  if (*reduction != "none" && *reduction != "sum" && *reduction != "mean")
    return LogicalResult(node.error()
                         << "reduction must be none, sum or mean, got '" << *reduction << "'");
  OpBuilder &b = node.builder();
  SmallVector<NamedAttribute> attributes{b.getNamedAttr("reduction", b.getStringAttr(*reduction))};
  if (*ignoreIndex)
    attributes.push_back(b.getNamedAttr("ignore_index", b.getI64IntegerAttr(**ignoreIndex)));
  return attributes;
}

/// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: two required inputs, an optional
/// class weight, and the loss attributes. SoftmaxCrossEntropyLoss's graph op always has its
/// second result, log_prob, which binds the optional output when the node has it.
template <typename OpTy> static LogicalResult convertLoss(NodeImporter &node, unsigned numResults) {
  auto input = node.requiredInput(0);
  auto target = node.requiredInput(1);
  auto attributes = lossAttributes(node);
  if (failed(input) || failed(target) || failed(attributes))
    return failure();
  SmallVector<Value> operands{*input, *target};
  if (Value weight = node.input(2))
    operands.push_back(weight);
  return createAndBind<OpTy>(node, operands, *attributes, numResults);
}

static LogicalResult convertNegativeLogLikelihoodLoss(NodeImporter &node) {
  return convertLoss<graph::NegativeLogLikelihoodLossOp>(node, /*numResults=*/1);
}

static LogicalResult convertSoftmaxCrossEntropyLoss(NodeImporter &node) {
  return convertLoss<graph::SoftmaxCrossEntropyLossOp>(node, /*numResults=*/2);
}

void addNNConverters(ConverterRegistry &registry) {
  registry.add("Conv", convertConv);
  registry.add("MatMul", convertMatMul);
  registry.add("Gemm", convertGemm);
  registry.add("MaxPool", convertMaxPool);
  registry.add("AveragePool", convertAveragePool);
  registry.add("GlobalAveragePool", convertUnaryNoAttributes<graph::GlobalAveragePoolOp>);
  registry.add("GlobalMaxPool", convertUnaryNoAttributes<graph::GlobalMaxPoolOp>);
  registry.add("LayerNormalization", convertLayerNormalization);
  registry.add("BatchNormalization", convertBatchNormalization);
  registry.add("InstanceNormalization", convertInstanceNormalization);
  registry.add("Softmax", convertSoftmaxLike<graph::SoftmaxOp>);
  registry.add("LogSoftmax", convertSoftmaxLike<graph::LogSoftmaxOp>);
  registry.add("ConvTranspose", convertConvTranspose);
  registry.add("Hardmax", convertSoftmaxLike<graph::HardmaxOp>);
  registry.add("LRN", convertLRN);
  registry.add("MeanVarianceNormalization", convertMeanVarianceNormalization);
  registry.add("GroupNormalization", convertGroupNormalization);
  registry.add("LpNormalization", convertLpNormalization);
  registry.add("LpPool", convertLpPool);
  registry.add("GlobalLpPool", convertGlobalLpPool);
  registry.add("Einsum", convertEinsum);
  registry.add("Det", convertUnaryNoAttributes<graph::DetOp>);
  registry.add("Resize", convertResize);
  registry.add("Upsample", convertUpsample);
  registry.add("GridSample", convertGridSample);
  registry.add("RoiAlign", convertRoiAlign);
  registry.add("MaxUnpool", convertMaxUnpool, 9);
  registry.add("NonMaxSuppression", convertNonMaxSuppression, 10);
  registry.add("NegativeLogLikelihoodLoss", convertNegativeLogLikelihoodLoss, 12);
  registry.add("SoftmaxCrossEntropyLoss", convertSoftmaxCrossEntropyLoss, 12);
}

} // namespace kiln::onnx
