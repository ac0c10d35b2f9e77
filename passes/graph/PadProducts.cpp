//===- PadProducts.cpp - Products of unaligned extents padded for the tensor cores ===//
//
// graph-pad-products: the tensor-core GEMM templates read A and B and write C as rows of
// 16 bytes (TMA, cp.async): N and K multiples of 8 half-precision elements. A product by a
// constant weight whose N or K is not (a detector's 4 box coordinates, a classifier's 10
// classes, a 4-wide positional input) runs on the generic loops otherwise. Padded with
// zeros it computes the same values: the weight gets zero columns up to N' (and zero rows
// up to K'), A zero columns up to K' (graph.pad: a copy of a few elements a row), a bias
// Add after the product zeros up to N', and a Slice takes the first N columns back. A
// convolution with unaligned output channels whose value only other convolutions read
// (through unary elementwise ops) gets zero filters, and its readers zero weights for
// them: no slice at all.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/ConstantBytes.h"
#include "passes/graph/GraphBuilders.h"
#include "passes/graph/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHPADPRODUCTS
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// The templates' row alignment, in half-precision elements.
constexpr int64_t kAlignment = 8;

/// The constant `constant`, read as a row-major matrix of `rows` rows of `cols` elements,
/// in one of `newRows` rows of `newCols` (zeros after each row and after the last), typed
/// `type`; null when its bytes cannot be read.
Value padConstant(OpBuilder &builder, Location loc, Value constant, int64_t rows, int64_t cols,
                  int64_t newRows, int64_t newCols, RankedTensorType type) {
  std::optional<std::vector<char>> data = graph::readConstantBytes(constant);
  unsigned bytes = graph::getElementBytes(type.getElementType());
  if (!data || !bytes)
    return {};
  std::vector<char> padded(size_t(newRows * newCols) * bytes, 0);
  for (int64_t row = 0; row < rows; ++row)
    std::copy_n(data->data() + row * cols * bytes, cols * bytes,
                padded.data() + row * newCols * bytes);
  return graph::createConstantFromBytes(builder, loc, type, padded,
                                        (graph::getResourceName(constant) + "_padded").str());
}

RankedTensorType withLast(RankedTensorType type, int64_t extent) {
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = extent;
  return RankedTensorType::get(shape, type.getElementType());
}

/// `value` with zeros appended to its last axis up to `extent`.
Value padLastAxis(OpBuilder &builder, Location loc, Value value, int64_t extent) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> pads(2 * type.getRank(), 0);
  pads.back() = extent - type.getShape().back();
  return graph::PadOp::create(builder, loc, withLast(type, extent), value,
                              graph::createIndexConstant(builder, loc, pads),
                              /*constant_value=*/Value(),
                              /*axes=*/Value(), builder.getStringAttr("constant"));
}

/// The first `extent` elements of `value`'s last axis, typed `type`.
Value sliceLastAxis(OpBuilder &builder, Location loc, Value value, int64_t extent,
                    RankedTensorType type) {
  return graph::SliceOp::create(builder, loc, type, value,
                                graph::createIndexConstant(builder, loc, {0}),
                                graph::createIndexConstant(builder, loc, {extent}),
                                graph::createIndexConstant(builder, loc, {type.getRank() - 1}),
                                /*steps=*/Value());
}

/// A constant bias of `n` values that broadcasts along the last axis of a product's
/// result only ([N], [1, .., N]), padded with zeros to `paddedN`; null otherwise.
Value padBias(OpBuilder &builder, Location loc, Value bias, int64_t n, int64_t paddedN) {
  auto type = dyn_cast<RankedTensorType>(bias.getType());
  if (!type || type.getRank() == 0 || type.getShape().back() != n ||
      llvm::any_of(type.getShape().drop_back(), [](int64_t extent) { return extent != 1; }))
    return {};
  return padConstant(builder, loc, bias, 1, n, 1, paddedN, withLast(type, paddedN));
}

bool isHalf(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isF16() || element.isBF16();
}

/// Pads `matmul` (A [.., K] by a constant [K, N] weight) where N or K is unaligned.
bool padMatMul(graph::MatMulOp matmul) {
  auto lhsType = dyn_cast<RankedTensorType>(matmul.getLhs().getType());
  auto weightType = dyn_cast<RankedTensorType>(matmul.getRhs().getType());
  auto resultType = dyn_cast<RankedTensorType>(matmul.getType());
  if (!lhsType || !weightType || !resultType || lhsType.getRank() < 2 ||
      weightType.getRank() != 2 || !weightType.hasStaticShape() || resultType.getRank() < 2 ||
      lhsType.isDynamicDim(lhsType.getRank() - 1) || !isHalf(lhsType) || !isHalf(weightType))
    return false;
  int64_t k = weightType.getDimSize(0), n = weightType.getDimSize(1);
  int64_t paddedK = llvm::alignTo(k, kAlignment), paddedN = llvm::alignTo(n, kAlignment);
  if (paddedK == k && paddedN == n)
    return false;
  OpBuilder builder(matmul);
  Location loc = matmul.getLoc();
  Value paddedWeight =
      padConstant(builder, loc, matmul.getRhs(), k, n, paddedK, paddedN,
                  RankedTensorType::get({paddedK, paddedN}, weightType.getElementType()));
  if (!paddedWeight)
    return false;
  Value a = paddedK == k ? matmul.getLhs() : padLastAxis(builder, loc, matmul.getLhs(), paddedK);
  Value result = graph::MatMulOp::create(builder, loc, TypeRange{withLast(resultType, paddedN)},
                                         ValueRange{a, paddedWeight})
                     .getResult();
  Operation *last = matmul;
  // A bias Add after the product joins it, padded too, so that the epilogue keeps it.
  if (paddedN != n && matmul->hasOneUse())
    if (auto add = dyn_cast<graph::AddOp>(*matmul->getUsers().begin());
        add && add.getType() == resultType) {
      Value bias = add.getLhs() == matmul.getResult() ? add.getRhs() : add.getLhs();
      builder.setInsertionPoint(add);
      if (Value paddedBias = padBias(builder, add.getLoc(), bias, n, paddedN)) {
        result =
            graph::AddOp::create(builder, add.getLoc(), TypeRange{withLast(resultType, paddedN)},
                                 ValueRange{result, paddedBias})
                .getResult();
        last = add;
      }
    }
  if (paddedN != n)
    result = sliceLastAxis(builder, last->getLoc(), result, n,
                           cast<RankedTensorType>(last->getResult(0).getType()));
  last->getResult(0).replaceAllUsesWith(result);
  if (last != matmul)
    last->erase();
  matmul->erase();
  return true;
}

/// Pads `gemm` (A [M, K] by a constant B [K, N], or [N, K] with trans_b) where N or K is
/// unaligned; its C (a bias of N values, or a scalar) is padded too.
bool padGemm(graph::GemmOp gemm) {
  auto aType = dyn_cast<RankedTensorType>(gemm.getA().getType());
  auto bType = dyn_cast<RankedTensorType>(gemm.getB().getType());
  auto resultType = dyn_cast<RankedTensorType>(gemm.getType());
  if (gemm.getTransA() || !aType || !bType || !resultType || aType.getRank() != 2 ||
      !bType.hasStaticShape() || bType.getRank() != 2 || aType.isDynamicDim(1) || !isHalf(aType) ||
      !isHalf(bType))
    return false;
  bool transposedB = gemm.getTransB();
  int64_t k = bType.getDimSize(transposedB ? 1 : 0), n = bType.getDimSize(transposedB ? 0 : 1);
  int64_t paddedK = llvm::alignTo(k, kAlignment), paddedN = llvm::alignTo(n, kAlignment);
  if (paddedK == k && paddedN == n)
    return false;
  OpBuilder builder(gemm);
  Location loc = gemm.getLoc();
  // B is [K, N], or [N, K] with trans_b: rows of N or of K elements.
  Type element = bType.getElementType();
  Value b = transposedB ? padConstant(builder, loc, gemm.getB(), n, k, paddedN, paddedK,
                                      RankedTensorType::get({paddedN, paddedK}, element))
                        : padConstant(builder, loc, gemm.getB(), k, n, paddedK, paddedN,
                                      RankedTensorType::get({paddedK, paddedN}, element));
  if (!b)
    return false;
  Value c = gemm.getC();
  if (c && paddedN != n) {
    auto cType = dyn_cast<RankedTensorType>(c.getType());
    if (cType && cType.getNumElements() != 1) {
      c = padBias(builder, loc, c, n, paddedN);
      if (!c)
        return false;
    }
  }
  Value a = paddedK == k ? gemm.getA() : padLastAxis(builder, loc, gemm.getA(), paddedK);
  auto paddedGemm = cast<graph::GemmOp>(builder.clone(*gemm));
  paddedGemm->setOperand(0, a);
  paddedGemm->setOperand(1, b);
  if (c)
    paddedGemm->setOperand(2, c);
  paddedGemm.getResult().setType(withLast(resultType, paddedN));
  Value result = paddedGemm.getResult();
  if (paddedN != n)
    result = sliceLastAxis(builder, loc, result, n, resultType);
  gemm.getResult().replaceAllUsesWith(result);
  gemm->erase();
  return true;
}

/// Whether `op` is a per-tensor quantize_linear of zero point 0: it maps the padded
/// channels' zeros to zeros, as a unary elementwise op would (an int8 convolution after a
/// squeeze-excite reduction that stays in floats reads it).
bool isZeroPreservingQuantize(Operation *op) {
  auto quantize = dyn_cast<graph::QuantizeLinearOp>(op);
  if (!quantize || quantize.getBlockSize() != 0)
    return false;
  auto scale = dyn_cast<RankedTensorType>(quantize.getScale().getType());
  if (!scale || scale.getNumElements() != 1)
    return false;
  Value zero = quantize.getZeroPoint();
  std::optional<std::vector<char>> bytes =
      zero ? graph::readConstantBytes(zero) : std::optional<std::vector<char>>();
  return !zero || (bytes && llvm::all_of(*bytes, [](char byte) { return byte == 0; }));
}

/// Pads the output channels of `conv` (channels first, one group, a constant weight)
/// to a multiple of 8 when they are not and its value reaches, through unary elementwise
/// ops (and a quantize that keeps zeros), only convolutions (one group, constant weights,
/// float or int8) that read it as their input (a
/// squeeze-excite block's reduction, 4 to 28 channels in EfficientNet-B0). The padded
/// channels get zero filters and zero bias; whatever the ops between make of them, the
/// consumers' weights read them with zeros, so their values are unchanged and no slice is
/// needed.
bool padConvChannels(graph::ConvOp conv) {
  auto resultType = dyn_cast<RankedTensorType>(conv.getType());
  auto weightType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  if (conv.getChannelsLast() || conv.getGroup() != 1 || !resultType || !weightType ||
      !weightType.hasStaticShape() || resultType.getRank() < 3 || !isHalf(resultType) ||
      !isHalf(weightType))
    return false;
  int64_t channels = weightType.getDimSize(0);
  int64_t padded = llvm::alignTo(channels, kAlignment);
  if (padded == channels)
    return false;
  // The unary elementwise chain after it, and the convolutions it ends in.
  SmallVector<Operation *> chain;
  Value current = conv.getResult();
  while (current.hasOneUse()) {
    Operation *user = *current.getUsers().begin();
    if (!(isZeroPreservingQuantize(user) ||
          (user->hasTrait<graph::OpTrait::Pointwise>() && user->getNumOperands() == 1)) ||
        user->getNumResults() != 1)
      break;
    chain.push_back(user);
    current = user->getResult(0);
  }
  SmallVector<graph::ConvOp> consumers;
  for (Operation *user : current.getUsers()) {
    auto consumer = dyn_cast<graph::ConvOp>(user);
    auto type = consumer ? dyn_cast<RankedTensorType>(consumer.getWeight().getType()) : nullptr;
    if (!consumer || consumer.getInput() != current || consumer.getWeight() == current ||
        consumer.getChannelsLast() || consumer.getGroup() != 1 || !type || !type.hasStaticShape() ||
        type.getDimSize(1) != channels || !graph::readConstantBytes(consumer.getWeight()))
      return false;
    consumers.push_back(consumer);
  }
  if (consumers.empty())
    return false;
  OpBuilder builder(conv);
  Location loc = conv.getLoc();
  // [O, C, K..] with zero filters after the O.
  int64_t filter = weightType.getNumElements() / channels;
  SmallVector<int64_t> shape(weightType.getShape());
  shape[0] = padded;
  Value weight =
      padConstant(builder, loc, conv.getWeight(), 1, channels * filter, 1, padded * filter,
                  RankedTensorType::get(shape, weightType.getElementType()));
  Value bias = conv.getBias();
  if (bias)
    bias = padBias(builder, loc, bias, channels, padded);
  if (!weight || (conv.getBias() && !bias))
    return false;
  conv.getWeightMutable().assign(weight);
  if (bias)
    conv.getBiasMutable().assign(bias);
  auto widened = [&](Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> dims(type.getShape());
    dims[1] = padded;
    value.setType(RankedTensorType::get(dims, type.getElementType()));
  };
  widened(conv.getResult());
  for (Operation *op : chain)
    widened(op->getResult(0));
  // Each consumer's [O2, C, K..] weight with zero input channels after the C.
  for (graph::ConvOp consumer : consumers) {
    auto type = cast<RankedTensorType>(consumer.getWeight().getType());
    int64_t taps = type.getNumElements() / (type.getDimSize(0) * channels);
    SmallVector<int64_t> dims(type.getShape());
    dims[1] = padded;
    builder.setInsertionPoint(consumer);
    consumer.getWeightMutable().assign(padConstant(
        builder, consumer.getLoc(), consumer.getWeight(), type.getDimSize(0), channels * taps,
        type.getDimSize(0), padded * taps, RankedTensorType::get(dims, type.getElementType())));
  }
  return true;
}

struct GraphPadProducts : kiln::impl::GraphPadProductsBase<GraphPadProducts> {
  void runOnOperation() override {
    SmallVector<Operation *> products;
    getOperation().walk([&](Operation *op) {
      if (isa<graph::MatMulOp, graph::GemmOp, graph::ConvOp>(op))
        products.push_back(op);
    });
    for (Operation *op : products) {
      if (auto matmul = dyn_cast<graph::MatMulOp>(op))
        padMatMul(matmul);
      else if (auto gemm = dyn_cast<graph::GemmOp>(op))
        padGemm(gemm);
      else
        padConvChannels(cast<graph::ConvOp>(op));
    }
    // The weights and biases the padded ones replaced.
    getOperation().walk([](graph::ConstantOp constant) {
      if (constant->use_empty())
        constant->erase();
    });
  }
};

} // namespace
