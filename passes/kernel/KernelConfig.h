//===- KernelConfig.h - The GEMM templates' problems and configurations -*- C++ -*-===//
//
// What the tensor-core GEMM families (sm90_gemm, sm90_conv, sm80_gemm, sm80_conv:
// passes/kernel/MatmulSm90.cpp, ConvSm90.cpp, MatmulSm80.cpp, ConvSm80.cpp) share: the
// GEMM a kernel poses, each template's configuration as plain values (converted to and
// from its typed attribute, dialects/kernel/KernelAttrs.td), the legal configurations,
// the buckets of rows of dynamic GEMMs and their row variants, and the buffers' shapes at
// a profile's shapes, which every family that takes run-time extents reads.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_KERNELCONFIG_H
#define KILN_PASSES_KERNEL_KERNELCONFIG_H

#include "dialects/kernel/KernelOps.h"
#include "passes/kernel/KernelTemplate.h"
#include "passes/kernel/Sm90Epilogue.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <optional>
#include <string>

namespace kiln {

/// The GEMM of a matmul or convolution kernel (passes/kernel/GemmMatch.h), as the
/// tensor-core templates of every target see it: C[M, N] = A[M, K] x B[K, N], f16/bf16
/// operands, or f32 ones computed as tf32 (allow-tf32, sm_90a).
struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  /// M is known at run time only (a dynamic engine's rows): `m` is then its value at the
  /// profile's shape the configuration is chosen at (GemmRows), the launch computes the
  /// real one.
  bool dynamicM = false;
  /// The most rows the configuration runs on: M, or for a run-time M the bound of its row
  /// bucket (GemmRows; 0: none known). Split-K's workspace is this many rows.
  int64_t maxM = 0;
  mlir::Type operand; // f16, bf16, or f32 (read as tf32)
  mlir::Type result;  // the operands' type, or any float type after an epilogue
  /// B reaches the template stored N x K (K-major in shared memory, which tf32 needs): a
  /// graph.gemm's transposed B as it is, or a constant B transposed at compile time.
  bool kMajorB = false;
  /// B is a constant K x N matrix (every launch passes a constant memref.global) that the
  /// pass stores transposed, N x K, in a new constant global.
  bool transposeConstantB = false;
  /// The elementwise ops fused after the product (passes/kernel/Sm90Epilogue.h).
  Sm90Epilogue epilogue;
  /// A batched product (a matmul of [.., M, K] by [.., K, N], B an activation with batch
  /// dimensions): C is `batchExtents`' product of matrices of `matrixRows` rows each (`m`
  /// is all of C's rows). C's matrix i reads A's matrix sum_d i_d aBatchStrides[d] and B's
  /// sum_d i_d bBatchStrides[d] (i_d its index along batch dimension d, outermost first;
  /// a stride of 0 where the operand broadcasts); A and B hold aMatrices and bMatrices.
  bool batched = false;
  int64_t matrixRows = 0, aMatrices = 1, bMatrices = 1;
  llvm::SmallVector<int64_t, 4> batchExtents, aBatchStrides, bBatchStrides;
  int64_t batch() const {
    int64_t product = 1;
    for (int64_t extent : batchExtents)
      product *= extent;
    return product;
  }
};
/// The name it had when only the sm_90a templates took it.
using Sm90GemmProblem = GemmProblem;

/// The streaming multiprocessors of the sm_90 GPUs Kiln tunes for (H100 SXM, H200): a
/// persistent grid has one CTA on each. (On a GPU with fewer, the grid is still correct;
/// the tuner measures what is fastest there.)
constexpr int64_t kSm90Multiprocessors = 132;

/// One way the sm_90a GEMM template computes a product: the parameters of
/// #kernel.sm90_gemm (and #kernel.sm90_conv) as values to compute with.
struct Sm90GemmConfig {
  int64_t tileM = 128, tileN = 128, tileK = 64;
  /// Depth of the TMA/mbarrier ring.
  int64_t stages = 3;
  /// Consumer warpgroups (wgmma); 0 is the template without warp specialisation (one
  /// warpgroup both loads and computes), else a producer warpgroup feeds this many, each
  /// computing 64 rows of a tile (tileM = 128 for one or two, 192 for three).
  int64_t consumers = 0;
  /// A grid of one CTA per SM that walks the tiles (warp-specialised template only): the
  /// next tile's loads overlap the last one's epilogue, which stages C past the ring.
  bool persistent = false;
  /// Split-K: each tile's k-tiles in this many parts, one CTA each, whose f32 partial sums
  /// a second kernel adds up (1: none). For products of fewer tiles than SMs.
  int64_t splitK = 1;
  /// The CTAs an SM holds at once (warp-specialised template only): 1, with 232 registers
  /// for each consumer thread; or 2, of 288 threads (a producer warp) with 96 registers
  /// each (tiles at most 128 wide) and at most half of the SM's shared memory, so that one
  /// CTA's epilogue runs under the other's loads and MMAs.
  int64_t ctasPerSm = 1;
  /// f32 operands read as tf32 (10-bit mantissa) by wgmma m64nNk8, k-tiles of 32
  /// elements (tileK = 32: still 128 bytes a row); only for f32 kernels, under allow-tf32.
  bool tf32 = false;
  /// i8 operands multiplied by wgmma m64nNk32 into i32 accumulators, k-tiles of 128
  /// elements (tileK = 128); only for the i8 convolutions of quantized models.
  bool int8 = false;
  /// B resident in shared memory (persistent grids of one column of tiles: N <= TILE_N):
  /// all of B's k-tiles, this many, loaded once a CTA, so that the ring's stages carry A
  /// alone (0: B comes with every stage). Every tile multiplies the same B, which would
  /// otherwise be loaded again for each of them.
  int64_t residentKTiles = 0;
  /// Ping-pong consumers (persistent grids of two consumers): each consumer warpgroup
  /// computes whole 128 x tileN tiles (tileN <= 128: 128 x tileN accumulators), the two
  /// taking the CTA's tiles in turns, so that one's epilogue runs under the other's
  /// wgmma; else both compute 64 rows of each tile together. Their epilogue runs on the
  /// accumulator fragments (Sm90StoreFragments.mlir), each in a staging of its own.
  bool pingpong = false;
  /// Stream-K (persistent grids of two consumers, one CTA an SM, f16/bf16 operands): the
  /// grid's last, partial wave of tiles split along K into at most this many parts (1:
  /// none), so that every CTA ends at about the same time. Each consumer of a part stores
  /// its f32 partial sums to a workspace of the launch and counts itself in its ticket;
  /// the last to count adds the others' sums and runs the epilogue
  /// (templates/Sm90StreamKFixup.mlir).
  int64_t streamK = 1;
  /// Whether the epilogue runs on the accumulator fragments and stages only its results
  /// (Sm90StoreFragments.mlir): i8 products, ping-pong consumers, stream-K and three
  /// consumers (whose f32 staging would not fit beside the ring), without split-K.
  bool fragmentEpilogue() const {
    return (int8 || pingpong || streamK > 1 || consumers == 3) && splitK == 1;
  }
  /// The columns of C the fragment epilogue stages at a time: 64 for three consumers, so
  /// that the staging of their 192 rows (rows of 64 results) leaves a persistent grid's
  /// ring room for a fourth stage; the whole tile's otherwise (in passes, a 128 x 256
  /// stream-K tile's fix-up and epilogue spill 24 bytes in 232 registers).
  int64_t fragmentPassColumns() const { return consumers == 3 ? 64 : tileN; }
  /// The bytes of one operand element (a k-tile row is 128 of them).
  int64_t elementBytes() const { return tf32 ? 4 : int8 ? 1 : 2; }
  /// A's and B's bytes of one k-tile.
  int64_t aStageBytes() const { return tileM * tileK * elementBytes(); }
  int64_t bStageBytes() const { return tileN * tileK * elementBytes(); }
  /// The bytes of the ring, and of the resident B past it when there is one.
  int64_t ringBytes() const {
    return stages * (aStageBytes() + (residentKTiles ? 0 : bStageBytes())) +
           residentKTiles * bStageBytes();
  }

  /// As `ConfigAttr`: kernel::Sm90GemmConfigAttr or kernel::Sm90ConvConfigAttr.
  template <typename ConfigAttr> ConfigAttr toAttr(mlir::MLIRContext *context) const {
    return ConfigAttr::get(context, tileM, tileN, tileK, stages, consumers, persistent, splitK,
                           ctasPerSm, tf32, int8, residentKTiles, pingpong, streamK);
  }
  template <typename ConfigAttr> static Sm90GemmConfig fromAttr(ConfigAttr attr) {
    Sm90GemmConfig config;
    config.tileM = attr.getTileM(), config.tileN = attr.getTileN(), config.tileK = attr.getTileK();
    config.stages = attr.getStages(), config.consumers = attr.getConsumers();
    config.persistent = attr.getPersistent(), config.splitK = attr.getSplitK();
    config.ctasPerSm = attr.getCtasPerSm(), config.tf32 = attr.getTf32();
    config.int8 = attr.getInt8(), config.residentKTiles = attr.getResidentBKTiles();
    config.pingpong = attr.getPingpong(), config.streamK = attr.getStreamK();
    return config;
  }
  /// The configuration of a GEMM family's attribute (sm90_gemm or sm90_conv); nullopt for
  /// any other.
  static std::optional<Sm90GemmConfig> fromAnyAttr(mlir::Attribute attr);
  /// "sm90 wgmma+TMA 128x256x64, 4 stages, 2 consumer warpgroups": for reports and engines.
  std::string describe() const;
  /// "128x256x64_s4_ws2": the kernel's name suffix and the `gemm-config` option's value.
  std::string name() const;
  /// Threads per block and dynamic shared memory bytes of a launch, for results of
  /// `resultBytes` bytes (4: enough for any).
  int64_t threads() const;
  int64_t sharedBytes(int64_t resultBytes = 4) const;
  /// The bytes the ring and the staging of C span (where a residual tile starts).
  int64_t ringAndStagingBytes(int64_t resultBytes = 4) const;
  /// The staging of C's tile after the main loop: f32 rows of stagedColumns(); or, under
  /// the fragment epilogue (fragmentEpilogue(): it stages only its results), rows of
  /// fragmentPassColumns() results of `resultBytes` and 16 bytes of padding (64 for each
  /// ping-pong consumer, which stages its tile a 64-row slice at a time).
  int64_t stagingBytes(int64_t resultBytes = 4) const;
  /// The f32 row stride of C's staging: TILE_N + 4 floats. Rows 4 banks apart make both
  /// sides conflict-free: the accumulator fragments' 8-byte stores (8 rows x 4 column
  /// pairs a warp), and the epilogue's 16-byte reads, whose lanes run over rows and
  /// chunks of 8 or 16 floats (8 banks apart, 16-byte reads of the same 4 banks by 8
  /// lanes: twice the wavefronts).
  int64_t stagedColumns() const { return tileN + 4; }
  /// The residual tiles a CTA keeps in shared memory (sm90ResidualTileBytes): two on a
  /// persistent grid, so that the producer loads the next tile's residual while the
  /// consumers' epilogue reads this one's; one where a CTA has one tile.
  int64_t residualSlots() const { return persistent ? 2 : 1; }
  /// The CTAs of a launch over `tiles` tiles of C.
  int64_t gridSize(int64_t tiles) const {
    return persistent ? std::min(tiles * splitK * streamK, kSm90Multiprocessors * ctasPerSm)
                      : tiles * splitK;
  }
};

/// Whether an SM can hold `config` with `extraSharedBytes` more shared memory a CTA (a
/// residual tile): its shared memory (and, for two CTAs an SM, that both fit and that a
/// consumer's accumulators fit 96 registers).
bool sm90ConfigFitsSm(const Sm90GemmConfig &config, int64_t extraSharedBytes = 0,
                      int64_t resultBytes = 4);

/// The configurations with two CTAs an SM for a product whose 128 x tileN tiles number
/// `tiles(tileN)`.
llvm::SmallVector<Sm90GemmConfig> sm90TwoCtaConfigs(llvm::function_ref<int64_t(int64_t)> tiles);

/// The most parts a stream-K configuration splits a tile of the last wave into (the kernel
/// takes fewer where the wave's tiles are more than a quarter of the SMs, or K is short).
constexpr int64_t kStreamKParts = 4;

/// Whether stream-K can pay for a grid of `tiles` tiles: more than one wave, whose last
/// leaves more than a tenth of the SMs' time idle, and at most 8 waves (past a few the
/// idle tail is a small part of the time). ViT-B/16's N = 768 products at batch 32: 300
/// tiles of 128 x 128 (2.27 waves), 150 of 128 x 256 (1.14).
inline bool streamKPays(int64_t tiles) {
  int64_t waves = (tiles + kSm90Multiprocessors - 1) / kSm90Multiprocessors;
  return tiles > kSm90Multiprocessors && 10 * tiles < 9 * waves * kSm90Multiprocessors &&
         waves <= 8;
}

/// The ping-pong configurations (128x128 tiles, f16/bf16 operands and a row-major B) for a
/// product or convolution of `tiles128` 128 x 128 tiles, where they outnumber the SMs: 4
/// stages, and 3 where a residual's two slots are to fit (`residual`); and the first's
/// stream-K variant where the last wave of tiles is ragged.
llvm::SmallVector<Sm90GemmConfig> sm90PingPongConfigs(int64_t tiles128, bool residual);

/// `configs` made tf32 configurations (k-tiles of 32 f32 elements), for f32 operands.
void makeTf32Configs(llvm::MutableArrayRef<Sm90GemmConfig> configs);
/// `configs` made int8 configurations (k-tiles of 128 i8 elements), for i8 operands.
void makeInt8Configs(llvm::MutableArrayRef<Sm90GemmConfig> configs);

/// Adds to `configs`, after each persistent one (no split-K) whose tiles all lie in one
/// column of an `n`-column C, its variant with B resident in shared memory: B's k-tiles
/// under the configuration (`kTiles`), and the stages of A that then fit (up to twice as
/// many, at most 16), keeping room for two residual tiles of `residualElementBytes`
/// elements (0: the epilogue has no residual).
void addResidentBConfigs(llvm::SmallVectorImpl<Sm90GemmConfig> &configs, int64_t n,
                         llvm::function_ref<int64_t(const Sm90GemmConfig &)> kTiles,
                         int64_t residualElementBytes);

/// The types of `function`'s buffers (inputs, then outputs) when every one is a memref of
/// static shape and identity layout, the form the kernel templates address; else nullopt.
std::optional<llvm::SmallVector<mlir::MemRefType>> getStaticBufferTypes(kernel::FuncOp function);

/// The types of `function`'s buffers when every one is a memref of identity layout, each
/// dynamic extent at the profile's opt shape: evaluated at the function's first launch
/// on the inputs' `kernel.opt_shape` (a dynamic engine is tuned at its opt shape). nullopt
/// when an argument is no such buffer, or a dynamic extent has no launch or profile to
/// say it. For a kernel of static shapes, its types.
std::optional<llvm::SmallVector<mlir::MemRefType>> getOptShapeBufferTypes(kernel::FuncOp function);

/// `function`'s arguments at a profile's shape (`kernel.opt_shape` or `kernel.max_shape`),
/// evaluated at its first launch: each buffer's type with its dynamic extents evaluated
/// (`types`; null for index arguments), and each index argument's value (`symbols`, the
/// kernel's dimension symbols; 0 for buffers). nullopt as for getOptShapeBufferTypes.
struct ProfileArguments {
  llvm::SmallVector<mlir::MemRefType> types;
  llvm::SmallVector<int64_t> symbols;
};
std::optional<ProfileArguments>
getProfileArguments(kernel::FuncOp function, llvm::StringRef profile = kiln::kernel::kOptShapeAttr);

/// The buffers of a kernel whose only run-time extents are leading ones: a dynamic
/// engine's batch, for templates that take it at run time (NHWC convolutions and pools).
struct BatchBuffers {
  /// Each buffer's type, a run-time batch at the profile's opt shape (the kernel's own
  /// types when it has none).
  llvm::SmallVector<mlir::MemRefType> types;
  /// The run-time batch at the max shape: the most a launch takes (0 without one).
  int64_t maxBatch = 0;
  /// Whether the batch is known at run time only.
  bool dynamic = false;
};

/// `function`'s BatchBuffers when every argument is a memref of identity layout whose
/// only dynamic extent, if any, is its first, and those extents are one batch (equal at
/// `profile`'s and the max shape); nullopt otherwise, or when a profile does not say them.
/// The types are evaluated at `profile` (a dynamic engine is tuned at its opt shape, a
/// bucket of small batches at its min shape).
std::optional<BatchBuffers> getBatchBuffers(kernel::FuncOp function,
                                            llvm::StringRef profile = kiln::kernel::kOptShapeAttr);

/// Whether `function`'s `kernel.config` is a tf32 configuration of an sm_90a GEMM family:
/// kernel-autotune chose one (it offers them only under allow-tf32), so the row buckets
/// are matched as tf32 too.
bool kernelConfigAsksTf32(kernel::FuncOp function);

/// The split-K part counts the templates offer.
constexpr int64_t kSplitKParts[] = {2, 3, 4, 6, 8};

/// Whether splitting the k-tiles of a product of `tiles` tiles and `kTiles` k-tiles in
/// `parts` can pay: fewer tiles than SMs, at most two waves of parts, 4 k-tiles a part.
inline bool splitKPays(int64_t tiles, int64_t kTiles, int64_t parts) {
  return tiles < kSm90Multiprocessors && tiles * parts <= 2 * kSm90Multiprocessors &&
         kTiles >= 4 * parts;
}

/// The rows a GEMM's configuration is chosen for. A dynamic engine's GEMM (a run-time M,
/// or a convolution's N*OH*OW of a run-time batch N) has its `kernel.config` chosen at the
/// profile's opt shape, for any M. kernel-autotune chooses again for the buckets of Ms far
/// from it: at the min shape for the small Ms where the min shape has a quarter of the opt
/// shape's rows or fewer (smallRowsBucket), at the max shape for the large Ms where it has
/// four times as many or more (largeRowsBucket); a bucket whose choice differs gets it as a
/// row variant (kKernelRowVariantsAttr).
struct GemmRows {
  /// The profile whose shape gives M (the kernel's first launch evaluated there).
  llvm::StringRef profile = kiln::kernel::kOptShapeAttr;
  /// The most rows the configuration runs on (GemmProblem::maxM); 0: those at the
  /// profile's max shape.
  int64_t maxRows = 0;
  /// The configuration runs on more rows than this (a bucket of large Ms); 0: from 1.
  int64_t aboveRows = 0;
};

/// The GEMM `function` computes, when it is a kernel.matmul holding one 2-D graph.matmul
/// of f16/bf16 row-major buffers, or one graph.gemm of them (no transposed A, alpha 1, a
/// per-column C with beta 1: a bias; B transposed or not), that some configuration can
/// compute, followed by an elementwise epilogue the templates can fuse
/// (matchSm90Epilogue). With `allowTf32`, f32 operands too, where B is transposed
/// (graph.gemm) or a constant that every launch passes.
std::optional<Sm90GemmProblem> matchSm90Gemm(kernel::FuncOp function, bool allowTf32 = false,
                                             GemmRows rows = {});

/// The bucket of small Ms of `function`, a GEMM of run-time M (or an sm_90a convolution of
/// a run-time batch) whose profile's min shape has a quarter of its opt shape's rows or
/// fewer: chosen at the min shape, for up to the geometric mean of the two row counts (an
/// M nearer the min shape's rows than the opt shape's, on a log scale). nullopt for any
/// other kernel.
std::optional<GemmRows> smallRowsBucket(kernel::FuncOp function, bool allowTf32 = false);

/// The bucket of large Ms of `function`, as smallRowsBucket's on the other side: where the
/// profile's max shape has four times the opt shape's rows or more, chosen at the max
/// shape, for the Ms above the geometric mean of the two row counts.
std::optional<GemmRows> largeRowsBucket(kernel::FuncOp function, bool allowTf32 = false);

/// One row variant (#kernel.row_variant, in a kernel.func's `kernel.row_variants`): the
/// configuration of the Ms up to `maxRows` (a small Ms' bucket), or of those above
/// `aboveRows` (the large Ms' bucket; maxRows 0). `kernel.row_variants` lists the small
/// buckets by ascending max_rows, each serving the Ms above the one before it up to its
/// max_rows, then at most one large bucket not below the last max_rows; `kernel.config`
/// serves the Ms between. The template launches each configuration with grids that are
/// empty outside its Ms (the engine skips such launches), so the choice costs the shape
/// program a compare.
struct GemmRowVariant {
  int64_t maxRows = 0;
  kernel::TemplateConfigAttrInterface config;
  int64_t aboveRows = 0;

  /// The rows its configuration is chosen for: the min shape's, up to maxRows, or the
  /// max shape's.
  GemmRows rows() const {
    return aboveRows > 0 ? GemmRows{kiln::kernel::kMaxShapeAttr, 0, aboveRows}
                         : GemmRows{kiln::kernel::kMinShapeAttr, maxRows};
  }
  /// "at 128 rows or fewer", "above 5792 rows".
  std::string describeRows() const;
  /// What a template that cannot match the variant's rows() lacks: "the profile's min
  /// shape (kernel.min_shape)", or max.
  std::string describeProfile() const;
};

/// `function`'s row variants (empty when it has none); fails, with an error on the
/// function naming `pass`, when they are out of order.
mlir::FailureOr<llvm::SmallVector<GemmRowVariant>> getRowVariants(kernel::FuncOp function,
                                                                  llvm::StringRef pass);

/// The attribute holding `variants`.
mlir::ArrayAttr rowVariantsAttr(mlir::MLIRContext *context,
                                llvm::ArrayRef<GemmRowVariant> variants);

/// The legal configurations for `problem`, the default (what runs untuned) first.
llvm::SmallVector<Sm90GemmConfig> sm90GemmConfigs(const Sm90GemmProblem &problem);

/// The GEMM a convolution kernel is, when sm90_conv takes it (passes/kernel/
/// ConvSm90.cpp): M = N*OH*OW, N = O, K = the im2col columns. Every launch of `function`
/// in its module must pass a constant weight.
/// With `allowTf32`, f32 convolutions too (their weight then stored O x (KH KW C)). A
/// run-time batch is evaluated at `rows.profile`, and is at most what `rows.maxRows`
/// rows of C hold when given (a bucket of small batches).
std::optional<Sm90GemmProblem> matchSm90Conv(kernel::FuncOp function, bool allowTf32 = false,
                                             GemmRows rows = {});

/// The legal configurations of a convolution kernel that matchSm90Conv takes (at `rows`),
/// the default first (empty for other kernels).
llvm::SmallVector<Sm90GemmConfig> sm90ConvConfigs(kernel::FuncOp function, bool allowTf32 = false,
                                                  GemmRows rows = {});

/// One way the sm_80 GEMM template (passes/kernel/templates/Sm80Gemm.mlir) computes a
/// product: mma.sync m16n8k16 fed by ldmatrix from a cp.async ring. The parameters of
/// #kernel.sm80_gemm (and #kernel.sm80_conv) as values to compute with.
struct Sm80GemmConfig {
  int64_t tileM = 128, tileN = 128, tileK = 32;
  /// Depth of the cp.async ring.
  int64_t stages = 4;
  /// The warps along M and N; each computes a (tileM / warpsM) x (tileN / warpsN) tile.
  int64_t warpsM = 2, warpsN = 2;

  /// As `ConfigAttr`: kernel::Sm80GemmConfigAttr or kernel::Sm80ConvConfigAttr.
  template <typename ConfigAttr> ConfigAttr toAttr(mlir::MLIRContext *context) const {
    return ConfigAttr::get(context, tileM, tileN, tileK, stages, warpsM, warpsN);
  }
  template <typename ConfigAttr> static Sm80GemmConfig fromAttr(ConfigAttr attr) {
    return {attr.getTileM(),  attr.getTileN(),  attr.getTileK(),
            attr.getStages(), attr.getWarpsM(), attr.getWarpsN()};
  }
  /// "sm80 mma.sync 128x128x32, 4 stages, 2x2 warps": for reports and engines.
  std::string describe() const;
  /// "128x128x32_s4_w2x2": the kernel's name suffix and the `gemm-config` option's value.
  std::string name() const;
  int64_t threads() const { return 32 * warpsM * warpsN; }
  /// The ring's bytes (rows padded by 16 bytes).
  int64_t ringBytes() const;
  /// Dynamic shared memory of a launch: the ring, or the f32 staging of C when larger.
  int64_t sharedBytes() const;
  /// Whether the template can be instantiated so: warp tiles of whole 16x16 fragment
  /// pairs, whole 16-byte copies per thread, and the shared memory an sm_80 CTA may have.
  bool valid() const;
  bool operator==(const Sm80GemmConfig &other) const { return name() == other.name(); }
};

/// The GEMM `function` computes when sm80_gemm takes it: matchGemmKernel's, with N
/// and K multiples of 8 (16-byte copies of rows).
std::optional<GemmProblem> matchSm80Gemm(kernel::FuncOp function);

/// The legal sm_80 configurations for `problem`, the default first.
llvm::SmallVector<Sm80GemmConfig> sm80GemmConfigs(const GemmProblem &problem);

/// The GEMM a convolution kernel is when sm80_conv takes it (passes/kernel/
/// ConvSm80.cpp): M = N*OH*OW, N = O, K = KH*KW*C (C % 8 == 0); constant weights.
std::optional<GemmProblem> matchSm80Conv(kernel::FuncOp function);

/// The legal configurations of a convolution kernel that matchSm80Conv takes, the default
/// first (empty for other kernels).
llvm::SmallVector<Sm80GemmConfig> sm80ConvConfigs(kernel::FuncOp function);

/// The cost model of the sm_90a GEMM template (docs/tuning.md): launch + max(bytes /
/// bandwidth, waves x tile time), where the resident blocks per multiprocessor come from
/// shared memory and threads, waves = ceil(tiles / (multiprocessors x resident)), a tile's
/// time is its (padded) flops at the per-SM tensor rate shared by its resident neighbours,
/// divided by an efficiency that grows with the tile's area (less load per MMA), the
/// ring's depth and warp specialisation. `bytes`: what the kernel moves at least.
double estimateSm90GemmMicros(const GemmProblem &problem, const Sm90GemmConfig &config,
                              double bytes, const DeviceModel &device);

/// The cost model of the sm_80 GEMM template: as the sm_90a one, the resident blocks also
/// limited by registers, the efficiency growing with the warp tile's area and the ring's
/// depth, at most 0.9 (mma.sync).
double estimateSm80GemmMicros(const GemmProblem &problem, const Sm80GemmConfig &config,
                              double bytes, const DeviceModel &device);

} // namespace kiln

#endif // KILN_PASSES_KERNEL_KERNELCONFIG_H
