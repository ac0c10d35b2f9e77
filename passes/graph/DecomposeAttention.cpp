//===- DecomposeAttention.cpp - Attention no flash kernel takes, as products ---===//
//
// graph-decompose-attention: a half-precision graph.attention whose head size the
// flash-attention templates do not take (not a multiple of `head-dim-multiple`, above
// `max-head-dim`, or the value's differing from the key's) gets one they take where
// zeros make it: Q, K and V padded along D to the next multiple of `head-dim-multiple` of
// the larger of the two head sizes (Q K^T is unchanged, P V gains zero columns), the
// result sliced back to the value's head size, the scale kept (head size 72 runs the flash
// kernel of 80: three small copies instead of materialised scores). Beyond `max-head-dim`
// it becomes
//
//   scores = matmul(query, transpose(key)) * scale [+ mask] [+ causal mask]
//   result = matmul(softmax(scores, -1) [NaNs to 0], value)
//
// with key and value heads repeated for grouped-query attention: two products that the
// GEMM templates compute on the tensor cores with a row kernel's softmax between them,
// where the attention kernel itself would be the generic lowering's loops. The scores
// are materialised (B H Sq Skv elements twice), which a flash kernel avoids, so only the
// forms none takes go this way.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/GraphBuilders.h"
#include "passes/graph/Passes.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHDECOMPOSEATTENTION
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// A scalar graph.constant of `type`.
Value createScalar(OpBuilder &b, Location loc, Type type, double value) {
  auto tensorType = RankedTensorType::get({}, type);
  return graph::ConstantOp::create(
      b, loc, cast<ElementsAttr>(DenseElementsAttr::get(tensorType, FloatAttr::get(type, value))));
}

struct GraphDecomposeAttention : kiln::impl::GraphDecomposeAttentionBase<GraphDecomposeAttention> {
  using Base::Base;

  /// Whether a flash-attention template takes the head sizes of `key` and `value`.
  bool flashKernelTakes(RankedTensorType key, RankedTensorType value) const {
    int64_t headDim = key.getShape().back(), valueDim = value.getShape().back();
    return !ShapedType::isDynamic(headDim) && headDim == valueDim &&
           headDim % headDimMultiple == 0 && headDim <= maxHeadDim;
  }

  /// The head size a flash-attention template takes that `key`'s and `value`'s pad to
  /// with zeros; 0 where none does.
  int64_t paddedHeadDim(RankedTensorType key, RankedTensorType value) const {
    int64_t headDim = key.getShape().back(), valueDim = value.getShape().back();
    if (ShapedType::isDynamic(headDim) || ShapedType::isDynamic(valueDim) || headDimMultiple < 1)
      return 0;
    int64_t padded = llvm::alignTo(std::max(headDim, valueDim), headDimMultiple);
    return padded <= maxHeadDim ? padded : 0;
  }

  /// `attention` on Q, K and V padded with zeros along D to `headDim`, its result sliced
  /// back to the value's head size.
  void padHeads(graph::AttentionOp attention, int64_t headDim) {
    OpBuilder b(attention);
    Location loc = attention.getLoc();
    auto pad = [&](Value value) {
      int64_t axis = cast<RankedTensorType>(value.getType()).getRank() - 1;
      return cast<RankedTensorType>(value.getType()).getDimSize(axis) == headDim
                 ? value
                 : graph::createZeroPad(b, loc, value, axis, headDim);
    };
    Value query = pad(attention.getQuery()), key = pad(attention.getKey()),
          value = pad(attention.getValue());
    auto padded = cast<graph::AttentionOp>(b.clone(*attention));
    padded->setOperand(0, query);
    padded->setOperand(1, key);
    padded->setOperand(2, value);
    auto resultType = cast<RankedTensorType>(attention.getType());
    SmallVector<int64_t> shape(resultType.getShape());
    shape.back() = headDim;
    padded.getResult().setType(resultType.clone(shape));
    Value result = graph::createPrefixSlice(b, loc, padded.getResult(), resultType.getRank() - 1,
                                            resultType.getShape().back(), resultType);
    attention.getResult().replaceAllUsesWith(result);
    attention.erase();
  }

  void runOnOperation() override {
    SmallVector<graph::AttentionOp> decomposed;
    SmallVector<std::pair<graph::AttentionOp, int64_t>> padded;
    getOperation().walk([&](graph::AttentionOp attention) {
      auto query = dyn_cast<RankedTensorType>(attention.getQuery().getType());
      auto key = dyn_cast<RankedTensorType>(attention.getKey().getType());
      auto value = dyn_cast<RankedTensorType>(attention.getValue().getType());
      if (!query || !key || !value || key.getRank() < 2 ||
          !(query.getElementType().isF16() || query.getElementType().isBF16()) ||
          flashKernelTakes(key, value))
        return;
      if (int64_t headDim = paddedHeadDim(key, value)) {
        padded.push_back({attention, headDim});
        return;
      }
      // A causal flag becomes a constant mask: static sequence lengths only.
      int64_t rank = query.getRank();
      if (attention.getCausal() &&
          (query.isDynamicDim(rank - 2) || key.isDynamicDim(key.getRank() - 2)))
        return;
      decomposed.push_back(attention);
    });
    for (auto [attention, headDim] : padded)
      padHeads(attention, headDim);
    for (graph::AttentionOp attention : decomposed) {
      OpBuilder b(attention);
      Location loc = attention.getLoc();
      auto queryType = cast<RankedTensorType>(attention.getQuery().getType());
      Type element = queryType.getElementType();
      int64_t queryHeads = queryType.getRank() >= 3 ? queryType.getDimSize(queryType.getRank() - 3)
                                                    : ShapedType::kDynamic;
      Value key = graph::createRepeatedHeads(b, loc, attention.getKey(), queryHeads);
      Value value = graph::createRepeatedHeads(b, loc, attention.getValue(), queryHeads);
      auto keyType = cast<RankedTensorType>(key.getType());
      int64_t rank = keyType.getRank();
      auto perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
      std::swap(perm[rank - 1], perm[rank - 2]);
      Value scores = graph::MatMulOp::create(b, loc, attention.getQuery(),
                                             graph::createTranspose(b, loc, key, perm));
      auto scoresType = cast<RankedTensorType>(scores.getType());
      double scale = attention.getScale().convertToDouble();
      if (scale != 1.0)
        scores = graph::MulOp::create(b, loc, scores, createScalar(b, loc, element, scale));
      if (Value mask = attention.getMask())
        scores = graph::AddOp::create(b, loc, scores, mask);
      if (attention.getCausal()) {
        // 0 where key position j <= query position i, -inf above: [Sq, Skv], broadcast.
        int64_t rows = scoresType.getDimSize(scoresType.getRank() - 2);
        int64_t columns = scoresType.getDimSize(scoresType.getRank() - 1);
        auto maskType = RankedTensorType::get({rows, columns}, element);
        const llvm::fltSemantics &semantics = cast<FloatType>(element).getFloatSemantics();
        SmallVector<APFloat> values;
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < columns; ++j)
            values.push_back(j <= i ? APFloat::getZero(semantics)
                                    : APFloat::getInf(semantics, /*Negative=*/true));
        Value causal = graph::ConstantOp::create(
            b, loc, cast<ElementsAttr>(DenseElementsAttr::get(maskType, values)));
        scores = graph::AddOp::create(b, loc, scores, causal);
      }
      Value probabilities = graph::SoftmaxOp::create(b, loc, scores, -1);
      if (attention.getNanToZero()) {
        Value isNan = graph::IsNaNOp::create(b, loc, probabilities);
        probabilities = graph::WhereOp::create(b, loc, isNan, createScalar(b, loc, element, 0.0),
                                               probabilities);
      }
      Value result = graph::MatMulOp::create(b, loc, probabilities, value);
      attention.getResult().replaceAllUsesWith(result);
      attention.erase();
    }
  }
};

} // namespace
