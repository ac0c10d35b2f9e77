//===- Signal.cpp - Graph to linalg: DFT, STFT and window functions ===//
//
// Every op here is one `linalg.generic` over its result whose body computes an element
// from its indices. DFT and STFT sum over the transformed axis with an `scf.for` in the
// body (a direct transform, O(n) per output element), in f64 with the twiddle angle reduced
// modulo the length so that it stays exact for long signals. Window functions and the mel
// filter bank read their scalar operands at run time.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace kiln::lowering {
namespace {

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// The single element of an integer scalar operand, as an index.
Value readIndexScalar(OpBuilder &b, Location loc, Value tensor) {
  return integerToIndex(b, loc, extractScalar(b, loc, tensor));
}

/// The result extents of `type`, with `dynamic` filling its dynamic ones in order.
SmallVector<OpFoldResult> resultSizes(OpBuilder &b, RankedTensorType type,
                                      ArrayRef<Value> extents) {
  SmallVector<OpFoldResult> sizes;
  for (auto [dim, extent] : llvm::enumerate(type.getShape()))
    sizes.push_back(ShapedType::isDynamic(extent) ? OpFoldResult(extents[dim])
                                                  : OpFoldResult(b.getIndexAttr(extent)));
  return sizes;
}

/// sum_{j < count} x(j) * exp(sign * 2 pi i * j * k / length) as the (real, imaginary)
/// pair, in f64; `read(j)` gives x(j) as a (real, imaginary) pair.
std::pair<Value, Value>
directTransform(OpBuilder &b, Location loc, Value count, Value k, Value length, double sign,
                function_ref<std::pair<Value, Value>(OpBuilder &, Location, Value)> read) {
  Value zero = createF64Constant(b, loc, 0);
  Value lengthF = toF64(b, loc, length);
  Value base = createF64Constant(b, loc, sign * 2 * llvm::numbers::pi);
  auto loop = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), count, indexConstant(b, loc, 1), ValueRange{zero, zero},
      [&](OpBuilder &lb, Location ll, Value j, ValueRange acc) {
        // j * k mod length keeps the angle in [0, 2 pi) before it is rounded.
        Value phase = arith::RemUIOp::create(lb, ll, arith::MulIOp::create(lb, ll, j, k), length);
        Value angle = arith::DivFOp::create(
            lb, ll, arith::MulFOp::create(lb, ll, base, toF64(lb, ll, phase)), lengthF);
        Value cos = math::CosOp::create(lb, ll, angle);
        Value sin = math::SinOp::create(lb, ll, angle);
        auto [re, im] = read(lb, ll, j);
        Value real = arith::SubFOp::create(lb, ll, arith::MulFOp::create(lb, ll, re, cos),
                                           arith::MulFOp::create(lb, ll, im, sin));
        Value imag = arith::AddFOp::create(lb, ll, arith::MulFOp::create(lb, ll, re, sin),
                                           arith::MulFOp::create(lb, ll, im, cos));
        scf::YieldOp::create(lb, ll,
                             ValueRange{arith::AddFOp::create(lb, ll, acc[0], real),
                                        arith::AddFOp::create(lb, ll, acc[1], imag)});
      });
  return {loop.getResult(0), loop.getResult(1)};
}

/// The component `component` (0 real, 1 imaginary) of `pair`, as `element`.
Value pickComponent(OpBuilder &b, Location loc, std::pair<Value, Value> pair, Value component,
                    Type element) {
  Value isReal =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, component, indexConstant(b, loc, 0));
  Value value = arith::SelectOp::create(b, loc, isReal, pair.first, pair.second);
  return fromF64(b, loc, value, element);
}

//===----------------------------------------------------------------------===//
// DFT
//===----------------------------------------------------------------------===//

struct DFTLowering : OpConversionPattern<graph::DFTOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::DFTOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!resultType || !inputType || inputType.getRank() < 2 ||
        resultType.getRank() != inputType.getRank())
      return rewriter.notifyMatchFailure(op, "unranked or rank-changing DFT");
    int64_t rank = inputType.getRank();
    int64_t components = inputType.getDimSize(rank - 1);
    if (components != 1 && components != 2)
      return rewriter.notifyMatchFailure(op, "the innermost extent must be 1 or 2");
    if (resultType.getDimSize(rank - 1) != 2)
      return rewriter.notifyMatchFailure(op, "the result must be complex");
    Type element = resultType.getElementType();
    if (!isa<FloatType>(inputType.getElementType()) || !isa<FloatType>(element))
      return rewriter.notifyMatchFailure(op, "non-float DFT");
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis > rank - 2)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    if (adaptor.getDftLength() && !isSingleElement(adaptor.getDftLength().getType()))
      return rewriter.notifyMatchFailure(op, "dft_length must be a scalar");
    bool inverse = op.getInverse();
    bool onesided = op.getOnesided();

    Value input = adaptor.getInput();
    SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, input);
    Value inLength = getValueOrCreateConstantIndexOp(rewriter, loc, inputSizes[axis]);
    Value length =
        adaptor.getDftLength() ? readIndexScalar(rewriter, loc, adaptor.getDftLength()) : inLength;
    // Zero padding adds nothing to the sum: only the first min(length, n) samples count.
    Value count = arith::MinSIOp::create(rewriter, loc, length, inLength);
    SmallVector<Value> extents;
    for (int64_t dim = 0; dim < rank; ++dim)
      extents.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, inputSizes[dim]));
    extents[rank - 1] = indexConstant(rewriter, loc, 2);
    extents[axis] =
        onesided ? arith::AddIOp::create(rewriter, loc,
                                         arith::DivUIOp::create(rewriter, loc, length,
                                                                indexConstant(rewriter, loc, 2)),
                                         indexConstant(rewriter, loc, 1))
                 : length;

    Value result = createIndexedGeneric(
        rewriter, loc, resultType, resultSizes(rewriter, resultType, extents),
        [&](OpBuilder &b, Location l, ValueRange idx) {
          auto sum = directTransform(
              b, l, count, idx[axis], length, inverse ? 1.0 : -1.0,
              [&](OpBuilder &rb, Location rl, Value j) -> std::pair<Value, Value> {
                SmallVector<Value> indices(idx);
                indices[axis] = j;
                indices[rank - 1] = indexConstant(rb, rl, 0);
                Value re = toF64(rb, rl, tensor::ExtractOp::create(rb, rl, input, indices));
                if (components == 1)
                  return {re, createF64Constant(rb, rl, 0)};
                indices[rank - 1] = indexConstant(rb, rl, 1);
                Value im = toF64(rb, rl, tensor::ExtractOp::create(rb, rl, input, indices));
                return {re, im};
              });
          if (inverse) {
            Value lengthF = toF64(b, l, length);
            sum = {arith::DivFOp::create(b, l, sum.first, lengthF),
                   arith::DivFOp::create(b, l, sum.second, lengthF)};
          }
          return pickComponent(b, l, sum, idx[rank - 1], element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// STFT
//===----------------------------------------------------------------------===//

struct STFTLowering : OpConversionPattern<graph::STFTOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::STFTOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto signalType = dyn_cast<RankedTensorType>(adaptor.getSignal().getType());
    if (!resultType || !signalType || signalType.getRank() != 3 || resultType.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "unexpected ranks");
    int64_t components = signalType.getDimSize(2);
    if (components != 1 && components != 2)
      return rewriter.notifyMatchFailure(op, "the innermost extent must be 1 or 2");
    Type element = resultType.getElementType();
    if (!isa<FloatType>(signalType.getElementType()) || !isa<FloatType>(element))
      return rewriter.notifyMatchFailure(op, "non-float STFT");
    Value window = adaptor.getWindow();
    Value frameLengthOperand = adaptor.getFrameLength();
    if (!window && !frameLengthOperand)
      return rewriter.notifyMatchFailure(op, "neither window nor frame_length");
    if (window && cast<RankedTensorType>(window.getType()).getRank() != 1)
      return rewriter.notifyMatchFailure(op, "the window must be 1-D");
    if (!isSingleElement(adaptor.getFrameStep().getType()) ||
        (frameLengthOperand && !isSingleElement(frameLengthOperand.getType())))
      return rewriter.notifyMatchFailure(op, "frame_step and frame_length must be scalars");
    bool onesided = op.getOnesided();

    Value signal = adaptor.getSignal();
    SmallVector<OpFoldResult> signalSizes = getSizes(rewriter, loc, signal);
    Value signalLength = getValueOrCreateConstantIndexOp(rewriter, loc, signalSizes[1]);
    Value step = readIndexScalar(rewriter, loc, adaptor.getFrameStep());
    Value frameLength = frameLengthOperand ? readIndexScalar(rewriter, loc, frameLengthOperand)
                                           : Value(tensor::DimOp::create(rewriter, loc, window, 0));
    Value one = indexConstant(rewriter, loc, 1);
    Value two = indexConstant(rewriter, loc, 2);
    Value frames = arith::AddIOp::create(
        rewriter, loc,
        arith::DivSIOp::create(
            rewriter, loc, arith::SubIOp::create(rewriter, loc, signalLength, frameLength), step),
        one);
    Value bins =
        onesided ? arith::AddIOp::create(
                       rewriter, loc, arith::DivUIOp::create(rewriter, loc, frameLength, two), one)
                 : frameLength;
    SmallVector<Value> extents{getValueOrCreateConstantIndexOp(rewriter, loc, signalSizes[0]),
                               frames, bins, two};
    Value lastSample = arith::SubIOp::create(rewriter, loc, signalLength, one);

    Value result = createIndexedGeneric(
        rewriter, loc, resultType, resultSizes(rewriter, resultType, extents),
        [&](OpBuilder &b, Location l, ValueRange idx) {
          Value frameStart = arith::MulIOp::create(b, l, idx[1], step);
          auto sum = directTransform(
              b, l, frameLength, idx[2], frameLength, -1.0,
              [&](OpBuilder &rb, Location rl, Value j) -> std::pair<Value, Value> {
                Value sample = arith::AddIOp::create(rb, rl, frameStart, j);
                // A result type longer than the signal allows would read past its end.
                sample = arith::MinSIOp::create(rb, rl, sample, lastSample);
                Value weight = createF64Constant(rb, rl, 1);
                if (window)
                  weight = toF64(rb, rl, tensor::ExtractOp::create(rb, rl, window, ValueRange{j}));
                auto read = [&](int64_t component) {
                  Value value = tensor::ExtractOp::create(
                      rb, rl, signal, ValueRange{idx[0], sample, indexConstant(rb, rl, component)});
                  return arith::MulFOp::create(rb, rl, toF64(rb, rl, value), weight).getResult();
                };
                if (components == 1)
                  return {read(0), createF64Constant(rb, rl, 0)};
                return {read(0), read(1)};
              });
          return pickComponent(b, l, sum, idx[3], element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Window functions
//===----------------------------------------------------------------------===//

/// w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), the cosine-sum windows.
template <typename OpTy> struct WindowLowering : OpConversionPattern<OpTy> {
  WindowLowering(const TypeConverter &converter, MLIRContext *context, double a0, double a1,
                 double a2)
      : OpConversionPattern<OpTy>(converter, context), a0(a0), a1(a1), a2(a2) {}
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult matchAndRewrite(OpTy op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*this->getTypeConverter(), op);
    if (!resultType || resultType.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "the result must be 1-D");
    if (!isSingleElement(adaptor.getSize().getType()) ||
        !isa<IntegerType>(getElementTypeOrSelf(adaptor.getSize().getType())))
      return rewriter.notifyMatchFailure(op, "size must be an integer scalar");
    Type graphElement = getElementTypeOrSelf(op.getResult().getType());
    Value size = readIndexScalar(rewriter, loc, adaptor.getSize());
    // A periodic window has period `size`; a symmetric one ends where it starts.
    Value period =
        op.getPeriodic()
            ? size
            : Value(arith::SubIOp::create(rewriter, loc, size, indexConstant(rewriter, loc, 1)));
    Value periodF = toF64(rewriter, loc, period);
    Value result = createIndexedGeneric(
        rewriter, loc, resultType, resultSizes(rewriter, resultType, {size}),
        [&](OpBuilder &b, Location l, ValueRange idx) {
          Value angle = arith::DivFOp::create(
              b, l,
              arith::MulFOp::create(b, l, createF64Constant(b, l, 2 * llvm::numbers::pi),
                                    toF64(b, l, idx[0])),
              periodF);
          Value value =
              arith::SubFOp::create(b, l, createF64Constant(b, l, a0),
                                    arith::MulFOp::create(b, l, createF64Constant(b, l, a1),
                                                          math::CosOp::create(b, l, angle)));
          if (a2 != 0) {
            Value twice = arith::MulFOp::create(b, l, angle, createF64Constant(b, l, 2));
            value = arith::AddFOp::create(b, l, value,
                                          arith::MulFOp::create(b, l, createF64Constant(b, l, a2),
                                                                math::CosOp::create(b, l, twice)));
          }
          return convertScalar(b, l, value, b.getF64Type(), graphElement);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  double a0, a1, a2;
};

//===----------------------------------------------------------------------===//
// MelWeightMatrix
//===----------------------------------------------------------------------===//

struct MelWeightMatrixLowering : OpConversionPattern<graph::MelWeightMatrixOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::MelWeightMatrixOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType || resultType.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "the result must be 2-D");
    for (Value operand : adaptor.getOperands())
      if (!isSingleElement(operand.getType()))
        return rewriter.notifyMatchFailure(op, "operands must be scalars");
    for (Value operand : {adaptor.getNumMelBins(), adaptor.getDftLength(), adaptor.getSampleRate()})
      if (!isa<IntegerType>(getElementTypeOrSelf(operand.getType())))
        return rewriter.notifyMatchFailure(op, "counts and rate must be integers");
    Type graphElement = getElementTypeOrSelf(op.getResult().getType());
    auto c = [&](double v) { return createF64Constant(rewriter, loc, v); };

    Value numMelBins = readIndexScalar(rewriter, loc, adaptor.getNumMelBins());
    Value dftLength = readIndexScalar(rewriter, loc, adaptor.getDftLength());
    Value sampleRate = toF64(rewriter, loc, extractScalar(rewriter, loc, adaptor.getSampleRate()));
    Value lower = toF64(rewriter, loc, extractScalar(rewriter, loc, adaptor.getLowerEdgeHertz()));
    Value upper = toF64(rewriter, loc, extractScalar(rewriter, loc, adaptor.getUpperEdgeHertz()));
    Value spectrogramBins = arith::AddIOp::create(
        rewriter, loc,
        arith::DivUIOp::create(rewriter, loc, dftLength, indexConstant(rewriter, loc, 2)),
        indexConstant(rewriter, loc, 1));
    // mel(f) = 2595 log10(1 + f / 700).
    auto toMel = [&](Value hertz) {
      Value ratio = arith::AddFOp::create(rewriter, loc, c(1),
                                          arith::DivFOp::create(rewriter, loc, hertz, c(700)));
      return arith::MulFOp::create(rewriter, loc, c(2595),
                                   math::Log10Op::create(rewriter, loc, ratio))
          .getResult();
    };
    Value lowMel = toMel(lower);
    Value highMel = toMel(upper);
    // The num_mel_bins + 2 band edges step by (high - low) / (num_mel_bins + 2), as the
    // ONNX reference (and ONNX Runtime) compute it: the last edge stays below the upper one.
    Value melStep = arith::DivFOp::create(
        rewriter, loc, arith::SubFOp::create(rewriter, loc, highMel, lowMel),
        arith::AddFOp::create(rewriter, loc, toF64(rewriter, loc, numMelBins), c(2)));
    Value dftPlusOne = arith::AddFOp::create(rewriter, loc, toF64(rewriter, loc, dftLength), c(1));

    Value result = createIndexedGeneric(
        rewriter, loc, resultType, resultSizes(rewriter, resultType, {spectrogramBins, numMelBins}),
        [&](OpBuilder &b, Location l, ValueRange idx) {
          auto k = [&](double v) { return createF64Constant(b, l, v); };
          // The spectrogram bin of mel band edge `edge`: floor((dft_length + 1) * hz / rate).
          auto edgeBin = [&](Value edge) {
            Value mel =
                arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, edge, melStep), lowMel);
            Value hertz = arith::MulFOp::create(
                b, l, k(700),
                arith::SubFOp::create(
                    b, l,
                    math::PowFOp::create(b, l, k(10), arith::DivFOp::create(b, l, mel, k(2595))),
                    k(1)));
            return math::FloorOp::create(
                       b, l,
                       arith::DivFOp::create(b, l, arith::MulFOp::create(b, l, dftPlusOne, hertz),
                                             sampleRate))
                .getResult();
          };
          Value band = toF64(b, l, idx[1]);
          Value left = edgeBin(band);
          Value center = edgeBin(arith::AddFOp::create(b, l, band, k(1)));
          Value right = edgeBin(arith::AddFOp::create(b, l, band, k(2)));
          Value bin = toF64(b, l, idx[0]);
          auto cmp = [&](arith::CmpFPredicate predicate, Value x, Value y) -> Value {
            return arith::CmpFOp::create(b, l, predicate, x, y);
          };
          Value lowToCenter = arith::SubFOp::create(b, l, center, left);
          Value centerToHigh = arith::SubFOp::create(b, l, right, center);
          // Rising edge [left, center]; a band of zero rising width is 1 at its center.
          Value rising =
              arith::DivFOp::create(b, l, arith::SubFOp::create(b, l, bin, left), lowToCenter);
          Value onRising = arith::AndIOp::create(b, l, cmp(arith::CmpFPredicate::OGE, bin, left),
                                                 cmp(arith::CmpFPredicate::OLE, bin, center));
          Value flat = cmp(arith::CmpFPredicate::OEQ, lowToCenter, k(0));
          Value risingValue = arith::SelectOp::create(
              b, l, flat,
              arith::SelectOp::create(b, l, cmp(arith::CmpFPredicate::OEQ, bin, center), k(1),
                                      k(0)),
              arith::SelectOp::create(b, l, onRising, rising, k(0)));
          // Falling edge [center, right), written after the rising one.
          Value falling =
              arith::DivFOp::create(b, l, arith::SubFOp::create(b, l, right, bin), centerToHigh);
          Value onFalling = arith::AndIOp::create(
              b, l, cmp(arith::CmpFPredicate::OGT, centerToHigh, k(0)),
              arith::AndIOp::create(b, l, cmp(arith::CmpFPredicate::OGE, bin, center),
                                    cmp(arith::CmpFPredicate::OLT, bin, right)));
          Value value = arith::SelectOp::create(b, l, onFalling, falling, risingValue);
          return convertScalar(b, l, value, b.getF64Type(), graphElement);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateSignalLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<DFTLowering, STFTLowering, MelWeightMatrixLowering>(converter, context);
  patterns.add<WindowLowering<graph::HannWindowOp>>(converter, context, 0.5, 0.5, 0.0);
  patterns.add<WindowLowering<graph::HammingWindowOp>>(converter, context, 25.0 / 46.0, 21.0 / 46.0,
                                                       0.0);
  patterns.add<WindowLowering<graph::BlackmanWindowOp>>(converter, context, 0.42, 0.5, 0.08);
}

} // namespace kiln::lowering
