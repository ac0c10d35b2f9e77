//===- Core.cpp - Graph to linalg: constants ------------------------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;

namespace kiln::lowering {
namespace {

/// `value` retyped to `type` (same shape, signless elements of the same width). Weight
/// blobs keep their storage: the attribute only gets a new type.
FailureOr<ElementsAttr> retype(ElementsAttr value, ShapedType type) {
  if (value.getType() == type)
    return value;
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    return cast<ElementsAttr>(dense.bitcast(type.getElementType()));
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    return cast<ElementsAttr>(
        DenseResourceElementsAttr::get(type, resource.getRawHandle()));
  return failure();
}

/// graph.constant → arith.constant (bufferized into a read-only global).
struct ConstantLowering : OpConversionPattern<graph::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getConvertedResultType(*getTypeConverter(), op);
    if (!type)
      return rewriter.notifyMatchFailure(op, "unranked constant");
    FailureOr<ElementsAttr> value = retype(op.getValue(), type);
    if (failed(value))
      return rewriter.notifyMatchFailure(op, "constant attribute of an unknown kind");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, cast<TypedAttr>(*value));
    return success();
  }
};

} // namespace

void populateCoreLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ConstantLowering>(converter, patterns.getContext());
}

} // namespace kiln::lowering
