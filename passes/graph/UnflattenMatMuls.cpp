//===- UnflattenMatMuls.cpp - Matmuls on the unflattened input ------------===//
//
// Exporters write a linear layer on a [B.., M, K] activation as Reshape to [B*..*M, K],
// a 2-D Gemm or MatMul, and Reshape back to [B.., M, N]. The reshape behind the anchor
// keeps the ops after it (the residual Add) out of the matmul kernel's epilogue, which
// only takes ops of the anchor's shape. Here the chain becomes one graph.matmul of the
// [B.., M, K] input by the [K, N] weight (a matmul broadcasts a 2-D right operand over the
// leading dimensions), whose result has the shape its users read.
//
// Matched: graph.reshape to a [D.., N] (rank >= 3) of a 2-D [M, K] x [K, N] product,
// M = D0 * ... , optionally through one graph.add of a row bias ([N], [1, N], a
// scalar); the product and the Add used by nothing else. The product is a graph.matmul or
// a graph.gemm without trans_a, with alpha 1 and, when it has C, beta 1 and a row-bias C
// (which becomes an Add); a trans_b Gemm needs a constant B, transposed here. The left
// operand is the input of the first Reshape when that has type [D.., K], else a new
// Reshape to [D.., K] of the 2-D operand (which the kernel takes as a prologue).
//
// With dynamic extents (a dynamic engine's [batch, sequence, K] activations), K and N are
// static and the symbolic analysis (SymbolicShapes.h) proves M = D0 * ... and that the
// first Reshape's input is [D.., K], or [D.., E..] with static E.. whose product is K (an
// attention's [batch, sequence, heads, head size] before its output projection): then
// the new Reshape keeps D.. as they are (target [0, .., 0, K], allowzero false).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/ConstantBytes.h"
#include "passes/graph/Passes.h"
#include "passes/graph/SymbolicShapes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHUNFLATTENMATMULS
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// Whether `bias` broadcasts against a 2-D [M, N] result along its rows only (a scalar,
/// [1], [N], [1, N]), so that it broadcasts the same way against [D.., N].
bool isRowBias(Value bias, RankedTensorType result) {
  auto type = dyn_cast<RankedTensorType>(bias.getType());
  if (!type || !type.hasStaticShape() || type.getRank() > 2)
    return false;
  if (type.getRank() == 2 && type.getDimSize(0) != 1)
    return false;
  return type.getRank() == 0 || type.getShape().back() == 1 ||
         type.getShape().back() == result.getShape().back();
}

bool isReshapeLike(Operation *op) {
  return isa_and_nonnull<graph::ReshapeOp, graph::FlattenOp, graph::SqueezeOp, graph::UnsqueezeOp>(
      op);
}

/// A graph.constant of i64 `values` (a reshape target).
Value createShape(OpBuilder &builder, Location loc, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({int64_t(values.size())}, builder.getI64Type());
  return graph::ConstantOp::create(builder, loc,
                                   cast<ElementsAttr>(DenseElementsAttr::get(type, values)));
}

/// The symbolic extents of `value`'s dimensions `dims` multiplied, if the analysis
/// knows them.
std::optional<graph::DimExpr> extentProduct(const graph::SymbolicShapeAnalysis &shapes, Value value,
                                            int64_t begin, int64_t end) {
  const graph::SymbolicShape *shape = shapes.lookup(value);
  if (!shape || !shape->ranked || end > int64_t(shape->dims.size()))
    return std::nullopt;
  graph::DimExpr product = graph::DimExpr::constant(1);
  for (int64_t dim = begin; dim < end; ++dim)
    product = product * shape->dims[dim];
  return product;
}

/// Whether `a` and `b` have equal extents: equal static types, or the analysis proves
/// every extent equal.
bool sameExtents(const graph::SymbolicShapeAnalysis &shapes, Value a, Value b) {
  auto aType = cast<RankedTensorType>(a.getType()), bType = cast<RankedTensorType>(b.getType());
  if (aType.getShape() != bType.getShape())
    return false;
  if (aType.hasStaticShape())
    return true;
  const graph::SymbolicShape *aShape = shapes.lookup(a), *bShape = shapes.lookup(b);
  return aShape && bShape && aShape->ranked && bShape->ranked && aShape->dims == bShape->dims;
}

/// Whether `type` is ranked with a static last dimension (the others may be dynamic).
bool staticInner(RankedTensorType type) {
  return type && type.getRank() >= 1 && !type.isDynamicDim(type.getRank() - 1);
}

/// Rewrites the chain ending in `reshape`; false when it does not match.
bool unflatten(graph::ReshapeOp reshape, OpBuilder &builder,
               const graph::SymbolicShapeAnalysis &shapes) {
  auto resultType = dyn_cast<RankedTensorType>(reshape.getType());
  if (!staticInner(resultType) || resultType.getRank() < 3)
    return false;
  Value source = reshape.getInput();
  Operation *producer = source.getDefiningOp();
  if (!producer || !source.hasOneUse())
    return false;
  auto productType = dyn_cast<RankedTensorType>(source.getType());
  if (!staticInner(productType) || productType.getRank() != 2)
    return false;
  bool dynamic = !resultType.hasStaticShape() || !productType.hasStaticShape();

  // An Add of a row bias between the product and the reshape.
  graph::AddOp biasAdd = dyn_cast<graph::AddOp>(producer);
  Value addBias;
  if (biasAdd) {
    if (biasAdd.getType() != productType)
      return false;
    for (auto [operand, other] : {std::pair(biasAdd.getLhs(), biasAdd.getRhs()),
                                  std::pair(biasAdd.getRhs(), biasAdd.getLhs())}) {
      Operation *definition = operand.getDefiningOp();
      if (isa_and_nonnull<graph::MatMulOp, graph::GemmOp>(definition) && operand.hasOneUse() &&
          operand != other && isRowBias(other, productType)) {
        producer = definition;
        addBias = other;
        break;
      }
    }
    if (!addBias)
      return false;
  }

  Value lhs, weight, gemmBias;
  bool transposed = false;
  if (auto matmul = dyn_cast<graph::MatMulOp>(producer)) {
    lhs = matmul.getLhs();
    weight = matmul.getRhs();
  } else if (auto gemm = dyn_cast<graph::GemmOp>(producer)) {
    if (gemm.getTransA() || gemm.getAlpha().convertToDouble() != 1.0)
      return false;
    lhs = gemm.getA();
    weight = gemm.getB();
    transposed = gemm.getTransB();
    gemmBias = gemm.getC();
    if (gemmBias && (gemm.getBeta().convertToDouble() != 1.0 || !isRowBias(gemmBias, productType)))
      return false;
  } else {
    return false;
  }
  if (producer->getResult(0).getType() != productType)
    return false;
  auto lhsType = dyn_cast<RankedTensorType>(lhs.getType());
  auto weightType = dyn_cast<RankedTensorType>(weight.getType());
  if (!staticInner(lhsType) || !weightType || !weightType.hasStaticShape() ||
      lhsType.getRank() != 2 || weightType.getRank() != 2)
    return false;
  int64_t m = productType.getDimSize(0), n = productType.getDimSize(1);
  int64_t k = lhsType.getDimSize(1);
  ArrayRef<int64_t> outer = resultType.getShape().drop_back();
  if (resultType.getShape().back() != n || lhsType.getDimSize(0) != m ||
      weightType.getDimSize(transposed ? 1 : 0) != k ||
      weightType.getDimSize(transposed ? 0 : 1) != n)
    return false;
  if (dynamic) {
    // M (the product's rows, the left operand's) is the product of D.. symbolically.
    std::optional<graph::DimExpr> rows = extentProduct(shapes, source, 0, 1);
    std::optional<graph::DimExpr> lhsRows = extentProduct(shapes, lhs, 0, 1);
    std::optional<graph::DimExpr> outerProduct =
        extentProduct(shapes, reshape.getResult(), 0, resultType.getRank() - 1);
    if (!rows || !lhsRows || !outerProduct || *rows != *outerProduct || *lhsRows != *rows)
      return false;
  } else if (ShapedType::getNumElements(outer) != m) {
    return false;
  }
  std::optional<std::vector<char>> transposedWeight;
  if (transposed) {
    std::optional<std::vector<char>> data = graph::readConstantBytes(weight);
    if (!data)
      return false;
    transposedWeight =
        graph::transposeBytes(*data, n, k, graph::getElementBytes(weightType.getElementType()));
  }

  builder.setInsertionPoint(reshape);
  // The left operand as [D.., K]: the first Reshape's input when it has that shape.
  SmallVector<int64_t> inputShape(outer);
  inputShape.push_back(k);
  auto inputType = RankedTensorType::get(inputShape, lhsType.getElementType());
  Value input;
  Operation *flatten = lhs.getDefiningOp();
  bool flattened = isReshapeLike(flatten) && flatten->getOperand(0).getType() == inputType;
  // The new Reshape's target: constant, or computed from the first Reshape's input.
  Value target;
  if (dynamic) {
    // The first Reshape's input must be [D.., E..] extent for extent: the result's leading
    // extents, then static ones whose product is K.
    Value unflattened = isReshapeLike(flatten) ? flatten->getOperand(0) : Value();
    const graph::SymbolicShape *in = unflattened ? shapes.lookup(unflattened) : nullptr;
    const graph::SymbolicShape *out = shapes.lookup(reshape.getResult());
    size_t leading = outer.size();
    if (!in || !out || !in->ranked || !out->ranked || in->dims.size() <= leading ||
        ArrayRef(in->dims).take_front(leading) != ArrayRef(out->dims).drop_back())
      return false;
    int64_t inner = 1;
    for (const graph::DimExpr &extent : ArrayRef(in->dims).drop_front(leading)) {
      std::optional<int64_t> constant = extent.getConstant();
      if (!constant)
        return false;
      inner *= *constant;
    }
    if (inner != k)
      return false;
    if (!flattened) {
      // A 0 copies the input's extent there (allowzero false): D.. as they are.
      SmallVector<int64_t> copied(leading, 0);
      copied.push_back(k);
      target = createShape(builder, lhs.getLoc(), copied);
      lhs = unflattened;
    }
  }
  if (flattened) {
    input = flatten->getOperand(0);
  } else {
    if (!target)
      target = createShape(builder, lhs.getLoc(), inputShape);
    input = graph::ReshapeOp::create(
                builder, lhs.getLoc(), TypeRange{inputType}, ValueRange{lhs, target},
                {builder.getNamedAttr("allowzero", builder.getBoolAttr(false))})
                .getResult();
  }
  Location loc = producer->getLoc();
  if (transposed) {
    auto type = RankedTensorType::get({k, n}, weightType.getElementType());
    StringRef name = graph::getResourceName(weight);
    weight = graph::createConstantFromBytes(builder, weight.getLoc(), type, *transposedWeight,
                                            name.empty() ? "transposed_weight"
                                                         : (name + "_transposed").str());
  }
  Value result =
      graph::MatMulOp::create(builder, loc, TypeRange{resultType}, ValueRange{input, weight})
          .getResult();
  if (gemmBias)
    result = graph::AddOp::create(builder, loc, TypeRange{resultType}, ValueRange{result, gemmBias})
                 .getResult();
  if (addBias)
    result = graph::AddOp::create(builder, biasAdd.getLoc(), TypeRange{resultType},
                                  ValueRange{result, addBias})
                 .getResult();
  reshape.getResult().replaceAllUsesWith(result);
  return true;
}

struct GraphUnflattenMatMulsPass
    : kiln::impl::GraphUnflattenMatMulsBase<GraphUnflattenMatMulsPass> {
  using GraphUnflattenMatMulsBase::GraphUnflattenMatMulsBase;

  void runOnOperation() override {
    SmallVector<graph::ReshapeOp> reshapes;
    getOperation().walk([&](graph::ReshapeOp reshape) { reshapes.push_back(reshape); });
    OpBuilder builder(&getContext());
    // Computed once, on the function as it comes: the chains rewritten are read only
    // through values that were there.
    graph::SymbolicShapeAnalysis shapes(getOperation());
    SmallVector<Operation *> dead;
    for (graph::ReshapeOp reshape : reshapes)
      if (unflatten(reshape, builder, shapes))
        dead.push_back(reshape);
    // The old chains (reshape, Add, product, flattening Reshape, transposed weight) and
    // whatever else only they read.
    while (!dead.empty()) {
      Operation *op = dead.pop_back_val();
      if (!op->use_empty())
        continue;
      SmallVector<Operation *> definitions;
      for (Value operand : op->getOperands())
        if (Operation *definition = operand.getDefiningOp())
          definitions.push_back(definition);
      op->erase();
      for (Operation *definition : definitions)
        if (definition->use_empty() && isPure(definition) && !llvm::is_contained(dead, definition))
          dead.push_back(definition);
    }
  }
};

} // namespace
