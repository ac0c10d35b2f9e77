//===- MatmulSm90.cpp - Hopper tensor-core GEMMs for matmul kernels -------===//
//
// The sm90_gemm family (#kernel.sm90_gemm): the matmul kernels whose body is one plain 2-D product
// of half precision operands (graph.matmul, or graph.gemm with a bias and a transposed B), or of
// f32 ones read as tf32 under allow-tf32, get an sm_90a GEMM (wgmma fed by TMA through an
// mbarrier ring; docs/codegen-sm90.md) instead of the generic lowering. The template is
// instantiated once per operand and result type into a `gpu.module`; each launch of a replaced
// kernel becomes, on the host, two tensor maps (nvgpu.tma.create.descriptor, which the engine
// builder turns into tensor-map launch arguments) and a gpu.launch_func of the right grid and
// dynamic shared memory.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "passes/kernel/GemmMatch.h"
#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/KernelTemplate.h"
#include "passes/kernel/Sm90Template.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <tuple>

using namespace mlir;
namespace graph = kiln::graph;
namespace kernel = kiln::kernel;

namespace {

/// The one-warpgroup template (Sm90Gemm.mlir); the warp-specialised one is instantiated
/// through Sm90Template.h.
constexpr const char kBasicTemplate[] =
#include "passes/kernel/templates/Sm90Gemm.mlir.inc"
    ;

/// The shared memory one CTA may have on an sm_90 SM (227 KB), and what an SM has for all
/// of its CTAs (228 KB, of which the system takes 1 KB a CTA).
constexpr int64_t kMaxSharedBytes = 232448;
constexpr int64_t kSharedBytesPerSm = 233472;
constexpr int64_t kSystemSharedBytesPerCta = 1024;

/// The operands of `problem` whose rows are no multiple of 16 bytes, which a tensor map
/// cannot stride: the warp-specialised template's producer threads load them (half
/// precision; a K-major B of such rows is not taken).
kiln::Sm90ThreadLoads threadLoads(const kiln::Sm90GemmProblem &problem) {
  kiln::Sm90ThreadLoads threads;
  threads.a = problem.k % 8 != 0;
  threads.b = !problem.kMajorB && problem.n % 8 != 0;
  threads.bElements = (problem.batched ? problem.bMatrices : 1) * problem.k * problem.n;
  return threads;
}

} // namespace

//===----------------------------------------------------------------------===//
// Configurations (passes/kernel/KernelConfig.h)
//===----------------------------------------------------------------------===//

std::optional<kiln::Sm90GemmConfig> kiln::Sm90GemmConfig::fromAnyAttr(Attribute attr) {
  if (auto gemm = dyn_cast<kernel::Sm90GemmConfigAttr>(attr))
    return fromAttr(gemm);
  if (auto conv = dyn_cast<kernel::Sm90ConvConfigAttr>(attr))
    return fromAttr(conv);
  return std::nullopt;
}

std::string kiln::Sm90GemmConfig::describe() const {
  std::string text =
      llvm::formatv("sm90 wgmma+TMA {0}x{1}x{2}, {3} stages", tileM, tileN, tileK, stages).str();
  if (consumers > 0)
    text += llvm::formatv(", {0} consumer warpgroups", consumers).str();
  if (persistent)
    text += ", persistent";
  if (splitK > 1)
    text += llvm::formatv(", split-K {0}", splitK).str();
  if (ctasPerSm > 1)
    text += llvm::formatv(", {0} CTAs an SM", ctasPerSm).str();
  if (tf32)
    text += ", tf32";
  if (int8)
    text += ", int8";
  if (residentKTiles > 0)
    text += llvm::formatv(", B resident ({0} k-tiles)", residentKTiles).str();
  if (pingpong)
    text += ", ping-pong consumers";
  if (streamK > 1)
    text += llvm::formatv(", stream-K (last wave in up to {0} parts)", streamK).str();
  return text;
}

std::string kiln::Sm90GemmConfig::name() const {
  std::string text = llvm::formatv("{0}x{1}x{2}_s{3}", tileM, tileN, tileK, stages).str();
  if (consumers > 0)
    text += llvm::formatv("_ws{0}", consumers).str();
  if (persistent)
    text += "_p";
  if (splitK > 1)
    text += llvm::formatv("_k{0}", splitK).str();
  if (ctasPerSm > 1)
    text += llvm::formatv("_c{0}", ctasPerSm).str();
  if (tf32)
    text += "_tf32";
  if (int8)
    text += "_i8";
  if (residentKTiles > 0)
    text += llvm::formatv("_rb{0}", residentKTiles).str();
  if (pingpong)
    text += "_pp";
  if (streamK > 1)
    text += llvm::formatv("_sk{0}", streamK).str();
  return text;
}

int64_t kiln::Sm90GemmConfig::threads() const {
  // One warpgroup, or the consumers and a producer warpgroup (a producer warp with two
  // CTAs an SM, which move no registers between the roles).
  if (consumers == 0)
    return 128;
  return 128 * consumers + (ctasPerSm == 1 ? 128 : 32);
}

int64_t kiln::Sm90GemmConfig::stagingBytes(int64_t resultBytes) const {
  if (consumers == 0)
    return 0;
  // (Ping-pong consumers: 64 rows each, one slice of their tile at a time.)
  if (fragmentEpilogue())
    return tileM * (fragmentPassColumns() * resultBytes + 16);
  return tileM * stagedColumns() * 4;
}

int64_t kiln::Sm90GemmConfig::ringAndStagingBytes(int64_t resultBytes) const {
  // The ring (A and B tiles per stage, or A's and the resident B) and the staging of C:
  // past the ring for a persistent grid, else in it (or past its end, when the ring is
  // smaller).
  int64_t ring = ringBytes();
  int64_t staging = stagingBytes(resultBytes);
  return persistent ? ring + staging : std::max(ring, staging);
}

int64_t kiln::Sm90GemmConfig::sharedBytes(int64_t resultBytes) const {
  // And 2048 bytes of slack for the 1024 alignment.
  return ringAndStagingBytes(resultBytes) + 2048;
}

bool kiln::sm90ConfigFitsSm(const Sm90GemmConfig &config, int64_t extraSharedBytes,
                            int64_t resultBytes) {
  int64_t shared = config.sharedBytes(resultBytes) + extraSharedBytes;
  if (shared > kMaxSharedBytes)
    return false;
  if (config.ctasPerSm == 1)
    return true;
  // Two CTAs: warp-specialised, consumers of at most 64 x 128 accumulators (96 registers
  // a thread), and both CTAs' shared memory on the SM.
  return config.ctasPerSm == 2 && config.consumers > 0 && config.tileN <= 128 &&
         config.ctasPerSm * (shared + kSystemSharedBytesPerCta) <= kSharedBytesPerSm;
}

SmallVector<kiln::Sm90GemmConfig>
kiln::sm90TwoCtaConfigs(function_ref<int64_t(int64_t tileN)> tiles) {
  SmallVector<Sm90GemmConfig> configs;
  // Where the tiles outnumber the SMs, two CTAs an SM hide each other's epilogue (most of
  // the time of a product with a short K): 64-wide tiles with 4 stages, or 3 on a
  // persistent grid (which stages C past the ring), and 128-wide ones with 3 stages (a
  // persistent grid's staging would not fit), or 2, which leaves room for a residual tile
  // (sm90ResidualTileBytes) where K is a k-tile or two (a bottleneck's last 1x1 conv).
  for (auto [tileN, stages, persistent] : {std::tuple<int64_t, int64_t, bool>{64, 4, false},
                                           {64, 3, true},
                                           {128, 3, false},
                                           {128, 2, false}}) {
    Sm90GemmConfig config;
    config.tileN = tileN;
    config.stages = stages;
    config.consumers = 2;
    config.persistent = persistent;
    config.ctasPerSm = 2;
    if (tiles(tileN) > kSm90Multiprocessors && sm90ConfigFitsSm(config))
      configs.push_back(config);
  }
  return configs;
}

SmallVector<kiln::Sm90GemmConfig> kiln::sm90PingPongConfigs(int64_t tiles128, bool residual) {
  // Ping-pong consumers hide each tile's epilogue under the other consumer's wgmma
  // (docs/codegen-sm90.md).
  SmallVector<Sm90GemmConfig> configs;
  if (tiles128 <= kSm90Multiprocessors)
    return configs;
  for (int64_t stages : {4, 3}) {
    if (stages == 3 && !residual)
      break;
    Sm90GemmConfig config;
    config.stages = stages;
    config.consumers = 2;
    config.persistent = true;
    config.pingpong = true;
    configs.push_back(config);
  }
  // Stream-K where the last wave of tiles is ragged.
  if (streamKPays(tiles128)) {
    Sm90GemmConfig config = configs.front();
    config.streamK = kStreamKParts;
    configs.push_back(config);
  }
  return configs;
}

void kiln::makeTf32Configs(MutableArrayRef<Sm90GemmConfig> configs) {
  for (Sm90GemmConfig &config : configs) {
    config.tf32 = true;
    config.tileK = 32;
  }
}

void kiln::makeInt8Configs(MutableArrayRef<Sm90GemmConfig> configs) {
  for (Sm90GemmConfig &config : configs) {
    config.int8 = true;
    config.tileK = 128;
  }
}

void kiln::addResidentBConfigs(SmallVectorImpl<Sm90GemmConfig> &configs, int64_t n,
                               function_ref<int64_t(const Sm90GemmConfig &)> kTiles,
                               int64_t residualElementBytes) {
  SmallVector<Sm90GemmConfig> all;
  for (const Sm90GemmConfig &config : configs) {
    all.push_back(config);
    if (!config.persistent || config.splitK > 1 || config.consumers == 0 ||
        config.residentKTiles > 0 || n > config.tileN)
      continue;
    Sm90GemmConfig resident = config;
    resident.residentKTiles = kTiles(config);
    // Room for the two residual slots of a persistent grid (at most 32 bytes of padding
    // a row: Sm90Template.cpp's residualBoxes).
    int64_t reserve =
        residualElementBytes ? 2 * config.tileM * (config.tileN * residualElementBytes + 32) : 0;
    int64_t most = std::min<int64_t>(16, 2 * config.stages);
    for (resident.stages = most; resident.stages >= 2; --resident.stages)
      if (sm90ConfigFitsSm(resident, reserve))
        break;
    if (resident.stages >= 2)
      all.push_back(resident);
  }
  configs.assign(all.begin(), all.end());
}

bool kiln::kernelConfigAsksTf32(kernel::FuncOp function) {
  Attribute config = kernel::configAttrHelper(function.getContext()).getAttr(function);
  std::optional<Sm90GemmConfig> gemm = config ? Sm90GemmConfig::fromAnyAttr(config) : std::nullopt;
  return gemm && gemm->tf32;
}

std::optional<kiln::Sm90GemmProblem> kiln::matchSm90Gemm(kernel::FuncOp function, bool allowTf32,
                                                         GemmRows rows) {
  std::optional<GemmProblem> problem = matchGemmKernel(function, allowTf32, rows);
  if (!problem || sm90GemmConfigs(*problem).empty())
    return std::nullopt;
  return problem;
}

SmallVector<kiln::Sm90GemmConfig> kiln::sm90GemmConfigs(const Sm90GemmProblem &problem) {
  SmallVector<Sm90GemmConfig> configs;
  auto fits = [&](const Sm90GemmConfig &config) {
    // (The fragment epilogue stages results of the result's type.)
    if (!kiln::sm90ConfigFitsSm(config, 0, problem.result.getIntOrFloatBitWidth() / 8))
      return false;
    // A 256-column tile over fewer columns only wastes half of its work.
    if (config.tileN > 128 && problem.n < config.tileN)
      return false;
    // The warp-specialised template handles partial tiles. TMA needs 16-byte row strides
    // (of 16 i8 elements for an i8 operand or result); half-precision operands of other
    // rows are loaded by the producer's threads (cooperative consumers, one CTA an SM, no
    // split-K or resident B), but a K-major B's. C's rows of another length are stored a
    // few elements at a time, which split-K's reduction and the ping-pong consumers'
    // pairs do not do.
    if (config.consumers) {
      bool half = problem.operand.isF16() || problem.operand.isBF16();
      kiln::Sm90ThreadLoads threads = threadLoads(problem);
      if (!half)
        return problem.n % 8 == 0 && problem.k % 8 == 0 &&
               (!problem.operand.isInteger(8) || problem.k % 16 == 0) &&
               (!problem.result.isInteger(8) || problem.n % 16 == 0);
      if ((problem.kMajorB && problem.k % 8 != 0) ||
          (problem.n % 8 != 0 && (config.splitK > 1 || config.pingpong || config.streamK > 1)))
        return false;
      // (The threads' raw buffers take shared memory past the ring and the staging.)
      return !threads.any() ||
             (!config.pingpong && config.consumers == 2 && config.ctasPerSm == 1 &&
              config.splitK == 1 && config.residentKTiles == 0 &&
              kiln::sm90ConfigFitsSm(config,
                                     kiln::sm90ThreadLoadRawBytes(config, threads, problem.k),
                                     problem.result.getIntOrFloatBitWidth() / 8));
    }
    // The one-warpgroup template reads a row-major f16/bf16 B only, of whole tiles.
    return !problem.kMajorB && !problem.dynamicM && problem.m % config.tileM == 0 &&
           problem.n % config.tileN == 0 && problem.k % config.tileK == 0;
  };
  auto add = [&](int64_t tileN, int64_t stages, int64_t consumers) {
    Sm90GemmConfig config;
    config.tileN = tileN;
    config.stages = stages;
    config.consumers = consumers;
    if (fits(config))
      configs.push_back(config);
  };
  // The default comes first. The 128x256 tile is the fastest where it fills the GPU: at
  // least one CTA per SM of an H200 (132); smaller products do better with more, narrower
  // tiles (docs/notebook/2026-11-22-09-gemm-edges-small-products.md). kernel-autotune
  // measures them all.
  auto tilesAt = [&](int64_t rows, int64_t tileN) {
    return llvm::divideCeil(rows, 128) * llvm::divideCeil(problem.n, tileN);
  };
  auto tiles = [&](int64_t tileN) { return tilesAt(problem.m, tileN); };
  bool wideFills = tiles(256) >= 132;
  // Products at most 64 wide waste half of a 128-wide tile.
  if (problem.n <= 64)
    add(/*tileN=*/64, /*stages=*/6, /*consumers=*/2);
  if (wideFills)
    add(/*tileN=*/256, /*stages=*/4, /*consumers=*/2);
  add(/*tileN=*/128, /*stages=*/4, /*consumers=*/2);
  if (!wideFills)
    add(/*tileN=*/256, /*stages=*/4, /*consumers=*/2);
  add(/*tileN=*/256, /*stages=*/3, /*consumers=*/2);
  add(/*tileN=*/128, /*stages=*/6, /*consumers=*/2);
  if (problem.n > 64)
    add(/*tileN=*/64, /*stages=*/6, /*consumers=*/2);
  // Persistent grids where there are more tiles than SMs: the next tile's loads overlap
  // the epilogue, which pays most where K is short.
  auto addPersistent = [&](int64_t tileN, int64_t stages) {
    Sm90GemmConfig config;
    config.tileN = tileN;
    config.stages = stages;
    config.consumers = 2;
    config.persistent = true;
    if (tiles(tileN) > kSm90Multiprocessors && fits(config))
      configs.push_back(config);
  };
  addPersistent(/*tileN=*/128, /*stages=*/4);
  addPersistent(/*tileN=*/64, /*stages=*/6);
  // With a residual: fewer stages leave room for its two slots (sm90ResidualTileBytes).
  if (kiln::sm90HasResidualInput(problem.epilogue)) {
    addPersistent(/*tileN=*/128, /*stages=*/3);
    addPersistent(/*tileN=*/128, /*stages=*/2);
  }
  for (const Sm90GemmConfig &config : kiln::sm90TwoCtaConfigs(tiles))
    if (fits(config))
      configs.push_back(config);
  // Ping-pong consumers: f16 and bf16 products with a row-major B (upstream's wgmma of
  // 128-row accumulators).
  if (!problem.kMajorB && !problem.operand.isF32() && !problem.operand.isInteger(8) &&
      problem.n > 64)
    for (const Sm90GemmConfig &config :
         kiln::sm90PingPongConfigs(tiles(128), kiln::sm90HasResidualInput(problem.epilogue)))
      if (fits(config))
        configs.push_back(config);
  // Stream-K over 128 x 256 tiles, where their last wave is ragged: a persistent grid of
  // cooperative consumers whose fragment epilogue stages 16-bit results (the f32 staging
  // would not fit beside a ring of 3 stages). Half the operand loads a FLOP of 128 x 128
  // tiles, without their quantisation: ViT-B/16's N = 768 products at batch 32 are 150
  // such tiles, 1.14 waves.
  if (!problem.kMajorB && (problem.operand.isF16() || problem.operand.isBF16()) &&
      problem.result.getIntOrFloatBitWidth() <= 16 && streamKPays(tiles(256))) {
    Sm90GemmConfig config;
    config.tileN = 256;
    config.stages = 3;
    config.consumers = 2;
    config.persistent = true;
    config.streamK = kiln::kStreamKParts;
    if (fits(config))
      configs.push_back(config);
  }
  // 192 x 192 tiles on three consumers: 1.5x the FLOPs an operand byte of 128 x 128 tiles
  // (1.3x of 128 x 256), in as many waves as the product has tiles for (ViT-B/16's
  // products at batch 32 are 33 rows of them by 4, 12 or 16: whole waves, where 128-wide
  // tiles leave a ragged last one). Their fragment epilogue stages 16-bit results; with
  // one tile a CTA the staging reuses the ring; past it, a staging of 64 columns at a time
  // leaves room for 4 stages as well (3 kept as a candidate: the ring's depth against the
  // staging's passes).
  if ((problem.operand.isF16() || problem.operand.isBF16()) &&
      problem.result.getIntOrFloatBitWidth() <= 16 && !problem.batched &&
      !threadLoads(problem).any()) {
    int64_t tiles192 = llvm::divideCeil(problem.m, 192) * llvm::divideCeil(problem.n, 192);
    for (auto [persistent, stages] : {std::pair<bool, int64_t>{false, 4}, {true, 4}, {true, 3}}) {
      Sm90GemmConfig config;
      config.tileM = 192;
      config.tileN = 192;
      config.consumers = 3;
      config.persistent = persistent;
      config.stages = stages;
      if ((persistent ? tiles192 > kSm90Multiprocessors : tiles192 >= kSm90Multiprocessors / 2) &&
          fits(config))
        configs.push_back(config);
    }
  }
  // Split-K where the tiles are fewer than the SMs, each part keeping 4 k-tiles or more
  // (a k-tile is 128 bytes of K).
  int64_t kTiles =
      llvm::divideCeil(problem.k * problem.operand.getIntOrFloatBitWidth() / 8, int64_t(128));
  // A run-time M's must pay up to its most rows too (its workspace is that large).
  for (int64_t parts : kiln::kSplitKParts) {
    if (problem.maxM <= 0 || !kiln::splitKPays(tilesAt(problem.maxM, 128), kTiles, parts))
      continue;
    Sm90GemmConfig config;
    config.stages = 4;
    config.consumers = 2;
    config.splitK = parts;
    if (kiln::splitKPays(tiles(128), kTiles, parts) && fits(config))
      configs.push_back(config);
  }
  add(/*tileN=*/128, /*stages=*/3, /*consumers=*/0);
  if (problem.operand.isF32())
    kiln::makeTf32Configs(configs);
  if (problem.operand.isInteger(8))
    kiln::makeInt8Configs(configs);
  // A batched product: the warp-specialised template without split-K (its workspace is
  // one matrix's) and without B resident in shared memory (each tile's matrix has its own
  // B); tiles never straddle two matrices.
  if (problem.batched) {
    llvm::erase_if(configs, [](const Sm90GemmConfig &config) {
      return config.consumers == 0 || config.splitK > 1;
    });
    return configs;
  }
  // (A resident B is loaded by TMA.)
  if (threadLoads(problem).any())
    return configs;
  kiln::addResidentBConfigs(
      configs, problem.n,
      [&](const Sm90GemmConfig &config) { return llvm::divideCeil(problem.k, config.tileK); },
      kiln::sm90ResidualElementBytes(problem.epilogue));
  return configs;
}

namespace {

/// The A operand of a batched `problem` (GemmProblem::batched): A's matrices read as one
/// [aMatrices, M, K] tensor map in 1 x 128 x TILE_K boxes; the tiles are ceil(M / 128) per
/// matrix of C, matrix after matrix, so that none straddles two; the tile's matrices of
/// A and B (%bmA, %bmB) follow from C's by the broadcast strides; C's rows are the
/// matrices' rows one after the other.
kiln::Sm90AOperand batchedMatrixA(const kiln::Sm90GemmProblem &problem, int64_t kTileBytes) {
  int64_t rows = problem.matrixRows, tilesPerMatrix = llvm::divideCeil(rows, int64_t(128));
  // Matrix index -> operand matrix: sum over C's batch dimensions (innermost last) of the
  // index along it times the operand's stride.
  auto operandMatrix = [&](StringRef name, ArrayRef<int64_t> strides) {
    std::string text = llvm::formatv("    %{0}None = arith.constant 0 : index\n", name).str();
    std::string running = (name + "None").str();
    int64_t inner = 1;
    for (int64_t d = int64_t(problem.batchExtents.size()) - 1; d >= 0; --d) {
      int64_t extent = problem.batchExtents[d];
      if (strides[d] != 0) {
        text += llvm::formatv(R"(    %{0}Inner{1} = arith.constant {2} : index
    %{0}Extent{1} = arith.constant {3} : index
    %{0}Stride{1} = arith.constant {4} : index
    %{0}Q{1} = arith.divui %bmMatrix, %{0}Inner{1} : index
    %{0}I{1} = arith.remui %{0}Q{1}, %{0}Extent{1} : index
    %{0}T{1} = arith.muli %{0}I{1}, %{0}Stride{1} : index
    %{0}S{1} = arith.addi %{5}, %{0}T{1} : index
)",
                              name, d, inner, extent, strides[d], running)
                    .str();
        running = llvm::formatv("{0}S{1}", name, d).str();
      }
      inner *= extent;
    }
    return text +
           llvm::formatv("    %{0} = arith.addi %{1}, %{0}None : index\n", name, running).str();
  };
  kiln::Sm90AOperand a;
  a.box = "1x128x{TILE_K}";
  a.boxBytes = 128 * kTileBytes;
  a.tilesM =
      llvm::formatv("    %tilesM = arith.constant {0} : index", problem.batch() * tilesPerMatrix)
          .str();
  a.tileSetup = llvm::formatv(R"(    %bmTilesPerMatrix = arith.constant {0} : index
    %bmRows = arith.constant {1} : index
    %bmMatrix = arith.divui %tileRow, %bmTilesPerMatrix : index
    %bmTile = arith.remui %tileRow, %bmTilesPerMatrix : index
    %m0 = arith.muli %bmTile, %c128 : index
    %bmMatrixRows = arith.muli %bmMatrix, %bmRows : index
)",
                              tilesPerMatrix, rows)
                    .str() +
                operandMatrix("bmA", problem.aBatchStrides) +
                operandMatrix("bmB", problem.bBatchStrides);
  a.loadA = "          nvgpu.tma.async.load %descA[%k0, %m0, %bmA], %full[%slot] to %a : !tmA, "
            "!bars -> !tileA";
  a.descMap = "%descBTile : !halfA, !tmBTile";
  a.rowEnd = llvm::formatv(R"(      %bmRowsLeft = arith.subi %bmRows, %m0 : index
      %rowEnd = arith.minui %bmRowsLeft, %c128 : index)")
                 .str();
  a.rowMap = R"(        %bmRow = arith.addi %m0, %r : index
        %grow = arith.addi %bmMatrixRows, %bmRow : index
        %rowOk = arith.constant true)";
  a.bMatrix = "%bmB";
  a.rowsBound = "%bmRows";
  a.aMatrix = "%bmA";
  a.elements = llvm::formatv("    %aElements = arith.constant {0} : index",
                             problem.aMatrices * rows * problem.k)
                   .str();
  return a;
}

/// Generates the GEMMs of the kernels whose `kernel.config` is #kernel.sm90_gemm.
struct Sm90GemmGenerator {
  ModuleOp module;
  SymbolTable &symbols;
  StringRef pass;
  /// A launch could not be generated (an internal error, reported): the pass fails.
  bool hardFailure = false;

  StringRef getArgument() const { return pass; }

  LogicalResult run(kernel::FuncOp function, const kiln::Sm90GemmProblem &problem,
                    const kiln::Sm90GemmConfig &config) {
    FailureOr<SmallVector<Variant, 2>> variants =
        getVariants(module, symbols, function, problem, config.tf32);
    if (failed(variants))
      return failure();
    FailureOr<gpu::GPUFuncOp> gemm = getOrCreateGemm(module, symbols, function, problem, config);
    if (failed(gemm))
      return failure();
    // kernel.config serves the Ms between the small buckets and the large one.
    auto large = llvm::find_if(*variants, [](const Variant &v) { return v.aboveRows > 0; });
    int64_t maxRows = large != variants->end() ? large->aboveRows : 0;
    variants->insert(large, {*gemm, config, problem, maxRows});
    // A launch whose B is to be transposed but is no constant there keeps the generic
    // lowering.
    kiln::replaceLaunches(function, module, symbols, [&](kernel::LaunchOp launch) {
      return replaceLaunch(module, symbols, launch, problem, *variants);
    });
    return success(!hardFailure);
  }

  /// One configuration of a kernel's launches: its GEMM, for the Ms up to `maxRows` (above
  /// the variant before it), or with 0 for the rest; `aboveRows` > 0 for the large Ms'
  /// bucket.
  struct Variant {
    gpu::GPUFuncOp gemm;
    kiln::Sm90GemmConfig config;
    kiln::Sm90GemmProblem problem;
    int64_t maxRows = 0;
    int64_t aboveRows = 0;
  };

  /// The GEMMs of `function`'s row variants (kKernelRowVariantsAttr), each a configuration
  /// of its GEMM at the profile's shape of its bucket (GemmRowVariant::rows).
  FailureOr<SmallVector<Variant, 2>> getVariants(ModuleOp module, SymbolTable &symbols,
                                                 kernel::FuncOp function,
                                                 const kiln::Sm90GemmProblem &problem, bool tf32) {
    FailureOr<SmallVector<kiln::GemmRowVariant>> listed =
        kiln::getRowVariants(function, getArgument());
    if (failed(listed))
      return failure();
    SmallVector<Variant, 2> variants;
    if (!listed->empty() && !problem.dynamicM)
      return function.emitError(getArgument())
             << ": kernel.row_variants on a GEMM whose rows are static";
    for (const kiln::GemmRowVariant &listedVariant : *listed) {
      std::optional<kiln::Sm90GemmProblem> bucket =
          kiln::matchSm90Gemm(function, tf32, listedVariant.rows());
      if (!bucket)
        return function.emitError(getArgument())
               << ": a row variant " << listedVariant.describeRows() << " needs "
               << listedVariant.describeProfile();
      auto attr = dyn_cast<kernel::Sm90GemmConfigAttr>(listedVariant.config);
      std::optional<kiln::Sm90GemmConfig> config =
          attr ? std::optional(kiln::Sm90GemmConfig::fromAttr(attr)) : std::nullopt;
      if (!config || config->consumers == 0 ||
          !kiln::isListedConfig<kiln::Sm90GemmConfig>(kiln::sm90GemmConfigs(*bucket), *config))
        return function.emitError(getArgument())
               << ": row variant " << listedVariant.config
               << " is not a warp-specialised configuration of this GEMM "
               << listedVariant.describeRows();
      FailureOr<gpu::GPUFuncOp> gemm = getOrCreateGemm(module, symbols, function, *bucket, *config);
      if (failed(gemm))
        return failure();
      variants.push_back({*gemm, *config, *bucket, listedVariant.maxRows, listedVariant.aboveRows});
    }
    return variants;
  }

  /// The template's kernel for `problem`'s types and `config`, instantiated into a
  /// gpu.module of `module` once.
  FailureOr<gpu::GPUFuncOp> getOrCreateGemm(ModuleOp module, SymbolTable &symbols,
                                            kernel::FuncOp function,
                                            const kiln::Sm90GemmProblem &problem,
                                            const kiln::Sm90GemmConfig &config) {
    std::string entryName =
        kiln::sm90GemmEntryName(problem.operand, problem.result, problem.kMajorB, config);
    if (problem.batched) {
      // Its geometry is the kernel's constants: in its name ("_b12x197_a1x12_b0x1").
      auto join = [](ArrayRef<int64_t> values) {
        std::string text;
        for (int64_t value : values)
          text += (text.empty() ? "" : "x") + std::to_string(value);
        return text;
      };
      entryName += "_b" + join(problem.batchExtents) + "r" + std::to_string(problem.matrixRows) +
                   "_sa" + join(problem.aBatchStrides) + "_sb" + join(problem.bBatchStrides);
      return kiln::instantiateWarpSpecialisedGemm(
          module, symbols, getArgument(), entryName, problem.operand, problem.result, problem.n,
          config, batchedMatrixA(problem, config.tileK * config.elementBytes()), &problem.epilogue,
          problem.kMajorB, /*residualTileBytes=*/0, /*depth=*/problem.k, threadLoads(problem));
    }
    if (config.consumers)
      return kiln::instantiateWarpSpecialisedGemm(
          module, symbols, getArgument(), entryName, problem.operand, problem.result, problem.n,
          config, kiln::rowMajorMatrixA(config.tileK * config.elementBytes(), config.tileM),
          &problem.epilogue, problem.kMajorB,
          threadLoads(problem).any()
              ? 0
              : kiln::sm90ResidualTileBytes(function, &problem.epilogue, config,
                                            /*rowMajorRows=*/true, problem.result),
          /*depth=*/problem.k, threadLoads(problem));
    const kiln::Sm90Epilogue *epilogue = problem.epilogue.empty() ? nullptr : &problem.epilogue;
    if (epilogue)
      entryName += epilogue->key();
    std::string moduleName = "kiln_sm90_" + entryName;
    if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName))
      return existing.lookupSymbol<gpu::GPUFuncOp>(entryName);
    // The stored vector: the accumulators %v (vector<4xf32>), through the epilogue, as
    // they are or rounded.
    std::string result = kiln::elementTypeName(problem.result);
    int64_t storeBytes = 4 * problem.result.getIntOrFloatBitWidth() / 8;
    std::string text = kiln::substitutePlaceholders(
        kBasicTemplate, {{"MODULE", moduleName},
                         {"ENTRY", entryName},
                         {"IN", kiln::elementTypeName(problem.operand)},
                         {"OUT", result},
                         {"STORE_ALIGNMENT", std::to_string(storeBytes)}});
    text = kiln::substitutePlaceholders(
        text, kiln::sm90EpiloguePlaceholders(epilogue, problem.result, "%v", "%grow", "%gcol", "%m",
                                             "%n"));
    return kiln::insertTemplateWithEpilogue(module, symbols, getArgument(), entryName, text,
                                            epilogue, /*firstParameter=*/6);
  }

  /// kernel.launch @k(%a, %b, %c) -> for each variant, tensor maps of %a and %b and the
  /// GEMM's launch (with more than one, each with grids empty outside its rows).
  /// Fails, changing nothing, when B is to be transposed but is no constant here.
  /// `problem` is the GEMM at the opt shape (kernel.config's).
  LogicalResult replaceLaunch(ModuleOp module, SymbolTable &symbols, kernel::LaunchOp launch,
                              const kiln::Sm90GemmProblem &problem, ArrayRef<Variant> variants) {
    const kiln::Sm90Epilogue &epilogue = problem.epilogue;
    OpBuilder b(launch);
    Location launchLoc = launch.getLoc();
    Value a = launch.getOperands()[0], bMatrix = launch.getOperands()[1],
          c = launch.getOperands().back();
    if (problem.transposeConstantB) {
      // B stored N x K: the constant K x N matrix transposed into a new constant global.
      FailureOr<Value> transposed =
          kiln::transposedConstantMatrix(b, launchLoc, symbols, bMatrix, "_nxk");
      if (failed(transposed))
        return failure();
      bMatrix = *transposed;
    }
    SmallVector<Value> extra = kiln::epilogueBuffers(launch, epilogue);
    int64_t m = problem.m, k = problem.k, n = problem.n;
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, launchLoc, value);
    };
    // A run-time M is the product of C's row extents, read off the buffer on the host
    // (the engine's shape program computes it, and the grid, per input shape).
    OpFoldResult rows = b.getIndexAttr(m);
    if (problem.dynamicM) {
      rows =
          kiln::hostExtentProduct(b, launchLoc, c, 0, cast<MemRefType>(c.getType()).getRank() - 1);
      m = ShapedType::kDynamic;
    }
    auto view = [&](Value buffer, ArrayRef<int64_t> shape) -> Value {
      SmallVector<OpFoldResult> sizes, strides;
      int64_t stride = 1;
      for (int64_t extent : llvm::reverse(shape)) {
        strides.insert(strides.begin(), b.getIndexAttr(stride));
        stride *= extent;
      }
      for (int64_t extent : shape)
        sizes.push_back(b.getIndexAttr(extent));
      return memref::ReinterpretCastOp::create(
          b, launchLoc, MemRefType::get(shape, cast<MemRefType>(buffer.getType()).getElementType()),
          buffer, b.getIndexAttr(0), sizes, strides);
    };
    // A batched product's operands as stacks of matrices, its C as all of their rows.
    if (problem.batched) {
      a = view(a, {problem.aMatrices, problem.matrixRows, k});
      bMatrix = view(bMatrix, {problem.bMatrices, k, n});
      c = view(c, {m, n});
    }
    // A buffer that the kernel reads as M x K (a Flatten; rows of a [B.., M, K]
    // activation) is read as that matrix.
    auto aType = cast<MemRefType>(a.getType());
    if (!problem.batched && aType.getRank() != 2)
      a = memref::ReinterpretCastOp::create(
          b, launchLoc, MemRefType::get({m, k}, aType.getElementType()), a, b.getIndexAttr(0),
          ArrayRef<OpFoldResult>{rows, b.getIndexAttr(k)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(k), b.getIndexAttr(1)});
    int64_t fewerRows = 0; // the rows the variants before this one take
    for (const Variant &variant : variants) {
      const kiln::Sm90GemmConfig &config = variant.config;
      // The kernel, its template and its configuration (and rows) for the engine's
      // kernel table, as kernel-to-linalg tags the generic kernels.
      std::string described = config.describe();
      if (variants.size() > 1)
        described += kiln::describeRowsInVariant(fewerRows, variant.maxRows);
      if (!epilogue.empty())
        described += ", epilogue " + epilogue.describe();
      NamedAttrList metadata;
      metadata.set("kernel", launch.getCalleeAttr().getAttr());
      metadata.set("template", b.getStringAttr("matmul"));
      metadata.set("config", b.getStringAttr(described));
      Location loc =
          FusedLoc::get(b.getContext(), {launchLoc}, metadata.getDictionary(b.getContext()));
      // Which Ms this variant takes, when there are several.
      Value enabled = variants.size() > 1
                          ? kiln::rowsInVariant(b, loc, rows, fewerRows, variant.maxRows)
                          : Value();
      if (failed(
              launchVariant(b, loc, module, symbols, variant, a, bMatrix, c, extra, rows, enabled)))
        return failure();
      fewerRows = variant.maxRows;
    }
    launch.erase();
    return success();
  }

  /// One variant's tensor maps and launch (see replaceLaunch), the GEMM over the M x K
  /// matrix `a` (M = `rows`) into `c`, launched only where `enabled` when given.
  LogicalResult launchVariant(OpBuilder &b, Location loc, ModuleOp module, SymbolTable &symbols,
                              const Variant &variant, Value a, Value bMatrix, Value c,
                              ValueRange extra, OpFoldResult rows, Value enabled) {
    const kiln::Sm90GemmConfig &config = variant.config;
    const kiln::Sm90GemmProblem &problem = variant.problem;
    int64_t m = problem.dynamicM ? ShapedType::kDynamic : problem.m, k = problem.k, n = problem.n;
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, loc, value);
    };
    auto i32 = [&](int64_t value) -> Value {
      return arith::ConstantIntOp::create(b, loc, value, 32);
    };
    // The kernel's parameter types say which tensor maps it wants.
    gpu::GPUFuncOp gemm = variant.gemm;
    FunctionType signature = gemm.getFunctionType();
    // (A batched product's maps are of stacks of matrices: boxes of one matrix's rows.)
    auto tensorMap = [&](Value buffer, unsigned parameter, int64_t rows, int64_t columns) {
      auto type = cast<MemRefType>(buffer.getType());
      Value unranked = memref::CastOp::create(
          b, loc, UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace()), buffer);
      SmallVector<Value> box = {index(rows), index(columns)};
      if (type.getRank() == 3)
        box.insert(box.begin(), index(1));
      return nvgpu::TmaCreateDescriptorOp::create(
                 b, loc, cast<nvgpu::TensorMapDescriptorType>(signature.getInput(parameter)),
                 unranked, box)
          .getResult();
    };
    // B comes in boxes of 64 columns: a k-tile of 64 rows of N (K-major), or 64 columns of
    // N, 128 bytes, the widest a 128B-swizzled box can be, of a k-tile's rows.
    // (An operand of rows TMA cannot stride is a bare pointer, which the producer's threads
    // read.)
    kiln::Sm90ThreadLoads threads = threadLoads(problem);
    Value mapA =
        threads.a ? kiln::barePointer(b, loc, a) : tensorMap(a, 0, config.tileM, config.tileK);
    Value mapB = threads.b         ? kiln::barePointer(b, loc, bMatrix)
                 : problem.kMajorB ? tensorMap(bMatrix, 1, 64, config.tileK)
                                   : tensorMap(bMatrix, 1, config.tileK, 64);
    int64_t tilesN = llvm::divideCeil(n, config.tileN);
    OpFoldResult tiles =
        problem.dynamicM
            ? OpFoldResult(arith::MulIOp::create(
                  b, loc,
                  arith::CeilDivUIOp::create(b, loc, cast<Value>(rows), index(config.tileM)),
                  index(tilesN)))
            : OpFoldResult(b.getIndexAttr(
                  (problem.batched
                       ? problem.batch() * llvm::divideCeil(problem.matrixRows, config.tileM)
                       : llvm::divideCeil(m, config.tileM)) *
                  tilesN));
    // The warp-specialised template walks a 1-D grid of tiles in its own order.
    if (config.consumers) {
      // The epilogue emitted when it was matched, so a failure here is an internal error.
      if (failed(kiln::launchWarpSpecialisedGemm(
              b, loc, module, symbols, getArgument(), gemm, config, tiles, mapA, mapB, c, rows, n,
              k, &problem.epilogue, extra, problem.maxM, enabled))) {
        hardFailure = true;
        return failure();
      }
      return success();
    }
    // The one-warpgroup template (static M only) walks a 2-D grid; C goes as a bare
    // pointer.
    Value cPointer = kiln::barePointer(b, loc, c);
    Value one = index(1);
    SmallVector<Value> arguments = {mapA, mapB, cPointer, i32(m), i32(n), i32(k)};
    for (Value buffer : extra)
      arguments.push_back(kiln::barePointer(b, loc, buffer));
    gpu::LaunchFuncOp::create(
        b, loc, gemm, gpu::KernelDim3{index(tilesN), index(llvm::divideCeil(m, config.tileM)), one},
        gpu::KernelDim3{index(config.threads()), one, one}, i32(config.sharedBytes()), arguments);
    return success();
  }
};

/// The family: #kernel.sm90_gemm on sm_90a.
class Sm90GemmTemplate final : public kiln::KernelTemplateOf<kernel::Sm90GemmConfigAttr> {
  /// The configurations of `function` on the options' target; empty when the family does
  /// not take it.
  static SmallVector<kiln::Sm90GemmConfig> legal(kernel::FuncOp function,
                                                 const kiln::TemplateOptions &options) {
    // wgmma and TMA are sm_90a's alone (not plain sm_90's, nor sm_80's).
    if (options.target != kiln::kTargetSm90a)
      return {};
    std::optional<kiln::Sm90GemmProblem> problem = kiln::matchSm90Gemm(function, options.allowTf32);
    return problem ? kiln::sm90GemmConfigs(*problem) : SmallVector<kiln::Sm90GemmConfig>();
  }

  SmallVector<Attribute> candidates(kernel::FuncOp function,
                                    const kiln::TemplateOptions &options) const override {
    return kiln::configAttrs<kernel::Sm90GemmConfigAttr, kiln::Sm90GemmConfig>(
        function.getContext(), legal(function, options));
  }

  std::optional<std::string> whyNot(kernel::FuncOp function,
                                    const kiln::TemplateOptions &options) const override {
    if (options.target != kiln::kTargetSm90a || !kiln::getTemplateOp<kernel::MatmulOp>(function))
      return std::nullopt;
    std::string why;
    std::optional<kiln::GemmProblem> problem =
        kiln::matchGemmKernel(function, options.allowTf32, {}, &why);
    return problem ? kiln::describeGemmShapeRefusal(*problem, /*threadLoads=*/true) : why;
  }

  Attribute defaultConfig(kernel::FuncOp function,
                          const kiln::TemplateOptions &options) const override {
    return kiln::defaultConfigAttr<kernel::Sm90GemmConfigAttr, kiln::Sm90GemmConfig>(
        function, legal(function, options), options.gemmConfig);
  }

  std::optional<std::string> describeProblem(kernel::FuncOp function) const override {
    // f32 products are GEMMs too where tf32 is allowed.
    std::optional<kiln::Sm90GemmProblem> gemm = kiln::matchSm90Gemm(function, /*allowTf32=*/true);
    if (!gemm)
      return std::nullopt;
    return llvm::formatv("{0}x{1}x{2} {3}", gemm->m, gemm->n, gemm->k,
                         kiln::elementTypeName(gemm->operand))
        .str();
  }

  std::string describe(kernel::Sm90GemmConfigAttr config) const override {
    return kiln::Sm90GemmConfig::fromAttr(config).describe();
  }

  double estimateMicros(kernel::FuncOp function, kernel::Sm90GemmConfigAttr attr,
                        const kiln::DeviceModel &device) const override {
    kiln::Sm90GemmConfig config = kiln::Sm90GemmConfig::fromAttr(attr);
    std::optional<kiln::Sm90GemmProblem> problem = kiln::matchSm90Gemm(function, config.tf32);
    if (!problem)
      return kiln::estimateTemplateFallbackMicros(function, device);
    return kiln::estimateSm90GemmMicros(*problem, config, kiln::estimateKernelBytes(function),
                                        device);
  }

  LogicalResult instantiate(kernel::FuncOp function, kernel::Sm90GemmConfigAttr attr,
                            kiln::TemplateInstantiation &context) const override {
    if (context.options.target != kiln::kTargetSm90a)
      return function.emitError(context.pass)
             << ": " << attr << " is for sm_90a (wgmma and TMA), not " << context.options.target;
    kiln::Sm90GemmConfig config = kiln::Sm90GemmConfig::fromAttr(attr);
    std::optional<kiln::Sm90GemmProblem> problem = kiln::matchSm90Gemm(function, config.tf32);
    if (!problem)
      return function.emitError(context.pass)
             << ": " << attr
             << " is for a GEMM of half-precision (or tf32, int8) row-major "
                "buffers with a fusable epilogue, which this kernel is not";
    if (failed(kiln::checkListedConfig<kiln::Sm90GemmConfig>(
            function, kiln::sm90GemmConfigs(*problem), config, attr, context.pass,
            llvm::formatv("GEMM ({0}x{1}x{2})", problem->m, problem->n, problem->k).str())))
      return failure();
    Sm90GemmGenerator generator{context.module, context.symbols, context.pass};
    return generator.run(function, *problem, config);
  }
};

} // namespace

namespace kiln {
// Registered in KernelTemplate.cpp.
const KernelTemplate &sm90GemmTemplate() {
  static const Sm90GemmTemplate family;
  return family;
}
} // namespace kiln
