//===- ConvolutionsTo2d.cpp - 1-D and 3-D convolutions as 2-D ones --------===//
//
// graph-convolutions-to-2d: the convolution templates (implicit GEMM, depthwise) and the
// layout pass take 2-D convolutions. The other spatial ranks are 2-D convolutions too:
//
// - 1-D: x [N, C, W] -> [N, C, 1, W], the weight [O, C/g, K] -> [O, C/g, 1, K], a 2-D
//   convolution of unit height (stride, dilation 1 and no padding along it), its result
//   [N, O, 1, OW] -> [N, O, OW]. The same arithmetic, element for element.
// - 3-D: the implicit-GEMM templates take one of one group whose channels are multiples of
//   8 as it is (5-D boxes). Others: output depth od reads input depths
//   od * SD - PD + kd * DD, one per depth tap kd.
//   For each tap, the depths it reads (a strided slice of the input, padded along depth
//   with zeros first) become images: [N, C, OD, H, W] -> [N, OD, C, H, W] ->
//   [N * OD, C, H, W], convolved in 2-D with the tap's filters w[:, :, kd] (the height
//   and width strides, dilations and padding as they are); the KD products are summed
//   (the bias added once) and the sum rearranged into [N, O, OD, OH, OW]. The 2-D
//   convolutions each take a template, with the running sum in the next one's epilogue.
//
// Both keep the group: grouped and depthwise convolutions stay grouped and depthwise.
// Constant weights are rearranged here (the layout pass needs them constant); others
// through reshapes and slices. The batch may be dynamic; 3-D needs the rest static.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/ConstantBytes.h"
#include "passes/graph/GraphBuilders.h"
#include "passes/graph/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <array>

namespace kiln {
#define GEN_PASS_DEF_GRAPHCONVOLUTIONSTO2D
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// The constant `weight` rearranged into `type` by `rearrange` (of its row-major bytes and
/// element width), named after it with `suffix`; a splat stays one. Null when `weight` is
/// no constant.
Value rearrangedConstant(
    OpBuilder &b, Value weight, RankedTensorType type, StringRef suffix,
    llvm::function_ref<std::vector<char>(ArrayRef<char>, unsigned)> rearrange) {
  auto constant = weight.getDefiningOp<graph::ConstantOp>();
  if (!constant)
    return {};
  if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()); dense && dense.isSplat())
    return graph::ConstantOp::create(
        b, weight.getLoc(),
        cast<ElementsAttr>(DenseElementsAttr::get(type, dense.getSplatValue<Attribute>())));
  std::optional<std::vector<char>> bytes = graph::readConstantBytes(weight);
  if (!bytes)
    return {};
  return graph::createConstantFromBytes(
      b, weight.getLoc(), type, rearrange(*bytes, graph::getElementBytes(type.getElementType())),
      (graph::getResourceName(weight) + suffix).str());
}

/// A 2-D graph.conv like `conv` (its group) of `input` by `weight`, with `bias` (or none).
Value conv2d(OpBuilder &b, graph::ConvOp conv, Value input, Value weight, Value bias,
             ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads,
             RankedTensorType type) {
  return graph::ConvOp::create(b, conv.getLoc(), type, input, weight, bias,
                               b.getDenseI64ArrayAttr(strides), b.getDenseI64ArrayAttr(dilations),
                               b.getDenseI64ArrayAttr(pads), conv.getGroupAttr(),
                               /*channels_last=*/UnitAttr());
}

/// A channels-first convolution of static weight shape and a rank-3 or rank-5 input.
bool isCandidate(graph::ConvOp conv, int64_t rank) {
  auto input = dyn_cast<RankedTensorType>(conv.getInput().getType());
  auto weight = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  auto result = dyn_cast<RankedTensorType>(conv.getResult().getType());
  if (conv.getChannelsLast() || !input || !weight || !result || input.getRank() != rank ||
      weight.getRank() != rank || result.getRank() != rank || !weight.hasStaticShape())
    return false;
  int64_t spatial = rank - 2;
  return int64_t(conv.getStrides().size()) == spatial &&
         int64_t(conv.getDilations().size()) == spatial &&
         int64_t(conv.getPads().size()) == 2 * spatial;
}

/// Whether the implicit-GEMM templates take the 3-D `conv` as it is (channels last, a
/// 5-D box of the input a k-tile): one group, input and output channels multiples of 8
/// (16-byte rows of 16-bit elements).
bool takenIn3d(graph::ConvOp conv) {
  auto input = cast<RankedTensorType>(conv.getInput().getType());
  auto weight = cast<RankedTensorType>(conv.getWeight().getType());
  return conv.getGroup() == 1 && input.getDimSize(1) % 8 == 0 && weight.getDimSize(0) % 8 == 0;
}

/// 1-D as 2-D of unit height.
void lift1d(graph::ConvOp conv) {
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  auto input = cast<RankedTensorType>(conv.getInput().getType());
  auto weight = cast<RankedTensorType>(conv.getWeight().getType());
  auto result = cast<RankedTensorType>(conv.getResult().getType());
  auto withUnitHeight = [](RankedTensorType type) {
    return RankedTensorType::get({type.getDimSize(0), type.getDimSize(1), 1, type.getDimSize(2)},
                                 type.getElementType());
  };
  Value input2d =
      graph::createReshape(b, loc, conv.getInput(), {0, 0, 1, -1}, withUnitHeight(input));
  Value weight2d = rearrangedConstant(
      b, conv.getWeight(), withUnitHeight(weight), "_2d",
      [](ArrayRef<char> bytes, unsigned) { return std::vector<char>(bytes.begin(), bytes.end()); });
  if (!weight2d)
    weight2d =
        graph::createReshape(b, loc, conv.getWeight(), {0, 0, 1, -1}, withUnitHeight(weight));
  ArrayRef<int64_t> pads = conv.getPads();
  Value product =
      conv2d(b, conv, input2d, weight2d, conv.getBias(), {1, conv.getStrides()[0]},
             {1, conv.getDilations()[0]}, {0, pads[0], 0, pads[1]}, withUnitHeight(result));
  conv.getResult().replaceAllUsesWith(graph::createReshape(b, loc, product, {0, 0, -1}, result));
  conv.erase();
}

/// Whether a 3-D `conv` has the static extents (but the batch) its rewrite needs.
bool hasStaticExtents3d(graph::ConvOp conv) {
  auto input = cast<RankedTensorType>(conv.getInput().getType());
  auto result = cast<RankedTensorType>(conv.getResult().getType());
  return llvm::none_of(input.getShape().drop_front(), ShapedType::isDynamic) &&
         llvm::none_of(result.getShape().drop_front(), ShapedType::isDynamic);
}

/// The filters of depth tap `tap`: w[:, :, tap] of a [O, C/g, KD, KH, KW] weight.
Value tapFilters(OpBuilder &b, Location loc, Value weight, int64_t tap) {
  auto type = cast<RankedTensorType>(weight.getType());
  int64_t o = type.getDimSize(0), c = type.getDimSize(1), kd = type.getDimSize(2),
          kh = type.getDimSize(3), kw = type.getDimSize(4);
  auto filters = RankedTensorType::get({o, c, kh, kw}, type.getElementType());
  if (Value constant =
          rearrangedConstant(b, weight, filters, "_depth" + std::to_string(tap),
                             [&](ArrayRef<char> bytes, unsigned element) {
                               size_t plane = size_t(kh * kw) * element;
                               std::vector<char> taken(size_t(o * c) * plane);
                               for (int64_t filter = 0; filter < o * c; ++filter)
                                 std::copy_n(bytes.data() + (filter * kd + tap) * plane, plane,
                                             taken.data() + filter * plane);
                               return taken;
                             }))
    return constant;
  auto sliceType = RankedTensorType::get({o, c, 1, kh, kw}, type.getElementType());
  Value slice = graph::SliceOp::create(
      b, loc, sliceType, weight, graph::createIndexConstant(b, loc, {tap}),
      graph::createIndexConstant(b, loc, {tap + 1}), graph::createIndexConstant(b, loc, {2}),
      /*steps=*/Value());
  return graph::createReshape(b, loc, slice, {o, c, kh, kw}, filters);
}

/// The extents of a 3-D convolution: its input [N, C, D, H, W], result [N, O, OD, OH, OW],
/// depth taps, and the images [N * OD] its 2-D rewrites convolve.
struct Extents3d {
  explicit Extents3d(graph::ConvOp conv) {
    auto input = cast<RankedTensorType>(conv.getInput().getType());
    auto result = cast<RankedTensorType>(conv.getResult().getType());
    element = input.getElementType(), resultElement = result.getElementType();
    n = input.getDimSize(0), c = input.getDimSize(1), h = input.getDimSize(3),
    w = input.getDimSize(4);
    o = result.getDimSize(1), od = result.getDimSize(2), oh = result.getDimSize(3),
    ow = result.getDimSize(4);
    taps = cast<RankedTensorType>(conv.getWeight().getType()).getDimSize(2);
    images = ShapedType::isDynamic(n) ? ShapedType::kDynamic : n * od;
  }
  Type element, resultElement;
  int64_t n, c, h, w, o, od, oh, ow, taps, images;
  /// The extents the rewrites build shapes from, to unpack at once.
  std::array<int64_t, 9> extents() const { return {n, c, h, w, o, od, oh, ow, images}; }
};

/// `input` padded with zeros along `axis` (its depth) by the convolution's depth padding,
/// when it has some.
Value padDepth(OpBuilder &b, Location loc, graph::ConvOp conv, Value input, int64_t axis) {
  ArrayRef<int64_t> pads = conv.getPads();
  if (pads[0] == 0 && pads[3] == 0)
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] += pads[0] + pads[3];
  return graph::PadOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), input,
                              graph::createIndexConstant(b, loc, {pads[0], pads[3]}),
                              /*constant_value=*/Value(),
                              graph::createIndexConstant(b, loc, {axis}),
                              b.getStringAttr("constant"));
}

/// The depths of the padded `input` (along `axis`) that depth tap `tap` reads for the
/// `outDepth` output depths: kd * DD, kd * DD + SD, ...
Value depthsOfTap(OpBuilder &b, Location loc, graph::ConvOp conv, Value input, int64_t axis,
                  int64_t tap, int64_t outDepth) {
  int64_t first = tap * conv.getDilations()[0], stride = conv.getStrides()[0];
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = outDepth;
  return graph::SliceOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), input,
      graph::createIndexConstant(b, loc, {first}),
      graph::createIndexConstant(b, loc, {first + (outDepth - 1) * stride + 1}),
      graph::createIndexConstant(b, loc, {axis}), graph::createIndexConstant(b, loc, {stride}));
}

/// 3-D (grouped, or of a weight computed at run time) as a sum over the depth taps of 2-D
/// convolutions of the depths each tap reads.
void split3d(graph::ConvOp conv) {
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  const Extents3d e(conv);
  auto [n, c, h, w, o, od, oh, ow, images] = e.extents();
  Type element = e.element, resultElement = e.resultElement;
  int64_t taps = e.taps;
  ArrayRef<int64_t> strides = conv.getStrides(), dilations = conv.getDilations(),
                    pads = conv.getPads();

  // The input padded along depth: tap kd reads depths kd * DD + od * SD of it.
  Value input = padDepth(b, loc, conv, conv.getInput(), /*axis=*/2);
  auto planesType = RankedTensorType::get({images, o, oh, ow}, resultElement);
  Value sum;
  for (int64_t tap = 0; tap < taps; ++tap) {
    Value depths = depthsOfTap(b, loc, conv, input, /*axis=*/2, tap, od);
    Value planes = graph::createTranspose(b, loc, depths, {0, 2, 1, 3, 4});
    planes = graph::createReshape(b, loc, planes, {-1, c, h, w},
                                  RankedTensorType::get({images, c, h, w}, element));
    Value product =
        conv2d(b, conv, planes, tapFilters(b, loc, conv.getWeight(), tap),
               tap == 0 ? conv.getBias() : Value(), strides.drop_front(), dilations.drop_front(),
               {pads[1], pads[2], pads[4], pads[5]}, planesType);
    sum = sum ? graph::AddOp::create(b, loc, TypeRange{planesType}, ValueRange{sum, product})
                    .getResult()
              : product;
  }
  Value volume = graph::createReshape(b, loc, sum, {-1, od, o, oh, ow},
                                      RankedTensorType::get({n, od, o, oh, ow}, resultElement));
  conv.getResult().replaceAllUsesWith(graph::createTranspose(b, loc, volume, {0, 2, 1, 3, 4}));
  conv.erase();
}

/// 3-D of one group and a constant weight as one 2-D convolution of the depths unfolded
/// into the channels: image (n, od) has the KD input depths od * SD - PD + kd * DD
/// side by side, [N * OD, H, W, KD * C], and the filters w'[o, kd * C + c] = w[o, c, kd].
/// Built channels last (the layout the templates read; the layout pass cancels the
/// transposes into and out of the convolution), the unfolding is one data movement.
void unfoldDepth3d(graph::ConvOp conv) {
  OpBuilder b(conv);
  Location loc = conv.getLoc();
  const Extents3d e(conv);
  auto [n, c, h, w, o, od, oh, ow, images] = e.extents();
  Type element = e.element, resultElement = e.resultElement;
  auto weightType = cast<RankedTensorType>(conv.getWeight().getType());
  int64_t taps = e.taps, kh = weightType.getDimSize(3), kw = weightType.getDimSize(4);
  ArrayRef<int64_t> strides = conv.getStrides(), dilations = conv.getDilations(),
                    pads = conv.getPads();

  auto filtersType = RankedTensorType::get({o, taps * c, kh, kw}, weightType.getElementType());
  Value filters = rearrangedConstant(
      b, conv.getWeight(), filtersType, "_depth_unfolded",
      [&](ArrayRef<char> bytes, unsigned elementBytes) {
        size_t plane = size_t(kh * kw) * elementBytes;
        std::vector<char> unfolded(bytes.size());
        for (int64_t filter = 0; filter < o; ++filter)
          for (int64_t tap = 0; tap < taps; ++tap)
            for (int64_t channel = 0; channel < c; ++channel)
              std::copy_n(bytes.data() + ((filter * c + channel) * taps + tap) * plane, plane,
                          unfolded.data() + ((filter * taps + tap) * c + channel) * plane);
        return unfolded;
      });

  // NDHWC, padded along depth; tap kd's depths a strided slice; side by side.
  Value input =
      padDepth(b, loc, conv, graph::createTranspose(b, loc, conv.getInput(), {0, 2, 3, 4, 1}),
               /*axis=*/1);
  SmallVector<Value> depths;
  for (int64_t tap = 0; tap < taps; ++tap)
    depths.push_back(depthsOfTap(b, loc, conv, input, /*axis=*/1, tap, od));
  Value unfolded = depths.front();
  if (taps > 1)
    unfolded =
        graph::ConcatOp::create(b, loc, RankedTensorType::get({n, od, h, w, taps * c}, element),
                                depths, b.getI64IntegerAttr(4));
  unfolded = graph::createReshape(b, loc, unfolded, {-1, h, w, taps * c},
                                  RankedTensorType::get({images, h, w, taps * c}, element));
  unfolded = graph::createTranspose(b, loc, unfolded, {0, 3, 1, 2});
  Value planes = conv2d(b, conv, unfolded, filters, conv.getBias(), strides.drop_front(),
                        dilations.drop_front(), {pads[1], pads[2], pads[4], pads[5]},
                        RankedTensorType::get({images, o, oh, ow}, resultElement));
  planes = graph::createTranspose(b, loc, planes, {0, 2, 3, 1});
  Value volume = graph::createReshape(b, loc, planes, {-1, od, oh, ow, o},
                                      RankedTensorType::get({n, od, oh, ow, o}, resultElement));
  conv.getResult().replaceAllUsesWith(graph::createTranspose(b, loc, volume, {0, 4, 1, 2, 3}));
  conv.erase();
}

struct GraphConvolutionsTo2d : kiln::impl::GraphConvolutionsTo2dBase<GraphConvolutionsTo2d> {
  void runOnOperation() override {
    SmallVector<graph::ConvOp> oneD, threeD;
    getOperation().walk([&](graph::ConvOp conv) {
      if (isCandidate(conv, 3))
        oneD.push_back(conv);
      else if (isCandidate(conv, 5) && hasStaticExtents3d(conv))
        threeD.push_back(conv);
    });
    for (graph::ConvOp conv : oneD)
      lift1d(conv);
    for (graph::ConvOp conv : threeD) {
      if (takenIn3d(conv))
        continue;
      if (conv.getGroup() == 1 && conv.getWeight().getDefiningOp<graph::ConstantOp>())
        unfoldDepth3d(conv);
      else
        split3d(conv);
    }
  }
};

} // namespace
