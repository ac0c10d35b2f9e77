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
// the tensor cores. graph-convolutions-to-2d then makes 1-D and 3-D ones 2-D.
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
};

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
    Type element = inputType.getElementType();
    int64_t n = inputType.getDimSize(0), c = inputType.getDimSize(1), o = resultType.getDimSize(1);
    int64_t phases = 1;
    for (const Axis &axis : axes)
      phases *= axis.stride;

    // The filters [(r1..rk, o), c, t1..tk]: W[c, o, k] where tap k lies in phase r at
    // window position off(k) - m0 of every axis, zero elsewhere.
    unsigned bytes = graph::getElementBytes(weightType.getElementType());
    SmallVector<int64_t> filterShape = {phases * o, c};
    int64_t windowSize = 1, taps = 1;
    for (const Axis &axis : axes) {
      filterShape.push_back(axis.window());
      windowSize *= axis.window();
      taps *= axis.kernel;
    }
    std::vector<char> filters(size_t(phases * o * c * windowSize) * bytes, 0);
    for (int64_t tap = 0; tap < taps; ++tap) {
      // Tap (k1..kk) -> its phase (r1..rk) and window position (t1..tk), row major.
      int64_t rest = tap, phase = 0, position = 0, phaseStride = 1, positionStride = 1;
      for (int64_t i = spatial - 1; i >= 0; --i) {
        const Axis &axis = axes[i];
        int64_t k = rest % axis.kernel;
        rest /= axis.kernel;
        phase += axis.phase(k) * phaseStride;
        position += (axis.offset(k) - axis.firstOffset()) * positionStride;
        phaseStride *= axis.stride;
        positionStride *= axis.window();
      }
      for (int64_t ci = 0; ci < c; ++ci)
        for (int64_t oi = 0; oi < o; ++oi)
          std::copy_n(weightBytes->data() + ((ci * o + oi) * taps + tap) * bytes, bytes,
                      filters.data() +
                          (((phase * o + oi) * c + ci) * windowSize + position) * bytes);
    }
    Value filter = graph::createConstantFromBytes(
        b, op.getWeight().getLoc(), RankedTensorType::get(filterShape, weightType.getElementType()),
        filters, (graph::getResourceName(op.getWeight()) + "_phases").str());

    // The padding: -m0 before, what makes ceil(OL / s) outputs after; the input cropped
    // where either is negative.
    SmallVector<int64_t> padsBefore, padsAfter, cropStart, cropEnd, croppedShape = {n, c};
    bool crop = false;
    for (const Axis &axis : axes) {
      int64_t before = -axis.firstOffset();
      int64_t after = axis.phaseExtent() - axis.inputExtent - before + axis.window() - 1;
      cropStart.push_back(std::max<int64_t>(0, -before));
      cropEnd.push_back(axis.inputExtent - std::max<int64_t>(0, -after));
      crop |= before < 0 || after < 0;
      padsBefore.push_back(std::max<int64_t>(0, before));
      padsAfter.push_back(std::max<int64_t>(0, after));
      croppedShape.push_back(cropEnd.back() - cropStart.back());
    }
    Value input = op.getInput();
    if (crop) {
      SmallVector<int64_t> sliceAxes;
      for (int64_t i = 0; i < spatial; ++i)
        sliceAxes.push_back(2 + i);
      input =
          graph::SliceOp::create(b, loc, RankedTensorType::get(croppedShape, element), input,
                                 graph::createIndexConstant(b, loc, cropStart),
                                 graph::createIndexConstant(b, loc, cropEnd),
                                 graph::createIndexConstant(b, loc, sliceAxes), /*steps=*/Value());
    }

    // The bias of every phase's filters (a constant tiled), else added after.
    Value bias = op.getBias();
    Value convBias;
    if (bias) {
      if (std::optional<std::vector<char>> biasBytes = graph::readConstantBytes(bias)) {
        std::vector<char> tiled;
        for (int64_t phase = 0; phase < phases; ++phase)
          tiled.insert(tiled.end(), biasBytes->begin(), biasBytes->end());
        auto biasType = cast<RankedTensorType>(bias.getType());
        convBias = graph::createConstantFromBytes(
            b, bias.getLoc(), RankedTensorType::get({phases * o}, biasType.getElementType()), tiled,
            (graph::getResourceName(bias) + "_phases").str());
        bias = Value();
      }
    }

    SmallVector<int64_t> convShape = {n, phases * o}, unit(spatial, 1), convPads(padsBefore);
    convPads.append(padsAfter);
    for (const Axis &axis : axes)
      convShape.push_back(axis.phaseExtent());
    Value product = graph::ConvOp::create(
        b, loc, RankedTensorType::get(convShape, resultType.getElementType()), input, filter,
        convBias, b.getDenseI64ArrayAttr(unit), b.getDenseI64ArrayAttr(unit),
        b.getDenseI64ArrayAttr(convPads), op.getGroupAttr(), /*channels_last=*/UnitAttr());

    // Interleaved channels last (the layout the convolution templates write; the layout
    // pass cancels the transposes out of the convolution and back to channels first):
    // [N, Q1..Qk, s1..sk, O] -> [N, Q1, s1, .., Qk, sk, O] -> [N, Q1 s1, .., Qk sk, O],
    // sliced to the output's extents, then channels first.
    Type resultElement = resultType.getElementType();
    auto typed = [&](ArrayRef<int64_t> shape) {
      return RankedTensorType::get(shape, resultElement);
    };
    SmallVector<int64_t> toLast = {0}, toFirst = {0, spatial + 1};
    for (int64_t i = 0; i < spatial; ++i) {
      toLast.push_back(2 + i);
      toFirst.push_back(1 + i);
    }
    toLast.push_back(1);
    Value channelsLast = graph::TransposeOp::create(b, loc, typed([&] {
                                                      SmallVector<int64_t> shape = {n};
                                                      for (const Axis &axis : axes)
                                                        shape.push_back(axis.phaseExtent());
                                                      shape.push_back(phases * o);
                                                      return shape;
                                                    }()),
                                                    product, b.getDenseI64ArrayAttr(toLast));
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
    Value phased = graph::createReshape(b, loc, channelsLast, splitTarget, typed(split));
    // (1-D: the phases already follow their position.)
    Value interleaved = spatial == 1
                            ? phased
                            : graph::TransposeOp::create(b, loc, typed(interleavedShape), phased,
                                                         b.getDenseI64ArrayAttr(perm));
    SmallVector<int64_t> fullShape = {n}, fullTarget = {0}, outputShape = {n}, outputEnds,
                         sliceAxes;
    bool slice = false;
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t extent = axes[i].phaseExtent() * axes[i].stride;
      fullShape.push_back(extent);
      fullTarget.push_back(extent);
      outputShape.push_back(axes[i].outputExtent);
      outputEnds.push_back(axes[i].outputExtent);
      sliceAxes.push_back(1 + i);
      slice |= extent != axes[i].outputExtent;
    }
    fullShape.push_back(o);
    fullTarget.push_back(o);
    outputShape.push_back(o);
    Value result = graph::createReshape(b, loc, interleaved, fullTarget, typed(fullShape));
    if (slice)
      result = graph::SliceOp::create(
          b, loc, typed(outputShape), result,
          graph::createIndexConstant(b, loc, SmallVector<int64_t>(spatial, 0)),
          graph::createIndexConstant(b, loc, outputEnds),
          graph::createIndexConstant(b, loc, sliceAxes), /*steps=*/Value());
    result =
        graph::TransposeOp::create(b, loc, resultType, result, b.getDenseI64ArrayAttr(toFirst));
    if (bias) {
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
