//===- ConvTransposeToConv.cpp - Transposed convolutions as convolutions --===//
//
// graph-conv-transpose-to-conv: a transposed convolution scatters each input element
// through the filter into the output; gathered, output position y = s q + r (stride s,
// phase r < s) sums the taps k with k d - pb = s (q - i) + r (dilation d, padding pb):
//
//   Y[n, o, s q + r] = sum over c and such k of X[n, c, q + off(k)] W[c, o, k],
//   off(k) = -floor((k d - pb) / s), each tap in exactly one phase.
//
// So each phase is a stride-1 correlation of the input, and all phases together one
// convolution with s^k times the output channels: its window spans every tap's offset
// (m0 = min off .. m1 = max off), its filter (r, o) holds W[c, o, k] at off(k) - m0 for
// the taps of phase r and zeros elsewhere, its padding is -m0 before (the input cropped
// where that is negative) and what makes ceil(OL / s) outputs after. A depth-to-space
// rearrangement, channels last, interleaves the phases ([N, Q1, .., Qk, s1, .., sk, O] ->
// [N, Q1 s1, .., Qk sk, O]: one transpose whose rows are whole pixels) and a slice keeps
// the OL outputs of each axis. Where the kernel
// is the stride (a U-Net's 2x2, stride 2 upsampling) every filter has one tap and no zeros:
// a GEMM and a rearrangement. Other kernels multiply some zeros (4x4 stride 2: a 3x3
// window of which each phase uses 2x2) in exchange for one implicit-GEMM convolution on
// the tensor cores. A 2-D one whose union multiplies 1.25x or more of what its row phases
// need is one convolution per row phase instead (its own rows' taps, the columns' union:
// 4x4 stride 2 multiplies 1.5x its taps instead of 2.25x), whose results are every s1-th
// output row, interleaved by a concatenation of whole rows. graph-convolutions-to-2d then
// makes 1-D and 3-D ones 2-D.
//
// Taken: one group, a constant weight, static extents but the batch.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/ConstantBytes.h"
#include "passes/graph/GraphBuilders.h"
#include "passes/graph/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHCONVTRANSPOSETOCONV
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// floor(a / b) for b > 0.
int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// One spatial axis of the rewrite.
struct Axis {
  int64_t stride, dilation, kernel, padBegin;
  int64_t inputExtent, outputExtent;
  /// The input offset tap k reads, relative to the phase's output position q.
  int64_t offset(int64_t k) const { return -floorDiv(k * dilation - padBegin, stride); }
  /// The phase (output position mod the stride) tap k writes.
  int64_t phase(int64_t k) const {
    int64_t r = (k * dilation - padBegin) % stride;
    return r < 0 ? r + stride : r;
  }
  int64_t firstOffset() const { return std::min(offset(0), offset(kernel - 1)); }
  int64_t window() const { return std::max(offset(0), offset(kernel - 1)) - firstOffset() + 1; }
  /// Outputs of each phase: ceil(OL / s) (the last phases' extra ones are sliced off).
  int64_t phaseExtent() const { return (outputExtent + stride - 1) / stride; }
  /// Phase r's window (its taps' least offset and the extent to the greatest), or nothing
  /// when it has no tap.
  std::optional<std::pair<int64_t, int64_t>> phaseWindow(int64_t r) const {
    std::optional<std::pair<int64_t, int64_t>> span;
    for (int64_t k = 0; k < kernel; ++k) {
      if (phase(k) != r)
        continue;
      int64_t low = span ? std::min(span->first, offset(k)) : offset(k);
      int64_t high = span ? std::max(span->first + span->second - 1, offset(k)) : offset(k);
      span = std::make_pair(low, high - low + 1);
    }
    return span;
  }
};

/// What one convolution of the rewrite computes: along the axes before `firstUnion`, the
/// taps of one phase each (`fixedPhase`), in that phase's window; along the others the
/// union of every phase's window, with the phases as output channels (r_firstUnion ..
/// r_k, o), zeros where a phase has no tap.
struct PhaseConv {
  size_t firstUnion = 0;
  SmallVector<int64_t> fixedPhase;
  SmallVector<int64_t> first, window; // per axis: the window's least offset and extent
  int64_t phases = 1;                 // of the union axes
};

/// Its filters [phases * O, C, window..]: W[c, o, k] at window position off(k) - first.
std::vector<char> phaseFilters(ArrayRef<Axis> axes, const PhaseConv &conv, ArrayRef<char> weight,
                               unsigned bytes, int64_t c, int64_t o) {
  int64_t spatial = axes.size(), taps = 1, windowSize = 1;
  for (int64_t i = 0; i < spatial; ++i) {
    taps *= axes[i].kernel;
    windowSize *= conv.window[i];
  }
  std::vector<char> filters(size_t(conv.phases * o * c * windowSize) * bytes, 0);
  for (int64_t tap = 0; tap < taps; ++tap) {
    // Tap (k1..kk) -> its phase over the union axes and window position, row major.
    int64_t rest = tap, phase = 0, position = 0, phaseStride = 1, positionStride = 1;
    bool taken = true;
    for (int64_t i = spatial - 1; i >= 0; --i) {
      const Axis &axis = axes[i];
      int64_t k = rest % axis.kernel;
      rest /= axis.kernel;
      if (size_t(i) < conv.firstUnion) {
        taken &= axis.phase(k) == conv.fixedPhase[i];
      } else {
        phase += axis.phase(k) * phaseStride;
        phaseStride *= axis.stride;
      }
      position += (axis.offset(k) - conv.first[i]) * positionStride;
      positionStride *= conv.window[i];
    }
    if (!taken)
      continue;
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t oi = 0; oi < o; ++oi)
        std::copy_n(weight.data() + ((ci * o + oi) * taps + tap) * bytes, bytes,
                    filters.data() + (((phase * o + oi) * c + ci) * windowSize + position) * bytes);
  }
  return filters;
}

/// A stride-1 convolution of `input` [N, C, I..] giving `channels` outputs of ceil(OL / s)
/// positions per axis from `filter` [channels, C, window..] whose window position 0 reads
/// input offset `first` (per axis) relative to the output position: the input padded by
/// -first before and what makes the extent after, cropped where either is negative.
Value convolveWindow(OpBuilder &b, Location loc, ArrayRef<Axis> axes, Value input, Value filter,
                     Value bias, ArrayRef<int64_t> first, ArrayRef<int64_t> window,
                     int64_t channels, Type resultElement) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t spatial = axes.size(), n = inputType.getDimSize(0), c = inputType.getDimSize(1);
  SmallVector<int64_t> padsBefore, padsAfter, cropStart, cropEnd, croppedShape = {n, c};
  bool crop = false;
  for (int64_t i = 0; i < spatial; ++i) {
    const Axis &axis = axes[i];
    int64_t before = -first[i];
    int64_t after = axis.phaseExtent() - axis.inputExtent - before + window[i] - 1;
    cropStart.push_back(std::max<int64_t>(0, -before));
    cropEnd.push_back(axis.inputExtent - std::max<int64_t>(0, -after));
    crop |= before < 0 || after < 0;
    padsBefore.push_back(std::max<int64_t>(0, before));
    padsAfter.push_back(std::max<int64_t>(0, after));
    croppedShape.push_back(cropEnd.back() - cropStart.back());
  }
  if (crop) {
    SmallVector<int64_t> sliceAxes;
    for (int64_t i = 0; i < spatial; ++i)
      sliceAxes.push_back(2 + i);
    input = graph::SliceOp::create(
        b, loc, RankedTensorType::get(croppedShape, inputType.getElementType()), input,
        graph::createIndexConstant(b, loc, cropStart), graph::createIndexConstant(b, loc, cropEnd),
        graph::createIndexConstant(b, loc, sliceAxes), /*steps=*/Value());
  }
  SmallVector<int64_t> convShape = {n, channels}, unit(spatial, 1), convPads(padsBefore);
  convPads.append(padsAfter);
  for (const Axis &axis : axes)
    convShape.push_back(axis.phaseExtent());
  return graph::ConvOp::create(b, loc, RankedTensorType::get(convShape, resultElement), input,
                               filter, bias, b.getDenseI64ArrayAttr(unit),
                               b.getDenseI64ArrayAttr(unit), b.getDenseI64ArrayAttr(convPads),
                               b.getI64IntegerAttr(1), /*channels_last=*/UnitAttr());
}

struct GraphConvTransposeToConv
    : kiln::impl::GraphConvTransposeToConvBase<GraphConvTransposeToConv> {
  void runOnOperation() override {
    SmallVector<graph::ConvTransposeOp> ops;
    getOperation().walk([&](graph::ConvTransposeOp op) { ops.push_back(op); });
    for (graph::ConvTransposeOp op : ops)
      rewrite(op);
  }

  static void rewrite(graph::ConvTransposeOp op) {
    auto inputType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto weightType = dyn_cast<RankedTensorType>(op.getWeight().getType());
    auto resultType = dyn_cast<RankedTensorType>(op.getResult().getType());
    std::optional<std::vector<char>> weightBytes = graph::readConstantBytes(op.getWeight());
    if (!inputType || !weightType || !resultType || op.getGroup() != 1 || !weightBytes ||
        inputType.getRank() < 3 || weightType.getRank() != inputType.getRank() ||
        resultType.getRank() != inputType.getRank() ||
        llvm::any_of(inputType.getShape().drop_front(), ShapedType::isDynamic) ||
        llvm::any_of(resultType.getShape().drop_front(), ShapedType::isDynamic))
      return;
    int64_t spatial = inputType.getRank() - 2;
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations(), pads = op.getPads();
    if (int64_t(strides.size()) != spatial || int64_t(dilations.size()) != spatial ||
        int64_t(pads.size()) != 2 * spatial)
      return;
    SmallVector<Axis> axes;
    for (int64_t i = 0; i < spatial; ++i)
      axes.push_back({strides[i], dilations[i], weightType.getDimSize(2 + i), pads[i],
                      inputType.getDimSize(2 + i), resultType.getDimSize(2 + i)});

    OpBuilder b(op);
    Location loc = op.getLoc();
    Type resultElement = resultType.getElementType();
    int64_t n = inputType.getDimSize(0), c = inputType.getDimSize(1), o = resultType.getDimSize(1);
    unsigned bytes = graph::getElementBytes(weightType.getElementType());
    auto typed = [&](ArrayRef<int64_t> shape) {
      return RankedTensorType::get(shape, resultElement);
    };

    // The bias: a constant goes into each convolution (tiled per phase), one computed at
    // run time is added at the end.
    Value bias = op.getBias();
    std::optional<std::vector<char>> biasBytes;
    if (bias)
      biasBytes = graph::readConstantBytes(bias);
    auto tiledBias = [&](int64_t copies) -> Value {
      if (!biasBytes)
        return Value();
      std::vector<char> tiled;
      for (int64_t copy = 0; copy < copies; ++copy)
        tiled.insert(tiled.end(), biasBytes->begin(), biasBytes->end());
      auto biasType = cast<RankedTensorType>(bias.getType());
      return graph::createConstantFromBytes(
          b, bias.getLoc(), RankedTensorType::get({copies * o}, biasType.getElementType()), tiled,
          (graph::getResourceName(bias) + "_phases").str());
    };
    auto convolve = [&](const PhaseConv &conv, StringRef name) {
      SmallVector<int64_t> filterShape = {conv.phases * o, c};
      filterShape.append(conv.window);
      Value filter = graph::createConstantFromBytes(
          b, op.getWeight().getLoc(),
          RankedTensorType::get(filterShape, weightType.getElementType()),
          phaseFilters(axes, conv, *weightBytes, bytes, c, o),
          (graph::getResourceName(op.getWeight()) + name).str());
      return convolveWindow(b, loc, axes, op.getInput(), filter, tiledBias(conv.phases), conv.first,
                            conv.window, conv.phases * o, resultElement);
    };

    // The union convolution: every phase's window along every axis.
    PhaseConv all;
    for (const Axis &axis : axes) {
      all.first.push_back(axis.firstOffset());
      all.window.push_back(axis.window());
      all.phases *= axis.stride;
    }
    // 2-D, one convolution per row phase instead: the rows' own taps, the columns' union.
    // Its result, channels last, is every s1-th output row whole ([N, Q1, Q2 s2, O] once
    // the column phases are unfolded), so the rows interleave by a concatenation of
    // contiguous rows; taken where the union multiplies at least 1.25 times as much (4x4
    // stride 2: 2 x 2x3 windows of 2 phases against the union's 3x3 of 4, 24 products a
    // position against 36; the taps are 16).
    SmallVector<PhaseConv> rowConvs;
    if (spatial == 2) {
      int64_t rowProducts = 0;
      for (int64_t r = 0; r < axes[0].stride; ++r) {
        std::optional<std::pair<int64_t, int64_t>> rows = axes[0].phaseWindow(r);
        if (!rows) {
          rowConvs.clear();
          break;
        }
        PhaseConv conv;
        conv.firstUnion = 1;
        conv.fixedPhase = {r};
        conv.first = {rows->first, axes[1].firstOffset()};
        conv.window = {rows->second, axes[1].window()};
        conv.phases = axes[1].stride;
        rowProducts += conv.window[0] * conv.window[1] * conv.phases;
        rowConvs.push_back(conv);
      }
      int64_t unionProducts = all.phases * all.window[0] * all.window[1];
      if (!rowConvs.empty() && 4 * unionProducts < 5 * rowProducts)
        rowConvs.clear();
    }

    // Interleaved channels last (the layout the convolution templates write; the layout
    // pass cancels the transposes out of the convolutions and back to channels first):
    // [N, Q1 s1, .., Qk sk, O].
    SmallVector<int64_t> toLast = {0}, toFirst = {0, spatial + 1};
    for (int64_t i = 0; i < spatial; ++i) {
      toLast.push_back(2 + i);
      toFirst.push_back(1 + i);
    }
    toLast.push_back(1);
    SmallVector<int64_t> fullShape = {n}, fullTarget = {0};
    for (const Axis &axis : axes) {
      fullShape.push_back(axis.phaseExtent() * axis.stride);
      fullTarget.push_back(axis.phaseExtent() * axis.stride);
    }
    fullShape.push_back(o);
    fullTarget.push_back(o);
    auto channelsLast = [&](Value product, int64_t channels) {
      SmallVector<int64_t> shape = {n};
      for (const Axis &axis : axes)
        shape.push_back(axis.phaseExtent());
      shape.push_back(channels);
      return graph::TransposeOp::create(b, loc, typed(shape), product,
                                        b.getDenseI64ArrayAttr(toLast))
          .getResult();
    };
    Value result;
    if (!rowConvs.empty()) {
      // Row phase r: [N, Q1, Q2, (r2, o)] -> [N, Q1, 1, Q2 s2, O]; concatenated along
      // the row phases and merged with Q1: rows s1 q1 + r.
      const Axis &columns = axes[1];
      int64_t q1 = axes[0].phaseExtent(), widths = columns.phaseExtent() * columns.stride;
      SmallVector<Value> rows;
      // (The target shape's 0 keeps the batch, which may be known only at run time.)
      SmallVector<int64_t> rowShape = {n, q1, 1, widths, o}, rowTarget = {0, q1, 1, widths, o};
      for (auto [r, conv] : llvm::enumerate(rowConvs)) {
        Value product = convolve(conv, "_rows" + std::to_string(r));
        rows.push_back(graph::createReshape(b, loc, channelsLast(product, conv.phases * o),
                                            rowTarget, typed(rowShape)));
      }
      SmallVector<int64_t> joinedShape = {n, q1, axes[0].stride, widths, o};
      Value joined =
          graph::ConcatOp::create(b, loc, typed(joinedShape), rows, b.getI64IntegerAttr(2));
      result = graph::createReshape(b, loc, joined, fullTarget, typed(fullShape));
    } else {
      // [N, Q1..Qk, s1..sk, O] -> [N, Q1, s1, .., Qk, sk, O] -> [N, Q1 s1, .., Qk sk, O].
      Value product = convolve(all, "_phases");
      SmallVector<int64_t> split = {n}, splitTarget = {0}, perm = {0}, interleavedShape = {n};
      for (const Axis &axis : axes) {
        split.push_back(axis.phaseExtent());
        splitTarget.push_back(axis.phaseExtent());
      }
      for (const Axis &axis : axes) {
        split.push_back(axis.stride);
        splitTarget.push_back(axis.stride);
      }
      split.push_back(o);
      splitTarget.push_back(o);
      for (int64_t i = 0; i < spatial; ++i) {
        perm.push_back(1 + i);
        perm.push_back(1 + spatial + i);
        interleavedShape.push_back(axes[i].phaseExtent());
        interleavedShape.push_back(axes[i].stride);
      }
      perm.push_back(1 + 2 * spatial);
      interleavedShape.push_back(o);
      Value phased = graph::createReshape(b, loc, channelsLast(product, all.phases * o),
                                          splitTarget, typed(split));
      // (1-D: the phases already follow their position.)
      Value interleaved = spatial == 1
                              ? phased
                              : graph::TransposeOp::create(b, loc, typed(interleavedShape), phased,
                                                           b.getDenseI64ArrayAttr(perm));
      result = graph::createReshape(b, loc, interleaved, fullTarget, typed(fullShape));
    }

    // Sliced to the output's extents, then channels first.
    SmallVector<int64_t> outputShape = {n}, outputEnds, sliceAxes;
    bool slice = false;
    for (int64_t i = 0; i < spatial; ++i) {
      outputShape.push_back(axes[i].outputExtent);
      outputEnds.push_back(axes[i].outputExtent);
      sliceAxes.push_back(1 + i);
      slice |= fullShape[1 + i] != axes[i].outputExtent;
    }
    outputShape.push_back(o);
    if (slice)
      result = graph::SliceOp::create(
          b, loc, typed(outputShape), result,
          graph::createIndexConstant(b, loc, SmallVector<int64_t>(spatial, 0)),
          graph::createIndexConstant(b, loc, outputEnds),
          graph::createIndexConstant(b, loc, sliceAxes), /*steps=*/Value());
    result =
        graph::TransposeOp::create(b, loc, resultType, result, b.getDenseI64ArrayAttr(toFirst));
    if (bias && !biasBytes) {
      // A bias computed at run time: [O] -> [O, 1, .., 1], broadcast.
      SmallVector<int64_t> biasShape = {o};
      biasShape.append(spatial, 1);
      Value column = graph::createReshape(
          b, loc, bias, biasShape,
          RankedTensorType::get(biasShape, getElementTypeOrSelf(bias.getType())));
      result = graph::AddOp::create(b, loc, TypeRange{resultType}, ValueRange{result, column});
    }
    op.getResult().replaceAllUsesWith(result);
    op.erase();
  }
};

} // namespace
