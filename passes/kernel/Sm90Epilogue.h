//===- Sm90Epilogue.h - Fused epilogues of the Hopper GEMM templates -*- C++ -*-===//
//
// A matmul or conv kernel's body may continue after its anchor (graph.matmul, graph.conv)
// with elementwise graph ops ending in the yield: bias, activation, residual, scale, cast
// (graph-to-kernel's vertical fusion). The sm_90a templates apply those ops
// to the f32 accumulators of consecutive columns of C (a vector a thread), just before the
// conversion to the output type and the global store (or, with split-K, in the reduction kernel).
// The ops' scalar arithmetic is the generic lowering's (lowering::createElementwiseScalar),
// evaluated in f32; an op it cannot emit leaves the kernel to the generic path.
//
// The other operand of a binary op is a constant of one value, or a kernel input read
// per column of C (a per-output-channel vector: bias, scale), as one value (a scalar), per
// row of C (a row's statistic: a folded LayerNorm's 1 / sigma), or at C's own [row,
// column] (a residual of the output's shape and layout). Those inputs
// are the kernel's extra parameters, bare pointers after %M, %N, %K
// (docs/codegen-sm90.md, "Fused epilogues").
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_SM90EPILOGUE_H
#define KILN_PASSES_KERNEL_SM90EPILOGUE_H

#include "dialects/kernel/KernelOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace kiln {

/// The attribute of the marker op a template puts before a thread's items when they all
/// have the same columns (`builtin.unrealized_conversion_cast %column, %n : index, index
/// to index`): emitSm90Epilogue loads the per-column inputs there, once.
inline constexpr llvm::StringLiteral kEpilogueColumnsAttr = "kiln.epilogue_columns";

/// A kernel input an epilogue reads: one extra parameter of the template kernel.
struct Sm90EpilogueInput {
  enum class Kind {
    Scalar,    // one value for all of C
    PerColumn, // one value per column of C (per output channel)
    Full,      // C's shape and layout, read at C's [row, column]
    PerRow,    // one value per row of C (C's shape with 1 columns: a row's statistic)
  };
  /// The kernel.func argument (and kernel.launch operand) it is.
  unsigned argument = 0;
  Kind kind = Kind::Scalar;
  mlir::Type elementType;
};

/// The elementwise ops a template applies to the f32 accumulators before the store.
struct Sm90Epilogue {
  /// The anchor's result in the template op's body: where the chain starts.
  mlir::Value product;
  /// graph.conv's bias operand (a body argument read per column), added first; or null.
  mlir::Value bias;
  /// The graph ops, in order of evaluation; each reads the product, earlier ops' values,
  /// inputs and constants.
  llvm::SmallVector<mlir::Operation *> ops;
  /// The inputs the chain reads, in kernel-argument order: the template kernel's
  /// parameters after %K.
  llvm::SmallVector<Sm90EpilogueInput> inputs;

  bool empty() const { return ops.empty() && !bias; }
  /// The kernel-name suffix that tells this epilogue apart: "" when empty, else
  /// "_<op names>_<hash of the ops, their attributes and operands>".
  std::string key() const;
  /// "graph.add (bias), graph.relu": for reports.
  std::string describe() const;
};

/// Whether `epilogue` reads an input of C's shape (a residual), which the warp-specialised
/// template can bring into shared memory (sm90ResidualTileBytes).
bool sm90HasResidualInput(const Sm90Epilogue &epilogue);
/// The bytes of an element of `epilogue`'s residual input (0: it has none).
int64_t sm90ResidualElementBytes(const Sm90Epilogue &epilogue);

/// The one op of `function`'s body when it is an `OpTy` (kernel.matmul, kernel.conv) that
/// reads the function's arguments in order and writes its last, the layout the templates
/// take: `kernel.func @k(%a, %b, %extra..., %c) { op ins(%a, %b, %extra...) outs(%c) }`,
/// the extra inputs being its epilogue's. Else null.
template <typename OpTy> OpTy getTemplateOp(kernel::FuncOp function) {
  mlir::Block &entry = function.getBody().front();
  if (entry.getNumArguments() < 3 || !llvm::hasSingleElement(entry.without_terminator()))
    return nullptr;
  auto op = llvm::dyn_cast<OpTy>(&entry.front());
  unsigned numInputs = entry.getNumArguments() - 1;
  if (!op || op.getInputs().size() != numInputs || op.getOutputs().size() != 1 ||
      op.getOutputs()[0] != entry.getArgument(numInputs))
    return nullptr;
  for (auto [index, input] : llvm::enumerate(op.getInputs()))
    if (input != entry.getArgument(index))
      return nullptr;
  return op;
}

/// The epilogue of a template op's body: the elementwise ops from `anchor`'s (one) result
/// to the body's yield (a chain, or any graph of them, in block order), with `bias` (a
/// body argument, or null) added first. `outputType` is the output buffer's type; C is
/// its shape flattened to rows x its last extent. Nullopt when some op is no elementwise
/// op the epilogue can emit or changes C's shape, an operand is of another kind, the body
/// stores more than one value, or it holds anything else before the anchor but inlined
/// constants. `columnAxis` (default: the last) is the output axis along which a
/// per-column input runs (1 for a channels-first convolution's per-channel inputs).
std::optional<Sm90Epilogue> matchSm90Epilogue(mlir::Operation *anchor, mlir::Value bias,
                                              mlir::MemRefType outputType, int64_t columnAxis = -1);

/// One element of `epilogue`: its chain on the f32 value `product`, given the f32 values
/// of its inputs for this element (one per `inputs` entry), in f32 arithmetic (the generic
/// lowering's scalar emission). Templates that read the inputs their own way (the
/// depthwise convolutions) call it per element. Null where an op cannot be emitted. With
/// `biasNarrowInteger`, a chain ending in a cast to an integer type of at most 16 bits
/// gives that integer plus 1.5 x 2^23 (0x4B400000), whose f32 bits hold it in their low
/// bits (the store then only truncates them); else the integer.
mlir::Value emitSm90EpilogueLane(mlir::OpBuilder &b, mlir::Location loc,
                                 const Sm90Epilogue &epilogue, mlir::Value product,
                                 llvm::ArrayRef<mlir::Value> inputs,
                                 bool biasNarrowInteger = false);

/// The template placeholders of `epilogue` ({EPILOGUE_PARAMETERS}, {EPILOGUE}, {CONVERT},
/// {STORED}): the extra parameters, the marker op that stands for the chain (replaced by
/// emitSm90Epilogue once parsed), and the conversion of its value (or of `value` when
/// the epilogue is empty) to `result`. `value`, `row`, `column`, `m`, `n` name the
/// template's SSA values of the f32 vector of `lanes` consecutive elements of a row of C,
/// C's row and first column, and C's extents. `residual`, when given, names a
/// shared-memory tile holding the epilogue's input of C's shape and the element's row
/// and column in it ("%tile, %row, %column : !tile-type"): that input is read there.
llvm::SmallVector<std::pair<llvm::StringRef, std::string>>
sm90EpiloguePlaceholders(const Sm90Epilogue *epilogue, mlir::Type result, llvm::StringRef value,
                         llvm::StringRef row, llvm::StringRef column, llvm::StringRef m,
                         llvm::StringRef n, int64_t lanes = 4, llvm::StringRef residual = {});

/// `op`'s scalar computation (an elementwise graph op, through the generic lowering's
/// lowering::createElementwiseScalar) on the f32 scalars `args`, as if its float operands
/// and results were f32; a cast to a narrower float rounds and widens again. Null where
/// the lowering has nothing for the op. Shared by the sm_90a epilogues and the row
/// kernels (rows).
mlir::Value emitElementwiseInF32(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                                 mlir::ValueRange args);

/// `value` (a scalar or vector of a kernel input's element type) as f32: floats extended
/// or truncated, integers converted exactly (up to 2^24), those of at most 16 bits with
/// integer and f32 arithmetic rather than a conversion instruction.
mlir::Value widenToF32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value);

/// The one value of a float constant that holds one (a splat, or a single element).
std::optional<double> getSingleFloat(mlir::Attribute attr);

/// Replaces the marker op in `kernel` (a parsed template) with `epilogue`'s arithmetic on
/// the marker's lanes, reading its inputs from the kernel's parameters `firstParameter`..,
/// which `trailingParameters` others follow (a residual tile's map besides).
mlir::LogicalResult emitSm90Epilogue(mlir::gpu::GPUFuncOp kernel, const Sm90Epilogue &epilogue,
                                     unsigned firstParameter, unsigned trailingParameters = 0);

} // namespace kiln

#endif // KILN_PASSES_KERNEL_SM90EPILOGUE_H
