//===- Elementwise.cpp - Graph to linalg: elementwise math and logic ------===//
//
// Every elementwise op becomes one `linalg.generic` over the broadcast of its operands
// (createElementwise); what differs between ops is the scalar computation, written
// once per op as an overload of `computeElement`.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::lowering {
namespace {

/// The element type of operand `index` of `op` as the graph sees it (with signedness).
Type graphElementType(Operation *op, unsigned index) {
  return getElementTypeOrSelf(op->getOperand(index).getType());
}

//===----------------------------------------------------------------------===//
// Scalar computations, one per op. A null result means the element type is not handled.
//===----------------------------------------------------------------------===//

Value computeElement(graph::AddOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return arith::AddFOp::create(b, loc, args[0], args[1]);
  return arith::AddIOp::create(b, loc, args[0], args[1]);
}

Value computeElement(graph::SubOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return arith::SubFOp::create(b, loc, args[0], args[1]);
  return arith::SubIOp::create(b, loc, args[0], args[1]);
}

Value computeElement(graph::MulOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return arith::MulFOp::create(b, loc, args[0], args[1]);
  return arith::MulIOp::create(b, loc, args[0], args[1]);
}

Value computeElement(graph::DivOp op, OpBuilder &b, Location loc, ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return arith::DivFOp::create(b, loc, args[0], args[1]);
  // Integer division truncates toward zero, as in C and ONNX Runtime.
  if (isUnsigned(graphElementType(op, 0)))
    return arith::DivUIOp::create(b, loc, args[0], args[1]);
  return arith::DivSIOp::create(b, loc, args[0], args[1]);
}

Value computeElement(graph::ReluOp op, OpBuilder &b, Location loc, ValueRange args) {
  Value zero = createScalarConstant(b, loc, args[0].getType(), 0.0);
  if (isa<FloatType>(args[0].getType()))
    return arith::MaximumFOp::create(b, loc, args[0], zero);
  if (isUnsigned(graphElementType(op, 0)))
    return args[0];
  return arith::MaxSIOp::create(b, loc, args[0], zero);
}

Value computeElement(graph::ExpOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::ExpOp::create(b, loc, args[0]);
}

Value computeElement(graph::TanhOp, OpBuilder &b, Location loc, ValueRange args) {
  return math::TanhOp::create(b, loc, args[0]);
}

Value computeElement(graph::CastOp op, OpBuilder &b, Location loc, ValueRange args) {
  return convertScalar(b, loc, args[0], graphElementType(op, 0), op.getTo());
}

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

/// Lowers `OpTy` into one linalg.generic whose body is `computeElement(op, ...)`.
template <typename OpTy>
struct ElementwiseLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult matchAndRewrite(OpTy op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*this->getTypeConverter(), op);
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "unranked result");
    for (Value operand : adaptor.getOperands())
      if (!isa<RankedTensorType>(operand.getType()))
        return rewriter.notifyMatchFailure(op, "unranked operand");
    bool handled = true;
    Value result = createElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value element = computeElement(op, b, loc, args);
          if (element)
            return element;
          handled = false;
          return args[0];
        });
    if (!handled) {
      rewriter.eraseOp(result.getDefiningOp());
      return rewriter.notifyMatchFailure(op, "element type not handled");
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateElementwiseLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<graph::AddOp>, ElementwiseLowering<graph::SubOp>,
               ElementwiseLowering<graph::MulOp>, ElementwiseLowering<graph::DivOp>,
               ElementwiseLowering<graph::ReluOp>, ElementwiseLowering<graph::ExpOp>,
               ElementwiseLowering<graph::TanhOp>, ElementwiseLowering<graph::CastOp>>(
      converter, patterns.getContext());
}

} // namespace kiln::lowering
