//===- GraphToKernel.cpp - Form kernels and the host schedule -------------===//
//
// Kernel formation: every fusion group of a function becomes a `kernel.func` holding one
// template op whose body is the group's ops (with the small constants they read), and the
// function becomes a host schedule on buffers: its tensors become memrefs (arguments, then
// one output argument per result, destination-passing style), large constants become
// `memref.global` weights, intermediates become `memref.alloc`s, and each group becomes a
// `kernel.launch`.
//
// Groups (formGroups): a pointwise op of its anchor's shape joins the group of one of its
// operands as epilogue, unless a kernel placed before it already reads that group (the
// group is launched where its last op is); a new group takes as prologue the groups of
// data movement and pointwise ops whose one result feeds only its anchor, and an epilogue
// op likewise takes the producers of its other operands. At most kMaxFusedOps computing
// ops a group, and a bounded amount of data movement; the anchor picks the template.
//
// Dynamic shapes (docs/dynamic-shapes.md): the symbolic shape analysis expresses every
// extent as a polynomial in the inputs' dimension symbols. The host reads the symbols off
// the input buffers (`memref.dim`) and sizes allocations and output buffers with index
// arithmetic on them; fusion compares extents as polynomials (two `?` are the same extent
// only when they are the same polynomial); and the small integer tensors a model computes
// shapes with (Shape -> Gather -> Concat -> Reshape) get no kernels: each kernel that reads
// one rebuilds it from the symbols, which it takes as index operands.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"
#include "dialects/kernel/KernelOps.h"
#include "passes/graph/SymbolicShapes.h"
#include "passes/lowering/Passes.h"
#include "passes/lowering/RowMajorView.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHTOKERNEL
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;
namespace kernel = kiln::kernel;
using kiln::graph::DimExpr;
using kiln::graph::SymbolicShape;
using kiln::graph::SymbolicShapeAnalysis;

namespace {

/// Constants of at most this many elements are copied into the kernels that read them
/// (axes, shapes, scalars: the lowering folds them); larger ones are weights in device
/// memory, read through a kernel argument.
constexpr int64_t kInlineConstantElements = 16;

/// At most this many computing graph ops in one fused kernel. Data movement (reshapes,
/// transposes, slices: index arithmetic on the kernel's loads) does not count, up to
/// kMaxFusedMovementOps of it, so that attention can take the head-splitting chains of
/// all three of its operands. Ten is what the requantizing epilogue of an int8
/// convolution on a quantized skip connection takes with its anchor: the rescale, the
/// bias, the skip's scale, the add, the activation, and the division, rounding and clip
/// of the requantization.
constexpr size_t kMaxFusedOps = 10;
constexpr size_t kMaxFusedMovementOps = 16;

/// A symbol-safe version of `text`: letters, digits and '_' only, not starting with a digit.
std::string sanitize(StringRef text) {
  std::string result;
  for (char c : text)
    result.push_back(llvm::isAlnum(c) ? c : '_');
  if (result.empty() || llvm::isDigit(result.front()))
    result.insert(result.begin(), 'k');
  return result;
}

/// Whether `value` is a product's or convolution's result, or computed from one by
/// pointwise ops (at most as many as an epilogue fuses): what an epilogue computes. Each
/// op is looked at once (`seen`), however many paths reach it.
bool followsContraction(Value value, SmallPtrSetImpl<Operation *> &seen,
                        size_t depth = kMaxFusedOps) {
  Operation *op = value.getDefiningOp();
  if (isa_and_nonnull<graph::MatMulOp, graph::GemmOp, graph::ConvOp>(op))
    return true;
  if (!op || depth == 0 || !op->hasTrait<graph::OpTrait::Pointwise>() || !seen.insert(op).second)
    return false;
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    return !operand.getDefiningOp<graph::ConstantOp>() &&
           followsContraction(operand, seen, depth - 1);
  });
}

bool isInlinedConstant(graph::ConstantOp constant) {
  // An operand of a product or convolution (a small bias, a tiny weight, even of one
  // value), or of an elementwise op of its epilogue (the bias Add of a MatMul, the
  // per-channel rescale of an int8 convolution after its cast) unless it is one value,
  // stays a buffer: the tensor-core templates and their epilogues read them through
  // pointers (an epilogue takes a constant of one value as it is).
  auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
  bool oneValue = value && value.isSplat();
  if (llvm::any_of(constant->getUsers(), [&](Operation *user) {
        return isa<graph::MatMulOp, graph::GemmOp, graph::ConvOp>(user) ||
               (!oneValue && user->hasTrait<graph::OpTrait::Pointwise>() &&
                llvm::any_of(user->getOperands(), [&](Value operand) {
                  SmallPtrSet<Operation *, 16> seen;
                  return followsContraction(operand, seen);
                }));
      }))
    return false;
  auto type = cast<ShapedType>(constant.getType());
  return oneValue || type.getNumElements() <= kInlineConstantElements;
}

/// An error on `op` that names its ONNX node.
InFlightDiagnostic emitNodeError(Operation *op) {
  std::string node = kiln::graph::getNodeName(op->getLoc());
  InFlightDiagnostic diagnostic = op->emitError();
  if (!node.empty())
    diagnostic << "node '" << node << "' (" << op->getName() << "): ";
  return diagnostic;
}

/// The buffer type of a tensor value (dynamic extents stay `?`); fails with an error on
/// `op` for an unranked one.
FailureOr<MemRefType> getBufferType(Value value, Operation *op) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type) {
    emitNodeError(op) << "the GPU path needs ranked tensors, but a value has type "
                      << value.getType() << " (give the input shapes with --shapes)";
    return failure();
  }
  return MemRefType::get(type.getShape(), type.getElementType());
}

/// `expr` as index arithmetic on the values of its symbols.
Value buildExtent(OpBuilder &builder, Location loc, const DimExpr &expr,
                  function_ref<Value(unsigned)> symbolValue) {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value sum;
  for (const auto &[monomial, coefficient] : expr.getTerms()) {
    Value term;
    for (unsigned symbol : monomial)
      term = term ? Value(arith::MulIOp::create(builder, loc, term, symbolValue(symbol)))
                  : symbolValue(symbol);
    if (!term)
      term = constant(coefficient);
    else if (coefficient != 1)
      term = arith::MulIOp::create(builder, loc, term, constant(coefficient));
    sum = sum ? Value(arith::AddIOp::create(builder, loc, sum, term)) : term;
  }
  return sum ? sum : constant(0);
}

/// What kernel formation knows of dynamic extents: the symbolic analysis of the graph
/// function, read before the function is rewritten.
class Extents {
public:
  explicit Extents(func::FuncOp function) : analysis(function) {}

  /// Whether `expr` is determined by the input shapes (no symbol of its own).
  bool fromInputs(const DimExpr &expr) const {
    std::optional<unsigned> largest = expr.getLargestSymbol();
    return !largest || *largest < analysis.inputSymbolCount();
  }

  /// Whether `a` and `b` have the same extents: equal static shapes, or the same
  /// polynomials.
  bool sameShape(Value a, Value b) const {
    auto typeA = dyn_cast<RankedTensorType>(a.getType());
    auto typeB = dyn_cast<RankedTensorType>(b.getType());
    if (!typeA || !typeB || typeA.getShape() != typeB.getShape())
      return false;
    if (typeA.hasStaticShape())
      return true;
    const SymbolicShape *shapeA = analysis.lookup(a), *shapeB = analysis.lookup(b);
    return shapeA && shapeB && shapeA->ranked && shapeB->ranked && shapeA->dims == shapeB->dims;
  }

  /// Whether `perRow` has `value`'s extents but for a last extent of 1 (one value per row
  /// of `value` seen as a matrix of its last dimension's columns), where `value`'s is not.
  bool isPerRow(Value perRow, Value value) const {
    auto rowType = dyn_cast<RankedTensorType>(perRow.getType());
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!rowType || !type || rowType.getRank() != type.getRank() || type.getRank() == 0 ||
        rowType.getShape().back() != 1 || type.getShape().back() == 1 ||
        rowType.getShape().drop_back() != type.getShape().drop_back())
      return false;
    if (rowType.hasStaticShape() && type.hasStaticShape())
      return true;
    const SymbolicShape *rowShape = analysis.lookup(perRow), *shape = analysis.lookup(value);
    return rowShape && shape && rowShape->ranked && shape->ranked &&
           ArrayRef<DimExpr>(rowShape->dims).drop_back() ==
               ArrayRef<DimExpr>(shape->dims).drop_back();
  }

  /// The extents of `value`'s dimensions, when the input shapes determine them all.
  /// The extents of `value` as the analysis has them, fresh symbols included.
  std::optional<ArrayRef<DimExpr>> getAnyDims(Value value) const {
    const SymbolicShape *shape = analysis.lookup(value);
    if (!shape || !shape->ranked)
      return std::nullopt;
    return ArrayRef<DimExpr>(shape->dims);
  }

  std::optional<ArrayRef<DimExpr>> getDims(Value value) const {
    const SymbolicShape *shape = analysis.lookup(value);
    if (!shape || !shape->ranked ||
        !llvm::all_of(shape->dims, [&](const DimExpr &dim) { return fromInputs(dim); }))
      return std::nullopt;
    return ArrayRef<DimExpr>(shape->dims);
  }

  /// The elements of `value` when a kernel can rebuild it from the symbols instead of
  /// reading it: a small tensor of signless integers whose elements the input shapes
  /// determine (a shape computation's values), not a constant.
  std::optional<ArrayRef<DimExpr>> getRebuildableElements(Value value) const {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.getElementType().isSignlessInteger() || !type.hasStaticShape() ||
        !value.getDefiningOp() || isa<graph::ConstantOp>(value.getDefiningOp()))
      return std::nullopt;
    const SymbolicShape *shape = analysis.lookup(value);
    if (!shape || !shape->elements ||
        static_cast<int64_t>(shape->elements->size()) != type.getNumElements() ||
        !llvm::all_of(*shape->elements,
                      [&](const DimExpr &element) { return fromInputs(element); }))
      return std::nullopt;
    return ArrayRef<DimExpr>(*shape->elements);
  }

  /// Whether `op` computes shape values only, which the kernels reading them rebuild:
  /// it needs no kernel of its own.
  bool isShapeComputation(Operation *op) const {
    return op->getNumResults() > 0 && llvm::all_of(op->getResults(), [&](Value result) {
             return getRebuildableElements(result) &&
                    llvm::none_of(result.getUsers(), [](Operation *user) {
                      return isa<func::ReturnOp, graph::YieldOp>(user);
                    });
           });
  }

  const SymbolicShapeAnalysis &getAnalysis() const { return analysis; }

private:
  SymbolicShapeAnalysis analysis;
};

/// Which template a graph op becomes.
enum class TemplateKind { Pointwise, Reduction, Matmul, Conv, Attention, Movement, Generic };

TemplateKind classify(Operation *op) {
  if (isa<graph::MatMulOp, graph::GemmOp>(op))
    return TemplateKind::Matmul;
  if (isa<graph::AttentionOp>(op))
    return TemplateKind::Attention;
  if (isa<graph::ConvOp>(op))
    return TemplateKind::Conv;
  if (op->getNumRegions() != 0)
    return TemplateKind::Generic;
  if (op->hasTrait<graph::OpTrait::Reduction>())
    return TemplateKind::Reduction;
  if (op->hasTrait<graph::OpTrait::DataMovement>())
    return TemplateKind::Movement;
  if (op->hasTrait<graph::OpTrait::Pointwise>())
    return TemplateKind::Pointwise;
  return TemplateKind::Generic;
}

/// How many of `ops` compute (count against kMaxFusedOps) and how many move data. Casts
/// count as neither: a conversion on the way to a store costs an instruction, and the
/// epilogues of reduced-precision and quantized kernels are full of them (f16 to f32 and
/// back around an f32 island, the requantization's final cast to i8).
std::pair<size_t, size_t> countFusedOps(ArrayRef<Operation *> ops) {
  size_t movement =
      llvm::count_if(ops, [](Operation *op) { return classify(op) == TemplateKind::Movement; });
  size_t casts = llvm::count_if(ops, [](Operation *op) { return isa<graph::CastOp>(op); });
  return {ops.size() - movement - casts, movement};
}

/// Whether a group of `group` and `more` ops stays within the fusion limits.
bool fitsInKernel(ArrayRef<Operation *> group, ArrayRef<Operation *> more) {
  auto [compute, movement] = countFusedOps(group);
  auto [moreCompute, moreMovement] = countFusedOps(more);
  return compute + moreCompute <= kMaxFusedOps && movement + moreMovement <= kMaxFusedMovementOps;
}

/// Whether data movement `more` may join the attention group `group`: the flash-attention
/// template reads and writes strided views of its buffers, so the views of its operands
/// and result (three head splits and a merge, each a few reshapes and transposes) do not
/// count against kMaxFusedMovementOps.
bool fitsInAttentionKernel(ArrayRef<Operation *> group, ArrayRef<Operation *> more) {
  return countFusedOps(group).first + countFusedOps(more).first <= kMaxFusedOps;
}

Operation *createTemplate(OpBuilder &builder, Location loc, TemplateKind kind, ValueRange inputs,
                          ValueRange outputs, ValueRange symbols) {
  switch (kind) {
  case TemplateKind::Pointwise:
    return kernel::PointwiseOp::create(builder, loc, inputs, outputs, symbols);
  case TemplateKind::Reduction:
    return kernel::ReductionOp::create(builder, loc, inputs, outputs, symbols);
  case TemplateKind::Matmul:
    return kernel::MatmulOp::create(builder, loc, inputs, outputs, symbols);
  case TemplateKind::Conv:
    return kernel::ConvOp::create(builder, loc, inputs, outputs, symbols);
  case TemplateKind::Attention:
    return kernel::AttentionOp::create(builder, loc, inputs, outputs, symbols);
  case TemplateKind::Movement:
    return kernel::MovementOp::create(builder, loc, inputs, outputs, symbols);
  case TemplateKind::Generic:
    return kernel::GenericOp::create(builder, loc, inputs, outputs, symbols);
  }
  llvm_unreachable("unknown template kind");
}

/// Groups of ops that become one kernel each. A group's anchor (the op whose template
/// it takes) follows its prologue (data movement feeding only it) and precedes its
/// epilogue (pointwise ops on its output).
struct FusionGroups {
  struct Group {
    SmallVector<Operation *> ops;
    unsigned anchor = 0;
    Operation *getAnchor() const { return ops[anchor]; }
  };
  SmallVector<Group> groups;
  llvm::DenseMap<Operation *, unsigned> groupOf;
  /// Compares dynamic extents.
  const Extents *extents = nullptr;
};

/// Whether `op` anchors a kernel that takes no prologue: a half-precision convolution,
/// which the tensor-core templates (sm90_conv) compute only when the kernel reads
/// the input buffer itself (by TMA). A producer fused in front (the NCHW-to-NHWC transpose
/// that graph-convert-layout puts before a network's first convolution) would leave the
/// convolution to the generic loops, which cost far more than the producer's own kernel.
bool readsOperandsDirectly(Operation *op) {
  // The non_max_suppression and non_zero templates read their inputs as buffers.
  if (isa<graph::NonMaxSuppressionOp, graph::NonZeroOp>(op))
    return true;
  auto conv = dyn_cast<graph::ConvOp>(op);
  if (!conv)
    return false;
  Type element = getElementTypeOrSelf(conv.getInput().getType());
  return element.isF16() || element.isBF16() || element.isSignlessInteger(8);
}

/// Whether `op` is a product whose left operand the GEMM templates (sm90_gemm,
/// -sm80) read as a row-major matrix: f16, bf16 or i8 operands.
bool readsMatrixByTma(Operation *op) {
  if (!isa<graph::MatMulOp, graph::GemmOp>(op))
    return false;
  Type element = getElementTypeOrSelf(op->getOperand(0).getType());
  return element.isF16() || element.isBF16() || element.isSignlessInteger(8);
}

/// Whether `op` is an attention the flash-attention templates compute (f16 or bf16
/// operands): they read Q, K, V and the mask through strided loads of buffers, so any
/// computed prologue would leave the attention to the generic lowering.
bool readsViewsOnly(Operation *op) {
  auto attention = dyn_cast<graph::AttentionOp>(op);
  if (!attention)
    return false;
  Type element = getElementTypeOrSelf(attention.getQuery().getType());
  return element.isF16() || element.isBF16();
}

/// Whether `op` may join a flash attention's kernel as prologue: a view of an operand
/// (what the templates' strided loads read without a copy: reshapes, transposes, slices
/// and gathers of constants), or the select of a boolean constant that makes its mask (a
/// compile-time causal mask, which the templates turn into index arithmetic). Anything
/// else (the cast of a model input, rotary embeddings, a boolean mask computed at run
/// time) stays a kernel of its own that writes a buffer the attention reads.
bool joinsFlashAttention(Operation *op) {
  auto rearranges = [](Operation *view) {
    return isa<graph::ReshapeOp, graph::SqueezeOp, graph::UnsqueezeOp, graph::FlattenOp,
               graph::TransposeOp>(view);
  };
  if (rearranges(op))
    return true;
  // Slices and gathers are views where their bounds and indices are constants.
  if (isa<graph::SliceOp, graph::GatherOp>(op))
    return llvm::all_of(op->getOperands().drop_front(), [](Value operand) {
      return isa_and_nonnull<graph::ConstantOp>(operand.getDefiningOp());
    });
  auto where = dyn_cast<graph::WhereOp>(op);
  if (!where || !where.getLhs().getDefiningOp<graph::ConstantOp>() ||
      !where.getRhs().getDefiningOp<graph::ConstantOp>())
    return false;
  Value condition = where.getCondition();
  while (Operation *producer = condition.getDefiningOp()) {
    if (isa<graph::ConstantOp>(producer))
      return true;
    if (!rearranges(producer))
      return false;
    condition = producer->getOperand(0);
  }
  return false;
}

/// Whether the GEMM templates' epilogues read every operand of `op` that does not come
/// from group `index`, when its anchor is a product they compute: a scalar, one value per
/// output column, one value per row of the result (its shape with one column: a folded
/// LayerNorm's statistic), or a tensor of the result's shape. Another broadcast (a mask
/// shared by the batches of a batched product) would leave the product to the generic
/// lowering, where a kernel of its own costs one pass over the result.
bool templateEpilogueReads(Operation *op, const FusionGroups &fusion, unsigned index) {
  Operation *anchor = fusion.groups[index].getAnchor();
  if (!readsMatrixByTma(anchor))
    return true;
  auto result = dyn_cast<RankedTensorType>(anchor->getResult(0).getType());
  if (!result || result.getRank() == 0)
    return true;
  int64_t columns = result.getShape().back();
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    Operation *producer = operand.getDefiningOp();
    auto found = producer ? fusion.groupOf.find(producer) : fusion.groupOf.end();
    if (found != fusion.groupOf.end() && found->second == index)
      return true;
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type)
      return false;
    if (type.getRank() == 0 || fusion.extents->sameShape(operand, anchor->getResult(0)) ||
        fusion.extents->isPerRow(operand, anchor->getResult(0)))
      return true;
    ArrayRef<int64_t> shape = type.getShape();
    return llvm::all_of(shape.drop_back(), [](int64_t extent) { return extent == 1; }) &&
           (shape.back() == 1 || shape.back() == columns);
  });
}

/// Whether a group of `kind` may take pointwise ops after its anchor.
bool takesEpilogue(TemplateKind kind) {
  return kind == TemplateKind::Matmul || kind == TemplateKind::Conv ||
         kind == TemplateKind::Reduction || kind == TemplateKind::Pointwise;
}

/// Whether `op`'s one result has the shape a group iterates over (its anchor's first
/// result's).
bool hasIterationShape(Operation *op, Operation *anchor, const FusionGroups &fusion) {
  return op->getNumResults() == 1 &&
         fusion.extents->sameShape(op->getResult(0), anchor->getResult(0));
}

/// Whether `op` converts integers that are read elsewhere too into wider floats (the
/// dequantization of a quantized skip connection, decomposed). It joins no producer's
/// epilogue: the producer stores the integers anyway, and would store the float values
/// too, two or four times their bytes, where the readers can convert as they load (the
/// epilogue of the convolution that adds the skip connection takes it as a producer). A
/// dequantization that alone reads the integers (a quantization round trip) joins, as
/// does the conversion of an integer product's i32 sums, no wider.
bool isSharedDequantization(Operation *op) {
  auto cast = dyn_cast<graph::CastOp>(op);
  if (!cast)
    return false;
  Type from = getElementTypeOrSelf(cast.getInput().getType());
  return isa<IntegerType>(from) && isa<FloatType>(cast.getTo()) &&
         from.getIntOrFloatBitWidth() < cast.getTo().getIntOrFloatBitWidth() &&
         !cast.getInput().hasOneUse();
}

/// Whether `op` dequantizes a quantized shortcut (graph-quantize-int8: a projection
/// shortcut's output, requantized in its convolution's epilogue): an integer-to-float
/// cast whose value reaches an add or a subtraction through pointwise ops read only by
/// the next. Like a shared dequantization, it joins no producer's epilogue: the shortcut
/// convolution stores the integers, and the add, in the epilogue of the convolution it
/// joins, converts them as it loads.
bool isShortcutDequantization(Operation *op) {
  auto cast = dyn_cast<graph::CastOp>(op);
  if (!cast || !isa<IntegerType>(getElementTypeOrSelf(cast.getInput().getType())) ||
      !isa<FloatType>(cast.getTo()) || !cast.getInput().getDefiningOp<graph::CastOp>())
    return false;
  Operation *current = op;
  while (current->hasOneUse()) {
    Operation *user = *current->getUsers().begin();
    if (isa<graph::AddOp, graph::SubOp>(user))
      return true;
    if (classify(user) != TemplateKind::Pointwise || user->getNumResults() != 1)
      return false;
    current = user;
  }
  return false;
}

/// Whether `op` may join `group` as an epilogue op: pointwise, of the group's iteration
/// shape, and no op outside the group already placed before `op` reading a value of the
/// group (the group is launched where its last op is, after such a reader).
bool canJoinEpilogue(Operation *op, const FusionGroups &fusion, unsigned index) {
  const FusionGroups::Group &group = fusion.groups[index];
  // A TopK's kernel (the top_k template) stores its values converted to another float
  // type, and nothing else after it: other ops on its k results are a kernel of their own
  // (they would leave the selection to the generic lowering, one thread a row).
  if (auto topK = dyn_cast<graph::TopKOp>(group.getAnchor())) {
    auto cast = dyn_cast<graph::CastOp>(op);
    if (!cast || cast.getInput() != topK.getValues() || !isa<FloatType>(cast.getTo()) ||
        !isa<FloatType>(getElementTypeOrSelf(topK.getValues().getType())))
      return false;
  }
  if (!fitsInKernel(group.ops, op) || !takesEpilogue(classify(group.getAnchor())) ||
      isSharedDequantization(op) || isShortcutDequantization(op) ||
      !hasIterationShape(op, group.getAnchor(), fusion) ||
      !templateEpilogueReads(op, fusion, index))
    return false;
  // Operands from other groups are computed by then: a group whose value a later group
  // reads takes no more ops (the checks below, when that group is asked).
  Block *block = op->getBlock();
  for (Operation *member : group.ops)
    for (Operation *user : member->getUsers()) {
      Operation *placed = block->findAncestorOpInBlock(*user);
      if (user != op && placed && placed->isBeforeInBlock(op) && !fusion.groupOf.count(user))
        return false;
    }
  // Users placed before `op` that belong to other groups (they were formed earlier).
  for (Operation *member : group.ops)
    for (Operation *user : member->getUsers()) {
      auto found = fusion.groupOf.find(user);
      if (user != op && found != fusion.groupOf.end() && found->second != index)
        return false;
    }
  return true;
}

/// Splits the epilogue of each matmul and convolution group after its first value that
/// is read outside the group: the tensor-core templates store one value, so a group that
/// exports two (a block's output that the next block both adds and quantizes, and its
/// quantized form) would leave the product to the generic loops. The ops after it become
/// a pointwise group of their own, launched where the group was.
void splitTemplateEpilogues(FusionGroups &fusion) {
  for (unsigned index = 0, end = fusion.groups.size(); index < end; ++index) {
    if (fusion.groups[index].ops.empty())
      continue;
    TemplateKind kind = classify(fusion.groups[index].getAnchor());
    if (kind != TemplateKind::Matmul && kind != TemplateKind::Conv)
      continue;
    SmallVector<Operation *> &ops = fusion.groups[index].ops;
    Operation *groupAnchor = fusion.groups[index].getAnchor();
    for (unsigned position = fusion.groups[index].anchor; position + 1 < ops.size(); ++position) {
      bool exported = llvm::any_of(ops[position]->getUsers(), [&](Operation *user) {
        auto found = fusion.groupOf.find(user);
        return found == fusion.groupOf.end() || found->second != index;
      });
      if (!exported)
        continue;
      SmallVector<Operation *> tail(ops.begin() + position + 1, ops.end());
      // The tail's anchor: its first pointwise op of the iteration shape.
      auto anchor = llvm::find_if(tail, [&](Operation *op) {
        return classify(op) == TemplateKind::Pointwise &&
               hasIterationShape(op, groupAnchor, fusion);
      });
      if (anchor == tail.end())
        break;
      ops.resize(position + 1);
      FusionGroups::Group split;
      split.ops = tail;
      split.anchor = anchor - tail.begin();
      for (Operation *op : tail)
        fusion.groupOf[op] = fusion.groups.size();
      fusion.groups.push_back(std::move(split));
      break;
    }
  }
}

/// Moves into group `index` the producer groups of `consumer`'s operands that are data
/// movement and pointwise ops whose one result feeds only `consumer` (transposes,
/// reshapes, scales, a mask's select: what the kernel's loads can absorb, recomputed where
/// the kernel reads them). Their ops are appended to `absorbed` in order.
void absorbProducers(Operation *consumer, unsigned index, ArrayRef<Operation *> group,
                     FusionGroups &fusion, SmallVectorImpl<Operation *> &absorbed) {
  for (Value operand : consumer->getOperands()) {
    Operation *producer = operand.getDefiningOp();
    auto found = producer ? fusion.groupOf.find(producer) : fusion.groupOf.end();
    if (found == fusion.groupOf.end() || found->second == index)
      continue;
    SmallVector<Operation *> &producerOps = fusion.groups[found->second].ops;
    llvm::SmallPtrSet<Operation *, 8> producerSet(producerOps.begin(), producerOps.end());
    auto staysInside = [&](Operation *member) {
      TemplateKind kind = classify(member);
      if (kind != TemplateKind::Movement && kind != TemplateKind::Pointwise)
        return false;
      return member == producer || llvm::all_of(member->getUsers(), [&](Operation *user) {
               return producerSet.contains(user);
             });
    };
    if (producerOps.back() != producer || producer->getNumResults() != 1 ||
        !producer->hasOneUse() || !llvm::all_of(producerOps, staysInside))
      continue;
    // A quantization round trip (a cast to an integer and back) in front of a product
    // stays a kernel of its own: it rounds every element once there, where a prologue
    // would leave the product to the generic loops and redo it for every read.
    TemplateKind consumerKind = classify(consumer);
    if ((consumerKind == TemplateKind::Matmul || consumerKind == TemplateKind::Conv) &&
        llvm::any_of(producerOps, [](Operation *member) {
          auto cast = dyn_cast<graph::CastOp>(member);
          return cast && isa<IntegerType>(cast.getTo());
        }))
      continue;
    // A half-precision or int8 product takes no prologue but reshapes: the GEMM templates
    // read A row-major through TMA (a reshape of it they take), so any other producer
    // (a transformer's heads merged by a transpose before its output projection, the
    // class token gathered before a classifier head, a pointwise op) would leave the
    // product to the generic loops, where a kernel of its own costs one pass over the
    // activation. An fp32 product (generic loops anyway) keeps it.
    if (consumerKind == TemplateKind::Matmul && readsMatrixByTma(consumer) &&
        !llvm::all_of(producerOps, [](Operation *member) {
          return isa<graph::ReshapeOp, graph::FlattenOp, graph::SqueezeOp, graph::UnsqueezeOp>(
              member);
        }))
      continue;
    if (readsViewsOnly(consumer) && !llvm::all_of(producerOps, joinsFlashAttention))
      continue;
    SmallVector<Operation *> grown(group);
    grown.append(absorbed.begin(), absorbed.end());
    if (!fitsInKernel(grown, producerOps))
      continue;
    for (Operation *member : producerOps) {
      fusion.groupOf[member] = index;
      absorbed.push_back(member);
    }
    producerOps.clear();
  }
}

/// Moves into each attention group the data-movement groups whose every result only it
/// reads: the split of a fused QKV projection that Q, K and V's views all read (the
/// flash-attention template reads any strided view of a buffer, so the chain costs no
/// copy there, where a kernel of its own writes every element once more).
void absorbSharedViews(FusionGroups &fusion) {
  for (unsigned index = 0; index < fusion.groups.size(); ++index) {
    FusionGroups::Group &group = fusion.groups[index];
    if (group.ops.empty() || classify(group.getAnchor()) != TemplateKind::Attention)
      continue;
    Operation *anchor = group.getAnchor();
    // The members whose producers are still to look at: a merged group's ops read
    // producers of their own.
    SmallVector<Operation *> worklist(group.ops);
    bool merged = false;
    while (!worklist.empty()) {
      Operation *member = worklist.pop_back_val();
      for (Value operand : member->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        auto found = producer ? fusion.groupOf.find(producer) : fusion.groupOf.end();
        if (found == fusion.groupOf.end() || found->second == index)
          continue;
        unsigned other = found->second;
        SmallVector<Operation *> &producerOps = fusion.groups[other].ops;
        // Views only: a pad or a concatenation moves data too, but the template's strided
        // loads cannot read through it (a head size padded for the kernel).
        bool viewsOnlyReadHere = llvm::all_of(producerOps, [&](Operation *op) {
          return classify(op) == TemplateKind::Movement && joinsFlashAttention(op) &&
                 llvm::all_of(op->getUsers(), [&](Operation *user) {
                   auto userGroup = fusion.groupOf.find(user);
                   return userGroup != fusion.groupOf.end() &&
                          (userGroup->second == index || userGroup->second == other);
                 });
        });
        if (!viewsOnlyReadHere || !fitsInAttentionKernel(group.ops, producerOps))
          continue;
        for (Operation *op : producerOps)
          fusion.groupOf[op] = index;
        group.ops.append(producerOps.begin(), producerOps.end());
        worklist.append(producerOps.begin(), producerOps.end());
        producerOps.clear();
        merged = true;
      }
    }
    if (!merged)
      continue;
    // Block order is an order in which every op follows what it reads.
    llvm::sort(group.ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    group.anchor = llvm::find(group.ops, anchor) - group.ops.begin();
  }
}

/// Moves into each attention group the reshapes and transposes that only rearrange its
/// result: the merge of the heads before the output projection (transpose [B, H, S, D] to
/// [B, S, H, D] or [S, B, H, D], reshape to rows of H * D). The flash-attention template
/// writes any strided view of its output buffer, so the kernel stores the merged layout
/// itself, where a movement kernel would copy the result once more.
void absorbResultViews(FusionGroups &fusion) {
  for (unsigned index = 0; index < fusion.groups.size(); ++index) {
    FusionGroups::Group &group = fusion.groups[index];
    if (group.ops.empty() || classify(group.getAnchor()) != TemplateKind::Attention ||
        group.ops.back() != group.getAnchor())
      continue;
    Value result = group.getAnchor()->getResult(0);
    if (!result.hasOneUse())
      continue;
    Operation *user = *result.getUsers().begin();
    auto found = fusion.groupOf.find(user);
    if (found == fusion.groupOf.end() || found->second == index)
      continue;
    SmallVector<Operation *> &views = fusion.groups[found->second].ops;
    // A chain of rearrangements of the result alone: each op reads the one before (or
    // the result) and shape values, and only the last is read outside the chain.
    Value current = result;
    bool chain = true;
    for (auto [position, op] : llvm::enumerate(views)) {
      chain = isa<graph::TransposeOp, graph::ReshapeOp, graph::FlattenOp, graph::SqueezeOp,
                  graph::UnsqueezeOp>(op) &&
              op->getOperand(0) == current && op->getNumResults() == 1 &&
              (position + 1 == views.size() || op->getResult(0).hasOneUse());
      if (!chain)
        break;
      current = op->getResult(0);
    }
    if (!chain || !fitsInAttentionKernel(group.ops, views))
      continue;
    for (Operation *op : views)
      fusion.groupOf[op] = index;
    group.ops.append(views.begin(), views.end());
    views.clear();
  }
}

FusionGroups formGroups(Block &body, const Extents &extents,
                        llvm::function_ref<bool(Operation *)> needsKernel) {
  FusionGroups fusion;
  fusion.extents = &extents;
  for (Operation &op : body.without_terminator()) {
    if (!needsKernel(&op))
      continue;
    // An epilogue op of the group of one of its operands, with the producers of its other
    // operands that only it reads (the attention mask an Add applies to the scores). A
    // product's or convolution's group first: a pointwise producer (a skip connection's
    // dequantization) is then absorbed, where joining it would leave the add out of the
    // product's epilogue.
    std::optional<unsigned> joined;
    if (classify(&op) == TemplateKind::Pointwise) {
      for (bool templatesOnly : {true, false}) {
        for (Value operand : op.getOperands()) {
          Operation *producer = operand.getDefiningOp();
          auto found = producer ? fusion.groupOf.find(producer) : fusion.groupOf.end();
          if (found == fusion.groupOf.end() || !canJoinEpilogue(&op, fusion, found->second))
            continue;
          TemplateKind kind = classify(fusion.groups[found->second].getAnchor());
          if (templatesOnly && kind != TemplateKind::Matmul && kind != TemplateKind::Conv)
            continue;
          joined = found->second;
          break;
        }
        if (joined)
          break;
      }
    }
    if (joined) {
      SmallVector<Operation *> absorbed, grown(fusion.groups[*joined].ops);
      grown.push_back(&op);
      absorbProducers(&op, *joined, grown, fusion, absorbed);
      SmallVector<Operation *> &ops = fusion.groups[*joined].ops;
      ops.append(absorbed.begin(), absorbed.end());
      ops.push_back(&op);
      fusion.groupOf[&op] = *joined;
      continue;
    }
    // A new group, anchored at `op`, with the producers only it reads as its prologue.
    unsigned index = fusion.groups.size();
    fusion.groups.emplace_back();
    SmallVector<Operation *> prologue;
    if (!readsOperandsDirectly(&op))
      absorbProducers(&op, index, {&op}, fusion, prologue);
    FusionGroups::Group &group = fusion.groups[index];
    group.ops.assign(prologue.begin(), prologue.end());
    group.anchor = group.ops.size();
    group.ops.push_back(&op);
    fusion.groupOf[&op] = index;
  }
  absorbSharedViews(fusion);
  absorbResultViews(fusion);
  splitTemplateEpilogues(fusion);
  return fusion;
}

struct GraphToKernelPass : kiln::impl::GraphToKernelBase<GraphToKernelPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp function : functions) {
      if (function.isExternal())
        continue;
      if (failed(formKernels(module, function)))
        return signalPassFailure();
    }
  }

  /// The analysis of the function being formed, and the host's values of its symbols (by
  /// symbol number): the inputs' extents, and the data-dependent extents read back so far.
  const Extents *extents = nullptr;
  SmallVector<Value> hostSymbols;
  /// Where each data-dependent (fresh) symbol first appears alone: a value and dimension.
  llvm::DenseMap<unsigned, std::pair<Value, unsigned>> symbolOrigins;
  /// The fusion groups of the function being formed, and the buffers of its values.
  const FusionGroups *fusion = nullptr;
  IRMapping *buffers = nullptr;
  SymbolTable *symbolTable = nullptr;
  llvm::StringSet<> *usedNames = nullptr;

  /// Whether `value`'s extents need a symbol read back from the device.
  bool isDataDependent(Value value) const {
    std::optional<ArrayRef<DimExpr>> dims = extents->getAnyDims(value);
    return dims &&
           llvm::any_of(*dims, [&](const DimExpr &dim) { return !extents->fromInputs(dim); });
  }

  /// The sizes of a buffer for `value` (its dynamic extents, computed on the host). A
  /// data-dependent extent's symbols are read back from the device first.
  FailureOr<SmallVector<Value>> getHostSizes(OpBuilder &builder, Location loc, Value value,
                                             Operation *op) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<Value> sizes;
    if (type.hasStaticShape())
      return sizes;
    std::optional<ArrayRef<DimExpr>> dims = extents->getAnyDims(value);
    if (!dims) {
      emitNodeError(op) << "a value of type " << value.getType()
                        << " has an extent the input shapes do not determine (a data-dependent "
                           "shape): the GPU path cannot size its buffer";
      return failure();
    }
    for (auto [dim, extent] : llvm::enumerate(type.getShape())) {
      if (!ShapedType::isDynamic(extent))
        continue;
      for (const auto &[monomial, coefficient] : (*dims)[dim].getTerms())
        for (unsigned symbol : monomial)
          if (!hostSymbols[symbol] && failed(readBackSymbol(builder, symbol, op)))
            return failure();
      sizes.push_back(buildExtent(builder, loc, (*dims)[dim],
                                  [&](unsigned symbol) { return hostSymbols[symbol]; }));
    }
    return sizes;
  }

  /// Upper bounds of `value`'s extents, polynomials in the input symbols alone: its
  /// extents where the input shapes determine them, else what the ops computing it allow.
  /// A selection keeps at most what it selects from (NonZero's positions, Compress's and
  /// TopK's slices, Unique's values, NonMaxSuppression's boxes of every class); a Gather
  /// as many as its indices; a Slice between constants its span; a Concat the sum; an If
  /// the sum of its branches'; pointwise ops and Squeeze/Unsqueeze their operands'.
  /// Nothing for the others (a Range of computed limits, a Loop's scan outputs).
  std::optional<SmallVector<DimExpr>> dimBounds(Value value) {
    auto found = boundCache.find(value);
    if (found != boundCache.end())
      return found->second;
    boundCache[value] = std::nullopt; // a cycle (none in a graph) finds no bound
    std::optional<SmallVector<DimExpr>> bounds = computeDimBounds(value);
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (bounds && type && bounds->size() == static_cast<size_t>(type.getRank()))
      for (auto [dim, extent] : llvm::enumerate(type.getShape()))
        if (!ShapedType::isDynamic(extent))
          (*bounds)[dim] = DimExpr::constant(extent);
    if (bounds && type && bounds->size() != static_cast<size_t>(type.getRank()))
      bounds = std::nullopt;
    boundCache[value] = bounds;
    return bounds;
  }
  llvm::DenseMap<Value, std::optional<SmallVector<DimExpr>>> boundCache;

  std::optional<SmallVector<DimExpr>> computeDimBounds(Value value) {
    using Bounds = SmallVector<DimExpr>;
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      return std::nullopt;
    if (std::optional<ArrayRef<DimExpr>> dims = extents->getDims(value))
      return Bounds(dims->begin(), dims->end());
    if (type.hasStaticShape())
      return Bounds(llvm::map_range(type.getShape(), DimExpr::constant));
    Operation *op = value.getDefiningOp();
    if (!op)
      return std::nullopt;
    auto elements = [](ArrayRef<DimExpr> dims) {
      DimExpr product = DimExpr::constant(1);
      for (const DimExpr &dim : dims)
        product = product * dim;
      return product;
    };
    auto operand = [&](unsigned index) { return dimBounds(op->getOperand(index)); };
    auto normalize = [](int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; };
    int64_t rank = type.getRank();
    if (isa<graph::NonZeroOp>(op)) {
      std::optional<Bounds> input = operand(0);
      if (!input)
        return std::nullopt;
      return Bounds{DimExpr::constant(static_cast<int64_t>(input->size())), elements(*input)};
    }
    if (isa<graph::TopKOp>(op))
      return operand(0); // k of an axis at most its extent; indices alike
    if (auto compress = dyn_cast<graph::CompressOp>(op)) {
      std::optional<Bounds> input = operand(0);
      if (!input || !compress.getAxis())
        return input ? std::optional<Bounds>(Bounds{elements(*input)}) : std::nullopt;
      return input;
    }
    if (isa<graph::UniqueOp>(op)) {
      std::optional<Bounds> input = operand(0);
      if (!input)
        return std::nullopt;
      if (static_cast<int64_t>(input->size()) == rank && rank > 1)
        return input; // y along an axis
      return Bounds(rank, elements(*input));
    }
    if (isa<graph::NonMaxSuppressionOp>(op)) {
      std::optional<Bounds> scores = operand(1);
      if (!scores)
        return std::nullopt;
      return Bounds{elements(*scores), DimExpr::constant(3)};
    }
    if (auto slice = dyn_cast<graph::SliceOp>(op)) {
      std::optional<Bounds> input = operand(0);
      if (!input)
        return std::nullopt;
      std::optional<SmallVector<int64_t>> starts = graph::getConstantInts(slice.getStarts());
      std::optional<SmallVector<int64_t>> ends = graph::getConstantInts(slice.getEnds());
      std::optional<SmallVector<int64_t>> axes =
          slice.getAxes() ? graph::getConstantInts(slice.getAxes())
                          : std::optional<SmallVector<int64_t>>(SmallVector<int64_t>{0});
      std::optional<SmallVector<int64_t>> steps =
          slice.getSteps() ? graph::getConstantInts(slice.getSteps())
                           : std::optional<SmallVector<int64_t>>(SmallVector<int64_t>{1});
      // One axis between non-negative constants (a "keep the first N"): at most its span.
      if (starts && ends && axes && steps && starts->size() == 1 && ends->size() == 1 &&
          axes->size() == 1 && steps->size() == 1 && (*starts)[0] >= 0 &&
          (*ends)[0] >= (*starts)[0] && (*steps)[0] > 0 && (*ends)[0] < (int64_t(1) << 31)) {
        int64_t axis = normalize((*axes)[0], rank);
        if (axis >= 0 && axis < rank)
          (*input)[axis] =
              DimExpr::constant(llvm::divideCeil((*ends)[0] - (*starts)[0], (*steps)[0]));
      }
      return input;
    }
    if (auto gather = dyn_cast<graph::GatherOp>(op)) {
      std::optional<Bounds> data = operand(0), indices = operand(1);
      if (!data || !indices)
        return std::nullopt;
      int64_t axis = normalize(gather.getAxis(), static_cast<int64_t>(data->size()));
      if (axis < 0 || axis >= static_cast<int64_t>(data->size()))
        return std::nullopt;
      Bounds result(data->begin(), data->begin() + axis);
      result.append(indices->begin(), indices->end());
      result.append(data->begin() + axis + 1, data->end());
      return result;
    }
    if (auto gather = dyn_cast<graph::GatherNDOp>(op)) {
      // indices.shape[:-1] + data.shape[batch_dims + indices.shape[-1]:]
      std::optional<Bounds> data = operand(0), indices = operand(1);
      auto indicesType = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
      if (!data || !indices || !indicesType || indicesType.getRank() == 0 ||
          indicesType.isDynamicDim(indicesType.getRank() - 1))
        return std::nullopt;
      int64_t skipped = gather.getBatchDims() + indicesType.getShape().back();
      if (skipped > static_cast<int64_t>(data->size()))
        return std::nullopt;
      Bounds result(indices->begin(), indices->end() - 1);
      result.append(data->begin() + skipped, data->end());
      return result;
    }
    if (auto transpose = dyn_cast<graph::TransposeOp>(op)) {
      std::optional<Bounds> input = operand(0);
      if (!input)
        return std::nullopt;
      Bounds result;
      for (int64_t dim : transpose.getPerm())
        if (dim < 0 || dim >= static_cast<int64_t>(input->size()))
          return std::nullopt;
        else
          result.push_back((*input)[dim]);
      return result;
    }
    if (auto concat = dyn_cast<graph::ConcatOp>(op)) {
      std::optional<Bounds> result = operand(0);
      int64_t axis = normalize(concat.getAxis(), rank);
      if (!result || axis < 0 || axis >= rank)
        return std::nullopt;
      for (unsigned index = 1; index < op->getNumOperands(); ++index) {
        std::optional<Bounds> next = operand(index);
        if (!next || next->size() != result->size())
          return std::nullopt;
        (*result)[axis] = (*result)[axis] + (*next)[axis];
      }
      return result;
    }
    if (isa<graph::IfOp>(op)) {
      unsigned index = cast<OpResult>(value).getResultNumber();
      std::optional<Bounds> result;
      for (Region &region : op->getRegions()) {
        if (region.empty())
          continue;
        std::optional<Bounds> branch = dimBounds(region.front().getTerminator()->getOperand(index));
        if (!branch || (result && branch->size() != result->size()))
          return std::nullopt;
        if (!result) {
          result = branch;
          continue;
        }
        for (auto [sum, term] : llvm::zip(*result, *branch))
          sum = sum + term;
      }
      return result;
    }
    if (isa<graph::SqueezeOp, graph::UnsqueezeOp>(op)) {
      // The extents other than the inserted or removed 1s, in order.
      std::optional<Bounds> input = operand(0);
      auto inputType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
      if (!input || !inputType)
        return std::nullopt;
      SmallVector<DimExpr> kept;
      for (auto [dim, extent] : llvm::enumerate(inputType.getShape()))
        if (extent != 1)
          kept.push_back((*input)[dim]);
      Bounds result;
      auto next = kept.begin();
      for (int64_t extent : type.getShape()) {
        if (extent == 1) {
          result.push_back(DimExpr::constant(1));
          continue;
        }
        if (next == kept.end())
          return std::nullopt;
        result.push_back(*next++);
      }
      return result;
    }
    if (op->hasTrait<graph::OpTrait::Pointwise>()) {
      // Each extent from an operand whose extent there is not a broadcast 1.
      Bounds result(rank, DimExpr::constant(1));
      for (Value input : op->getOperands()) {
        auto inputType = dyn_cast<RankedTensorType>(input.getType());
        if (!inputType || inputType.getRank() != rank)
          continue;
        std::optional<Bounds> bounds = dimBounds(input);
        if (!bounds)
          return std::nullopt;
        for (int64_t dim = 0; dim < rank; ++dim)
          if (inputType.getDimSize(dim) != 1)
            result[dim] = (*bounds)[dim];
      }
      return result;
    }
    return std::nullopt;
  }

  /// Gives the data-dependent `symbol` a host value: a kernel computes the value where
  /// it first appears (the ops of its fusion group that lead to it) and stores its extent,
  /// which the host reads back (kernel.read_back, a sync point) and clamps to the op's
  /// bound, the size the memory plan reserves.
  LogicalResult readBackSymbol(OpBuilder &builder, unsigned symbol, Operation *user) {
    auto origin = symbolOrigins.find(symbol);
    Operation *producer =
        origin == symbolOrigins.end() ? nullptr : origin->second.first.getDefiningOp();
    auto group = producer ? fusion->groupOf.find(producer) : fusion->groupOf.end();
    if (group == fusion->groupOf.end()) {
      InFlightDiagnostic diagnostic = emitNodeError(user)
                                      << "has an extent the input shapes do not determine (a "
                                         "data-dependent shape) that no kernel computes";
      if (producer)
        diagnostic.attachNote(producer->getLoc())
            << "it comes from " << producer->getName() << ", which runs on the host";
      return failure();
    }
    Location loc = producer->getLoc();
    std::optional<SmallVector<DimExpr>> bounds = dimBounds(origin->second.first);
    if (!bounds) {
      emitNodeError(producer) << "a data-dependent extent with no upper bound (of "
                              << producer->getName()
                              << "): the GPU path cannot plan the buffers after it";
      return failure();
    }
    Value bound = buildExtent(builder, loc, (*bounds)[origin->second.second],
                              [&](unsigned symbol) { return hostSymbols[symbol]; });
    // A TopK's extent along its axis is its k, clamped to the axis's extent (the bound):
    // read k itself where a buffer holds it, rather than select the k to count them.
    if (auto topK = dyn_cast<graph::TopKOp>(producer)) {
      if (Value k = kBuffer(topK)) {
        Value count = kernel::ReadBackOp::create(builder, loc, builder.getI64Type(), k);
        count = arith::IndexCastOp::create(builder, loc, builder.getIndexType(), count);
        Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
        hostSymbols[symbol] = arith::MinSIOp::create(
            builder, loc, arith::MaxSIOp::create(builder, loc, count, zero), bound);
        return success();
      }
    }
    // The ops of the producer's group that it depends on, in order.
    const FusionGroups::Group &members = fusion->groups[group->second];
    llvm::SmallPtrSet<Operation *, 16> needed{producer};
    for (Operation *member : llvm::reverse(members.ops))
      if (needed.contains(member))
        for (Value operand : member->getOperands())
          if (Operation *definition = operand.getDefiningOp();
              definition && llvm::is_contained(members.ops, definition))
            needed.insert(definition);
    SmallVector<Operation *> ops;
    for (Operation *member : members.ops)
      if (needed.contains(member))
        ops.push_back(member);
    Value extentBuffer;
    llvm::DenseMap<Value, Value> noDirectOutputs;
    if (failed(createKernel(builder, *symbolTable, ops, producer, *buffers, noDirectOutputs,
                            *usedNames,
                            ExtentOf{origin->second.first, origin->second.second, &extentBuffer})))
      return failure();
    Value count = kernel::ReadBackOp::create(builder, loc, builder.getI64Type(), extentBuffer);
    count = arith::IndexCastOp::create(builder, loc, builder.getIndexType(), count);
    hostSymbols[symbol] = arith::MinSIOp::create(builder, loc, count, bound);
    return success();
  }

  /// The device buffer holding `topK`'s k (an i64 of one element), through the reshapes
  /// that keep its one element; null when a kernel still has to compute it.
  Value kBuffer(graph::TopKOp topK) {
    Value k = topK.getK();
    while (!buffers->contains(k)) {
      Operation *definition = k.getDefiningOp();
      if (!isa_and_present<graph::ReshapeOp, graph::SqueezeOp, graph::UnsqueezeOp>(definition))
        return Value();
      k = definition->getOperand(0);
    }
    Value buffer = buffers->lookup(k);
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() != 1 ||
        !type.getElementType().isInteger(64))
      return Value();
    return buffer;
  }

  /// Reads each input symbol off the first input buffer with that extent.
  void createHostSymbols(OpBuilder &builder, Location loc, ValueRange inputs,
                         ArrayRef<BlockArgument> graphInputs) {
    const SymbolicShapeAnalysis &analysis = extents->getAnalysis();
    hostSymbols.assign(analysis.symbolNames().size(), Value());
    for (auto [buffer, input] : llvm::zip(inputs, graphInputs)) {
      const SymbolicShape *shape = analysis.lookup(input);
      if (!shape || !shape->ranked)
        continue;
      for (auto [dim, extent] : llvm::enumerate(shape->dims)) {
        std::optional<unsigned> symbol = extent.getLargestSymbol();
        if (symbol && extent == DimExpr::symbol(*symbol) && !hostSymbols[*symbol])
          hostSymbols[*symbol] = memref::DimOp::create(builder, loc, buffer, dim);
      }
    }
  }

  LogicalResult formKernels(ModuleOp module, func::FuncOp function) {
    MLIRContext *context = &getContext();
    Extents functionExtents(function);
    extents = &functionExtents;
    Block &body = function.getBody().front();
    auto returnOp = cast<func::ReturnOp>(body.getTerminator());
    OpBuilder builder(context);
    SymbolTable symbols(module);

    // The host function: inputs, then one output buffer per result.
    SmallVector<Type> argumentTypes;
    for (BlockArgument argument : body.getArguments()) {
      FailureOr<MemRefType> type = getBufferType(argument, function);
      if (failed(type))
        return failure();
      argumentTypes.push_back(*type);
    }
    for (Value result : returnOp.getOperands()) {
      FailureOr<MemRefType> type = getBufferType(result, returnOp);
      if (failed(type))
        return failure();
      argumentTypes.push_back(*type);
    }
    builder.setInsertionPoint(function);
    auto host = func::FuncOp::create(builder, function.getLoc(), function.getName(),
                                     builder.getFunctionType(argumentTypes, {}));
    SmallVector<DictionaryAttr> argumentAttrs;
    function.getAllArgAttrs(argumentAttrs);
    SmallVector<DictionaryAttr> resultAttrs;
    function.getAllResultAttrs(resultAttrs);
    argumentAttrs.append(resultAttrs.begin(), resultAttrs.end());
    argumentAttrs.resize(argumentTypes.size(), DictionaryAttr::get(context));
    // The engine's IO signature is read from these: the ONNX element type survives the
    // later retyping of unsigned integers to signless ones.
    for (auto [attrs, type] : llvm::zip(argumentAttrs, argumentTypes)) {
      NamedAttrList list(attrs);
      list.set("kernel.element_type", TypeAttr::get(cast<MemRefType>(type).getElementType()));
      attrs = list.getDictionary(context);
    }
    host.setAllArgAttrs(argumentAttrs);
    host->setAttr(kiln::kernel::kNumInputsAttr,
                  builder.getI64IntegerAttr(static_cast<int64_t>(body.getNumArguments())));
    Block *entry = host.addEntryBlock();
    unsigned numInputs = body.getNumArguments();
    builder.setInsertionPointToEnd(entry);
    createHostSymbols(builder, function.getLoc(), entry->getArguments().take_front(numInputs),
                      body.getArguments());

    // The buffer holding each tensor value.
    IRMapping buffers;
    for (auto [argument, buffer] : llvm::zip(body.getArguments(), entry->getArguments()))
      buffers.map(argument, buffer);
    // An output buffer of dynamic shape is used through a view that states its extents,
    // and the host function returns them (its dynamic extents, output by output), which is
    // how the engine learns the shapes of its outputs.
    // Each data-dependent symbol's origin, for reading it back when a buffer needs it.
    symbolOrigins.clear();
    boundCache.clear();
    const SymbolicShapeAnalysis &analysis = functionExtents.getAnalysis();
    // In program order, the ops in If branches included (kernels form there too).
    body.walk<WalkOrder::PreOrder>([&](Operation *op) {
      for (Value result : op->getResults()) {
        const SymbolicShape *shape = analysis.lookup(result);
        if (!shape || !shape->ranked)
          continue;
        for (auto [dim, extent] : llvm::enumerate(shape->dims)) {
          std::optional<unsigned> symbol = extent.getLargestSymbol();
          if (symbol && *symbol >= analysis.inputSymbolCount() &&
              extent == DimExpr::symbol(*symbol))
            symbolOrigins.try_emplace(*symbol, result, dim);
        }
      }
    });

    SmallVector<Value> outputs(entry->getArguments().drop_front(numInputs));
    // The dynamic extents of each output. A data-dependent output's are known only once
    // its value is computed: it is copied into its buffer at the end, through a view made
    // then.
    SmallVector<SmallVector<Value>> outputSizes(outputs.size());
    llvm::SmallDenseSet<unsigned> dataDependentOutputs;
    auto viewOutput = [&](unsigned index, ArrayRef<Value> sizes) {
      auto type = cast<MemRefType>(outputs[index].getType());
      SmallVector<OpFoldResult> sizesOf;
      unsigned next = 0;
      for (int64_t extent : type.getShape())
        sizesOf.push_back(ShapedType::isDynamic(extent) ? OpFoldResult(sizes[next++])
                                                        : builder.getIndexAttr(extent));
      outputs[index] =
          kiln::createRowMajorView(builder, returnOp.getLoc(), type, outputs[index], sizesOf);
    };
    auto sizeOutput = [&](unsigned index) -> LogicalResult {
      Value result = returnOp.getOperand(index);
      Operation *producer = result.getDefiningOp();
      FailureOr<SmallVector<Value>> sizes =
          getHostSizes(builder, returnOp.getLoc(), result, producer ? producer : returnOp);
      if (failed(sizes))
        return failure();
      outputSizes[index] = *sizes;
      viewOutput(index, *sizes);
      return success();
    };
    for (auto [index, result] : llvm::enumerate(returnOp.getOperands())) {
      if (cast<MemRefType>(outputs[index].getType()).hasStaticShape())
        continue;
      if (isDataDependent(result))
        dataDependentOutputs.insert(index);
      else if (failed(sizeOutput(index)))
        return failure();
    }
    // Results returned exactly once and computed by a kernel are written by that kernel
    // straight into their output buffer; the others are copied there at the end.
    llvm::DenseMap<Value, unsigned> returnCount;
    for (Value result : returnOp.getOperands())
      ++returnCount[result];
    llvm::DenseMap<Value, Value> directOutput;
    for (auto [index, result] : llvm::enumerate(returnOp.getOperands()))
      if (returnCount[result] == 1 && result.getDefiningOp() &&
          !isa<graph::ConstantOp, graph::IfOp>(result.getDefiningOp()) &&
          !dataDependentOutputs.contains(index))
        directOutput[result] = outputs[index];

    builder.setInsertionPointToEnd(entry);
    llvm::StringSet<> usedNames;
    this->buffers = &buffers;
    this->symbolTable = &symbols;
    this->usedNames = &usedNames;
    if (failed(formBlock(builder, body, directOutput)))
      return failure();

    // The data-dependent outputs' extents, now that their values are computed.
    for (unsigned index : llvm::seq<unsigned>(0, outputs.size()))
      if (dataDependentOutputs.contains(index) && failed(sizeOutput(index)))
        return failure();
    SmallVector<Value> outputExtents;
    for (ArrayRef<Value> sizes : outputSizes)
      outputExtents.append(sizes.begin(), sizes.end());

    // Copy the results that no kernel wrote into their output buffers.
    for (auto [index, result] : llvm::enumerate(returnOp.getOperands())) {
      Value output = outputs[index];
      if (directOutput.lookup(result) == output)
        continue;
      Value source = buffers.lookupOrNull(result);
      if (!source) {
        // An inlined (small) constant returned as is.
        auto constant = cast<graph::ConstantOp>(result.getDefiningOp());
        FailureOr<Value> weight = createWeight(builder, symbols, constant);
        if (failed(weight))
          return failure();
        source = *weight;
      }
      memref::CopyOp::create(builder, returnOp.getLoc(), source, output);
    }
    func::ReturnOp::create(builder, returnOp.getLoc(), outputExtents);
    host.setFunctionType(
        builder.getFunctionType(argumentTypes, ValueRange(outputExtents).getTypes()));

    for (NamedAttribute attribute : function->getDiscardableAttrs())
      if (!host->hasAttr(attribute.getName()))
        host->setAttr(attribute.getName(), attribute.getValue());
    function.erase();
    return success();
  }

  /// Forms the kernels of `block` (the function's body, or a branch of an If the host
  /// runs) at the builder's insertion point: a weight per constant that is not inlined, a
  /// kernel per fusion group, a host scf.if per If.
  LogicalResult formBlock(OpBuilder &builder, Block &block,
                          const llvm::DenseMap<Value, Value> &directOutput) {
    FusionGroups fusion = formGroups(block, *extents, [&](Operation *op) {
      return !isa<graph::ConstantOp, graph::IfOp>(op) && !(op->use_empty() && isPure(op)) &&
             !extents->isShapeComputation(op);
    });
    const FusionGroups *outer = this->fusion;
    this->fusion = &fusion;
    llvm::scope_exit restore([&] { this->fusion = outer; });
    for (Operation &op : block.without_terminator()) {
      if (auto constant = dyn_cast<graph::ConstantOp>(op)) {
        if (isInlinedConstant(constant))
          continue;
        FailureOr<Value> weight = createWeight(builder, *symbolTable, constant);
        if (failed(weight))
          return failure();
        buffers->map(constant.getResult(), *weight);
        continue;
      }
      if (auto ifOp = dyn_cast<graph::IfOp>(op)) {
        if (failed(createHostIf(builder, ifOp)))
          return failure();
        continue;
      }
      auto found = fusion.groupOf.find(&op);
      if (found == fusion.groupOf.end() || fusion.groups[found->second].ops.back() != &op)
        continue;
      const FusionGroups::Group &group = fusion.groups[found->second];
      if (failed(createKernel(builder, *symbolTable, group.ops, group.getAnchor(), *buffers,
                              directOutput, *usedNames)))
        return failure();
    }
    return success();
  }

  /// An If runs on the host: an scf.if on its condition (computed on the host where the
  /// input shapes determine it, else loaded from its buffer, which gpu-predicate-branches
  /// reads back) whose branches hold their own kernels and yield the buffers of their
  /// results. A branch's work (NonMaxSuppression over the detections) is then kernels as
  /// any other, not the whole If in one generic kernel. The results' extents are those
  /// of the buffers the branches yield.
  LogicalResult createHostIf(OpBuilder &builder, graph::IfOp ifOp) {
    Location loc = ifOp.getLoc();
    Value condition;
    Value given = ifOp.getCondition();
    if (std::optional<ArrayRef<DimExpr>> elements = extents->getRebuildableElements(given)) {
      for (const auto &[monomial, coefficient] : elements->front().getTerms())
        for (unsigned symbol : monomial)
          if (!hostSymbols[symbol] && failed(readBackSymbol(builder, symbol, ifOp)))
            return failure();
      Value value = buildExtent(builder, loc, elements->front(),
                                [&](unsigned symbol) { return hostSymbols[symbol]; });
      condition = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne, value,
                                        arith::ConstantIndexOp::create(builder, loc, 0));
    } else {
      FailureOr<Value> buffer = bufferOf(builder, given, ifOp);
      if (failed(buffer))
        return failure();
      auto type = cast<MemRefType>(buffer->getType());
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      condition =
          memref::LoadOp::create(builder, loc, *buffer, SmallVector<Value>(type.getRank(), zero));
      if (!condition.getType().isInteger(1))
        condition = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::ne, condition,
            arith::ConstantOp::create(builder, loc, builder.getZeroAttr(condition.getType())));
    }
    SmallVector<Type> resultTypes;
    for (Value result : ifOp.getResults()) {
      FailureOr<MemRefType> type = getBufferType(result, ifOp);
      if (failed(type))
        return failure();
      resultTypes.push_back(*type);
    }
    auto hostIf = scf::IfOp::create(builder, loc, resultTypes, condition,
                                    /*withElseRegion=*/true);
    // A symbol read back inside a branch is not defined after it.
    SmallVector<Value> symbolsBefore = hostSymbols;
    for (auto [region, block] : {std::pair(&ifOp.getThenBranch(), hostIf.thenBlock()),
                                 std::pair(&ifOp.getElseBranch(), hostIf.elseBlock())}) {
      OpBuilder::InsertionGuard guard(builder);
      if (!block->empty())
        block->getTerminator()->erase();
      builder.setInsertionPointToEnd(block);
      Block &branch = region->front();
      // A branch's values are never written straight into an output buffer.
      if (failed(formBlock(builder, branch, llvm::DenseMap<Value, Value>())))
        return failure();
      SmallVector<Value> yielded;
      for (auto [value, type] : llvm::zip(branch.getTerminator()->getOperands(), resultTypes)) {
        FailureOr<Value> buffer = bufferOf(builder, value, ifOp);
        if (failed(buffer))
          return failure();
        yielded.push_back(buffer->getType() == type
                              ? *buffer
                              : memref::CastOp::create(builder, loc, type, *buffer).getResult());
      }
      scf::YieldOp::create(builder, loc, yielded);
      hostSymbols = symbolsBefore;
    }
    builder.setInsertionPointAfter(hostIf);
    for (auto [result, buffer] : llvm::zip(ifOp.getResults(), hostIf.getResults())) {
      buffers->map(result, buffer);
      // The results' own symbols: the extents of the buffer the taken branch yields.
      std::optional<ArrayRef<DimExpr>> dims = extents->getAnyDims(result);
      if (!dims)
        continue;
      for (auto [dim, extent] : llvm::enumerate(*dims)) {
        std::optional<unsigned> symbol = extent.getLargestSymbol();
        if (symbol && extent == DimExpr::symbol(*symbol) && !hostSymbols[*symbol] &&
            cast<MemRefType>(buffer.getType()).isDynamicDim(dim))
          hostSymbols[*symbol] = memref::DimOp::create(builder, loc, buffer, dim);
      }
    }
    return success();
  }

  /// The host function the builder inserts into (perhaps in a branch of an If).
  static func::FuncOp hostFunction(OpBuilder &builder) {
    Operation *parent = builder.getInsertionBlock()->getParentOp();
    return isa<func::FuncOp>(parent) ? cast<func::FuncOp>(parent)
                                     : parent->getParentOfType<func::FuncOp>();
  }

  /// The buffer of `value` for the host: its kernel's, or a weight for a constant.
  FailureOr<Value> bufferOf(OpBuilder &builder, Value value, Operation *user) {
    if (Value buffer = buffers->lookupOrNull(value))
      return buffer;
    if (auto constant = value.getDefiningOp<graph::ConstantOp>())
      return createWeight(builder, *symbolTable, constant);
    return emitNodeError(user) << "uses a value no kernel computed (a shape computation the "
                                  "host does not hold as a buffer)";
  }

  /// A memref.global holding `constant`'s value, and its memref.get_global.
  FailureOr<Value> createWeight(OpBuilder &builder, SymbolTable &symbols,
                                graph::ConstantOp constant) {
    FailureOr<MemRefType> type = getBufferType(constant.getResult(), constant);
    if (failed(type))
      return failure();
    std::string name = "weight";
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(constant.getValue()))
      name = sanitize(resource.getRawHandle().getKey());
    // Globals go before the host function, in the module.
    OpBuilder moduleBuilder(hostFunction(builder));
    auto global = memref::GlobalOp::create(
        moduleBuilder, constant.getLoc(), name, moduleBuilder.getStringAttr("private"), *type,
        cast<ElementsAttr>(constant.getValue()), /*constant=*/true, /*alignment=*/nullptr);
    symbols.insert(global); // renames on a clash
    return memref::GetGlobalOp::create(builder, constant.getLoc(), *type, global.getSymName())
        .getResult();
  }

  /// A kernel that stores one extent of a value its ops compute (into a one-element i64
  /// buffer it allocates) instead of their results.
  struct ExtentOf {
    Value value;
    unsigned dim = 0;
    Value *buffer = nullptr; // set to the buffer it stores into
  };

  /// The kernel.func computing the ops of a group, and its launch on the buffers of the
  /// values it reads.
  LogicalResult createKernel(OpBuilder &builder, SymbolTable &symbols, ArrayRef<Operation *> ops,
                             Operation *anchor, IRMapping &buffers,
                             const llvm::DenseMap<Value, Value> &directOutput,
                             llvm::StringSet<> &usedNames,
                             std::optional<ExtentOf> extentOf = std::nullopt) {
    Operation &op = *anchor; // names the kernel, picks the template
    llvm::SmallPtrSet<Operation *, 8> members(ops.begin(), ops.end());
    SmallVector<Location> locations;
    locations.push_back(op.getLoc()); // the anchor's node first: it names the kernel
    for (Operation *member : ops)
      if (member != anchor)
        locations.push_back(member->getLoc());
    Location loc = ops.size() == 1 ? op.getLoc() : FusedLoc::get(&getContext(), locations);
    // Inputs: the values the ops (and their regions) read from outside the group, without
    // the small constants, which are copied into the body, and the shape values, which
    // the body rebuilds from the symbols.
    llvm::SetVector<Value> captured;
    for (Operation *member : ops) {
      for (Value operand : member->getOperands())
        if (!members.contains(operand.getDefiningOp()))
          captured.insert(operand);
      getUsedValuesDefinedAbove(member->getRegions(), captured);
    }
    SmallVector<Value> inputs, rebuilt;
    SmallVector<graph::ConstantOp> inlined;
    SmallVector<unsigned> symbolsRead;
    for (Value value : captured) {
      if (std::optional<ArrayRef<DimExpr>> elements = extents->getRebuildableElements(value)) {
        rebuilt.push_back(value);
        for (const DimExpr &element : *elements)
          for (const auto &[monomial, coefficient] : element.getTerms())
            symbolsRead.append(monomial.begin(), monomial.end());
        continue;
      }
      auto constant = value.getDefiningOp<graph::ConstantOp>();
      if (constant && isInlinedConstant(constant)) {
        if (!llvm::is_contained(inlined, constant))
          inlined.push_back(constant);
        continue;
      }
      inputs.push_back(value);
    }
    // Results: the values used after the group (or returned); an extent kernel's is the
    // extent.
    SmallVector<Value> results;
    if (!extentOf)
      for (Operation *member : ops)
        for (Value result : member->getResults())
          if (llvm::any_of(result.getUsers(),
                           [&](Operation *user) { return !members.contains(user); }))
            results.push_back(result);

    SmallVector<Type> argumentTypes;
    SmallVector<Value> launchOperands;
    for (Value input : inputs) {
      FailureOr<MemRefType> type = getBufferType(input, &op);
      if (failed(type))
        return failure();
      argumentTypes.push_back(*type);
      launchOperands.push_back(buffers.lookup(input));
    }
    for (Value result : results) {
      FailureOr<MemRefType> type = getBufferType(result, &op);
      if (failed(type))
        return failure();
      argumentTypes.push_back(*type);
      Value buffer = directOutput.lookup(result);
      if (!buffer) {
        FailureOr<SmallVector<Value>> sizes = getHostSizes(builder, loc, result, &op);
        if (failed(sizes))
          return failure();
        buffer = memref::AllocOp::create(builder, loc, *type, *sizes);
      }
      buffers.map(result, buffer);
      launchOperands.push_back(buffer);
    }
    auto extentType = RankedTensorType::get({1}, builder.getI64Type());
    if (extentOf) {
      auto type = MemRefType::get({1}, builder.getI64Type());
      argumentTypes.push_back(type);
      *extentOf->buffer = memref::AllocOp::create(builder, loc, type);
      launchOperands.push_back(*extentOf->buffer);
    }
    unsigned numOutputs = extentOf ? 1 : results.size();
    llvm::sort(symbolsRead);
    symbolsRead.erase(llvm::unique(symbolsRead), symbolsRead.end());
    for (unsigned symbol : symbolsRead) {
      argumentTypes.push_back(builder.getIndexType());
      launchOperands.push_back(hostSymbols[symbol]);
    }

    // The kernel, named after the ONNX node (or the op) and unique in the module.
    std::string node = kiln::graph::getNodeName(loc);
    std::string base = sanitize(node.empty() ? op.getName().stripDialect() : StringRef(node));
    if (extentOf)
      base += "_extent";
    std::string name = base;
    for (unsigned suffix = 1; usedNames.contains(name) || symbols.lookup(name); ++suffix)
      name = base + "_" + std::to_string(suffix);
    usedNames.insert(name);

    OpBuilder kernelBuilder(&getContext());
    kernelBuilder.setInsertionPoint(hostFunction(builder));
    auto kernelFunc = kernel::FuncOp::create(kernelBuilder, loc, name,
                                             kernelBuilder.getFunctionType(argumentTypes, {}));
    symbols.insert(kernelFunc);
    Block &kernelEntry = kernelFunc.getBody().front();
    kernelBuilder.setInsertionPointToEnd(&kernelEntry);
    unsigned numInputs = inputs.size();
    ValueRange arguments = kernelEntry.getArguments();
    Operation *templateOp =
        createTemplate(kernelBuilder, loc, extentOf ? TemplateKind::Generic : classify(&op),
                       arguments.take_front(numInputs), arguments.slice(numInputs, numOutputs),
                       arguments.drop_front(numInputs + numOutputs));
    kernel::ReturnOp::create(kernelBuilder, loc);

    // The template's body: the inlined constants and the op, on tensors.
    Region &region = templateOp->getRegion(0);
    Block *templateBody = kernelBuilder.createBlock(&region);
    IRMapping mapping;
    for (Value input : inputs)
      mapping.map(input, templateBody->addArgument(input.getType(), input.getLoc()));
    llvm::DenseMap<unsigned, Value> symbolArguments;
    for (unsigned symbol : symbolsRead)
      symbolArguments[symbol] = templateBody->addArgument(kernelBuilder.getIndexType(), loc);
    for (Value value : rebuilt) {
      auto type = cast<RankedTensorType>(value.getType());
      SmallVector<Value> elements;
      ArrayRef<DimExpr> values = *extents->getRebuildableElements(value);
      for (const DimExpr &element : values) {
        Value extent = buildExtent(kernelBuilder, loc, element,
                                   [&](unsigned symbol) { return symbolArguments.lookup(symbol); });
        elements.push_back(
            arith::IndexCastOp::create(kernelBuilder, loc, type.getElementType(), extent));
      }
      mapping.map(value,
                  tensor::FromElementsOp::create(kernelBuilder, loc, type, elements).getResult());
    }
    for (graph::ConstantOp constant : inlined)
      kernelBuilder.clone(*constant, mapping);
    for (Operation *member : ops)
      kernelBuilder.clone(*member, mapping);
    SmallVector<Value> yielded;
    for (Value result : results)
      yielded.push_back(mapping.lookup(result));
    if (extentOf) {
      Value extent =
          tensor::DimOp::create(kernelBuilder, loc, mapping.lookup(extentOf->value), extentOf->dim);
      Value element =
          arith::IndexCastOp::create(kernelBuilder, loc, kernelBuilder.getI64Type(), extent);
      yielded.push_back(tensor::FromElementsOp::create(kernelBuilder, loc, extentType, element));
    }
    kernel::YieldOp::create(kernelBuilder, loc, yielded);

    kernel::LaunchOp::create(builder, loc, kernelFunc.getSymName(), launchOperands);
    return success();
  }
};

} // namespace
