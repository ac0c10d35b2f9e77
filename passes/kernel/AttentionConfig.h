//===- AttentionConfig.h - Configurations of the flash-attention template -*- C++ -*-===//
//
// The flash-attention template of kernel-attention-sm80 (passes/kernel/AttentionSm80.cpp,
// docs/codegen-attention.md), as kernel-autotune sees it: the problem an attention kernel
// computes, and the configurations that compute it. A configuration is recorded on the
// kernel.func as the `kernel.config` dictionary (passes/kernel/KernelConfig.h:
// `{template = "generic"}` keeps the generic lowering).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_ATTENTIONCONFIG_H
#define KILN_PASSES_KERNEL_ATTENTIONCONFIG_H

#include "dialects/kernel/KernelOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <optional>
#include <string>

namespace kiln {

/// softmax(Q K^T * scale + mask) V over row-major [B, H, S, D] buffers (or [N, S, D],
/// read as B = N, H = 1), as the flash-attention template computes it.
struct FlashAttentionProblem {
  int64_t batch = 0, heads = 0, seqQ = 0, seqKv = 0, headDim = 0;
  mlir::Type operand; // f16 or bf16: Q, K, V and the result
  float scale = 1.0f;
  /// The additive mask buffer's element type (null: no mask buffer), and its element
  /// strides along (batch, head, query row, key column); 0 along broadcast dimensions.
  mlir::Type maskType;
  std::array<int64_t, 4> maskStrides = {0, 0, 0, 0};
  /// The mask was a compile-time constant that is exactly causal (0 where column <= row,
  /// -inf or <= -1e30 above): the kernel masks by index and skips the tiles above.
  bool causal = false;
  /// Rows masked out entirely give 0 (graph.attention's nan_to_zero).
  bool nanToZero = false;
  /// Which arguments of the kernel.func are Q, K, V, the mask buffer (-1: none) and O.
  int query = 0, key = 1, value = 2, mask = -1, output = 3;
};

/// One way the template computes attention. As a dictionary:
/// {template = "flash_attention", block_q, block_kv, stages, warps} (mma.sync, sm_80 and
/// later), or the same keys under template = "flash_attention_wgmma" (sm_90a only: both
/// products on wgmma, 64 query rows a warpgroup).
struct FlashAttentionConfig {
  static constexpr llvm::StringLiteral kTemplate = "flash_attention";
  static constexpr llvm::StringLiteral kWgmmaTemplate = "flash_attention_wgmma";
  /// Query rows per CTA: 16 or 32 a warp (two row tiles that share each K/V fragment).
  int64_t blockQ = 64;
  /// Key/value rows per step of the online softmax.
  int64_t blockKv = 64;
  /// Depth of the cp.async ring of K and V tiles.
  int64_t stages = 2;
  int64_t warps = 4;
  /// The Hopper variant (templates/FlashAttentionSm90.mlir): wgmma instead of mma.sync.
  bool wgmma = false;

  mlir::DictionaryAttr toAttr(mlir::MLIRContext *context) const;
  static std::optional<FlashAttentionConfig> fromAttr(mlir::DictionaryAttr attr);
  /// "flash attention mma.sync 64x64, 2 stages, 4 warps" (or "... wgmma ..."): for
  /// reports and engines.
  std::string describe() const;
  /// Threads per block and dynamic shared memory bytes of a launch for head dim `headDim`.
  int64_t threads() const { return 32 * warps; }
  int64_t sharedBytes(int64_t headDim) const;
  bool operator==(const FlashAttentionConfig &other) const {
    return blockQ == other.blockQ && blockKv == other.blockKv && stages == other.stages &&
           warps == other.warps && wgmma == other.wgmma;
  }
};

/// The attention `function` computes, when it is a kernel.attention holding one
/// graph.attention of f16/bf16 [B, H, S, D] buffers (D 64 or 128) read as they are (no
/// transposes or reshapes folded into the body), with no mask, an additive mask buffer
/// that broadcasts to the scores, or a constant mask that is exactly causal (looked up
/// through every kernel.launch of `function` in `module`).
std::optional<FlashAttentionProblem> matchFlashAttention(kernel::FuncOp function,
                                                         mlir::ModuleOp module);

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
