//===- FoldBatchNorm.cpp - Fold inference BatchNorm into its producer -----===//
//
// An inference-mode BatchNormalization with constant parameters is a per-channel affine
// map y = x * s + t, s = scale / sqrt(var + eps), t = B - mean * s. Folded into the conv,
// Gemm or MatMul (+ bias Add) that produces x, it costs nothing at run time; otherwise it
// becomes a Mul and an Add by per-channel constants, pointwise ops that fusion can put
// into a neighbouring kernel's epilogue.
//
// The arithmetic is the per-channel scaling of the weights, done here in double and
// rounded once to the weights' element type; no graph sub-graph is evaluated.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/ConstantFloats.h"
#include "passes/graph/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

namespace kiln {
#define GEN_PASS_DEF_GRAPHFOLDBATCHNORM
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

using kiln::graph::readConstantFloats;

/// `values` as a constant of `type`, rounded once (ConstantFloats.h).
Value makeFloats(OpBuilder &builder, Location loc, RankedTensorType type, ArrayRef<double> values) {
  return kiln::graph::createFloatConstant(builder, loc, type, values, "batch_norm_folded");
}

/// The per-channel affine map of an inference BatchNormalization with constant
/// parameters: y[c] = x[c] * scale[c] + shift[c].
struct ChannelAffine {
  SmallVector<double> scale, shift;
  int64_t channels() const { return scale.size(); }
};

std::optional<ChannelAffine> getChannelAffine(graph::BatchNormalizationOp bn) {
  auto scale = readConstantFloats(bn.getScale());
  auto bias = readConstantFloats(bn.getBias());
  auto mean = readConstantFloats(bn.getMean());
  auto variance = readConstantFloats(bn.getVariance());
  if (!scale || !bias || !mean || !variance)
    return std::nullopt;
  size_t channels = scale->size();
  if (bias->size() != channels || mean->size() != channels || variance->size() != channels)
    return std::nullopt;
  auto inputType = dyn_cast<RankedTensorType>(bn.getInput().getType());
  if (!inputType || inputType.getRank() < 2 ||
      (!inputType.isDynamicDim(1) && inputType.getDimSize(1) != int64_t(channels)))
    return std::nullopt;
  // eps is an f32 attribute; ONNX Runtime adds it in float.
  double epsilon = bn.getEpsilon().convertToFloat();
  ChannelAffine affine;
  for (size_t c = 0; c < channels; ++c) {
    double s = (*scale)[c] / std::sqrt((*variance)[c] + epsilon);
    affine.scale.push_back(s);
    affine.shift.push_back((*bias)[c] - (*mean)[c] * s);
  }
  return affine;
}

/// Whether `value` has exactly one use (by one op, once).
bool hasSingleUse(Value value) { return value.hasOneUse(); }

/// Builds the replacement of a BatchNorm's result: each method returns the new value, or
/// null when the producer of the BatchNorm's input cannot absorb it.
struct Folder {
  graph::BatchNormalizationOp bn;
  const ChannelAffine &affine;
  OpBuilder &builder;

  Location fusedLoc(Operation *producer) {
    // The producer's location first: its ONNX node name is what errors name.
    return builder.getFusedLoc({producer->getLoc(), bn.getLoc()});
  }

  /// weight * scale[channel], the channel being the weight's leading dimension or, with
  /// `channelIsLast`, its trailing one.
  SmallVector<double> scaleWeight(ArrayRef<double> weight, bool channelIsLast) {
    SmallVector<double> scaled(weight);
    int64_t channels = affine.channels();
    int64_t inner = weight.size() / channels;
    for (size_t i = 0; i < scaled.size(); ++i) {
      int64_t channel = channelIsLast ? int64_t(i) % channels : int64_t(i) / inner;
      scaled[i] *= affine.scale[channel];
    }
    return scaled;
  }

  /// bias[m] * scale[m] + shift[m]; `bias` has one element per channel, one for all, or
  /// none.
  SmallVector<double> foldBias(ArrayRef<double> bias) {
    SmallVector<double> folded;
    for (int64_t c = 0; c < affine.channels(); ++c) {
      double b = bias.empty() ? 0.0 : bias.size() == 1 ? bias[0] : bias[c];
      folded.push_back(b * affine.scale[c] + affine.shift[c]);
    }
    return folded;
  }

  Value foldIntoConv(graph::ConvOp conv) {
    // A channels-last conv's dimension 1 is spatial, not the BatchNorm's channel.
    if (!hasSingleUse(conv.getResult()) || conv.getType() != bn.getResult().getType() ||
        conv.getChannelsLast())
      return {};
    auto weightType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
    auto weight = readConstantFloats(conv.getWeight());
    if (!weightType || !weight || weightType.getDimSize(0) != affine.channels())
      return {};
    SmallVector<double> bias;
    if (Value oldBias = conv.getBias()) {
      auto values = readConstantFloats(oldBias);
      if (!values || int64_t(values->size()) != affine.channels())
        return {};
      bias = *values;
    }
    builder.setInsertionPoint(bn);
    Location loc = fusedLoc(conv);
    Value newWeight = makeFloats(builder, loc, weightType, scaleWeight(*weight, false));
    auto biasType = RankedTensorType::get({affine.channels()}, weightType.getElementType());
    Value newBias = makeFloats(builder, loc, biasType, foldBias(bias));
    auto folded =
        graph::ConvOp::create(builder, loc, TypeRange{conv.getType()},
                              ValueRange{conv.getInput(), newWeight, newBias}, conv->getAttrs());
    return folded.getResult();
  }

  Value foldIntoGemm(graph::GemmOp gemm) {
    auto resultType = dyn_cast<RankedTensorType>(gemm.getType());
    if (!hasSingleUse(gemm.getResult()) || gemm.getType() != bn.getResult().getType() ||
        !resultType || resultType.getRank() != 2)
      return {};
    auto weightType = dyn_cast<RankedTensorType>(gemm.getB().getType());
    auto weight = readConstantFloats(gemm.getB());
    // B' is [K, N]: B is [N, K] when transposed, the channel leading; [K, N] otherwise.
    bool transposed = gemm.getTransB();
    if (!weightType || !weight || weightType.getRank() != 2 ||
        weightType.getDimSize(transposed ? 0 : 1) != affine.channels())
      return {};
    SmallVector<double> bias;
    if (Value c = gemm.getC()) {
      auto cType = dyn_cast<RankedTensorType>(c.getType());
      auto values = readConstantFloats(c);
      // Only a C that is the same for every row: a scalar, [N] or [1, N].
      if (!cType || !values ||
          (values->size() != 1 && int64_t(values->size()) != affine.channels()) ||
          (cType.getRank() == 2 && cType.getDimSize(0) != 1) || cType.getRank() > 2)
        return {};
      double beta = gemm.getBeta().convertToFloat();
      for (double &value : *values)
        value *= beta;
      bias = *values;
    }
    builder.setInsertionPoint(bn);
    Location loc = fusedLoc(gemm);
    Value newWeight = makeFloats(builder, loc, weightType, scaleWeight(*weight, !transposed));
    auto biasType = RankedTensorType::get({affine.channels()}, weightType.getElementType());
    Value newBias = makeFloats(builder, loc, biasType, foldBias(bias));
    auto folded =
        graph::GemmOp::create(builder, loc, TypeRange{gemm.getType()},
                              ValueRange{gemm.getA(), newWeight, newBias}, gemm->getAttrs());
    folded.setBetaAttr(builder.getF32FloatAttr(1.0f));
    return folded.getResult();
  }

  /// matmul(x, W) [+ b] with a 2-D result whose columns are the channels.
  Value foldIntoMatMul(Value input) {
    Value bias;
    graph::AddOp add = input.getDefiningOp<graph::AddOp>();
    graph::MatMulOp matmul;
    if (add) {
      if (!hasSingleUse(add.getResult()) || add.getType() != bn.getResult().getType())
        return {};
      matmul = add.getLhs().getDefiningOp<graph::MatMulOp>();
      bias = add.getRhs();
      if (!matmul || !readConstantFloats(bias)) {
        matmul = add.getRhs().getDefiningOp<graph::MatMulOp>();
        bias = add.getLhs();
      }
      if (!matmul || !hasSingleUse(matmul.getResult()) || matmul.getType() != add.getType())
        return {};
    } else {
      matmul = input.getDefiningOp<graph::MatMulOp>();
      if (!matmul || !hasSingleUse(matmul.getResult()) ||
          matmul.getType() != bn.getResult().getType())
        return {};
    }
    auto resultType = dyn_cast<RankedTensorType>(matmul.getType());
    auto weightType = dyn_cast<RankedTensorType>(matmul.getRhs().getType());
    auto weight = readConstantFloats(matmul.getRhs());
    if (!resultType || resultType.getRank() != 2 || !weightType || weightType.getRank() != 2 ||
        !weight || weightType.getDimSize(1) != affine.channels())
      return {};
    SmallVector<double> biasValues;
    if (bias) {
      auto biasType = dyn_cast<RankedTensorType>(bias.getType());
      auto values = readConstantFloats(bias);
      // A bias that is the same for every row: a scalar, [N] or [1, N].
      if (!biasType || !values ||
          (values->size() != 1 && int64_t(values->size()) != affine.channels()) ||
          biasType.getRank() > 2 || (biasType.getRank() == 2 && biasType.getDimSize(0) != 1))
        return {};
      biasValues = *values;
    }
    builder.setInsertionPoint(bn);
    Location loc = fusedLoc(matmul);
    Value newWeight = makeFloats(builder, loc, weightType, scaleWeight(*weight, true));
    auto biasType = RankedTensorType::get({affine.channels()}, weightType.getElementType());
    Value newBias = makeFloats(builder, loc, biasType, foldBias(biasValues));
    auto product = graph::MatMulOp::create(builder, loc, TypeRange{matmul.getType()},
                                           ValueRange{matmul.getLhs(), newWeight});
    auto sum = graph::AddOp::create(builder, loc, TypeRange{bn.getResult().getType()},
                                    ValueRange{product.getResult(), newBias});
    return sum.getResult();
  }

  /// x * scale + shift with [C, 1, ..., 1] constants that broadcast against [N, C, ...].
  Value toPointwise() {
    auto inputType = cast<RankedTensorType>(bn.getInput().getType());
    auto elementType = dyn_cast<FloatType>(inputType.getElementType());
    if (!elementType || elementType.getWidth() % 8 != 0 || elementType.getWidth() > 64)
      return {};
    SmallVector<int64_t> shape(inputType.getRank() - 1, 1);
    shape[0] = affine.channels();
    auto constantType = RankedTensorType::get(shape, elementType);
    builder.setInsertionPoint(bn);
    Location loc = bn.getLoc();
    Value scale = makeFloats(builder, loc, constantType, affine.scale);
    Value shift = makeFloats(builder, loc, constantType, affine.shift);
    auto scaled =
        graph::MulOp::create(builder, loc, TypeRange{inputType}, ValueRange{bn.getInput(), scale});
    auto shifted = graph::AddOp::create(builder, loc, TypeRange{bn.getResult().getType()},
                                        ValueRange{scaled.getResult(), shift});
    return shifted.getResult();
  }
};

struct GraphFoldBatchNormPass : kiln::impl::GraphFoldBatchNormBase<GraphFoldBatchNormPass> {
  using GraphFoldBatchNormBase::GraphFoldBatchNormBase;

  void runOnOperation() override {
    SmallVector<graph::BatchNormalizationOp> norms;
    getOperation().walk([&](graph::BatchNormalizationOp bn) { norms.push_back(bn); });
    OpBuilder builder(&getContext());
    for (graph::BatchNormalizationOp bn : norms) {
      // Training mode normalises with the batch's statistics: nothing is constant.
      if (bn.getTrainingMode() || bn->getNumResults() != 1)
        continue;
      std::optional<ChannelAffine> affine = getChannelAffine(bn);
      if (!affine)
        continue;
      Folder folder{bn, *affine, builder};
      Value input = bn.getInput();
      Operation *producer = input.getDefiningOp();
      Value replacement;
      if (auto conv = dyn_cast_or_null<graph::ConvOp>(producer))
        replacement = folder.foldIntoConv(conv);
      else if (auto gemm = dyn_cast_or_null<graph::GemmOp>(producer))
        replacement = folder.foldIntoGemm(gemm);
      else if (isa_and_nonnull<graph::MatMulOp, graph::AddOp>(producer))
        replacement = folder.foldIntoMatMul(input);
      if (!replacement)
        replacement = folder.toPointwise();
      if (!replacement)
        continue;
      bn.getResult().replaceAllUsesWith(replacement);
      // The producer (and its bias Add) are used by nothing else: erase them with the
      // parameters they alone used.
      SmallVector<Operation *> worklist{bn};
      while (!worklist.empty()) {
        Operation *op = worklist.pop_back_val();
        if (!op->use_empty())
          continue;
        llvm::SmallSetVector<Operation *, 4> definitions;
        for (Value operand : op->getOperands())
          if (Operation *definition = operand.getDefiningOp())
            definitions.insert(definition);
        op->erase();
        for (Operation *definition : definitions)
          if (definition->use_empty() && isPure(definition))
            worklist.push_back(definition);
      }
    }
  }
};

} // namespace
