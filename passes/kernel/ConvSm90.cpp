//===- ConvSm90.cpp - Hopper implicit-GEMM convolutions -------------------===//
//
// The sm90_conv family (#kernel.sm90_conv): channels-last 2-D convolutions of half-precision
// operands (or f32 ones read as tf32, under allow-tf32, with the weight stored K-major: O x (KH KW
// C)) become the warp-specialised wgmma GEMM (passes/kernel/templates/Sm90GemmWs.mlir) of
// C[N*OH*OW, O] = A[N*OH*OW, KH*KW*C] x B[KH*KW*C, O], A being the im2col matrix:
// - implicit (C a multiple of 8): each k-tile of A is one 4-D TMA box of the NHWC input,
//   {64 channels} x {BW columns} x {BH rows} x {BN images} of output positions, taken at
//   filter tap (r, s) (input row r DH and column s DW past tap (0, 0)'s: dilations) with
//   the convolution's strides as the box's element strides; what falls outside the input
//   (the padding, and channels C.. of the last 64 when C % 64 != 0) is zero-filled by TMA.
//   Grouped convolutions read the input as [N, H, W, G, C/G] (5-D boxes of one group's
//   channels): a tile's columns lie in one group (its first column's), whose rows of B
//   are the group's filters; groups of fewer than 64 filters are packed into runs of
//   block-diagonal filters (GemmMatch.h);
// - explicit (other C, such as a 3-channel image, which TMA cannot address: its rows are
//   not 16-byte multiples): a small kernel (templates/Im2col.mlir) writes A to a scratch
//   buffer first, for convolutions whose KH*KW*C is small.
// B is the weight, permuted at compile time from OHWI to (KH KW C) x O, with zero rows
// where A has padded columns. A dynamic engine's batch may be known at run time only:
// the kernels read it off M (implicitly, the tiles are ceil(N / box images) boxes of
// images), the host computes M and the grid from the output's extent per call, and the
// im2col scratch is planned at the max batch. docs/codegen-sm90.md, "Implicit-GEMM
// convolution".
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "passes/kernel/GemmMatch.h"
#include "passes/kernel/IndexText.h"
#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/KernelTemplate.h"
#include "passes/kernel/Sm90Template.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
namespace graph = kiln::graph;
namespace kernel = kiln::kernel;

namespace {

/// The text of passes/kernel/templates/Im2col.mlir.
constexpr const char kIm2colTemplate[] =
#include "passes/kernel/templates/Im2col.mlir.inc"
    ;

/// A channels-last convolution the template computes (its 128-byte k-tiles each lie in
/// one filter tap).
using ConvProblem = kiln::ConvGemmProblem;

std::optional<ConvProblem> matchConv(kernel::FuncOp function, bool allowTf32,
                                     kiln::GemmRows rows = {}) {
  return kiln::matchConvKernel(function, allowTf32, /*tapAlignment=*/0, /*runTimeBatch=*/true,
                               rows);
}

/// The output positions of one 128-row tile of C: a box of BN images x BH rows x BW
/// columns (x BD depths of a 3-D convolution) (at most 128 positions; the rest of the
/// tile's rows are not stored).
struct PixelBox {
  int64_t images, rows, columns, depths = 1;
  int64_t positions() const { return images * depths * rows * columns; }
  bool operator==(const PixelBox &other) const {
    return images == other.images && depths == other.depths && rows == other.rows &&
           columns == other.columns;
  }
};

/// The box of output positions that wastes the fewest of the tiles' 128 rows (ties: the
/// widest, whose TMA rows are longest). A box's extent times the stride must stay within
/// TMA's 256 elements.
PixelBox choosePixelBox(const ConvProblem &p) {
  PixelBox best{1, 1, 1};
  double bestUse = -1;
  for (int64_t columns = 1; columns <= std::min<int64_t>(p.outWidth, 128); ++columns) {
    if (columns * p.strideW > 256)
      break;
    for (int64_t rows = 1; rows * columns <= 128 && rows <= p.outHeight; ++rows) {
      if (rows * p.strideH > 256)
        break;
      for (int64_t depths = 1; depths * rows * columns <= 128 && depths <= p.outDepth; ++depths) {
        if (depths * p.strideD > 256)
          break;
        int64_t images = std::min<int64_t>(p.batch, 128 / (depths * rows * columns));
        PixelBox box{images, rows, columns, depths};
        int64_t tiles = llvm::divideCeil(p.batch, images) * llvm::divideCeil(p.outDepth, depths) *
                        llvm::divideCeil(p.outHeight, rows) * llvm::divideCeil(p.outWidth, columns);
        double use = double(p.gemmM()) / double(tiles * 128);
        if (use > bestUse + 1e-9 || (use > bestUse - 1e-9 && columns > best.columns)) {
          bestUse = use;
          best = box;
        }
      }
    }
  }
  return best;
}

/// The 128-row tiles of C for `batch` images: output boxes (implicit), or 128 rows of A
/// (explicit).
int64_t tileCount(const ConvProblem &p, const PixelBox &box, int64_t batch) {
  if (p.rowMajorA())
    return llvm::divideCeil(batch * p.outPositions(), 128);
  return llvm::divideCeil(batch, box.images) * llvm::divideCeil(p.outDepth, box.depths) *
         llvm::divideCeil(p.outHeight, box.rows) * llvm::divideCeil(p.outWidth, box.columns);
}
int64_t tileCount(const ConvProblem &p, const PixelBox &box) { return tileCount(p, box, p.batch); }

/// One spatial dimension of a convolution as the implicit-im2col A operand walks it: its
/// output extent, the output box's extent along it, and the filter's stride, padding
/// before, dilation and extent. `name` is D, H or W (the SSA names' letter).
struct SpatialAxis {
  char name;
  int64_t out, box, stride, pad, dilation, kernel;
  int64_t tiles() const { return llvm::divideCeil(out, box); }
};

/// The spatial axes of `p` with output boxes `box`, outermost first: (D,) H, W.
SmallVector<SpatialAxis, 3> spatialAxes(const ConvProblem &p, const PixelBox &box) {
  SmallVector<SpatialAxis, 3> axes;
  if (p.spatialRank == 3)
    axes.push_back(
        {'D', p.outDepth, box.depths, p.strideD, p.padFront, p.dilationD, p.kernelDepth});
  axes.push_back({'H', p.outHeight, box.rows, p.strideH, p.padTop, p.dilationH, p.kernelHeight});
  axes.push_back({'W', p.outWidth, box.columns, p.strideW, p.padLeft, p.dilationW, p.kernelWidth});
  return axes;
}

/// The template's A operand for `p` with output boxes `box` (see Sm90GemmWs.mlir's header):
/// the input NHWC (NDHWC), each k-tile one box of BN images x (BD depths x) BH rows x BW
/// columns of output positions at filter tap ((rd,) r, s), as a 4-D (5-D) TMA load; a
/// grouped convolution reads the input as [N, H, W, G, C] (5-D), a box of one group's
/// channels (those past C zero-filled: never the next group's).
kiln::Sm90AOperand implicitIm2col(const ConvProblem &p, const PixelBox &box) {
  SmallVector<SpatialAxis, 3> axes = spatialAxes(p, box);
  SmallVector<SpatialAxis, 3> inner(llvm::reverse(axes)); // innermost first
  auto named = [](StringRef prefix, const SpatialAxis &axis) {
    return kiln::axisName(prefix, axis.name);
  };
  auto names = [](ArrayRef<SpatialAxis> order, StringRef prefix) {
    return kiln::axisNames(order, prefix);
  };
  auto constant = [](StringRef indent, StringRef name, int64_t value) {
    return llvm::formatv("{0}%{1} = arith.constant {2} : index\n", indent, name, value).str();
  };
  kiln::Sm90AOperand a;
  std::string box5 = std::to_string(box.images);
  for (const SpatialAxis &axis : axes)
    box5 += "x" + std::to_string(axis.box);
  a.box = box5 + (p.group > 1 ? "x1x" : "x") + std::to_string(p.tileK());
  a.boxBytes = box.positions() * p.kTileBytes;

  // The batch is C's rows over an image's output positions (a run-time batch's too).
  int64_t tilesPerImage = 1;
  for (const SpatialAxis &axis : axes)
    tilesPerImage *= axis.tiles();
  a.tilesM = llvm::formatv(R"(    %cvPositions = arith.constant {0} : index
    %cvBatch = arith.divui %m, %cvPositions : index
    %cvImagesPerBox = arith.constant {1} : index
    %cvBoxNLess = arith.constant {2} : index
    %cvBatchUp = arith.addi %cvBatch, %cvBoxNLess : index
    %cvImageTiles = arith.divui %cvBatchUp, %cvImagesPerBox : index
    %cvTilesPerImage = arith.constant {3} : index
    %tilesM = arith.muli %cvImageTiles, %cvTilesPerImage : index)",
                           p.outPositions(), box.images, box.images - 1, tilesPerImage)
                 .str();

  // The tile's first output position (image, (depth,) row, column) and the input position
  // its filter tap (0, .., 0) reads (negative inside the padding).
  StringRef setup = "    ";
  std::string text;
  for (const SpatialAxis &axis : inner)
    text += constant(setup, named("Tiles", axis), axis.tiles());
  for (const SpatialAxis &axis : inner)
    text += constant(setup, named("Box", axis), axis.box);
  text += constant(setup, "cvBoxN", box.images);
  for (const SpatialAxis &axis : inner)
    text += constant(setup, named("Stride", axis), axis.stride);
  for (const SpatialAxis &axis : inner)
    text += constant(setup, named("Pad", axis), axis.pad);
  text += kiln::splitIndexText(setup, "tileRow", names(inner, "Tiles"), names(inner, "T"), "cvTn",
                               "cvTq");
  for (const SpatialAxis &axis : inner)
    text += llvm::formatv("{0}%{1} = arith.muli %{2}, %{3} : index\n", setup,
                          named("O", axis) + "0", named("T", axis), named("Box", axis));
  text += llvm::formatv("{0}%cvN0 = arith.muli %cvTn, %cvBoxN : index\n", setup);
  for (const SpatialAxis &axis : inner)
    text += llvm::formatv("{0}%{1}0s = arith.muli %{2}0, %{3} : index\n", setup, named("", axis),
                          named("O", axis), named("Stride", axis));
  for (const SpatialAxis &axis : inner)
    text += llvm::formatv("{0}%{1}0 = arith.subi %{1}0s, %{2} : index\n", setup, named("", axis),
                          named("Pad", axis));
  a.tileSetup = StringRef(text).rtrim().str();

  // k-tile kt is channels TILE_K cb.. of filter tap ((rd,) r, s), the input position
  // dilation x tap past tap (0, .., 0)'s: kt = (((rd KH) + r) KW + s) CB + cb, which is also
  // row TILE_K kt of B ((KD KH KW C') x O, C' = C rounded up to TILE_K; or column TILE_K kt
  // of the K-major O x (KD KH KW C')).
  StringRef load = "          ";
  text = constant(load, "cvBlocks", p.rowsPerTap() / p.tileK());
  SmallVector<SpatialAxis, 3> tapSplit(inner.begin(), inner.end() - 1);
  for (const SpatialAxis &axis : tapSplit)
    text += constant(load, named("K", axis), axis.kernel);
  text += llvm::formatv("{0}%cvCb = arith.remui %kt, %cvBlocks : index\n"
                        "{0}%cvTap = arith.divui %kt, %cvBlocks : index\n",
                        load);
  SmallVector<std::string> taps = names(inner, "Tap");
  text += kiln::splitIndexText(load, "cvTap", names(tapSplit, "K"), ArrayRef(taps).drop_back(),
                               taps.back(), "cvTapq");
  text += llvm::formatv("{0}%cvC0 = arith.muli %cvCb, %tileK : index\n", load);
  for (const SpatialAxis &axis : axes)
    text += constant(load, named("Dilation", axis), axis.dilation);
  for (const SpatialAxis &axis : axes)
    text += llvm::formatv("{0}%{1} = arith.muli %{2}, %{3} : index\n", load, named("TapAt", axis),
                          named("Tap", axis), named("Dilation", axis));
  for (const SpatialAxis &axis : axes)
    text += llvm::formatv("{0}%{1} = arith.addi %{1}0, %{2} : index\n", load, named("", axis),
                          named("TapAt", axis));
  // A grouped convolution's tile: its columns lie in one group, its first one's.
  std::string group;
  if (p.group > 1) {
    text += constant(load, "cvGroupColumns", p.groupOutChannels());
    text += llvm::formatv("{0}%cvGroup = arith.divui %n0, %cvGroupColumns : index\n", load);
    group = "%cvGroup, ";
  }
  std::string coordinates;
  for (const SpatialAxis &axis : inner)
    coordinates += "%" + named("", axis) + ", ";
  text += llvm::formatv("{0}nvgpu.tma.async.load %descA[%cvC0, {1}{2}%cvN0], %full[%slot] to %a "
                        ": !tmA, !bars -> !tileA",
                        load, group, coordinates);
  a.loadA = text;
  // The wgmma descriptor needs a 2-D 128B-swizzled map's type: B's (64x64) has it.
  a.descMap = "%descB : !halfA, !tmB";
  a.rowEnd = "      %rowEnd = arith.constant " + std::to_string(box.positions()) + " : index";

  // Row r of the tile: output position (image, (depth,) row, column) of the box, valid
  // within the batch and the output, and its row of C.
  StringRef row = "        ";
  text.clear();
  for (const SpatialAxis &axis : inner)
    text += constant(row, named("Out", axis), axis.out);
  text += kiln::splitIndexText(row, "r", names(inner, "Box"), names(inner, "B"), "cvBn", "cvRq");
  text += llvm::formatv("{0}%cvImage = arith.addi %cvN0, %cvBn : index\n", row);
  for (const SpatialAxis &axis : axes)
    text += llvm::formatv("{0}%{1} = arith.addi %{1}0, %{2} : index\n", row, named("O", axis),
                          named("B", axis));
  text += llvm::formatv("{0}%cvImageOk = arith.cmpi ult, %cvImage, %cvBatch : index\n", row);
  for (const SpatialAxis &axis : axes)
    text += llvm::formatv("{0}%{1}Ok = arith.cmpi ult, %{1}, %{2} : index\n", row, named("O", axis),
                          named("Out", axis));
  std::string ok = "cvImageOk";
  for (auto [index, axis] : llvm::enumerate(axes)) {
    std::string next = index + 1 == axes.size() ? "rowOk" : "cvOk" + std::to_string(index);
    text +=
        llvm::formatv("{0}%{1} = arith.andi %{2}, %{3}Ok : i1\n", row, next, ok, named("O", axis));
    ok = next;
  }
  std::string position = "cvImage";
  for (auto [index, axis] : llvm::enumerate(axes)) {
    std::string next = index + 1 == axes.size() ? "grow" : "cvAt" + std::to_string(index);
    text += llvm::formatv("{0}%cvScaled{1} = arith.muli %{2}, %{3} : index\n", row, index, position,
                          named("Out", axis));
    text += llvm::formatv("{0}%{1} = arith.addi %cvScaled{2}, %{3} : index\n", row, next, index,
                          named("O", axis));
    position = next;
  }
  a.rowMap = StringRef(text).rtrim().str();
  return a;
}

/// The columns one thread of the im2col kernel writes: 16 bytes of i8 or 16-bit elements
/// (one store), 8 f32 ones. gemmK() is a multiple of it.
int64_t im2colChunk(const ConvProblem &p) { return std::max<int64_t>(8, p.channelAlignment()); }

/// The shared memory an im2col CTA's input window and rows of A may take (of the 48 KB a
/// CTA's static shared memory may).
constexpr int64_t kIm2colSharedBytes = 40 * 1024;

/// How the im2col kernel splits A: a CTA takes `positions` consecutive output positions of
/// one output row (`perRow` CTAs a row), whose input window is (KH - 1) DH + 1 rows of
/// `windowRowElements` (templates/Im2col.mlir), and stages their rows of A.
struct Im2colBlocks {
  int64_t positions = 1, perRow = 1, windowRowElements = 0, windowElements = 0;
  int64_t sharedBytes = 0;
  /// The threads load the window 256 elements a step, branch-free: the window is padded
  /// to a multiple of 256 elements.
  int64_t windowSteps() const { return llvm::divideCeil(windowElements, 256); }
};

Im2colBlocks im2colBlocks(const ConvProblem &p) {
  int64_t elementBytes = p.operand.getIntOrFloatBitWidth() / 8;
  auto blocksOf = [&](int64_t positions) {
    Im2colBlocks blocks;
    blocks.positions = positions;
    blocks.perRow = llvm::divideCeil(p.outWidth, positions);
    blocks.windowRowElements =
        ((positions - 1) * p.strideW + (p.kernelWidth - 1) * p.dilationW + 1) * p.channels;
    blocks.windowElements = ((p.kernelHeight - 1) * p.dilationH + 1) * blocks.windowRowElements;
    blocks.sharedBytes = (blocks.windowSteps() * 256 + positions * p.gemmK()) * elementBytes;
    return blocks;
  };
  // The whole output row where it fits, else as many positions as fit.
  int64_t positions = p.outWidth;
  while (positions > 1 && blocksOf(positions).sharedBytes > kIm2colSharedBytes)
    positions = llvm::divideCeil(positions, 2);
  return blocksOf(positions);
}

/// The configurations for output boxes `box`: the warp-specialised template only (the
/// basic one has no A snippets); the default is 128x256 where those tiles fill an H200, as
/// for products. A run-time batch's are chosen at its opt shape.
SmallVector<kiln::Sm90GemmConfig> convConfigs(const ConvProblem &p, const PixelBox &box) {
  int64_t tiles = tileCount(p, box);
  SmallVector<kiln::Sm90GemmConfig> configs;
  auto add = [&](int64_t tileN, int64_t stages) {
    kiln::Sm90GemmConfig config;
    config.tileN = tileN;
    config.stages = stages;
    config.consumers = 2;
    if (tileN <= 128 || p.outChannels >= tileN)
      configs.push_back(config);
  };
  bool wideFills = tiles * llvm::divideCeil(p.outChannels, 256) >= 132;
  // At most 64 output channels: a 64-wide tile, not half of a 128-wide one.
  if (p.outChannels <= 64)
    add(64, 6);
  if (wideFills)
    add(256, 4);
  add(128, 4);
  if (!wideFills)
    add(256, 4);
  add(128, 6);
  if (p.outChannels > 64)
    add(64, 6);
  // Split-K where the tiles are few (as for products): for a run-time batch, at the max
  // batch too (its workspace is sized there).
  int64_t kTiles = llvm::divideCeil(p.gemmK(), p.tileK());
  for (int64_t parts : kiln::kSplitKParts) {
    kiln::Sm90GemmConfig config;
    config.stages = 4;
    config.consumers = 2;
    config.splitK = parts;
    auto pays = [&](int64_t batch) {
      return kiln::splitKPays(tileCount(p, box, batch) * llvm::divideCeil(p.outChannels, 128),
                              kTiles, parts);
    };
    if (pays(p.batch) && (!p.dynamicBatch || pays(p.maxBatch)))
      configs.push_back(config);
  }
  // Persistent grids where there are more tiles than SMs (as for products; with fewer
  // stages where a residual may come through shared memory, which needs C's tiles to be
  // runs of rows).
  bool residualTile = p.rowMajorA() && kiln::sm90HasResidualInput(p.epilogue);
  for (auto [tileN, stages, wanted] : {std::tuple<int64_t, int64_t, bool>{128, 4, true},
                                       {64, 6, true},
                                       {128, 3, residualTile},
                                       {128, 2, residualTile}}) {
    kiln::Sm90GemmConfig config;
    config.tileN = tileN;
    config.stages = stages;
    config.consumers = 2;
    config.persistent = true;
    if (wanted && tiles * llvm::divideCeil(p.outChannels, tileN) > kiln::kSm90Multiprocessors &&
        (tileN == 64 || p.outChannels > 64))
      configs.push_back(config);
  }
  // Ping-pong consumers (f16 and bf16 operands).
  if (!p.tf32() && !p.int8() && p.outChannels > 64)
    configs.append(
        kiln::sm90PingPongConfigs(tiles * llvm::divideCeil(p.outChannels, 128), residualTile));
  configs.append(kiln::sm90TwoCtaConfigs(
      [&](int64_t tileN) { return tiles * llvm::divideCeil(p.outChannels, tileN); }));
  // Grouped: a tile's columns lie in one group.
  if (p.group > 1)
    llvm::erase_if(configs, [&](const kiln::Sm90GemmConfig &config) {
      return p.groupOutChannels() % config.tileN != 0;
    });
  if (p.tf32())
    kiln::makeTf32Configs(configs);
  if (p.int8()) {
    kiln::makeInt8Configs(configs);
    // A K (implicitly, a tap's channels: C = 64 of ResNet-50's first stage) that leaves
    // half of its last 128-byte k-tile empty gets 64-byte k-tiles too, with twice the
    // stages (the same ring): they skip the zeros' wgmma and the shared memory their
    // loads and reads take. They come first (the default) where they lose no k-tile
    // count: implicitly (each tap's channels then fill whole k-tiles), or where K fits one.
    int64_t kPerTile = p.a == ConvProblem::A::Implicit ? p.channels : p.gemmK();
    if (llvm::alignTo(kPerTile, 64) < llvm::alignTo(kPerTile, 128)) {
      SmallVector<kiln::Sm90GemmConfig> narrow;
      for (kiln::Sm90GemmConfig config : configs) {
        config.tileK = 64;
        config.stages *= 2;
        if (config.splitK == 1 && kiln::sm90ConfigFitsSm(config))
          narrow.push_back(config);
      }
      bool narrowFirst = p.a == ConvProblem::A::Implicit || p.gemmK() <= 64;
      configs.insert(narrowFirst ? configs.begin() : configs.end(), narrow.begin(), narrow.end());
    }
  }
  // B (the weight) resident in shared memory for a persistent grid over one column of
  // tiles; a residual comes through shared memory only where A is a row-major matrix.
  // (K depends on the k-tile: an implicit GEMM's taps each take whole k-tiles.)
  kiln::addResidentBConfigs(
      configs, p.outChannels,
      [&](const kiln::Sm90GemmConfig &config) {
        ConvProblem withTile = p;
        withTile.kTileBytes = config.tileK * config.elementBytes();
        return llvm::divideCeil(withTile.gemmK(), config.tileK);
      },
      p.rowMajorA() ? kiln::sm90ResidualElementBytes(p.epilogue) : 0);
  return configs;
}

} // namespace

std::optional<kiln::Sm90GemmProblem> kiln::matchSm90Conv(kernel::FuncOp function, bool allowTf32,
                                                         GemmRows rows) {
  std::optional<ConvProblem> conv = matchConv(function, allowTf32, rows);
  if (!conv || !launchesPassConstant(function, 1))
    return std::nullopt;
  Sm90GemmProblem problem;
  problem.m = conv->gemmM();
  problem.dynamicM = conv->dynamicBatch;
  problem.maxM = conv->maxGemmM();
  problem.n = conv->outChannels;
  problem.k = conv->gemmK();
  problem.operand = conv->operand;
  problem.result = conv->result;
  problem.kMajorB = conv->kMajorB();
  return problem;
}

SmallVector<kiln::Sm90GemmConfig> kiln::sm90ConvConfigs(kernel::FuncOp function, bool allowTf32,
                                                        GemmRows rows) {
  std::optional<ConvProblem> conv = matchConv(function, allowTf32, rows);
  if (!conv)
    return {};
  return convConfigs(*conv, choosePixelBox(*conv));
}

namespace {

/// Generates the convolutions of the kernels whose `kernel.config` is #kernel.sm90_conv.
struct Sm90ConvGenerator {
  ModuleOp module;
  SymbolTable &symbols;
  StringRef pass;
  /// A launch could not be generated (an internal error, reported): the pass fails.
  bool hardFailure = false;

  StringRef getArgument() const { return pass; }

  /// One configuration of a convolution, with the problem it was chosen for (the batch
  /// at the profile's shape: its output boxes are chosen there): `kernel.config`, or a
  /// row variant, which serves the run-time batches of at most `maxRows` rows of C (above
  /// the variant before it), or with 0 the rest; `aboveRows` > 0 for the large batches'
  /// bucket.
  struct Variant {
    ConvProblem problem;
    PixelBox box;
    kiln::Sm90GemmConfig config;
    int64_t maxRows = 0;
    int64_t aboveRows = 0;
  };

  /// `function`'s kernels under `config` (legal for `problem`, chosen for `box`).
  LogicalResult run(kernel::FuncOp function, ConvProblem problem, const PixelBox &box,
                    const kiln::Sm90GemmConfig &config) {
    problem.kTileBytes = config.tileK * (problem.operand.getIntOrFloatBitWidth() / 8);
    FailureOr<SmallVector<Variant, 2>> variants =
        getVariants(function, config.tf32, problem, box, config);
    if (failed(variants))
      return failure();
    // kernel.config serves the batches between the small buckets and the large one.
    auto large = llvm::find_if(*variants, [](const Variant &v) { return v.aboveRows > 0; });
    int64_t maxRows = large != variants->end() ? large->aboveRows : 0;
    variants->insert(large, {problem, box, config, maxRows});
    kiln::replaceLaunches(function, module, symbols, [&](kernel::LaunchOp launch) {
      return replaceLaunch(module, symbols, function, launch, problem, *variants);
    });
    return success(!hardFailure);
  }

  /// `function`'s row variants (kernel.row_variants), each a configuration of the
  /// convolution at the profile's shape of its bucket (GemmRowVariant::rows). Without a
  /// small batches' one, an implicit GEMM of a run-time batch whose small batches (the bucket of
  /// smallRowsBucket) want other output boxes than `box` gets a variant of `config` with
  /// those boxes: a box of the opt batch's images leaves most of a tile's rows empty at
  /// batch 1 (32x1x4 positions on a 28x28 image: 4 of 128 rows).
  FailureOr<SmallVector<Variant, 2>> getVariants(kernel::FuncOp function, bool tf32,
                                                 const ConvProblem &problem, const PixelBox &box,
                                                 const kiln::Sm90GemmConfig &config) {
    FailureOr<SmallVector<kiln::GemmRowVariant>> listed =
        kiln::getRowVariants(function, getArgument());
    if (failed(listed))
      return failure();
    if (!listed->empty() && !problem.dynamicBatch)
      return function.emitError(getArgument())
             << ": kernel.row_variants on a convolution whose batch is static";
    SmallVector<Variant, 2> variants;
    for (const kiln::GemmRowVariant &listedVariant : *listed) {
      std::optional<ConvProblem> bucket = matchConv(function, tf32, listedVariant.rows());
      if (!bucket)
        return function.emitError(getArgument())
               << ": a row variant " << listedVariant.describeRows() << " needs "
               << listedVariant.describeProfile();
      PixelBox box = choosePixelBox(*bucket);
      auto attr = dyn_cast<kernel::Sm90ConvConfigAttr>(listedVariant.config);
      std::optional<kiln::Sm90GemmConfig> config =
          attr ? std::optional(kiln::Sm90GemmConfig::fromAttr(attr)) : std::nullopt;
      if (!config ||
          !kiln::isListedConfig<kiln::Sm90GemmConfig>(convConfigs(*bucket, box), *config))
        return function.emitError(getArgument())
               << ": row variant " << listedVariant.config
               << " is not a configuration of this convolution " << listedVariant.describeRows();
      bucket->kTileBytes = config->tileK * (bucket->operand.getIntOrFloatBitWidth() / 8);
      variants.push_back({*bucket, box, *config, listedVariant.maxRows, listedVariant.aboveRows});
    }
    bool smallListed = llvm::any_of(variants, [](const Variant &v) { return v.maxRows > 0; });
    if (smallListed || !problem.dynamicBatch || problem.rowMajorA())
      return variants;
    std::optional<kiln::GemmRows> bucket = kiln::smallRowsBucket(function, tf32);
    std::optional<ConvProblem> small = bucket ? matchConv(function, tf32, *bucket) : std::nullopt;
    if (!small)
      return variants;
    PixelBox smallBox = choosePixelBox(*small);
    if (smallBox == box ||
        !kiln::isListedConfig<kiln::Sm90GemmConfig>(convConfigs(*small, smallBox), config))
      return variants;
    small->kTileBytes = problem.kTileBytes;
    variants.insert(variants.begin(), {*small, smallBox, config, bucket->maxRows});
    return variants;
  }

  /// The im2col kernel of `p` (templates/Im2col.mlir), instantiated once per problem.
  FailureOr<gpu::GPUFuncOp> getOrCreateIm2col(ModuleOp module, SymbolTable &symbols,
                                              const ConvProblem &p) {
    std::string type = kiln::elementTypeName(p.operand);
    // A run-time batch's kernel is typed at its max batch ("Nle<max>").
    std::string batch =
        p.dynamicBatch ? "Nle" + std::to_string(p.maxBatch) : std::to_string(p.batch);
    std::string entry =
        llvm::formatv("im2col_{0}_{1}x{2}x{3}x{4}_k{5}x{6}{7}", type, batch, p.height, p.width,
                      p.channels, p.kernelHeight, p.kernelWidth, kiln::convWindowName(p))
            .str();
    std::string moduleName = "kiln_" + entry;
    if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName))
      return existing.lookupSymbol<gpu::GPUFuncOp>(entry);
    auto n = [](int64_t value) { return std::to_string(value); };
    Im2colBlocks blocks = im2colBlocks(p);
    // The kernel's 32-bit offsets: the input's elements and A's rows.
    if (blocks.sharedBytes > kIm2colSharedBytes || p.maxInputElements() >= (int64_t(1) << 31) ||
        p.maxGemmM() >= (int64_t(1) << 31))
      return failure();
    std::string text = kiln::substitutePlaceholders(
        kIm2colTemplate,
        {{"MODULE", moduleName},
         {"ENTRY", entry},
         {"T", type},
         {"ZERO", p.int8() ? "0" : "0.0"},
         {"CHUNK", n(im2colChunk(p))},
         {"STORE_ALIGNMENT",
          n(std::min<int64_t>(16, im2colChunk(p) * p.operand.getIntOrFloatBitWidth() / 8))},
         {"INPUT_ELEMENTS", n(p.maxInputElements())},
         {"W_C", n(p.width * p.channels)},
         {"H", n(p.height)},
         {"C", n(p.channels)},
         {"OH", n(p.outHeight)},
         {"OW", n(p.outWidth)},
         {"STRIDE_H", n(p.strideH)},
         {"STRIDE_W", n(p.strideW)},
         {"ROW_STEP", n(p.dilationH * blocks.windowRowElements)},
         {"SEGMENT_OFFSET", p.dilationW == 1
                                ? std::string("        %inSegment = arith.addi %e, %c0 : i32")
                                : llvm::formatv(R"(        %tapColumn = arith.divui %e, %c : i32
        %tapChannel = arith.remui %e, %c : i32
        %tapStep = arith.constant {0} : i32
        %tapStart = arith.muli %tapColumn, %tapStep : i32
        %inSegment = arith.addi %tapStart, %tapChannel : i32)",
                                                p.dilationW * p.channels)
                                      .str()},
         {"PAD_TOP", n(p.padTop)},
         {"PAD_LEFT", n(p.padLeft)},
         {"SEGMENT", n(p.kernelWidth * p.channels)},
         {"KP", n(p.gemmK())},
         {"K", n(p.taps() * p.channels)},
         {"CHUNKS_PER_ROW", n(p.gemmK() / im2colChunk(p))},
         {"OWB", n(blocks.positions)},
         {"BLOCKS_PER_ROW", n(blocks.perRow)},
         {"WIN_C", n(blocks.windowRowElements)},
         {"WINDOW", n(blocks.windowElements)},
         {"WINDOW_STEPS", n(blocks.windowSteps())},
         {"WINDOW_PADDED", n(blocks.windowSteps() * 256)},
         {"STAGED", n(blocks.positions * p.gemmK())},
         {"COLUMN_STEPS", n(llvm::divideCeil(p.gemmK(), 32))},
         {"A_ELEMENTS", n(p.maxGemmM() * p.gemmK())}});
    FailureOr<gpu::GPUFuncOp> kernel =
        kiln::insertTemplateModule(module, symbols, getArgument(), entry, text);
    if (failed(kernel) || failed(kiln::unrollMarkedLoops(*kernel)))
      return failure();
    return kernel;
  }

  /// The GEMM kernel of `variant` for `function`'s launches.
  FailureOr<gpu::GPUFuncOp> getOrCreateGemm(ModuleOp module, SymbolTable &symbols,
                                            kernel::FuncOp function, const Variant &variant) {
    const ConvProblem &p = variant.problem;
    const PixelBox &box = variant.box;
    const kiln::Sm90GemmConfig &config = variant.config;
    if (p.rowMajorA()) {
      // The product of a row-major matrix, shared with sm90_gemm's.
      std::string entry = kiln::sm90GemmEntryName(p.operand, p.result, p.kMajorB(), config);
      // C's tiles are runs of its rows: a residual can come through shared memory.
      return kiln::instantiateWarpSpecialisedGemm(
          module, symbols, getArgument(), entry, p.operand, p.result, p.outChannels, config,
          kiln::rowMajorMatrixA(p.kTileBytes), &p.epilogue, /*kMajorB=*/p.kMajorB(),
          kiln::sm90ResidualTileBytes(function, &p.epilogue, config, /*rowMajorRows=*/true,
                                      p.result),
          /*depth=*/p.gemmK());
    }
    // The kernel reads the batch off M. A run-time batch's ("N") has its output boxes
    // (chosen at the opt batch, or a variant's min batch) in its name: they tell apart the
    // kernels of one shape.
    // 3-D: the depths lead the extents ("8x16x56x56x64_k3x3x3").
    bool volumetric = p.spatialRank == 3;
    std::string depth = volumetric ? std::to_string(p.depth) + "x" : std::string();
    std::string kernelDepth = volumetric ? std::to_string(p.kernelDepth) + "x" : std::string();
    std::string boxName =
        volumetric
            ? llvm::formatv("_box{0}x{1}x{2}x{3}", box.images, box.depths, box.rows, box.columns)
                  .str()
            : llvm::formatv("_box{0}x{1}x{2}", box.images, box.rows, box.columns).str();
    std::string entry =
        llvm::formatv("conv_{0}_{1}x{2}{3}x{4}x{5}{6}_k{7}{8}x{9}{10}_o{11}_{12}",
                      kiln::elementTypeName(p.operand),
                      p.dynamicBatch ? std::string("N") : std::to_string(p.batch), depth, p.height,
                      p.width, p.channels, p.dynamicBatch ? boxName : std::string(), kernelDepth,
                      p.kernelHeight, p.kernelWidth, kiln::convWindowName(p), p.outChannels,
                      config.name())
            .str();
    return kiln::instantiateWarpSpecialisedGemm(
        module, symbols, getArgument(), entry, p.operand, p.result, p.outChannels, config,
        implicitIm2col(p, box), &p.epilogue, /*kMajorB=*/p.kMajorB(),
        /*residualTileBytes=*/0, /*depth=*/p.gemmK());
  }

  /// kernel.launch @conv(%x, %w, ..., %y) -> the im2col kernel (explicit A), then for each
  /// variant the tensor maps and the GEMM's launch (with more than one, each with grids
  /// empty outside its rows). Fails, changing nothing on the host, where a kernel cannot
  /// be built or the weight is no constant.
  /// `p` is the problem at the opt shape: what every variant shares (the geometry, the
  /// max batch, the explicit im2col).
  LogicalResult replaceLaunch(ModuleOp module, SymbolTable &symbols, kernel::FuncOp function,
                              kernel::LaunchOp launch, const ConvProblem &p,
                              ArrayRef<Variant> variants) {
    Value input = launch.getOperands()[0], weight = launch.getOperands()[1],
          output = launch.getOperands().back();
    // The kernels and weight matrices first: a weight computed at run time, or a kernel
    // that cannot be built (A's rows or the input past 32-bit offsets), leaves the launch
    // to the generic lowering, and nothing is built on the host.
    FailureOr<gpu::GPUFuncOp> im2col = gpu::GPUFuncOp();
    if (p.a == ConvProblem::A::Im2col)
      im2col = getOrCreateIm2col(module, symbols, p);
    if (failed(im2col))
      return failure();
    SmallVector<std::pair<gpu::GPUFuncOp, memref::GlobalOp>, 2> built;
    for (const Variant &variant : variants) {
      FailureOr<memref::GlobalOp> matrix =
          kiln::permutedConvWeight(symbols, weight, variant.problem);
      FailureOr<gpu::GPUFuncOp> gemm = succeeded(matrix)
                                           ? getOrCreateGemm(module, symbols, function, variant)
                                           : FailureOr<gpu::GPUFuncOp>(failure());
      if (failed(gemm))
        return failure();
      built.push_back({*gemm, *matrix});
    }

    OpBuilder b(launch);
    Location launchLoc = launch.getLoc();
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, launchLoc, value);
    };
    Value one = index(1);
    // A run-time batch: the launch's rows (M = N*OH*OW) and images, read off the output on
    // the host (the engine's shape program evaluates them per input shape).
    OpFoldResult rows = b.getIndexAttr(p.gemmM());
    OpFoldResult images = b.getIndexAttr(p.batch);
    int64_t m = p.gemmM();
    if (p.dynamicBatch) {
      images = memref::DimOp::create(b, launchLoc, output, 0).getResult();
      rows = kiln::hostExtentProduct(b, launchLoc, output, 0, p.spatialRank + 1);
      m = ShapedType::kDynamic;
    }
    // A as a row-major matrix: the input as it is, or the explicit im2col's scratch (the
    // arena planner places it, at the max batch).
    Value matrixA;
    if (p.a == ConvProblem::A::Input) {
      auto type = cast<MemRefType>(input.getType());
      matrixA = memref::ReinterpretCastOp::create(
          b, launchLoc, MemRefType::get({m, p.channels}, type.getElementType()), input,
          b.getIndexAttr(0), ArrayRef<OpFoldResult>{rows, b.getIndexAttr(p.channels)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(p.channels), b.getIndexAttr(1)});
    } else if (p.a == ConvProblem::A::Im2col) {
      SmallVector<Value> scratchSizes;
      if (p.dynamicBatch)
        scratchSizes.push_back(cast<Value>(rows));
      matrixA = memref::AllocOp::create(b, launchLoc, MemRefType::get({m, p.gemmK()}, p.operand),
                                        scratchSizes);
      Value ctas = p.dynamicBatch
                       ? arith::MulIOp::create(b, launchLoc, cast<Value>(images),
                                               index(p.outHeight * im2colBlocks(p).perRow))
                             .getResult()
                       : index(p.batch * p.outHeight * im2colBlocks(p).perRow);
      // Tagged as the convolution's (its kernel.func, for profiles: one function of two
      // launches), as a helper launch: the function's tuned time is its GEMM's.
      NamedAttrList tags;
      tags.set("kernel", launch.getCalleeAttr().getAttr());
      tags.set("template", b.getStringAttr("conv"));
      tags.set("config", b.getStringAttr("explicit im2col"));
      tags.set("helper", b.getUnitAttr());
      Location im2colLoc =
          FusedLoc::get(b.getContext(), {launchLoc}, tags.getDictionary(b.getContext()));
      gpu::LaunchFuncOp::create(b, im2colLoc, *im2col, gpu::KernelDim3{ctas, one, one},
                                gpu::KernelDim3{index(256), one, one},
                                /*dynamicSharedMemorySize=*/Value(),
                                ValueRange{kiln::barePointer(b, launchLoc, input),
                                           kiln::barePointer(b, launchLoc, matrixA)});
    }

    int64_t fewerRows = 0; // the rows the variants before this one take
    for (auto [variant, kernel] : llvm::zip(variants, built)) {
      if (failed(launchVariant(b, module, symbols, launch, variant, kernel.first, kernel.second,
                               input, matrixA, output, rows, images, fewerRows,
                               variants.size() > 1))) {
        hardFailure = true;
        return failure();
      }
      fewerRows = variant.maxRows;
    }
    launch.erase();
    return success();
  }

  /// One variant's tensor maps and GEMM launch (see replaceLaunch), for the Ms above
  /// `fewerRows` up to its maxRows when `gated`.
  LogicalResult launchVariant(OpBuilder &b, ModuleOp module, SymbolTable &symbols,
                              kernel::LaunchOp launch, const Variant &variant,
                              gpu::GPUFuncOp kernelFunc, memref::GlobalOp weightMatrix, Value input,
                              Value matrixA, Value output, OpFoldResult rows, OpFoldResult images,
                              int64_t fewerRows, bool gated) {
    const ConvProblem &p = variant.problem;
    const PixelBox &box = variant.box;
    const kiln::Sm90GemmConfig &config = variant.config;
    std::string how = p.a == ConvProblem::A::Im2col  ? std::string(", explicit im2col")
                      : p.a == ConvProblem::A::Input ? std::string(", the input as A")
                      : p.spatialRank == 3
                          ? llvm::formatv(", implicit GEMM, boxes of {0}x{1}x{2}x{3} positions",
                                          box.images, box.depths, box.rows, box.columns)
                                .str()
                          : llvm::formatv(", implicit GEMM, boxes of {0}x{1}x{2} positions",
                                          box.images, box.rows, box.columns)
                                .str();
    if (gated)
      how += kiln::describeRowsInVariant(fewerRows, variant.maxRows);
    NamedAttrList metadata;
    metadata.set("kernel", launch.getCalleeAttr().getAttr());
    metadata.set("template", b.getStringAttr("conv"));
    if (!p.epilogue.empty())
      how += ", epilogue " + p.epilogue.describe();
    metadata.set("config", b.getStringAttr(config.describe() + how));
    Location loc =
        FusedLoc::get(b.getContext(), {launch.getLoc()}, metadata.getDictionary(b.getContext()));
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, loc, value);
    };
    FunctionType signature = kernelFunc.getFunctionType();
    auto tensorMap = [&](Value buffer, unsigned parameter, ArrayRef<int64_t> boxExtents) {
      auto type = cast<MemRefType>(buffer.getType());
      Value unranked = memref::CastOp::create(
          b, loc, UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace()), buffer);
      SmallVector<Value> extents;
      for (int64_t extent : boxExtents)
        extents.push_back(index(extent));
      return nvgpu::TmaCreateDescriptorOp::create(
          b, loc, cast<nvgpu::TensorMapDescriptorType>(signature.getInput(parameter)), unranked,
          extents);
    };
    nvgpu::TmaCreateDescriptorOp mapA;
    if (p.rowMajorA()) {
      mapA = tensorMap(matrixA, 0, {128, p.tileK()});
    } else {
      // A: the NHWC input; the box spans the strides x the positions along H and W, of
      // which TMA takes every stride-th (the element strides the engine builder reads).
      if (p.spatialRank == 3) {
        mapA = tensorMap(input, 0,
                         {box.images, box.depths * p.strideD, box.rows * p.strideH,
                          box.columns * p.strideW, p.tileK()});
        mapA->setAttr("kiln.tma_element_strides",
                      b.getDenseI64ArrayAttr({1, p.strideD, p.strideH, p.strideW, 1}));
      } else if (p.group == 1) {
        mapA = tensorMap(input, 0,
                         {box.images, box.rows * p.strideH, box.columns * p.strideW, p.tileK()});
        mapA->setAttr("kiln.tma_element_strides",
                      b.getDenseI64ArrayAttr({1, p.strideH, p.strideW, 1}));
      } else {
        // Grouped: [N, H, W, G, C], a box of one group's channels.
        OpFoldResult batch = p.dynamicBatch ? OpFoldResult(images) : b.getIndexAttr(p.batch);
        int64_t pixel = p.group * p.channels;
        auto type = MemRefType::get({p.dynamicBatch ? ShapedType::kDynamic : p.batch, p.height,
                                     p.width, p.group, p.channels},
                                    p.operand);
        Value grouped = memref::ReinterpretCastOp::create(
            b, loc, type, input, b.getIndexAttr(0),
            ArrayRef<OpFoldResult>{batch, b.getIndexAttr(p.height), b.getIndexAttr(p.width),
                                   b.getIndexAttr(p.group), b.getIndexAttr(p.channels)},
            ArrayRef<OpFoldResult>{b.getIndexAttr(p.height * p.width * pixel),
                                   b.getIndexAttr(p.width * pixel), b.getIndexAttr(pixel),
                                   b.getIndexAttr(p.channels), b.getIndexAttr(1)});
        mapA = tensorMap(grouped, 0,
                         {box.images, box.rows * p.strideH, box.columns * p.strideW, 1, p.tileK()});
        mapA->setAttr("kiln.tma_element_strides",
                      b.getDenseI64ArrayAttr({1, p.strideH, p.strideW, 1, 1}));
      }
    }
    Value weightB =
        memref::GetGlobalOp::create(b, loc, weightMatrix.getType(), weightMatrix.getName());
    // Boxes of 64 columns of B: a k-tile of 64 rows of N (K-major: tf32, int8), or 64
    // columns of a k-tile's rows.
    SmallVector<int64_t> boxB = {p.tileK(), 64};
    if (p.kMajorB())
      boxB = {64, p.tileK()};
    auto mapB = tensorMap(weightB, 1, boxB);
    // The tiles: of 128 rows of C, or of output boxes (ceil(N / box images) boxes of
    // images, each over the same boxes of rows and columns).
    int64_t tilesN = llvm::divideCeil(p.outChannels, config.tileN);
    OpFoldResult tiles = b.getIndexAttr(tileCount(p, box) * tilesN);
    if (p.dynamicBatch) {
      Value tilesM =
          p.rowMajorA()
              ? arith::CeilDivUIOp::create(b, loc, cast<Value>(rows), index(128)).getResult()
              : arith::MulIOp::create(
                    b, loc,
                    arith::CeilDivUIOp::create(b, loc, cast<Value>(images), index(box.images)),
                    index(tileCount(p, box, box.images)))
                    .getResult();
      tiles = arith::MulIOp::create(b, loc, tilesM, index(tilesN)).getResult();
    }
    // Which Ms this variant takes, when there are several.
    Value enabled = gated ? kiln::rowsInVariant(b, loc, rows, fewerRows, variant.maxRows) : Value();
    // The epilogue emitted when it was matched, so a failure here is an internal error.
    return kiln::launchWarpSpecialisedGemm(
        b, loc, module, symbols, getArgument(), kernelFunc, config, tiles, mapA.getResult(),
        mapB.getResult(), output, rows, p.outChannels, p.gemmK(), &p.epilogue,
        kiln::epilogueBuffers(launch, p.epilogue), p.maxGemmM(), enabled);
  }
};

/// The family: #kernel.sm90_conv on sm_90a.
class Sm90ConvTemplate final : public kiln::KernelTemplateOf<kernel::Sm90ConvConfigAttr> {
  /// The configurations of `function` on the options' target; empty when the family does
  /// not take it.
  static SmallVector<kiln::Sm90GemmConfig> legal(kernel::FuncOp function,
                                                 const kiln::TemplateOptions &options) {
    if (options.target != kiln::kTargetSm90a || !kiln::matchSm90Conv(function, options.allowTf32))
      return {};
    return kiln::sm90ConvConfigs(function, options.allowTf32);
  }

  SmallVector<Attribute> candidates(kernel::FuncOp function,
                                    const kiln::TemplateOptions &options) const override {
    return kiln::configAttrs<kernel::Sm90ConvConfigAttr, kiln::Sm90GemmConfig>(
        function.getContext(), legal(function, options));
  }

  std::optional<std::string> whyNot(kernel::FuncOp function,
                                    const kiln::TemplateOptions &options) const override {
    if (options.target != kiln::kTargetSm90a || !kiln::getTemplateOp<kernel::ConvOp>(function))
      return std::nullopt;
    std::string why;
    if (!kiln::matchConvKernel(function, options.allowTf32, /*tapAlignment=*/0,
                               /*runTimeBatch=*/true, {}, &why))
      return why;
    return std::string("no configuration fits its shape");
  }

  Attribute defaultConfig(kernel::FuncOp function,
                          const kiln::TemplateOptions &options) const override {
    return kiln::defaultConfigAttr<kernel::Sm90ConvConfigAttr, kiln::Sm90GemmConfig>(
        function, legal(function, options), options.gemmConfig);
  }

  std::optional<std::string> describeProblem(kernel::FuncOp function) const override {
    std::optional<kiln::Sm90GemmProblem> conv = kiln::matchSm90Conv(function, /*allowTf32=*/true);
    if (!conv)
      return std::nullopt;
    return llvm::formatv("conv as {0}x{1}x{2} {3}", conv->m, conv->n, conv->k,
                         kiln::elementTypeName(conv->operand))
        .str();
  }

  std::string describe(kernel::Sm90ConvConfigAttr config) const override {
    return kiln::Sm90GemmConfig::fromAttr(config).describe();
  }

  double estimateMicros(kernel::FuncOp function, kernel::Sm90ConvConfigAttr attr,
                        const kiln::DeviceModel &device) const override {
    kiln::Sm90GemmConfig config = kiln::Sm90GemmConfig::fromAttr(attr);
    std::optional<kiln::Sm90GemmProblem> problem = kiln::matchSm90Conv(function, config.tf32);
    if (!problem)
      return kiln::estimateTemplateFallbackMicros(function, device);
    return kiln::estimateSm90GemmMicros(*problem, config, kiln::estimateKernelBytes(function),
                                        device);
  }

  LogicalResult instantiate(kernel::FuncOp function, kernel::Sm90ConvConfigAttr attr,
                            kiln::TemplateInstantiation &context) const override {
    if (context.options.target != kiln::kTargetSm90a)
      return function.emitError(context.pass)
             << ": " << attr << " is for sm_90a (wgmma and TMA), not " << context.options.target;
    kiln::Sm90GemmConfig config = kiln::Sm90GemmConfig::fromAttr(attr);
    std::optional<ConvProblem> problem = matchConv(function, config.tf32);
    if (!problem)
      return function.emitError(context.pass)
             << ": " << attr
             << " is for a channels-last convolution (not depthwise) of "
                "half-precision (or tf32, int8) operands, which this kernel is not";
    PixelBox box = choosePixelBox(*problem);
    if (failed(kiln::checkListedConfig<kiln::Sm90GemmConfig>(
            function, convConfigs(*problem, box), config, attr, context.pass, "convolution")))
      return failure();
    Sm90ConvGenerator generator{context.module, context.symbols, context.pass};
    return generator.run(function, *problem, box, config);
  }
};

} // namespace

namespace kiln {
// Registered in KernelTemplate.cpp.
const KernelTemplate &sm90ConvTemplate() {
  static const Sm90ConvTemplate family;
  return family;
}
} // namespace kiln
