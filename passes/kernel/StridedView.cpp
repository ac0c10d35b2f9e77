//===- StridedView.cpp - What a chain of view ops reads of a kernel buffer ------===//
//
// The analysis walks the chain from the buffer to the value, keeping each dimension of the
// current view as a list of spans (extent, stride), outer to inner: a reshape may merge
// dimensions that are not contiguous (the heads and batch of a sequence-first [S, B, H*D]
// buffer become one [B*H] axis), and a later reshape or the final result splits them
// again. A reshape is row-major over the whole tensor, so it flattens the spans, merges
// the contiguous ones into runs, and cuts the result's dimensions off them: a static
// extent from either end (splitting a run by a divisor of its extent), the one dynamic
// extent in between taking what remains. At the end every dimension must be one span.
//
//===----------------------------------------------------------------------===//

#include "passes/kernel/StridedView.h"

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
namespace graph = kiln::graph;
using kiln::ExtentProduct;
using kiln::KernelExtent;

ExtentProduct ExtentProduct::operator*(const ExtentProduct &other) const {
  ExtentProduct product;
  product.factor = factor * other.factor;
  if (product.factor == 0)
    return product;
  product.extents = extents;
  product.extents.append(other.extents.begin(), other.extents.end());
  llvm::sort(product.extents);
  return product;
}

std::optional<ExtentProduct> ExtentProduct::divide(int64_t divisor) const {
  if (divisor == 0 || factor % divisor != 0)
    return std::nullopt;
  ExtentProduct quotient = *this;
  quotient.factor /= divisor;
  return quotient;
}

std::string ExtentProduct::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << factor;
  for (const KernelExtent &extent : extents) {
    os << "*a" << extent.argument;
    if (extent.dim >= 0)
      os << ".d" << extent.dim;
  }
  return text;
}

namespace {

/// One run of a view's dimension: `extent` indices `stride` elements apart.
struct Span {
  ExtentProduct extent, stride;
};

/// A dimension of the view being built: its spans, outer to inner.
using Dim = SmallVector<Span, 2>;

struct View {
  int argument = -1;
  SmallVector<ExtentProduct> offset;
  SmallVector<Dim> dims;
};

bool isOne(const ExtentProduct &extent) { return extent.isStatic() && extent.value() == 1; }

/// `spans` without extents of 1, adjacent contiguous spans merged.
Dim normalize(ArrayRef<Span> spans) {
  Dim result;
  for (const Span &span : spans) {
    if (isOne(span.extent))
      continue;
    if (!result.empty() && result.back().stride == span.stride * span.extent) {
      result.back() = {result.back().extent * span.extent, span.stride};
      continue;
    }
    result.push_back(span);
  }
  return result;
}

/// `dim` as one span (extent 1 when it has none), or nullopt.
std::optional<Span> collapse(ArrayRef<Span> dim) {
  Dim spans = normalize(dim);
  if (spans.empty())
    return Span{ExtentProduct::constant(1), ExtentProduct::constant(0)};
  if (spans.size() != 1)
    return std::nullopt;
  return spans.front();
}

View rowMajor(int argument, MemRefType type) {
  View view;
  view.argument = argument;
  view.dims.resize(type.getRank());
  ExtentProduct stride = ExtentProduct::constant(1);
  for (int64_t dim = type.getRank() - 1; dim >= 0; --dim) {
    ExtentProduct extent = type.isDynamicDim(dim) ? ExtentProduct::of({argument, int(dim)})
                                                  : ExtentProduct::constant(type.getDimSize(dim));
    view.dims[dim] = {Span{extent, stride}};
    stride = stride * extent;
  }
  return view;
}

/// Cuts dimensions of static extents off the ends of a run list (a reshape's operand).
class Cutter {
public:
  explicit Cutter(Dim spans) : spans(std::move(spans)) {}

  /// The inner `extent` elements (`fromBack`) or the outer `extent` indices: spans taken
  /// whole off that end, the last one split (a run of N = a * b elements at stride s is a
  /// outer indices at stride b * s, of b inner ones at stride s).
  std::optional<Dim> take(int64_t extent, bool fromBack) {
    Dim taken;
    int64_t remaining = extent;
    while (remaining != 1) {
      if (spans.empty())
        return std::nullopt;
      Span &span = fromBack ? spans.back() : spans.front();
      if (span.extent.isStatic() && remaining % span.extent.value() == 0) {
        remaining /= span.extent.value();
        taken.insert(fromBack ? taken.begin() : taken.end(), span);
        spans.erase(fromBack ? spans.end() - 1 : spans.begin());
        continue;
      }
      std::optional<ExtentProduct> rest = span.extent.divide(remaining);
      if (!rest)
        return std::nullopt;
      ExtentProduct piece = ExtentProduct::constant(remaining);
      if (fromBack) {
        taken.insert(taken.begin(), Span{piece, span.stride});
        span = {*rest, span.stride * piece};
      } else {
        taken.push_back(Span{piece, span.stride * *rest});
        span = {*rest, span.stride};
      }
      remaining = 1;
    }
    return taken;
  }

  Dim &rest() { return spans; }

private:
  Dim spans;
};

/// The kernel symbol behind entry `dim` of a reshape's shape (a tensor.from_elements of
/// index casts of the kernel's symbols, as kernel formation writes a run-time shape).
std::optional<KernelExtent> reshapeSymbol(Value shape, int64_t dim,
                                          const kiln::StridedViewSources &sources) {
  auto elements = shape.getDefiningOp<tensor::FromElementsOp>();
  if (!elements || dim >= int64_t(elements.getElements().size()) || !sources.symbolOf)
    return std::nullopt;
  Value value = elements.getElements()[dim];
  while (Operation *op = value.getDefiningOp()) {
    if (!isa<arith::IndexCastOp, arith::IndexCastUIOp>(op))
      break;
    value = op->getOperand(0);
  }
  int symbol = sources.symbolOf(value);
  if (symbol < 0)
    return std::nullopt;
  return KernelExtent{symbol, -1};
}

/// `view` reshaped (row major) to `type`; `shape` is the reshape's shape operand, if any.
std::optional<View> reshape(View view, RankedTensorType type, Value shape,
                            const kiln::StridedViewSources &sources) {
  Dim flat;
  for (const Dim &dim : view.dims)
    flat.append(dim.begin(), dim.end());
  Cutter cutter(normalize(flat));
  ArrayRef<int64_t> target = type.getShape();
  int64_t rank = target.size();
  SmallVector<int64_t> dynamic;
  for (int64_t dim = 0; dim < rank; ++dim)
    if (type.isDynamicDim(dim))
      dynamic.push_back(dim);
  int64_t first = dynamic.empty() ? rank : dynamic.front();
  int64_t last = dynamic.empty() ? rank - 1 : dynamic.back();
  view.dims.assign(rank, Dim());
  for (int64_t dim = rank - 1; dim > last; --dim) {
    std::optional<Dim> taken = cutter.take(target[dim], /*fromBack=*/true);
    if (!taken)
      return std::nullopt;
    view.dims[dim] = std::move(*taken);
  }
  for (int64_t dim = 0; dim < first; ++dim) {
    std::optional<Dim> taken = cutter.take(target[dim], /*fromBack=*/false);
    if (!taken)
      return std::nullopt;
    view.dims[dim] = std::move(*taken);
  }
  Dim rest = normalize(cutter.rest());
  if (dynamic.empty())
    return rest.empty() ? std::optional(view) : std::nullopt;
  if (first == last) {
    // The one run-time extent: whatever the static ones leave.
    view.dims[first] = std::move(rest);
    return view;
  }
  // Several run-time extents between `first` and `last`: they split one contiguous run
  // row major, by their extents (the shape's symbols).
  if (rest.size() > 1)
    return std::nullopt;
  ExtentProduct stride = rest.empty() ? ExtentProduct::constant(0) : rest.front().stride;
  for (int64_t dim = last; dim >= first; --dim) {
    ExtentProduct extent = ExtentProduct::constant(target[dim]);
    if (type.isDynamicDim(dim)) {
      std::optional<KernelExtent> symbol = reshapeSymbol(shape, dim, sources);
      if (!symbol)
        return std::nullopt;
      extent = ExtentProduct::of(*symbol);
    }
    view.dims[dim] = {Span{extent, stride}};
    stride = stride * extent;
  }
  return view;
}

std::optional<View> slice(View view, graph::SliceOp op) {
  std::optional<SmallVector<int64_t>> starts = graph::getConstantInts(op.getStarts());
  std::optional<SmallVector<int64_t>> ends = graph::getConstantInts(op.getEnds());
  if (!starts || !ends || starts->size() != ends->size())
    return std::nullopt;
  int64_t rank = view.dims.size();
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
  SmallVector<int64_t> steps(starts->size(), 1);
  if (op.getAxes()) {
    std::optional<SmallVector<int64_t>> values = graph::getConstantInts(op.getAxes());
    if (!values || values->size() != starts->size())
      return std::nullopt;
    axes = *values;
  }
  if (op.getSteps()) {
    std::optional<SmallVector<int64_t>> values = graph::getConstantInts(op.getSteps());
    if (!values || values->size() != starts->size())
      return std::nullopt;
    steps = *values;
  }
  for (auto [axis, start, end, step] : llvm::zip_equal(axes, *starts, *ends, steps)) {
    if (axis < -rank || axis >= rank)
      return std::nullopt;
    Dim &dim = view.dims[axis < 0 ? axis + rank : axis];
    // Forward steps only: a view's strides are not negative.
    std::optional<Span> span = collapse(dim);
    if (!span || !span->extent.isStatic() || step <= 0)
      return std::nullopt;
    graph::SliceRange range = graph::resolveSliceRange(span->extent.value(), start, end, step);
    view.offset.push_back(span->stride * ExtentProduct::constant(range.start));
    dim = {
        Span{ExtentProduct::constant(range.count), span->stride * ExtentProduct::constant(step)}};
  }
  return view;
}

std::optional<View> gather(View view, graph::GatherOp op) {
  std::optional<SmallVector<int64_t>> indices = graph::getConstantInts(op.getIndices());
  auto indicesType = dyn_cast<RankedTensorType>(op.getIndices().getType());
  int64_t rank = view.dims.size(), axis = op.getAxis();
  if (!indices || !indicesType || indices->size() != 1 || indicesType.getRank() > 1 ||
      axis < -rank || axis >= rank)
    return std::nullopt;
  axis = axis < 0 ? axis + rank : axis;
  std::optional<Span> span = collapse(view.dims[axis]);
  if (!span)
    return std::nullopt;
  int64_t index = indices->front();
  if (index < 0) {
    if (!span->extent.isStatic())
      return std::nullopt;
    index += span->extent.value();
  }
  view.offset.push_back(span->stride * ExtentProduct::constant(index));
  // A scalar index drops the axis; one of shape [1] keeps it with extent 1.
  if (indicesType.getRank() == 0)
    view.dims.erase(view.dims.begin() + axis);
  else
    view.dims[axis].clear();
  return view;
}

std::optional<View> buildView(Value value, const kiln::StridedViewSources &sources, int depth) {
  if (depth > 32)
    return std::nullopt;
  if (int argument = sources.argumentOf(value); argument >= 0) {
    MemRefType type = sources.bufferType(argument);
    if (!type)
      return std::nullopt;
    return rowMajor(argument, type);
  }
  Operation *op = value.getDefiningOp();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!op || !type || op->getNumOperands() == 0)
    return std::nullopt;
  if (!isa<graph::ReshapeOp, graph::SqueezeOp, graph::UnsqueezeOp, graph::FlattenOp,
           graph::TransposeOp, graph::SliceOp, graph::GatherOp>(op))
    return std::nullopt;
  std::optional<View> input = buildView(op->getOperand(0), sources, depth + 1);
  if (!input)
    return std::nullopt;
  if (auto reshapeOp = dyn_cast<graph::ReshapeOp>(op))
    return reshape(std::move(*input), type, reshapeOp.getShape(), sources);
  if (isa<graph::SqueezeOp, graph::UnsqueezeOp, graph::FlattenOp>(op))
    return reshape(std::move(*input), type, Value(), sources);
  if (auto transpose = dyn_cast<graph::TransposeOp>(op)) {
    ArrayRef<int64_t> perm = transpose.getPerm();
    if (perm.size() != input->dims.size())
      return std::nullopt;
    View result = *input;
    for (auto [dim, from] : llvm::enumerate(perm))
      result.dims[dim] = input->dims[from];
    return result;
  }
  if (auto sliceOp = dyn_cast<graph::SliceOp>(op))
    return slice(std::move(*input), sliceOp);
  return gather(std::move(*input), cast<graph::GatherOp>(op));
}

/// `view` with every dimension one span, checked against `type` (where the type knows an
/// extent the analysis left to run time, the type's holds).
std::optional<kiln::StridedView> finish(const View &view, ShapedType type) {
  if (!type || !type.hasRank() || int64_t(view.dims.size()) != type.getRank())
    return std::nullopt;
  kiln::StridedView result;
  result.argument = view.argument;
  for (const ExtentProduct &term : view.offset)
    if (term.factor != 0)
      result.offset.push_back(term);
  for (const Dim &dim : view.dims) {
    std::optional<Span> span = collapse(dim);
    if (!span)
      return std::nullopt;
    result.extents.push_back(span->extent);
    result.strides.push_back(span->stride);
  }
  for (auto [extent, size] : llvm::zip_equal(result.extents, type.getShape())) {
    if (ShapedType::isDynamic(size))
      continue;
    if (extent.isStatic() && extent.value() != size)
      return std::nullopt;
    extent = ExtentProduct::constant(size);
  }
  return result;
}

} // namespace

std::optional<kiln::StridedView> kiln::matchStridedView(Value value,
                                                        const StridedViewSources &sources) {
  std::optional<View> view = buildView(value, sources, 0);
  if (!view)
    return std::nullopt;
  return finish(*view, dyn_cast<ShapedType>(value.getType()));
}

std::optional<kiln::StridedView> kiln::matchStoredView(Value result, Value stored, int argument,
                                                       const StridedViewSources &sources) {
  // The rearrangements from `result` to `stored`, last first.
  SmallVector<Operation *> chain;
  for (Value current = stored; current != result;) {
    Operation *op = current.getDefiningOp();
    if (!op || op->getNumOperands() == 0 || chain.size() > 32 ||
        !isa<graph::TransposeOp, graph::ReshapeOp, graph::FlattenOp, graph::SqueezeOp,
             graph::UnsqueezeOp>(op))
      return std::nullopt;
    chain.push_back(op);
    current = op->getOperand(0);
  }
  MemRefType type = sources.bufferType(argument);
  auto storedType = dyn_cast<RankedTensorType>(stored.getType());
  if (!type || !storedType || type.getRank() != storedType.getRank())
    return std::nullopt;
  // The buffer as `stored`, then undo each rearrangement: the view of the buffer that each
  // op's input is.
  View view = rowMajor(argument, type);
  for (Operation *op : chain) {
    auto inputType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!inputType)
      return std::nullopt;
    if (auto transpose = dyn_cast<graph::TransposeOp>(op)) {
      ArrayRef<int64_t> perm = transpose.getPerm();
      if (perm.size() != view.dims.size())
        return std::nullopt;
      SmallVector<Dim> dims(view.dims.size());
      for (auto [dim, from] : llvm::enumerate(perm))
        dims[from] = view.dims[dim];
      view.dims = std::move(dims);
      continue;
    }
    std::optional<View> reshaped = reshape(std::move(view), inputType, Value(), sources);
    if (!reshaped)
      return std::nullopt;
    view = std::move(*reshaped);
  }
  return finish(view, dyn_cast<ShapedType>(result.getType()));
}
