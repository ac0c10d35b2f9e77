//===- ReductionRows.cpp - Row kernels for reductions and normalisations --===//
//
// The rows family (#kernel.rows): a `kernel.reduction` whose anchor reduces the innermost axes of
// a contiguous row-major buffer (softmax and log-softmax over the last axis, LayerNorm
// and RMSNorm over trailing axes, ReduceSum/Mean/Max/Min/Prod/SumSquare/L1/L2/LogSum/
// LogSumExp over trailing axes) gets a row kernel instead of the generic lowering's one
// thread per output element: a group of threads per row (part of a warp, a warp, or a
// whole CTA), 16-byte vector accesses where the row length allows, warp shuffles and a
// shared-memory combine of the warps' partials, f32 arithmetic, and the row kept in
// registers (or, for long rows, shared memory) between the passes over it, so that a
// softmax or LayerNorm reads its input from device memory once. The pointwise ops before
// the anchor (scale, mask, residual add, casts) run on each element as it is loaded; the
// ones after it on each result before the store, with the scalar arithmetic of the
// generic lowering (emitElementwiseInF32, shared with the sm_90a epilogues).
//
// The kernel is built with builders rather than from a text template: its passes, the
// per-element chains and the inputs they read depend on the matched body.
// CUDA-core code only, so the family serves every GPU target (docs/codegen-rows.md).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/KernelTemplate.h"
#include "passes/kernel/RowsConfig.h"
#include "passes/kernel/Sm90Epilogue.h"
#include "passes/kernel/Sm90Template.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <tuple>

using namespace mlir;
namespace graph = kiln::graph;
namespace kernel = kiln::kernel;
using kiln::RowsAnchor;
using kiln::RowsConfig;
using kiln::RowsGather;
using kiln::RowsOperand;
using kiln::RowsOutput;
using kiln::RowsProblem;
using kiln::RowsStorage;

namespace {

/// Elements a thread keeps in registers at most (f32 values, after the prologue).
constexpr int64_t kMaxRegisterElements = 32;
/// Dynamic shared memory a CTA may use for its row: sm_90's 227 KB less the combine
/// scratch, sm_80's 163 KB.
constexpr int64_t kMaxSharedBytesSm90 = 220 * 1024;
constexpr int64_t kMaxSharedBytesSm80 = 160 * 1024;
/// Combine slots (one per reduction of a row) of 32 f32 partials each.
constexpr int64_t kCombineSlots = 4;

bool isRowsFloat(Type type) { return type.isF16() || type.isBF16() || type.isF32(); }

/// The element types of a gather's indices.
bool isGatherIndex(Type type) { return type.isInteger(32) || type.isInteger(64); }

int64_t elementBytes(Type type) { return type.getIntOrFloatBitWidth() / 8; }

int64_t product(ArrayRef<int64_t> extents) {
  int64_t result = 1;
  for (int64_t extent : extents)
    result *= extent;
  return result;
}

StringRef anchorName(RowsAnchor anchor) {
  switch (anchor) {
  case RowsAnchor::Softmax:
    return "softmax";
  case RowsAnchor::LogSoftmax:
    return "log_softmax";
  case RowsAnchor::LayerNorm:
    return "layer_norm";
  case RowsAnchor::LayerNormInvStdDev:
    return "layer_norm_inv_std_dev";
  case RowsAnchor::RMSNorm:
    return "rms_norm";
  case RowsAnchor::RMSNormInvRms:
    return "rms_norm_inv_rms";
  case RowsAnchor::ReduceSum:
    return "reduce_sum";
  case RowsAnchor::ReduceMean:
    return "reduce_mean";
  case RowsAnchor::ReduceMax:
    return "reduce_max";
  case RowsAnchor::ReduceMin:
    return "reduce_min";
  case RowsAnchor::ReduceProd:
    return "reduce_prod";
  case RowsAnchor::ReduceSumSquare:
    return "reduce_sum_square";
  case RowsAnchor::ReduceL1:
    return "reduce_l1";
  case RowsAnchor::ReduceL2:
    return "reduce_l2";
  case RowsAnchor::ReduceLogSum:
    return "reduce_log_sum";
  case RowsAnchor::ReduceLogSumExp:
    return "reduce_log_sum_exp";
  }
  llvm_unreachable("unknown row anchor");
}

/// How a body value of static shape `shape` is read at the elements of a space of shape
/// `space` whose last `trailing` dimensions are the row (right-aligned broadcasting).
std::optional<RowsOperand> classifyOperand(ArrayRef<int64_t> shape, ArrayRef<int64_t> space,
                                           int64_t trailing) {
  int64_t rank = space.size();
  if (int64_t(shape.size()) > rank)
    return std::nullopt;
  SmallVector<int64_t> padded(rank - shape.size(), 1);
  padded.append(shape.begin(), shape.end());
  for (int64_t d = 0; d < rank; ++d)
    if (padded[d] != 1 && padded[d] != space[d])
      return std::nullopt;
  RowsOperand operand;
  ArrayRef<int64_t> rowDims = ArrayRef<int64_t>(padded).take_back(trailing);
  bool full = rowDims == space.take_back(trailing);
  bool ones = llvm::all_of(rowDims, [](int64_t extent) { return extent == 1; });
  if (!full && !ones)
    return std::nullopt;
  operand.perRow = ones;
  // Row-major strides of the (padded) buffer; broadcast dimensions contribute nothing.
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * padded[d + 1];
  int64_t leading = rank - trailing;
  for (int64_t d = leading - 1; d >= 0; --d) {
    if (padded[d] == 1 || space[d] == 1)
      continue;
    int64_t divisor = product(space.slice(d + 1, leading - d - 1));
    // Merge with the term of the next inner dimension when the two are contiguous.
    if (!operand.rowTerms.empty()) {
      RowsOperand::Term &inner = operand.rowTerms.back();
      if (inner.extent * inner.divisor == divisor && inner.stride * inner.extent == strides[d]) {
        inner.extent *= space[d];
        continue;
      }
    }
    operand.rowTerms.push_back({divisor, space[d], strides[d]});
  }
  // The outermost term needs no modulo: row / divisor < extent always.
  for (RowsOperand::Term &term : operand.rowTerms)
    if (term.divisor * term.extent >= product(space.take_front(leading)))
      term.extent = 0;
  return operand;
}

/// Whether every op of `ops` has a scalar emission (tried on stand-in values).
bool chainEmits(ArrayRef<Operation *> ops, Location loc) {
  if (ops.empty())
    return true;
  MLIRContext *context = loc.getContext();
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
  OpBuilder b(context);
  b.setInsertionPointToEnd(scratch->getBody());
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.5));
  for (Operation *op : ops) {
    SmallVector<Value> args(op->getNumOperands(), zero);
    if (!kiln::emitElementwiseInF32(b, loc, op, args))
      return false;
  }
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Configurations (passes/kernel/RowsConfig.h)
//===----------------------------------------------------------------------===//

std::string kiln::RowsConfig::describe() const {
  return llvm::formatv("rows {0} threads/row, {1} rows/CTA, vector {2}", threadsPerRow, rowsPerCta,
                       vector)
      .str();
}

namespace {
/// Elements (f32 values) a thread holds of a row under `config`.
int64_t elementsPerThread(const RowsProblem &problem, const RowsConfig &config) {
  int64_t span = config.threadsPerRow * config.vector;
  return (problem.rowLength + span - 1) / span * config.vector;
}

/// Bytes of a row kept in shared memory.
int64_t sharedRowBytes(const RowsProblem &problem) {
  return problem.rowLength * elementBytes(problem.rowType);
}

int64_t maxSharedBytes(StringRef target) {
  return target.starts_with("sm_9") ? kMaxSharedBytesSm90 : kMaxSharedBytesSm80;
}

/// Whether the anchor passes over the row more than once (and so keeps it).
bool keepsRow(RowsAnchor anchor) {
  switch (anchor) {
  case RowsAnchor::Softmax:
  case RowsAnchor::LogSoftmax:
  case RowsAnchor::LayerNorm:
  case RowsAnchor::LayerNormInvStdDev:
  case RowsAnchor::RMSNorm:
  case RowsAnchor::ReduceLogSumExp:
    return true;
  default:
    return false;
  }
}
} // namespace

RowsStorage kiln::rowsStorage(const RowsProblem &problem, const RowsConfig &config,
                              StringRef target) {
  int64_t perThread = elementsPerThread(problem, config);
  int64_t limit = config.threads() >= 1024 ? 24 : kMaxRegisterElements;
  if (perThread <= limit)
    return RowsStorage::Registers;
  if (keepsRow(problem.anchor) && config.rowsPerCta == 1 &&
      sharedRowBytes(problem) <= maxSharedBytes(target))
    return RowsStorage::Shared;
  return RowsStorage::Reload;
}

SmallVector<kiln::RowsConfig> kiln::rowsConfigs(const RowsProblem &problem, StringRef target) {
  int64_t vector = problem.maxVector;
  auto make = [&](int64_t threadsPerRow, int64_t rowsPerCta) {
    return RowsConfig{threadsPerRow, rowsPerCta, vector};
  };
  auto perThread = [&](int64_t threadsPerRow) {
    return elementsPerThread(problem, make(threadsPerRow, 1));
  };
  // A row group no wider than twice the row's vectors: at least half its threads work.
  auto useful = [&](int64_t threadsPerRow) {
    return threadsPerRow * vector <= 2 * std::max<int64_t>(problem.rowLength, 4 * vector);
  };
  // The default: the narrowest part of a warp that holds 16 elements a thread or fewer;
  // else a warp when it holds 32 or fewer (rows up to 1024 f32 or f16 elements); else the
  // narrowest CTA (64..1024 threads) with 16 or fewer, else 1024 threads.
  int64_t chosen = 0;
  for (int64_t t = 4; t <= 32 && !chosen; t *= 2)
    if (perThread(t) <= 16)
      chosen = t;
  if (!chosen && perThread(32) <= kMaxRegisterElements)
    chosen = 32;
  for (int64_t t = 64; t <= 1024 && !chosen; t *= 2)
    if (perThread(t) <= 16)
      chosen = t;
  if (!chosen)
    chosen = 1024;
  auto rowsFor = [](int64_t threadsPerRow, int64_t warps) {
    // A row of more than a warp has its CTA to itself.
    return threadsPerRow > 32 ? 1 : std::max<int64_t>(1, 32 * warps / threadsPerRow);
  };
  SmallVector<RowsConfig> configs;
  auto add = [&](RowsConfig config) {
    if (config.threadsPerRow < 4 || config.threadsPerRow > 1024 ||
        (config.threadsPerRow > 32 && config.rowsPerCta != 1) || config.threads() > 1024 ||
        !useful(config.threadsPerRow) || llvm::is_contained(configs, config))
      return;
    // Rereading a row the anchor passes over several times is only the last resort (the
    // default, when neither registers nor shared memory hold it).
    if (!configs.empty() && keepsRow(problem.anchor) &&
        rowsStorage(problem, config, target) == RowsStorage::Reload)
      return;
    configs.push_back(config);
  };
  // The default (4-warp CTAs of sub-warp or warp rows), then its neighbours: half and
  // twice the threads a row, and 8-warp CTAs.
  add(make(chosen, rowsFor(chosen, 4)));
  add(make(chosen / 2, rowsFor(chosen / 2, 4)));
  add(make(chosen * 2, rowsFor(chosen * 2, 4)));
  if (chosen <= 32)
    add(make(chosen, rowsFor(chosen, 8)));
  if (chosen >= 256)
    add(make(chosen / 4, 1));
  return configs;
}

double kiln::estimateRowsMicros(const RowsProblem &problem, const RowsConfig &config,
                                StringRef target, int64_t multiprocessors, double bytesPerSecond,
                                double launchMicros) {
  double bytes = problem.bytes;
  RowsStorage storage = rowsStorage(problem, config, target);
  // A reload reads the row buffers once more per extra pass (two for softmax).
  if (storage == RowsStorage::Reload && keepsRow(problem.anchor))
    bytes += 2.0 * problem.rows * problem.rowLength * 4;
  // Threads with no element of the row idle; fewer CTAs than SMs leave SMs idle.
  double busy =
      double(problem.rowLength) / double(elementsPerThread(problem, config) * config.threadsPerRow);
  double ctas = double((problem.rows + config.rowsPerCta - 1) / config.rowsPerCta);
  double spread = std::min(1.0, ctas / multiprocessors);
  // Narrow vectors issue more loads for the same bytes.
  double width = std::min(1.0, 0.6 + 0.1 * double(config.vector));
  // Loads in flight need threads: a row in shared memory limits the CTAs an SM holds
  // (one of 201 KB for GPT-2's vocabulary), and fewer than 1024 resident threads an SM
  // leave the bandwidth latency-bound.
  int64_t resident = std::max<int64_t>(1, std::min<int64_t>(32, 2048 / config.threads()));
  if (storage == RowsStorage::Shared)
    resident = std::max<int64_t>(
        1, std::min(resident, (maxSharedBytes(target) + 8 * 1024) / sharedRowBytes(problem)));
  double occupancy = std::min(1.0, double(resident * config.threads()) / 1024.0);
  double efficiency = std::max(0.05, 0.85 * busy * spread * width * occupancy);
  return launchMicros + 1e6 * bytes / (bytesPerSecond * efficiency);
}

double kiln::estimateRowsGenericMicros(const RowsProblem &problem, double bytesPerSecond,
                                       double launchMicros) {
  double bytes = problem.bytes;
  // (An RMSNorm's inverse alone is a sum of squares and a kernel finishing it: 2.)
  double passes = problem.anchor == RowsAnchor::Softmax ||
                          problem.anchor == RowsAnchor::LogSoftmax ||
                          problem.anchor == RowsAnchor::LayerNorm
                      ? 3
                  : keepsRow(problem.anchor) || problem.anchor == RowsAnchor::RMSNormInvRms ? 2
                                                                                            : 1;
  return passes * launchMicros + 1e6 * passes * bytes / (bytesPerSecond * 0.25);
}

std::string kiln::describeRows(const RowsProblem &problem) {
  std::string type;
  llvm::raw_string_ostream os(type);
  os << problem.outputs.front().elementType;
  return llvm::formatv("{0} {1}x{2} {3}", anchorName(problem.anchor), problem.rows,
                       problem.rowLength, type)
      .str();
}

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

namespace {
/// A dynamic engine's row kernel matches with every dynamic extent read as this one
/// value (extents kernel formation proved equal are the same symbol): the rows are then
/// a run-time count, and an operand may be indexed only in ways that do not depend on it
/// (its rows those of the row space, or one row for all). A prime no model's static
/// extent is (a buffer with one is not matched).
constexpr int64_t kDynamicExtent = 65521;

SmallVector<int64_t> matchedShape(ShapedType type) {
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t &extent : shape)
    if (ShapedType::isDynamic(extent))
      extent = kDynamicExtent;
  return shape;
}
} // namespace

std::optional<kiln::RowsProblem> kiln::matchReductionRows(kernel::FuncOp function) {
  Block &entry = function.getBody().front();
  if (!llvm::hasSingleElement(entry.without_terminator()))
    return std::nullopt;
  auto reduction = dyn_cast<kernel::ReductionOp>(&entry.front());
  if (!reduction || reduction.getOutputs().empty())
    return std::nullopt;
  RowsProblem problem;
  for (BlockArgument argument : entry.getArguments()) {
    auto type = dyn_cast<MemRefType>(argument.getType());
    if (!type || !type.getLayout().isIdentity() ||
        !(isRowsFloat(type.getElementType()) || isGatherIndex(type.getElementType())) ||
        (type.hasStaticShape() && type.getNumElements() == 0) ||
        llvm::is_contained(type.getShape(), kDynamicExtent) || type.getNumDynamicDims() > 3)
      return std::nullopt;
    problem.dynamicRows |= !type.hasStaticShape();
    problem.buffers.push_back(type);
  }
  auto argumentOf = [&](Value value) -> int {
    auto argument = dyn_cast<BlockArgument>(value);
    return argument && argument.getOwner() == &entry ? int(argument.getArgNumber()) : -1;
  };
  for (Value output : reduction.getOutputs()) {
    int argument = argumentOf(output);
    if (argument < 0)
      return std::nullopt;
    problem.outputs.push_back({unsigned(argument), problem.buffers[argument].getElementType(), {}});
  }
  SmallVector<int> inputArguments;
  for (Value input : reduction.getInputs()) {
    inputArguments.push_back(argumentOf(input));
    if (inputArguments.back() < 0)
      return std::nullopt;
  }

  Block &body = reduction.getBody().front();
  Operation *anchor = reduction.getAnchor();
  Operation *yield = body.getTerminator();
  if (!anchor || yield->getNumOperands() != problem.outputs.size())
    return std::nullopt;
  problem.anchorOp = anchor;

  // The anchor: its data input, the axes it reduces (trailing ones), its extra operands.
  auto staticTensor = [&](Value value) -> RankedTensorType {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return type && (type.hasStaticShape() || problem.dynamicRows) &&
                   type.getNumDynamicDims() <= 3 && isRowsFloat(type.getElementType())
               ? type
               : RankedTensorType();
  };
  int64_t trailing = 0;
  auto normaliseAxis = [](int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; };
  Value data;
  // The anchor result the kernel stores (after its epilogue): its first but for a
  // LayerNorm's statistic.
  Value anchorResult = anchor->getResult(0);
  if (auto softmax = dyn_cast<graph::SoftmaxOp>(anchor)) {
    problem.anchor = RowsAnchor::Softmax;
    data = softmax.getInput();
    auto type = staticTensor(data);
    if (!type || normaliseAxis(int64_t(softmax.getAxis()), type.getRank()) != type.getRank() - 1)
      return std::nullopt;
    trailing = 1;
  } else if (auto logSoftmax = dyn_cast<graph::LogSoftmaxOp>(anchor)) {
    problem.anchor = RowsAnchor::LogSoftmax;
    data = logSoftmax.getInput();
    auto type = staticTensor(data);
    if (!type || normaliseAxis(int64_t(logSoftmax.getAxis()), type.getRank()) != type.getRank() - 1)
      return std::nullopt;
    trailing = 1;
  } else if (auto layerNorm = dyn_cast<graph::LayerNormalizationOp>(anchor)) {
    // The normalised rows, or (graph-fold-layer-norm-into-products) 1 / sigma alone.
    bool inverseOnly = !layerNorm.getInvStdDev().use_empty();
    problem.anchor = inverseOnly ? RowsAnchor::LayerNormInvStdDev : RowsAnchor::LayerNorm;
    data = layerNorm.getInput();
    auto type = staticTensor(data);
    if (!type || !layerNorm.getMean().use_empty() ||
        (inverseOnly && !layerNorm.getResult().use_empty()))
      return std::nullopt;
    int64_t axis = normaliseAxis(int64_t(layerNorm.getAxis()), type.getRank());
    if (axis < 0 || axis >= type.getRank())
      return std::nullopt;
    trailing = type.getRank() - axis;
    if (inverseOnly) {
      anchorResult = layerNorm.getInvStdDev();
    } else {
      problem.scale = layerNorm.getScale();
      problem.bias = layerNorm.getBias();
    }
    problem.epsilon = layerNorm.getEpsilon().convertToFloat();
  } else if (auto rmsNorm = dyn_cast<graph::RMSNormalizationOp>(anchor)) {
    // The normalised rows, or (graph-fold-layer-norm-into-products) 1 / rms alone.
    bool inverseOnly = !rmsNorm.getInvRms().use_empty();
    problem.anchor = inverseOnly ? RowsAnchor::RMSNormInvRms : RowsAnchor::RMSNorm;
    data = rmsNorm.getInput();
    auto type = staticTensor(data);
    if (!type || (inverseOnly && !rmsNorm.getResult().use_empty()))
      return std::nullopt;
    int64_t axis = normaliseAxis(int64_t(rmsNorm.getAxis()), type.getRank());
    if (axis < 0 || axis >= type.getRank())
      return std::nullopt;
    trailing = type.getRank() - axis;
    if (inverseOnly)
      anchorResult = rmsNorm.getInvRms();
    else
      problem.scale = rmsNorm.getScale();
    problem.epsilon = rmsNorm.getEpsilon().convertToFloat();
  } else {
    // The ReduceX family: axes a constant list of trailing dimensions.
    auto reduce = [&](auto op, RowsAnchor kind) -> bool {
      problem.anchor = kind;
      data = op.getData();
      auto type = staticTensor(data);
      if (!type)
        return false;
      int64_t rank = type.getRank();
      SmallVector<int64_t> axes;
      if (Value axesValue = op.getAxes()) {
        auto constant = axesValue.template getDefiningOp<graph::ConstantOp>();
        auto dense =
            constant ? dyn_cast<DenseIntElementsAttr>(constant.getValue()) : DenseIntElementsAttr();
        if (!dense)
          return false;
        for (const APInt &axis : dense.getValues<APInt>())
          axes.push_back(normaliseAxis(axis.getSExtValue(), rank));
      }
      if (axes.empty()) {
        if (op.getNoopWithEmptyAxes())
          return false;
        for (int64_t d = 0; d < rank; ++d)
          axes.push_back(d);
      }
      llvm::sort(axes);
      axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
      for (auto [index, axis] : llvm::enumerate(axes))
        if (axis != rank - int64_t(axes.size()) + int64_t(index))
          return false;
      trailing = axes.size();
      return true;
    };
    bool matched = false;
    if (auto op = dyn_cast<graph::ReduceSumOp>(anchor))
      matched = reduce(op, RowsAnchor::ReduceSum);
    else if (auto op = dyn_cast<graph::ReduceMeanOp>(anchor))
      matched = reduce(op, RowsAnchor::ReduceMean);
    else if (auto op = dyn_cast<graph::ReduceMaxOp>(anchor))
      matched = reduce(op, RowsAnchor::ReduceMax);
    else if (auto op = dyn_cast<graph::ReduceMinOp>(anchor))
      matched = reduce(op, RowsAnchor::ReduceMin);
    else if (auto op = dyn_cast<graph::ReduceProdOp>(anchor))
      matched = reduce(op, RowsAnchor::ReduceProd);
    else if (auto op = dyn_cast<graph::ReduceSumSquareOp>(anchor))
      matched = reduce(op, RowsAnchor::ReduceSumSquare);
    else if (auto op = dyn_cast<graph::ReduceL1Op>(anchor))
      matched = reduce(op, RowsAnchor::ReduceL1);
    else if (auto op = dyn_cast<graph::ReduceL2Op>(anchor))
      matched = reduce(op, RowsAnchor::ReduceL2);
    else if (auto op = dyn_cast<graph::ReduceLogSumOp>(anchor))
      matched = reduce(op, RowsAnchor::ReduceLogSum);
    else if (auto op = dyn_cast<graph::ReduceLogSumExpOp>(anchor))
      matched = reduce(op, RowsAnchor::ReduceLogSumExp);
    if (!matched)
      return std::nullopt;
  }
  RankedTensorType dataType = staticTensor(data);
  RankedTensorType resultType = staticTensor(anchorResult);
  if (!dataType || !resultType || trailing < 1)
    return std::nullopt;
  SmallVector<int64_t> spaceShape = matchedShape(dataType);
  ArrayRef<int64_t> space = spaceShape;
  int64_t leading = space.size() - trailing;
  // The rows' own dimensions are static.
  if (!llvm::all_of(dataType.getShape().take_back(trailing),
                    [](int64_t extent) { return !ShapedType::isDynamic(extent); }))
    return std::nullopt;
  problem.rows = product(space.take_front(leading));
  problem.rowLength = product(space.take_back(trailing));
  SmallVector<int64_t> resultShape = matchedShape(resultType);
  bool normalises = anchorResult.getType() == data.getType() || resultShape == spaceShape;
  problem.resultLength = normalises ? problem.rowLength : 1;
  if (product(resultShape) != problem.rows * problem.resultLength)
    return std::nullopt;
  problem.data = data;
  problem.rowType = dataType.getElementType();
  problem.result = anchorResult;
  // The result space: the anchor's result; its row is the trailing dimensions it keeps
  // of the reduced ones (none without keepdims, all of extent 1 with it).
  ArrayRef<int64_t> resultSpace = resultShape;
  int64_t resultTrailing = int64_t(resultSpace.size()) - leading;
  if (resultTrailing < 0 || resultSpace.take_front(leading) != space.take_front(leading))
    return std::nullopt;

  // The body arguments the chains read, classified in their space.
  auto addOperand = [&](SmallVectorImpl<std::pair<unsigned, RowsOperand>> &operands,
                        BlockArgument argument, ArrayRef<int64_t> shape, int64_t rowDims) -> bool {
    if (argument.getOwner() != &body)
      return false;
    unsigned index = argument.getArgNumber();
    for (auto &[known, operand] : operands)
      if (known == index)
        return true;
    auto type = staticTensor(argument);
    if (!type)
      return false;
    std::optional<RowsOperand> operand = classifyOperand(matchedShape(type), shape, rowDims);
    if (!operand)
      return false;
    operand->argument = inputArguments[index];
    operand->elementType = type.getElementType();
    operands.push_back({index, *operand});
    return true;
  };
  // A Gather of whole rows of a table (both body arguments) by one index a row.
  auto matchGather = [&](graph::GatherOp gather) -> std::optional<RowsGather> {
    auto table = dyn_cast<BlockArgument>(gather.getData());
    auto indices = dyn_cast<BlockArgument>(gather.getIndices());
    if (!table || !indices || table.getOwner() != &body || indices.getOwner() != &body)
      return std::nullopt;
    auto tableType = dyn_cast<RankedTensorType>(table.getType());
    auto indicesType = dyn_cast<RankedTensorType>(indices.getType());
    if (!tableType || !tableType.hasStaticShape() || !isRowsFloat(tableType.getElementType()) ||
        tableType.getRank() != trailing + 1 || !indicesType ||
        !isGatherIndex(indicesType.getElementType()))
      return std::nullopt;
    // Along the table's first axis, its other dimensions the row's, the indices the rows'.
    SmallVector<int64_t> indicesShape = matchedShape(indicesType);
    if (normaliseAxis(gather.getAxis(), tableType.getRank()) != 0 ||
        tableType.getShape().drop_front() != space.take_back(trailing) ||
        ArrayRef<int64_t>(indicesShape) != space.take_front(leading))
      return std::nullopt;
    indicesShape.append(trailing, 1);
    std::optional<RowsOperand> indexOperand = classifyOperand(indicesShape, space, trailing);
    if (!indexOperand || !indexOperand->perRow)
      return std::nullopt;
    indexOperand->argument = inputArguments[indices.getArgNumber()];
    indexOperand->elementType = indicesType.getElementType();
    RowsGather matched;
    matched.op = gather;
    matched.table.argument = inputArguments[table.getArgNumber()];
    matched.table.elementType = tableType.getElementType();
    matched.indices = *indexOperand;
    matched.tableRows = tableType.getDimSize(0);
    return matched;
  };
  auto isScalarConstant = [](Value value) {
    auto constant = value.getDefiningOp<graph::ConstantOp>();
    return constant && getSingleFloat(constant.getValue()).has_value();
  };

  // The prologue: pointwise ops before the anchor, of shapes that broadcast to the row
  // space, reading body arguments, earlier prologue values and scalar constants, read only
  // by later prologue ops and the anchor.
  bool beforeAnchor = true;
  llvm::SmallPtrSet<Operation *, 8> prologueSet, epilogueSet;
  for (Operation &op : body.without_terminator()) {
    if (&op == anchor) {
      beforeAnchor = false;
      continue;
    }
    if (isa<graph::ConstantOp>(op))
      continue;
    if (op.getNumResults() != 1 || op.getNumRegions() != 0 ||
        op.getDialect() != anchor->getDialect())
      return std::nullopt;
    auto type = staticTensor(op.getResult(0));
    if (!type)
      return std::nullopt;
    if (beforeAnchor) {
      if (!classifyOperand(matchedShape(type), space, trailing))
        return std::nullopt;
      for (Operation *user : op.getResult(0).getUsers())
        if (user != anchor && !(user->getBlock() == &body && user->isBeforeInBlock(anchor)))
          return std::nullopt;
      if (auto gather = dyn_cast<graph::GatherOp>(op)) {
        std::optional<RowsGather> matched = matchGather(gather);
        if (!matched)
          return std::nullopt;
        prologueSet.insert(&op);
        problem.gathers.push_back(*matched);
        continue;
      }
      for (Value operand : op.getOperands()) {
        if (prologueSet.contains(operand.getDefiningOp()) || isScalarConstant(operand))
          continue;
        auto argument = dyn_cast<BlockArgument>(operand);
        if (!argument || !addOperand(problem.rowInputs, argument, space, trailing))
          return std::nullopt;
      }
      prologueSet.insert(&op);
      problem.prologue.push_back(&op);
    } else {
      if (ArrayRef<int64_t>(matchedShape(type)) != resultSpace)
        return std::nullopt;
      for (Value operand : op.getOperands()) {
        if (operand == problem.result || epilogueSet.contains(operand.getDefiningOp()) ||
            isScalarConstant(operand))
          continue;
        auto argument = dyn_cast<BlockArgument>(operand);
        if (!argument || !addOperand(problem.resultInputs, argument, resultSpace, resultTrailing))
          return std::nullopt;
      }
      epilogueSet.insert(&op);
      problem.epilogue.push_back(&op);
    }
  }
  // Each output stores the anchor's result or an epilogue value, of the result space.
  for (auto [output, stored] : llvm::zip(problem.outputs, yield->getOperands())) {
    if (stored != problem.result && !epilogueSet.contains(stored.getDefiningOp()))
      return std::nullopt;
    output.stored = stored;
    SmallVector<int64_t> shape = matchedShape(problem.buffers[output.argument]);
    if (ArrayRef<int64_t>(shape) != resultSpace && product(shape) != product(resultShape))
      return std::nullopt;
  }
  // The anchor's operands: the data (a prologue value or an argument), scale and bias
  // (arguments or scalar constants, read along the row).
  if (!prologueSet.contains(data.getDefiningOp())) {
    auto argument = dyn_cast<BlockArgument>(data);
    if (!argument || !addOperand(problem.rowInputs, argument, space, trailing))
      return std::nullopt;
  }
  for (Value operand : {problem.scale, problem.bias}) {
    if (!operand || isScalarConstant(operand))
      continue;
    auto argument = dyn_cast<BlockArgument>(operand);
    if (!argument || !addOperand(problem.rowInputs, argument, space, trailing))
      return std::nullopt;
  }
  // Integer buffers are gathers' indices only.
  for (auto [position, type] : llvm::enumerate(problem.buffers))
    if (!isRowsFloat(type.getElementType()) &&
        !llvm::any_of(problem.gathers, [&](const RowsGather &gather) {
          return gather.indices.argument == position;
        }))
      return std::nullopt;
  if (!chainEmits(problem.prologue, anchor->getLoc()) ||
      !chainEmits(problem.epilogue, anchor->getLoc()))
    return std::nullopt;

  // The widest vector: 16 bytes of the widest buffer read or written along the row.
  int64_t widest = 2;
  for (auto &[index, operand] : problem.rowInputs)
    if (!operand.perRow)
      widest = std::max(widest, elementBytes(operand.elementType));
  for (const RowsGather &gather : problem.gathers)
    widest = std::max(widest, elementBytes(gather.table.elementType));
  if (problem.resultLength > 1) {
    for (const RowsOutput &output : problem.outputs)
      widest = std::max(widest, elementBytes(output.elementType));
    for (auto &[index, operand] : problem.resultInputs)
      if (!operand.perRow)
        widest = std::max(widest, elementBytes(operand.elementType));
  }
  problem.maxVector = 16 / widest;
  while (problem.rowLength % problem.maxVector != 0)
    problem.maxVector /= 2;
  if (problem.dynamicRows) {
    // Every operand's row offset is row * stride (or 0): independent of the row count.
    for (auto *operands : {&problem.rowInputs, &problem.resultInputs})
      for (auto &[index, operand] : *operands)
        for (const RowsOperand::Term &term : operand.rowTerms)
          if (term.divisor != 1 || term.extent != 0)
            return std::nullopt;
    for (const RowsGather &gather : problem.gathers)
      for (const RowsOperand::Term &term : gather.indices.rowTerms)
        if (term.divisor != 1 || term.extent != 0)
          return std::nullopt;
    // The rows at the profile's opt shape, for choosing a configuration.
    std::optional<SmallVector<MemRefType>> opt = getOptShapeBufferTypes(function);
    if (!opt)
      return std::nullopt;
    problem.rows = (*opt)[problem.outputs.front().argument].getNumElements() / problem.resultLength;
  }
  problem.bytes = kiln::estimateKernelBytes(function);
  return problem;
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

namespace {

/// How partial results of threads combine.
enum class Combine { Add, Mul, Max, Min, FastMax };

/// Builds the body of one row kernel (see docs/codegen-rows.md, "The kernel").
class RowKernelBuilder {
public:
  RowKernelBuilder(OpBuilder &b, Location loc, const RowsProblem &problem, const RowsConfig &config,
                   RowsStorage storage, gpu::GPUFuncOp kernel)
      : b(b), loc(loc), problem(problem), config(config), storage(storage), kernel(kernel),
        f32(b.getF32Type()), laneCount(config.vector) {}

  LogicalResult build();

private:
  OpBuilder &b;
  Location loc;
  const RowsProblem &problem;
  const RowsConfig &config;
  RowsStorage storage;
  gpu::GPUFuncOp kernel;
  Type f32;

  /// Every buffer as a 1-D view of its elements.
  SmallVector<Value> buffers;
  Value scratch, sharedRow;
  Value threadInRow, warp, lane, row, rowValid;
  int64_t slot = 0;
  /// Row offsets of the operands (by body argument), in the row and result spaces.
  DenseMap<unsigned, Value> rowBases, resultBases;
  /// One value per row: operands read once.
  DenseMap<unsigned, Value> rowScalars, resultScalars;
  /// Each gather's table and the row's offset in it (by the gather's result).
  DenseMap<Value, std::pair<const RowsOperand *, Value>> gatherBases;
  Value outputBase;
  /// The lanes a chain evaluates: a chunk's, or one for a reduction's value.
  int64_t laneCount = 0;
  /// Registers storage: each chunk's lanes after the prologue.
  SmallVector<SmallVector<Value>> cached;

  int64_t vector() const { return config.vector; }
  int64_t span() const { return config.threadsPerRow * config.vector; }
  int64_t chunks() const { return (problem.rowLength + span() - 1) / span(); }
  /// Chunks every thread of a row has whole (the rest may be past the row's end).
  int64_t fullChunks() const { return problem.rowLength / span(); }

  Value index(int64_t value) { return arith::ConstantIndexOp::create(b, loc, value); }
  Value constant(double value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(value)));
  }
  Value i32(int64_t value) { return arith::ConstantIntOp::create(b, loc, value, 32); }

  Value toF32(Value value) {
    unsigned width = getElementTypeOrSelf(value.getType()).getIntOrFloatBitWidth();
    if (width == 32)
      return value;
    Type wide = f32;
    if (auto type = dyn_cast<VectorType>(value.getType()))
      wide = VectorType::get(type.getShape(), f32);
    return arith::ExtFOp::create(b, loc, wide, value);
  }

  /// The first element of chunk `chunk` of this thread.
  Value chunkStart(Value chunk) {
    Value first = arith::MulIOp::create(b, loc, chunk, index(config.threadsPerRow));
    first = arith::AddIOp::create(b, loc, first, threadInRow);
    return arith::MulIOp::create(b, loc, first, index(vector()));
  }

  Value rowBaseOf(const RowsOperand &operand) {
    if (operand.rowTerms.empty())
      return index(0);
    Value base;
    for (const RowsOperand::Term &term : operand.rowTerms) {
      Value at = row;
      if (term.divisor != 1)
        at = arith::DivUIOp::create(b, loc, at, index(term.divisor));
      if (term.extent != 0)
        at = arith::RemUIOp::create(b, loc, at, index(term.extent));
      at = arith::MulIOp::create(b, loc, at, index(term.stride));
      base = base ? arith::AddIOp::create(b, loc, base, at).getResult() : at;
    }
    return base;
  }

  /// `vector()` lanes (f32) of `operand` at element `start` of the row.
  SmallVector<Value> loadLanes(const RowsOperand &operand, Value base, Value start) {
    Value buffer = buffers[operand.argument];
    Value at = arith::AddIOp::create(b, loc, base, start);
    SmallVector<Value> lanes;
    if (vector() == 1) {
      lanes.push_back(toF32(memref::LoadOp::create(b, loc, buffer, ValueRange{at})));
      return lanes;
    }
    auto type = VectorType::get({vector()}, operand.elementType);
    Value loaded = vector::LoadOp::create(
        b, loc, type, buffer, ValueRange{at},
        /*nontemporal=*/false, llvm::MaybeAlign(vector() * elementBytes(operand.elementType)));
    loaded = toF32(loaded);
    for (int64_t i = 0; i < vector(); ++i)
      lanes.push_back(vector::ExtractOp::create(b, loc, loaded, i));
    return lanes;
  }

  /// The value of `value` (a body value of a chain) at each lane: from `known`, a scalar
  /// constant, or an operand (loaded, or read once per row).
  FailureOr<SmallVector<Value>> lanesOf(Value value, DenseMap<Value, SmallVector<Value>> &known,
                                        bool resultSpace, Value start) {
    auto found = known.find(value);
    if (found != known.end())
      return found->second;
    SmallVector<Value> lanes;
    if (auto constantOp = value.getDefiningOp<graph::ConstantOp>()) {
      std::optional<double> single = kiln::getSingleFloat(constantOp.getValue());
      if (!single)
        return failure();
      lanes.assign(laneCount, constant(*single));
    } else if (auto gathered = gatherBases.find(value);
               !resultSpace && gathered != gatherBases.end()) {
      lanes = loadLanes(*gathered->second.first, gathered->second.second, start);
    } else if (auto argument = dyn_cast<BlockArgument>(value)) {
      auto &operands = resultSpace ? problem.resultInputs : problem.rowInputs;
      const RowsOperand *operand = nullptr;
      for (auto &[bodyIndex, candidate] : operands)
        if (bodyIndex == argument.getArgNumber())
          operand = &candidate;
      if (!operand)
        return failure();
      auto &scalars = resultSpace ? resultScalars : rowScalars;
      auto &bases = resultSpace ? resultBases : rowBases;
      if (operand->perRow)
        lanes.assign(laneCount, scalars.lookup(argument.getArgNumber()));
      else
        lanes = loadLanes(*operand, bases.lookup(argument.getArgNumber()), start);
    } else {
      return failure();
    }
    known[value] = lanes;
    return lanes;
  }

  /// Evaluates `ops` lane by lane, `known` holding the lanes of the values they start
  /// from; returns the lanes of `wanted`.
  FailureOr<SmallVector<Value>> evaluate(ArrayRef<Operation *> ops,
                                         DenseMap<Value, SmallVector<Value>> &known,
                                         bool resultSpace, Value start, Value wanted) {
    for (Operation *op : ops) {
      SmallVector<SmallVector<Value>> operandLanes;
      for (Value operand : op->getOperands()) {
        FailureOr<SmallVector<Value>> lanes = lanesOf(operand, known, resultSpace, start);
        if (failed(lanes))
          return failure();
        operandLanes.push_back(*lanes);
      }
      SmallVector<Value> results;
      for (int64_t i = 0; i < laneCount; ++i) {
        SmallVector<Value> args;
        for (auto &lanes : operandLanes)
          args.push_back(lanes[i]);
        Value result = kiln::emitElementwiseInF32(b, loc, op, args);
        if (!result)
          return failure();
        results.push_back(result);
      }
      known[op->getResult(0)] = results;
    }
    return lanesOf(wanted, known, resultSpace, start);
  }

  /// The anchor's input at chunk `start`: the operands loaded and the prologue applied.
  FailureOr<SmallVector<Value>> loadRow(Value start) {
    DenseMap<Value, SmallVector<Value>> known;
    FailureOr<SmallVector<Value>> lanes =
        evaluate(problem.prologue, known, /*resultSpace=*/false, start, problem.data);
    // A prologue computed in f32 is rounded to the anchor's input type, as the body
    // computes it (a loaded input already is; the round trip folds away).
    if (failed(lanes) || problem.rowType.isF32() || problem.prologue.empty())
      return lanes;
    for (Value &lane : *lanes)
      lane = toF32(arith::TruncFOp::create(b, loc, problem.rowType, lane));
    return lanes;
  }

  /// `value` guarded by `valid`: computed by `compute` where the chunk is inside the row,
  /// `fallback` elsewhere.
  FailureOr<SmallVector<Value>> guarded(Value valid,
                                        function_ref<FailureOr<SmallVector<Value>>()> compute,
                                        ArrayRef<Value> fallback) {
    if (!valid)
      return compute();
    bool failedInside = false;
    auto ifOp = scf::IfOp::create(
        b, loc, valid,
        [&](OpBuilder &nested, Location) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
          FailureOr<SmallVector<Value>> values = compute();
          if (failed(values)) {
            failedInside = true;
            scf::YieldOp::create(b, loc, fallback);
            return;
          }
          scf::YieldOp::create(b, loc, *values);
        },
        [&](OpBuilder &nested, Location) { scf::YieldOp::create(nested, loc, fallback); });
    if (failedInside)
      return failure();
    return SmallVector<Value>(ifOp.getResults());
  }

  /// The row's values at chunk `chunk` (index, or constant for unrolled loops) after the
  /// prologue, from wherever the storage keeps them; `first` loads them (and stores them
  /// for later passes).
  FailureOr<SmallVector<Value>> rowValues(Value chunk, int64_t constantChunk, bool first,
                                          Value valid) {
    SmallVector<Value> zeros(vector(), constant(0));
    if (storage == RowsStorage::Registers && !first)
      return cached[constantChunk];
    Value start = chunkStart(chunk);
    if (storage == RowsStorage::Shared && !first) {
      return guarded(
          valid,
          [&]() -> FailureOr<SmallVector<Value>> {
            SmallVector<Value> lanes;
            if (vector() == 1) {
              lanes.push_back(toF32(memref::LoadOp::create(b, loc, sharedRow, ValueRange{start})));
              return lanes;
            }
            Value loaded = toF32(vector::LoadOp::create(
                b, loc, VectorType::get({vector()}, problem.rowType), sharedRow, ValueRange{start},
                /*nontemporal=*/false, llvm::MaybeAlign(vector() * elementBytes(problem.rowType))));
            for (int64_t i = 0; i < vector(); ++i)
              lanes.push_back(vector::ExtractOp::create(b, loc, loaded, i));
            return lanes;
          },
          zeros);
    }
    FailureOr<SmallVector<Value>> lanes = guarded(
        valid,
        [&]() -> FailureOr<SmallVector<Value>> {
          FailureOr<SmallVector<Value>> values = loadRow(start);
          if (failed(values))
            return failure();
          if (first && storage == RowsStorage::Shared) {
            Type type = problem.rowType;
            if (vector() == 1) {
              Value value = (*values)[0];
              if (!type.isF32())
                value = arith::TruncFOp::create(b, loc, type, value);
              memref::StoreOp::create(b, loc, value, sharedRow, ValueRange{start});
            } else {
              Value packed =
                  vector::FromElementsOp::create(b, loc, VectorType::get({vector()}, f32), *values);
              if (!type.isF32())
                packed = arith::TruncFOp::create(b, loc, VectorType::get({vector()}, type), packed);
              vector::StoreOp::create(b, loc, packed, sharedRow, ValueRange{start},
                                      /*nontemporal=*/false,
                                      llvm::MaybeAlign(vector() * elementBytes(type)));
            }
          }
          return values;
        },
        zeros);
    if (failed(lanes))
      return failure();
    if (first && storage == RowsStorage::Registers)
      cached[constantChunk] = *lanes;
    return lanes;
  }

  Value validChunk(Value chunk) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, chunkStart(chunk),
                                 index(problem.rowLength));
  }

  /// Folds `step` over the row's elements of this thread, from `init`: a pass over the
  /// row (the first pass loads it).
  FailureOr<SmallVector<Value>>
  foldRow(ArrayRef<Value> init, bool first,
          function_ref<SmallVector<Value>(ArrayRef<Value> acc, Value x)> step) {
    auto foldChunk = [&](Value chunk, int64_t constantChunk, ArrayRef<Value> acc,
                         bool mayBeOutside) -> FailureOr<SmallVector<Value>> {
      Value valid = mayBeOutside ? validChunk(chunk) : Value();
      FailureOr<SmallVector<Value>> lanes = rowValues(chunk, constantChunk, first, valid);
      if (failed(lanes))
        return failure();
      SmallVector<Value> next(acc);
      for (Value x : *lanes)
        next = step(next, x);
      if (valid)
        for (size_t i = 0; i < next.size(); ++i)
          next[i] = arith::SelectOp::create(b, loc, valid, next[i], acc[i]);
      return next;
    };
    if (storage == RowsStorage::Registers) {
      if (first)
        cached.assign(chunks(), {});
      // Unrolled: every chunk's loads first (in flight together), then the arithmetic.
      SmallVector<Value> acc(init);
      if (first) {
        for (int64_t k = 0; k < chunks(); ++k)
          if (failed(
                  rowValues(index(k), k, true, k < fullChunks() ? Value() : validChunk(index(k)))))
            return failure();
        for (int64_t k = 0; k < chunks(); ++k) {
          SmallVector<Value> next(acc);
          for (Value x : cached[k])
            next = step(next, x);
          if (k >= fullChunks()) {
            Value valid = validChunk(index(k));
            for (size_t i = 0; i < next.size(); ++i)
              next[i] = arith::SelectOp::create(b, loc, valid, next[i], acc[i]);
          }
          acc = next;
        }
        return acc;
      }
      for (int64_t k = 0; k < chunks(); ++k) {
        FailureOr<SmallVector<Value>> next = foldChunk(index(k), k, acc, k >= fullChunks());
        if (failed(next))
          return failure();
        acc = *next;
      }
      return acc;
    }
    // A loop over the chunks, `unroll` chunks an iteration (their loads in flight
    // together), the last iteration's chunks checked against the row's end.
    int64_t unroll = std::max<int64_t>(1, 16 / vector());
    int64_t groups = chunks() / unroll;
    bool failedInside = false;
    SmallVector<Value> acc(init);
    if (groups > 0) {
      auto loop = scf::ForOp::create(
          b, loc, index(0), index(groups), index(1), acc,
          [&](OpBuilder &nested, Location, Value group, ValueRange args) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
            SmallVector<Value> current(args);
            Value base = arith::MulIOp::create(b, loc, group, index(unroll));
            SmallVector<SmallVector<Value>> lanes;
            bool mayBeOutside = groups * unroll > fullChunks();
            for (int64_t u = 0; u < unroll && !failedInside; ++u) {
              Value chunk = arith::AddIOp::create(b, loc, base, index(u));
              FailureOr<SmallVector<Value>> next = foldChunk(chunk, -1, current, mayBeOutside);
              if (failed(next)) {
                failedInside = true;
                break;
              }
              current = *next;
            }
            scf::YieldOp::create(b, loc, current);
          });
      if (failedInside)
        return failure();
      acc = SmallVector<Value>(loop.getResults());
    }
    for (int64_t k = groups * unroll; k < chunks(); ++k) {
      FailureOr<SmallVector<Value>> next = foldChunk(index(k), -1, acc, k >= fullChunks());
      if (failed(next))
        return failure();
      acc = *next;
    }
    return acc;
  }

  Value combineValues(Combine kind, Value lhs, Value rhs) {
    switch (kind) {
    case Combine::Add:
      return arith::AddFOp::create(b, loc, lhs, rhs);
    case Combine::Mul:
      return arith::MulFOp::create(b, loc, lhs, rhs);
    case Combine::Max:
      return arith::MaximumFOp::create(b, loc, lhs, rhs);
    case Combine::Min:
      return arith::MinimumFOp::create(b, loc, lhs, rhs);
    case Combine::FastMax:
      return LLVM::CallIntrinsicOp::create(b, loc, f32, b.getStringAttr("llvm.nvvm.fmax.f"),
                                           ValueRange{lhs, rhs})
          ->getResult(0);
    }
    llvm_unreachable("unknown combine");
  }

  /// `value` combined over the threads of the row: shuffles within the warp (or the
  /// row's part of it), then, for rows of several warps, through shared memory.
  Value combineRow(Combine kind, Value value) {
    int64_t width = std::min<int64_t>(config.threadsPerRow, 32);
    for (int64_t offset = width / 2; offset >= 1; offset /= 2) {
      auto shuffle =
          gpu::ShuffleOp::create(b, loc, value, int32_t(offset), 32, gpu::ShuffleMode::XOR);
      value = combineValues(kind, value, shuffle.getShuffleResult());
    }
    if (config.threadsPerRow <= 32)
      return value;
    int64_t warps = config.threadsPerRow / 32;
    int64_t base = 32 * (slot++ % kCombineSlots);
    Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, index(0));
    scf::IfOp::create(b, loc, isFirst, [&](OpBuilder &nested, Location) {
      Value at = arith::AddIOp::create(nested, loc, warp,
                                       arith::ConstantIndexOp::create(nested, loc, base));
      memref::StoreOp::create(nested, loc, value, scratch, ValueRange{at});
      scf::YieldOp::create(nested, loc);
    });
    gpu::BarrierOp::create(b, loc);
    Value combined = memref::LoadOp::create(b, loc, scratch, ValueRange{index(base)});
    for (int64_t w = 1; w < warps; ++w)
      combined = combineValues(
          kind, combined, memref::LoadOp::create(b, loc, scratch, ValueRange{index(base + w)}));
    return combined;
  }

  Value exp(Value x) {
    // exp(x) = 2^(x log2 e): one MUFU instruction (relative error ~2^-22).
    Value scaled = arith::MulFOp::create(b, loc, x, constant(M_LOG2E));
    return LLVM::CallIntrinsicOp::create(b, loc, f32, b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f"),
                                         ValueRange{scaled})
        ->getResult(0);
  }

  /// Stores the row's results: `compute` maps a chunk's lanes (after the prologue) to the
  /// anchor's result lanes; the epilogue follows, then the conversion and the store.
  LogicalResult
  writeRow(function_ref<FailureOr<SmallVector<Value>>(ArrayRef<Value>, Value)> compute) {
    auto writeChunk = [&](Value chunk, int64_t constantChunk, bool mayBeOutside) -> LogicalResult {
      Value valid = mayBeOutside ? validChunk(chunk) : Value();
      Value start = chunkStart(chunk);
      auto body = [&]() -> LogicalResult {
        FailureOr<SmallVector<Value>> x = rowValues(chunk, constantChunk, false, Value());
        if (failed(x))
          return failure();
        FailureOr<SmallVector<Value>> y = compute(*x, start);
        if (failed(y))
          return failure();
        DenseMap<Value, SmallVector<Value>> known;
        known[problem.result] = *y;
        return storeOutputs(known, start, arith::AddIOp::create(b, loc, outputBase, start));
      };
      if (!valid)
        return body();
      bool failedInside = false;
      scf::IfOp::create(b, loc, valid, [&](OpBuilder &nested, Location) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
        failedInside = failed(body());
        scf::YieldOp::create(b, loc);
      });
      return failure(failedInside);
    };
    // Rows past the last (a CTA's last rows recompute the last row) store nothing.
    auto writeAll = [&]() -> LogicalResult {
      if (storage == RowsStorage::Registers) {
        for (int64_t k = 0; k < chunks(); ++k)
          if (failed(writeChunk(index(k), k, k >= fullChunks())))
            return failure();
        return success();
      }
      bool failedInside = false;
      if (fullChunks() > 0)
        scf::ForOp::create(b, loc, index(0), index(fullChunks()), index(1), ValueRange{},
                           [&](OpBuilder &nested, Location, Value chunk, ValueRange) {
                             OpBuilder::InsertionGuard guard(b);
                             b.setInsertionPoint(nested.getInsertionBlock(),
                                                 nested.getInsertionPoint());
                             failedInside = failed(writeChunk(chunk, -1, false));
                             scf::YieldOp::create(b, loc);
                           });
      if (failedInside)
        return failure();
      if (chunks() > fullChunks())
        return writeChunk(index(fullChunks()), -1, true);
      return success();
    };
    return ifRowValid(writeAll);
  }

  LogicalResult ifRowValid(function_ref<LogicalResult()> body) {
    if (!rowValid)
      return body();
    bool failedInside = false;
    scf::IfOp::create(b, loc, rowValid, [&](OpBuilder &nested, Location) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
      failedInside = failed(body());
      scf::YieldOp::create(b, loc);
    });
    return failure(failedInside);
  }

  /// Runs the epilogue on the anchor's result lanes in `known` (of the chunk at `start`,
  /// or the row's one value) and stores each output's value at `at`.
  LogicalResult storeOutputs(DenseMap<Value, SmallVector<Value>> &known, Value start, Value at) {
    if (failed(evaluate(problem.epilogue, known, /*resultSpace=*/true, start, problem.result)))
      return failure();
    for (const RowsOutput &output : problem.outputs) {
      FailureOr<SmallVector<Value>> lanes =
          lanesOf(output.stored, known, /*resultSpace=*/true, start);
      if (failed(lanes))
        return failure();
      store(output, *lanes, at);
    }
    return success();
  }

  void store(const RowsOutput &destination, ArrayRef<Value> lanes, Value at) {
    Type out = destination.elementType;
    Value output = buffers[destination.argument];
    if (lanes.size() == 1) {
      Value value = lanes[0];
      if (!out.isF32())
        value = arith::TruncFOp::create(b, loc, out, value);
      memref::StoreOp::create(b, loc, value, output, ValueRange{at});
      return;
    }
    int64_t count = lanes.size();
    Value packed = vector::FromElementsOp::create(b, loc, VectorType::get({count}, f32), lanes);
    if (!out.isF32())
      packed = arith::TruncFOp::create(b, loc, VectorType::get({count}, out), packed);
    vector::StoreOp::create(b, loc, packed, output, ValueRange{at}, /*nontemporal=*/false,
                            llvm::MaybeAlign(count * elementBytes(out)));
  }

  /// A reduction's one result per row: the epilogue on thread 0 of the row, and its store.
  LogicalResult writeReduced(Value value) {
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, threadInRow, index(0));
    Value condition = rowValid ? arith::AndIOp::create(b, loc, first, rowValid).getResult() : first;
    bool failedInside = false;
    scf::IfOp::create(b, loc, condition, [&](OpBuilder &nested, Location) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
      DenseMap<Value, SmallVector<Value>> known;
      known[problem.result] = {value};
      laneCount = 1;
      failedInside = failed(storeOutputs(known, index(0), outputBase));
      scf::YieldOp::create(b, loc);
    });
    return failure(failedInside);
  }

  LogicalResult emitAnchor();
};

LogicalResult RowKernelBuilder::build() {
  Block &entry = kernel.getBody().front();
  b.setInsertionPointToStart(&entry);
  // A dynamic problem's row count is its last parameter; its buffers hold at most
  // rows x the longer of a row and a result row.
  Value rows = index(problem.rows);
  if (problem.dynamicRows)
    rows = arith::IndexCastUIOp::create(b, loc, b.getIndexType(),
                                        kernel.getArgument(problem.buffers.size()));
  for (auto [position, type] : llvm::enumerate(problem.buffers)) {
    OpFoldResult elements = b.getIndexAttr(type.hasStaticShape() ? type.getNumElements() : 0);
    if (!type.hasStaticShape())
      elements = arith::MulIOp::create(b, loc, rows,
                                       index(std::max(problem.rowLength, problem.resultLength)))
                     .getResult();
    auto view =
        MemRefType::get({type.hasStaticShape() ? type.getNumElements() : ShapedType::kDynamic},
                        type.getElementType());
    buffers.push_back(memref::ReinterpretCastOp::create(
        b, loc, view, kernel.getArgument(position), b.getIndexAttr(0),
        ArrayRef<OpFoldResult>{elements}, ArrayRef<OpFoldResult>{b.getIndexAttr(1)}));
  }
  if (config.threadsPerRow > 32)
    scratch = kernel.getWorkgroupAttributions()[0];
  if (storage == RowsStorage::Shared) {
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
    auto bytes = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(), workgroup);
    Value dynamic = gpu::DynamicSharedMemoryOp::create(b, loc, bytes);
    sharedRow = memref::ViewOp::create(
        b, loc, MemRefType::get({problem.rowLength}, problem.rowType, AffineMap(), workgroup),
        dynamic, index(0), ValueRange{});
  }
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  warp = arith::DivUIOp::create(b, loc, thread, index(32));
  lane = arith::RemUIOp::create(b, loc, thread, index(32));
  if (config.rowsPerCta == 1) {
    threadInRow = thread;
    row = block;
  } else {
    threadInRow = arith::RemUIOp::create(b, loc, thread, index(config.threadsPerRow));
    Value group = arith::DivUIOp::create(b, loc, thread, index(config.threadsPerRow));
    row = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, block, index(config.rowsPerCta)), group);
    // The rows past the last compute the last row again, so that every lane of a warp
    // takes part in the shuffles, and store nothing.
    if (problem.dynamicRows || problem.rows % config.rowsPerCta != 0) {
      rowValid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, rows);
      row = arith::MinUIOp::create(b, loc, row, arith::SubIOp::create(b, loc, rows, index(1)));
    }
  }
  // Row offsets of the operands; those with one value per row are read now.
  for (auto [operands, bases, scalars] :
       {std::make_tuple(&problem.rowInputs, &rowBases, &rowScalars),
        std::make_tuple(&problem.resultInputs, &resultBases, &resultScalars)}) {
    for (auto &[bodyIndex, operand] : *operands) {
      Value base = rowBaseOf(operand);
      (*bases)[bodyIndex] = base;
      if (operand.perRow)
        (*scalars)[bodyIndex] =
            toF32(memref::LoadOp::create(b, loc, buffers[operand.argument], ValueRange{base}));
    }
  }
  // A gathered row's offset in its table: its index (negative ones from the table's end,
  // as ONNX counts them), kept inside the table, times the row length.
  for (const RowsGather &gather : problem.gathers) {
    Value at = memref::LoadOp::create(b, loc, buffers[gather.indices.argument],
                                      ValueRange{rowBaseOf(gather.indices)});
    Type indexType = at.getType();
    auto integer = [&](int64_t value) {
      return arith::ConstantIntOp::create(b, loc, indexType, value).getResult();
    };
    Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at, integer(0));
    at = arith::SelectOp::create(b, loc, negative,
                                 arith::AddIOp::create(b, loc, at, integer(gather.tableRows)), at);
    at = arith::MaxSIOp::create(b, loc, at, integer(0));
    at = arith::MinSIOp::create(b, loc, at, integer(gather.tableRows - 1));
    at = arith::IndexCastOp::create(b, loc, b.getIndexType(), at);
    gatherBases[gather.op->getResult(0)] = {
        &gather.table, arith::MulIOp::create(b, loc, at, index(problem.rowLength))};
  }
  outputBase = arith::MulIOp::create(b, loc, row, index(problem.resultLength));
  if (failed(emitAnchor()))
    return failure();
  gpu::ReturnOp::create(b, loc);
  return success();
}

LogicalResult RowKernelBuilder::emitAnchor() {
  auto sumOf = [&](function_ref<Value(Value)> term, bool first) -> FailureOr<Value> {
    FailureOr<SmallVector<Value>> partial =
        foldRow({constant(0)}, first, [&](ArrayRef<Value> acc, Value x) -> SmallVector<Value> {
          return {arith::AddFOp::create(b, loc, acc[0], term(x))};
        });
    if (failed(partial))
      return failure();
    return combineRow(Combine::Add, (*partial)[0]);
  };
  auto reduceWith = [&](Combine kind, double init,
                        function_ref<Value(Value)> term) -> FailureOr<Value> {
    FailureOr<SmallVector<Value>> partial =
        foldRow({constant(init)}, true, [&](ArrayRef<Value> acc, Value x) -> SmallVector<Value> {
          return {combineValues(kind, acc[0], term(x))};
        });
    if (failed(partial))
      return failure();
    return combineRow(kind, (*partial)[0]);
  };
  auto identity = [](Value x) { return x; };
  auto square = [&](Value x) -> Value { return arith::MulFOp::create(b, loc, x, x); };
  double count = double(problem.rowLength);
  double infinity = std::numeric_limits<double>::infinity();

  // The scale and bias of a normalisation at a chunk.
  auto operandLanes = [&](Value value, Value start) -> FailureOr<SmallVector<Value>> {
    DenseMap<Value, SmallVector<Value>> known;
    return lanesOf(value, known, /*resultSpace=*/false, start);
  };

  switch (problem.anchor) {
  case RowsAnchor::Softmax:
  case RowsAnchor::LogSoftmax: {
    FailureOr<Value> max = reduceWith(Combine::FastMax, -infinity, identity);
    if (failed(max))
      return failure();
    FailureOr<Value> sum =
        sumOf([&](Value x) { return exp(arith::SubFOp::create(b, loc, x, *max)); }, false);
    if (failed(sum))
      return failure();
    if (problem.anchor == RowsAnchor::Softmax) {
      Value inverse = arith::DivFOp::create(b, loc, constant(1), *sum);
      return writeRow([&](ArrayRef<Value> x, Value) -> FailureOr<SmallVector<Value>> {
        SmallVector<Value> y;
        for (Value value : x)
          y.push_back(arith::MulFOp::create(b, loc, exp(arith::SubFOp::create(b, loc, value, *max)),
                                            inverse));
        return y;
      });
    }
    Value shift = arith::AddFOp::create(b, loc, *max, math::LogOp::create(b, loc, *sum));
    return writeRow([&](ArrayRef<Value> x, Value) -> FailureOr<SmallVector<Value>> {
      SmallVector<Value> y;
      for (Value value : x)
        y.push_back(arith::SubFOp::create(b, loc, value, shift));
      return y;
    });
  }
  case RowsAnchor::LayerNorm:
  case RowsAnchor::LayerNormInvStdDev:
  case RowsAnchor::RMSNorm:
  case RowsAnchor::RMSNormInvRms: {
    bool layerNorm =
        problem.anchor == RowsAnchor::LayerNorm || problem.anchor == RowsAnchor::LayerNormInvStdDev;
    Value mean;
    if (layerNorm) {
      FailureOr<Value> sum = sumOf(identity, true);
      if (failed(sum))
        return failure();
      mean = arith::MulFOp::create(b, loc, *sum, constant(1.0 / count));
    }
    // LayerNorm's variance from the kept row, two-pass: no cancellation.
    FailureOr<Value> squares =
        mean ? sumOf(
                   [&](Value x) -> Value { return square(arith::SubFOp::create(b, loc, x, mean)); },
                   false)
             : sumOf(square, true);
    if (failed(squares))
      return failure();
    Value variance = arith::MulFOp::create(b, loc, *squares, constant(1.0 / count));
    Value inverse = math::RsqrtOp::create(
        b, loc, arith::AddFOp::create(b, loc, variance, constant(problem.epsilon)));
    if (problem.anchor == RowsAnchor::LayerNormInvStdDev ||
        problem.anchor == RowsAnchor::RMSNormInvRms)
      return writeReduced(inverse);
    return writeRow([&](ArrayRef<Value> x, Value start) -> FailureOr<SmallVector<Value>> {
      FailureOr<SmallVector<Value>> scale = operandLanes(problem.scale, start);
      if (failed(scale))
        return failure();
      SmallVector<Value> bias;
      if (problem.bias) {
        FailureOr<SmallVector<Value>> lanes = operandLanes(problem.bias, start);
        if (failed(lanes))
          return failure();
        bias = *lanes;
      }
      SmallVector<Value> y;
      for (auto [i, value] : llvm::enumerate(x)) {
        Value centred = mean ? arith::SubFOp::create(b, loc, value, mean).getResult() : value;
        Value normalised = arith::MulFOp::create(b, loc, centred, inverse);
        Value scaled = arith::MulFOp::create(b, loc, normalised, (*scale)[i]);
        y.push_back(bias.empty() ? scaled : arith::AddFOp::create(b, loc, scaled, bias[i]));
      }
      return y;
    });
  }
  default:
    break;
  }

  // The reductions: one value per row. Null where a pass over the row failed.
  auto then = [&](FailureOr<Value> value, function_ref<Value(Value)> finish) -> Value {
    return succeeded(value) ? finish(*value) : Value();
  };
  auto plain = [](Value value) { return value; };
  auto reduce = [&]() -> Value {
    switch (problem.anchor) {
    case RowsAnchor::ReduceSum:
      return then(sumOf(identity, true), plain);
    case RowsAnchor::ReduceMean:
      return then(sumOf(identity, true), [&](Value sum) -> Value {
        return arith::MulFOp::create(b, loc, sum, constant(1.0 / count));
      });
    case RowsAnchor::ReduceMax:
      return then(reduceWith(Combine::Max, -infinity, identity), plain);
    case RowsAnchor::ReduceMin:
      return then(reduceWith(Combine::Min, infinity, identity), plain);
    case RowsAnchor::ReduceProd:
      return then(reduceWith(Combine::Mul, 1, identity), plain);
    case RowsAnchor::ReduceSumSquare:
      return then(sumOf(square, true), plain);
    case RowsAnchor::ReduceL1:
      return then(sumOf([&](Value x) -> Value { return math::AbsFOp::create(b, loc, x); }, true),
                  plain);
    case RowsAnchor::ReduceL2:
      return then(sumOf(square, true),
                  [&](Value sum) -> Value { return math::SqrtOp::create(b, loc, sum); });
    case RowsAnchor::ReduceLogSum:
      return then(sumOf(identity, true),
                  [&](Value sum) -> Value { return math::LogOp::create(b, loc, sum); });
    case RowsAnchor::ReduceLogSumExp: {
      FailureOr<Value> max = reduceWith(Combine::Max, -infinity, identity);
      if (failed(max))
        return Value();
      // A row of -inf shifts by 0: log(sum) is then -inf.
      Value finite =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, *max, constant(-infinity));
      Value shift = arith::SelectOp::create(b, loc, finite, *max, constant(0));
      return then(
          sumOf([&](Value x) { return exp(arith::SubFOp::create(b, loc, x, shift)); }, false),
          [&](Value sum) -> Value {
            return arith::AddFOp::create(b, loc, math::LogOp::create(b, loc, sum), shift);
          });
    }
    default:
      return Value();
    }
  };
  Value reduced = reduce();
  if (!reduced)
    return failure();
  return writeReduced(reduced);
}

/// The kernel's name: the anchor, the shape, a hash of the body (prologue, epilogue and
/// operand layouts) and the configuration.
std::string kernelName(kernel::FuncOp function, const RowsProblem &problem,
                       const RowsConfig &config) {
  std::string text;
  llvm::raw_string_ostream os(text);
  function.getBody().front().front().print(os, OpPrintingFlags().skipRegions(false));
  for (MemRefType type : problem.buffers)
    os << type;
  return llvm::formatv("rows_{0}_{1}x{2}_{3}_t{4}r{5}v{6}", anchorName(problem.anchor),
                       problem.dynamicRows ? std::string("n") : std::to_string(problem.rows),
                       problem.rowLength,
                       llvm::utohexstr(uint32_t(llvm::hash_value(text)), /*LowerCase=*/true),
                       config.threadsPerRow, config.rowsPerCta, config.vector)
      .str();
}

/// Generates the kernels whose `kernel.config` is #kernel.rows.
struct RowsGenerator {
  ModuleOp module;
  SymbolTable &symbols;
  StringRef target;
  StringRef pass;

  LogicalResult run(kernel::FuncOp function, const RowsProblem &problem, const RowsConfig &config) {
    RowsStorage storage = kiln::rowsStorage(problem, config, target);
    FailureOr<gpu::GPUFuncOp> kernel =
        getOrCreateKernel(module, symbols, function, problem, config, storage);
    if (failed(kernel))
      return failure();
    kiln::replaceLaunches(function, module, symbols, [&](kernel::LaunchOp launch) {
      replaceLaunch(launch, *kernel, problem, config, storage);
      return success();
    });
    return success();
  }

  FailureOr<gpu::GPUFuncOp> getOrCreateKernel(ModuleOp module, SymbolTable &symbols,
                                              kernel::FuncOp function, const RowsProblem &problem,
                                              const RowsConfig &config, RowsStorage storage) {
    std::string entry = kernelName(function, problem, config);
    std::string moduleName = "kiln_" + entry;
    if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName))
      return existing.lookupSymbol<gpu::GPUFuncOp>(entry);
    MLIRContext *context = module.getContext();
    Location loc = problem.anchorOp->getLoc();
    OpBuilder b(context);
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, loc, moduleName);
    SmallVector<Type> parameters;
    for (MemRefType type : problem.buffers)
      parameters.push_back(MemRefType::get({}, type.getElementType()));
    if (problem.dynamicRows)
      parameters.push_back(b.getI32Type()); // the row count
    SmallVector<Type> workgroup;
    if (config.threadsPerRow > 32)
      workgroup.push_back(
          MemRefType::get({32 * kCombineSlots}, b.getF32Type(), AffineMap(),
                          gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup)));
    b.setInsertionPointToStart(gpuModule.getBody());
    auto kernel = gpu::GPUFuncOp::create(b, loc, entry, b.getFunctionType(parameters, {}),
                                         workgroup, TypeRange{});
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    kernel.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({int32_t(config.threads()), 1, 1}));
    RowKernelBuilder builder(b, loc, problem, config, storage, kernel);
    if (failed(builder.build())) {
      gpuModule.erase();
      return module.emitError(pass) << ": cannot emit the row kernel " << entry
                                    << " (a pointwise op has no scalar emission)";
    }
    symbols.insert(gpuModule);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(context));
    return kernel;
  }

  void replaceLaunch(kernel::LaunchOp launch, gpu::GPUFuncOp kernelFunc, const RowsProblem &problem,
                     const RowsConfig &config, RowsStorage storage) {
    OpBuilder b(launch);
    NamedAttrList metadata;
    metadata.set("kernel", launch.getCalleeAttr().getAttr());
    metadata.set("template", b.getStringAttr("rows"));
    metadata.set("config", b.getStringAttr(config.describe()));
    Location loc =
        FusedLoc::get(b.getContext(), {launch.getLoc()}, metadata.getDictionary(b.getContext()));
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, loc, value);
    };
    SmallVector<Value> pointers;
    for (Value operand : launch.getOperands())
      pointers.push_back(kiln::barePointer(b, loc, operand));
    Value ctas = index((problem.rows + config.rowsPerCta - 1) / config.rowsPerCta);
    if (problem.dynamicRows) {
      // The row count, read off the output on the host (the engine's shape program
      // computes it, and the grid, per input shape).
      Value output = launch.getOperands()[problem.outputs.front().argument];
      Value elements =
          kiln::hostExtentProduct(b, loc, output, 0, cast<MemRefType>(output.getType()).getRank());
      Value rows = arith::DivUIOp::create(b, loc, elements, index(problem.resultLength));
      pointers.push_back(arith::IndexCastOp::create(b, loc, b.getI32Type(), rows));
      ctas = arith::CeilDivUIOp::create(b, loc, rows, index(config.rowsPerCta));
    }
    int64_t shared = storage == RowsStorage::Shared ? sharedRowBytes(problem) : 0;
    Value one = index(1);
    gpu::LaunchFuncOp::create(b, loc, kernelFunc, gpu::KernelDim3{ctas, one, one},
                              gpu::KernelDim3{index(config.threads()), one, one},
                              arith::ConstantIntOp::create(b, loc, shared, 32), pointers);
    launch.erase();
  }
};

/// The family: #kernel.rows on every GPU target.
class RowsTemplate final : public kiln::KernelTemplateOf<kernel::RowsConfigAttr> {
  SmallVector<Attribute> candidates(kernel::FuncOp function,
                                    const kiln::TemplateOptions &options) const override {
    std::optional<RowsProblem> problem = kiln::matchReductionRows(function);
    if (!problem)
      return {};
    SmallVector<Attribute> configs;
    for (const RowsConfig &config : kiln::rowsConfigs(*problem, options.target))
      configs.push_back(config.toAttr(function.getContext()));
    return configs;
  }

  std::optional<std::string> describeProblem(kernel::FuncOp function) const override {
    std::optional<RowsProblem> problem = kiln::matchReductionRows(function);
    if (!problem)
      return std::nullopt;
    return kiln::describeRows(*problem);
  }

  std::string describe(kernel::RowsConfigAttr config) const override {
    return RowsConfig::fromAttr(config).describe();
  }

  double estimateMicros(kernel::FuncOp function, kernel::RowsConfigAttr config,
                        const kiln::DeviceModel &device) const override {
    std::optional<RowsProblem> problem = kiln::matchReductionRows(function);
    if (!problem)
      return kiln::estimateTemplateFallbackMicros(function, device);
    return kiln::estimateRowsMicros(*problem, RowsConfig::fromAttr(config), device.target,
                                    device.multiprocessors, device.bytesPerSecond,
                                    device.launchMicros);
  }

  /// The generic lowering of a row problem: one thread an output element, each reading
  /// its whole row (estimateRowsGenericMicros).
  std::optional<double> estimateGenericMicros(kernel::FuncOp function,
                                              const kiln::DeviceModel &device) const override {
    std::optional<RowsProblem> problem = kiln::matchReductionRows(function);
    if (!problem)
      return std::nullopt;
    return kiln::estimateRowsGenericMicros(*problem, device.bytesPerSecond, device.launchMicros);
  }

  LogicalResult instantiate(kernel::FuncOp function, kernel::RowsConfigAttr attr,
                            kiln::TemplateInstantiation &context) const override {
    std::optional<RowsProblem> problem = kiln::matchReductionRows(function);
    if (!problem)
      return function.emitError(context.pass)
             << ": " << attr
             << " is for a reduction or normalisation over the innermost axes "
                "of contiguous buffers, which this kernel is not";
    RowsConfig config = RowsConfig::fromAttr(attr);
    if (!llvm::is_contained(kiln::rowsConfigs(*problem, context.options.target), config))
      return function.emitError(context.pass)
             << ": " << attr << " is not a configuration of this kernel ("
             << kiln::describeRows(*problem) << ", vector at most " << problem->maxVector << ") on "
             << context.options.target;
    RowsGenerator generator{context.module, context.symbols, context.options.target, context.pass};
    return generator.run(function, *problem, config);
  }
};

} // namespace

namespace kiln {
// Registered in KernelTemplate.cpp.
const KernelTemplate &rowsTemplate() {
  static const RowsTemplate family;
  return family;
}
} // namespace kiln
