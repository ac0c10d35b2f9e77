//===- FlashAttention.cpp - Fused flash attention for attention kernels ---===//
//
// The flash_attention family (#kernel.flash_attention): the attention kernels whose body is one
// plain graph.attention of half-precision [B, H, S, D] buffers get the FlashAttention-2 forward
// kernel of kernel/templates/FlashAttention.mlir (mma.sync m16n8k16 fed by ldmatrix from a cp.async
// ring of K/V tiles; online softmax in f32; docs/codegen-attention.md) instead of the
// generic lowering's three launches. The template is instantiated per element type, mask
// form and configuration into a `gpu.module`; each launch of a replaced kernel becomes a
// gpu.launch_func of ceil(Sq / block_q) x (B * H) CTAs. mma.sync is valid from sm_80 on,
// Hopper included, so the family serves every GPU target (its wgmma variant sm_90a).
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "passes/graph/AttentionMasks.h"
#include "passes/kernel/AttentionConfig.h"
#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/KernelTemplate.h"
#include "passes/kernel/Sm80Template.h"
#include "passes/kernel/Sm90Template.h"
#include "passes/kernel/WgmmaAsm.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>

using namespace mlir;
namespace graph = kiln::graph;
namespace kernel = kiln::kernel;
using kiln::WgmmaProduct;
using kiln::WgmmaRegisters;
using kiln::wgmmaSnippet;
using kiln::wgmmaWait;

namespace {

/// The templates' text (kernel/templates/FlashAttention.mlir, FlashAttentionSm90.mlir,
/// FlashAttentionSm90Tma.mlir, and the parts the last two share).
constexpr const char kTemplate[] =
#include "passes/kernel/templates/FlashAttention.mlir.inc"
    ;
constexpr const char kWgmmaTemplate[] =
#include "passes/kernel/templates/FlashAttentionSm90.mlir.inc"
    ;
constexpr const char kTmaTemplate[] =
#include "passes/kernel/templates/FlashAttentionSm90Tma.mlir.inc"
    ;
constexpr const char kWgmmaParts[] =
#include "passes/kernel/templates/FlashAttentionSm90Parts.mlir.inc"
    ;

/// Part `name` of FlashAttentionSm90Parts.mlir: the lines after "// @@ name" up to the
/// next part.
std::string wgmmaPart(StringRef name) {
  StringRef parts(kWgmmaParts);
  std::string marker = ("// @@ " + name + "\n").str();
  size_t begin = parts.find(marker);
  assert(begin != StringRef::npos && "no such part of FlashAttentionSm90Parts.mlir");
  begin += marker.size();
  size_t end = parts.find("// @@ ", begin);
  return parts.slice(begin, end).rtrim('\n').str();
}

/// Part O_TO_SHARED writing n8 tiles `first` .. `end` - 1 of O into the shared tile `buffer`
/// (of type `bufferType`), whose atom 0 holds O's atom `firstAtom` (SSA names).
std::string oToShared(StringRef first, StringRef end, StringRef firstAtom, StringRef buffer,
                      StringRef bufferType) {
  return kiln::substitutePlaceholders(wgmmaPart("O_TO_SHARED"), {{"O_E0", first.str()},
                                                                 {"O_E1", end.str()},
                                                                 {"O_A0", firstAtom.str()},
                                                                 {"O_BUF", buffer.str()},
                                                                 {"O_BUF_TYPE", bufferType.str()}});
}

/// Dynamic shared memory a CTA may have on every target the pass serves (sm_80's 163 KB),
/// and on sm_90a (227 KB), where the wgmma variant runs.
constexpr int64_t kMaxSharedBytes = 166912;
constexpr int64_t kMaxSharedBytesSm90 = 232448;

std::string typeName(Type type) {
  return type.isF32() ? "f32" : type.isF16() ? "f16" : type.isBF16() ? "bf16" : "f64";
}

/// A reader of the elements of the constant buffer launch operand `value` holds (a
/// memref.get_global of a constant global of `type`, its initial value dense or a resource
/// blob, as folded constants are): element `index`, row major, as a float of the element
/// type (booleans as 0 and 1). Null when the buffer is no such constant.
std::function<APFloat(int64_t)> constantElements(Value value, ShapedType type) {
  memref::GlobalOp global = value ? kiln::constantGlobal(value) : nullptr;
  Type element = type.getElementType();
  if (!global || !type.hasStaticShape() || !(element.isInteger(1) || isa<FloatType>(element)))
    return nullptr;
  Attribute init = *global.getInitialValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(init)) {
    bool splat = dense.isSplat();
    if (element.isInteger(1)) {
      auto values = dense.getValues<bool>();
      return [=](int64_t index) { return APFloat(values[splat ? 0 : index] ? 1.0f : 0.0f); };
    }
    auto values = dense.getValues<APFloat>();
    return [=](int64_t index) { return values[splat ? 0 : index]; };
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(init);
  AsmResourceBlob *blob = resource ? resource.getRawHandle().getBlob() : nullptr;
  // A resource holds booleans a byte each, floats in their width.
  size_t width = element.isInteger(1) ? 1 : element.getIntOrFloatBitWidth() / 8;
  if (!blob || blob->getData().size() != size_t(type.getNumElements()) * width)
    return nullptr;
  ArrayRef<char> data = blob->getData();
  if (element.isInteger(1))
    return [=](int64_t index) { return APFloat(data[index] ? 1.0f : 0.0f); };
  const llvm::fltSemantics &semantics = cast<FloatType>(element).getFloatSemantics();
  return [=, &semantics](int64_t index) {
    uint64_t bits = 0;
    std::memcpy(&bits, data.data() + index * width, width);
    return APFloat(semantics, APInt(width * 8, bits));
  };
}

/// Whether `holds(index, i, j)` is true for every element of a buffer of `shape` whose last
/// two dimensions are an [Sq, Skv] matrix (every leading index), i and j its row and
/// column there.
bool holdsOverScores(ArrayRef<int64_t> shape, int64_t seqQ, int64_t seqKv,
                     llvm::function_ref<bool(int64_t, int64_t, int64_t)> holds) {
  if (shape.size() < 2 || shape[shape.size() - 2] != seqQ || shape.back() != seqKv)
    return false;
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  for (int64_t index = 0; index < count; ++index)
    if (!holds(index, (index / seqKv) % seqQ, index % seqKv))
      return false;
  return true;
}

/// Whether `allowed(i, j)` over the last two dimensions of `shape` (every leading index)
/// says exactly "j <= i" for an [Sq, Skv] matrix.
bool isCausalPattern(ArrayRef<int64_t> shape, int64_t seqQ, int64_t seqKv,
                     llvm::function_ref<std::optional<bool>(int64_t)> allowedAt) {
  return holdsOverScores(shape, seqQ, seqKv, [&](int64_t index, int64_t i, int64_t j) {
    std::optional<bool> allowed = allowedAt(index);
    return allowed && *allowed == (j <= i);
  });
}

/// Whether `maskedAt(i, j)` holds wherever j > i, over the last two dimensions of `shape`
/// (every leading index) for an [Sq, Skv] matrix: a mask whose upper triangle is masked
/// out (a causal one with a bias, ALiBi's).
bool isMaskedAboveDiagonal(ArrayRef<int64_t> shape, int64_t seqQ, int64_t seqKv,
                           llvm::function_ref<bool(int64_t)> maskedAt) {
  return holdsOverScores(shape, seqQ, seqKv, [&](int64_t index, int64_t i, int64_t j) {
    return j <= i || maskedAt(index);
  });
}

} // namespace

//===----------------------------------------------------------------------===//
// Configurations (passes/kernel/AttentionConfig.h)
//===----------------------------------------------------------------------===//

std::optional<kiln::FlashAttentionConfig> kiln::parseFlashAttentionConfig(StringRef text) {
  SmallVector<StringRef> parts;
  text.split(parts, 'x');
  FlashAttentionConfig config;
  config.wgmma = parts.size() >= 5 && parts[4] == "wgmma";
  config.tma = config.wgmma && parts.size() == 6 && parts[5] == "tma";
  if ((parts.size() != 4 && !config.wgmma) || (parts.size() == 6 && !config.tma) ||
      parts.size() > 6 || parts[0].getAsInteger(10, config.blockQ) ||
      parts[1].getAsInteger(10, config.blockKv) || parts[2].getAsInteger(10, config.stages) ||
      parts[3].getAsInteger(10, config.warps))
    return std::nullopt;
  return config;
}

std::string kiln::FlashAttentionConfig::describe() const {
  return llvm::formatv("flash attention {0} {1}x{2}, {3} stages, {4} warps",
                       tma     ? "wgmma tma"
                       : wgmma ? "wgmma"
                               : "mma.sync",
                       blockQ, blockKv, stages, warps)
      .str();
}

int64_t kiln::flashAttentionMaxHeadDim(StringRef target) {
  return target == kTargetSm90a ? kFlashAttentionWgmmaMaxHeadDim : kFlashAttentionMaxHeadDim;
}

int64_t kiln::FlashAttentionConfig::qBuffers(int64_t headDim) const {
  // Two where they fit beside the rings and a staging buffer of one atom: the next work
  // item's Q loads while the consumers finish one.
  if (!tma)
    return 1;
  int64_t rowBytes = llvm::alignTo(headDim, 64) * 2;
  return (2 * blockQ + 2 * stages * blockKv) * rowBytes + blockQ * 128 + 2048 <= kMaxSharedBytesSm90
             ? 2
             : 1;
}

int64_t kiln::FlashAttentionConfig::stageAtoms(int64_t headDim) const {
  if (!tma)
    return 0;
  int64_t rowBytes = llvm::alignTo(headDim, 64) * 2;
  int64_t used = (qBuffers(headDim) * blockQ + 2 * stages * blockKv) * rowBytes + 2048;
  return std::clamp<int64_t>((kMaxSharedBytesSm90 - used) / (blockQ * 128), 1, rowBytes / 128);
}

int64_t kiln::FlashAttentionConfig::sharedBytes(int64_t headDim) const {
  // Q (the TMA form: its Q buffers), then the K ring, then the V ring, {D} half-precision
  // elements a row (wgmma: rows of whole 64-element swizzle atoms, from a 1024-aligned
  // offset, up to 1024 bytes in; the TMA form's mbarriers are static shared variables,
  // which that offset keeps clear of: 2048), then the TMA form's staging buffer of O.
  int64_t rowElements = wgmma ? llvm::alignTo(headDim, 64) : headDim;
  int64_t alignment = tma ? 2048 : wgmma ? 1024 : 0;
  return (qBuffers(headDim) * blockQ + 2 * stages * blockKv) * rowElements * 2 +
         stageAtoms(headDim) * blockQ * 128 + alignment;
}

std::optional<kiln::FlashAttentionTmaView>
kiln::flashAttentionTmaView(const FlashAttentionProblem &problem, const AttentionOperand &operand) {
  if (problem.dynamic || !llvm::all_of(operand.offset, std::mem_fn(&ExtentProduct::isStatic)) ||
      !llvm::all_of(operand.strides, std::mem_fn(&ExtentProduct::isStatic)) ||
      !llvm::all_of(operand.extents, std::mem_fn(&ExtentProduct::isStatic)))
    return std::nullopt;
  // The kernel indexes batch b and head h (K and V: h / group) in the map: an operand
  // shared by every batch or query head would read past its extent.
  bool keyOrValue = &operand == &problem.key || &operand == &problem.value;
  int64_t heads = keyOrValue ? problem.heads / problem.kvGroup : problem.heads;
  int64_t batch = operand.extents[0].value(), seq = operand.extents[2].value();
  if (batch != problem.batch || operand.extents[1].value() != heads)
    return std::nullopt;
  FlashAttentionTmaView view;
  view.offset = 0;
  for (const ExtentProduct &term : operand.offset)
    view.offset += term.value();
  int64_t rowStride = operand.strides[2].value();
  // An extent of 1 is never stepped along: any stride the encoding takes will do.
  int64_t headStride = heads == 1 ? seq * rowStride : operand.strides[1].value();
  int64_t batchStride = batch == 1 ? heads * headStride : operand.strides[0].value();
  view.dims = {problem.headDim, seq, heads, batch};
  view.strides = {rowStride, headStride, batchStride};
  // 16-byte strides (in elements of 2 bytes), nonzero.
  for (int64_t stride : view.strides)
    if (stride <= 0 || stride % 8 != 0)
      return std::nullopt;
  if (view.offset % 8 != 0)
    return std::nullopt;
  return view;
}

/// The keys the wgmma variant's (cp.async ring) last KV tile computes where a static Skv
/// leaves it partial: its keys rounded up to 16 (P V's k-steps); 0 where the tile is whole
/// or the rounding gives one.
static int64_t wgmmaTailKeys(const kiln::FlashAttentionProblem &problem,
                             const kiln::FlashAttentionConfig &config) {
  if (!config.wgmma || config.tma || problem.dynamic)
    return 0;
  int64_t keys = llvm::alignTo(problem.seqKv % config.blockKv, 16);
  return keys < config.blockKv ? keys : 0;
}

SmallVector<kiln::FlashAttentionConfig>
kiln::flashAttentionConfigs(const FlashAttentionProblem &problem, StringRef target) {
  SmallVector<FlashAttentionConfig> configs;
  if (problem.headDim % kFlashAttentionHeadDimMultiple != 0 || problem.headDim < 16 ||
      problem.headDim > flashAttentionMaxHeadDim(target))
    return configs;
  // 4 or 8 warps of 16 query rows, or 4 warps of 32 (two row tiles sharing each K/V
  // fragment: half the ldmatrix traffic per mma.sync, but twice the registers and half
  // the CTAs).
  const FlashAttentionConfig candidates[] = {
      {64, 64, 2, 4},  {128, 64, 2, 4},  {64, 64, 3, 4}, {128, 64, 3, 4}, {64, 128, 2, 4},
      {128, 64, 2, 8}, {128, 128, 2, 8}, {64, 32, 2, 4}, {128, 32, 2, 4}, {128, 32, 2, 8},
  };
  for (const FlashAttentionConfig &config : candidates) {
    if (problem.headDim > kFlashAttentionMaxHeadDim) // sm_90a's wider heads: wgmma only
      break;
    int64_t chunks = config.blockKv * problem.headDim / 8;
    int64_t warpRows = config.blockQ / config.warps;
    bool fits = (warpRows == 16 || warpRows == 32) && config.blockQ % config.warps == 0 &&
                chunks % config.threads() == 0 &&
                config.sharedBytes(problem.headDim) <= kMaxSharedBytes &&
                // Larger score and output tiles would not fit in registers.
                !(problem.headDim > 64 && config.blockKv == 128) &&
                !(warpRows == 32 && (problem.headDim > 64 || config.blockKv == 128));
    if (fits)
      configs.push_back(config);
  }
  // sm_90a, D a multiple of 16 from 64 to 256: the wgmma variant, one warpgroup per 64
  // query rows (both products on wgmma; rows of 128-byte swizzle atoms of 64 elements).
  // For wider heads the tuner takes the forms checked on a GPU (64x64 with 4 warps and
  // 128x64 with 8, 2 stages: FlashAttentionTemplate::candidates); `attention-config` may
  // name any.
  if (target == kiln::kTargetSm90a && problem.headDim >= 64) {
    const FlashAttentionConfig wgmmaCandidates[] = {
        {64, 64, 2, 4, true},  {128, 64, 2, 8, true}, {64, 64, 3, 4, true},
        {128, 64, 3, 8, true}, {64, 128, 2, 4, true}, {128, 128, 2, 8, true},
    };
    for (const FlashAttentionConfig &config : wgmmaCandidates)
      if (config.blockKv * problem.headDim / 8 % config.threads() == 0 &&
          config.sharedBytes(problem.headDim) <= kMaxSharedBytesSm90)
        configs.push_back(config);
    // The TMA form, where Q, K and V are views a tensor map describes (static strides,
    // 16-byte aligned). Above D 128 a consumer's O is D / 2 registers a thread (128 at D
    // 256): the consumers take 240 registers and the producer 24 (what the producer gives
    // up is all the consumers may take: 24 + 2 x 240 is the launch's 3 x 168; with 32 the
    // consumers' setmaxnreg was never granted and the kernel hung on the H200). 128x64 in 2
    // stages, the one shape shared memory leaves there, assembles there without spills in
    // the consumers unmasked and not causal (causal at D 256 they spill 84 bytes); the
    // producer's 24 registers spill 4 to 24 bytes of its own (none with 32 and the same
    // consumers).
    bool tmaViews = flashAttentionTmaView(problem, problem.query) &&
                    flashAttentionTmaView(problem, problem.key) &&
                    flashAttentionTmaView(problem, problem.value);
    // Rings of 2 stages: deeper ones (128x64 in 3 or 4, 128x128 in 3) gave wrong or
    // run-to-run different results on the H200 at D 128 where CTAs walk several items
    // (2026-11-30: b8 h12 s512 128x64x3 and 128x128x3 rel L2 0.06; b8 h12 s300 128x64x4
    // 4.5e-3, different from run to run, after passing twice); the cause is not found
    // (docs/notebook/2026-11-30-04; not retried since P V reads a copy of P, 2026-11-30-05).
    const FlashAttentionConfig tmaCandidates[] = {
        {128, 128, 2, 12, true, true},
        {128, 64, 2, 12, true, true},
    };
    // The consumers hold O and the P of the P V in flight while the next softmax runs: a
    // register of a product in flight must not be reused. As a precaution only forms that
    // ptxas 13.0 assembles without spills (a variant that spilled 20 bytes gave a wrong
    // result on the H200, D 128 causal 128x128, rel L2 3.7e-2; the cause was not
    // established, and the same case spilling 24 bytes without that variant was right). It
    // spills 128-wide KV tiles with a mask, or causal at D above 80, and a full mask's
    // addressing at D above 80; the other forms, f16 and bf16, D 64 to 128, assemble
    // without.
    bool wideHead = problem.headDim > 80;
    bool widest = problem.headDim > kFlashAttentionMaxHeadDim;
    bool fullMask = problem.maskType && !problem.maskRowsBroadcast;
    for (const FlashAttentionConfig &config : tmaCandidates) {
      bool spills = (config.blockKv == 128 && (problem.maskType || (problem.causal && wideHead))) ||
                    (fullMask && wideHead) || (widest && (problem.maskType || problem.causal));
      if (tmaViews && config.sharedBytes(problem.headDim) <= kMaxSharedBytesSm90 && !spills)
        configs.push_back(config);
    }
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
  if (target == kiln::kTargetSm90a && problem.headDim == 64)
    preferred = problem.causal ? FlashAttentionConfig{64, 64, 2, 4, true}
                               : FlashAttentionConfig{64, 128, 2, 4, true};
  // Wider heads: 64x64 on wgmma (H200: D 80 35 us against mma.sync 64x64's 53); beyond
  // 128, where a 4-warp CTA fills an SM's registers alone, two warpgroups share each K/V
  // tile.
  if (target == kiln::kTargetSm90a && problem.headDim > 64)
    preferred = problem.headDim <= kFlashAttentionMaxHeadDim
                    ? FlashAttentionConfig{64, 64, 2, 4, true}
                    : FlashAttentionConfig{128, 64, 2, 8, true};
  // D 80 to 256 where tensor maps describe the operands: the TMA form, 128-wide KV tiles
  // where they are legal, else 64-wide (H200, b8 h12 s512, 2026-11-30: D 128 0.0302 and
  // 0.0355 ms against SDPA's 0.0324, grouped-query D 128 0.0370 and 0.0424 against 0.0382;
  // b8 h8 D 256 128x64 0.0422 against the cp.async form's 0.0517 and SDPA's 0.0415).
  if (target == kiln::kTargetSm90a && problem.headDim > 64)
    for (FlashAttentionConfig tmaPreferred : {FlashAttentionConfig{128, 128, 2, 12, true, true},
                                              FlashAttentionConfig{128, 64, 2, 12, true, true}})
      if (llvm::is_contained(configs, tmaPreferred)) {
        preferred = tmaPreferred;
        break;
      }
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
  // The keys a CTA's last tile computes: a whole tile, or the wgmma variant's partial tail
  // (wgmmaTailKeys).
  int64_t tailKeys = wgmmaTailKeys(problem, config);
  double keys = 0;
  for (int64_t block = 0; block < blocksQ; ++block) {
    int64_t rowEnd = std::min(problem.seqQ, (block + 1) * config.blockQ);
    int64_t tiles = problem.causal
                        ? std::min(tilesKv, (rowEnd + config.blockKv - 1) / config.blockKv)
                        : tilesKv;
    keys += tiles * config.blockKv;
    if (tailKeys > 0 && tiles == tilesKv)
      keys -= config.blockKv - tailKeys;
  }
  double flops = 4.0 * problem.headDim * keys * config.blockQ * problem.batch * problem.heads;
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
  // The TMA form (H200, b8 h12 s512; its own factors in place of those of the tiles and
  // stages above): ahead of the cp.async forms at D 80 to 128 (D 128, 2026-11-30: 128x128
  // 0.0302 ms, 128x64 0.0355, against 0.0422 for 64x64 w4 on 2026-11-29), behind them at
  // D 64 (2026-11-29: 0.0286 against 0.0233 for 64x128 w4).
  if (config.tma)
    efficiency = 0.30 * (config.blockKv == 128 ? 1.40 : 1.19) * (problem.headDim > 64 ? 1.0 : 0.65);
  // Beyond D = 128 a CTA fills an SM's registers alone: one warpgroup leaves the SM half
  // idle between its products (H200, b8 h8 d256: 64x64 w4 67 us, 128x64 w8 52).
  if (config.wgmma && problem.headDim > kFlashAttentionMaxHeadDim && config.warps == 4)
    efficiency *= 0.75;
  // Fewer CTAs than SMs leave SMs idle (half of the loss: a CTA alone on an SM runs
  // faster than its share of a full one).
  int64_t ctas = blocksQ * problem.batch * problem.heads;
  efficiency *= std::min(1.0, 0.5 + 0.5 * static_cast<double>(ctas) / multiprocessors);
  return launchMicros + 1e6 * flops / (tensorFlopsPerSecond * efficiency);
}

std::string kiln::describeFlashAttention(const FlashAttentionProblem &problem) {
  std::string groups =
      problem.kvGroup > 1 ? llvm::formatv(" kv{0}", problem.heads / problem.kvGroup).str() : "";
  return llvm::formatv("b{0} h{1}{2} s{3}x{4} d{5} {6}{7}", problem.batch, problem.heads, groups,
                       problem.seqQ, problem.seqKv, problem.headDim, typeName(problem.operand),
                       std::string(problem.causal ? " causal" : "") +
                           (problem.maskType ? " masked" : ""))
      .str();
}

namespace {

/// What matchFlashAttention reads of one kernel: its arguments behind the attention's
/// inputs and symbols, and the views of its operands.
class AttentionMatcher {
public:
  AttentionMatcher(kernel::FuncOp function, kernel::AttentionOp attention)
      : entry(function.getBody().front()), body(attention.getBody().front()),
        inputs(attention.getInputs()), symbols(attention.getSymbols()) {
    bufferOf = [this](Value value) {
      int index = argumentOf(value);
      return bufferType(index) ? index : -1;
    };
    symbolOf = [this](Value value) {
      int index = argumentOf(value);
      return index >= 0 && entry.getArgument(index).getType().isIndex() ? index : -1;
    };
    typeOf = [this](int index) { return bufferType(index); };
  }

  /// The kernel argument behind `value`, a kernel argument or a block argument of the
  /// attention's body (an input or a symbol); -1 for anything else.
  int argumentOf(Value value) const {
    auto argument = dyn_cast<BlockArgument>(value);
    if (!argument)
      return -1;
    if (argument.getOwner() == &entry)
      return int(argument.getArgNumber());
    if (argument.getOwner() != &body)
      return -1;
    unsigned number = argument.getArgNumber();
    if (number < inputs.size())
      return argumentOf(inputs[number]);
    if (number - inputs.size() < symbols.size())
      return argumentOf(symbols[number - inputs.size()]);
    return -1;
  }

  /// The buffer type of kernel argument `index` (identity layout; extents may be dynamic).
  MemRefType bufferType(int index) const {
    if (index < 0)
      return {};
    auto type = dyn_cast<MemRefType>(entry.getArgument(index).getType());
    return type && type.getLayout().isIdentity() ? type : MemRefType();
  }

  /// The input buffer `value` (a block argument of the body) is, or -1.
  int inputBuffer(Value value) const {
    auto argument = dyn_cast<BlockArgument>(value);
    if (!argument || argument.getOwner() != &body || argument.getArgNumber() >= inputs.size())
      return -1;
    int index = argumentOf(value);
    return bufferType(index) ? index : -1;
  }

  /// How `value` (an operand of graph.attention) reads its buffer as [B, H, S, D]
  /// ([N, S, D]: B = N, H = 1) with D contiguous: any strided view
  /// (passes/kernel/StridedView.h).
  std::optional<kiln::AttentionOperand> operand(Value value) const {
    return fromView(kiln::matchStridedView(value, sources()));
  }

  /// How the kernel writes `result` (graph.attention's) when it stores `stored`, a
  /// rearrangement of it, in kernel argument `output`.
  std::optional<kiln::AttentionOperand> storedOperand(Value result, Value stored,
                                                      int output) const {
    return fromView(kiln::matchStoredView(result, stored, output, sources()));
  }

private:
  /// The matcher's callbacks (members: the sources refer to them).
  kiln::StridedViewSources sources() const { return {bufferOf, typeOf, symbolOf}; }

  static std::optional<kiln::AttentionOperand>
  fromView(const std::optional<kiln::StridedView> &view) {
    if (!view || (view->extents.size() != 3 && view->extents.size() != 4))
      return std::nullopt;
    const kiln::ExtentProduct &depthStride = view->strides.back();
    if (!depthStride.isStatic() || depthStride.value() != 1)
      return std::nullopt;
    kiln::AttentionOperand operand;
    operand.argument = view->argument;
    operand.offset = view->offset;
    bool heads = view->extents.size() == 4;
    operand.extents = {view->extents[0],
                       heads ? view->extents[1] : kiln::ExtentProduct::constant(1),
                       view->extents[heads ? 2 : 1]};
    operand.strides = {view->strides[0],
                       heads ? view->strides[1] : kiln::ExtentProduct::constant(0),
                       view->strides[heads ? 2 : 1]};
    return operand;
  }

  Block &entry;
  Block &body;
  OperandRange inputs, symbols;
  std::function<int(Value)> bufferOf, symbolOf;
  std::function<MemRefType(int)> typeOf;
};

} // namespace

std::optional<kiln::FlashAttentionProblem>
kiln::matchFlashAttention(kernel::FuncOp function, ModuleOp module, std::string *why) {
  auto refuse = [&](const std::string &reason) -> std::optional<FlashAttentionProblem> {
    if (why)
      *why = reason;
    return std::nullopt;
  };
  Block &entry = function.getBody().front();
  if (!llvm::hasSingleElement(entry.without_terminator()))
    return refuse("not an attention kernel");
  auto attention = dyn_cast<kernel::AttentionOp>(&entry.front());
  if (!attention || attention.getOutputs().size() != 1)
    return refuse("not an attention kernel of one result");
  AttentionMatcher matcher(function, attention);
  Block &body = attention.getBody().front();

  // The body: graph.attention, at most a graph.where of constants making its mask, and
  // the views of its operands (with the constants, casts and index arithmetic of their
  // shapes).
  graph::AttentionOp op;
  for (Operation &inner : body.without_terminator()) {
    if (auto found = dyn_cast<graph::AttentionOp>(inner)) {
      if (op)
        return refuse("the kernel holds several attentions");
      op = found;
    } else if (!isa<graph::ConstantOp, graph::WhereOp, graph::SliceOp, graph::GatherOp,
                    graph::ReshapeOp, graph::SqueezeOp, graph::UnsqueezeOp, graph::FlattenOp,
                    graph::TransposeOp, tensor::FromElementsOp, arith::ConstantOp,
                    arith::IndexCastOp, arith::IndexCastUIOp, arith::MulIOp, arith::AddIOp>(
                   inner)) {
      return refuse("a " + inner.getName().getStringRef().str() +
                    " in the kernel besides views of its operands and result");
    }
  }
  Operation *yield = body.getTerminator();
  if (!op || yield->getNumOperands() != 1)
    return refuse("no graph.attention, or several results");

  FlashAttentionProblem problem;
  std::optional<AttentionOperand> query = matcher.operand(op.getQuery());
  std::optional<AttentionOperand> key = matcher.operand(op.getKey());
  std::optional<AttentionOperand> value = matcher.operand(op.getValue());
  // O: the result buffer, [B, H, Sq, D] or [N, Sq, D], or a rearrangement of it that
  // the kernel stores (the heads merged for the output projection).
  int output = matcher.argumentOf(attention.getOutputs()[0]);
  std::optional<AttentionOperand> result =
      matcher.storedOperand(op.getResult(), yield->getOperand(0), output);
  auto resultType = cast<RankedTensorType>(op.getType());
  if (!query || !key || !value || !result || !matcher.bufferType(output))
    return refuse(std::string(!query   ? "Q"
                              : !key   ? "K"
                              : !value ? "V"
                                       : "the result") +
                  " is no strided view of a buffer with its head dimension contiguous");
  problem.output = *result;
  problem.query = *query;
  problem.key = *key;
  problem.value = *value;

  // Types: one half-precision type; D static and shared (Dv = D); H static.
  Type element = matcher.bufferType(output).getElementType();
  auto viewType = [&](Value operand) { return cast<RankedTensorType>(operand.getType()); };
  RankedTensorType q = viewType(op.getQuery()), k = viewType(op.getKey()),
                   v = viewType(op.getValue());
  if (!(element.isF16() || element.isBF16()) || q.getElementType() != element ||
      k.getElementType() != element || v.getElementType() != element ||
      resultType.getElementType() != element || q.getRank() != resultType.getRank() ||
      k.getRank() != q.getRank() || v.getRank() != q.getRank())
    return refuse("operands of " + std::string(element.isF16() || element.isBF16()
                                                   ? "mixed types or ranks"
                                                   : "a type other than f16 or bf16"));
  int64_t rank = q.getRank();
  problem.headDim = resultType.getShape().back();
  for (RankedTensorType type : {q, k, v, resultType})
    if (type.isDynamicDim(rank - 1) || type.getShape().back() != problem.headDim)
      return refuse("head dimensions that differ or are known at run time only");
  for (const AttentionOperand *operand :
       {&problem.query, &problem.key, &problem.value, &problem.output}) {
    // Every row 16-byte aligned
    // (cp.async and the 16-byte stores): the offset and the strides multiples of 8
    // elements whatever the run-time extents in them.
    // H static: O's, 1 (shared by every head) or, for K and V, a divisor of O's
    // (grouped-query attention: query head h reads K and V's head h / (H / Hkv)).
    const ExtentProduct &heads = operand->extents[1];
    int64_t outputHeads = problem.output.extents[1].value();
    bool grouped = operand != &problem.query && heads.isStatic() && heads.value() > 1 &&
                   outputHeads % heads.value() == 0;
    if (!heads.isStatic() || (heads.value() != 1 && heads.value() != outputHeads && !grouped))
      return refuse("Q has a number of heads other than 1 or the result's, or K or V one "
                    "that does not divide it");
    auto aligned = [](const ExtentProduct &term) { return term.factor % 8 == 0; };
    if (!llvm::all_of(operand->offset, aligned) || !llvm::all_of(operand->strides, aligned))
      return refuse("an operand's rows are not 16-byte aligned (offset or strides not "
                    "multiples of 8 elements)");
  }
  const ExtentProduct &keyHeads = problem.key.extents[1], &valueHeads = problem.value.extents[1];
  if (keyHeads != valueHeads && keyHeads.value() != 1 && valueHeads.value() != 1)
    return refuse("K and V have different numbers of heads");
  int64_t kvHeads = std::max(keyHeads.value(), valueHeads.value());
  problem.kvGroup = problem.output.extents[1].value() / kvHeads;
  // K and V share their sequence; their extents must agree with Q's and O's where known.
  auto agree = [](const ExtentProduct &a, const ExtentProduct &b) {
    return !a.isStatic() || !b.isStatic() || a == b;
  };
  auto batchAgrees = [&](const ExtentProduct &a) {
    return agree(a, problem.output.extents[0]) || (a.isStatic() && a.value() == 1);
  };
  if (!agree(problem.query.extents[2], problem.output.extents[2]) ||
      !agree(problem.key.extents[2], problem.value.extents[2]) ||
      !batchAgrees(problem.query.extents[0]) || !batchAgrees(problem.key.extents[0]) ||
      !batchAgrees(problem.value.extents[0]))
    return refuse("the operands' extents do not agree");

  // The extents the configurations are chosen for: static, else at the opt shape.
  // (Each profile evaluated once: it walks the module for the kernel's launches.)
  llvm::StringMap<std::optional<ProfileArguments>> profiles;
  auto valueOf = [&](const ExtentProduct &extent, StringRef profile) -> std::optional<int64_t> {
    if (extent.isStatic())
      return extent.value();
    auto [found, inserted] = profiles.try_emplace(profile);
    if (inserted)
      found->second = getProfileArguments(function, profile);
    const std::optional<ProfileArguments> &arguments = found->second;
    if (!arguments)
      return std::nullopt;
    int64_t value = extent.factor;
    for (const KernelExtent &factor : extent.extents)
      value *= factor.dim < 0 ? arguments->symbols[factor.argument]
                              : arguments->types[factor.argument].getDimSize(factor.dim);
    return value;
  };
  std::optional<int64_t> batch = valueOf(problem.output.extents[0], kiln::kernel::kOptShapeAttr);
  std::optional<int64_t> seqQ = valueOf(problem.output.extents[2], kiln::kernel::kOptShapeAttr);
  std::optional<int64_t> seqKv = valueOf(problem.key.extents[2], kiln::kernel::kOptShapeAttr);
  if (!batch || !seqQ || !seqKv)
    return refuse("extents known at run time only, without a profile's opt shape");
  problem.dynamic = !problem.output.extents[0].isStatic() ||
                    !problem.output.extents[2].isStatic() || !problem.key.extents[2].isStatic();
  problem.operand = element;
  problem.rank = rank;
  problem.batch = *batch;
  problem.heads = problem.output.extents[1].value();
  problem.seqQ = *seqQ;
  problem.seqKv = *seqKv;
  problem.nanToZero = op.getNanToZero();
  // A causal op (graph-recognize-causal-masks), with or without a mask besides.
  problem.causal = op.getCausal();
  problem.scale = op.getScale().convertToFloat();
  if (!(problem.scale > 0.0f) || !std::isfinite(problem.scale) || problem.seqQ < 1 ||
      problem.seqKv < 1 || problem.batch * problem.heads > 65535)
    return refuse("a scale that is not positive and finite, an empty sequence, or more "
                  "than 65535 batches x heads");
  // The grid's B * H, at most 65535, at the profile's largest batch.
  if (!problem.output.extents[0].isStatic()) {
    std::optional<int64_t> maxBatch =
        valueOf(problem.output.extents[0], kiln::kernel::kMaxShapeAttr);
    if (!maxBatch || *maxBatch * problem.heads > 65535)
      return refuse("more than 65535 batches x heads at the profile's largest shape");
  }

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
      if (problem.causal)
        return refuse("a causal attention whose mask is a boolean select besides");
      // where(causal, 0, -inf): a constant boolean buffer that is exactly causal.
      std::optional<APFloat> allowedValue = kiln::getSplatFloat(where.getLhs());
      std::optional<APFloat> maskedValue = kiln::getSplatFloat(where.getRhs());
      int condition = matcher.inputBuffer(where.getCondition());
      if (!allowedValue || !allowedValue->isZero() || !maskedValue ||
          !kiln::isMaskedOutScore(*maskedValue) || condition < 0 || problem.dynamic)
        return refuse("a boolean mask that is not a compile-time constant");
      MemRefType type = matcher.bufferType(condition);
      std::function<APFloat(int64_t)> values =
          type && type.getElementType().isInteger(1)
              ? constantElements(launchOperand(condition), type)
              : nullptr;
      if (!values || !isCausalPattern(type.getShape(), problem.seqQ, problem.seqKv,
                                      [&](int64_t index) -> std::optional<bool> {
                                        return !values(index).isZero();
                                      }))
        return refuse("a boolean mask that is not exactly causal");
      problem.causal = true;
    } else {
      int index = matcher.inputBuffer(mask);
      MemRefType type = matcher.bufferType(index);
      if (!type || type.getRank() > rank ||
          !(type.getElementType().isF16() || type.getElementType().isBF16() ||
            type.getElementType().isF32()))
        return refuse("a mask that is not a buffer of f16, bf16 or f32 of at most the "
                      "scores' rank");
      // Broadcasts to the scores [batch, (heads,) Sq, Skv], right aligned: each extent 1,
      // or the scores' (dynamic extents are checked at run time: the launch gives an
      // extent of 1 stride 0).
      SmallVector<ExtentProduct> scores = {problem.output.extents[0]};
      if (rank == 4)
        scores.push_back(problem.output.extents[1]);
      scores.push_back(problem.output.extents[2]);
      scores.push_back(problem.key.extents[2]);
      int64_t offset = rank - type.getRank();
      for (int64_t d = 0; d < type.getRank(); ++d) {
        ExtentProduct extent = ExtentProduct::constant(type.getDimSize(d));
        if (!type.isDynamicDim(d) && extent.value() != 1 && !agree(extent, scores[offset + d]))
          return refuse("a mask that does not broadcast to the scores");
      }
      problem.maskType = type.getElementType();
      problem.mask = index;
      problem.maskRowsBroadcast = type.getRank() < 2 || type.getDimSize(type.getRank() - 2) == 1;
      // A constant mask that is exactly causal becomes the causal flag; one masked out
      // above the diagonal (a causal mask with a bias: ALiBi's) sets it besides, so that
      // the kernel skips the tiles above the diagonal and reads the mask below.
      std::function<APFloat(int64_t)> values =
          problem.dynamic ? nullptr : constantElements(launchOperand(index), type);
      if (values) {
        if (isCausalPattern(type.getShape(), problem.seqQ, problem.seqKv,
                            [&](int64_t at) -> std::optional<bool> {
                              APFloat value = values(at);
                              if (value.isZero())
                                return true;
                              if (kiln::isMaskedOutScore(value))
                                return false;
                              return std::nullopt;
                            })) {
          problem.causal = true;
          problem.maskType = nullptr;
          problem.mask = -1;
        } else if (problem.seqQ == problem.seqKv &&
                   isMaskedAboveDiagonal(
                       type.getShape(), problem.seqQ, problem.seqKv,
                       [&](int64_t at) { return kiln::isMaskedOutScore(values(at)); })) {
          problem.causal = true;
        }
      }
    }
  }
  if (flashAttentionConfigs(problem, kiln::kTargetSm90a).empty())
    return refuse("head dimension " + std::to_string(problem.headDim) +
                  " (the template takes multiples of 16 up to 256 on sm_90a, 128 before)");
  return problem;
}

namespace {

/// Generates the attention kernels whose `kernel.config` is #kernel.flash_attention.
struct FlashAttentionGenerator {
  ModuleOp module;
  SymbolTable &symbols;
  const kiln::TemplateOptions &options;
  StringRef pass;

  MLIRContext &getContext() { return *module.getContext(); }

  LogicalResult run(kernel::FuncOp function, const kiln::FlashAttentionProblem &problem,
                    const kiln::FlashAttentionConfig &config) {
    FailureOr<gpu::GPUFuncOp> kernel = getOrCreateKernel(module, symbols, problem, config);
    if (failed(kernel))
      return failure();
    kiln::replaceLaunches(function, module, symbols, [&](kernel::LaunchOp launch) {
      replaceLaunch(launch, *kernel, problem, config);
      return success();
    });
    return success();
  }

  /// The template's kernel for `problem`'s types and mask form and `config`, instantiated
  /// into a gpu.module of `module` once.
  FailureOr<gpu::GPUFuncOp> getOrCreateKernel(ModuleOp module, SymbolTable &symbols,
                                              const kiln::FlashAttentionProblem &problem,
                                              const kiln::FlashAttentionConfig &config) {
    std::string type = typeName(problem.operand);
    std::string maskType = problem.maskType ? typeName(problem.maskType) : type;
    std::string variant =
        std::string(problem.causal ? "_causal" : "") + (problem.maskType ? "_mask" + maskType : "");
    if (problem.maskType && problem.maskRowsBroadcast)
      variant += "_rows1";
    if (problem.nanToZero)
      variant += "_nz";
    std::string entryName =
        llvm::formatv("flash_attention_{0}_d{1}_{2}x{3}x{4}w{5}{6}{7}", type, problem.headDim,
                      config.blockQ, config.blockKv, config.stages, config.warps,
                      config.tma     ? "_wgmma_tma"
                      : config.wgmma ? "_wgmma"
                                     : "",
                      variant)
            .str();
    std::string moduleName = "kiln_attention_" + entryName.substr(strlen("flash_attention_"));
    if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName))
      return existing.lookupSymbol<gpu::GPUFuncOp>(entryName);

    int64_t d = problem.headDim, threads = config.threads();
    // The wgmma variant's rows are whole 64-element swizzle atoms.
    int64_t atoms = llvm::divideCeil(d, 64);
    int64_t rowElements = config.wgmma ? 64 * atoms : d;
    int64_t kvStage = config.blockKv * rowElements * 2;
    int64_t qBuffers = config.qBuffers(d);
    int64_t kOffset = qBuffers * config.blockQ * rowElements * 2;
    // V's wgmma descriptor: 128-byte swizzle, stride byte offset 1024 (8 rows), leading
    // byte offset one atom of the stage's columns (BKV rows of 128 bytes; unused, and 1024
    // as for Q and K, where D is one atom).
    int64_t descV = (int64_t(1) << 62) + (int64_t(64) << 32) +
                    ((atoms > 1 ? config.blockKv * 128 / 16 : 64) << 16);
    auto str = [](int64_t value) { return std::to_string(value); };
    auto flag = [](bool value) { return std::string(value ? "true" : "false"); };
    std::string extend = maskType == "f32" ? "arith.addf %mv, %fneg0 : f32"
                                           : "arith.extf %mv : " + maskType + " to f32";
    // The mask read two columns at a time: a pair of f32 is already the scores' type.
    std::string extendPair = maskType == "f32"
                                 ? "arith.addf %mv, %fneg0Pair : vector<2xf32>"
                                 : "arith.extf %mv : vector<2x" + maskType + "> to vector<2xf32>";
    int64_t maskPairBytes = maskType == "f32" ? 8 : 4;
    // f16 wgmma kernels take exp2 of two elements at once in f16 (the templates' {HALF_EXP}),
    // but for the TMA form, whose softmax overlaps P V and is bound by its instructions'
    // latency rather than the MUFU's rate: f32 exp2 measured 2-5% faster there at D 80 and
    // 128 (docs/notebook/2026-11-29-04). The option attention-f32-exp keeps f32 everywhere
    // (a measuring aid).
    bool halfExp = config.wgmma && !config.tma && type == "f16" && !options.attentionF32Exp;
    // The wgmma products (generated: the inline-asm operand lists depend on the tile).
    std::string qkFirst, qkProduct, pvProduct, waitO, waitS, waitOLast, copyP;
    // The wgmma variant's last KV tile where a static Skv leaves a partial one: its keys
    // rounded up to 16 (P V's k-steps) instead of a whole tile (ViT's 197 tokens in 64-key
    // tiles: 3 x 64 + 16 keys, not 4 x 64); 0 where every tile is whole.
    int64_t tailKv = wgmmaTailKeys(problem, config);
    std::string qkTailProduct, pvTailProduct;
    if (config.wgmma) {
      std::string sacc = llvm::formatv("vector<1x{0}x2x2xf32>", config.blockKv / 8).str();
      std::string oacc = llvm::formatv("vector<1x{0}x2x2xf32>", d / 8).str();
      // S = Q K^T's k-step k (16 elements of D, 32 bytes) lies in atom k / 4 (the atoms
      // of a tile of `rows` rows follow each other), 32 bytes a step into it.
      auto kStep = [](int64_t rows) {
        return [rows](int64_t k) { return (k / 4) * rows * 128 / 16 + (k % 4) * 2; };
      };
      auto qk = [&](StringRef prefix, StringRef result, StringRef descK) {
        return WgmmaProduct{prefix.str(),
                            result.str(),
                            "%sIn",
                            sacc,
                            config.blockKv,
                            d / 16,
                            "%qf",
                            llvm::formatv("vector<1x{0}x4x2x{1}>", d / 16, type).str(),
                            {},
                            "%descQ",
                            kStep(config.blockQ),
                            descK.str(),
                            kStep(config.blockKv),
                            /*transposeB=*/false,
                            /*zeroFirst=*/true};
      };
      WgmmaProduct pv{"pv",
                      "%oNew",
                      "%oScaled",
                      oacc,
                      d,
                      config.blockKv / 16,
                      config.tma ? "%pIssue" : "%pOut#0",
                      llvm::formatv("vector<1x{0}x2x2x{1}>", config.blockKv / 8, type).str(),
                      [](int64_t k, int64_t r) {
                        return llvm::formatv("0, {0}, {1}", 2 * k + r / 2, r % 2).str();
                      },
                      "",
                      {},
                      "%descV",
                      [](int64_t k) {
                        return k * 128; /*16 rows of 128 bytes*/
                      },
                      /*transposeB=*/true,
                      /*zeroFirst=*/false};
      if (config.tma) {
        // The TMA form computes S of tile 0 before its loop. A turn issues S of tile j + 1
        // and P V of tile j (a commit group each) without waiting: S is waited for after
        // the signal (wait_group 1), P V in the next iteration, while the softmax of tile
        // j + 1 runs (WAIT_O), or after the loop.
        qkFirst = wgmmaSnippet(type, {qk("qk0", "%sFirst", "%descK0")});
        WgmmaProduct pvLast = pv;
        pvLast.prefix = "pvl";
        pvLast.result = "%oLast";
        qkProduct = wgmmaSnippet(type, {qk("qk", "%sIssued", "%descKNext"), pv},
                                 /*issueOnly=*/true);
        pvProduct = wgmmaSnippet(type, {pvLast}, /*issueOnly=*/true);
        std::string pType = llvm::formatv("vector<1x{0}x2x2x{1}>", config.blockKv / 8, type);
        auto accumulators = [](StringRef value, StringRef valueType, int64_t tiles) {
          return WgmmaRegisters{value.str(), valueType.str(), tiles, true, ""};
        };
        auto halves = [&](StringRef value) {
          return WgmmaRegisters{value.str(), pType, config.blockKv / 8, false, type};
        };
        waitO = wgmmaWait("wo", 0, {accumulators("%oPending", oacc, d / 8)}, {"%oAcc"},
                          {halves("%pHeld")});
        // P V reads a copy of P made after that wait (%pIssue), not the softmax's own
        // registers: the next tile's softmax rewrites those while this P V is in flight.
        copyP = wgmmaOperandCopy("pc", halves("%pOut#0"), "%pIssue");
        waitS = wgmmaWait("ws", 1, {accumulators("%sIssued", sacc, config.blockKv / 8)}, {"%sNext"},
                          {});
        waitOLast = wgmmaWait("wl", 0, {accumulators("%loop#0", oacc, d / 8)}, {"%oFinal"},
                              {halves("%loop#4")});
      } else {
        qkProduct = wgmmaSnippet(type, {qk("qk", "%sAcc", "%descK")});
        pvProduct = wgmmaSnippet(type, {pv});
        if (tailKv > 0) {
          // The last KV tile's products, tailKv keys wide (the tail loop's copy of the
          // step: its own names, types and k-steps).
          WgmmaProduct qkTail = qk("qkt", "%sAcc", "%descK");
          qkTail.acc = "%sInTail";
          qkTail.accType = llvm::formatv("vector<1x{0}x2x2xf32>", tailKv / 8).str();
          qkTail.n = tailKv;
          WgmmaProduct pvTail = pv;
          pvTail.prefix = "pvt";
          pvTail.steps = tailKv / 16;
          pvTail.aSourceType = llvm::formatv("vector<1x{0}x2x2x{1}>", tailKv / 8, type).str();
          qkTailProduct = wgmmaSnippet(type, {qkTail});
          pvTailProduct = wgmmaSnippet(type, {pvTail});
        }
      }
    }
    // 16 rows a warp, D 64, 64 x 64 tiles, 2 stages fits in 128 registers without spills: 4
    // CTAs an SM (16 warps) instead of 3. The wgmma variant keeps Q in 16 registers and
    // the accumulators in 32 + 32: {MIN_CTAS} as below.
    int64_t minCtas = config.wgmma ? wgmmaMinCtas(config, d)
                      : d == 64 && config.blockQ == 16 * config.warps && config.warps == 4 &&
                              config.blockKv == 64 && config.stages == 2
                          ? 4
                          : 1;
    // The warps that compute scores (the TMA form's producer warpgroup computes none).
    int64_t computeWarps = config.tma ? 8 : config.warps;
    // The parts the Hopper templates share go in first: they hold placeholders too.
    std::string text = config.tma ? kTmaTemplate : config.wgmma ? kWgmmaTemplate : kTemplate;
    if (config.wgmma)
      text = kiln::substitutePlaceholders(
          std::move(text), {{"MASK_SETUP", wgmmaPart("MASK_SETUP")},
                            {"ROW_SETUP", wgmmaPart("ROW_SETUP")},
                            {"ONLINE_SOFTMAX", wgmmaPart("ONLINE_SOFTMAX")},
                            {"RESCALE_O", wgmmaPart("RESCALE_O")},
                            {"INVERSE_L", wgmmaPart("INVERSE_L")},
                            {"O_TO_SHARED", oToShared("%c0", "%cNTO", "%c0", "%Qs", "!sq")},
                            {"WORK_ITEM", wgmmaPart("WORK_ITEM")}});
    if (tailKv > 0) {
      // The loop over KV tiles in two: the whole tiles, then the last one in a copy of the
      // step whose score tile is tailKv keys wide (its own types, counts and products).
      StringRef header = "    %res:3 = scf.for %j = %c0 to %numKv step %c1\n"
                         "        iter_args(%oAcc = %o0, %mRun = %m0, %lRun = %z0) -> (!oacc, "
                         "!rows, !rows) {\n";
      StringRef footer = "      scf.yield %oNew, %mNew, %lNew : !oacc, !rows, !rows\n    }\n";
      size_t begin = text.find(header.str()), end = text.find(footer.str(), begin);
      if (begin == std::string::npos || end == std::string::npos)
        return module.emitError(pass) << ": the flash-attention template has no KV loop";
      std::string body =
          text.substr(begin + header.size(), end + footer.size() - begin - header.size());
      std::string tail = kiln::substitutePlaceholders(body, {{"NT_S", "{NT_S_TAIL}"},
                                                             {"KP", "{KP_TAIL}"},
                                                             {"WGMMA_QK", "{WGMMA_QK_TAIL}"},
                                                             {"WGMMA_PV", "{WGMMA_PV_TAIL}"}});
      tail = kiln::replaceAll(kiln::replaceAll(std::move(tail), "!sacc", "!saccTail"), "%cNTS",
                              "%cNTSTail");
      std::string loops =
          "    %cNTSTail = arith.constant {NT_S_TAIL} : index\n"
          "    %sInTail = ub.poison : !saccTail\n"
          "    %numWhole = arith.divui %skv, %cBKV : index\n"
          "    %numMain = arith.minui %numKv, %numWhole : index\n"
          "    %res0:3 = scf.for %j = %c0 to %numMain step %c1\n"
          "        iter_args(%oAcc = %o0, %mRun = %m0, %lRun = %z0) -> (!oacc, !rows, !rows) {\n" +
          body +
          "    %res:3 = scf.for %j = %numMain to %numKv step %c1\n"
          "        iter_args(%oAcc = %res0#0, %mRun = %res0#1, %lRun = %res0#2) -> (!oacc, "
          "!rows, !rows) {\n" +
          tail;
      std::string alias = "!sacc = vector<{MTW}x{NT_S}x2x2xf32>\n";
      size_t aliasAt = text.find(alias);
      if (aliasAt == std::string::npos)
        return module.emitError(pass) << ": the flash-attention template has no score type";
      text.replace(begin, end + footer.size() - begin, loops);
      text.insert(aliasAt + alias.size(), "!saccTail = vector<{MTW}x{NT_S_TAIL}x2x2xf32>\n");
    }
    // The TMA form's epilogue: rounds of the staging buffer's atoms (8 n8 tiles of O each).
    std::string oRounds;
    if (config.tma) {
      int64_t tiles = d / 8, tilesPerRound = 8 * config.stageAtoms(d);
      for (int64_t e0 = 0, round = 0; e0 < tiles; e0 += tilesPerRound, ++round) {
        int64_t e1 = std::min(tiles, e0 + tilesPerRound);
        oRounds +=
            kiln::substitutePlaceholders(
                wgmmaPart("O_ROUND"),
                {{"O_TO_SHARED", oToShared("%e0R{R}", "%e1R{R}", "%a0R{R}", "%Stage", "!stage")},
                 {"R", str(round)},
                 {"E0", str(e0)},
                 {"E1", str(e1)},
                 {"A0", str(e0 / 8)},
                 {"COL0", str(e0 * 8)},
                 {"ROUND_CPR", str(e1 - e0)},
                 {"ROUND_CHUNKS", str(64 * (e1 - e0) / 128)}}) +
            "\n";
      }
    }
    // The TMA form's tile bytes.
    int64_t qAtomBytes = config.blockQ * 128, kvAtomBytes = config.blockKv * 128;
    // The TMA form's setmaxnreg split: the consumers may take only what the producer gives
    // up, so producer + 2 consumers = the launch's 3 x 168 a thread (384 threads, 64 K
    // registers); 240 for the consumers above D 128, where O alone is D / 2.
    int64_t consumerRegs = d > 128 ? 240 : 232;
    int64_t producerRegs = 3 * 168 - 2 * consumerRegs;
    text = kiln::substitutePlaceholders(std::move(text),
                                        {{"O_ROUNDS", oRounds},
                                         {"WGMMA_QK_FIRST", qkFirst},
                                         {"WAIT_O", waitO},
                                         {"COPY_P", copyP},
                                         {"WAIT_S", waitS},
                                         {"WAIT_O_LAST", waitOLast},
                                         {"O_FINAL", config.tma ? "%oFinal" : "%res#0"},
                                         {"L_FINAL", config.tma ? "%loop#2" : "%res#2"},
                                         {"WGMMA_TURN", qkProduct},
                                         {"Q_BUFS", str(qBuffers)},
                                         {"Q_BUF_BYTES", str(config.blockQ * rowElements * 2)},
                                         {"Q_ATOM_BYTES", str(qAtomBytes)},
                                         {"KV_ATOM_BYTES", str(kvAtomBytes)},
                                         {"Q_BYTES", str(atoms * qAtomBytes)},
                                         {"TILE_BYTES", str(atoms * kvAtomBytes)},
                                         {"PRODUCER_REGS", str(producerRegs)},
                                         {"CONSUMER_REGS", str(consumerRegs)},
                                         {"WGMMA_QK", qkProduct},
                                         {"WGMMA_PV", pvProduct},
                                         {"MODULE", moduleName},
                                         {"ENTRY", entryName},
                                         {"MASK_EXT", extend},
                                         {"MASK_EXT_PAIR", extendPair},
                                         {"MASK_PAIR_BYTES", str(maskPairBytes)},
                                         {"MASK_ROW", problem.maskType && problem.maskRowsBroadcast
                                                          ? "%mRow = arith.constant 0 : index"
                                                          : "%mRow = arith.index_castui %mQ : i32 "
                                                            "to index"},
                                         {"MT", maskType},
                                         {"T", type},
                                         {"D", str(d)},
                                         {"ATOMS", str(atoms)},
                                         {"DESC_V", str(descV)},
                                         {"BQ", str(config.blockQ)},
                                         {"BKV", str(config.blockKv)},
                                         {"STAGES", str(config.stages)},
                                         {"WAIT_Q", str(config.stages - 2)},
                                         {"WAIT", str(config.stages - 1)},
                                         {"WARPS", str(config.warps)},
                                         {"MIN_CTAS", str(minCtas)},
                                         {"WARP_ROWS", str(config.blockQ / computeWarps)},
                                         {"MTW", str(config.blockQ / computeWarps / 16)},
                                         {"ROWS", str(config.blockQ / computeWarps / 8)},
                                         {"THREADS", str(threads)},
                                         {"NT_S", str(config.blockKv / 8)},
                                         {"NT_S_TAIL", str(tailKv / 8)},
                                         {"KP_TAIL", str(tailKv / 16)},
                                         {"WGMMA_QK_TAIL", qkTailProduct},
                                         {"WGMMA_PV_TAIL", pvTailProduct},
                                         {"NT_O", str(d / 8)},
                                         {"KQ", str(d / 16)},
                                         {"KP", str(config.blockKv / 16)},
                                         {"Q_CHUNKS", str(config.blockQ * d / 8 / threads)},
                                         {"KV_CHUNKS", str(config.blockKv * d / 8 / threads)},
                                         {"CPR", str(d / 8)},
                                         {"SWZ", str(std::min<int64_t>(8, (d / 8) & -(d / 8)))},
                                         {"K_OFF", str(kOffset)},
                                         {"V_OFF", str(kOffset + config.stages * kvStage)},
                                         {"STAGE_OFF", str(kOffset + 2 * config.stages * kvStage)},
                                         {"STAGE_ATOMS", str(config.stageAtoms(d))},
                                         {"KV_STAGE", str(kvStage)},
                                         {"HAS_MASK", flag(bool(problem.maskType))},
                                         {"CAUSAL", flag(problem.causal)},
                                         {"NAN_TO_ZERO", flag(problem.nanToZero)},
                                         {"HALF_EXP", flag(halfExp)}});
    OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, module.getContext());
    if (!parsed)
      return module.emitError(pass)
             << ": the flash-attention template (" << entryName << ") does not parse";
    auto gpuModule = *parsed->getOps<gpu::GPUModuleOp>().begin();
    if (failed(kiln::unrollMarkedLoops(gpuModule)))
      return module.emitError(pass) << ": cannot unroll the template's loops (" << entryName << ")";
    kiln::lowerBf16MmaSync(gpuModule);
    gpuModule->remove();
    symbols.insert(gpuModule);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
    return gpuModule.lookupSymbol<gpu::GPUFuncOp>(entryName);
  }

  /// CTAs an SM the wgmma variant asks ptxas to fit (nvvm.minctasm caps the registers),
  /// where that spills nothing and shared memory allows as many (ptxas 13.0, sm_90a, D 64;
  /// the register counts below).
  int64_t wgmmaMinCtas(const kiln::FlashAttentionConfig &config, int64_t headDim) const {
    // A kernel developer's aid for measuring other caps: the option attention-min-ctas.
    if (options.attentionMinCtas >= 1 && options.attentionMinCtas <= 16)
      return options.attentionMinCtas;
    // Wider heads: O's accumulators grow to D / 2 registers a thread; 4-warp CTAs two an
    // SM (at most 255 registers), 8-warp ones one. (64x32 CTAs, three an SM at D 128 in
    // 168 registers, were correct but slower: notebook
    // 2026-11-29-01-mask-pairs-gelu-vit-tokens.md.)
    if (headDim > 64)
      return config.warps == 8 ? 1 : 2;
    // 64x64x2 w4 4 (126 registers; 5 would spill 16 bytes since the whole-tile copies and
    // 16-byte stores), other 4-warp CTAs 3, 8 warps 2 (120), and 128x128 w8 1 (183; 2 would
    // spill 64 bytes).
    if (config.warps == 8)
      return config.blockKv == 128 ? 1 : 2;
    return config.blockKv == 64 && config.stages == 2 ? 4 : 3;
  }

  /// kernel.launch @k(...) -> the flash-attention kernel's launch. Extents known only at
  /// run time are read from the launch's buffers and symbols on the host (the engine's
  /// shape program evaluates them per call).
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
    llvm::SmallDenseMap<int64_t, Value> constants;
    auto index = [&](int64_t value) -> Value {
      Value &constant = constants[value];
      if (!constant)
        constant = arith::ConstantIndexOp::create(b, loc, value);
      return constant;
    };
    Value one = index(1);
    ValueRange operands = launch.getOperands();
    // Host index arithmetic, folded where the operands are constants.
    auto mul = [&](Value lhs, Value rhs) { return b.createOrFold<arith::MulIOp>(loc, lhs, rhs); };
    auto extent = [&](const kiln::ExtentProduct &product) -> Value {
      Value value = index(product.factor);
      for (const kiln::KernelExtent &factor : product.extents)
        value = mul(value, factor.dim < 0 ? operands[factor.argument]
                                          : b.createOrFold<memref::DimOp>(
                                                loc, operands[factor.argument], factor.dim));
      return value;
    };
    // 0 where `size` is 1 (the dimension broadcasts), else `stride`.
    auto unlessOne = [&](Value size, Value stride) -> Value {
      Value isOne = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, size, one);
      return b.createOrFold<arith::SelectOp>(loc, isOne, index(0), stride);
    };
    auto i32 = [&](Value value) -> Value {
      return b.createOrFold<arith::IndexCastOp>(loc, b.getI32Type(), value);
    };
    FunctionType signature = kernelFunc.getFunctionType();
    // Buffers go as bare pointers: 0-d views.
    auto pointer = [&](Value buffer, unsigned parameter) -> Value {
      return memref::ReinterpretCastOp::create(
          b, loc, cast<MemRefType>(signature.getInput(parameter)), buffer, /*offset=*/0,
          /*sizes=*/ArrayRef<int64_t>{},
          /*strides=*/ArrayRef<int64_t>{});
    };
    // An operand's offset and its strides along batch, head and row (elements); 0 along
    // a batch or head extent of 1 (shared by every batch or head).
    auto view = [&](const kiln::AttentionOperand &operand) -> std::array<Value, 4> {
      Value offset = index(0);
      for (const kiln::ExtentProduct &term : operand.offset)
        offset = b.createOrFold<arith::AddIOp>(loc, offset, extent(term));
      return {i32(offset), i32(unlessOne(extent(operand.extents[0]), extent(operand.strides[0]))),
              i32(unlessOne(extent(operand.extents[1]), extent(operand.strides[1]))),
              i32(extent(operand.strides[2]))};
    };
    // The TMA form reads Q, K and V through tensor maps of their [B, H, S, D] views (a
    // strided view of each buffer, which the engine encodes): boxes of 64 columns, the
    // Q tile's rows or a K/V tile's.
    auto tensorMap = [&](const kiln::AttentionOperand &operand, unsigned parameter,
                         int64_t rows) -> Value {
      std::optional<kiln::FlashAttentionTmaView> view =
          kiln::flashAttentionTmaView(problem, operand);
      assert(view && "a TMA configuration of views a tensor map cannot describe");
      auto [d, s, h, n] = view->dims;
      auto [rowStride, headStride, batchStride] = view->strides;
      Value buffer = operands[operand.argument];
      auto bufferType = cast<MemRefType>(buffer.getType());
      auto viewType =
          MemRefType::get({n, h, s, d}, bufferType.getElementType(),
                          StridedLayoutAttr::get(b.getContext(), view->offset,
                                                 {batchStride, headStride, rowStride, 1}),
                          bufferType.getMemorySpace());
      Value strided = memref::ReinterpretCastOp::create(
          b, loc, viewType, buffer, view->offset, ArrayRef<int64_t>{n, h, s, d},
          ArrayRef<int64_t>{batchStride, headStride, rowStride, 1});
      Value unranked = memref::CastOp::create(
          b, loc, UnrankedMemRefType::get(bufferType.getElementType(), bufferType.getMemorySpace()),
          strided);
      SmallVector<Value> box = {index(1), index(1), index(rows), index(64)};
      return nvgpu::TmaCreateDescriptorOp::create(
                 b, loc, cast<nvgpu::TensorMapDescriptorType>(signature.getInput(parameter)),
                 unranked, box)
          .getResult();
    };
    Value q, k, v;
    if (config.tma) {
      q = tensorMap(problem.query, 0, config.blockQ);
      k = tensorMap(problem.key, 1, config.blockKv);
      v = tensorMap(problem.value, 2, config.blockKv);
    } else {
      q = pointer(operands[problem.query.argument], 0);
      k = pointer(operands[problem.key.argument], 1);
      v = pointer(operands[problem.value.argument], 2);
    }
    Value o = pointer(operands[problem.output.argument], 3);
    // The mask's element strides along (batch, head, query row, key column), right aligned
    // to the scores; 0 along the dimensions it broadcasts. Without a mask buffer the
    // kernel reads none: O stands in.
    std::array<Value, 4> maskStrides = {index(0), index(0), index(0), index(0)};
    Value mask = pointer(operands[problem.output.argument], 4);
    if (problem.mask >= 0) {
      Value buffer = operands[problem.mask];
      auto type = cast<MemRefType>(buffer.getType());
      // The scores' dimensions: (batch, head, row, column), or (batch, row, column).
      SmallVector<int> roles = {0, 1, 2, 3};
      if (problem.rank == 3)
        roles = {0, 2, 3};
      int64_t first = int64_t(roles.size()) - type.getRank();
      Value stride = index(1);
      for (int64_t dim = type.getRank() - 1; dim >= 0; --dim) {
        Value size = type.isDynamicDim(dim) ? b.createOrFold<memref::DimOp>(loc, buffer, dim)
                                            : index(type.getDimSize(dim));
        maskStrides[roles[first + dim]] = unlessOne(size, stride);
        stride = mul(stride, size);
      }
      mask = pointer(buffer, 4);
    }
    Value scale = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(problem.scale));
    Value batch = extent(problem.output.extents[0]), heads = extent(problem.output.extents[1]);
    Value seqQ = extent(problem.output.extents[2]), seqKv = extent(problem.key.extents[2]);
    Value blocksQ = b.createOrFold<arith::CeilDivUIOp>(loc, seqQ, index(config.blockQ));
    SmallVector<Value> arguments = {
        q, k, v, o, mask, i32(heads), i32(index(problem.kvGroup)), i32(seqQ), i32(seqKv)};
    for (Value stride : maskStrides)
      arguments.push_back(i32(stride));
    arguments.push_back(scale);
    for (const kiln::AttentionOperand *operand :
         {&problem.query, &problem.key, &problem.value, &problem.output})
      if (!config.tma || operand == &problem.output)
        llvm::append_range(arguments, view(*operand));
    // A CTA a query block of each (batch, head); the TMA form's grid is persistent: a CTA
    // an SM (at most one a work item), each walking the items blocksQ * B * H (static: the
    // form takes static problems only), B * H its last argument.
    gpu::KernelDim3 grid{blocksQ, mul(batch, heads), one};
    if (config.tma) {
      arguments.push_back(i32(mul(batch, heads)));
      int64_t items = llvm::divideCeil(problem.seqQ, config.blockQ) * problem.batch * problem.heads;
      grid = {index(std::min(items, kiln::kSm90Multiprocessors)), one, one};
    }
    gpu::LaunchFuncOp::create(
        b, loc, kernelFunc, grid, gpu::KernelDim3{index(config.threads()), one, one},
        arith::ConstantIntOp::create(b, loc, config.sharedBytes(problem.headDim), 32), arguments);
    launch.erase();
  }
};

/// The configuration `forced` names (TemplateOptions::attentionConfig), if it is one of
/// `legal`.
std::optional<kiln::FlashAttentionConfig>
findForcedConfig(StringRef forced, ArrayRef<kiln::FlashAttentionConfig> legal) {
  std::optional<kiln::FlashAttentionConfig> asked = kiln::parseFlashAttentionConfig(forced);
  if (!asked || !llvm::is_contained(legal, *asked))
    return std::nullopt;
  return asked;
}

/// The family: #kernel.flash_attention on every GPU target.
class FlashAttentionTemplate final
    : public kiln::KernelTemplateOf<kernel::FlashAttentionConfigAttr> {
  static std::optional<kiln::FlashAttentionProblem> match(kernel::FuncOp function) {
    auto module = function->getParentOfType<ModuleOp>();
    return module ? kiln::matchFlashAttention(function, module) : std::nullopt;
  }

  SmallVector<Attribute> candidates(kernel::FuncOp function,
                                    const kiln::TemplateOptions &options) const override {
    std::optional<kiln::FlashAttentionProblem> problem = match(function);
    if (!problem)
      return {};
    SmallVector<Attribute> configs;
    for (const kiln::FlashAttentionConfig &config :
         kiln::flashAttentionConfigs(*problem, options.target)) {
      // The wgmma variant of heads wider than 64 is checked on the H200 in its 64x64,
      // 2-stage, 4-warp form (bench/attention_sweep.py --family attnforms: D 80 35 us
      // against mma.sync's 53, grouped-query D 128 52 against 75, rel L2 4e-4) and its
      // 128x64 2-stage 8-warp one (D 256: 52 us against 67 for 64x64); its other forms only
      // compile, and attention-config names them.
      bool checkedWide = config.blockKv == 64 && config.stages == 2 &&
                         ((config.blockQ == 64 && config.warps == 4) ||
                          (config.blockQ == 128 && config.warps == 8));
      if (config.wgmma && !config.tma && problem->headDim != 64 && !checkedWide)
        continue;
      configs.push_back(config.toAttr(function.getContext()));
    }
    return configs;
  }

  std::optional<std::string> whyNot(kernel::FuncOp function,
                                    const kiln::TemplateOptions &options) const override {
    auto module = function->getParentOfType<ModuleOp>();
    if (!module || !kiln::getTemplateOp<kernel::AttentionOp>(function))
      return std::nullopt;
    std::string why;
    std::optional<kiln::FlashAttentionProblem> problem =
        kiln::matchFlashAttention(function, module, &why);
    if (problem && kiln::flashAttentionConfigs(*problem, options.target).empty())
      why = "head dimension " + std::to_string(problem->headDim) + ": " + options.target +
            "'s template takes up to " +
            std::to_string(kiln::flashAttentionMaxHeadDim(options.target));
    return why;
  }

  /// A kernel developer forcing a configuration leaves attention untuned.
  bool isTuned(const kiln::TemplateOptions &options) const override {
    return options.attentionConfig.empty();
  }

  Attribute defaultConfig(kernel::FuncOp function,
                          const kiln::TemplateOptions &options) const override {
    std::optional<kiln::FlashAttentionProblem> problem = match(function);
    if (!problem)
      return {};
    SmallVector<kiln::FlashAttentionConfig> legal =
        kiln::flashAttentionConfigs(*problem, options.target);
    if (legal.empty())
      return {};
    std::optional<kiln::FlashAttentionConfig> forced =
        findForcedConfig(options.attentionConfig, legal);
    return (forced ? *forced : legal.front()).toAttr(function.getContext());
  }

  std::optional<std::string> describeProblem(kernel::FuncOp function) const override {
    std::optional<kiln::FlashAttentionProblem> problem = match(function);
    if (!problem)
      return std::nullopt;
    return kiln::describeFlashAttention(*problem);
  }

  std::string describe(kernel::FlashAttentionConfigAttr config) const override {
    return kiln::FlashAttentionConfig::fromAttr(config).describe();
  }

  double estimateMicros(kernel::FuncOp function, kernel::FlashAttentionConfigAttr config,
                        const kiln::DeviceModel &device) const override {
    std::optional<kiln::FlashAttentionProblem> problem = match(function);
    if (!problem)
      return kiln::estimateTemplateFallbackMicros(function, device);
    return kiln::estimateFlashAttentionMicros(
        *problem, kiln::FlashAttentionConfig::fromAttr(config), device.multiprocessors,
        device.tensorFlopsPerSecond, device.launchMicros);
  }

  LogicalResult instantiate(kernel::FuncOp function, kernel::FlashAttentionConfigAttr attr,
                            kiln::TemplateInstantiation &context) const override {
    std::optional<kiln::FlashAttentionProblem> problem =
        kiln::matchFlashAttention(function, context.module);
    if (!problem)
      return function.emitError(context.pass)
             << ": " << attr
             << " is for an attention of half-precision operands (D a multiple of 16 up "
                "to 256) with no mask, an additive mask or a causal one, which this kernel is "
                "not";
    kiln::FlashAttentionConfig config = kiln::FlashAttentionConfig::fromAttr(attr);
    if (!llvm::is_contained(kiln::flashAttentionConfigs(*problem, context.options.target), config))
      return function.emitError(context.pass)
             << ": " << attr << " is not a configuration of this attention (Sq " << problem->seqQ
             << ", Skv " << problem->seqKv << ", D " << problem->headDim << ") on "
             << context.options.target;
    FlashAttentionGenerator generator{context.module, context.symbols, context.options,
                                      context.pass};
    return generator.run(function, *problem, config);
  }
};

} // namespace

namespace kiln {
// Registered in KernelTemplate.cpp.
const KernelTemplate &flashAttentionTemplate() {
  static const FlashAttentionTemplate family;
  return family;
}
} // namespace kiln
