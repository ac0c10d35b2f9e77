//===- NN.cpp - Graph to linalg: convolution, pooling, matmul, normalisation and resampling ===//
//
// The compute-heavy ops: MatMul, Gemm, Conv, ConvTranspose, the poolings, MaxUnpool,
// Einsum and Det. Convolutions and matrix products become named linalg ops where one
// fits exactly (later passes tile and vectorize those), with a linalg.generic of the same
// structure for the other forms. Poolings are written the way linalg's named poolings
// are: a generic over [N, C, outputs..., window...] reading the padded input at
// `output * stride + window * dilation`, with an empty "window" tensor that gives the
// window loops their extents.
//
//===----------------------------------------------------------------------===//

#include "passes/graph/GraphBuilders.h"
#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/AffineMap.h"

#include <limits>
#include <map>

using namespace mlir;

namespace kiln::lowering {

/// Softmax and the normalisations (NNNormalization.cpp).
void populateNNNormalizationLowering(const TypeConverter &converter, RewritePatternSet &patterns);
/// Resize, GridSample, RoiAlign, NonMaxSuppression (NNSampling.cpp).
void populateNNSamplingLowering(const TypeConverter &converter, RewritePatternSet &patterns);

namespace {

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

Value createAdd(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::AddFOp::create(b, loc, lhs, rhs);
  return arith::AddIOp::create(b, loc, lhs, rhs);
}

Value createMul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::MulFOp::create(b, loc, lhs, rhs);
  return arith::MulIOp::create(b, loc, lhs, rhs);
}

/// The lowest value of `type` (a max's identity): -inf for floats, the minimum integer
/// (false for bool, whatever the signedness).
Value createLowest(OpBuilder &b, Location loc, Type type, bool isUnsignedType) {
  return createExtremeConstant(b, loc, type, /*largest=*/false,
                               isUnsignedType || type.isInteger(1));
}

/// Whether every extent of `type` from `from` on is static.
bool hasStaticTrailingShape(RankedTensorType type, int64_t from) {
  for (int64_t dim = from; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      return false;
  return true;
}

/// `input` ([N, C, D1, ..., Dk], or [N, D1, ..., Dk, C] when `firstSpatial` is 1) spread
/// out by `strides` (stride - 1 elements of `padValue` between neighbours) and padded with
/// `padValue` by `low` and `high` (either may be negative, which crops) along the spatial
/// dimensions, as a padded gather.
Value createSpreadPadded(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> low,
                         ArrayRef<int64_t> high, ArrayRef<int64_t> strides, Value padValue,
                         int64_t firstSpatial = 2) {
  bool unchanged = true;
  for (auto [padLow, padHigh, stride] : llvm::zip_equal(low, high, strides))
    unchanged &= padLow == 0 && padHigh == 0 && stride == 1;
  if (unchanged)
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, input);
  for (size_t i = 0; i < low.size(); ++i) {
    int64_t dim = i + firstSpatial;
    shape[dim] = low[i] + (type.getDimSize(dim) - 1) * strides[i] + 1 + high[i];
    sizes[dim] = b.getIndexAttr(shape[dim]);
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return createPaddedGather(
      b, loc, resultType, sizes, input, padValue,
      [&](OpBuilder &nested, Location nestedLoc, int64_t dim,
          Value index) -> std::pair<Value, Value> {
        if (dim < firstSpatial || dim >= firstSpatial + int64_t(low.size()))
          return {index, Value()};
        size_t i = dim - firstSpatial;
        auto constant = [&](int64_t value) -> Value {
          return arith::ConstantIndexOp::create(nested, nestedLoc, value);
        };
        Value zero = constant(0);
        Value position = arith::SubIOp::create(nested, nestedLoc, index, constant(low[i]));
        Value source =
            arith::FloorDivSIOp::create(nested, nestedLoc, position, constant(strides[i]));
        Value onGrid = arith::CmpIOp::create(
            nested, nestedLoc, arith::CmpIPredicate::eq,
            arith::MulIOp::create(nested, nestedLoc, source, constant(strides[i])), position);
        Value inside = arith::AndIOp::create(
            nested, nestedLoc,
            arith::CmpIOp::create(nested, nestedLoc, arith::CmpIPredicate::sge, source, zero),
            arith::CmpIOp::create(nested, nestedLoc, arith::CmpIPredicate::slt, source,
                                  constant(type.getDimSize(dim))));
        Value valid = arith::AndIOp::create(nested, nestedLoc, onGrid, inside);
        // Read a valid element (index 0 where the position is padding).
        return {arith::SelectOp::create(nested, nestedLoc, valid, source, zero), valid};
      });
}

/// `input` ([N, C, D1, ..., Dk], or [N, D1, ..., Dk, C] with `channelsLast`) padded with
/// `padValue` by `low` and `high` along the spatial dimensions.
Value padSpatial(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> low,
                 ArrayRef<int64_t> high, Value padValue, bool channelsLast = false) {
  SmallVector<int64_t> unitStrides(low.size(), 1);
  return createSpreadPadded(b, loc, input, low, high, unitStrides, padValue, channelsLast ? 1 : 2);
}

/// The geometry of a windowed op (convolution, pooling) along its spatial dimensions.
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, padsBegin, padsEnd;

  /// The end padding that makes every window of an output of extent `outputExtents`
  /// fit in the input of extents `inputExtents`: at least the declared one, more where
  /// ceil mode lets the last window hang over the end.
  SmallVector<int64_t> highPadding(ArrayRef<int64_t> inputExtents,
                                   ArrayRef<int64_t> outputExtents) const {
    SmallVector<int64_t> high;
    for (size_t i = 0; i < kernel.size(); ++i) {
      int64_t needed = (outputExtents[i] - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 -
                       inputExtents[i] - padsBegin[i];
      high.push_back(std::max(padsEnd[i], needed));
    }
    return high;
  }
};

/// Reads the window attributes of a pooling-like op, checking their lengths.
template <typename OpTy> FailureOr<Window> getPoolingWindow(OpTy op, int64_t spatialRank) {
  Window window;
  window.kernel.assign(op.getKernelShape().begin(), op.getKernelShape().end());
  window.strides.assign(op.getStrides().begin(), op.getStrides().end());
  window.dilations.assign(op.getDilations().begin(), op.getDilations().end());
  ArrayRef<int64_t> pads = op.getPads();
  if (static_cast<int64_t>(window.kernel.size()) != spatialRank ||
      static_cast<int64_t>(window.strides.size()) != spatialRank ||
      static_cast<int64_t>(window.dilations.size()) != spatialRank ||
      static_cast<int64_t>(pads.size()) != 2 * spatialRank)
    return failure();
  window.padsBegin.assign(pads.begin(), pads.begin() + spatialRank);
  window.padsEnd.assign(pads.begin() + spatialRank, pads.end());
  for (int64_t i = 0; i < spatialRank; ++i)
    if (window.kernel[i] < 1 || window.strides[i] < 1 || window.dilations[i] < 1 ||
        window.padsBegin[i] < 0 || window.padsEnd[i] < 0)
      return failure();
  return window;
}

/// The sizes of a [N, C, spatial...] result: N and C from `input`, the rest static from
/// `type`.
SmallVector<OpFoldResult> getChannelsFirstSizes(OpBuilder &b, Location loc, Value input,
                                                RankedTensorType type) {
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, input);
  sizes.resize(2);
  for (int64_t dim = 2; dim < type.getRank(); ++dim)
    sizes.push_back(b.getIndexAttr(type.getDimSize(dim)));
  return sizes;
}

/// The indexing maps of a pooling over [N, C, O1..Ok, K1..Kk]: the input read at
/// `o * stride + k * dilation`, the window tensor at k, and `numOutputs` outputs at o.
/// With `channelsLast` the input and outputs are [N, spatial..., C] and so are the
/// loops, [N, O1..Ok, C, K1..Kk], as linalg's NHWC poolings have them: consecutive
/// channels are then consecutive threads on the GPU (coalesced accesses), and the nest
/// has the iteration space of the output's fill, which fuses with it.
SmallVector<AffineMap> getPoolingMaps(MLIRContext *context, const Window &window,
                                      unsigned numOutputs, bool channelsLast = false) {
  int64_t spatialRank = window.kernel.size();
  int64_t numDims = 2 + 2 * spatialRank;
  AffineExpr n = getAffineDimExpr(0, context);
  AffineExpr c = getAffineDimExpr(channelsLast ? 1 + spatialRank : 1, context);
  SmallVector<AffineExpr> inputExprs{n}, windowExprs, outputExprs{n};
  if (!channelsLast) {
    inputExprs.push_back(c);
    outputExprs.push_back(c);
  }
  for (int64_t i = 0; i < spatialRank; ++i) {
    AffineExpr output = getAffineDimExpr(channelsLast ? 1 + i : 2 + i, context);
    AffineExpr tap = getAffineDimExpr(2 + spatialRank + i, context);
    inputExprs.push_back(output * window.strides[i] + tap * window.dilations[i]);
    windowExprs.push_back(tap);
    outputExprs.push_back(output);
  }
  if (channelsLast) {
    inputExprs.push_back(c);
    outputExprs.push_back(c);
  }
  SmallVector<AffineMap> maps{AffineMap::get(numDims, 0, inputExprs, context),
                              AffineMap::get(numDims, 0, windowExprs, context)};
  for (unsigned i = 0; i < numOutputs; ++i)
    maps.push_back(AffineMap::get(numDims, 0, outputExprs, context));
  return maps;
}

/// A pooling `linalg.generic` over the padded input into `inits`; `body` receives the
/// input element and the accumulators and returns the new accumulators.
/// A named linalg pooling op over `padded` into `init` (the window's strides and
/// dilations): `OneD` for one spatial dimension, `TwoD` for two.
template <typename OneD, typename TwoD>
Value createNamedPooling(OpBuilder &b, Location loc, Value padded, Value init,
                         const Window &window) {
  auto resultType = cast<RankedTensorType>(init.getType());
  Value windowTensor = tensor::EmptyOp::create(b, loc, window.kernel, resultType.getElementType());
  SmallVector<Value> inputs{padded, windowTensor};
  Attribute strides = b.getI64TensorAttr(window.strides);
  Attribute dilations = b.getI64TensorAttr(window.dilations);
  if (window.kernel.size() == 2)
    return TwoD::create(b, loc, TypeRange{resultType}, inputs, init, strides, dilations)
        .getResult(0);
  return OneD::create(b, loc, TypeRange{resultType}, inputs, init, strides, dilations).getResult(0);
}

ValueRange createPoolingGeneric(
    OpBuilder &b, Location loc, Value padded, const Window &window, ValueRange inits,
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value, ValueRange)> body,
    bool channelsLast = false) {
  auto elementType = cast<RankedTensorType>(padded.getType()).getElementType();
  Value windowTensor = tensor::EmptyOp::create(b, loc, window.kernel, elementType);
  int64_t spatialRank = window.kernel.size();
  SmallVector<utils::IteratorType> iterators(2 + spatialRank, utils::IteratorType::parallel);
  iterators.append(spatialRank, utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange(inits), ValueRange{padded, windowTensor}, inits,
      getPoolingMaps(b.getContext(), window, inits.size(), channelsLast), iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                body(nested, nestedLoc, args[0], args.drop_front(2)));
      });
  return generic.getResults();
}

/// Checks the common shape requirements of the poolings: [N, C, spatial...] (or [N,
/// spatial..., C] with `channelsLast`) with static spatial extents in the input and the
/// result.
LogicalResult checkPoolingShapes(RankedTensorType inputType, RankedTensorType resultType,
                                 bool channelsLast = false) {
  int64_t rank = inputType.getRank();
  if (rank < 3 || resultType.getRank() != rank)
    return failure();
  int64_t firstSpatial = channelsLast ? 1 : 2;
  for (int64_t dim = firstSpatial; dim < firstSpatial + rank - 2; ++dim)
    if (inputType.isDynamicDim(dim) || resultType.isDynamicDim(dim))
      return failure();
  return success();
}

/// The sizes of a pool's result of `type` ([N, C, spatial...], or [N, spatial..., C]
/// with `channelsLast`): N and C from `input`, the spatial extents static from `type`.
SmallVector<OpFoldResult> getPooledSizes(OpBuilder &b, Location loc, Value input,
                                         RankedTensorType type, bool channelsLast) {
  if (!channelsLast)
    return getChannelsFirstSizes(b, loc, input, type);
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, input);
  for (int64_t dim = 1; dim < type.getRank() - 1; ++dim)
    sizes[dim] = b.getIndexAttr(type.getDimSize(dim));
  return sizes;
}

//===----------------------------------------------------------------------===//
// MatMul and Gemm
//===----------------------------------------------------------------------===//

/// A zero-filled tensor of `type` with extents `sizes`.
Value createZeros(OpBuilder &b, Location loc, RankedTensorType type, ArrayRef<OpFoldResult> sizes) {
  return createFilledTensor(b, loc, type, sizes,
                            createScalarConstant(b, loc, type.getElementType(), 0.0));
}

/// `value` with its leading `count` dimensions collapsed into one (kept as is when count
/// is 1).
Value collapseLeading(OpBuilder &b, Location loc, Value value, int64_t count) {
  auto type = cast<RankedTensorType>(value.getType());
  if (count == 1)
    return value;
  SmallVector<ReassociationIndices> groups(1);
  for (int64_t dim = 0; dim < count; ++dim)
    groups[0].push_back(dim);
  for (int64_t dim = count; dim < type.getRank(); ++dim)
    groups.push_back({dim});
  return tensor::CollapseShapeOp::create(b, loc, value, groups);
}

/// `value` reshaped to `type`/`sizes` by expanding its leading dimension into the
/// leading `count` ones of the type.
Value expandLeading(OpBuilder &b, Location loc, Value value, RankedTensorType type,
                    ArrayRef<OpFoldResult> sizes, int64_t count) {
  if (count == 1)
    return castToType(b, loc, value, type);
  auto sourceType = cast<RankedTensorType>(value.getType());
  SmallVector<ReassociationIndices> groups(1);
  for (int64_t dim = 0; dim < count; ++dim)
    groups[0].push_back(dim);
  for (int64_t dim = 1; dim < sourceType.getRank(); ++dim)
    groups.push_back({count + dim - 1});
  return tensor::ExpandShapeOp::create(b, loc, type, value, groups, sizes);
}

/// The product of `lhs` ([batch..., M, K]) and `rhs` ([batch..., K, N] or [K, N]) of
/// ranks >= 2 with NumPy broadcasting of the batch dimensions, as a tensor of
/// `resultType` ([batch..., M, N]).
FailureOr<Value> createBatchedMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                                     RankedTensorType resultType) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  Type elementType = resultType.getElementType();
  int64_t rank = resultType.getRank();
  int64_t batchRank = rank - 2;
  SmallVector<OpFoldResult> lhsSizes = getSizes(b, loc, lhs);
  SmallVector<OpFoldResult> rhsSizes = getSizes(b, loc, rhs);
  OpFoldResult m = lhsSizes[lhsType.getRank() - 2];
  OpFoldResult n = rhsSizes.back();

  if (rhsType.getRank() == 2 && lhsType.getRank() == rank) {
    // [batch..., M, K] x [K, N]: one matmul of [batch * M, K] by [K, N].
    Value flatLhs = collapseLeading(b, loc, lhs, rank - 1);
    auto flatType = RankedTensorType::get(
        {cast<RankedTensorType>(flatLhs.getType()).getDimSize(0), resultType.getDimSize(rank - 1)},
        elementType);
    SmallVector<OpFoldResult> flatSizes{getSizes(b, loc, flatLhs)[0], n};
    Value init = createZeros(b, loc, flatType, flatSizes);
    Value product =
        linalg::MatmulOp::create(b, loc, TypeRange{flatType}, ValueRange{flatLhs, rhs}, init)
            .getResult(0);
    SmallVector<OpFoldResult> resultSizes(lhsSizes.begin(), lhsSizes.end() - 1);
    resultSizes.push_back(n);
    return expandLeading(b, loc, product, resultType, resultSizes, rank - 1);
  }

  // Broadcast both operands to the full batch shape, then one batch_matmul.
  SmallVector<OpFoldResult> batchSizes;
  for (int64_t dim = 0; dim < batchRank; ++dim) {
    if (resultType.isDynamicDim(dim)) {
      // A dynamic batch extent is only handled where neither operand broadcasts along it.
      int64_t lhsDim = dim - (rank - lhsType.getRank());
      int64_t rhsDim = dim - (rank - rhsType.getRank());
      if (lhsDim < 0 || rhsDim < 0 || !lhsType.isDynamicDim(lhsDim) ||
          !rhsType.isDynamicDim(rhsDim))
        return failure();
      batchSizes.push_back(lhsSizes[lhsDim]);
    } else {
      batchSizes.push_back(b.getIndexAttr(resultType.getDimSize(dim)));
    }
  }
  auto broadcastOperand = [&](Value operand, RankedTensorType type,
                              ArrayRef<OpFoldResult> sizes) -> Value {
    SmallVector<int64_t> shape(resultType.getShape().take_front(batchRank));
    shape.push_back(type.getDimSize(type.getRank() - 2));
    shape.push_back(type.getDimSize(type.getRank() - 1));
    auto fullType = RankedTensorType::get(shape, type.getElementType());
    if (fullType == type)
      return operand;
    SmallVector<OpFoldResult> fullSizes(batchSizes);
    fullSizes.append(sizes.end() - 2, sizes.end());
    Value init = createEmptyTensor(b, loc, fullType, fullSizes);
    SmallVector<AffineMap> maps{getBroadcastMap(b.getContext(), type, rank),
                                b.getMultiDimIdentityMap(rank)};
    // Broadcasting must not touch the matrix dimensions, whatever their extents.
    SmallVector<AffineExpr> exprs(maps[0].getResults());
    exprs[exprs.size() - 2] = b.getAffineDimExpr(rank - 2);
    exprs.back() = b.getAffineDimExpr(rank - 1);
    maps[0] = AffineMap::get(rank, 0, exprs, b.getContext());
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    return linalg::GenericOp::create(b, loc, TypeRange{fullType}, ValueRange{operand},
                                     ValueRange{init}, maps, iterators,
                                     [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                                       linalg::YieldOp::create(nested, nestedLoc, args[0]);
                                     })
        .getResult(0);
  };
  Value fullLhs = broadcastOperand(lhs, lhsType, lhsSizes);
  Value fullRhs = broadcastOperand(rhs, rhsType, rhsSizes);
  Value batchLhs = collapseLeading(b, loc, fullLhs, batchRank);
  Value batchRhs = collapseLeading(b, loc, fullRhs, batchRank);
  auto batchLhsType = cast<RankedTensorType>(batchLhs.getType());
  auto batchType =
      RankedTensorType::get({batchLhsType.getDimSize(0), resultType.getDimSize(rank - 2),
                             resultType.getDimSize(rank - 1)},
                            elementType);
  Value init = createZeros(b, loc, batchType, {getSizes(b, loc, batchLhs)[0], m, n});
  Value product = linalg::BatchMatmulOp::create(b, loc, TypeRange{batchType},
                                                ValueRange{batchLhs, batchRhs}, init)
                      .getResult(0);
  SmallVector<OpFoldResult> resultSizes(batchSizes);
  resultSizes.push_back(m);
  resultSizes.push_back(n);
  return expandLeading(b, loc, product, resultType, resultSizes, batchRank);
}

/// `value` (rank 1) reshaped to [1, K] (`asRow`) or [K, 1].
Value promoteVector(OpBuilder &b, Location loc, Value value, bool asRow) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t extent = type.getDimSize(0);
  auto matrixType = RankedTensorType::get(asRow ? SmallVector<int64_t>{1, extent}
                                                : SmallVector<int64_t>{extent, 1},
                                          type.getElementType());
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, value);
  sizes.insert(asRow ? sizes.begin() : sizes.end(), b.getIndexAttr(1));
  return tensor::ExpandShapeOp::create(b, loc, matrixType, value,
                                       SmallVector<ReassociationIndices>{{0, 1}}, sizes);
}

} // namespace

FailureOr<Value> createMatMul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                              RankedTensorType resultType) {
  auto lhsType = dyn_cast<RankedTensorType>(lhs.getType());
  auto rhsType = dyn_cast<RankedTensorType>(rhs.getType());
  if (!resultType || !lhsType || !rhsType || lhsType.getRank() < 1 || rhsType.getRank() < 1)
    return failure();
  bool lhsVector = lhsType.getRank() == 1, rhsVector = rhsType.getRank() == 1;
  if (lhsVector)
    lhs = promoteVector(b, loc, lhs, /*asRow=*/true);
  if (rhsVector)
    rhs = promoteVector(b, loc, rhs, /*asRow=*/false);
  lhsType = cast<RankedTensorType>(lhs.getType());
  rhsType = cast<RankedTensorType>(rhs.getType());

  // The product with the promoted unit dimensions kept.
  int64_t rank = std::max(lhsType.getRank(), rhsType.getRank());
  int64_t resultBatchRank = resultType.getRank() - (lhsVector ? 0 : 1) - (rhsVector ? 0 : 1);
  if (resultBatchRank != rank - 2)
    return failure();
  SmallVector<int64_t> fullShape(resultType.getShape().take_front(rank - 2));
  fullShape.push_back(lhsType.getDimSize(lhsType.getRank() - 2));
  fullShape.push_back(rhsType.getDimSize(rhsType.getRank() - 1));
  // Half-precision products accumulate in f32 (the linalg ops extend each operand), as
  // cuBLAS and ONNX Runtime do: a sum of thousands of f16 or bf16 terms rounded at every
  // step loses digits (bf16 GEMMs of K = 512 missed by 2 % of their magnitude).
  Type resultElementType = resultType.getElementType();
  Type accumulatorType = resultElementType.isF16() || resultElementType.isBF16()
                             ? Type(b.getF32Type())
                             : resultElementType;
  auto fullType = RankedTensorType::get(fullShape, accumulatorType);

  Value product;
  if (rank == 2) {
    Value init =
        createZeros(b, loc, fullType, {getSizes(b, loc, lhs)[0], getSizes(b, loc, rhs)[1]});
    product = linalg::MatmulOp::create(b, loc, TypeRange{fullType}, ValueRange{lhs, rhs}, init)
                  .getResult(0);
  } else {
    FailureOr<Value> batched = createBatchedMatmul(b, loc, lhs, rhs, fullType);
    if (failed(batched))
      return failure();
    product = *batched;
  }
  if (lhsVector || rhsVector) {
    // Drop the promoted unit dimensions: the batch dimensions stay, the matrix ones
    // merge into what is left of them.
    SmallVector<ReassociationIndices> groups;
    for (int64_t dim = 0; dim < rank - 2; ++dim)
      groups.push_back({dim});
    if (!(lhsVector && rhsVector))
      groups.push_back({rank - 2, rank - 1});
    product = tensor::CollapseShapeOp::create(b, loc, product, groups);
  }
  if (accumulatorType != resultElementType) {
    auto productType = cast<RankedTensorType>(product.getType());
    product = createElementwise(
        b, loc, RankedTensorType::get(productType.getShape(), resultElementType), {product},
        [&](OpBuilder &nested, Location nestedLoc, ValueRange elements) {
          return convertScalar(nested, nestedLoc, elements[0], accumulatorType, resultElementType);
        });
  }
  return castToType(b, loc, product, resultType);
}

namespace {

/// graph.matmul through createMatMul.
struct MatMulLowering : OpConversionPattern<graph::MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::MatMulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> product =
        createMatMul(rewriter, op.getLoc(), adaptor.getLhs(), adaptor.getRhs(),
                     getConvertedResultType(*getTypeConverter(), op));
    if (failed(product))
      return rewriter.notifyMatchFailure(
          op, "unranked or 0-D operands, a result rank that does not match them, or a dynamic "
              "batch extent that broadcasts");
    rewriter.replaceOp(op, *product);
    return success();
  }
};

/// graph.attention as the graph ops it stands for, which their own patterns then lower:
/// matmul(query, transpose(key)) * scale + mask, softmax over the last axis (NaNs to 0 with
/// nan_to_zero), matmul with value. A causal op's scores are -inf above the diagonal (a
/// linalg.generic on their indices) before the softmax. With f16 or bf16 operands the
/// scores, the scale, the mask and the softmax are f32 and only the probabilities are
/// rounded to the operands' type, as the GPU kernels do: scores of unnormalised queries
/// and keys leave f16's range (65504) long before the softmax makes them small again.
struct AttentionLowering : OpConversionPattern<graph::AttentionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::AttentionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto keyType = dyn_cast<RankedTensorType>(adaptor.getKey().getType());
    if (!keyType || !isa<RankedTensorType>(adaptor.getQuery().getType()) ||
        !isa<RankedTensorType>(adaptor.getValue().getType()))
      return rewriter.notifyMatchFailure(op, "unranked operands");
    Type operandElementType = keyType.getElementType();
    bool narrow = operandElementType.isF16() || operandElementType.isBF16();
    // The type of the scores and of the softmax.
    Type elementType = narrow ? rewriter.getF32Type() : operandElementType;
    auto widen = [&](Value tensor) -> Value {
      auto type = cast<RankedTensorType>(tensor.getType());
      if (!narrow || type.getElementType() == elementType)
        return tensor;
      return graph::CastOp::create(rewriter, loc, Type(type.clone(elementType)), tensor,
                                   TypeAttr::get(elementType));
    };
    auto scalar = [&](double value) {
      auto type = RankedTensorType::get({}, elementType);
      return graph::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(type, FloatAttr::get(elementType, value)));
    };
    // Grouped-query attention: K and V with a divisor of Q's heads, repeated to Q's.
    auto queryType = cast<RankedTensorType>(adaptor.getQuery().getType());
    int64_t queryHeads = queryType.getRank() >= 3 ? queryType.getDimSize(queryType.getRank() - 3)
                                                  : ShapedType::kDynamic;
    Value key = graph::createRepeatedHeads(rewriter, loc, adaptor.getKey(), queryHeads);
    Value value = graph::createRepeatedHeads(rewriter, loc, adaptor.getValue(), queryHeads);
    auto perm = llvm::to_vector(llvm::seq<int64_t>(0, keyType.getRank()));
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    Value keyTransposed = graph::TransposeOp::create(rewriter, loc, widen(key), perm);
    Value scores = graph::MatMulOp::create(rewriter, loc, widen(adaptor.getQuery()), keyTransposed);
    double scale = op.getScale().convertToDouble();
    if (scale != 1.0)
      scores = graph::MulOp::create(rewriter, loc, scores, scalar(scale));
    if (Value mask = adaptor.getMask())
      scores = graph::AddOp::create(rewriter, loc, scores, widen(mask));
    if (op.getCausal()) {
      auto scoresType = cast<RankedTensorType>(scores.getType());
      int64_t rank = scoresType.getRank();
      Value source = scores;
      scores = createIndexedGeneric(
          rewriter, loc, scoresType, getSizes(rewriter, loc, source),
          [&](OpBuilder &b, Location nested, ValueRange indices) -> Value {
            Value score = tensor::ExtractOp::create(b, nested, source, indices);
            Value allowed = arith::CmpIOp::create(b, nested, arith::CmpIPredicate::ule,
                                                  indices[rank - 1], indices[rank - 2]);
            Value masked = arith::ConstantOp::create(
                b, nested,
                b.getFloatAttr(elementType,
                               APFloat::getInf(cast<FloatType>(elementType).getFloatSemantics(),
                                               /*Negative=*/true)));
            return arith::SelectOp::create(b, nested, allowed, score, masked);
          });
    }
    Value probabilities = graph::SoftmaxOp::create(rewriter, loc, scores, -1);
    if (op.getNanToZero()) {
      Value isNan = graph::IsNaNOp::create(rewriter, loc, probabilities);
      probabilities = graph::WhereOp::create(rewriter, loc, isNan, scalar(0.0), probabilities);
    }
    if (narrow) {
      auto type = cast<RankedTensorType>(probabilities.getType());
      probabilities = graph::CastOp::create(rewriter, loc, Type(type.clone(operandElementType)),
                                            probabilities, TypeAttr::get(operandElementType));
    }
    rewriter.replaceOp(op, graph::MatMulOp::create(rewriter, loc, probabilities, value));
    return success();
  }
};

/// graph.gemm: linalg.transpose for the transposed operands, linalg.matmul accumulating
/// into beta * C (broadcast), and the alpha scaling where alpha is not 1.
struct GemmLowering : OpConversionPattern<graph::GemmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::GemmOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto aType = dyn_cast<RankedTensorType>(adaptor.getA().getType());
    auto bType = dyn_cast<RankedTensorType>(adaptor.getB().getType());
    if (!resultType || resultType.getRank() != 2 || !aType || aType.getRank() != 2 || !bType ||
        bType.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "operands are not matrices");
    Type elementType = resultType.getElementType();
    auto transpose = [&](Value matrix) -> Value {
      auto type = cast<RankedTensorType>(matrix.getType());
      auto transposedType =
          RankedTensorType::get({type.getDimSize(1), type.getDimSize(0)}, elementType);
      SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, matrix);
      Value init = createEmptyTensor(rewriter, loc, transposedType, {sizes[1], sizes[0]});
      return linalg::TransposeOp::create(rewriter, loc, matrix, init, ArrayRef<int64_t>{1, 0})
          .getResult()[0];
    };
    Value a = op.getTransA() ? transpose(adaptor.getA()) : adaptor.getA();
    Value b = op.getTransB() ? transpose(adaptor.getB()) : adaptor.getB();
    SmallVector<OpFoldResult> sizes{getSizes(rewriter, loc, a)[0], getSizes(rewriter, loc, b)[1]};

    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    Value c = adaptor.getC();
    bool hasC = c && beta != 0.0;
    if (hasC && !isa<RankedTensorType>(c.getType()))
      return rewriter.notifyMatchFailure(op, "unranked C");

    // Half-precision products accumulate in f32, as graph.matmul's do (createMatMul), and
    // are rounded once, after alpha and C.
    Type accumulatorElement =
        elementType.isF16() || elementType.isBF16() ? rewriter.getF32Type() : elementType;
    auto accumulatorType = resultType.clone(accumulatorElement);
    // `value`, of the accumulator's type, times `factor`.
    auto scale = [&](OpBuilder &builder, Location nestedLoc, Value value, double factor) {
      if (factor == 1.0)
        return value;
      return createMul(builder, nestedLoc, value,
                       createScalarConstant(builder, nestedLoc, accumulatorElement, factor));
    };
    // With alpha = 1 the product accumulates straight into beta * C (broadcast to a static
    // result shape: C alone may not give the extents of a dynamic one).
    bool accumulateIntoC =
        hasC && alpha == 1.0 && resultType.hasStaticShape() && accumulatorElement == elementType;
    Value init;
    if (accumulateIntoC)
      init = createElementwise(rewriter, loc, resultType, ValueRange{c},
                               [&](OpBuilder &builder, Location nestedLoc, ValueRange args) {
                                 return scale(builder, nestedLoc, args[0], beta);
                               });
    else
      init = createZeros(rewriter, loc, accumulatorType, sizes);
    Value product =
        linalg::MatmulOp::create(rewriter, loc, TypeRange{accumulatorType}, ValueRange{a, b}, init)
            .getResult(0);
    if (!accumulateIntoC && (alpha != 1.0 || hasC || accumulatorElement != elementType)) {
      SmallVector<Value> operands{product};
      if (hasC)
        operands.push_back(c);
      product = createElementwise(
          rewriter, loc, resultType, operands,
          [&](OpBuilder &builder, Location nestedLoc, ValueRange args) {
            // In the accumulator's type, rounded to the result's at the end.
            auto widen = [&](Value value) {
              return convertScalar(builder, nestedLoc, value, value.getType(), accumulatorElement);
            };
            Value result = scale(builder, nestedLoc, args[0], alpha);
            if (args.size() > 1)
              result = createAdd(builder, nestedLoc, result,
                                 scale(builder, nestedLoc, widen(args[1]), beta));
            return convertScalar(builder, nestedLoc, result, accumulatorElement, elementType);
          });
    }
    rewriter.replaceOp(op, product);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// The convolution of `input` (already padded, [N, C, D...]) by `weight` ([M, C / group,
/// K...]) with `group` groups into `init` ([N, M, O...], holding the bias or zeros). A
/// named linalg op where one fits (1-D/2-D/3-D ungrouped, 2-D depthwise without
/// multiplier, 2-D grouped), otherwise a linalg.generic of the same structure.
/// accumulator + input * weight for a convolution generic's block arguments (input, weight,
/// accumulator); narrow float operands are extended to the accumulator's f32 first.
Value createMultiplyAccumulate(OpBuilder &b, Location loc, ValueRange args) {
  Type accumulatorType = args[2].getType();
  auto extend = [&](Value value) -> Value {
    if (value.getType() == accumulatorType)
      return value;
    if (isa<FloatType>(accumulatorType))
      return arith::ExtFOp::create(b, loc, accumulatorType, value);
    // An i8 convolution into i32: signed, as the linalg named convolutions extend (an
    // unsigned one is widened before it gets here, see ConvLowering).
    return arith::ExtSIOp::create(b, loc, accumulatorType, value);
  };
  Value product = createMul(b, loc, extend(args[0]), extend(args[1]));
  return createAdd(b, loc, args[2], product);
}

/// A convolution of `input` (already padded) by `weight` into `init` as one linalg.generic
/// of any rank and group: loops [n, m, o..., c, k...] channels first ([N, C, D...] by [M,
/// C / group, K...]) or [n, o..., m, c, k...] channels last ([N, D..., C] by [M, K..., C /
/// group]); the input channel is (m / (M / group)) * (C / group) + c.
Value createGenericConvolution(OpBuilder &b, Location loc, Value input, Value weight, Value init,
                               ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                               int64_t group, bool channelsLast) {
  auto weightType = cast<RankedTensorType>(weight.getType());
  int64_t spatialRank = weightType.getRank() - 2;
  int64_t filters = weightType.getDimSize(0);
  int64_t channelsPerGroup = weightType.getDimSize(channelsLast ? weightType.getRank() - 1 : 1);
  MLIRContext *context = b.getContext();
  int64_t numDims = 3 + 2 * spatialRank;
  AffineExpr n = b.getAffineDimExpr(0), m = b.getAffineDimExpr(channelsLast ? 1 + spatialRank : 1),
             c = b.getAffineDimExpr(2 + spatialRank);
  AffineExpr inputChannel = c;
  if (group > 1)
    inputChannel = m.floorDiv(filters / group) * channelsPerGroup + c;
  SmallVector<AffineExpr> inputSpatial, weightSpatial, outputSpatial;
  for (int64_t i = 0; i < spatialRank; ++i) {
    AffineExpr output = b.getAffineDimExpr(channelsLast ? 1 + i : 2 + i);
    AffineExpr tap = b.getAffineDimExpr(3 + spatialRank + i);
    inputSpatial.push_back(output * strides[i] + tap * dilations[i]);
    weightSpatial.push_back(tap);
    outputSpatial.push_back(output);
  }
  // [first, spatial..., channel] or [first, channel, spatial...].
  auto layout = [&](AffineExpr first, AffineExpr channel, ArrayRef<AffineExpr> spatial) {
    SmallVector<AffineExpr> exprs{first};
    if (!channelsLast)
      exprs.push_back(channel);
    exprs.append(spatial.begin(), spatial.end());
    if (channelsLast)
      exprs.push_back(channel);
    return AffineMap::get(numDims, 0, exprs, context);
  };
  SmallVector<AffineMap> maps{layout(n, inputChannel, inputSpatial), layout(m, c, weightSpatial),
                              layout(n, m, outputSpatial)};
  SmallVector<utils::IteratorType> iterators(2 + spatialRank, utils::IteratorType::parallel);
  iterators.append(1 + spatialRank, utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{input, weight}, init, maps, iterators,
             [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               linalg::YieldOp::create(nested, nestedLoc,
                                       createMultiplyAccumulate(nested, nestedLoc, args));
             })
      .getResult(0);
}

Value createConvolution(OpBuilder &b, Location loc, Value input, Value weight, Value init,
                        ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations, int64_t group) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto weightType = cast<RankedTensorType>(weight.getType());
  auto resultType = cast<RankedTensorType>(init.getType());
  int64_t spatialRank = inputType.getRank() - 2;
  int64_t channels = weightType.getDimSize(1) * group;
  int64_t filters = weightType.getDimSize(0);
  Attribute stridesAttr = b.getI64TensorAttr(strides);
  Attribute dilationsAttr = b.getI64TensorAttr(dilations);
  SmallVector<Type> resultTypes{resultType};
  Type elementType = resultType.getElementType();

  if (group == 1) {
    SmallVector<Value> operands{input, weight};
    if (spatialRank == 1)
      return linalg::Conv1DNcwFcwOp::create(b, loc, resultTypes, operands, init, stridesAttr,
                                            dilationsAttr)
          .getResult(0);
    if (spatialRank == 2)
      return linalg::Conv2DNchwFchwOp::create(b, loc, resultTypes, operands, init, stridesAttr,
                                              dilationsAttr)
          .getResult(0);
    if (spatialRank == 3)
      return linalg::Conv3DNcdhwFcdhwOp::create(b, loc, resultTypes, operands, init, stridesAttr,
                                                dilationsAttr)
          .getResult(0);
  }
  bool staticChannels = !ShapedType::isDynamic(filters) && !weightType.isDynamicDim(1);
  if (spatialRank == 2 && staticChannels && group == channels && filters == channels) {
    // Depthwise: weight [C, 1, KH, KW] -> [C, KH, KW].
    Value depthwiseWeight = tensor::CollapseShapeOp::create(
        b, loc, weight, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
    return linalg::DepthwiseConv2DNchwChwOp::create(b, loc, resultTypes,
                                                    ValueRange{input, depthwiseWeight}, init,
                                                    stridesAttr, dilationsAttr)
        .getResult(0);
  }
  if (spatialRank == 2 && staticChannels && group > 1) {
    // Grouped: [N, G, C/G, H, W] by [G, M/G, C/G, KH, KW] into [N, G, M/G, OH, OW].
    auto split = [&](Value value, int64_t dim, int64_t splitGroup) -> Value {
      auto type = cast<RankedTensorType>(value.getType());
      SmallVector<int64_t> shape(type.getShape());
      shape[dim] = type.getDimSize(dim) / splitGroup;
      shape.insert(shape.begin() + dim, splitGroup);
      SmallVector<ReassociationIndices> groups;
      SmallVector<OpFoldResult> sizes = getSizes(b, loc, value);
      SmallVector<OpFoldResult> newSizes;
      for (int64_t i = 0; i < type.getRank(); ++i) {
        if (i == dim) {
          groups.push_back({i, i + 1});
          newSizes.push_back(b.getIndexAttr(shape[dim]));
          newSizes.push_back(b.getIndexAttr(shape[dim + 1]));
        } else {
          groups.push_back({i < dim ? i : i + 1});
          newSizes.push_back(sizes[i]);
        }
      }
      return tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get(shape, type.getElementType()), value, groups, newSizes);
    };
    Value groupedInput = split(input, 1, group);
    Value groupedWeight = split(weight, 0, group);
    Value groupedInit = split(init, 1, group);
    Value result = linalg::Conv2DNgchwGfchwOp::create(b, loc, TypeRange{groupedInit.getType()},
                                                      ValueRange{groupedInput, groupedWeight},
                                                      groupedInit, stridesAttr, dilationsAttr)
                       .getResult(0);
    return tensor::CollapseShapeOp::create(
        b, loc, resultType, result, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
  }

  return createGenericConvolution(b, loc, input, weight, init, strides, dilations, group,
                                  /*channelsLast=*/false);
}

/// The convolution of `input` (already padded, [N, D..., C]) by `weight` ([M, K..., C /
/// group]) with `group` groups into `init` ([N, O..., M]): linalg.conv_2d_nhwc_fhwc for
/// 2-D ungrouped ones, otherwise a linalg.generic over [n, o..., m, c, k...] (depthwise
/// and grouped included; the input channel is (m / (M / group)) * (C / group) + c).
Value createChannelsLastConvolution(OpBuilder &b, Location loc, Value input, Value weight,
                                    Value init, ArrayRef<int64_t> strides,
                                    ArrayRef<int64_t> dilations, int64_t group) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto weightType = cast<RankedTensorType>(weight.getType());
  auto resultType = cast<RankedTensorType>(init.getType());
  int64_t spatialRank = inputType.getRank() - 2;
  int64_t filters = weightType.getDimSize(0);
  int64_t channelsPerGroup = weightType.getDimSize(weightType.getRank() - 1);
  if (group == 1 && spatialRank == 2)
    return linalg::Conv2DNhwcFhwcOp::create(
               b, loc, TypeRange{resultType}, ValueRange{input, weight}, init,
               b.getI64TensorAttr(strides), b.getI64TensorAttr(dilations))
        .getResult(0);

  return createGenericConvolution(b, loc, input, weight, init, strides, dilations, group,
                                  /*channelsLast=*/true);
}

/// The initial value of a convolution's result: the bias ([M]) broadcast along every
/// other dimension, or zeros. `channelDim`: where M is in the result.
Value createConvolutionInit(OpBuilder &b, Location loc, RankedTensorType resultType,
                            ArrayRef<OpFoldResult> sizes, Value bias, int64_t channelDim = 1) {
  if (!bias)
    return createZeros(b, loc, resultType, sizes);
  auto biasType = cast<RankedTensorType>(bias.getType());
  if (biasType.getElementType() != resultType.getElementType())
    bias = createElementwise(
        b, loc, RankedTensorType::get(biasType.getShape(), resultType.getElementType()), {bias},
        [&](OpBuilder &nested, Location nestedLoc, ValueRange elements) {
          return arith::ExtFOp::create(nested, nestedLoc, resultType.getElementType(), elements[0])
              .getResult();
        });
  Value empty = createEmptyTensor(b, loc, resultType, sizes);
  SmallVector<int64_t> broadcastDims;
  for (int64_t dim = 0; dim < resultType.getRank(); ++dim)
    if (dim != channelDim)
      broadcastDims.push_back(dim);
  return linalg::BroadcastOp::create(b, loc, bias, empty, broadcastDims).getResult()[0];
}

/// Checks a convolution's operands: [N, C, D...] by [M, C / group, K...] with static
/// channel, spatial and filter extents, a [M] bias and a result of static spatial extents.
LogicalResult checkConvolutionShapes(RankedTensorType inputType, RankedTensorType weightType,
                                     Value bias, RankedTensorType resultType) {
  if (!inputType || !weightType || !resultType || inputType.getRank() < 3 ||
      weightType.getRank() != inputType.getRank() || resultType.getRank() != inputType.getRank())
    return failure();
  if (!hasStaticTrailingShape(inputType, 1) || !hasStaticTrailingShape(weightType, 0) ||
      !hasStaticTrailingShape(resultType, 1))
    return failure();
  if (bias) {
    auto biasType = dyn_cast<RankedTensorType>(bias.getType());
    if (!biasType || biasType.getRank() != 1)
      return failure();
  }
  return success();
}

} // namespace

FailureOr<Value> createGraphConvolution(OpBuilder &b, Location loc, Value input, Value weight,
                                        Value bias, RankedTensorType resultType,
                                        ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                                        ArrayRef<int64_t> pads, int64_t group, bool channelsLast) {
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  auto weightType = dyn_cast<RankedTensorType>(weight.getType());
  if (failed(checkConvolutionShapes(inputType, weightType, bias, resultType)))
    return failure();
  int64_t rank = inputType.getRank();
  int64_t spatialRank = rank - 2;
  // Where the channels and the spatial dimensions are in the operands.
  int64_t channelDim = channelsLast ? rank - 1 : 1;
  int64_t firstSpatial = channelsLast ? 1 : 2;
  int64_t inputChannels = inputType.getDimSize(channelDim);
  int64_t channelsPerGroup = weightType.getDimSize(channelDim);
  if (group < 1 || static_cast<int64_t>(strides.size()) != spatialRank ||
      static_cast<int64_t>(dilations.size()) != spatialRank ||
      static_cast<int64_t>(pads.size()) != 2 * spatialRank || inputChannels % group != 0 ||
      weightType.getDimSize(0) % group != 0 || channelsPerGroup * group != inputChannels)
    return failure();
  if (llvm::any_of(pads, [](int64_t pad) { return pad < 0; }))
    return failure();
  Window window;
  window.kernel.assign(weightType.getShape().begin() + firstSpatial,
                       weightType.getShape().begin() + firstSpatial + spatialRank);
  window.strides.assign(strides.begin(), strides.end());
  window.dilations.assign(dilations.begin(), dilations.end());
  window.padsBegin.assign(pads.begin(), pads.begin() + spatialRank);
  window.padsEnd.assign(pads.begin() + spatialRank, pads.end());

  Value zero = createScalarConstant(b, loc, inputType.getElementType(), 0.0);
  Value padded =
      padSpatial(b, loc, input, window.padsBegin,
                 window.highPadding(inputType.getShape().slice(firstSpatial, spatialRank),
                                    resultType.getShape().slice(firstSpatial, spatialRank)),
                 zero, channelsLast);
  // Half-precision convolutions accumulate in f32 (as cuDNN and ONNX Runtime do), rounded
  // once at the end; the linalg ops extend the operands.
  Type elementType = resultType.getElementType();
  bool narrow = elementType.isF16() || elementType.isBF16();
  auto accumulatorType =
      narrow ? RankedTensorType::get(resultType.getShape(), b.getF32Type()) : resultType;
  Value result;
  if (channelsLast) {
    // N from the input, everything else static.
    SmallVector<OpFoldResult> sizes{getSizes(b, loc, input)[0]};
    for (int64_t dim = 1; dim < rank; ++dim)
      sizes.push_back(b.getIndexAttr(resultType.getDimSize(dim)));
    Value init = createConvolutionInit(b, loc, accumulatorType, sizes, bias, rank - 1);
    result = createChannelsLastConvolution(b, loc, padded, weight, init, window.strides,
                                           window.dilations, group);
  } else {
    Value init = createConvolutionInit(b, loc, accumulatorType,
                                       getChannelsFirstSizes(b, loc, input, resultType), bias);
    result =
        createConvolution(b, loc, padded, weight, init, window.strides, window.dilations, group);
  }
  if (!narrow)
    return result;
  return createElementwise(
      b, loc, resultType, {result},
      [&](OpBuilder &nested, Location nestedLoc, ValueRange elements) {
        return arith::TruncFOp::create(nested, nestedLoc, elementType, elements[0]).getResult();
      });
}

namespace {

/// graph.conv through createGraphConvolution.
struct ConvLowering : OpConversionPattern<graph::ConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::ConvOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "unranked result");
    Value input = adaptor.getInput(), weight = adaptor.getWeight();
    // An integer convolution (i8 or ui8 into i32): the linalg convolutions and
    // createMultiplyAccumulate sign-extend their i8 operands, which after type conversion
    // are signless; ui8 operands are zero-extended to i32 here instead, so that 200 stays
    // 200 rather than -56.
    Type inputElement = getElementTypeOrSelf(op.getInput().getType());
    if (inputElement.isUnsignedInteger()) {
      auto widen = [&](Value value, Type from) -> Value {
        auto type = dyn_cast<RankedTensorType>(value.getType());
        if (!type)
          return {};
        return createElementwise(rewriter, op.getLoc(), type.clone(rewriter.getI32Type()), {value},
                                 [&](OpBuilder &nested, Location nestedLoc, ValueRange elements) {
                                   return convertScalar(nested, nestedLoc, elements[0], from,
                                                        rewriter.getI32Type());
                                 });
      };
      input = widen(input, inputElement);
      weight = widen(weight, getElementTypeOrSelf(op.getWeight().getType()));
      if (!input || !weight)
        return rewriter.notifyMatchFailure(op, "unranked unsigned integer operands");
    }
    FailureOr<Value> result = createGraphConvolution(
        rewriter, op.getLoc(), input, weight, adaptor.getBias(), resultType, op.getStrides(),
        op.getDilations(), op.getPads(), op.getGroup(), op.getChannelsLast());
    if (failed(result))
      return rewriter.notifyMatchFailure(
          op, "dynamic or mismatched convolution shapes, or attributes that do not match them");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// graph.conv_transpose as a convolution: the input spread out by the strides (zeros
/// inserted with a strided tensor.insert_slice) and padded by dilation * (K - 1) minus
/// the pads, convolved with stride 1 by the weight flipped along its spatial dimensions
/// with its channel dimensions swapped per group.
struct ConvTransposeLowering : OpConversionPattern<graph::ConvTransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::ConvTransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto weightType = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
    if (failed(checkConvolutionShapes(inputType, weightType, adaptor.getBias(), resultType)))
      return rewriter.notifyMatchFailure(op, "dynamic or mismatched convolution shapes");
    int64_t rank = inputType.getRank();
    int64_t spatialRank = rank - 2;
    int64_t group = op.getGroup();
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations(), pads = op.getPads(),
                      outputPadding = op.getOutputPadding();
    int64_t channels = inputType.getDimSize(1);
    int64_t filtersPerGroup = weightType.getDimSize(1);
    if (static_cast<int64_t>(strides.size()) != spatialRank ||
        static_cast<int64_t>(dilations.size()) != spatialRank ||
        static_cast<int64_t>(pads.size()) != 2 * spatialRank ||
        static_cast<int64_t>(outputPadding.size()) != spatialRank ||
        weightType.getDimSize(0) != channels || channels % group != 0 ||
        resultType.getDimSize(1) != filtersPerGroup * group)
      return rewriter.notifyMatchFailure(op, "attributes do not match the operands");
    Type elementType = inputType.getElementType();

    // The spread and padded input: extent O + d * (K - 1) along each spatial dimension,
    // holding input element i at (d * (K - 1) - padBegin) + i * stride.
    SmallVector<int64_t> low, high;
    for (int64_t i = 0; i < spatialRank; ++i) {
      int64_t extent = inputType.getDimSize(2 + i);
      int64_t kernelSpan = dilations[i] * (weightType.getDimSize(2 + i) - 1);
      low.push_back(kernelSpan - pads[i]);
      high.push_back(kernelSpan - pads[spatialRank + i] + outputPadding[i]);
      if (extent < 1 || strides[i] < 1 || dilations[i] < 1 ||
          low.back() + (extent - 1) * strides[i] + 1 + high.back() !=
              resultType.getDimSize(2 + i) + kernelSpan)
        return rewriter.notifyMatchFailure(op, "result extent does not match the attributes");
    }
    Value zero = createScalarConstant(rewriter, loc, elementType, 0.0);
    Value spreadInput =
        createSpreadPadded(rewriter, loc, adaptor.getInput(), low, high, strides, zero);

    // The weight [C, M/G, K...] as a convolution's [M, C/G, K...], flipped:
    // w'[m, c, k] = w[(m / (M/G)) * (C/G) + c, m mod (M/G), K - 1 - k].
    int64_t channelsPerGroup = channels / group;
    SmallVector<int64_t> convWeightShape{filtersPerGroup * group, channelsPerGroup};
    for (int64_t i = 0; i < spatialRank; ++i)
      convWeightShape.push_back(weightType.getDimSize(2 + i));
    auto convWeightType = RankedTensorType::get(convWeightShape, elementType);
    AffineExpr m = rewriter.getAffineDimExpr(0), c = rewriter.getAffineDimExpr(1);
    SmallVector<AffineExpr> weightExprs{c, m};
    if (group > 1)
      weightExprs = {m.floorDiv(filtersPerGroup) * channelsPerGroup + c, m % filtersPerGroup};
    for (int64_t i = 0; i < spatialRank; ++i)
      weightExprs.push_back(weightType.getDimSize(2 + i) - 1 - rewriter.getAffineDimExpr(2 + i));
    SmallVector<AffineMap> weightMaps{AffineMap::get(rank, 0, weightExprs, context),
                                      rewriter.getMultiDimIdentityMap(rank)};
    Value convWeightInit = tensor::EmptyOp::create(rewriter, loc, convWeightShape, elementType);
    Value convWeight = linalg::GenericOp::create(
                           rewriter, loc, TypeRange{convWeightType},
                           ValueRange{adaptor.getWeight()}, ValueRange{convWeightInit}, weightMaps,
                           SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
                           [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                             linalg::YieldOp::create(nested, nestedLoc, args[0]);
                           })
                           .getResult(0);

    Value init = createConvolutionInit(
        rewriter, loc, resultType,
        getChannelsFirstSizes(rewriter, loc, adaptor.getInput(), resultType), adaptor.getBias());
    SmallVector<int64_t> unitStrides(spatialRank, 1);
    rewriter.replaceOp(op, createConvolution(rewriter, loc, spreadInput, convWeight, init,
                                             unitStrides, dilations, group));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// graph.max_pool: the input padded with the lowest value, then linalg.pooling_nchw_max
/// (or _ncw_) for floats without the indices, otherwise a pooling generic that also
/// tracks the position of the first maximum.
struct MaxPoolLowering : OpConversionPattern<graph::MaxPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::MaxPoolOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op, 0);
    RankedTensorType indicesType = getConvertedResultType(*getTypeConverter(), op, 1);
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    bool wantIndices = !op.getIndices().use_empty();
    if (op.getChannelsLast()) {
      if (wantIndices)
        return rewriter.notifyMatchFailure(op, "a channels-last max_pool computes no indices");
      return lowerChannelsLast(op, adaptor, resultType, indicesType, inputType, rewriter);
    }
    if (!resultType || !indicesType || !inputType ||
        failed(checkPoolingShapes(inputType, resultType)))
      return rewriter.notifyMatchFailure(op, "dynamic spatial extents");
    int64_t spatialRank = inputType.getRank() - 2;
    FailureOr<Window> window = getPoolingWindow(op, spatialRank);
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "attributes do not match the input");
    Type elementType = inputType.getElementType();
    bool unsignedElements = isUnsigned(op.getInput().getType());
    Value lowest = createLowest(rewriter, loc, elementType, unsignedElements);
    ArrayRef<int64_t> inputExtents = inputType.getShape().drop_front(2);
    Value padded =
        padSpatial(rewriter, loc, adaptor.getInput(), window->padsBegin,
                   window->highPadding(inputExtents, resultType.getShape().drop_front(2)), lowest);
    SmallVector<OpFoldResult> sizes =
        getChannelsFirstSizes(rewriter, loc, adaptor.getInput(), resultType);
    Value init = createFilledTensor(rewriter, loc, resultType, sizes, lowest);

    if (!wantIndices && isa<FloatType>(elementType) && spatialRank <= 2) {
      Value result = createNamedPooling<linalg::PoolingNcwMaxOp, linalg::PoolingNchwMaxOp>(
          rewriter, loc, padded, init, *window);
      Value indices = createEmptyTensor(rewriter, loc, indicesType, sizes);
      rewriter.replaceOp(op, {result, indices});
      return success();
    }

    if (!wantIndices) {
      Value result = createPoolingGeneric(
          rewriter, loc, padded, *window, ValueRange{init},
          [&](OpBuilder &b, Location nestedLoc, Value element, ValueRange accumulators) {
            return SmallVector<Value>{createMinMax(b, nestedLoc, accumulators[0], element,
                                                   /*max=*/true, unsignedElements)};
          })[0];
      rewriter.replaceOp(op, {result, createEmptyTensor(rewriter, loc, indicesType, sizes)});
      return success();
    }

    // With the indices: the position of the first maximum into the input flattened
    // (batch and channel included), the spatial part row major or column major.
    Value zeroIndex = createScalarConstant(rewriter, loc, indicesType.getElementType(), 0.0);
    Value indicesInit = createFilledTensor(rewriter, loc, indicesType, sizes, zeroIndex);
    Value channels = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[1]);
    bool columnMajor = op.getStorageOrder() == 1;
    ValueRange results = createPoolingGeneric(
        rewriter, loc, padded, *window, ValueRange{init, indicesInit},
        [&](OpBuilder &b, Location nestedLoc, Value element, ValueRange accumulators) {
          auto index = [&](int64_t dim) { return linalg::IndexOp::create(b, nestedLoc, dim); };
          auto constant = [&](int64_t value) {
            return arith::ConstantIndexOp::create(b, nestedLoc, value);
          };
          // Spatial coordinates in the unpadded input.
          SmallVector<Value> coordinates;
          for (int64_t i = 0; i < spatialRank; ++i) {
            Value position = arith::AddIOp::create(
                b, nestedLoc,
                arith::MulIOp::create(b, nestedLoc, index(2 + i), constant(window->strides[i])),
                arith::MulIOp::create(b, nestedLoc, index(2 + spatialRank + i),
                                      constant(window->dilations[i])));
            coordinates.push_back(
                arith::SubIOp::create(b, nestedLoc, position, constant(window->padsBegin[i])));
          }
          Value spatial = constant(0);
          int64_t spatialSize = 1;
          for (int64_t j = 0; j < spatialRank; ++j) {
            int64_t i = columnMajor ? spatialRank - 1 - j : j;
            spatial = arith::AddIOp::create(
                b, nestedLoc,
                arith::MulIOp::create(b, nestedLoc, spatial, constant(inputExtents[i])),
                coordinates[i]);
            spatialSize *= inputExtents[i];
          }
          Value slice = arith::AddIOp::create(
              b, nestedLoc, arith::MulIOp::create(b, nestedLoc, index(0), channels), index(1));
          Value flat = arith::AddIOp::create(
              b, nestedLoc, arith::MulIOp::create(b, nestedLoc, slice, constant(spatialSize)),
              spatial);
          Value position = indexToInteger(b, nestedLoc, flat, indicesType.getElementType());
          Value greater;
          if (isa<FloatType>(elementType))
            greater = arith::CmpFOp::create(b, nestedLoc, arith::CmpFPredicate::OGT, element,
                                            accumulators[0]);
          else
            greater = arith::CmpIOp::create(b, nestedLoc,
                                            unsignedElements ? arith::CmpIPredicate::ugt
                                                             : arith::CmpIPredicate::sgt,
                                            element, accumulators[0]);
          return SmallVector<Value>{
              arith::SelectOp::create(b, nestedLoc, greater, element, accumulators[0]),
              arith::SelectOp::create(b, nestedLoc, greater, position, accumulators[1])};
        });
    rewriter.replaceOp(op, {results[0], results[1]});
    return success();
  }

  /// [N, D..., C]: linalg.pooling_nhwc_max (or _nwc_) for floats, otherwise a pooling
  /// generic; the indices are left empty (unused).
  LogicalResult lowerChannelsLast(graph::MaxPoolOp op, OpAdaptor adaptor,
                                  RankedTensorType resultType, RankedTensorType indicesType,
                                  RankedTensorType inputType,
                                  ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    if (!resultType || !indicesType || !inputType || inputType.getRank() < 3 ||
        resultType.getRank() != inputType.getRank() || !hasStaticTrailingShape(inputType, 1) ||
        !hasStaticTrailingShape(resultType, 1))
      return rewriter.notifyMatchFailure(op, "dynamic spatial or channel extents");
    int64_t rank = inputType.getRank(), spatialRank = rank - 2;
    FailureOr<Window> window = getPoolingWindow(op, spatialRank);
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "attributes do not match the input");
    Type elementType = inputType.getElementType();
    bool unsignedElements = isUnsigned(op.getInput().getType());
    Value lowest = createLowest(rewriter, loc, elementType, unsignedElements);
    Value padded = padSpatial(rewriter, loc, adaptor.getInput(), window->padsBegin,
                              window->highPadding(inputType.getShape().slice(1, spatialRank),
                                                  resultType.getShape().slice(1, spatialRank)),
                              lowest, /*channelsLast=*/true);
    SmallVector<OpFoldResult> sizes = getPooledSizes(rewriter, loc, adaptor.getInput(), resultType,
                                                     /*channelsLast=*/true);
    Value init = createFilledTensor(rewriter, loc, resultType, sizes, lowest);
    Value result;
    if (isa<FloatType>(elementType) && spatialRank <= 2) {
      result = createNamedPooling<linalg::PoolingNwcMaxOp, linalg::PoolingNhwcMaxOp>(
          rewriter, loc, padded, init, *window);
    } else {
      result = createPoolingGeneric(
          rewriter, loc, padded, *window, ValueRange{init},
          [&](OpBuilder &b, Location nestedLoc, Value element, ValueRange accumulators) {
            return SmallVector<Value>{createMinMax(b, nestedLoc, accumulators[0], element,
                                                   /*max=*/true, unsignedElements)};
          },
          /*channelsLast=*/true)[0];
    }
    rewriter.replaceOp(op, {result, createEmptyTensor(rewriter, loc, indicesType, sizes)});
    return success();
  }
};

/// The number of window taps of output position `output` that fall in [lowest, highest)
/// along one dimension, the window starting at output * stride - padBegin.
Value countTaps(OpBuilder &b, Location loc, Value output, int64_t stride, int64_t dilation,
                int64_t kernel, int64_t padBegin, int64_t lowest, int64_t highest) {
  auto constant = [&](int64_t value) { return arith::ConstantIndexOp::create(b, loc, value); };
  Value start = arith::SubIOp::create(
      b, loc, arith::MulIOp::create(b, loc, output, constant(stride)), constant(padBegin));
  // First tap j with start + j * dilation >= lowest, last with <= highest - 1;
  // ceil(a / d) is written -floor(-a / d).
  Value first = arith::SubIOp::create(
      b, loc, constant(0),
      arith::FloorDivSIOp::create(b, loc, arith::SubIOp::create(b, loc, start, constant(lowest)),
                                  constant(dilation)));
  first = arith::MaxSIOp::create(b, loc, first, constant(0));
  Value last = arith::FloorDivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, constant(highest - 1), start), constant(dilation));
  last = arith::MinSIOp::create(b, loc, last, constant(kernel - 1));
  Value count =
      arith::AddIOp::create(b, loc, arith::SubIOp::create(b, loc, last, first), constant(1));
  return arith::MaxSIOp::create(b, loc, count, constant(0));
}

/// graph.average_pool: a sum pooling (linalg.pooling_nchw_sum / _ncw_ or a generic) of
/// the zero-padded input, divided by the number of taps each window has in the input
/// (or in the input and its declared padding with count_include_pad; the ceil-mode
/// overhang never counts).
struct AveragePoolLowering : OpConversionPattern<graph::AveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::AveragePoolOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    bool channelsLast = op.getChannelsLast();
    if (!resultType || !inputType ||
        failed(checkPoolingShapes(inputType, resultType, channelsLast)) ||
        !isa<FloatType>(inputType.getElementType()))
      return rewriter.notifyMatchFailure(op, "dynamic spatial extents or not floats");
    int64_t spatialRank = inputType.getRank() - 2, firstSpatial = channelsLast ? 1 : 2;
    FailureOr<Window> window = getPoolingWindow(op, spatialRank);
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "attributes do not match the input");
    Type elementType = inputType.getElementType();
    Value zero = createScalarConstant(rewriter, loc, elementType, 0.0);
    ArrayRef<int64_t> inputExtents = inputType.getShape().slice(firstSpatial, spatialRank);
    Value padded = padSpatial(
        rewriter, loc, adaptor.getInput(), window->padsBegin,
        window->highPadding(inputExtents, resultType.getShape().slice(firstSpatial, spatialRank)),
        zero, channelsLast);
    SmallVector<OpFoldResult> sizes =
        getPooledSizes(rewriter, loc, adaptor.getInput(), resultType, channelsLast);
    // Windows of f16/bf16 sum in f32, rounded once after the division.
    Type accumulatorType =
        elementType.getIntOrFloatBitWidth() < 32 ? rewriter.getF32Type() : elementType;
    Value init = createFilledTensor(rewriter, loc, resultType.clone(accumulatorType), sizes,
                                    createScalarConstant(rewriter, loc, accumulatorType, 0.0));
    Value sum;
    if (spatialRank <= 2 && !channelsLast) {
      sum = createNamedPooling<linalg::PoolingNcwSumOp, linalg::PoolingNchwSumOp>(
          rewriter, loc, padded, init, *window);
    } else if (spatialRank <= 2) {
      sum = createNamedPooling<linalg::PoolingNwcSumOp, linalg::PoolingNhwcSumOp>(
          rewriter, loc, padded, init, *window);
    } else {
      sum = createPoolingGeneric(
          rewriter, loc, padded, *window, ValueRange{init},
          [&](OpBuilder &b, Location nestedLoc, Value element, ValueRange accumulators) {
            if (element.getType() != accumulatorType)
              element = arith::ExtFOp::create(b, nestedLoc, accumulatorType, element);
            return SmallVector<Value>{
                arith::AddFOp::create(b, nestedLoc, accumulators[0], element)};
          },
          channelsLast)[0];
    }

    bool includePad = op.getCountIncludePad();
    Value average = createElementwise(
        rewriter, loc, resultType, ValueRange{sum},
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) -> Value {
          Value count = arith::ConstantIndexOp::create(b, nestedLoc, 1);
          for (int64_t i = 0; i < spatialRank; ++i) {
            int64_t lowest = includePad ? -window->padsBegin[i] : 0;
            int64_t highest = inputExtents[i] + (includePad ? window->padsEnd[i] : 0);
            Value taps =
                countTaps(b, nestedLoc, linalg::IndexOp::create(b, nestedLoc, firstSpatial + i),
                          window->strides[i], window->dilations[i], window->kernel[i],
                          window->padsBegin[i], lowest, highest);
            count = arith::MulIOp::create(b, nestedLoc, count, taps);
          }
          Value divisor = indexToFloat(b, nestedLoc, count, accumulatorType);
          Value average = arith::DivFOp::create(b, nestedLoc, args[0], divisor);
          if (accumulatorType != elementType)
            average = arith::TruncFOp::create(b, nestedLoc, elementType, average);
          return average;
        });
    rewriter.replaceOp(op, average);
    return success();
  }
};

/// |x|^p for the Lp poolings, with the common p = 1 and p = 2 without a pow.
Value createAbsPower(OpBuilder &b, Location loc, Value element, int64_t p) {
  Value magnitude = math::AbsFOp::create(b, loc, element);
  if (p == 1)
    return magnitude;
  if (p == 2)
    return arith::MulFOp::create(b, loc, element, element);
  return math::PowFOp::create(b, loc, magnitude,
                              createScalarConstant(b, loc, element.getType(), double(p)));
}

/// sum^(1/p), the end of the Lp poolings.
Value createRootOfSum(OpBuilder &b, Location loc, Value sum, int64_t p) {
  if (p == 1)
    return sum;
  if (p == 2)
    return math::SqrtOp::create(b, loc, sum);
  return math::PowFOp::create(b, loc, sum,
                              createScalarConstant(b, loc, sum.getType(), 1.0 / double(p)));
}

/// graph.lp_pool: a pooling generic summing |x|^p over the zero-padded input, then the
/// p-th root.
struct LpPoolLowering : OpConversionPattern<graph::LpPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::LpPoolOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    bool channelsLast = op.getChannelsLast();
    if (!resultType || !inputType ||
        failed(checkPoolingShapes(inputType, resultType, channelsLast)) ||
        !isa<FloatType>(inputType.getElementType()))
      return rewriter.notifyMatchFailure(op, "dynamic spatial extents or not floats");
    int64_t spatialRank = inputType.getRank() - 2, firstSpatial = channelsLast ? 1 : 2;
    FailureOr<Window> window = getPoolingWindow(op, spatialRank);
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "attributes do not match the input");
    int64_t p = op.getP();
    Value zero = createScalarConstant(rewriter, loc, inputType.getElementType(), 0.0);
    Value padded =
        padSpatial(rewriter, loc, adaptor.getInput(), window->padsBegin,
                   window->highPadding(inputType.getShape().slice(firstSpatial, spatialRank),
                                       resultType.getShape().slice(firstSpatial, spatialRank)),
                   zero, channelsLast);
    Value init = createFilledTensor(
        rewriter, loc, resultType,
        getPooledSizes(rewriter, loc, adaptor.getInput(), resultType, channelsLast), zero);
    Value sum = createPoolingGeneric(
        rewriter, loc, padded, *window, ValueRange{init},
        [&](OpBuilder &b, Location nestedLoc, Value element, ValueRange accumulators) {
          return SmallVector<Value>{arith::AddFOp::create(
              b, nestedLoc, accumulators[0], createAbsPower(b, nestedLoc, element, p))};
        },
        channelsLast)[0];
    rewriter.replaceOp(op,
                       createElementwise(rewriter, loc, resultType, ValueRange{sum},
                                         [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
                                           return createRootOfSum(b, nestedLoc, args[0], p);
                                         }));
    return success();
  }
};

/// The spatial axes [2, rank) of a channels-first tensor.
SmallVector<int64_t> spatialAxes(int64_t rank) {
  SmallVector<int64_t> axes;
  for (int64_t dim = 2; dim < rank; ++dim)
    axes.push_back(dim);
  return axes;
}

/// graph.global_average_pool, global_max_pool and global_lp_pool: a reduction over the
/// spatial dimensions (kept as 1), then the mean's division or the Lp root.
template <typename OpTy> struct GlobalPoolLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;
  LogicalResult matchAndRewrite(OpTy op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*this->getTypeConverter(), op);
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!resultType || !inputType || inputType.getRank() < 2 ||
        resultType.getRank() != inputType.getRank())
      return rewriter.notifyMatchFailure(op, "input is not [N, C, ...]");
    Type elementType = inputType.getElementType();
    bool isMax = std::is_same_v<OpTy, graph::GlobalMaxPoolOp>;
    bool unsignedElements = isUnsigned(op.getInput().getType());
    if (!isMax && !isa<FloatType>(elementType))
      return rewriter.notifyMatchFailure(op, "not floats");
    int64_t p = 1;
    if constexpr (std::is_same_v<OpTy, graph::GlobalLpPoolOp>)
      p = op.getP();
    SmallVector<int64_t> axes = spatialAxes(inputType.getRank());
    // Sums of f16/bf16 accumulate in f32 (a 112x112 plane is 12544 terms), rounded once.
    Type accumulatorType =
        !isMax && elementType.getIntOrFloatBitWidth() < 32 ? rewriter.getF32Type() : elementType;
    Value init = isMax ? createLowest(rewriter, loc, elementType, unsignedElements)
                       : createScalarConstant(rewriter, loc, accumulatorType, 0.0);
    Value reduced = createReduction(
        rewriter, loc, adaptor.getInput(), axes, /*keepDims=*/true, init,
        [&](OpBuilder &b, Location nestedLoc, Value element, Value accumulator) -> Value {
          if (isMax)
            return createMinMax(b, nestedLoc, accumulator, element, /*max=*/true, unsignedElements);
          if (element.getType() != accumulatorType)
            element = arith::ExtFOp::create(b, nestedLoc, accumulatorType, element);
          if (std::is_same_v<OpTy, graph::GlobalLpPoolOp>)
            element = createAbsPower(b, nestedLoc, element, p);
          return arith::AddFOp::create(b, nestedLoc, accumulator, element);
        });
    if (!isMax) {
      // The number of elements per [n, c] slice, static or from the input's extents.
      Value count = createExtentProduct(rewriter, loc, adaptor.getInput(), axes);
      Value countValue = indexToFloat(rewriter, loc, count, accumulatorType);
      reduced = createElementwise(
          rewriter, loc, cast<RankedTensorType>(reduced.getType()).clone(elementType),
          ValueRange{reduced}, [&](OpBuilder &b, Location nestedLoc, ValueRange args) -> Value {
            Value mean = std::is_same_v<OpTy, graph::GlobalLpPoolOp>
                             ? createRootOfSum(b, nestedLoc, args[0], p)
                             : arith::DivFOp::create(b, nestedLoc, args[0], countValue);
            if (mean.getType() != elementType)
              mean = arith::TruncFOp::create(b, nestedLoc, elementType, mean);
            return mean;
          });
    }
    rewriter.replaceOp(op, castToType(rewriter, loc, reduced, resultType));
    return success();
  }
};

/// graph.max_unpool: a zero tensor of the output's size, flattened, into which an scf.for
/// over the flattened input inserts each element at its index (indices outside the
/// output are skipped).
struct MaxUnpoolLowering : OpConversionPattern<graph::MaxUnpoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::MaxUnpoolOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto indicesType = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
    if (!resultType || !resultType.hasStaticShape() || !inputType || !inputType.hasStaticShape() ||
        !indicesType || indicesType.getShape() != inputType.getShape() || inputType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Type elementType = inputType.getElementType();
    auto flatten = [&](Value value) -> Value {
      auto type = cast<RankedTensorType>(value.getType());
      ReassociationIndices all;
      for (int64_t dim = 0; dim < type.getRank(); ++dim)
        all.push_back(dim);
      if (type.getRank() == 1)
        return value;
      return tensor::CollapseShapeOp::create(rewriter, loc, value,
                                             SmallVector<ReassociationIndices>{all});
    };
    Value input = flatten(adaptor.getInput());
    Value indices = flatten(adaptor.getIndices());
    // The indices count in the shape the attributes give (as the ONNX reference does);
    // an output_shape larger than that holds it at its start, the rest zeros.
    SmallVector<int64_t> indexedShape(resultType.getShape());
    ArrayRef<int64_t> kernel = op.getKernelShape(), strides = op.getStrides(), pads = op.getPads();
    int64_t spatialRank = inputType.getRank() - 2;
    if (spatialRank > 0 && static_cast<int64_t>(kernel.size()) == spatialRank &&
        static_cast<int64_t>(strides.size()) == spatialRank &&
        static_cast<int64_t>(pads.size()) == 2 * spatialRank &&
        resultType.getRank() == inputType.getRank()) {
      for (int64_t i = 0; i < spatialRank; ++i) {
        int64_t extent = (inputType.getDimSize(2 + i) - 1) * strides[i] + kernel[i] - pads[i] -
                         pads[spatialRank + i];
        if (extent >= 1 && extent <= resultType.getDimSize(2 + i))
          indexedShape[2 + i] = extent;
      }
    }
    bool reindex = indexedShape != SmallVector<int64_t>(resultType.getShape());
    int64_t indexedSize = 1;
    for (int64_t extent : indexedShape)
      indexedSize *= extent;
    int64_t outputSize = resultType.getNumElements();
    auto flatType = RankedTensorType::get({outputSize}, elementType);
    Value output = createZeros(rewriter, loc, flatType, {rewriter.getIndexAttr(outputSize)});
    Value zeroIndex = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value inputSize = arith::ConstantIndexOp::create(rewriter, loc, inputType.getNumElements());
    Value limit = arith::ConstantIndexOp::create(rewriter, loc, indexedSize);
    auto loop = scf::ForOp::create(
        rewriter, loc, zeroIndex, inputSize, one, ValueRange{output},
        [&](OpBuilder &b, Location nestedLoc, Value i, ValueRange iterArgs) {
          Value target =
              integerToIndex(b, nestedLoc, tensor::ExtractOp::create(b, nestedLoc, indices, i));
          Value inRange = arith::AndIOp::create(
              b, nestedLoc,
              arith::CmpIOp::create(b, nestedLoc, arith::CmpIPredicate::sge, target, zeroIndex),
              arith::CmpIOp::create(b, nestedLoc, arith::CmpIPredicate::slt, target, limit));
          if (reindex) {
            // Coordinates in the indexed shape, then the flat position in the output.
            Value remaining = target, flat = zeroIndex, stride = one;
            for (int64_t dim = resultType.getRank() - 1; dim >= 0; --dim) {
              Value extent = arith::ConstantIndexOp::create(b, nestedLoc, indexedShape[dim]);
              Value coordinate = arith::RemSIOp::create(b, nestedLoc, remaining, extent);
              remaining = arith::DivSIOp::create(b, nestedLoc, remaining, extent);
              flat = arith::AddIOp::create(b, nestedLoc, flat,
                                           arith::MulIOp::create(b, nestedLoc, coordinate, stride));
              stride = arith::MulIOp::create(
                  b, nestedLoc, stride,
                  arith::ConstantIndexOp::create(b, nestedLoc, resultType.getDimSize(dim)));
            }
            target = flat;
          }
          auto ifOp = scf::IfOp::create(
              b, nestedLoc, inRange,
              [&](OpBuilder &thenBuilder, Location thenLoc) {
                Value element = tensor::ExtractOp::create(thenBuilder, thenLoc, input, i);
                Value updated =
                    tensor::InsertOp::create(thenBuilder, thenLoc, element, iterArgs[0], target);
                scf::YieldOp::create(thenBuilder, thenLoc, updated);
              },
              [&](OpBuilder &elseBuilder, Location elseLoc) {
                scf::YieldOp::create(elseBuilder, elseLoc, iterArgs[0]);
              });
          scf::YieldOp::create(b, nestedLoc, ifOp.getResult(0));
        });
    Value result = loop.getResult(0);
    if (resultType.getRank() != 1) {
      ReassociationIndices all;
      for (int64_t dim = 0; dim < resultType.getRank(); ++dim)
        all.push_back(dim);
      result = tensor::ExpandShapeOp::create(rewriter, loc, resultType, result,
                                             SmallVector<ReassociationIndices>{all});
    }
    rewriter.replaceOp(op, castToType(rewriter, loc, result, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

/// An einsum term: one label per dimension; labels are letters, and the ellipsis
/// dimensions get the labels -1, -2, ... counted from the innermost.
using Term = SmallVector<int>;

/// Parses one term of `rank` dimensions (or of unknown rank, -1, for the output).
/// Returns the labels, with ellipsis dimensions numbered from the innermost ellipsis dimension.
FailureOr<Term> parseTerm(StringRef text, int64_t rank, int64_t &ellipsisRank) {
  Term labels;
  size_t ellipsis = text.find("...");
  StringRef before = ellipsis == StringRef::npos ? text : text.take_front(ellipsis);
  StringRef after = ellipsis == StringRef::npos ? StringRef() : text.drop_front(ellipsis + 3);
  for (char letter : before) {
    if (!llvm::isAlpha(letter))
      return failure();
    labels.push_back(letter);
  }
  if (ellipsis != StringRef::npos) {
    int64_t letters = before.size() + after.size();
    int64_t count = rank < 0 ? ellipsisRank : rank - letters;
    if (count < 0)
      return failure();
    if (rank >= 0)
      ellipsisRank = std::max(ellipsisRank, count);
    for (int64_t i = count; i > 0; --i)
      labels.push_back(-static_cast<int>(i));
    for (char letter : after) {
      if (!llvm::isAlpha(letter))
        return failure();
      labels.push_back(letter);
    }
  }
  if (rank >= 0 && static_cast<int64_t>(labels.size()) != rank)
    return failure();
  return labels;
}

/// graph.einsum: one linalg.generic whose loops are the output's labels (parallel) then
/// the summed ones (reduction); each operand's map names its labels' loops (a repeated
/// label reads a diagonal), and broadcast ellipsis dimensions of extent 1 read index 0.
struct EinsumLowering : OpConversionPattern<graph::EinsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::EinsumOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic result");
    std::string equation;
    for (char character : op.getEquation())
      if (!llvm::isSpace(character))
        equation.push_back(character);
    StringRef text(equation);
    auto [inputsText, outputText] = text.split("->");
    bool explicitOutput = text.contains("->");
    SmallVector<StringRef> inputTerms;
    inputsText.split(inputTerms, ',');
    if (inputTerms.size() != adaptor.getInputs().size())
      return rewriter.notifyMatchFailure(op, "equation does not match the operands");

    int64_t ellipsisRank = 0;
    SmallVector<Term> terms;
    SmallVector<RankedTensorType> types;
    for (auto [termText, input] : llvm::zip_equal(inputTerms, adaptor.getInputs())) {
      auto type = dyn_cast<RankedTensorType>(input.getType());
      if (!type || !type.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "dynamic operand");
      FailureOr<Term> term = parseTerm(termText, type.getRank(), ellipsisRank);
      if (failed(term))
        return rewriter.notifyMatchFailure(op, "malformed equation");
      terms.push_back(*term);
      types.push_back(type);
    }
    Term output;
    if (explicitOutput) {
      FailureOr<Term> term = parseTerm(outputText, -1, ellipsisRank);
      if (failed(term))
        return rewriter.notifyMatchFailure(op, "malformed equation");
      output = *term;
    } else {
      for (int64_t i = ellipsisRank; i > 0; --i)
        output.push_back(-static_cast<int>(i));
      std::map<int, int> uses;
      for (const Term &term : terms)
        for (int label : term)
          if (label > 0)
            ++uses[label];
      for (auto [label, count] : uses)
        if (count == 1)
          output.push_back(label);
    }
    if (static_cast<int64_t>(output.size()) != resultType.getRank())
      return rewriter.notifyMatchFailure(op, "result rank does not match the equation");

    // Loops: the output's labels, then the summed ones in order of appearance.
    SmallVector<int> loops;
    for (int label : output) {
      if (llvm::is_contained(loops, label))
        return rewriter.notifyMatchFailure(op, "repeated output label");
      loops.push_back(label);
    }
    for (const Term &term : terms)
      for (int label : term)
        if (!llvm::is_contained(loops, label))
          loops.push_back(label);
    auto loopOf = [&](int label) {
      return static_cast<unsigned>(llvm::find(loops, label) - loops.begin());
    };
    // A label's extent: the largest among its uses (the others are 1 and broadcast).
    std::map<int, int64_t> extents;
    for (auto [term, type] : llvm::zip_equal(terms, types))
      for (auto [dim, label] : llvm::enumerate(term))
        extents[label] = std::max(extents[label], type.getDimSize(dim));
    SmallVector<AffineMap> maps;
    for (auto [term, type] : llvm::zip_equal(terms, types)) {
      SmallVector<AffineExpr> exprs;
      for (auto [dim, label] : llvm::enumerate(term)) {
        int64_t extent = type.getDimSize(dim);
        if (extent != extents[label] && extent != 1)
          return rewriter.notifyMatchFailure(op, "operand extents do not broadcast");
        exprs.push_back(extent == 1 && extents[label] != 1
                            ? getAffineConstantExpr(0, context)
                            : getAffineDimExpr(loopOf(label), context));
      }
      maps.push_back(AffineMap::get(loops.size(), 0, exprs, context));
    }
    // The output's dimensions are the first loops. (getMajorSubMap would return a null map
    // for a scalar output, as in an inner product.)
    SmallVector<AffineExpr> outputExprs;
    for (unsigned dim = 0; dim < output.size(); ++dim)
      outputExprs.push_back(getAffineDimExpr(dim, context));
    maps.push_back(AffineMap::get(loops.size(), 0, outputExprs, context));
    for (auto [dim, label] : llvm::enumerate(output))
      if (extents.count(label) && extents[label] != resultType.getDimSize(dim))
        return rewriter.notifyMatchFailure(op, "result extents do not match the equation");
    // Every loop needs an operand dimension that gives its extent; a label missing from
    // every operand (only in the output) has none.
    for (int label : loops)
      if (!extents.count(label))
        return rewriter.notifyMatchFailure(op, "output label missing from the operands");

    SmallVector<utils::IteratorType> iterators(output.size(), utils::IteratorType::parallel);
    iterators.append(loops.size() - output.size(), utils::IteratorType::reduction);
    SmallVector<OpFoldResult> resultSizes;
    for (int64_t extent : resultType.getShape())
      resultSizes.push_back(rewriter.getIndexAttr(extent));
    Value init = createZeros(rewriter, loc, resultType, resultSizes);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, adaptor.getInputs(), ValueRange{init}, maps,
        iterators, [](OpBuilder &b, Location nestedLoc, ValueRange args) {
          Value product = args[0];
          for (Value factor : args.drop_front().drop_back())
            product = createMul(b, nestedLoc, product, factor);
          linalg::YieldOp::create(b, nestedLoc, createAdd(b, nestedLoc, args.back(), product));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Det
//===----------------------------------------------------------------------===//

/// graph.det: per matrix, an LU decomposition with partial pivoting in scf.for loops on
/// a loop-carried copy of the matrix; the determinant is the product of the pivots,
/// negated once per row swap.
struct DetLowering : OpConversionPattern<graph::DetOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::DetOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!resultType || !inputType || inputType.getRank() < 2 || !inputType.hasStaticShape() ||
        !resultType.hasStaticShape() || !isa<FloatType>(inputType.getElementType()))
      return rewriter.notifyMatchFailure(op, "dynamic shapes or not floats");
    int64_t rank = inputType.getRank();
    int64_t size = inputType.getDimSize(rank - 1);
    if (inputType.getDimSize(rank - 2) != size)
      return rewriter.notifyMatchFailure(op, "matrices are not square");
    Type elementType = inputType.getElementType();
    int64_t batch = 1;
    for (int64_t dim = 0; dim < rank - 2; ++dim)
      batch *= inputType.getDimSize(dim);

    // [batch..., M, M] -> [B, M, M].
    Value input = adaptor.getInput();
    auto batchedType = RankedTensorType::get({batch, size, size}, elementType);
    if (rank == 2)
      input = tensor::ExpandShapeOp::create(rewriter, loc, batchedType, input,
                                            SmallVector<ReassociationIndices>{{0, 1}, {2}});
    else
      input = collapseLeading(rewriter, loc, input, rank - 2);

    auto constant = [&](OpBuilder &b, Location l, int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, l, value);
    };
    Value zero = constant(rewriter, loc, 0), one = constant(rewriter, loc, 1);
    Value sizeValue = constant(rewriter, loc, size);
    Value batchValue = constant(rewriter, loc, batch);
    Value zeroElement = createScalarConstant(rewriter, loc, elementType, 0.0);
    Value oneElement = createScalarConstant(rewriter, loc, elementType, 1.0);
    auto flatType = RankedTensorType::get({batch}, elementType);
    Value results = tensor::EmptyOp::create(rewriter, loc, flatType.getShape(), elementType);
    auto matrixType = RankedTensorType::get({size, size}, elementType);

    auto batchLoop = scf::ForOp::create(
        rewriter, loc, zero, batchValue, one, ValueRange{results},
        [&](OpBuilder &b, Location l, Value matrixIndex, ValueRange batchArgs) {
          SmallVector<OpFoldResult> offsets{matrixIndex, b.getIndexAttr(0), b.getIndexAttr(0)};
          SmallVector<OpFoldResult> sizes{b.getIndexAttr(1), b.getIndexAttr(size),
                                          b.getIndexAttr(size)};
          SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
          Value matrix =
              tensor::ExtractSliceOp::create(b, l, matrixType, input, offsets, sizes, strides);
          auto columnLoop = scf::ForOp::create(
              b, l, zero, sizeValue, one, ValueRange{matrix, oneElement},
              [&](OpBuilder &cb, Location cl, Value k, ValueRange args) {
                Value current = args[0];
                // The pivot: the row at or below k with the largest magnitude in column k.
                auto pivotLoop = scf::ForOp::create(
                    cb, cl, k, sizeValue, one,
                    ValueRange{k, math::AbsFOp::create(cb, cl,
                                                       tensor::ExtractOp::create(
                                                           cb, cl, current, ValueRange{k, k}))},
                    [&](OpBuilder &pb, Location pl, Value row, ValueRange pivotArgs) {
                      Value magnitude = math::AbsFOp::create(
                          pb, pl, tensor::ExtractOp::create(pb, pl, current, ValueRange{row, k}));
                      Value larger = arith::CmpFOp::create(pb, pl, arith::CmpFPredicate::OGT,
                                                           magnitude, pivotArgs[1]);
                      scf::YieldOp::create(
                          pb, pl,
                          ValueRange{
                              arith::SelectOp::create(pb, pl, larger, row, pivotArgs[0]),
                              arith::SelectOp::create(pb, pl, larger, magnitude, pivotArgs[1])});
                    });
                Value pivotRow = pivotLoop.getResult(0);
                // Swap rows k and pivotRow (a no-op when they are the same).
                auto swapLoop = scf::ForOp::create(
                    cb, cl, zero, sizeValue, one, ValueRange{current},
                    [&](OpBuilder &sb, Location sl, Value column, ValueRange swapArgs) {
                      Value rowK =
                          tensor::ExtractOp::create(sb, sl, swapArgs[0], ValueRange{k, column});
                      Value rowP = tensor::ExtractOp::create(sb, sl, swapArgs[0],
                                                             ValueRange{pivotRow, column});
                      Value swapped = tensor::InsertOp::create(sb, sl, rowP, swapArgs[0],
                                                               ValueRange{k, column});
                      swapped = tensor::InsertOp::create(sb, sl, rowK, swapped,
                                                         ValueRange{pivotRow, column});
                      scf::YieldOp::create(sb, sl, swapped);
                    });
                current = swapLoop.getResult(0);
                Value swappedRows =
                    arith::CmpIOp::create(cb, cl, arith::CmpIPredicate::ne, pivotRow, k);
                Value determinant = arith::SelectOp::create(
                    cb, cl, swappedRows, arith::NegFOp::create(cb, cl, args[1]), args[1]);
                Value pivot = tensor::ExtractOp::create(cb, cl, current, ValueRange{k, k});
                determinant = arith::MulFOp::create(cb, cl, determinant, pivot);
                // Eliminate below the pivot; a zero pivot (a singular matrix, the
                // determinant already 0) eliminates nothing rather than dividing by 0.
                Value zeroPivot =
                    arith::CmpFOp::create(cb, cl, arith::CmpFPredicate::OEQ, pivot, zeroElement);
                Value safePivot = arith::SelectOp::create(cb, cl, zeroPivot, oneElement, pivot);
                Value next = arith::AddIOp::create(cb, cl, k, one);
                auto rowLoop = scf::ForOp::create(
                    cb, cl, next, sizeValue, one, ValueRange{current},
                    [&](OpBuilder &rb, Location rl, Value row, ValueRange rowArgs) {
                      Value below =
                          tensor::ExtractOp::create(rb, rl, rowArgs[0], ValueRange{row, k});
                      Value factor = arith::DivFOp::create(rb, rl, below, safePivot);
                      factor = arith::SelectOp::create(rb, rl, zeroPivot, zeroElement, factor);
                      auto updateLoop = scf::ForOp::create(
                          rb, rl, next, sizeValue, one, ValueRange{rowArgs[0]},
                          [&](OpBuilder &ub, Location ul, Value column, ValueRange updateArgs) {
                            Value target = tensor::ExtractOp::create(ub, ul, updateArgs[0],
                                                                     ValueRange{row, column});
                            Value source = tensor::ExtractOp::create(ub, ul, updateArgs[0],
                                                                     ValueRange{k, column});
                            Value updated = arith::SubFOp::create(
                                ub, ul, target, arith::MulFOp::create(ub, ul, factor, source));
                            scf::YieldOp::create(ub, ul,
                                                 tensor::InsertOp::create(ub, ul, updated,
                                                                          updateArgs[0],
                                                                          ValueRange{row, column})
                                                     .getResult());
                          });
                      scf::YieldOp::create(rb, rl, updateLoop.getResult(0));
                    });
                scf::YieldOp::create(cb, cl, ValueRange{rowLoop.getResult(0), determinant});
              });
          Value updated = tensor::InsertOp::create(b, l, columnLoop.getResult(1), batchArgs[0],
                                                   ValueRange{matrixIndex});
          scf::YieldOp::create(b, l, updated);
        });
    Value result = batchLoop.getResult(0);
    // [B] -> [batch...] (a 0-D tensor for a single matrix).
    SmallVector<ReassociationIndices> groups;
    if (resultType.getRank() > 0) {
      groups.emplace_back();
      for (int64_t dim = 0; dim < resultType.getRank(); ++dim)
        groups[0].push_back(dim);
    }
    if (resultType.getRank() == 0)
      result = tensor::CollapseShapeOp::create(rewriter, loc, resultType, result, groups);
    else if (resultType.getRank() > 1)
      result = tensor::ExpandShapeOp::create(rewriter, loc, resultType, result, groups);
    rewriter.replaceOp(op, castToType(rewriter, loc, result, resultType));
    return success();
  }
};

} // namespace

void populateNNLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  populateNNNormalizationLowering(converter, patterns);
  populateNNSamplingLowering(converter, patterns);
  patterns
      .add<AttentionLowering, MatMulLowering, GemmLowering, ConvLowering, ConvTransposeLowering,
           MaxPoolLowering, AveragePoolLowering, LpPoolLowering,
           GlobalPoolLowering<graph::GlobalAveragePoolOp>,
           GlobalPoolLowering<graph::GlobalMaxPoolOp>, GlobalPoolLowering<graph::GlobalLpPoolOp>,
           MaxUnpoolLowering, EinsumLowering, DetLowering>(converter, patterns.getContext());
}

} // namespace kiln::lowering
