//===- KernelConfig.cpp - What the GEMM families share ---------------------===//
//
// Row variants, the buffers' shapes at a profile's shapes, and the GEMM templates' cost
// models (passes/kernel/KernelConfig.h). The GEMMs' own configurations (Sm90GemmConfig,
// matchSm90Gemm, sm90GemmConfigs; Sm80GemmConfig, ...) live with their templates in
// MatmulSm90.cpp and MatmulSm80.cpp.
//
//===----------------------------------------------------------------------===//

#include "passes/kernel/KernelConfig.h"
#include "dialects/kernel/KernelDialect.h"

#include "passes/analysis/ShapeProgram.h"

#include "dialects/graph/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace mlir;

namespace kiln {

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
  ArrayAttr list = kernel::rowVariantsAttrHelper(function.getContext()).getAttr(function);
  if (!list)
    return variants;
  for (Attribute element : list.getValue()) {
    auto entry = cast<kernel::RowVariantAttr>(element);
    // Small buckets by ascending max_rows, then at most one large bucket above them.
    int64_t before = variants.empty() ? 0 : variants.back().maxRows;
    bool afterLarge = !variants.empty() && variants.back().aboveRows > 0;
    bool small = entry.getMaxRows() > before;
    bool large = entry.getAboveRows() >= std::max<int64_t>(before, 1);
    if (afterLarge || !(small || large))
      return function.emitError(pass)
             << ": kernel.row_variants must list the small buckets (max_rows) by ascending "
                "max_rows, then at most one large bucket (above_rows) not below them, not "
             << list;
    variants.push_back({entry.getMaxRows(), entry.getConfig(), entry.getAboveRows()});
  }
  return variants;
}

ArrayAttr rowVariantsAttr(MLIRContext *context, ArrayRef<GemmRowVariant> variants) {
  SmallVector<Attribute> entries;
  for (const GemmRowVariant &variant : variants)
    entries.push_back(
        kernel::RowVariantAttr::get(context, variant.maxRows, variant.aboveRows, variant.config));
  return ArrayAttr::get(context, entries);
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
  std::optional<ProfileArguments> max = getProfileArguments(function, kiln::kernel::kMaxShapeAttr);
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
  // and warp specialisation overlapping them further (x1.25), at most 0.95.
  double area = static_cast<double>(config.tileM * config.tileN);
  double shape = area / (area + 64.0 * (config.tileM + config.tileN));
  // Resident neighbours hide each other's latency like a deeper ring.
  double depth = static_cast<double>(config.stages * sharing);
  double pipeline = depth / (depth + 1);
  double specialised = config.consumers > 0 ? 1.25 : 1.0;
  double efficiency = std::min(0.95, 1.6 * shape * pipeline * specialised);
  double tileSeconds = tileFlops * sharing / perSm / efficiency;
  // A tile's epilogue, which the tensor cores wait through unless ping-pong consumers
  // overlap it with the other's main loop: ~4.7 us a 128x256 tile with every SM storing
  // (the H200's times of ViT-B/16's products fitted to tiles x (k-tiles / e + o),
  // notebook 2026-11-28-11), in proportion to the part of the tile inside C and to the
  // SMs sharing the bandwidth. With it and without the saturation at 1, the model's picks
  // for the 16 ViT-B/16 and GPT-2 products of the timing cache measured on the H200
  // (566 configurations) are 0.2% slower than the best (geomean; 12% before), 1.04x at
  // worst (1.54x): notebook 2026-11-29-03.
  double stored =
      static_cast<double>(std::min(config.tileM, problem.m) * std::min(config.tileN, problem.n));
  double storing = static_cast<double>(std::min<int64_t>(tiles, device.multiprocessors)) /
                   device.multiprocessors;
  double epilogueSeconds = 4.7e-6 * stored / (128.0 * 256.0) * storing * sharing;
  tileSeconds =
      config.pingpong ? std::max(tileSeconds, epilogueSeconds) : tileSeconds + epilogueSeconds;
  // Stream-K: the last wave's r tiles in parts of 1/parts of their k-tiles each (as the
  // kernel splits them), and on the critical path a tile's f32 sums through the L2 once
  // for each part (one part's store, the last's loads of the others'), each about an
  // epilogue's time (twice a 16-bit result's bytes, to the L2 rather than memory).
  // Against ViT-B/16's batch-32 products on the H200 (notebook 2026-11-29-06): fc2
  // (K = 3072) 63 -> 61 us measured, 53.3 -> 49.2 predicted; the out-projection (K = 768)
  // 22.5 -> 26 us measured, slower predicted too.
  double effectiveWaves = static_cast<double>(waves), fixupSeconds = 0;
  if (config.streamK > 1) {
    // (The launch's grid: fewer tiles than SMs are all split.)
    int64_t grid = std::min<int64_t>(tiles * config.streamK, device.multiprocessors);
    int64_t last = tiles % grid;
    int64_t kTiles = ceilDiv(problem.k * config.elementBytes(), 128);
    int64_t parts =
        last ? std::max<int64_t>(1, std::min({config.streamK, grid / last, kTiles})) : 1;
    effectiveWaves = static_cast<double>(tiles / grid) + (last ? 1.0 / parts : 0.0);
    fixupSeconds = parts > 1 ? parts * epilogueSeconds : 0.0;
  }
  double computeSeconds = effectiveWaves * tileSeconds + fixupSeconds;
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

} // namespace kiln
