//===- PadProducts.cpp - Products of unaligned extents padded for the tensor cores ===//
//
// graph-pad-products: the tensor-core GEMM templates read A and B and write C as rows of
// 16 bytes (TMA, cp.async): N and K multiples of 8 half-precision elements. A product
// whose N or K is not (a detector's 4 box coordinates, a classifier's 10 classes, a
// vocabulary of 50257, attention scores over 197 tokens) runs on the generic loops
// otherwise. Padded with zeros it computes the same values: B gets zero columns up to N'
// and zero rows up to K' (a constant weight at compile time; a B computed at run time by a
// graph.pad, through its transpose when it is one, so that the product still reads it as
// a view), A zero columns up to K', a bias Add after the product zeros up to N', and a
// Slice takes the first N columns back. A convolution with unaligned output channels gets
// zero filters: where its value only other convolutions read (through unary elementwise
// ops) their weights read the new channels with zeros and no slice is needed; otherwise a
// slice of the first channels follows it.
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

/// `value` with zeros appended along `axis` up to `extent`. A transpose's input is padded
/// instead, along the axis it moves there: the product still reads a transposed operand
/// (a key matrix as K^T) as a view, and only the smaller tensor is copied.
Value padAxis(OpBuilder &builder, Location loc, Value value, int64_t axis, int64_t extent) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getDimSize(axis) == extent)
    return value;
  if (auto transpose = value.getDefiningOp<graph::TransposeOp>();
      transpose && isa<RankedTensorType>(transpose.getInput().getType())) {
    ArrayRef<int64_t> perm = transpose.getPerm();
    Value padded = padAxis(builder, loc, transpose.getInput(), perm[axis], extent);
    return graph::createTranspose(builder, loc, padded, perm);
  }
  return graph::createZeroPad(builder, loc, value, axis, extent);
}

Value padLastAxis(OpBuilder &builder, Location loc, Value value, int64_t extent) {
  return padAxis(builder, loc, value, cast<RankedTensorType>(value.getType()).getRank() - 1,
                 extent);
}

Value sliceLastAxis(OpBuilder &builder, Location loc, Value value, int64_t extent,
                    RankedTensorType type) {
  return graph::createPrefixSlice(builder, loc, value, type.getRank() - 1, extent, type);
}

/// Whether `bias` is a constant of `n` values that broadcasts along the last axis of a
/// product's result only ([N], [1, .., N]).
bool isConstantRowBias(Value bias, int64_t n) {
  auto type = dyn_cast<RankedTensorType>(bias.getType());
  return type && type.getRank() > 0 && type.getShape().back() == n &&
         llvm::all_of(type.getShape().drop_back(), [](int64_t extent) { return extent == 1; }) &&
         graph::readConstantBytes(bias);
}

/// A constant row bias of `n` values (isConstantRowBias) padded with zeros to `paddedN`;
/// null for anything else.
Value padBias(OpBuilder &builder, Location loc, Value bias, int64_t n, int64_t paddedN) {
  if (!isConstantRowBias(bias, n))
    return {};
  auto type = cast<RankedTensorType>(bias.getType());
  return padConstant(builder, loc, bias, 1, n, 1, paddedN, withLast(type, paddedN));
}

bool isHalf(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isF16() || element.isBF16();
}

/// B padded to `paddedK` rows of `paddedN` (B [.., K, N], or [N, K] with `transposed`):
/// a constant 2-D weight at compile time, anything else by graph.pad at run time.
Value padWeight(OpBuilder &builder, Location loc, Value b, bool transposed, int64_t k, int64_t n,
                int64_t paddedK, int64_t paddedN) {
  auto type = cast<RankedTensorType>(b.getType());
  int64_t rank = type.getRank();
  // (padConstant reads the bytes, and is null where B is not a constant it can read.)
  if (rank == 2 && type.hasStaticShape() && b.getDefiningOp<graph::ConstantOp>()) {
    Type element = type.getElementType();
    if (Value padded = transposed ? padConstant(builder, loc, b, n, k, paddedN, paddedK,
                                                RankedTensorType::get({paddedN, paddedK}, element))
                                  : padConstant(builder, loc, b, k, n, paddedK, paddedN,
                                                RankedTensorType::get({paddedK, paddedN}, element)))
      return padded;
  }
  int64_t rowAxis = transposed ? rank - 1 : rank - 2, columnAxis = transposed ? rank - 2 : rank - 1;
  b = padAxis(builder, loc, b, rowAxis, paddedK);
  return padAxis(builder, loc, b, columnAxis, paddedN);
}

/// An operand of unaligned rows that this many tiles of 128 or more read (B's rows for as
/// many row tiles of A, A's for as many column tiles of C) is copied once to aligned rows
/// and read by TMA rather than loaded by the producer's threads for each tile: the
/// threads keep one k-tile's loads in flight (H200: GPT-2's vocabulary product with B
/// computed at run time, 8 row tiles, 0.52 ms loaded by threads against 0.42 padded).
constexpr int64_t kReusedTiles = 4;

/// Whether a product of `rows` rows of A (a matrix's) and `columns` of C reads A's or B's
/// rows from enough tiles (kReusedTiles) that one copy of it pays: B's when `forB`.
bool manyTilesRead(int64_t rows, int64_t columns, bool forB) {
  int64_t readers = forB ? rows : columns;
  return !ShapedType::isDynamic(readers) && readers >= kReusedTiles * 128;
}

/// Whether `b` is a constant 2-D weight, which padWeight pads at compile time.
bool isConstantWeight(Value b) {
  auto type = dyn_cast<RankedTensorType>(b.getType());
  return type && type.getRank() == 2 && type.hasStaticShape() &&
         b.getDefiningOp<graph::ConstantOp>() && graph::readConstantBytes(b);
}

/// Pads `matmul` (A [.., M, K] by B [.., K, N], a constant weight or a value computed at
/// run time, batched or not) where N or K is unaligned. With `unalignedRows` (templates
/// that read rows of any length and store C's), only a constant B's N, at compile time
/// (TMA then reads the weight, which the slice after pays for), and an operand that many
/// tiles read (manyTilesRead).
bool padMatMul(graph::MatMulOp matmul, bool unalignedRows) {
  auto lhsType = dyn_cast<RankedTensorType>(matmul.getLhs().getType());
  auto rhsType = dyn_cast<RankedTensorType>(matmul.getRhs().getType());
  auto resultType = dyn_cast<RankedTensorType>(matmul.getType());
  if (!lhsType || !rhsType || !resultType || lhsType.getRank() < 2 || rhsType.getRank() < 2 ||
      resultType.getRank() < 2 || !isHalf(lhsType) || !isHalf(rhsType))
    return false;
  int64_t rank = rhsType.getRank();
  int64_t k = rhsType.getDimSize(rank - 2), n = rhsType.getDimSize(rank - 1);
  if (ShapedType::isDynamic(k) || ShapedType::isDynamic(n) ||
      lhsType.getDimSize(lhsType.getRank() - 1) != k)
    return false;
  int64_t paddedK = llvm::alignTo(k, kAlignment), paddedN = llvm::alignTo(n, kAlignment);
  if (unalignedRows) {
    // A matrix's rows of A: its second-last extent, or all rows by a 2-D weight.
    ArrayRef<int64_t> lhsShape = lhsType.getShape();
    int64_t rows = lhsShape[lhsShape.size() - 2];
    if (rank == 2 && lhsType.hasStaticShape())
      rows = lhsType.getNumElements() / k;
    if (!manyTilesRead(rows, n, /*forB=*/false))
      paddedK = k;
    if (!isConstantWeight(matmul.getRhs()) && !manyTilesRead(rows, n, /*forB=*/true))
      paddedN = n;
  }
  if (paddedK == k && paddedN == n)
    return false;
  OpBuilder builder(matmul);
  Location loc = matmul.getLoc();
  Value weight =
      padWeight(builder, loc, matmul.getRhs(), /*transposed=*/false, k, n, paddedK, paddedN);
  Value a = padLastAxis(builder, loc, matmul.getLhs(), paddedK);
  Value result = graph::MatMulOp::create(builder, loc, TypeRange{withLast(resultType, paddedN)},
                                         ValueRange{a, weight})
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

/// Pads `gemm` (A [M, K] by B [K, N], or [N, K] with trans_b; a constant or a value
/// computed at run time) where N or K is unaligned; its C (N values, rows of N, or a
/// scalar) is padded too. With `unalignedRows`, as padMatMul, and a transposed B's K
/// always (its rows, which TMA reads).
bool padGemm(graph::GemmOp gemm, bool unalignedRows) {
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
  if (unalignedRows) {
    int64_t rows = aType.getDimSize(0);
    if (transposedB)
      paddedN = n;
    else if (!manyTilesRead(rows, n, /*forB=*/false))
      paddedK = k;
    if (!transposedB && !isConstantWeight(gemm.getB()) && !manyTilesRead(rows, n, /*forB=*/true))
      paddedN = n;
  }
  if (paddedK == k && paddedN == n)
    return false;
  // C broadcasts along the rows: a scalar or one column stays, N columns get zeros.
  Value c = gemm.getC();
  auto cType = c ? dyn_cast<RankedTensorType>(c.getType()) : nullptr;
  bool padC = c && paddedN != n && cType && cType.getRank() > 0 && cType.getShape().back() != 1;
  if (c && (!cType || (padC && cType.getShape().back() != n)))
    return false;
  OpBuilder builder(gemm);
  Location loc = gemm.getLoc();
  Value b = padWeight(builder, loc, gemm.getB(), transposedB, k, n, paddedK, paddedN);
  if (padC) {
    Value paddedBias = padBias(builder, loc, c, n, paddedN);
    c = paddedBias ? paddedBias : padLastAxis(builder, loc, c, paddedN);
  }
  Value a = padLastAxis(builder, loc, gemm.getA(), paddedK);
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

/// The convolutions that read `conv`'s value as their input, through unary elementwise
/// ops (and a quantize that keeps zeros) gathered in `chain`, when only such convolutions
/// (one group, constant weights of `channels` input channels, float or int8) read it;
/// empty otherwise.
SmallVector<graph::ConvOp> readingConvolutions(graph::ConvOp conv, int64_t channels,
                                               SmallVectorImpl<Operation *> &chain) {
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
      return {};
    consumers.push_back(consumer);
  }
  return consumers;
}

/// Pads the output channels of `conv` (channels first, one group, a constant weight) to a
/// multiple of 8 when they are not: zero filters and zero bias. Where its value reaches,
/// through unary elementwise ops (and a quantize that keeps zeros), only convolutions that
/// read it as their input (a squeeze-excite block's reduction, 4 to 28 channels in
/// EfficientNet-B0), their weights read the new channels with zeros: whatever the ops
/// between make of them, the values are unchanged and no slice is needed. Otherwise, with
/// `withSlice` (a detector's 546-channel class head), a slice takes the channels back.
bool padConvChannels(graph::ConvOp conv, bool withSlice) {
  auto resultType = dyn_cast<RankedTensorType>(conv.getType());
  auto weightType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  if (conv.getChannelsLast() || conv.getGroup() != 1 || !resultType || !weightType ||
      !weightType.hasStaticShape() || resultType.getRank() < 3 || !isHalf(resultType) ||
      !isHalf(weightType) || resultType.getDimSize(1) != weightType.getDimSize(0))
    return false;
  int64_t channels = weightType.getDimSize(0);
  int64_t padded = llvm::alignTo(channels, kAlignment);
  if (padded == channels || !graph::readConstantBytes(conv.getWeight()))
    return false;
  SmallVector<Operation *> chain;
  SmallVector<graph::ConvOp> consumers = readingConvolutions(conv, channels, chain);
  if (consumers.empty() && !withSlice)
    return false;
  Value bias = conv.getBias();
  if (bias && !isConstantRowBias(bias, channels))
    return false;
  OpBuilder builder(conv);
  Location loc = conv.getLoc();
  // [O, C, K..] with zero filters after the O.
  int64_t filter = weightType.getNumElements() / channels;
  SmallVector<int64_t> shape(weightType.getShape());
  shape[0] = padded;
  conv.getWeightMutable().assign(
      padConstant(builder, loc, conv.getWeight(), 1, channels * filter, 1, padded * filter,
                  RankedTensorType::get(shape, weightType.getElementType())));
  if (bias)
    conv.getBiasMutable().assign(padBias(builder, loc, bias, channels, padded));
  auto widen = [&](Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> dims(type.getShape());
    dims[1] = padded;
    value.setType(RankedTensorType::get(dims, type.getElementType()));
  };
  if (consumers.empty()) {
    builder.setInsertionPointAfter(conv);
    Value sliced =
        graph::createPrefixSlice(builder, loc, conv.getResult(), 1, channels, resultType);
    conv.getResult().replaceAllUsesExcept(sliced, sliced.getDefiningOp());
    widen(conv.getResult());
    return true;
  }
  widen(conv.getResult());
  for (Operation *op : chain)
    widen(op->getResult(0));
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
  using GraphPadProductsBase::GraphPadProductsBase;

  void runOnOperation() override {
    SmallVector<Operation *> products;
    getOperation().walk([&](Operation *op) {
      if (isa<graph::MatMulOp, graph::GemmOp, graph::ConvOp>(op))
        products.push_back(op);
    });
    for (Operation *op : products) {
      if (auto matmul = dyn_cast<graph::MatMulOp>(op))
        padMatMul(matmul, unalignedRows);
      else if (auto gemm = dyn_cast<graph::GemmOp>(op))
        padGemm(gemm, unalignedRows);
      else
        padConvChannels(cast<graph::ConvOp>(op), sliceConvolutions);
    }
    // The weights and biases the padded ones replaced.
    getOperation().walk([](graph::ConstantOp constant) {
      if (constant->use_empty())
        constant->erase();
    });
  }
};

} // namespace
