//===- ConvertLayout.cpp - Channels-last convolutions, transposes sunk ----===//
//
// graph-convert-layout: 2-D convolutions become channels last (NHWC activations, OHWI
// weights), which is the layout implicit-GEMM convolutions on tensor cores read: the
// reduction dimension (input channels) is contiguous. Each converted conv starts out as
//
//   transpose(NCHW -> NHWC) -> conv {channels_last} -> transpose(NHWC -> NCHW)
//
// with its weight permuted at compile time. The transposes are then sunk towards the
// uses: through pointwise ops (their other operands permuted: constants folded, values
// that only need unit dimensions moved reshaped), through the ops that have a
// channels-last form (conv, max_pool, average_pool, lp_pool, global_average_pool as
// reduce_mean), through resize (its axes mapped), through quantize_linear and dequantize_linear
// (their axis mapped), through concatenations whose operands all carry the same transpose (their
// axis mapped), and into the next conv's leading transpose, which composes with it into nothing
// (graph-simplify's transpose patterns). What is left: a transpose where the model's channels-first
// input enters and where a channels-first value leaves (a function result, an op without a
// channels-last form). A transpose that only moves dimensions of extent 1 becomes a
// reshape.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/GraphTraits.h"
#include "passes/graph/Passes.h"
#include "passes/graph/SimplifyPatterns.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstring>

namespace kiln {
#define GEN_PASS_DEF_GRAPHCONVERTLAYOUT
#include "passes/graph/Passes.h.inc"
} // namespace kiln

#define DEBUG_TYPE "graph-convert-layout"

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// [0, 2, ..., R-1, 1]: channels first to channels last (NCHW -> NHWC).
SmallVector<int64_t> toChannelsLastPerm(int64_t rank) {
  SmallVector<int64_t> perm{0};
  for (int64_t dim = 2; dim < rank; ++dim)
    perm.push_back(dim);
  perm.push_back(1);
  return perm;
}

/// [0, R-1, 1, ..., R-2]: channels last to channels first (NHWC -> NCHW).
SmallVector<int64_t> toChannelsFirstPerm(int64_t rank) {
  SmallVector<int64_t> perm{0, rank - 1};
  for (int64_t dim = 1; dim < rank - 1; ++dim)
    perm.push_back(dim);
  return perm;
}

SmallVector<int64_t> invert(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inverse(perm.size());
  for (auto [index, dim] : llvm::enumerate(perm))
    inverse[dim] = index;
  return inverse;
}

/// The shape transpose(perm) gives a tensor of `shape`.
SmallVector<int64_t> permuteShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> result;
  for (int64_t dim : perm)
    result.push_back(shape[dim]);
  return result;
}

RankedTensorType permuteType(RankedTensorType type, ArrayRef<int64_t> perm) {
  return RankedTensorType::get(permuteShape(type.getShape(), perm), type.getElementType());
}

Value createTranspose(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(input.getType());
  return graph::TransposeOp::create(b, loc, permuteType(type, perm), input,
                                    b.getDenseI64ArrayAttr(perm));
}

/// Whether transposing a tensor of static `shape` by `perm` keeps its elements in order:
/// only dimensions of extent 1 move, so it is a reshape.
bool onlyMovesUnitDims(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  int64_t last = -1;
  for (int64_t dim : perm) {
    if (shape[dim] == 1)
      continue;
    if (dim < last)
      return false;
    last = dim;
  }
  return true;
}

Value createReshape(OpBuilder &b, Location loc, Value input, RankedTensorType type) {
  auto shapeType = RankedTensorType::get({type.getRank()}, b.getI64Type());
  Value shape = graph::ConstantOp::create(
      b, loc, cast<ElementsAttr>(DenseElementsAttr::get(shapeType, type.getShape())));
  return graph::ReshapeOp::create(b, loc, type, input, shape, b.getBoolAttr(false));
}

/// The raw little-endian bytes of a constant of whole-byte elements (dense or a resource
/// blob), or nullopt.
std::optional<ArrayRef<char>> getRawBytes(ElementsAttr attr) {
  Type elementType = attr.getElementType();
  if (!elementType.isIntOrFloat() || elementType.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return dense.isSplat() ? std::nullopt : std::optional(dense.getRawData());
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return blob->getData();
  return std::nullopt;
}

/// The value of constant `attr` (static shape `type`, its rank at most `perm`'s: NumPy
/// broadcasting pads it with leading 1s) transposed by `perm`, or null when its
/// elements cannot be read. Small results are inline, larger ones resource blobs.
ElementsAttr permuteConstant(ElementsAttr attr, ArrayRef<int64_t> perm) {
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  if (!type || !type.hasStaticShape() || type.getRank() > int64_t(perm.size()))
    return {};
  SmallVector<int64_t> shape(perm.size() - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  auto resultType = RankedTensorType::get(permuteShape(shape, perm), type.getElementType());
  if (auto dense = dyn_cast<DenseElementsAttr>(attr); dense && dense.isSplat())
    return dense.resizeSplat(resultType);
  std::optional<ArrayRef<char>> bytes = getRawBytes(attr);
  int64_t elementBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  int64_t count = type.getNumElements();
  if (!bytes || int64_t(bytes->size()) != count * elementBytes)
    return {};
  // Strides of the source; the result is walked in order, its index mapped back.
  int64_t rank = shape.size();
  SmallVector<int64_t> sourceStrides(rank, 1);
  for (int64_t dim = rank - 2; dim >= 0; --dim)
    sourceStrides[dim] = sourceStrides[dim + 1] * shape[dim + 1];
  ArrayRef<int64_t> resultShape = resultType.getShape();
  std::vector<char> data(bytes->size());
  SmallVector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t source = 0;
    for (int64_t dim = 0; dim < rank; ++dim)
      source += index[dim] * sourceStrides[perm[dim]];
    std::memcpy(data.data() + linear * elementBytes, bytes->data() + source * elementBytes,
                elementBytes);
    for (int64_t dim = rank - 1; dim >= 0; --dim) {
      if (++index[dim] < resultShape[dim])
        break;
      index[dim] = 0;
    }
  }
  if (count <= 16 || isa<DenseElementsAttr>(attr))
    return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(resultType, data));
  return DenseResourceElementsAttr::get(
      resultType, "layout_permuted",
      HeapAsmResourceBlob::allocateAndCopyWithAlign(ArrayRef<char>(data), elementBytes));
}

/// Whether `conv` can be channels last: static shapes but the batch, a constant weight
/// (permuted at compile time) and at least one spatial dimension.
bool canBeChannelsLast(graph::ConvOp conv) {
  auto inputType = dyn_cast<RankedTensorType>(conv.getInput().getType());
  auto weightType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  auto resultType = dyn_cast<RankedTensorType>(conv.getType());
  if (conv.getChannelsLast() || !inputType || !weightType || !resultType ||
      inputType.getRank() < 3 || !weightType.hasStaticShape())
    return false;
  for (int64_t dim = 1; dim < inputType.getRank(); ++dim)
    if (inputType.isDynamicDim(dim) || resultType.isDynamicDim(dim))
      return false;
  ElementsAttr weight;
  if (!matchPattern(conv.getWeight(), m_Constant(&weight)))
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(weight);
  return (dense && dense.isSplat()) || getRawBytes(weight);
}

/// The rule for converting a conv on its own: 2-D or 3-D, and with `tensorCoreOnly` also not
/// depthwise and with C / group and M multiples of 8 (an MMA tile's K and N).
bool suitsTensorCores(graph::ConvOp conv, bool tensorCoreOnly) {
  auto weightType = cast<RankedTensorType>(conv.getWeight().getType());
  if (weightType.getRank() != 4 && weightType.getRank() != 5)
    return false;
  if (!tensorCoreOnly)
    return true;
  int64_t group = conv.getGroup();
  int64_t filters = weightType.getDimSize(0), channelsPerGroup = weightType.getDimSize(1);
  bool depthwise = channelsPerGroup == 1 && group > 1;
  return !depthwise && channelsPerGroup % 8 == 0 && (filters / group) % 8 == 0;
}

/// conv(x) -> transpose(conv {channels_last}(transpose(x)), NHWC -> NCHW), the weight
/// permuted.
void convertToChannelsLast(RewriterBase &rewriter, graph::ConvOp conv) {
  auto resultType = cast<RankedTensorType>(conv.getType());
  int64_t rank = resultType.getRank();
  SmallVector<int64_t> toLast = toChannelsLastPerm(rank);
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  ElementsAttr weight;
  (void)matchPattern(conv.getWeight(), m_Constant(&weight));
  Value newWeight = graph::ConstantOp::create(rewriter, conv.getWeight().getLoc(),
                                              permuteConstant(weight, toLast));
  Value input = createTranspose(rewriter, loc, conv.getInput(), toLast);
  auto newConv = cast<graph::ConvOp>(rewriter.clone(*conv));
  newConv->setOperand(0, input);
  newConv->setOperand(1, newWeight);
  newConv.setChannelsLast(true);
  newConv.getResult().setType(permuteType(resultType, toLast));
  rewriter.replaceOp(conv, createTranspose(rewriter, loc, newConv, toChannelsFirstPerm(rank)));
}

/// The permutation of `value` when a graph.transpose of a ranked tensor defines it.
std::optional<ArrayRef<int64_t>> getTransposePerm(Value value) {
  auto transpose = value.getDefiningOp<graph::TransposeOp>();
  if (!transpose || !isa<RankedTensorType>(transpose.getInput().getType()))
    return std::nullopt;
  return transpose.getPerm();
}

/// op(transpose(x, p), ...) -> transpose(op(x, ...'), p) for a pointwise op: the other
/// operands are transposes by the same permutation (their input taken), scalars (kept),
/// constants (permuted by p's inverse and folded) or values of static shape whose
/// inverse permutation only moves unit dimensions (reshaped). Operands of a lower rank
/// are broadcast by NumPy's rules, i.e. padded with leading 1s first.
struct SinkThroughPointwise : RewritePattern {
  SinkThroughPointwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!op->hasTrait<graph::OpTrait::Pointwise>() || op->getNumResults() != 1 ||
        op->getNumRegions() != 0)
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType)
      return failure();
    int64_t rank = resultType.getRank();
    // The permutation: that of the first full-rank transposed operand.
    std::optional<SmallVector<int64_t>> perm;
    for (Value operand : op->getOperands())
      if (auto operandPerm = getTransposePerm(operand))
        if (int64_t(operandPerm->size()) == rank) {
          perm = SmallVector<int64_t>(*operandPerm);
          break;
        }
    // Only the layout change's transposes move; the model's own stay where they are.
    if (!perm || *perm != toChannelsFirstPerm(rank))
      return failure();
    SmallVector<int64_t> inverse = invert(*perm);

    // Every operand first (nothing is created unless all of them fit).
    enum class Kind { Keep, TakeInput, Constant, Reshape };
    SmallVector<std::pair<Kind, ElementsAttr>> plan;
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (!type)
        return failure();
      if (type.getRank() == 0) {
        plan.push_back({Kind::Keep, {}});
        continue;
      }
      if (auto operandPerm = getTransposePerm(operand);
          operandPerm && ArrayRef<int64_t>(*operandPerm) == ArrayRef<int64_t>(*perm)) {
        plan.push_back({Kind::TakeInput, {}});
        continue;
      }
      if (type.getRank() > rank || !type.hasStaticShape())
        return failure();
      ElementsAttr constant;
      if (matchPattern(operand, m_Constant(&constant))) {
        ElementsAttr permuted = permuteConstant(constant, inverse);
        if (!permuted)
          return failure();
        plan.push_back({Kind::Constant, permuted});
        continue;
      }
      SmallVector<int64_t> padded(rank - type.getRank(), 1);
      llvm::append_range(padded, type.getShape());
      if (!onlyMovesUnitDims(padded, inverse))
        return failure();
      plan.push_back({Kind::Reshape, {}});
    }

    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    SmallVector<Value> operands;
    for (auto [operand, step] : llvm::zip_equal(op->getOperands(), plan)) {
      switch (step.first) {
      case Kind::Keep:
        operands.push_back(operand);
        break;
      case Kind::TakeInput:
        operands.push_back(operand.getDefiningOp<graph::TransposeOp>().getInput());
        break;
      case Kind::Constant:
        operands.push_back(graph::ConstantOp::create(rewriter, operand.getLoc(), step.second));
        break;
      case Kind::Reshape: {
        auto type = cast<RankedTensorType>(operand.getType());
        SmallVector<int64_t> padded(rank - type.getRank(), 1);
        llvm::append_range(padded, type.getShape());
        operands.push_back(createReshape(
            rewriter, loc, operand,
            RankedTensorType::get(permuteShape(padded, inverse), type.getElementType())));
        break;
      }
      }
    }
    Operation *moved = rewriter.clone(*op);
    moved->setOperands(operands);
    moved->getResult(0).setType(permuteType(resultType, inverse));
    rewriter.replaceOp(op, createTranspose(rewriter, loc, moved->getResult(0), *perm));
    return success();
  }
};

/// quantize_linear or dequantize_linear (per tensor or per axis, not blocked) of
/// transpose(x, p) -> transpose(op'(x), p), `axis` mapped through p: dimension a of the
/// transpose is dimension p[a] of x. Their scale and zero point are scalars or 1-D along
/// the axis, so they stay as they are. This keeps the quantized activations between two
/// integer convs channels last.
template <typename OpTy> struct SinkThroughQuantization : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getResult().getType());
    std::optional<ArrayRef<int64_t>> perm = getTransposePerm(op.getInput());
    if (!resultType || !perm || op.getBlockSize() != 0)
      return failure();
    int64_t rank = resultType.getRank();
    if (*perm != ArrayRef<int64_t>(toChannelsFirstPerm(rank)))
      return failure();
    // ONNX allows a negative axis, counted from the end.
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis >= rank)
      return failure();
    SmallVector<int64_t> permutation(*perm);
    auto moved = cast<OpTy>(rewriter.clone(*op));
    moved->setOperand(0, op.getInput().template getDefiningOp<graph::TransposeOp>().getInput());
    moved.setAxis(permutation[axis]);
    moved.getResult().setType(permuteType(resultType, invert(permutation)));
    rewriter.replaceOp(op, createTranspose(rewriter, op.getLoc(), moved.getResult(), permutation));
    return success();
  }
};

/// Whether `value` is transpose(x, NHWC -> NCHW) of a ranked x of rank 3 or more.
graph::TransposeOp getToChannelsFirst(Value value) {
  auto transpose = value.getDefiningOp<graph::TransposeOp>();
  if (!transpose)
    return {};
  auto type = dyn_cast<RankedTensorType>(transpose.getInput().getType());
  if (!type || type.getRank() < 3 ||
      transpose.getPerm() != ArrayRef<int64_t>(toChannelsFirstPerm(type.getRank())))
    return {};
  return transpose;
}

/// conv(transpose(x, NHWC -> NCHW)) of any rank and group: channels last, whatever the
/// rule, as the input already is (the new leading transpose composes away).
struct AbsorbIntoConv : OpRewritePattern<graph::ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::ConvOp conv, PatternRewriter &rewriter) const override {
    if (!getToChannelsFirst(conv.getInput()) || !canBeChannelsLast(conv))
      return failure();
    convertToChannelsLast(rewriter, conv);
    return success();
  }
};

/// pool(transpose(x, NHWC -> NCHW)) -> transpose(pool {channels_last}(x)) for the
/// windowed pools that have a channels-last form: max_pool (its indices unused: the
/// channels-last form computes none), average_pool and lp_pool. Channels innermost, the
/// pool reads and writes whole vectors of channels, where behind the transpose it would
/// read channels-last and write channels-first (a transpose with a window).
template <typename PoolOp> struct SinkThroughPool : OpRewritePattern<PoolOp> {
  using OpRewritePattern<PoolOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(PoolOp pool, PatternRewriter &rewriter) const override {
    graph::TransposeOp transpose = getToChannelsFirst(pool.getInput());
    if (!transpose || pool.getChannelsLast())
      return failure();
    if constexpr (std::is_same_v<PoolOp, graph::MaxPoolOp>)
      if (!pool.getIndices().use_empty())
        return failure();
    if (!llvm::all_of(pool->getResultTypes(), llvm::IsaPred<RankedTensorType>))
      return failure();
    int64_t rank = cast<RankedTensorType>(pool->getResult(0).getType()).getRank();
    SmallVector<int64_t> toLast = toChannelsLastPerm(rank);
    auto moved = cast<PoolOp>(rewriter.clone(*pool));
    moved->setOperand(0, transpose.getInput());
    moved.setChannelsLast(true);
    for (OpResult result : moved->getResults())
      result.setType(permuteType(cast<RankedTensorType>(result.getType()), toLast));
    // The other results (max_pool's indices) are unused: they stay as they were.
    SmallVector<Value> replacements{
        createTranspose(rewriter, pool.getLoc(), moved->getResult(0), toChannelsFirstPerm(rank))};
    llvm::append_range(replacements, pool->getResults().drop_front());
    rewriter.replaceOp(pool, replacements);
    return success();
  }
};

/// resize(transpose(x, NHWC -> NCHW)) -> transpose(resize(x), NHWC -> NCHW): resizing
/// commutes with a permutation of the axes, each scale, size and roi entry staying with
/// its axis, which `axes` names (the axes of x: perm[a] for each axis a the resize
/// names, all when it names none). Channels innermost, an upsample reads and writes
/// whole vectors of channels, and what it meets (a concatenation with channels-last
/// values, the next conv) stays channels last.
struct SinkThroughResize : OpRewritePattern<graph::ResizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::ResizeOp resize, PatternRewriter &rewriter) const override {
    graph::TransposeOp transpose = getToChannelsFirst(resize.getInput());
    auto resultType = dyn_cast<RankedTensorType>(resize.getType());
    if (!transpose || !resultType)
      return failure();
    int64_t rank = resultType.getRank();
    ArrayRef<int64_t> perm = transpose.getPerm();
    SmallVector<int64_t> axes;
    if (std::optional<ArrayRef<int64_t>> given = resize.getAxes()) {
      for (int64_t axis : *given) {
        if (axis < -rank || axis >= rank)
          return failure();
        axes.push_back(perm[axis < 0 ? axis + rank : axis]);
      }
    } else {
      axes.assign(perm.begin(), perm.end());
    }
    auto moved = cast<graph::ResizeOp>(rewriter.clone(*resize));
    moved->setOperand(0, transpose.getInput());
    moved.setAxes(axes);
    moved.getResult().setType(permuteType(resultType, invert(perm)));
    rewriter.replaceOp(resize, createTranspose(rewriter, resize.getLoc(), moved, perm));
    return success();
  }
};

/// global_average_pool(transpose(x, NHWC -> NCHW)) -> transpose(reduce_mean(x, spatial
/// axes, keepdims)).
struct SinkThroughGlobalAveragePool : OpRewritePattern<graph::GlobalAveragePoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::GlobalAveragePoolOp pool,
                                PatternRewriter &rewriter) const override {
    graph::TransposeOp transpose = getToChannelsFirst(pool.getInput());
    auto resultType = dyn_cast<RankedTensorType>(pool.getType());
    if (!transpose || !resultType)
      return failure();
    int64_t rank = resultType.getRank();
    SmallVector<int64_t> axes;
    for (int64_t dim = 1; dim < rank - 1; ++dim)
      axes.push_back(dim);
    Location loc = pool.getLoc();
    auto axesType = RankedTensorType::get({int64_t(axes.size())}, rewriter.getI64Type());
    Value axesValue = graph::ConstantOp::create(
        rewriter, loc, cast<ElementsAttr>(DenseElementsAttr::get(axesType, ArrayRef(axes))));
    Value mean = graph::ReduceMeanOp::create(
        rewriter, loc, permuteType(resultType, toChannelsLastPerm(rank)), transpose.getInput(),
        axesValue, rewriter.getBoolAttr(true), rewriter.getBoolAttr(false));
    rewriter.replaceOp(pool, createTranspose(rewriter, loc, mean, toChannelsFirstPerm(rank)));
    return success();
  }
};

/// concat(transpose(x1, p), .., transpose(xn, p), axis a) -> transpose(concat(x1, .., xn,
/// axis p[a]), p): the channels-last results of convolutions concatenated along their
/// channels (an Inception block's, a detector's heads, a transposed convolution's phases)
/// stay channels last, one transpose after instead of one per operand.
struct SinkThroughConcat : OpRewritePattern<graph::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::ConcatOp concat, PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(concat.getType());
    if (!resultType || concat.getInputs().size() < 2)
      return failure();
    ArrayRef<int64_t> perm;
    SmallVector<Value> inputs;
    for (Value input : concat.getInputs()) {
      auto transpose = input.getDefiningOp<graph::TransposeOp>();
      if (!transpose || (!perm.empty() && transpose.getPerm() != perm))
        return failure();
      perm = transpose.getPerm();
      inputs.push_back(transpose.getInput());
    }
    int64_t rank = resultType.getRank();
    // I64Attr's getter is unsigned: a negative axis only as a signed value.
    int64_t axis = static_cast<int64_t>(concat.getAxis());
    if (axis < 0)
      axis += rank;
    if (int64_t(perm.size()) != rank || axis < 0 || axis >= rank)
      return failure();
    // The concatenation's type before the transpose: the inverse permutation of its own.
    SmallVector<int64_t> shape(rank);
    for (int64_t dim = 0; dim < rank; ++dim)
      shape[perm[dim]] = resultType.getDimSize(dim);
    Value joined = graph::ConcatOp::create(
        rewriter, concat.getLoc(), RankedTensorType::get(shape, resultType.getElementType()),
        inputs, rewriter.getI64IntegerAttr(perm[axis]));
    rewriter.replaceOp(concat, createTranspose(rewriter, concat.getLoc(), joined, perm));
    return success();
  }
};

/// Whether the implicit-GEMM templates take `conv` channels last only: output channels a
/// multiple of 8, not depthwise (any input channels: an explicit im2col serves those that
/// are not). Depthwise convolutions have templates in both layouts.
bool takesImplicitGemm(graph::ConvOp conv) {
  auto weightType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  return weightType && (weightType.getRank() == 4 || weightType.getRank() == 5) &&
         weightType.hasStaticShape() && weightType.getDimSize(0) % 8 == 0 &&
         (conv.getGroup() == 1 || weightType.getDimSize(1) > 1);
}

/// A channels-last conv whose input comes from a channels-first value through a layout
/// transpose and whose result only goes back to channels first: nothing next to it took
/// the layout, so it gains no neighbour and pays two transposes (each a kernel or a
/// gathering prologue). Unless a template takes it only channels last (two transposes
/// cost far less than the generic lowering of a convolution), it goes back to channels
/// first, its weight permuted back.
struct RevertIsolatedConv : OpRewritePattern<graph::ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::ConvOp conv, PatternRewriter &rewriter) const override {
    auto input = conv.getInput().getDefiningOp<graph::TransposeOp>();
    auto resultType = dyn_cast<RankedTensorType>(conv.getType());
    if (!conv.getChannelsLast() || !input || !resultType || !conv->hasOneUse() ||
        takesImplicitGemm(conv))
      return failure();
    int64_t rank = resultType.getRank();
    SmallVector<int64_t> toFirst = toChannelsFirstPerm(rank);
    auto output = dyn_cast<graph::TransposeOp>(*conv->user_begin());
    ElementsAttr weight;
    if (input.getPerm() != ArrayRef<int64_t>(toChannelsLastPerm(rank)) || !output ||
        output.getPerm() != ArrayRef<int64_t>(toFirst) ||
        !matchPattern(conv.getWeight(), m_Constant(&weight)))
      return failure();
    ElementsAttr channelsFirstWeight = permuteConstant(weight, toFirst);
    if (!channelsFirstWeight)
      return failure();
    rewriter.setInsertionPoint(conv);
    Value newWeight =
        graph::ConstantOp::create(rewriter, conv.getWeight().getLoc(), channelsFirstWeight);
    auto reverted = cast<graph::ConvOp>(rewriter.clone(*conv));
    reverted->setOperand(0, input.getInput());
    reverted->setOperand(1, newWeight);
    reverted.setChannelsLast(false);
    reverted.getResult().setType(output.getType());
    rewriter.replaceOp(output, reverted.getResult());
    rewriter.eraseOp(conv);
    return success();
  }
};

/// A transpose of a static tensor that only moves unit dimensions is a reshape (which
/// reshape chains then merge, and which moves no data).
struct TransposeOfUnitDimsToReshape : OpRewritePattern<graph::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(graph::TransposeOp op, PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape() || !resultType || !resultType.hasStaticShape() ||
        type.getRank() < 3 || !onlyMovesUnitDims(type.getShape(), op.getPerm()))
      return failure();
    ArrayRef<int64_t> perm = op.getPerm();
    if (perm != ArrayRef<int64_t>(toChannelsFirstPerm(type.getRank())) &&
        perm != ArrayRef<int64_t>(toChannelsLastPerm(type.getRank())))
      return failure();
    rewriter.replaceOp(op, createReshape(rewriter, op.getLoc(), op.getInput(), resultType));
    return success();
  }
};

struct GraphConvertLayoutPass : kiln::impl::GraphConvertLayoutBase<GraphConvertLayoutPass> {
  using GraphConvertLayoutBase::GraphConvertLayoutBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    MLIRContext *context = &getContext();

    // 1. The convs the rule picks, each between its pair of transposes.
    IRRewriter rewriter(context);
    SmallVector<graph::ConvOp> convs;
    function.walk([&](graph::ConvOp conv) {
      if (canBeChannelsLast(conv) && suitsTensorCores(conv, tensorCoreOnly))
        convs.push_back(conv);
    });
    for (graph::ConvOp conv : convs)
      convertToChannelsLast(rewriter, conv);

    // 2. Transposes sunk towards their uses, composed and cancelled where they meet.
    {
      RewritePatternSet patterns(context);
      patterns.add<SinkThroughPointwise, AbsorbIntoConv, SinkThroughPool<graph::MaxPoolOp>,
                   SinkThroughPool<graph::AveragePoolOp>, SinkThroughPool<graph::LpPoolOp>,
                   SinkThroughResize, SinkThroughConcat,
                   SinkThroughQuantization<graph::QuantizeLinearOp>,
                   SinkThroughQuantization<graph::DequantizeLinearOp>>(context);
      // A global pool as a reduce_mean over the middle axes keeps the layout: behind its
      // transpose, the pool's [N, C, 1, 1] result went through a copy to [N, 1, 1, C]
      // (a kernel of its own) for a channels-last user, as each squeeze-excite block's.
      if (globalPoolAsReduceMean)
        patterns.add<SinkThroughGlobalAveragePool>(context);
      kiln::populateGraphSimplifyPatterns(patterns);
      if (failed(applyPatternsGreedily(function, std::move(patterns))))
        LLVM_DEBUG(llvm::dbgs() << "sinking did not reach a fixed point\n");
    }
    // 3. Convs left alone between their two transposes back to channels first;
    // transposes of unit dimensions as reshapes, merged with their neighbours.
    {
      RewritePatternSet patterns(context);
      patterns.add<RevertIsolatedConv, TransposeOfUnitDimsToReshape>(context);
      kiln::populateGraphSimplifyPatterns(patterns);
      (void)applyPatternsGreedily(function, std::move(patterns));
    }
    // Sinking one transpose into several users duplicates it; one copy is enough.
    DominanceInfo dominance(function);
    eliminateCommonSubExpressions(rewriter, dominance, function);

    int64_t channelsLast = 0, left = 0;
    function.walk([&](Operation *op) {
      if (auto conv = dyn_cast<graph::ConvOp>(op))
        channelsLast += conv.getChannelsLast();
      left += isa<graph::TransposeOp>(op);
    });
    numConverted += channelsLast;
    numTransposesLeft += left;
    if (emitRemarks)
      function.emitRemark() << "graph-convert-layout: " << channelsLast << " convs channels last, "
                            << left << " transposes left";
  }
};

} // namespace
