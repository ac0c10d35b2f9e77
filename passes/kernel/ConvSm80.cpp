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

/// The template's A operand for `p`: the chunk of 8 channels at A's (%arow, %acol) is
/// input element ((image H + ih) W + iw) C G + g C + c, where %arow = (image OH + oh) OW + ow,
/// %acol = (r KW + s) C + c (C: a group's channels; g: the group of the tile's first column
/// %n0, whose columns lie in one group), ih = oh strideH - pad_top + r dilationH,
/// iw = ow strideW - pad_left + s dilationW.
/// Outside the input (ih or iw negative, which wraps to a large unsigned value, or past H
/// or W), past M or past K it is no chunk: zero-filled.
/// As implicitIm2col, for a 3-D `p` (one group): %arow = ((image OD + od) OH + oh) OW + ow,
/// %acol = ((rd KH + r) KW + s) C + c, input element (((image D + id) H + ih) W + iw) C + c
/// with id = od strideD - pad_front + rd dilationD.
kiln::Sm80AOperand implicitIm2col3d(const kiln::ConvGemmProblem &p) {
  kiln::Sm80AOperand a;
  a.extent = llvm::formatv("    %aExtent = arith.constant {0} : index",
                           p.batch * p.depth * p.height * p.width * p.channels)
                 .str();
  a.address = llvm::formatv(R"(          %cvC = arith.constant {0} : index
          %cvKw = arith.constant {1} : index
          %cvKh = arith.constant {2} : index
          %cvOutW = arith.constant {3} : index
          %cvOutH = arith.constant {4} : index
          %cvOutD = arith.constant {5} : index
          %cvW = arith.constant {6} : index
          %cvH = arith.constant {7} : index
          %cvD = arith.constant {8} : index
          %cvStrideW = arith.constant {9} : index
          %cvStrideH = arith.constant {10} : index
          %cvStrideD = arith.constant {11} : index
          %cvDilationW = arith.constant {12} : index
          %cvDilationH = arith.constant {13} : index
          %cvDilationD = arith.constant {14} : index
          %cvPadLeft = arith.constant {15} : index
          %cvPadTop = arith.constant {16} : index
          %cvPadFront = arith.constant {17} : index
          %cvOw = arith.remui %arow, %cvOutW : index
          %cvPos = arith.divui %arow, %cvOutW : index
          %cvOh = arith.remui %cvPos, %cvOutH : index
          %cvPlane = arith.divui %cvPos, %cvOutH : index
          %cvOd = arith.remui %cvPlane, %cvOutD : index
          %cvImage = arith.divui %cvPlane, %cvOutD : index
          %cvChannel = arith.remui %acol, %cvC : index
          %cvTap = arith.divui %acol, %cvC : index
          %cvS = arith.remui %cvTap, %cvKw : index
          %cvRq = arith.divui %cvTap, %cvKw : index
          %cvR = arith.remui %cvRq, %cvKh : index
          %cvRdepth = arith.divui %cvRq, %cvKh : index
          %cvOdS = arith.muli %cvOd, %cvStrideD : index
          %cvRdd = arith.muli %cvRdepth, %cvDilationD : index
          %cvIdR = arith.addi %cvOdS, %cvRdd : index
          %cvId = arith.subi %cvIdR, %cvPadFront : index
          %cvOhS = arith.muli %cvOh, %cvStrideH : index
          %cvRd = arith.muli %cvR, %cvDilationH : index
          %cvIhR = arith.addi %cvOhS, %cvRd : index
          %cvIh = arith.subi %cvIhR, %cvPadTop : index
          %cvOwS = arith.muli %cvOw, %cvStrideW : index
          %cvSd = arith.muli %cvS, %cvDilationW : index
          %cvIwS = arith.addi %cvOwS, %cvSd : index
          %cvIw = arith.subi %cvIwS, %cvPadLeft : index
          %cvInM = arith.cmpi ult, %arow, %m : index
          %cvInK = arith.cmpi ult, %acol, %k : index
          %cvInD = arith.cmpi ult, %cvId, %cvD : index
          %cvInH = arith.cmpi ult, %cvIh, %cvH : index
          %cvInW = arith.cmpi ult, %cvIw, %cvW : index
          %cvOk0 = arith.andi %cvInM, %cvInK : i1
          %cvOk1 = arith.andi %cvInH, %cvInW : i1
          %cvOk2 = arith.andi %cvOk0, %cvInD : i1
          %aOk = arith.andi %cvOk2, %cvOk1 : i1
          %cvImageDepths = arith.muli %cvImage, %cvD : index
          %cvDepth = arith.addi %cvImageDepths, %cvId : index
          %cvDepthRows = arith.muli %cvDepth, %cvH : index
          %cvRow = arith.addi %cvDepthRows, %cvIh : index
          %cvRowPixels = arith.muli %cvRow, %cvW : index
          %cvPixel = arith.addi %cvRowPixels, %cvIw : index
          %cvPixelAt = arith.muli %cvPixel, %cvC : index
          %aIndex = arith.addi %cvPixelAt, %cvChannel : index)",
                            p.channels, p.kernelWidth, p.kernelHeight, p.outWidth, p.outHeight,
                            p.outDepth, p.width, p.height, p.depth, p.strideW, p.strideH, p.strideD,
                            p.dilationW, p.dilationH, p.dilationD, p.padLeft, p.padTop, p.padFront)
                  .str();
  return a;
}

kiln::Sm80AOperand implicitIm2col(const kiln::ConvGemmProblem &p) {
  if (p.spatialRank == 3)
    return implicitIm2col3d(p);
  kiln::Sm80AOperand a;
  a.extent = llvm::formatv("    %aExtent = arith.constant {0} : index",
                           p.batch * p.height * p.width * p.channels * p.group)
                 .str();
  a.address = llvm::formatv(R"(          %cvC = arith.constant {0} : index
          %cvKw = arith.constant {1} : index
          %cvOutW = arith.constant {2} : index
          %cvOutH = arith.constant {3} : index
          %cvH = arith.constant {4} : index
          %cvW = arith.constant {5} : index
          %cvStrideH = arith.constant {6} : index
          %cvStrideW = arith.constant {9} : index
          %cvDilationH = arith.constant {10} : index
          %cvDilationW = arith.constant {11} : index
          %cvPadTop = arith.constant {7} : index
          %cvPadLeft = arith.constant {8} : index
          %cvOw = arith.remui %arow, %cvOutW : index
          %cvPos = arith.divui %arow, %cvOutW : index
          %cvOh = arith.remui %cvPos, %cvOutH : index
          %cvImage = arith.divui %cvPos, %cvOutH : index
          %cvChannel = arith.remui %acol, %cvC : index
          %cvTap = arith.divui %acol, %cvC : index
          %cvS = arith.remui %cvTap, %cvKw : index
          %cvR = arith.divui %cvTap, %cvKw : index
          %cvOhS = arith.muli %cvOh, %cvStrideH : index
          %cvRd = arith.muli %cvR, %cvDilationH : index
          %cvIhR = arith.addi %cvOhS, %cvRd : index
          %cvIh = arith.subi %cvIhR, %cvPadTop : index
          %cvOwS = arith.muli %cvOw, %cvStrideW : index
          %cvSd = arith.muli %cvS, %cvDilationW : index
          %cvIwS = arith.addi %cvOwS, %cvSd : index
          %cvIw = arith.subi %cvIwS, %cvPadLeft : index
          %cvInM = arith.cmpi ult, %arow, %m : index
          %cvInK = arith.cmpi ult, %acol, %k : index
          %cvInH = arith.cmpi ult, %cvIh, %cvH : index
          %cvInW = arith.cmpi ult, %cvIw, %cvW : index
          %cvOk0 = arith.andi %cvInM, %cvInK : i1
          %cvOk1 = arith.andi %cvInH, %cvInW : i1
          %aOk = arith.andi %cvOk0, %cvOk1 : i1
          %cvImageRows = arith.muli %cvImage, %cvH : index
          %cvRow = arith.addi %cvImageRows, %cvIh : index
          %cvRowPixels = arith.muli %cvRow, %cvW : index
          %cvPixel = arith.addi %cvRowPixels, %cvIw : index
          %cvPixelChannels = arith.constant {12} : index
          %cvPixelAt = arith.muli %cvPixel, %cvPixelChannels : index
          %cvGroupColumns = arith.constant {13} : index
          %cvGroup = arith.divui %n0, %cvGroupColumns : index
          %cvGroupAt = arith.muli %cvGroup, %cvC : index
          %cvGroupPixelAt = arith.addi %cvPixelAt, %cvGroupAt : index
          %aIndex = arith.addi %cvGroupPixelAt, %cvChannel : index)",
                            p.channels, p.kernelWidth, p.outWidth, p.outHeight, p.height, p.width,
                            p.strideH, p.padTop, p.padLeft, p.strideW, p.dilationH, p.dilationW,
                            p.channels * p.group, p.groupOutChannels())
                  .str();
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
        function.getContext(), legal(function, options), options.gemmConfig);
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
