//===- FuseSiblingMatMuls.cpp - One matmul for sibling matmuls on one input ===//
//
// Horizontal fusion: matmuls that read the same input with constant weights (attention's
// Q, K and V projections) become one matmul by the weights concatenated along N, followed
// by one Slice per original result. One launch reads the input once instead of once per
// sibling, and each Slice can become a prologue of the kernel that consumes it.
//
// A sibling is a graph.matmul, or a graph.gemm without trans_a and with alpha 1, whose
// right operand is a constant [K, N_i] weight ([N_i, K] for a Gemm with trans_b,
// transposed here), with a static K and N (the leading extents may be dynamic) and one
// user. When that user is an Add of a constant bias that broadcasts along the last axis
// only ([N_i], [1, N_i], a scalar), the Add is fused too; a Gemm's C of that form (with
// beta 1) is its bias. The fused matmul's bias is the concatenation, with zeros for
// siblings that have none; there is no Add when none has one. Each sibling's columns start
// at a multiple of the pass's column-alignment (zero columns pad the ones before): the
// kernels that read a slice in place (flash attention's Q, K and V) need 16-byte rows.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/ConstantBytes.h"
#include "passes/graph/Passes.h"
#include "passes/graph/RowBias.h"

#include "llvm/ADT/MapVector.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHFUSESIBLINGMATMULS
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// At most this many weight elements in one fused matmul: the concatenated weight is a
/// new constant, built in memory at compile time.
constexpr int64_t kMaxFusedWeightElements = int64_t(64) << 20;

/// One matmul of a sibling set, with the bias Add it absorbs.
struct Sibling {
  Operation *product; // graph.matmul or graph.gemm
  Value weight;       // constant, [K, N] or, transposed, [N, K]
  bool transposed = false;
  Value bias;                   // constant, broadcasting along the last axis only; or null
  Operation *biasAdd = nullptr; // the graph.add of `bias`, when it is not the Gemm's C
  int64_t n = 0;
  /// The op whose result the sibling's slice replaces.
  Operation *last() const { return biasAdd ? biasAdd : product; }
};

/// `op` as a sibling candidate, or nullopt. The input is its first operand.
std::optional<Sibling> matchSibling(Operation *op) {
  Sibling sibling;
  sibling.product = op;
  Value lhs;
  if (auto matmul = dyn_cast<graph::MatMulOp>(op)) {
    lhs = matmul.getLhs();
    sibling.weight = matmul.getRhs();
  } else if (auto gemm = dyn_cast<graph::GemmOp>(op)) {
    if (gemm.getTransA() || gemm.getAlpha().convertToDouble() != 1.0)
      return std::nullopt;
    lhs = gemm.getA();
    sibling.weight = gemm.getB();
    sibling.transposed = gemm.getTransB();
    if (Value c = gemm.getC()) {
      if (gemm.getBeta().convertToDouble() != 1.0 || !c.getDefiningOp<graph::ConstantOp>())
        return std::nullopt;
      sibling.bias = c;
    }
  } else {
    return std::nullopt;
  }
  auto lhsType = dyn_cast<RankedTensorType>(lhs.getType());
  auto weightType = dyn_cast<RankedTensorType>(sibling.weight.getType());
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  // Leading extents may be dynamic (a dynamic engine's batch and sequence): with a 2-D
  // weight the result's leading extents are the input's, whatever they are at run time.
  if (!lhsType || !weightType || !resultType || lhsType.getRank() < 2 ||
      lhsType.isDynamicDim(lhsType.getRank() - 1) || !weightType.hasStaticShape() ||
      resultType.getRank() != lhsType.getRank() ||
      resultType.isDynamicDim(resultType.getRank() - 1) || weightType.getRank() != 2 ||
      !sibling.weight.getDefiningOp<graph::ConstantOp>() ||
      weightType.getElementType() != lhsType.getElementType() ||
      resultType.getElementType() != lhsType.getElementType() ||
      graph::getElementBytes(lhsType.getElementType()) == 0)
    return std::nullopt;
  int64_t k = lhsType.getShape().back();
  sibling.n = weightType.getDimSize(sibling.transposed ? 0 : 1);
  if (weightType.getDimSize(sibling.transposed ? 1 : 0) != k ||
      resultType.getShape().back() != sibling.n ||
      resultType.getShape().drop_back() != lhsType.getShape().drop_back())
    return std::nullopt;
  if (sibling.bias && !graph::isRowBias(sibling.bias, resultType))
    return std::nullopt;
  // One user: the bias Add, or whatever reads the product (its slice replaces it). A
  // product read by a bias Add and by other ops is left alone: the fused kernel would
  // have to write both.
  Value result = op->getResult(0);
  if (!result.hasOneUse())
    return std::nullopt;
  auto add = dyn_cast<graph::AddOp>(*result.getUsers().begin());
  if (!add || sibling.bias || add.getType() != resultType)
    return sibling;
  Value bias = add.getLhs() == result ? add.getRhs() : add.getLhs();
  if (bias == result || !bias.getDefiningOp<graph::ConstantOp>() ||
      !graph::isRowBias(bias, resultType))
    return sibling;
  sibling.bias = bias;
  sibling.biasAdd = add;
  return sibling;
}

/// Replaces `siblings` (all reading `lhs`) by one matmul, its bias Add and a Slice per
/// sibling, each sibling's columns starting at a multiple of `alignment`. Fails, changing nothing,
/// when a constant cannot be read.
LogicalResult fuse(Value lhs, ArrayRef<Sibling> siblings, int64_t alignment, OpBuilder &builder) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  Type elementType = lhsType.getElementType();
  unsigned bytes = graph::getElementBytes(elementType);
  int64_t k = lhsType.getShape().back();
  // Each sibling's columns in the fused weight: its own, then zeros up to the next
  // aligned start (none after the last).
  SmallVector<int64_t> widths;
  for (auto [index, sibling] : llvm::enumerate(siblings))
    widths.push_back(index + 1 == siblings.size() ? sibling.n
                                                  : llvm::alignTo(sibling.n, alignment));
  int64_t total = 0;
  for (int64_t width : widths)
    total += width;

  // The weights as [K, N_i] rows, concatenated row by row into [K, N].
  SmallVector<std::vector<char>> weights;
  for (const Sibling &sibling : siblings) {
    std::optional<std::vector<char>> data = graph::readConstantBytes(sibling.weight);
    if (!data)
      return failure();
    weights.push_back(sibling.transposed ? graph::transposeBytes(*data, sibling.n, k, bytes)
                                         : std::move(*data));
  }
  std::vector<char> weight;
  weight.reserve(size_t(k * total) * bytes);
  for (int64_t row = 0; row < k; ++row)
    for (auto [sibling, data, width] : llvm::zip_equal(siblings, weights, widths)) {
      weight.insert(weight.end(), data.begin() + row * sibling.n * bytes,
                    data.begin() + (row + 1) * sibling.n * bytes);
      weight.insert(weight.end(), size_t(width - sibling.n) * bytes, 0);
    }

  // The biases, each broadcast to [N_i]; zeros (all-zero bytes, for floats and integers)
  // where a sibling has none.
  bool anyBias = llvm::any_of(siblings, [](const Sibling &s) { return bool(s.bias); });
  std::vector<char> bias;
  if (anyBias) {
    for (auto [sibling, width] : llvm::zip_equal(siblings, widths)) {
      if (!sibling.bias) {
        bias.insert(bias.end(), size_t(width) * bytes, 0);
        continue;
      }
      std::optional<std::vector<char>> data = graph::readConstantBytes(sibling.bias);
      if (!data)
        return failure();
      if (data->size() == bytes) {
        for (int64_t i = 0; i < sibling.n; ++i)
          bias.insert(bias.end(), data->begin(), data->end());
      } else {
        bias.insert(bias.end(), data->begin(), data->end());
      }
      bias.insert(bias.end(), size_t(width - sibling.n) * bytes, 0);
    }
  }

  // Everything goes where the first sibling is: the input is defined before all of them.
  Operation *first = siblings.front().product;
  for (const Sibling &sibling : siblings)
    if (sibling.product->isBeforeInBlock(first))
      first = sibling.product;
  builder.setInsertionPoint(first);
  SmallVector<Location> productLocs, addLocs;
  for (const Sibling &sibling : siblings) {
    productLocs.push_back(sibling.product->getLoc());
    if (sibling.biasAdd)
      addLocs.push_back(sibling.biasAdd->getLoc());
  }
  Location productLoc = builder.getFusedLoc(productLocs);
  StringRef name = graph::getResourceName(siblings.front().weight);
  std::string weightName = name.empty() ? "sibling_weights" : (name + "_siblings").str();
  Value fusedWeight = graph::createConstantFromBytes(
      builder, productLoc, RankedTensorType::get({k, total}, elementType), weight, weightName);
  SmallVector<int64_t> resultShape(lhsType.getShape().drop_back());
  resultShape.push_back(total);
  auto resultType = RankedTensorType::get(resultShape, elementType);
  Value fused = graph::MatMulOp::create(builder, productLoc, TypeRange{resultType},
                                        ValueRange{lhs, fusedWeight})
                    .getResult();
  if (anyBias) {
    Location addLoc = addLocs.empty() ? productLoc : builder.getFusedLoc(addLocs);
    Value fusedBias = graph::createConstantFromBytes(
        builder, addLoc, RankedTensorType::get({total}, elementType), bias, weightName + "_bias");
    fused =
        graph::AddOp::create(builder, addLoc, TypeRange{resultType}, ValueRange{fused, fusedBias})
            .getResult();
  }

  auto indexType = RankedTensorType::get({1}, builder.getI64Type());
  auto makeIndex = [&](Location loc, int64_t value) -> Value {
    return graph::ConstantOp::create(
        builder, loc, cast<ElementsAttr>(DenseElementsAttr::get(indexType, ArrayRef(value))));
  };
  int64_t offset = 0;
  Value lastAxis = makeIndex(productLoc, lhsType.getRank() - 1);
  for (auto [sibling, width] : llvm::zip_equal(siblings, widths)) {
    Operation *last = sibling.last();
    Location loc = last->getLoc();
    Value start = makeIndex(loc, offset);
    Value end = makeIndex(loc, offset + sibling.n);
    Value slice = graph::SliceOp::create(builder, loc, last->getResult(0).getType(), fused, start,
                                         end, lastAxis, /*steps=*/Value())
                      .getResult();
    offset += width;
    last->getResult(0).replaceAllUsesWith(slice);
  }

  // The originals and the constants only they used.
  for (const Sibling &sibling : siblings) {
    SmallVector<Value> constants{sibling.weight};
    if (sibling.bias)
      constants.push_back(sibling.bias);
    if (sibling.biasAdd)
      sibling.biasAdd->erase();
    sibling.product->erase();
    for (Value constant : constants)
      if (Operation *definition = constant.getDefiningOp(); definition && definition->use_empty())
        definition->erase();
  }
  return success();
}

struct GraphFuseSiblingMatMulsPass
    : kiln::impl::GraphFuseSiblingMatMulsBase<GraphFuseSiblingMatMulsPass> {
  using GraphFuseSiblingMatMulsBase::GraphFuseSiblingMatMulsBase;

  void runOnOperation() override {
    // Candidates by input, block and element type, in program order.
    using Key = std::tuple<Value, Block *, Type>;
    llvm::MapVector<Key, SmallVector<Sibling>> sets;
    getOperation().walk([&](Operation *op) {
      if (!isa<graph::MatMulOp, graph::GemmOp>(op))
        return;
      std::optional<Sibling> sibling = matchSibling(op);
      if (!sibling)
        return;
      Value lhs = op->getOperand(0);
      Type elementType = cast<RankedTensorType>(lhs.getType()).getElementType();
      sets[Key{lhs, op->getBlock(), elementType}].push_back(*sibling);
    });
    OpBuilder builder(&getContext());
    for (auto &[key, candidates] : sets) {
      // Siblings in program order while the weights stay under the cap.
      SmallVector<Sibling> siblings;
      int64_t k = cast<RankedTensorType>(std::get<0>(key).getType()).getShape().back();
      int64_t elements = 0;
      for (const Sibling &sibling : candidates) {
        if (elements + k * sibling.n > kMaxFusedWeightElements)
          continue;
        elements += k * sibling.n;
        siblings.push_back(sibling);
      }
      if (siblings.size() < 2)
        continue;
      (void)fuse(std::get<0>(key), siblings, std::max<int64_t>(1, columnAlignment), builder);
    }
  }
};

} // namespace
