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
#include "passes/kernel/Sm80Template.h"
#include "passes/kernel/Sm90Template.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
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

/// The templates' text (kernel/templates/FlashAttention.mlir, FlashAttentionSm90.mlir).
constexpr const char kTemplate[] =
#include "passes/kernel/templates/FlashAttention.mlir.inc"
    ;
constexpr const char kWgmmaTemplate[] =
#include "passes/kernel/templates/FlashAttentionSm90.mlir.inc"
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
      b.getNamedAttr("template", b.getStringAttr(wgmma ? kWgmmaTemplate : kTemplate)),
      b.getNamedAttr("block_q", b.getI64IntegerAttr(blockQ)),
      b.getNamedAttr("block_kv", b.getI64IntegerAttr(blockKv)),
      b.getNamedAttr("stages", b.getI64IntegerAttr(stages)),
      b.getNamedAttr("warps", b.getI64IntegerAttr(warps)),
  });
}

std::optional<kiln::FlashAttentionConfig>
kiln::FlashAttentionConfig::fromAttr(DictionaryAttr attr) {
  auto name = attr.getAs<StringAttr>("template");
  if (!name || (name.getValue() != kTemplate && name.getValue() != kWgmmaTemplate) ||
      attr.size() != 5)
    return std::nullopt;
  FlashAttentionConfig config;
  config.wgmma = name.getValue() == kWgmmaTemplate;
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
  return llvm::formatv("flash attention {0} {1}x{2}, {3} stages, {4} warps",
                       wgmma ? "wgmma" : "mma.sync", blockQ, blockKv, stages, warps)
      .str();
}

int64_t kiln::FlashAttentionConfig::sharedBytes(int64_t headDim) const {
  // Q, then the K ring, then the V ring, {D} half-precision elements a row (wgmma: from a
  // 1024-aligned offset, up to 1024 bytes in).
  return (blockQ + 2 * stages * blockKv) * headDim * 2 + (wgmma ? 1024 : 0);
}

SmallVector<kiln::FlashAttentionConfig>
kiln::flashAttentionConfigs(const FlashAttentionProblem &problem, StringRef target) {
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
  // sm_90a, D = 64: the wgmma variant, one warpgroup per 64 query rows (both products on
  // wgmma; 128-byte swizzled rows are exactly 64 half-precision elements).
  if (target == "sm_90a" && problem.headDim == 64) {
    const FlashAttentionConfig wgmmaCandidates[] = {
        {64, 64, 2, 4, true},  {128, 64, 2, 8, true}, {64, 64, 3, 4, true},
        {128, 64, 3, 8, true}, {64, 128, 2, 4, true}, {128, 128, 2, 8, true},
    };
    for (const FlashAttentionConfig &config : wgmmaCandidates)
      if (config.blockKv * problem.headDim / 8 % config.threads() == 0 &&
          config.sharedBytes(problem.headDim) <= kMaxSharedBytes)
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
  // sm_90a: the wgmma variant, 64 rows a CTA; 128-wide KV tiles unless causal (a causal
  // CTA computes up to a whole KV tile past its diagonal). H200, b8 h12 d64: s512 26.8 us
  // (64x128) against 32.4 (mma.sync 128x64), causal 23.1 (64x64) against 28.7.
  if (target == "sm_90a" && problem.headDim == 64)
    preferred = problem.causal ? FlashAttentionConfig{64, 64, 2, 4, true}
                               : FlashAttentionConfig{64, 128, 2, 4, true};
  auto found = llvm::find(configs, preferred);
  if (found != configs.end())
    std::rotate(configs.begin(), found, found + 1);
  return configs;
}

double kiln::estimateFlashAttentionMicros(const FlashAttentionProblem &problem,
                                          const FlashAttentionConfig &config,
                                          int64_t multiprocessors, double tensorFlopsPerSecond,
                                          double launchMicros) {
  // The score tiles the CTAs compute (a causal CTA stops at the KV tile holding its last
  // row; partial tiles count whole), two products of 2 D flops per score.
  int64_t blocksQ = (problem.seqQ + config.blockQ - 1) / config.blockQ;
  int64_t tilesKv = (problem.seqKv + config.blockKv - 1) / config.blockKv;
  double tiles = 0;
  for (int64_t block = 0; block < blocksQ; ++block) {
    int64_t rowEnd = std::min(problem.seqQ, (block + 1) * config.blockQ);
    tiles += problem.causal ? std::min(tilesKv, (rowEnd + config.blockKv - 1) / config.blockKv)
                            : tilesKv;
  }
  double flops = 4.0 * problem.headDim * tiles * config.blockQ * config.blockKv * problem.batch *
                 problem.heads;
  // The share of the tensor rate each family reaches, fitted to the H200 (bench/
  // attention_sweep.py, b8 h12 s512 d64, 2026-11-23, after the max.f32 / f16x2 exp2 /
  // one-barrier changes: wgmma 64x64x2 w4 279 TFLOP/s, 64x128 305, 128x64 w8 273, 128x128
  // w8 245; mma.sync 64x64 209): wgmma's 4-warp CTAs above its 8-warp ones, wide KV tiles
  // above narrow ones, 2 stages above 3.
  double efficiency = config.wgmma ? 0.30 : 0.21;
  if (config.wgmma && config.warps == 8)
    efficiency *= 0.95;
  if (!config.wgmma && config.warps == 8)
    efficiency *= 0.85;
  if (!config.wgmma && config.blockQ == 32 * config.warps)
    efficiency *= 1.07; // each K/V fragment feeds two row tiles
  if (config.blockKv == 128)
    efficiency *= config.wgmma ? 1.09 : 0.98;
  if (config.blockKv == 32)
    efficiency *= 0.9;
  if (config.stages == 3)
    efficiency *= 0.96;
  // Fewer CTAs than SMs leave SMs idle (half of the loss: a CTA alone on an SM runs
  // faster than its share of a full one).
  int64_t ctas = blocksQ * problem.batch * problem.heads;
  efficiency *= std::min(1.0, 0.5 + 0.5 * static_cast<double>(ctas) / multiprocessors);
  return launchMicros + 1e6 * flops / (tensorFlopsPerSecond * efficiency);
}

std::string kiln::describeFlashAttention(const FlashAttentionProblem &problem) {
  return llvm::formatv("b{0} h{1} s{2}x{3} d{4} {5}{6}", problem.batch, problem.heads, problem.seqQ,
                       problem.seqKv, problem.headDim, typeName(problem.operand),
                       problem.causal     ? " causal"
                       : problem.maskType ? " masked"
                                          : "")
      .str();
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

/// The ops of one warpgroup product on wgmma, for the Hopper template's {WGMMA_QK} and
/// {WGMMA_PV}: `result` (an `accType`, vector<1 x n/8 x 2 x 2 x f32>, the m64n<n> accumulator
/// fragment in the order wgmma numbers its registers) = `acc` + A B over `steps` k16 steps,
/// A from registers (k-step k, register r: the vector<2 x type> at `aIndex(k, r)` of `aSource`)
/// or, when `aDesc` is not empty, from shared memory through the descriptor `aDesc` + k *
/// `aDescStep` (K-major), B through the descriptor `desc` + k * `descStep` (transposed when
/// `transposeB`); with
/// `zeroFirst` the first step ignores `acc`. One inline-asm block holds the fence, the
/// k-steps, the commit and the wait for completion: the results are defined only once the
/// products are done, so no read of the accumulators can be scheduled above the wait.
std::string wgmmaSnippet(StringRef prefix, StringRef result, StringRef acc, StringRef accType,
                         int64_t n, StringRef type, int64_t steps, StringRef aSource,
                         StringRef aSourceType,
                         llvm::function_ref<std::string(int64_t, int64_t)> aIndex, StringRef aDesc,
                         int64_t aDescStep, StringRef desc, int64_t descStep, bool transposeB,
                         bool zeroFirst) {
  std::string text;
  llvm::raw_string_ostream os(text);
  int64_t accRegs = n / 2;
  bool aShared = !aDesc.empty();
  int64_t aRegs = aShared ? 1 : 4; // operands of A per k-step
  for (int64_t k = 0; k < steps; ++k) {
    if (aShared) {
      os << llvm::formatv("      %{0}_astep{1} = arith.constant {2} : i64\n", prefix, k,
                          k * aDescStep);
      os << llvm::formatv("      %{0}_a{1}_0 = arith.addi {2}, %{0}_astep{1} : i64\n", prefix, k,
                          aDesc);
    }
    for (int64_t r = 0; r < 4 && !aShared; ++r) {
      os << llvm::formatv(
          "      %{0}_a{1}_{2}_v = vector.extract {3}[{4}] : vector<2x{5}> from {6}\n", prefix, k,
          r, aSource, aIndex(k, r), type, aSourceType);
      os << llvm::formatv("      %{0}_a{1}_{2}_w = vector.bitcast %{0}_a{1}_{2}_v : vector<2x{3}> "
                          "to vector<1xi32>\n",
                          prefix, k, r, type);
      os << llvm::formatv("      %{0}_a{1}_{2} = vector.extract %{0}_a{1}_{2}_w[0] : i32 from "
                          "vector<1xi32>\n",
                          prefix, k, r);
    }
    os << llvm::formatv("      %{0}_dstep{1} = arith.constant {2} : i64\n", prefix, k,
                        k * descStep);
    os << llvm::formatv("      %{0}_d{1} = arith.addi {2}, %{0}_dstep{1} : i64\n", prefix, k, desc);
  }
  for (int64_t i = 0; i < accRegs; ++i)
    os << llvm::formatv("      %{0}_c{1} = vector.extract {2}[0, {3}, {4}, {5}] : f32 from {6}\n",
                        prefix, i, acc, i / 4, (i / 2) % 2, i % 2, accType);
  // Operands: $0 .. accRegs-1 the accumulators out, then in (tied), then 4 * steps A
  // registers (or steps A descriptors), steps B descriptors, and one i32 zero for the
  // predicates.
  int64_t aFirst = 2 * accRegs, descFirst = aFirst + aRegs * steps, flag = descFirst + steps;
  std::string accList;
  for (int64_t i = 0; i < accRegs; ++i)
    accList += (i ? ", $" : "$") + std::to_string(i);
  std::string ptx = llvm::formatv("{{ .reg .pred p0, p1; setp.ne.b32 p0, ${0}, 0; "
                                  "setp.eq.b32 p1, ${0}, 0; wgmma.fence.sync.aligned; ",
                                  flag)
                        .str();
  for (int64_t k = 0; k < steps; ++k) {
    std::string a = aShared
                        ? llvm::formatv("${0}", aFirst + k).str()
                        : llvm::formatv("{{${0}, ${1}, ${2}, ${3}}", aFirst + 4 * k,
                                        aFirst + 4 * k + 1, aFirst + 4 * k + 2, aFirst + 4 * k + 3)
                              .str();
    // Shared A takes imm-trans-a (0: K-major) before imm-trans-b.
    ptx += llvm::formatv("wgmma.mma_async.sync.aligned.m64n{0}k16.f32.{1}.{1} {{{2}}, {3}, ${4}, "
                         "{5}, 1, 1, {6}{7}; ",
                         n, type, accList, a, descFirst + k, k == 0 && zeroFirst ? "p0" : "p1",
                         aShared ? "0, " : "", transposeB ? 1 : 0)
               .str();
  }
  ptx += "wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0; }";
  std::string constraints;
  for (int64_t i = 0; i < accRegs; ++i)
    constraints += "=f,";
  for (int64_t i = 0; i < accRegs; ++i)
    constraints += std::to_string(i) + ",";
  for (int64_t i = 0; i < aRegs * steps; ++i)
    constraints += aShared ? "l," : "r,";
  for (int64_t i = 0; i < steps; ++i)
    constraints += "l,";
  constraints += "r";
  std::string operands, operandTypes, structType = "!llvm.struct<(";
  for (int64_t i = 0; i < accRegs; ++i) {
    operands += llvm::formatv("%{0}_c{1}, ", prefix, i).str();
    operandTypes += "f32, ";
    structType += i ? ", f32" : "f32";
  }
  structType += ")>";
  for (int64_t k = 0; k < steps; ++k)
    for (int64_t r = 0; r < aRegs; ++r) {
      operands += llvm::formatv("%{0}_a{1}_{2}, ", prefix, k, r).str();
      operandTypes += aShared ? "i64, " : "i32, ";
    }
  for (int64_t k = 0; k < steps; ++k) {
    operands += llvm::formatv("%{0}_d{1}, ", prefix, k).str();
    operandTypes += "i64, ";
  }
  operands += "%zeroI32";
  operandTypes += "i32";
  os << llvm::formatv("      %{0}_r = llvm.inline_asm has_side_effects asm_dialect = att \"{1}\", "
                      "\"{2}\" {3} : ({4}) -> {5}\n",
                      prefix, ptx, constraints, operands, operandTypes, structType);
  std::string results;
  for (int64_t i = 0; i < accRegs; ++i) {
    os << llvm::formatv("      %{0}_o{1} = llvm.extractvalue %{0}_r[{1}] : {2}\n", prefix, i,
                        structType);
    results += llvm::formatv("{0}%{1}_o{2}", i ? ", " : "", prefix, i).str();
  }
  os << llvm::formatv("      {0} = vector.from_elements {1} : {2}\n", result, results, accType);
  return text;
}

struct KernelAttentionSm80Pass : kiln::impl::KernelAttentionSm80Base<KernelAttentionSm80Pass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    KernelAttentionSm80Base::getDependentDialects(registry);
    registry.insert<LLVM::LLVMDialect, ub::UBDialect>();
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
      kiln::replaceLaunches(function, module, symbols, [&](kernel::LaunchOp launch) {
        replaceLaunch(launch, *kernel, *problem, **config);
        return success();
      });
    }
  }

  /// The configuration `function` asks for in `kernel.config` (nullopt: the generic
  /// lowering), else the default one (KILN_FLASH_ATTENTION_CONFIG=BQxBKVxSTAGESxWARPS[xwgmma],
  /// a kernel developer's aid, may name another legal one; kernel-autotune leaves attention
  /// kernels untuned while it is set).
  FailureOr<std::optional<kiln::FlashAttentionConfig>>
  chooseConfig(kernel::FuncOp function, const kiln::FlashAttentionProblem &problem) {
    SmallVector<kiln::FlashAttentionConfig> legal = kiln::flashAttentionConfigs(problem, target);
    auto attr = function->getAttrOfType<DictionaryAttr>(kiln::kKernelConfigAttr);
    if (!attr) {
      if (const char *forced = std::getenv("KILN_FLASH_ATTENTION_CONFIG")) {
        SmallVector<StringRef> parts;
        StringRef(forced).split(parts, 'x');
        kiln::FlashAttentionConfig asked;
        // BQxBKVxSTAGESxWARPS, with a fifth part "wgmma" for the sm_90a variant.
        asked.wgmma = parts.size() == 5 && parts[4] == "wgmma";
        if ((parts.size() == 4 || asked.wgmma) && !parts[0].getAsInteger(10, asked.blockQ) &&
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
           << problem.seqKv << ", D " << problem.headDim << ") on " << target;
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
        llvm::formatv("flash_attention_{0}_d{1}_{2}x{3}x{4}w{5}{6}{7}", type, problem.headDim,
                      config.blockQ, config.blockKv, config.stages, config.warps,
                      config.wgmma ? "_wgmma" : "", variant)
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
    // f16 wgmma kernels take exp2 of two elements at once in f16 (the templates' {HALF_EXP});
    // KILN_FLASH_ATTENTION_F32_EXP=1 keeps f32 (a measuring aid).
    bool halfExp = config.wgmma && type == "f16" && !std::getenv("KILN_FLASH_ATTENTION_F32_EXP");
    // The wgmma products (generated: the inline-asm operand lists depend on the tile).
    std::string qkProduct, pvProduct;
    if (config.wgmma) {
      std::string sacc = llvm::formatv("vector<1x{0}x2x2xf32>", config.blockKv / 8).str();
      std::string oacc = llvm::formatv("vector<1x{0}x2x2xf32>", d / 8).str();
      qkProduct = wgmmaSnippet(
          "qk", "%sAcc", "%sIn", sacc, config.blockKv, type, d / 16, "%qf",
          llvm::formatv("vector<1x{0}x4x2x{1}>", d / 16, type).str(),
          [](int64_t k, int64_t r) { return llvm::formatv("0, {0}, {1}", k, r).str(); }, "%descQ",
          /*32 bytes=*/2, "%descK", /*32 bytes=*/2, /*transposeB=*/false, /*zeroFirst=*/true);
      pvProduct = wgmmaSnippet(
          "pv", "%oNew", "%oScaled", oacc, d, type, config.blockKv / 16, "%pOut#0",
          llvm::formatv("vector<1x{0}x2x2x{1}>", config.blockKv / 8, type).str(),
          [](int64_t k, int64_t r) {
            return llvm::formatv("0, {0}, {1}", 2 * k + r / 2, r % 2).str();
          },
          "", 0, "%descV", /*16 rows of 128 bytes=*/128, /*transposeB=*/true,
          /*zeroFirst=*/false);
    }
    // 16 rows a warp, D 64, 64 x 64 tiles, 2 stages fits in 128 registers without spills: 4
    // CTAs an SM (16 warps) instead of 3. The wgmma variant keeps Q in 16 registers and
    // the accumulators in 32 + 32: {MIN_CTAS} as below.
    int64_t minCtas = config.wgmma ? wgmmaMinCtas(config)
                      : d == 64 && config.blockQ == 16 * config.warps && config.warps == 4 &&
                              config.blockKv == 64 && config.stages == 2
                          ? 4
                          : 1;
    std::string text =
        kiln::substitutePlaceholders(config.wgmma ? kWgmmaTemplate : kTemplate,
                                     {{"WGMMA_QK", qkProduct},
                                      {"WGMMA_PV", pvProduct},
                                      {"MODULE", moduleName},
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
                                      {"MIN_CTAS", str(minCtas)},
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
                                      {"NAN_TO_ZERO", flag(problem.nanToZero)},
                                      {"HALF_EXP", flag(halfExp)}});
    OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, module.getContext());
    if (!parsed)
      return module.emitError("kernel-attention-sm80: the flash-attention template (")
             << entryName << ") does not parse";
    auto gpuModule = *parsed->getOps<gpu::GPUModuleOp>().begin();
    if (failed(kiln::unrollMarkedLoops(gpuModule)))
      return module.emitError("kernel-attention-sm80: cannot unroll the template's loops (")
             << entryName << ")";
    kiln::lowerBf16MmaSync(gpuModule);
    gpuModule->remove();
    symbols.insert(gpuModule);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
    return gpuModule.lookupSymbol<gpu::GPUFuncOp>(entryName);
  }

  /// CTAs an SM the wgmma variant asks ptxas to fit (nvvm.minctasm caps the registers),
  /// where that spills nothing and shared memory allows as many (ptxas 13.0, sm_90a, D 64;
  /// the register counts below).
  static int64_t wgmmaMinCtas(const kiln::FlashAttentionConfig &config) {
    // A kernel developer's aid for measuring other caps: KILN_FLASH_ATTENTION_MIN_CTAS=N.
    if (const char *forced = std::getenv("KILN_FLASH_ATTENTION_MIN_CTAS"))
      if (int64_t n = std::atoll(forced); n >= 1 && n <= 16)
        return n;
    // 64x64x2 w4 4 (126 registers; 5 would spill 16 bytes since the whole-tile copies and
    // 16-byte stores), other 4-warp CTAs 3, 8 warps 2 (120), and 128x128 w8 1 (183; 2 would
    // spill 64 bytes).
    if (config.warps == 8)
      return config.blockKv == 128 ? 1 : 2;
    return config.blockKv == 64 && config.stages == 2 ? 4 : 3;
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
