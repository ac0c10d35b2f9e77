//===- Passes.td - Every Kiln pass -------------------------*- tablegen -*-===//
//
// All of Kiln's passes, grouped by the stage of the pipeline they belong to. Each is
// implemented in its own file under passes/<stage>/ and tested in test/passes/<name>.mlir.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES
#define KILN_PASSES

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Graph passes (passes/graph)
//===----------------------------------------------------------------------===//

def GraphInferShapes : Pass<"graph-infer-shapes", "::mlir::func::FuncOp"> {
  let summary = "Refine tensor types from the graph ops' shape rules";
  let description = [{
    Walks a graph function in order and gives every op result the most refined type its
    operands imply: a dynamic dimension becomes static where the op's shape rule
    determines it, an unranked tensor becomes ranked. Types are only ever refined, never
    changed into contradicting ones. The function's result types follow its returned
    values, so graph functions are expected to be entry points, not callees.
  }];
}

def GraphInferSymbolicShapes : Pass<"graph-infer-symbolic-shapes", "::mlir::func::FuncOp"> {
  let summary = "Refine dynamic shapes from the inputs' named dimensions";
  let description = [{
    Expresses every extent of a graph function, and the values of the small integer
    tensors its shape computations make (Shape -> Gather -> Unsqueeze -> Concat), as
    polynomials in the inputs' symbolic dimensions (`graph.dims`: "batch", "sequence"; an
    unnamed one is "<input>.<dim>"), and gives results the static extents this finds:
    `Reshape(x, Concat(b, s, -1, 64))` of a `[batch, sequence, 768]` x is
    `tensor<?x?x12x64xf32>`. Extents it cannot express (data-dependent ones, ops without a
    rule) get fresh symbols "?<n>". With `annotate`, each op gets
    `graph.symbolic_dims` (per result, its extents) and, for shape values,
    `graph.symbolic_values` (their elements). docs/dynamic-shapes.md.
  }];
  let options = [
    Option<"annotate", "annotate", "bool", /*default=*/"false",
           "Record the symbolic extents (and shape values) on every op">,
  ];
}

def GraphFoldConstants : Pass<"graph-fold-constants", "::mlir::ModuleOp"> {
  let summary = "Evaluate the parts of the graph that depend only on constants";
  let description = [{
    Replaces every value computed only from constants (and from the static shapes of
    tensors, through Shape and Size) by a constant, with shape inference in between, until
    nothing changes. Exported models compute their reshape targets and masks this way
    (Shape -> Gather -> Unsqueeze -> Concat -> Reshape); once input shapes are known, these
    sub-graphs fold away and every later stage sees static shapes.

    Values are computed by running the sub-graph itself through the CPU backend, as ONNX
    Runtime folds with its CPU kernels, so every op with a CPU lowering folds and the
    semantics live in one place (the lowering). Shape and Size fold without it. Values of
    more than `max-elements` elements, random ops and control flow are left alone. Tools
    without the CPU backend registered (see ConstantEvaluator.h) fold only Shape and Size.
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"1 << 20",
           "Largest folded value, in elements">,
    Option<"maxIterations", "max-iterations", "unsigned", /*default=*/"1000",
           "Rounds of folding and shape inference before giving up on a fixed point">,
  ];
}

def GraphRecognizeLayerNorm : Pass<"graph-recognize-layer-norm", "::mlir::func::FuncOp"> {
  let summary = "Replace decomposed LayerNorm sub-graphs by graph.layer_normalization";
  let description = [{
    Matches the chain exporters before opset 17 write for LayerNorm:
    `mean = ReduceMean(x)`, `d = x - mean`, `var = ReduceMean(Pow(d, 2) or d * d)`,
    `d / Sqrt(var + eps)` (or `d * Reciprocal(Sqrt(var + eps))`), optionally followed by
    `* gamma` and `+ beta`, and replaces it by one `graph.layer_normalization` (stash type
    f32; a scale of ones when there is no gamma, no bias when there is no beta). Both
    reductions must keep their dimensions and reduce the same trailing axes (`[-1]`, or
    `[-2, -1]`, ...: from `axis` to the end), and every intermediate value must have no
    use outside the chain; anything else is left alone. Axes are constant operands
    whether the model had them as an attribute (opset < 18) or an input (opset 18).
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

def GraphRecognizeAttention : Pass<"graph-recognize-attention", "::mlir::func::FuncOp"> {
  let summary = "Replace MatMul, scale, mask, Softmax, MatMul chains by graph.attention";
  let description = [{
    Matches `MatMul(Softmax(MatMul(Q, K') * scale + mask, axis = -1), V)`: scalar factors
    (Mul or Div by a constant) on Q, on K' or on the scores, up to two mask layers (none
    broadcasting the scores): an additive mask, or a fill `Where(c, scores, f)` /
    `Where(c, f, scores)` with `f` -inf or at most -1e30 (f32/f64 scores; it absorbs any
    score, so it equals the additive mask `Where(c, 0, f)` / `Where(c, f, 0)`); the op gets
    the sum of the masks. Optionally PyTorch's guard `Where(IsNaN(p), 0, p)` after the
    softmax (then `nan_to_zero`). K' is K transposed: the op gets K through a transpose
    that graph-simplify merges with the one that made K'. Every intermediate must have no
    use outside the pattern.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

def GraphRecognizeCausalMasks : Pass<"graph-recognize-causal-masks", "::mlir::func::FuncOp"> {
  let summary = "Drop computed causal masks from graph.attention in favour of its causal flag";
  let description = [{
    A `graph.attention` whose mask is `Where(c, 0, f)` (or `Where(c, f, 0)`), `f` -inf, at
    most -1e30 or the lowest value of the mask's type, where `c` is computed from shapes
    alone to be exactly "key position <= query position" over the last two axes (or its
    negation), gets `causal` and no mask. The boolean is followed through Range,
    Unsqueeze, Expand, Slice, Concat, integer arithmetic, comparisons, logic, Cast, CumSum
    and Gather of uniform tensors (passes/graph/IndexFunctions.h): PyTorch's exported
    causal masks, the "same document" term of packed sequences included, which constant
    folding evaluates only when the shapes are static. The mask's computation is erased
    where nothing else reads it.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

def GraphRecognizeGelu : Pass<"graph-recognize-gelu", "::mlir::func::FuncOp"> {
  let summary = "Replace decomposed GELU sub-graphs (erf and tanh forms) by graph.gelu";
  let description = [{
    Matches `x * 0.5 * (1 + Erf(x / sqrt(2)))` (the Erf's argument also as
    `x * (1 / sqrt(2))`) as `graph.gelu {approximate = "none"}` and
    `x * 0.5 * (1 + Tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))` (x^3 as `Pow(x, 3)` or
    products of x) as `graph.gelu {approximate = "tanh"}`. The three factors of the final
    product may come in any grouping and order, each product's operands in either order,
    as the TorchScript and torch.export exporters write them. Constants are compared with
    a relative tolerance of 1e-5 and must not broadcast `x`; every intermediate value must
    have no use outside the pattern.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

def GraphRecognizeActivations : Pass<"graph-recognize-activations", "::mlir::func::FuncOp"> {
  let summary = "Replace decomposed SiLU, HardSwish and RMSNorm by single graph ops";
  let description = [{
    - `x * Sigmoid(x)` becomes `graph.silu` (a Kiln extension op);
    - `x * HardSigmoid(x, alpha = 1/6, beta = 0.5)` and `x * Clip(x + 3, 0, 6) / 6` (the
      division as `/ 6` or `* (1/6)`, applied to the product or to the Clip) become
      `graph.hard_swish`;
    - `x * Reciprocal(Sqrt(ReduceMean(x * x) + eps))` (or `x / Sqrt(...)`, the square as
      `Pow(x, 2)`), optionally `* gamma`, with the mean over trailing axes with kept
      dimensions, becomes `graph.rms_normalization` (a Kiln extension op; a scale of ones
      without gamma).

    Products in either operand order; constants compared with a relative tolerance of
    1e-5; every intermediate value must have no use outside the pattern. Runs after
    graph-recognize-layer-norm: an RMSNorm of `x - ReduceMean(x)` is a LayerNorm and is
    left to that pass.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

def GraphUnflattenMatMuls : Pass<"graph-unflatten-matmuls", "::mlir::func::FuncOp"> {
  let summary = "Turn Reshape -> 2-D Gemm/MatMul -> Reshape into a matmul of the original shape";
  let description = [{
    Exporters flatten a `[B.., M, K]` activation to `[B*..*M, K]` for a Gemm or MatMul and
    reshape the `[B*..*M, N]` product back to `[B.., M, N]`. The chain becomes one
    `graph.matmul` of the `[B.., M, K]` input by the `[K, N]` weight (a matmul broadcasts a
    2-D right operand), with an Add for a row bias (Gemm's C, or an Add between the product
    and the reshape), so that the product has the shape its users read and the residual
    Add after it joins the matmul kernel's epilogue. A Gemm needs no trans_a, alpha 1 and,
    with C, beta 1; a trans_b Gemm's constant B is transposed at compile time. When the
    2-D operand is not a reshape of a `[B.., M, K]` value, a Reshape to that shape is
    inserted before the matmul (a prologue of its kernel). Static shapes only; the product
    (and Add) must be used only by the chain.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

def GraphFoldReshapeRoundTrips : Pass<"graph-fold-reshape-round-trips", "::mlir::func::FuncOp"> {
  let summary = "Fold reshape -> transpose -> reshape back into one transpose";
  let description = [{
    A Reshape that merges a tensor X's leading axes into one, a Transpose that leaves that
    axis in place, and a Reshape that splits it back into X's leading axes compute one
    Transpose of X (GPT-2's key: [B, H, S, D] -> [B*H, S, D] -> [B*H, D, S] ->
    [B, H, D, S] is transpose(X, [0, 1, 3, 2])). The extents are compared by the symbolic
    shape analysis, so dynamic batch and sequence extents fold as static ones do; the
    Transposes left next to each other are composed by graph-simplify.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

def GraphFuseSiblingMatMuls : Pass<"graph-fuse-sibling-matmuls", "::mlir::func::FuncOp"> {
  let summary = "Merge matmuls that share their input into one matmul and slices";
  let description = [{
    Two or more `graph.matmul` ops (or `graph.gemm` without trans_a, alpha 1) that read
    the same input with constant weights `[K, N_i]` (`[N_i, K]` with trans_b) of one
    element type, each used only by an optional Add of a constant bias that broadcasts
    along the last axis (or by one other op), become one matmul by the weights
    concatenated along N (a new constant built at compile time), one Add of the
    concatenated biases (zeros for siblings without one; no Add when none has one), and a
    `graph.slice` along the last axis per sibling. Attention's Q, K and V projections
    become one kernel reading the activation once. Static shapes only; at most 64 Mi
    weight elements per fused matmul (the siblings in program order that fit). Locations
    are the fused locations of the originals.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

//===----------------------------------------------------------------------===//
// Kernel passes (passes/kernel)
//===----------------------------------------------------------------------===//

def KernelPlanBuffers : Pass<"kernel-plan-buffers", "::mlir::func::FuncOp"> {
  let summary = "Give every intermediate buffer an offset in one arena, reusing memory by liveness";
  let description = [{
    The host schedule runs in order, so a buffer (`memref.alloc` at the top level of the
    function) is live from the first op that uses it, directly or through a view, to the
    last. Buffers are placed largest first at the lowest 256-byte aligned offset that no
    buffer live at the same time occupies. Each alloc gets `kernel.arena_offset`; the
    function gets `kernel.arena_bytes` (the planned peak) and `kernel.unplanned_bytes`
    (the sum of all buffers, what no reuse would take). The engine allocates the arena
    once and turns each buffer into an offset in it.
  }];
}

// The options of the passes that consult the template families (TemplateOptions,
// passes/kernel/KernelTemplate.h).
defvar KernelTemplateOptions = [
  Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
         "The GPU target whose template families apply (sm_90a, sm_80)">,
  Option<"allowTf32", "allow-tf32", "bool", /*default=*/"false",
         "f32 products and convolutions may run as tf32 (wgmma m64nNk8; ~1e-3 relative error)">,
  ListOption<"templates", "templates", "std::string",
             "The template families that may take kernels, by name (sm90_gemm, rows, ...); "
             "empty: all. The generic lowering always may">,
  Option<"gemmConfig", "gemm-config", "std::string", /*default=*/"\"\"",
         "Kernel developers: the configuration, by name (128x256x64_s4_ws2), that the GEMM "
         "and convolution families give untuned kernels where it is legal">,
  Option<"attentionConfig", "attention-config", "std::string", /*default=*/"\"\"",
         "Kernel developers: the flash-attention configuration every attention kernel takes "
         "where legal (BQxBKVxSTAGESxWARPS[xwgmma]); attention is then not tuned">,
  Option<"attentionF32Exp", "attention-f32-exp", "bool", /*default=*/"false",
         "Kernel developers: the wgmma attention kernels keep exp2 in f32">,
  Option<"attentionMinCtas", "attention-min-ctas", "int64_t", /*default=*/"0",
         "Kernel developers: the CTAs an SM the wgmma attention kernels ask ptxas to fit "
         "(0: the template's choice)">,
];

// What instantiating a template family's kernel may create.
defvar KernelTemplateDialects = [
  "::mlir::arith::ArithDialect",
  "::mlir::math::MathDialect",
  "::mlir::gpu::GPUDialect",
  "::mlir::LLVM::LLVMDialect",
  "::mlir::memref::MemRefDialect",
  "::mlir::nvgpu::NVGPUDialect",
  "::mlir::NVVM::NVVMDialect",
  "::mlir::scf::SCFDialect",
  "::mlir::ub::UBDialect",
  "::mlir::vector::VectorDialect",
];

def KernelAutotune : Pass<"kernel-autotune", "::mlir::ModuleOp"> {
  let summary = "Choose each kernel's configuration: timing cache, GPU measurement, or cost model";
  let description = [{
    For every `kernel.func` that has no `kernel.config` yet and a choice to make (the
    template family that takes it, passes/kernel/KernelTemplate.h, lists its legal
    configurations; with `#kernel.generic` they are the candidates), chooses one and
    records it as `kernel.config`, with
    `kernel.tuning = {source = "measured" | "cache" | "cost-model", micros = <f64>,
    signature = "<hex>"}` (the chosen configuration's time, measured or estimated, and
    the kernel's timing-cache key). kernel-instantiate-templates then generates what
    `kernel.config` asks.

    In order, per kernel:
    1. the timing cache (`timing-cache`, a JSON file; lib/tuning/TimingCache.h), keyed by
       the GPU, its driver, the kernel's signature (a SHA-256 of the kernel.func printed
       without its symbol name, locations and tuning attributes) and the configuration:
       the fastest cached legal configuration wins when every candidate is cached, or
       when nothing can measure the rest. A cached configuration that is not a candidate
       any more is ignored with a warning;
    2. with a timer (given by the driver: `kiln compile` on a machine with a GPU; never
       in kiln-opt) and while the `budget` (seconds of tuning) is not spent: every
       candidate not in the cache is compiled and timed; the fastest wins and every
       measurement goes into the cache; a candidate that fails is reported and skipped;
    3. the cost model (`estimateMicros`: waves, tile efficiency, bandwidth; docs/tuning.md).
    Kernels identical up to their name (same signature) are decided once. Without a timer
    the cache's GPU is the target's usual one (sm_90a: "sm_90 NVIDIA H200") measured under
    any driver. An unreadable, corrupt or foreign cache file is a warning naming it, then
    ignored (and replaced when new measurements are saved). Progress lines ("tuning [3/12]
    MatMul_12 1024x768x3072 f16: 2 configs ... best ...") go to the driver's callback.
  }];
  let options = !listconcat(KernelTemplateOptions, [
    Option<"timingCache", "timing-cache", "std::string", /*default=*/"\"\"",
           "The timing cache file (JSON); empty: no cache">,
    Option<"budget", "budget", "double", /*default=*/"300",
           "Seconds of GPU measurement at most; 0 never measures">,
  ]);
  // Matching a fused epilogue tries its ops' arithmetic (passes/kernel/Sm90Epilogue.h).
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
  ];
}


def KernelSelectTemplates : Pass<"kernel-select-templates", "::mlir::ModuleOp"> {
  let summary = "Give every kernel without a configuration its template family's default";
  let description = [{
    For every `kernel.func` without a `kernel.config`, the template family that takes it
    (the first in the registry's priority order, passes/kernel/KernelTemplate.cpp, whose
    candidates for the kernel on `target` are not empty) gives its default configuration
    (the first candidate; the `gemm-config` or `attention-config` one where a kernel
    developer names a legal one), as that family's configuration attribute
    (dialects/kernel/KernelAttrs.td); a kernel no family takes gets `#kernel.generic`.
    Runs after kernel-autotune, which records its choices for the kernels it tunes, so
    that every kernel says which code generator computes it before
    kernel-instantiate-templates.

    ```mlir
    kernel.func @MatMul_0(...) attributes {kernel.config = #kernel.sm90_gemm<tile_m = 128,
        tile_n = 128, tile_k = 64, stages = 4, consumers = 2>} { ... }
    ```
  }];
  let options = KernelTemplateOptions;
  // Matching a fused epilogue tries its ops' arithmetic (passes/kernel/Sm90Epilogue.h).
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
  ];
}

def KernelInstantiateTemplates : Pass<"kernel-instantiate-templates", "::mlir::ModuleOp"> {
  let summary = "Generate each kernel from its configuration, through its template family";
  let description = [{
    Every `kernel.func` whose `kernel.config` is a template family's configuration is
    generated by that family (KernelTemplate::instantiate): its kernel is instantiated
    into a `gpu.module` of the module (once per distinct kernel), each `kernel.launch` of
    it becomes the host code that launches it (tensor maps, grid, shared memory), and the
    `kernel.func` goes once no launch is left. A configuration that is not legal for its
    kernel (or of a family that does not take the kernel) is an error naming the kernel
    and the legal configurations. Kernels of `#kernel.generic`, or without a
    configuration, are left to kernel-to-linalg (the generic lowering). Families run in
    the registry's order, kernels in module order, so the module's gpu.modules come out
    in a stable order. Run on the kernel-formed module of a GPU target, after
    kernel-select-templates and before kernel lowering.
  }];
  let options = KernelTemplateOptions;
  let dependentDialects = KernelTemplateDialects;
}

//===----------------------------------------------------------------------===//
// Lowering passes (passes/lowering)
//===----------------------------------------------------------------------===//

def GraphToLinalg : Pass<"graph-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower the graph dialect to linalg, tensor, arith, math and scf on tensors";
  let description = [{
    Rewrites every graph op into upstream dialects on tensors: elementwise ops, reductions,
    normalisations and data movement into `linalg.generic` and named linalg ops, shape
    changes into `tensor` ops, control flow and data-dependent algorithms into `scf`. The
    result is the input of bufferization and of the CPU pipeline (`kiln-lower-to-cpu`).

    Graph tensor types with unsigned elements (`ui8`) become signless (`i8`); the ops that
    care (division, comparison, conversion) read the signedness from the graph types
    before conversion. Function signatures are converted the same way.

    The lowering of each op family lives in passes/lowering/graph-to-linalg/<Family>.cpp.
    An op, or a form of an op, without a lowering is an error that names it and the ONNX
    node it came from.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def GraphToKernel : Pass<"graph-to-kernel", "::mlir::ModuleOp"> {
  let summary = "Form kernels: one kernel.func per graph op, and a host schedule on buffers";
  let description = [{
    Every graph op becomes a `kernel.func` whose one template op (`kernel.matmul`,
    `kernel.conv`, `kernel.reduction`, `kernel.movement`, `kernel.pointwise`, or
    `kernel.generic` for the rest) holds the op on tensors, with copies of the small
    constants it reads (axes, shapes, scalars: at most 16 elements, or a splat). The
    template is chosen from the op's graph trait (Pointwise, Reduction, DataMovement).

    The function becomes the host schedule in destination-passing style: tensor arguments
    become memrefs, each result becomes an extra output argument (keeping its
    `graph.name`), larger constants become private `memref.global` weights, and every
    intermediate a `memref.alloc`. A kernel whose result is returned writes it straight
    into the output buffer; results that are inputs, weights or returned twice are copied
    there (`memref.copy`). Shapes must be static: a dynamic one is an error naming the
    node.
  }];
  let dependentDialects = [
    "::kiln::kernel::KernelDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def KernelToLinalg : Pass<"kernel-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower kernel templates through the generic path: bodies on buffers";
  let description = [{
    The generic lowering every template has: each `kernel.func` becomes a `func.func`
    whose body reads its input buffers as tensors (`bufferization.to_tensor`), computes the
    template's body (graph ops, lowered by graph-to-linalg afterwards) and stores each
    result into its output buffer (`bufferization.materialize_in_destination`); each
    `kernel.launch` becomes a `func.call`. Unsigned element types of buffers become
    signless, as graph-to-linalg does for tensors; the body still sees the graph types.
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def CpuStridedCopiesToLoops : Pass<"cpu-strided-copies-to-loops"> {
  let summary = "Turn strided memref.copy into linalg.copy, lowered to loops like the rest";
  let description = [{
    memref-to-llvm lowers a copy between contiguous buffers to `llvm.memcpy` but one with
    a strided layout (a slice of a larger buffer, from `tensor.insert_slice`, `tensor.pad`
    or a returned view) to a call into MLIR's C runner library, which neither the JIT nor
    an object file from `kiln compile --target cpu` links. As `linalg.copy`, it becomes
    a loop nest instead.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def ExpandShapesToCasts : Pass<"expand-shapes-to-casts"> {
  let summary = "Write expand_shapes with several dynamic extents a group as reinterpret_casts";
  let description = [{
    A `memref.expand_shape` that splits one extent into two or more dynamic ones
    (`[batch * sequence, 768]` into `[batch, sequence, 768]`, as the lowering of a product
    over dynamic batch dimensions leaves it) becomes the `memref.reinterpret_cast` of its
    source it is: sizes its `output_shape`, strides the source's, multiplied by the
    extents inside each group. Upstream's `expand-strided-metadata` (LLVM 22) crashes on
    such an op, so the CPU pipeline and the GPU kernels' lowering run this first. Other expand_shapes are left alone.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"];
}

def OrderConstantGlobals : Pass<"order-constant-globals", "::mlir::ModuleOp"> {
  let summary = "Give the constant globals bufferization made fixed names and a fixed order";
  let description = [{
    One-shot bufferization names the memref.globals of tensor constants `__constant_<type>`,
    uniqued with `_0`, `_1`, ... in the order it visits the functions, which follows no
    fixed order (maps keyed by pointers). This pass renames every `__constant_*` global in
    the order of its first use in the module (`__constant_<type>`, then `_0`, `_1`, ...)
    and moves them to the top of the module in that order, so that the same module always
    lowers to the same IR (and the engine to the same weights' layout). Run after the
    bufferization of the CPU and GPU pipelines.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def CpuOrderLoops : Pass<"cpu-order-loops"> {
  let summary = "Make the innermost loop of linalg ops unit-stride, so LLVM vectorizes it";
  let description = [{
    linalg-to-loops nests loops in the order of the op's dimensions, which puts reductions
    innermost: a matmul becomes `for i, j, k: C[i,j] += A[i,k] * B[k,j]`, whose inner loop
    strides through B and reduces into one scalar, and LLVM vectorizes neither without
    reassociating floating-point sums. This pass generalizes named ops and moves the
    parallel dimension that indexes the output's innermost extent to the innermost loop
    (`for i, k, j`), when every operand that uses it reads along its own innermost extent;
    the inner loop then streams contiguous rows, which LLVM vectorizes exactly.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def GpuFuseLoopNests : Pass<"gpu-fuse-loop-nests", "::mlir::func::FuncOp"> {
  let summary = "Merge a bufferized kernel's loop nests into as few launches as possible";
  let description = [{
    Runs on the GPU path's kernel functions after bufferization and
    convert-linalg-to-parallel-loops, before they are inlined into the schedule: every
    top-level scf.parallel becomes one launch, so a kernel whose template lowered to
    several nests (padding, initialisation, accumulation, the fused epilogue) is merged.

    - Allocations of static shape move to the top of the function.
    - A nest that writes every element of a local buffer once, at its induction
      variables, from straight-line loads, index arithmetic, comparisons, selects and at
      most four float operations (padding, broadcasts, transposes), is recomputed at each
      load of that buffer; the nest and the buffer go away. With any other side-effect-free
      arithmetic (a quantization's division, rounding and conversion) too, where the
      buffer's one reader reads each element once (a transpose). What it reads must not be
      written after it.
    - Adjacent nests with the same constant iteration space (nothing with side effects
      between them) become one when the later one touches what the earlier one writes, and
      writes what the earlier one reads, only at the same element in the same iteration.
      A later nest over the earlier one's space and a row of at most 4096 more elements
      (normalising the rows just reduced) becomes a row kernel, one thread per row, when
      there are at least 65536 rows (fewer cannot fill the GPU).
    - In the fused bodies a load of an element stored earlier in the same block takes the
      stored value; local buffers that are then only written are removed.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect"];
}

def GpuPromoteAccumulators : Pass<"gpu-promote-accumulators", "::mlir::func::FuncOp"> {
  let summary = "Accumulate a loop's reduction in a register instead of its output element";
  let description = [{
    Runs on the GPU path's kernel functions after convert-linalg-to-parallel-loops, before
    gpu-fuse-loop-nests. An scf.for whose body loads an element, combines it and stores it
    back at the same indices (fixed for the loop), writing nothing else and reading only
    other buffers (other allocations, function arguments or globals, through views),
    carries the element in an iter_arg instead: one load before the loop (or the value a
    store just before it wrote, that store then dropped) and one store after it. Nested
    reduction loops are promoted innermost first, so the whole window accumulates in one
    register. Without it each iteration's load waits for the previous store: LLVM cannot
    tell the kernel's buffers apart.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect"];
}

def GpuSharedMemorySymbols : Pass<"gpu-shared-memory-symbols", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare the kernels' shared memory globals so that NVPTX lays them out right";
  let description = [{
    Runs on gpu.modules after convert-gpu-to-nvvm, which leaves shared memory as LLVM
    globals in address space 3:
    - the dynamic shared memory symbol (`gpu.dynamic_shared_memory`'s zero-length byte
      array, internal, no initializer) becomes an external declaration, which NVPTX
      prints as `.extern .shared .align A .b8 name[]`: the start of the dynamic shared
      memory, after the static variables. As an internal array it is printed as a one-byte
      static variable, and a kernel with static shared variables as well accesses its
      dynamic memory over them.
    - every other shared global gets an explicit alignment of at least 16 bytes. LLVM
      assumes 16 for a global larger than 16 bytes without one and vectorizes its accesses
      accordingly, while NVPTX declares it with its element type's alignment.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def GpuExpandArith : Pass<"gpu-expand-arith", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Expand the arith ops the NVPTX backend cannot select, keeping min and max";
  let description = [{
    Rewrites ceildivsi, ceildivui and floordivsi into integer arithmetic and bf16
    extensions and truncations into integer operations, as upstream's arith-expand does,
    but leaves maximumf, minimumf, maxnumf and minnumf alone: NVPTX selects each as one
    instruction (max.NaN.f32, max.f32, ...), where arith-expand's compare and select take
    two or three. Runs on the kernels' gpu.modules before their conversion to NVVM.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def GpuFlattenPointwiseLoops : Pass<"gpu-flatten-pointwise-loops", "::mlir::func::FuncOp"> {
  let summary = "Make pointwise loop nests of run-time extents one-dimensional";
  let description = [{
    Runs on the GPU path's host function before gpu-map-loops. A top-level scf.parallel
    from 0 in steps of 1 with an upper bound known at run time only, whose induction
    variables are used only as the complete index list, in order, of loads and stores
    of buffers defined outside it, each of identity layout and with the nest's extents
    (the same constants; for run-time ones the sizes its allocation or view was made
    with, or a memref.dim of it), becomes one loop over the product of the bounds, the
    accesses going through memref.collapse_shape views of the buffers. gpu-map-loops
    then needs no division by run-time extents to find a thread's element. Nests with
    constant bounds (whose divisions are multiplications) and any other use of an
    induction variable (broadcasts, transposes) are left as they are.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def GpuMapLoops : Pass<"gpu-map-loops", "::mlir::func::FuncOp"> {
  let summary = "Turn the compute of a bufferized host function into gpu.launch ops";
  let description = [{
    The GPU path's host functions arrive bufferized, inlined and with linalg turned
    into loops: allocations, weights (`memref.get_global`), views and index arithmetic
    at the top level, between the compute (scf.parallel nests, scf.for, loads, stores,
    copies, leftover linalg ops on memrefs). The engine runs the host function as a
    schedule, so every piece of compute must become a kernel launch and everything the
    schedule itself needs (buffer sizes, views, launch sizes) must stay a host value.

    - An `scf.parallel` with constant lower bounds and steps, and upper bounds the host
      knows (constants, or index arithmetic on buffer extents: a dynamic shape), becomes
      one launch with one thread per iteration of its iteration space, linearised
      row-major: `threads-per-block` threads per block, ceil(total / threads-per-block)
      blocks, on grid y too when x would exceed 2^31-1 blocks, and an `scf.if` guarding
      the tail. For dynamic bounds the grid is host arithmetic on them, which the engine
      evaluates per input shape. Each thread delinearises its index into the loop's
      induction variables. Loops nested inside
      (reductions as scf.for, inner scf.parallel, which becomes scf.for) run
      sequentially in the thread. Copies and linalg ops at the top level become such
      nests first (a copy is an elementwise kernel; no memref.copy stays on the host).
    - Every other maximal run of consecutive compute ops (top-level scf.for, scf.if,
      loads and stores, loops with dynamic bounds) becomes one single-thread launch, in
      order: correct first, kernel templates make the hot paths fast.
    - Shape buffers (small index buffers a dynamic reshape bufferizes to, stored at the
      top level) become the values stored in them: loads read the values, and each
      memref.reshape becomes a memref.reinterpret_cast, so sizes stay host values.
    - Allocations (allocas become allocs: buffers live on the device across launches),
      get_global, views, deallocations, constants and memory-effect-free scalar
      arithmetic on host values (divisions included) stay on the host; allocations and views move before the launches that
      follow them. If one of them needs a value computed from memory contents (a
      data-dependent shape), it is an error: "data-dependent shape: not supported on
      the GPU path yet". A scalar computed by one kernel and used by a later kernel
      goes through a 0-d buffer.

    Views, constants and index arithmetic are recomputed inside each kernel, so a
    kernel's operands are base buffers (function arguments, allocations, globals) and
    the function's scalar arguments only (buffers of dynamic shape included: see
    gpu-pass-buffer-extents). Each launch carries a kernel name for
    gpu-kernel-outlining: the ONNX node in the compute's location (or a `kiln.source`
    string attribute), else the function's name, with `_k<N>`; all kernels of a function
    go to the gpu.module `<function>_kernels`.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", /*default=*/"256",
           "Threads per block of the launches of parallel loops">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def GpuPassBufferExtents : Pass<"gpu-pass-buffer-extents", "::mlir::ModuleOp"> {
  let summary = "Pass buffers of dynamic shape to kernels as static bases and extents";
  let description = [{
    The bare-pointer calling convention the kernels are lowered with takes memrefs of
    static shape only. After gpu-kernel-outlining, every kernel argument of dynamic shape
    (identity layout: a base buffer) becomes a `memref<1xT>` view of the buffer's start
    (a `memref.reinterpret_cast` on the host, which the engine reads as the buffer's own
    address) followed by one index argument per dynamic extent (`memref.dim` on the host,
    evaluated per input shape); the kernel turns them back into the buffer with a
    `memref.reinterpret_cast` of row-major strides. Kernels launched more than once are
    rewritten once. A dynamic buffer with another layout is an error.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

//===----------------------------------------------------------------------===//
// Graph simplification passes (passes/graph)
//===----------------------------------------------------------------------===//

def GraphSimplify : Pass<"graph-simplify", "::mlir::func::FuncOp"> {
  let summary = "Remove no-op data movement and merge chains of reshapes, transposes and casts";
  let description = [{
    Local rewrites applied greedily to a fixed point:
    - dead pure ops are removed; `x + 0`, `x - 0`, `x * 1`, `1 * x`, `x / 1` become `x`
      (the constant a splat that does not broadcast `x` to another type);
    - Transpose by the identity, and Reshape, Expand, Cast, Squeeze, Unsqueeze and Flatten
      whose result has their input's type, are removed (Reshape and Expand only where the
      type determines the shape);
    - Transpose of Transpose becomes one Transpose (none when the permutations cancel),
      also through a Reshape between them that only inserts or removes unit dimensions
      (the outer Transpose moves before the Reshape; static shapes);
    - two of Reshape, Flatten, Squeeze, Unsqueeze in a row become one Reshape to a
      constant shape (none when they cancel, e.g. Unsqueeze then Squeeze of one axis);
    - Cast of a Cast whose middle type holds every source value exactly (f16 -> f32 -> x,
      i8 -> i32 -> x) becomes one Cast;
    - a Slice that takes every element with step 1 and a Concat of one input are removed;
    - a Split into static parts becomes one Slice per used part.
    A value is only replaced by one of the same type.
  }];
}

def GraphFoldBatchNorm : Pass<"graph-fold-batch-norm", "::mlir::func::FuncOp"> {
  let summary = "Fold inference BatchNormalization into the conv or matmul before it";
  let description = [{
    An inference-mode BatchNormalization with constant scale, B, mean and variance is
    `x * s + t` per channel, `s = scale / sqrt(var + eps)`, `t = B - mean * s`. When `x`
    comes from a `graph.conv`, a `graph.gemm` with a constant `b` (and a `c` equal for
    every row), or a 2-D `graph.matmul` with a constant right operand, possibly followed
    by a `graph.add` of a constant bias, used by nothing else, the weight is scaled per
    output channel and the bias becomes `bias * s + t` (created when absent). Otherwise
    the BatchNorm becomes `graph.mul` and `graph.add` by `[C, 1, ..., 1]` constants, which
    fusion treats as pointwise. Training-mode BatchNorms and ones with non-constant
    parameters are left alone. Weights are f16, bf16, f32 or f64 constants (dense or
    resource blobs); the arithmetic is in double, rounded once to the weight's type.
  }];
}

//===----------------------------------------------------------------------===//
// Layout (passes/graph)
//===----------------------------------------------------------------------===//

def GraphReducePrecision : Pass<"graph-reduce-precision", "::mlir::func::FuncOp"> {
  let summary = "Compute in f16 or bf16 where accuracy allows, with f32 islands (--fp16, --bf16)";
  let description = [{
    Every op on f32 tensors that has a reduced-precision rule computes in `type` (f16 or
    bf16): a clone of it on reduced operands with reduced results, kept only if it
    verifies. Products, convolutions, attention, softmax, the normalisations, pooling and
    sums inside kernels accumulate in f32 whatever their operands, so they are reduced;
    so are the pointwise ops whose results stay in their operands' range and data
    movement (Resize's coordinates stay f32). Ops stay in f32 (islands), with a cast on
    each side, when:
    - they leave the range: Exp, Log, Pow, Reciprocal, Softplus, Mish;
    - they sum or multiply into the result: ReduceSum, ReduceSumSquare, ReduceL1,
      ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceProd, CumSum, LpNormalization, LRN;
    - they convert an integer (beyond 2048 not exact in f16) or to an integer, and the
      pointwise and data-movement ops whose f32 values reach a conversion to an integer
      (index arithmetic must stay exact);
    - they have regions (If, Loop, Scan), or no rule here (an allow-list).
    Constants are converted at compile time, finite values beyond the type's range
    saturated at its largest value. The function's f32 inputs and outputs keep f32 (casts
    at the boundary) unless `convert-io`. With `emit-remarks`, a remark for each op kept
    in f32 (why) and a summary on the function.
  }];
  let options = [
    Option<"type", "type", "std::string", /*default=*/"\"f16\"",
           "The reduced type: f16 or bf16">,
    Option<"convertIo", "convert-io", "bool", /*default=*/"false",
           "The function's f32 inputs and outputs take the reduced type too">,
    Option<"emitRemarks", "emit-remarks", "bool", /*default=*/"false",
           "A remark for every op kept in f32, and a summary">,
  ];
}

def GraphQuantizeInt8 : Pass<"graph-quantize-int8", "::mlir::func::FuncOp"> {
  let summary = "Post-training INT8: QuantizeLinear/DequantizeLinear from a calibration cache";
  let description = [{
    Every `graph.conv`, `graph.matmul` and `graph.gemm` with an f32 activation (operand 0,
    not already the result of a DequantizeLinear) and a constant f32 weight gets what a
    quantization-aware export carries: the activation through QuantizeLinear and
    DequantizeLinear (symmetric per-tensor int8, scale = threshold / 127, the threshold
    read from `calibration-cache` under the key `<ONNX node>:0`), and the weight quantized
    at compile time per output channel (scale max|w| / 127 a channel; matmul weights
    other than 2-D per tensor) into an int8 constant read through a DequantizeLinear.
    Biases stay f32. An activation without a threshold in the cache stays f32 (a remark
    with `emit-remarks`). The cache is the file `kiln compile --int8 --calib` writes
    (docs/quantization.md); a cache that cannot be read is an error naming the file.
  }];
  let options = [
    Option<"calibrationCache", "calibration-cache", "std::string", /*default=*/"\"\"",
           "The calibration cache (JSON) with each activation's threshold">,
    Option<"emitRemarks", "emit-remarks", "bool", /*default=*/"false",
           "A remark for each activation without calibration, and a summary">,
  ];
}

def GraphFoldQuantizedProducts : Pass<"graph-fold-quantized-products", "::mlir::func::FuncOp"> {
  let summary = "Convolutions and matrix products of dequantized int8 operands as integer ones";
  let description = [{
    `graph.conv(DQ(xq, sx), DQ(wq, sw), b)` with `xq` an i8 tensor, `sx` a scalar f32
    constant, `wq` an i8 constant, `sw` an f32 constant scalar or one per output channel
    (axis 0), zero points absent or 0 and group 1 becomes `graph.conv %xq, %wq` with an
    i32 result, `graph.dequantize_linear` of it by the constant `sx * sw` along the output
    channel axis, and `graph.add` of the bias ([M, 1, ...] channels first, [M] channels
    last; constants reshaped at compile time). Likewise `graph.matmul(DQ(xq, sx), DQ(wq,
    sw))` by a 2-D [K, N] weight (`sw` scalar or per column, axis 1) becomes `graph.matmul
    %xq, %wq` into i32 and its rescale along the last axis, and `graph.gemm` (no trans_a,
    alpha and beta 1; `sw` per column of B') that matmul by B' (a trans_b weight transposed
    at compile time) followed by the add of C. The form graph-quantize-int8 and QAT
    exports leave, made the int8 tensor-core kernels' input; ops that do not match stay as
    they are. The dequantized activation stays for its other readers.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
  let statistics = [
    Statistic<"numFolded", "folded", "Convolutions and products made integer ones">,
  ];
}

def GraphHoistQuantization : Pass<"graph-hoist-quantization", "::mlir::func::FuncOp"> {
  let summary = "QuantizeLinear in front of the MaxPool it reads";
  let description = [{
    `Q(max_pool(x))` becomes `max_pool(Q(x))` when every reader of the pool is a
    QuantizeLinear by the same positive scalar scale and zero point and its indices are
    unread: quantization is monotonic, so it commutes with taking a maximum. The producer
    of `x` (a stem convolution) then stores int8, and the pool moves int8.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
  let statistics = [
    Statistic<"numHoisted", "hoisted", "Max pools moved after a quantization">,
  ];
}

def GraphDecomposeQuantization
    : Pass<"graph-decompose-quantization", "::mlir::func::FuncOp"> {
  let summary = "quantize_linear and dequantize_linear as pointwise graph ops";
  let description = [{
    So that kernel formation fuses them (they have no Pointwise trait), into a conv's
    epilogue say: `graph.dequantize_linear %x, %s, %zp` (block_size 0, an integer `x`, an
    f32 scale constant scalar or 1-D along `axis`, an f32 result) becomes `graph.cast` to
    f32, minus the zero point when it is not 0, times the scale (a per-axis one a constant
    shaped to broadcast along `axis`). `graph.quantize_linear %x, %s, %zp` (an f32 `x`, a
    scalar f32 scale constant, an i8, ui8, i16 or ui16 result, block_size 0) becomes
    `graph.cast(graph.clip(graph.round(x / s) + zp, qmin, qmax))`: ONNX's rounding (half to
    even) and saturation. Everything else (per-axis quantization, float8 and 4-bit types,
    blocked scales, non-constant scales) stays as it is.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
  let statistics = [
    Statistic<"numDecomposed", "decomposed", "quantize_linear and dequantize_linear decomposed">,
  ];
}

def GraphConvertLayout : Pass<"graph-convert-layout", "::mlir::func::FuncOp"> {
  let summary = "Channels-last (NHWC) convolutions, their transposes sunk and cancelled";
  let description = [{
    Every 2-D `graph.conv` with static shapes (but the batch) and a constant weight
    becomes `transpose(NCHW -> NHWC)`, the conv with `channels_last` (its weight permuted
    to [M, KH, KW, C / group] at compile time), `transpose(NHWC -> NCHW)`: the layout
    implicit-GEMM convolutions on tensor cores read, the channels (the reduction) being
    contiguous. With `tensor-core-only`, only convs that are not depthwise and have C /
    group and M / group multiples of 8 are picked on their own.

    The NHWC -> NCHW transposes then move towards their uses: through pointwise ops (a
    constant operand is permuted and folded, a scalar kept, a value that needs only
    unit dimensions moved is reshaped, a transpose by the same permutation taken off),
    through `graph.quantize_linear` and `graph.dequantize_linear` that are not blocked
    (a per-axis `axis` mapped through the permutation), through `graph.max_pool` with
    unused indices (it gets `channels_last`),
    `graph.global_average_pool` (a `graph.reduce_mean` over the spatial axes) and any
    conv that can be channels last (whatever the rule), and they compose with the next
    conv's NCHW -> NHWC transpose into nothing (graph-simplify's patterns). A conv left
    between its two transposes (nothing next to it took the layout) goes back to channels
    first: alone it would pay two transposes for nothing. Layout transposes that only
    move dimensions of extent 1 become reshapes. The model's own
    transposes are not moved. What is left is counted (`transposes-left` statistic,
    and a remark with `emit-remarks`).
  }];
  let options = [
    Option<"tensorCoreOnly", "tensor-core-only", "bool", /*default=*/"false",
           "Pick only convs with C / group and M / group multiples of 8, not depthwise "
           "(convs after a channels-last value follow it regardless)">,
    Option<"globalPoolAsReduceMean", "global-pool-as-reduce-mean", "bool",
           /*default=*/"false",
           "Sink transposes through global_average_pool as a reduce_mean over the spatial "
           "axes (off: the pool reads through the transpose, fused as its prologue)">,
    Option<"emitRemarks", "emit-remarks", "bool", /*default=*/"false",
           "Remark on each function: convs converted, transposes left">,
  ];
  let statistics = [
    Statistic<"numConverted", "convs-channels-last", "Convs channels last after the pass">,
    Statistic<"numTransposesLeft", "transposes-left", "graph.transpose ops after the pass">,
  ];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

#endif // KILN_PASSES
