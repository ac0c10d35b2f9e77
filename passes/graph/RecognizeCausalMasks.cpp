//===- RecognizeCausalMasks.cpp - Computed causal masks as graph.attention's flag ===//
//
// graph-recognize-causal-masks: a graph.attention whose mask is `Where(allowed, 0, f)`
// (or `Where(masked, f, 0)`), `f` a masked-out score (-inf, at most -1e30, or the lowest
// value of the mask's type, as exporters write `finfo(dtype).min`), where the boolean's
// index function (IndexFunctions.h) is exactly "key position <= query position" over the
// last two axes, loses the mask and gets `causal`. With static shapes constant folding
// made such a mask a constant, which the attention kernels recognise; with dynamic ones it
// is a [batch, 1, S, S] tensor computed per call and read by every head, and the causal
// kernels skip the tiles above the diagonal besides.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/AttentionMasks.h"
#include "passes/graph/IndexFunctions.h"
#include "passes/graph/Passes.h"
#include "passes/graph/SymbolicShapes.h"

#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHRECOGNIZECAUSALMASKS
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// Whether `function`, over a tensor of `rank` dimensions, is true exactly where the index
/// of the last axis is at most that of the one before: j - i <= 0.
bool isCausal(const graph::IndexFunction &function, int64_t rank) {
  if (rank < 2 || function.kind != graph::IndexFunction::Kind::LessOrEqualZero ||
      function.constant != 0)
    return false;
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t expected = dim == rank - 1 ? 1 : dim == rank - 2 ? -1 : 0;
    if (function.coefficients[dim] != expected)
      return false;
  }
  return true;
}

/// Whether `attention`'s mask is causal: a Where of a causal boolean, 0 where allowed,
/// masked out elsewhere, whose last two extents are the scores' [Sq, Skv].
bool hasCausalMask(graph::AttentionOp attention, const graph::IndexFunctionAnalysis &functions,
                   const graph::SymbolicShapeAnalysis &shapes) {
  Value mask = attention.getMask();
  auto where = mask ? mask.getDefiningOp<graph::WhereOp>() : nullptr;
  if (!where)
    return false;
  std::optional<APFloat> lhs = kiln::getSplatFloat(where.getLhs()),
                         rhs = kiln::getSplatFloat(where.getRhs());
  if (!lhs || !rhs)
    return false;
  // Where(allowed, 0, f), or Where(masked, f, 0).
  bool maskedWhereTrue;
  if (lhs->isZero() && kiln::isMaskedOutScore(*rhs))
    maskedWhereTrue = false;
  else if (kiln::isMaskedOutScore(*lhs) && rhs->isZero())
    maskedWhereTrue = true;
  else
    return false;
  std::optional<graph::IndexFunction> condition =
      functions.broadcastTo(where.getCondition(), where.getResult());
  if (!condition)
    return false;
  int64_t rank = cast<RankedTensorType>(where.getType()).getRank();
  if (maskedWhereTrue) {
    // not (x <= 0) is -x + 1 <= 0.
    if (condition->kind != graph::IndexFunction::Kind::LessOrEqualZero)
      return false;
    for (int64_t &coefficient : condition->coefficients)
      coefficient = -coefficient;
    condition->constant = 1 - condition->constant;
  }
  if (!isCausal(*condition, rank))
    return false;
  // The mask's last two extents are the scores' (a mask stretched along them would be
  // another one).
  const graph::SymbolicShape *maskShape = shapes.lookup(where.getResult());
  const graph::SymbolicShape *query = shapes.lookup(attention.getQuery());
  const graph::SymbolicShape *key = shapes.lookup(attention.getKey());
  if (!maskShape || !query || !key || !maskShape->ranked || !query->ranked || !key->ranked ||
      query->dims.size() < 2 || key->dims.size() < 2)
    return false;
  return maskShape->dims[rank - 2] == query->dims[query->dims.size() - 2] &&
         maskShape->dims[rank - 1] == key->dims[key->dims.size() - 2];
}

struct GraphRecognizeCausalMasksPass
    : kiln::impl::GraphRecognizeCausalMasksBase<GraphRecognizeCausalMasksPass> {
  using GraphRecognizeCausalMasksBase::GraphRecognizeCausalMasksBase;

  void runOnOperation() override {
    // Both analyses once, on the function as it comes: the rewrites only drop masks.
    graph::SymbolicShapeAnalysis shapes(getOperation());
    graph::IndexFunctionAnalysis functions(getOperation(), shapes);
    SmallVector<graph::AttentionOp> causal;
    getOperation().walk([&](graph::AttentionOp attention) {
      if (!attention.getCausal() && hasCausalMask(attention, functions, shapes))
        causal.push_back(attention);
    });
    for (graph::AttentionOp attention : causal) {
      Operation *mask = attention.getMask().getDefiningOp();
      attention.getMaskMutable().clear();
      attention.setCausal(true);
      // The mask and what computed it, where nothing else reads them. (An op is erased
      // when its last user is: it cannot come back to the worklist after.)
      llvm::SetVector<Operation *> dead;
      dead.insert(mask);
      while (!dead.empty()) {
        Operation *op = dead.pop_back_val();
        if (!op->use_empty() || !isPure(op))
          continue;
        for (Value operand : op->getOperands())
          if (Operation *producer = operand.getDefiningOp())
            dead.insert(producer);
        op->erase();
      }
    }
  }
};

} // namespace
