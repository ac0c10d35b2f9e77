//===- FoldLayerNormIntoProducts.cpp - LayerNorm's affine map into the weights ===//
//
// A pre-norm transformer normalises the residual stream and multiplies the result by a
// constant weight (the QKV and fc1 projections): LayerNorm reads x and writes y, and the
// product reads y. With mu and r = 1 / sqrt(var + eps) the row's statistics,
//
//   LayerNorm(x) W = r (x - mu) diag(gamma) W + beta W
//                  = r (x Wc) + beta W,   Wc = C diag(gamma) W,
//
// where C subtracts each column's mean over K: (x - mu 1) V = x (V - 1 mean_k(V)), since mu
// is the row's mean. So the product reads x itself, the row's r scales its result (a
// per-row factor the product's epilogue applies) and beta W joins the bias: only the
// statistics stay a kernel of their own, which reads x and writes one value a row instead
// of a normalised copy of x. Centred in the weight, the product holds no large common
// term to cancel: its result has the magnitude of the normalised product, and rounds as
// that does.
//
// The weight is computed here in double and rounded to its element type so that each
// column still sums to (nearly) 0: what is left of mu's term is then a fraction of an
// ulp, not K roundings that the one subtracted mean biases all the same way.
//
// RMSNorm (LLaMA-style models) has no mean and no beta: with r = 1 / sqrt(mean(x^2) +
// eps), RMSNorm(x) W = r (x diag(gamma) W); the statistic is graph.rms_normalization's
// inv_rms, and the weight only scaled.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/ConstantFloats.h"
#include "passes/graph/Passes.h"
#include "passes/graph/RowBias.h"

#include <cmath>

namespace kiln {
#define GEN_PASS_DEF_GRAPHFOLDLAYERNORMINTOPRODUCTS
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// At most this many weight elements a product: its centred weight is a new constant,
/// computed in double at compile time (a language model's head, vocabulary x width, stays
/// with its LayerNorm).
constexpr int64_t kMaxFoldedWeightElements = int64_t(64) << 20;

/// A product of the normalised rows by a constant weight, with the bias Add it absorbs.
struct Product {
  graph::MatMulOp matmul;
  SmallVector<double> weight; // [K, N], row major
  graph::AddOp biasAdd;       // or null
  SmallVector<double> bias;   // [N] (empty without biasAdd)
  /// The op whose result the folded value replaces.
  Operation *last() { return biasAdd ? biasAdd.getOperation() : matmul.getOperation(); }
};

/// `bias`'s values, one per column of `result` ([..., N]), when it is a constant along the
/// last axis only (graph::isRowBias).
std::optional<SmallVector<double>> readRowBias(Value bias, RankedTensorType result) {
  if (!graph::isRowBias(bias, result))
    return std::nullopt;
  std::optional<SmallVector<double>> values = graph::readConstantFloats(bias);
  if (values && values->size() == 1)
    values->assign(result.getShape().back(), values->front());
  return values;
}

/// `user` as a product of `normalised` ([..., K]) by a constant [K, N] weight of its
/// element type, or nullopt.
std::optional<Product> matchProduct(Operation *user, Value normalised, int64_t k) {
  auto matmul = dyn_cast<graph::MatMulOp>(user);
  if (!matmul || matmul.getLhs() != normalised || matmul.getRhs() == normalised)
    return std::nullopt;
  auto lhsType = cast<RankedTensorType>(normalised.getType());
  auto weightType = dyn_cast<RankedTensorType>(matmul.getRhs().getType());
  auto resultType = dyn_cast<RankedTensorType>(matmul.getType());
  if (!weightType || !resultType || weightType.getRank() != 2 || !weightType.hasStaticShape() ||
      weightType.getDimSize(0) != k || weightType.getNumElements() > kMaxFoldedWeightElements ||
      weightType.getElementType() != lhsType.getElementType() ||
      resultType.getElementType() != lhsType.getElementType() ||
      resultType.getRank() != lhsType.getRank() ||
      resultType.isDynamicDim(resultType.getRank() - 1))
    return std::nullopt;
  Product product;
  product.matmul = matmul;
  std::optional<SmallVector<double>> weight = graph::readConstantFloats(matmul.getRhs());
  if (!weight)
    return std::nullopt;
  product.weight = std::move(*weight);
  // The bias Add that alone reads the product joins beta W.
  Value result = matmul.getResult();
  if (result.hasOneUse())
    if (auto add = dyn_cast<graph::AddOp>(*result.getUsers().begin());
        add && add.getType() == resultType) {
      Value bias = add.getLhs() == result ? add.getRhs() : add.getLhs();
      if (bias != result)
        if (std::optional<SmallVector<double>> values = readRowBias(bias, resultType)) {
          product.biasAdd = add;
          product.bias = std::move(*values);
        }
    }
  return product;
}

/// C diag(gamma) W: each column of the scaled weight less its mean, rounded to `type`, its
/// rounded elements summing to (nearly) 0 as the exact ones do. Subtracting one mean moves
/// every element of a binade by the same fraction of its ulp, so plain rounding errs the
/// same way all down the column: its sum grows with K (~0.006 for a [768, N] f16 weight of
/// elements ~0.03) and would multiply the row's mean. So, largest remainders first, the
/// elements whose rounding went the way of the sum's error step one ulp the other way
/// while that shrinks the error: each stays within an ulp of its exact value.
SmallVector<double> centredWeight(ArrayRef<double> weight, ArrayRef<double> gamma, int64_t n,
                                  FloatType type) {
  int64_t k = gamma.size();
  graph::FloatRounding rounding(type);
  // Row by row (the weight's order): the column means, then the rounded elements and
  // each column's sum of them.
  SmallVector<double> means(n, 0.0), sums(n, 0.0), centred(weight.size());
  for (int64_t row = 0; row < k; ++row)
    for (int64_t column = 0; column < n; ++column)
      means[column] += gamma[row] * weight[row * n + column];
  for (double &mean : means)
    mean /= double(k);
  auto exactAt = [&](int64_t row, int64_t column) {
    return gamma[row] * weight[row * n + column] - means[column];
  };
  for (int64_t row = 0; row < k; ++row)
    for (int64_t column = 0; column < n; ++column) {
      double rounded = rounding.round(exactAt(row, column));
      centred[row * n + column] = rounded;
      sums[column] += rounded;
    }
  struct Candidate {
    int64_t row;
    double step, remainder;
  };
  SmallVector<Candidate> candidates;
  for (int64_t column = 0; column < n; ++column) {
    double sum = sums[column];
    if (sum == 0)
      continue;
    bool down = sum > 0;
    // The elements rounded the way of the sum, with the step the other way and the
    // rounding in those steps; the largest rounding first.
    candidates.clear();
    for (int64_t row = 0; row < k; ++row) {
      double value = centred[row * n + column], error = value - exactAt(row, column);
      if (error == 0 || (error > 0) != down)
        continue;
      double step = std::abs(rounding.next(value, down) - value);
      candidates.push_back({row, step, std::abs(error) / step});
    }
    llvm::stable_sort(candidates, [](const Candidate &a, const Candidate &b) {
      return a.remainder > b.remainder;
    });
    for (const Candidate &candidate : candidates) {
      if (!(candidate.step < 2 * std::abs(sum)))
        continue;
      double &value = centred[candidate.row * n + column];
      double moved = down ? value - candidate.step : value + candidate.step;
      sum += moved - value;
      value = moved;
      if ((sum > 0) != down || sum == 0)
        break;
    }
  }
  return centred;
}

/// A normalisation as its products fold it: its input, the normalised rows the products
/// read, the statistic (1 / sigma or 1 / rms, one f32 a row) that takes their place, its
/// scale (gamma) and bias (beta; null for RMSNorm), its axis, and whether the weight is
/// centred (LayerNorm's mean) or only scaled (RMSNorm).
struct Normalisation {
  Operation *op;
  Value input, normalised, inverse;
  Value scale, bias;
  int64_t axis;
  bool centred;
};

/// Reads `norm`'s constant gamma and beta ([K] each, a single value broadcast) into
/// `gamma` and `beta`; false where they are not constants of that form.
bool readParameters(const Normalisation &norm, int64_t k, SmallVector<double> &gamma,
                    SmallVector<double> &beta) {
  std::optional<SmallVector<double>> scale = graph::readConstantFloats(norm.scale);
  if (!scale || (scale->size() != 1 && int64_t(scale->size()) != k))
    return false;
  gamma = scale->size() == 1 ? SmallVector<double>(k, scale->front()) : *scale;
  beta.assign(k, 0.0);
  if (norm.bias) {
    std::optional<SmallVector<double>> values = graph::readConstantFloats(norm.bias);
    if (!values || (values->size() != 1 && int64_t(values->size()) != k))
      return false;
    beta = values->size() == 1 ? SmallVector<double>(k, values->front()) : *values;
  }
  return true;
}

/// Folds `norm` into the products that read its result; false (changing nothing) where
/// it does not have that form.
bool fold(const Normalisation &norm, OpBuilder &builder) {
  auto type = dyn_cast<RankedTensorType>(norm.normalised.getType());
  auto statsType = dyn_cast<RankedTensorType>(norm.inverse.getType());
  if (!type || !statsType || type.getRank() < 2 || type.isDynamicDim(type.getRank() - 1) ||
      !statsType.getElementType().isF32() || !norm.inverse.use_empty() ||
      norm.normalised.use_empty())
    return false;
  auto elementType = dyn_cast<FloatType>(type.getElementType());
  if (!elementType || !(norm.axis == -1 || norm.axis == type.getRank() - 1))
    return false;
  int64_t k = type.getShape().back();
  SmallVector<double> gamma, beta;
  if (!readParameters(norm, k, gamma, beta))
    return false;
  SmallVector<Product> products;
  for (Operation *user : norm.normalised.getUsers()) {
    std::optional<Product> product = matchProduct(user, norm.normalised, k);
    if (!product)
      return false;
    products.push_back(std::move(*product));
  }

  Type f32 = builder.getF32Type();
  for (Product &product : products) {
    auto resultType = cast<RankedTensorType>(product.matmul.getType());
    auto weightType = cast<RankedTensorType>(product.matmul.getRhs().getType());
    int64_t n = weightType.getDimSize(1);
    Location loc = builder.getFusedLoc({product.matmul.getLoc(), norm.op->getLoc()});
    builder.setInsertionPoint(product.last());
    // x Wc (LayerNorm) or x diag(gamma) W (RMSNorm), widened: the statistics and the
    // shift apply in f32.
    SmallVector<double> folded;
    if (norm.centred) {
      folded = centredWeight(product.weight, gamma, n, elementType);
    } else {
      folded.resize(product.weight.size());
      for (int64_t row = 0; row < k; ++row)
        for (int64_t column = 0; column < n; ++column)
          folded[row * n + column] = gamma[row] * product.weight[row * n + column];
    }
    StringRef name = norm.centred ? "layer_norm_folded" : "rms_norm_folded";
    Value weight = graph::createFloatConstant(builder, loc, weightType, folded, name);
    Value value = graph::MatMulOp::create(builder, loc, TypeRange{resultType},
                                          ValueRange{norm.input, weight});
    auto wideType = resultType.clone(f32);
    if (!elementType.isF32())
      value = graph::CastOp::create(builder, loc, Type(wideType), value, TypeAttr::get(f32));
    value =
        graph::MulOp::create(builder, loc, TypeRange{wideType}, ValueRange{value, norm.inverse});
    // beta W + the product's bias, in f32.
    SmallVector<double> shift(n, 0.0);
    if (!product.bias.empty())
      shift.assign(product.bias.begin(), product.bias.end());
    for (int64_t row = 0; row < k; ++row)
      if (beta[row] != 0)
        for (int64_t column = 0; column < n; ++column)
          shift[column] += beta[row] * product.weight[row * n + column];
    bool shifted = llvm::any_of(shift, [](double value) { return value != 0; });
    if (shifted) {
      Value shiftValue = graph::createFloatConstant(builder, loc, RankedTensorType::get({n}, f32),
                                                    shift, (name + "_bias").str());
      value =
          graph::AddOp::create(builder, loc, TypeRange{wideType}, ValueRange{value, shiftValue});
    }
    if (!elementType.isF32())
      value =
          graph::CastOp::create(builder, loc, Type(resultType), value, TypeAttr::get(elementType));
    Operation *last = product.last();
    last->getResult(0).replaceAllUsesWith(value);
    last->erase();
    if (product.biasAdd)
      product.matmul.erase();
  }
  return true;
}

struct GraphFoldLayerNormIntoProductsPass
    : kiln::impl::GraphFoldLayerNormIntoProductsBase<GraphFoldLayerNormIntoProductsPass> {
  void runOnOperation() override {
    SmallVector<Normalisation> candidates;
    getOperation().walk([&](Operation *op) {
      if (auto layerNorm = dyn_cast<graph::LayerNormalizationOp>(op)) {
        // LayerNorm's mean, read elsewhere, would need its own kernel: not folded.
        if (layerNorm.getMean().use_empty())
          candidates.push_back({op, layerNorm.getInput(), layerNorm.getResult(),
                                layerNorm.getInvStdDev(), layerNorm.getScale(), layerNorm.getBias(),
                                int64_t(layerNorm.getAxis()),
                                /*centred=*/true});
      } else if (auto rmsNorm = dyn_cast<graph::RMSNormalizationOp>(op)) {
        candidates.push_back({op, rmsNorm.getInput(), rmsNorm.getResult(), rmsNorm.getInvRms(),
                              rmsNorm.getScale(), Value(), int64_t(rmsNorm.getAxis()),
                              /*centred=*/false});
      }
    });
    OpBuilder builder(&getContext());
    for (const Normalisation &norm : candidates)
      (void)fold(norm, builder);
  }
};

} // namespace
