//===- ReducePrecision.cpp - FP16/BF16 with FP32 islands ------------------===//
//
// graph-reduce-precision (`kiln compile --fp16` / `--bf16`): the ops of an fp32 model
// compute in f16 or bf16 where that keeps the model accurate, and stay in f32 (islands)
// where it would not. Half the bytes move and the tensor-core kernels apply.
//
// Accuracy comes from two places. Inside the kernels: products, convolutions, sums,
// softmax and the normalisations' statistics accumulate in f32 whatever their operands
// (the lowering and the templates do this), so those ops are safe in the reduced type.
// Between kernels, values are rounded to the reduced type; an op stays in f32 when its
// values would not survive that:
//  - exponentials, logarithms, powers, reciprocals and the reductions that sum or
//    multiply (ReduceSum, ReduceL2, CumSum, ...) produce values that overflow f16;
//  - floats that feed an integer conversion (index and shape arithmetic) must stay exact,
//    and so must the ops that compute them;
//  - integers converted to float (f16 holds integers exactly only up to 2048);
//  - quantize_linear and dequantize_linear, whose scales (an i32 accumulator's ~1e-5)
//    lie below f16's normal range; the integer convolutions touch no float and stay;
//  - pointwise ops whose values only ever reach a quantize_linear, along the operands
//    kernel formation fuses (an int8 conv's bias, skip add and activation before the next
//    layer's quantization, which become its fused epilogue): they are stored as int8, so the
//    reduced type would save no bytes, only round them once more and cost conversions;
//  - ops with regions (control flow), and every op without a rule here: an allow-list, so
//    an op nobody has looked at keeps its fp32 numerics.
// The model's inputs and outputs keep f32 unless `convert-io`: casts at the boundary.
// Constants are converted once, at compile time; values beyond f16's range become its
// largest finite value (±65504) rather than infinity (attention masks of -1e9 or
// -3.4e38 stay masks instead of turning into NaN through 0 * inf).
//
// Each rewritten op is a clone with reduced operand and result types, checked by its
// verifier; an op that does not verify so stays in f32.
//
//===----------------------------------------------------------------------===//

#include "passes/graph/ReducePrecision.h"

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/GraphTraits.h"
#include "passes/graph/ConstantBytes.h"
#include "passes/graph/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>

namespace kiln {
#define GEN_PASS_DEF_GRAPHREDUCEPRECISION
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

bool touchesF32(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isF32Tensor) ||
         llvm::any_of(op->getResultTypes(), isF32Tensor);
}

// Why an op stays in f32 (the report's words).
constexpr llvm::StringLiteral kRangeMath =
    "range: exponentials, logarithms, powers and reciprocals leave the reduced type's range";
constexpr llvm::StringLiteral kRangeSums = "range: sums and products grow beyond the reduced type";
constexpr llvm::StringLiteral kToInteger = "converts to an integer";
constexpr llvm::StringLiteral kFromInteger =
    "integer to float: f16 holds integers exactly only up to 2048";
constexpr llvm::StringLiteral kToF64 = "converts to f64";
constexpr llvm::StringLiteral kFeedsInteger = "feeds an integer conversion (index arithmetic)";
constexpr llvm::StringLiteral kQuantize =
    "quantization: rounding onto the integer grid needs the f32 value and scale";
constexpr llvm::StringLiteral kDequantize =
    "dequantization: scales (~1e-5 for an i32 accumulator) lie below f16's normal range "
    "and i32 values beyond its range";
constexpr llvm::StringLiteral kFeedsQuantization =
    "feeds only quantizations: stored as int8, the reduced type saves nothing";
constexpr llvm::StringLiteral kRegions = "control flow: its regions stay f32";
constexpr llvm::StringLiteral kNoRule = "no reduced-precision rule for this op";
constexpr llvm::StringLiteral kDoesNotVerify = "does not verify with reduced operands";

/// "" when `op` may compute in the reduced type, else why it stays in f32.
llvm::StringRef keepReason(Operation *op) {
  if (op->getNumRegions() != 0)
    return kRegions;
  if (auto cast = dyn_cast<graph::CastOp>(op)) {
    Type to = cast.getTo();
    Type from = getElementTypeOrSelf(cast.getInput().getType());
    if (!isa<FloatType>(to))
      return kToInteger;
    if (to.isF64())
      return kToF64;
    if (from.isInteger() && from.getIntOrFloatBitWidth() > 1)
      return kFromInteger;
    return "";
  }
  // Quantized values keep their f32 scales: the integer convolutions of
  // graph-fold-quantized-products are rescaled by a dequantize_linear whose per-channel scale
  // (scale_x * scale_w) would be a subnormal or zero in f16. The ops after it may reduce.
  if (isa<graph::QuantizeLinearOp>(op))
    return kQuantize;
  if (isa<graph::DequantizeLinearOp>(op))
    return kDequantize;
  if (isa<graph::ExpOp, graph::LogOp, graph::PowOp, graph::ReciprocalOp, graph::SoftplusOp,
          graph::MishOp>(op))
    return kRangeMath;
  if (isa<graph::ReduceSumOp, graph::ReduceSumSquareOp, graph::ReduceL1Op, graph::ReduceL2Op,
          graph::ReduceLogSumOp, graph::ReduceLogSumExpOp, graph::ReduceProdOp, graph::CumSumOp,
          graph::LpNormalizationOp, graph::LRNOp>(op))
    return kRangeSums;
  // Products and convolutions accumulate in f32.
  if (isa<graph::ConvOp, graph::ConvTransposeOp, graph::MatMulOp, graph::GemmOp,
          graph::AttentionOp>(op))
    return "";
  // Pointwise ops whose results stay in their operands' range (or are booleans).
  if (isa<graph::AddOp, graph::SubOp, graph::MulOp, graph::DivOp, graph::MaxOp, graph::MinOp,
          graph::SumOp, graph::MeanOp, graph::WhereOp, graph::ClipOp, graph::ReluOp, graph::AbsOp,
          graph::NegOp, graph::SignOp, graph::SqrtOp, graph::ErfOp, graph::FloorOp, graph::CeilOp,
          graph::RoundOp, graph::SinOp, graph::CosOp, graph::TanhOp, graph::SigmoidOp,
          graph::SoftsignOp, graph::HardSwishOp, graph::SiluOp, graph::EluOp, graph::CeluOp,
          graph::SeluOp, graph::LeakyReluOp, graph::HardSigmoidOp, graph::ThresholdedReluOp,
          graph::ShrinkOp, graph::GeluOp, graph::PReluOp, graph::EqualOp, graph::LessOp,
          graph::LessOrEqualOp, graph::GreaterOp, graph::GreaterOrEqualOp, graph::IsNaNOp,
          graph::IsInfOp>(op))
    return "";
  // Softmax and the normalisations compute their statistics in f32.
  if (isa<graph::SoftmaxOp, graph::LogSoftmaxOp, graph::LayerNormalizationOp,
          graph::RMSNormalizationOp, graph::BatchNormalizationOp, graph::InstanceNormalizationOp,
          graph::GroupNormalizationOp>(op))
    return "";
  // Pooling and the reductions that stay in range.
  if (isa<graph::MaxPoolOp, graph::AveragePoolOp, graph::GlobalAveragePoolOp,
          graph::GlobalMaxPoolOp, graph::ReduceMeanOp, graph::ReduceMaxOp, graph::ReduceMinOp,
          graph::ArgMaxOp, graph::ArgMinOp>(op))
    return "";
  // Data movement: values are copied, not computed.
  if (isa<graph::ReshapeOp, graph::TransposeOp, graph::FlattenOp, graph::SqueezeOp,
          graph::UnsqueezeOp, graph::ExpandOp, graph::TileOp, graph::DepthToSpaceOp,
          graph::SpaceToDepthOp, graph::ConcatOp, graph::SplitOp, graph::SliceOp, graph::PadOp,
          graph::GatherOp, graph::GatherElementsOp, graph::GatherNDOp, graph::ScatterElementsOp,
          graph::ScatterNDOp, graph::TriluOp, graph::ResizeOp, graph::ShapeOp, graph::SizeOp>(op))
    return "";
  return kNoRule;
}

/// Whether operand `index` of a reduced `op` takes the reduced type: all f32 operands but
/// Resize's region of interest and scales, which are coordinates.
bool reducesOperand(Operation *op, unsigned index) {
  if (isa<graph::ResizeOp>(op))
    return index == 0;
  return true;
}

/// Sets `op`'s result types to those it infers from its operands and attributes; false
/// when it infers none or a different number.
bool inferResultTypes(Operation *op) {
  auto inferrable = dyn_cast<InferTypeOpInterface>(op);
  if (!inferrable)
    return false;
  SmallVector<Type> inferred;
  if (failed(inferrable.inferReturnTypes(op->getContext(), op->getLoc(), op->getOperands(),
                                         op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
                                         op->getRegions(), inferred)) ||
      inferred.size() != op->getNumResults())
    return false;
  for (auto [result, type] : llvm::zip(op->getResults(), inferred))
    result.setType(type);
  return true;
}

class PrecisionRewriter {
public:
  PrecisionRewriter(func::FuncOp function, const graph::ReducePrecisionOptions &options,
                    graph::PrecisionReport &report)
      : function(function), reducedType(options.reducedType), convertIO(options.convertIO),
        report(report) {}

  void run();

private:
  Type reduce(Type type) const {
    return isF32Tensor(type) ? cast<TensorType>(type).clone(reducedType) : type;
  }
  /// `value` (f32) in the reduced type: a reduced op's result, a converted constant, or
  /// a cast after its definition.
  Value reduced(Value value);
  Value convertConstant(graph::ConstantOp constant);
  /// `x` rounded to the reduced type, saturating finite values at its largest.
  APFloat convertElement(float x);
  Value createCast(OpBuilder &builder, Location loc, Value value, Type elementType);
  /// Marks the f32 computation that feeds integer conversions as kept (kFeedsInteger).
  void keepIntegerFeeds(llvm::DenseMap<Operation *, llvm::StringRef> &reasons);
  /// Marks the pointwise ops whose values reach only quantize_linear ops as kept
  /// (kFeedsQuantization).
  void keepQuantizationFeeds(ArrayRef<Operation *> ops,
                             llvm::DenseMap<Operation *, llvm::StringRef> &reasons);
  void record(Operation *op, llvm::StringRef reason);

  func::FuncOp function;
  FloatType reducedType;
  bool convertIO;
  graph::PrecisionReport &report;
  llvm::DenseMap<Value, Value> reducedValues;
  /// The convert-io casts of the inputs: not the model's ops.
  llvm::SmallPtrSet<Operation *, 8> boundaryCasts;
};

Value PrecisionRewriter::createCast(OpBuilder &builder, Location loc, Value value,
                                    Type elementType) {
  auto type = cast<TensorType>(value.getType()).clone(elementType);
  return graph::CastOp::create(builder, loc, type, value, TypeAttr::get(elementType));
}

APFloat PrecisionRewriter::convertElement(float x) {
  APFloat value(x);
  bool losesInfo = false;
  value.convert(reducedType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
  if (value.isInfinity() && std::isfinite(x)) {
    value = APFloat::getLargest(reducedType.getFloatSemantics(), /*Negative=*/x < 0);
    ++report.elementsSaturated;
  }
  return value;
}

Value PrecisionRewriter::convertConstant(graph::ConstantOp constant) {
  OpBuilder builder(constant->getContext());
  builder.setInsertionPointAfter(constant);
  Location loc = constant.getLoc();
  ElementsAttr attr = constant.getValue();
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  if (type && type.hasStaticShape()) {
    auto newType = type.clone(reducedType);
    if (auto dense = dyn_cast<DenseElementsAttr>(attr); dense && dense.isSplat()) {
      ++report.constantsConverted;
      APFloat value = convertElement(dense.getSplatValue<float>());
      return graph::ConstantOp::create(builder, loc,
                                       cast<ElementsAttr>(DenseElementsAttr::get(newType, value)));
    }
    if (std::optional<std::vector<char>> bytes = graph::readConstantBytes(constant.getResult())) {
      ++report.constantsConverted;
      int64_t count = type.getNumElements();
      std::vector<char> data(size_t(count) * 2);
      for (int64_t i = 0; i < count; ++i) {
        float x;
        std::memcpy(&x, bytes->data() + 4 * i, 4);
        auto bits = static_cast<uint16_t>(convertElement(x).bitcastToAPInt().getZExtValue());
        std::memcpy(data.data() + 2 * i, &bits, 2);
      }
      std::string name = graph::getResourceName(constant.getResult()).str();
      if (name.empty())
        name = "constant";
      name += reducedType.isF16() ? "_f16" : "_bf16";
      return graph::createConstantFromBytes(builder, loc, newType, data, name);
    }
  }
  // Not a plain array of elements: graph-fold-constants evaluates the cast.
  return createCast(builder, loc, constant.getResult(), reducedType);
}

Value PrecisionRewriter::reduced(Value value) {
  if (Value known = reducedValues.lookup(value))
    return known;
  Value result;
  if (auto constant = value.getDefiningOp<graph::ConstantOp>()) {
    result = convertConstant(constant);
  } else {
    OpBuilder builder(function.getContext());
    builder.setInsertionPointAfterValue(value);
    result = createCast(builder, value.getLoc(), value, reducedType);
  }
  reducedValues[value] = result;
  return result;
}

void PrecisionRewriter::record(Operation *op, llvm::StringRef reason) {
  graph::PrecisionDecision decision;
  decision.node = graph::getNodeName(op->getLoc());
  decision.op = op->getName().getStringRef().str();
  decision.loc = op->getLoc();
  decision.reduced = reason.empty();
  decision.reason = reason.str();
  report.decisions.push_back(std::move(decision));
}

void PrecisionRewriter::keepIntegerFeeds(llvm::DenseMap<Operation *, llvm::StringRef> &reasons) {
  SmallVector<Value> worklist;
  for (auto [op, reason] : reasons)
    if (reason == kToInteger)
      worklist.push_back(cast<graph::CastOp>(op).getInput());
  while (!worklist.empty()) {
    Operation *producer = worklist.pop_back_val().getDefiningOp();
    if (!producer || !reasons.count(producer) || !reasons[producer].empty())
      continue;
    if (!producer->hasTrait<graph::OpTrait::Pointwise>() &&
        !producer->hasTrait<graph::OpTrait::DataMovement>())
      continue;
    reasons[producer] = kFeedsInteger;
    for (Value operand : producer->getOperands())
      if (isF32Tensor(operand.getType()))
        worklist.push_back(operand);
  }
}

void PrecisionRewriter::keepQuantizationFeeds(
    ArrayRef<Operation *> ops, llvm::DenseMap<Operation *, llvm::StringRef> &reasons) {
  // The operand kernel formation fuses `user` with: its first operand computed by an op
  // (formGroups tries them in order). Another one, such as a residual block's
  // downsampled skip connection, is stored by a kernel of its own and stays reduced.
  auto fusedOperand = [](Operation *user) -> Value {
    for (Value operand : user->getOperands())
      if (Operation *definition = operand.getDefiningOp();
          definition && !isa<graph::ConstantOp>(definition))
        return operand;
    return Value();
  };
  // In reverse program order, each op's users are decided before it.
  for (Operation *op : llvm::reverse(ops)) {
    if (!reasons[op].empty() || !op->hasTrait<graph::OpTrait::Pointwise>() ||
        op->getNumResults() != 1 || op->use_empty())
      continue;
    bool onlyQuantized = llvm::all_of(op->getUsers(), [&](Operation *user) {
      auto found = reasons.find(user);
      return isa<graph::QuantizeLinearOp>(user) ||
             (found != reasons.end() && found->second == kFeedsQuantization &&
              fusedOperand(user) == op->getResult(0));
    });
    // Its other operands must be f32 already (a dequantized skip connection): a reduced
    // one (a downsampled skip connection, stored by its own kernel) would be widened in
    // front of it, and the reduced type is then as good a place for the op.
    Value fused = fusedOperand(op);
    bool othersWide = llvm::all_of(op->getOperands(), [&](Value operand) {
      Operation *definition = operand.getDefiningOp();
      if (operand == fused || !definition || isa<graph::ConstantOp>(definition) ||
          !isF32Tensor(operand.getType()))
        return true;
      auto found = reasons.find(definition);
      return found != reasons.end() && !found->second.empty();
    });
    if (onlyQuantized && othersWide)
      reasons[op] = kFeedsQuantization;
  }
}

void PrecisionRewriter::run() {
  Block &body = function.getBody().front();
  MLIRContext *context = function.getContext();
  Type f32 = Float32Type::get(context);

  // With convert-io the f32 inputs take the reduced type; their f32 uses read a cast.
  if (convertIO) {
    OpBuilder builder = OpBuilder::atBlockBegin(&body);
    for (BlockArgument argument : body.getArguments()) {
      if (!isF32Tensor(argument.getType()))
        continue;
      argument.setType(reduce(argument.getType()));
      Value widened = createCast(builder, argument.getLoc(), argument, f32);
      argument.replaceAllUsesExcept(widened, widened.getDefiningOp());
      reducedValues[widened] = argument;
      boundaryCasts.insert(widened.getDefiningOp());
    }
  }

  // Decide, then close over the index arithmetic.
  SmallVector<Operation *> ops;
  llvm::DenseMap<Operation *, llvm::StringRef> reasons;
  for (Operation &op : body.without_terminator()) {
    if (isa<graph::ConstantOp>(op) || !touchesF32(&op) || boundaryCasts.contains(&op))
      continue;
    ops.push_back(&op);
    reasons[&op] = keepReason(&op);
  }
  keepIntegerFeeds(reasons);
  keepQuantizationFeeds(ops, reasons);

  // Reduce: each op becomes a clone on reduced operands with reduced results.
  SmallVector<std::pair<Operation *, Operation *>> replaced;
  for (Operation *op : ops) {
    llvm::StringRef reason = reasons[op];
    if (!reason.empty()) {
      record(op, reason);
      continue;
    }
    OpBuilder builder(op);
    Operation *clone = builder.clone(*op);
    for (OpOperand &operand : clone->getOpOperands())
      if (isF32Tensor(operand.get().getType()) && reducesOperand(op, operand.getOperandNumber()))
        operand.set(reduced(operand.get()));
    for (OpResult result : clone->getResults())
      result.setType(reduce(result.getType()));
    if (auto cast = dyn_cast<graph::CastOp>(clone); cast && cast.getTo().isF32())
      cast.setTo(reducedType);
    LogicalResult verified = failure();
    {
      ScopedDiagnosticHandler quiet(context, [](Diagnostic &) { return success(); });
      verified = verify(clone, /*verifyRecursively=*/false);
      // Results whose type the op fixes otherwise (LayerNormalization's mean and inverse
      // standard deviation are its stash type, f32) take what it infers from the
      // reduced operands.
      if (failed(verified) && inferResultTypes(clone))
        verified = verify(clone, /*verifyRecursively=*/false);
    }
    if (failed(verified)) {
      clone->erase();
      record(op, kDoesNotVerify);
      continue;
    }
    record(op, "");
    for (auto [original, result] : llvm::zip(op->getResults(), clone->getResults()))
      if (original.getType() != result.getType())
        reducedValues[original] = result;
    replaced.emplace_back(op, clone);
  }

  // The originals go; what still reads their f32 results (kept ops, the outputs, nested
  // regions) reads the reduced result widened back. Later ops first: their uses of
  // earlier results go with them.
  for (auto [op, clone] : llvm::reverse(replaced)) {
    OpBuilder builder(context);
    builder.setInsertionPointAfter(clone);
    for (auto [original, result] : llvm::zip(op->getResults(), clone->getResults())) {
      if (original.use_empty())
        continue;
      if (original.getType() == result.getType()) {
        original.replaceAllUsesWith(result);
        continue;
      }
      Value widened = createCast(builder, op->getLoc(), result, f32);
      reducedValues[widened] = result;
      original.replaceAllUsesWith(widened);
    }
    op->erase();
  }

  // With convert-io the f32 outputs leave in the reduced type.
  if (convertIO) {
    Operation *terminator = body.getTerminator();
    for (OpOperand &operand : terminator->getOpOperands())
      if (isF32Tensor(operand.get().getType()))
        operand.set(reduced(operand.get()));
    function.setFunctionType(
        FunctionType::get(context, body.getArgumentTypes(), terminator->getOperandTypes()));
  }

  // Casts and constants nothing reads any more.
  SmallVector<Operation *> unused;
  for (Operation &op : llvm::reverse(body.without_terminator()))
    if (isa<graph::CastOp, graph::ConstantOp>(op))
      unused.push_back(&op);
  for (Operation *op : unused)
    if (op->use_empty())
      op->erase();
}

struct GraphReducePrecision : kiln::impl::GraphReducePrecisionBase<GraphReducePrecision> {
  using Base::Base;
  GraphReducePrecision(const kiln::GraphReducePrecisionOptions &options,
                       std::function<void(const graph::PrecisionReport &)> report)
      : Base(options), report(std::move(report)) {}

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    MLIRContext *context = function.getContext();
    FloatType reducedType;
    if (type == "f16")
      reducedType = Float16Type::get(context);
    else if (type == "bf16")
      reducedType = BFloat16Type::get(context);
    else {
      function.emitError("graph-reduce-precision: type must be f16 or bf16, not '") << type << "'";
      return signalPassFailure();
    }
    graph::PrecisionReport result = graph::reducePrecision(function, {reducedType, convertIo});
    if (report)
      report(result);
    if (!emitRemarks)
      return;
    for (const graph::PrecisionDecision &decision : result.decisions)
      if (!decision.reduced)
        emitRemark(decision.loc) << "kept in f32: " << decision.reason;
    emitRemark(function.getLoc()) << result.reducedCount() << " ops in " << result.reducedType
                                  << ", " << result.keptCount() << " kept in f32, "
                                  << result.constantsConverted << " constants converted, "
                                  << result.elementsSaturated << " elements saturated";
  }

  std::function<void(const graph::PrecisionReport &)> report;
};

} // namespace

int64_t graph::PrecisionReport::reducedCount() const {
  return llvm::count_if(decisions, [](const PrecisionDecision &d) { return d.reduced; });
}

int64_t graph::PrecisionReport::keptCount() const {
  return int64_t(decisions.size()) - reducedCount();
}

void graph::PrecisionReport::print(llvm::raw_ostream &os, bool perLayer) const {
  os << llvm::formatv("precision: {0} ops in {1}, {2} kept in f32; {3} constants converted "
                      "({4} elements saturated)\n",
                      reducedCount(), reducedType, keptCount(), constantsConverted,
                      elementsSaturated);
  if (!perLayer)
    return;
  for (const PrecisionDecision &decision : decisions) {
    os << "  " << (decision.node.empty() ? std::string("(no node)") : decision.node) << " ("
       << decision.op << "): ";
    if (decision.reduced)
      os << reducedType << "\n";
    else
      os << "f32, " << decision.reason << "\n";
  }
}

graph::PrecisionReport graph::reducePrecision(func::FuncOp function,
                                              const ReducePrecisionOptions &options) {
  PrecisionReport report;
  report.reducedType = options.reducedType.isF16() ? "f16" : "bf16";
  if (function.isExternal())
    return report;
  PrecisionRewriter(function, options, report).run();
  return report;
}

std::unique_ptr<Pass>
graph::createReducePrecisionPass(StringRef type, bool convertIo,
                                 std::function<void(const PrecisionReport &)> report) {
  kiln::GraphReducePrecisionOptions options;
  options.type = type.str();
  options.convertIo = convertIo;
  return std::make_unique<GraphReducePrecision>(options, std::move(report));
}
