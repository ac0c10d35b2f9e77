//===- Random.cpp - Graph to linalg: random number generators ===//
//
// Random values come from a counter-based generator: each element hashes (seed, linear
// element index) with splitmix64's finaliser, so the values do not depend on the order
// in which loops visit elements (tiling, vectorization, parallel execution stay free)
// and the IR is one linalg.generic whatever the tensor size. The values cannot match
// numpy's generator (ONNX's reference), only its distributions.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

#include "llvm/ADT/bit.h"

#include <cstdint>
#include <optional>

using namespace mlir;

namespace kiln::lowering {
namespace {

/// The seed used when the op has none: ONNX then asks for nondeterministic values, but a
/// fixed one keeps runs reproducible, which tests and debugging prefer.
constexpr uint64_t kDefaultSeed = 0x5eed5eed12345678ULL;

/// 64-bit key of the seed attribute (its float bits, spread so nearby seeds differ).
uint64_t getSeedKey(std::optional<float> seed) {
  if (!seed)
    return kDefaultSeed;
  return kDefaultSeed ^ (uint64_t(llvm::bit_cast<uint32_t>(*seed)) * 0x9e3779b97f4a7c15ULL);
}

Value i64Constant(OpBuilder &builder, Location loc, uint64_t value) {
  return arith::ConstantIntOp::create(builder, loc, builder.getI64Type(), int64_t(value));
}

/// splitmix64's finaliser: a bijective mix of all 64 bits of `x`.
Value mix64(OpBuilder &builder, Location loc, Value x) {
  auto xorShift = [&](Value v, uint64_t shift) {
    Value shifted = arith::ShRUIOp::create(builder, loc, v, i64Constant(builder, loc, shift));
    return arith::XOrIOp::create(builder, loc, v, shifted).getResult();
  };
  x = xorShift(x, 30);
  x = arith::MulIOp::create(builder, loc, x, i64Constant(builder, loc, 0xbf58476d1ce4e5b9ULL));
  x = xorShift(x, 27);
  x = arith::MulIOp::create(builder, loc, x, i64Constant(builder, loc, 0x94d049bb133111ebULL));
  return xorShift(x, 31);
}

/// The `stream`-th 64-bit random word of element `linearIndex` (an i64).
Value randomWord(OpBuilder &builder, Location loc, uint64_t seedKey, Value linearIndex,
                 uint64_t stream) {
  // Element index and stream are combined into a distinct counter before mixing.
  Value counter = arith::MulIOp::create(builder, loc, linearIndex, i64Constant(builder, loc, 2));
  counter = arith::AddIOp::create(builder, loc, counter, i64Constant(builder, loc, stream));
  counter = arith::MulIOp::create(builder, loc, counter,
                                  i64Constant(builder, loc, 0x9e3779b97f4a7c15ULL));
  counter = arith::XOrIOp::create(builder, loc, counter, i64Constant(builder, loc, seedKey));
  return mix64(builder, loc, counter);
}

/// A uniform f64 in [0, 1) from the top 53 bits of `word`; with `open` in (0, 1] instead
/// (for the logarithm of Box-Muller).
Value wordToUnit(OpBuilder &builder, Location loc, Value word, bool open) {
  Value bits = arith::ShRUIOp::create(builder, loc, word, i64Constant(builder, loc, 11));
  if (open)
    bits = arith::AddIOp::create(builder, loc, bits, i64Constant(builder, loc, 1));
  Value asFloat = arith::UIToFPOp::create(builder, loc, builder.getF64Type(), bits);
  Value scale = createScalarConstant(builder, loc, builder.getF64Type(), 0x1.0p-53);
  return arith::MulFOp::create(builder, loc, asFloat, scale);
}

enum class Distribution { Uniform, Normal };

/// A sample in f64 of `distribution` (parameters `a`, `b`: low/high or mean/scale) for
/// the element `linearIndex`.
Value sample(OpBuilder &builder, Location loc, Distribution distribution, double a, double b,
             uint64_t seedKey, Value linearIndex) {
  Type f64 = builder.getF64Type();
  if (distribution == Distribution::Uniform) {
    Value unit = wordToUnit(builder, loc, randomWord(builder, loc, seedKey, linearIndex, 0),
                            /*open=*/false);
    Value width = createScalarConstant(builder, loc, f64, b - a);
    Value scaled = arith::MulFOp::create(builder, loc, unit, width);
    return arith::AddFOp::create(builder, loc, scaled, createScalarConstant(builder, loc, f64, a));
  }
  // Box-Muller: sqrt(-2 ln u1) cos(2 pi u2) with u1 in (0, 1] so the logarithm is finite.
  Value u1 = wordToUnit(builder, loc, randomWord(builder, loc, seedKey, linearIndex, 0),
                        /*open=*/true);
  Value u2 = wordToUnit(builder, loc, randomWord(builder, loc, seedKey, linearIndex, 1),
                        /*open=*/false);
  Value logU1 = math::LogOp::create(builder, loc, u1);
  Value radiusSquared =
      arith::MulFOp::create(builder, loc, logU1, createScalarConstant(builder, loc, f64, -2.0));
  Value radius = math::SqrtOp::create(builder, loc, radiusSquared);
  Value angle = arith::MulFOp::create(builder, loc, u2,
                                      createScalarConstant(builder, loc, f64, 6.283185307179586));
  Value standard =
      arith::MulFOp::create(builder, loc, radius, math::CosOp::create(builder, loc, angle));
  Value scaled =
      arith::MulFOp::create(builder, loc, standard, createScalarConstant(builder, loc, f64, b));
  return arith::AddFOp::create(builder, loc, scaled, createScalarConstant(builder, loc, f64, a));
}

/// A linalg.generic producing `type` (extents `sizes`), optionally reading `input`
/// elementwise, whose body gets the row-major linear index (i64) of the element.
using RandomBody =
    llvm::function_ref<Value(OpBuilder &, Location, Value linearIndex, Value inputElement)>;
Value createRandomGeneric(OpBuilder &builder, Location loc, RankedTensorType type,
                          ArrayRef<OpFoldResult> sizes, Value input, RandomBody body) {
  int64_t rank = type.getRank();
  SmallVector<Value> extents;
  for (OpFoldResult size : sizes)
    extents.push_back(getValueOrCreateConstantIndexOp(builder, loc, size));
  Value init = createEmptyTensor(builder, loc, type, sizes);
  AffineMap identity = builder.getMultiDimIdentityMap(rank);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  if (input) {
    inputs.push_back(input);
    maps.push_back(identity);
  }
  maps.push_back(identity);
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, type, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value linear = arith::ConstantIndexOp::create(nested, nestedLoc, 0);
        for (int64_t dim = 0; dim < rank; ++dim) {
          linear = arith::MulIOp::create(nested, nestedLoc, linear, extents[dim]);
          Value index = linalg::IndexOp::create(nested, nestedLoc, dim);
          linear = arith::AddIOp::create(nested, nestedLoc, linear, index);
        }
        Value linear64 =
            arith::IndexCastUIOp::create(nested, nestedLoc, nested.getI64Type(), linear);
        Value result = body(nested, nestedLoc, linear64, input ? args[0] : Value());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

/// RandomUniform, RandomNormal and their *Like forms.
template <typename OpTy, Distribution kDistribution, bool kLike>
struct RandomDistributionLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getConvertedResultType(*this->getTypeConverter(), op);
    if (!type)
      return rewriter.notifyMatchFailure(op, "unranked result");
    Type graphElementType = cast<ShapedType>(op.getType()).getElementType();
    if (!isa<FloatType>(graphElementType))
      return rewriter.notifyMatchFailure(op, "random values of a non-float type");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> sizes;
    if constexpr (kLike) {
      auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
      if (!inputType || inputType.getRank() != type.getRank())
        return rewriter.notifyMatchFailure(op, "input of another rank than the result");
      sizes = getSizes(rewriter, loc, adaptor.getInput());
    } else {
      if (!type.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "dynamic result shape");
      for (int64_t extent : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(extent));
    }
    double a, b;
    if constexpr (kDistribution == Distribution::Uniform) {
      a = op.getLow().convertToDouble();
      b = op.getHigh().convertToDouble();
    } else {
      a = op.getMean().convertToDouble();
      b = op.getScale().convertToDouble();
    }
    std::optional<float> seed;
    if (auto seedAttr = op.getSeedAttr())
      seed = seedAttr.getValue().convertToFloat();
    uint64_t seedKey = getSeedKey(seed);
    Type f64 = rewriter.getF64Type();
    Value result = createRandomGeneric(
        rewriter, loc, type, sizes, Value(),
        [&](OpBuilder &nested, Location nestedLoc, Value linearIndex, Value) {
          Value value = sample(nested, nestedLoc, kDistribution, a, b, seedKey, linearIndex);
          return convertScalar(nested, nestedLoc, value, f64, graphElementType);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Bernoulli: 1 where a uniform sample in [0, 1) is below the probability, else 0.
struct BernoulliLowering : OpConversionPattern<graph::BernoulliOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::BernoulliOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getConvertedResultType(*getTypeConverter(), op);
    if (!type)
      return rewriter.notifyMatchFailure(op, "unranked result");
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!inputType || inputType.getRank() != type.getRank())
      return rewriter.notifyMatchFailure(op, "input of another rank than the result");
    Type graphInputElement = cast<ShapedType>(op.getInput().getType()).getElementType();
    if (!isa<FloatType>(graphInputElement))
      return rewriter.notifyMatchFailure(op, "probabilities of a non-float type");
    Type graphResultElement = cast<ShapedType>(op.getType()).getElementType();
    Location loc = op.getLoc();
    std::optional<float> seed;
    if (auto seedAttr = op.getSeedAttr())
      seed = seedAttr.getValue().convertToFloat();
    uint64_t seedKey = getSeedKey(seed);
    Type f64 = rewriter.getF64Type();
    Value result = createRandomGeneric(
        rewriter, loc, type, getSizes(rewriter, loc, adaptor.getInput()), adaptor.getInput(),
        [&](OpBuilder &nested, Location nestedLoc, Value linearIndex, Value probability) {
          Value unit =
              sample(nested, nestedLoc, Distribution::Uniform, 0.0, 1.0, seedKey, linearIndex);
          Value p = convertScalar(nested, nestedLoc, probability, graphInputElement, f64);
          Value hit = arith::CmpFOp::create(nested, nestedLoc, arith::CmpFPredicate::OLT, unit, p);
          return convertScalar(nested, nestedLoc, hit, nested.getI1Type(), graphResultElement);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateRandomLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<RandomDistributionLowering<graph::RandomUniformOp, Distribution::Uniform, false>,
               RandomDistributionLowering<graph::RandomNormalOp, Distribution::Normal, false>,
               RandomDistributionLowering<graph::RandomUniformLikeOp, Distribution::Uniform, true>,
               RandomDistributionLowering<graph::RandomNormalLikeOp, Distribution::Normal, true>,
               BernoulliLowering>(converter, context);
}

} // namespace kiln::lowering
