//===- RandomOps.cpp - Random number generation ===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

using namespace mlir;
using namespace kiln::graph;

/// Fails unless `dtype`, the element type of a continuous distribution, is a float type.
static LogicalResult checkFloatDtype(std::optional<Location> location, Type dtype) {
  if (!isa<FloatType>(dtype))
    return emitOptionalError(location, "dtype must be a float type, got ", dtype);
  return success();
}

/// The result type of a distribution of a given shape.
static LogicalResult inferShapedRandomType(std::optional<Location> location, Type dtype,
                                           ArrayRef<int64_t> shape,
                                           SmallVectorImpl<Type> &inferred) {
  if (failed(checkFloatDtype(location, dtype)))
    return failure();
  if (llvm::any_of(shape, [](int64_t extent) { return extent < 0; }))
    return emitOptionalError(location, "shape extents must not be negative");
  inferred.push_back(RankedTensorType::get(shape, dtype));
  return success();
}

/// The input's shape (or an unranked tensor) of element type `dtype`.
static Type withElementType(Value input, Type dtype) {
  return cast<TensorType>(input.getType()).clone(dtype);
}

LogicalResult RandomUniformOp::inferReturnTypes(MLIRContext *context,
                                                std::optional<Location> location, Adaptor adaptor,
                                                SmallVectorImpl<Type> &inferred) {
  return inferShapedRandomType(location, adaptor.getDtype(), adaptor.getShape(), inferred);
}

LogicalResult RandomNormalOp::inferReturnTypes(MLIRContext *context,
                                               std::optional<Location> location, Adaptor adaptor,
                                               SmallVectorImpl<Type> &inferred) {
  return inferShapedRandomType(location, adaptor.getDtype(), adaptor.getShape(), inferred);
}

LogicalResult RandomUniformLikeOp::inferReturnTypes(MLIRContext *context,
                                                    std::optional<Location> location,
                                                    Adaptor adaptor,
                                                    SmallVectorImpl<Type> &inferred) {
  if (failed(checkFloatDtype(location, adaptor.getDtype())))
    return failure();
  inferred.push_back(withElementType(adaptor.getInput(), adaptor.getDtype()));
  return success();
}

LogicalResult RandomNormalLikeOp::inferReturnTypes(MLIRContext *context,
                                                   std::optional<Location> location,
                                                   Adaptor adaptor,
                                                   SmallVectorImpl<Type> &inferred) {
  if (failed(checkFloatDtype(location, adaptor.getDtype())))
    return failure();
  inferred.push_back(withElementType(adaptor.getInput(), adaptor.getDtype()));
  return success();
}

LogicalResult BernoulliOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                                            Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  Type inputElementType = cast<TensorType>(adaptor.getInput().getType()).getElementType();
  if (!isa<FloatType>(inputElementType))
    return emitOptionalError(location, "input must hold float probabilities, got ",
                             inputElementType);
  Type dtype = adaptor.getDtype();
  if (!isa<FloatType, IntegerType>(dtype))
    return emitOptionalError(location, "dtype must be a numeric or boolean type, got ", dtype);
  inferred.push_back(withElementType(adaptor.getInput(), dtype));
  return success();
}

LogicalResult MultinomialOp::inferReturnTypes(MLIRContext *context,
                                              std::optional<Location> location, Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  if (!isa<FloatType>(inputType.getElementType()))
    return emitOptionalError(location, "input must hold float log-probabilities, got ",
                             inputType.getElementType());
  Type dtype = adaptor.getDtype();
  if (!dtype.isSignlessInteger(32) && !dtype.isSignlessInteger(64))
    return emitOptionalError(location, "dtype must be i32 or i64, got ", dtype);
  int64_t batch = ShapedType::kDynamic;
  if (inputType.hasRank()) {
    if (inputType.getRank() != 2)
      return emitOptionalError(location, "input must be [batch_size, class_size], got rank ",
                               inputType.getRank());
    batch = inputType.getDimSize(0);
  }
  inferred.push_back(RankedTensorType::get({batch, int64_t(adaptor.getSampleSize())}, dtype));
  return success();
}
