//===- Lowering.h - Graph to linalg: patterns and building blocks -*- C++ -*-===//
//
// The lowering of the graph dialect to upstream dialects on tensors (linalg, tensor,
// arith, math, scf), shared by every op family. Each family has one file beside this
// one, `<Family>.cpp`, that defines its patterns and a `populate<Family>Lowering`
// function declared below; the `graph-to-linalg` pass (passes/lowering/GraphToLinalg.cpp)
// collects them all.
//
// Adding the lowering of an op:
//  - write an `OpConversionPattern<graph::XOp>` in the family's file; read operands from
//    the adaptor (their types are already converted: unsigned integers are signless) and
//    element signedness from the op's own (graph) types, through `isUnsigned`;
//  - read constant operands the op needs at compile time (axes, pads, a shape) from the
//    op's original operand with `graph::getConstantInts`; when a form cannot be lowered,
//    `return rewriter.notifyMatchFailure(op, "why")` - the pass then reports the op as
//    not supported on the CPU path, naming the ONNX node;
//  - build results with the helpers below so broadcasting, dynamic sizes and element
//    conversions behave the same everywhere;
//  - test it in test/passes/graph-to-linalg/<family>.mlir (the IR it produces) and with
//    the ONNX backend test cases of the op through `kiln run --device cpu` (the numbers).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_LOWERING_GRAPHTOLINALG_LOWERING_H
#define KILN_PASSES_LOWERING_GRAPHTOLINALG_LOWERING_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::lowering {

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// Converts graph tensor types into the types upstream dialects accept: unsigned integer
/// elements (`ui8`) become signless (`i8`); everything else is kept.
class GraphTypeConverter : public mlir::TypeConverter {
public:
  GraphTypeConverter();
};

/// Whether a graph element type (or a tensor of it) is an unsigned integer: the graph
/// dialect keeps ONNX's signedness in the type, upstream arithmetic in the op.
bool isUnsigned(mlir::Type graphType);

/// `axis` in [-rank, rank) (ONNX counts negative axes from the back) normalised to
/// [0, rank), or failure when out of range.
mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// The converted, ranked result type number `index` of `op`, or null when it is unranked
/// (every lowering needs a rank; shape inference gives one to almost everything).
mlir::RankedTensorType getConvertedResultType(const mlir::TypeConverter &converter,
                                              mlir::Operation *op, unsigned index = 0);

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

/// The extents of `tensor`: constants where static, `tensor.dim` otherwise.
llvm::SmallVector<mlir::OpFoldResult> getSizes(mlir::OpBuilder &builder, mlir::Location loc,
                                               mlir::Value tensor);

/// A `tensor.empty` of `type`; its dynamic extents are taken from `sizes` (one entry per
/// dimension; static entries must agree with the type).
mlir::Value createEmptyTensor(mlir::OpBuilder &builder, mlir::Location loc,
                              mlir::RankedTensorType type,
                              llvm::ArrayRef<mlir::OpFoldResult> sizes);

/// A tensor of `type` (and extents `sizes`) filled with the scalar `value`.
mlir::Value createFilledTensor(mlir::OpBuilder &builder, mlir::Location loc,
                               mlir::RankedTensorType type,
                               llvm::ArrayRef<mlir::OpFoldResult> sizes, mlir::Value value);

/// The result extents of an elementwise op whose operands broadcast (ONNX
/// multidirectional broadcasting) to `resultType`: static extents from the type, dynamic
/// ones from the first operand that does not broadcast along that dimension.
llvm::SmallVector<mlir::OpFoldResult> getBroadcastSizes(mlir::OpBuilder &builder,
                                                        mlir::Location loc,
                                                        mlir::RankedTensorType resultType,
                                                        mlir::ValueRange operands);

/// The computation of one result element from one element of each operand.
using ScalarBody = llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                                  mlir::ValueRange operandElements)>;

/// A `linalg.generic` computing `resultType` elementwise from `operands`, which broadcast
/// to it by ONNX's rules (aligned at the innermost dimension; an extent of 1 is
/// repeated). An operand's dimension broadcasts only when its extent is statically 1, so
/// dynamic extents must match at run time, as in every compiler that specialises shapes.
mlir::Value createElementwise(mlir::OpBuilder &builder, mlir::Location loc,
                              mlir::RankedTensorType resultType, mlir::ValueRange operands,
                              ScalarBody body);

/// The indexing map that reads an operand of `operandType` broadcast to `resultRank`
/// dimensions (ONNX rules; see createElementwise).
mlir::AffineMap getBroadcastMap(mlir::MLIRContext *context, mlir::RankedTensorType operandType,
                                int64_t resultRank);

/// Reduces `input` over `axes` (sorted, normalised) with `combine`, starting from `init`
/// (a scalar of the result's element type). The result has the reduced extents removed,
/// or kept as 1 when `keepDims`.
mlir::Value
createReduction(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value input,
                llvm::ArrayRef<int64_t> axes, bool keepDims, mlir::Value init,
                llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                               mlir::Value element, mlir::Value accumulator)>
                    combine);

/// `value` (a converted tensor) with the type `type` (same shape, possibly more static
/// extents): a `tensor.cast` when the types differ.
mlir::Value castToType(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value value,
                       mlir::Type type);

/// A parallel `linalg.generic` over a fresh `resultType` tensor of extents `sizes`,
/// reading `inputs` through `inputMaps` (the result through the identity); `body` gets one
/// element of each input and yields the result's. The building block of every lowering
/// whose operands are read through affine maps (broadcasts, per-channel parameters,
/// projections of an indices tensor).
mlir::Value createParallelGeneric(mlir::OpBuilder &builder, mlir::Location loc,
                                  mlir::RankedTensorType resultType,
                                  llvm::ArrayRef<mlir::OpFoldResult> sizes, mlir::ValueRange inputs,
                                  llvm::ArrayRef<mlir::AffineMap> inputMaps, ScalarBody body);

/// The computation of one result element from its position (one `linalg.index` per
/// result dimension).
using IndexedBody =
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange indices)>;

/// A "gather": a `linalg.generic` without inputs producing `type` (extents `sizes`) whose
/// element at `indices` is `body(indices)`; the body reads its sources with
/// `tensor.extract`. For the forms whose index arithmetic affine maps cannot express
/// (modulo, reflection, data-dependent positions, interpolation).
mlir::Value createIndexedGeneric(mlir::OpBuilder &builder, mlir::Location loc,
                                 mlir::RankedTensorType type,
                                 llvm::ArrayRef<mlir::OpFoldResult> sizes, IndexedBody body);

/// Where a padded gather reads along one dimension: the source index for result index
/// `index` of dimension `dim` (always in bounds) and, where the position can fall into
/// the padding, an i1 that is true inside the source (null when it never falls outside).
using PaddedSourceIndex = llvm::function_ref<std::pair<mlir::Value, mlir::Value>(
    mlir::OpBuilder &, mlir::Location, int64_t dim, mlir::Value index)>;

/// `input` padded by gather: a `createIndexedGeneric` over `resultType` (extents `sizes`)
/// reading `input` at the indices `sourceIndex` gives, and `padValue` where any dimension
/// reports the position outside the source. Written as a generic rather than tensor.pad
/// or a strided tensor.insert_slice, which bufferize into copies into strided subviews
/// (a runtime call the JIT does not link), and so that the index arithmetic may be any
/// (strides, reflection, wrapping, run-time pads).
mlir::Value createPaddedGather(mlir::OpBuilder &builder, mlir::Location loc,
                               mlir::RankedTensorType resultType,
                               llvm::ArrayRef<mlir::OpFoldResult> sizes, mlir::Value input,
                               mlir::Value padValue, PaddedSourceIndex sourceIndex);

/// The map reading a tensor of the keepdims shape of a reduction over `axes` (or, without
/// `keepDims`, of the shape with them dropped) from the reduction's `rank`-dimensional
/// iteration space: reduced dimensions read 0 (or are dropped).
mlir::AffineMap getKeptMap(mlir::MLIRContext *context, int64_t rank, llvm::ArrayRef<int64_t> axes,
                           bool keepDims = true);

/// The shape and extents of the result of reducing `input` over `axes`: the reduced
/// extents removed, or kept as 1 when `keepDims`.
std::pair<llvm::SmallVector<int64_t>, llvm::SmallVector<mlir::OpFoldResult>>
getReducedShape(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value input,
                llvm::ArrayRef<int64_t> axes, bool keepDims);

/// Like createReduction, but the body also reads `stats`, tensors of the keepdims shape
/// holding one value per reduced slice (an earlier reduction's result, e.g. the slice's
/// maximum or mean): `combine` gets (element, stats..., accumulator). The statistics
/// passes of softmax, the normalisations and LogSumExp are this.
mlir::Value createReductionWithStats(
    mlir::OpBuilder &builder, mlir::Location loc, mlir::Value input, llvm::ArrayRef<int64_t> axes,
    bool keepDims, mlir::ValueRange stats, mlir::Value init,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange args)>
        combine);

/// The product of `tensor`'s extents along `dims`, as an index (the element count of a
/// reduced slice).
mlir::Value createExtentProduct(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value tensor,
                                llvm::ArrayRef<int64_t> dims);

/// Whether `type` is a ranked tensor holding exactly one element (a scalar operand, rank
/// 0 or every extent 1, as ONNX writes `[1]` scalars).
bool isSingleElement(mlir::Type type);

/// The single element of a tensor holding one scalar (any rank, all extents 1).
mlir::Value extractScalar(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value tensor);

/// `build(i)` for the case `caseValues[i]` equal to the run-time index `selector`, under
/// an `scf.index_switch` yielding `resultType` (each case's value cast to it); the default
/// runs case 0 (ONNX makes other values invalid). For operands such as axes that pick the
/// lowering but are only known at run time.
mlir::Value
createSwitch(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value selector,
             llvm::ArrayRef<int64_t> caseValues, mlir::Type resultType,
             llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, size_t)> build);

//===----------------------------------------------------------------------===//
// Matrix products and convolutions (NN.cpp)
//===----------------------------------------------------------------------===//

/// `lhs` x `rhs` with NumPy matmul semantics (1-D operands promoted, batch dimensions
/// broadcast) as a tensor of `resultType`, accumulated in its element type (float or
/// integer) from zero: what graph.matmul lowers to. Failure for 0-D operands, a result
/// rank that does not match them, or a dynamic batch extent that broadcasts.
mlir::FailureOr<mlir::Value> createMatMul(mlir::OpBuilder &builder, mlir::Location loc,
                                          mlir::Value lhs, mlir::Value rhs,
                                          mlir::RankedTensorType resultType);

/// The convolution graph.conv computes, of `input` ([N, C, D...]) by `weight` ([M, C /
/// group, K...]) plus the optional 1-D `bias` ([M]), with ONNX's `strides`, `dilations`,
/// `pads` (begins then ends) and `group`, as a tensor of `resultType`; the input is padded
/// with zeros and the operands' element type (float or integer) is the accumulator's, or
/// narrower: f16/bf16 accumulate in f32 and i8 operands (signed) in an i32 `resultType`.
/// Failure where the shapes are dynamic (other than N) or do not match the attributes.
/// With `channelsLast`, `input` is [N, D..., C], `weight` [M, K..., C / group] and the
/// result [N, O..., M] (graph.conv's `channels_last`).
mlir::FailureOr<mlir::Value>
createGraphConvolution(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value input,
                       mlir::Value weight, mlir::Value bias, mlir::RankedTensorType resultType,
                       llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> dilations,
                       llvm::ArrayRef<int64_t> pads, int64_t group, bool channelsLast = false);

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

/// A scalar constant of `type` (any float, integer or i1) holding `value`.
mlir::Value createScalarConstant(mlir::OpBuilder &builder, mlir::Location loc, mlir::Type type,
                                 double value);

/// The scalar `value` of graph element type `from` converted to graph element type `to`
/// as ONNX's Cast does: floats round to nearest even on narrowing, floats to integers
/// truncate toward zero, integers widen by their signedness, any number to bool is
/// `!= 0`. `from` and `to` are graph types (they carry the signedness).
mlir::Value convertScalar(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value value,
                          mlir::Type from, mlir::Type to);

/// `index` as a value of integer `type` (or the reverse) for index arithmetic.
mlir::Value indexToInteger(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value index,
                           mlir::Type type);
mlir::Value integerToIndex(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value integer);

/// A run-time index counted from the back when negative (ONNX's convention for axes and
/// gather indices): `index < 0 ? index + extent : index`.
mlir::Value wrapNegativeIndex(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value index,
                              mlir::Value extent);

/// An index as a float of `floatType`, through i64 (`arith.index_cast`, then
/// `arith.sitofp`, or `arith.uitofp` when `isUnsignedValue`): counts and positions used in
/// float arithmetic.
mlir::Value indexToFloat(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value index,
                         mlir::Type floatType, bool isUnsignedValue = false);

/// A float, already integral, as an index: `arith.fptosi` to i64, then `arith.index_cast`
/// (undefined when the value does not fit; see f64ToIndex).
mlir::Value floatToIndex(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value value);

/// An f64 constant. Coordinates and weights of the resampling and signal ops are computed
/// in f64, as ONNX's reference does, so that rounding at half-way points matches it.
mlir::Value createF64Constant(mlir::OpBuilder &builder, mlir::Location loc, double value);

/// `value` (a float, integer or index scalar) as an f64: floats extended, integers
/// converted by their signedness (`isUnsignedInt`), indices through i64.
mlir::Value toF64(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value value,
                  bool isUnsignedInt = false);

/// An f64 `value` as a float of `type` (f64 or narrower).
mlir::Value fromF64(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value value,
                    mlir::Type type);

/// An f64 `value`, already integral, as an index; values far out of range are clamped to
/// +-1e15 first so that the conversion is defined.
mlir::Value f64ToIndex(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value value);

/// The largest or smallest value of an element type: +-inf for floats, the integer
/// extremes by `isUnsignedType` (the identities of min and max reductions).
mlir::Value createExtremeConstant(mlir::OpBuilder &builder, mlir::Location loc, mlir::Type type,
                                  bool largest, bool isUnsignedType);

/// The larger (`max`) or smaller of two elements, the way ONNX's reductions, poolings and
/// scatters combine them: for floats `arith.maximumf` / `arith.minimumf`, which propagate
/// a NaN in either operand (numpy's maximum/minimum); for integers the unsigned or signed
/// op by `isUnsignedType`.
mlir::Value createMinMax(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value lhs,
                         mlir::Value rhs, bool max, bool isUnsignedType);

/// The activation `name` of ONNX's recurrent ops (Relu, Tanh, Sigmoid, Affine, LeakyRelu,
/// ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus) of the float scalar
/// `x`, with its `alpha` and `beta` where it takes them: the scalar math of the elementwise
/// ops of those names (Elementwise.cpp), f16 and bf16 computed in f32. Null for any other
/// name or a non-float `x`.
mlir::Value createActivation(mlir::OpBuilder &builder, mlir::Location loc, llvm::StringRef name,
                             double alpha, double beta, mlir::Value x);

/// Whether `name` is one of the activations createActivation builds.
bool isActivationName(llvm::StringRef name);

/// The scalar computation of the elementwise graph op `op` (one of those Elementwise.cpp
/// lowers: arithmetic, comparisons, Clip, Cast, unary math, activations) on `args`, one
/// element of each of its operands in their converted element types: the body its
/// linalg.generic gets, for other code generators (the sm_90a GEMM epilogue) to reuse.
/// Null when `op` is no such op or its element types are not handled.
mlir::Value createElementwiseScalar(mlir::Operation *op, mlir::OpBuilder &builder,
                                    mlir::Location loc, mlir::ValueRange args);

/// The float scalar `x` clamped to [`low`, `high`] as Clip does (a NaN propagates).
mlir::Value createFloatClamp(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value x,
                             mlir::Value low, mlir::Value high);

//===----------------------------------------------------------------------===//
// Families
//===----------------------------------------------------------------------===//

void populateCoreLowering(const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateElementwiseLowering(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateShapeLowering(const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateReductionLowering(const mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
void populateNNLowering(const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateQuantizationLowering(const mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
void populateRecurrentLowering(const mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
void populateSignalLowering(const mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateRandomLowering(const mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateControlLowering(const mlir::TypeConverter &converter,
                             mlir::RewritePatternSet &patterns);
void populateLossLowering(const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateTrainingLowering(const mlir::TypeConverter &converter,
                              mlir::RewritePatternSet &patterns);

/// Every family's patterns.
void populateGraphToLinalgPatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);

} // namespace kiln::lowering

#endif // KILN_PASSES_LOWERING_GRAPHTOLINALG_LOWERING_H
