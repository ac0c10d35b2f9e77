//===- Sm90Epilogue.cpp - Fused epilogues of the Hopper GEMM templates ----===//

#include "passes/kernel/Sm90Epilogue.h"

#include "dialects/graph/GraphOps.h"
#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// The attribute that marks the op standing for the epilogue in a parsed template.
constexpr StringLiteral kMarkerAttr = "kiln.epilogue";

/// The one value of a float constant that holds one (a splat, or a single element), as a
/// double.
std::optional<double> singleFloat(Attribute attr) {
  auto elements = dyn_cast<ElementsAttr>(attr);
  if (!elements)
    return std::nullopt;
  auto type = dyn_cast<FloatType>(elements.getElementType());
  if (!type)
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (!dense.isSplat())
      return std::nullopt;
    return dense.getSplatValue<APFloat>().convertToDouble();
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!resource || elements.getNumElements() != 1 || type.getWidth() > 64)
    return std::nullopt;
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (!blob || blob->getData().size() * 8 < type.getWidth())
    return std::nullopt;
  uint64_t raw = 0;
  std::memcpy(&raw, blob->getData().data(), type.getWidth() / 8);
  return APFloat(type.getFloatSemantics(), APInt(type.getWidth(), raw)).convertToDouble();
}

/// How an operand of C's shape `output` reads a tensor of type `type`; its per-column
/// vectors run along `columnAxis` of `output`. A per-row operand has the output's shape
/// with one column, the columns being the output's last axis (C's rows are then the
/// other axes, flattened).
std::optional<kiln::Sm90EpilogueInput::Kind>
classify(RankedTensorType type, ArrayRef<int64_t> output, int64_t columnAxis) {
  using Kind = kiln::Sm90EpilogueInput::Kind;
  // Floats, or signless integers (a quantized skip connection, which the epilogue
  // converts as it loads).
  Type element = type.getElementType();
  bool integer = element.isSignlessInteger() && element.getIntOrFloatBitWidth() <= 32;
  if (!(isa<FloatType>(element) || integer) || type.getRank() > int64_t(output.size()))
    return std::nullopt;
  if (type.hasStaticShape() && type.getNumElements() == 1)
    return Kind::Scalar;
  // A dynamic extent matches the output's dynamic extent there: kernel formation fused
  // the op only where the symbolic analysis proved the two extents equal.
  ArrayRef<int64_t> shape = type.getShape();
  if (shape == output)
    return Kind::Full;
  int64_t last = int64_t(output.size()) - 1;
  if (columnAxis == last && int64_t(shape.size()) == int64_t(output.size()) && shape[last] == 1 &&
      output[last] != 1 && shape.drop_back() == output.drop_back())
    return Kind::PerRow;
  // Right-aligned against the output (broadcasting): the column axis's extent there, ones
  // elsewhere.
  int64_t offset = int64_t(output.size()) - int64_t(shape.size());
  if (columnAxis < offset)
    return std::nullopt;
  for (auto [index, extent] : llvm::enumerate(shape))
    if (extent != (int64_t(index) + offset == columnAxis ? output[columnAxis] : 1))
      return std::nullopt;
  return Kind::PerColumn;
}

/// GELU of the f32 `x` for a result rounded to f16 or bf16: 0.5 x (1 + tanh(u)), u =
/// sqrt(2 / pi) (x + 0.044715 x^3), with tanh as one tanh.approx.f32 (MUFU, relative
/// error below 2^-10.9): 5 instructions besides it, where the exact form's rational erf
/// takes 13 with its reciprocal. Both of ONNX's forms: `tanh` is this formula, and `none`
/// (erf) differs from it by less than 5e-4 (near |x| = 2; where the result is below 1e-3,
/// less than its magnitude), about an f16 ulp of results above 0.5. On a normal input
/// (sigma 1.5) the results' relative L2 error is 4.5e-4 against exact GELU, where rounding
/// the exact values to f16 gives 2.1e-4. Epilogues evaluate the activation once per output
/// element: ViT-B/16's fc1 at batch 256 spent half of its instructions on erf's GELU.
Value emitHalfPrecisionGelu(OpBuilder &b, Location loc, Value x) {
  Type f32 = b.getF32Type();
  auto constant = [&](double value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(static_cast<float>(value)));
  };
  double scale = std::sqrt(2.0 / M_PI);
  Value square = arith::MulFOp::create(b, loc, x, x);
  Value factor = math::FmaOp::create(b, loc, square, constant(0.044715 * scale), constant(scale));
  Value u = arith::MulFOp::create(b, loc, x, factor);
  Value t = LLVM::InlineAsmOp::create(
                b, loc, f32, ValueRange{u}, "tanh.approx.f32 $0, $1;", "=f,f",
                /*has_side_effects=*/false, /*is_align_stack=*/false, LLVM::TailCallKind::None,
                LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
                /*operand_attrs=*/ArrayAttr())
                .getResult(0);
  Value half = arith::MulFOp::create(b, loc, x, constant(0.5));
  return math::FmaOp::create(b, loc, half, t, half);
}

/// The logistic sigmoid of the f32 `x` for a result rounded to f16 or bf16: 1 / (1 +
/// 2^(-x log2 e)) with ex2.approx.ftz and rcp.approx.ftz (MUFU, relative errors ~2^-22
/// and ~2^-23): 4 instructions, where libdevice's expf adds three fmas of range reduction
/// around the same ex2 and the exact form's reciprocal is rcp.rn, which ptxas expands to
/// a sequence with a slow path.
/// Within ~1e-6 relative of the exact sigmoid at every x: far inside an f16 ulp. Its
/// limits hold: 2^(-x log2 e) overflows to infinity below x = -88 and its reciprocal to 0;
/// it flushes to 0 above x = 88, giving 1. SiLU (x sigmoid(x)) and sigmoid gates are the
/// epilogues of EfficientNet-style 1x1 and depthwise convolutions, whose short K leaves
/// the epilogue most of the kernel's instructions.
Value emitHalfPrecisionSigmoid(OpBuilder &b, Location loc, Value x) {
  Type f32 = b.getF32Type();
  auto intrinsic = [&](StringRef name, Value operand) {
    return LLVM::CallIntrinsicOp::create(b, loc, f32, b.getStringAttr(name), ValueRange{operand})
        ->getResult(0);
  };
  Value scaled = arith::MulFOp::create(
      b, loc, x, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(-M_LOG2E)));
  Value power = intrinsic("llvm.nvvm.ex2.approx.ftz.f", scaled);
  Value denominator = arith::AddFOp::create(
      b, loc, power, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f)));
  return intrinsic("llvm.nvvm.rcp.approx.ftz.f", denominator);
}

/// `op`'s scalar computation (the generic lowering's) on `args`, f32 scalars, as if its
/// float operands and results were f32: a detached copy of the op with those types is
/// what the lowering sees. The result is brought back to f32 (a Cast to f16 rounds, then
/// widens again). Null where the lowering has nothing for the op. GELU, sigmoid and SiLU
/// with a 16-bit result are emitHalfPrecisionGelu's and emitHalfPrecisionSigmoid's.
Value emitInF32(OpBuilder &b, Location loc, Operation *op, ValueRange args) {
  if (isa<graph::GeluOp, graph::SigmoidOp, graph::SiluOp>(op)) {
    Type element = getElementTypeOrSelf(op->getResult(0).getType());
    if (element.isF16() || element.isBF16()) {
      if (isa<graph::GeluOp>(op))
        return emitHalfPrecisionGelu(b, loc, args[0]);
      Value sigmoid = emitHalfPrecisionSigmoid(b, loc, args[0]);
      return isa<graph::SiluOp>(op) ? arith::MulFOp::create(b, loc, args[0], sigmoid).getResult()
                                    : sigmoid;
    }
  }
  Type f32 = b.getF32Type();
  auto retype = [&](Type type) -> Type {
    Type element = getElementTypeOrSelf(type);
    return RankedTensorType::get({}, isa<FloatType>(element) ? f32 : element);
  };
  Block scratch;
  IRMapping mapping;
  for (Value operand : op->getOperands())
    if (!mapping.contains(operand))
      mapping.map(operand, scratch.addArgument(retype(operand.getType()), loc));
  Operation *copy = op->cloneWithoutRegions(mapping);
  for (OpResult result : copy->getResults())
    result.setType(retype(result.getType()));
  Value result = kiln::lowering::createElementwiseScalar(copy, b, loc, args);
  copy->erase();
  if (!result)
    return Value();
  auto type = dyn_cast<FloatType>(result.getType());
  if (!type)
    return Value();
  if (type.getWidth() < 32)
    return arith::ExtFOp::create(b, loc, f32, result);
  if (type.getWidth() > 32)
    return arith::TruncFOp::create(b, loc, f32, result);
  return result;
}

/// 1.5 x 2^23, whose float has an ulp of 1: adding it to a float of magnitude below 2^22
/// rounds that float to an integer (to nearest even, the addition's rounding) and leaves
/// the integer, two's complement, in the low bits of the sum's representation. Epilogues
/// run once per output element and conversion instructions issue at an eighth of the f32
/// rate on sm_90 (16 a cycle an SM), so the epilogue rounds, converts narrow integers to
/// f32 and f32 integers to narrow integers with this instead.
constexpr float kRoundingBias = 12582912.0f;
constexpr int32_t kRoundingBiasBits = 0x4B400000;
/// Floats of smaller magnitude round exactly through kRoundingBias.
constexpr float kRoundingLimit = 4194304.0f;

/// A constant of `type` (a scalar or a vector type) holding `value` in every element.
Value splatConstant(OpBuilder &b, Location loc, Type type, TypedAttr value) {
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vector, value));
  return arith::ConstantOp::create(b, loc, value);
}

/// The value of `bound` when it is a constant holding one integer (as a float).
std::optional<double> integerConstant(Value bound) {
  auto constant = bound ? bound.getDefiningOp<graph::ConstantOp>() : nullptr;
  std::optional<double> number = constant ? singleFloat(constant.getValue()) : std::nullopt;
  if (!number || std::nearbyint(*number) != *number)
    return std::nullopt;
  return number;
}

/// Whether `value`, a value of `epilogue`'s chain, holds integers in every element (as
/// floats): what a rounding or a cast to an integer type then leaves as it is.
bool knownIntegral(const kiln::Sm90Epilogue &epilogue, Value value) {
  if (value == epilogue.product)
    return !epilogue.bias && isa<IntegerType>(getElementTypeOrSelf(value.getType()));
  if (isa<BlockArgument>(value))
    return isa<IntegerType>(getElementTypeOrSelf(value.getType()));
  Operation *op = value.getDefiningOp();
  auto integralConstant = [](Value bound) { return !bound || integerConstant(bound); };
  if (isa_and_nonnull<graph::RoundOp>(op))
    return true;
  if (auto cast = dyn_cast_or_null<graph::CastOp>(op))
    // To an integer; from one (an integer rounded to a narrower float is still one); or
    // between floats, of an integer.
    return isa<IntegerType>(cast.getTo()) ||
           isa<IntegerType>(getElementTypeOrSelf(cast.getInput().getType())) ||
           knownIntegral(epilogue, cast.getInput());
  if (auto clip = dyn_cast_or_null<graph::ClipOp>(op))
    return integralConstant(clip.getMin()) && integralConstant(clip.getMax()) &&
           knownIntegral(epilogue, clip.getInput());
  if (auto relu = dyn_cast_or_null<graph::ReluOp>(op))
    return knownIntegral(epilogue, relu.getInput());
  return false;
}

/// Round to nearest even: through kRoundingBias below kRoundingLimit, where the
/// addition's rounding is the one wanted; larger floats (and infinities, NaN) are
/// integers already.
Value emitRoundEven(OpBuilder &b, Location loc, Value value) {
  Type f32 = b.getF32Type();
  Value bias = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(kRoundingBias));
  Value biased = arith::AddFOp::create(b, loc, value, bias);
  Value rounded = arith::SubFOp::create(b, loc, biased, bias);
  Value magnitude = math::AbsFOp::create(b, loc, value);
  Value small =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, magnitude,
                            arith::ConstantOp::create(b, loc, FloatAttr::get(f32, kRoundingLimit)));
  return arith::SelectOp::create(b, loc, small, rounded, value);
}

/// Whether `op` is a cast to an integer type of at most 16 bits, whose values the
/// epilogue can carry as their sum with kRoundingBias.
bool isNarrowIntegerCast(Operation *op) {
  auto cast = dyn_cast_or_null<graph::CastOp>(op);
  auto integer = cast ? dyn_cast<IntegerType>(cast.getTo()) : nullptr;
  return integer && integer.getWidth() <= 16;
}

/// A requantization ending `epilogue`: cast(clip(round(x), low, high)) to a narrow
/// integer type, with integer bounds below kRoundingLimit, the round and the clip read by
/// nothing else. When x is relu(y) or relu(y) divided by a positive constant (the ReLU
/// before a block's requantization), read by nothing else, the ReLU is `relu`: clamping
/// to max(low, 0) after the rounding does its work (rounding is monotonic, and 0 stays
/// 0), an instruction fewer per element.
struct Requantization {
  graph::RoundOp round;
  graph::ClipOp clip;
  graph::ReluOp relu;
  double low, high;
};
std::optional<Requantization> matchRequantization(const kiln::Sm90Epilogue &epilogue) {
  if (epilogue.ops.empty() || !isNarrowIntegerCast(epilogue.ops.back()))
    return std::nullopt;
  auto clip = epilogue.ops.back()->getOperand(0).getDefiningOp<graph::ClipOp>();
  auto round = clip ? clip.getInput().getDefiningOp<graph::RoundOp>() : nullptr;
  if (!round || !clip->hasOneUse() || !round->hasOneUse())
    return std::nullopt;
  std::optional<double> low = integerConstant(clip.getMin());
  std::optional<double> high = integerConstant(clip.getMax());
  if (!low || !high || std::abs(*low) >= kRoundingLimit || std::abs(*high) >= kRoundingLimit)
    return std::nullopt;
  Requantization requantization{round, clip, nullptr, *low, *high};
  Value scaled = round.getInput();
  if (auto divide = scaled.getDefiningOp<graph::DivOp>(); divide && divide->hasOneUse()) {
    auto divisor = divide.getRhs().getDefiningOp<graph::ConstantOp>();
    std::optional<double> value = divisor ? singleFloat(divisor.getValue()) : std::nullopt;
    if (value && *value > 0)
      scaled = divide.getLhs();
  }
  auto relu = scaled.getDefiningOp<graph::ReluOp>();
  if (relu && relu->hasOneUse() && llvm::is_contained(epilogue.ops, relu.getOperation()) &&
      *high >= 0) {
    requantization.relu = relu;
    requantization.low = std::max(*low, 0.0);
  }
  return requantization;
}

/// `cast` (isNarrowIntegerCast) of its operand's lane value, as the integer plus
/// kRoundingBias, whose f32 representation holds the integer in its low bits. The
/// chain's `requantization`, when it has one (matchRequantization), becomes x +
/// kRoundingBias clamped to [low, high] + kRoundingBias: the addition rounds (to nearest
/// even), and clamping after it is the same as before, the bounds being integers; its
/// round and clip are not emitted. Other operands: an integer as it is, else truncated
/// toward zero; out-of-range values are undefined, as for the cast.
Value emitBiasedNarrowInteger(OpBuilder &b, Location loc, const kiln::Sm90Epilogue &epilogue,
                              graph::CastOp cast, std::optional<Requantization> requantization,
                              const DenseMap<Value, Value> &lane) {
  Type f32 = b.getF32Type();
  auto constant = [&](double value) -> Value {
    return arith::ConstantOp::create(b, loc, FloatAttr::get(f32, value));
  };
  Value bias = constant(kRoundingBias);
  if (requantization) {
    Value biased =
        arith::AddFOp::create(b, loc, lane.lookup(requantization->round.getInput()), bias);
    Value raised =
        arith::MaxNumFOp::create(b, loc, biased, constant(kRoundingBias + requantization->low));
    return arith::MinNumFOp::create(b, loc, raised, constant(kRoundingBias + requantization->high));
  }
  Value operand = cast.getInput();
  Value value = lane.lookup(operand);
  if (!knownIntegral(epilogue, operand))
    value = math::TruncOp::create(b, loc, value);
  return arith::AddFOp::create(b, loc, value, bias);
}

/// A graph.cast from or to an integer type, as the epilogue computes it on its f32 lane
/// values (which hold integers exactly up to 2^24): from an integer (the i32 sums of an
/// integer product), the conversion to the cast's float type (rounding to a narrower one);
/// to an integer, the truncation toward zero that the conversion does, kept in f32 (the
/// store converts the stored value to the integer output type). Null for other casts.
Value emitIntegerCast(OpBuilder &b, Location loc, graph::CastOp cast, Value value) {
  Type from = getElementTypeOrSelf(cast.getInput().getType());
  Type to = cast.getTo();
  Type f32 = b.getF32Type();
  if (isa<IntegerType>(from) && isa<FloatType>(to)) {
    if (to.getIntOrFloatBitWidth() >= 32)
      return value;
    Value narrow = arith::TruncFOp::create(b, loc, to, value);
    return arith::ExtFOp::create(b, loc, f32, narrow);
  }
  if (isa<FloatType>(from) && isa<IntegerType>(to)) {
    // arith's integers are signless; an unsigned type converts as unsigned.
    Type integer = IntegerType::get(b.getContext(), to.getIntOrFloatBitWidth());
    if (to.isUnsignedInteger()) {
      Value converted = arith::FPToUIOp::create(b, loc, integer, value);
      return arith::UIToFPOp::create(b, loc, f32, converted);
    }
    Value converted = arith::FPToSIOp::create(b, loc, integer, value);
    return arith::SIToFPOp::create(b, loc, f32, converted);
  }
  return Value();
}

/// The f32 values of `bytes`, a vector of 2 i8 or a multiple of 4, through
/// kRoundingBias: per 32-bit word, one xor makes each byte x its unsigned x + 128; per
/// byte, one `prmt` places it under the upper bytes of kRoundingBias's representation
/// (the float kRoundingBias + x + 128) and one subtraction leaves x. Two instructions an
/// element where sign extension, the biasing addition and the subtraction make three.
SmallVector<Value> widenBytesToF32(OpBuilder &b, Location loc, Value bytes) {
  auto type = cast<VectorType>(bytes.getType());
  int64_t count = type.getNumElements();
  int64_t words = llvm::divideCeil(count, 4);
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto constantI32 = [&](uint32_t value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(value)));
  };
  // Two bytes (a wgmma fragment's pair) are the low half of a word.
  Value packed =
      count == 2
          ? (Value)vector::BroadcastOp::create(
                b, loc, VectorType::get({1}, i32),
                arith::ExtUIOp::create(b, loc, i32,
                                       vector::ExtractOp::create(
                                           b, loc,
                                           vector::BitCastOp::create(
                                               b, loc, VectorType::get({1}, b.getI16Type()), bytes),
                                           0)))
          : (Value)vector::BitCastOp::create(b, loc, VectorType::get({words}, i32), bytes);
  Value signFlip = constantI32(0x80808080u), upper = constantI32(uint32_t(kRoundingBiasBits));
  Value offset = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(kRoundingBias + 128.0f));
  SmallVector<Value> values;
  for (int64_t word = 0; word < words; ++word) {
    Value unsignedBytes =
        arith::XOrIOp::create(b, loc, vector::ExtractOp::create(b, loc, packed, word), signFlip);
    for (uint32_t byte = 0; byte < std::min<int64_t>(4, count - 4 * word); ++byte) {
      // Result bytes, low to high: byte `byte` of the word, then bytes 0, 2 and 3 of
      // kRoundingBiasBits (pool bytes 4, 6, 7): 0x00, 0x40, 0x4B.
      Value bits = NVVM::PermuteOp::create(b, loc, i32, unsignedBytes, upper,
                                           constantI32(0x7640u | byte), NVVM::PermuteMode::DEFAULT);
      values.push_back(
          arith::SubFOp::create(b, loc, arith::BitcastOp::create(b, loc, f32, bits), offset));
    }
  }
  return values;
}

std::string shortName(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return name.starts_with("graph.") ? name.drop_front(6).str() : name.str();
}

} // namespace

Value kiln::emitSm90EpilogueLane(OpBuilder &b, Location loc, const Sm90Epilogue &epilogue,
                                 Value product, ArrayRef<Value> inputs, bool biasNarrowInteger) {
  DenseMap<Value, Value> lane;
  Block *body = Value(epilogue.product).getParentBlock();
  for (auto [input, value] : llvm::zip(epilogue.inputs, inputs))
    lane[body->getArgument(input.argument)] = value;
  Value current = product;
  if (epilogue.bias)
    current = arith::AddFOp::create(b, loc, current, lane.lookup(epilogue.bias));
  lane[epilogue.product] = current;
  // A requantization into the biased form is emitted whole at its cast.
  std::optional<Requantization> requantization =
      biasNarrowInteger ? matchRequantization(epilogue) : std::nullopt;
  for (Operation *op : epilogue.ops) {
    if (requantization &&
        (op == requantization->round.getOperation() || op == requantization->clip.getOperation()))
      continue;
    if (requantization && op == requantization->relu.getOperation()) {
      lane[op->getResult(0)] = lane.lookup(requantization->relu.getInput());
      continue;
    }
    if (biasNarrowInteger && op == epilogue.ops.back() && isNarrowIntegerCast(op)) {
      lane[op->getResult(0)] =
          emitBiasedNarrowInteger(b, loc, epilogue, cast<graph::CastOp>(op), requantization, lane);
      continue;
    }
    SmallVector<Value> args;
    for (Value operand : op->getOperands()) {
      if (Value known = lane.lookup(operand)) {
        args.push_back(known);
        continue;
      }
      auto constant = operand.getDefiningOp<graph::ConstantOp>();
      std::optional<double> value = constant ? singleFloat(constant.getValue()) : std::nullopt;
      if (!value)
        return Value();
      args.push_back(arith::ConstantOp::create(b, loc, b.getF32FloatAttr(*value)));
    }
    Value result;
    // Rounding, or truncating to an integer type, an integer: nothing to do.
    bool integralOperand = op->getNumOperands() > 0 && knownIntegral(epilogue, op->getOperand(0));
    auto cast = dyn_cast<graph::CastOp>(op);
    if (integralOperand && (isa<graph::RoundOp>(op) || (cast && isa<IntegerType>(cast.getTo()))))
      result = args[0];
    else if (isa<graph::RoundOp>(op))
      result = emitRoundEven(b, loc, args[0]);
    else if (cast)
      result = emitIntegerCast(b, loc, cast, args[0]);
    // A division by a constant (a requantization's scale) as a product with its
    // reciprocal: one instruction where an IEEE division takes a dozen, in an epilogue
    // that runs once per output element. The quotient may differ in its last bit, which
    // moves a rounded value only when it lies within an ulp of a half.
    if (auto divide = dyn_cast<graph::DivOp>(op); divide && !result) {
      auto constant = divide.getRhs().getDefiningOp<graph::ConstantOp>();
      std::optional<double> divisor = constant ? singleFloat(constant.getValue()) : std::nullopt;
      if (divisor && *divisor != 0 && std::isfinite(1.0 / *divisor) &&
          !lane.lookup(divide.getRhs()))
        result = arith::MulFOp::create(
            b, loc, args[0], arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0 / *divisor)));
    }
    if (!result)
      result = emitInF32(b, loc, op, args);
    if (!result)
      return Value();
    lane[op->getResult(0)] = result;
  }
  return lane.lookup(epilogue.ops.empty() ? epilogue.product : epilogue.ops.back()->getResult(0));
}

std::optional<kiln::Sm90Epilogue>
kiln::matchSm90Epilogue(Operation *anchor, Value bias, MemRefType outputType, int64_t columnAxis) {
  if (anchor->getNumResults() != 1 || outputType.getRank() < 1)
    return std::nullopt;
  if (columnAxis < 0)
    columnAxis = outputType.getRank() - 1;
  if (columnAxis >= outputType.getRank())
    return std::nullopt;
  Block *body = anchor->getBlock();
  ArrayRef<int64_t> output = outputType.getShape();
  Sm90Epilogue epilogue;
  epilogue.product = anchor->getResult(0);
  epilogue.bias = bias;
  std::map<unsigned, Sm90EpilogueInput> inputs;
  auto addInput = [&](BlockArgument argument) {
    auto type = dyn_cast<RankedTensorType>(argument.getType());
    std::optional<Sm90EpilogueInput::Kind> kind =
        type ? classify(type, output, columnAxis) : std::nullopt;
    if (!kind)
      return false;
    inputs[argument.getArgNumber()] = {argument.getArgNumber(), *kind, type.getElementType()};
    return true;
  };
  if (bias) {
    // graph.conv's bias is [O], one value per output channel whatever the layout.
    auto argument = dyn_cast<BlockArgument>(bias);
    auto type = argument ? dyn_cast<RankedTensorType>(argument.getType()) : nullptr;
    if (!argument || argument.getOwner() != body || !type || type.getRank() != 1 ||
        type.getDimSize(0) != output[columnAxis] || !isa<FloatType>(type.getElementType()))
      return std::nullopt;
    inputs[argument.getArgNumber()] = {argument.getArgNumber(), Sm90EpilogueInput::Kind::PerColumn,
                                       type.getElementType()};
  }

  // The ops after the anchor: elementwise ops of C's shape (a chain, or any graph of them:
  // GELU written out reads the biased product twice), each operand the product, an
  // earlier op's value, a kernel input or a constant of one value; the yield stores one
  // of their values. The block's order is an order of evaluation.
  Operation *yield = body->getTerminator();
  if (yield->getNumOperands() != 1)
    return std::nullopt;
  bool afterAnchor = false;
  for (Operation &op : body->without_terminator()) {
    if (&op == anchor) {
      afterAnchor = true;
      continue;
    }
    if (isa<graph::ConstantOp>(op))
      continue;
    // Before the anchor, only views of its operands that the caller vetted (the Flatten
    // in front of a classifier's product), read by nothing else.
    if (!afterAnchor && isa<graph::FlattenOp, graph::ReshapeOp>(op) &&
        llvm::all_of(op.getUsers(), [&](Operation *user) { return user == anchor; }))
      continue;
    if (!afterAnchor || op.getNumResults() != 1 || op.getNumRegions() != 0 ||
        op.getDialect() != anchor->getDialect())
      return std::nullopt;
    // Values are floats, but for a cast to an integer type that is stored as it is (the
    // requantization that ends an int8 convolution's epilogue) or cast back to floats
    // (a quantize and dequantize around a float layer's input: the lanes stay f32, the
    // casts round and saturate them as the integer type would).
    auto type = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    bool storedIntegerCast = type && isa<graph::CastOp>(op) &&
                             isa<IntegerType>(type.getElementType()) &&
                             llvm::all_of(op.getResult(0).getUsers(), [&](Operation *user) {
                               auto back = dyn_cast<graph::CastOp>(user);
                               return user == yield || (back && isa<FloatType>(back.getTo()));
                             });
    if (!type || type.getShape() != output ||
        !(isa<FloatType>(type.getElementType()) || storedIntegerCast))
      return std::nullopt;
    for (Value operand : op.getOperands()) {
      if (operand == epilogue.product || llvm::is_contained(epilogue.ops, operand.getDefiningOp()))
        continue;
      if (auto argument = dyn_cast<BlockArgument>(operand)) {
        // The bias read again by a later op must read the same way.
        std::optional<Sm90EpilogueInput> known;
        if (auto it = inputs.find(argument.getArgNumber()); it != inputs.end())
          known = it->second;
        if (argument.getOwner() != body || !addInput(argument) ||
            (known && inputs[argument.getArgNumber()].kind != known->kind))
          return std::nullopt;
        continue;
      }
      auto constant = operand.getDefiningOp<graph::ConstantOp>();
      if (!constant || !singleFloat(constant.getValue()))
        return std::nullopt;
    }
    epilogue.ops.push_back(&op);
  }
  Value stored = yield->getOperand(0);
  if (stored != (epilogue.ops.empty() ? epilogue.product : epilogue.ops.back()->getResult(0)))
    return std::nullopt;
  for (auto &[argument, input] : inputs)
    epilogue.inputs.push_back(input);

  // Every op must have an emission: try them once on stand-in values, in a scratch
  // module.
  if (!epilogue.ops.empty()) {
    MLIRContext *context = anchor->getContext();
    Location loc = anchor->getLoc();
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
    OpBuilder b(context);
    b.setInsertionPointToEnd(scratch->getBody());
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
    SmallVector<Value> stand(epilogue.inputs.size(), zero);
    if (!kiln::emitSm90EpilogueLane(b, loc, epilogue, zero, stand))
      return std::nullopt;
  }
  return epilogue;
}

bool kiln::sm90HasResidualInput(const Sm90Epilogue &epilogue) {
  return llvm::any_of(epilogue.inputs, [](const Sm90EpilogueInput &input) {
    return input.kind == Sm90EpilogueInput::Kind::Full;
  });
}

int64_t kiln::sm90ResidualElementBytes(const Sm90Epilogue &epilogue) {
  for (const Sm90EpilogueInput &input : epilogue.inputs)
    if (input.kind == Sm90EpilogueInput::Kind::Full && input.elementType.isIntOrFloat())
      return input.elementType.getIntOrFloatBitWidth() / 8;
  return 0;
}

std::string kiln::Sm90Epilogue::key() const {
  if (empty())
    return "";
  std::string text, names;
  llvm::raw_string_ostream os(text);
  if (bias) {
    os << "bias";
    names += "_bias";
  }
  Block *body = Value(product).getParentBlock();
  for (Operation *op : ops) {
    names += "_" + shortName(op);
    os << op->getName() << op->getAttrDictionary() << op->getPropertiesAsAttribute();
    for (Value operand : op->getOperands()) {
      if (operand == product)
        os << " p";
      else if (auto argument = dyn_cast<BlockArgument>(operand);
               argument && argument.getOwner() == body)
        os << " a" << argument.getArgNumber();
      else if (llvm::is_contained(ops, operand.getDefiningOp()))
        os << " o" << llvm::find(ops, operand.getDefiningOp()) - ops.begin();
      else if (auto constant = operand.getDefiningOp<graph::ConstantOp>())
        os << " c" << llvm::format("%a", *singleFloat(constant.getValue()));
    }
    os << " -> " << op->getResult(0).getType() << ";";
  }
  for (const Sm90EpilogueInput &input : inputs)
    os << " in" << input.argument << ":" << int(input.kind) << ":" << input.elementType;
  return names + "_" + llvm::utohexstr(uint32_t(llvm::hash_value(text)), /*LowerCase=*/true);
}

std::string kiln::Sm90Epilogue::describe() const {
  std::string text;
  if (bias)
    text = "bias";
  for (Operation *op : ops)
    text += (text.empty() ? "" : ", ") + shortName(op);
  return text;
}

SmallVector<std::pair<StringRef, std::string>>
kiln::sm90EpiloguePlaceholders(const Sm90Epilogue *epilogue, Type result, StringRef value,
                               StringRef row, StringRef column, StringRef m, StringRef n,
                               int64_t lanes, StringRef residual) {
  std::string parameters, marker, stored = value.str();
  std::string f32Vector = "vector<" + std::to_string(lanes) + "xf32>";
  auto vectorOf = [&](StringRef element) {
    return "vector<" + std::to_string(lanes) + "x" + element.str() + ">";
  };
  if (epilogue && !epilogue->empty()) {
    for (auto [index, input] : llvm::enumerate(epilogue->inputs)) {
      std::string type;
      llvm::raw_string_ostream os(type);
      os << input.elementType;
      parameters += llvm::formatv(", %epilogue{0}: memref<{1}>", index, type).str();
    }
    // With a residual tile, its operands follow (split at the colon into names and types).
    auto [residualNames, residualTypes] = residual.split(" : ");
    marker = llvm::formatv("%epilogued = builtin.unrealized_conversion_cast {0}, {1}, {2}, {3}, "
                           "{4}{7} : {6}, index, index, index, index{8} to {6} "
                           "{{{5}}",
                           value, row, column, m, n, kMarkerAttr, f32Vector,
                           residual.empty() ? "" : ", " + residualNames.str(),
                           residual.empty() ? "" : ", " + residualTypes.str())
                 .str();
    stored = "%epilogued";
  }
  std::string convert;
  if (auto integer = dyn_cast<IntegerType>(result)) {
    // The epilogue ended in a cast to this type: its f32 values are integers in range.
    // Narrow ones come as their sum with kRoundingBias (emitSm90Epilogue), whose low
    // bits they are: no conversion instruction. Wider ones convert.
    std::string out = "i" + std::to_string(integer.getWidth());
    if (epilogue && !epilogue->empty() && integer.getWidth() == 8 && lanes == 2)
      // Two bytes: one `prmt` packs the low bytes of both lanes' bits (the 16-bit store
      // then writes them), where LLVM truncates and stores each separately.
      convert =
          llvm::formatv("%outBits = arith.bitcast {0} : vector<2xf32> to vector<2xi32>\n"
                        "    %outLow = vector.extract %outBits[0] : i32 from vector<2xi32>\n"
                        "    %outHigh = vector.extract %outBits[1] : i32 from vector<2xi32>\n"
                        "    %outSelector = arith.constant 64 : i32\n"
                        "    %outPacked = nvvm.prmt <default> %outSelector, %outLow, %outHigh "
                        ": i32\n"
                        "    %outHalf = arith.trunci %outPacked : i32 to i16\n"
                        "    %outWord = vector.broadcast %outHalf : i16 to vector<1xi16>\n"
                        "    %out = vector.bitcast %outWord : vector<1xi16> to vector<2x{1}>",
                        stored, out)
              .str();
    else if (epilogue && !epilogue->empty() && integer.getWidth() <= 16)
      convert = llvm::formatv("%outBits = arith.bitcast {0} : {1} to {2}\n"
                              "    %out = arith.trunci %outBits : {2} to {3}",
                              stored, f32Vector, vectorOf("i32"), vectorOf(out))
                    .str();
    else
      convert = "%out = arith." + std::string(integer.isUnsigned() ? "fptoui " : "fptosi ") +
                stored + " : " + f32Vector + " to " + vectorOf(out);
    stored = "%out";
  } else if (!result.isF32()) {
    std::string out = result.isF16() ? "f16" : "bf16";
    convert = "%out = arith.truncf " + stored + " : " + f32Vector + " to " + vectorOf(out);
    stored = "%out";
  }
  return {{"EPILOGUE_PARAMETERS", parameters},
          {"EPILOGUE", marker},
          {"CONVERT", convert},
          {"STORED", stored}};
}

LogicalResult kiln::emitSm90Epilogue(gpu::GPUFuncOp kernel, const Sm90Epilogue &epilogue,
                                     unsigned firstParameter, unsigned trailingParameters) {
  UnrealizedConversionCastOp marker;
  kernel.walk([&](UnrealizedConversionCastOp op) {
    if (op->hasAttr(kMarkerAttr))
      marker = op;
  });
  // A residual tile's operands (tile, row, column) follow, and its tensor map is the
  // kernel's last parameter.
  bool residualTile = marker && marker.getNumOperands() == 8;
  if (!marker || (marker.getNumOperands() != 5 && !residualTile) ||
      kernel.getNumArguments() !=
          firstParameter + epilogue.inputs.size() + residualTile + trailingParameters)
    return kernel.emitError("the template has no epilogue marker or parameters");
  OpBuilder b(marker);
  Location loc = marker.getLoc();
  Value vector = marker.getOperand(0), row = marker.getOperand(1), column = marker.getOperand(2),
        m = marker.getOperand(3), n = marker.getOperand(4);
  auto vectorType = dyn_cast<VectorType>(vector.getType());
  if (!vectorType || vectorType.getRank() != 1)
    return kernel.emitError("the epilogue marker takes no vector of C");
  int64_t lanes = vectorType.getNumElements();
  // A narrow integer result leaves the lanes biased (see sm90EpiloguePlaceholders).
  bool biasNarrow = !epilogue.ops.empty() && isNarrowIntegerCast(epilogue.ops.back());
  Operation *first = marker->getPrevNode();
  Type f32 = b.getF32Type();
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  // `lanes` consecutive elements of `view` (memory or the residual tile) at `indices`,
  // widened to f32. Buffers are 16-byte aligned at least; wider loads split.
  auto loadLanes = [&](OpBuilder &at, Value view, ValueRange indices, Type element) {
    int64_t bytes = std::min<int64_t>(16, lanes * element.getIntOrFloatBitWidth() / 8);
    Value loaded = vector::LoadOp::create(at, loc, VectorType::get({lanes}, element), view, indices,
                                          /*nontemporal=*/false, llvm::MaybeAlign(bytes));
    if (element.isInteger(8) && (lanes % 4 == 0 || lanes == 2))
      return widenBytesToF32(at, loc, loaded);
    Value widened = widenToF32(at, loc, loaded);
    SmallVector<Value> values;
    for (int64_t lane = 0; lane < lanes; ++lane)
      values.push_back(vector::ExtractOp::create(at, loc, widened, lane));
    return values;
  };
  auto flatView = [&](OpBuilder &at, Value pointer, Type element, Value extent) {
    return memref::ReinterpretCastOp::create(
        at, loc, MemRefType::get({ShapedType::kDynamic}, element), pointer,
        OpFoldResult(at.getIndexAttr(0)), ArrayRef<OpFoldResult>{extent},
        ArrayRef<OpFoldResult>{at.getIndexAttr(1)});
  };
  // Where every item of a thread has the same columns, the template marks them before its
  // items: the per-column inputs are loaded there, once, not once an item or a batch.
  UnrealizedConversionCastOp columnsMarker;
  kernel.walk([&](UnrealizedConversionCastOp op) {
    if (op->hasAttr(kiln::kEpilogueColumnsAttr))
      columnsMarker = op;
  });
  // Each input's values for the lanes, as f32.
  SmallVector<SmallVector<Value>> inputLanes;
  for (auto [position, input] : llvm::enumerate(epilogue.inputs)) {
    Value pointer = kernel.getArgument(firstParameter + position);
    Type element = input.elementType;
    switch (input.kind) {
    case Sm90EpilogueInput::Kind::Scalar: {
      auto view = memref::ReinterpretCastOp::create(b, loc, MemRefType::get({1}, element), pointer,
                                                    /*offset=*/0, ArrayRef<int64_t>{1},
                                                    ArrayRef<int64_t>{1});
      Value scalar = widenToF32(b, loc, memref::LoadOp::create(b, loc, view, ValueRange{index(0)}));
      inputLanes.emplace_back(lanes, scalar);
      break;
    }
    case Sm90EpilogueInput::Kind::PerColumn: {
      // `lanes` consecutive elements of the per-column vector at the column (N is a
      // multiple of `lanes`).
      if (columnsMarker) {
        OpBuilder hoisted(columnsMarker);
        Value columns = columnsMarker.getOperand(0), extent = columnsMarker.getOperand(1);
        inputLanes.push_back(
            loadLanes(hoisted, flatView(hoisted, pointer, element, extent), columns, element));
      } else {
        inputLanes.push_back(loadLanes(b, flatView(b, pointer, element, n), column, element));
      }
      break;
    }
    case Sm90EpilogueInput::Kind::PerRow: {
      // The row's one value, for every lane.
      Value scalar = widenToF32(
          b, loc,
          memref::LoadOp::create(b, loc, flatView(b, pointer, element, m), ValueRange{row}));
      inputLanes.emplace_back(lanes, scalar);
      break;
    }
    case Sm90EpilogueInput::Kind::Full: {
      // C's shape at (row, column), or the residual tile's element.
      if (residualTile) {
        inputLanes.push_back(loadLanes(b, marker.getOperand(5),
                                       ValueRange{marker.getOperand(6), marker.getOperand(7)},
                                       element));
        break;
      }
      Value extent = arith::MulIOp::create(b, loc, m, n);
      Value at = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, row, n), column);
      inputLanes.push_back(loadLanes(b, flatView(b, pointer, element, extent), at, element));
      break;
    }
    }
  }
  if (columnsMarker)
    columnsMarker.erase();
  SmallVector<Value> results;
  for (int64_t lane = 0; lane < lanes; ++lane) {
    SmallVector<Value> inputs;
    for (const SmallVector<Value> &values : inputLanes)
      inputs.push_back(values[lane]);
    Value product = vector::ExtractOp::create(b, loc, vector, lane);
    Value result = kiln::emitSm90EpilogueLane(b, loc, epilogue, product, inputs, biasNarrow);
    if (!result)
      return kernel.emitError("an epilogue op has no scalar emission");
    results.push_back(result);
  }
  Value combined =
      vector::FromElementsOp::create(b, loc, VectorType::get({lanes}, f32), results).getResult();
  // The epilogue's f32 arithmetic may contract a product and a sum into one fused
  // multiply-add (a rescale and a bias, a requantization and kRoundingBias): one rounding
  // fewer, and half the instructions of a chain that runs once per element.
  for (Operation *op = first ? first->getNextNode() : &marker->getBlock()->front();
       op != marker.getOperation(); op = op->getNextNode())
    if (auto fastMath = dyn_cast<arith::ArithFastMathInterface>(op);
        fastMath && isa<arith::AddFOp, arith::SubFOp, arith::MulFOp>(op))
      op->setAttr(fastMath.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(b.getContext(), arith::FastMathFlags::contract));
  marker.getResult(0).replaceAllUsesWith(combined);
  marker.erase();
  return success();
}

Value kiln::emitElementwiseInF32(OpBuilder &b, Location loc, Operation *op, ValueRange args) {
  return emitInF32(b, loc, op, args);
}

std::optional<double> kiln::getSingleFloat(Attribute attr) { return singleFloat(attr); }

Value kiln::widenToF32(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  Type element = getElementTypeOrSelf(type);
  auto like = [&](Type scalar) -> Type {
    if (auto vector = dyn_cast<VectorType>(type))
      return VectorType::get(vector.getShape(), scalar);
    return scalar;
  };
  Type f32 = b.getF32Type();
  unsigned width = element.getIntOrFloatBitWidth();
  if (isa<IntegerType>(element)) {
    if (width > 16)
      return arith::SIToFPOp::create(b, loc, like(f32), value);
    // Integers of at most 16 bits through kRoundingBias: sign-extended and added to its
    // representation, they are the float kRoundingBias + value, exactly.
    Type i32 = b.getI32Type();
    Value wide = arith::ExtSIOp::create(b, loc, like(i32), value);
    Value biased = arith::AddIOp::create(
        b, loc, wide, splatConstant(b, loc, like(i32), b.getI32IntegerAttr(kRoundingBiasBits)));
    Value bits = arith::BitcastOp::create(b, loc, like(f32), biased);
    return arith::SubFOp::create(
        b, loc, bits, splatConstant(b, loc, like(f32), b.getF32FloatAttr(kRoundingBias)));
  }
  if (width < 32)
    return arith::ExtFOp::create(b, loc, like(f32), value);
  if (width > 32)
    return arith::TruncFOp::create(b, loc, like(f32), value);
  return value;
}
