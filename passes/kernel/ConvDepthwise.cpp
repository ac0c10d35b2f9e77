//===- ConvDepthwise.cpp - Specialised depthwise convolutions -------------===//
//
// The depthwise family (#kernel.depthwise): 2-D convolutions with as many groups as input channels
// (MobileNet's and EfficientNet's depthwise layers) do a few multiply-adds per element they move,
// so they are bound by memory, not arithmetic; the generic lowering (one thread per output element,
// each reading its whole window) is far from that bound. This pass replaces them, with
// their fused epilogue, by one of two CUDA-core kernels (docs/codegen-depthwise.md):
// - channels last (templates/DepthwiseNhwc.mlir): threads along the channels with 16-byte
//   loads, each thread several output columns, so that every input column it loads serves
//   all the outputs that read it; the weight repacked at compile time to [KH, KW, M];
// - channels first (templates/DepthwiseNchw.mlir): a block stages the input tile (with its
//   halo) of one or more planes in shared memory, each thread several outputs of a row.
// Both accumulate in f32 and apply the epilogue (passes/kernel/Sm90Epilogue.h: bias,
// Clip/ReLU6, SiLU, HardSwish, residual, ...) before rounding to the output type. CUDA
// cores only, so the family serves every GPU target.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "passes/kernel/DepthwiseConfig.h"
#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/KernelTemplate.h"
#include "passes/kernel/Sm90Template.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
namespace graph = kiln::graph;
namespace kernel = kiln::kernel;

namespace {

/// The templates' text (passes/kernel/templates/DepthwiseNhwc.mlir, DepthwiseNchw.mlir).
constexpr const char kNhwcTemplate[] =
#include "passes/kernel/templates/DepthwiseNhwc.mlir.inc"
    ;
constexpr const char kNchwTemplate[] =
#include "passes/kernel/templates/DepthwiseNchw.mlir.inc"
    ;

/// The attribute of the op that stands for the epilogue in a parsed template.
constexpr StringLiteral kMarkerAttr = "kiln.depthwise_epilogue";

/// Static shared memory a block may have on every target (48 KB without opting in).
constexpr int64_t kMaxSharedBytes = 48 * 1024;

/// Output values (pixels x channels) a channels-last thread may accumulate.
constexpr int64_t kMaxNhwcAccumulators = 64;

int64_t bytesOf(Type type) { return type.getIntOrFloatBitWidth() / 8; }

/// The largest power of two at most `limit` that divides `value`.
int64_t powerOfTwoDividing(int64_t value, int64_t limit) {
  int64_t power = 1;
  while (power * 2 <= limit && value % (power * 2) == 0)
    power *= 2;
  return power;
}

/// The constant global `value` reads (`memref.get_global` of a constant with an initial
/// value), if it does.
memref::GlobalOp constantGlobal(Value value) {
  auto get = value.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return nullptr;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(get, get.getNameAttr());
  if (!global || !global.getConstant() || !global.getInitialValue())
    return nullptr;
  return global;
}

/// Whether every launch of `function` (at least one) passes a constant weight.
bool launchedWithConstantWeights(kernel::FuncOp function) {
  auto module = function->getParentOfType<ModuleOp>();
  if (!module)
    return false;
  std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(function, module);
  if (!uses || uses->empty())
    return false;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto launch = dyn_cast<kernel::LaunchOp>(use.getUser());
    if (!launch || launch.getOperands().size() < 3 || !constantGlobal(launch.getOperands()[1]))
      return false;
  }
  return true;
}

/// The bytes of a constant global's initial value (`storage` holds them for a splat).
std::optional<ArrayRef<char>> globalBytes(memref::GlobalOp global, std::vector<char> &storage) {
  Attribute init = *global.getInitialValue();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(init)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    return blob->getData();
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(init)) {
    if (!dense.isSplat())
      return dense.getRawData();
    ArrayRef<char> one = dense.getRawData();
    for (int64_t i = 0; i < dense.getNumElements(); ++i)
      storage.insert(storage.end(), one.begin(), one.end());
    return ArrayRef<char>(storage);
  }
  return std::nullopt;
}

/// The shape of the channels-first template's tiles under a configuration.
struct NchwGeometry {
  int64_t threadsPerRow, threadsPerPlane, threads;
  int64_t tilesW, tilesH, planeGroups;
  int64_t inTileH, inTileW, columns, columnsLoaded, loadAlignElements, pitch, sharedElements;
  int64_t stageSteps;
};

NchwGeometry nchwGeometry(const kiln::DepthwiseProblem &p, const kiln::DepthwiseConfig &c) {
  NchwGeometry g;
  g.threadsPerRow = c.tileW / c.pixels;
  g.threadsPerPlane = g.threadsPerRow * c.tileH;
  g.threads = g.threadsPerPlane * c.planes;
  g.tilesW = llvm::divideCeil(p.outWidth, c.tileW);
  g.tilesH = llvm::divideCeil(p.outHeight, c.tileH);
  g.planeGroups = llvm::divideCeil(p.batch * p.outChannels(), c.planes);
  g.inTileH = (c.tileH - 1) * p.strideH + (p.kernelHeight - 1) * p.dilationH + 1;
  g.inTileW = (c.tileW - 1) * p.strideW + (p.kernelWidth - 1) * p.dilationW + 1;
  g.columns = (c.pixels - 1) * p.strideW + (p.kernelWidth - 1) * p.dilationW + 1;
  // A thread's columns start at a multiple of pixels * SW in a row whose pitch is a
  // multiple of 4: they are loaded as vectors of up to 4 f32 (16 bytes) when that step
  // allows.
  g.loadAlignElements = powerOfTwoDividing(c.pixels * p.strideW, 4);
  g.columnsLoaded = llvm::alignTo(g.columns, g.loadAlignElements);
  g.pitch =
      llvm::alignTo(std::max(g.inTileW, (c.tileW - c.pixels) * p.strideW + g.columnsLoaded), 4);
  g.sharedElements = c.planes * g.inTileH * g.pitch;
  g.stageSteps = llvm::divideCeil(c.planes * g.inTileH * g.inTileW, g.threads);
  return g;
}

/// The channels-first heuristic: `pixels` outputs a thread, tiles at most 64 columns wide
/// and about `target` threads a block, whole planes (several a block) when they are small.
kiln::DepthwiseConfig nchwConfig(const kiln::DepthwiseProblem &p, int64_t pixels, int64_t target) {
  kiln::DepthwiseConfig c;
  c.pixels = pixels;
  c.threads = 0;
  int64_t tilesW = llvm::divideCeil(p.outWidth, 64);
  c.tileW = llvm::alignTo(llvm::divideCeil(p.outWidth, tilesW), pixels);
  int64_t threadsPerRow = c.tileW / pixels;
  int64_t maxRows = std::max<int64_t>(1, target / threadsPerRow);
  int64_t tilesH = llvm::divideCeil(p.outHeight, maxRows);
  c.tileH = llvm::divideCeil(p.outHeight, tilesH);
  c.planes = 1;
  if (tilesW == 1 && tilesH == 1)
    c.planes =
        std::clamp<int64_t>(target / (threadsPerRow * c.tileH), 1, p.batch * p.outChannels());
  return c;
}

/// The channels-last kernel's threads in all (one per channel vector and `pixels` columns).
int64_t nhwcThreads(const kiln::DepthwiseProblem &p, int64_t pixels) {
  return p.batch * p.outHeight * llvm::divideCeil(p.outWidth, pixels) *
         (p.outChannels() / p.vectorWidth());
}

} // namespace

//===----------------------------------------------------------------------===//
// Problem and configurations (passes/kernel/DepthwiseConfig.h)
//===----------------------------------------------------------------------===//

int64_t kiln::DepthwiseProblem::vectorWidth() const {
  if (!channelsLast || multiplier != 1)
    return 1;
  return powerOfTwoDividing(outChannels(), 16 / bytesOf(operand));
}

std::string kiln::DepthwiseConfig::describe() const {
  if (channelsFirst())
    return llvm::formatv("depthwise tile {0}x{1}, {2} pixels a thread, {3} plane{4}", tileH, tileW,
                         pixels, planes, planes == 1 ? "" : "s")
        .str();
  return llvm::formatv("depthwise {0} pixels a thread, {1} threads", pixels, threads).str();
}

std::string kiln::DepthwiseConfig::name() const {
  if (channelsFirst())
    return llvm::formatv("p{0}_{1}x{2}x{3}", pixels, tileH, tileW, planes).str();
  return llvm::formatv("p{0}_t{1}", pixels, threads).str();
}

bool kiln::isLegalDepthwiseConfig(const DepthwiseProblem &p, const DepthwiseConfig &c) {
  if (!llvm::is_contained({1, 2, 4, 8}, c.pixels))
    return false;
  // Channels last: at least 2 pixels, 2 channels and 2 filter columns. With one, the
  // template's 2-D register arrays (pixels x channels, filter columns x channels) have a
  // unit dimension, which canonicalisation turns into n-D vector.broadcast/shape_cast
  // that the NVVM lowering does not take (found on the GPU: 576x14x14 stride 2, 1 pixel).
  if (p.channelsLast)
    return c.pixels >= 2 && p.vectorWidth() >= 2 && p.kernelWidth >= 2 && !c.channelsFirst() &&
           c.planes == 0 && llvm::is_contained({64, 128, 256, 512}, c.threads) &&
           c.pixels * p.vectorWidth() <= kMaxNhwcAccumulators &&
           c.pixels <= int64_t(llvm::PowerOf2Ceil(p.outWidth));
  if (!c.channelsFirst() || c.threads != 0 || c.tileW % c.pixels || c.planes < 1 ||
      c.tileH > p.outHeight || c.tileW > int64_t(llvm::alignTo(p.outWidth, c.pixels)) ||
      c.planes > p.batch * p.outChannels())
    return false;
  NchwGeometry g = nchwGeometry(p, c);
  return g.threads >= 32 && g.threads <= 1024 && g.sharedElements * 4 <= kMaxSharedBytes;
}

SmallVector<kiln::DepthwiseConfig> kiln::depthwiseConfigs(const DepthwiseProblem &p) {
  SmallVector<DepthwiseConfig> configs;
  auto add = [&](const DepthwiseConfig &config) {
    if (isLegalDepthwiseConfig(p, config) && !llvm::is_contained(configs, config))
      configs.push_back(config);
  };
  if (p.channelsLast) {
    // The default: 4 columns a thread (more reuse of each loaded input column) when that
    // still leaves at least 512 threads for each of an H200's 132 SMs, else 2 (the fewest
    // the template takes).
    int64_t pixels = nhwcThreads(p, 4) >= 132 * 512 ? 4 : 2;
    DepthwiseConfig config;
    config.pixels = pixels;
    config.threads = 256;
    add(config);
    for (int64_t threads : {256, 128})
      for (int64_t candidate : {2, 4, 8}) {
        config.pixels = candidate;
        config.threads = threads;
        add(config);
      }
    return configs;
  }
  // The default: 4 outputs a thread where rows are wide enough, 256-thread blocks.
  int64_t pixels = p.outWidth >= 16 ? 4 : p.outWidth >= 8 ? 2 : 1;
  add(nchwConfig(p, pixels, 256));
  // Not 8 outputs a thread: measured slower where the cost model chose it (its stores,
  // two 16-byte vectors a thread, leave a warp's sectors half written); 4 make one
  // coalesced 16-byte store a thread.
  for (int64_t target : {256, 128, 512})
    for (int64_t candidate : {1, 2, 4})
      add(nchwConfig(p, candidate, target));
  return configs;
}

double kiln::estimateDepthwiseMicros(const DepthwiseProblem &p, const DepthwiseConfig &c,
                                     double bytesPerSecond, double launchMicros) {
  double inputBytes = double(p.batch) * p.channels * p.height * p.width * bytesOf(p.operand);
  double outputBytes =
      double(p.batch) * p.outChannels() * p.outHeight * p.outWidth * bytesOf(p.result);
  double epilogueBytes = 0;
  for (const Sm90EpilogueInput &input : p.epilogue.inputs)
    if (input.kind == Sm90EpilogueInput::Kind::Full)
      epilogueBytes +=
          outputBytes / bytesOf(p.result) * input.elementType.getIntOrFloatBitWidth() / 8;
  // Channels first: each tile reads its input with the halo (the neighbours' rows and
  // columns come again, mostly from the L2; counted here as a share of the bytes).
  double halo = 1;
  if (c.channelsFirst()) {
    NchwGeometry g = nchwGeometry(p, c);
    double needed =
        double(std::min(p.height, c.tileH * p.strideH)) * std::min(p.width, c.tileW * p.strideW);
    halo = std::max(1.0, double(g.inTileH * g.inTileW) / std::max(1.0, needed));
    halo = 1 + (halo - 1) / 2;
  }
  return launchMicros + 1e6 * (inputBytes * halo + outputBytes + epilogueBytes) / bytesPerSecond;
}

std::string kiln::describeDepthwise(const DepthwiseProblem &p) {
  std::string type = elementTypeName(p.operand);
  std::string text = llvm::formatv("depthwise {0}x{1}x{2}x{3} k{4}x{5} s{6}", p.batch, p.channels,
                                   p.height, p.width, p.kernelHeight, p.kernelWidth, p.strideH)
                         .str();
  if (p.strideW != p.strideH)
    text += "x" + std::to_string(p.strideW);
  if (p.multiplier != 1)
    text += " x" + std::to_string(p.multiplier);
  return text + " " + type + (p.channelsLast ? " NHWC" : " NCHW");
}

std::optional<kiln::DepthwiseProblem> kiln::matchDepthwiseConv(kernel::FuncOp function) {
  auto conv = getTemplateOp<kernel::ConvOp>(function);
  if (!conv)
    return std::nullopt;
  Block &body = conv.getBody().front();
  auto convs = body.getOps<graph::ConvOp>();
  if (!llvm::hasSingleElement(convs))
    return std::nullopt;
  graph::ConvOp op = *convs.begin();
  if (op.getInput() != body.getArgument(0) || op.getWeight() != body.getArgument(1) ||
      op.getStrides().size() != 2 || op.getDilations().size() != 2 || op.getPads().size() != 4)
    return std::nullopt;
  std::optional<SmallVector<MemRefType>> buffers = getStaticBufferTypes(function);
  if (!buffers)
    return std::nullopt;
  SmallVector<MemRefType> &types = *buffers;
  MemRefType input = types[0], weight = types[1], output = types.back();
  if (input.getRank() != 4 || weight.getRank() != 4 || output.getRank() != 4)
    return std::nullopt;

  DepthwiseProblem p;
  p.channelsLast = op.getChannelsLast();
  ArrayRef<int64_t> x = input.getShape(), w = weight.getShape(), y = output.getShape();
  int64_t outChannels;
  if (p.channelsLast) {
    p.batch = x[0], p.height = x[1], p.width = x[2], p.channels = x[3];
    outChannels = w[0], p.kernelHeight = w[1], p.kernelWidth = w[2];
    if (w[3] != 1 || y[3] != outChannels)
      return std::nullopt;
    p.outHeight = y[1], p.outWidth = y[2];
  } else {
    p.batch = x[0], p.channels = x[1], p.height = x[2], p.width = x[3];
    outChannels = w[0], p.kernelHeight = w[2], p.kernelWidth = w[3];
    if (w[1] != 1 || y[1] != outChannels)
      return std::nullopt;
    p.outHeight = y[2], p.outWidth = y[3];
  }
  // One input channel (group 1) is an ordinary convolution: sm90_conv's.
  if (int64_t(op.getGroup()) != p.channels || p.channels < 2 || outChannels % p.channels ||
      y[0] != p.batch)
    return std::nullopt;
  p.multiplier = outChannels / p.channels;
  p.strideH = op.getStrides()[0], p.strideW = op.getStrides()[1];
  p.dilationH = op.getDilations()[0], p.dilationW = op.getDilations()[1];
  p.padTop = op.getPads()[0], p.padLeft = op.getPads()[1];
  int64_t padBottom = op.getPads()[2], padRight = op.getPads()[3];
  if (p.strideH < 1 || p.strideW < 1 || p.dilationH < 1 || p.dilationW < 1 || p.padTop < 0 ||
      p.padLeft < 0 || padBottom < 0 || padRight < 0)
    return std::nullopt;
  // The output's extents are the window's (graph.conv's shape rule; checked, not assumed).
  if (p.outHeight !=
          (p.height + p.padTop + padBottom - p.dilationH * (p.kernelHeight - 1) - 1) / p.strideH +
              1 ||
      p.outWidth !=
          (p.width + p.padLeft + padRight - p.dilationW * (p.kernelWidth - 1) - 1) / p.strideW +
              1 ||
      p.outHeight < 1 || p.outWidth < 1)
    return std::nullopt;

  // Input and weight of one float type, accumulated in f32; the epilogue may cast the
  // result to another float type, or quantize it to i8 (the input of an int8 convolution
  // after it).
  p.operand = input.getElementType();
  p.result = output.getElementType();
  auto isFloat = [](Type type) { return type.isF32() || type.isF16() || type.isBF16(); };
  if (!isFloat(p.operand) || weight.getElementType() != p.operand ||
      !(isFloat(p.result) || p.result.isSignlessInteger(8)) ||
      op.getResult().getType().getElementType() != p.operand)
    return std::nullopt;
  // The kernels index in 32 bits.
  for (MemRefType type : types)
    if (type.getNumElements() >= (int64_t(1) << 31))
      return std::nullopt;
  std::optional<Sm90Epilogue> epilogue =
      matchSm90Epilogue(op, op.getBias(), output, p.channelsLast ? 3 : 1);
  // Its lanes read the epilogue's inputs by channel or flat index, not by row.
  if (!epilogue || (epilogue->empty() && p.result != p.operand) ||
      llvm::any_of(epilogue->inputs, [](const Sm90EpilogueInput &input) {
        return input.kind == Sm90EpilogueInput::Kind::PerRow;
      }))
    return std::nullopt;
  p.epilogue = std::move(*epilogue);
  if (!launchedWithConstantWeights(function))
    return std::nullopt;
  return p;
}

namespace {

/// Generates the kernels whose `kernel.config` is #kernel.depthwise.
struct DepthwiseGenerator {
  ModuleOp module;
  SymbolTable &symbols;
  StringRef pass;

  StringRef getArgument() const { return pass; }
  MLIRContext &getContext() { return *module.getContext(); }

  LogicalResult run(kernel::FuncOp function, const kiln::DepthwiseProblem &problem,
                    const kiln::DepthwiseConfig &config) {
    FailureOr<gpu::GPUFuncOp> kernel = getOrCreateKernel(module, symbols, problem, config);
    if (failed(kernel))
      return failure();
    bool failedHere = false;
    kiln::replaceLaunches(function, module, symbols, [&](kernel::LaunchOp launch) {
      if (succeeded(replaceLaunch(symbols, launch, *kernel, problem, config)))
        return success();
      failedHere = true;
      return failure();
    });
    return success(!failedHere);
  }

  /// The kernel of `p` under `config`, instantiated into a gpu.module of `module` once.
  FailureOr<gpu::GPUFuncOp> getOrCreateKernel(ModuleOp module, SymbolTable &symbols,
                                              const kiln::DepthwiseProblem &p,
                                              const kiln::DepthwiseConfig &config) {
    std::string in = kiln::elementTypeName(p.operand), out = kiln::elementTypeName(p.result);
    std::string entry =
        llvm::formatv("depthwise_{0}_{1}_{2}_{3}x{4}x{5}x{6}x{7}_k{8}x{9}s{10}x{11}d{12}x{13}"
                      "p{14}x{15}_o{16}x{17}_{18}",
                      p.channelsLast ? "nhwc" : "nchw", in, out, p.batch, p.channels, p.height,
                      p.width, p.multiplier, p.kernelHeight, p.kernelWidth, p.strideH, p.strideW,
                      p.dilationH, p.dilationW, p.padTop, p.padLeft, p.outHeight, p.outWidth,
                      config.name())
            .str() +
        p.epilogue.key();
    std::string moduleName = "kiln_" + entry;
    if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName))
      return existing.lookupSymbol<gpu::GPUFuncOp>(entry);

    auto n = [](int64_t value) { return std::to_string(value); };
    int64_t lanes = p.channelsLast ? p.vectorWidth() : 1;
    // The loaded vectors' names and their widening to f32 (none for f32 operands).
    bool wide = p.operand.isF32();
    std::string xVector = p.channelsLast ? llvm::formatv("vector<{0}x{1}>", lanes, in).str() : in;
    std::string xWide =
        p.channelsLast ? llvm::formatv("vector<{0}xf32>", lanes).str() : std::string("f32");
    std::string extendX = wide ? "" : "%xLoaded = arith.extf %xRaw : " + xVector + " to " + xWide;
    std::string extendW = wide ? "" : "%wWide = arith.extf %wRaw : " + xVector + " to " + xWide;
    // The epilogue's parameters, and for each store its marker (`lanes` f32 values named
    // `value`) and the rounding of the values to the output type.
    std::string parameters;
    for (auto [index, input] : llvm::enumerate(p.epilogue.inputs)) {
      std::string type;
      llvm::raw_string_ostream os(type);
      os << input.elementType;
      parameters += llvm::formatv(", %epilogue{0}: memref<{1}>", index, type).str();
    }
    struct Store {
      std::string marker, convert, stored;
    };
    auto store = [&](int64_t storeLanes, StringRef value, StringRef suffix) {
      Store s{"", "", value.str()};
      if (!p.epilogue.empty()) {
        s.marker = llvm::formatv("%epilogued{0} = builtin.unrealized_conversion_cast {1}, "
                                 "%channelIndex, %yIndex : vector<{2}xf32>, index, index to "
                                 "vector<{2}xf32> {{{3}}",
                                 suffix, value, storeLanes, kMarkerAttr)
                       .str();
        s.stored = ("%epilogued" + suffix).str();
      }
      if (!p.result.isF32()) {
        // An i8 result holds the epilogue's integers (rounded and clamped by it).
        s.convert =
            llvm::formatv("%out{0} = arith.{4} {1} : vector<{2}xf32> to vector<{2}x{3}>", suffix,
                          s.stored, storeLanes, out, p.result.isInteger(8) ? "fptosi" : "truncf")
                .str();
        s.stored = ("%out" + suffix).str();
      }
      return s;
    };
    Store one = store(lanes, "%value", "");
    int64_t outChannels = p.outChannels();
    SmallVector<std::pair<StringRef, std::string>> values = {
        {"EPILOGUE_PARAMETERS", parameters},
        {"EPILOGUE", one.marker},
        {"CONVERT", one.convert},
        {"STORED", one.stored},
        {"EXTEND_X", extendX},
        {"EXTEND_W", extendW},
        {"X_RAW", wide ? "xLoaded" : "xRaw"},
        {"W_RAW", wide ? "wWide" : "wRaw"},
        {"MODULE", moduleName},
        {"ENTRY", entry},
        {"OUT", out},
        {"T", in},
        {"C", n(p.channels)},
        {"H", n(p.height)},
        {"W", n(p.width)},
        {"M", n(outChannels)},
        {"MULT", n(p.multiplier)},
        {"OH", n(p.outHeight)},
        {"OW", n(p.outWidth)},
        {"KH", n(p.kernelHeight)},
        {"KW", n(p.kernelWidth)},
        {"SH", n(p.strideH)},
        {"SW", n(p.strideW)},
        {"DH", n(p.dilationH)},
        {"DW", n(p.dilationW)},
        {"PAD_TOP", n(p.padTop)},
        {"PAD_LEFT", n(p.padLeft)},
        {"X_ELEMENTS", n(p.batch * p.channels * p.height * p.width)},
        {"W_ELEMENTS", n(outChannels * p.kernelHeight * p.kernelWidth)},
        {"Y_ELEMENTS", n(p.batch * outChannels * p.outHeight * p.outWidth)},
        {"P", n(config.pixels)},
        {"Q", n(config.pixels)},
    };
    if (p.channelsLast) {
      int64_t v = lanes, owb = llvm::divideCeil(p.outWidth, config.pixels);
      int64_t vectorBytes = v * bytesOf(p.operand);
      values.append(
          {{"THREADS", n(config.threads)},
           {"V", n(v)},
           {"CG", n(outChannels / v)},
           {"OWB", n(owb)},
           {"TOTAL", n(p.batch * p.outHeight * owb * (outChannels / v))},
           {"COLS", n((config.pixels - 1) * p.strideW + (p.kernelWidth - 1) * p.dilationW + 1)},
           {"X_ALIGN", n(vectorBytes)},
           {"W_ALIGN", n(vectorBytes)},
           {"Y_ALIGN", n(v * bytesOf(p.result))}});
    } else {
      NchwGeometry g = nchwGeometry(p, config);
      // A thread's Q outputs, stored at once: aligned when rows hold whole groups of Q.
      Store all = store(config.pixels, "%acc", "Q");
      int64_t storeAlign = bytesOf(p.result) * (p.outWidth % config.pixels ? 1 : config.pixels);
      values.append({{"EPILOGUE_Q", all.marker},
                     {"CONVERT_Q", all.convert},
                     {"STORED_Q", all.stored},
                     {"Y_ALIGN", n(storeAlign)}});
      values.append({{"THREADS", n(g.threads)},
                     {"TILES_W", n(g.tilesW)},
                     {"TILES", n(g.tilesW * g.tilesH)},
                     {"TILE_H", n(config.tileH)},
                     {"TILE_W", n(config.tileW)},
                     {"PLANES_TOTAL", n(p.batch * outChannels)},
                     {"PLANES", n(config.planes)},
                     {"TPR", n(g.threadsPerRow)},
                     {"TPP", n(g.threadsPerPlane)},
                     {"IN_TH", n(g.inTileH)},
                     {"IN_TW", n(g.inTileW)},
                     {"IN_PLANE", n(g.inTileH * g.inTileW)},
                     {"STAGED", n(config.planes * g.inTileH * g.inTileW)},
                     {"STAGE_STEPS", n(g.stageSteps)},
                     {"PITCH", n(g.pitch)},
                     {"SMEM", n(g.sharedElements)},
                     {"COLS_LOAD", n(g.columnsLoaded)},
                     {"COLS", n(g.columns)},
                     {"LOAD_ALIGN", n(4 * g.loadAlignElements)},
                     {"TAPS", n(p.kernelHeight * p.kernelWidth)}});
    }
    std::string text =
        kiln::substitutePlaceholders(p.channelsLast ? kNhwcTemplate : kNchwTemplate, values);
    OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, module.getContext());
    if (!parsed)
      return module.emitError(getArgument()) << ": the template of " << entry << " does not parse";
    auto gpuModule = *parsed->getOps<gpu::GPUModuleOp>().begin();
    auto kernelFunc = gpuModule.lookupSymbol<gpu::GPUFuncOp>(entry);
    if (!p.epilogue.empty() && failed(emitEpilogue(kernelFunc, p)))
      return failure();
    if (failed(kiln::unrollMarkedLoops(gpuModule)))
      return module.emitError(getArgument()) << ": cannot unroll the loops of " << entry;
    gpuModule->remove();
    symbols.insert(gpuModule);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
    return kernelFunc;
  }

  /// Replaces each marker op with `p`'s epilogue on its f32 values, which are consecutive
  /// output channels (channels last) or consecutive outputs of one plane's row (channels
  /// first) from flat output index `yIndex`. The inputs are the kernel's parameters from 3
  /// on.
  LogicalResult emitEpilogue(gpu::GPUFuncOp kernelFunc, const kiln::DepthwiseProblem &p) {
    SmallVector<UnrealizedConversionCastOp> markers;
    kernelFunc.walk([&](UnrealizedConversionCastOp op) {
      if (op->hasAttr(kMarkerAttr))
        markers.push_back(op);
    });
    constexpr unsigned firstParameter = 3;
    if (markers.empty() ||
        kernelFunc.getNumArguments() != firstParameter + p.epilogue.inputs.size())
      return kernelFunc.emitError(getArgument()) << ": the template has no epilogue marker";
    for (UnrealizedConversionCastOp marker : markers)
      if (failed(emitEpilogueAt(marker, kernelFunc, p, firstParameter)))
        return failure();
    return success();
  }

  LogicalResult emitEpilogueAt(UnrealizedConversionCastOp marker, gpu::GPUFuncOp kernelFunc,
                               const kiln::DepthwiseProblem &p, unsigned firstParameter) {
    auto markerType = dyn_cast<VectorType>(marker.getType(0));
    if (marker.getNumOperands() != 3 || !markerType)
      return kernelFunc.emitError(getArgument()) << ": a malformed epilogue marker";
    int64_t lanes = markerType.getNumElements();
    OpBuilder b(marker);
    Location loc = marker.getLoc();
    Value vector = marker.getOperand(0), channel = marker.getOperand(1),
          flat = marker.getOperand(2);
    Type f32 = b.getF32Type();
    int64_t outputElements = p.batch * p.outChannels() * p.outHeight * p.outWidth;
    auto widen = [&](Value value) -> Value {
      Type type = value.getType();
      unsigned width = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
      Type wideType = isa<VectorType>(type)
                          ? Type(VectorType::get(cast<VectorType>(type).getShape(), f32))
                          : f32;
      if (width < 32)
        return arith::ExtFOp::create(b, loc, wideType, value);
      if (width > 32)
        return arith::TruncFOp::create(b, loc, wideType, value);
      return value;
    };
    auto view = [&](Value pointer, Type element, int64_t extent) {
      return memref::ReinterpretCastOp::create(b, loc, MemRefType::get({extent}, element), pointer,
                                               /*offset=*/0, ArrayRef<int64_t>{extent},
                                               ArrayRef<int64_t>{1});
    };
    // Each input's values for the lanes, as f32.
    SmallVector<SmallVector<Value>> inputLanes;
    for (auto [position, input] : llvm::enumerate(p.epilogue.inputs)) {
      Value pointer = kernelFunc.getArgument(firstParameter + position);
      Type element = input.elementType;
      using Kind = kiln::Sm90EpilogueInput::Kind;
      SmallVector<Value> values;
      // Channels last, the lanes are consecutive channels; channels first, one channel.
      bool contiguous = input.kind == Kind::Full ||
                        (input.kind == Kind::PerColumn && lanes > 1 && p.channelsLast);
      if (contiguous) {
        // Consecutive channels (channels last) at the channel, or the output's own
        // elements at the flat index: one vector load.
        int64_t extent = input.kind == Kind::Full ? outputElements : p.outChannels();
        Value at = input.kind == Kind::Full ? flat : channel;
        Value loaded = widen(vector::LoadOp::create(
            b, loc, VectorType::get({lanes}, element), view(pointer, element, extent),
            ValueRange{at}, /*nontemporal=*/false,
            llvm::MaybeAlign(lanes * element.getIntOrFloatBitWidth() / 8)));
        for (int64_t lane = 0; lane < lanes; ++lane)
          values.push_back(vector::ExtractOp::create(b, loc, loaded, lane));
      } else {
        int64_t extent = input.kind == Kind::Scalar ? 1 : p.outChannels();
        Value at =
            input.kind == Kind::Scalar ? Value(arith::ConstantIndexOp::create(b, loc, 0)) : channel;
        Value scalar = widen(memref::LoadOp::create(b, loc, view(pointer, element, extent), at));
        values.assign(lanes, scalar);
      }
      inputLanes.push_back(values);
    }
    SmallVector<Value> results;
    for (int64_t lane = 0; lane < lanes; ++lane) {
      SmallVector<Value> inputs;
      for (const SmallVector<Value> &values : inputLanes)
        inputs.push_back(values[lane]);
      Value product = vector::ExtractOp::create(b, loc, vector, lane);
      Value result = kiln::emitSm90EpilogueLane(b, loc, p.epilogue, product, inputs);
      if (!result)
        return kernelFunc.emitError(getArgument()) << ": an epilogue op has no scalar emission";
      results.push_back(result);
    }
    Value combined =
        vector::FromElementsOp::create(b, loc, VectorType::get({lanes}, f32), results).getResult();
    marker.getResult(0).replaceAllUsesWith(combined);
    marker.erase();
    return success();
  }

  /// The weight repacked for the channels-last kernel, [KH, KW, M] from [M, KH, KW, 1], as
  /// a new constant global (shared by launches of the same weight).
  FailureOr<memref::GlobalOp> repackedWeight(SymbolTable &symbols, memref::GlobalOp weight,
                                             const kiln::DepthwiseProblem &p) {
    std::string name = (weight.getSymName() + "_khkwm").str();
    if (auto existing = symbols.lookup<memref::GlobalOp>(name))
      return existing;
    std::vector<char> storage;
    std::optional<ArrayRef<char>> bytes = globalBytes(weight, storage);
    int64_t taps = p.kernelHeight * p.kernelWidth, channels = p.outChannels();
    size_t element = bytesOf(p.operand);
    if (!bytes || bytes->size() != size_t(taps * channels) * element)
      return failure();
    std::vector<char> repacked(bytes->size());
    for (int64_t m = 0; m < channels; ++m)
      for (int64_t tap = 0; tap < taps; ++tap)
        std::memcpy(&repacked[(tap * channels + m) * element],
                    &(*bytes)[(m * taps + tap) * element], element);
    auto type = MemRefType::get({p.kernelHeight, p.kernelWidth, channels}, p.operand);
    auto init = DenseResourceElementsAttr::get(
        RankedTensorType::get(type.getShape(), p.operand), name,
        HeapAsmResourceBlob::allocateAndCopyInferAlign(ArrayRef<char>(repacked)));
    OpBuilder b(weight);
    auto global =
        memref::GlobalOp::create(b, weight.getLoc(), name, b.getStringAttr("private"), type, init,
                                 /*constant=*/true, /*alignment=*/IntegerAttr());
    symbols.insert(global);
    return global;
  }

  LogicalResult replaceLaunch(SymbolTable &symbols, kernel::LaunchOp launch,
                              gpu::GPUFuncOp kernelFunc, const kiln::DepthwiseProblem &p,
                              const kiln::DepthwiseConfig &config) {
    Value input = launch.getOperands()[0], weight = launch.getOperands()[1],
          output = launch.getOperands().back();
    memref::GlobalOp global = constantGlobal(weight);
    if (!global)
      return launch.emitError(getArgument()) << ": the weight is not a constant";
    OpBuilder b(launch);
    NamedAttrList metadata;
    metadata.set("kernel", launch.getCalleeAttr().getAttr());
    metadata.set("template", b.getStringAttr("depthwise"));
    std::string how = config.describe();
    if (!p.epilogue.empty())
      how += ", epilogue " + p.epilogue.describe();
    metadata.set("config", b.getStringAttr(how));
    Location loc =
        FusedLoc::get(b.getContext(), {launch.getLoc()}, metadata.getDictionary(b.getContext()));
    if (p.channelsLast) {
      FailureOr<memref::GlobalOp> repacked = repackedWeight(symbols, global, p);
      if (failed(repacked))
        return launch.emitError(getArgument()) << ": cannot read the weight's bytes";
      weight = memref::GetGlobalOp::create(b, loc, repacked->getType(), repacked->getName());
    }
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, loc, value);
    };
    auto pointer = [&](Value buffer) { return kiln::barePointer(b, loc, buffer); };
    int64_t blocks, threads;
    if (p.channelsLast) {
      threads = config.threads;
      blocks = llvm::divideCeil(nhwcThreads(p, config.pixels), threads);
    } else {
      NchwGeometry g = nchwGeometry(p, config);
      threads = g.threads;
      blocks = g.tilesW * g.tilesH * g.planeGroups;
    }
    SmallVector<Value> arguments = {pointer(input), pointer(weight), pointer(output)};
    for (Value buffer : kiln::epilogueBuffers(launch, p.epilogue))
      arguments.push_back(pointer(buffer));
    Value one = index(1);
    gpu::LaunchFuncOp::create(b, loc, kernelFunc, gpu::KernelDim3{index(blocks), one, one},
                              gpu::KernelDim3{index(threads), one, one},
                              /*dynamicSharedMemorySize=*/Value(), arguments);
    launch.erase();
    return success();
  }
};

/// The family: #kernel.depthwise on every GPU target.
class DepthwiseTemplate final : public kiln::KernelTemplateOf<kernel::DepthwiseConfigAttr> {
  SmallVector<Attribute> candidates(kernel::FuncOp function,
                                    const kiln::TemplateOptions &) const override {
    std::optional<kiln::DepthwiseProblem> problem = kiln::matchDepthwiseConv(function);
    if (!problem)
      return {};
    SmallVector<Attribute> configs;
    for (const kiln::DepthwiseConfig &config : kiln::depthwiseConfigs(*problem))
      configs.push_back(config.toAttr(function.getContext()));
    return configs;
  }

  std::optional<std::string> describeProblem(kernel::FuncOp function) const override {
    std::optional<kiln::DepthwiseProblem> problem = kiln::matchDepthwiseConv(function);
    if (!problem)
      return std::nullopt;
    return kiln::describeDepthwise(*problem);
  }

  std::string describe(kernel::DepthwiseConfigAttr config) const override {
    return kiln::DepthwiseConfig::fromAttr(config).describe();
  }

  double estimateMicros(kernel::FuncOp function, kernel::DepthwiseConfigAttr config,
                        const kiln::DeviceModel &device) const override {
    std::optional<kiln::DepthwiseProblem> problem = kiln::matchDepthwiseConv(function);
    if (!problem)
      return kiln::estimateTemplateFallbackMicros(function, device);
    return kiln::estimateDepthwiseMicros(*problem, kiln::DepthwiseConfig::fromAttr(config),
                                         device.bytesPerSecond, device.launchMicros);
  }

  LogicalResult instantiate(kernel::FuncOp function, kernel::DepthwiseConfigAttr attr,
                            kiln::TemplateInstantiation &context) const override {
    std::optional<kiln::DepthwiseProblem> problem = kiln::matchDepthwiseConv(function);
    if (!problem)
      return function.emitError(context.pass)
             << ": " << attr
             << " is for a depthwise convolution (groups = input channels), "
                "which this kernel is not";
    kiln::DepthwiseConfig config = kiln::DepthwiseConfig::fromAttr(attr);
    if (!kiln::isLegalDepthwiseConfig(*problem, config))
      return function.emitError(context.pass)
             << ": " << attr << " is not a configuration of this depthwise convolution ("
             << kiln::describeDepthwise(*problem) << ")";
    DepthwiseGenerator generator{context.module, context.symbols, context.pass};
    return generator.run(function, *problem, config);
  }
};

} // namespace

namespace kiln {
// Registered in KernelTemplate.cpp.
const KernelTemplate &depthwiseTemplate() {
  static const DepthwiseTemplate family;
  return family;
}
} // namespace kiln
