//===- EinsumToProducts.cpp - Two-operand Einsums that are matrix products ===//
//
// graph-einsum-to-products: an Einsum of two operands whose every letter is a batch
// letter (in both operands and the result), a row letter (the first operand and the
// result), a column letter (the second operand and the result) or a contracted one (both
// operands, not the result) is a batched matrix product: each operand transposed to
// [batch.., rows.., contracted..] and [batch.., contracted.., columns..], the row,
// column and contracted letters each merged into one axis by a reshape where there are
// several, a graph.matmul (which broadcasts nothing here: the batch extents agree), and
// the result reshaped and transposed back to the equation's order. The GEMM templates and
// the attention recognizer then see the product (`bhqd,bhkd->bhqk` is Q K^T); the
// generic Einsum lowering is a loop nest. Equations with an ellipsis, a letter twice in
// one operand (a diagonal) or summed within one operand stay Einsums, as do operands of
// dynamic shape.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHEINSUMTOPRODUCTS
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// The letters of each operand and of the result, when the equation has two operands,
/// an explicit result, no ellipsis and no letter twice in one term.
std::optional<std::array<std::string, 3>> parseEquation(StringRef equation) {
  std::string text;
  for (char c : equation)
    if (c != ' ')
      text.push_back(c);
  StringRef rest(text);
  if (rest.contains("..."))
    return std::nullopt;
  auto [inputs, output] = rest.split("->");
  if (output.size() == rest.size() || inputs.count(',') != 1)
    return std::nullopt;
  auto [a, b] = inputs.split(',');
  std::array<std::string, 3> terms = {a.str(), b.str(), output.str()};
  for (const std::string &term : terms) {
    if (!llvm::all_of(term, [](char c) { return llvm::isAlpha(c); }))
      return std::nullopt;
    for (size_t i = 0; i < term.size(); ++i)
      if (term.find(term[i], i + 1) != std::string::npos)
        return std::nullopt;
  }
  return terms;
}

Value shapeConstant(OpBuilder &builder, Location loc, ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get({int64_t(shape.size())}, builder.getI64Type());
  return graph::ConstantOp::create(builder, loc,
                                   cast<ElementsAttr>(DenseElementsAttr::get(type, shape)));
}

/// `value` transposed by `perm` (none when it is the identity) and reshaped to `shape`
/// (none when the shape is the transposed one).
Value arrange(OpBuilder &builder, Location loc, Value value, ArrayRef<int64_t> perm,
              ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()))) {
    SmallVector<int64_t> permuted;
    for (int64_t dim : perm)
      permuted.push_back(type.getDimSize(dim));
    type = RankedTensorType::get(permuted, type.getElementType());
    value =
        graph::TransposeOp::create(builder, loc, type, value, builder.getDenseI64ArrayAttr(perm));
  }
  if (type.getShape() == shape)
    return value;
  return graph::ReshapeOp::create(builder, loc, RankedTensorType::get(shape, type.getElementType()),
                                  value, shapeConstant(builder, loc, shape),
                                  builder.getBoolAttr(false));
}

bool rewriteEinsum(graph::EinsumOp einsum) {
  if (einsum.getInputs().size() != 2)
    return false;
  std::optional<std::array<std::string, 3>> terms = parseEquation(einsum.getEquation());
  auto aType = dyn_cast<RankedTensorType>(einsum.getInputs()[0].getType());
  auto bType = dyn_cast<RankedTensorType>(einsum.getInputs()[1].getType());
  auto resultType = dyn_cast<RankedTensorType>(einsum.getType());
  if (!terms || !aType || !bType || !resultType || !aType.hasStaticShape() ||
      !bType.hasStaticShape() || !resultType.hasStaticShape() ||
      aType.getElementType() != bType.getElementType() ||
      aType.getElementType() != resultType.getElementType())
    return false;
  const auto &[a, b, out] = *terms;
  if (int64_t(a.size()) != aType.getRank() || int64_t(b.size()) != bType.getRank() ||
      int64_t(out.size()) != resultType.getRank())
    return false;
  // Each letter's role and extent.
  std::string batch, rows, columns, contracted;
  llvm::StringMap<int64_t> extents;
  for (auto [term, type] : {std::pair(a, aType), std::pair(b, bType)})
    for (auto [index, letter] : llvm::enumerate(term)) {
      auto [it, inserted] = extents.try_emplace(StringRef(&letter, 1), type.getDimSize(index));
      if (!inserted && it->second != type.getDimSize(index))
        return false; // a broadcast extent: not a plain product
    }
  for (char letter : out) {
    bool inA = a.find(letter) != std::string::npos, inB = b.find(letter) != std::string::npos;
    if (inA && inB)
      batch.push_back(letter);
    else if (inA)
      rows.push_back(letter);
    else if (inB)
      columns.push_back(letter);
    else
      return false;
  }
  for (char letter : a) {
    bool inB = b.find(letter) != std::string::npos, inOut = out.find(letter) != std::string::npos;
    if (inB && !inOut)
      contracted.push_back(letter);
    else if (!inB && !inOut)
      return false; // summed within A alone
  }
  for (char letter : b)
    if (a.find(letter) == std::string::npos && out.find(letter) == std::string::npos)
      return false; // summed within B alone
  auto extentOf = [&](char letter) { return extents.lookup(StringRef(&letter, 1)); };
  auto product = [&](StringRef letters) {
    int64_t value = 1;
    for (char letter : letters)
      value *= extentOf(letter);
    return value;
  };
  auto positions = [](StringRef term, StringRef letters) {
    SmallVector<int64_t> perm;
    for (char letter : letters)
      perm.push_back(term.find(letter));
    return perm;
  };
  SmallVector<int64_t> batchShape;
  for (char letter : batch)
    batchShape.push_back(extentOf(letter));
  auto with = [&](std::initializer_list<int64_t> trailing) {
    SmallVector<int64_t> shape(batchShape);
    shape.append(trailing);
    return shape;
  };

  OpBuilder builder(einsum);
  Location loc = einsum.getLoc();
  Type element = resultType.getElementType();
  std::string aOrder = batch + rows + contracted, bOrder = batch + contracted + columns;
  Value lhs = arrange(builder, loc, einsum.getInputs()[0], positions(a, aOrder),
                      with({product(rows), product(contracted)}));
  Value rhs = arrange(builder, loc, einsum.getInputs()[1], positions(b, bOrder),
                      with({product(contracted), product(columns)}));
  auto productType = RankedTensorType::get(with({product(rows), product(columns)}), element);
  Value result = graph::MatMulOp::create(builder, loc, TypeRange{productType}, ValueRange{lhs, rhs})
                     .getResult();
  // [batch.., rows.., columns..], then the equation's order.
  std::string order = batch + rows + columns;
  SmallVector<int64_t> unmerged;
  for (char letter : order)
    unmerged.push_back(extentOf(letter));
  if (productType.getShape() != ArrayRef<int64_t>(unmerged))
    result =
        graph::ReshapeOp::create(builder, loc, RankedTensorType::get(unmerged, element), result,
                                 shapeConstant(builder, loc, unmerged), builder.getBoolAttr(false));
  SmallVector<int64_t> perm = positions(order, out);
  if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    result = graph::TransposeOp::create(builder, loc, resultType, result,
                                        builder.getDenseI64ArrayAttr(perm));
  einsum.getResult().replaceAllUsesWith(result);
  einsum->erase();
  return true;
}

struct GraphEinsumToProducts : kiln::impl::GraphEinsumToProductsBase<GraphEinsumToProducts> {
  void runOnOperation() override {
    SmallVector<graph::EinsumOp> einsums;
    getOperation().walk([&](graph::EinsumOp einsum) { einsums.push_back(einsum); });
    for (graph::EinsumOp einsum : einsums)
      rewriteEinsum(einsum);
  }
};

} // namespace
