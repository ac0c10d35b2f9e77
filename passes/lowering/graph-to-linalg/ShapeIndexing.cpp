//===- ShapeIndexing.cpp - Graph to linalg: gathers, scatters and other indexing ===//
//
// Gathers (Gather, GatherElements, GatherND, ReverseSequence, OneHot) are one
// `linalg.generic` over the result whose body computes the source position with
// `linalg.index` and reads it with `tensor.extract`. Scatters are sequential by nature
// (later updates win, reductions accumulate in order), so they are `scf.for` nests over
// the updates inserting into a loop-carried copy of the data. Ops whose result extent
// depends on the data (Compress, NonZero, Unique) first count, then fill a tensor of the
// counted extent.
//
// Indices read from tensors are wrapped once when negative (ONNX's convention) and then
// clamped into range: ONNX leaves out-of-range indices undefined, and a clamp keeps a bad
// input from reading or writing outside the buffers.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;

namespace kiln::lowering {
namespace {

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// An index element (any integer or float, with the graph's signedness) as an `index`;
/// floats truncate toward zero, as ONNX's OneHot asks.
Value elementToIndex(OpBuilder &b, Location loc, Value element, Type graphType) {
  graphType = getElementTypeOrSelf(graphType);
  if (isa<FloatType>(element.getType()))
    element = arith::FPToSIOp::create(b, loc, b.getI64Type(), element);
  else if (isUnsigned(graphType) || element.getType().isInteger(1))
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), element);
  return integerToIndex(b, loc, element);
}

/// `index` clamped into `[0, extent - 1]` so that no input reads or writes out of bounds.
Value clampIndex(OpBuilder &b, Location loc, Value index, Value extent) {
  Value zero = indexConstant(b, loc, 0);
  Value last = arith::SubIOp::create(b, loc, extent, indexConstant(b, loc, 1));
  Value upper = arith::MinSIOp::create(b, loc, index, last);
  return arith::MaxSIOp::create(b, loc, upper, zero);
}

/// A position read from an indices tensor, made valid along a dimension of `extent`.
Value normalizeIndex(OpBuilder &b, Location loc, Value element, Type graphType, Value extent) {
  Value index = elementToIndex(b, loc, element, graphType);
  return clampIndex(b, loc, wrapNegativeIndex(b, loc, index, extent), extent);
}

SmallVector<Value> getSizeValues(OpBuilder &b, Location loc, Value tensor) {
  SmallVector<Value> sizes;
  for (OpFoldResult size : getSizes(b, loc, tensor))
    sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
  return sizes;
}

RankedTensorType getRanked(Value value) { return dyn_cast<RankedTensorType>(value.getType()); }

/// The result dimensions `[first, first + count)` as `linalg.index` values.
SmallVector<Value> loopIndices(OpBuilder &b, Location loc, int64_t first, int64_t count) {
  SmallVector<Value> indices;
  for (int64_t dim = first; dim < first + count; ++dim)
    indices.push_back(linalg::IndexOp::create(b, loc, dim));
  return indices;
}

//===----------------------------------------------------------------------===//
// Gathers
//===----------------------------------------------------------------------===//

/// Gather: result[i.., j.., k..] = data[i.., indices[j..], k..]. One generic over the
/// result reading `indices` through a projection and `data` with tensor.extract (the
/// embedding lookups of BERT and GPT-2 are this).
struct GatherLowering : OpConversionPattern<graph::GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    RankedTensorType dataType = getRanked(data), indicesType = getRanked(indices);
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!dataType || !indicesType || !resultType)
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    int64_t dataRank = dataType.getRank(), indicesRank = indicesType.getRank();
    FailureOr<int64_t> axis = normalizeAxis(op.getAxis(), dataRank);
    if (failed(axis) || resultType.getRank() != dataRank + indicesRank - 1)
      return rewriter.notifyMatchFailure(op, "axis out of range");

    SmallVector<OpFoldResult> dataSizes = getSizes(rewriter, loc, data);
    SmallVector<OpFoldResult> indicesSizes = getSizes(rewriter, loc, indices);
    SmallVector<OpFoldResult> sizes(dataSizes.begin(), dataSizes.begin() + *axis);
    llvm::append_range(sizes, indicesSizes);
    sizes.append(dataSizes.begin() + *axis + 1, dataSizes.end());
    Value extent = getValueOrCreateConstantIndexOp(rewriter, loc, dataSizes[*axis]);

    int64_t resultRank = resultType.getRank();
    SmallVector<AffineExpr> indicesExprs;
    for (int64_t dim = 0; dim < indicesRank; ++dim)
      indicesExprs.push_back(rewriter.getAffineDimExpr(*axis + dim));
    AffineMap indicesMap = AffineMap::get(resultRank, 0, indicesExprs, getContext());
    Type indicesGraphType = op.getIndices().getType();

    Value result = createParallelGeneric(
        rewriter, loc, resultType, sizes, indices, indicesMap,
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) -> Value {
          SmallVector<Value> position = loopIndices(b, nestedLoc, 0, *axis);
          position.push_back(normalizeIndex(b, nestedLoc, args[0], indicesGraphType, extent));
          llvm::append_range(position,
                             loopIndices(b, nestedLoc, *axis + indicesRank, dataRank - *axis - 1));
          return tensor::ExtractOp::create(b, nestedLoc, data, position);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// GatherElements: result[p] = data[p with p[axis] = indices[p]].
struct GatherElementsLowering : OpConversionPattern<graph::GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::GatherElementsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    RankedTensorType dataType = getRanked(data), indicesType = getRanked(indices);
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!dataType || !indicesType || !resultType)
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    int64_t rank = dataType.getRank();
    FailureOr<int64_t> axis = normalizeAxis(op.getAxis(), rank);
    if (failed(axis) || indicesType.getRank() != rank || resultType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "axis out of range or ranks differ");

    Value extent = tensor::DimOp::create(rewriter, loc, data, *axis);
    Type indicesGraphType = op.getIndices().getType();
    Value result =
        createParallelGeneric(rewriter, loc, resultType, getSizes(rewriter, loc, indices), indices,
                              rewriter.getMultiDimIdentityMap(rank),
                              [&](OpBuilder &b, Location nestedLoc, ValueRange args) -> Value {
                                SmallVector<Value> position = loopIndices(b, nestedLoc, 0, rank);
                                position[*axis] =
                                    normalizeIndex(b, nestedLoc, args[0], indicesGraphType, extent);
                                return tensor::ExtractOp::create(b, nestedLoc, data, position);
                              });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// GatherND: with b batch dimensions and index tuples of length k,
/// result[i.., t..] = data[i[:b].., indices[i.., 0..k-1].., t..].
struct GatherNDLowering : OpConversionPattern<graph::GatherNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::GatherNDOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    RankedTensorType dataType = getRanked(data), indicesType = getRanked(indices);
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!dataType || !indicesType || !resultType || indicesType.getRank() < 1)
      return rewriter.notifyMatchFailure(op, "unranked or scalar operand, or unranked result");
    int64_t dataRank = dataType.getRank(), indicesRank = indicesType.getRank();
    int64_t batchDims = op.getBatchDims();
    int64_t tupleLength = indicesType.getShape().back();
    if (ShapedType::isDynamic(tupleLength))
      return rewriter.notifyMatchFailure(op, "index tuples of a dynamic length");
    int64_t sliceRank = dataRank - batchDims - tupleLength;
    if (batchDims < 0 || batchDims >= indicesRank || sliceRank < 0 ||
        resultType.getRank() != indicesRank - 1 + sliceRank)
      return rewriter.notifyMatchFailure(op, "batch_dims or index tuple length out of range");

    SmallVector<OpFoldResult> dataSizes = getSizes(rewriter, loc, data);
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, indices);
    sizes.pop_back();
    sizes.append(dataSizes.begin() + batchDims + tupleLength, dataSizes.end());
    SmallVector<Value> extents;
    for (int64_t j = 0; j < tupleLength; ++j)
      extents.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, dataSizes[batchDims + j]));
    Type indicesGraphType = op.getIndices().getType();

    Value result = createParallelGeneric(
        rewriter, loc, resultType, sizes, ValueRange{}, {},
        [&](OpBuilder &b, Location nestedLoc, ValueRange) -> Value {
          SmallVector<Value> tuplePosition = loopIndices(b, nestedLoc, 0, indicesRank - 1);
          tuplePosition.push_back(Value());
          SmallVector<Value> position = loopIndices(b, nestedLoc, 0, batchDims);
          for (int64_t j = 0; j < tupleLength; ++j) {
            tuplePosition.back() = indexConstant(b, nestedLoc, j);
            Value element = tensor::ExtractOp::create(b, nestedLoc, indices, tuplePosition);
            position.push_back(normalizeIndex(b, nestedLoc, element, indicesGraphType, extents[j]));
          }
          llvm::append_range(position, loopIndices(b, nestedLoc, indicesRank - 1, sliceRank));
          return tensor::ExtractOp::create(b, nestedLoc, data, position);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ReverseSequence: result[.., t, ..] = input[.., len - 1 - t, ..] where t < len, with
/// len = sequence_lens[batch index]; elements past len are copied.
struct ReverseSequenceLowering : OpConversionPattern<graph::ReverseSequenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::ReverseSequenceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), lengths = adaptor.getSequenceLens();
    RankedTensorType inputType = getRanked(input), lengthsType = getRanked(lengths);
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!inputType || !lengthsType || !resultType)
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    int64_t rank = inputType.getRank();
    int64_t batchAxis = op.getBatchAxis(), timeAxis = op.getTimeAxis();
    if (rank < 2 || lengthsType.getRank() != 1 || batchAxis < 0 || batchAxis > 1 || timeAxis < 0 ||
        timeAxis > 1 || batchAxis == timeAxis)
      return rewriter.notifyMatchFailure(op, "batch_axis and time_axis must be 0 and 1");

    Value timeExtent = tensor::DimOp::create(rewriter, loc, input, timeAxis);
    AffineMap lengthsMap = AffineMap::get(rank, 0, rewriter.getAffineDimExpr(batchAxis));
    Type lengthsGraphType = op.getSequenceLens().getType();
    Value result = createParallelGeneric(
        rewriter, loc, resultType, getSizes(rewriter, loc, input), lengths, lengthsMap,
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) -> Value {
          Value length = elementToIndex(b, nestedLoc, args[0], lengthsGraphType);
          length = arith::MinSIOp::create(b, nestedLoc, length, timeExtent);
          SmallVector<Value> position = loopIndices(b, nestedLoc, 0, rank);
          Value time = position[timeAxis];
          Value reversed =
              arith::SubIOp::create(b, nestedLoc, arith::SubIOp::create(b, nestedLoc, length, time),
                                    indexConstant(b, nestedLoc, 1));
          Value inSequence =
              arith::CmpIOp::create(b, nestedLoc, arith::CmpIPredicate::slt, time, length);
          position[timeAxis] = arith::SelectOp::create(b, nestedLoc, inSequence, reversed, time);
          return tensor::ExtractOp::create(b, nestedLoc, input, position);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// OneHot: result[i.., d, j..] = indices[i.., j..] (wrapped when negative) == d ? on : off.
struct OneHotLowering : OpConversionPattern<graph::OneHotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::OneHotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value indices = adaptor.getIndices(), depth = adaptor.getDepth(), values = adaptor.getValues();
    RankedTensorType indicesType = getRanked(indices), depthType = getRanked(depth),
                     valuesType = getRanked(values);
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!indicesType || !depthType || !valuesType || !resultType)
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    int64_t rank = resultType.getRank();
    FailureOr<int64_t> axis = normalizeAxis(op.getAxis(), rank);
    if (failed(axis) || indicesType.getRank() != rank - 1 || valuesType.getRank() != 1 ||
        depthType.getRank() > 1)
      return rewriter.notifyMatchFailure(op, "axis out of range or operands of a wrong rank");

    // The depth: from the (specialised) result type, else read at run time.
    Value depthValue;
    if (!resultType.isDynamicDim(*axis)) {
      depthValue = indexConstant(rewriter, loc, resultType.getDimSize(*axis));
    } else {
      Value element = extractScalar(rewriter, loc, depth);
      depthValue = elementToIndex(rewriter, loc, element, op.getDepth().getType());
    }
    Value off = tensor::ExtractOp::create(rewriter, loc, values,
                                          ValueRange{indexConstant(rewriter, loc, 0)});
    Value on = tensor::ExtractOp::create(rewriter, loc, values,
                                         ValueRange{indexConstant(rewriter, loc, 1)});

    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, indices);
    sizes.insert(sizes.begin() + *axis, depthValue);
    SmallVector<AffineExpr> indicesExprs;
    for (int64_t dim = 0; dim < rank; ++dim)
      if (dim != *axis)
        indicesExprs.push_back(rewriter.getAffineDimExpr(dim));
    AffineMap indicesMap = AffineMap::get(rank, 0, indicesExprs, getContext());
    Type indicesGraphType = op.getIndices().getType();

    Value result = createParallelGeneric(
        rewriter, loc, resultType, sizes, indices, indicesMap,
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) -> Value {
          // Out-of-range indices match no position and give an all-off row: no clamp.
          Value index = elementToIndex(b, nestedLoc, args[0], indicesGraphType);
          index = wrapNegativeIndex(b, nestedLoc, index, depthValue);
          Value position = linalg::IndexOp::create(b, nestedLoc, *axis);
          Value hot =
              arith::CmpIOp::create(b, nestedLoc, arith::CmpIPredicate::eq, index, position);
          return arith::SelectOp::create(b, nestedLoc, hot, on, off);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Scatters
//===----------------------------------------------------------------------===//

/// How a scatter combines the existing element with an update, or null for "none".
/// Returns failure for an unknown reduction.
FailureOr<std::function<Value(OpBuilder &, Location, Value, Value)>>
getScatterCombine(StringRef reduction, Type graphElementType) {
  using Combine = std::function<Value(OpBuilder &, Location, Value, Value)>;
  graphElementType = getElementTypeOrSelf(graphElementType);
  bool isFloat = isa<FloatType>(graphElementType);
  bool isBool = graphElementType.isInteger(1);
  bool isUnsignedInt = isUnsigned(graphElementType);
  if (reduction == "none")
    return Combine();
  if (reduction == "add")
    return Combine([=](OpBuilder &b, Location loc, Value x, Value y) -> Value {
      if (isFloat)
        return arith::AddFOp::create(b, loc, x, y);
      if (isBool)
        return arith::OrIOp::create(b, loc, x, y);
      return arith::AddIOp::create(b, loc, x, y);
    });
  if (reduction == "mul")
    return Combine([=](OpBuilder &b, Location loc, Value x, Value y) -> Value {
      if (isFloat)
        return arith::MulFOp::create(b, loc, x, y);
      if (isBool)
        return arith::AndIOp::create(b, loc, x, y);
      return arith::MulIOp::create(b, loc, x, y);
    });
  if (reduction == "max" || reduction == "min")
    return Combine(
        [=, max = reduction == "max"](OpBuilder &b, Location loc, Value x, Value y) -> Value {
          return createMinMax(b, loc, x, y, max, isUnsignedInt || isBool);
        });
  return failure();
}

/// A copy of `data` with every element of `updates` written (or combined) in order at
/// the position `destination` computes from the update's position: an scf.for nest over
/// the updates carrying the result tensor.
Value createScatter(
    OpBuilder &builder, Location loc, Value data, Value updates,
    const std::function<Value(OpBuilder &, Location, Value, Value)> &combine,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> destination) {
  SmallVector<Value> upperBounds = getSizeValues(builder, loc, updates);
  SmallVector<Value> lowerBounds(upperBounds.size(), indexConstant(builder, loc, 0));
  SmallVector<Value> steps(upperBounds.size(), indexConstant(builder, loc, 1));
  scf::LoopNest nest = scf::buildLoopNest(
      builder, loc, lowerBounds, upperBounds, steps, ValueRange{data},
      [&](OpBuilder &b, Location nestedLoc, ValueRange ivs,
          ValueRange carried) -> scf::ValueVector {
        Value update = tensor::ExtractOp::create(b, nestedLoc, updates, ivs);
        SmallVector<Value> position = destination(b, nestedLoc, ivs);
        if (combine) {
          Value existing = tensor::ExtractOp::create(b, nestedLoc, carried[0], position);
          update = combine(b, nestedLoc, existing, update);
        }
        return {tensor::InsertOp::create(b, nestedLoc, update, carried[0], position)};
      });
  return nest.results.front();
}

/// ScatterElements (and the old Scatter): result[p with p[axis] = indices[p]] = updates[p].
struct ScatterElementsLowering : OpConversionPattern<graph::ScatterElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::ScatterElementsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices(), updates = adaptor.getUpdates();
    RankedTensorType dataType = getRanked(data), indicesType = getRanked(indices),
                     updatesType = getRanked(updates);
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!dataType || !indicesType || !updatesType || !resultType)
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    int64_t rank = dataType.getRank();
    FailureOr<int64_t> axis = normalizeAxis(op.getAxis(), rank);
    if (failed(axis) || indicesType.getRank() != rank || updatesType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "axis out of range or ranks differ");
    auto combine = getScatterCombine(op.getReduction(), op.getData().getType());
    if (failed(combine))
      return rewriter.notifyMatchFailure(op, "unknown reduction");

    Value extent = tensor::DimOp::create(rewriter, loc, data, *axis);
    Type indicesGraphType = op.getIndices().getType();
    Value result =
        createScatter(rewriter, loc, data, updates, *combine,
                      [&](OpBuilder &b, Location nestedLoc, ValueRange ivs) {
                        SmallVector<Value> position(ivs);
                        Value element = tensor::ExtractOp::create(b, nestedLoc, indices, ivs);
                        position[*axis] =
                            normalizeIndex(b, nestedLoc, element, indicesGraphType, extent);
                        return position;
                      });
    rewriter.replaceOp(op, castToType(rewriter, loc, result, resultType));
    return success();
  }
};

/// ScatterND: result[indices[i.., :].., t..] = updates[i.., t..].
struct ScatterNDLowering : OpConversionPattern<graph::ScatterNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::ScatterNDOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices(), updates = adaptor.getUpdates();
    RankedTensorType dataType = getRanked(data), indicesType = getRanked(indices),
                     updatesType = getRanked(updates);
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!dataType || !indicesType || !updatesType || !resultType || indicesType.getRank() < 1)
      return rewriter.notifyMatchFailure(op, "unranked or scalar operand, or unranked result");
    int64_t dataRank = dataType.getRank(), indicesRank = indicesType.getRank();
    int64_t tupleLength = indicesType.getShape().back();
    if (ShapedType::isDynamic(tupleLength))
      return rewriter.notifyMatchFailure(op, "index tuples of a dynamic length");
    if (tupleLength > dataRank || updatesType.getRank() != indicesRank - 1 + dataRank - tupleLength)
      return rewriter.notifyMatchFailure(op, "index tuple length or updates rank mismatch");
    auto combine = getScatterCombine(op.getReduction(), op.getData().getType());
    if (failed(combine))
      return rewriter.notifyMatchFailure(op, "unknown reduction");

    SmallVector<Value> extents = getSizeValues(rewriter, loc, data);
    Type indicesGraphType = op.getIndices().getType();
    Value result = createScatter(
        rewriter, loc, data, updates, *combine,
        [&](OpBuilder &b, Location nestedLoc, ValueRange ivs) {
          SmallVector<Value> tuplePosition(ivs.take_front(indicesRank - 1));
          tuplePosition.push_back(Value());
          SmallVector<Value> position;
          for (int64_t j = 0; j < tupleLength; ++j) {
            tuplePosition.back() = indexConstant(b, nestedLoc, j);
            Value element = tensor::ExtractOp::create(b, nestedLoc, indices, tuplePosition);
            position.push_back(normalizeIndex(b, nestedLoc, element, indicesGraphType, extents[j]));
          }
          llvm::append_range(position, ivs.drop_front(indicesRank - 1));
          return position;
        });
    rewriter.replaceOp(op, castToType(rewriter, loc, result, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Data-dependent extents
//===----------------------------------------------------------------------===//

/// `tensor` collapsed to one dimension (row-major), or null for a scalar.
Value flatten(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getRank() == 1)
    return tensor;
  if (type.getRank() == 0)
    return Value();
  ReassociationIndices all = llvm::to_vector<2>(llvm::seq<int64_t>(0, type.getRank()));
  return tensor::CollapseShapeOp::create(b, loc, tensor, ArrayRef<ReassociationIndices>{all});
}

/// The slices of `input` along `axis` at the positions in the 1-D i64 tensor `positions`,
/// in order: a generic over the result. Copying slice by slice instead would bufferize
/// into strided memref copies, which need a runtime library the JIT does not link.
Value gatherAlongAxis(OpBuilder &b, Location loc, Value input, int64_t axis, Value positions,
                      Value count, Type elementType) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, input);
  sizes[axis] = count;
  SmallVector<int64_t> shape(inputType.getShape());
  shape[axis] = ShapedType::kDynamic;
  auto resultType = RankedTensorType::get(shape, elementType);
  AffineMap positionsMap = AffineMap::get(rank, 0, b.getAffineDimExpr(axis));
  return createParallelGeneric(
      b, loc, resultType, sizes, positions, positionsMap,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) -> Value {
        SmallVector<Value> position = loopIndices(nested, nestedLoc, 0, rank);
        position[axis] = integerToIndex(nested, nestedLoc, args[0]);
        return tensor::ExtractOp::create(nested, nestedLoc, input, position);
      });
}

/// Compress: the slices along `axis` (of the flattened input without it) whose condition
/// holds, in order. A first loop counts them, a second copies them into a tensor of that
/// extent. A condition shorter than the axis selects nothing past its end.
struct CompressLowering : OpConversionPattern<graph::CompressOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::CompressOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), condition = adaptor.getCondition();
    RankedTensorType inputType = getRanked(input), conditionType = getRanked(condition);
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!inputType || !conditionType || !resultType || conditionType.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "unranked operand or result, or condition not 1-D");
    int64_t axis = 0;
    if (std::optional<int64_t> axisAttr = op.getAxis()) {
      FailureOr<int64_t> resolved = normalizeAxis(*axisAttr, inputType.getRank());
      if (failed(resolved))
        return rewriter.notifyMatchFailure(op, "axis out of range");
      axis = *resolved;
    } else {
      input = flatten(rewriter, loc, input);
      if (!input)
        return rewriter.notifyMatchFailure(op, "scalar input");
    }
    if (resultType.getRank() != cast<RankedTensorType>(input.getType()).getRank())
      return rewriter.notifyMatchFailure(op, "result rank mismatch");

    Type conditionGraphType = op.getCondition().getType();
    Value zero = indexConstant(rewriter, loc, 0), one = indexConstant(rewriter, loc, 1);
    Value length =
        arith::MinSIOp::create(rewriter, loc, tensor::DimOp::create(rewriter, loc, condition, 0),
                               tensor::DimOp::create(rewriter, loc, input, axis));
    auto readCondition = [&](OpBuilder &b, Location nestedLoc, Value position) {
      Value element = tensor::ExtractOp::create(b, nestedLoc, condition, position);
      return convertScalar(b, nestedLoc, element, conditionGraphType, b.getI1Type());
    };

    auto countLoop = scf::ForOp::create(
        rewriter, loc, zero, length, one, ValueRange{zero},
        [&](OpBuilder &b, Location nestedLoc, Value iv, ValueRange carried) {
          Value selected = readCondition(b, nestedLoc, iv);
          Value next = arith::AddIOp::create(b, nestedLoc, carried[0], one);
          scf::YieldOp::create(
              b, nestedLoc,
              ValueRange{arith::SelectOp::create(b, nestedLoc, selected, next, carried[0])});
        });

    // The positions of the selected slices, then the slices at them. The count is at
    // most `length` (the clamp states that bound where the count is computed on a GPU and
    // the buffers after it are planned at their largest).
    Value count = arith::MinSIOp::create(rewriter, loc, countLoop.getResult(0), length);
    Type i64 = rewriter.getI64Type();
    Value empty = createEmptyTensor(rewriter, loc,
                                    RankedTensorType::get({ShapedType::kDynamic}, i64), {count});
    auto fill = scf::ForOp::create(
        rewriter, loc, zero, length, one, ValueRange{empty, zero},
        [&](OpBuilder &b, Location nestedLoc, Value iv, ValueRange carried) {
          Value selected = readCondition(b, nestedLoc, iv);
          auto ifOp = scf::IfOp::create(
              b, nestedLoc, selected,
              [&](OpBuilder &then, Location thenLoc) {
                Value written = tensor::InsertOp::create(
                    then, thenLoc, indexToInteger(then, thenLoc, iv, i64), carried[0], carried[1]);
                Value next = arith::AddIOp::create(then, thenLoc, carried[1], one);
                scf::YieldOp::create(then, thenLoc, ValueRange{written, next});
              },
              [&](OpBuilder &otherwise, Location elseLoc) {
                scf::YieldOp::create(otherwise, elseLoc, carried);
              });
          scf::YieldOp::create(b, nestedLoc, ifOp.getResults());
        });
    Value result = gatherAlongAxis(rewriter, loc, input, axis, fill.getResult(0), count,
                                   resultType.getElementType());
    rewriter.replaceOp(op, castToType(rewriter, loc, result, resultType));
    return success();
  }
};

/// Whether a (converted) element is non-zero.
Value isNonZero(OpBuilder &b, Location loc, Value element) {
  Value zero = createScalarConstant(b, loc, element.getType(), 0.0);
  if (isa<FloatType>(element.getType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, element, zero);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, element, zero);
}

/// NonZero: an i64 [rank, count] tensor of the positions of the non-zero elements in
/// row-major order. A reduction counts them; a loop nest over the input then writes the
/// position of each one into the next column.
struct NonZeroLowering : OpConversionPattern<graph::NonZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::NonZeroOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType inputType = getRanked(input);
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!inputType || !resultType || resultType.getRank() != 2 ||
        !resultType.getElementType().isInteger(64) ||
        (!resultType.isDynamicDim(0) && resultType.getDimSize(0) != inputType.getRank()))
      return rewriter.notifyMatchFailure(op, "unranked input or unexpected result type");
    if (!isa<FloatType, IntegerType>(inputType.getElementType()))
      return rewriter.notifyMatchFailure(op, "element type not handled");
    int64_t rank = inputType.getRank();
    Type i64 = rewriter.getI64Type();

    Value zero64 = createScalarConstant(rewriter, loc, i64, 0.0);
    Value one64 = createScalarConstant(rewriter, loc, i64, 1.0);
    Value counted = createReduction(
        rewriter, loc, input, llvm::to_vector(llvm::seq<int64_t>(0, rank)),
        /*keepDims=*/false, zero64,
        [&](OpBuilder &b, Location nestedLoc, Value element, Value accumulator) -> Value {
          Value increment = arith::SelectOp::create(b, nestedLoc, isNonZero(b, nestedLoc, element),
                                                    one64, zero64);
          return arith::AddIOp::create(b, nestedLoc, accumulator, increment);
        });
    // At most the input's size (the bound a GPU engine plans the result at).
    Value count = integerToIndex(rewriter, loc,
                                 tensor::ExtractOp::create(rewriter, loc, counted, ValueRange{}));
    Value size = indexConstant(rewriter, loc, 1);
    for (Value extent : getSizeValues(rewriter, loc, input))
      size = arith::MulIOp::create(rewriter, loc, size, extent);
    count = arith::MinSIOp::create(rewriter, loc, count, size);

    auto bufferType = RankedTensorType::get({rank, ShapedType::kDynamic}, i64);
    Value empty = createEmptyTensor(rewriter, loc, bufferType,
                                    {rewriter.getIndexAttr(rank), OpFoldResult(count)});
    SmallVector<Value> upperBounds = getSizeValues(rewriter, loc, input);
    SmallVector<Value> lowerBounds(rank, indexConstant(rewriter, loc, 0));
    SmallVector<Value> steps(rank, indexConstant(rewriter, loc, 1));
    Value start = indexConstant(rewriter, loc, 0);
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lowerBounds, upperBounds, steps, ValueRange{empty, start},
        [&](OpBuilder &b, Location nestedLoc, ValueRange ivs,
            ValueRange carried) -> scf::ValueVector {
          Value element = tensor::ExtractOp::create(b, nestedLoc, input, ivs);
          auto ifOp = scf::IfOp::create(
              b, nestedLoc, isNonZero(b, nestedLoc, element),
              [&](OpBuilder &then, Location thenLoc) {
                Value written = carried[0];
                for (int64_t dim = 0; dim < rank; ++dim)
                  written = tensor::InsertOp::create(
                      then, thenLoc, indexToInteger(then, thenLoc, ivs[dim], i64), written,
                      ValueRange{indexConstant(then, thenLoc, dim), carried[1]});
                Value next = arith::AddIOp::create(then, thenLoc, carried[1],
                                                   indexConstant(then, thenLoc, 1));
                scf::YieldOp::create(then, thenLoc, ValueRange{written, next});
              },
              [&](OpBuilder &otherwise, Location elseLoc) {
                scf::YieldOp::create(otherwise, elseLoc, carried);
              });
          return {ifOp.getResult(0), ifOp.getResult(1)};
        });
    rewriter.replaceOp(op, castToType(rewriter, loc, nest.results.front(), resultType));
    return success();
  }
};

/// Unique. The input is viewed as N rows (its elements when flattened; else its slices
/// along `axis`, moved to the front and flattened into rows of S elements), compared
/// lexicographically in row-major order as numpy does.
///  1. One pass over the rows in order looks each up among the distinct rows found so far
///     (their first occurrences), giving first occurrences, counts and inverse indices in
///     order of first occurrence (the unsorted answer). The look-up is linear in the
///     distinct rows found so far.
///  2. When sorted, the rank of each distinct row among the distinct rows (how many are
///     smaller) is its sorted position: ranks permute the outputs and renumber the
///     inverse indices.
///  3. `y` gathers the distinct rows from the input at their first occurrences.
/// Both look-ups are quadratic in the number of distinct rows; Unique appears in no model
/// the CPU path targets, and a sort-based version in scf loops would be a lot of IR.
struct UniqueLowering : OpConversionPattern<graph::UniqueOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::UniqueOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType inputType = getRanked(input);
    SmallVector<RankedTensorType> resultTypes;
    for (unsigned index = 0; index < 4; ++index)
      resultTypes.push_back(getConvertedResultType(*getTypeConverter(), op, index));
    if (!inputType || llvm::is_contained(resultTypes, RankedTensorType()))
      return rewriter.notifyMatchFailure(op, "unranked input or result");
    if (inputType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "scalar input");
    Type elementType = inputType.getElementType();
    if (!isa<FloatType, IntegerType>(elementType))
      return rewriter.notifyMatchFailure(op, "element type not handled");
    for (unsigned index = 1; index < 4; ++index)
      if (resultTypes[index].getRank() != 1 || !resultTypes[index].getElementType().isInteger(64))
        return rewriter.notifyMatchFailure(op, "index results must be 1-D i64");
    bool unsignedElements = isUnsigned(op.getInput().getType());
    int64_t rank = inputType.getRank();

    // The rows: `rows` is 1-D (one element per row) or 2-D [N, S].
    std::optional<int64_t> axis;
    Value rows;
    if (std::optional<int64_t> axisAttr = op.getAxis()) {
      FailureOr<int64_t> normalized = normalizeAxis(*axisAttr, rank);
      if (failed(normalized))
        return rewriter.notifyMatchFailure(op, "axis out of range");
      axis = *normalized;
      if (rank == 1) {
        rows = input;
      } else {
        Value moved = input;
        if (*axis != 0) {
          SmallVector<int64_t> permutation{*axis};
          for (int64_t dim = 0; dim < rank; ++dim)
            if (dim != *axis)
              permutation.push_back(dim);
          SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, input);
          SmallVector<OpFoldResult> movedSizes;
          SmallVector<int64_t> movedShape;
          for (int64_t dim : permutation) {
            movedSizes.push_back(inputSizes[dim]);
            movedShape.push_back(inputType.getDimSize(dim));
          }
          Value init = createEmptyTensor(
              rewriter, loc, RankedTensorType::get(movedShape, elementType), movedSizes);
          moved =
              linalg::TransposeOp::create(rewriter, loc, input, init, permutation).getResult()[0];
        }
        ReassociationIndices rest = llvm::to_vector<2>(llvm::seq<int64_t>(1, rank));
        rows = tensor::CollapseShapeOp::create(rewriter, loc, moved,
                                               ArrayRef<ReassociationIndices>{{0}, rest});
      }
      if (resultTypes[0].getRank() != rank)
        return rewriter.notifyMatchFailure(op, "y must have the input's rank");
    } else {
      rows = flatten(rewriter, loc, input);
      if (resultTypes[0].getRank() != 1)
        return rewriter.notifyMatchFailure(op, "y must be 1-D without an axis");
    }
    bool scalarRows = cast<RankedTensorType>(rows.getType()).getRank() == 1;

    Type i64 = rewriter.getI64Type();
    Value zero = indexConstant(rewriter, loc, 0), one = indexConstant(rewriter, loc, 1);
    Value zero64 = createScalarConstant(rewriter, loc, i64, 0.0);
    Value one64 = createScalarConstant(rewriter, loc, i64, 1.0);
    Value rowCount = tensor::DimOp::create(rewriter, loc, rows, 0);
    Value rowLength = scalarRows ? one : tensor::DimOp::create(rewriter, loc, rows, 1).getResult();

    // (less, equal) of row `a` against row `b`.
    auto compareRows = [&](OpBuilder &b, Location l, Value a,
                           Value bRow) -> std::pair<Value, Value> {
      auto compareElements = [&](OpBuilder &eb, Location el, Value x,
                                 Value y) -> std::pair<Value, Value> {
        if (isa<FloatType>(elementType))
          return {arith::CmpFOp::create(eb, el, arith::CmpFPredicate::OLT, x, y),
                  arith::CmpFOp::create(eb, el, arith::CmpFPredicate::OEQ, x, y)};
        auto lessPredicate = unsignedElements || elementType.isInteger(1)
                                 ? arith::CmpIPredicate::ult
                                 : arith::CmpIPredicate::slt;
        return {arith::CmpIOp::create(eb, el, lessPredicate, x, y),
                arith::CmpIOp::create(eb, el, arith::CmpIPredicate::eq, x, y)};
      };
      if (scalarRows)
        return compareElements(b, l, tensor::ExtractOp::create(b, l, rows, a),
                               tensor::ExtractOp::create(b, l, rows, bRow));
      Value trueValue = createScalarConstant(b, l, b.getI1Type(), 1.0);
      Value falseValue = createScalarConstant(b, l, b.getI1Type(), 0.0);
      // The first differing element decides; later ones no longer change `less`.
      auto loop = scf::ForOp::create(
          b, l, zero, rowLength, one, ValueRange{falseValue, trueValue},
          [&](OpBuilder &lb, Location ll, Value k, ValueRange carried) {
            Value x = tensor::ExtractOp::create(lb, ll, rows, ValueRange{a, k});
            Value y = tensor::ExtractOp::create(lb, ll, rows, ValueRange{bRow, k});
            auto [less, equal] = compareElements(lb, ll, x, y);
            Value newLess = arith::SelectOp::create(lb, ll, carried[1], less, carried[0]);
            Value newEqual = arith::AndIOp::create(lb, ll, carried[1], equal);
            scf::YieldOp::create(lb, ll, ValueRange{newLess, newEqual});
          });
      return {loop.getResult(0), loop.getResult(1)};
    };
    auto readIndex = [&](OpBuilder &b, Location l, Value tensor, Value position) {
      return integerToIndex(b, l, tensor::ExtractOp::create(b, l, tensor, position));
    };

    // 1. First occurrences, counts and inverse indices in order of first occurrence.
    auto bufferType = RankedTensorType::get({ShapedType::kDynamic}, i64);
    SmallVector<OpFoldResult> bufferSizes{rowCount};
    Value firstInit = createFilledTensor(rewriter, loc, bufferType, bufferSizes, zero64);
    Value countsInit = createFilledTensor(rewriter, loc, bufferType, bufferSizes, zero64);
    Value inverseInit = createEmptyTensor(rewriter, loc, bufferType, bufferSizes);
    auto scan = scf::ForOp::create(
        rewriter, loc, zero, rowCount, one, ValueRange{firstInit, countsInit, inverseInit, zero},
        [&](OpBuilder &b, Location l, Value row, ValueRange carried) {
          Value first = carried[0], counts = carried[1], inverse = carried[2],
                distinct = carried[3];
          // The first distinct row equal to `row`, or `distinct` when there is none.
          auto lookUp = scf::WhileOp::create(
              b, l, TypeRange{b.getIndexType()}, ValueRange{zero},
              [&](OpBuilder &wb, Location wl, ValueRange args) {
                Value candidate = args[0];
                Value inRange =
                    arith::CmpIOp::create(wb, wl, arith::CmpIPredicate::slt, candidate, distinct);
                auto keepLooking = scf::IfOp::create(
                    wb, wl, inRange,
                    [&](OpBuilder &tb, Location tl) {
                      Value candidateRow = readIndex(tb, tl, first, candidate);
                      Value equal = compareRows(tb, tl, candidateRow, row).second;
                      Value trueValue = createScalarConstant(tb, tl, tb.getI1Type(), 1.0);
                      scf::YieldOp::create(
                          tb, tl, ValueRange{arith::XOrIOp::create(tb, tl, equal, trueValue)});
                    },
                    [&](OpBuilder &eb, Location el) {
                      scf::YieldOp::create(
                          eb, el, ValueRange{createScalarConstant(eb, el, eb.getI1Type(), 0.0)});
                    });
                scf::ConditionOp::create(wb, wl, keepLooking.getResult(0), candidate);
              },
              [&](OpBuilder &wb, Location wl, ValueRange args) {
                scf::YieldOp::create(wb, wl,
                                     ValueRange{arith::AddIOp::create(wb, wl, args[0], one)});
              });
          Value slot = lookUp.getResult(0);
          Value isNew = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, slot, distinct);
          Value row64 = indexToInteger(b, l, row, i64);
          Value oldFirst = tensor::ExtractOp::create(b, l, first, slot);
          first = tensor::InsertOp::create(
              b, l, arith::SelectOp::create(b, l, isNew, row64, oldFirst), first, slot);
          Value oldCount = tensor::ExtractOp::create(b, l, counts, slot);
          counts = tensor::InsertOp::create(b, l, arith::AddIOp::create(b, l, oldCount, one64),
                                            counts, slot);
          inverse = tensor::InsertOp::create(b, l, indexToInteger(b, l, slot, i64), inverse, row);
          distinct = arith::AddIOp::create(b, l, distinct,
                                           arith::SelectOp::create(b, l, isNew, one, zero));
          scf::YieldOp::create(b, l, ValueRange{first, counts, inverse, distinct});
        });
    Value first = scan.getResult(0), counts = scan.getResult(1), inverse = scan.getResult(2),
          distinct = scan.getResult(3);

    // 2. Sorted positions of the distinct rows.
    Value sortedPosition; // i64 [N]: position in the output of distinct row u
    if (op.getSorted()) {
      Value positionsInit = createEmptyTensor(rewriter, loc, bufferType, bufferSizes);
      auto ranking = scf::ForOp::create(
          rewriter, loc, zero, distinct, one, ValueRange{positionsInit},
          [&](OpBuilder &b, Location l, Value u, ValueRange carried) {
            Value uRow = readIndex(b, l, first, u);
            auto smaller = scf::ForOp::create(
                b, l, zero, distinct, one, ValueRange{zero64},
                [&](OpBuilder &ib, Location il, Value v, ValueRange count) {
                  Value vRow = readIndex(ib, il, first, v);
                  Value less = compareRows(ib, il, vRow, uRow).first;
                  Value increment = arith::SelectOp::create(ib, il, less, one64, zero64);
                  scf::YieldOp::create(
                      ib, il, ValueRange{arith::AddIOp::create(ib, il, count[0], increment)});
                });
            scf::YieldOp::create(
                b, l,
                ValueRange{tensor::InsertOp::create(b, l, smaller.getResult(0), carried[0], u)});
          });
      sortedPosition = ranking.getResult(0);
      // Renumber the inverse indices.
      inverse = createParallelGeneric(
          rewriter, loc, bufferType, bufferSizes, inverse, rewriter.getMultiDimIdentityMap(1),
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            return tensor::ExtractOp::create(b, l, sortedPosition, integerToIndex(b, l, args[0]));
          });
    }

    // 3. First occurrences and counts at their output positions, then the distinct rows
    // read from those first occurrences.
    SmallVector<OpFoldResult> distinctSizes{distinct};
    Value indicesInit = createEmptyTensor(rewriter, loc, bufferType, distinctSizes);
    Value countsOutInit = createEmptyTensor(rewriter, loc, bufferType, distinctSizes);
    auto gather = scf::ForOp::create(
        rewriter, loc, zero, distinct, one, ValueRange{indicesInit, countsOutInit},
        [&](OpBuilder &b, Location l, Value u, ValueRange carried) {
          Value position = sortedPosition ? readIndex(b, l, sortedPosition, u) : u;
          Value firstRow = tensor::ExtractOp::create(b, l, first, u);
          Value indices = tensor::InsertOp::create(b, l, firstRow, carried[0], position);
          Value count = tensor::ExtractOp::create(b, l, counts, u);
          Value countsOut = tensor::InsertOp::create(b, l, count, carried[1], position);
          scf::YieldOp::create(b, l, ValueRange{indices, countsOut});
        });
    Value firstOccurrences = gather.getResult(0);
    Value y = axis ? gatherAlongAxis(rewriter, loc, input, *axis, firstOccurrences, distinct,
                                     resultTypes[0].getElementType())
                   : gatherAlongAxis(rewriter, loc, rows, 0, firstOccurrences, distinct,
                                     resultTypes[0].getElementType());

    SmallVector<Value> results{y, firstOccurrences, inverse, gather.getResult(1)};
    for (auto [result, type] : llvm::zip_equal(results, resultTypes))
      result = castToType(rewriter, loc, result, type);
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateShapeIndexingLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<GatherLowering, GatherElementsLowering, GatherNDLowering, ReverseSequenceLowering,
               OneHotLowering, ScatterElementsLowering, ScatterNDLowering, CompressLowering,
               NonZeroLowering, UniqueLowering>(converter, patterns.getContext());
}

} // namespace kiln::lowering
