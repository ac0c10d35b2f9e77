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
mlir::Value createReduction(
    mlir::OpBuilder &builder, mlir::Location loc, mlir::Value input,
    llvm::ArrayRef<int64_t> axes, bool keepDims, mlir::Value init,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::Value element,
                                   mlir::Value accumulator)>
        combine);

/// `value` (a converted tensor) with the type `type` (same shape, possibly more static
/// extents): a `tensor.cast` when the types differ.
mlir::Value castToType(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value value,
                       mlir::Type type);

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

//===----------------------------------------------------------------------===//
// Families
//===----------------------------------------------------------------------===//

void populateCoreLowering(const mlir::TypeConverter &converter,
                          mlir::RewritePatternSet &patterns);
void populateElementwiseLowering(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateShapeLowering(const mlir::TypeConverter &converter,
                           mlir::RewritePatternSet &patterns);
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
void populateLossLowering(const mlir::TypeConverter &converter,
                          mlir::RewritePatternSet &patterns);

/// Every family's patterns.
void populateGraphToLinalgPatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);

} // namespace kiln::lowering

#endif // KILN_PASSES_LOWERING_GRAPHTOLINALG_LOWERING_H
