//===- MoveRowTransposes.cpp - Transposes of rows to the views that take them ===//
//
// graph-move-row-transposes: a transpose that keeps the last axis last only reorders the
// rows of a tensor, and row-wise ops commute with it: a product by a [K, N] matrix, a
// bias or scale that broadcasts along the last axis, any unary elementwise op. Sequence-
// first exports (nn.MultiheadAttention with batch_first=False: ViT, DETR) transpose
// [B, S, E] to [S, B, E] before the QKV projection and back after the output projection;
// in between, views lead into attention and out of it. Moved through the row-wise ops to
// those views, the transposes join them (flash attention reads and writes strided views,
// kernel formation gives it such chains), where left between a LayerNorm and a projection
// each is a copy of the activation, and the residual Add after the output projection
// reads the other layout, so it cannot join the projection's epilogue.
//
// Each row transpose moves along its chain of single-use row-wise ops: down to the users'
// side when the chain ends at a data-movement op, else up when it starts at one. A
// transpose that meets data movement at neither end stays.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/GraphTraits.h"
#include "passes/graph/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHMOVEROWTRANSPOSES
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// A transpose that keeps the last axis last.
bool isRowTranspose(graph::TransposeOp transpose) {
  ArrayRef<int64_t> perm = transpose.getPerm();
  return !perm.empty() && perm.back() == int64_t(perm.size()) - 1 &&
         !llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()));
}

/// Whether `value` broadcasts along the last axis of a `rank`-dimensional tensor only: a
/// scalar, a row vector, or leading extents all 1.
bool broadcastsAlongRows(Value value, int64_t rank) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() > rank)
    return false;
  return llvm::all_of(type.getShape().drop_back(std::min<int64_t>(1, type.getRank())),
                      [](int64_t extent) { return extent == 1; });
}

/// The operand index through which `op` is row-wise (each result row a function of the
/// same row of that operand and of operands shared by every row), or -1.
int rowWiseOperand(Operation *op) {
  if (op->getNumResults() != 1)
    return -1;
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!result || result.getRank() < 2)
    return -1;
  if (auto matmul = dyn_cast<graph::MatMulOp>(op)) {
    auto lhs = dyn_cast<RankedTensorType>(matmul.getLhs().getType());
    auto rhs = dyn_cast<RankedTensorType>(matmul.getRhs().getType());
    return lhs && rhs && rhs.getRank() == 2 && lhs.getRank() == result.getRank() ? 0 : -1;
  }
  if (!op->hasTrait<graph::OpTrait::Pointwise>())
    return -1;
  auto sameShape = [&](Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return type && type.getShape() == result.getShape();
  };
  if (op->getNumOperands() == 1)
    return sameShape(op->getOperand(0)) ? 0 : -1;
  if (op->getNumOperands() != 2)
    return -1;
  for (int index : {0, 1})
    if (sameShape(op->getOperand(index)) &&
        broadcastsAlongRows(op->getOperand(1 - index), result.getRank()))
      return index;
  return -1;
}

/// `type` with its extents permuted: extent i of the result is extent perm[i] of `type`
/// (`inverse`: extent perm[i] of the result is extent i).
RankedTensorType permuted(RankedTensorType type, ArrayRef<int64_t> perm, bool inverse) {
  SmallVector<int64_t> shape(type.getRank());
  for (auto [index, dim] : llvm::enumerate(perm)) {
    if (inverse)
      shape[dim] = type.getDimSize(index);
    else
      shape[index] = type.getDimSize(dim);
  }
  return RankedTensorType::get(shape, type.getElementType());
}

/// Rebuilds `chain` (in order, each reading the previous one's result through its
/// row-wise operand, the first reading `input`) with the result types `typeOf` gives.
Value rebuild(OpBuilder &builder, ArrayRef<Operation *> chain, Value input,
              function_ref<RankedTensorType(Operation *)> typeOf) {
  Value current = input;
  for (Operation *op : chain) {
    IRMapping mapping;
    mapping.map(op->getOperand(rowWiseOperand(op)), current);
    Operation *clone = builder.clone(*op, mapping);
    clone->getResult(0).setType(typeOf(op));
    current = clone->getResult(0);
  }
  return current;
}

bool isDataMovement(Operation *op) { return op && op->hasTrait<graph::OpTrait::DataMovement>(); }

/// Moves `transpose` down or up its row-wise chain; whether it moved.
bool moveTranspose(graph::TransposeOp transpose) {
  ArrayRef<int64_t> perm = transpose.getPerm();
  OpBuilder builder(transpose);
  // Next to data movement already: it joins that.
  Value result = transpose.getResult();
  if (isDataMovement(transpose.getInput().getDefiningOp()) ||
      (result.hasOneUse() && isDataMovement(*result.getUsers().begin())))
    return false;

  // Down: the single-use row-wise ops after it, to a data-movement user.
  SmallVector<Operation *> down;
  Value current = transpose.getResult();
  while (current.hasOneUse()) {
    Operation *user = *current.getUsers().begin();
    int through = rowWiseOperand(user);
    if (through < 0 || user->getOperand(through) != current)
      break;
    down.push_back(user);
    current = user->getResult(0);
  }
  bool toMovement = current.hasOneUse() && isDataMovement(*current.getUsers().begin());
  if (!down.empty() && toMovement) {
    builder.setInsertionPoint(down.back());
    Value moved = rebuild(builder, down, transpose.getInput(), [&](Operation *op) {
      return permuted(cast<RankedTensorType>(op->getResult(0).getType()), perm,
                      /*inverse=*/true);
    });
    Value back = graph::TransposeOp::create(builder, transpose.getLoc(), current.getType(), moved,
                                            transpose.getPermAttr());
    current.replaceAllUsesWith(back);
    for (Operation *op : llvm::reverse(down))
      op->erase();
    transpose.erase();
    return true;
  }

  // Up: the single-use row-wise ops before it, from a data-movement producer.
  SmallVector<Operation *> up;
  current = transpose.getInput();
  while (Operation *producer = current.getDefiningOp()) {
    int through = rowWiseOperand(producer);
    if (through < 0 || !current.hasOneUse())
      break;
    up.push_back(producer);
    current = producer->getOperand(through);
  }
  if (up.empty() || !isDataMovement(current.getDefiningOp()))
    return false;
  builder.setInsertionPoint(transpose);
  Value moved = graph::TransposeOp::create(
      builder, transpose.getLoc(),
      permuted(cast<RankedTensorType>(current.getType()), perm, /*inverse=*/false), current,
      transpose.getPermAttr());
  SmallVector<Operation *> chain(llvm::reverse(up));
  Value rebuilt = rebuild(builder, chain, moved, [&](Operation *op) {
    return permuted(cast<RankedTensorType>(op->getResult(0).getType()), perm,
                    /*inverse=*/false);
  });
  result.replaceAllUsesWith(rebuilt);
  transpose.erase();
  for (Operation *op : up)
    op->erase();
  return true;
}

struct GraphMoveRowTransposes : kiln::impl::GraphMoveRowTransposesBase<GraphMoveRowTransposes> {
  void runOnOperation() override {
    // Each move takes a transpose past at least one op toward an end it stops at, so a
    // few rounds settle; the bound keeps a pathological graph from looping.
    for (int round = 0; round < 8; ++round) {
      SmallVector<graph::TransposeOp> transposes;
      getOperation().walk([&](graph::TransposeOp transpose) {
        if (isRowTranspose(transpose))
          transposes.push_back(transpose);
      });
      bool changed = false;
      for (graph::TransposeOp transpose : transposes)
        changed |= moveTranspose(transpose);
      if (!changed)
        break;
    }
  }
};

} // namespace
