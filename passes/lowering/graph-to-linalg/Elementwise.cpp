//===- Elementwise.cpp - Graph to linalg: elementwise math and logic ------===//
//
// Every elementwise op becomes one `linalg.generic` over the broadcast of its operands
// (createElementwise); what differs between ops is the scalar computation, written
// once per op as an overload of `computeElement`.
//
// Floating-point math on f16 and bf16 is computed in f32 and rounded back once: the host
// has no native arithmetic for them, and libm (where math ops without an LLVM intrinsic
// end up) only has f32 and f64 entry points.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace kiln::lowering {
namespace {

/// The element type of operand `index` of `op` as the graph sees it (with signedness).
Type graphElementType(Operation *op, unsigned index) {
  return getElementTypeOrSelf(op->getOperand(index).getType());
}

/// Whether integer comparisons and extensions of the graph element type `type` must treat
/// it as unsigned: unsigned integers, and bool (false < true).
bool comparesUnsigned(Type type) { return isUnsigned(type) || type.isInteger(1); }

//===----------------------------------------------------------------------===//
// Scalar building blocks
//===----------------------------------------------------------------------===//

Value constant(OpBuilder &b, Location loc, Type type, double value) {
  return createScalarConstant(b, loc, type, value);
}

/// `compute(args)` on float `args` (all of one type), evaluated in f32 when that type is
/// narrower (f16, bf16) and rounded back to it.
Value computeInF32(OpBuilder &b, Location loc, ValueRange args,
                   llvm::function_ref<Value(ValueRange)> compute) {
  auto type = cast<FloatType>(args[0].getType());
  if (type.getWidth() >= 32)
    return compute(args);
  SmallVector<Value> wide;
  for (Value arg : args)
    wide.push_back(arith::ExtFOp::create(b, loc, b.getF32Type(), arg));
  return arith::TruncFOp::create(b, loc, type, compute(wide));
}

/// A unary math op on a float element; null for other element types.
template <typename MathOp> Value unaryMath(OpBuilder &b, Location loc, Value x) {
  if (!isa<FloatType>(x.getType()))
    return Value();
  return computeInF32(b, loc, x, [&](ValueRange wide) { return MathOp::create(b, loc, wide[0]); });
}

/// A unary float function built from arith/math ops by `compute` (given the element in f32
/// or wider); null for other element types.
Value unaryFloat(OpBuilder &b, Location loc, Value x,
                 llvm::function_ref<Value(Value, Type)> compute) {
  if (!isa<FloatType>(x.getType()))
    return Value();
  return computeInF32(b, loc, x,
                      [&](ValueRange wide) { return compute(wide[0], wide[0].getType()); });
}

Value cmpF(OpBuilder &b, Location loc, arith::CmpFPredicate predicate, Value lhs, Value rhs) {
  return arith::CmpFOp::create(b, loc, predicate, lhs, rhs);
}

Value select(OpBuilder &b, Location loc, Value condition, Value whenTrue, Value whenFalse) {
  return arith::SelectOp::create(b, loc, condition, whenTrue, whenFalse);
}

/// The larger (`max`) or smaller of two floats; a NaN in either propagates, as in numpy's
/// maximum/minimum that ONNX's reference uses. The minimum is the negated maximum of the
/// negations (exact): the host JIT crashes on llvm.minimum and on float selects of this
/// shape, while llvm.maximum (arith.maximumf) runs.
Value floatExtremum(OpBuilder &b, Location loc, Value lhs, Value rhs, bool max) {
  if (max)
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  Value negated = arith::MaximumFOp::create(b, loc, arith::NegFOp::create(b, loc, lhs),
                                            arith::NegFOp::create(b, loc, rhs));
  return arith::NegFOp::create(b, loc, negated);
}

/// The larger (`max`) or smaller of two elements of graph element type `graphType`: floats
/// through floatExtremum (in f32 for the narrow ones), integers as createMinMax.
Value extremum(OpBuilder &b, Location loc, Value lhs, Value rhs, Type graphType, bool max) {
  if (isa<FloatType>(lhs.getType())) {
    return computeInF32(b, loc, {lhs, rhs}, [&](ValueRange w) -> Value {
      return floatExtremum(b, loc, w[0], w[1], max);
    });
  }
  return createMinMax(b, loc, lhs, rhs, max, comparesUnsigned(graphType));
}

Value add(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return computeInF32(b, loc, {lhs, rhs},
                        [&](ValueRange w) { return arith::AddFOp::create(b, loc, w[0], w[1]); });
  return arith::AddIOp::create(b, loc, lhs, rhs);
}

/// `lhs cmp rhs` for an ONNX comparison: `floatPredicate` for floats (ordered: false with
/// NaN, as in IEEE), the signed or unsigned integer predicate by the graph type.
Value compare(OpBuilder &b, Location loc, ValueRange args, Type graphType,
              arith::CmpFPredicate floatPredicate, arith::CmpIPredicate signedPredicate,
              arith::CmpIPredicate unsignedPredicate) {
  if (isa<FloatType>(args[0].getType()))
    return cmpF(b, loc, floatPredicate, args[0], args[1]);
  return arith::CmpIOp::create(
      b, loc, comparesUnsigned(graphType) ? unsignedPredicate : signedPredicate, args[0], args[1]);
}

/// `x < 0 ? alpha * (exp(x) - 1) : x`, the negative branch of the ELU family.
Value eluBranch(OpBuilder &b, Location loc, Value x, double alpha) {
  Type type = x.getType();
  Value expMinusOne =
      arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, x), constant(b, loc, type, 1));
  return arith::MulFOp::create(b, loc, constant(b, loc, type, alpha), expMinusOne);
}

/// x < 0 ? alpha * (exp(x) - 1) : x as max(x, 0) + alpha * (exp(min(x, 0)) - 1): the
/// branches vanish where the other applies, and there is no select (see floatExtremum).
Value elu(OpBuilder &b, Location loc, Value x, double alpha) {
  Value zero = constant(b, loc, x.getType(), 0);
  Value positivePart = floatExtremum(b, loc, x, zero, /*max=*/true);
  Value negativePart = eluBranch(b, loc, floatExtremum(b, loc, x, zero, /*max=*/false), alpha);
  return arith::AddFOp::create(b, loc, positivePart, negativePart);
}

/// x < 0 ? slope * x : x as max(x, 0) + slope * min(x, 0).
Value leaky(OpBuilder &b, Location loc, Value x, Value slope) {
  Value zero = constant(b, loc, x.getType(), 0);
  Value positivePart = floatExtremum(b, loc, x, zero, /*max=*/true);
  Value negativePart =
      arith::MulFOp::create(b, loc, slope, floatExtremum(b, loc, x, zero, /*max=*/false));
  return arith::AddFOp::create(b, loc, positivePart, negativePart);
}

/// log(1 + exp(x)) without overflow for large x: max(x, 0) + log1p(exp(-|x|)).
Value softplus(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType();
  Value positivePart = floatExtremum(b, loc, x, constant(b, loc, type, 0), /*max=*/true);
  Value negAbs = arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x));
  Value tail = math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, negAbs));
  return arith::AddFOp::create(b, loc, positivePart, tail);
}

/// `lhs` raised to the integer power `exponent` (both of `lhs`'s signless integer type),
/// by square-and-multiply: at most bit-width steps. A negative exponent gives the
/// truncated reciprocal: 1 for a base of 1, +-1 for -1, 0 otherwise.
Value integerPower(OpBuilder &b, Location loc, Value base, Value exponent, bool isUnsignedType) {
  Type type = base.getType();
  Value zero = constant(b, loc, type, 0);
  Value one = constant(b, loc, type, 1);
  SmallVector<Type> types(3, type);
  auto loop = scf::WhileOp::create(
      b, loc, types, ValueRange{one, base, exponent},
      [&](OpBuilder &nb, Location nl, ValueRange state) {
        Value more = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ne, state[2], zero);
        scf::ConditionOp::create(nb, nl, more, state);
      },
      [&](OpBuilder &nb, Location nl, ValueRange state) {
        Value bit = arith::AndIOp::create(nb, nl, state[2], one);
        Value odd = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ne, bit, zero);
        Value multiplied = arith::MulIOp::create(nb, nl, state[0], state[1]);
        Value result = arith::SelectOp::create(nb, nl, odd, multiplied, state[0]);
        Value squared = arith::MulIOp::create(nb, nl, state[1], state[1]);
        // A logical shift so that the loop ends for any bit pattern.
        Value rest = arith::ShRUIOp::create(nb, nl, state[2], one);
        scf::YieldOp::create(nb, nl, ValueRange{result, squared, rest});
      });
  Value power = loop.getResult(0);
  if (isUnsignedType)
    return power;
  Value minusOne = constant(b, loc, type, -1);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, exponent, zero);
  Value baseIsOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, base, one);
  Value baseIsMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, base, minusOne);
  Value oddExponent = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                            arith::AndIOp::create(b, loc, exponent, one), zero);
  Value minusOnePower = select(b, loc, oddExponent, minusOne, one);
  Value reciprocal =
      select(b, loc, baseIsOne, one, select(b, loc, baseIsMinusOne, minusOnePower, zero));
  return select(b, loc, negative, reciprocal, power);
}

/// The remainder of `lhs / rhs` whose sign follows the divisor (Python's `%`) given the
/// truncated remainder `remainder` (whose sign follows the dividend).
Value floorRemainder(OpBuilder &b, Location loc, Value remainder, Value divisor) {
  Type type = remainder.getType();
  Value zero = constant(b, loc, type, 0);
  Value nonZero, remainderNegative, divisorNegative;
  if (isa<FloatType>(type)) {
    nonZero = cmpF(b, loc, arith::CmpFPredicate::UNE, remainder, zero);
    remainderNegative = cmpF(b, loc, arith::CmpFPredicate::OLT, remainder, zero);
    divisorNegative = cmpF(b, loc, arith::CmpFPredicate::OLT, divisor, zero);
  } else {
    nonZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, remainder, zero);
    remainderNegative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, remainder, zero);
    divisorNegative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, divisor, zero);
  }
  Value signsDiffer = arith::XOrIOp::create(b, loc, remainderNegative, divisorNegative);
  Value adjust = arith::AndIOp::create(b, loc, nonZero, signsDiffer);
  Value adjusted = isa<FloatType>(type) ? Value(arith::AddFOp::create(b, loc, remainder, divisor))
                                        : Value(arith::AddIOp::create(b, loc, remainder, divisor));
  return select(b, loc, adjust, adjusted, remainder);
}

//===----------------------------------------------------------------------===//
// Scalar computations, one per op. A null result means the element type is not handled.
//===----------------------------------------------------------------------===//

// Arithmetic.

Value computeElement(graph::AddOp, OpBuilder &b, Location loc, ValueRange args) {
  return add(b, loc, args[0], args[1]);
}

Value computeElement(graph::SubOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return computeInF32(b, loc, args,
                        [&](ValueRange w) { return arith::SubFOp::create(b, loc, w[0], w[1]); });
  return arith::SubIOp::create(b, loc, args[0], args[1]);
}

Value computeElement(graph::MulOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return computeInF32(b, loc, args,
                        [&](ValueRange w) { return arith::MulFOp::create(b, loc, w[0], w[1]); });
  return arith::MulIOp::create(b, loc, args[0], args[1]);
}

Value computeElement(graph::DivOp op, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return computeInF32(b, loc, args,
                        [&](ValueRange w) { return arith::DivFOp::create(b, loc, w[0], w[1]); });
  // Integer division truncates toward zero, as in C and ONNX Runtime.
  if (isUnsigned(graphElementType(op, 0)))
    return arith::DivUIOp::create(b, loc, args[0], args[1]);
  return arith::DivSIOp::create(b, loc, args[0], args[1]);
}

Value computeElement(graph::PowOp op, OpBuilder &b, Location loc, ValueRange args) {
  Type baseType = graphElementType(op, 0);
  Type exponentType = graphElementType(op, 1);
  Value base = args[0];
  if (isa<FloatType>(base.getType())) {
    Value exponent = convertScalar(b, loc, args[1], exponentType, baseType);
    return computeInF32(b, loc, {base, exponent},
                        [&](ValueRange w) { return math::PowFOp::create(b, loc, w[0], w[1]); });
  }
  if (base.getType().isInteger(1))
    return Value();
  if (isa<FloatType>(args[1].getType())) {
    // numpy (ONNX's reference) computes an integer to a float power in double and
    // truncates the result back to the base's type.
    Type f64 = b.getF64Type();
    Value power = math::PowFOp::create(b, loc, convertScalar(b, loc, base, baseType, f64),
                                       convertScalar(b, loc, args[1], exponentType, f64));
    return convertScalar(b, loc, power, f64, baseType);
  }
  Value exponent = convertScalar(b, loc, args[1], exponentType, baseType);
  if (isUnsigned(exponentType) && !isUnsigned(baseType)) {
    // An unsigned exponent must not turn negative in the base's signed type.
    Value zero = constant(b, loc, exponent.getType(), 0);
    Value wrapped = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, exponent, zero);
    Value largest = arith::ConstantOp::create(
        b, loc,
        b.getIntegerAttr(exponent.getType(),
                         APInt::getSignedMaxValue(exponent.getType().getIntOrFloatBitWidth())));
    exponent = select(b, loc, wrapped, largest, exponent);
  }
  return integerPower(b, loc, base, exponent, isUnsigned(baseType));
}

Value computeElement(graph::ModOp op, OpBuilder &b, Location loc, ValueRange args) {
  bool truncated = op.getFmod();
  if (isa<FloatType>(args[0].getType()))
    return computeInF32(b, loc, args, [&](ValueRange w) {
      Value remainder = arith::RemFOp::create(b, loc, w[0], w[1]);
      return truncated ? remainder : floorRemainder(b, loc, remainder, w[1]);
    });
  if (args[0].getType().isInteger(1))
    return Value();
  // Unsigned remainders are non-negative: both conventions agree.
  if (isUnsigned(graphElementType(op, 0)))
    return arith::RemUIOp::create(b, loc, args[0], args[1]);
  Value remainder = arith::RemSIOp::create(b, loc, args[0], args[1]);
  return truncated ? remainder : floorRemainder(b, loc, remainder, args[1]);
}

Value computeElement(graph::BitShiftOp op, OpBuilder &b, Location loc, ValueRange args) {
  Type type = args[0].getType();
  if (!isa<IntegerType>(type))
    return Value();
  Value shifted;
  if (op.getDirection() == "LEFT")
    shifted = arith::ShLIOp::create(b, loc, args[0], args[1]);
  else if (op.getDirection() == "RIGHT")
    shifted = arith::ShRUIOp::create(b, loc, args[0], args[1]);
  else
    return Value();
  // Shifting by the bit width or more is poison in LLVM; every bit has left by then.
  Value width = constant(b, loc, type, type.getIntOrFloatBitWidth());
  Value tooFar = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, args[1], width);
  return select(b, loc, tooFar, constant(b, loc, type, 0), shifted);
}

Value computeElement(graph::BitwiseAndOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::AndIOp::create(b, loc, args[0], args[1]);
}
Value computeElement(graph::BitwiseOrOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::OrIOp::create(b, loc, args[0], args[1]);
}
Value computeElement(graph::BitwiseXorOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::XOrIOp::create(b, loc, args[0], args[1]);
}
Value computeElement(graph::AndOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::AndIOp::create(b, loc, args[0], args[1]);
}
Value computeElement(graph::OrOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::OrIOp::create(b, loc, args[0], args[1]);
}
Value computeElement(graph::XorOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::XOrIOp::create(b, loc, args[0], args[1]);
}
Value computeElement(graph::NotOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::XOrIOp::create(b, loc, args[0], constant(b, loc, args[0].getType(), 1));
}
Value computeElement(graph::BitwiseNotOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::XOrIOp::create(b, loc, args[0], constant(b, loc, args[0].getType(), -1));
}

Value computeElement(graph::PReluOp op, OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0], slope = args[1];
  if (isa<FloatType>(x.getType()))
    return computeInF32(b, loc, args, [&](ValueRange w) { return leaky(b, loc, w[0], w[1]); });
  if (isUnsigned(graphElementType(op, 0)))
    return x;
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, constant(b, loc, x.getType(), 0));
  return select(b, loc, negative, arith::MulIOp::create(b, loc, x, slope), x);
}

// Comparisons.

Value computeElement(graph::EqualOp op, OpBuilder &b, Location loc, ValueRange args) {
  return compare(b, loc, args, graphElementType(op, 0), arith::CmpFPredicate::OEQ,
                 arith::CmpIPredicate::eq, arith::CmpIPredicate::eq);
}
Value computeElement(graph::LessOp op, OpBuilder &b, Location loc, ValueRange args) {
  return compare(b, loc, args, graphElementType(op, 0), arith::CmpFPredicate::OLT,
                 arith::CmpIPredicate::slt, arith::CmpIPredicate::ult);
}
Value computeElement(graph::LessOrEqualOp op, OpBuilder &b, Location loc, ValueRange args) {
  return compare(b, loc, args, graphElementType(op, 0), arith::CmpFPredicate::OLE,
                 arith::CmpIPredicate::sle, arith::CmpIPredicate::ule);
}
Value computeElement(graph::GreaterOp op, OpBuilder &b, Location loc, ValueRange args) {
  return compare(b, loc, args, graphElementType(op, 0), arith::CmpFPredicate::OGT,
                 arith::CmpIPredicate::sgt, arith::CmpIPredicate::ugt);
}
Value computeElement(graph::GreaterOrEqualOp op, OpBuilder &b, Location loc, ValueRange args) {
  return compare(b, loc, args, graphElementType(op, 0), arith::CmpFPredicate::OGE,
                 arith::CmpIPredicate::sge, arith::CmpIPredicate::uge);
}

// Variadic.

Value computeElement(graph::MaxOp op, OpBuilder &b, Location loc, ValueRange args) {
  Value result = args[0];
  for (Value arg : args.drop_front())
    result = extremum(b, loc, result, arg, graphElementType(op, 0), /*max=*/true);
  return result;
}

Value computeElement(graph::MinOp op, OpBuilder &b, Location loc, ValueRange args) {
  Value result = args[0];
  for (Value arg : args.drop_front())
    result = extremum(b, loc, result, arg, graphElementType(op, 0), /*max=*/false);
  return result;
}

Value computeElement(graph::SumOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return computeInF32(b, loc, args, [&](ValueRange w) {
      Value sum = w[0];
      for (Value arg : w.drop_front())
        sum = arith::AddFOp::create(b, loc, sum, arg);
      return sum;
    });
  Value sum = args[0];
  for (Value arg : args.drop_front())
    sum = arith::AddIOp::create(b, loc, sum, arg);
  return sum;
}

Value computeElement(graph::MeanOp op, OpBuilder &b, Location loc, ValueRange args) {
  double count = args.size();
  if (isa<FloatType>(args[0].getType()))
    return computeInF32(b, loc, args, [&](ValueRange w) {
      Value sum = w[0];
      for (Value arg : w.drop_front())
        sum = arith::AddFOp::create(b, loc, sum, arg);
      return arith::DivFOp::create(b, loc, sum, constant(b, loc, sum.getType(), count));
    });
  if (args[0].getType().isInteger(1))
    return Value();
  Value sum = args[0];
  for (Value arg : args.drop_front())
    sum = arith::AddIOp::create(b, loc, sum, arg);
  Value divisor = constant(b, loc, sum.getType(), count);
  if (isUnsigned(graphElementType(op, 0)))
    return arith::DivUIOp::create(b, loc, sum, divisor);
  return arith::DivSIOp::create(b, loc, sum, divisor);
}

// Selection and clamping.

Value computeElement(graph::WhereOp, OpBuilder &b, Location loc, ValueRange args) {
  return select(b, loc, args[0], args[1], args[2]);
}

Value computeElement(graph::ClipOp op, OpBuilder &b, Location loc, ValueRange args) {
  // The adaptor lists the bounds that are present, in order.
  Type graphType = graphElementType(op, 0);
  Value result = args[0];
  unsigned next = 1;
  if (op.getMin())
    result = extremum(b, loc, result, args[next++], graphType, /*max=*/true);
  if (op.getMax())
    result = extremum(b, loc, result, args[next++], graphType, /*max=*/false);
  return result;
}

Value computeElement(graph::CastOp op, OpBuilder &b, Location loc, ValueRange args) {
  return convertScalar(b, loc, args[0], graphElementType(op, 0), op.getTo());
}

// Unary math.

Value computeElement(graph::ReluOp op, OpBuilder &b, Location loc, ValueRange args) {
  Value zero = constant(b, loc, args[0].getType(), 0.0);
  if (isa<FloatType>(args[0].getType()))
    return floatExtremum(b, loc, args[0], zero, /*max=*/true);
  if (isUnsigned(graphElementType(op, 0)))
    return args[0];
  return arith::MaxSIOp::create(b, loc, args[0], zero);
}

Value computeElement(graph::AbsOp op, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return math::AbsFOp::create(b, loc, args[0]);
  if (comparesUnsigned(graphElementType(op, 0)))
    return args[0];
  return math::AbsIOp::create(b, loc, args[0]);
}

Value computeElement(graph::NegOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return arith::NegFOp::create(b, loc, args[0]);
  return arith::SubIOp::create(b, loc, constant(b, loc, args[0].getType(), 0), args[0]);
}

Value computeElement(graph::SignOp op, OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  Type type = x.getType();
  Value zero = constant(b, loc, type, 0), one = constant(b, loc, type, 1);
  if (isa<FloatType>(type)) {
    // NaN stays NaN (numpy's sign), so does the sign of zero.
    Value positive = cmpF(b, loc, arith::CmpFPredicate::OGT, x, zero);
    Value negative = cmpF(b, loc, arith::CmpFPredicate::OLT, x, zero);
    return select(b, loc, positive, one, select(b, loc, negative, constant(b, loc, type, -1), x));
  }
  Value positive =
      arith::CmpIOp::create(b, loc,
                            comparesUnsigned(graphElementType(op, 0)) ? arith::CmpIPredicate::ugt
                                                                      : arith::CmpIPredicate::sgt,
                            x, zero);
  if (comparesUnsigned(graphElementType(op, 0)))
    return select(b, loc, positive, one, zero);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  return select(b, loc, positive, one, select(b, loc, negative, constant(b, loc, type, -1), zero));
}

Value computeElement(graph::ReciprocalOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryFloat(b, loc, args[0], [&](Value x, Type type) -> Value {
    return arith::DivFOp::create(b, loc, constant(b, loc, type, 1), x);
  });
}

Value computeElement(graph::SqrtOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::SqrtOp>(b, loc, args[0]);
}
Value computeElement(graph::ExpOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::ExpOp>(b, loc, args[0]);
}
Value computeElement(graph::LogOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::LogOp>(b, loc, args[0]);
}
Value computeElement(graph::ErfOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::ErfOp>(b, loc, args[0]);
}
Value computeElement(graph::FloorOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::FloorOp>(b, loc, args[0]);
}
Value computeElement(graph::CeilOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::CeilOp>(b, loc, args[0]);
}
Value computeElement(graph::RoundOp, OpBuilder &b, Location loc, ValueRange args) {
  // ONNX Round sends halves to the even neighbour.
  return unaryMath<math::RoundEvenOp>(b, loc, args[0]);
}
Value computeElement(graph::SinOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::SinOp>(b, loc, args[0]);
}
Value computeElement(graph::CosOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::CosOp>(b, loc, args[0]);
}
Value computeElement(graph::TanOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::TanOp>(b, loc, args[0]);
}
Value computeElement(graph::AsinOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::AsinOp>(b, loc, args[0]);
}
Value computeElement(graph::AcosOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::AcosOp>(b, loc, args[0]);
}
Value computeElement(graph::AtanOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::AtanOp>(b, loc, args[0]);
}
Value computeElement(graph::SinhOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::SinhOp>(b, loc, args[0]);
}
Value computeElement(graph::CoshOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::CoshOp>(b, loc, args[0]);
}
Value computeElement(graph::TanhOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::TanhOp>(b, loc, args[0]);
}
Value computeElement(graph::AsinhOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::AsinhOp>(b, loc, args[0]);
}
Value computeElement(graph::AcoshOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::AcoshOp>(b, loc, args[0]);
}
Value computeElement(graph::AtanhOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryMath<math::AtanhOp>(b, loc, args[0]);
}

// Activations.

/// 1 / (1 + exp(-x)).
Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value one = constant(b, loc, x.getType(), 1);
  Value expNeg = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, expNeg));
}

/// x / (1 + |x|).
Value softsign(OpBuilder &b, Location loc, Value x) {
  Value denominator = arith::AddFOp::create(b, loc, constant(b, loc, x.getType(), 1),
                                            math::AbsFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, x, denominator);
}

/// x > alpha ? x : 0.
Value thresholdedRelu(OpBuilder &b, Location loc, Value x, double alpha) {
  Type type = x.getType();
  Value above = cmpF(b, loc, arith::CmpFPredicate::OGT, x, constant(b, loc, type, alpha));
  return select(b, loc, above, x, constant(b, loc, type, 0));
}

Value computeElement(graph::SigmoidOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryFloat(b, loc, args[0], [&](Value x, Type) { return sigmoid(b, loc, x); });
}

Value computeElement(graph::SoftplusOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryFloat(b, loc, args[0], [&](Value x, Type) { return softplus(b, loc, x); });
}

Value computeElement(graph::SoftsignOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryFloat(b, loc, args[0], [&](Value x, Type) { return softsign(b, loc, x); });
}

Value computeElement(graph::MishOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryFloat(b, loc, args[0], [&](Value x, Type) -> Value {
    return arith::MulFOp::create(b, loc, x, math::TanhOp::create(b, loc, softplus(b, loc, x)));
  });
}

/// x * sigmoid(x), the Kiln extension graph.silu (what the recognised Sigmoid and Mul
/// computed, with the same sigmoid).
Value computeElement(graph::SiluOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryFloat(b, loc, args[0], [&](Value x, Type) -> Value {
    return arith::MulFOp::create(b, loc, x, sigmoid(b, loc, x));
  });
}

/// max(0, min(1, alpha * x + beta)), shared by HardSigmoid and HardSwish.
Value hardSigmoid(OpBuilder &b, Location loc, Value x, double alpha, double beta) {
  Type type = x.getType();
  Value linear =
      arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, constant(b, loc, type, alpha), x),
                            constant(b, loc, type, beta));
  Value upper = floatExtremum(b, loc, linear, constant(b, loc, type, 1), /*max=*/false);
  return floatExtremum(b, loc, upper, constant(b, loc, type, 0), /*max=*/true);
}

Value computeElement(graph::HardSwishOp, OpBuilder &b, Location loc, ValueRange args) {
  return unaryFloat(b, loc, args[0], [&](Value x, Type) -> Value {
    return arith::MulFOp::create(b, loc, x, hardSigmoid(b, loc, x, 1.0 / 6.0, 0.5));
  });
}

Value computeElement(graph::HardSigmoidOp op, OpBuilder &b, Location loc, ValueRange args) {
  double alpha = op.getAlphaAttr().getValueAsDouble();
  double beta = op.getBetaAttr().getValueAsDouble();
  return unaryFloat(b, loc, args[0],
                    [&](Value x, Type) { return hardSigmoid(b, loc, x, alpha, beta); });
}

Value computeElement(graph::EluOp op, OpBuilder &b, Location loc, ValueRange args) {
  double alpha = op.getAlphaAttr().getValueAsDouble();
  return unaryFloat(b, loc, args[0], [&](Value x, Type) -> Value { return elu(b, loc, x, alpha); });
}

Value computeElement(graph::CeluOp op, OpBuilder &b, Location loc, ValueRange args) {
  double alpha = op.getAlphaAttr().getValueAsDouble();
  return unaryFloat(b, loc, args[0], [&](Value x, Type type) -> Value {
    Value zero = constant(b, loc, type, 0);
    Value scaled = arith::DivFOp::create(b, loc, x, constant(b, loc, type, alpha));
    Value negativePart =
        floatExtremum(b, loc, eluBranch(b, loc, scaled, alpha), zero, /*max=*/false);
    return arith::AddFOp::create(b, loc, floatExtremum(b, loc, x, zero, /*max=*/true),
                                 negativePart);
  });
}

Value computeElement(graph::SeluOp op, OpBuilder &b, Location loc, ValueRange args) {
  double alpha = op.getAlphaAttr().getValueAsDouble();
  double gamma = op.getGammaAttr().getValueAsDouble();
  return unaryFloat(b, loc, args[0], [&](Value x, Type type) -> Value {
    return arith::MulFOp::create(b, loc, constant(b, loc, type, gamma), elu(b, loc, x, alpha));
  });
}

Value computeElement(graph::LeakyReluOp op, OpBuilder &b, Location loc, ValueRange args) {
  double alpha = op.getAlphaAttr().getValueAsDouble();
  return unaryFloat(b, loc, args[0], [&](Value x, Type type) -> Value {
    return leaky(b, loc, x, constant(b, loc, type, alpha));
  });
}

Value computeElement(graph::ThresholdedReluOp op, OpBuilder &b, Location loc, ValueRange args) {
  double alpha = op.getAlphaAttr().getValueAsDouble();
  return unaryFloat(b, loc, args[0],
                    [&](Value x, Type) { return thresholdedRelu(b, loc, x, alpha); });
}

Value computeElement(graph::ShrinkOp op, OpBuilder &b, Location loc, ValueRange args) {
  double bias = op.getBiasAttr().getValueAsDouble();
  double lambd = op.getLambdAttr().getValueAsDouble();
  auto shrink = [&](Value x, Type type) -> Value {
    Value below = cmpF(b, loc, arith::CmpFPredicate::OLT, x, constant(b, loc, type, -lambd));
    Value above = cmpF(b, loc, arith::CmpFPredicate::OGT, x, constant(b, loc, type, lambd));
    Value biasValue = constant(b, loc, type, bias);
    return select(b, loc, below, arith::AddFOp::create(b, loc, x, biasValue),
                  select(b, loc, above, arith::SubFOp::create(b, loc, x, biasValue),
                         constant(b, loc, type, 0)));
  };
  if (isa<FloatType>(args[0].getType()))
    return unaryFloat(b, loc, args[0], shrink);
  if (args[0].getType().isInteger(1))
    return Value();
  // Integers compare with the float thresholds exactly in f64; the result converts back
  // (ONNX's reference computes in the input type, where the values are integral).
  Type graphType = graphElementType(op, 0);
  Type f64 = b.getF64Type();
  Value wide = convertScalar(b, loc, args[0], graphType, f64);
  return convertScalar(b, loc, shrink(wide, f64), f64, graphType);
}

Value computeElement(graph::GeluOp op, OpBuilder &b, Location loc, ValueRange args) {
  bool tanhApproximation = op.getApproximate() == "tanh";
  return unaryFloat(b, loc, args[0], [&](Value x, Type type) -> Value {
    Value half = constant(b, loc, type, 0.5);
    Value one = constant(b, loc, type, 1);
    Value inner;
    if (tanhApproximation) {
      // tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))
      Value cube = arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x), x);
      Value sum = arith::AddFOp::create(
          b, loc, x, arith::MulFOp::create(b, loc, constant(b, loc, type, 0.044715), cube));
      inner = math::TanhOp::create(
          b, loc,
          arith::MulFOp::create(b, loc, constant(b, loc, type, std::sqrt(2.0 / M_PI)), sum));
    } else {
      // erf(x / sqrt(2))
      inner = math::ErfOp::create(
          b, loc, arith::MulFOp::create(b, loc, x, constant(b, loc, type, M_SQRT1_2)));
    }
    Value halfX = arith::MulFOp::create(b, loc, half, x);
    return arith::MulFOp::create(b, loc, halfX, arith::AddFOp::create(b, loc, one, inner));
  });
}

// Predicates.

Value computeElement(graph::IsNaNOp, OpBuilder &b, Location loc, ValueRange args) {
  if (!isa<FloatType>(args[0].getType()))
    return Value();
  return cmpF(b, loc, arith::CmpFPredicate::UNO, args[0], args[0]);
}

Value computeElement(graph::IsInfOp op, OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  Type type = x.getType();
  if (!isa<FloatType>(type))
    return Value();
  Value result = constant(b, loc, b.getI1Type(), 0);
  double infinity = std::numeric_limits<double>::infinity();
  if (op.getDetectPositive())
    result = arith::OrIOp::create(
        b, loc, result,
        cmpF(b, loc, arith::CmpFPredicate::OEQ, x, constant(b, loc, type, infinity)));
  if (op.getDetectNegative())
    result = arith::OrIOp::create(
        b, loc, result,
        cmpF(b, loc, arith::CmpFPredicate::OEQ, x, constant(b, loc, type, -infinity)));
  return result;
}

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

/// Lowers `OpTy` into one linalg.generic whose body is `computeElement(op, ...)`.
template <typename OpTy> struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult matchAndRewrite(OpTy op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*this->getTypeConverter(), op);
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "unranked result");
    for (Value operand : adaptor.getOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (!type)
        return rewriter.notifyMatchFailure(op, "unranked operand");
      // Operands broadcast to the result: none may have a higher rank.
      if (type.getRank() > resultType.getRank())
        return rewriter.notifyMatchFailure(op, "operand of a higher rank than the result");
    }
    bool handled = true;
    Value result =
        createElementwise(rewriter, op.getLoc(), resultType, adaptor.getOperands(),
                          [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
                            Value element = computeElement(op, b, loc, args);
                            if (element)
                              return element;
                            handled = false;
                            // A placeholder of the right type; the conversion rolls the op back.
                            return createScalarConstant(b, loc, resultType.getElementType(), 0);
                          });
    if (!handled)
      return rewriter.notifyMatchFailure(op, "element type not handled");
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

bool isActivationName(StringRef name) {
  static constexpr StringLiteral names[] = {
      "Relu",       "Tanh",        "Sigmoid", "Affine",   "LeakyRelu", "ThresholdedRelu",
      "ScaledTanh", "HardSigmoid", "Elu",     "Softsign", "Softplus"};
  return llvm::is_contained(names, name);
}

Value createActivation(OpBuilder &b, Location loc, StringRef name, double alpha, double beta,
                       Value x) {
  auto scalar = [&](Value wide, Type type) -> Value {
    if (name == "Relu")
      return floatExtremum(b, loc, wide, constant(b, loc, type, 0), /*max=*/true);
    if (name == "Tanh")
      return math::TanhOp::create(b, loc, wide);
    if (name == "Sigmoid")
      return sigmoid(b, loc, wide);
    if (name == "Affine")
      return arith::AddFOp::create(
          b, loc, arith::MulFOp::create(b, loc, constant(b, loc, type, alpha), wide),
          constant(b, loc, type, beta));
    if (name == "LeakyRelu")
      return leaky(b, loc, wide, constant(b, loc, type, alpha));
    if (name == "ThresholdedRelu")
      return thresholdedRelu(b, loc, wide, alpha);
    if (name == "ScaledTanh") {
      Value scaled = arith::MulFOp::create(b, loc, constant(b, loc, type, beta), wide);
      return arith::MulFOp::create(b, loc, constant(b, loc, type, alpha),
                                   math::TanhOp::create(b, loc, scaled));
    }
    if (name == "HardSigmoid")
      return hardSigmoid(b, loc, wide, alpha, beta);
    if (name == "Elu")
      return elu(b, loc, wide, alpha);
    if (name == "Softsign")
      return softsign(b, loc, wide);
    if (name == "Softplus")
      return softplus(b, loc, wide);
    return Value();
  };
  if (!isa<FloatType>(x.getType()))
    return Value();
  bool known = true;
  Value result = unaryFloat(b, loc, x, [&](Value wide, Type type) -> Value {
    if (Value value = scalar(wide, type))
      return value;
    known = false;
    return wide;
  });
  return known ? result : Value();
}

Value createFloatClamp(OpBuilder &b, Location loc, Value x, Value low, Value high) {
  return floatExtremum(b, loc, floatExtremum(b, loc, x, low, /*max=*/true), high, /*max=*/false);
}

namespace {

/// Every op lowered here, in one list: the patterns and createElementwiseScalar both
/// walk it.
template <typename... Ops> struct OpList {};
using ElementwiseOps = OpList< // Arithmetic.
    graph::AddOp, graph::SubOp, graph::MulOp, graph::DivOp, graph::PowOp, graph::ModOp,
    graph::BitShiftOp, graph::BitwiseAndOp, graph::BitwiseOrOp, graph::BitwiseXorOp,
    graph::BitwiseNotOp, graph::AndOp, graph::OrOp, graph::XorOp, graph::NotOp, graph::PReluOp,
    // Comparisons.
    graph::EqualOp, graph::LessOp, graph::LessOrEqualOp, graph::GreaterOp, graph::GreaterOrEqualOp,
    // Variadic, selection, clamping, conversion.
    graph::MaxOp, graph::MinOp, graph::SumOp, graph::MeanOp, graph::WhereOp, graph::ClipOp,
    graph::CastOp,
    // Unary math.
    graph::ReluOp, graph::AbsOp, graph::NegOp, graph::SignOp, graph::ReciprocalOp, graph::SqrtOp,
    graph::ExpOp, graph::LogOp, graph::ErfOp, graph::FloorOp, graph::CeilOp, graph::RoundOp,
    graph::SinOp, graph::CosOp, graph::TanOp, graph::AsinOp, graph::AcosOp, graph::AtanOp,
    graph::SinhOp, graph::CoshOp, graph::TanhOp, graph::AsinhOp, graph::AcoshOp, graph::AtanhOp,
    // Activations and predicates.
    graph::SigmoidOp, graph::SoftplusOp, graph::SoftsignOp, graph::MishOp, graph::HardSwishOp,
    graph::SiluOp, graph::HardSigmoidOp, graph::EluOp, graph::CeluOp, graph::SeluOp,
    graph::LeakyReluOp, graph::ThresholdedReluOp, graph::ShrinkOp, graph::GeluOp, graph::IsNaNOp,
    graph::IsInfOp>;

template <typename... Ops>
void addPatterns(OpList<Ops...>, const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<Ops>...>(converter, patterns.getContext());
}

template <typename... Ops>
Value dispatchScalar(OpList<Ops...>, Operation *op, OpBuilder &b, Location loc, ValueRange args) {
  Value result;
  // The one op type `op` is computes it (`||` stops at the first match).
  (void)((isa<Ops>(op) && (result = computeElement(cast<Ops>(op), b, loc, args), true)) || ...);
  return result;
}

} // namespace

Value createElementwiseScalar(Operation *op, OpBuilder &b, Location loc, ValueRange args) {
  return dispatchScalar(ElementwiseOps{}, op, b, loc, args);
}

void populateElementwiseLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  addPatterns(ElementwiseOps{}, converter, patterns);
}

} // namespace kiln::lowering
