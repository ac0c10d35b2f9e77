//===- Training.cpp - Graph to linalg: the optimizers of ai.onnx.preview.training ===//
//
// Adagrad, Adam and Momentum update each of their tensors independently and elementwise.
// What depends on the scalars R and T alone (Adagrad's decayed rate, Adam's bias-corrected
// rate, Momentum's first-step beta) is computed once, in f64 as ONNX's reference does,
// before the elementwise generics, which read it from above. Each new tensor is one
// generic; a later one reads an earlier one's result (Adagrad's X_new reads H_new)
// rather than computing it again. Arithmetic is in the tensors' float type, at least f32.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {
namespace {

/// What the update of one tensor sees: its converted operands (X, G, then the states in
/// ONNX's order), the types of its results (X_new, then the new states), the scalars R
/// (f64) and T (i64), and the type its arithmetic is done in.
struct TensorUpdate {
  OpBuilder &b;
  Location loc;
  SmallVector<Value> operands;
  SmallVector<RankedTensorType> resultTypes;
  Value rate, iteration;
  Type computeType;

  /// A float constant of the compute type.
  Value constant(double value) const { return createScalarConstant(b, loc, computeType, value); }
  /// An f64 scalar computed before the generics, as a value of the compute type.
  Value scalar(Value f64Value) const { return fromF64(b, loc, f64Value, computeType); }
  /// Whether T > 0, as an i1.
  Value isAfterFirstStep() const {
    Value zero = createScalarConstant(b, loc, iteration.getType(), 0);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, iteration, zero);
  }
  /// A generic producing result `result` elementwise from `inputs`; `body` gets their
  /// elements converted to the compute type and returns the result element in it.
  Value elementwise(unsigned result, ValueRange inputs,
                    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> body) const {
    RankedTensorType type = resultTypes[result];
    return createElementwise(
        b, loc, type, inputs, [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          SmallVector<Value> wide;
          for (Value arg : args)
            wide.push_back(convertScalar(nb, nl, arg, arg.getType(), computeType));
          Value value = body(nb, nl, wide);
          return convertScalar(nb, nl, value, computeType, type.getElementType());
        });
  }
};

/// `norm_coefficient * x + g`: the gradient with the L2 regularisation term.
Value regularizedGradient(OpBuilder &b, Location loc, Value normCoefficient, Value x, Value g) {
  return arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, normCoefficient, x), g);
}

/// `a * x + c * y`. (Here and below each operand is built in its own statement, so that
/// the order of the IR does not depend on the order the compiler evaluates arguments in.)
Value weightedSum(OpBuilder &b, Location loc, Value a, Value x, Value c, Value y) {
  Value first = arith::MulFOp::create(b, loc, a, x);
  Value second = arith::MulFOp::create(b, loc, c, y);
  return arith::AddFOp::create(b, loc, first, second);
}

/// Adagrad: (X, G, H) -> (X_new, H_new).
SmallVector<Value> updateTensor(graph::AdagradOp op, const TensorUpdate &u) {
  OpBuilder &b = u.b;
  Location loc = u.loc;
  // r = R / (1 + T * decay_factor)
  Value iteration = toF64(b, loc, u.iteration);
  Value decayFactor = createF64Constant(b, loc, op.getDecayFactor().convertToDouble());
  Value decayed = arith::MulFOp::create(b, loc, iteration, decayFactor);
  Value one = createF64Constant(b, loc, 1.0);
  Value denominator = arith::AddFOp::create(b, loc, one, decayed);
  Value rate = u.scalar(arith::DivFOp::create(b, loc, u.rate, denominator));
  Value normCoefficient = u.constant(op.getNormCoefficient().convertToDouble());
  Value epsilon = u.constant(op.getEpsilon().convertToDouble());
  Value x = u.operands[0], g = u.operands[1], h = u.operands[2];

  Value hNew = u.elementwise(1, ValueRange{x, g, h}, [&](OpBuilder &nb, Location nl, ValueRange a) {
    Value grad = regularizedGradient(nb, nl, normCoefficient, a[0], a[1]);
    Value square = arith::MulFOp::create(nb, nl, grad, grad);
    return arith::AddFOp::create(nb, nl, a[2], square).getResult();
  });
  Value xNew =
      u.elementwise(0, ValueRange{x, g, hNew}, [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value grad = regularizedGradient(nb, nl, normCoefficient, a[0], a[1]);
        Value root = math::SqrtOp::create(nb, nl, a[2]);
        Value scale = arith::AddFOp::create(nb, nl, root, epsilon);
        Value scaled = arith::MulFOp::create(nb, nl, rate, grad);
        Value step = arith::DivFOp::create(nb, nl, scaled, scale);
        return arith::SubFOp::create(nb, nl, a[0], step).getResult();
      });
  return {xNew, hNew};
}

/// Adam: (X, G, V, H) -> (X_new, V_new, H_new).
SmallVector<Value> updateTensor(graph::AdamOp op, const TensorUpdate &u) {
  OpBuilder &b = u.b;
  Location loc = u.loc;
  double alphaValue = op.getAlpha().convertToDouble();
  double betaValue = op.getBeta().convertToDouble();
  // r = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R (the bias correction of the
  // moments; at T = 0 the corrected form would divide by zero, and is not selected).
  Value t = toF64(b, loc, u.iteration);
  Value one = createF64Constant(b, loc, 1.0);
  auto oneMinusPower = [&](double base) -> Value {
    Value baseValue = createF64Constant(b, loc, base);
    Value power = math::PowFOp::create(b, loc, baseValue, t);
    return arith::SubFOp::create(b, loc, one, power);
  };
  Value betaCorrection = math::SqrtOp::create(b, loc, oneMinusPower(betaValue));
  Value alphaCorrection = oneMinusPower(alphaValue);
  Value correctedRate = arith::MulFOp::create(b, loc, u.rate, betaCorrection);
  Value corrected = arith::DivFOp::create(b, loc, correctedRate, alphaCorrection);
  Value afterFirstStep = u.isAfterFirstStep();
  Value rate = u.scalar(arith::SelectOp::create(b, loc, afterFirstStep, corrected, u.rate));
  Value normCoefficient = u.constant(op.getNormCoefficient().convertToDouble());
  Value alpha = u.constant(alphaValue), oneMinusAlpha = u.constant(1.0 - alphaValue);
  Value beta = u.constant(betaValue), oneMinusBeta = u.constant(1.0 - betaValue);
  Value epsilon = u.constant(op.getEpsilon().convertToDouble());
  Value keep = u.constant(1.0 - op.getNormCoefficientPost().convertToDouble());
  Value x = u.operands[0], g = u.operands[1], v = u.operands[2], h = u.operands[3];

  Value vNew = u.elementwise(1, ValueRange{x, g, v}, [&](OpBuilder &nb, Location nl, ValueRange a) {
    Value grad = regularizedGradient(nb, nl, normCoefficient, a[0], a[1]);
    return weightedSum(nb, nl, alpha, a[2], oneMinusAlpha, grad);
  });
  Value hNew = u.elementwise(2, ValueRange{x, g, h}, [&](OpBuilder &nb, Location nl, ValueRange a) {
    Value grad = regularizedGradient(nb, nl, normCoefficient, a[0], a[1]);
    Value square = arith::MulFOp::create(nb, nl, grad, grad);
    return weightedSum(nb, nl, beta, a[2], oneMinusBeta, square);
  });
  Value xNew =
      u.elementwise(0, ValueRange{x, vNew, hNew}, [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value root = math::SqrtOp::create(nb, nl, a[2]);
        Value scale = arith::AddFOp::create(nb, nl, root, epsilon);
        Value direction = arith::DivFOp::create(nb, nl, a[1], scale);
        Value step = arith::MulFOp::create(nb, nl, rate, direction);
        Value updated = arith::SubFOp::create(nb, nl, a[0], step);
        return arith::MulFOp::create(nb, nl, keep, updated).getResult();
      });
  return {xNew, vNew, hNew};
}

/// Momentum: (X, G, V) -> (X_new, V_new), standard or Nesterov.
SmallVector<Value> updateTensor(graph::MomentumOp op, const TensorUpdate &u) {
  OpBuilder &b = u.b;
  Location loc = u.loc;
  // The gradient's coefficient is 1 at the first step (T = 0), beta after it.
  Value afterFirstStep = u.isAfterFirstStep();
  Value givenBeta = createF64Constant(b, loc, op.getBeta().convertToDouble());
  Value one = createF64Constant(b, loc, 1.0);
  Value beta = u.scalar(arith::SelectOp::create(b, loc, afterFirstStep, givenBeta, one));
  Value rate = u.scalar(u.rate);
  Value normCoefficient = u.constant(op.getNormCoefficient().convertToDouble());
  Value alpha = u.constant(op.getAlpha().convertToDouble());
  Value x = u.operands[0], g = u.operands[1], v = u.operands[2];

  Value vNew = u.elementwise(1, ValueRange{x, g, v}, [&](OpBuilder &nb, Location nl, ValueRange a) {
    Value grad = regularizedGradient(nb, nl, normCoefficient, a[0], a[1]);
    return weightedSum(nb, nl, alpha, a[2], beta, grad);
  });
  bool nesterov = op.getMode() == "nesterov";
  Value xNew =
      u.elementwise(0, ValueRange{x, g, vNew}, [&](OpBuilder &nb, Location nl, ValueRange a) {
        // Standard: X - R * V_new; Nesterov: X - R * (g + alpha * V_new).
        Value direction = a[2];
        if (nesterov) {
          Value grad = regularizedGradient(nb, nl, normCoefficient, a[0], a[1]);
          Value ahead = arith::MulFOp::create(nb, nl, alpha, a[2]);
          direction = arith::AddFOp::create(nb, nl, grad, ahead);
        }
        Value step = arith::MulFOp::create(nb, nl, rate, direction);
        return arith::SubFOp::create(nb, nl, a[0], step).getResult();
      });
  return {xNew, vNew};
}

template <typename OpTy> struct OptimizerLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult matchAndRewrite(OpTy op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (!isSingleElement(adaptor.getLearningRate().getType()) ||
        !isSingleElement(adaptor.getIteration().getType()))
      return rewriter.notifyMatchFailure(op, "needs ranked scalars R and T");
    if (!llvm::all_of(adaptor.getInputs().getTypes(), llvm::IsaPred<RankedTensorType>))
      return rewriter.notifyMatchFailure(op, "needs ranked tensors");
    SmallVector<RankedTensorType> resultTypes;
    for (unsigned index = 0; index < op->getNumResults(); ++index) {
      RankedTensorType type = getConvertedResultType(*this->getTypeConverter(), op, index);
      if (!type || !isa<FloatType>(type.getElementType()))
        return rewriter.notifyMatchFailure(op, "needs ranked float tensors");
      resultTypes.push_back(type);
    }

    Value rate = toF64(rewriter, loc, extractScalar(rewriter, loc, adaptor.getLearningRate()));
    Value iteration = extractScalar(rewriter, loc, adaptor.getIteration());
    unsigned count = op.getNumUpdated();
    constexpr unsigned numStates = OpTy::kNumStates;
    ValueRange inputs = adaptor.getInputs();
    SmallVector<Value> results(op->getNumResults());
    for (unsigned index = 0; index < count; ++index) {
      Type elementType = resultTypes[index].getElementType();
      Type computeType =
          elementType.getIntOrFloatBitWidth() < 32 ? rewriter.getF32Type() : elementType;
      TensorUpdate update{rewriter, loc, {}, {}, rate, iteration, computeType};
      for (unsigned group = 0; group < 2 + numStates; ++group)
        update.operands.push_back(inputs[group * count + index]);
      for (unsigned kind = 0; kind < 1 + numStates; ++kind)
        update.resultTypes.push_back(resultTypes[kind * count + index]);
      SmallVector<Value> updated = updateTensor(op, update);
      for (unsigned kind = 0; kind < 1 + numStates; ++kind)
        results[kind * count + index] = updated[kind];
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateTrainingLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<OptimizerLowering<graph::AdagradOp>, OptimizerLowering<graph::AdamOp>,
               OptimizerLowering<graph::MomentumOp>>(converter, patterns.getContext());
}

} // namespace kiln::lowering
