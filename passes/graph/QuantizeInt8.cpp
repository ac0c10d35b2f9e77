//===- QuantizeInt8.cpp - Post-training INT8 quantization -----------------===//
//
// graph-quantize-int8 (`kiln compile --int8 --calib DIR`): an fp32 model becomes what a
// quantization-aware export carries, QuantizeLinear/DequantizeLinear pairs around the
// inputs of its convolutions and matrix products, so that post-training quantization and
// QAT models take one path from here on (folding the pairs into integer kernels).
//
//  - Activations: symmetric per-tensor int8, the scale threshold / 127 from calibration
//    (lib/quantization: minmax, entropy or percentile); zero point 0.
//  - Weights: symmetric per output channel, the scale max|w| / 127 of each channel, so a
//    channel of small weights keeps its resolution; quantized at compile time into an
//    int8 constant read through a DequantizeLinear.
//  - Biases stay f32 (the folding makes them int32 at scale_x * scale_w).
// An activation already produced by a DequantizeLinear, or a weight that is one, means the
// model is quantized there already: left alone.
//  - Residual adds: where an activation quantized for a convolution also feeds an add or
//    a subtraction (a skip connection), that use reads the same DequantizeLinear. The
//    activation then lives in int8 only: the convolution that produces it stores just its
//    int8 form, and the add dequantizes it in the epilogue of the convolution it joins,
//    instead of a float copy written and read besides (TensorRT places Q/DQ on residual
//    inputs for the same reason). Matrix products keep float residual streams: their
//    producers are normalisations, whose outliers a per-tensor scale would crush.
//  - Shortcut convolutions: where an add or a subtraction joins the outputs of two
//    quantized convolutions read by nothing else (a block's last convolution and its
//    projection shortcut, the downsample of a ResNet), the shortcut's output is
//    quantized too (calibrated as "<add node>:<operand>"): the shortcut convolution then
//    stores int8, and the add dequantizes it in the epilogue of the other convolution,
//    which it joins. The shortcut is the operand whose convolution reads the earlier
//    activation (the block's input).
//
//===----------------------------------------------------------------------===//

#include "passes/graph/QuantizeInt8.h"

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/ConstantBytes.h"
#include "passes/graph/Passes.h"
#include "passes/quantization/Calibration.h"
#include "passes/quantization/CalibrationCache.h"

#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <cstring>

namespace kiln {
#define GEN_PASS_DEF_GRAPHQUANTIZEINT8
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// The quantized range: symmetric, so that -x quantizes to -q.
constexpr double kInt8Max = 127.0;

bool isF32(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getElementType().isF32();
}

bool hasStaticShape(Value value) { return cast<ShapedType>(value.getType()).hasStaticShape(); }

/// The weight operand of a quantizable op and the axis of its output channels (-1: one
/// scale for the whole tensor), or {-1, -1} when the op is not quantizable.
std::pair<int, int64_t> weightOf(Operation *op) {
  if (isa<graph::ConvOp>(op))
    return {1, 0};
  if (isa<graph::MatMulOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
    return {1, type && type.getRank() == 2 ? 1 : -1};
  }
  if (auto gemm = dyn_cast<graph::GemmOp>(op))
    return {1, gemm.getTransB() ? 0 : 1};
  return {-1, -1};
}

/// Whether `op` is a conv, matmul or gemm with a constant f32 weight and an f32
/// activation that is not quantized already, whatever the shapes.
bool hasQuantizableOperands(Operation *op) {
  auto [weight, axis] = weightOf(op);
  if (weight < 0)
    return false;
  Value activation = op->getOperand(0);
  Value weightValue = op->getOperand(weight);
  return isF32(activation) && isF32(weightValue) &&
         weightValue.getDefiningOp<graph::ConstantOp>() &&
         !activation.getDefiningOp<graph::DequantizeLinearOp>() &&
         !activation.getDefiningOp<graph::ConstantOp>();
}

/// Whether the int8 tensor-core templates read and write `op`'s rows (16 bytes and more):
/// output channels (N) a multiple of 8, not depthwise, and, for a matrix product, K a
/// multiple of 16. With `tensor-core-rows`, a product they cannot take stays in floats,
/// where graph-pad-products aligns it (a squeeze-excite convolution of 20 channels),
/// rather than going to the generic lowering in int8.
bool fitsInt8Templates(Operation *op, int weight, int64_t axis) {
  auto type = cast<RankedTensorType>(op->getOperand(weight).getType());
  if (axis < 0 || type.getDimSize(axis) % 8)
    return false;
  // Any input channels (an explicit im2col serves unaligned ones), but one a group: a
  // depthwise convolution's template reads 16-bit floats.
  if (auto conv = dyn_cast<graph::ConvOp>(op))
    return conv.getGroup() == 1 || type.getDimSize(1) > 1;
  return type.getRank() == 2 && type.getDimSize(1 - axis) % 16 == 0;
}

/// What graph-quantize-int8 quantizes: such an op of static shapes (calibration and the
/// int8 kernels need them).
bool isQuantizable(Operation *op) {
  auto [weight, axis] = weightOf(op);
  return hasQuantizableOperands(op) && hasStaticShape(op->getOperand(0)) &&
         hasStaticShape(op->getOperand(weight));
}

Value scalarConstant(OpBuilder &b, Location loc, RankedTensorType type, ArrayRef<char> bytes) {
  return graph::ConstantOp::create(
      b, loc, cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(type, bytes)));
}

/// `activation` through QuantizeLinear and DequantizeLinear at `scale`.
Value fakeQuantize(OpBuilder &b, Location loc, Value activation, float scale) {
  auto f32 = RankedTensorType::get({}, b.getF32Type());
  auto i8 = RankedTensorType::get({}, b.getI8Type());
  char zero = 0;
  Value scaleValue = scalarConstant(b, loc, f32, ArrayRef(reinterpret_cast<char *>(&scale), 4));
  Value zeroPoint = scalarConstant(b, loc, i8, ArrayRef(&zero, 1));
  Value quantized = graph::QuantizeLinearOp::create(b, loc, activation, scaleValue, zeroPoint,
                                                    /*axis=*/1, /*saturate=*/true,
                                                    /*block_size=*/0);
  return graph::DequantizeLinearOp::create(b, loc, quantized, scaleValue, zeroPoint,
                                           /*axis=*/1, /*block_size=*/0);
}

/// The int8 constant and per-channel (or per-tensor) scales of weight `value`, read
/// through a DequantizeLinear; null when its elements cannot be read.
Value quantizeWeight(OpBuilder &b, Location loc, Value value, int64_t axis) {
  std::optional<std::vector<char>> bytes = graph::readConstantBytes(value);
  if (!bytes)
    return {};
  auto type = cast<RankedTensorType>(value.getType());
  int64_t count = type.getNumElements();
  std::vector<float> weights(count);
  std::memcpy(weights.data(), bytes->data(), bytes->size());

  // Element i belongs to channel (i / inner) % channels.
  int64_t channels = axis < 0 ? 1 : type.getDimSize(axis);
  int64_t inner = 1;
  for (int64_t d = axis < 0 ? 0 : axis + 1; axis >= 0 && d < type.getRank(); ++d)
    inner *= type.getDimSize(d);
  if (axis < 0)
    inner = count;
  auto channelOf = [&](int64_t i) { return (i / inner) % channels; };

  std::vector<float> scales(channels, 0.0f);
  for (int64_t i = 0; i < count; ++i)
    scales[channelOf(i)] = std::max(scales[channelOf(i)], std::fabs(weights[i]));
  for (float &scale : scales)
    scale = scale > 0 ? float(scale / kInt8Max) : 1.0f;
  std::vector<char> quantized(count);
  for (int64_t i = 0; i < count; ++i) {
    double q = std::nearbyint(weights[i] / scales[channelOf(i)]);
    quantized[i] = static_cast<char>(std::clamp(q, -kInt8Max, kInt8Max));
  }

  std::string name = graph::getResourceName(value).str();
  Value data = graph::createConstantFromBytes(b, loc, type.clone(b.getI8Type()), quantized,
                                              (name.empty() ? "weight" : name) + "_int8");
  SmallVector<int64_t> scaleShape;
  if (axis >= 0)
    scaleShape.push_back(channels);
  auto scaleType = RankedTensorType::get(scaleShape, b.getF32Type());
  auto zeroType = RankedTensorType::get(scaleShape, b.getI8Type());
  std::vector<char> zeros(channels, 0);
  ArrayRef<char> scaleBytes(reinterpret_cast<const char *>(scales.data()), 4 * channels);
  Value scale = graph::createConstantFromBytes(b, loc, scaleType, scaleBytes,
                                               (name.empty() ? "weight" : name) + "_scale");
  Value zeroPoint = graph::createConstantFromBytes(b, loc, zeroType, zeros,
                                                   (name.empty() ? "weight" : name) + "_zero");
  return graph::DequantizeLinearOp::create(b, loc, data, scale, zeroPoint,
                                           uint64_t(std::max<int64_t>(axis, 0)),
                                           /*block_size=*/0);
}

struct GraphQuantizeInt8 : kiln::impl::GraphQuantizeInt8Base<GraphQuantizeInt8> {
  using Base::Base;
  GraphQuantizeInt8(std::shared_ptr<const llvm::StringMap<double>> thresholds,
                    std::function<void(const graph::Int8Report &)> report, bool rows)
      : thresholds(std::move(thresholds)), report(std::move(report)) {
    tensorCoreRows = rows;
  }

  LogicalResult initialize(MLIRContext *) override {
    if (thresholds)
      return success();
    // The thresholds of the calibration cache, read once for every function.
    llvm::Expected<kiln::quant::CalibrationCache> cache =
        kiln::quant::CalibrationCache::read(calibrationCache);
    if (!cache) {
      cacheError = llvm::toString(cache.takeError());
      return success();
    }
    auto read = std::make_shared<llvm::StringMap<double>>();
    for (const auto &[key, tensor] : cache->tensors)
      (*read)[key] = tensor.threshold;
    thresholds = std::move(read);
    return success();
  }

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (!thresholds) {
      function.emitError("graph-quantize-int8: ") << cacheError;
      return signalPassFailure();
    }
    graph::Int8Report result = graph::quantizeInt8(function, *thresholds, tensorCoreRows);
    if (report)
      report(result);
    if (!emitRemarks)
      return;
    for (const std::string &key : result.uncalibrated)
      function.emitRemark("graph-quantize-int8: no calibration for '") << key << "'; left in f32";
    for (const std::string &key : result.keptForTemplates)
      function.emitRemark("graph-quantize-int8: '")
          << key << "' left in floats: the int8 templates do not take its rows";
    function.emitRemark("graph-quantize-int8: ")
        << result.quantized + result.shortcuts << " activations quantized";
  }

  std::shared_ptr<const llvm::StringMap<double>> thresholds;
  std::function<void(const graph::Int8Report &)> report;
  std::string cacheError;
};

} // namespace

Operation *graph::findDynamicInt8Candidate(func::FuncOp function) {
  Operation *found = nullptr;
  function.walk([&](Operation *op) {
    if (!found && hasQuantizableOperands(op) && !isQuantizable(op))
      found = op;
  });
  return found;
}

namespace {
/// The producer of `value` when it is a quantizable convolution that only `user` reads.
graph::ConvOp soleQuantizableConv(Value value, Operation *user) {
  auto conv = value.getDefiningOp<graph::ConvOp>();
  if (!conv || !isQuantizable(conv) || !value.hasOneUse() || *value.getUsers().begin() != user)
    return nullptr;
  return conv;
}

/// Whether `first` is defined before `second` (block arguments first), both in `block`.
bool definedBefore(Value first, Value second) {
  Operation *a = first.getDefiningOp(), *b = second.getDefiningOp();
  if (!a || !b)
    return !a && b;
  return a->getBlock() == b->getBlock() && a->isBeforeInBlock(b);
}

/// The operand of `op` that is a shortcut convolution's output (see the header comment),
/// or none.
std::optional<unsigned> shortcutOperand(Operation *op) {
  if (!isa<graph::AddOp, graph::SubOp>(op) || op->getNumOperands() != 2)
    return std::nullopt;
  graph::ConvOp lhs = soleQuantizableConv(op->getOperand(0), op);
  graph::ConvOp rhs = soleQuantizableConv(op->getOperand(1), op);
  if (!lhs || !rhs || op->getOperand(0).getType() != op->getResult(0).getType() ||
      op->getOperand(1).getType() != op->getResult(0).getType())
    return std::nullopt;
  return definedBefore(lhs.getInput(), rhs.getInput()) ? 0u : 1u;
}
} // namespace

std::vector<graph::Int8Activation> graph::findInt8Activations(func::FuncOp function) {
  std::vector<Int8Activation> activations;
  llvm::StringMap<int> seen;
  auto keyOf = [&](Operation *op, unsigned operand) {
    std::string key = getNodeName(op->getLoc());
    int repeat = seen[key]++;
    if (key.empty() || repeat > 0)
      key += "#" + std::to_string(repeat);
    return key + ":" + std::to_string(operand);
  };
  function.walk([&](Operation *op) {
    if (isQuantizable(op))
      activations.push_back({op, 0, keyOf(op, 0)});
    else if (std::optional<unsigned> operand = shortcutOperand(op))
      activations.push_back({op, *operand, keyOf(op, *operand), /*shortcut=*/true});
  });
  return activations;
}

namespace {
/// The skip-connection uses of convolution inputs read their DequantizeLinear (see the
/// header comment): each add or sub after it in the block that reads the activation.
void quantizeResidualInputs(ArrayRef<std::pair<Value, graph::DequantizeLinearOp>> quantized) {
  for (auto [activation, dequantized] : quantized) {
    for (OpOperand &use : llvm::make_early_inc_range(activation.getUses())) {
      Operation *user = use.getOwner();
      if (isa<graph::AddOp, graph::SubOp>(user) && user->getBlock() == dequantized->getBlock() &&
          dequantized->isBeforeInBlock(user))
        use.set(dequantized);
    }
  }
}
} // namespace

graph::Int8Report graph::quantizeInt8(func::FuncOp function,
                                      const llvm::StringMap<double> &thresholds,
                                      bool tensorCoreRows) {
  Int8Report report;
  // Convolution inputs and their DequantizeLinear, for quantizeResidualInputs.
  SmallVector<std::pair<Value, graph::DequantizeLinearOp>> convInputs;
  for (const Int8Activation &activation : findInt8Activations(function)) {
    auto found = thresholds.find(activation.key);
    if (found == thresholds.end()) {
      report.uncalibrated.push_back(activation.key);
      continue;
    }
    Operation *op = activation.op;
    if (tensorCoreRows && !activation.shortcut) {
      auto [weight, axis] = weightOf(op);
      if (!fitsInt8Templates(op, weight, axis)) {
        report.keptForTemplates.push_back(activation.key);
        continue;
      }
    }
    OpBuilder b(op);
    Location loc = op->getLoc();
    float scale = kiln::quant::int8Scale(found->second);
    if (activation.shortcut) {
      // The activation alone, no weight.
      op->setOperand(activation.operand,
                     fakeQuantize(b, loc, op->getOperand(activation.operand), scale));
      ++report.shortcuts;
      continue;
    }
    auto [weightIndex, axis] = weightOf(op);
    Value weight = quantizeWeight(b, loc, op->getOperand(weightIndex), axis);
    if (!weight) {
      report.uncalibrated.push_back(activation.key);
      continue;
    }
    Value input = op->getOperand(activation.operand);
    Value dequantized = fakeQuantize(b, loc, input, scale);
    op->setOperand(activation.operand, dequantized);
    if (isa<graph::ConvOp>(op))
      convInputs.push_back({input, dequantized.getDefiningOp<graph::DequantizeLinearOp>()});
    Value original = op->getOperand(weightIndex);
    op->setOperand(weightIndex, weight);
    if (original.use_empty())
      original.getDefiningOp()->erase();
    ++report.quantized;
  }
  quantizeResidualInputs(convInputs);
  return report;
}

std::unique_ptr<Pass>
graph::createQuantizeInt8Pass(std::shared_ptr<const llvm::StringMap<double>> thresholds,
                              std::function<void(const Int8Report &)> report, bool tensorCoreRows) {
  return std::make_unique<GraphQuantizeInt8>(std::move(thresholds), std::move(report),
                                             tensorCoreRows);
}
