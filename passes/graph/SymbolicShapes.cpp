//===- SymbolicShapes.cpp - Dynamic extents as expressions of named dims --===//

#include "passes/graph/SymbolicShapes.h"

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/GraphTraits.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace kiln::graph;

//===----------------------------------------------------------------------===//
// DimExpr
//===----------------------------------------------------------------------===//

DimExpr DimExpr::constant(int64_t value) {
  DimExpr expr;
  if (value != 0)
    expr.terms.push_back({{}, value});
  return expr;
}

DimExpr DimExpr::symbol(unsigned number) {
  DimExpr expr;
  expr.terms.push_back({{number}, 1});
  return expr;
}

void DimExpr::normalize() {
  llvm::sort(terms, [](const auto &a, const auto &b) { return a.first < b.first; });
  SmallVector<std::pair<Monomial, int64_t>, 2> merged;
  for (auto &[monomial, coefficient] : terms) {
    if (!merged.empty() && merged.back().first == monomial)
      merged.back().second += coefficient;
    else
      merged.push_back({monomial, coefficient});
  }
  llvm::erase_if(merged, [](const auto &term) { return term.second == 0; });
  terms = std::move(merged);
}

std::optional<int64_t> DimExpr::getConstant() const {
  if (terms.empty())
    return 0;
  if (terms.size() == 1 && terms.front().first.empty())
    return terms.front().second;
  return std::nullopt;
}

std::optional<unsigned> DimExpr::getLargestSymbol() const {
  std::optional<unsigned> largest;
  for (const auto &[monomial, coefficient] : terms)
    for (unsigned symbol : monomial)
      largest = std::max(largest.value_or(0), symbol);
  return largest;
}

std::optional<int> DimExpr::sign() const {
  if (terms.empty())
    return 0;
  // Every monomial is at least 1 where the symbols are positive.
  bool positive = llvm::all_of(terms, [](const auto &term) { return term.second > 0; });
  bool negative = llvm::all_of(terms, [](const auto &term) { return term.second < 0; });
  if (positive)
    return 1;
  if (negative)
    return -1;
  return std::nullopt;
}

DimExpr DimExpr::operator+(const DimExpr &other) const {
  DimExpr sum = *this;
  sum.terms.append(other.terms.begin(), other.terms.end());
  sum.normalize();
  return sum;
}

DimExpr DimExpr::operator-(const DimExpr &other) const {
  DimExpr difference = *this;
  for (auto [monomial, coefficient] : other.terms)
    difference.terms.push_back({monomial, -coefficient});
  difference.normalize();
  return difference;
}

DimExpr DimExpr::operator*(const DimExpr &other) const {
  DimExpr product;
  for (const auto &[a, x] : terms)
    for (const auto &[b, y] : other.terms) {
      Monomial monomial(a);
      monomial.append(b.begin(), b.end());
      llvm::sort(monomial);
      product.terms.push_back({monomial, x * y});
    }
  product.normalize();
  return product;
}

std::optional<DimExpr> DimExpr::divideExactly(const DimExpr &divisor) const {
  if (divisor.terms.size() != 1)
    return std::nullopt;
  const auto &[divisorMonomial, divisorCoefficient] = divisor.terms.front();
  DimExpr quotient;
  for (const auto &[monomial, coefficient] : terms) {
    if (coefficient % divisorCoefficient != 0)
      return std::nullopt;
    // Remove each symbol of the divisor's monomial once (both are sorted multisets).
    Monomial rest;
    if (!std::includes(monomial.begin(), monomial.end(), divisorMonomial.begin(),
                       divisorMonomial.end()))
      return std::nullopt;
    std::set_difference(monomial.begin(), monomial.end(), divisorMonomial.begin(),
                        divisorMonomial.end(), std::back_inserter(rest));
    quotient.terms.push_back({rest, coefficient / divisorCoefficient});
  }
  quotient.normalize();
  return quotient;
}

void DimExpr::print(llvm::raw_ostream &os, ArrayRef<std::string> names) const {
  if (terms.empty()) {
    os << "0";
    return;
  }
  // Highest degree first ("batch*sequence + 1"), as people write them.
  SmallVector<std::pair<Monomial, int64_t>, 2> ordered(terms);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto &a, const auto &b) { return a.first.size() > b.first.size(); });
  for (auto [index, term] : llvm::enumerate(ordered)) {
    auto [monomial, coefficient] = term;
    if (index > 0)
      os << (coefficient < 0 ? " - " : " + ");
    else if (coefficient < 0)
      os << "-";
    int64_t magnitude = coefficient < 0 ? -coefficient : coefficient;
    bool first = true;
    for (unsigned symbol : monomial) {
      os << (first ? "" : "*") << (symbol < names.size() ? names[symbol] : "?");
      first = false;
    }
    if (magnitude != 1 || monomial.empty())
      os << (first ? "" : "*") << magnitude;
  }
}

//===----------------------------------------------------------------------===//
// The analysis
//===----------------------------------------------------------------------===//

namespace {

/// Shape tensors worth tracking element by element: exported models compute shapes in
/// 0-D and 1-D integer tensors of a few elements.
constexpr int64_t kMaxTrackedElements = 16;

/// `index` of an extent `count` long, Python style (negative from the end), or nullopt.
std::optional<int64_t> normalizeIndex(int64_t index, int64_t count) {
  if (index < 0)
    index += count;
  if (index < 0 || index >= count)
    return std::nullopt;
  return index;
}

/// Each of `axes` of a rank-`rank` value normalized (normalizeIndex), or nullopt when one
/// is out of range.
std::optional<SmallVector<int64_t>> normalizeAxes(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t axis : axes) {
    std::optional<int64_t> normalized = normalizeIndex(axis, rank);
    if (!normalized)
      return std::nullopt;
    result.push_back(*normalized);
  }
  return result;
}

/// The product of `dims`.
DimExpr productOf(ArrayRef<DimExpr> dims) {
  DimExpr product = DimExpr::constant(1);
  for (const DimExpr &dim : dims)
    product = product * dim;
  return product;
}

/// A ranked shape of extents `dims`.
SymbolicShape rankedShape(SmallVector<DimExpr, 4> dims) {
  SymbolicShape shape;
  shape.ranked = true;
  shape.dims = std::move(dims);
  return shape;
}

/// NumPy broadcasting of two extents: the one that is not 1; where both are unknown
/// and differ, the model promises them equal (or 1), and the first stands for both.
DimExpr broadcastExtent(const DimExpr &a, const DimExpr &b) {
  if (a.getConstant() == 1)
    return b;
  if (b.getConstant() == 1 || a == b)
    return a;
  return a.getConstant() ? a : b.getConstant() ? b : a;
}

SmallVector<DimExpr, 4> broadcastDims(ArrayRef<DimExpr> a, ArrayRef<DimExpr> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<DimExpr, 4> dims;
  for (size_t i = 0; i < rank; ++i) {
    bool hasA = i + a.size() >= rank, hasB = i + b.size() >= rank;
    if (hasA && hasB)
      dims.push_back(broadcastExtent(a[i + a.size() - rank], b[i + b.size() - rank]));
    else
      dims.push_back(hasA ? a[i + a.size() - rank] : b[i + b.size() - rank]);
  }
  return dims;
}

/// The elements of a 0-D or 1-D broadcast of `a` and `b` (each a scalar or of one length)
/// combined by `combine`, when both are known and it gives a value for each.
std::optional<SmallVector<DimExpr, 4>> combineElements(
    const SymbolicShape *a, const SymbolicShape *b,
    llvm::function_ref<std::optional<DimExpr>(const DimExpr &, const DimExpr &)> combine) {
  if (!a || !b || !a->elements || !b->elements || a->dims.size() > 1 || b->dims.size() > 1)
    return std::nullopt;
  size_t count = std::max(a->elements->size(), b->elements->size());
  if ((a->elements->size() != count && a->elements->size() != 1) ||
      (b->elements->size() != count && b->elements->size() != 1))
    return std::nullopt;
  SmallVector<DimExpr, 4> result;
  for (size_t i = 0; i < count; ++i) {
    std::optional<DimExpr> value = combine((*a->elements)[a->elements->size() == 1 ? 0 : i],
                                           (*b->elements)[b->elements->size() == 1 ? 0 : i]);
    if (!value)
      return std::nullopt;
    result.push_back(*value);
  }
  return result;
}

/// `x == y` (1 or 0) where the polynomials decide it.
std::optional<DimExpr> equalElements(const DimExpr &x, const DimExpr &y) {
  std::optional<int> sign = (x - y).sign();
  if (!sign)
    return std::nullopt;
  return DimExpr::constant(*sign == 0 ? 1 : 0);
}

} // namespace

SymbolicShapeAnalysis::SymbolicShapeAnalysis(func::FuncOp function) {
  // The inputs' dynamic extents are the symbols, named as the model names them; one name
  // on several inputs (BERT's "batch" and "sequence") is one symbol.
  llvm::StringMap<unsigned> byName;
  for (BlockArgument argument : function.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(argument.getType());
    if (!type) {
      if (isa<TensorType>(argument.getType()))
        shapes[argument] = SymbolicShape{};
      continue;
    }
    auto dimNames = function.getArgAttrOfType<ArrayAttr>(argument.getArgNumber(), "graph.dims");
    auto inputName = function.getArgAttrOfType<StringAttr>(argument.getArgNumber(), "graph.name");
    SymbolicShape shape;
    shape.ranked = true;
    for (auto [dim, extent] : llvm::enumerate(type.getShape())) {
      if (!ShapedType::isDynamic(extent)) {
        shape.dims.push_back(DimExpr::constant(extent));
        continue;
      }
      std::string name;
      if (dimNames && dim < dimNames.size())
        if (auto given = dyn_cast<StringAttr>(dimNames[dim]))
          name = given.getValue().str();
      if (name.empty())
        name = (inputName ? inputName.getValue().str()
                          : "arg" + std::to_string(argument.getArgNumber())) +
               "." + std::to_string(dim);
      auto [it, inserted] = byName.try_emplace(name, names.size());
      if (inserted)
        names.push_back(name);
      shape.dims.push_back(DimExpr::symbol(it->second));
    }
    shapes[argument] = std::move(shape);
  }
  inputSymbols = names.size();
  function.walk([&](Operation *op) { visit(op); });
}

std::optional<SmallVector<int64_t>> SymbolicShape::constantElements() const {
  if (!elements)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const DimExpr &element : *elements) {
    std::optional<int64_t> value = element.getConstant();
    if (!value)
      return std::nullopt;
    values.push_back(*value);
  }
  return values;
}

const SymbolicShape *SymbolicShapeAnalysis::lookup(Value value) const {
  auto it = shapes.find(value);
  return it == shapes.end() ? nullptr : &it->second;
}

std::string SymbolicShapeAnalysis::describe(const DimExpr &expr) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  expr.print(os, names);
  return text;
}

DimExpr SymbolicShapeAnalysis::freshSymbol() {
  names.push_back("?" + std::to_string(names.size() - inputSymbols));
  return DimExpr::symbol(names.size() - 1);
}

SymbolicShape SymbolicShapeAnalysis::fromType(Type type) {
  SymbolicShape shape;
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return shape;
  shape.ranked = true;
  for (int64_t extent : ranked.getShape())
    shape.dims.push_back(ShapedType::isDynamic(extent) ? freshSymbol() : DimExpr::constant(extent));
  return shape;
}

/// The first normalised axis of a LayerNorm or RMSNorm, whose statistics results keep the
/// input's shape with the normalised extents 1; nullopt for other ops.
static std::optional<int64_t> normalisationAxis(Operation *op) {
  if (auto norm = dyn_cast<LayerNormalizationOp>(op))
    return norm.getAxis();
  if (auto norm = dyn_cast<RMSNormalizationOp>(op))
    return norm.getAxis();
  return std::nullopt;
}

void SymbolicShapeAnalysis::visit(Operation *op) {
  if (op->getNumResults() == 0 || !isa<GraphDialect>(op->getDialect()))
    return;
  auto get = [&](Value value) { return lookup(value); };
  auto rankedDims = [&](Value value) -> std::optional<SmallVector<DimExpr, 4>> {
    const SymbolicShape *shape = get(value);
    if (!shape || !shape->ranked)
      return std::nullopt;
    return shape->dims;
  };
  auto constantInts = [&](Value value) -> std::optional<SmallVector<int64_t>> {
    if (std::optional<SmallVector<int64_t>> values = getConstantInts(value))
      return values;
    const SymbolicShape *shape = get(value);
    return shape ? shape->constantElements() : std::nullopt;
  };

  // The op's rule: the first result's shape (and elements), when it has one.
  std::optional<SymbolicShape> rule =
      llvm::TypeSwitch<Operation *, std::optional<SymbolicShape>>(op)
          .Case([&](ConstantOp constant) -> std::optional<SymbolicShape> {
            SymbolicShape shape = fromType(constant.getType());
            auto type = dyn_cast<RankedTensorType>(constant.getType());
            if (type && type.getNumElements() <= kMaxTrackedElements)
              if (std::optional<SmallVector<int64_t>> values = getConstantInts(constant)) {
                shape.elements.emplace();
                for (int64_t value : *values)
                  shape.elements->push_back(DimExpr::constant(value));
              }
            return shape;
          })
          .Case([&](ShapeOp shapeOp) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(shapeOp.getInput());
            if (!dims)
              return std::nullopt;
            int64_t rank = dims->size();
            auto first = static_cast<int64_t>(shapeOp.getStart());
            int64_t start = std::clamp<int64_t>(first < 0 ? first + rank : first, 0, rank);
            int64_t end = shapeOp.getEnd() ? static_cast<int64_t>(*shapeOp.getEnd()) : rank;
            end = std::clamp<int64_t>(end < 0 ? end + rank : end, start, rank);
            SymbolicShape shape;
            shape.ranked = true;
            shape.dims = {DimExpr::constant(end - start)};
            shape.elements.emplace(dims->begin() + start, dims->begin() + end);
            return shape;
          })
          .Case([&](SizeOp size) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(size.getInput());
            if (!dims)
              return std::nullopt;
            SymbolicShape shape;
            shape.ranked = true;
            shape.elements = SmallVector<DimExpr, 4>{productOf(*dims)};
            return shape;
          })
          .Case([&](GatherOp gather) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> data = rankedDims(gather.getData());
            std::optional<SmallVector<DimExpr, 4>> indices = rankedDims(gather.getIndices());
            if (!data || !indices)
              return std::nullopt;
            std::optional<int64_t> axis =
                normalizeIndex(static_cast<int64_t>(gather.getAxis()), data->size());
            if (!axis)
              return std::nullopt;
            SymbolicShape shape;
            shape.ranked = true;
            shape.dims.append(data->begin(), data->begin() + *axis);
            shape.dims.append(indices->begin(), indices->end());
            shape.dims.append(data->begin() + *axis + 1, data->end());
            // Picking elements of a known 1-D tensor with constant indices.
            const SymbolicShape *source = get(gather.getData());
            if (source->elements && data->size() == 1 && source->elements->size() > 0)
              if (std::optional<SmallVector<int64_t>> picks = constantInts(gather.getIndices())) {
                SmallVector<DimExpr, 4> elements;
                for (int64_t pick : *picks) {
                  std::optional<int64_t> at = normalizeIndex(pick, source->elements->size());
                  if (!at)
                    return shape;
                  elements.push_back((*source->elements)[*at]);
                }
                shape.elements = std::move(elements);
              }
            return shape;
          })
          .Case([&](UnsqueezeOp unsqueeze) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(unsqueeze.getInput());
            std::optional<SmallVector<int64_t>> axes = constantInts(unsqueeze.getAxes());
            if (!dims || !axes)
              return std::nullopt;
            int64_t rank = dims->size() + axes->size();
            SmallVector<bool> inserted(rank, false);
            for (int64_t axis : *axes) {
              std::optional<int64_t> at = normalizeIndex(axis, rank);
              if (!at || inserted[*at])
                return std::nullopt; // out of range, or twice (invalid)
              inserted[*at] = true;
            }
            SymbolicShape shape;
            shape.ranked = true;
            auto next = dims->begin();
            for (int64_t i = 0; i < rank; ++i)
              shape.dims.push_back(inserted[i] ? DimExpr::constant(1) : *next++);
            shape.elements = get(unsqueeze.getInput())->elements;
            return shape;
          })
          .Case([&](SqueezeOp squeeze) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(squeeze.getInput());
            if (!dims)
              return std::nullopt;
            SmallVector<bool> removed(dims->size(), false);
            if (squeeze.getAxes()) {
              std::optional<SmallVector<int64_t>> axes = constantInts(squeeze.getAxes());
              if (!axes)
                return std::nullopt;
              for (int64_t axis : *axes) {
                std::optional<int64_t> at = normalizeIndex(axis, dims->size());
                if (!at)
                  return std::nullopt;
                removed[*at] = true;
              }
            } else {
              for (auto [i, dim] : llvm::enumerate(*dims)) {
                if (!dim.getConstant())
                  return std::nullopt; // which extents are 1 is not known
                removed[i] = dim.getConstant() == 1;
              }
            }
            SymbolicShape shape;
            shape.ranked = true;
            for (auto [i, dim] : llvm::enumerate(*dims))
              if (!removed[i])
                shape.dims.push_back(dim);
            shape.elements = get(squeeze.getInput())->elements;
            return shape;
          })
          .Case([&](ConcatOp concat) -> std::optional<SymbolicShape> {
            if (concat.getInputs().empty())
              return std::nullopt;
            std::optional<SmallVector<DimExpr, 4>> first = rankedDims(concat.getInputs().front());
            if (!first)
              return std::nullopt;
            std::optional<int64_t> axis =
                normalizeIndex(static_cast<int64_t>(concat.getAxis()), first->size());
            if (!axis)
              return std::nullopt;
            SymbolicShape shape;
            shape.ranked = true;
            shape.dims = *first;
            shape.dims[*axis] = DimExpr::constant(0);
            bool known = first->size() == 1;
            SmallVector<DimExpr, 4> elements;
            for (Value input : concat.getInputs()) {
              std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(input);
              if (!dims || dims->size() != first->size())
                return std::nullopt;
              shape.dims[*axis] = shape.dims[*axis] + (*dims)[*axis];
              const SymbolicShape *part = get(input);
              known = known && part->elements;
              if (known)
                elements.append(part->elements->begin(), part->elements->end());
            }
            if (known)
              shape.elements = std::move(elements);
            return shape;
          })
          .Case([&](SliceOp slice) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(slice.getInput());
            const SymbolicShape *starts = get(slice.getStarts());
            const SymbolicShape *ends = get(slice.getEnds());
            if (!dims || !starts || !ends || !starts->elements || !ends->elements ||
                starts->elements->size() != ends->elements->size())
              return std::nullopt;
            size_t count = starts->elements->size();
            SmallVector<int64_t> axes, steps(count, 1);
            if (slice.getAxes()) {
              std::optional<SmallVector<int64_t>> given = constantInts(slice.getAxes());
              if (!given || given->size() != count)
                return std::nullopt;
              axes = *given;
            } else {
              for (size_t i = 0; i < count; ++i)
                axes.push_back(i);
            }
            if (slice.getSteps()) {
              std::optional<SmallVector<int64_t>> given = constantInts(slice.getSteps());
              if (!given || given->size() != count)
                return std::nullopt;
              steps = *given;
            }
            SymbolicShape shape;
            shape.ranked = true;
            shape.dims = *dims;
            SmallVector<std::pair<int64_t, int64_t>> elementRange;
            for (size_t i = 0; i < count; ++i) {
              std::optional<int64_t> axis = normalizeIndex(axes[i], dims->size());
              if (!axis || steps[i] != 1)
                return std::nullopt;
              const DimExpr &extent = (*dims)[*axis];
              // Bounds: constants as ONNX clamps them; a polynomial end is taken to lie
              // inside the extent (an exported model slices to a length it computed).
              auto bound = [&](const DimExpr &value) -> std::optional<DimExpr> {
                std::optional<int64_t> constant = value.getConstant();
                if (!constant)
                  return value;
                if (std::optional<int64_t> whole = extent.getConstant())
                  return DimExpr::constant(std::clamp<int64_t>(
                      *constant < 0 ? *constant + *whole : *constant, 0, *whole));
                if (*constant < 0)
                  return extent + DimExpr::constant(*constant);
                if (*constant >= (int64_t(1) << 31))
                  return extent;
                // min(constant, extent): the constant where the extent (at least 1) is
                // known not to be smaller.
                std::optional<int> sign = (extent - value).sign();
                if (*constant <= 1 || (sign && *sign >= 0))
                  return value;
                return std::nullopt;
              };
              std::optional<DimExpr> start = bound((*starts->elements)[i]);
              std::optional<DimExpr> end = bound((*ends->elements)[i]);
              if (!start || !end) {
                shape.dims[*axis] = freshSymbol();
                continue;
              }
              shape.dims[*axis] = *end - *start;
              if (std::optional<int> sign = shape.dims[*axis].sign(); sign && *sign < 0)
                shape.dims[*axis] = DimExpr::constant(0);
              if (dims->size() == 1 && start->getConstant() && end->getConstant())
                elementRange.push_back({*start->getConstant(), *end->getConstant()});
            }
            const SymbolicShape *source = get(slice.getInput());
            if (source->elements && elementRange.size() == 1 &&
                elementRange.front().second <= int64_t(source->elements->size()) &&
                elementRange.front().first <= elementRange.front().second)
              shape.elements.emplace(source->elements->begin() + elementRange.front().first,
                                     source->elements->begin() + elementRange.front().second);
            return shape;
          })
          .Case([&](ReshapeOp reshape) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(reshape.getInput());
            const SymbolicShape *target = get(reshape.getShape());
            if (!dims || !target || !target->elements)
              return std::nullopt;
            SymbolicShape shape;
            shape.ranked = true;
            std::optional<size_t> inferred;
            DimExpr known = DimExpr::constant(1);
            for (auto [i, element] : llvm::enumerate(*target->elements)) {
              std::optional<int64_t> value = element.getConstant();
              if (value == -1) {
                inferred = i;
                shape.dims.push_back(DimExpr::constant(-1));
                continue;
              }
              if (value == 0 && !reshape.getAllowzero()) {
                if (i >= dims->size())
                  return std::nullopt;
                shape.dims.push_back((*dims)[i]);
              } else {
                shape.dims.push_back(element);
              }
              known = known * shape.dims.back();
            }
            if (inferred) {
              std::optional<DimExpr> rest = productOf(*dims).divideExactly(known);
              shape.dims[*inferred] = rest ? *rest : freshSymbol();
            }
            shape.elements = get(reshape.getInput())->elements;
            return shape;
          })
          .Case([&](ExpandOp expand) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(expand.getInput());
            const SymbolicShape *target = get(expand.getShape());
            if (!dims || !target || !target->elements)
              return std::nullopt;
            return rankedShape(broadcastDims(*dims, *target->elements));
          })
          .Case([&](ConstantOfShapeOp constantOfShape) -> std::optional<SymbolicShape> {
            const SymbolicShape *target = get(constantOfShape.getShape());
            if (!target || !target->elements)
              return std::nullopt;
            SymbolicShape shape;
            shape.ranked = true;
            shape.dims = *target->elements;
            // A short 1-D integer splat is a shape value too (ViT's ones before an Expand).
            auto value = dyn_cast<DenseIntElementsAttr>(constantOfShape.getValue());
            std::optional<int64_t> count =
                shape.dims.size() == 1 ? shape.dims.front().getConstant() : std::nullopt;
            if (value && value.getNumElements() == 1 && count && *count <= kMaxTrackedElements)
              shape.elements.emplace(
                  *count, DimExpr::constant((*value.getValues<APInt>().begin()).getSExtValue()));
            return shape;
          })
          .Case([&](RangeOp range) -> std::optional<SymbolicShape> {
            const SymbolicShape *start = get(range.getStart());
            const SymbolicShape *limit = get(range.getLimit());
            const SymbolicShape *delta = get(range.getDelta());
            if (!start || !limit || !delta || !start->elements || !limit->elements ||
                !delta->elements || start->elements->size() != 1 || limit->elements->size() != 1 ||
                delta->elements->size() != 1)
              return std::nullopt;
            DimExpr span = limit->elements->front() - start->elements->front();
            std::optional<int64_t> step = delta->elements->front().getConstant();
            SymbolicShape shape;
            shape.ranked = true;
            if (step == 1)
              shape.dims = {span};
            else if (std::optional<int64_t> length = span.getConstant(); length && step && *step)
              shape.dims = {DimExpr::constant(
                  std::max<int64_t>(0, (*length + *step - (*step > 0 ? 1 : -1)) / *step))};
            else
              return std::nullopt;
            if (std::optional<int> sign = shape.dims.front().sign(); sign && *sign < 0)
              shape.dims = {DimExpr::constant(0)};
            return shape;
          })
          .Case([&](FlattenOp flatten) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(flatten.getInput());
            if (!dims)
              return std::nullopt;
            int64_t rank = dims->size();
            auto axis = static_cast<int64_t>(flatten.getAxis());
            if (axis < 0)
              axis += rank;
            if (axis < 0 || axis > rank)
              return std::nullopt;
            return rankedShape({productOf(ArrayRef(*dims).take_front(axis)),
                                productOf(ArrayRef(*dims).drop_front(axis))});
          })
          .Case([&](TransposeOp transpose) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(transpose.getInput());
            if (!dims || transpose.getPerm().size() != dims->size())
              return std::nullopt;
            SymbolicShape shape;
            shape.ranked = true;
            for (int64_t from : transpose.getPerm()) {
              if (from < 0 || from >= int64_t(dims->size()))
                return std::nullopt;
              shape.dims.push_back((*dims)[from]);
            }
            return shape;
          })
          .Case([&](MatMulOp matmul) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> lhs = rankedDims(matmul.getLhs());
            std::optional<SmallVector<DimExpr, 4>> rhs = rankedDims(matmul.getRhs());
            if (!lhs || !rhs || lhs->size() < 2 || rhs->size() < 2)
              return std::nullopt;
            SymbolicShape shape;
            shape.ranked = true;
            shape.dims = broadcastDims(ArrayRef(*lhs).drop_back(2), ArrayRef(*rhs).drop_back(2));
            shape.dims.push_back((*lhs)[lhs->size() - 2]);
            shape.dims.push_back(rhs->back());
            return shape;
          })
          .Case([&](GemmOp gemm) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> a = rankedDims(gemm.getA());
            std::optional<SmallVector<DimExpr, 4>> b = rankedDims(gemm.getB());
            if (!a || !b || a->size() != 2 || b->size() != 2)
              return std::nullopt;
            return rankedShape({(*a)[gemm.getTransA() ? 1 : 0], (*b)[gemm.getTransB() ? 0 : 1]});
          })
          .Case([&](AttentionOp attention) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> query = rankedDims(attention.getQuery());
            std::optional<SmallVector<DimExpr, 4>> value = rankedDims(attention.getValue());
            if (!query || !value || query->empty() || value->empty())
              return std::nullopt;
            SymbolicShape shape;
            shape.ranked = true;
            shape.dims = *query;
            shape.dims.back() = value->back();
            return shape;
          })
          .Case<ReduceMeanOp, ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp, ReduceL1Op,
                ReduceL2Op, ReduceLogSumOp, ReduceLogSumExpOp, ReduceSumSquareOp>(
              [&](auto reduce) -> std::optional<SymbolicShape> {
                // The input's extents, the reduced ones 1 (keepdims) or dropped.
                std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(reduce.getData());
                if (!dims)
                  return std::nullopt;
                SmallVector<int64_t> axes;
                if (reduce.getAxes()) {
                  std::optional<SmallVector<int64_t>> given = constantInts(reduce.getAxes());
                  if (!given)
                    return std::nullopt;
                  axes = *given;
                }
                if (axes.empty() && reduce.getNoopWithEmptyAxes())
                  return rankedShape(*dims);
                SmallVector<bool> reduced(dims->size(), axes.empty());
                std::optional<SmallVector<int64_t>> normalized = normalizeAxes(axes, dims->size());
                if (!normalized)
                  return std::nullopt;
                for (int64_t axis : *normalized)
                  reduced[axis] = true;
                SmallVector<DimExpr, 4> result;
                for (auto [dim, gone] : llvm::zip(*dims, reduced))
                  if (!gone)
                    result.push_back(dim);
                  else if (reduce.getKeepdims())
                    result.push_back(DimExpr::constant(1));
                return rankedShape(result);
              })
          .Case<ArgMaxOp, ArgMinOp>([&](auto reduce) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(reduce.getInput());
            std::optional<int64_t> axis =
                dims ? normalizeIndex(static_cast<int64_t>(reduce.getAxis()), dims->size())
                     : std::nullopt;
            if (!axis)
              return std::nullopt;
            if (reduce.getKeepdims())
              (*dims)[*axis] = DimExpr::constant(1);
            else
              dims->erase(dims->begin() + *axis);
            return rankedShape(*dims);
          })
          .Case([&](TileOp tile) -> std::optional<SymbolicShape> {
            // Each extent times its repeat count.
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(tile.getInput());
            const SymbolicShape *repeats = get(tile.getRepeats());
            if (!dims || !repeats || !repeats->elements ||
                repeats->elements->size() != dims->size())
              return std::nullopt;
            for (auto [dim, repeat] : llvm::zip(*dims, *repeats->elements))
              dim = dim * repeat;
            return rankedShape(*dims);
          })
          .Case([&](PadOp pad) -> std::optional<SymbolicShape> {
            // Each padded extent plus its pads before and after.
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(pad.getInput());
            const SymbolicShape *pads = get(pad.getPads());
            if (!dims || !pads || !pads->elements)
              return std::nullopt;
            SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, dims->size()));
            if (pad.getAxes()) {
              std::optional<SmallVector<int64_t>> given = constantInts(pad.getAxes());
              std::optional<SmallVector<int64_t>> normalized =
                  given ? normalizeAxes(*given, dims->size()) : std::nullopt;
              if (!normalized)
                return std::nullopt;
              axes = *normalized;
            }
            if (pads->elements->size() != 2 * axes.size())
              return std::nullopt;
            for (auto [i, axis] : llvm::enumerate(axes))
              (*dims)[axis] =
                  (*dims)[axis] + (*pads->elements)[i] + (*pads->elements)[i + axes.size()];
            return rankedShape(*dims);
          })
          .Case([&](GatherElementsOp gather) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(gather.getIndices());
            return dims ? std::optional(rankedShape(*dims)) : std::nullopt;
          })
          .Case<ScatterElementsOp, ScatterNDOp>([&](auto scatter) -> std::optional<SymbolicShape> {
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(scatter.getData());
            return dims ? std::optional(rankedShape(*dims)) : std::nullopt;
          })
          .Case([&](GridSampleOp sample) -> std::optional<SymbolicShape> {
            // [N, C] of the input, then the grid's spatial extents: [N, C, H_out, W_out].
            std::optional<SmallVector<DimExpr, 4>> input = rankedDims(sample.getInput());
            std::optional<SmallVector<DimExpr, 4>> grid = rankedDims(sample.getGrid());
            if (!input || !grid || input->size() < 2 || grid->size() != input->size())
              return std::nullopt;
            SmallVector<DimExpr, 4> dims = {(*input)[0], (*input)[1]};
            dims.append(grid->begin() + 1, grid->end() - 1);
            return rankedShape(dims);
          })
          .Case([&](ResizeOp resize) -> std::optional<SymbolicShape> {
            // Each resized axis: the sizes' element, or the extent times a constant scale
            // (floor(extent * scale): exact for whole scales, and an extent a scale of 1
            // keeps, a batch among them).
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(resize.getInput());
            if (!dims || resize.getKeepAspectRatioPolicy() != "stretch")
              return std::nullopt;
            SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, dims->size()));
            if (std::optional<ArrayRef<int64_t>> given = resize.getAxes()) {
              std::optional<SmallVector<int64_t>> normalized = normalizeAxes(*given, dims->size());
              if (!normalized)
                return std::nullopt;
              axes = *normalized;
            }
            const SymbolicShape *sizes = resize.getSizes() ? get(resize.getSizes()) : nullptr;
            if (sizes && sizes->elements && sizes->elements->size() == axes.size()) {
              for (auto [axis, size] : llvm::zip(axes, *sizes->elements))
                (*dims)[axis] = size;
              return rankedShape(*dims);
            }
            std::optional<SmallVector<double>> scales =
                resize.getScales() ? getConstantFloats(resize.getScales()) : std::nullopt;
            if (!scales || scales->size() != axes.size())
              return std::nullopt;
            for (auto [axis, scale] : llvm::zip(axes, *scales)) {
              DimExpr &extent = (*dims)[axis];
              if (std::optional<int64_t> constant = extent.getConstant())
                extent = DimExpr::constant(static_cast<int64_t>(std::floor(*constant * scale)));
              else if (scale >= 1 && scale == std::floor(scale))
                extent = extent * DimExpr::constant(static_cast<int64_t>(scale));
              else
                extent = freshSymbol();
            }
            return rankedShape(*dims);
          })
          .Case([&](TopKOp topK) -> std::optional<SymbolicShape> {
            // The input's shape, k along the axis: k's value where it is known to lie
            // within the extent, else one symbol the values and indices share.
            std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(topK.getInput());
            if (!dims)
              return std::nullopt;
            std::optional<int64_t> axis =
                normalizeIndex(static_cast<int64_t>(topK.getAxis()), dims->size());
            if (!axis)
              return std::nullopt;
            const SymbolicShape *k = get(topK.getK());
            DimExpr &extent = (*dims)[*axis];
            if (k && k->elements && k->elements->size() == 1 &&
                (extent - k->elements->front()).sign().value_or(-1) >= 0 &&
                k->elements->front().sign().value_or(-1) >= 0)
              extent = k->elements->front();
            else
              extent = freshSymbol();
            return rankedShape(*dims);
          })
          .Case<LayerNormalizationOp, RMSNormalizationOp>(
              [&](Operation *norm) -> std::optional<SymbolicShape> {
                std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(norm->getOperand(0));
                if (!dims)
                  return std::nullopt;
                return rankedShape(*dims);
              })
          .Case<ConvOp, MaxPoolOp, AveragePoolOp, GlobalAveragePoolOp, GlobalMaxPoolOp>(
              [&](Operation *pool) -> std::optional<SymbolicShape> {
                // The batch extent passes through; the others are static or unknown.
                std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(pool->getOperand(0));
                auto type = dyn_cast<RankedTensorType>(pool->getResult(0).getType());
                if (!dims || dims->empty() || !type || type.getRank() == 0)
                  return std::nullopt;
                SymbolicShape shape;
                shape.ranked = true;
                shape.dims.push_back(dims->front());
                for (int64_t extent : type.getShape().drop_front())
                  shape.dims.push_back(ShapedType::isDynamic(extent) ? freshSymbol()
                                                                     : DimExpr::constant(extent));
                return shape;
              })
          .Case([&](GatherNDOp gather) -> std::optional<SymbolicShape> {
            // indices[:-1] + data[batch_dims + indices[-1]:], the batch dims leading.
            std::optional<SmallVector<DimExpr, 4>> data = rankedDims(gather.getData());
            std::optional<SmallVector<DimExpr, 4>> indices = rankedDims(gather.getIndices());
            if (!data || !indices || indices->empty())
              return std::nullopt;
            std::optional<int64_t> depth = indices->back().getConstant();
            auto batch = static_cast<int64_t>(gather.getBatchDims());
            if (!depth || *depth < 0 || batch < 0 || batch + *depth > int64_t(data->size()) ||
                batch > int64_t(indices->size()) - 1)
              return std::nullopt;
            SymbolicShape shape;
            shape.ranked = true;
            shape.dims.append(indices->begin(), indices->end() - 1);
            shape.dims.append(data->begin() + batch + *depth, data->end());
            return shape;
          })
          .Case<SoftmaxOp, LogSoftmaxOp, HardmaxOp, CumSumOp>(
              [&](Operation *same) -> std::optional<SymbolicShape> {
                std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(same->getOperand(0));
                if (!dims)
                  return std::nullopt;
                return rankedShape(*dims);
              })
          .Default([&](Operation *) { return std::nullopt; });

  // Pointwise ops broadcast their operands; shape arithmetic on known elements.
  if (!rule && op->hasTrait<kiln::graph::OpTrait::Pointwise>() && op->getNumOperands() > 0) {
    SmallVector<DimExpr, 4> dims;
    bool ranked = true;
    for (Value operand : op->getOperands()) {
      std::optional<SmallVector<DimExpr, 4>> operandDims = rankedDims(operand);
      if (!operandDims) {
        ranked = false;
        break;
      }
      dims = broadcastDims(dims, *operandDims);
    }
    if (ranked) {
      SymbolicShape shape;
      shape.ranked = true;
      shape.dims = std::move(dims);
      auto binary = [&](auto combine) {
        return combineElements(get(op->getOperand(0)), get(op->getOperand(1)), combine);
      };
      using Combined = std::optional<DimExpr>;
      if (isa<AddOp>(op))
        shape.elements =
            binary([](const DimExpr &x, const DimExpr &y) -> Combined { return x + y; });
      else if (isa<SubOp>(op))
        shape.elements =
            binary([](const DimExpr &x, const DimExpr &y) -> Combined { return x - y; });
      else if (isa<MulOp>(op))
        shape.elements =
            binary([](const DimExpr &x, const DimExpr &y) -> Combined { return x * y; });
      else if (isa<DivOp>(op) && isa<IntegerType>(getElementTypeOrSelf(op->getResult(0))))
        shape.elements = binary([](const DimExpr &x, const DimExpr &y) -> Combined {
          std::optional<int64_t> a = x.getConstant(), b = y.getConstant();
          if (a && b && *b != 0)
            return DimExpr::constant(*a / *b); // integer Div truncates
          return x.divideExactly(y);
        });
      else if (auto mod = dyn_cast<ModOp>(op))
        shape.elements = binary([&](const DimExpr &x, const DimExpr &y) -> Combined {
          std::optional<int64_t> a = x.getConstant(), b = y.getConstant();
          if (!a || !b || *b == 0)
            return std::nullopt;
          // fmod: the dividend's sign (C's %); else the divisor's (Python's).
          int64_t remainder = *a % *b;
          bool adjust = !mod.getFmod() && remainder != 0 && ((remainder < 0) != (*b < 0));
          return DimExpr::constant(adjust ? remainder + *b : remainder);
        });
      else if (isa<EqualOp>(op))
        shape.elements = binary(equalElements);
      else if (auto cast = dyn_cast<CastOp>(op)) {
        // Integers to integers keep their values (booleans are 0 and 1 already).
        if (isa<IntegerType>(getElementTypeOrSelf(cast.getResult())) &&
            isa<IntegerType>(getElementTypeOrSelf(op->getOperand(0))))
          shape.elements = get(op->getOperand(0))->elements;
      } else if (isa<WhereOp>(op) && op->getNumOperands() == 3) {
        const SymbolicShape *condition = get(op->getOperand(0));
        const SymbolicShape *x = get(op->getOperand(1));
        const SymbolicShape *y = get(op->getOperand(2));
        if (std::optional<SmallVector<int64_t>> picks =
                condition ? condition->constantElements() : std::nullopt;
            picks && x && y && x->elements && y->elements && x->elements->size() == picks->size() &&
            y->elements->size() == picks->size()) {
          SmallVector<DimExpr, 4> elements;
          for (auto [i, pick] : llvm::enumerate(*picks))
            elements.push_back(pick ? (*x->elements)[i] : (*y->elements)[i]);
          shape.elements = std::move(elements);
        }
      }
      rule = std::move(shape);
    }
  }

  // Ops that keep their operand's shape.
  if (!rule && op->getNumOperands() > 0 &&
      (op->hasTrait<mlir::OpTrait::SameOperandsAndResultShape>() ||
       op->hasTrait<mlir::OpTrait::SameOperandsAndResultType>()))
    if (const SymbolicShape *operand = get(op->getOperand(0)); operand && operand->ranked) {
      SymbolicShape shape;
      shape.ranked = true;
      shape.dims = operand->dims;
      rule = std::move(shape);
    }

  // Split's parts: the given extents, or an even split where the extent divides exactly.
  std::optional<SmallVector<SymbolicShape, 3>> splitParts;
  if (auto split = dyn_cast<SplitOp>(op))
    if (std::optional<SmallVector<DimExpr, 4>> dims = rankedDims(split.getInput())) {
      std::optional<int64_t> axis =
          normalizeIndex(static_cast<int64_t>(split.getAxis()), dims->size());
      auto parts = static_cast<int64_t>(split.getNumOutputs());
      SmallVector<DimExpr> extents;
      if (axis && split.getSplit()) {
        if (const SymbolicShape *given = get(split.getSplit());
            given && given->elements && int64_t(given->elements->size()) == parts)
          extents.assign(given->elements->begin(), given->elements->end());
      } else if (axis) {
        if (std::optional<DimExpr> each = (*dims)[*axis].divideExactly(DimExpr::constant(parts)))
          extents.assign(parts, *each);
      }
      if (int64_t(extents.size()) == parts && parts == int64_t(op->getNumResults())) {
        splitParts.emplace();
        for (const DimExpr &extent : extents) {
          SymbolicShape part;
          part.ranked = true;
          part.dims = *dims;
          part.dims[*axis] = extent;
          splitParts->push_back(std::move(part));
        }
      }
    }

  for (auto [index, result] : llvm::enumerate(op->getResults())) {
    if (!isa<TensorType>(result.getType()))
      continue;
    SymbolicShape shape;
    if (index == 0 && rule) {
      shape = *rule;
    } else if (std::optional<int64_t> axis = normalisationAxis(op); axis && rule && index > 0) {
      // The mean and inverse deviation (RMS): the input's shape, the normalised extents 1.
      shape = *rule;
      int64_t rank = shape.dims.size();
      for (int64_t dim = *axis < 0 ? *axis + rank : *axis; dim >= 0 && dim < rank; ++dim)
        shape.dims[dim] = DimExpr::constant(1);
    } else if (isa<MaxPoolOp, TopKOp>(op) && rule && index == 1) {
      shape = *rule; // the indices of the maxima (the k best), one per output element
    } else if (isa<SplitOp>(op) && splitParts) {
      shape = (*splitParts)[index];
    } else {
      shape = fromType(result.getType());
    }
    // A rule never contradicts what the type says: a static extent it has stays.
    if (auto type = dyn_cast<RankedTensorType>(result.getType());
        type && shape.ranked && int64_t(shape.dims.size()) == type.getRank()) {
      for (auto [dim, extent] : llvm::zip(shape.dims, type.getShape()))
        if (!ShapedType::isDynamic(extent) && dim.getConstant() != extent)
          dim = DimExpr::constant(extent);
    } else if (type && shape.ranked) {
      shape = fromType(type);
    }
    if (shape.elements && (shape.elements->size() > size_t(kMaxTrackedElements) ||
                           (shape.ranked && shape.dims.size() > 1)))
      shape.elements.reset();
    shapes[result] = std::move(shape);
  }
}
