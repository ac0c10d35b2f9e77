//===- IndexFunctions.cpp - Tensors known as functions of their indices ---===//

#include "passes/graph/IndexFunctions.h"

#include "dialects/graph/GraphOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace kiln::graph {

bool IndexFunction::isUniform() const {
  return llvm::all_of(coefficients, [](int64_t coefficient) { return coefficient == 0; });
}

std::optional<int64_t> IndexFunction::uniformValue() const {
  if (!isUniform())
    return std::nullopt;
  switch (kind) {
  case Kind::Affine:
    return constant;
  case Kind::LessOrEqualZero:
    return constant <= 0;
  case Kind::EqualZero:
    return constant == 0;
  case Kind::NotEqualZero:
    return constant != 0;
  }
  return std::nullopt;
}

namespace {

/// The tensors the analysis describes: ranked, of integer, index or boolean elements.
bool isIndexLike(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && (type.getElementType().isIntOrIndex());
}

bool isBool(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType().isInteger(1);
}

int64_t rankOf(Value value) { return cast<RankedTensorType>(value.getType()).getRank(); }

IndexFunction uniform(int64_t rank, int64_t value) {
  IndexFunction function;
  function.coefficients.assign(rank, 0);
  function.constant = value;
  return function;
}

/// `kind` applied to the affine `function` (a comparison with 0), evaluated when uniform.
IndexFunction compare(IndexFunction function, IndexFunction::Kind kind) {
  function.kind = kind;
  if (std::optional<int64_t> value = function.uniformValue())
    return uniform(function.coefficients.size(), *value);
  return function;
}

IndexFunction negate(IndexFunction function) {
  for (int64_t &coefficient : function.coefficients)
    coefficient = -coefficient;
  function.constant = -function.constant;
  return function;
}

IndexFunction add(IndexFunction lhs, const IndexFunction &rhs) {
  for (auto [mine, theirs] : llvm::zip(lhs.coefficients, rhs.coefficients))
    mine += theirs;
  lhs.constant += rhs.constant;
  return lhs;
}

/// An element's value: signed, but a boolean is 0 or 1 (its one bit sign-extended would be
/// -1).
int64_t integerValue(const APInt &value) {
  return value.getBitWidth() == 1 ? int64_t(value.getBoolValue()) : value.getSExtValue();
}

/// A normalised axis of a rank-`rank` tensor, or nullopt out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return std::nullopt;
  return axis;
}

} // namespace

IndexFunctionAnalysis::IndexFunctionAnalysis(func::FuncOp function,
                                             const SymbolicShapeAnalysis &shapes)
    : shapes(shapes) {
  function.walk([&](Operation *op) { visit(op); });
}

const IndexFunction *IndexFunctionAnalysis::lookup(Value value) const {
  auto found = functions.find(value);
  return found == functions.end() ? nullptr : &found->second;
}

std::optional<SmallVector<int64_t>> IndexFunctionAnalysis::constantElements(Value value) const {
  const SymbolicShape *shape = shapes.lookup(value);
  return shape ? shape->constantElements() : std::nullopt;
}

std::optional<int64_t> IndexFunctionAnalysis::constantExtent(Value value, int64_t dim) const {
  const SymbolicShape *shape = shapes.lookup(value);
  if (!shape || !shape->ranked || dim >= static_cast<int64_t>(shape->dims.size()))
    return std::nullopt;
  return shape->dims[dim].getConstant();
}

std::optional<IndexFunction> IndexFunctionAnalysis::broadcastTo(Value value, Value result) const {
  const IndexFunction *function = lookup(value);
  const SymbolicShape *from = shapes.lookup(value);
  const SymbolicShape *to = shapes.lookup(result);
  if (!function || !from || !to || !from->ranked || !to->ranked ||
      from->dims.size() > to->dims.size())
    return std::nullopt;
  int64_t offset = to->dims.size() - from->dims.size();
  IndexFunction broadcast = *function;
  broadcast.coefficients.assign(to->dims.size(), 0);
  for (auto [dim, coefficient] : llvm::enumerate(function->coefficients)) {
    if (coefficient == 0)
      continue;
    // An index that varies along a dimension the result stretches would be wrong there.
    if (from->dims[dim] != to->dims[offset + dim])
      return std::nullopt;
    broadcast.coefficients[offset + dim] = coefficient;
  }
  return broadcast;
}

void IndexFunctionAnalysis::visit(Operation *op) {
  if (op->getNumResults() != 1 || !isIndexLike(op->getResult(0)))
    return;
  Value result = op->getResult(0);
  int64_t rank = rankOf(result);
  auto known = [&](Value value) { return broadcastTo(value, result); };
  std::optional<IndexFunction> function =
      llvm::TypeSwitch<Operation *, std::optional<IndexFunction>>(op)
          .Case([&](ConstantOp constant) -> std::optional<IndexFunction> {
            auto dense = dyn_cast<DenseIntElementsAttr>(constant.getValue());
            if (!dense || !dense.isSplat())
              return std::nullopt;
            return uniform(rank, integerValue(dense.getSplatValue<APInt>()));
          })
          .Case([&](ConstantOfShapeOp fill) -> std::optional<IndexFunction> {
            auto dense = dyn_cast<DenseIntElementsAttr>(fill.getValue());
            if (!dense || dense.getNumElements() != 1)
              return std::nullopt;
            return uniform(rank, integerValue(*dense.begin()));
          })
          .Case([&](RangeOp range) -> std::optional<IndexFunction> {
            auto start = constantElements(range.getStart());
            auto delta = constantElements(range.getDelta());
            if (!start || !delta || start->size() != 1 || delta->size() != 1 || rank != 1)
              return std::nullopt;
            IndexFunction line = uniform(1, start->front());
            line.coefficients[0] = delta->front();
            return line;
          })
          .Case([&](UnsqueezeOp unsqueeze) -> std::optional<IndexFunction> {
            const IndexFunction *input = lookup(unsqueeze.getInput());
            auto axes = constantElements(unsqueeze.getAxes());
            if (!input || !axes)
              return std::nullopt;
            SmallVector<bool> inserted(rank, false);
            for (int64_t axis : *axes) {
              std::optional<int64_t> at = normalizeAxis(axis, rank);
              if (!at)
                return std::nullopt;
              inserted[*at] = true;
            }
            IndexFunction unsqueezed = *input;
            unsqueezed.coefficients.clear();
            auto next = input->coefficients.begin();
            for (int64_t dim = 0; dim < rank; ++dim) {
              if (inserted[dim]) {
                unsqueezed.coefficients.push_back(0);
              } else {
                if (next == input->coefficients.end())
                  return std::nullopt;
                unsqueezed.coefficients.push_back(*next++);
              }
            }
            return unsqueezed;
          })
          .Case([&](SqueezeOp squeeze) -> std::optional<IndexFunction> {
            // The dimensions removed have extent 1 (coefficient 0): the axes given, or
            // every static 1.
            const IndexFunction *input = lookup(squeeze.getInput());
            if (!input)
              return std::nullopt;
            auto inputType = cast<RankedTensorType>(squeeze.getInput().getType());
            SmallVector<bool> removed(inputType.getRank(), false);
            if (Value given = squeeze.getAxes()) {
              auto axes = constantElements(given);
              if (!axes)
                return std::nullopt;
              for (int64_t axis : *axes) {
                std::optional<int64_t> at = normalizeAxis(axis, inputType.getRank());
                if (!at)
                  return std::nullopt;
                removed[*at] = true;
              }
            } else {
              for (int64_t dim = 0; dim < inputType.getRank(); ++dim)
                removed[dim] = inputType.getDimSize(dim) == 1;
            }
            IndexFunction squeezed = *input;
            squeezed.coefficients.clear();
            for (auto [dim, coefficient] : llvm::enumerate(input->coefficients)) {
              if (!removed[dim])
                squeezed.coefficients.push_back(coefficient);
              else if (coefficient != 0)
                return std::nullopt;
            }
            return squeezed;
          })
          .Case([&](ExpandOp expand) { return known(expand.getInput()); })
          .Case([&](SliceOp slice) -> std::optional<IndexFunction> {
            const IndexFunction *input = lookup(slice.getInput());
            auto starts = constantElements(slice.getStarts());
            if (!input || !starts)
              return std::nullopt;
            SmallVector<int64_t, 4> axes, steps(starts->size(), 1);
            if (Value given = slice.getAxes()) {
              auto values = constantElements(given);
              if (!values)
                return std::nullopt;
              axes.assign(values->begin(), values->end());
            } else {
              for (int64_t axis = 0; axis < static_cast<int64_t>(starts->size()); ++axis)
                axes.push_back(axis);
            }
            if (Value given = slice.getSteps()) {
              auto values = constantElements(given);
              if (!values)
                return std::nullopt;
              steps.assign(values->begin(), values->end());
            }
            if (axes.size() != starts->size() || steps.size() != starts->size())
              return std::nullopt;
            IndexFunction sliced = *input;
            for (auto [axis, start, step] : llvm::zip(axes, *starts, steps)) {
              std::optional<int64_t> dim = normalizeAxis(axis, rank);
              // A start from the end needs the extent; a negative step reverses.
              if (!dim || step <= 0)
                return std::nullopt;
              if (start < 0) {
                std::optional<int64_t> extent = constantExtent(slice.getInput(), *dim);
                if (!extent)
                  return std::nullopt;
                start = std::max<int64_t>(0, start + *extent);
              }
              sliced.constant += sliced.coefficients[*dim] * start;
              sliced.coefficients[*dim] *= step;
            }
            return sliced;
          })
          .Case([&](ConcatOp concat) -> std::optional<IndexFunction> {
            // Parts that continue one function f along the axis: part p, at offset o_p,
            // holds f(i) for i in [o_p, o_p + extent_p), so its constant is f's plus the
            // axis coefficient times o_p (a part of extent 1 there has no coefficient of
            // its own). The parts agree with the result on every other extent.
            std::optional<int64_t> axis = normalizeAxis(concat.getAxis(), rank);
            if (!axis || concat.getInputs().empty())
              return std::nullopt;
            SmallVector<const IndexFunction *> pieces;
            for (Value part : concat.getInputs()) {
              const IndexFunction *piece = lookup(part);
              if (!piece || static_cast<int64_t>(piece->coefficients.size()) != rank ||
                  piece->kind != lookup(concat.getInputs().front())->kind)
                return std::nullopt;
              pieces.push_back(piece);
            }
            IndexFunction whole = *pieces.front();
            for (const IndexFunction *piece : pieces)
              if (piece->coefficients[*axis] != 0)
                whole.coefficients[*axis] = piece->coefficients[*axis];
            int64_t offset = 0;
            for (auto [index, part] : llvm::enumerate(concat.getInputs())) {
              std::optional<int64_t> extent = constantExtent(part, *axis);
              IndexFunction expected = whole;
              expected.constant += whole.coefficients[*axis] * offset;
              if (extent == 1)
                expected.coefficients[*axis] = 0;
              if (*pieces[index] != expected)
                return std::nullopt;
              if (index + 1 < pieces.size()) {
                if (!extent)
                  return std::nullopt;
                offset += *extent;
              }
            }
            return whole;
          })
          .Case([&](AddOp op) -> std::optional<IndexFunction> {
            auto lhs = known(op.getLhs()), rhs = known(op.getRhs());
            if (!lhs || !rhs || lhs->kind != IndexFunction::Kind::Affine ||
                rhs->kind != IndexFunction::Kind::Affine)
              return std::nullopt;
            return add(*lhs, *rhs);
          })
          .Case([&](SubOp op) -> std::optional<IndexFunction> {
            auto lhs = known(op.getLhs()), rhs = known(op.getRhs());
            if (!lhs || !rhs || lhs->kind != IndexFunction::Kind::Affine ||
                rhs->kind != IndexFunction::Kind::Affine)
              return std::nullopt;
            return add(*lhs, negate(*rhs));
          })
          .Case([&](NegOp op) -> std::optional<IndexFunction> {
            auto input = known(op.getInput());
            if (!input || input->kind != IndexFunction::Kind::Affine)
              return std::nullopt;
            return negate(*input);
          })
          .Case([&](MulOp op) -> std::optional<IndexFunction> {
            auto lhs = known(op.getLhs()), rhs = known(op.getRhs());
            if (!lhs || !rhs || lhs->kind != IndexFunction::Kind::Affine ||
                rhs->kind != IndexFunction::Kind::Affine)
              return std::nullopt;
            if (!lhs->isUniform())
              std::swap(lhs, rhs);
            if (!lhs->isUniform())
              return std::nullopt;
            for (int64_t &coefficient : rhs->coefficients)
              coefficient *= lhs->constant;
            rhs->constant *= lhs->constant;
            return rhs;
          })
          .Case<EqualOp, LessOp, LessOrEqualOp, GreaterOp, GreaterOrEqualOp>(
              [&](Operation *comparison) -> std::optional<IndexFunction> {
                auto lhs = known(comparison->getOperand(0)), rhs = known(comparison->getOperand(1));
                if (!lhs || !rhs || lhs->kind != IndexFunction::Kind::Affine ||
                    rhs->kind != IndexFunction::Kind::Affine)
                  return std::nullopt;
                // lhs - rhs compared with 0; x < 0 is x + 1 <= 0 on integers.
                IndexFunction difference = add(*lhs, negate(*rhs));
                IndexFunction one = uniform(rank, 1);
                using Kind = IndexFunction::Kind;
                if (isa<EqualOp>(comparison))
                  return compare(difference, Kind::EqualZero);
                if (isa<LessOp>(comparison))
                  return compare(add(difference, one), Kind::LessOrEqualZero);
                if (isa<LessOrEqualOp>(comparison))
                  return compare(difference, Kind::LessOrEqualZero);
                if (isa<GreaterOp>(comparison))
                  return compare(add(negate(difference), one), Kind::LessOrEqualZero);
                return compare(negate(difference), Kind::LessOrEqualZero);
              })
          .Case([&](NotOp op) -> std::optional<IndexFunction> {
            auto input = known(op.getInput());
            if (!input)
              return std::nullopt;
            using Kind = IndexFunction::Kind;
            switch (input->kind) {
            case Kind::Affine:
              if (!input->isUniform())
                return std::nullopt;
              return uniform(rank, input->constant == 0);
            case Kind::LessOrEqualZero: // not (x <= 0) is -x + 1 <= 0
              return compare(add(negate(*input), uniform(rank, 1)), Kind::LessOrEqualZero);
            case Kind::EqualZero:
              return compare(*input, Kind::NotEqualZero);
            case Kind::NotEqualZero:
              return compare(*input, Kind::EqualZero);
            }
            return std::nullopt;
          })
          .Case<AndOp, OrOp>([&](Operation *logical) -> std::optional<IndexFunction> {
            auto lhs = known(logical->getOperand(0)), rhs = known(logical->getOperand(1));
            if (!lhs || !rhs)
              return std::nullopt;
            if (!lhs->uniformValue())
              std::swap(lhs, rhs);
            std::optional<int64_t> value = lhs->uniformValue();
            if (!value)
              return std::nullopt;
            // true and x = x, false or x = x; the others are uniform.
            bool identity = isa<AndOp>(logical) ? *value != 0 : *value == 0;
            return identity ? rhs : std::optional<IndexFunction>(uniform(rank, *value != 0));
          })
          .Case([&](WhereOp where) -> std::optional<IndexFunction> {
            auto condition = known(where.getCondition());
            if (condition && condition->uniformValue())
              return known(*condition->uniformValue() ? where.getLhs() : where.getRhs());
            auto lhs = known(where.getLhs()), rhs = known(where.getRhs());
            if (lhs && rhs && *lhs == *rhs)
              return lhs;
            return std::nullopt;
          })
          .Case([&](CastOp cast) -> std::optional<IndexFunction> {
            auto input = known(cast.getInput());
            if (!input || !isIndexLike(cast.getInput()))
              return std::nullopt;
            if (isBool(result)) {
              // x != 0.
              if (input->kind == IndexFunction::Kind::Affine && !isBool(cast.getInput()))
                return compare(*input, IndexFunction::Kind::NotEqualZero);
              return input;
            }
            // A boolean becomes 0 or 1, which only a uniform one is here. Integers keep
            // their values where the result's width holds them: a uniform value that fits,
            // a varying one only as (or from a narrower type to) the source's width.
            unsigned width = cast.getType().getElementType().getIntOrFloatBitWidth();
            unsigned sourceWidth =
                cast.getInput().getType().getElementType().getIntOrFloatBitWidth();
            if (std::optional<int64_t> value = input->uniformValue()) {
              if (width < 64 && !llvm::isIntN(width, *value))
                return std::nullopt;
              return uniform(rank, *value);
            }
            if (isBool(cast.getInput()) || width < sourceWidth)
              return std::nullopt;
            return input;
          })
          .Case<MaxOp, MinOp>([&](Operation *extreme) -> std::optional<IndexFunction> {
            std::optional<int64_t> best;
            for (Value operand : extreme->getOperands()) {
              auto input = known(operand);
              std::optional<int64_t> value = input ? input->uniformValue() : std::nullopt;
              if (!value)
                return std::nullopt;
              best = !best                 ? *value
                     : isa<MaxOp>(extreme) ? std::max(*best, *value)
                                           : std::min(*best, *value);
            }
            return uniform(rank, *best);
          })
          .Case([&](CumSumOp cumsum) -> std::optional<IndexFunction> {
            // Running sums of a uniform c: c * (i + 1), or c * i exclusive; reversed, only
            // zeros are known (they would need the extent).
            const IndexFunction *input = lookup(cumsum.getInput());
            auto axis = constantElements(cumsum.getAxis());
            std::optional<int64_t> value = input ? input->uniformValue() : std::nullopt;
            if (!value || !axis || axis->size() != 1 || input->kind != IndexFunction::Kind::Affine)
              return std::nullopt;
            std::optional<int64_t> dim = normalizeAxis(axis->front(), rank);
            if (!dim || (cumsum.getReverse() && *value != 0))
              return std::nullopt;
            IndexFunction sums = uniform(rank, cumsum.getExclusive() ? 0 : *value);
            sums.coefficients[*dim] = *value;
            return sums;
          })
          .Case<GatherOp, GatherNDOp>([&](Operation *gather) -> std::optional<IndexFunction> {
            const IndexFunction *data = lookup(gather->getOperand(0));
            std::optional<int64_t> value = data ? data->uniformValue() : std::nullopt;
            if (!value || data->kind != IndexFunction::Kind::Affine)
              return std::nullopt;
            return uniform(rank, *value);
          })
          .Default([](Operation *) { return std::nullopt; });
  if (!function || static_cast<int64_t>(function->coefficients.size()) != rank)
    return;
  // A dimension of extent 1 has one index, 0: its coefficient says nothing.
  auto type = cast<RankedTensorType>(result.getType());
  for (int64_t dim = 0; dim < rank; ++dim)
    if (type.getDimSize(dim) == 1)
      function->coefficients[dim] = 0;
  functions[result] = *function;
}

} // namespace kiln::graph
