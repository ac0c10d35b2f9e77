//===- AttentionConfig.h - Configurations of the flash-attention template -*- C++ -*-===//
//
// The flash-attention family (#kernel.flash_attention: passes/kernel/FlashAttention.cpp,
// docs/codegen-attention.md): the problem an attention kernel poses, and the
// configurations that compute it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_ATTENTIONCONFIG_H
#define KILN_PASSES_KERNEL_ATTENTIONCONFIG_H

#include "dialects/kernel/KernelOps.h"
#include "passes/kernel/StridedView.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <optional>
#include <string>

namespace kiln {

/// How the kernel reads one of Q, K, V and O: as the view [B, H, S, D] of kernel argument
/// `argument` whose element (b, h, s, d) is at offset + b * batch stride + h * head
/// stride + s * row stride + d, offset and strides products of constants and run-time
/// extents (docs/codegen-attention.md, "Operands").
/// The head sizes the flash-attention templates take: multiples of 16 (the m16n8k16
/// products' k-steps over Q K^T, 8-column tiles of O) up to 128 for mma.sync (the output
/// accumulators in registers), 256 for sm_90a's wgmma variant (its 64-row warpgroup
/// tiles: D / 2 accumulator registers a thread). graph-decompose-attention turns the
/// others into two products.
constexpr int64_t kFlashAttentionHeadDimMultiple = 16;
constexpr int64_t kFlashAttentionMaxHeadDim = 128;
constexpr int64_t kFlashAttentionWgmmaMaxHeadDim = 256;

/// The largest head size `target`'s flash-attention templates take.
int64_t flashAttentionMaxHeadDim(llvm::StringRef target);

struct AttentionOperand {
  int argument = -1;
  /// A sum of terms.
  llvm::SmallVector<ExtentProduct, 1> offset;
  /// B, H and S of the view (H static), and their strides.
  std::array<ExtentProduct, 3> extents, strides;
};

/// softmax(Q K^T * scale + mask) V over [B, H, S, D] views (or [N, S, D], read as B = N,
/// H = 1), as the flash-attention template computes it. Extents known only at run time
/// (a dynamic engine) are the values at the profile's opt shape here, for choosing and
/// timing configurations; the launch reads them from the buffers.
struct FlashAttentionProblem {
  int64_t batch = 0, heads = 0, seqQ = 0, seqKv = 0, headDim = 0;
  /// Query heads a K/V head (grouped-query attention: K and V have heads / kvGroup heads,
  /// or 1 shared by all); 1 otherwise.
  int64_t kvGroup = 1;
  /// The rank of the attention's operands: 4 ([B, H, S, D]) or 3 ([N, S, D]).
  int64_t rank = 4;
  /// Some extent (B, Sq or Skv) is known only at run time.
  bool dynamic = false;
  mlir::Type operand; // f16 or bf16: Q, K, V and the result
  float scale = 1.0f;
  /// The additive mask buffer's element type (null: no mask buffer); it broadcasts to the
  /// scores [B, H, Sq, Skv] (right aligned), its strides are taken from its extents.
  mlir::Type maskType;
  /// The mask is the same for every query row (a padding mask [B, 1, 1, Skv]): the kernel
  /// takes its row stride as the constant 0, so that the rows of a thread share their loads.
  bool maskRowsBroadcast = false;
  /// The mask was a compile-time constant that is exactly causal (0 where column <= row,
  /// -inf or <= -1e30 above): the kernel masks by index and skips the tiles above.
  bool causal = false;
  /// Rows masked out entirely give 0 (graph.attention's nan_to_zero).
  bool nanToZero = false;
  /// Q, K, V and O, and the kernel argument that is the mask buffer (-1: none).
  AttentionOperand query, key, value, output;
  int mask = -1;
};

/// One way the template computes attention: the parameters of #kernel.flash_attention as
/// values to compute with (mma.sync on sm_80 and later; with `wgmma`, sm_90a only, both
/// products on wgmma, 64 query rows a warpgroup).
struct FlashAttentionConfig {
  /// Query rows per CTA: 16 or 32 a warp (two row tiles that share each K/V fragment).
  int64_t blockQ = 64;
  /// Key/value rows per step of the online softmax.
  int64_t blockKv = 64;
  /// Depth of the cp.async ring of K and V tiles.
  int64_t stages = 2;
  int64_t warps = 4;
  /// The Hopper variant (templates/FlashAttentionSm90.mlir): wgmma instead of mma.sync.
  bool wgmma = false;
  /// Its warp-specialised form (templates/FlashAttentionSm90Tma.mlir): 12 warps, two
  /// consumer warpgroups of 64 rows and a producer warpgroup loading by TMA.
  bool tma = false;

  kernel::FlashAttentionConfigAttr toAttr(mlir::MLIRContext *context) const {
    return kernel::FlashAttentionConfigAttr::get(context, blockQ, blockKv, stages, warps, wgmma,
                                                 tma);
  }
  static FlashAttentionConfig fromAttr(kernel::FlashAttentionConfigAttr attr) {
    return {attr.getBlockQ(), attr.getBlockKv(), attr.getStages(),
            attr.getWarps(),  attr.getWgmma(),   attr.getTma()};
  }
  /// "flash attention mma.sync 64x64, 2 stages, 4 warps" (or "... wgmma ...", "... wgmma
  /// tma ..."): for reports and engines.
  std::string describe() const;
  /// Threads per block and dynamic shared memory bytes of a launch for head dim `headDim`.
  int64_t threads() const { return 32 * warps; }
  int64_t sharedBytes(int64_t headDim) const;
  /// The TMA form's Q buffers: 2 where shared memory holds them (the next work item's Q
  /// loads during this one), else 1; 1 for the other forms.
  int64_t qBuffers(int64_t headDim) const;
  /// The TMA form's staging buffer of O: how many of a row's 64-column atoms it holds for
  /// the blockQ rows (as many as fit beside the Q buffers and the rings, at least 1; the
  /// epilogue takes rounds where it holds fewer than the row's); 0 for the other forms.
  int64_t stageAtoms(int64_t headDim) const;
  bool operator==(const FlashAttentionConfig &other) const {
    return blockQ == other.blockQ && blockKv == other.blockKv && stages == other.stages &&
           warps == other.warps && wgmma == other.wgmma && tma == other.tma;
  }
};

/// The configuration "BQxBKVxSTAGESxWARPS" names, with "xwgmma" appended for the sm_90a
/// variant and "xwgmmaxtma" for its TMA form (TemplateOptions::attentionConfig); nullopt
/// for another text.
std::optional<FlashAttentionConfig> parseFlashAttentionConfig(llvm::StringRef text);

/// The attention `function` computes, when it is a kernel.attention holding one
/// graph.attention of f16/bf16 operands (D a multiple of 16 up to 128) that are [B, H, S, D]
/// buffers or strided views of buffers with D contiguous (reshapes, transposes, slices and gathers
/// in the body: the heads of a fused QKV projection in any axis order), with no mask, an additive
/// mask buffer that broadcasts to the scores, or a constant mask that is exactly causal (looked up
/// through every kernel.launch of `function` in `module`). Extents may be dynamic where the
/// launches' host values and the profile's opt shape give them.
/// Why it is none, in `why` when given.
std::optional<FlashAttentionProblem>
matchFlashAttention(kernel::FuncOp function, mlir::ModuleOp module, std::string *why = nullptr);

/// How the TMA form of the Hopper kernel reads an operand: a tensor map over the [B, H, S,
/// D] view, its extents innermost first (D, S, H, B), the element strides of S, H and B,
/// and the view's offset in elements.
struct FlashAttentionTmaView {
  std::array<int64_t, 4> dims;
  std::array<int64_t, 3> strides;
  int64_t offset;
};

/// The tensor map of `operand` (one of `problem`'s Q, K and V), where a tensor map can
/// describe it: static extents, offset and strides, 16-byte aligned, and the batches and
/// heads the kernel indexes (no operand broadcast along either).
std::optional<FlashAttentionTmaView> flashAttentionTmaView(const FlashAttentionProblem &problem,
                                                           const AttentionOperand &operand);

/// The legal configurations for `problem` on `target` (the wgmma ones only on sm_90a), the
/// default (what runs untuned) first.
llvm::SmallVector<FlashAttentionConfig> flashAttentionConfigs(const FlashAttentionProblem &problem,
                                                              llvm::StringRef target = "sm_80");

/// What kernel-autotune's cost model says `config` takes for `problem` (microseconds) on
/// a GPU of `multiprocessors` SMs and `tensorFlopsPerSecond`: the CTAs in waves of the
/// CTAs an SM holds, each at a share of the SM's tensor rate (mma.sync lower than wgmma).
/// Only for ranking when nothing was measured.
double estimateFlashAttentionMicros(const FlashAttentionProblem &problem,
                                    const FlashAttentionConfig &config, int64_t multiprocessors,
                                    double tensorFlopsPerSecond, double launchMicros);

/// "b8 h12 s512x512 d64 f16 causal": the problem, for progress lines and reports.
std::string describeFlashAttention(const FlashAttentionProblem &problem);

} // namespace kiln

#endif // KILN_PASSES_KERNEL_ATTENTIONCONFIG_H
