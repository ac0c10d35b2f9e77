//===- FoldQuantizedConv.cpp - Q/DQ convolutions as integer convolutions --===//
//
// graph-fold-quantized-conv: a convolution whose activation and weight both come out of
// a DequantizeLinear (what graph-quantize-int8 leaves, and what QAT exports carry)
// computes in f32 on values that are integers times scales:
//
//   conv(DQ(xq, sx), DQ(wq, sw)) + b == sx * sw[m] * conv_i32(xq, wq) + b[m]
//
// when both zero points are 0 (the symmetric scheme both produce). So the f32 conv
// becomes an integer one on the i8 tensors, accumulating in i32, followed by one
// per-output-channel rescale (a DequantizeLinear of the accumulator by sx * sw) and the
// bias add. The kernels run the integer conv on int8 tensor cores with the rescale, bias,
// activation and the next layer's quantization in its epilogue
// (graph-decompose-quantization makes those pointwise so that the fusion takes them).
//
// What matches, and why the rest does not:
//  - the activation scale a scalar (one element): a per-channel activation scale would
//    scale the reduction dimension, which cannot move out of the sum;
//  - the weight an i8 constant with a scalar scale or one per output channel (axis 0);
//  - zero points absent or 0: a non-zero one adds cross terms (sums of x and of w) that
//    the integer kernels do not compute;
//  - group 1: the int8 tensor-core kernels are dense implicit-GEMM convolutions; grouped
//    and depthwise ones stay f32 on their dequantized operands.
// The dequantized activation stays for its other readers (a residual add, say).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/Passes.h"
#include "passes/graph/ConstantBytes.h"

#include "llvm/ADT/STLExtras.h"

#include <cstring>

namespace kiln {
#define GEN_PASS_DEF_GRAPHFOLDQUANTIZEDCONV
#include "passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// Whether a zero point is absent or a constant whose elements are all 0.
bool isZeroPoint(Value zeroPoint) {
  if (!zeroPoint)
    return true;
  std::optional<std::vector<char>> bytes = graph::readConstantBytes(zeroPoint);
  return bytes && llvm::all_of(*bytes, [](char byte) { return byte == 0; });
}

bool isInt8Tensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getElementType().isInteger(8);
}

/// The operands of a foldable conv, or nullopt.
struct Match {
  Value input;  // i8 activation
  Value weight; // i8 constant
  /// scale_x * scale_w per output channel, or one element for the whole tensor.
  std::vector<float> scales;
};

std::optional<Match> match(graph::ConvOp conv) {
  auto resultType = dyn_cast<RankedTensorType>(conv.getType());
  if (conv.getGroup() != 1 || !resultType || !resultType.getElementType().isF32())
    return std::nullopt;
  auto input = conv.getInput().getDefiningOp<graph::DequantizeLinearOp>();
  auto weight = conv.getWeight().getDefiningOp<graph::DequantizeLinearOp>();
  if (!input || !weight || input.getBlockSize() != 0 || weight.getBlockSize() != 0)
    return std::nullopt;
  // Both i8 (the signedness the int8 tensor cores and the CPU lowering share).
  if (!isInt8Tensor(input.getInput()) || !isInt8Tensor(weight.getInput()) ||
      getElementTypeOrSelf(input.getInput().getType()) !=
          getElementTypeOrSelf(weight.getInput().getType()) ||
      !weight.getInput().getDefiningOp<graph::ConstantOp>())
    return std::nullopt;
  if (!isZeroPoint(input.getZeroPoint()) || !isZeroPoint(weight.getZeroPoint()))
    return std::nullopt;

  std::optional<std::vector<float>> inputScale = graph::readF32Constant(input.getScale());
  std::optional<std::vector<float>> weightScale = graph::readF32Constant(weight.getScale());
  if (!inputScale || inputScale->size() != 1 || !weightScale || weightScale->empty())
    return std::nullopt;
  auto weightType = cast<RankedTensorType>(weight.getInput().getType());
  int64_t filters = weightType.getDimSize(0);
  if (weightScale->size() != 1) {
    // Per axis: along the output channels (axis 0 of the weight, in either layout).
    auto scaleType = cast<RankedTensorType>(weight.getScale().getType());
    int64_t axis = static_cast<int64_t>(weight.getAxis());
    if (scaleType.getRank() != 1 || int64_t(weightScale->size()) != filters ||
        (axis != 0 && axis != -weightType.getRank()))
      return std::nullopt;
  }
  Match result{input.getInput(), weight.getInput(), {}};
  for (float scale : *weightScale)
    result.scales.push_back(float(double((*inputScale)[0]) * double(scale)));
  return result;
}

/// `bias` ([M]) shaped to broadcast along the channel axis of a rank-`rank` result: [M]
/// channels last, [M, 1, ..., 1] channels first. Constants are reshaped at compile time.
Value shapeBias(OpBuilder &b, Location loc, Value bias, int64_t rank, bool channelsLast) {
  auto type = cast<RankedTensorType>(bias.getType());
  if (channelsLast)
    return bias;
  SmallVector<int64_t> shape{type.getDimSize(0)};
  shape.append(rank - 2, 1);
  auto shaped = RankedTensorType::get(shape, type.getElementType());
  if (std::optional<std::vector<char>> bytes = graph::readConstantBytes(bias)) {
    std::string name = graph::getResourceName(bias).str();
    return graph::createConstantFromBytes(b, bias.getLoc(), shaped, *bytes,
                                          (name.empty() ? "bias" : name) + "_shaped");
  }
  auto shapeType = RankedTensorType::get({int64_t(shape.size())}, b.getI64Type());
  Value shapeValue = graph::ConstantOp::create(
      b, loc, cast<ElementsAttr>(DenseElementsAttr::get(shapeType, ArrayRef(shape))));
  return graph::ReshapeOp::create(b, loc, shaped, bias, shapeValue, b.getBoolAttr(false));
}

void fold(graph::ConvOp conv, Match &match) {
  OpBuilder b(conv);
  // The ONNX node's location on every new op: reports name layers by it.
  Location loc = conv.getLoc();
  auto resultType = cast<RankedTensorType>(conv.getType());
  int64_t rank = resultType.getRank();
  bool channelsLast = conv.getChannelsLast();

  auto accumulatorType = resultType.clone(b.getI32Type());
  Value accumulator = graph::ConvOp::create(
      b, loc, accumulatorType, match.input, match.weight, /*bias=*/Value(), conv.getStridesAttr(),
      conv.getDilationsAttr(), conv.getPadsAttr(), conv.getGroupAttr(), conv.getChannelsLastAttr());

  SmallVector<int64_t> scaleShape;
  if (match.scales.size() != 1)
    scaleShape.push_back(int64_t(match.scales.size()));
  std::string name = graph::getResourceName(match.weight).str();
  ArrayRef<char> scaleBytes(reinterpret_cast<const char *>(match.scales.data()),
                            match.scales.size() * sizeof(float));
  Value scale = graph::createConstantFromBytes(
      b, loc, RankedTensorType::get(scaleShape, b.getF32Type()), scaleBytes,
      (name.empty() ? "conv" : name) + "_accumulator_scale");
  int64_t channelAxis = channelsLast ? rank - 1 : 1;
  Value result = graph::DequantizeLinearOp::create(b, loc, accumulator, scale, Value(),
                                                   uint64_t(channelAxis), /*block_size=*/0);
  if (Value bias = conv.getBias())
    result = graph::AddOp::create(b, loc, TypeRange{resultType},
                                  ValueRange{result, shapeBias(b, loc, bias, rank, channelsLast)});
  conv.getResult().replaceAllUsesWith(result);
  conv.erase();
}

struct GraphFoldQuantizedConv : kiln::impl::GraphFoldQuantizedConvBase<GraphFoldQuantizedConv> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<graph::ConvOp, Match>> matches;
    getOperation().walk([&](graph::ConvOp conv) {
      if (std::optional<Match> found = match(conv))
        matches.emplace_back(conv, std::move(*found));
    });
    for (auto &[conv, found] : matches) {
      Operation *input = conv.getInput().getDefiningOp();
      Operation *weight = conv.getWeight().getDefiningOp();
      fold(conv, found);
      // The dequantized weight (and an activation's, without other readers) goes; the
      // int8 constant stays, read by the integer conv.
      if (input->use_empty())
        input->erase();
      if (weight != input && weight->use_empty())
        weight->erase();
    }
    numFolded += matches.size();
  }
};

} // namespace
