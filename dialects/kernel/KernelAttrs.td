//===- KernelAttrs.td - Attributes of the kernel dialect ---*- tablegen -*-===//
//
// One configuration attribute per kernel template family: the typed parameters of one
// way the family's code generator computes a kernel. kernel-autotune (or, untuned,
// kernel-select-templates) records the chosen one on the kernel.func as `kernel.config`;
// kernel-instantiate-templates generates the family's kernel from it. Which kernels a
// family takes, its legal configurations and its cost model live with its code generator
// (passes/kernel/, behind passes/kernel/KernelTemplate.h); the attributes only check
// what holds for every kernel.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_KERNEL_ATTRS
#define KILN_KERNEL_ATTRS

include "dialects/kernel/KernelDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Kernel_TemplateConfigInterface : AttrInterface<"TemplateConfigAttrInterface"> {
  let cppNamespace = "::kiln::kernel";
  let description = [{
    The configuration of one kernel template family: what `kernel.config` holds. Each
    family has its own attribute; the family's name is the attribute's mnemonic.
  }];
  let methods = [
    InterfaceMethod<"The template family's name: the attribute's mnemonic (`sm90_gemm`).",
      "::llvm::StringRef", "getTemplateName", (ins), [{}],
      [{ return $_attr.getMnemonic(); }]>,
  ];
}

class Kernel_TemplateConfigAttr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Kernel_Dialect, name,
              !listconcat(traits, [DeclareAttrInterfaceMethods<Kernel_TemplateConfigInterface>])> {
  let mnemonic = attrMnemonic;
}

// The warp-group GEMM of sm_90a, shared by the products and the implicit-GEMM
// convolutions.
defvar Kernel_Sm90GemmParameters = (ins
  "int64_t":$tile_m,
  "int64_t":$tile_n,
  "int64_t":$tile_k,
  "int64_t":$stages,
  "int64_t":$consumers,
  DefaultValuedParameter<"bool", "false">:$persistent,
  DefaultValuedParameter<"int64_t", "1">:$split_k,
  DefaultValuedParameter<"int64_t", "1">:$ctas_per_sm,
  DefaultValuedParameter<"bool", "false">:$tf32,
  DefaultValuedParameter<"bool", "false">:$int8,
  DefaultValuedParameter<"int64_t", "0">:$resident_b_k_tiles,
  DefaultValuedParameter<"bool", "false">:$pingpong,
  DefaultValuedParameter<"int64_t", "1">:$stream_k);

defvar Kernel_Sm90GemmParametersText = [{
    Parameters: the CTA's tile of C (`tile_m` x `tile_n`) and its k-tile (`tile_k`
    elements: 128 bytes a row, so 64 for f16/bf16, 32 under `tf32`, 128 under `int8`);
    `stages`, the depth of the TMA/mbarrier ring; `consumers`, the consumer warpgroups
    (wgmma) that a producer warpgroup feeds (0: one warpgroup both loads and computes,
    whole tiles only), 64 rows of the tile each: `tile_m` is 128 for one or two, 192 for
    three (f16 or bf16 operands, one CTA an SM); `persistent`, one CTA an SM walking the
    tiles (the next tile's loads overlap the last one's epilogue); `split_k`, the k-tiles of each tile in this
    many parts whose f32 partial sums a second kernel adds; `ctas_per_sm`, 1 (232
    registers a consumer thread) or 2 (a producer warp, 96 registers, at most half of the
    SM's shared memory); `tf32`, f32 operands read as tf32; `int8`, i8 operands into i32
    accumulators; `resident_b_k_tiles`, B's k-tiles loaded once a CTA and kept in shared
    memory (persistent grids of one column of tiles); `pingpong`, on a persistent grid of
    two consumers, each consumer computes whole tiles of its own (`tile_n` at most 128),
    the two taking turns, so that one's epilogue runs while the other's wgmma do;
    `stream_k` (persistent grids of two consumers, one CTA an SM, f16 or bf16 operands),
    the parts (at most this many) that the tiles of the grid's last, partial wave are
    split into along K, so that every CTA ends at about the same time: each part stores
    its f32 partial sums to a workspace and the last part of a tile to finish adds them up
    and runs the epilogue.
}];

class Kernel_Sm90GemmConfigBase<string name, string attrMnemonic>
    : Kernel_TemplateConfigAttr<name, attrMnemonic> {
  let parameters = Kernel_Sm90GemmParameters;
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Kernel_Sm90GemmConfigAttr : Kernel_Sm90GemmConfigBase<"Sm90GemmConfig", "sm90_gemm"> {
  let summary = "A matrix product on sm_90a's tensor cores: wgmma fed by TMA";
  let description = [{
    The sm_90a GEMM family (passes/kernel/MatmulSm90.cpp, docs/codegen-sm90.md) takes a
    `kernel.func` whose template is a `kernel.matmul` holding one 2-D `graph.matmul` of
    f16 or bf16 operands over whole row-major buffers (or a `graph.gemm` with A not
    transposed, alpha 1 and C, if any, a per-column bias with beta 1), optionally followed
    by a fused epilogue (a chain of elementwise ops: bias, activation, residual, scale,
    cast to a float type; passes/kernel/Sm90Epilogue.h, whose inputs become kernel
    parameters after M, N, K). A transposed B (N x K) is read K-major as it is. The kernel
    is instantiated once per operand and result type, configuration and epilogue into a
    `gpu.module`; each launch becomes, on the host, `nvgpu.tma.create.descriptor`s for A
    and B and a `gpu.launch_func` of the configuration's grid and dynamic shared memory.

    Under `allow-tf32`, f32 products are taken too, their operands read as tf32 (10-bit
    mantissa, f32 accumulation: ~1e-3 relative error) by wgmma m64nNk8 over k-tiles of 32
    elements (`tile_k = 32, tf32 = true`). tf32 wgmma reads B K-major only: a transposed B
    as it is, a constant row-major B from a transposed copy made at compile time
    (`<global>_nxk`); a B computed at run time stays generic. i8 products of quantized
    models run as `int8` configurations (wgmma s8, i32 accumulators).
  }] # Kernel_Sm90GemmParametersText # [{
    ```mlir
    #kernel.sm90_gemm<tile_m = 128, tile_n = 256, tile_k = 64, stages = 4, consumers = 2>
    #kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 6, consumers = 2,
                      persistent = true, split_k = 2>
    ```
  }];
}

def Kernel_Sm90ConvConfigAttr : Kernel_Sm90GemmConfigBase<"Sm90ConvConfig", "sm90_conv"> {
  let summary = "A convolution on sm_90a's tensor cores: the wgmma GEMM as an implicit GEMM";
  let description = [{
    The sm_90a convolution family (passes/kernel/ConvSm90.cpp, docs/codegen-sm90.md)
    takes a `kernel.func` whose template is a `kernel.conv` holding exactly one
    channels-last 2-D `graph.conv` (NHWC input, OHWI weight, one group, no dilation, equal
    strides up to 8; its bias and the elementwise ops after it a fused epilogue, as for
    `#kernel.sm90_gemm`) of f16 or bf16 buffers (f32 as tf32 under `allow-tf32`; i8), with
    O a multiple of 8, whose launches pass a constant weight. It becomes the
    warp-specialised GEMM C[N*OH*OW, O] = A[N*OH*OW, KH*KW*C] x B[KH*KW*C, O]:
    - C a multiple of 8: A is implicit. Each 128-row tile of C is a box of output
      positions (images x rows x columns), each k-tile of A one 4-D TMA box of the input
      at filter tap (r, s) and 64 channels; the stride is the box's element stride, the
      padding TMA's zero fill. A 1x1 convolution reads its input as the row-major A.
    - Other C (a 3-channel image), with KH*KW*C at most 512: an im2col kernel writes A to
      a scratch buffer (placed by kernel-plan-buffers) and the GEMM is the row-major one.
    - The weight is permuted at compile time into a new constant global, K x O (O x K
      for tf32), with zero rows where A's columns are padding.
    A dynamic engine's batch may be known at run time only: the kernels read it off M.
    The parameters are the GEMM's.
  }] # Kernel_Sm90GemmParametersText # [{
    ```mlir
    #kernel.sm90_conv<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, consumers = 2>
    ```
  }];
}

// The mma.sync GEMM of sm_80 and later, shared by the products and the convolutions.
defvar Kernel_Sm80GemmParameters = (ins
  "int64_t":$tile_m,
  "int64_t":$tile_n,
  "int64_t":$tile_k,
  "int64_t":$stages,
  "int64_t":$warps_m,
  "int64_t":$warps_n);

class Kernel_Sm80GemmConfigBase<string name, string attrMnemonic>
    : Kernel_TemplateConfigAttr<name, attrMnemonic> {
  let parameters = Kernel_Sm80GemmParameters;
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Kernel_Sm80GemmConfigAttr : Kernel_Sm80GemmConfigBase<"Sm80GemmConfig", "sm80_gemm"> {
  let summary = "A matrix product on sm_80's tensor cores: mma.sync fed by ldmatrix and cp.async";
  let description = [{
    The sm_80 GEMM family (passes/kernel/MatmulSm80.cpp, templates/Sm80Gemm.mlir,
    docs/codegen-sm80.md), for every GPU target but sm_90a, takes a `kernel.matmul` of
    one 2-D product of f16 or bf16 row-major buffers with N and K multiples of 8 and any
    M, with a fused epilogue as `#kernel.sm90_gemm`'s: mma.sync m16n8k16 with f32
    accumulation, fed by ldmatrix (.trans for B) from a ring of padded shared-memory tiles
    filled by 16-byte cp.async copies (zero-filled past the edges); each launch a
    `gpu.launch_func` over a 1-D grid of tiles, A, B, C as bare pointers. Parameters:
    the CTA's tile of C (`tile_m` x `tile_n`), its k-tile (`tile_k`, a multiple of 16),
    the depth of the cp.async ring (`stages`, at least 2) and the warps along M and N,
    each computing a (tile_m / warps_m) x (tile_n / warps_n) tile.

    ```mlir
    #kernel.sm80_gemm<tile_m = 128, tile_n = 128, tile_k = 32, stages = 4, warps_m = 2,
                      warps_n = 2>
    ```
  }];
}

def Kernel_Sm80ConvConfigAttr : Kernel_Sm80GemmConfigBase<"Sm80ConvConfig", "sm80_conv"> {
  let summary = "A convolution on sm_80's tensor cores: the mma.sync GEMM as an implicit GEMM";
  let description = [{
    The sm_80 convolution family (passes/kernel/ConvSm80.cpp) takes a channels-last
    `kernel.conv` of one group (no dilation, equal strides) of f16 or bf16 buffers with C
    and O multiples of 8 and a constant weight: the GEMM of `#kernel.sm80_gemm` with
    M = N x OH x OW, N = O, K = KH x KW x C. A is the im2col matrix, gathered by the
    template's 16-byte cp.async copies (8 channels of one filter tap at one output
    position; zero fill in the padding); a 1x1 convolution with stride 1 and no padding
    reads its input as the row-major A. B is the weight permuted at compile time into
    K x O; C is the NHWC output as it is. The parameters are the GEMM's.

    ```mlir
    #kernel.sm80_conv<tile_m = 128, tile_n = 64, tile_k = 32, stages = 4, warps_m = 2,
                      warps_n = 2>
    ```
  }];
}

def Kernel_FlashAttentionConfigAttr
    : Kernel_TemplateConfigAttr<"FlashAttentionConfig", "flash_attention"> {
  let summary = "Attention in one kernel on the tensor cores, the scores kept on chip";
  let description = [{
    The flash-attention family (passes/kernel/FlashAttention.cpp, templates/
    FlashAttention.mlir and FlashAttentionSm90.mlir, docs/codegen-attention.md) takes a
    `kernel.attention` holding one `graph.attention` of f16 or bf16 [B, H, S, D] (or
    [N, S, D]) buffers, or head-split views of a fused QKV projection's [..., H * D] rows,
    D 64 or 128, any Sq and Skv (run-time ones too): the FlashAttention-2 forward kernel,
    K/V tiles through a cp.async ring, the online softmax in f32. The mask may be absent,
    an additive buffer that broadcasts to the scores, or a compile-time constant that is
    exactly causal, which becomes a causal flag that skips the tiles above the diagonal.
    Each launch is a `gpu.launch_func` of ceil(Sq / block_q) x B*H blocks. Parameters:
    `block_q` query rows a CTA, `block_kv` key/value rows a step of the
    online softmax, `stages` K/V tiles in the cp.async ring, `warps` a CTA (4 or 8), and
    `wgmma`: both products on sm_90a's wgmma (64 query rows a warpgroup) instead of
    mma.sync (every GPU target). With `tma` (sm_90a, templates/FlashAttentionSm90Tma.mlir)
    the CTA is warp-specialised: 12 warps, two consumer warpgroups of 64 query rows
    (block_q = 128) taking turns at the tensor cores and a producer warpgroup that loads
    Q and a `stages`-deep ring of K/V tiles by TMA, synchronised by mbarriers.

    ```mlir
    #kernel.flash_attention<block_q = 128, block_kv = 64, stages = 2, warps = 8, wgmma = true>
    #kernel.flash_attention<block_q = 128, block_kv = 128, stages = 2, warps = 12, wgmma = true,
                            tma = true>
    ```
  }];
  let parameters = (ins
    "int64_t":$block_q,
    "int64_t":$block_kv,
    "int64_t":$stages,
    "int64_t":$warps,
    DefaultValuedParameter<"bool", "false">:$wgmma,
    DefaultValuedParameter<"bool", "false">:$tma);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Kernel_DepthwiseConfigAttr : Kernel_TemplateConfigAttr<"DepthwiseConfig", "depthwise"> {
  let summary = "A depthwise convolution on the CUDA cores";
  let description = [{
    The depthwise family (passes/kernel/ConvDepthwise.cpp, docs/codegen-depthwise.md)
    takes a `kernel.conv` holding one 2-D `graph.conv` whose group is its input channel
    count C > 1 (output channels C x multiplier), of f32, f16 or bf16 buffers, channels
    first (NCHW, weight [M, 1, KH, KW]) or channels last (NHWC, weight [M, KH, KW, 1]), any
    filter size, strides, padding and dilation, with a constant weight and its bias and
    elementwise ops after it fused: a memory-bound CUDA-core kernel accumulating in f32 —
    channels last (templates/DepthwiseNhwc.mlir) threads along the channels with 16-byte
    loads, each thread `pixels` consecutive output columns sharing the input columns it
    loads, the weight repacked to [KH, KW, M]; channels first (templates/
    DepthwiseNchw.mlir) a block stages the input tile of `planes` planes, with its halo,
    in shared memory. `pixels` output pixels a thread (1, 2, 4 or 8); channels last, a
    thread computes one 16-byte vector of channels and a CTA has `threads` threads;
    channels first, a CTA computes a `tile_h` x `tile_w` tile of `planes` channel planes
    (and `threads` is 0).

    ```mlir
    #kernel.depthwise<pixels = 4, threads = 256>
    #kernel.depthwise<pixels = 4, tile_h = 16, tile_w = 56, planes = 1>
    ```
  }];
  let parameters = (ins
    "int64_t":$pixels,
    DefaultValuedParameter<"int64_t", "0">:$threads,
    DefaultValuedParameter<"int64_t", "0">:$tile_h,
    DefaultValuedParameter<"int64_t", "0">:$tile_w,
    DefaultValuedParameter<"int64_t", "0">:$planes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Kernel_RowsConfigAttr : Kernel_TemplateConfigAttr<"RowsConfig", "rows"> {
  let summary = "Reductions and normalisations over rows: a warp or a CTA per row";
  let description = [{
    The rows family (passes/kernel/ReductionRows.cpp, docs/codegen-rows.md) takes a
    `kernel.reduction` anchored at a softmax or log-softmax over the last axis, a
    LayerNorm or RMSNorm over trailing axes, or a ReduceSum/Mean/Max/Min/Prod/SumSquare/
    L1/L2/LogSum/LogSumExp over trailing axes, of row-major f16, bf16 or f32 buffers, with
    pointwise ops before the anchor (scale, mask, residual add, casts: inputs contiguous
    along the row or one value a row) and after it: a group of threads a row, 16-byte
    accesses where the row length allows, warp shuffles and a shared-memory combine, f32
    arithmetic, the row kept in registers (long rows: shared memory) between the passes
    over it. Parameters:
    `threads_per_row` threads share a row (4 to 32: part of a warp, shuffles only; 64 to
    1024: a CTA a row, warps combining through shared memory), a CTA computes
    `rows_per_cta` rows (1 when a CTA has one row), a thread loads `vector` elements at
    once.

    ```mlir
    #kernel.rows<threads_per_row = 32, rows_per_cta = 4, vector = 8>
    ```
  }];
  let parameters = (ins
    "int64_t":$threads_per_row,
    "int64_t":$rows_per_cta,
    "int64_t":$vector);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Kernel_PoolNhwcConfigAttr : Kernel_TemplateConfigAttr<"PoolNhwcConfig", "pool_nhwc"> {
  let summary = "A channels-last 2-D max pool on the CUDA cores";
  let description = [{
    The max-pool family (passes/kernel/PoolNhwc.cpp, templates/PoolNhwc.mlir,
    docs/codegen-pool.md) takes a `kernel.generic` holding exactly one 2-D
    `graph.max_pool` with `channels_last` and unused indices, of f16, bf16, f32 or i8
    buffers whose channels fill 16-byte vectors, any window, strides, padding and
    dilation: a thread takes one 16-byte vector of channels of up to 4 consecutive output
    columns, loads each input column their windows share once, and takes the maxima in
    the element type. It has nothing to tune: its vector width and the columns a thread
    computes follow from the problem.

    ```mlir
    #kernel.pool_nhwc
    ```
  }];
}

def Kernel_TopKConfigAttr : Kernel_TemplateConfigAttr<"TopKConfig", "top_k"> {
  let summary = "TopK by radix selection, a CTA a row";
  let description = [{
    The selection family (passes/kernel/TopK.cpp, templates/TopK.mlir,
    docs/codegen-top-k.md) takes a `kernel.reduction` holding exactly one `graph.top_k`
    of f32, f16, bf16 or i32 values along any axis, whose k is a constant or computed at
    run time (the output's extent), and whose k is at most 4096 at the profile's largest
    shape. A CTA of `threads` threads takes a row: it finds the k-th key by radix
    selection over 8-bit digits of a 64-bit key (the value's order, then its index, so
    that ties go to the lower index as in ONNX), gathers the k keys at or before it into
    shared memory and writes each where its rank among them puts it.

    ```mlir
    #kernel.top_k<threads = 1024>
    ```
  }];
  let parameters = (ins "int64_t":$threads);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Kernel_NonMaxSuppressionConfigAttr
    : Kernel_TemplateConfigAttr<"NonMaxSuppressionConfig", "non_max_suppression"> {
  let summary = "NonMaxSuppression: candidates ranked in parallel, selected a block at a time";
  let description = [{
    The NMS family (passes/kernel/NonMaxSuppression.cpp, templates/NonMaxSuppression.mlir,
    docs/codegen-non-max-suppression.md) takes a `kernel.generic` holding exactly one
    `graph.non_max_suppression` of f32 boxes and scores read from kernel arguments, whose
    thresholds and box limit are constants, writing its selection (or, in the extent
    kernel, the selection's length). One kernel ranks each batch and class's candidates by
    score on many CTAs (the sorted order, without a sort); a second, a grid of resident
    CTAs meeting at a grid barrier after each step, walks them in blocks of 64: the IoUs
    within a block as a bit matrix, one thread keeping the boxes still alive in order,
    then every CTA suppressing its share of the later boxes a kept one overlaps. It has
    nothing to tune.

    ```mlir
    #kernel.non_max_suppression
    ```
  }];
}

def Kernel_NonZeroConfigAttr : Kernel_TemplateConfigAttr<"NonZeroConfig", "non_zero"> {
  let summary = "NonZero: a stream compaction by chunk counts and prefix sums";
  let description = [{
    The NonZero family (passes/kernel/NonZero.cpp, templates/NonZero.mlir,
    docs/codegen-non-zero.md) takes a kernel holding one `graph.non_zero` of a kernel
    argument (any rank, float, integer or i1 elements), writing its positions ([rank, n]
    i64, or [n, rank] through a transpose, PyTorch's `nonzero()`), or, in the extent
    kernel, their number. A first kernel counts the non-zero elements of each chunk of
    4096 (a CTA a chunk); then a CTA a chunk sums the counts of the chunks before its own
    and writes its positions in order (prefix sums within warps and the CTA), or one CTA
    sums every count. It has nothing to tune.

    ```mlir
    #kernel.non_zero
    ```
  }];
}

def Kernel_GenericConfigAttr : Kernel_TemplateConfigAttr<"GenericConfig", "generic"> {
  let summary = "The generic lowering: every kernel's body through linalg and the loop-level GPU passes";
  let description = [{
    The lowering every kernel has: kernel-to-linalg lowers the template's body through the
    linalg path to loop nests, which the loop-level GPU passes shape (docs/gpu-backend.md:
    transposed reads through shared-memory tiles, vectors of up to 16 bytes a thread,
    work shared along a dimension run as a loop in the thread, reductions of few outputs
    as block reductions) before gpu-map-loops gives each remaining iteration a thread; a
    nest none of them takes runs one thread an element, its reductions serial in the
    thread. kernel-autotune measures it against the templates that take a kernel; a
    kernel no template takes gets it.

    ```mlir
    #kernel.generic
    ```
  }];
}

def Kernel_RowVariantAttr : AttrDef<Kernel_Dialect, "RowVariant"> {
  let mnemonic = "row_variant";
  let summary = "The configuration of a dynamic GEMM's bucket of rows";
  let description = [{
    A GEMM (or implicit-GEMM convolution) whose M is known at run time has its
    `kernel.config` chosen at the profile's opt shape; kernel-autotune chooses again for
    the Ms far from it. A row variant is one such choice: `config` serves the Ms up to
    `max_rows` (a bucket of small Ms, measured at the profile's min shape), or those above
    `above_rows` (the bucket of large Ms, measured at the max shape). `kernel.row_variants`
    lists the small buckets by ascending `max_rows`, then at most one large bucket not
    below them; `kernel.config` serves the Ms between.

    ```mlir
    #kernel.row_variant<max_rows = 128, config = #kernel.sm90_gemm<tile_m = 128,
        tile_n = 64, tile_k = 64, stages = 6, consumers = 1>>
    ```
  }];
  let parameters = (ins
    DefaultValuedParameter<"int64_t", "0">:$max_rows,
    DefaultValuedParameter<"int64_t", "0">:$above_rows,
    "::kiln::kernel::TemplateConfigAttrInterface":$config);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // KILN_KERNEL_ATTRS
