//===- FoldConstants.cpp - Evaluate constant sub-graphs -------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"
#include "passes/graph/ConstantEvaluator.h"
#include "passes/graph/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHFOLDCONSTANTS
#include "passes/graph/Passes.h.inc"

namespace {
ConstantEvaluator &evaluatorSlot() {
  static ConstantEvaluator evaluator;
  return evaluator;
}
} // namespace

void setConstantEvaluator(ConstantEvaluator evaluator) { evaluatorSlot() = std::move(evaluator); }
const ConstantEvaluator &getConstantEvaluator() { return evaluatorSlot(); }

} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// A static tensor type of at most `maxElements` elements, or null.
RankedTensorType smallStaticType(Type type, int64_t maxElements) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || tensor.getNumElements() > maxElements)
    return nullptr;
  return tensor;
}

/// The entries of `value` when it is a graph.shape of a ranked tensor: the extents it
/// takes, ShapedType::kDynamic where an extent is known only at run time.
std::optional<SmallVector<int64_t>> getShapeEntries(Value value) {
  auto shape = value.getDefiningOp<graph::ShapeOp>();
  auto input = shape ? dyn_cast<RankedTensorType>(shape.getInput().getType()) : nullptr;
  if (!input)
    return std::nullopt;
  int64_t rank = input.getRank();
  auto clamp = [&](int64_t bound) {
    if (bound < 0)
      bound += rank;
    return std::clamp<int64_t>(bound, 0, rank);
  };
  return llvm::to_vector(input.getShape().slice(
      clamp(shape.getStart()),
      std::max<int64_t>(0, clamp(shape.getEnd().value_or(rank)) - clamp(shape.getStart()))));
}

/// The entries a one-axis Slice takes of `entries` (ONNX's clamping, any nonzero step), or
/// nullopt when its bounds are not constants.
std::optional<SmallVector<int64_t>> sliceEntries(graph::SliceOp slice, ArrayRef<int64_t> entries) {
  std::optional<SmallVector<int64_t>> starts = graph::getConstantInts(slice.getStarts());
  std::optional<SmallVector<int64_t>> ends = graph::getConstantInts(slice.getEnds());
  std::optional<SmallVector<int64_t>> axes =
      slice.getAxes() ? graph::getConstantInts(slice.getAxes()) : SmallVector<int64_t>{0};
  std::optional<SmallVector<int64_t>> steps =
      slice.getSteps() ? graph::getConstantInts(slice.getSteps()) : SmallVector<int64_t>{1};
  if (!starts || !ends || !axes || !steps || starts->size() != 1 || ends->size() != 1 ||
      axes->size() != 1 || steps->size() != 1 || ((*axes)[0] != 0 && (*axes)[0] != -1) ||
      (*steps)[0] == 0)
    return std::nullopt;
  int64_t step = (*steps)[0];
  graph::SliceRange range =
      graph::resolveSliceRange(entries.size(), (*starts)[0], (*ends)[0], step);
  SmallVector<int64_t> taken;
  for (int64_t i = 0; i < range.count; ++i)
    taken.push_back(entries[range.start + i * step]);
  return taken;
}

/// The entries a Gather along axis 0 takes of `entries`, or nullopt when its indices are
/// not constants or out of range.
std::optional<SmallVector<int64_t>> gatherEntries(graph::GatherOp gather,
                                                  ArrayRef<int64_t> entries) {
  std::optional<SmallVector<int64_t>> indices = graph::getConstantInts(gather.getIndices());
  if (!indices || (gather.getAxis() != 0 && gather.getAxis() != -1))
    return std::nullopt;
  int64_t size = entries.size();
  SmallVector<int64_t> taken;
  for (int64_t index : *indices) {
    if (index < -size || index >= size)
      return std::nullopt;
    taken.push_back(entries[index < 0 ? index + size : index]);
  }
  return taken;
}

/// Folds Shape and Size of tensors with static shapes (their values are in the types), and
/// the Slices and Gathers of a Shape that take only static extents (Shape(x)[-1:] of a
/// [batch, ..., 64] tensor).
bool foldShapeQueries(func::FuncOp function) {
  bool changed = false;
  OpBuilder builder(function.getContext());
  auto i64 = builder.getI64Type();
  for (Operation &op : llvm::make_early_inc_range(function.getBody().front())) {
    Attribute value;
    if (isa<graph::ShapeOp>(op)) {
      // Only the extents taken need to be static (Shape(x)[1:] of a [batch, ...] tensor).
      std::optional<SmallVector<int64_t>> extents = getShapeEntries(op.getResult(0));
      if (!extents || llvm::any_of(*extents, ShapedType::isDynamic))
        continue;
      value = DenseElementsAttr::get(
          RankedTensorType::get({static_cast<int64_t>(extents->size())}, i64),
          ArrayRef<int64_t>(*extents));
    } else if (isa<graph::SliceOp, graph::GatherOp>(op)) {
      std::optional<SmallVector<int64_t>> entries = getShapeEntries(op.getOperand(0));
      auto resultType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
      if (!entries || !resultType || !resultType.hasStaticShape() ||
          !resultType.getElementType().isInteger(64))
        continue;
      std::optional<SmallVector<int64_t>> taken =
          isa<graph::SliceOp>(op) ? sliceEntries(cast<graph::SliceOp>(op), *entries)
                                  : gatherEntries(cast<graph::GatherOp>(op), *entries);
      if (!taken || int64_t(taken->size()) != resultType.getNumElements() ||
          llvm::any_of(*taken, ShapedType::isDynamic))
        continue;
      value = DenseElementsAttr::get(resultType, ArrayRef<int64_t>(*taken));
    } else if (auto size = dyn_cast<graph::SizeOp>(op)) {
      auto input = dyn_cast<RankedTensorType>(size.getInput().getType());
      if (!input || !input.hasStaticShape())
        continue;
      value = DenseElementsAttr::get(RankedTensorType::get({}, i64), input.getNumElements());
    } else {
      continue;
    }
    builder.setInsertionPoint(&op);
    auto constant = graph::ConstantOp::create(builder, op.getLoc(), cast<ElementsAttr>(value));
    Value result = op.getResult(0);
    // The folded type may be more refined than the op's declared one; users were checked
    // against the declared one, so keep that where they differ.
    if (constant.getType() != result.getType() && !isa<RankedTensorType>(result.getType()))
      continue;
    result.replaceAllUsesWith(constant.getResult());
    op.erase();
    changed = true;
  }
  return changed;
}

/// Whether `op` can be evaluated at compile time once its operands are known: a pure
/// graph op without regions whose results are small and static.
bool isFoldable(Operation &op, int64_t maxElements) {
  if (!isa_and_nonnull<graph::GraphDialect>(op.getDialect()) || isa<graph::ConstantOp>(op) ||
      op.getNumRegions() != 0 || !isPure(&op) || op.getNumResults() == 0)
    return false;
  return llvm::all_of(op.getResultTypes(),
                      [&](Type type) { return smallStaticType(type, maxElements) != nullptr; });
}

struct GraphFoldConstantsPass : kiln::impl::GraphFoldConstantsBase<GraphFoldConstantsPass> {
  using GraphFoldConstantsBase::GraphFoldConstantsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpPassManager inferShapes(ModuleOp::getOperationName());
    inferShapes.addNestedPass<func::FuncOp>(kiln::createGraphInferShapes());
    for (unsigned round = 0; round < maxIterations; ++round) {
      if (failed(runPipeline(inferShapes, module)))
        return signalPassFailure();
      bool changed = false;
      for (auto function : module.getOps<func::FuncOp>()) {
        if (function.isExternal())
          continue;
        changed |= foldShapeQueries(function);
        FailureOr<bool> evaluated = evaluateConstantSubgraph(function);
        if (failed(evaluated))
          return signalPassFailure();
        changed |= *evaluated;
      }
      if (!changed)
        return;
    }
  }

  /// Evaluates the ops of `function`'s body that depend only on constants and replaces
  /// the values the rest of the graph uses by constants. Returns whether it folded any.
  FailureOr<bool> evaluateConstantSubgraph(func::FuncOp function) {
    const kiln::ConstantEvaluator &evaluator = kiln::getConstantEvaluator();
    if (!evaluator)
      return false;
    Block &body = function.getBody().front();
    llvm::SetVector<Operation *> foldable;
    llvm::DenseSet<Value> known;
    for (Operation &op : body) {
      if (isa<graph::ConstantOp>(op)) {
        known.insert(op.getResult(0));
        continue;
      }
      if (!isFoldable(op, maxElements) ||
          !llvm::all_of(op.getOperands(), [&](Value operand) { return known.contains(operand); }))
        continue;
      foldable.insert(&op);
      for (Value result : op.getResults())
        known.insert(result);
    }
    // The values to compute: results of foldable ops used by anything not foldable.
    SmallVector<Value> frontier;
    for (Operation *op : foldable)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(),
                         [&](Operation *user) { return !foldable.contains(user); }))
          frontier.push_back(result);
    if (frontier.empty())
      return false;

    // A module with one function that computes the frontier from the constants.
    MLIRContext *context = function.getContext();
    OpBuilder builder(context);
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(function.getLoc());
    builder.setInsertionPointToEnd(scratch->getBody());
    SmallVector<Type> resultTypes;
    for (Value value : frontier)
      resultTypes.push_back(value.getType());
    auto evaluate = func::FuncOp::create(builder, function.getLoc(), "evaluate",
                                         builder.getFunctionType({}, resultTypes));
    builder.setInsertionPointToEnd(evaluate.addEntryBlock());
    IRMapping mapping;
    for (Operation &op : body)
      if (isa<graph::ConstantOp>(op) &&
          llvm::any_of(op.getUsers(), [&](Operation *user) { return foldable.contains(user); }))
        builder.clone(op, mapping);
    for (Operation *op : foldable)
      builder.clone(*op, mapping);
    SmallVector<Value> results;
    for (Value value : frontier)
      results.push_back(mapping.lookup(value));
    func::ReturnOp::create(builder, function.getLoc(), results);

    FailureOr<SmallVector<ElementsAttr>> values = evaluator(scratch.release(), "evaluate");
    if (failed(values)) {
      // Not foldable after all (an op without a CPU lowering, say): leave it to the
      // target, which reports what it cannot compile.
      return false;
    }
    for (auto [value, attribute] : llvm::zip_equal(frontier, *values)) {
      builder.setInsertionPointAfterValue(value);
      auto constant = graph::ConstantOp::create(builder, value.getLoc(), attribute);
      value.replaceAllUsesWith(constant.getResult());
    }
    // The evaluated ops are dead now (in reverse order, users first).
    for (Operation *op : llvm::reverse(foldable))
      if (op->use_empty())
        op->erase();
    for (Operation &op : llvm::make_early_inc_range(body))
      if (isa<graph::ConstantOp>(op) && op.use_empty())
        op.erase();
    return true;
  }
};

} // namespace
