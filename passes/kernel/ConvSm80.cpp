//===- ConvSm80.cpp - sm_80 implicit-GEMM convolutions --------------------===//
//
// The sm80_conv family (#kernel.sm80_conv): channels-last 2-D convolutions of half-precision
// operands with C a multiple of 8 (any strides and dilations; grouped ones a group per
// tile of columns, as for sm90_conv) become the sm_80 GEMM template
// (passes/kernel/templates/Sm80Gemm.mlir) of C[N*OH*OW, O] = A[N*OH*OW, KH*KW*C] x B[KH*KW*C, O]. A
// is the im2col matrix, never written: each 16-byte cp.async of the template's A tile gathers 8
// channels of one filter tap at one output position from the NHWC input, and reads nothing (zero
// fill) where the tap falls into the padding. C's rows are the NHWC output's positions, so C is the
// output as it is. B is the weight permuted at compile time from OHWI into K x O (shared with
// sm90_conv: passes/kernel/GemmMatch.h). A 1x1 convolution with stride 1 and no padding reads its
// input as the row-major matrix A: the plain GEMM of sm80_gemm. docs/codegen-sm80.md,
// "Implicit-GEMM convolution".
//
//===----------------------------------------------------------------------===//

#include "dialects/kernel/KernelOps.h"
#include "passes/kernel/GemmMatch.h"
#include "passes/kernel/IndexText.h"
#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/KernelTemplate.h"
#include "passes/kernel/Sm80Template.h"
#include "passes/kernel/Sm90Template.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
namespace kernel = kiln::kernel;

namespace {

/// The convolution sm80_conv takes: the implicit GEMM (taps not padded: the
/// template finds each 8-channel chunk's tap by division) or the input as A. Other C
/// (an RGB stem) stays generic, as do int8 convolutions (the template's mma.sync is the
/// 16-bit one).
std::optional<kiln::ConvGemmProblem> matchConv(kernel::FuncOp function) {
  std::optional<kiln::ConvGemmProblem> conv =
      kiln::matchConvKernel(function, /*allowTf32=*/false, /*tapAlignment=*/8);
  if (!conv || conv->a == kiln::ConvGemmProblem::A::Im2col || conv->int8())
    return std::nullopt;
  return conv;
}

/// The GEMM configurations of `conv`: a grouped one's tiles each lie in one group.
SmallVector<kiln::Sm80GemmConfig> legalConfigs(const kiln::ConvGemmProblem &conv);

kiln::GemmProblem asGemm(const kiln::ConvGemmProblem &conv) {
  kiln::GemmProblem problem;
  problem.m = conv.gemmM();
  problem.n = conv.outChannels;
  problem.k = conv.gemmK();
  problem.operand = conv.operand;
  problem.result = conv.result;
  return problem;
}

/// One spatial dimension of the convolution: the input's and the output's extent, the
/// filter's extent, stride, dilation and padding before. `name` is D, H or W (the SSA
/// names' letter).
struct SpatialAxis {
  char name;
  int64_t in, out, kernel, stride, dilation, pad;
};

/// The template's A operand for `p`: the chunk of 8 channels at A's (%arow, %acol) is input
/// element (((image D + id) H + ih) W + iw) C G + g C + c, where %arow = ((image OD + od)
/// OH + oh) OW + ow, %acol = ((rd KH + r) KW + s) C + c (C: a group's channels; g: the
/// group of the tile's first column %n0, whose columns lie in one group), and each input
/// coordinate is the output's times the stride, minus the padding before, plus the tap's
/// times the dilation (the depth terms for a 3-D convolution only). Outside the input (a
/// coordinate negative, which wraps to a large unsigned value, or past the extent), past
/// M or past K it is no chunk: zero-filled.
kiln::Sm80AOperand implicitIm2col(const kiln::ConvGemmProblem &p) {
  SmallVector<SpatialAxis, 3> axes; // outermost first
  if (p.spatialRank == 3)
    axes.push_back({'D', p.depth, p.outDepth, p.kernelDepth, p.strideD, p.dilationD, p.padFront});
  axes.push_back({'H', p.height, p.outHeight, p.kernelHeight, p.strideH, p.dilationH, p.padTop});
  axes.push_back({'W', p.width, p.outWidth, p.kernelWidth, p.strideW, p.dilationW, p.padLeft});
  SmallVector<SpatialAxis, 3> inner(llvm::reverse(axes));
  auto named = [](StringRef prefix, const SpatialAxis &axis) {
    return kiln::axisName(prefix, axis.name);
  };
  auto names = [](ArrayRef<SpatialAxis> order, StringRef prefix) {
    return kiln::axisNames(order, prefix);
  };
  auto constant = [](StringRef name, int64_t value) {
    return llvm::formatv("          %{0} = arith.constant {1} : index\n", name, value).str();
  };
  int64_t inputPositions = p.batch;
  for (const SpatialAxis &axis : axes)
    inputPositions *= axis.in;
  kiln::Sm80AOperand a;
  a.extent = llvm::formatv("    %aExtent = arith.constant {0} : index",
                           inputPositions * p.channels * p.group)
                 .str();

  std::string text = constant("cvC", p.channels);
  SmallVector<SpatialAxis, 3> tapSplit(inner.begin(), inner.end() - 1);
  for (const SpatialAxis &axis : tapSplit)
    text += constant(named("K", axis), axis.kernel);
  for (const SpatialAxis &axis : inner)
    text += constant(named("Out", axis), axis.out);
  for (const SpatialAxis &axis : inner)
    text += constant(named("In", axis), axis.in);
  for (const SpatialAxis &axis : inner) {
    text += constant(named("Stride", axis), axis.stride);
    text += constant(named("Dilation", axis), axis.dilation);
    text += constant(named("Pad", axis), axis.pad);
  }
  // The output position and the filter tap.
  text += kiln::splitIndexText("          ", "arow", names(inner, "Out"), names(inner, "O"),
                               "cvImage", "cvPos");
  text += "          %cvChannel = arith.remui %acol, %cvC : index\n"
          "          %cvTap = arith.divui %acol, %cvC : index\n";
  SmallVector<std::string> taps = names(inner, "Tap");
  text += kiln::splitIndexText("          ", "cvTap", names(tapSplit, "K"),
                               ArrayRef(taps).drop_back(), taps.back(), "cvTapq");
  // The input coordinates.
  for (const SpatialAxis &axis : axes)
    text += llvm::formatv("          %{0}S = arith.muli %{1}, %{2} : index\n"
                          "          %{3} = arith.muli %{4}, %{5} : index\n"
                          "          %{0}R = arith.addi %{0}S, %{3} : index\n"
                          "          %{0} = arith.subi %{0}R, %{6} : index\n",
                          named("I", axis), named("O", axis), named("Stride", axis),
                          named("TapAt", axis), named("Tap", axis), named("Dilation", axis),
                          named("Pad", axis));
  // Inside M, K and the input: the last two axes' tests and the others', M's and K's.
  text += "          %cvInM = arith.cmpi ult, %arow, %m : index\n"
          "          %cvInK = arith.cmpi ult, %acol, %k : index\n";
  for (const SpatialAxis &axis : axes)
    text += llvm::formatv("          %{0}Ok = arith.cmpi ult, %{0}, %{1} : index\n",
                          named("I", axis), named("In", axis));
  const SpatialAxis &lastButOne = axes[axes.size() - 2], &last = axes.back();
  text += llvm::formatv("          %cvOk = arith.andi %cvInM, %cvInK : i1\n"
                        "          %cvOkInner = arith.andi %{0}Ok, %{1}Ok : i1\n",
                        named("I", lastButOne), named("I", last));
  std::string ok = "cvOk";
  for (const SpatialAxis &axis : ArrayRef(axes).drop_back(2)) {
    text +=
        llvm::formatv("          %{0}And = arith.andi %{1}, %{0}Ok : i1\n", named("I", axis), ok);
    ok = named("I", axis) + "And";
  }
  text += llvm::formatv("          %aOk = arith.andi %{0}, %cvOkInner : i1\n", ok);
  // The input position, row major, and its first channel.
  std::string position = "cvImage";
  for (const SpatialAxis &axis : axes) {
    text += llvm::formatv("          %{0}Scaled = arith.muli %{1}, %{2} : index\n"
                          "          %{0}At = arith.addi %{0}Scaled, %{0} : index\n",
                          named("I", axis), position, named("In", axis));
    position = named("I", axis) + "At";
  }
  if (p.group > 1) {
    text += llvm::formatv(R"(          %cvPixelChannels = arith.constant {0} : index
          %cvPixelAt = arith.muli %{1}, %cvPixelChannels : index
          %cvGroupColumns = arith.constant {2} : index
          %cvGroup = arith.divui %n0, %cvGroupColumns : index
          %cvGroupAt = arith.muli %cvGroup, %cvC : index
          %cvGroupPixelAt = arith.addi %cvPixelAt, %cvGroupAt : index
          %aIndex = arith.addi %cvGroupPixelAt, %cvChannel : index)",
                          p.channels * p.group, position, p.groupOutChannels())
                .str();
  } else {
    text += llvm::formatv("          %cvPixelAt = arith.muli %{0}, %cvC : index\n"
                          "          %aIndex = arith.addi %cvPixelAt, %cvChannel : index",
                          position)
                .str();
  }
  a.address = text;
  return a;
}

} // namespace

std::optional<kiln::GemmProblem> kiln::matchSm80Conv(kernel::FuncOp function) {
  std::optional<ConvGemmProblem> conv = matchConv(function);
  if (!conv || !launchesPassConstant(function, 1))
    return std::nullopt;
  if (legalConfigs(*conv).empty())
    return std::nullopt;
  return asGemm(*conv);
}

SmallVector<kiln::Sm80GemmConfig> kiln::sm80ConvConfigs(kernel::FuncOp function) {
  std::optional<ConvGemmProblem> conv = matchConv(function);
  if (!conv)
    return {};
  return legalConfigs(*conv);
}

namespace {

SmallVector<kiln::Sm80GemmConfig> legalConfigs(const kiln::ConvGemmProblem &conv) {
  SmallVector<kiln::Sm80GemmConfig> configs = kiln::sm80GemmConfigs(asGemm(conv));
  if (conv.group > 1)
    llvm::erase_if(configs, [&](const kiln::Sm80GemmConfig &config) {
      return conv.groupOutChannels() % config.tileN != 0;
    });
  return configs;
}

} // namespace

namespace {

/// Generates the convolutions of the kernels whose `kernel.config` is #kernel.sm80_conv.
struct Sm80ConvGenerator {
  ModuleOp module;
  SymbolTable &symbols;
  StringRef pass;

  StringRef getArgument() const { return pass; }

  LogicalResult run(kernel::FuncOp function, const kiln::ConvGemmProblem &problem,
                    const kiln::Sm80GemmConfig &config) {
    bool failedHard = false;
    kiln::replaceLaunches(function, module, symbols, [&](kernel::LaunchOp launch) {
      FailureOr<bool> replaced = replaceLaunch(module, symbols, launch, problem, config);
      if (failed(replaced)) {
        failedHard = true;
        return failure();
      }
      return success(*replaced);
    });
    return success(!failedHard);
  }

  /// Replaces `launch` with the GEMM's; false (leaving it) where its weight is no
  /// constant, failure where the kernel cannot be instantiated.
  FailureOr<bool> replaceLaunch(ModuleOp module, SymbolTable &symbols, kernel::LaunchOp launch,
                                const kiln::ConvGemmProblem &p,
                                const kiln::Sm80GemmConfig &config) {
    Value input = launch.getOperands()[0], weight = launch.getOperands()[1],
          output = launch.getOperands().back();
    FailureOr<memref::GlobalOp> matrix = kiln::permutedConvWeight(symbols, weight, p);
    if (failed(matrix))
      return false; // a weight computed at run time: the generic lowering
    std::string type = kiln::elementTypeName(p.operand);
    std::string entry;
    const kiln::Sm80AOperand *a = &kiln::rowMajorSm80A();
    kiln::Sm80AOperand implicit;
    if (p.rowMajorA()) {
      // The product of a row-major matrix, shared with sm80_gemm's.
      entry = "gemm_" + type + "_" + kiln::elementTypeName(p.result) + "_" + config.name();
    } else {
      bool volumetric = p.spatialRank == 3;
      entry = llvm::formatv("conv_{0}_{1}x{2}{3}x{4}x{5}_k{6}{7}x{8}{9}_o{10}_{11}", type, p.batch,
                            volumetric ? std::to_string(p.depth) + "x" : std::string(), p.height,
                            p.width, p.channels,
                            volumetric ? std::to_string(p.kernelDepth) + "x" : std::string(),
                            p.kernelHeight, p.kernelWidth, kiln::convWindowName(p), p.outChannels,
                            config.name())
                  .str();
      implicit = implicitIm2col(p);
      a = &implicit;
    }
    FailureOr<gpu::GPUFuncOp> gemm = kiln::instantiateSm80Gemm(
        module, symbols, getArgument(), entry, p.operand, p.result, config, *a, &p.epilogue);
    if (failed(gemm))
      return failure();

    OpBuilder b(launch);
    std::string how = p.rowMajorA() ? ", the input as A" : ", implicit GEMM";
    if (!p.epilogue.empty())
      how += ", epilogue " + p.epilogue.describe();
    NamedAttrList metadata;
    metadata.set("kernel", launch.getCalleeAttr().getAttr());
    metadata.set("template", b.getStringAttr("conv"));
    metadata.set("config", b.getStringAttr(config.describe() + how));
    Location loc =
        FusedLoc::get(b.getContext(), {launch.getLoc()}, metadata.getDictionary(b.getContext()));
    Value weightMatrix = memref::GetGlobalOp::create(b, loc, matrix->getType(), matrix->getName());
    kiln::launchSm80Gemm(b, loc, *gemm, config, input, weightMatrix, output, p.gemmM(),
                         p.outChannels, p.gemmK(), kiln::epilogueBuffers(launch, p.epilogue));
    launch.erase();
    return true;
  }
};

/// The family: #kernel.sm80_conv on every GPU target but sm_90a.
class Sm80ConvTemplate final : public kiln::KernelTemplateOf<kernel::Sm80ConvConfigAttr> {
  /// The configurations of `function` on the options' target; empty when the family does
  /// not take it.
  static SmallVector<kiln::Sm80GemmConfig> legal(kernel::FuncOp function,
                                                 const kiln::TemplateOptions &options) {
    if (options.target == kiln::kTargetSm90a || !kiln::matchSm80Conv(function))
      return {};
    return kiln::sm80ConvConfigs(function);
  }

  SmallVector<Attribute> candidates(kernel::FuncOp function,
                                    const kiln::TemplateOptions &options) const override {
    return kiln::configAttrs<kernel::Sm80ConvConfigAttr, kiln::Sm80GemmConfig>(
        function.getContext(), legal(function, options));
  }

  std::optional<std::string> whyNot(kernel::FuncOp function,
                                    const kiln::TemplateOptions &options) const override {
    if (options.target == kiln::kTargetSm90a || !kiln::getTemplateOp<kernel::ConvOp>(function))
      return std::nullopt;
    std::string why;
    std::optional<kiln::ConvGemmProblem> conv =
        kiln::matchConvKernel(function, /*allowTf32=*/false, /*tapAlignment=*/8, false, {}, &why);
    if (!conv)
      return why;
    if (conv->a == kiln::ConvGemmProblem::A::Im2col)
      return std::to_string(conv->channels) + " input channels, not a multiple of 8";
    if (conv->int8())
      return std::string("i8 operands (the template's mma.sync is the 16-bit one)");
    return std::string("no configuration fits its shape");
  }

  Attribute defaultConfig(kernel::FuncOp function,
                          const kiln::TemplateOptions &options) const override {
    return kiln::defaultConfigAttr<kernel::Sm80ConvConfigAttr, kiln::Sm80GemmConfig>(
        function, legal(function, options), options.gemmConfig);
  }

  std::optional<std::string> describeProblem(kernel::FuncOp function) const override {
    std::optional<kiln::GemmProblem> conv = kiln::matchSm80Conv(function);
    if (!conv)
      return std::nullopt;
    return llvm::formatv("conv as {0}x{1}x{2} {3}", conv->m, conv->n, conv->k,
                         kiln::elementTypeName(conv->operand))
        .str();
  }

  std::string describe(kernel::Sm80ConvConfigAttr config) const override {
    return kiln::Sm80GemmConfig::fromAttr(config).describe();
  }

  double estimateMicros(kernel::FuncOp function, kernel::Sm80ConvConfigAttr attr,
                        const kiln::DeviceModel &device) const override {
    std::optional<kiln::GemmProblem> problem = kiln::matchSm80Conv(function);
    if (!problem)
      return kiln::estimateTemplateFallbackMicros(function, device);
    return kiln::estimateSm80GemmMicros(*problem, kiln::Sm80GemmConfig::fromAttr(attr),
                                        kiln::estimateKernelBytes(function), device);
  }

  LogicalResult instantiate(kernel::FuncOp function, kernel::Sm80ConvConfigAttr attr,
                            kiln::TemplateInstantiation &context) const override {
    std::optional<kiln::ConvGemmProblem> problem = matchConv(function);
    SmallVector<kiln::Sm80GemmConfig> legal =
        problem ? legalConfigs(*problem) : SmallVector<kiln::Sm80GemmConfig>();
    if (legal.empty())
      return function.emitError(context.pass)
             << ": " << attr
             << " is for a channels-last convolution (not depthwise) of "
                "half-precision operands (C a multiple of 8), which this kernel is not";
    kiln::Sm80GemmConfig config = kiln::Sm80GemmConfig::fromAttr(attr);
    if (failed(kiln::checkListedConfig<kiln::Sm80GemmConfig>(function, legal, config, attr,
                                                             context.pass, "convolution")))
      return failure();
    Sm80ConvGenerator generator{context.module, context.symbols, context.pass};
    return generator.run(function, *problem, config);
  }
};

} // namespace

namespace kiln {
// Registered in KernelTemplate.cpp.
const KernelTemplate &sm80ConvTemplate() {
  static const Sm80ConvTemplate family;
  return family;
}
} // namespace kiln
