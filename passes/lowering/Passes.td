//===- Passes.td - The lowering passes ------------------------------*- tablegen -*-===//
//
// Lowering passes (passes/lowering): graph to kernel and linalg, the generic lowering, the CPU and GPU lowerings.
// Each is implemented in its own file beside this one and tested in
// test/passes/<name>.mlir (the template families in test/codegen/).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_LOWERING
#define KILN_PASSES_LOWERING

include "mlir/Pass/PassBase.td"

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
    An op, or a form of an op, without a lowering is an error that names it, the ONNX
    node it came from and the path that needed it (`path`: the CPU path, or the GPU
    path's generic kernels, which this lowering also serves).
  }];
  let options = [
    Option<"path", "path", "std::string", "\"the CPU path\"",
           "The path the lowering serves, as its errors name it">,
  ];
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
    there (`memref.copy`). Dynamic extents are host values: the input shapes' symbols,
    and data-dependent ones read back (docs/dynamic-shapes.md).

    An If runs on the host: an `scf.if` on its condition (host arithmetic where the input
    shapes determine it, else a load of its buffer) whose branches hold their own kernels
    and yield their results' buffers; `gpu-predicate-branches` later makes the branches
    straight-line launches predicated on the condition.
  }];
  let dependentDialects = [
    "::kiln::kernel::KernelDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
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

def ElideOutputCopies : Pass<"elide-output-copies", "::mlir::func::FuncOp"> {
  let summary = "Let a bufferized kernel compute into its output instead of copying there";
  let description = [{
    Runs on the GPU path's kernel functions right after bufferization. A kernel whose
    result is a reshape of a temporary it computed (a transposed convolution's phases
    interleaved, then collapsed) bufferizes into the temporary, a collapse_shape (or
    expand_shape) view and a `memref.copy` into the output argument: one more pass over
    every byte. The temporary becomes the output argument seen through the inverse
    reshape, and the copy goes; likewise a temporary copied whole into an output of its
    type. Only where the temporary is a static, identity-layout allocation whose other
    users all precede the copy in its block, the reshape feeds only the copy, and the
    output is an identity-layout argument that nothing else touches.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
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

def GpuInterchangeReductions : Pass<"gpu-interchange-reductions", "::mlir::func::FuncOp"> {
  let summary = "Order each linalg op's parallel loops before its reductions";
  let description = [{
    Runs on the GPU path's kernel functions before convert-linalg-to-parallel-loops, which
    nests an op's loops in the order of its iterators. A reduction over a leading or middle
    axis (ReduceSum over axis 0 of a matrix, a softmax or ArgMax over axis 0) would become
    an `scf.for` over the reduced axis around an `scf.parallel` over the outputs, which
    gpu-map-loops runs as one single-thread launch. Each linalg op whose reduction
    iterators are not last is interchanged (`linalg::interchangeGenericOp`; a named op is
    generalized first) to the parallel iterators in their order, then the reductions in
    theirs: a thread an output, neighbouring threads on neighbouring elements. A linalg
    op's value does not depend on its loop order (up to the reduction's rounding).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
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

def GpuProgrammaticLaunch : Pass<"gpu-programmatic-launch", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Begin every kernel with griddepcontrol.wait, for programmatic dependent launch";
  let description = [{
    For sm_90 and later. Puts `nvvm.griddepcontrol launch_dependents` and then
    `nvvm.griddepcontrol wait` at the start of every kernel of the gpu.module and marks
    the module `kernel.programmatic_launch`. The engine launches such kernels with
    programmatic stream serialization: a kernel's CTAs may be scheduled while the grid
    before it in the stream is still running (once all of that grid's CTAs have been),
    and wait on the GPU until it has completed and its memory is visible, instead of the
    launch waiting for it. Nothing of the kernel runs before the wait, so any kernel may
    be launched so; launched without the attribute, the wait returns at once.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::kiln::kernel::KernelDialect"];
}

def GpuApproximateErf : Pass<"gpu-approximate-erf", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Compute erf in the kernels by a branch-free rational approximation";
  let description = [{
    Rewrites each `math.erf` of f32 (scalar or vector; f16 and bf16 ones on f32, rounded
    once) into erf(x) = x P(x^2) / Q(x^2) on x clamped to [-3.9, 3.9], P and Q of degree
    5 (a fit of Kiln's own, 1.5e-8 in exact arithmetic; 3.3e-7 at most in f32 with the
    approximate division, against libdevice's 2 ulp), the result clamped to [-1, 1]:
    about 17 instructions, none of them a branch. libdevice's `__nv_erff`, which the
    kernels called before, takes about 27 and two data-dependent branches, which diverge
    within a warp over activations of both signs of size; in a GEMM's GELU epilogue it
    was most of the epilogue's instructions (docs/notebook/2026-11-28-11). NaN stays NaN
    (the clamps propagate it). Runs on the kernels' gpu.modules before their conversion
    to NVVM.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect"];
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

def GpuVectorizePointwiseLoops : Pass<"gpu-vectorize-pointwise-loops", "::mlir::func::FuncOp"> {
  let summary = "Give each iteration of a pointwise nest's innermost loop 16 bytes";
  let description = [{
    Runs on the GPU path's host function before gpu-map-loops, which gives each
    iteration of a top-level scf.parallel a thread; the nests it takes are those, and the
    loops of a thread's lanes in a nest of CTAs (gpu-tile-transposes: scf.parallel ops
    without a mapping inside one mapped to block_x). A nest whose innermost loop runs from
    0 in steps of 1 to a constant multiple of V, where V is the most lanes up to 16 bytes
    of the widest element it accesses along that loop (at most 8) that divide the extent
    (at least 2), has its innermost step made V when: the innermost induction variable
    is used as the last index of loads and stores, shifted by constant multiples of V
    (addi, subi: a concatenation's second operand read at `i - C`) or by a value its
    arithmetic makes a multiple of V (`i + b`, b a product with a multiple of V, or a sum
    of such: a thread's base in a tile) to such an index, compared with a constant where
    its value changes at a multiple of V (`i < C`, `i >= C` with C a multiple, `i <= C`,
    `i > C` with C + 1 one: the same in every lane of a vector, so it stays scalar), as a
    value of elementwise arith and math ops (index arithmetic included), or as another
    index of a load into a dimension whose static stride is below 32 bytes (a sampling
    grid's [.., 2] rows; a larger stride is a transpose, left to gpu-tile-transposes);
    every store is an access along it with no other index depending on it (a store of the
    same element in every iteration is not pointwise); each buffer accessed along it has
    a unit innermost stride and a static offset and other strides that are multiples of V
    (its rows start 16-byte aligned, the engine aligning buffers to 256 bytes); and the
    body is otherwise loads (whose indices may depend on it: gathers),
    memory-effect-free ops that do not depend on it, elementwise arith and math ops, and
    scf.if / scf.index_switch on values that do not depend on it (a concatenation's
    choice of operand) whose regions hold the same, without stores, and scf.for loops
    whose bounds do not depend on it, carrying integers or floats, whose bodies hold the
    same without stores (a reduction, its accumulator carried by the loop after
    gpu-promote-accumulators). First, in a top-level nest, an access whose index before
    a run of constant zeros into static unit dimensions is the innermost variable (a
    pool's result [B, C, 1, 1] written at [b, c, 0, 0]) is made an access of a
    memref.collapse_shape view without them (made before the nest), at the same indices
    less the zeros.
    The accesses along the variable become vector.load and vector.store of V elements,
    the loads independent of it stay scalar and are splat where a vector op uses them, a
    load at positions that depend on it otherwise becomes one scalar load a lane (at the
    lane's indices) gathered into a vector, the variable used as a value becomes the
    vector of the lanes' values (its splat plus 0, 1, ...), and the arithmetic on the
    varying values is cloned on vectors of V (a choice keeps its op, with vector results
    and its regions vectorized; a loop carries a vector for each value whose initial
    value or yielded value varies, found by iterating over its body until none changes).
    Strided reads: the variable times a constant s of 2 to 4, plus or minus values the
    same in every lane (affine.apply ops in the nest are expanded into arith first), is
    a strided index; a load whose last index is strided with the offset c in [0, s) by
    its arithmetic (constants and loop variables of constant bounds: a pool's window
    position `2 w + kw`), its other indices invariant, and a buffer whose rows hold
    s x V aligned elements and reach s times the variable's extent, reads the s x V
    elements from s times the variable as one vector.load and takes every s-th from c
    (vector.shuffle; one for each c it may be, chosen by it); other strided reads gather,
    and a strided index in another index position of a dimension whose stride is 32
    bytes or more leaves the nest alone (a pool fused with a transpose). Each thread then
    does V of the original iterations, its stores 16 bytes wide, computing the same
    values.
  }];
  // (The vector dialect is loaded by the pass itself: its header stays out of Passes.h.)
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def GpuPredicateBranches : Pass<"gpu-predicate-branches", "::mlir::func::FuncOp"> {
  let summary = "Run the branches of a host scf.if as launches predicated on its condition";
  let description = [{
    Runs on the GPU path's host function before gpu-map-loops. A top-level `scf.if`
    whose branches hold parallel work (scf.parallel nests, template launches, copies,
    buffers: an ONNX If whose branch runs NonMaxSuppression) would run whole in one
    single-thread launch. Its branches' ops move before it instead, predicated on the
    condition (read back by `kernel.read_back` where a kernel computes it):

    - an `scf.parallel`'s first upper bound becomes `select(taken, upper, lower)`, a
      `gpu.launch_func`'s grid x `select(taken, x, 0)`, a `memref.copy` copies
      `select(taken, rows, 0)` rows: the branch not taken launches empty grids, which
      the engine skips;
    - allocations, views, scalar arithmetic and the stores that fill a dynamic
      reshape's shape buffer (in the branch or hoisted out of it by
      gpu-hoist-allocations) move as they are;
    - other ops with scalar results (sequential loops, stores) run inside an `scf.if` on
      the predicate;
    - a nested `scf.if` with such work is predicated the same way, on both conditions;
    - a scalar result becomes a select, a buffer result a new buffer of the taken
      branch's extents that the taken branch's buffer is copied into.

    An `scf.if` with an op none of these handles (one with buffer results other than a
    nested `scf.if`) stays as it is.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect", "::kiln::kernel::KernelDialect"];
}

def GpuHoistAllocations : Pass<"gpu-hoist-allocations", "::mlir::func::FuncOp"> {
  let summary = "Move the allocations nested in compute out to the host function's top level";
  let description = [{
    Runs on the GPU path's host function before gpu-map-loops. An allocation nested in
    compute (a branch of an scf.if, the body of a Loop's scf.while or a Scan's scf.for)
    would run inside the kernel made of that compute, as a device-heap malloc that
    nothing frees. Each moves out one region at a time to the top level, where the
    memory plan places it:

    - out of a branch (scf.if, scf.index_switch, scf.execute_region), which runs at
      most once each time its parent does;
    - out of a sequential loop (scf.for, scf.while) when one buffer can serve every
      iteration: the buffer does not reach the values the loop carries into its next
      iteration, or where it does, every use of those values in the next iteration runs
      before the allocation (an scf.while's before region runs before its after region;
      within a block, textual order). The values that may share the buffer are followed
      through views, casts, selects and region ops, conservatively.

    An allocation whose sizes are computed inside its region, inside an scf.parallel
    (whose iterations become threads), or whose buffer is still in use when the next
    iteration allocates, stays; gpu-map-loops then refuses it.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def GpuMergeShortRows : Pass<"gpu-merge-short-rows", "::mlir::func::FuncOp"> {
  let summary = "Merge a nest's short odd rows with the loop around them";
  let description = [{
    Runs on the GPU path's host function before gpu-vectorize-pointwise-loops, which
    vectorizes a nest's innermost loop only where its lanes divide the extent. A
    top-level scf.parallel without reductions or mapping whose last two loops run from 0
    in steps of 1 to constants A and B, B odd and below 16, A * B even, and whose every
    store is directly in its body and writes a buffer at those two variables (a, b) as
    its last two indices (neither among the others), the buffer's last two dimensions
    contiguous (strides B and 1, innermost extent B), has those loops merged into one, f
    over [0, A * B). Loads and stores at (a, b) of buffers contiguous over them access a
    memref.collapse_shape view merging their last two dimensions (made before the nest)
    at f; the other uses of a and b become f / B and f % B (arith.divui, arith.remui).
    A CNN's input converted to channels last ([B, 3, H, W] to [B, H, W, 3]) then stores
    runs of 3W elements, which the vectorizer takes 16 bytes at a time, its reads
    gathered.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def GpuSerializeInvariantDims : Pass<"gpu-serialize-invariant-dims", "::mlir::func::FuncOp"> {
  let summary = "Run a dimension of a nest inside each thread when most work does not depend on it";
  let description = [{
    Runs on the GPU path's host function after gpu-vectorize-pointwise-loops and before
    gpu-map-loops, which gives each iteration of a top-level scf.parallel a thread. In a
    nest without reductions, mapping or nested parallel loops, the ops of the body that
    do not depend on a variable d (transitively; free of memory effects, or reading only
    buffers the nest does not write; without regions) can run once for several
    iterations of d. For the variable other than the innermost, from 0 in steps of 1 to
    a constant, whose such ops are the most work (ops counted, constants not), at least
    16 and at least the work of the rest, T iterations of d a thread become an scf.for
    after those ops; T is the most iterations up to 16 that divide d's extent and leave
    at least 2^18 iterations in the nest (run-time extents count as 1). The nest keeps
    d's extent divided by T (or loses d where T is all of it). Sampling ops gain most:
    a GridSample's tap positions are computed once for 16 channels, a nearest Resize's
    source indices once for 16 channels or images. The loop runs U iterations a turn
    (4 or 2, dividing T), their stores after all their other ops, where its ops hold no
    regions, write only through result-free ops and read no buffer the nest writes; U
    keeps the turn's loaded values within 32 32-bit registers.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def GpuTileTransposes : Pass<"gpu-tile-transposes", "::mlir::func::FuncOp"> {
  let summary = "Stage a nest's transposed reads through shared-memory tiles";
  let description = [{
    Runs on the GPU path's host function before gpu-vectorize-pointwise-loops and
    gpu-map-loops, which gives consecutive threads consecutive iterations of a top-level
    scf.parallel's innermost variable j. A read whose contiguous axis follows another
    variable k (a transpose) then strides from thread to thread. A nest from 0 in steps
    of 1, with a store whose last index is `j + c` into a buffer of unit innermost
    stride, and loads directly in its body whose last index is `k + c` (k not j; sums and
    constant multiples of the variables are followed) into such a buffer, whose other
    indices depend on j, and whose indices are computed without reading memory, is tiled
    along the k that most of those loads share, when the extents of j and k are unknown
    or at least 16.

    A thread moves L elements at once: 4 bytes of the narrowest such read (2 for f16, 4
    for 8-bit elements) where every one has the variable itself as its last index, rows
    aligned to L elements (unit innermost stride, static offset and strides multiples of
    L) and a constant extent along k that L divides; 1 otherwise. One CTA of 32 x 8
    threads takes a tile of 32L x 32L iterations of (k, j) at a point of the other
    variables. In a first phase, thread x reads elements k0 + Lx to k0 + Lx + L - 1 (one
    vector) of rows j0 + y, j0 + y + 8, ... of each such load and writes them down a
    column of its workgroup buffer (32L rows along j, each padded by L elements: an odd
    number of 4-byte words; at most 48 KB in all); after a gpu.barrier, a second phase
    runs the nest's body for rows k0 + y, k0 + y + 8, ..., thread x at j0 + Lx and the
    next L - 1 (an scf.parallel of L lanes, the variable the lane plus the thread's base,
    which gpu-vectorize-pointwise-loops makes one vector iteration), the loads replaced
    by the tile's row. Both phases guard the iterations outside the nest where an extent
    is not a multiple of the tile (phase 2 each lane by itself where L does not divide
    the extent of j). The result is a nest of CTAs: an scf.parallel over the tiles mapped
    to block_x (upstream's `mapping` attribute) whose body holds the workgroup allocas and
    the two phases, each an scf.parallel mapped to thread_y and thread_x, which
    gpu-map-loops launches.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"];
}

def GpuBlockReductions : Pass<"gpu-block-reductions", "::mlir::func::FuncOp"> {
  let summary = "Give each output of a reduction of few outputs several threads of a CTA";
  let description = [{
    Runs on the GPU path's host function after gpu-vectorize-pointwise-loops and
    gpu-serialize-invariant-dims, before gpu-map-loops, which gives each iteration of a
    top-level scf.parallel a thread. A nest of constant bounds with fewer than 131072
    iterations (outputs), not mapped, whose body is reads and arithmetic, then a perfect
    nest of scf.for loops of constant bounds carrying values that the innermost body
    combines each once (arith.addf, mulf, maximumf, minimumf, maxnumf, minnumf, addi,
    muli, maxsi, minsi, maxui, minui, andi, ori, xori with a value computed without them),
    then anything without loops, becomes a nest of CTAs of 256 threads: Y threads an output and
    X = 256 / Y consecutive outputs (row-major) a CTA. Thread y combines iterations y,
    y + Y, ... of the loop nest (collapsed into one loop) from the op's identity into
    shared memory; after a barrier, the X threads of y = 0 combine their output's Y
    values (more than 16: threads y < Y / 16 first combine 16 each, then another
    barrier) from the loop's initial value and run the rest of the body. X spans 128 bytes
    of the reads (their widest access; 1 where a read is contiguous along the innermost
    loop, whose variable then runs along the warp); Y is the rest of the CTA, halved
    while a thread would have fewer than 4 iterations or the threads would exceed
    2 x 262144, and doubled back (X down to the outputs whose reads span a 32-byte
    sector) while the CTAs hold fewer than 131072 threads and each thread keeps 4
    iterations; no change where Y is 1. Where the CTAs still hold fewer than 131072
    threads, the reduction is also split into S slices across CTAs (the most that fill
    262144 threads, each thread keeping 8 iterations), combined into an S x outputs
    workspace that a second nest of the original bounds combines before the rest of the
    body; that nest is shared in turn, without slices.
    Floating-point values are combined in another order: the same up to rounding.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
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
      row-major: `threads-per-block` threads per block (constant bounds of fewer than
      `min-blocks` blocks' worth: blocks halved, down to 32 threads, until there are
      that many), ceil(total / block) blocks, on grid y too when x would exceed 2^31-1
      blocks, and an `scf.if` guarding
      the tail. For dynamic bounds the grid is host arithmetic on them, which the engine
      evaluates per input shape. Each thread delinearises its index into the loop's
      induction variables. Loops nested inside
      (reductions as scf.for, inner scf.parallel, which becomes scf.for) run
      sequentially in the thread. Copies and linalg ops at the top level become such
      nests first (a copy is an elementwise kernel; no memref.copy stays on the host).
    - A nest of CTAs (gpu-tile-transposes): a one-dimensional scf.parallel mapped to
      block_x (upstream's `mapping` attribute) becomes a launch with one CTA per
      iteration (grid y past 2^31-1, a guard of whole CTAs for the tail), its block the
      shape of the scf.parallel loops in its body mapped to thread_x/y/z (all the same
      shape, constant extents from 0 in steps of 1; each becomes its body at the
      thread's ids), its static workgroup allocas the launch's workgroup attributions.
    - Every other maximal run of consecutive compute ops (top-level scf.for, scf.if,
      loads and stores, loops with dynamic bounds) becomes one single-thread launch, in
      order: correct first, kernel templates make the hot paths fast.
    - Shape buffers (small index buffers a dynamic reshape bufferizes to, stored at the
      top level) become the values stored in them: loads read the values, and each
      memref.reshape becomes a memref.reinterpret_cast, so sizes stay host values.
    - Allocations (allocas become allocs: buffers live on the device across launches;
      gpu-hoist-allocations has moved those nested in compute out, and one that stays
      in a kernel is an error),
      get_global, views, deallocations, constants and memory-effect-free scalar
      arithmetic on host values (divisions included) stay on the host; allocations and views move before the launches that
      follow them.
    - An allocation whose size kernels compute (a data-dependent shape: NonZero's
      count, a trip count read from a tensor) gets it from a `kernel.read_back`: the
      integer arithmetic leading to the size is recomputed on the host, and each value
      it starts from that a kernel computes is stored by that kernel into a 0-d buffer
      that the host reads back, waiting for the launches before it. Later uses of such
      a value (the bounds of the loops that fill the buffer) take the host's copy. A size
      that arithmetic cannot follow (computed in floats, or inside a loop) is an error:
      "data-dependent shape: not supported on the GPU path yet". A scalar computed by
      one kernel and used by a later kernel goes through a 0-d buffer.

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
    Option<"minBlocks", "min-blocks", "int64_t", /*default=*/"264",
           "Blocks a launch of constant bounds has at least while its blocks can shrink "
           "to a warp (default: two for each of an H100's or H200's 132 SMs)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::kiln::kernel::KernelDialect",
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

#endif // KILN_PASSES_LOWERING
