//===- RecognizeGroupedQueryAttention.cpp - K/V heads read unrepeated --------===//
//
// graph-recognize-grouped-query-attention: grouped-query attention (GQA, MQA) has fewer
// key/value heads than query heads, and exporters repeat each key/value head for the
// query heads of its group before the products (Hugging Face's repeat_kv:
// Unsqueeze, Expand, Reshape; or a Gather of head h / g). A graph.attention whose key
// and value are such repeats of tensors with Hkv heads takes those tensors instead:
// graph.attention reads key and value head h / (H / Hkv) for query head h itself, so the
// repeated copies (g times the key and value bytes, written and read once more) are never
// made, and the flash-attention kernels read each key/value tile for its whole group.
// Attention written with the groups as an axis of their own ([.., Hkv, g, S, D] queries
// against [.., Hkv, 1, S, D] keys and values) is reshaped into that form first.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/GraphBuilders.h"
#include "passes/graph/Passes.h"
#include "passes/graph/Recognize.h"
#include "passes/graph/SymbolicShapes.h"

#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHRECOGNIZEGROUPEDQUERYATTENTION
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// Whether extent `dimA` of `a` and extent `dimB` of `b` are equal: static and the same,
/// or the same polynomial of the inputs' symbols (a dynamic batch or sequence).
bool sameExtent(const graph::SymbolicShapeAnalysis &shapes, Value a, int64_t dimA, Value b,
                int64_t dimB) {
  const graph::SymbolicShape *shapeA = shapes.lookup(a), *shapeB = shapes.lookup(b);
  return shapeA && shapeB && shapeA->ranked && shapeB->ranked &&
         dimA < int64_t(shapeA->dims.size()) && dimB < int64_t(shapeB->dims.size()) &&
         shapeA->dims[dimA] == shapeB->dims[dimB];
}

/// The repeat of heads `repeated` is: each head of a tensor with fewer heads (dimension -3
/// of a rank >= 3 tensor) repeated `group` times in a row. Returns that tensor and the
/// group, or nullopt.
std::optional<std::pair<Value, int64_t>>
matchRepeatedHeads(Value repeated, const graph::SymbolicShapeAnalysis &shapes) {
  auto type = dyn_cast<RankedTensorType>(repeated.getType());
  if (!type || type.getRank() < 3)
    return std::nullopt;
  int64_t rank = type.getRank();
  int64_t heads = type.getDimSize(rank - 3);
  if (ShapedType::isDynamic(heads))
    return std::nullopt;

  // Gather(x, [0, .., 0, 1, .., 1, ..], axis = -3): head h of x repeated g times.
  if (auto gather = repeated.getDefiningOp<graph::GatherOp>()) {
    auto sourceType = dyn_cast<RankedTensorType>(gather.getData().getType());
    std::optional<SmallVector<int64_t>> indices = graph::getConstantInts(gather.getIndices());
    auto indicesType = dyn_cast<RankedTensorType>(gather.getIndices().getType());
    int64_t axis = gather.getAxis();
    if (!sourceType || sourceType.getRank() != rank || !indices || !indicesType ||
        indicesType.getRank() != 1 || (axis != rank - 3 && axis != -3))
      return std::nullopt;
    int64_t sourceHeads = sourceType.getDimSize(rank - 3);
    if (ShapedType::isDynamic(sourceHeads) || sourceHeads < 1 || heads % sourceHeads != 0 ||
        int64_t(indices->size()) != heads)
      return std::nullopt;
    int64_t group = heads / sourceHeads;
    for (int64_t head = 0; head < heads; ++head)
      if ((*indices)[head] != head / group)
        return std::nullopt;
    return std::pair(gather.getData(), group);
  }

  // Reshape(Expand(Unsqueeze(x, axis = -2 of x's rank + 1), [.., Hkv, g, S, D]),
  // [.., Hkv * g, S, D]).
  auto reshape = repeated.getDefiningOp<graph::ReshapeOp>();
  auto expand = reshape ? reshape.getInput().getDefiningOp<graph::ExpandOp>() : nullptr;
  auto unsqueeze = expand ? expand.getInput().getDefiningOp<graph::UnsqueezeOp>() : nullptr;
  if (!unsqueeze)
    return std::nullopt;
  Value source = unsqueeze.getInput();
  auto expandedType = dyn_cast<RankedTensorType>(expand.getType());
  auto sourceType = dyn_cast<RankedTensorType>(source.getType());
  std::optional<SmallVector<int64_t>> axes = graph::getConstantInts(unsqueeze.getAxes());
  if (!expandedType || !sourceType || sourceType.getRank() != rank ||
      expandedType.getRank() != rank + 1 || !axes || axes->size() != 1 ||
      ((*axes)[0] != rank - 2 && (*axes)[0] != -3))
    return std::nullopt;
  // [.., Hkv, 1, S, D] expanded along the new axis only: the last two extents (S and D)
  // stay those of x (a leading dimension may broadcast: graph.attention broadcasts those),
  // and the reshape merges (Hkv, g) and keeps every other extent.
  int64_t sourceHeads = sourceType.getDimSize(rank - 3);
  int64_t group = expandedType.getDimSize(rank - 2);
  if (ShapedType::isDynamic(sourceHeads) || ShapedType::isDynamic(group) ||
      expandedType.getDimSize(rank - 3) != sourceHeads || sourceHeads * group != heads)
    return std::nullopt;
  Value expanded = expand.getResult();
  bool keepsRows = sameExtent(shapes, expanded, rank - 1, source, rank - 2) &&
                   sameExtent(shapes, expanded, rank, source, rank - 1) &&
                   sameExtent(shapes, repeated, rank - 2, expanded, rank - 1) &&
                   sameExtent(shapes, repeated, rank - 1, expanded, rank);
  for (int64_t dim = 0; dim < rank - 3 && keepsRows; ++dim)
    keepsRows = sameExtent(shapes, repeated, dim, expanded, dim);
  if (!keepsRows)
    return std::nullopt;
  return std::pair(source, group);
}

/// Grouped-query attention written with the groups as an axis of their own: query
/// [.., Hkv, g, Sq, D] against key and value [.., Hkv, 1, Skv, D] (broadcast along the
/// group). Rewritten as the attention of query heads Hkv * g on Hkv key/value heads
/// (reshapes of the operands, and of the result back), which the flash kernels take.
/// Returns whether it rewrote `attention`.
bool ungroupAxis(graph::AttentionOp attention) {
  auto query = dyn_cast<RankedTensorType>(attention.getQuery().getType());
  auto key = dyn_cast<RankedTensorType>(attention.getKey().getType());
  auto value = dyn_cast<RankedTensorType>(attention.getValue().getType());
  auto result = dyn_cast<RankedTensorType>(attention.getType());
  if (!query || !key || !value || !result || query.getRank() < 5 ||
      key.getRank() != query.getRank() || value.getRank() != query.getRank())
    return false;
  int64_t rank = query.getRank();
  int64_t kvHeads = query.getDimSize(rank - 4), group = query.getDimSize(rank - 3);
  int64_t headDim = query.getDimSize(rank - 1), valueDim = value.getDimSize(rank - 1);
  auto groupedLike = [&](RankedTensorType type) {
    return type.getDimSize(rank - 4) == kvHeads && type.getDimSize(rank - 3) == 1;
  };
  if (ShapedType::isDynamic(kvHeads) || ShapedType::isDynamic(group) || group < 2 ||
      ShapedType::isDynamic(headDim) || ShapedType::isDynamic(valueDim) || !groupedLike(key) ||
      !groupedLike(value) || key.getDimSize(rank - 1) != headDim)
    return false;
  // A mask must not tell the query heads of a group apart by kv head alone: it broadcasts
  // along both axes, or has them both (merged as the heads).
  Value mask = attention.getMask();
  auto maskType = mask ? dyn_cast<RankedTensorType>(mask.getType()) : nullptr;
  if (mask && !maskType)
    return false;
  int64_t maskRank = maskType ? maskType.getRank() : 0;
  bool maskMerges = false;
  if (maskType && maskRank >= 3) {
    int64_t outer = maskRank >= 4 ? maskType.getDimSize(maskRank - 4) : 1;
    int64_t inner = maskType.getDimSize(maskRank - 3);
    if (outer == 1 && inner == 1)
      maskMerges = maskRank >= 4;
    else if (outer == kvHeads && inner == group && maskRank >= 4)
      maskMerges = true;
    else
      return false;
  }
  OpBuilder b(attention);
  Location loc = attention.getLoc();
  int64_t leading = rank - 4;
  // [.., A, B, S, E] as [.., A * B, S, E]: 0 copies a leading extent, -1 is the sequence.
  auto merge = [&](Value operand, int64_t merged, int64_t last) {
    auto type = cast<RankedTensorType>(operand.getType());
    SmallVector<int64_t> target(leading, 0), shape(type.getShape().take_front(leading));
    target.append({merged, -1, last});
    shape.append({merged, type.getDimSize(rank - 2), last});
    return graph::createReshape(b, loc, operand, target, type.clone(shape));
  };
  Value newQuery = merge(attention.getQuery(), kvHeads * group, headDim);
  Value newKey = merge(attention.getKey(), kvHeads, headDim);
  Value newValue = merge(attention.getValue(), kvHeads, valueDim);
  Value newMask = mask;
  if (maskMerges) {
    auto type = maskType;
    SmallVector<int64_t> target(maskRank - 4, 0), shape(type.getShape().take_front(maskRank - 4));
    int64_t heads = type.getDimSize(maskRank - 4) * type.getDimSize(maskRank - 3);
    target.append({heads, -1, type.getDimSize(maskRank - 1)});
    shape.append({heads, type.getDimSize(maskRank - 2), type.getDimSize(maskRank - 1)});
    if (ShapedType::isDynamic(type.getDimSize(maskRank - 1)))
      return false;
    newMask = graph::createReshape(b, loc, mask, target, type.clone(shape));
  }
  SmallVector<int64_t> flatShape(result.getShape().take_front(leading));
  flatShape.append({kvHeads * group, result.getDimSize(rank - 2), valueDim});
  auto flat = graph::AttentionOp::create(b, loc, Type(result.clone(flatShape)), newQuery, newKey,
                                         newValue, newMask, attention.getScaleAttr(),
                                         attention.getNanToZeroAttr(), attention.getCausalAttr());
  SmallVector<int64_t> target(leading, 0);
  target.append({kvHeads, group, -1, valueDim});
  Value grouped = graph::createReshape(b, loc, flat.getResult(), target, result);
  attention.getResult().replaceAllUsesWith(grouped);
  attention.erase();
  return true;
}

struct GraphRecognizeGroupedQueryAttention
    : kiln::impl::GraphRecognizeGroupedQueryAttentionBase<GraphRecognizeGroupedQueryAttention> {
  void runOnOperation() override {
    // Groups as an axis of their own first: the attentions that come out of it read
    // unrepeated key/value heads already.
    SmallVector<graph::AttentionOp> attentions;
    getOperation().walk([&](graph::AttentionOp attention) { attentions.push_back(attention); });
    for (graph::AttentionOp attention : attentions)
      ungroupAxis(attention);

    llvm::SetVector<Operation *> dead;
    graph::SymbolicShapeAnalysis shapes(getOperation());
    getOperation().walk([&](graph::AttentionOp attention) {
      auto queryType = dyn_cast<RankedTensorType>(attention.getQuery().getType());
      std::optional<std::pair<Value, int64_t>> key = matchRepeatedHeads(attention.getKey(), shapes);
      std::optional<std::pair<Value, int64_t>> value =
          matchRepeatedHeads(attention.getValue(), shapes);
      // Key and value in the same groups, and the query's heads those of the result.
      if (!queryType || !key || !value || key->second != value->second || key->second < 2 ||
          queryType.getRank() != cast<RankedTensorType>(key->first.getType()).getRank() ||
          queryType.getDimSize(queryType.getRank() - 3) !=
              cast<RankedTensorType>(attention.getKey().getType())
                  .getDimSize(queryType.getRank() - 3))
        return;
      for (Value repeated : {attention.getKey(), attention.getValue()})
        if (Operation *producer = repeated.getDefiningOp())
          dead.insert(producer);
      attention.getKeyMutable().assign(key->first);
      attention.getValueMutable().assign(value->first);
    });
    // The repeats (and what only they read) go where nothing else reads them.
    while (!dead.empty()) {
      Operation *op = dead.pop_back_val();
      if (!op->use_empty() || !isa_and_nonnull<graph::GraphDialect>(op->getDialect()))
        continue;
      SmallVector<Value> operands(op->getOperands());
      op->erase();
      for (Value operand : operands)
        if (Operation *producer = operand.getDefiningOp())
          dead.insert(producer);
    }
  }
};

} // namespace
