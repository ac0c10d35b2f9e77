//===- FoldQuantizedProducts.cpp - Q/DQ convs and matmuls as integer ones --===//
//
// graph-fold-quantized-products: a convolution or matrix product whose activation and
// weight both come out of a DequantizeLinear (what graph-quantize-int8 leaves, and what
// QAT exports carry) computes in f32 on values that are integers times scales:
//
//   conv(DQ(xq, sx), DQ(wq, sw)) + b == sx * sw[m] * conv_i32(xq, wq) + b[m]
//   matmul(DQ(xq, sx), DQ(wq, sw)) == sx * sw[n] * matmul_i32(xq, wq)
//
// when both zero points are 0 (the symmetric scheme both produce). So the f32 op becomes
// an integer one on the i8 tensors, accumulating in i32, followed by one per-output-channel
// rescale (a DequantizeLinear of the accumulator by sx * sw) and the bias add. A Gemm (a
// classifier's fully connected layer) becomes such a matmul, its B transposed at compile
// time when trans_b is set, and the add of its C. The kernels run the integer ops on int8
// tensor cores with the rescale, bias, activation and the next layer's quantization in
// their epilogue (graph-decompose-quantization makes those pointwise so that the fusion
// takes them).
//
// What matches, and why the rest does not:
//  - the activation scale a scalar (one element): a per-channel activation scale would
//    scale the reduction dimension, which cannot move out of the sum;
//  - the weight an i8 constant with a scalar scale or one per output channel (a conv's
//    axis 0; a matmul's columns, axis 1 of its [K, N] weight, or axis 0 of a trans_b
//    Gemm's [N, K] one);
//  - zero points absent or 0: a non-zero one adds cross terms (sums of x and of w) that
//    the integer kernels do not compute;
//  - convs of group 1: the int8 tensor-core kernels are dense implicit-GEMM convolutions;
//    grouped and depthwise ones stay f32 on their dequantized operands;
//  - matmuls by a 2-D weight (the activation may have batch dimensions); Gemms without
//    trans_a, with alpha 1 and beta 1.
// The dequantized activation stays for its other readers (a residual add, say).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/ConstantBytes.h"
#include "passes/graph/Passes.h"

#include "llvm/ADT/STLExtras.h"

#include <cstring>

namespace kiln {
#define GEN_PASS_DEF_GRAPHFOLDQUANTIZEDPRODUCTS
#include "passes/graph/Passes.h.inc"
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

/// The operands of a foldable conv or product, or nullopt.
struct Match {
  Value input;  // i8 activation
  Value weight; // i8 constant
  /// scale_x * scale_w per output channel, or one element for the whole tensor.
  std::vector<float> scales;
};

/// `activation` and `weight` as DequantizeLinears of i8 tensors with zero points 0, the
/// weight a constant with a scalar scale or `channels` of them along axis `channelAxis`,
/// the activation's scale a scalar; nullopt otherwise.
std::optional<Match> matchOperands(Value activation, Value weight, int64_t channelAxis,
                                   int64_t channels) {
  auto input = activation.getDefiningOp<graph::DequantizeLinearOp>();
  auto filter = weight.getDefiningOp<graph::DequantizeLinearOp>();
  if (!input || !filter || input.getBlockSize() != 0 || filter.getBlockSize() != 0)
    return std::nullopt;
  // Both i8 (the signedness the int8 tensor cores and the CPU lowering share).
  if (!isInt8Tensor(input.getInput()) || !isInt8Tensor(filter.getInput()) ||
      getElementTypeOrSelf(input.getInput().getType()) !=
          getElementTypeOrSelf(filter.getInput().getType()) ||
      !filter.getInput().getDefiningOp<graph::ConstantOp>())
    return std::nullopt;
  if (!isZeroPoint(input.getZeroPoint()) || !isZeroPoint(filter.getZeroPoint()))
    return std::nullopt;

  std::optional<std::vector<float>> inputScale = graph::readF32Constant(input.getScale());
  std::optional<std::vector<float>> weightScale = graph::readF32Constant(filter.getScale());
  if (!inputScale || inputScale->size() != 1 || !weightScale || weightScale->empty())
    return std::nullopt;
  if (weightScale->size() != 1) {
    // Per axis: along the output channels.
    auto weightType = cast<RankedTensorType>(filter.getInput().getType());
    auto scaleType = cast<RankedTensorType>(filter.getScale().getType());
    int64_t axis = static_cast<int64_t>(filter.getAxis());
    if (axis < 0)
      axis += weightType.getRank();
    if (scaleType.getRank() != 1 || int64_t(weightScale->size()) != channels || axis != channelAxis)
      return std::nullopt;
  }
  Match result{input.getInput(), filter.getInput(), {}};
  for (float scale : *weightScale)
    result.scales.push_back(float(double((*inputScale)[0]) * double(scale)));
  return result;
}

std::optional<Match> match(graph::ConvOp conv) {
  auto resultType = dyn_cast<RankedTensorType>(conv.getType());
  auto weightType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  if (conv.getGroup() != 1 || !resultType || !resultType.getElementType().isF32() || !weightType)
    return std::nullopt;
  // Per axis: along the output channels (axis 0 of the weight, in either layout).
  return matchOperands(conv.getInput(), conv.getWeight(), 0, weightType.getDimSize(0));
}

/// A matmul by a 2-D [K, N] weight: its scales per column.
std::optional<Match> match(graph::MatMulOp matmul) {
  auto resultType = dyn_cast<RankedTensorType>(matmul.getType());
  auto weightType = dyn_cast<RankedTensorType>(matmul.getRhs().getType());
  auto inputType = dyn_cast<RankedTensorType>(matmul.getLhs().getType());
  if (!resultType || !resultType.getElementType().isF32() || !weightType ||
      weightType.getRank() != 2 || !inputType || inputType.getRank() < 2)
    return std::nullopt;
  std::optional<Match> found =
      matchOperands(matmul.getLhs(), matmul.getRhs(), 1, weightType.getDimSize(1));
  // graph.matmul takes signless i8 only.
  if (found && !getElementTypeOrSelf(found->input.getType()).isSignlessInteger(8))
    return std::nullopt;
  return found;
}

/// A Gemm A' B' + C with A' = A, alpha = beta = 1: its scales per column of B', axis 0 of
/// a trans_b weight.
std::optional<Match> match(graph::GemmOp gemm) {
  auto resultType = dyn_cast<RankedTensorType>(gemm.getType());
  auto weightType = dyn_cast<RankedTensorType>(gemm.getB().getType());
  if (!resultType || !resultType.getElementType().isF32() || !weightType ||
      weightType.getRank() != 2 || gemm.getTransA() || !gemm.getAlpha().isExactlyValue(1.0) ||
      (gemm.getC() && !gemm.getBeta().isExactlyValue(1.0)))
    return std::nullopt;
  int64_t axis = gemm.getTransB() ? 0 : 1;
  std::optional<Match> found =
      matchOperands(gemm.getA(), gemm.getB(), axis, weightType.getDimSize(axis));
  // graph.matmul takes signless i8 only; a trans_b weight is transposed from its bytes.
  if (found && (!getElementTypeOrSelf(found->input.getType()).isSignlessInteger(8) ||
                (gemm.getTransB() && !graph::readConstantBytes(found->weight))))
    return std::nullopt;
  return found;
}

/// The accumulator's rescale: `scales` as a constant (named after the weight), and the
/// DequantizeLinear of `accumulator` by it along `channelAxis`.
Value rescale(OpBuilder &b, Location loc, Value accumulator, const Match &match,
              int64_t channelAxis, StringRef what) {
  SmallVector<int64_t> scaleShape;
  if (match.scales.size() != 1)
    scaleShape.push_back(int64_t(match.scales.size()));
  std::string name = graph::getResourceName(match.weight).str();
  ArrayRef<char> scaleBytes(reinterpret_cast<const char *>(match.scales.data()),
                            match.scales.size() * sizeof(float));
  Value scale = graph::createConstantFromBytes(
      b, loc, RankedTensorType::get(scaleShape, b.getF32Type()), scaleBytes,
      (name.empty() ? what.str() : name) + "_accumulator_scale");
  return graph::DequantizeLinearOp::create(b, loc, accumulator, scale, Value(),
                                           uint64_t(channelAxis), /*block_size=*/0);
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

  int64_t channelAxis = channelsLast ? rank - 1 : 1;
  Value result = rescale(b, loc, accumulator, match, channelAxis, "conv");
  if (Value bias = conv.getBias())
    result = graph::AddOp::create(b, loc, TypeRange{resultType},
                                  ValueRange{result, shapeBias(b, loc, bias, rank, channelsLast)});
  conv.getResult().replaceAllUsesWith(result);
  conv.erase();
}

/// `weight` ([N, K], an i8 constant) transposed to [K, N] at compile time.
Value transposedWeight(OpBuilder &b, Location loc, Value weight) {
  auto type = cast<RankedTensorType>(weight.getType());
  int64_t n = type.getDimSize(0), k = type.getDimSize(1);
  std::vector<char> bytes = *graph::readConstantBytes(weight);
  std::vector<char> transposed(bytes.size());
  for (int64_t row = 0; row < n; ++row)
    for (int64_t column = 0; column < k; ++column)
      transposed[column * n + row] = bytes[row * k + column];
  std::string name = graph::getResourceName(weight).str();
  return graph::createConstantFromBytes(b, loc,
                                        RankedTensorType::get({k, n}, type.getElementType()),
                                        transposed, (name.empty() ? "gemm" : name) + "_kxn");
}

/// The integer product of `match` (a [.., K] activation by a [K, N] weight) rescaled
/// along its last axis, with the type `resultType` has in i32.
Value integerProduct(OpBuilder &b, Location loc, const Match &match, Value weight,
                     RankedTensorType resultType) {
  Value accumulator =
      graph::MatMulOp::create(b, loc, resultType.clone(b.getI32Type()), match.input, weight);
  return rescale(b, loc, accumulator, match, resultType.getRank() - 1, "matmul");
}

void fold(graph::MatMulOp matmul, Match &match) {
  OpBuilder b(matmul);
  Value result = integerProduct(b, matmul.getLoc(), match, match.weight,
                                cast<RankedTensorType>(matmul.getType()));
  matmul.getResult().replaceAllUsesWith(result);
  matmul.erase();
}

void fold(graph::GemmOp gemm, Match &match) {
  OpBuilder b(gemm);
  Location loc = gemm.getLoc();
  auto resultType = cast<RankedTensorType>(gemm.getType());
  Value weight = gemm.getTransB() ? transposedWeight(b, loc, match.weight) : match.weight;
  Value result = integerProduct(b, loc, match, weight, resultType);
  // C broadcasts to [M, N] as the Add's operand does (unidirectionally, the Gemm's rule).
  if (Value c = gemm.getC())
    result = graph::AddOp::create(b, loc, TypeRange{resultType}, ValueRange{result, c});
  gemm.getResult().replaceAllUsesWith(result);
  gemm.erase();
}

struct GraphFoldQuantizedProducts
    : kiln::impl::GraphFoldQuantizedProductsBase<GraphFoldQuantizedProducts> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<Operation *, Match>> matches;
    getOperation().walk([&](Operation *op) {
      std::optional<Match> found;
      if (auto conv = dyn_cast<graph::ConvOp>(op))
        found = match(conv);
      else if (auto matmul = dyn_cast<graph::MatMulOp>(op))
        found = match(matmul);
      else if (auto gemm = dyn_cast<graph::GemmOp>(op))
        found = match(gemm);
      if (found)
        matches.emplace_back(op, std::move(*found));
    });
    for (auto &[op, found] : matches) {
      Operation *input = op->getOperand(0).getDefiningOp();
      Operation *weight = op->getOperand(1).getDefiningOp();
      if (auto conv = dyn_cast<graph::ConvOp>(op))
        fold(conv, found);
      else if (auto matmul = dyn_cast<graph::MatMulOp>(op))
        fold(matmul, found);
      else
        fold(cast<graph::GemmOp>(op), found);
      // The dequantized weight (and an activation's, without other readers) goes; the
      // int8 constant stays, read by the integer op (or its transpose, in its place).
      if (input->use_empty())
        input->erase();
      if (weight != input && weight->use_empty())
        weight->erase();
    }
    numFolded += matches.size();
  }
};

} // namespace
