//===- AttentionSm80.cpp - Fused flash attention for attention kernels ----===//
//
// kernel-attention-sm80: the attention kernels whose body is one plain graph.attention of
// half-precision [B, H, S, D] buffers get the FlashAttention-2 forward kernel of
// kernel/templates/FlashAttention.mlir (mma.sync m16n8k16 fed by ldmatrix from a cp.async
// ring of K/V tiles; online softmax in f32; docs/codegen-attention.md) instead of the
// generic lowering's three launches. The template is instantiated per element type, mask
// form and configuration into a `gpu.module`; each launch of a replaced kernel becomes a
// gpu.launch_func of ceil(Sq / block_q) x (B * H) CTAs. mma.sync is valid from sm_80 on,
// Hopper included, so `kiln compile` runs the pass for every GPU target.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "passes/Passes.h"
#include "passes/kernel/AttentionConfig.h"
#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/Sm90Template.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace kiln {
#define GEN_PASS_DEF_KERNELATTENTIONSM80
#include "passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;
namespace kernel = kiln::kernel;

namespace {

/// The template's text (kernel/templates/FlashAttention.mlir).
constexpr const char kTemplate[] =
#include "passes/kernel/templates/FlashAttention.mlir.inc"
    ;

/// Dynamic shared memory a CTA may have on every target the pass serves (sm_80's 163 KB).
constexpr int64_t kMaxSharedBytes = 166912;

std::string typeName(Type type) {
  return type.isF32() ? "f32" : type.isF16() ? "f16" : type.isBF16() ? "bf16" : "f64";
}

/// Whether `value` is what a masked-out score gets: -inf, or a large negative number.
bool isMaskedOut(const APFloat &value) {
  return value.isNegative() && (value.isInfinity() || value.convertToDouble() <= -1e30);
}

/// The constant buffer `value` (a launch operand) holds, when it is a memref.get_global of
/// a constant global with a dense initial value.
DenseElementsAttr getConstantBuffer(Value value, ModuleOp module) {
  auto getGlobal = value.getDefiningOp<memref::GetGlobalOp>();
  if (!getGlobal)
    return {};
  auto global =
      SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(getGlobal, getGlobal.getNameAttr());
  if (!global || !global.getConstant() || !global.getInitialValue())
    return {};
  return dyn_cast<DenseElementsAttr>(*global.getInitialValue());
}

/// Whether `allowed(i, j)` over the last two dimensions of `shape` (every leading index)
/// says exactly "j <= i" for an [Sq, Skv] matrix.
bool isCausalPattern(ArrayRef<int64_t> shape, int64_t seqQ, int64_t seqKv,
                     llvm::function_ref<std::optional<bool>(int64_t)> allowedAt) {
  if (shape.size() < 2 || shape[shape.size() - 2] != seqQ || shape.back() != seqKv)
    return false;
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  for (int64_t index = 0; index < count; ++index) {
    int64_t j = index % seqKv, i = (index / seqKv) % seqQ;
    std::optional<bool> allowed = allowedAt(index);
    if (!allowed || *allowed != (j <= i))
      return false;
  }
  return true;
}

/// The one float a splat graph.constant holds.
std::optional<APFloat> getSplatFloat(Value value) {
  auto constant = value.getDefiningOp<graph::ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue());
  if (!dense || !dense.isSplat())
    return std::nullopt;
  return dense.getSplatValue<APFloat>();
}

} // namespace

//===----------------------------------------------------------------------===//
// Configurations (passes/kernel/AttentionConfig.h)
//===----------------------------------------------------------------------===//

DictionaryAttr kiln::FlashAttentionConfig::toAttr(MLIRContext *context) const {
  Builder b(context);
  return b.getDictionaryAttr({
      b.getNamedAttr("template", b.getStringAttr(kTemplate)),
      b.getNamedAttr("block_q", b.getI64IntegerAttr(blockQ)),
      b.getNamedAttr("block_kv", b.getI64IntegerAttr(blockKv)),
      b.getNamedAttr("stages", b.getI64IntegerAttr(stages)),
      b.getNamedAttr("warps", b.getI64IntegerAttr(warps)),
  });
}

std::optional<kiln::FlashAttentionConfig>
kiln::FlashAttentionConfig::fromAttr(DictionaryAttr attr) {
  auto name = attr.getAs<StringAttr>("template");
  if (!name || name.getValue() != kTemplate || attr.size() != 5)
    return std::nullopt;
  FlashAttentionConfig config;
  for (auto [key, field] : {std::pair<StringRef, int64_t *>{"block_q", &config.blockQ},
                            {"block_kv", &config.blockKv},
                            {"stages", &config.stages},
                            {"warps", &config.warps}}) {
    auto value = attr.getAs<IntegerAttr>(key);
    if (!value)
      return std::nullopt;
    *field = value.getInt();
  }
  return config;
}

std::string kiln::FlashAttentionConfig::describe() const {
  return llvm::formatv("flash attention mma.sync {0}x{1}, {2} stages, {3} warps", blockQ, blockKv,
                       stages, warps)
      .str();
}

int64_t kiln::FlashAttentionConfig::sharedBytes(int64_t headDim) const {
  // Q, then the K ring, then the V ring, {D} half-precision elements a row.
  return (blockQ + 2 * stages * blockKv) * headDim * 2;
}

SmallVector<kiln::FlashAttentionConfig>
kiln::flashAttentionConfigs(const FlashAttentionProblem &problem) {
  SmallVector<FlashAttentionConfig> configs;
  if (problem.headDim != 64 && problem.headDim != 128)
    return configs;
  // 4 or 8 warps of 16 query rows, or 4 warps of 32 (two row tiles sharing each K/V
  // fragment: half the ldmatrix traffic per mma.sync, but twice the registers and half
  // the CTAs).
  const FlashAttentionConfig candidates[] = {
      {64, 64, 2, 4},  {128, 64, 2, 4},  {64, 64, 3, 4}, {128, 64, 3, 4}, {64, 128, 2, 4},
      {128, 64, 2, 8}, {128, 128, 2, 8}, {64, 32, 2, 4}, {128, 32, 2, 4}, {128, 32, 2, 8},
  };
  for (const FlashAttentionConfig &config : candidates) {
    int64_t chunks = config.blockKv * problem.headDim / 8;
    int64_t warpRows = config.blockQ / config.warps;
    bool fits = (warpRows == 16 || warpRows == 32) && config.blockQ % config.warps == 0 &&
                chunks % config.threads() == 0 &&
                config.sharedBytes(problem.headDim) <= kMaxSharedBytes &&
                // Larger score and output tiles would not fit in registers.
                !(problem.headDim == 128 && config.blockKv == 128) &&
                !(warpRows == 32 && (problem.headDim == 128 || config.blockKv == 128));
    if (fits)
      configs.push_back(config);
  }
  // The default first: 32 rows a warp where that still gives every SM two CTAs or more
  // (132 SMs on an H100/H200), else 16. Causal kernels keep 16 rows a warp: their CTAs
  // differ in length (1 to Skv / block_kv tiles), and smaller ones balance better (H200,
  // b8 h12 s512: 33 us against 43 us with 32 rows a warp).
  int64_t blocks128 = (problem.seqQ + 127) / 128 * problem.batch * problem.heads;
  FlashAttentionConfig preferred = blocks128 >= 2 * 132 && problem.headDim == 64 && !problem.causal
                                       ? FlashAttentionConfig{128, 64, 2, 4}
                                       : FlashAttentionConfig{64, 64, 2, 4};
  auto found = llvm::find(configs, preferred);
  if (found != configs.end())
    std::rotate(configs.begin(), found, found + 1);
  return configs;
}

std::optional<kiln::FlashAttentionProblem> kiln::matchFlashAttention(kernel::FuncOp function,
                                                                     ModuleOp module) {
  Block &entry = function.getBody().front();
  if (!llvm::hasSingleElement(entry.without_terminator()))
    return std::nullopt;
  auto attention = dyn_cast<kernel::AttentionOp>(&entry.front());
  if (!attention || attention.getOutputs().size() != 1)
    return std::nullopt;
  // The kernel's argument behind each input of the template.
  auto argumentOf = [&](Value value) -> int {
    auto argument = dyn_cast<BlockArgument>(value);
    return argument && argument.getOwner() == &entry ? int(argument.getArgNumber()) : -1;
  };
  Block &body = attention.getBody().front();
  auto inputArgument = [&](Value value) -> int {
    auto argument = dyn_cast<BlockArgument>(value);
    if (!argument || argument.getOwner() != &body ||
        argument.getArgNumber() >= attention.getInputs().size())
      return -1;
    return argumentOf(attention.getInputs()[argument.getArgNumber()]);
  };

  // The body: graph.attention, and at most a graph.where of constants making its mask.
  graph::AttentionOp op;
  for (Operation &inner : body.without_terminator()) {
    if (auto found = dyn_cast<graph::AttentionOp>(inner)) {
      if (op)
        return std::nullopt;
      op = found;
    } else if (!isa<graph::ConstantOp, graph::WhereOp>(inner)) {
      return std::nullopt;
    }
  }
  Operation *yield = body.getTerminator();
  if (!op || yield->getNumOperands() != 1 || yield->getOperand(0) != op.getResult())
    return std::nullopt;

  FlashAttentionProblem problem;
  problem.query = inputArgument(op.getQuery());
  problem.key = inputArgument(op.getKey());
  problem.value = inputArgument(op.getValue());
  problem.output = argumentOf(attention.getOutputs()[0]);
  if (problem.query < 0 || problem.key < 0 || problem.value < 0 || problem.output < 0)
    return std::nullopt;
  auto bufferType = [&](int index) {
    auto type = dyn_cast<MemRefType>(entry.getArgument(index).getType());
    return type && type.hasStaticShape() && type.getLayout().isIdentity() ? type : MemRefType();
  };
  MemRefType q = bufferType(problem.query), k = bufferType(problem.key),
             v = bufferType(problem.value), o = bufferType(problem.output);
  if (!q || !k || !v || !o || q.getRank() != k.getRank() || q.getRank() < 3 || q.getRank() > 4 ||
      q != o || k != v)
    return std::nullopt;
  Type element = q.getElementType();
  if (!(element.isF16() || element.isBF16()) || k.getElementType() != element)
    return std::nullopt;
  int64_t rank = q.getRank();
  ArrayRef<int64_t> qShape = q.getShape(), kShape = k.getShape();
  if (qShape.drop_back(2) != kShape.drop_back(2) || qShape.back() != kShape.back())
    return std::nullopt;
  problem.operand = element;
  problem.batch = qShape[0];
  problem.heads = rank == 4 ? qShape[1] : 1;
  problem.seqQ = qShape[rank - 2];
  problem.seqKv = kShape[rank - 2];
  problem.headDim = qShape.back();
  problem.nanToZero = op.getNanToZero();
  problem.scale = op.getScale().convertToFloat();
  if (!(problem.scale > 0.0f) || !std::isfinite(problem.scale) || problem.seqQ < 1 ||
      problem.seqKv < 1 || problem.batch * problem.heads > 65535)
    return std::nullopt;

  // The launches' operand for kernel argument `index` (null unless all pass one value).
  auto launchOperand = [&](int index) -> Value {
    std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(function, module);
    if (!uses)
      return {};
    Value common;
    for (const SymbolTable::SymbolUse &use : *uses) {
      auto launch = dyn_cast<kernel::LaunchOp>(use.getUser());
      if (!launch || launch.getOperands().size() != entry.getNumArguments())
        return {};
      Value operand = launch.getOperands()[index];
      if (common && operand != common)
        return {};
      common = operand;
    }
    return common;
  };

  if (Value mask = op.getMask()) {
    if (auto where = mask.getDefiningOp<graph::WhereOp>()) {
      // where(causal, 0, -inf): a constant boolean buffer that is exactly causal.
      std::optional<APFloat> allowedValue = getSplatFloat(where.getLhs());
      std::optional<APFloat> maskedValue = getSplatFloat(where.getRhs());
      int condition = inputArgument(where.getCondition());
      if (!allowedValue || !allowedValue->isZero() || !maskedValue || !isMaskedOut(*maskedValue) ||
          condition < 0)
        return std::nullopt;
      Value buffer = launchOperand(condition);
      DenseElementsAttr constant = buffer ? getConstantBuffer(buffer, module) : nullptr;
      if (!constant || !constant.getElementType().isInteger(1))
        return std::nullopt;
      auto values = constant.getValues<bool>();
      auto type = cast<ShapedType>(constant.getType());
      if (!isCausalPattern(type.getShape(), problem.seqQ, problem.seqKv,
                           [&](int64_t index) -> std::optional<bool> {
                             return constant.isSplat() ? values[0] : values[index];
                           }))
        return std::nullopt;
      problem.causal = true;
    } else {
      int index = inputArgument(mask);
      MemRefType type = index >= 0 ? bufferType(index) : MemRefType();
      if (!type || type.getRank() > rank ||
          !(type.getElementType().isF16() || type.getElementType().isBF16() ||
            type.getElementType().isF32()))
        return std::nullopt;
      // Broadcast to the scores [batch, (heads,) Sq, Skv], right aligned.
      SmallVector<int64_t> scores(qShape.drop_back());
      scores.push_back(problem.seqKv);
      ArrayRef<int64_t> shape = type.getShape();
      int64_t offset = rank - type.getRank();
      SmallVector<int64_t> strides(rank, 0);
      int64_t stride = 1;
      for (int64_t d = type.getRank() - 1; d >= 0; --d) {
        if (shape[d] != 1 && shape[d] != scores[offset + d])
          return std::nullopt;
        strides[offset + d] = shape[d] == 1 ? 0 : stride;
        stride *= shape[d];
      }
      // Strides along (batch, head, row, column); [N, S, D] has no head dimension.
      problem.maskStrides =
          rank == 4 ? std::array<int64_t, 4>{strides[0], strides[1], strides[2], strides[3]}
                    : std::array<int64_t, 4>{strides[0], 0, strides[1], strides[2]};
      problem.maskType = type.getElementType();
      problem.mask = index;
      // A constant mask that is exactly causal becomes the causal flag.
      Value buffer = launchOperand(index);
      if (DenseElementsAttr constant = buffer ? getConstantBuffer(buffer, module) : nullptr) {
        auto values = constant.getValues<APFloat>();
        if (isCausalPattern(type.getShape(), problem.seqQ, problem.seqKv,
                            [&](int64_t at) -> std::optional<bool> {
                              APFloat value = constant.isSplat() ? values[0] : values[at];
                              if (value.isZero())
                                return true;
                              if (isMaskedOut(value))
                                return false;
                              return std::nullopt;
                            })) {
          problem.causal = true;
          problem.maskType = nullptr;
          problem.mask = -1;
          problem.maskStrides = {0, 0, 0, 0};
        }
      }
    }
  }
  if (flashAttentionConfigs(problem).empty())
    return std::nullopt;
  return problem;
}

namespace {

/// nvgpu.mma.sync does not lower bf16 operands: the same m16n8k16 product as
/// nvvm.mma.sync on the operands' 32-bit registers.
void lowerBf16MmaSync(Operation *root) {
  SmallVector<nvgpu::MmaSyncOp> products;
  root->walk([&](nvgpu::MmaSyncOp mma) {
    if (cast<VectorType>(mma.getMatrixA().getType()).getElementType().isBF16())
      products.push_back(mma);
  });
  for (nvgpu::MmaSyncOp mma : products) {
    OpBuilder b(mma);
    Location loc = mma.getLoc();
    Type i32 = b.getI32Type(), f32 = b.getF32Type();
    auto registers = [&](Value matrix) {
      auto type = cast<VectorType>(matrix.getType());
      SmallVector<Value> words;
      for (int64_t i = 0; i < type.getDimSize(0); ++i) {
        Value pair = vector::ExtractOp::create(b, loc, matrix, ArrayRef<int64_t>{i});
        Value word = vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), pair);
        words.push_back(vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
      }
      return words;
    };
    SmallVector<Value> a = registers(mma.getMatrixA()), bWords = registers(mma.getMatrixB());
    SmallVector<Value> c;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        c.push_back(vector::ExtractOp::create(b, loc, mma.getMatrixC(), ArrayRef<int64_t>{i, j}));
    Type resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    auto product = NVVM::MmaOp::create(
        b, loc, resultType, a, bWords, c, ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
    SmallVector<Value> d;
    for (int64_t i = 0; i < 4; ++i)
      d.push_back(LLVM::ExtractValueOp::create(b, loc, product, ArrayRef<int64_t>{i}));
    Value result = vector::FromElementsOp::create(b, loc, mma.getType(), d);
    mma.replaceAllUsesWith(result);
    mma.erase();
  }
}

struct KernelAttentionSm80Pass : kiln::impl::KernelAttentionSm80Base<KernelAttentionSm80Pass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    KernelAttentionSm80Base::getDependentDialects(registry);
    registry.insert<LLVM::LLVMDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto function : llvm::make_early_inc_range(module.getOps<kernel::FuncOp>())) {
      std::optional<kiln::FlashAttentionProblem> problem =
          kiln::matchFlashAttention(function, module);
      if (!problem)
        continue;
      FailureOr<std::optional<kiln::FlashAttentionConfig>> config =
          chooseConfig(function, *problem);
      if (failed(config))
        return signalPassFailure();
      if (!*config)
        continue; // the generic lowering was asked for
      FailureOr<gpu::GPUFuncOp> kernel = getOrCreateKernel(module, symbols, *problem, **config);
      if (failed(kernel))
        return signalPassFailure();
      std::optional<SymbolTable::UseRange> uses = symbols.getSymbolUses(function, module);
      if (!uses)
        continue;
      bool allReplaced = true;
      for (const SymbolTable::SymbolUse &use : *uses) {
        auto launch = dyn_cast<kernel::LaunchOp>(use.getUser());
        if (!launch) {
          allReplaced = false;
          continue;
        }
        replaceLaunch(launch, *kernel, *problem, **config);
      }
      if (allReplaced)
        function.erase();
    }
  }

  /// The configuration `function` asks for in `kernel.config` (nullopt: the generic
  /// lowering), else the default one (KILN_FLASH_ATTENTION_CONFIG=BQxBKVxSTAGESxWARPS, a
  /// tuning aid until kernel-autotune chooses, may name another legal one).
  FailureOr<std::optional<kiln::FlashAttentionConfig>>
  chooseConfig(kernel::FuncOp function, const kiln::FlashAttentionProblem &problem) {
    SmallVector<kiln::FlashAttentionConfig> legal = kiln::flashAttentionConfigs(problem);
    auto attr = function->getAttrOfType<DictionaryAttr>(kiln::kKernelConfigAttr);
    if (!attr) {
      if (const char *forced = std::getenv("KILN_FLASH_ATTENTION_CONFIG")) {
        SmallVector<StringRef> parts;
        StringRef(forced).split(parts, 'x');
        kiln::FlashAttentionConfig asked;
        if (parts.size() == 4 && !parts[0].getAsInteger(10, asked.blockQ) &&
            !parts[1].getAsInteger(10, asked.blockKv) && !parts[2].getAsInteger(10, asked.stages) &&
            !parts[3].getAsInteger(10, asked.warps))
          for (const kiln::FlashAttentionConfig &config : legal)
            if (config == asked)
              return std::optional<kiln::FlashAttentionConfig>(config);
      }
      return std::optional<kiln::FlashAttentionConfig>(legal.front());
    }
    auto name = attr.getAs<StringAttr>("template");
    if (name && name.getValue() == kiln::kGenericTemplate)
      return std::optional<kiln::FlashAttentionConfig>();
    std::optional<kiln::FlashAttentionConfig> asked = kiln::FlashAttentionConfig::fromAttr(attr);
    if (asked && llvm::is_contained(legal, *asked))
      return asked;
    return function.emitError("kernel-attention-sm80: ")
           << attr << " is not a configuration of this attention (Sq " << problem.seqQ << ", Skv "
           << problem.seqKv << ", D " << problem.headDim << ")";
  }

  /// The template's kernel for `problem`'s types and mask form and `config`, instantiated
  /// into a gpu.module of `module` once.
  FailureOr<gpu::GPUFuncOp> getOrCreateKernel(ModuleOp module, SymbolTable &symbols,
                                              const kiln::FlashAttentionProblem &problem,
                                              const kiln::FlashAttentionConfig &config) {
    std::string type = typeName(problem.operand);
    std::string maskType = problem.maskType ? typeName(problem.maskType) : type;
    std::string variant = problem.causal ? "_causal" : problem.maskType ? "_mask" + maskType : "";
    if (problem.nanToZero)
      variant += "_nz";
    std::string entryName =
        llvm::formatv("flash_attention_{0}_d{1}_{2}x{3}x{4}w{5}{6}", type, problem.headDim,
                      config.blockQ, config.blockKv, config.stages, config.warps, variant)
            .str();
    std::string moduleName = "kiln_attention_" + entryName.substr(strlen("flash_attention_"));
    if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName))
      return existing.lookupSymbol<gpu::GPUFuncOp>(entryName);

    int64_t d = problem.headDim, threads = config.threads();
    int64_t kvStage = config.blockKv * d * 2;
    int64_t kOffset = config.blockQ * d * 2;
    auto str = [](int64_t value) { return std::to_string(value); };
    auto flag = [](bool value) { return std::string(value ? "true" : "false"); };
    std::string extend = maskType == "f32" ? "arith.addf %mv, %fneg0 : f32"
                                           : "arith.extf %mv : " + maskType + " to f32";
    std::string text = kiln::substitutePlaceholders(
        kTemplate,
        {{"MODULE", moduleName},
         {"ENTRY", entryName},
         {"MASK_EXT", extend},
         {"MT", maskType},
         {"T", type},
         {"D", str(d)},
         {"BQ", str(config.blockQ)},
         {"BKV", str(config.blockKv)},
         {"STAGES", str(config.stages)},
         {"WAIT_Q", str(config.stages - 2)},
         {"WAIT", str(config.stages - 1)},
         {"WARPS", str(config.warps)},
         // 16 rows a warp, D 64, 64 x 64 tiles, 2 stages fits in 128 registers without spills: 4
         // CTAs an SM (16 warps) instead of 3.
         {"MIN_CTAS", str(d == 64 && config.blockQ == 16 * config.warps && config.warps == 4 &&
                                  config.blockKv == 64 && config.stages == 2
                              ? 4
                              : 1)},
         {"WARP_ROWS", str(config.blockQ / config.warps)},
         {"MTW", str(config.blockQ / config.warps / 16)},
         {"ROWS", str(config.blockQ / config.warps / 8)},
         {"THREADS", str(threads)},
         {"NT_S", str(config.blockKv / 8)},
         {"NT_O", str(d / 8)},
         {"KQ", str(d / 16)},
         {"KP", str(config.blockKv / 16)},
         {"Q_CHUNKS", str(config.blockQ * d / 8 / threads)},
         {"KV_CHUNKS", str(config.blockKv * d / 8 / threads)},
         {"CPR", str(d / 8)},
         {"K_OFF", str(kOffset)},
         {"V_OFF", str(kOffset + config.stages * kvStage)},
         {"KV_STAGE", str(kvStage)},
         {"HAS_MASK", flag(bool(problem.maskType))},
         {"CAUSAL", flag(problem.causal)},
         {"NAN_TO_ZERO", flag(problem.nanToZero)}});
    OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, module.getContext());
    if (!parsed)
      return module.emitError("kernel-attention-sm80: the flash-attention template (")
             << entryName << ") does not parse";
    auto gpuModule = *parsed->getOps<gpu::GPUModuleOp>().begin();
    if (failed(unrollAndSimplify(gpuModule)))
      return module.emitError("kernel-attention-sm80: cannot unroll the template's loops (")
             << entryName << ")";
    lowerBf16MmaSync(gpuModule);
    gpuModule->remove();
    symbols.insert(gpuModule);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
    return gpuModule.lookupSymbol<gpu::GPUFuncOp>(entryName);
  }

  /// Unrolls the loops marked `unroll` (inner ones first: a post-order walk), then
  /// canonicalises, which makes the register arrays' indices constants.
  LogicalResult unrollAndSimplify(gpu::GPUModuleOp gpuModule) {
    // Folding first makes the loop bounds constants.
    canonicalize(gpuModule);
    SmallVector<scf::ForOp> loops;
    gpuModule.walk([&](scf::ForOp loop) {
      if (loop->hasAttr("unroll"))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      if (failed(loopUnrollFull(loop)))
        return failure();
    canonicalize(gpuModule);
    return success();
  }

  void canonicalize(gpu::GPUModuleOp gpuModule) {
    MLIRContext *context = gpuModule.getContext();
    RewritePatternSet patterns(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName name : context->getRegisteredOperations())
      name.getCanonicalizationPatterns(patterns, context);
    (void)applyPatternsGreedily(gpuModule, std::move(patterns));
  }

  /// kernel.launch @k(...) -> the flash-attention kernel's launch.
  void replaceLaunch(kernel::LaunchOp launch, gpu::GPUFuncOp kernelFunc,
                     const kiln::FlashAttentionProblem &problem,
                     const kiln::FlashAttentionConfig &config) {
    OpBuilder b(launch);
    NamedAttrList metadata;
    metadata.set("kernel", launch.getCalleeAttr().getAttr());
    metadata.set("template", b.getStringAttr("attention"));
    metadata.set("config", b.getStringAttr(config.describe()));
    Location loc =
        FusedLoc::get(b.getContext(), {launch.getLoc()}, metadata.getDictionary(b.getContext()));
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, loc, value);
    };
    auto i32 = [&](int64_t value) -> Value {
      return arith::ConstantIntOp::create(b, loc, value, 32);
    };
    FunctionType signature = kernelFunc.getFunctionType();
    // Buffers go as bare pointers: 0-d views.
    auto pointer = [&](Value buffer, unsigned parameter) -> Value {
      return memref::ReinterpretCastOp::create(
          b, loc, cast<MemRefType>(signature.getInput(parameter)), buffer, /*offset=*/0,
          /*sizes=*/ArrayRef<int64_t>{},
          /*strides=*/ArrayRef<int64_t>{});
    };
    ValueRange operands = launch.getOperands();
    Value q = pointer(operands[problem.query], 0), k = pointer(operands[problem.key], 1),
          v = pointer(operands[problem.value], 2), o = pointer(operands[problem.output], 3);
    // Without a mask buffer the kernel reads none: Q stands in.
    Value mask = problem.mask >= 0 ? pointer(operands[problem.mask], 4)
                                   : pointer(operands[problem.query], 4);
    Value scale = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(problem.scale));
    Value one = index(1);
    int64_t blocksQ = (problem.seqQ + config.blockQ - 1) / config.blockQ;
    gpu::LaunchFuncOp::create(
        b, loc, kernelFunc,
        gpu::KernelDim3{index(blocksQ), index(problem.batch * problem.heads), one},
        gpu::KernelDim3{index(config.threads()), one, one},
        i32(config.sharedBytes(problem.headDim)),
        ValueRange{q, k, v, o, mask, i32(problem.heads), i32(problem.seqQ), i32(problem.seqKv),
                   i32(problem.maskStrides[0]), i32(problem.maskStrides[1]),
                   i32(problem.maskStrides[2]), i32(problem.maskStrides[3]), scale});
    launch.erase();
  }
};

} // namespace
