//===- ReductionOps.cpp - Reductions and index ops -------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace kiln::graph;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The shape rule shared by the ten Reduce* ops.
static LogicalResult inferReductionType(std::optional<Location> location, Value data, Value axes,
                                        bool keepdims, bool noopWithEmptyAxes,
                                        SmallVectorImpl<Type> &inferred) {
  auto dataType = cast<TensorType>(data.getType());
  Type elementType = dataType.getElementType();

  // How many axes there are (dynamic when unknown) and, when constant, which ones.
  std::optional<SmallVector<int64_t>> axisValues;
  int64_t numAxes = ShapedType::kDynamic;
  if (!axes) {
    axisValues.emplace();
    numAxes = 0;
  } else {
    auto axesType = cast<TensorType>(axes.getType());
    if (!axesType.getElementType().isSignlessInteger(64))
      return emitOptionalError(location, "axes must have element type i64, got ",
                               axesType.getElementType());
    if (axesType.hasRank()) {
      if (axesType.getRank() != 1)
        return emitOptionalError(location, "axes must be a 1-D tensor, got rank ",
                                 axesType.getRank());
      numAxes = axesType.getDimSize(0);
    }
    axisValues = getConstantInts(axes);
    if (axisValues)
      numAxes = axisValues->size();
  }

  // An empty axes list is either the identity or a reduction over everything.
  if (numAxes == 0) {
    if (noopWithEmptyAxes) {
      inferred.push_back(dataType);
      return success();
    }
    if (!dataType.hasRank()) {
      inferred.push_back(UnrankedTensorType::get(elementType));
      return success();
    }
    SmallVector<int64_t> shape(keepdims ? dataType.getRank() : 0, 1);
    inferred.push_back(RankedTensorType::get(shape, elementType));
    return success();
  }

  if (!dataType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    return success();
  }
  int64_t rank = dataType.getRank();
  ArrayRef<int64_t> dims = dataType.getShape();
  if (!ShapedType::isDynamic(numAxes) && numAxes > rank)
    return emitOptionalError(location, numAxes, " axes given for rank ", rank);

  if (!axisValues) {
    // Unknown axes: with keepdims each dimension either stays or becomes 1, so only
    // extents of 1 are certain; without it only the rank is known, and only when the
    // number of axes is.
    if (keepdims) {
      SmallVector<int64_t> shape;
      for (int64_t dim : dims)
        shape.push_back(dim == 1 ? 1 : ShapedType::kDynamic);
      inferred.push_back(RankedTensorType::get(shape, elementType));
    } else if (!ShapedType::isDynamic(numAxes)) {
      SmallVector<int64_t> shape(rank - numAxes, ShapedType::kDynamic);
      inferred.push_back(RankedTensorType::get(shape, elementType));
    } else {
      inferred.push_back(UnrankedTensorType::get(elementType));
    }
    return success();
  }

  SmallVector<bool> reduced(rank, false);
  for (int64_t axis : *axisValues) {
    auto normalized = normalizeAxis(location, axis, rank);
    if (failed(normalized))
      return failure();
    if (reduced[*normalized])
      return emitOptionalError(location, "axis ", axis, " is reduced twice");
    reduced[*normalized] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i])
      shape.push_back(dims[i]);
    else if (keepdims)
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

#define KILN_DEFINE_REDUCTION_INFERENCE(OpClass)                                                   \
  LogicalResult OpClass::inferReturnTypes(MLIRContext *, std::optional<Location> location,         \
                                          Adaptor adaptor, SmallVectorImpl<Type> &inferred) {      \
    return inferReductionType(location, adaptor.getData(), adaptor.getAxes(),                      \
                              adaptor.getKeepdims(), adaptor.getNoopWithEmptyAxes(), inferred);    \
  }

KILN_DEFINE_REDUCTION_INFERENCE(ReduceMeanOp)
KILN_DEFINE_REDUCTION_INFERENCE(ReduceSumOp)
KILN_DEFINE_REDUCTION_INFERENCE(ReduceMaxOp)
KILN_DEFINE_REDUCTION_INFERENCE(ReduceMinOp)
KILN_DEFINE_REDUCTION_INFERENCE(ReduceProdOp)
KILN_DEFINE_REDUCTION_INFERENCE(ReduceL1Op)
KILN_DEFINE_REDUCTION_INFERENCE(ReduceL2Op)
KILN_DEFINE_REDUCTION_INFERENCE(ReduceLogSumOp)
KILN_DEFINE_REDUCTION_INFERENCE(ReduceLogSumExpOp)
KILN_DEFINE_REDUCTION_INFERENCE(ReduceSumSquareOp)

#undef KILN_DEFINE_REDUCTION_INFERENCE

//===----------------------------------------------------------------------===//
// CumSumOp
//===----------------------------------------------------------------------===//

LogicalResult CumSumOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                                         Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto axisType = cast<TensorType>(adaptor.getAxis().getType());
  Type axisElement = axisType.getElementType();
  if (!axisElement.isSignlessInteger(32) && !axisElement.isSignlessInteger(64))
    return emitOptionalError(location, "axis must have element type i32 or i64, got ", axisElement);
  // ONNX specifies a 0-D axis; exporters also write a 1-D tensor of one element.
  bool scalarAxis = !axisType.hasRank() || axisType.getRank() == 0 ||
                    (axisType.getRank() == 1 && (ShapedType::isDynamic(axisType.getDimSize(0)) ||
                                                 axisType.getDimSize(0) == 1));
  if (!scalarAxis)
    return emitOptionalError(location, "axis must be a scalar, got a tensor of type ", axisType);
  if (auto axis = getConstantInts(adaptor.getAxis()); axis && inputType.hasRank())
    if (failed(normalizeAxis(location, (*axis)[0], inputType.getRank())))
      return failure();
  inferred.push_back(inputType);
  return success();
}

//===----------------------------------------------------------------------===//
// ArgMaxOp, ArgMinOp
//===----------------------------------------------------------------------===//

static LogicalResult inferArgReductionType(MLIRContext *context, std::optional<Location> location,
                                           Value input, int64_t axis, bool keepdims,
                                           SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(input.getType());
  Type indexType = IntegerType::get(context, 64);
  if (!inputType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(indexType));
    return success();
  }
  auto normalized = normalizeAxis(location, axis, inputType.getRank());
  if (failed(normalized))
    return failure();
  SmallVector<int64_t> shape(inputType.getShape());
  if (keepdims)
    shape[*normalized] = 1;
  else
    shape.erase(shape.begin() + *normalized);
  inferred.push_back(RankedTensorType::get(shape, indexType));
  return success();
}

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                         Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferArgReductionType(context, location, adaptor.getInput(), adaptor.getAxis(),
                               adaptor.getKeepdims(), inferred);
}

LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                         Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  return inferArgReductionType(context, location, adaptor.getInput(), adaptor.getAxis(),
                               adaptor.getKeepdims(), inferred);
}

//===----------------------------------------------------------------------===//
// TopKOp
//===----------------------------------------------------------------------===//

LogicalResult TopKOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                       Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto kType = cast<TensorType>(adaptor.getK().getType());
  Type elementType = inputType.getElementType();
  Type indexType = IntegerType::get(context, 64);
  if (!kType.getElementType().isSignlessInteger(64))
    return emitOptionalError(location, "k must have element type i64, got ",
                             kType.getElementType());
  if (kType.hasRank() && (kType.getRank() != 1 || (!ShapedType::isDynamic(kType.getDimSize(0)) &&
                                                   kType.getDimSize(0) != 1)))
    return emitOptionalError(location, "k must be a 1-D tensor of one element, got ", kType);
  int64_t k = ShapedType::kDynamic;
  if (auto values = getConstantInts(adaptor.getK()); values && values->size() == 1) {
    k = values->front();
    if (k < 0)
      return emitOptionalError(location, "k must not be negative, got ", k);
  }

  if (!inputType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(elementType));
    inferred.push_back(UnrankedTensorType::get(indexType));
    return success();
  }
  auto axis = normalizeAxis(location, adaptor.getAxis(), inputType.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(inputType.getShape());
  if (!ShapedType::isDynamic(k) && !ShapedType::isDynamic(shape[*axis]) && k > shape[*axis])
    return emitOptionalError(location, "k (", k, ") exceeds the extent ", shape[*axis], " of axis ",
                             int64_t(adaptor.getAxis()));
  shape[*axis] = k;
  inferred.push_back(RankedTensorType::get(shape, elementType));
  inferred.push_back(RankedTensorType::get(shape, indexType));
  return success();
}
