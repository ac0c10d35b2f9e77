//===- Passes.td - The kernel passes ------------------------------*- tablegen -*-===//
//
// Kernel passes (passes/kernel): tuning, the template families, the buffer plan.
// Each is implemented in its own file beside this one and tested in
// test/passes/<name>.mlir (the template families in test/codegen/).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL
#define KILN_PASSES_KERNEL

include "mlir/Pass/PassBase.td"

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
         "and convolution families give untuned kernels where it is legal (a warning "
         "names each kernel where it is not)">,
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
    1. the timing cache (`timing-cache`, a JSON file; passes/kernel/TimingCache.h), keyed by
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

#endif // KILN_PASSES_KERNEL
