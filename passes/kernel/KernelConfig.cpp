//===- KernelConfig.cpp - Candidates and cost model of kernel-autotune ----===//
//
// What kernel-autotune needs to know of the template families, kept out of the tuner so
// that it stays generic: which configurations a kernel has (one list per family, then the
// generic lowering), how to name them for people, and what each would cost when nothing
// was measured. The GEMMs' own configurations (Sm90GemmConfig, matchSm90Gemm,
// sm90GemmConfigs; Sm80GemmConfig, ...) live with their templates in MatmulSm90.cpp and
// MatmulSm80.cpp.
//
//===----------------------------------------------------------------------===//

#include "passes/kernel/KernelConfig.h"

#include "lib/engine/ShapeProgram.h"

#include "dialects/graph/GraphOps.h"
#include "passes/kernel/AttentionConfig.h"
#include "passes/kernel/DepthwiseConfig.h"
#include "passes/kernel/RowsConfig.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

using namespace mlir;

namespace kiln {

DictionaryAttr genericKernelConfig(MLIRContext *context) {
  Builder b(context);
  return b.getDictionaryAttr({b.getNamedAttr("template", b.getStringAttr(kGenericTemplate))});
}

std::string GemmRowVariant::describeRows() const {
  return aboveRows > 0 ? llvm::formatv("above {0} rows", aboveRows).str()
                       : llvm::formatv("at {0} rows or fewer", maxRows).str();
}

std::string GemmRowVariant::describeProfile() const {
  return llvm::formatv("the profile's {0} shape ({1})", aboveRows > 0 ? "max" : "min",
                       rows().profile)
      .str();
}

FailureOr<SmallVector<GemmRowVariant>> getRowVariants(kernel::FuncOp function, StringRef pass) {
  SmallVector<GemmRowVariant> variants;
  Attribute attr = function->getAttr(kKernelRowVariantsAttr);
  if (!attr)
    return variants;
  auto list = dyn_cast<ArrayAttr>(attr);
  if (!list)
    return function.emitError(pass)
           << ": " << kKernelRowVariantsAttr << " must be an array, not " << attr;
  for (Attribute element : list.getValue()) {
    auto entry = dyn_cast<DictionaryAttr>(element);
    auto maxRows = entry ? entry.getAs<IntegerAttr>("max_rows") : nullptr;
    auto aboveRows = entry ? entry.getAs<IntegerAttr>("above_rows") : nullptr;
    auto config = entry ? entry.getAs<DictionaryAttr>("config") : nullptr;
    // Small buckets by ascending max_rows, then at most one large bucket above them.
    int64_t before = variants.empty() ? 0 : variants.back().maxRows;
    bool afterLarge = !variants.empty() && variants.back().aboveRows > 0;
    bool small = maxRows && !aboveRows && maxRows.getInt() > before;
    bool large = aboveRows && !maxRows && aboveRows.getInt() >= std::max<int64_t>(before, 1);
    if (!config || entry.size() != 2 || afterLarge || !(small || large))
      return function.emitError(pass)
             << ": " << kKernelRowVariantsAttr
             << " must list {max_rows = <rows>, config = <configuration>} by ascending "
                "max_rows, then at most one {above_rows = <rows>, config = <configuration>} "
                "not below them, not "
             << attr;
    variants.push_back(small ? GemmRowVariant{maxRows.getInt(), config}
                             : GemmRowVariant{0, config, aboveRows.getInt()});
  }
  return variants;
}

ArrayAttr rowVariantsAttr(MLIRContext *context, ArrayRef<GemmRowVariant> variants) {
  Builder b(context);
  SmallVector<Attribute> entries;
  for (const GemmRowVariant &variant : variants)
    entries.push_back(b.getDictionaryAttr(
        {variant.aboveRows > 0
             ? b.getNamedAttr("above_rows", b.getI64IntegerAttr(variant.aboveRows))
             : b.getNamedAttr("max_rows", b.getI64IntegerAttr(variant.maxRows)),
         b.getNamedAttr("config", variant.config)}));
  return b.getArrayAttr(entries);
}

SmallVector<DictionaryAttr> kernelConfigCandidates(kernel::FuncOp function, StringRef target,
                                                   bool allowTf32) {
  MLIRContext *context = function.getContext();
  SmallVector<DictionaryAttr> candidates;
  // sm_90a: the wgmma/TMA GEMM (architecture-specific, so not on plain sm_90 or sm_80); f32
  // kernels as tf32 when allowed.
  if (target == "sm_90a") {
    if (std::optional<Sm90GemmProblem> problem = matchSm90Gemm(function, allowTf32))
      for (const Sm90GemmConfig &config : sm90GemmConfigs(*problem))
        candidates.push_back(config.toAttr(context));
    if (matchSm90Conv(function, allowTf32))
      for (const Sm90GemmConfig &config : sm90ConvConfigs(function, allowTf32))
        candidates.push_back(config.toAttr(context));
  }
  // Flash attention on every GPU target (its wgmma variant on sm_90a), unless a kernel
  // developer forces one configuration with KILN_FLASH_ATTENTION_CONFIG.
  if (candidates.empty() && target.starts_with("sm_") &&
      !std::getenv("KILN_FLASH_ATTENTION_CONFIG"))
    if (auto module = function->getParentOfType<ModuleOp>())
      if (std::optional<FlashAttentionProblem> problem = matchFlashAttention(function, module))
        for (const FlashAttentionConfig &config : flashAttentionConfigs(*problem, target))
          candidates.push_back(config.toAttr(context));
  // Other GPU targets (sm_80 and later): the mma.sync GEMM, for products and convolutions.
  if (target.starts_with("sm_") && target != "sm_90a") {
    if (std::optional<GemmProblem> problem = matchSm80Gemm(function))
      for (const Sm80GemmConfig &config : sm80GemmConfigs(*problem))
        candidates.push_back(config.toAttr(context));
    if (matchSm80Conv(function))
      for (const Sm80GemmConfig &config : sm80ConvConfigs(function))
        candidates.push_back(config.toAttr(context));
  }
  // Depthwise convolutions (CUDA cores) on every GPU target.
  if (candidates.empty() && target.starts_with("sm_"))
    if (std::optional<DepthwiseProblem> problem = matchDepthwiseConv(function))
      for (const DepthwiseConfig &config : depthwiseConfigs(*problem))
        candidates.push_back(config.toAttr(context));
  // Row kernels for reductions and normalisations on every GPU target.
  if (candidates.empty() && target.starts_with("sm_"))
    if (std::optional<RowsProblem> problem = matchReductionRows(function))
      for (const RowsConfig &config : rowsConfigs(*problem, target))
        candidates.push_back(config.toAttr(context));
  // Further families add theirs here.
  if (candidates.empty())
    return {};
  candidates.push_back(genericKernelConfig(context));
  return candidates;
}

std::string describeKernelConfig(DictionaryAttr config) {
  if (auto name = config.getAs<StringAttr>("template"); name && name == kGenericTemplate)
    return "generic";
  if (std::optional<Sm90GemmConfig> gemm = Sm90GemmConfig::fromAttr(config))
    return gemm->describe();
  if (std::optional<Sm80GemmConfig> gemm = Sm80GemmConfig::fromAttr(config))
    return gemm->describe();
  if (std::optional<FlashAttentionConfig> attention = FlashAttentionConfig::fromAttr(config))
    return attention->describe();
  if (std::optional<DepthwiseConfig> depthwise = DepthwiseConfig::fromAttr(config))
    return depthwise->describe();
  if (std::optional<RowsConfig> rows = RowsConfig::fromAttr(config))
    return rows->describe();
  std::string text;
  llvm::raw_string_ostream os(text);
  config.print(os);
  return text;
}

std::optional<SmallVector<MemRefType>> getStaticBufferTypes(kernel::FuncOp function) {
  SmallVector<MemRefType> types;
  for (BlockArgument argument : function.getBody().front().getArguments()) {
    auto type = dyn_cast<MemRefType>(argument.getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
      return std::nullopt;
    types.push_back(type);
  }
  return types;
}

std::optional<SmallVector<MemRefType>> getOptShapeBufferTypes(kernel::FuncOp function) {
  std::optional<ProfileArguments> arguments = getProfileArguments(function);
  if (!arguments || llvm::is_contained(arguments->types, MemRefType()))
    return std::nullopt;
  return arguments->types;
}

std::optional<ProfileArguments> getProfileArguments(kernel::FuncOp function, StringRef profile) {
  ProfileArguments result;
  bool dynamic = false;
  for (BlockArgument argument : function.getBody().front().getArguments()) {
    auto type = dyn_cast<MemRefType>(argument.getType());
    if (argument.getType().isIndex()) {
      dynamic = true;
    } else if (!type || !type.getLayout().isIdentity()) {
      return std::nullopt;
    } else {
      dynamic |= !type.hasStaticShape();
    }
    result.types.push_back(type);
    result.symbols.push_back(0);
  }
  if (!dynamic)
    return result;
  auto module = function->getParentOfType<ModuleOp>();
  std::optional<SymbolTable::UseRange> uses =
      module ? SymbolTable::getSymbolUses(function, module) : std::nullopt;
  if (!uses)
    return std::nullopt;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto launch = dyn_cast<kernel::LaunchOp>(use.getUser());
    auto host = launch ? launch->getParentOfType<func::FuncOp>() : nullptr;
    if (!host || launch.getOperands().size() != result.types.size())
      continue;
    // A query: what the evaluator cannot evaluate just leaves the extent unknown.
    ScopedDiagnosticHandler quiet(function.getContext(), [](Diagnostic &) { return success(); });
    ProfileShapeEvaluator evaluator(host, profile);
    for (auto [index, type] : llvm::enumerate(result.types)) {
      Value operand = launch.getOperands()[index];
      if (!type) {
        FailureOr<int64_t> value = evaluator.evaluate(operand, launch);
        if (failed(value) || *value < 0)
          return std::nullopt;
        result.symbols[index] = *value;
        continue;
      }
      SmallVector<int64_t> shape(type.getShape());
      for (auto [dim, extent] : llvm::enumerate(shape))
        if (ShapedType::isDynamic(extent)) {
          FailureOr<int64_t> value = evaluator.evaluateExtent(operand, dim, launch);
          if (failed(value) || *value < 0)
            return std::nullopt;
          extent = *value;
        }
      type = MemRefType::get(shape, type.getElementType(), type.getLayout(), type.getMemorySpace());
    }
    return result;
  }
  return std::nullopt;
}

std::optional<BatchBuffers> getBatchBuffers(kernel::FuncOp function, StringRef profile) {
  BatchBuffers result;
  for (Type type : function.getArgumentTypes()) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || !memref.getLayout().isIdentity() ||
        (memref.getRank() > 0 &&
         llvm::any_of(memref.getShape().drop_front(), ShapedType::isDynamic)))
      return std::nullopt;
    result.dynamic |= memref.getRank() > 0 && memref.isDynamicDim(0);
  }
  if (!result.dynamic) {
    result.types = *getStaticBufferTypes(function);
    return result;
  }
  std::optional<ProfileArguments> at = getProfileArguments(function, profile);
  std::optional<ProfileArguments> max = getProfileArguments(function, "kernel.max_shape");
  if (!at || !max)
    return std::nullopt;
  // The run-time extents, at each shape: one value (the batch), or no kernel of one batch.
  auto batchOf = [&](const ProfileArguments &arguments) -> std::optional<int64_t> {
    std::optional<int64_t> batch;
    for (auto [declared, evaluated] : llvm::zip(function.getArgumentTypes(), arguments.types)) {
      auto type = cast<MemRefType>(declared);
      if (type.getRank() == 0 || !type.isDynamicDim(0))
        continue;
      if (batch && *batch != evaluated.getDimSize(0))
        return std::nullopt;
      batch = evaluated.getDimSize(0);
    }
    return batch;
  };
  std::optional<int64_t> batch = batchOf(*at), maxBatch = batchOf(*max);
  if (!batch || !maxBatch)
    return std::nullopt;
  result.types = at->types;
  result.maxBatch = *maxBatch;
  return result;
}

namespace {
std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}
} // namespace

std::string describeKernelProblem(kernel::FuncOp function) {
  // f32 products and convolutions are GEMMs too where tf32 is allowed.
  if (std::optional<Sm90GemmProblem> gemm = matchSm90Gemm(function, /*allowTf32=*/true))
    return llvm::formatv("{0}x{1}x{2} {3}", gemm->m, gemm->n, gemm->k, typeName(gemm->operand))
        .str();
  if (std::optional<GemmProblem> gemm = matchSm80Gemm(function))
    return llvm::formatv("{0}x{1}x{2} {3}", gemm->m, gemm->n, gemm->k, typeName(gemm->operand))
        .str();
  if (std::optional<Sm90GemmProblem> conv = matchSm90Conv(function, /*allowTf32=*/true))
    return llvm::formatv("conv as {0}x{1}x{2} {3}", conv->m, conv->n, conv->k,
                         typeName(conv->operand))
        .str();
  if (std::optional<GemmProblem> conv = matchSm80Conv(function))
    return llvm::formatv("conv as {0}x{1}x{2} {3}", conv->m, conv->n, conv->k,
                         typeName(conv->operand))
        .str();
  if (auto module = function->getParentOfType<ModuleOp>())
    if (std::optional<FlashAttentionProblem> attention = matchFlashAttention(function, module))
      return describeFlashAttention(*attention);
  if (std::optional<DepthwiseProblem> depthwise = matchDepthwiseConv(function))
    return describeDepthwise(*depthwise);
  if (std::optional<RowsProblem> rows = matchReductionRows(function))
    return describeRows(*rows);
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(function.getArgumentTypes(), os, [&](Type type) {
    if (auto shaped = dyn_cast<ShapedType>(type); shaped && shaped.hasRank()) {
      for (int64_t extent : shaped.getShape())
        os << (ShapedType::isDynamic(extent) ? std::string("?") : std::to_string(extent)) << "x";
      os << typeName(shaped.getElementType());
    } else {
      os << typeName(type);
    }
  });
  return text;
}

DeviceModel DeviceModel::forTarget(StringRef target) {
  DeviceModel device; // H200
  if (target.starts_with("sm_8")) {
    // A100 SXM: 108 SMs, 164 KB of shared memory per SM, ~2 TB/s, 312 / 19.5 TFLOP/s.
    device.multiprocessors = 108;
    device.sharedBytesPerMultiprocessor = 164 * 1024;
    device.bytesPerSecond = 2.0e12;
    device.tensorFlopsPerSecond = 312e12;
    device.simtFlopsPerSecond = 19.5e12;
  }
  return device;
}

namespace {
/// The extent the cost model gives a dynamic dimension of `function`'s body: one that
/// makes its output buffer as large as at the profile's opt shape (every dynamic
/// dimension alike: their geometric mean), or 1 when nothing says.
double dynamicExtent(kernel::FuncOp function) {
  auto arguments = function.getBody().front().getArguments();
  if (arguments.empty())
    return 1;
  auto output = dyn_cast<MemRefType>(arguments.back().getType());
  if (!output || output.hasStaticShape())
    return 1;
  std::optional<SmallVector<MemRefType>> opt = getOptShapeBufferTypes(function);
  if (!opt)
    return 1;
  double staticElements = 1, dynamicDims = 0;
  for (int64_t extent : output.getShape())
    ShapedType::isDynamic(extent) ? ++dynamicDims : staticElements *= double(extent);
  double elements = double(opt->back().getNumElements());
  return std::max(1.0, std::pow(elements / std::max(1.0, staticElements), 1.0 / dynamicDims));
}

/// A type's elements, each dynamic extent taken as `dynamic`.
double elementCount(Type type, double dynamic = 1) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return 1;
  double elements = 1;
  for (int64_t extent : shaped.getShape())
    elements *= ShapedType::isDynamic(extent) ? dynamic : double(extent);
  return elements;
}

/// The length of the reduction behind each result element of a matmul, gemm or
/// convolution (K; a convolution's weight elements per output channel), a dynamic size
/// taken as `dynamic`; nullopt for other ops.
std::optional<double> reductionLength(Operation *op, double dynamic) {
  auto extent = [&](ShapedType type, int64_t dim) {
    return type.isDynamicDim(dim) ? dynamic : double(type.getDimSize(dim));
  };
  if (auto matmul = dyn_cast<graph::MatMulOp>(op)) {
    auto lhs = dyn_cast<ShapedType>(matmul.getLhs().getType());
    return lhs && lhs.hasRank() && lhs.getRank() >= 1 ? extent(lhs, lhs.getRank() - 1) : 1;
  }
  if (auto gemm = dyn_cast<graph::GemmOp>(op)) {
    // K is A's columns, or its rows when A is transposed.
    auto a = dyn_cast<ShapedType>(gemm.getA().getType());
    unsigned kDim = gemm.getTransA() ? 0 : 1;
    return a && a.hasRank() && a.getRank() == 2 ? extent(a, kDim) : 1;
  }
  if (auto conv = dyn_cast<graph::ConvOp>(op)) {
    auto weight = dyn_cast<ShapedType>(conv.getWeight().getType());
    return weight && weight.hasStaticShape() && weight.getRank() >= 1 && weight.getDimSize(0) > 0
               ? elementCount(weight) / static_cast<double>(weight.getDimSize(0))
               : 1;
  }
  return std::nullopt;
}
} // namespace

double estimateKernelFlops(kernel::FuncOp function) {
  double dynamic = dynamicExtent(function);
  auto elementCount = [&](Type type) { return ::kiln::elementCount(type, dynamic); };
  auto reductionLength = [&](Operation *op) { return ::kiln::reductionLength(op, dynamic); };
  double flops = 0;
  function.walk([&](Operation *op) {
    if (op->getDialect() == nullptr || op->getDialect()->getNamespace() != "graph")
      return;
    if (isa<graph::ConstantOp>(op))
      return;
    if (std::optional<double> reduction = reductionLength(op)) {
      flops += 2 * elementCount(op->getResult(0).getType()) * *reduction;
      return;
    }
    if (auto attention = dyn_cast<graph::AttentionOp>(op)) {
      // Q K^T and P V: 2 * 2 * Sq * Skv * D a (batch, head).
      auto key = dyn_cast<ShapedType>(attention.getKey().getType());
      double seqKv = key && key.hasRank() && key.getRank() >= 2
                         ? (key.isDynamicDim(key.getRank() - 2)
                                ? dynamic
                                : static_cast<double>(key.getDimSize(key.getRank() - 2)))
                         : 1;
      flops += 4 * elementCount(attention.getQuery().getType()) * seqKv;
      return;
    }
    for (Type result : op->getResultTypes())
      flops += elementCount(result);
  });
  return flops;
}

double estimateGenericReductionMicros(kernel::FuncOp function, const DeviceModel &device) {
  double threads = static_cast<double>(device.multiprocessors * device.threadsPerMultiprocessor);
  double dynamic = dynamicExtent(function);
  double micros = 0;
  function.walk([&](Operation *op) {
    if (std::optional<double> steps = reductionLength(op, dynamic))
      micros += std::ceil(elementCount(op->getResult(0).getType(), dynamic) / threads) * *steps *
                device.genericReductionStepMicros;
  });
  return micros;
}

double estimateKernelBytes(kernel::FuncOp function) {
  // A dynamic kernel's buffers at the opt shape.
  SmallVector<Type> types(function.getArgumentTypes());
  if (std::optional<SmallVector<MemRefType>> opt = getOptShapeBufferTypes(function))
    types.assign(opt->begin(), opt->end());
  double bytes = 0;
  for (Type type : types) {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasStaticShape())
      continue;
    Type element = shaped.getElementType();
    double elementBytes =
        element.isIntOrFloat() ? std::max<double>(1, element.getIntOrFloatBitWidth() / 8.0) : 8;
    bytes += elementCount(shaped) * elementBytes;
  }
  return bytes;
}

namespace {
/// The sm90 GEMM under `config` (see the header's formula).
double estimateSm90GemmMicros(const Sm90GemmProblem &problem, const Sm90GemmConfig &config,
                              double bytes, const DeviceModel &device) {
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  // Split-K: parts of 1/splitK of the tile's work each, and the workspace written and read.
  int64_t tiles =
      ceilDiv(problem.m, config.tileM) * ceilDiv(problem.n, config.tileN) * config.splitK;
  if (config.splitK > 1)
    bytes += 2.0 * 4 * config.splitK * problem.m * problem.n;
  int64_t bySharedMemory =
      device.sharedBytesPerMultiprocessor / std::max<int64_t>(1, config.sharedBytes());
  int64_t byThreads = device.threadsPerMultiprocessor / std::max<int64_t>(1, config.threads());
  // The warp-specialised template asks for all the registers of ctasPerSm CTAs.
  int64_t byRegisters = config.consumers > 0 ? config.ctasPerSm : byThreads;
  int64_t resident = std::max<int64_t>(1, std::min({bySharedMemory, byThreads, byRegisters}));
  int64_t waves = ceilDiv(tiles, device.multiprocessors * resident);
  // Blocks that actually share a multiprocessor in a wave (fewer when tiles are few).
  int64_t sharing = std::min(resident, ceilDiv(tiles, device.multiprocessors));
  // tf32 runs at half the 16-bit rate, int8 at twice it.
  double rate = config.tf32 ? 0.5 : config.int8 ? 2.0 : 1.0;
  double perSm = device.tensorFlopsPerSecond / device.multiprocessors * rate;
  double tileFlops =
      2.0 * config.tileM * config.tileN * static_cast<double>(problem.k) / config.splitK;
  // Efficiency: the MMA's share of a k-step against the tile loads feeding it (area over
  // area plus perimeter x 64), the ring hiding the loads' latency (stages / (stages + 1)),
  // and warp specialisation overlapping them further (x1.25, at most 1).
  double area = static_cast<double>(config.tileM * config.tileN);
  double shape = area / (area + 64.0 * (config.tileM + config.tileN));
  // Resident neighbours hide each other's latency like a deeper ring.
  double depth = static_cast<double>(config.stages * sharing);
  double pipeline = depth / (depth + 1);
  double specialised = config.consumers > 0 ? 1.25 : 1.0;
  double efficiency = std::min(1.0, 2.0 * shape * pipeline * specialised);
  double tileSeconds = tileFlops * sharing / perSm / efficiency;
  double computeSeconds = waves * tileSeconds;
  double memorySeconds = bytes / device.bytesPerSecond;
  // Split-K launches the reduction kernel too.
  double launches = config.splitK > 1 ? 2 : 1;
  return launches * device.launchMicros + 1e6 * std::max(computeSeconds, memorySeconds);
}

/// The sm80 GEMM under `config`: as the sm90 one (waves of tiles at the per-SM tensor
/// rate, or the bytes at the bandwidth), mma.sync reaching a smaller share of the rate.
double estimateSm80GemmMicros(const GemmProblem &problem, const Sm80GemmConfig &config,
                              double bytes, const DeviceModel &device) {
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  int64_t tiles = ceilDiv(problem.m, config.tileM) * ceilDiv(problem.n, config.tileN);
  int64_t bySharedMemory =
      device.sharedBytesPerMultiprocessor / std::max<int64_t>(1, config.sharedBytes());
  int64_t byThreads = device.threadsPerMultiprocessor / std::max<int64_t>(1, config.threads());
  // 64x64 warp tiles hold ~160 registers a thread: 65536 / (160 x threads) CTAs.
  int64_t byRegisters = 65536 / (160 * config.threads());
  int64_t resident = std::max<int64_t>(1, std::min({bySharedMemory, byThreads, byRegisters}));
  int64_t waves = ceilDiv(tiles, device.multiprocessors * resident);
  int64_t sharing = std::min(resident, ceilDiv(tiles, device.multiprocessors));
  double perSm = device.tensorFlopsPerSecond / device.multiprocessors;
  double tileFlops = 2.0 * config.tileM * config.tileN * static_cast<double>(problem.k);
  // Efficiency: the warp tile's fragments per ldmatrix (area over perimeter), the ring
  // hiding the copies' latency, and mma.sync's share of the tensor rate (~0.7 on sm_90).
  double warpM = static_cast<double>(config.tileM / config.warpsM);
  double warpN = static_cast<double>(config.tileN / config.warpsN);
  double shape = warpM * warpN / (warpM * warpN + 16.0 * (warpM + warpN));
  double depth = static_cast<double>(config.stages * sharing);
  double pipeline = depth / (depth + 1);
  double efficiency = std::min(1.0, 0.9 * shape * pipeline);
  double tileSeconds = tileFlops * sharing / perSm / efficiency;
  double computeSeconds = waves * tileSeconds;
  double memorySeconds = bytes / device.bytesPerSecond;
  return device.launchMicros + 1e6 * std::max(computeSeconds, memorySeconds);
}
} // namespace

double estimateMicros(kernel::FuncOp function, DictionaryAttr config, const DeviceModel &device) {
  double bytes = estimateKernelBytes(function);
  double flops = estimateKernelFlops(function);
  auto name = config.getAs<StringAttr>("template");
  if (name && name.getValue() == Sm90GemmConfig::kTemplate) {
    std::optional<Sm90GemmConfig> gemm = Sm90GemmConfig::fromAttr(config);
    bool tf32 = gemm && gemm->tf32;
    std::optional<Sm90GemmProblem> problem = matchSm90Gemm(function, tf32);
    if (!problem)
      problem = matchSm90Conv(function, tf32);
    if (problem && gemm)
      return estimateSm90GemmMicros(*problem, *gemm, bytes, device);
  }
  if (name && name.getValue() == Sm80GemmConfig::kTemplate) {
    std::optional<GemmProblem> problem = matchSm80Gemm(function);
    if (!problem)
      problem = matchSm80Conv(function);
    std::optional<Sm80GemmConfig> gemm = Sm80GemmConfig::fromAttr(config);
    if (problem && gemm)
      return estimateSm80GemmMicros(*problem, *gemm, bytes, device);
  }
  if (std::optional<FlashAttentionConfig> attention = FlashAttentionConfig::fromAttr(config))
    if (auto module = function->getParentOfType<ModuleOp>())
      if (std::optional<FlashAttentionProblem> problem = matchFlashAttention(function, module))
        return estimateFlashAttentionMicros(*problem, *attention, device.multiprocessors,
                                            device.tensorFlopsPerSecond, device.launchMicros);
  if (std::optional<DepthwiseConfig> depthwise = DepthwiseConfig::fromAttr(config))
    if (std::optional<DepthwiseProblem> problem = matchDepthwiseConv(function))
      return estimateDepthwiseMicros(*problem, *depthwise, device.bytesPerSecond,
                                     device.launchMicros);
  if (std::optional<RowsConfig> rows = RowsConfig::fromAttr(config))
    if (std::optional<RowsProblem> problem = matchReductionRows(function))
      // The storage a row gets depends on the shared memory a CTA may have (sm_90's or
      // sm_80's).
      return estimateRowsMicros(
          *problem, *rows, device.sharedBytesPerMultiprocessor > 200 * 1024 ? "sm_90a" : "sm_80",
          device.multiprocessors, device.bytesPerSecond, device.launchMicros);
  bool generic = !name || name.getValue() == kGenericTemplate;
  if (generic)
    if (std::optional<RowsProblem> problem = matchReductionRows(function))
      return estimateRowsGenericMicros(*problem, device.bytesPerSecond, device.launchMicros);
  double rate = generic ? device.simtFlopsPerSecond : device.tensorFlopsPerSecond;
  // The generic lowering computes an attention body as four loop nests (Q K^T, the
  // softmax's two reductions, P V): four launches.
  double launches = 1;
  if (generic)
    function.walk([&](graph::AttentionOp) { launches = 4; });
  double throughputMicros = 1e6 * (bytes / device.bytesPerSecond + flops / rate);
  // The generic lowering's reductions run serially inside their threads: a convolution
  // of few output elements and a long reduction (ResNet-50's layer3 at batch 1: 50176
  // outputs, 2304 steps) takes its steps' latency, far beyond its flops at the SIMT rate.
  if (generic)
    throughputMicros = std::max(throughputMicros, estimateGenericReductionMicros(function, device));
  return launches * device.launchMicros + throughputMicros;
}

} // namespace kiln
