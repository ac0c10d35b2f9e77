//===- Sm90Template.h - Instantiating the Hopper kernel templates -*- C++ -*-===//
//
// The sm_90a templates are MLIR text with `{KEY}` placeholders
// (passes/kernel/templates/*.mlir). sm90_gemm and sm90_conv instantiate
// them into gpu.modules of the module they rewrite; both share the warp-specialised GEMM
// template, which they feed different A operands (docs/codegen-sm90.md). The placeholder
// substitution and the launch replacement serve every template pass (flash attention too).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_SM90TEMPLATE_H
#define KILN_PASSES_KERNEL_SM90TEMPLATE_H

#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/Sm90Epilogue.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln {

/// Calls `replace` on every kernel.launch of `function` in `module`, and erases `function`
/// when every use of it was a launch that `replace` rewrote (and erased).
void replaceLaunches(kernel::FuncOp function, mlir::ModuleOp module, mlir::SymbolTable &symbols,
                     llvm::function_ref<mlir::LogicalResult(kernel::LaunchOp)> replace);

/// Whether `config` is one of `legal` (the name spells every field of a configuration).
template <typename Config> bool isListedConfig(llvm::ArrayRef<Config> legal, const Config &config) {
  return llvm::any_of(legal, [&](const Config &each) { return each.name() == config.name(); });
}

/// "a, b, c": the names of `legal`, for the diagnostics that list a kernel's candidates.
template <typename Config> std::string configNames(llvm::ArrayRef<Config> legal) {
  std::string names;
  for (const Config &each : legal)
    names += (names.empty() ? "" : ", ") + each.name();
  return names;
}

/// A GEMM family's candidates for a kernel: its legal configurations `legal` (Sm90GemmConfig
/// or Sm80GemmConfig values, the default first) as `ConfigAttr`s.
template <typename ConfigAttr, typename Config>
llvm::SmallVector<mlir::Attribute> configAttrs(mlir::MLIRContext *context,
                                               llvm::ArrayRef<Config> legal) {
  llvm::SmallVector<mlir::Attribute> attrs;
  for (const Config &config : legal)
    attrs.push_back(config.template toAttr<ConfigAttr>(context));
  return attrs;
}

/// A GEMM family's default for an untuned kernel: among `legal`, the configuration named
/// `name` ("128x256x64_s4_ws2", TemplateOptions::gemmConfig), else the first; null when
/// `legal` is empty. A named configuration that is not one of `legal` is warned about on
/// `function` (naming it), so that whoever asked for it (kiln compile --sm90-gemm-config,
/// a kernel benchmark) knows the kernel runs another.
template <typename ConfigAttr, typename Config>
mlir::Attribute defaultConfigAttr(kernel::FuncOp function, llvm::ArrayRef<Config> legal,
                                  llvm::StringRef name) {
  if (legal.empty())
    return {};
  const Config *chosen = llvm::find_if(legal, [&](const Config &c) { return c.name() == name; });
  if (chosen == legal.end() && !name.empty())
    function.emitWarning("gemm-config ")
        << name << " is not a configuration of kernel @" << function.getSymName() << "; it takes "
        << legal.front().name() << " (its configurations: " << configNames(legal) << ")";
  return (chosen != legal.end() ? *chosen : legal.front())
      .template toAttr<ConfigAttr>(function.getContext());
}

/// Success when `config` (the kernel's `kernel.config`, `attr`) is one of `legal`; else an
/// error on `function`: "<pass>: <attr> is not a configuration of this <what> (its
/// configurations: <names>)", which lets whoever wrote it pick one.
template <typename Config>
mlir::LogicalResult checkListedConfig(kernel::FuncOp function, llvm::ArrayRef<Config> legal,
                                      const Config &config, mlir::Attribute attr,
                                      llvm::StringRef pass, llvm::StringRef what) {
  if (isListedConfig(legal, config))
    return mlir::success();
  return function.emitError(pass) << ": " << attr << " is not a configuration of this " << what
                                  << " (its configurations: " << configNames(legal) << ")";
}

/// `text` with every `from` replaced by `to`.
std::string replaceAll(std::string text, llvm::StringRef from, llvm::StringRef to);

/// `text` with every `{KEY}` replaced by its value.
std::string substitutePlaceholders(std::string text,
                                   llvm::ArrayRef<std::pair<llvm::StringRef, std::string>> values);

/// "f16", "bf16" or "f32".
std::string elementTypeName(mlir::Type type);

/// How the warp-specialised template gets its A operand (see the template's header).
struct Sm90AOperand {
  std::string box;       // {A_BOX} (may use {TILE_K}, the k-tile's elements)
  int64_t boxBytes;      // bytes one A load brings (<= 16384)
  std::string tilesM;    // {TILES_M}
  std::string tileSetup; // {TILE_SETUP}
  std::string loadA;     // {LOAD_A}
  std::string descMap;   // {A_DESC_MAP}
  std::string rowEnd;    // {ROW_END}
  std::string rowMap;    // {ROW_MAP}
  /// A batched product's: the value (defined by tileSetup) of the tile's matrix of B, read
  /// through a 3-D tensor map; empty for one B matrix.
  std::string bMatrix = {};
  /// For the producer threads' loads of A (Sm90ThreadLoads): the values bounding the
  /// tile's rows %m0 + r (M, or a batched product's rows a matrix) and of the tile's
  /// matrix of A (empty for one matrix), and a snippet defining %aElements, A's elements.
  std::string rowsBound = "%m";
  std::string aMatrix = {};
  std::string elements = "    %aElements = arith.muli %m, %k : index";
};

/// The operands of the warp-specialised template that the producer warpgroup's threads
/// load instead of TMA: those whose rows are no multiple of 16 bytes, which a tensor map
/// cannot stride (ViT's 197 tokens; docs/codegen-sm90.md, "Unaligned operands"). f16 and
/// bf16, a row-major A and a row-major B.
struct Sm90ThreadLoads {
  bool a = false;        // A, rows of K elements
  bool b = false;        // B, K x N, rows of N elements
  int64_t bElements = 0; // B's elements (all of its matrices)
  bool any() const { return a || b; }
};

/// The A operand of a row-major M x K matrix (a tensor map of `tileM` x k-tile boxes of
/// `kTileBytes` bytes a row): products, and convolutions of a row-major A (1x1 ones, or
/// through an explicit im2col).
Sm90AOperand rowMajorMatrixA(int64_t kTileBytes = 128, int64_t tileM = 128);

/// The bytes of the residual tile the warp-specialised template under `config` would
/// bring into shared memory by TMA for `epilogue` of kernel `function`, or 0 when it
/// reads the residual from global memory: a residual tile is `epilogue`'s one input of
/// C's shape (a skip connection), whose 128 x TILE_N box the producer loads while the
/// consumers compute, so the epilogue reads it from shared memory instead of waiting out
/// global loads. It needs C's tiles to be runs of rows (A a row-major matrix:
/// `rowMajorRows`), no split-K, and room in shared memory beside the ring and staging for
/// the configuration's residualSlots() of them (and the staging of `result`s).
int64_t sm90ResidualTileBytes(kernel::FuncOp function, const Sm90Epilogue *epilogue,
                              const Sm90GemmConfig &config, bool rowMajorRows, mlir::Type result);

/// The warp-specialised template for `config` (consumers > 0), operand type `operand`
/// (f16, bf16; f32 under a tf32 configuration, read as tf32), result type `result` and A
/// operand `a`, as kernel `entry` of a new gpu.module `kiln_sm90_<entry>` of `module`
/// (reused when it exists); `columns` is C's N. B's tensor map is of the row-major K x N
/// matrix, or with
/// `kMajorB` of B stored N x K (which tf32 needs). With a non-empty `epilogue` (and no
/// split-K, whose reduction kernel applies it instead) the kernel applies it before its
/// stores, its inputs being parameters after %K, and its key is appended to `entry`.
/// With `residualTileBytes` (sm90ResidualTileBytes), the epilogue's residual comes
/// through shared memory, its tensor map the last parameter (`_r` ends the name). `depth`
/// is the GEMM's K when known (0: not): i8 products of at most 256 terms have sums within
/// +-2^22, which reach f32 without conversion instructions (`_sb` in the name). `threads`:
/// the operands the producer's threads load (their parameters are bare pointers; `_ta`,
/// `_tb` in the name), which need cooperative consumers, one CTA an SM, no split-K, no
/// residual tile and no resident B. `pass` names the caller in errors.
/// The shared memory the producer threads' raw buffers of `threads` take under `config`
/// for a GEMM of K = `depth` (past the ring and the staging; the launch adds it).
int64_t sm90ThreadLoadRawBytes(const Sm90GemmConfig &config, const Sm90ThreadLoads &threads,
                               int64_t depth);

mlir::FailureOr<mlir::gpu::GPUFuncOp> instantiateWarpSpecialisedGemm(
    mlir::ModuleOp module, mlir::SymbolTable &symbols, llvm::StringRef pass, llvm::StringRef entry,
    mlir::Type operand, mlir::Type result, int64_t columns, const Sm90GemmConfig &config,
    const Sm90AOperand &a, const Sm90Epilogue *epilogue = nullptr, bool kMajorB = false,
    int64_t residualTileBytes = 0, int64_t depth = 0, const Sm90ThreadLoads &threads = {});

/// A bare pointer to `buffer` for a kernel parameter: a 0-d view of it (the engine passes
/// the buffer's address).
mlir::Value barePointer(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer);

/// On the host, the product of extents [`begin`, `end`) of `buffer` (`memref.dim` for the
/// dynamic ones): a run-time row count, which the engine's shape program evaluates.
mlir::Value hostExtentProduct(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer,
                              int64_t begin, int64_t end);

/// At `b`: launches `gemm` (the warp-specialised template under `config`) over `tiles`
/// tiles of the M x N result `output` (M = `rows`), with the tensor maps `mapA` and `mapB`;
/// `rows` and `tiles` are constants, or host index values of a run-time M of at most
/// `maxRows` (0: unknown, no split-K then); with split-K,
/// into an f32 workspace (a memref.alloc of `maxRows` rows for a run-time M) and then the
/// reduction kernel (templates/SplitKReduce.mlir, instantiated into `module` once per N and
/// epilogue) into `output`. `epilogueBuffers` are the buffers of `epilogue`'s inputs,
/// passed to whichever kernel applies it; a kernel with a residual tile also gets its
/// tensor map. With `enabled` (an i1 on the host), the launches' grids are empty where it
/// is false (a row bucket's variant: passes/kernel/KernelConfig.h).
/// Fails, building nothing, when the reduction kernel's epilogue cannot be emitted.
mlir::LogicalResult launchWarpSpecialisedGemm(
    mlir::OpBuilder &b, mlir::Location loc, mlir::ModuleOp module, mlir::SymbolTable &symbols,
    llvm::StringRef pass, mlir::gpu::GPUFuncOp gemm, const Sm90GemmConfig &config,
    mlir::OpFoldResult tiles, mlir::Value mapA, mlir::Value mapB, mlir::Value output,
    mlir::OpFoldResult rows, int64_t n, int64_t k, const Sm90Epilogue *epilogue = nullptr,
    mlir::ValueRange epilogueBuffers = {}, int64_t maxRows = 0, mlir::Value enabled = {});

/// On the host, whether the run-time row count `rows` lies in a row variant's range
/// (kernel.row_variants): above `above` rows (0: no lower bound) and at most `atMost` (0:
/// no upper bound). The launch's grid is selected to 0 outside it.
mlir::Value rowsInVariant(mlir::OpBuilder &b, mlir::Location loc, mlir::OpFoldResult rows,
                          int64_t above, int64_t atMost);

/// The kernel table's words for rowsInVariant's range: ", for M <= 128", ", for 128 < M
/// <= 5792", ", for M > 5792", or nothing without bounds.
std::string describeRowsInVariant(int64_t above, int64_t atMost);

/// The buffers `launch` passes for `epilogue`'s inputs, in parameter order.
llvm::SmallVector<mlir::Value> epilogueBuffers(kernel::LaunchOp launch,
                                               const Sm90Epilogue &epilogue);

/// The name of the warp-specialised GEMM kernel of operands `operand`, result `result`,
/// B K-major (`kMajorB`, "_bt") or not, under `config`:
/// "gemm_<in>_<out>[_bt]_<config name>" (before its epilogue's key).
std::string sm90GemmEntryName(mlir::Type operand, mlir::Type result, bool kMajorB,
                              const Sm90GemmConfig &config);

/// The constant global `value` reads (`memref.get_global` of a constant with an initial
/// value), if it does.
mlir::memref::GlobalOp constantGlobal(mlir::Value value);

/// The initial bytes of the constant global `value` reads, if it does (`storage` holds
/// them for a splat).
std::optional<std::pair<mlir::memref::GlobalOp, llvm::ArrayRef<char>>>
constantGlobalBytes(mlir::Value value, std::vector<char> &storage);

/// Whether every launch of `function` in its module passes a constant global as operand
/// `operand` (and there is at least one launch).
bool launchesPassConstant(kernel::FuncOp function, unsigned operand);

/// The constant global `name` of `type` holding `bytes`, created next to `near` unless it
/// exists (a weight rearranged at compile time).
mlir::memref::GlobalOp getOrCreateConstantGlobal(mlir::SymbolTable &symbols,
                                                 mlir::memref::GlobalOp near, llvm::StringRef name,
                                                 mlir::MemRefType type, llvm::ArrayRef<char> bytes);

/// The 2-D constant global matrix `matrix` reads ([R, C]), transposed into a new constant
/// global `<name><suffix>` ([C, R]; made once), read through a memref.get_global at
/// `builder`; failure when `matrix` is no constant global's read.
mlir::FailureOr<mlir::Value> transposedConstantMatrix(mlir::OpBuilder &builder, mlir::Location loc,
                                                      mlir::SymbolTable &symbols,
                                                      mlir::Value matrix, llvm::StringRef suffix);

/// Parses `text` (one gpu.module) and moves its module into `module`; returns its `entry`.
mlir::FailureOr<mlir::gpu::GPUFuncOp>
insertTemplateModule(mlir::ModuleOp module, mlir::SymbolTable &symbols, llvm::StringRef pass,
                     llvm::StringRef entry, const std::string &text);

/// insertTemplateModule, then, with an `epilogue`, its code at the template's marker
/// (emitSm90Epilogue; its inputs are the kernel's parameters from `firstParameter`, and
/// `trailingParameters` others follow them). When that fails, the module is erased again.
mlir::FailureOr<mlir::gpu::GPUFuncOp>
insertTemplateWithEpilogue(mlir::ModuleOp module, mlir::SymbolTable &symbols, llvm::StringRef pass,
                           llvm::StringRef entry, const std::string &text,
                           const Sm90Epilogue *epilogue, unsigned firstParameter,
                           unsigned trailingParameters = 0);

/// Fully unrolls the scf.for loops under `root` marked with an `unroll` attribute (inner
/// ones first), canonicalising before (which makes the bounds constants) and after (which
/// makes the register arrays' indices constants and folds the branches the unrolled
/// indices decide). Fails when a marked loop cannot be unrolled.
mlir::LogicalResult unrollMarkedLoops(mlir::Operation *root);

} // namespace kiln

#endif // KILN_PASSES_KERNEL_SM90TEMPLATE_H
