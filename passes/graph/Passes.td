//===- Passes.td - The graph passes ------------------------------*- tablegen -*-===//
//
// Graph passes (passes/graph): every target runs them on the graph dialect.
// Each is implemented in its own file beside this one and tested in
// test/passes/<name>.mlir (the template families in test/codegen/).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_GRAPH
#define KILN_PASSES_GRAPH

include "mlir/Pass/PassBase.td"

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

def GraphEinsumToProducts : Pass<"graph-einsum-to-products", "::mlir::func::FuncOp"> {
  let summary = "Two-operand Einsums that are batched matrix products as graph.matmul";
  let description = [{
    A `graph.einsum` of two operands of static shape whose equation has an explicit
    result, no ellipsis and no repeated letter in a term, and whose every letter is a
    batch letter (both operands and the result, one extent), a row letter (the first
    operand and the result), a column letter (the second and the result) or a contracted
    one (both operands, not the result), becomes a `graph.matmul` of the operands
    transposed to `[batch.., rows.., contracted..]` and `[batch.., contracted..,
    columns..]` with each group merged into one axis by a reshape where it has several
    letters, then the reshape and transpose back to the result's order. Letters summed
    within one operand, or batch extents that broadcast, leave the Einsum as it is. The
    products then meet the GEMM templates and the attention recognizer
    (`bhqd,bhkd->bhqk` is Q K^T).
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
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
    softmax (then `nan_to_zero`). Half-precision scores may be widened to f32 for the
    softmax, under or over the masks, when the probabilities are cast back (an fp16
    export's `softmax(x, dtype=float32).to(x.dtype)`): the op is half precision, its
    masks cast to that type. K' is K transposed: the op gets K through a transpose
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

def GraphDecomposeAttention : Pass<"graph-decompose-attention", "::mlir::func::FuncOp"> {
  let summary = "Attention that no flash-attention kernel takes, as two products and a softmax";
  let description = [{
    A half-precision `graph.attention` whose head size is not a multiple of
    `head-dim-multiple`, exceeds `max-head-dim`, or differs between key and value gets
    query, key and value padded with zeros along D to the next multiple of
    `head-dim-multiple` of the larger head size where that is at most `max-head-dim` (the
    scores are unchanged; the result, sliced back to the value's head size, too); beyond
    it, it becomes
    `matmul(softmax(matmul(query, transpose(key)) * scale + mask, -1), value)` (key and
    value heads repeated for grouped-query attention, a causal flag as a constant mask, the
    NaN guard where `nan_to_zero`): the GEMM templates take both products and a row kernel
    the softmax, where the attention would be left to the generic lowering. The GPU
    pipeline runs it with the flash-attention templates' limits. A causal attention with
    sequence lengths known at run time only stays as it is.
  }];
  let options = [
    Option<"headDimMultiple", "head-dim-multiple", "int64_t", "16",
           "Head sizes the flash kernels take are multiples of this">,
    Option<"maxHeadDim", "max-head-dim", "int64_t", "128",
           "The largest head size the flash kernels take">,
  ];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

def GraphRecognizeGroupedQueryAttention
    : Pass<"graph-recognize-grouped-query-attention", "::mlir::func::FuncOp"> {
  let summary = "Give graph.attention the key and value heads of grouped-query attention unrepeated";
  let description = [{
    A `graph.attention` whose key and value each repeat every head of a tensor with fewer
    heads (dimension -3) `g` times in a row, as exporters write grouped-query and
    multi-query attention (`Reshape(Expand(Unsqueeze(x, -3 of the result), [.., Hkv, g,
    S, D]), [.., Hkv * g, S, D])`, Hugging Face's repeat_kv, or `Gather(x, [h / g for each
    h], axis = -3)`), both with the same `g`, takes those tensors instead: graph.attention
    reads key and value head h / g for query head h. The repeats are erased where nothing
    else reads them. Leading dimensions the expand broadcasts stay broadcast by the
    attention; the sequence and head size must be kept, as static extents or the same
    symbolic ones (a dynamic batch and sequence whose targets come from Shape ops).
    Grouped-query attention written with the groups as an axis of their own (query
    `[.., Hkv, g, Sq, D]` against key and value `[.., Hkv, 1, Skv, D]`) becomes the
    attention of `Hkv * g` query heads on `Hkv` key/value heads, through reshapes (a mask
    must broadcast along both head axes or have both).
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

def GraphPatchifyConvolutions : Pass<"graph-patchify-convolutions", "::mlir::func::FuncOp"> {
  let summary = "Make a convolution whose kernel is its stride a matrix product of patches";
  let description = [{
    A 2-D channels-first `graph.conv` whose kernel equals its strides (larger than 1x1),
    with no padding or dilation and one group, static channels and spatial extents that
    are whole patches (the batch may be dynamic) — a vision transformer's patch embedding
    — reads every input element once: it becomes a reshape and a transpose of the input
    into patches [N, OH*OW, C*KH*KW], a `graph.matmul` with the weight reshaped and
    transposed to [C*KH*KW, O] (folded for a constant weight), the bias added, and a
    reshape and transpose back to [N, O, OH, OW]. The product then takes the GEMM
    templates, which no convolution template can for such strides. Other convolutions are
    left alone.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

def GraphConvTransposeToConv : Pass<"graph-conv-transpose-to-conv", "::mlir::func::FuncOp"> {
  let summary = "Make a transposed convolution convolutions of its output phases";
  let description = [{
    Output position y = s q + r of a `graph.conv_transpose` (stride s, phase r < s along
    each axis) sums the taps k of phase r, reading input q - floor((k d - pb) / s): a
    stride-1 correlation per phase. All phases become one `graph.conv` of s1 * .. * sk
    times the output channels whose window spans every tap's offset (filters zero where
    a phase has no tap; the input cropped or padded to give ceil(OL / s) outputs per
    axis), followed by a depth-to-space reshape and transpose that interleaves the phases
    and a slice to the output's extents; the bias (a constant tiled per phase, or added
    after) stays exact. A kernel equal to its stride gives filters of one tap: a GEMM and
    a rearrangement. A 2-D one whose union window multiplies at least 1.25 times the
    products its row phases need (4x4 stride 2: 36 a position against 24) becomes one
    convolution per row phase (that phase's rows, the columns' union), whose channels-last
    results are every s1-th output row, joined by a concatenation of whole rows. One
    group, a constant weight and static extents but the batch; other transposed
    convolutions are left alone.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

def GraphConvolutionsTo2d : Pass<"graph-convolutions-to-2d", "::mlir::func::FuncOp"> {
  let summary = "Make 1-D and 3-D convolutions 2-D ones, which the templates take";
  let description = [{
    A channels-first 1-D `graph.conv` becomes a 2-D one of unit height: the input and
    the weight reshaped to `[N, C, 1, W]` and `[O, C/g, 1, K]`, stride and dilation 1 and
    no padding along the height, the result reshaped back. A 3-D one of one group with
    input and output channels multiples of 8 stays: the implicit-GEMM templates read it as
    5-D boxes. Another (static extents but the batch) of one group and a constant weight
    becomes one 2-D convolution of its output depths as images, the depths each reads
    (the input padded with zeros along depth, sliced with the depth stride from
    kd * dilation for each tap kd) side by side as its channels, by the filters
    `w'[o, kd * C + c] = w[o, c, kd]`, built channels last; a grouped one, or one of a
    weight computed at run time, a sum over the depth taps of 2-D convolutions of the
    depths each reads by its filters `w[:, :, kd]`, the bias added once. Both keep the
    group, the height and width attributes and the result element for element.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

def GraphPadProducts : Pass<"graph-pad-products", "::mlir::func::FuncOp"> {
  let summary = "Pad half-precision products and convolutions to 8-aligned N and K";
  let description = [{
    The tensor-core GEMM templates read and write 16-byte rows: N and K multiples of 8
    f16 or bf16 elements. A `graph.matmul` (A [.., M, K] by B [.., K, N], batched or
    not) or a `graph.gemm` (any trans_b; not trans_a) of half-precision operands whose N
    or K is not gets B padded with zeros to the next multiples of 8 (a constant 2-D
    weight at compile time, any other B by a `graph.pad` at run time; a transposed B
    through its transpose's input, so that the product still reads it as a view), A
    padded with zero columns when K is, a bias Add after the matmul (a constant of N
    values broadcast along the rows) or the gemm's C padded with zeros, and a
    `graph.slice` of the first N columns after them (a vocabulary of 50257, a detector's
    4 box coordinates, attention scores over 197 tokens). A channels-first convolution
    (one group, constant weight) with output channels not a multiple of 8 gets zero
    filters (and zero bias) up to a multiple of 8: where its value only convolutions read
    as their input through unary elementwise ops (a squeeze-excite reduction), their
    weights read the new channels with zeros and no slice is needed; otherwise, with
    `slice-convolutions`, a `graph.slice` of the first channels follows it (a detector's
    546-channel class head). The values are the same; the product runs on the tensor
    cores. With `unaligned-rows` (sm_90a, whose warp-specialised GEMM loads such operands
    with the producer's threads and stores C's rows a few elements at a time) only a
    constant row-major B's N is padded (at compile time; a slice follows), a transposed
    B's K, whose rows the tensor map reads, and an operand computed at run time that 4 or
    more tiles of 128 read (B's rows by 512 rows of A or more, A's by 512 columns of C or
    more): one copy to aligned rows then costs less than the threads' loads in each tile.
  }];
  let options = [
    Option<"sliceConvolutions", "slice-convolutions", "bool", "true",
           "Pad a convolution whose value other ops read too, with a slice after it "
           "(the channels-last templates take it: graph-convert-layout follows)">,
    Option<"unalignedRows", "unaligned-rows", "bool", "false",
           "The target's GEMM templates read operands whose rows are no multiple of 16 "
           "bytes and store C's rows of any length (sm_90a): pad only a constant row-major "
           "B's N (at compile time), a transposed B's K, and an operand that 4 or more "
           "tiles of 128 read">,
  ];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

def GraphMoveRowTransposes : Pass<"graph-move-row-transposes", "::mlir::func::FuncOp"> {
  let summary = "Move transposes that keep the last axis through row-wise ops to views";
  let description = [{
    A `graph.transpose` that keeps the last axis last only reorders rows, and commutes
    with the row-wise ops: `graph.matmul` by a rank-2 right operand, elementwise ops whose
    other operand broadcasts along the last axis only (a bias, a scale), unary elementwise
    ops. Such a transpose moves along its chain of single-use row-wise ops: after the chain
    when the chain's last op feeds a data-movement op, else before it when its first op
    reads one; not when it is next to data movement already, nor when neither end of its
    chain is data movement. Sequence-first attention exports (nn.MultiheadAttention with
    batch_first=False) transpose [B, S, E] to [S, B, E] around the QKV and output
    projections: moved to the head split and merge, the transposes become part of the
    views flash attention reads and writes, and the residual Add after the output
    projection joins its epilogue.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

def GraphFoldReshapeRoundTrips : Pass<"graph-fold-reshape-round-trips", "::mlir::func::FuncOp"> {
  let summary = "Fold reshape -> transpose -> reshape back into one transpose";
  let description = [{
    A Reshape that groups a tensor X's axes into blocks (axes split, merged or kept), a
    Transpose that moves whole blocks (each block's axes adjacent and in order), and a
    Reshape that gives each block back X's extents compute one Transpose of X (GPT-2's
    key: [B, H, S, D] -> [B*H, S, D] -> [B*H, D, S] -> [B, H, D, S] is
    transpose(X, [0, 1, 3, 2]); a channels-last ViT's patch tokens [N, 196, C] ->
    [N, 14, 14, C] -> [N, C, 14, 14] -> [N, C, 196] are transpose(X, [0, 2, 1])). The extents are compared by the symbolic
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
    weight elements per fused matmul (the siblings in program order that fit). Each
    sibling's columns start at a multiple of `column-alignment` (zero columns pad the
    ones before it), so that the kernels reading a slice in place (flash attention's Q,
    K and V: 16-byte rows) can. Locations are the fused locations of the originals.
  }];
  let options = [
    Option<"columnAlignment", "column-alignment", "int64_t", /*default=*/"8",
           "Each sibling's first column is a multiple of this many elements">,
  ];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

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

def GraphFoldLayerNormIntoProducts
    : Pass<"graph-fold-layer-norm-into-products", "::mlir::func::FuncOp"> {
  let summary = "Fold a LayerNorm's or RMSNorm's normalisation into the constant-weight products that read it";
  let description = [{
    A `graph.layer_normalization` over the last axis with constant `scale` (gamma) and
    `bias` (beta), whose result is read only by `graph.matmul` ops as their left operand
    with a constant `[K, N]` weight `W` of its element type and at most 64 Mi elements
    (each possibly followed by an Add of a constant bias along the last axis), is computed
    from its statistics instead:
    `LayerNorm(x) W = r (x Wc) + beta W` with `r` the op's `inv_std_dev` result and
    `Wc = C diag(gamma) W`, `C` subtracting each column's mean over K (the row's mean
    cancels against it: `(x - mu) V = x (V - mean_k V)`). Each product becomes
    `cast(matmul(x, Wc)) * r + (beta W + bias)` in f32, cast back to its element type: the
    product reads x itself, its epilogue applies the per-row `r` and the per-column shift,
    and only the statistics (one value a row) remain of the LayerNorm. `Wc` is computed in
    double and rounded to the weight's type so that each column still sums to ~0: the
    subtracted mean moves every element of a binade by the same fraction of an ulp, so
    plain rounding's errors would add up down the column and multiply the row's mean;
    largest remainders first, the elements whose rounding went the way of the sum step an
    ulp back. A `graph.rms_normalization` of the same form folds the same way without
    the centring: `RMSNorm(x) W = r (x diag(gamma) W)`, `r` its `inv_rms` result.
    Normalisations read by anything else, over other axes, with non-constant parameters
    or whose statistics results are already used are left alone. The GPU pipeline runs it (`kiln compile` and `kiln run` take a hidden
    `--fold-layer-norms=true|false` to force it on the CPU or off): a pre-norm
    transformer's LayerNorm then no longer writes a normalised copy of the residual
    stream that its product reads back.
  }];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

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
    Option<"tensorCoreRows", "tensor-core-rows", "bool", /*default=*/"false",
           "Leave in floats the products whose rows the int8 tensor-core templates do not "
           "take (N not a multiple of 8; depthwise; a matrix product's K not of 16): GPU "
           "targets">,
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
    Every 2-D or 3-D `graph.conv` with static shapes (but the batch) and a constant weight
    becomes `transpose(NCHW -> NHWC)` (NCDHW -> NDHWC), the conv with `channels_last` (its weight permuted
    to [M, KH, KW, C / group] at compile time), `transpose(NHWC -> NCHW)`: the layout
    implicit-GEMM convolutions on tensor cores read, the channels (the reduction) being
    contiguous. With `tensor-core-only`, only convs that are not depthwise and have C /
    group and M / group multiples of 8 are picked on their own.

    The NHWC -> NCHW transposes then move towards their uses: through pointwise ops (a
    constant operand is permuted and folded, a scalar kept, a value that needs only
    unit dimensions moved is reshaped, a transpose by the same permutation taken off),
    through `graph.quantize_linear` and `graph.dequantize_linear` that are not blocked
    (a per-axis `axis` mapped through the permutation), through `graph.max_pool` with
    unused indices, `graph.average_pool` and `graph.lp_pool` (they get `channels_last`),
    `graph.resize` (its `axes` name the channels-last input's dimensions),
    `graph.global_average_pool` (a `graph.reduce_mean` over the spatial axes) and any
    conv that can be channels last (whatever the rule), and they compose with the next
    conv's NCHW -> NHWC transpose into nothing (graph-simplify's patterns). A conv left
    between its two transposes (nothing next to it took the layout) goes back to channels
    first, alone it would pay two transposes for nothing, unless it is not depthwise and
    has output channels a multiple of 8: the implicit-GEMM templates take it channels
    last only. Layout transposes that only
    move dimensions of extent 1 become reshapes. The model's own
    transposes are not moved. What is left is counted (`transposes-left` statistic,
    and a remark with `emit-remarks`).
  }];
  let options = [
    Option<"tensorCoreOnly", "tensor-core-only", "bool", /*default=*/"false",
           "Pick only convs with C / group and M / group multiples of 8, not depthwise "
           "(convs after a channels-last value follow it regardless)">,
    Option<"globalPoolAsReduceMean", "global-pool-as-reduce-mean", "bool",
           /*default=*/"true",
           "Sink transposes through global_average_pool as a reduce_mean over the spatial "
           "axes (off: the pool reads through the transpose, fused as its prologue, and "
           "its [N, C, 1, 1] result is copied to [N, 1, 1, C] for a channels-last user)">,
    Option<"emitRemarks", "emit-remarks", "bool", /*default=*/"false",
           "Remark on each function: convs converted, transposes left">,
  ];
  let statistics = [
    Statistic<"numConverted", "convs-channels-last", "Convs channels last after the pass">,
    Statistic<"numTransposesLeft", "transposes-left", "graph.transpose ops after the pass">,
  ];
  let dependentDialects = ["::kiln::graph::GraphDialect"];
}

#endif // KILN_PASSES_GRAPH
