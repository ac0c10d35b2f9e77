//===- NNSampling.cpp - Graph to linalg: resampling, RoI align and non-max suppression ===//
//
// Resize, GridSample and RoiAlign are gathers: one `linalg.generic` over the result whose
// body computes source coordinates from `linalg.index` and reads the input with
// `tensor.extract`. Coordinates and interpolation weights are computed in f64, as ONNX's
// reference does, so rounding at half-way points matches it. Nearest Resize is one
// generic over its resized axes (one element read an output element). Linear and cubic
// resampling is separable: the outer resized axes go in one generic (2^k and 4^k
// neighbours for k axes, up to 16, read as runs along the innermost axis), the innermost
// in another (its taps are gathers; first where it upsamples), or, for a bilinear Resize
// of 4-byte elements, in the same one. NonMaxSuppression is a sequential scf algorithm
// whose result has a run-time extent.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;

namespace kiln::lowering {
namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// `index` clamped to [0, size - 1].
Value clampIndex(OpBuilder &b, Location loc, Value index, Value size) {
  Value zero = indexConstant(b, loc, 0);
  Value last = arith::SubIOp::create(b, loc, size, indexConstant(b, loc, 1));
  index = arith::MaxSIOp::create(b, loc, index, zero);
  return arith::MinSIOp::create(b, loc, index, last);
}

/// Element `position` of a scalar-like operand (rank 0, or the innermost dimension of a
/// tensor whose other extents are 1, as ONNX writes `[1]` scalars).
Value readElement(OpBuilder &b, Location loc, Value tensor, int64_t position = 0) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> indices;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    indices.push_back(indexConstant(b, loc, dim + 1 == type.getRank() ? position : 0));
  return tensor::ExtractOp::create(b, loc, tensor, indices);
}

Value toIndexValue(OpBuilder &b, Location loc, OpFoldResult size) {
  return getValueOrCreateConstantIndexOp(b, loc, size);
}

/// The compute type of interpolation for float elements: f32 for the narrow floats, f64
/// for f64.
Type computeTypeFor(Type element) {
  if (cast<FloatType>(element).getWidth() >= 64)
    return element;
  return Float32Type::get(element.getContext());
}

/// The cubic convolution kernel of Keys with parameter `a`, weights of the taps at
/// offsets -1, 0, 1 and 2 from floor(x) for the fraction `t` = x - floor(x).
SmallVector<Value> cubicWeights(OpBuilder &b, Location loc, Value t, double a) {
  auto c = [&](double v) { return createF64Constant(b, loc, v); };
  auto add = [&](Value x, Value y) -> Value { return arith::AddFOp::create(b, loc, x, y); };
  auto sub = [&](Value x, Value y) -> Value { return arith::SubFOp::create(b, loc, x, y); };
  auto mul = [&](Value x, Value y) -> Value { return arith::MulFOp::create(b, loc, x, y); };
  // |x| in [1, 2): ((a*x - 5a)*x + 8a)*x - 4a;  |x| < 1: ((a+2)*x - (a+3))*x*x + 1.
  auto outer = [&](Value x) {
    return sub(mul(add(mul(sub(mul(c(a), x), c(5 * a)), x), c(8 * a)), x), c(4 * a));
  };
  auto inner = [&](Value x) { return add(mul(mul(sub(mul(c(a + 2), x), c(a + 3)), x), x), c(1)); };
  Value one = c(1);
  Value oneMinusT = sub(one, t);
  return {outer(add(t, one)), inner(t), inner(oneMinusT), outer(add(oneMinusT, one))};
}

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

struct ResizeLowering : OpConversionPattern<graph::ResizeOp> {
  using OpConversionPattern::OpConversionPattern;

  /// The source coordinate (f64) of output index `x` along one axis.
  static Value sourceCoordinate(OpBuilder &b, Location loc, StringRef mode, Value x, Value scale,
                                Value inLength, Value outLength, Value roiStart, Value roiEnd) {
    auto c = [&](double v) { return createF64Constant(b, loc, v); };
    auto add = [&](Value l, Value r) -> Value { return arith::AddFOp::create(b, loc, l, r); };
    auto sub = [&](Value l, Value r) -> Value { return arith::SubFOp::create(b, loc, l, r); };
    auto mul = [&](Value l, Value r) -> Value { return arith::MulFOp::create(b, loc, l, r); };
    auto div = [&](Value l, Value r) -> Value { return arith::DivFOp::create(b, loc, l, r); };
    auto gt = [&](Value l, Value r) -> Value {
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, l, r);
    };
    auto select = [&](Value cond, Value l, Value r) -> Value {
      return arith::SelectOp::create(b, loc, cond, l, r);
    };
    Value halfPixel = sub(div(add(x, c(0.5)), scale), c(0.5));
    Value inLast = sub(inLength, c(1));
    if (mode == "half_pixel")
      return halfPixel;
    if (mode == "half_pixel_symmetric") {
      // The output extent is rounded from in * scale; the offset recentres the sampled
      // window on the input.
      Value adjustment = div(outLength, mul(scale, inLength));
      Value offset = mul(div(inLength, c(2)), sub(c(1), adjustment));
      return add(offset, halfPixel);
    }
    // These modes use the unrounded output length, in * scale, as ONNX's reference does
    // (it differs from the output extent when scales, not sizes, are given).
    Value scaledLength = mul(scale, inLength);
    if (mode == "pytorch_half_pixel")
      return select(gt(scaledLength, c(1)), halfPixel, c(0));
    if (mode == "align_corners")
      return select(gt(scaledLength, c(1)), div(mul(x, inLast), sub(scaledLength, c(1))), c(0));
    if (mode == "asymmetric")
      return div(x, scale);
    if (mode == "tf_half_pixel_for_nn")
      return div(add(x, c(0.5)), scale);
    // tf_crop_and_resize
    Value spread = div(mul(mul(x, sub(roiEnd, roiStart)), inLast), sub(scaledLength, c(1)));
    Value many = add(mul(roiStart, inLast), spread);
    Value single = mul(mul(c(0.5), add(roiStart, roiEnd)), inLast);
    return select(gt(scaledLength, c(1)), many, single);
  }

  /// One resized axis: its output extent (static or not) and size, and the parameters of
  /// its coordinate transformation.
  struct ResizedAxis {
    int64_t axis, resultExtent;
    OpFoldResult outSize;
    Value scale, roiStart, roiEnd;
  };

  /// The source coordinate of output index `index` along `resized` (an axis of `inSize`
  /// elements becoming `outLength`), kept where index arithmetic is exact.
  static Value clampedCoordinate(OpBuilder &b, Location loc, graph::ResizeOp op,
                                 const ResizedAxis &resized, Value index, Value inLength,
                                 Value outLength) {
    auto c = [&](double v) { return createF64Constant(b, loc, v); };
    Value x =
        sourceCoordinate(b, loc, op.getCoordinateTransformationMode(), toF64(b, loc, index),
                         resized.scale, inLength, outLength, resized.roiStart, resized.roiEnd);
    // Keep far-away coordinates (tf_crop_and_resize) in a range where index arithmetic
    // is exact; such elements take the extrapolation value anyway.
    // (maxnumf, minnumf: the coordinate is no NaN, and NaN-propagating ones cost a test
    // and a select each on the GPU.)
    x = arith::MaxNumFOp::create(b, loc, x, c(-8));
    return arith::MinNumFOp::create(b, loc, x, arith::AddFOp::create(b, loc, inLength, c(8)));
  }

  /// The index nearest to coordinate `x` by `op`'s nearest mode (not yet clamped).
  static Value nearestIndex(OpBuilder &b, Location loc, graph::ResizeOp op, Value x) {
    auto c = [&](double v) { return createF64Constant(b, loc, v); };
    StringRef nearestMode = op.getNearestMode();
    Value rounded;
    if (nearestMode == "round_prefer_ceil")
      rounded = math::FloorOp::create(b, loc, arith::AddFOp::create(b, loc, x, c(0.5)));
    else if (nearestMode == "floor")
      rounded = math::FloorOp::create(b, loc, x);
    else if (nearestMode == "ceil")
      rounded = math::CeilOp::create(b, loc, x);
    else // round_prefer_floor
      rounded = math::CeilOp::create(b, loc, arith::SubFOp::create(b, loc, x, c(0.5)));
    return f64ToIndex(b, loc, rounded);
  }

  /// Whether coordinate `x` lies outside an axis of `inLength` elements
  /// (tf_crop_and_resize's extrapolation).
  static Value outside(OpBuilder &b, Location loc, Value x, Value inLength) {
    auto c = [&](double v) { return createF64Constant(b, loc, v); };
    return arith::OrIOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, c(0)),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                              arith::SubFOp::create(b, loc, inLength, c(1))));
  }

  /// The result space of resampling `source` along `axes`: its shape and sizes, and per
  /// resized axis the input's extent (index and f64) and the output's (f64).
  struct ResampledSpace {
    SmallVector<int64_t> shape;
    SmallVector<OpFoldResult> sizes;
    SmallVector<Value> inSizes, inLengths, outLengths;

    ResampledSpace(OpBuilder &b, Location loc, Value source, ArrayRef<ResizedAxis> axes)
        : shape(cast<RankedTensorType>(source.getType()).getShape()),
          sizes(getSizes(b, loc, source)) {
      for (const ResizedAxis &resized : axes) {
        Value inSize = toIndexValue(b, loc, sizes[resized.axis]);
        inSizes.push_back(inSize);
        inLengths.push_back(toF64(b, loc, inSize));
        outLengths.push_back(toF64(b, loc, toIndexValue(b, loc, resized.outSize)));
        shape[resized.axis] = resized.resultExtent;
        sizes[resized.axis] = resized.outSize;
      }
    }
  };

  /// Nearest resizing of every axis in `axes` at once: each output element reads the one
  /// input element at its axes' nearest indices (what resizing one axis after another
  /// computes, without writing and reading the partly resized tensors).
  Value resampleNearest(OpBuilder &b, Location loc, graph::ResizeOp op, Value source,
                        ArrayRef<ResizedAxis> axes) const {
    auto sourceType = cast<RankedTensorType>(source.getType());
    ResampledSpace space(b, loc, source, axes);
    ArrayRef<Value> inSizes = space.inSizes, inLengths = space.inLengths,
                    outLengths = space.outLengths;
    auto type = RankedTensorType::get(space.shape, sourceType.getElementType());
    bool crop = op.getCoordinateTransformationMode() == "tf_crop_and_resize";
    return createIndexedGeneric(
        b, loc, type, space.sizes, [&](OpBuilder &nb, Location nl, ValueRange idx) {
          SmallVector<Value> indices(idx);
          Value anyOutside;
          for (auto [n, resized] : llvm::enumerate(axes)) {
            Value x = clampedCoordinate(nb, nl, op, resized, idx[resized.axis], inLengths[n],
                                        outLengths[n]);
            indices[resized.axis] = clampIndex(nb, nl, nearestIndex(nb, nl, op, x), inSizes[n]);
            if (crop) {
              Value out = outside(nb, nl, x, inLengths[n]);
              anyOutside = anyOutside ? arith::OrIOp::create(nb, nl, anyOutside, out) : out;
            }
          }
          Value result = tensor::ExtractOp::create(nb, nl, source, indices);
          if (anyOutside) {
            Value fill = createScalarConstant(nb, nl, type.getElementType(),
                                              op.getExtrapolationValue().convertToDouble());
            result = arith::SelectOp::create(nb, nl, anyOutside, fill, result);
          }
          return result;
        });
  }

  /// Linear or cubic resampling of every axis in `axes` at once: each output element
  /// blends the taps^k input elements around its source position with the product of the
  /// axes' weights. That is what resampling one axis after another computes, without
  /// writing and reading the partly resampled tensors (nor rounding them to the element
  /// type); the taps are neighbours, read from cache.
  Value resampleAxes(OpBuilder &b, Location loc, graph::ResizeOp op, Value source,
                     ArrayRef<ResizedAxis> axes) const {
    auto sourceType = cast<RankedTensorType>(source.getType());
    ResampledSpace space(b, loc, source, axes);
    ArrayRef<Value> inSizes = space.inSizes, inLengths = space.inLengths,
                    outLengths = space.outLengths;
    Type element = sourceType.getElementType();
    auto type = RankedTensorType::get(space.shape, element);
    bool cubic = op.getMode() == "cubic";
    double cubicA = op.getCubicCoeffA().convertToDouble();
    bool excludeOutside = op.getExcludeOutside();
    bool crop = op.getCoordinateTransformationMode() == "tf_crop_and_resize";
    Type computeType = computeTypeFor(element);

    return createIndexedGeneric(
        b, loc, type, space.sizes, [&](OpBuilder &nb, Location nl, ValueRange idx) {
          auto c = [&](double v) { return createF64Constant(nb, nl, v); };
          // Per axis: the taps' clamped indices and their weights in the compute type.
          SmallVector<SmallVector<Value>> tapIndices, tapWeights;
          Value anyOutside;
          for (auto [n, resized] : llvm::enumerate(axes)) {
            Value x = clampedCoordinate(nb, nl, op, resized, idx[resized.axis], inLengths[n],
                                        outLengths[n]);
            if (crop) {
              Value out = outside(nb, nl, x, inLengths[n]);
              anyOutside = anyOutside ? arith::OrIOp::create(nb, nl, anyOutside, out) : out;
            }
            Value floor = math::FloorOp::create(nb, nl, x);
            Value t = arith::SubFOp::create(nb, nl, x, floor);
            Value base = f64ToIndex(nb, nl, floor);
            SmallVector<Value> weights =
                cubic ? cubicWeights(nb, nl, t, cubicA)
                      : SmallVector<Value>{arith::SubFOp::create(nb, nl, c(1), t), t};
            int64_t firstOffset = cubic ? -1 : 0;
            SmallVector<Value> indices;
            for (int64_t tap = 0; tap < static_cast<int64_t>(weights.size()); ++tap)
              indices.push_back(
                  arith::AddIOp::create(nb, nl, base, indexConstant(nb, nl, firstOffset + tap)));
            if (excludeOutside) {
              // Taps outside the input get no weight; the others are renormalised.
              Value zeroIndex = indexConstant(nb, nl, 0);
              Value total = c(0);
              for (auto [weight, index] : llvm::zip_equal(weights, indices)) {
                Value inside = arith::AndIOp::create(
                    nb, nl,
                    arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge, index, zeroIndex),
                    arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, index, inSizes[n]));
                weight = arith::SelectOp::create(nb, nl, inside, weight, c(0));
                total = arith::AddFOp::create(nb, nl, total, weight);
              }
              for (Value &weight : weights)
                weight = arith::DivFOp::create(nb, nl, weight, total);
            }
            for (Value &weight : weights)
              weight = fromF64(nb, nl, weight, computeType);
            for (Value &index : indices)
              index = clampIndex(nb, nl, index, inSizes[n]);
            tapWeights.push_back(weights);
            tapIndices.push_back(indices);
          }
          int64_t taps = tapWeights.front().size();
          int64_t combinations = 1;
          for (size_t n = 0; n < axes.size(); ++n)
            combinations *= taps;
          Value sum; // (not 0 + ...: adding zero is no identity for -0, so it would stay)
          for (int64_t combination = 0; combination < combinations; ++combination) {
            SmallVector<Value> indices(idx);
            Value weight;
            int64_t rest = combination;
            for (int64_t n = static_cast<int64_t>(axes.size()) - 1; n >= 0; --n) {
              int64_t tap = rest % taps;
              rest /= taps;
              indices[axes[n].axis] = tapIndices[n][tap];
              weight = weight ? arith::MulFOp::create(nb, nl, weight, tapWeights[n][tap])
                              : tapWeights[n][tap];
            }
            Value value = tensor::ExtractOp::create(nb, nl, source, indices);
            if (value.getType() != computeType)
              value = arith::ExtFOp::create(nb, nl, computeType, value);
            Value term = arith::MulFOp::create(nb, nl, weight, value);
            sum = sum ? arith::AddFOp::create(nb, nl, sum, term).getResult() : term;
          }
          Value result = sum;
          if (computeType != element)
            result = arith::TruncFOp::create(nb, nl, element, result);
          if (anyOutside) {
            Value fill =
                createScalarConstant(nb, nl, element, op.getExtrapolationValue().convertToDouble());
            result = arith::SelectOp::create(nb, nl, anyOutside, fill, result);
          }
          return result;
        });
  }

  LogicalResult matchAndRewrite(graph::ResizeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!resultType || !inputType || resultType.getRank() != inputType.getRank())
      return rewriter.notifyMatchFailure(op, "unranked or rank-changing resize");
    int64_t rank = inputType.getRank();
    StringRef mode = op.getMode();
    StringRef transform = op.getCoordinateTransformationMode();
    StringRef nearestMode = op.getNearestMode();
    StringRef policy = op.getKeepAspectRatioPolicy();
    if (mode != "nearest" && mode != "linear" && mode != "cubic")
      return rewriter.notifyMatchFailure(op, "unknown mode");
    if (!llvm::is_contained({"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                             "align_corners", "asymmetric", "tf_half_pixel_for_nn",
                             "tf_crop_and_resize"},
                            transform))
      return rewriter.notifyMatchFailure(op, "unknown coordinate transformation mode");
    if (!llvm::is_contained({"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
                            nearestMode))
      return rewriter.notifyMatchFailure(op, "unknown nearest mode");
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
      return rewriter.notifyMatchFailure(op, "unknown keep_aspect_ratio_policy");
    Type element = inputType.getElementType();
    if (mode != "nearest" && !isa<FloatType>(element))
      return rewriter.notifyMatchFailure(op, "linear or cubic resizing of non-float elements");
    // Antialiasing widens the kernel by 1/scale when downsampling: a tap count known only
    // at run time, which this lowering does not build.
    if (op.getAntialias() && mode != "nearest")
      return rewriter.notifyMatchFailure(op, "antialiased linear or cubic resizing");
    if (transform == "tf_crop_and_resize" && !adaptor.getRoi())
      return rewriter.notifyMatchFailure(op, "tf_crop_and_resize without roi");

    SmallVector<int64_t> axes;
    if (std::optional<ArrayRef<int64_t>> given = op.getAxes()) {
      for (int64_t axis : *given) {
        if (axis < -rank || axis >= rank)
          return rewriter.notifyMatchFailure(op, "axis out of range");
        axes.push_back(axis < 0 ? axis + rank : axis);
      }
    } else {
      for (int64_t axis = 0; axis < rank; ++axis)
        axes.push_back(axis);
    }
    if (llvm::SmallSetVector<int64_t, 8>(axes.begin(), axes.end()).size() != axes.size())
      return rewriter.notifyMatchFailure(op, "repeated axis");
    int64_t numAxes = axes.size();

    Value scales = adaptor.getScales();
    Value sizesOperand = adaptor.getSizes();
    if (!scales && !sizesOperand)
      return rewriter.notifyMatchFailure(op, "neither scales nor sizes");
    for (Value operand : {adaptor.getRoi(), scales, sizesOperand}) {
      if (!operand)
        continue;
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (!type || type.getRank() != 1)
        return rewriter.notifyMatchFailure(op, "roi, scales and sizes must be 1-D");
      int64_t expected = operand == adaptor.getRoi() ? 2 * numAxes : numAxes;
      if (!type.isDynamicDim(0) && type.getDimSize(0) != expected)
        return rewriter.notifyMatchFailure(op, "roi, scales or sizes of the wrong length");
    }

    SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, adaptor.getInput());
    // Per resized axis: the scale of the coordinate transformation (f64).
    SmallVector<Value> axisScales;
    if (scales) {
      for (int64_t j = 0; j < numAxes; ++j)
        axisScales.push_back(toF64(rewriter, loc, readElement(rewriter, loc, scales, j)));
    } else {
      for (int64_t j = 0; j < numAxes; ++j) {
        Value size = toF64(rewriter, loc, readElement(rewriter, loc, sizesOperand, j));
        Value in = toF64(rewriter, loc, toIndexValue(rewriter, loc, inputSizes[axes[j]]));
        axisScales.push_back(arith::DivFOp::create(rewriter, loc, size, in));
      }
      if (policy != "stretch") {
        // One scale for every axis, the largest that fits (not_larger) or the smallest
        // that covers (not_smaller).
        Value common = axisScales.front();
        for (Value scale : ArrayRef<Value>(axisScales).drop_front())
          common = policy == "not_larger"
                       ? Value(arith::MinimumFOp::create(rewriter, loc, common, scale))
                       : Value(arith::MaximumFOp::create(rewriter, loc, common, scale));
        axisScales.assign(numAxes, common);
      }
    }

    // Compile-time scales, to skip axes that provably stay as they are.
    std::optional<SmallVector<double>> constantScales;
    if (scales)
      constantScales = graph::getConstantFloats(op.getScales());
    // With stretched sizes, an axis whose extent stays has a scale of exactly 1.
    bool stretchedSizes = !scales && policy == "stretch";
    bool identityPreserving =
        transform != "tf_half_pixel_for_nn" && transform != "tf_crop_and_resize";

    SmallVector<ResizedAxis> resized;
    for (int64_t j = 0; j < numAxes; ++j) {
      int64_t axis = axes[j];
      int64_t inExtent = inputType.getDimSize(axis);
      int64_t outExtent = resultType.getDimSize(axis);
      std::optional<double> constantScale;
      if (constantScales && static_cast<int64_t>(constantScales->size()) > j)
        constantScale = (*constantScales)[j];
      // A constant scale of 1 keeps the extent, a run-time one too (a dynamic batch).
      bool unitScale =
          (constantScale == 1.0 && (ShapedType::isDynamic(inExtent) || inExtent == outExtent)) ||
          (stretchedSizes && !ShapedType::isDynamic(inExtent) && inExtent == outExtent);
      if (identityPreserving && unitScale)
        continue;

      OpFoldResult outSize;
      if (!ShapedType::isDynamic(outExtent)) {
        outSize = rewriter.getIndexAttr(outExtent);
      } else if (constantScale && *constantScale >= 1 &&
                 *constantScale == std::floor(*constantScale)) {
        // floor(in * scale) of a whole scale in integers: what the shape program evaluates.
        outSize =
            arith::MulIOp::create(
                rewriter, loc, toIndexValue(rewriter, loc, inputSizes[axis]),
                arith::ConstantIndexOp::create(rewriter, loc, static_cast<int64_t>(*constantScale)))
                .getResult();
      } else {
        Value in = toF64(rewriter, loc, toIndexValue(rewriter, loc, inputSizes[axis]));
        Value extent;
        if (scales)
          extent = math::FloorOp::create(rewriter, loc,
                                         arith::MulFOp::create(rewriter, loc, in, axisScales[j]));
        else if (policy == "stretch")
          extent = toF64(rewriter, loc, readElement(rewriter, loc, sizesOperand, j));
        else
          extent = math::RoundOp::create(rewriter, loc,
                                         arith::MulFOp::create(rewriter, loc, in, axisScales[j]));
        outSize = f64ToIndex(rewriter, loc, extent);
      }
      Value roiStart, roiEnd;
      if (transform == "tf_crop_and_resize") {
        roiStart = toF64(rewriter, loc, readElement(rewriter, loc, adaptor.getRoi(), j));
        roiEnd = toF64(rewriter, loc, readElement(rewriter, loc, adaptor.getRoi(), j + numAxes));
      }
      resized.push_back({axis, outExtent, outSize, axisScales[j], roiStart, roiEnd});
    }
    Value current = adaptor.getInput();
    if (mode == "nearest" && !resized.empty()) {
      current = resampleNearest(rewriter, loc, op, current, resized);
    } else {
      // The outer axes in one pass (groups of at most kMaxTaps taps an output element:
      // cubic over three axes would read 64), the innermost in a pass of its own.
      // An outer axis's taps are whole runs along the innermost axis, read 16 bytes at a
      // time; the innermost axis's are gathers, a load each, so its pass goes where it
      // has the fewer values: first where it upsamples, last otherwise (a bilinear 2x of
      // NCHW f16 on the H200: 0.051 ms innermost last). A pass of its own writes
      // and reads the partly resized tensor again, which costs bytes; gathering its taps
      // in the same pass costs a load a tap whatever the element's width. So the
      // innermost axis joins a bilinear pass (4 gathers a value) for elements of 4
      // bytes or more: on the H200, a bilinear 2x of NCHW f32 ran at 0.084 ms in two
      // passes, 0.068 ms in one; in f16, 0.051 and 0.058 ms.
      constexpr int64_t kMaxTaps = 16;
      constexpr int64_t kMaxGatheredTaps = 4;
      int64_t tapsPerAxis = mode == "cubic" ? 4 : 2;
      int64_t elementBits = resultType.getElementType().getIntOrFloatBitWidth();
      int64_t outerAxes =
          llvm::count_if(resized, [&](const ResizedAxis &axis) { return axis.axis != rank - 1; });
      bool gatherInnermost =
          elementBits >= 32 && outerAxes <= 1 && tapsPerAxis * tapsPerAxis <= kMaxGatheredTaps;
      SmallVector<ResizedAxis> group, innermost;
      int64_t innerIn = inputType.getDimSize(rank - 1);
      for (const ResizedAxis &axis : resized) {
        if (axis.axis != rank - 1 || gatherInnermost)
          continue;
        bool upsamples = !ShapedType::isDynamic(innerIn) &&
                         !ShapedType::isDynamic(axis.resultExtent) && axis.resultExtent > innerIn;
        if (upsamples)
          current = resampleAxes(rewriter, loc, op, current, {axis});
        else
          innermost.push_back(axis);
      }
      int64_t groupTaps = 1;
      for (const ResizedAxis &axis : resized) {
        if (axis.axis == rank - 1 && !gatherInnermost)
          continue;
        if (groupTaps * tapsPerAxis > kMaxTaps) {
          current = resampleAxes(rewriter, loc, op, current, group);
          group.clear();
          groupTaps = 1;
        }
        group.push_back(axis);
        groupTaps *= tapsPerAxis;
      }
      if (!group.empty())
        current = resampleAxes(rewriter, loc, op, current, group);
      if (!innermost.empty())
        current = resampleAxes(rewriter, loc, op, current, innermost);
    }
    rewriter.replaceOp(op, castToType(rewriter, loc, current, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// GridSample
//===----------------------------------------------------------------------===//

struct GridSampleLowering : OpConversionPattern<graph::GridSampleOp> {
  using OpConversionPattern::OpConversionPattern;

  /// `x` reflected into [low, high] (both f64), as ONNX's reference reflects: by whole
  /// periods of the range, mirrored on every other one.
  static Value reflect(OpBuilder &b, Location loc, Value x, Value low, Value high) {
    auto c = [&](double v) { return createF64Constant(b, loc, v); };
    Value range = arith::SubFOp::create(b, loc, high, low);
    Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, low);
    Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, high);
    Value distance = arith::SelectOp::create(b, loc, below, arith::SubFOp::create(b, loc, low, x),
                                             arith::SubFOp::create(b, loc, x, high));
    Value periods = math::FloorOp::create(b, loc, arith::DivFOp::create(b, loc, distance, range));
    Value rest =
        arith::SubFOp::create(b, loc, distance, arith::MulFOp::create(b, loc, periods, range));
    Value halfPeriods =
        math::FloorOp::create(b, loc, arith::MulFOp::create(b, loc, periods, c(0.5)));
    Value even = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                       arith::MulFOp::create(b, loc, halfPeriods, c(2)), periods);
    Value fromLow = arith::AddFOp::create(b, loc, low, rest);
    Value fromHigh = arith::SubFOp::create(b, loc, high, rest);
    Value belowValue = arith::SelectOp::create(b, loc, even, fromLow, fromHigh);
    Value aboveValue = arith::SelectOp::create(b, loc, even, fromHigh, fromLow);
    Value reflected = arith::SelectOp::create(
        b, loc, below, belowValue, arith::SelectOp::create(b, loc, above, aboveValue, x));
    // An empty range (one element, corners aligned) has one place to be.
    Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, range, c(0));
    return arith::SelectOp::create(b, loc, empty, low, reflected);
  }

  LogicalResult matchAndRewrite(graph::GridSampleOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto gridType = dyn_cast<RankedTensorType>(adaptor.getGrid().getType());
    if (!resultType || !inputType || !gridType)
      return rewriter.notifyMatchFailure(op, "unranked operands");
    int64_t rank = inputType.getRank();
    int64_t spatial = rank - 2;
    if (spatial < 1 || gridType.getRank() != rank || resultType.getRank() != rank ||
        gridType.getDimSize(rank - 1) != spatial)
      return rewriter.notifyMatchFailure(op, "unexpected operand ranks");
    Type element = inputType.getElementType();
    Type gridElement = gridType.getElementType();
    if (!isa<FloatType>(element) || !isa<FloatType>(gridElement))
      return rewriter.notifyMatchFailure(op, "non-float input or grid");
    StringRef mode = op.getMode();
    StringRef padding = op.getPaddingMode();
    if (mode != "linear" && mode != "nearest" && mode != "cubic")
      return rewriter.notifyMatchFailure(op, "unknown mode");
    if (padding != "zeros" && padding != "border" && padding != "reflection")
      return rewriter.notifyMatchFailure(op, "unknown padding mode");
    bool alignCorners = op.getAlignCorners();

    Value input = adaptor.getInput();
    Value grid = adaptor.getGrid();
    SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> gridSizes = getSizes(rewriter, loc, grid);
    SmallVector<OpFoldResult> resultSizes{gridSizes[0], inputSizes[1]};
    for (int64_t dim = 0; dim < spatial; ++dim)
      resultSizes.push_back(gridSizes[1 + dim]);
    SmallVector<Value> extents;
    for (int64_t dim = 0; dim < spatial; ++dim)
      extents.push_back(toIndexValue(rewriter, loc, inputSizes[2 + dim]));
    Type computeType = computeTypeFor(element);

    Value result = createIndexedGeneric(
        rewriter, loc, resultType, resultSizes, [&](OpBuilder &b, Location l, ValueRange idx) {
          auto c = [&](double v) { return createF64Constant(b, l, v); };
          // Per spatial dimension: the source coordinate and the bounds of reflection.
          SmallVector<Value> coordinates, lengths, lows, highs;
          for (int64_t dim = 0; dim < spatial; ++dim) {
            SmallVector<Value> gridIndices{idx[0]};
            for (int64_t d = 0; d < spatial; ++d)
              gridIndices.push_back(idx[2 + d]);
            // The grid lists coordinates innermost dimension first (x, y, ...).
            gridIndices.push_back(indexConstant(b, l, spatial - 1 - dim));
            Value normalised = toF64(b, l, tensor::ExtractOp::create(b, l, grid, gridIndices));
            Value length = toF64(b, l, extents[dim]);
            Value shifted = arith::AddFOp::create(b, l, normalised, c(1));
            Value x;
            if (alignCorners)
              x = arith::MulFOp::create(b, l, arith::MulFOp::create(b, l, shifted, c(0.5)),
                                        arith::SubFOp::create(b, l, length, c(1)));
            else
              x = arith::MulFOp::create(
                  b, l,
                  arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, shifted, length), c(1)),
                  c(0.5));
            Value low = alignCorners ? c(0) : c(-0.5);
            Value high = alignCorners ? arith::SubFOp::create(b, l, length, c(1)).getResult()
                                      : arith::SubFOp::create(b, l, length, c(0.5)).getResult();
            // Nearest and linear sampling pad the coordinate (reflected, then clipped into
            // the input, as PyTorch defines it); cubic sampling pads each tap instead.
            if (mode != "cubic" && padding != "zeros") {
              if (padding == "reflection")
                x = reflect(b, l, x, low, high);
              x = arith::MaximumFOp::create(b, l, x, c(0));
              x = arith::MinimumFOp::create(b, l, x, arith::SubFOp::create(b, l, length, c(1)));
            }
            // Keep the coordinate where index arithmetic is exact (NaN-free inputs).
            x = arith::MaximumFOp::create(b, l, x, c(-8));
            x = arith::MinimumFOp::create(b, l, x, arith::AddFOp::create(b, l, length, c(8)));
            coordinates.push_back(x);
            lengths.push_back(length);
            lows.push_back(low);
            highs.push_back(high);
          }
          // Reads input[n, c, position...]; positions outside are zero, the border element
          // or the reflected one by padding mode.
          auto pixel = [&](ArrayRef<Value> positions) -> Value {
            SmallVector<Value> indices{idx[0], idx[1]};
            Value inside = arith::ConstantIntOp::create(b, l, 1, 1);
            for (int64_t dim = 0; dim < spatial; ++dim) {
              Value position = positions[dim];
              if (padding == "reflection") {
                Value reflected = reflect(b, l, position, lows[dim], highs[dim]);
                // int() of the reflected coordinate truncates toward zero.
                position = math::TruncOp::create(b, l, reflected);
              }
              Value index = f64ToIndex(b, l, position);
              if (padding == "zeros") {
                Value ge = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, position, c(0));
                Value lt =
                    arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, position, lengths[dim]);
                inside = arith::AndIOp::create(b, l, inside, arith::AndIOp::create(b, l, ge, lt));
              }
              indices.push_back(clampIndex(b, l, index, extents[dim]));
            }
            Value value = tensor::ExtractOp::create(b, l, input, indices);
            if (value.getType() != computeType)
              value = arith::ExtFOp::create(b, l, computeType, value);
            if (padding == "zeros")
              value = arith::SelectOp::create(b, l, inside, value,
                                              createScalarConstant(b, l, computeType, 0.0));
            return value;
          };

          Value sum;
          if (mode == "nearest") {
            SmallVector<Value> positions;
            for (Value x : coordinates)
              positions.push_back(math::RoundEvenOp::create(b, l, x));
            sum = pixel(positions);
          } else {
            // Per dimension: the first tap's position and the weights of the taps.
            SmallVector<Value> firstTaps;
            SmallVector<SmallVector<Value>> weights;
            for (Value x : coordinates) {
              Value floor = math::FloorOp::create(b, l, x);
              Value t = arith::SubFOp::create(b, l, x, floor);
              if (mode == "linear") {
                firstTaps.push_back(floor);
                weights.push_back({arith::SubFOp::create(b, l, c(1), t), t});
              } else {
                firstTaps.push_back(arith::SubFOp::create(b, l, floor, c(1)));
                weights.push_back(cubicWeights(b, l, t, -0.75));
              }
            }
            int64_t taps = weights.front().size();
            int64_t combinations = 1;
            for (int64_t dim = 0; dim < spatial; ++dim)
              combinations *= taps;
            sum = createScalarConstant(b, l, computeType, 0.0);
            for (int64_t combination = 0; combination < combinations; ++combination) {
              SmallVector<Value> positions;
              Value weight = c(1);
              int64_t rest = combination;
              for (int64_t dim = spatial - 1; dim >= 0; --dim) {
                int64_t tap = rest % taps;
                rest /= taps;
                weight = arith::MulFOp::create(b, l, weight, weights[dim][tap]);
                positions.push_back(
                    arith::AddFOp::create(b, l, firstTaps[dim], c(static_cast<double>(tap))));
              }
              std::reverse(positions.begin(), positions.end());
              Value term =
                  arith::MulFOp::create(b, l, fromF64(b, l, weight, computeType), pixel(positions));
              sum = arith::AddFOp::create(b, l, sum, term);
            }
          }
          if (computeType != element)
            sum = arith::TruncFOp::create(b, l, element, sum);
          return sum;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// RoiAlign
//===----------------------------------------------------------------------===//

struct RoiAlignLowering : OpConversionPattern<graph::RoiAlignOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::RoiAlignOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto roisType = dyn_cast<RankedTensorType>(adaptor.getRois().getType());
    auto batchType = dyn_cast<RankedTensorType>(adaptor.getBatchIndices().getType());
    if (!resultType || !inputType || !roisType || !batchType || inputType.getRank() != 4 ||
        roisType.getRank() != 2 || batchType.getRank() != 1 || resultType.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "unexpected operand ranks");
    Type element = inputType.getElementType();
    if (!isa<FloatType>(element) || !isa<FloatType>(roisType.getElementType()) ||
        !isa<IntegerType>(batchType.getElementType()))
      return rewriter.notifyMatchFailure(op, "unexpected element types");
    StringRef mode = op.getMode();
    StringRef transform = op.getCoordinateTransformationMode();
    if (mode != "avg" && mode != "max")
      return rewriter.notifyMatchFailure(op, "unknown mode");
    if (transform != "half_pixel" && transform != "output_half_pixel")
      return rewriter.notifyMatchFailure(op, "unknown coordinate transformation mode");
    bool halfPixel = transform == "half_pixel";
    int64_t outHeight = op.getOutputHeight();
    int64_t outWidth = op.getOutputWidth();
    int64_t samplingRatio = op.getSamplingRatio();
    double spatialScale = op.getSpatialScale().convertToDouble();

    Value input = adaptor.getInput();
    Value rois = adaptor.getRois();
    Value batchIndices = adaptor.getBatchIndices();
    SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> resultSizes{getSizes(rewriter, loc, rois)[0], inputSizes[1],
                                          rewriter.getIndexAttr(outHeight),
                                          rewriter.getIndexAttr(outWidth)};
    Value batches = toIndexValue(rewriter, loc, inputSizes[0]);
    Value height = toIndexValue(rewriter, loc, inputSizes[2]);
    Value width = toIndexValue(rewriter, loc, inputSizes[3]);
    Value heightF = toF64(rewriter, loc, height);
    Value widthF = toF64(rewriter, loc, width);
    Type computeType = computeTypeFor(element);

    Value result = createIndexedGeneric(
        rewriter, loc, resultType, resultSizes, [&](OpBuilder &b, Location l, ValueRange idx) {
          auto c = [&](double v) { return createF64Constant(b, l, v); };
          auto add = [&](Value x, Value y) -> Value { return arith::AddFOp::create(b, l, x, y); };
          auto sub = [&](Value x, Value y) -> Value { return arith::SubFOp::create(b, l, x, y); };
          auto mul = [&](Value x, Value y) -> Value { return arith::MulFOp::create(b, l, x, y); };
          auto div = [&](Value x, Value y) -> Value { return arith::DivFOp::create(b, l, x, y); };
          Value roi = idx[0], channel = idx[1];
          Value batchValue = tensor::ExtractOp::create(b, l, batchIndices, ValueRange{roi});
          Value batch = clampIndex(
              b, l, arith::IndexCastOp::create(b, l, b.getIndexType(), batchValue), batches);
          Value offset = c(halfPixel ? 0.5 : 0.0);
          auto corner = [&](int64_t position) {
            Value value = tensor::ExtractOp::create(b, l, rois,
                                                    ValueRange{roi, indexConstant(b, l, position)});
            return sub(mul(toF64(b, l, value), c(spatialScale)), offset);
          };
          Value startW = corner(0), startH = corner(1), endW = corner(2), endH = corner(3);
          Value roiWidth = sub(endW, startW);
          Value roiHeight = sub(endH, startH);
          if (!halfPixel) {
            // RoiAlign-10 made every region at least one pixel wide.
            roiWidth = arith::MaximumFOp::create(b, l, roiWidth, c(1));
            roiHeight = arith::MaximumFOp::create(b, l, roiHeight, c(1));
          }
          Value binHeight = div(roiHeight, c(outHeight));
          Value binWidth = div(roiWidth, c(outWidth));
          auto samplesPerBin = [&](Value bin) -> Value {
            if (samplingRatio > 0)
              return indexConstant(b, l, samplingRatio);
            Value count = math::CeilOp::create(b, l, bin);
            return f64ToIndex(b, l, arith::MaximumFOp::create(b, l, count, c(0)));
          };
          Value gridH = samplesPerBin(binHeight);
          Value gridW = samplesPerBin(binWidth);
          Value gridHF = toF64(b, l, gridH);
          Value gridWF = toF64(b, l, gridW);
          Value binStartH = add(startH, mul(toF64(b, l, idx[2]), binHeight));
          Value binStartW = add(startW, mul(toF64(b, l, idx[3]), binWidth));

          // One bilinear axis as ONNX Runtime computes it: samples beyond one pixel
          // outside contribute nothing, the rest clamp to the edge.
          struct Axis {
            Value low, high, lowWeight, highWeight, outside;
          };
          auto bilinearAxis = [&](OpBuilder &ib, Location il, Value x, Value lengthF,
                                  Value length) {
            auto ic = [&](double v) { return createF64Constant(ib, il, v); };
            Axis axis;
            axis.outside = arith::OrIOp::create(
                ib, il, arith::CmpFOp::create(ib, il, arith::CmpFPredicate::OLT, x, ic(-1)),
                arith::CmpFOp::create(ib, il, arith::CmpFPredicate::OGT, x, lengthF));
            x = arith::MaximumFOp::create(ib, il, x, ic(0));
            x = arith::MinimumFOp::create(ib, il, x, arith::AddFOp::create(ib, il, lengthF, ic(2)));
            Value low = f64ToIndex(ib, il, math::FloorOp::create(ib, il, x));
            Value last = arith::SubIOp::create(ib, il, length, indexConstant(ib, il, 1));
            Value atEdge = arith::CmpIOp::create(ib, il, arith::CmpIPredicate::sge, low, last);
            low = arith::SelectOp::create(ib, il, atEdge, last, low);
            Value high = arith::SelectOp::create(
                ib, il, atEdge, last, arith::AddIOp::create(ib, il, low, indexConstant(ib, il, 1)));
            x = arith::SelectOp::create(ib, il, atEdge, toF64(ib, il, last), x);
            Value fraction = arith::SubFOp::create(ib, il, x, toF64(ib, il, low));
            axis.low = clampIndex(ib, il, low, length);
            axis.high = clampIndex(ib, il, high, length);
            axis.highWeight = fraction;
            axis.lowWeight = arith::SubFOp::create(ib, il, ic(1), fraction);
            return axis;
          };

          bool isMax = mode == "max";
          Value init = isMax ? c(-std::numeric_limits<double>::infinity()) : c(0);
          Value zeroIndex = indexConstant(b, l, 0);
          Value oneIndex = indexConstant(b, l, 1);
          auto outer = scf::ForOp::create(
              b, l, zeroIndex, gridH, oneIndex, ValueRange{init},
              [&](OpBuilder &ob, Location ol, Value iy, ValueRange outerArgs) {
                auto inner = scf::ForOp::create(
                    ob, ol, zeroIndex, gridW, oneIndex, ValueRange{outerArgs[0]},
                    [&](OpBuilder &ib, Location il, Value ix, ValueRange innerArgs) {
                      auto ic = [&](double v) { return createF64Constant(ib, il, v); };
                      auto sampleAt = [&](Value start, Value bin, Value i, Value grid) {
                        Value fraction = arith::DivFOp::create(
                            ib, il,
                            arith::MulFOp::create(
                                ib, il, arith::AddFOp::create(ib, il, toF64(ib, il, i), ic(0.5)),
                                bin),
                            grid);
                        return arith::AddFOp::create(ib, il, start, fraction).getResult();
                      };
                      Value y = sampleAt(binStartH, binHeight, iy, gridHF);
                      Value x = sampleAt(binStartW, binWidth, ix, gridWF);
                      Axis ay = bilinearAxis(ib, il, y, heightF, height);
                      Axis ax = bilinearAxis(ib, il, x, widthF, width);
                      Value outside = arith::OrIOp::create(ib, il, ay.outside, ax.outside);
                      Value acc = innerArgs[0];
                      Value combined;
                      for (auto [yIndex, yWeight] :
                           {std::pair(ay.low, ay.lowWeight), std::pair(ay.high, ay.highWeight)})
                        for (auto [xIndex, xWeight] :
                             {std::pair(ax.low, ax.lowWeight), std::pair(ax.high, ax.highWeight)}) {
                          Value value = tensor::ExtractOp::create(
                              ib, il, input, ValueRange{batch, channel, yIndex, xIndex});
                          Value weight = arith::MulFOp::create(ib, il, yWeight, xWeight);
                          weight = arith::SelectOp::create(ib, il, outside, ic(0), weight);
                          Value term = arith::MulFOp::create(ib, il, weight, toF64(ib, il, value));
                          combined = !combined ? term
                                     : isMax
                                         ? Value(arith::MaximumFOp::create(ib, il, combined, term))
                                         : Value(arith::AddFOp::create(ib, il, combined, term));
                        }
                      Value next = isMax ? Value(arith::MaximumFOp::create(ib, il, acc, combined))
                                         : Value(arith::AddFOp::create(ib, il, acc, combined));
                      scf::YieldOp::create(ib, il, next);
                    });
                scf::YieldOp::create(ob, ol, inner.getResult(0));
              });
          Value total = outer.getResult(0);
          Value count = mul(gridHF, gridWF);
          Value empty = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, count, c(0));
          Value value = isMax ? total : div(total, arith::MaximumFOp::create(b, l, count, c(1)));
          value = arith::SelectOp::create(b, l, empty, c(0), value);
          value = fromF64(b, l, value, computeType);
          if (computeType != element)
            value = arith::TruncFOp::create(b, l, element, value);
          return value;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// NonMaxSuppression
//===----------------------------------------------------------------------===//

struct NonMaxSuppressionLowering : OpConversionPattern<graph::NonMaxSuppressionOp> {
  using OpConversionPattern::OpConversionPattern;

  /// The corners (y_min, x_min, y_max, x_max) of box `index` of batch `batch`, as f64.
  static SmallVector<Value> corners(OpBuilder &b, Location loc, Value boxes, Value batch,
                                    Value index, bool centerPointBox) {
    SmallVector<Value> raw;
    for (int64_t k = 0; k < 4; ++k)
      raw.push_back(toF64(b, loc,
                          tensor::ExtractOp::create(
                              b, loc, boxes, ValueRange{batch, index, indexConstant(b, loc, k)})));
    if (centerPointBox) {
      // [x_center, y_center, width, height].
      Value half = createF64Constant(b, loc, 0.5);
      Value halfW = arith::MulFOp::create(b, loc, raw[2], half);
      Value halfH = arith::MulFOp::create(b, loc, raw[3], half);
      return {arith::SubFOp::create(b, loc, raw[1], halfH),
              arith::SubFOp::create(b, loc, raw[0], halfW),
              arith::AddFOp::create(b, loc, raw[1], halfH),
              arith::AddFOp::create(b, loc, raw[0], halfW)};
    }
    // [y1, x1, y2, x2], either corner first.
    return {arith::MinimumFOp::create(b, loc, raw[0], raw[2]),
            arith::MinimumFOp::create(b, loc, raw[1], raw[3]),
            arith::MaximumFOp::create(b, loc, raw[0], raw[2]),
            arith::MaximumFOp::create(b, loc, raw[1], raw[3])};
  }

  /// Whether the IoU of boxes `a` and `b` exceeds `threshold`, computed as ONNX Runtime
  /// does (degenerate boxes overlap nothing).
  static Value overlaps(OpBuilder &b, Location loc, ArrayRef<Value> a, ArrayRef<Value> c,
                        Value threshold) {
    auto sub = [&](Value x, Value y) -> Value { return arith::SubFOp::create(b, loc, x, y); };
    auto mul = [&](Value x, Value y) -> Value { return arith::MulFOp::create(b, loc, x, y); };
    auto gt = [&](Value x, Value y) -> Value {
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, y);
    };
    Value zero = createF64Constant(b, loc, 0);
    Value yMin = arith::MaximumFOp::create(b, loc, a[0], c[0]);
    Value xMin = arith::MaximumFOp::create(b, loc, a[1], c[1]);
    Value yMax = arith::MinimumFOp::create(b, loc, a[2], c[2]);
    Value xMax = arith::MinimumFOp::create(b, loc, a[3], c[3]);
    Value intersection = mul(sub(yMax, yMin), sub(xMax, xMin));
    Value areaA = mul(sub(a[2], a[0]), sub(a[3], a[1]));
    Value areaC = mul(sub(c[2], c[0]), sub(c[3], c[1]));
    Value unionArea = sub(arith::AddFOp::create(b, loc, areaA, areaC), intersection);
    Value valid = arith::AndIOp::create(b, loc, gt(yMax, yMin), gt(xMax, xMin));
    valid = arith::AndIOp::create(b, loc, valid, gt(intersection, zero));
    valid = arith::AndIOp::create(b, loc, valid, gt(areaA, zero));
    valid = arith::AndIOp::create(b, loc, valid, gt(areaC, zero));
    valid = arith::AndIOp::create(b, loc, valid, gt(unionArea, zero));
    Value iou = arith::DivFOp::create(b, loc, intersection, unionArea);
    return arith::AndIOp::create(b, loc, valid, gt(iou, threshold));
  }

  LogicalResult matchAndRewrite(graph::NonMaxSuppressionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto boxesType = dyn_cast<RankedTensorType>(adaptor.getBoxes().getType());
    auto scoresType = dyn_cast<RankedTensorType>(adaptor.getScores().getType());
    if (!resultType || !boxesType || !scoresType || boxesType.getRank() != 3 ||
        scoresType.getRank() != 3 || resultType.getRank() != 2 ||
        !resultType.getElementType().isInteger(64))
      return rewriter.notifyMatchFailure(op, "unexpected operand or result types");
    if (!isa<FloatType>(boxesType.getElementType()) || !isa<FloatType>(scoresType.getElementType()))
      return rewriter.notifyMatchFailure(op, "non-float boxes or scores");
    for (Value scalar : {adaptor.getMaxOutputBoxesPerClass(), adaptor.getIouThreshold(),
                         adaptor.getScoreThreshold()}) {
      if (!scalar)
        continue;
      auto type = dyn_cast<RankedTensorType>(scalar.getType());
      if (!type || !type.hasStaticShape() || type.getNumElements() != 1)
        return rewriter.notifyMatchFailure(op, "thresholds must be single elements");
    }
    if (adaptor.getMaxOutputBoxesPerClass() &&
        !isa<IntegerType>(getElementTypeOrSelf(adaptor.getMaxOutputBoxesPerClass().getType())))
      return rewriter.notifyMatchFailure(op, "non-integer max_output_boxes_per_class");
    bool centerPointBox = op.getCenterPointBox() == 1;

    Value boxes = adaptor.getBoxes();
    Value scores = adaptor.getScores();
    SmallVector<OpFoldResult> scoreSizes = getSizes(rewriter, loc, scores);
    Value numBatches = toIndexValue(rewriter, loc, scoreSizes[0]);
    Value numClasses = toIndexValue(rewriter, loc, scoreSizes[1]);
    Value numBoxes = toIndexValue(rewriter, loc, scoreSizes[2]);
    Value zero = indexConstant(rewriter, loc, 0);
    Value one = indexConstant(rewriter, loc, 1);

    // Boxes kept per class: at most max_output_boxes_per_class (0 when absent) and at
    // most all of them.
    Value maxPerClass = zero;
    if (Value given = adaptor.getMaxOutputBoxesPerClass()) {
      Value value = readElement(rewriter, loc, given);
      if (!value.getType().isInteger(64))
        value = arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(), value);
      Value limit = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), numBoxes);
      value = arith::MinSIOp::create(rewriter, loc, value, limit);
      value = arith::MaxSIOp::create(rewriter, loc, value,
                                     createScalarConstant(rewriter, loc, rewriter.getI64Type(), 0));
      maxPerClass = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), value);
    }
    Value iouThreshold = createF64Constant(rewriter, loc, 0);
    if (Value given = adaptor.getIouThreshold())
      iouThreshold = toF64(rewriter, loc, readElement(rewriter, loc, given));
    Value scoreThreshold;
    if (Value given = adaptor.getScoreThreshold())
      scoreThreshold = toF64(rewriter, loc, readElement(rewriter, loc, given));

    Type i64 = rewriter.getI64Type();
    Type i1 = rewriter.getI1Type();
    Value capacity = arith::MulIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, numBatches, numClasses), maxPerClass);
    auto selectionType = RankedTensorType::get({ShapedType::kDynamic, 3}, i64);
    Value selection = tensor::EmptyOp::create(rewriter, loc, selectionType, ValueRange{capacity});
    auto maskType = RankedTensorType::get({ShapedType::kDynamic}, i1);

    auto batchLoop = scf::ForOp::create(
        rewriter, loc, zero, numBatches, one, ValueRange{selection, zero},
        [&](OpBuilder &b, Location l, Value batch, ValueRange batchArgs) {
          auto classLoop = scf::ForOp::create(
              b, l, zero, numClasses, one, batchArgs,
              [&](OpBuilder &cb, Location cl, Value cls, ValueRange classArgs) {
                auto score = [&](OpBuilder &sb, Location sl, Value box) {
                  return toF64(
                      sb, sl,
                      tensor::ExtractOp::create(sb, sl, scores, ValueRange{batch, cls, box}));
                };
                // Candidates: boxes whose score passes the threshold.
                Value mask = createIndexedGeneric(
                    cb, cl, maskType, {OpFoldResult(numBoxes)},
                    [&](OpBuilder &gb, Location gl, ValueRange idx) -> Value {
                      if (!scoreThreshold)
                        return arith::ConstantIntOp::create(gb, gl, 1, 1);
                      return arith::CmpFOp::create(gb, gl, arith::CmpFPredicate::OGT,
                                                   score(gb, gl, idx[0]), scoreThreshold);
                    });
                Value notDone = arith::ConstantIntOp::create(cb, cl, 1, 1);
                // Each step keeps the best remaining candidate and drops those it overlaps:
                // the greedy order of sorting by score, without sorting.
                auto selectLoop = scf::ForOp::create(
                    cb, cl, zero, maxPerClass, one,
                    ValueRange{classArgs[0], classArgs[1], mask, notDone},
                    [&](OpBuilder &sb, Location sl, Value, ValueRange args) {
                      auto step = scf::IfOp::create(
                          sb, sl, args[3],
                          [&](OpBuilder &tb, Location tl) {
                            Value currentMask = args[2];
                            Value noScore = createF64Constant(tb, tl, 0);
                            Value no = arith::ConstantIntOp::create(tb, tl, 0, 1);
                            auto scan = scf::ForOp::create(
                                tb, tl, zero, numBoxes, one, ValueRange{zero, noScore, no},
                                [&](OpBuilder &fb, Location fl, Value box, ValueRange best) {
                                  Value alive = tensor::ExtractOp::create(fb, fl, currentMask,
                                                                          ValueRange{box});
                                  Value s = score(fb, fl, box);
                                  // Strictly greater: ties go to the lower box index.
                                  Value higher = arith::CmpFOp::create(
                                      fb, fl, arith::CmpFPredicate::OGT, s, best[1]);
                                  Value first = arith::XOrIOp::create(
                                      fb, fl, best[2], arith::ConstantIntOp::create(fb, fl, 1, 1));
                                  Value better = arith::AndIOp::create(
                                      fb, fl, alive, arith::OrIOp::create(fb, fl, first, higher));
                                  scf::YieldOp::create(
                                      fb, fl,
                                      ValueRange{
                                          arith::SelectOp::create(fb, fl, better, box, best[0]),
                                          arith::SelectOp::create(fb, fl, better, s, best[1]),
                                          arith::OrIOp::create(fb, fl, best[2], alive)});
                                });
                            Value found = scan.getResult(2);
                            auto keep = scf::IfOp::create(
                                tb, tl, found,
                                [&](OpBuilder &kb, Location kl) {
                                  Value bestBox = scan.getResult(0);
                                  Value row = args[1];
                                  Value out = args[0];
                                  SmallVector<Value> rowValues{batch, cls, bestBox};
                                  for (auto [column, value] : llvm::enumerate(rowValues))
                                    out = tensor::InsertOp::create(
                                        kb, kl, arith::IndexCastOp::create(kb, kl, i64, value), out,
                                        ValueRange{row, indexConstant(kb, kl, column)});
                                  Value nextRow = arith::AddIOp::create(kb, kl, row, one);
                                  SmallVector<Value> bestCorners =
                                      corners(kb, kl, boxes, batch, bestBox, centerPointBox);
                                  Value dropped = tensor::InsertOp::create(
                                      kb, kl, arith::ConstantIntOp::create(kb, kl, 0, 1),
                                      currentMask, ValueRange{bestBox});
                                  auto suppress = scf::ForOp::create(
                                      kb, kl, zero, numBoxes, one, ValueRange{dropped},
                                      [&](OpBuilder &pb, Location pl, Value box,
                                          ValueRange maskArg) {
                                        Value alive = tensor::ExtractOp::create(pb, pl, maskArg[0],
                                                                                ValueRange{box});
                                        SmallVector<Value> other =
                                            corners(pb, pl, boxes, batch, box, centerPointBox);
                                        Value hit =
                                            overlaps(pb, pl, bestCorners, other, iouThreshold);
                                        Value stays = arith::AndIOp::create(
                                            pb, pl, alive,
                                            arith::XOrIOp::create(
                                                pb, pl, hit,
                                                arith::ConstantIntOp::create(pb, pl, 1, 1)));
                                        Value updated = tensor::InsertOp::create(
                                            pb, pl, stays, maskArg[0], ValueRange{box});
                                        scf::YieldOp::create(pb, pl, updated);
                                      });
                                  scf::YieldOp::create(
                                      kb, kl,
                                      ValueRange{out, nextRow, suppress.getResult(0),
                                                 arith::ConstantIntOp::create(kb, kl, 1, 1)});
                                },
                                [&](OpBuilder &eb, Location el) {
                                  scf::YieldOp::create(
                                      eb, el,
                                      ValueRange{args[0], args[1], args[2],
                                                 arith::ConstantIntOp::create(eb, el, 0, 1)});
                                });
                            scf::YieldOp::create(tb, tl, keep.getResults());
                          },
                          [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, args); });
                      scf::YieldOp::create(sb, sl, step.getResults());
                    });
                scf::YieldOp::create(cb, cl,
                                     ValueRange{selectLoop.getResult(0), selectLoop.getResult(1)});
              });
          scf::YieldOp::create(b, l, classLoop.getResults());
        });
    // At most the capacity, as the loop guarantees: said again so that the GPU path's
    // memory plan, which reads the count back, has its bound.
    Value rows = arith::MinSIOp::create(rewriter, loc, batchLoop.getResult(1), capacity);
    SmallVector<OpFoldResult> offsets{rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes{rows, rewriter.getIndexAttr(3)};
    SmallVector<OpFoldResult> strides{rewriter.getIndexAttr(1), rewriter.getIndexAttr(1)};
    Value selected = tensor::ExtractSliceOp::create(
        rewriter, loc, selectionType, batchLoop.getResult(0), offsets, sizes, strides);
    rewriter.replaceOp(op, castToType(rewriter, loc, selected, resultType));
    return success();
  }
};

} // namespace

void populateNNSamplingLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ResizeLowering, GridSampleLowering, RoiAlignLowering, NonMaxSuppressionLowering>(
      converter, patterns.getContext());
}

} // namespace kiln::lowering
