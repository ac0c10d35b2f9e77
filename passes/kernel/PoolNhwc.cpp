//===- PoolNhwc.cpp - Max pools of channels-last buffers ------------------===//
//
// The pool_nhwc family (#kernel.pool_nhwc): a 2-D max pool moves each input element about (KH * KW)
// / (SH * SW) times and does one comparison per element moved: it is bound by memory. The generic
// lowering gives each output element a thread that loads its window one element at a
// time (a 3x3 stride-2 pool of ResNet's stem ran at ~4x its bytes' time). The family
// replaces the kernels that are one channels-last max pool by templates/PoolNhwc.mlir: a
// thread takes a 16-byte vector of channels of several consecutive output columns and
// loads each input column their windows share once (docs/codegen-pool.md).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/KernelTemplate.h"
#include "passes/kernel/Sm90Template.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
namespace graph = kiln::graph;
namespace kernel = kiln::kernel;

namespace {

/// The text of passes/kernel/templates/PoolNhwc.mlir.
constexpr const char kPoolTemplate[] =
#include "passes/kernel/templates/PoolNhwc.mlir.inc"
    ;

/// Output columns a thread computes: their windows share input columns (a 3x3 stride-2
/// pool loads 9 columns for 4 outputs instead of 12).
constexpr int64_t kColumnsPerThread = 4;

/// A channels-last 2-D max pool; its batch may be known at run time only (a dynamic
/// engine's: `batch` is then its value at the opt shape, `maxBatch` the most it can be).
struct PoolProblem {
  Type element;
  bool dynamicBatch = false;
  int64_t maxBatch = 0;
  int64_t batch, height, width, channels, outHeight, outWidth;
  int64_t kernelHeight, kernelWidth, strideH, strideW, dilationH, dilationW, padTop, padLeft;

  int64_t elementBytes() const { return element.getIntOrFloatBitWidth() / 8; }
  /// Channels a thread takes: one 16-byte vector.
  int64_t vectorWidth() const { return 16 / elementBytes(); }
  int64_t columnsPerThread() const { return std::min(kColumnsPerThread, outWidth); }
  int64_t columnBlocks() const { return llvm::divideCeil(outWidth, columnsPerThread()); }
  /// The threads an image takes.
  int64_t threadsPerImage() const {
    return outHeight * columnBlocks() * (channels / vectorWidth());
  }
  int64_t largestBatch() const { return dynamicBatch ? maxBatch : batch; }
};

/// `function`'s pool when its body is one channels-last 2-D max pool of its input into
/// its output, without the indices, on buffers whose channels fill 16-byte vectors and
/// whose only run-time extent, if any, is the batch; else nullopt (the generic lowering
/// keeps it).
std::optional<PoolProblem> matchPool(kernel::FuncOp function) {
  Block &entry = function.getBody().front();
  if (entry.getNumArguments() != 2 || !llvm::hasSingleElement(entry.without_terminator()))
    return std::nullopt;
  auto generic = dyn_cast<kernel::GenericOp>(&entry.front());
  if (!generic || generic.getInputs().size() != 1 || generic.getOutputs().size() != 1 ||
      generic.getInputs()[0] != entry.getArgument(0) ||
      generic.getOutputs()[0] != entry.getArgument(1))
    return std::nullopt;
  Block &body = generic.getBody().front();
  if (!llvm::hasSingleElement(body.without_terminator()))
    return std::nullopt;
  auto pool = dyn_cast<graph::MaxPoolOp>(&body.front());
  auto yield = dyn_cast<kernel::YieldOp>(body.getTerminator());
  if (!pool || !yield || pool.getInput() != body.getArgument(0) || !pool.getChannelsLast() ||
      !pool.getIndices().use_empty() || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != pool.getResult() || pool.getKernelShape().size() != 2 ||
      pool.getStrides().size() != 2 || pool.getDilations().size() != 2 ||
      pool.getPads().size() != 4)
    return std::nullopt;
  std::optional<kiln::BatchBuffers> buffers = kiln::getBatchBuffers(function);
  if (!buffers)
    return std::nullopt;
  MemRefType input = buffers->types[0], output = buffers->types[1];
  Type element = input.getElementType();
  if (input.getRank() != 4 || output.getRank() != 4 || element != output.getElementType() ||
      !(element.isF16() || element.isBF16() || element.isF32() || element.isInteger(8)))
    return std::nullopt;
  ArrayRef<int64_t> x = input.getShape(), y = output.getShape();
  PoolProblem p;
  p.element = element;
  p.dynamicBatch = buffers->dynamic;
  p.maxBatch = buffers->maxBatch;
  p.batch = x[0], p.height = x[1], p.width = x[2], p.channels = x[3];
  p.outHeight = y[1], p.outWidth = y[2];
  p.kernelHeight = pool.getKernelShape()[0], p.kernelWidth = pool.getKernelShape()[1];
  p.strideH = pool.getStrides()[0], p.strideW = pool.getStrides()[1];
  p.dilationH = pool.getDilations()[0], p.dilationW = pool.getDilations()[1];
  p.padTop = pool.getPads()[0], p.padLeft = pool.getPads()[1];
  // 32-bit indices, at the largest batch.
  int64_t largest = p.largestBatch();
  if (y[0] != p.batch || y[3] != p.channels || p.channels % p.vectorWidth() || p.outHeight < 1 ||
      p.outWidth < 1 || largest * p.height * p.width * p.channels >= (int64_t(1) << 31) ||
      largest * p.outHeight * p.outWidth * p.channels >= (int64_t(1) << 31) ||
      largest * p.threadsPerImage() >= (int64_t(1) << 31))
    return std::nullopt;
  return p;
}

/// Generates the kernels whose `kernel.config` is #kernel.pool_nhwc.
struct PoolGenerator {
  ModuleOp module;
  SymbolTable &symbols;
  StringRef pass;

  StringRef getArgument() const { return pass; }

  LogicalResult run(kernel::FuncOp function, const PoolProblem &problem) {
    FailureOr<gpu::GPUFuncOp> kernel = getOrCreateKernel(module, symbols, problem);
    if (failed(kernel))
      return failure();
    kiln::replaceLaunches(function, module, symbols, [&](kernel::LaunchOp launch) {
      replaceLaunch(launch, *kernel, problem);
      return success();
    });
    return success();
  }

  FailureOr<gpu::GPUFuncOp> getOrCreateKernel(ModuleOp module, SymbolTable &symbols,
                                              const PoolProblem &p) {
    std::string type = kiln::elementTypeName(p.element);
    // A run-time batch's kernel is typed at its max batch ("Nle<max>").
    std::string batch =
        p.dynamicBatch ? "Nle" + std::to_string(p.maxBatch) : std::to_string(p.batch);
    std::string entry =
        llvm::formatv(
            "maxpool_nhwc_{0}_{1}x{2}x{3}x{4}_k{5}x{6}s{7}x{8}d{9}x{10}p{11}x{12}_o{13}x{14}", type,
            batch, p.height, p.width, p.channels, p.kernelHeight, p.kernelWidth, p.strideH,
            p.strideW, p.dilationH, p.dilationW, p.padTop, p.padLeft, p.outHeight, p.outWidth)
            .str();
    std::string moduleName = "kiln_" + entry;
    if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName))
      return existing.lookupSymbol<gpu::GPUFuncOp>(entry);
    auto n = [](int64_t value) { return std::to_string(value); };
    bool integer = p.element.isInteger(8);
    // The lowest value as the dense attribute's literal: -inf's bits for floats; for i8,
    // -128 in the upper byte of a 16-bit lane (the template's header).
    std::string lowest = integer              ? "-32768"
                         : p.element.isF32()  ? "0xFF800000"
                         : p.element.isBF16() ? "0xFF80"
                                              : "0xFC00";
    int64_t columns = p.columnsPerThread();
    int64_t v = p.vectorWidth();
    std::string widen = "              %widened = vector.bitcast %loaded : vector<{V}x{T}> to "
                        "vector<{V}x{A}>";
    std::string narrow = "          %narrowed = vector.bitcast %value : vector<{V}x{A}> to "
                         "vector<{V}x{T}>";
    if (integer) {
      // Byte c of the 16 loaded goes to byte 2c + 1 of 2V, zeros (element 0 of the first
      // operand) below it: the upper half of lane c. NARROW takes the odd bytes back.
      std::string interleave, odd;
      for (int64_t c = 0; c < v; ++c) {
        interleave += llvm::formatv("{0}0, {1}", c ? ", " : "", v + c).str();
        odd += llvm::formatv("{0}{1}", c ? ", " : "", 2 * c + 1).str();
      }
      widen = llvm::formatv(R"(              %wideZero = arith.constant dense<0> : vector<{{V}xi8>
              %wideBytes = vector.shuffle %wideZero, %loaded [{0}] : vector<{{V}xi8>, vector<{{V}xi8>
              %widened = vector.bitcast %wideBytes : vector<{1}xi8> to vector<{{V}xi16>)",
                            interleave, 2 * v)
                  .str();
      narrow =
          llvm::formatv(
              R"(          %narrowBytes = vector.bitcast %value : vector<{{V}xi16> to vector<{1}xi8>
          %narrowed = vector.shuffle %narrowBytes, %narrowBytes [{0}] : vector<{1}xi8>, vector<{1}xi8>)",
              odd, 2 * v)
              .str();
    }
    std::string text = kiln::substitutePlaceholders(
        kPoolTemplate,
        {// The snippets first: they use the placeholders below.
         {"WIDEN", widen},
         {"NARROW", narrow},
         {"MODULE", moduleName},
         {"ENTRY", entry},
         {"T", type},
         {"A", integer ? "i16" : type},
         {"V", n(p.vectorWidth())},
         {"P", n(columns)},
         {"MAX", integer ? "arith.maxsi" : "arith.maximumf"},
         {"LOWEST", lowest},
         {"H", n(p.height)},
         {"W", n(p.width)},
         {"C", n(p.channels)},
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
         {"CG", n(p.channels / p.vectorWidth())},
         {"OWB", n(p.columnBlocks())},
         {"PER_IMAGE", n(p.threadsPerImage())},
         {"COLS", n((columns - 1) * p.strideW + (p.kernelWidth - 1) * p.dilationW + 1)},
         {"X_ELEMENTS", n(p.largestBatch() * p.height * p.width * p.channels)},
         {"Y_ELEMENTS", n(p.largestBatch() * p.outHeight * p.outWidth * p.channels)},
         {"ALIGN", "16"}});
    FailureOr<gpu::GPUFuncOp> kernel =
        kiln::insertTemplateModule(module, symbols, getArgument(), entry, text);
    if (failed(kernel) || failed(kiln::unrollMarkedLoops(*kernel)))
      return failure();
    return kernel;
  }

  void replaceLaunch(kernel::LaunchOp launch, gpu::GPUFuncOp kernelFunc, const PoolProblem &p) {
    OpBuilder b(launch);
    NamedAttrList metadata;
    metadata.set("kernel", launch.getCalleeAttr().getAttr());
    metadata.set("template", b.getStringAttr("pool"));
    metadata.set("config", b.getStringAttr(llvm::formatv("{0} channels x {1} columns a thread",
                                                         p.vectorWidth(), p.columnsPerThread())
                                               .str()));
    Location loc =
        FusedLoc::get(b.getContext(), {launch.getLoc()}, metadata.getDictionary(b.getContext()));
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, loc, value);
    };
    // The batch: a run-time one read off the output on the host (the engine's shape
    // program evaluates it, and the grid, per input shape).
    Value output = launch.getOperands()[1];
    Value blocks = index(llvm::divideCeil(p.batch * p.threadsPerImage(), 256));
    Value images = arith::ConstantIntOp::create(b, loc, p.batch, 32);
    if (p.dynamicBatch) {
      Value batch = memref::DimOp::create(b, loc, output, 0);
      blocks = arith::CeilDivUIOp::create(
          b, loc, arith::MulIOp::create(b, loc, batch, index(p.threadsPerImage())), index(256));
      images = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), batch);
    }
    SmallVector<Value> arguments = {kiln::barePointer(b, loc, launch.getOperands()[0]),
                                    kiln::barePointer(b, loc, output), images};
    Value one = index(1);
    gpu::LaunchFuncOp::create(b, loc, kernelFunc, gpu::KernelDim3{blocks, one, one},
                              gpu::KernelDim3{index(256), one, one},
                              /*dynamicSharedMemorySize=*/Value(), arguments);
    launch.erase();
  }
};

/// The family: #kernel.pool_nhwc on every GPU target. Never slower than the generic
/// lowering, it has nothing to tune.
class PoolNhwcTemplate final : public kiln::KernelTemplateOf<kernel::PoolNhwcConfigAttr> {
  SmallVector<Attribute> candidates(kernel::FuncOp function,
                                    const kiln::TemplateOptions &) const override {
    if (!matchPool(function))
      return {};
    return {kernel::PoolNhwcConfigAttr::get(function.getContext())};
  }

  bool isTuned(const kiln::TemplateOptions &) const override { return false; }

  std::optional<std::string> describeProblem(kernel::FuncOp) const override { return std::nullopt; }

  std::string describe(kernel::PoolNhwcConfigAttr) const override { return "max pool NHWC"; }

  /// Its bytes at the bandwidth.
  double estimateMicros(kernel::FuncOp function, kernel::PoolNhwcConfigAttr,
                        const kiln::DeviceModel &device) const override {
    return device.launchMicros + 1e6 * kiln::estimateKernelBytes(function) / device.bytesPerSecond;
  }

  LogicalResult instantiate(kernel::FuncOp function, kernel::PoolNhwcConfigAttr attr,
                            kiln::TemplateInstantiation &context) const override {
    std::optional<PoolProblem> problem = matchPool(function);
    if (!problem)
      return function.emitError(context.pass)
             << ": " << attr << " is for a channels-last 2-D max pool, which this kernel is not";
    PoolGenerator generator{context.module, context.symbols, context.pass};
    return generator.run(function, *problem);
  }
};

} // namespace

namespace kiln {
// Registered in KernelTemplate.cpp.
const KernelTemplate &poolNhwcTemplate() {
  static const PoolNhwcTemplate family;
  return family;
}
} // namespace kiln
