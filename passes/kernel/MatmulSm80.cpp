//===- MatmulSm80.cpp - sm_80 tensor-core GEMMs for matmul kernels --------===//
//
// The sm80_gemm family (#kernel.sm80_gemm): the matmul kernels whose body is one 2-D product of
// half-precision row-major buffers (and a fused elementwise epilogue) get the GEMM of
// kernel/templates/Sm80Gemm.mlir (mma.sync m16n8k16 fed by ldmatrix from a cp.async ring;
// docs/codegen-sm80.md) instead of the generic lowering. The template is instantiated once
// per operand and result type, configuration and epilogue into a `gpu.module`; each launch
// of a replaced kernel becomes a gpu.launch_func over a 1-D grid of tiles, passing A, B and
// C as bare pointers.
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

#include <algorithm>

using namespace mlir;
namespace kernel = kiln::kernel;

namespace {

/// The dynamic shared memory a CTA may have on sm_80 (an A100: 163 KB); later GPUs allow
/// more, but the configurations stay within what every sm_80 GPU can run.
constexpr int64_t kMaxSharedBytes = 166912;

/// The SMs of the sm_80 GPU Kiln models (an A100): the default tile is the largest whose
/// tiles still give every SM one.
constexpr int64_t kSm80Multiprocessors = 108;

} // namespace

//===----------------------------------------------------------------------===//
// Configurations (passes/kernel/KernelConfig.h)
//===----------------------------------------------------------------------===//

std::string kiln::Sm80GemmConfig::describe() const {
  return llvm::formatv("sm80 mma.sync {0}x{1}x{2}, {3} stages, {4}x{5} warps", tileM, tileN, tileK,
                       stages, warpsM, warpsN)
      .str();
}

std::string kiln::Sm80GemmConfig::name() const {
  return llvm::formatv("{0}x{1}x{2}_s{3}_w{4}x{5}", tileM, tileN, tileK, stages, warpsM, warpsN)
      .str();
}

int64_t kiln::Sm80GemmConfig::ringBytes() const {
  // A: tileM rows of tileK + 8 elements; B: tileK rows of tileN + 8 (2 bytes each).
  return stages * (tileM * (tileK + 8) + tileK * (tileN + 8)) * 2;
}

int64_t kiln::Sm80GemmConfig::sharedBytes() const {
  // After the main loop, C is staged in f32 over the ring, rows padded by 8 floats.
  return std::max(ringBytes(), tileM * (tileN + 8) * 4);
}

bool kiln::Sm80GemmConfig::valid() const {
  if (tileM % warpsM || tileN % warpsN || stages < 2 || tileK % 16)
    return false;
  int64_t warpM = tileM / warpsM, warpN = tileN / warpsN;
  return warpM % 16 == 0 && warpN % 16 == 0 && (tileM * tileK / 8) % threads() == 0 &&
         (tileK * tileN / 8) % threads() == 0 && tileN % 4 == 0 && sharedBytes() <= kMaxSharedBytes;
}

std::optional<kiln::GemmProblem> kiln::matchSm80Gemm(kernel::FuncOp function) {
  // The template reads a row-major B (K x N): a K-major one (a graph.gemm with transB,
  // a classifier's weight) only as a constant, transposed at compile time (`_kxn`). M
  // known at compile time (its launch has no run-time grid yet).
  std::optional<GemmProblem> problem = matchGemmKernel(function);
  if (!problem || problem->dynamicM || problem->batched || sm80GemmConfigs(*problem).empty() ||
      (problem->kMajorB &&
       (problem->operand.isInteger(8) || !kiln::launchesPassConstant(function, 1))))
    return std::nullopt;
  return problem;
}

SmallVector<kiln::Sm80GemmConfig> kiln::sm80GemmConfigs(const GemmProblem &problem) {
  // 16-byte copies of rows of A and B, and 4-wide stores of C.
  if (problem.n % 8 || problem.k % 8)
    return {};
  // {tile_m, tile_n, tile_k, stages, warps_m, warps_n}: 64x64 warp tiles (the most
  // fragments a warp's registers hold) in 8 or 4 warps, then smaller tiles for products
  // that would otherwise leave SMs idle.
  const Sm80GemmConfig candidates[] = {
      {128, 256, 32, 3, 2, 4}, {128, 256, 64, 3, 2, 4}, {256, 128, 32, 3, 4, 2},
      {256, 128, 64, 3, 4, 2}, {128, 128, 32, 4, 2, 2}, {128, 128, 32, 3, 2, 2},
      {128, 128, 64, 3, 2, 2}, {128, 128, 32, 4, 2, 4}, {64, 128, 32, 4, 2, 2},
      {128, 64, 32, 4, 2, 2},  {64, 64, 32, 4, 2, 2},   {64, 64, 64, 3, 2, 2},
  };
  auto tiles = [&](int64_t tileM, int64_t tileN) {
    return llvm::divideCeil(problem.m, tileM) * llvm::divideCeil(problem.n, tileN);
  };
  SmallVector<Sm80GemmConfig> configs;
  for (const Sm80GemmConfig &config : candidates) {
    // A tile twice as wide (or tall) as the product only wastes half of its work.
    if ((config.tileN > 128 && problem.n <= 128) || (config.tileM > 128 && problem.m <= 128))
      continue;
    if (config.valid())
      configs.push_back(config);
  }
  // The default first: the largest tile whose tiles still give every SM one, or the
  // smallest one.
  Sm80GemmConfig preferred = {64, 64, 32, 4, 2, 2};
  if (tiles(128, 256) >= kSm80Multiprocessors && problem.n > 128)
    preferred = {128, 256, 32, 3, 2, 4};
  else if (tiles(128, 128) >= kSm80Multiprocessors)
    preferred = {128, 128, 32, 4, 2, 2};
  else if (tiles(64, 128) >= kSm80Multiprocessors && problem.n > 64)
    preferred = {64, 128, 32, 4, 2, 2};
  auto found = llvm::find(configs, preferred);
  if (found != configs.end())
    std::rotate(configs.begin(), found, found + 1);
  return configs;
}

namespace {

/// The family: #kernel.sm80_gemm on every GPU target but sm_90a.
class Sm80GemmTemplate final : public kiln::KernelTemplateOf<kernel::Sm80GemmConfigAttr> {
  /// The configurations of `function` on the options' target; empty when the family does
  /// not take it.
  static SmallVector<kiln::Sm80GemmConfig> legal(kernel::FuncOp function,
                                                 const kiln::TemplateOptions &options) {
    // The mma.sync GEMM on every GPU target but sm_90a, whose wgmma one is faster.
    std::optional<kiln::GemmProblem> problem = kiln::matchSm80Gemm(function);
    if (options.target == kiln::kTargetSm90a || !problem)
      return {};
    return kiln::sm80GemmConfigs(*problem);
  }

  SmallVector<Attribute> candidates(kernel::FuncOp function,
                                    const kiln::TemplateOptions &options) const override {
    return kiln::configAttrs<kernel::Sm80GemmConfigAttr, kiln::Sm80GemmConfig>(
        function.getContext(), legal(function, options));
  }

  std::optional<std::string> whyNot(kernel::FuncOp function,
                                    const kiln::TemplateOptions &options) const override {
    if (options.target == kiln::kTargetSm90a || !kiln::getTemplateOp<kernel::MatmulOp>(function))
      return std::nullopt;
    std::string why;
    std::optional<kiln::GemmProblem> problem = kiln::matchGemmKernel(function, false, {}, &why);
    if (!problem)
      return why;
    if (problem->kMajorB)
      return std::string(problem->operand.isInteger(8)
                             ? "i8 operands"
                             : "a K-major B computed at run time (a transposed B is read as a "
                               "constant, transposed at compile time)");
    if (problem->dynamicM)
      return std::string("M known at run time only");
    if (problem->batched)
      return std::string("a batched product (the sm80 template computes one matrix)");
    return kiln::describeGemmShapeRefusal(*problem);
  }

  Attribute defaultConfig(kernel::FuncOp function,
                          const kiln::TemplateOptions &options) const override {
    return kiln::defaultConfigAttr<kernel::Sm80GemmConfigAttr, kiln::Sm80GemmConfig>(
        function, legal(function, options), options.gemmConfig);
  }

  std::optional<std::string> describeProblem(kernel::FuncOp function) const override {
    std::optional<kiln::GemmProblem> gemm = kiln::matchSm80Gemm(function);
    if (!gemm)
      return std::nullopt;
    return llvm::formatv("{0}x{1}x{2} {3}", gemm->m, gemm->n, gemm->k,
                         kiln::elementTypeName(gemm->operand))
        .str();
  }

  std::string describe(kernel::Sm80GemmConfigAttr config) const override {
    return kiln::Sm80GemmConfig::fromAttr(config).describe();
  }

  double estimateMicros(kernel::FuncOp function, kernel::Sm80GemmConfigAttr attr,
                        const kiln::DeviceModel &device) const override {
    std::optional<kiln::GemmProblem> problem = kiln::matchSm80Gemm(function);
    if (!problem)
      return kiln::estimateTemplateFallbackMicros(function, device);
    return kiln::estimateSm80GemmMicros(*problem, kiln::Sm80GemmConfig::fromAttr(attr),
                                        kiln::estimateKernelBytes(function), device);
  }

  LogicalResult instantiate(kernel::FuncOp function, kernel::Sm80GemmConfigAttr attr,
                            kiln::TemplateInstantiation &context) const override {
    std::optional<kiln::GemmProblem> problem = kiln::matchSm80Gemm(function);
    if (!problem)
      return function.emitError(context.pass)
             << ": " << attr
             << " is for a GEMM of half-precision row-major buffers (N and K "
                "multiples of 8) with a fusable epilogue, which this kernel is not";
    kiln::Sm80GemmConfig config = kiln::Sm80GemmConfig::fromAttr(attr);
    if (failed(kiln::checkListedConfig<kiln::Sm80GemmConfig>(
            function, kiln::sm80GemmConfigs(*problem), config, attr, context.pass,
            llvm::formatv("GEMM ({0}x{1}x{2})", problem->m, problem->n, problem->k).str())))
      return failure();
    std::string entry = "gemm_" + kiln::elementTypeName(problem->operand) + "_" +
                        kiln::elementTypeName(problem->result) + "_" + config.name();
    FailureOr<gpu::GPUFuncOp> gemm = kiln::instantiateSm80Gemm(
        context.module, context.symbols, context.pass, entry, problem->operand, problem->result,
        config, kiln::rowMajorSm80A(), &problem->epilogue);
    if (failed(gemm))
      return failure();
    kiln::replaceLaunches(function, context.module, context.symbols, [&](kernel::LaunchOp launch) {
      OpBuilder b(launch);
      // The kernel, its template and its configuration for the engine's kernel table.
      NamedAttrList metadata;
      metadata.set("kernel", launch.getCalleeAttr().getAttr());
      metadata.set("template", b.getStringAttr("matmul"));
      std::string fused =
          problem->epilogue.empty() ? "" : ", epilogue " + problem->epilogue.describe();
      metadata.set("config", b.getStringAttr(config.describe() + fused));
      Location loc =
          FusedLoc::get(b.getContext(), {launch.getLoc()}, metadata.getDictionary(b.getContext()));
      ValueRange operands = launch.getOperands();
      Value bMatrix = operands[1];
      if (problem->kMajorB) {
        // B stored N x K: the constant transposed into a K x N one.
        FailureOr<Value> transposed =
            kiln::transposedConstantMatrix(b, loc, context.symbols, bMatrix, "_kxn");
        if (failed(transposed))
          return failure();
        bMatrix = *transposed;
      }
      kiln::launchSm80Gemm(b, loc, *gemm, config, operands[0], bMatrix, operands.back(), problem->m,
                           problem->n, problem->k,
                           kiln::epilogueBuffers(launch, problem->epilogue));
      launch.erase();
      return success();
    });
    return success();
  }
};

} // namespace

namespace kiln {
// Registered in KernelTemplate.cpp.
const KernelTemplate &sm80GemmTemplate() {
  static const Sm80GemmTemplate family;
  return family;
}
} // namespace kiln
