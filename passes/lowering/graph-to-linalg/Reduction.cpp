//===- Reduction.cpp - Graph to linalg: reductions, arg-max/min, cumulative sums and top-k ===//
//
// - Reduce*: one reducing linalg.generic (createReduction) whose body applies the op's
//   per-element function (|x|, x * x, ...) and combines; a final elementwise generic
//   divides, takes the root or the logarithm. LogSumExp first reduces the maximum and
//   sums exp(x - max), so large inputs do not overflow. Sums of f16/bf16 accumulate in
//   f32.
// - ArgMax/ArgMin: one reducing generic with two outputs, the best value and its index.
// - CumSum: an scf.for along the axis carrying the running sum of one slice.
// - TopK: the axis is moved last and the other dimensions collapsed; each row keeps its
//   k best elements sorted in the output while it is scanned (insertion, which rejects
//   most elements with one comparison against the current k-th).
//
// Axes that are not constants (ONNX test models pass them as inputs) are taken from the
// static result type when it determines them; otherwise, and for CumSum's axis, the
// lowering of every possible axis set is emitted under an scf.index_switch on the
// run-time value.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;

namespace kiln::lowering {
namespace {

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

/// Whether `lhs` is strictly better than `rhs` (larger when `largest`), or at least as good
/// when `orEqual`.
Value compareBetter(OpBuilder &b, Location loc, Value lhs, Value rhs, bool largest, bool orEqual,
                    bool isUnsignedType) {
  if (isa<FloatType>(lhs.getType())) {
    arith::CmpFPredicate predicate =
        largest ? (orEqual ? arith::CmpFPredicate::OGE : arith::CmpFPredicate::OGT)
                : (orEqual ? arith::CmpFPredicate::OLE : arith::CmpFPredicate::OLT);
    return arith::CmpFOp::create(b, loc, predicate, lhs, rhs);
  }
  arith::CmpIPredicate predicate;
  if (isUnsignedType)
    predicate = largest ? (orEqual ? arith::CmpIPredicate::uge : arith::CmpIPredicate::ugt)
                        : (orEqual ? arith::CmpIPredicate::ule : arith::CmpIPredicate::ult);
  else
    predicate = largest ? (orEqual ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sgt)
                        : (orEqual ? arith::CmpIPredicate::sle : arith::CmpIPredicate::slt);
  return arith::CmpIOp::create(b, loc, predicate, lhs, rhs);
}

/// A run-time axis (an element of an integer tensor) as a non-negative index.
Value normalizeRuntimeAxis(OpBuilder &b, Location loc, Value axis, int64_t rank) {
  return wrapNegativeIndex(b, loc, integerToIndex(b, loc, axis),
                           arith::ConstantIndexOp::create(b, loc, rank));
}

//===----------------------------------------------------------------------===//
// Axes
//===----------------------------------------------------------------------===//

/// The dimensions of a rank-`rank` tensor that `axes` name, normalised, sorted and unique;
/// failure when one is out of range.
FailureOr<SmallVector<int64_t>> normalizeAxes(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> normalized;
  for (int64_t axis : axes) {
    FailureOr<int64_t> dim = normalizeAxis(axis, rank);
    if (failed(dim))
      return failure();
    normalized.push_back(*dim);
  }
  llvm::sort(normalized);
  normalized.erase(llvm::unique(normalized), normalized.end());
  return normalized;
}

/// The axis sets of a reduction of `inputType` into `resultType` whose axes are only known
/// at run time (`count` of them). Reducing a dimension of extent 1 changes no value, so
/// sets that differ only there are one: each set holds the dimensions of extent 1 that
/// are dropped plus the others that the type shows reduced. Empty when the types admit none.
SmallVector<SmallVector<int64_t>> getCandidateAxes(RankedTensorType inputType,
                                                   RankedTensorType resultType, bool keepDims,
                                                   int64_t count) {
  int64_t rank = inputType.getRank();
  SmallVector<SmallVector<int64_t>> candidates;
  if (keepDims) {
    if (resultType.getRank() != rank)
      return candidates;
    SmallVector<int64_t> axes;
    for (int64_t dim = 0; dim < rank; ++dim) {
      int64_t in = inputType.getDimSize(dim), out = resultType.getDimSize(dim);
      if (in == 1 || (out == 1 && in != 1))
        axes.push_back(dim);
      else if (in != out && !ShapedType::isDynamic(in) && !ShapedType::isDynamic(out))
        return candidates;
    }
    candidates.push_back(axes);
    return candidates;
  }
  int64_t reducedCount = rank - resultType.getRank();
  if (reducedCount < 0 || reducedCount > count || rank > 16)
    return candidates;
  // Every choice of `reducedCount` dimensions whose removal leaves the result's shape.
  for (uint32_t mask = 0; mask < (1u << rank); ++mask) {
    if (llvm::popcount(mask) != reducedCount)
      continue;
    SmallVector<int64_t> kept, axes;
    for (int64_t dim = 0; dim < rank; ++dim)
      ((mask >> dim) & 1 ? axes : kept).push_back(dim);
    bool matches = true;
    for (auto [index, dim] : llvm::enumerate(kept)) {
      int64_t in = inputType.getDimSize(dim), out = resultType.getDimSize(index);
      if (in != out && !ShapedType::isDynamic(in) && !ShapedType::isDynamic(out))
        matches = false;
    }
    if (!matches)
      continue;
    // Sets that differ only in unit dimensions compute the same values.
    auto nonUnit = [&](ArrayRef<int64_t> set) {
      SmallVector<int64_t> dims;
      for (int64_t dim : set)
        if (inputType.getDimSize(dim) != 1)
          dims.push_back(dim);
      return dims;
    };
    if (llvm::none_of(candidates,
                      [&](ArrayRef<int64_t> other) { return nonUnit(other) == nonUnit(axes); }))
      candidates.push_back(axes);
  }
  return candidates;
}

/// The bit mask of the run-time axes `axesTensor` (1-D, `count` entries) restricted to
/// the dimensions of `inputType` whose extent is not 1.
Value createRuntimeAxesMask(OpBuilder &b, Location loc, Value axesTensor, int64_t count,
                            RankedTensorType inputType) {
  int64_t rank = inputType.getRank();
  uint64_t nonUnitMask = 0;
  for (int64_t dim = 0; dim < rank; ++dim)
    if (inputType.getDimSize(dim) != 1)
      nonUnitMask |= uint64_t(1) << dim;
  Value mask = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t i = 0; i < count; ++i) {
    Value position = arith::ConstantIndexOp::create(b, loc, i);
    Value axis = tensor::ExtractOp::create(b, loc, axesTensor, ValueRange{position});
    Value dim = normalizeRuntimeAxis(b, loc, axis, rank);
    Value bit = arith::ShLIOp::create(b, loc, one, dim);
    mask = arith::OrIOp::create(b, loc, mask, bit);
  }
  Value allowed = arith::ConstantIndexOp::create(b, loc, static_cast<int64_t>(nonUnitMask));
  return arith::AndIOp::create(b, loc, mask, allowed);
}

//===----------------------------------------------------------------------===//
// Reduce*
//===----------------------------------------------------------------------===//

enum class ReduceKind { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

/// Lowers a reduction over known `axes` (normalised; never empty unless the input is 0-D).
FailureOr<Value> lowerReduction(OpBuilder &b, Location loc, ReduceKind kind, Value input,
                                Type graphElementType, ArrayRef<int64_t> axes, bool keepDims) {
  Type elementType = cast<RankedTensorType>(input.getType()).getElementType();
  bool isFloat = isa<FloatType>(elementType);
  bool isUnsignedType = isUnsigned(graphElementType) || elementType.isInteger(1);
  if (elementType.isInteger(1) && kind != ReduceKind::Max && kind != ReduceKind::Min)
    return failure();
  if (!isFloat && kind == ReduceKind::LogSumExp)
    return failure();

  if (kind == ReduceKind::Max || kind == ReduceKind::Min) {
    bool largest = kind == ReduceKind::Max;
    Value init = createExtremeConstant(b, loc, elementType, !largest, isUnsignedType);
    return createReduction(b, loc, input, axes, keepDims, init,
                           [&](OpBuilder &nb, Location nl, Value element, Value acc) -> Value {
                             return createMinMax(nb, nl, element, acc, largest, isUnsignedType);
                           });
  }

  // Sums and products of narrow floats accumulate in f32.
  Type accType = elementType;
  if (isFloat && elementType.getIntOrFloatBitWidth() < 32)
    accType = b.getF32Type();
  auto widen = [&](OpBuilder &nb, Location nl, Value element) -> Value {
    if (accType == elementType)
      return element;
    return arith::ExtFOp::create(nb, nl, accType, element);
  };
  auto add = [&](OpBuilder &nb, Location nl, Value lhs, Value rhs) -> Value {
    if (isFloat)
      return arith::AddFOp::create(nb, nl, lhs, rhs);
    return arith::AddIOp::create(nb, nl, lhs, rhs);
  };
  auto mul = [&](OpBuilder &nb, Location nl, Value lhs, Value rhs) -> Value {
    if (isFloat)
      return arith::MulFOp::create(nb, nl, lhs, rhs);
    return arith::MulIOp::create(nb, nl, lhs, rhs);
  };

  // Sums are reduced keeping the reduced dimensions (so the LogSumExp shift lines up);
  // the final per-element step drops them when `keepDims` is false.
  Value summed;
  Value shift; // LogSumExp: the maximum subtracted before exp (keepdims shape).
  if (kind == ReduceKind::LogSumExp) {
    Value maximum =
        createReduction(b, loc, input, axes, /*keepDims=*/true,
                        createExtremeConstant(b, loc, elementType, false, false),
                        [&](OpBuilder &nb, Location nl, Value element, Value acc) {
                          return arith::MaximumFOp::create(nb, nl, element, acc).getResult();
                        });
    // An all -inf (or empty) slice has no finite maximum: shift by 0 instead, so the
    // result is log(0) = -inf rather than NaN.
    auto maximumType = cast<RankedTensorType>(maximum.getType());
    shift =
        createElementwise(b, loc, maximumType.clone(accType), ValueRange{maximum},
                          [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                            Value value = widen(nb, nl, args[0]);
                            Value magnitude = math::AbsFOp::create(nb, nl, value);
                            Value infinity = createExtremeConstant(nb, nl, accType, true, false);
                            Value finite = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OLT,
                                                                 magnitude, infinity);
                            Value zero = createScalarConstant(nb, nl, accType, 0.0);
                            return arith::SelectOp::create(nb, nl, finite, value, zero);
                          });
    summed = createReductionWithStats(
        b, loc, input, axes, /*keepDims=*/true, ValueRange{shift},
        createScalarConstant(b, loc, accType, 0),
        [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          Value shifted = arith::SubFOp::create(nb, nl, widen(nb, nl, args[0]), args[1]);
          return arith::AddFOp::create(nb, nl, math::ExpOp::create(nb, nl, shifted), args[2]);
        });
  } else {
    double initValue = kind == ReduceKind::Prod ? 1.0 : 0.0;
    summed = createReduction(b, loc, input, axes, /*keepDims=*/true,
                             createScalarConstant(b, loc, accType, initValue),
                             [&](OpBuilder &nb, Location nl, Value element, Value acc) -> Value {
                               Value value = widen(nb, nl, element);
                               switch (kind) {
                               case ReduceKind::Prod:
                                 return mul(nb, nl, value, acc);
                               case ReduceKind::L1:
                                 if (isFloat)
                                   value = math::AbsFOp::create(nb, nl, value);
                                 else if (!isUnsignedType)
                                   value = math::AbsIOp::create(nb, nl, value);
                                 return add(nb, nl, value, acc);
                               case ReduceKind::L2:
                               case ReduceKind::SumSquare:
                                 return add(nb, nl, mul(nb, nl, value, value), acc);
                               default:
                                 return add(nb, nl, value, acc);
                               }
                             });
  }

  Value count;
  if (kind == ReduceKind::Mean) {
    Value extent = createExtentProduct(b, loc, input, axes);
    Value count64 = indexToInteger(b, loc, extent, b.getI64Type());
    if (isFloat)
      count = arith::UIToFPOp::create(b, loc, accType, count64);
    else if (accType.getIntOrFloatBitWidth() < 64)
      count = arith::TruncIOp::create(b, loc, accType, count64);
    else
      count = count64;
  }

  // The final per-element step, back in the element type, over the keepdims-shaped sums.
  MLIRContext *context = b.getContext();
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  auto [shape, sizes] = getReducedShape(b, loc, input, axes, keepDims);
  Value init = createEmptyTensor(b, loc, RankedTensorType::get(shape, elementType), sizes);
  SmallVector<Value> operands{summed};
  if (shift)
    operands.push_back(shift);
  SmallVector<AffineMap> maps(operands.size(), b.getMultiDimIdentityMap(rank));
  maps.push_back(getKeptMap(context, rank, axes, keepDims));
  SmallVector<utils::IteratorType> iterators;
  for (int64_t dim = 0; dim < rank; ++dim)
    iterators.push_back(llvm::is_contained(axes, dim) ? utils::IteratorType::reduction
                                                      : utils::IteratorType::parallel);
  Type f64 = b.getF64Type();
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, operands, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value value = args[0];
        // Integer roots and logarithms are taken in f64 and truncated, as ONNX's reference.
        auto viaFloat = [&](auto compute) -> Value {
          if (isFloat)
            return compute(value);
          Value wide = convertScalar(nb, nl, value, graphElementType, f64);
          return convertScalar(nb, nl, compute(wide), f64, graphElementType);
        };
        switch (kind) {
        case ReduceKind::Mean:
          if (isFloat)
            value = arith::DivFOp::create(nb, nl, value, count);
          else if (isUnsignedType)
            value = arith::DivUIOp::create(nb, nl, value, count);
          else
            value = arith::DivSIOp::create(nb, nl, value, count);
          break;
        case ReduceKind::L2:
          value = viaFloat([&](Value v) { return math::SqrtOp::create(nb, nl, v).getResult(); });
          break;
        case ReduceKind::LogSum:
          value = viaFloat([&](Value v) { return math::LogOp::create(nb, nl, v).getResult(); });
          break;
        case ReduceKind::LogSumExp:
          value = arith::AddFOp::create(nb, nl, math::LogOp::create(nb, nl, value), args[1]);
          break;
        default:
          break;
        }
        if (isFloat && value.getType() != elementType)
          value = arith::TruncFOp::create(nb, nl, elementType, value);
        linalg::YieldOp::create(nb, nl, value);
      });
  return generic.getResult(0);
}

template <typename OpTy, ReduceKind Kind> struct ReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult matchAndRewrite(OpTy op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*this->getTypeConverter(), op);
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getData().getType());
    if (!resultType || !inputType)
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    int64_t rank = inputType.getRank();
    Type graphElementType = getElementTypeOrSelf(op.getData().getType());
    bool keepDims = op.getKeepdims();

    // The axes: none, constant, or known at run time only.
    std::optional<SmallVector<int64_t>> axes;
    SmallVector<SmallVector<int64_t>> candidates;
    int64_t runtimeCount = 0;
    if (!op.getAxes()) {
      axes.emplace();
    } else if (auto constant = graph::getConstantInts(op.getAxes())) {
      axes = *constant;
    } else {
      auto axesType = dyn_cast<RankedTensorType>(adaptor.getAxes().getType());
      if (!axesType || !axesType.hasStaticShape() || axesType.getRank() != 1)
        return rewriter.notifyMatchFailure(op, "axes of unknown length");
      runtimeCount = axesType.getNumElements();
      if (runtimeCount == 0)
        axes.emplace();
      else
        candidates = getCandidateAxes(inputType, resultType, keepDims, runtimeCount);
    }

    if (axes && axes->empty()) {
      if (op.getNoopWithEmptyAxes()) {
        if (inputType.getRank() != resultType.getRank())
          return rewriter.notifyMatchFailure(op, "no-op result of another shape");
        rewriter.replaceOp(op, castToType(rewriter, loc, adaptor.getData(), resultType));
        return success();
      }
      axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    }

    auto lower = [&](OpBuilder &b, Location nl, ArrayRef<int64_t> dims) -> FailureOr<Value> {
      FailureOr<Value> reduced =
          lowerReduction(b, nl, Kind, adaptor.getData(), graphElementType, dims, keepDims);
      if (failed(reduced))
        return failure();
      auto reducedType = cast<RankedTensorType>(reduced->getType());
      if (reducedType.getRank() != resultType.getRank())
        return failure();
      return castToType(b, nl, *reduced, resultType);
    };

    if (axes) {
      FailureOr<SmallVector<int64_t>> normalized = normalizeAxes(*axes, rank);
      if (failed(normalized))
        return rewriter.notifyMatchFailure(op, "axis out of range");
      FailureOr<Value> result = lower(rewriter, loc, *normalized);
      if (failed(result))
        return rewriter.notifyMatchFailure(op, "element type or result shape not handled");
      rewriter.replaceOp(op, *result);
      return success();
    }

    if (candidates.empty())
      return rewriter.notifyMatchFailure(op, "run-time axes that no axis set fits");
    if (candidates.size() == 1) {
      FailureOr<Value> result = lower(rewriter, loc, candidates.front());
      if (failed(result))
        return rewriter.notifyMatchFailure(op, "element type or result shape not handled");
      rewriter.replaceOp(op, *result);
      return success();
    }
    // Several axis sets fit the types: choose at run time by the mask of non-unit axes.
    SmallVector<int64_t> caseMasks;
    for (ArrayRef<int64_t> candidate : candidates) {
      int64_t mask = 0;
      for (int64_t dim : candidate)
        if (inputType.getDimSize(dim) != 1)
          mask |= int64_t(1) << dim;
      caseMasks.push_back(mask);
    }
    Value selector =
        createRuntimeAxesMask(rewriter, loc, adaptor.getAxes(), runtimeCount, inputType);
    bool handled = true;
    Value result = createSwitch(rewriter, loc, selector, caseMasks, resultType,
                                [&](OpBuilder &b, Location nl, size_t index) -> Value {
                                  FailureOr<Value> lowered = lower(b, nl, candidates[index]);
                                  if (succeeded(lowered))
                                    return *lowered;
                                  handled = false;
                                  return createEmptyTensor(b, nl, resultType,
                                                           getSizes(b, nl, adaptor.getData()));
                                });
    if (!handled) {
      rewriter.eraseOp(result.getDefiningOp());
      return rewriter.notifyMatchFailure(op, "element type not handled");
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// ArgMax, ArgMin
//===----------------------------------------------------------------------===//

template <typename OpTy, bool Largest> struct ArgReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult matchAndRewrite(OpTy op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*this->getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!resultType || !inputType || inputType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "unranked or 0-D operand, or unranked result");
    int64_t rank = inputType.getRank();
    FailureOr<int64_t> normalizedAxis = normalizeAxis(op.getAxis(), rank);
    if (failed(normalizedAxis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    int64_t axis = *normalizedAxis;
    bool keepDims = op.getKeepdims();
    bool selectLast = op.getSelectLastIndex();
    Type elementType = inputType.getElementType();
    bool isUnsignedType = isUnsigned(op.getInput().getType()) || elementType.isInteger(1);
    if (!isa<FloatType, IntegerType>(elementType))
      return rewriter.notifyMatchFailure(op, "element type not handled");

    MLIRContext *context = rewriter.getContext();
    auto [shape, sizes] = getReducedShape(rewriter, loc, input, {axis}, keepDims);
    Type indexType = rewriter.getI64Type();
    Value bestValues = createFilledTensor(
        rewriter, loc, RankedTensorType::get(shape, elementType), sizes,
        createExtremeConstant(rewriter, loc, elementType, !Largest, isUnsignedType));
    Value bestIndices =
        createFilledTensor(rewriter, loc, RankedTensorType::get(shape, indexType), sizes,
                           createScalarConstant(rewriter, loc, indexType, 0));
    AffineMap resultMap = getKeptMap(context, rank, {axis}, keepDims);
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators[axis] = utils::IteratorType::reduction;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{bestValues.getType(), bestIndices.getType()}, ValueRange{input},
        ValueRange{bestValues, bestIndices},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank), resultMap, resultMap},
        iterators, [&](OpBuilder &b, Location nl, ValueRange args) {
          // Scanning in index order, a strictly better element replaces the best (first
          // index wins ties); with select_last_index an equal one does too.
          Value index = indexToInteger(b, nl, linalg::IndexOp::create(b, nl, axis), indexType);
          Value better =
              compareBetter(b, nl, args[0], args[1], Largest, selectLast, isUnsignedType);
          // The first element always counts, so a slice of only -inf (or NaN) gives 0.
          Value zero = arith::ConstantIntOp::create(b, nl, indexType, 0);
          Value first = arith::CmpIOp::create(b, nl, arith::CmpIPredicate::eq, index, zero);
          Value take = arith::OrIOp::create(b, nl, better, first);
          Value value = arith::SelectOp::create(b, nl, take, args[0], args[1]);
          Value position = arith::SelectOp::create(b, nl, take, index, args[2]);
          linalg::YieldOp::create(b, nl, ValueRange{value, position});
        });
    Value result = generic.getResult(1);
    if (cast<RankedTensorType>(result.getType()).getRank() != resultType.getRank())
      return rewriter.notifyMatchFailure(op, "result rank does not match keepdims");
    rewriter.replaceOp(op, castToType(rewriter, loc, result, resultType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// CumSum
//===----------------------------------------------------------------------===//

/// The running sums of `input` along `axis`: a loop along the axis adds each slice to the
/// carried sum of the previous ones and stores it (or, exclusive, the sum before it).
Value lowerCumSum(OpBuilder &b, Location loc, Value input, int64_t axis, bool exclusive,
                  bool reverse) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  Type elementType = inputType.getElementType();
  bool isFloat = isa<FloatType>(elementType);
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, input);
  SmallVector<OpFoldResult> sliceSizes = sizes;
  sliceSizes[axis] = b.getIndexAttr(1);
  SmallVector<int64_t> sliceShape(inputType.getShape());
  sliceShape[axis] = 1;
  auto sliceType = RankedTensorType::get(sliceShape, elementType);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));

  Value zero = createScalarConstant(b, loc, elementType, 0.0);
  Value initialSum = createFilledTensor(b, loc, sliceType, sliceSizes, zero);
  Value output = createEmptyTensor(b, loc, inputType, sizes);
  Value extent = getValueOrCreateConstantIndexOp(b, loc, sizes[axis]);
  Value lower = arith::ConstantIndexOp::create(b, loc, 0);
  Value step = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lower, extent, step, ValueRange{initialSum, output},
      [&](OpBuilder &nb, Location nl, Value iv, ValueRange carried) {
        Value position = iv;
        if (reverse) {
          Value last = arith::SubIOp::create(nb, nl, extent, step);
          position = arith::SubIOp::create(nb, nl, last, iv);
        }
        SmallVector<OpFoldResult> offsets(rank, nb.getIndexAttr(0));
        offsets[axis] = position;
        Value slice =
            tensor::ExtractSliceOp::create(nb, nl, sliceType, input, offsets, sliceSizes, strides);
        // The running sum is updated in place (its generic writes into the carried
        // tensor) so that bufferization keeps one buffer across iterations; exclusive sums
        // store it before the update.
        Value updated = carried[1];
        if (exclusive)
          updated = tensor::InsertSliceOp::create(nb, nl, carried[0], updated, offsets, sliceSizes,
                                                  strides);
        SmallVector<AffineMap> maps(2, nb.getMultiDimIdentityMap(rank));
        SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
        auto add = linalg::GenericOp::create(
            nb, nl, TypeRange{sliceType}, ValueRange{slice}, ValueRange{carried[0]}, maps,
            iterators, [&](OpBuilder &eb, Location el, ValueRange args) {
              Value added = isFloat ? arith::AddFOp::create(eb, el, args[0], args[1]).getResult()
                                    : arith::AddIOp::create(eb, el, args[0], args[1]).getResult();
              linalg::YieldOp::create(eb, el, added);
            });
        Value sum = add.getResult(0);
        if (!exclusive)
          updated =
              tensor::InsertSliceOp::create(nb, nl, sum, updated, offsets, sliceSizes, strides);
        scf::YieldOp::create(nb, nl, ValueRange{sum, updated});
      });
  return loop.getResult(1);
}

struct CumSumLowering : OpConversionPattern<graph::CumSumOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::CumSumOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!resultType || !inputType || inputType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "unranked or 0-D operand, or unranked result");
    if (!isa<FloatType, IntegerType>(inputType.getElementType()) ||
        inputType.getElementType().isInteger(1))
      return rewriter.notifyMatchFailure(op, "element type not handled");
    int64_t rank = inputType.getRank();
    bool exclusive = op.getExclusive(), reverse = op.getReverse();

    if (auto constant = graph::getConstantInts(op.getAxis())) {
      if (constant->size() != 1 || (*constant)[0] < -rank || (*constant)[0] >= rank)
        return rewriter.notifyMatchFailure(op, "axis out of range");
      int64_t axis = (*constant)[0] < 0 ? (*constant)[0] + rank : (*constant)[0];
      Value result = lowerCumSum(rewriter, loc, input, axis, exclusive, reverse);
      rewriter.replaceOp(op, castToType(rewriter, loc, result, resultType));
      return success();
    }
    // An axis known only at run time: one loop per possible axis, chosen by its value.
    auto axisType = dyn_cast<RankedTensorType>(adaptor.getAxis().getType());
    if (!axisType || axisType.getRank() > 1 || !axisType.hasStaticShape() ||
        axisType.getNumElements() != 1 || !isa<IntegerType>(axisType.getElementType()))
      return rewriter.notifyMatchFailure(op, "axis is not a one-element integer tensor");
    Value axisValue = extractScalar(rewriter, loc, adaptor.getAxis());
    Value selector = normalizeRuntimeAxis(rewriter, loc, axisValue, rank);
    SmallVector<int64_t> cases = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    Value result = createSwitch(rewriter, loc, selector, cases, resultType,
                                [&](OpBuilder &b, Location nl, size_t axis) {
                                  return lowerCumSum(b, nl, input, axis, exclusive, reverse);
                                });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

/// The k best elements of each row of `rows` ([M, N]) and their i64 column indices, both
/// [M, k] and sorted best first (ties: lower index first). Each row is scanned once; an
/// element better than the current k-th is inserted into the kept, sorted prefix. `k` is
/// a constant or a value computed at run time (at most the row's length).
std::pair<Value, Value> createRowTopK(OpBuilder &b, Location loc, Value rows, OpFoldResult k,
                                      bool largest, bool isUnsignedType) {
  auto rowsType = cast<RankedTensorType>(rows.getType());
  Type elementType = rowsType.getElementType();
  Type indexType = b.getI64Type();
  SmallVector<OpFoldResult> rowSizes = getSizes(b, loc, rows);
  std::optional<int64_t> staticK = getConstantIntValue(k);
  SmallVector<OpFoldResult> resultSizes{rowSizes[0], k};
  SmallVector<int64_t> resultShape{rowsType.getDimSize(0), staticK.value_or(ShapedType::kDynamic)};
  Value values =
      createFilledTensor(b, loc, RankedTensorType::get(resultShape, elementType), resultSizes,
                         createExtremeConstant(b, loc, elementType, !largest, isUnsignedType));
  Value indices = createFilledTensor(b, loc, RankedTensorType::get(resultShape, indexType),
                                     resultSizes, createScalarConstant(b, loc, indexType, 0));
  if (staticK == 0)
    return {values, indices};
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value kValue = getValueOrCreateConstantIndexOp(b, loc, k);
  Value lastSlot = arith::SubIOp::create(b, loc, arith::MaxUIOp::create(b, loc, kValue, one), one);
  Value rowCount = getValueOrCreateConstantIndexOp(b, loc, rowSizes[0]);
  Value columnCount = getValueOrCreateConstantIndexOp(b, loc, rowSizes[1]);
  // A k of 0 computed at run time keeps nothing: no column is scanned.
  if (!staticK)
    columnCount = arith::SelectOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kValue, zero), zero,
        columnCount);

  auto rowLoop = scf::ForOp::create(
      b, loc, zero, rowCount, one, ValueRange{values, indices},
      [&](OpBuilder &rb, Location rl, Value row, ValueRange rowCarried) {
        auto columnLoop = scf::ForOp::create(
            rb, rl, zero, columnCount, one, ValueRange{rowCarried[0], rowCarried[1], zero},
            [&](OpBuilder &cb, Location cl, Value column, ValueRange carried) {
              Value keptValues = carried[0], keptIndices = carried[1], kept = carried[2];
              Value element = tensor::ExtractOp::create(cb, cl, rows, ValueRange{row, column});
              Value worst =
                  tensor::ExtractOp::create(cb, cl, keptValues, ValueRange{row, lastSlot});
              Value notFull =
                  arith::CmpIOp::create(cb, cl, arith::CmpIPredicate::ult, kept, kValue);
              Value beatsWorst =
                  compareBetter(cb, cl, element, worst, largest, false, isUnsignedType);
              Value accept = arith::OrIOp::create(cb, cl, notFull, beatsWorst);
              auto acceptBody = [&](OpBuilder &tb, Location tl) {
                // Shift worse kept elements one slot down, from the free (or the
                // dropped last) slot up, then store the element in the gap.
                Value start = arith::MinUIOp::create(tb, tl, kept, lastSlot);
                auto whileOp = scf::WhileOp::create(
                    tb, tl, TypeRange{start.getType(), keptValues.getType(), keptIndices.getType()},
                    ValueRange{start, keptValues, keptIndices},
                    [&](OpBuilder &wb, Location wl, ValueRange state) {
                      Value positive =
                          arith::CmpIOp::create(wb, wl, arith::CmpIPredicate::ugt, state[0], zero);
                      Value previous = arith::SubIOp::create(
                          wb, wl, arith::MaxUIOp::create(wb, wl, state[0], one), one);
                      Value previousValue =
                          tensor::ExtractOp::create(wb, wl, state[1], ValueRange{row, previous});
                      Value better = compareBetter(wb, wl, element, previousValue, largest, false,
                                                   isUnsignedType);
                      Value proceed = arith::AndIOp::create(wb, wl, positive, better);
                      scf::ConditionOp::create(wb, wl, proceed, state);
                    },
                    [&](OpBuilder &wb, Location wl, ValueRange state) {
                      Value previous = arith::SubIOp::create(wb, wl, state[0], one);
                      Value movedValue =
                          tensor::ExtractOp::create(wb, wl, state[1], ValueRange{row, previous});
                      Value movedIndex =
                          tensor::ExtractOp::create(wb, wl, state[2], ValueRange{row, previous});
                      Value shiftedValues = tensor::InsertOp::create(wb, wl, movedValue, state[1],
                                                                     ValueRange{row, state[0]});
                      Value shiftedIndices = tensor::InsertOp::create(wb, wl, movedIndex, state[2],
                                                                      ValueRange{row, state[0]});
                      scf::YieldOp::create(wb, wl,
                                           ValueRange{previous, shiftedValues, shiftedIndices});
                    });
                Value slot = whileOp.getResult(0);
                Value newValues = tensor::InsertOp::create(tb, tl, element, whileOp.getResult(1),
                                                           ValueRange{row, slot});
                Value columnIndex = indexToInteger(tb, tl, column, indexType);
                Value newIndices = tensor::InsertOp::create(
                    tb, tl, columnIndex, whileOp.getResult(2), ValueRange{row, slot});
                Value grown = arith::MinUIOp::create(
                    tb, tl, arith::AddIOp::create(tb, tl, kept, one), kValue);
                scf::YieldOp::create(tb, tl, ValueRange{newValues, newIndices, grown});
              };
              auto rejectBody = [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, ValueRange{keptValues, keptIndices, kept});
              };
              auto ifOp = scf::IfOp::create(
                  cb, cl, TypeRange{keptValues.getType(), keptIndices.getType(), kept.getType()},
                  accept, /*addThenBlock=*/true, /*addElseBlock=*/true);
              {
                OpBuilder::InsertionGuard guard(cb);
                cb.setInsertionPointToStart(ifOp.thenBlock());
                acceptBody(cb, cl);
                cb.setInsertionPointToStart(ifOp.elseBlock());
                rejectBody(cb, cl);
              }
              scf::YieldOp::create(cb, cl, ifOp.getResults());
            });
        scf::YieldOp::create(rb, rl, ValueRange{columnLoop.getResult(0), columnLoop.getResult(1)});
      });
  return {rowLoop.getResult(0), rowLoop.getResult(1)};
}

struct TopKLowering : OpConversionPattern<graph::TopKOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(graph::TopKOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType valuesType = getConvertedResultType(*getTypeConverter(), op, 0);
    RankedTensorType indicesType = getConvertedResultType(*getTypeConverter(), op, 1);
    Value input = adaptor.getInput();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!valuesType || !indicesType || !inputType || inputType.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "unranked or 0-D operand, or unranked results");
    int64_t rank = inputType.getRank();
    FailureOr<int64_t> normalizedAxis = normalizeAxis(op.getAxis(), rank);
    if (failed(normalizedAxis) || valuesType.getRank() != rank)
      return rewriter.notifyMatchFailure(op, "axis out of range");
    int64_t axis = *normalizedAxis;
    Type elementType = inputType.getElementType();
    if (!isa<FloatType, IntegerType>(elementType) || elementType.isInteger(1))
      return rewriter.notifyMatchFailure(op, "element type not handled");
    bool isUnsignedType = isUnsigned(op.getInput().getType());

    // k: a constant, else the result type's extent, else its value at run time (a k
    // computed from the data, as detectors' min(candidates, boxes) is), clamped to the
    // axis extent and to 0.
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, input);
    int64_t staticK = valuesType.getDimSize(axis);
    if (auto constant = graph::getConstantInts(op.getK()); constant && constant->size() == 1)
      staticK = (*constant)[0];
    OpFoldResult k;
    if (!ShapedType::isDynamic(staticK)) {
      if (staticK < 0 || (!inputType.isDynamicDim(axis) && staticK > inputType.getDimSize(axis)))
        return rewriter.notifyMatchFailure(op, "k is negative or exceeds the axis extent");
      k = rewriter.getIndexAttr(staticK);
    } else {
      auto kType = dyn_cast<RankedTensorType>(adaptor.getK().getType());
      if (!kType || !kType.hasStaticShape() || kType.getNumElements() != 1 ||
          !isa<IntegerType>(kType.getElementType()))
        return rewriter.notifyMatchFailure(op, "k is not one integer");
      Value requested = integerToIndex(rewriter, loc, extractScalar(rewriter, loc, adaptor.getK()));
      Value extent = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[axis]);
      Value clamped = arith::MinSIOp::create(rewriter, loc, requested, extent);
      k = arith::MaxSIOp::create(rewriter, loc, clamped,
                                 arith::ConstantIndexOp::create(rewriter, loc, 0))
              .getResult();
    }

    // The axis goes last, the other dimensions are collapsed into rows.
    SmallVector<int64_t> permutation;
    for (int64_t dim = 0; dim < rank; ++dim)
      if (dim != axis)
        permutation.push_back(dim);
    permutation.push_back(axis);
    SmallVector<OpFoldResult> permutedSizes;
    SmallVector<int64_t> permutedShape;
    for (int64_t dim : permutation) {
      permutedSizes.push_back(sizes[dim]);
      permutedShape.push_back(inputType.getDimSize(dim));
    }
    Value permuted = input;
    if (axis != rank - 1) {
      Value init = createEmptyTensor(
          rewriter, loc, RankedTensorType::get(permutedShape, elementType), permutedSizes);
      permuted = linalg::TransposeOp::create(rewriter, loc, input, init, permutation)->getResult(0);
    }
    ReassociationIndices outer = llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
    Value rows;
    if (rank == 1) {
      rows = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get({1, inputType.getDimSize(0)}, elementType), permuted,
          SmallVector<ReassociationIndices>{{0, 1}},
          SmallVector<OpFoldResult>{rewriter.getIndexAttr(1), sizes[0]});
    } else {
      rows = tensor::CollapseShapeOp::create(rewriter, loc, permuted,
                                             SmallVector<ReassociationIndices>{outer, {rank - 1}});
    }

    auto [rowValues, rowIndices] =
        createRowTopK(rewriter, loc, rows, k, op.getLargest(), isUnsignedType);

    // Back to the input's layout with k along the axis.
    SmallVector<int64_t> keptShape = permutedShape;
    keptShape.back() = getConstantIntValue(k).value_or(ShapedType::kDynamic);
    SmallVector<OpFoldResult> keptSizes = permutedSizes;
    keptSizes.back() = k;
    SmallVector<int64_t> inverse(rank);
    for (int64_t dim = 0; dim < rank; ++dim)
      inverse[permutation[dim]] = dim;
    auto restore = [&](Value rowResult, RankedTensorType type) -> Value {
      Type resultElement = type.getElementType();
      Value expanded;
      if (rank == 1)
        expanded = tensor::CollapseShapeOp::create(rewriter, loc, rowResult,
                                                   SmallVector<ReassociationIndices>{{0, 1}});
      else
        expanded = tensor::ExpandShapeOp::create(
            rewriter, loc, RankedTensorType::get(keptShape, resultElement), rowResult,
            SmallVector<ReassociationIndices>{outer, {rank - 1}}, keptSizes);
      if (axis != rank - 1) {
        SmallVector<int64_t> shape;
        SmallVector<OpFoldResult> resultSizes;
        for (int64_t dim = 0; dim < rank; ++dim) {
          shape.push_back(keptShape[inverse[dim]]);
          resultSizes.push_back(keptSizes[inverse[dim]]);
        }
        Value init = createEmptyTensor(rewriter, loc, RankedTensorType::get(shape, resultElement),
                                       resultSizes);
        expanded =
            linalg::TransposeOp::create(rewriter, loc, expanded, init, inverse)->getResult(0);
      }
      return castToType(rewriter, loc, expanded, type);
    };
    rewriter.replaceOp(op, {restore(rowValues, valuesType), restore(rowIndices, indicesType)});
    return success();
  }
};

} // namespace

void populateReductionLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ReduceLowering<graph::ReduceMeanOp, ReduceKind::Mean>,
               ReduceLowering<graph::ReduceSumOp, ReduceKind::Sum>,
               ReduceLowering<graph::ReduceMaxOp, ReduceKind::Max>,
               ReduceLowering<graph::ReduceMinOp, ReduceKind::Min>,
               ReduceLowering<graph::ReduceProdOp, ReduceKind::Prod>,
               ReduceLowering<graph::ReduceL1Op, ReduceKind::L1>,
               ReduceLowering<graph::ReduceL2Op, ReduceKind::L2>,
               ReduceLowering<graph::ReduceLogSumOp, ReduceKind::LogSum>,
               ReduceLowering<graph::ReduceLogSumExpOp, ReduceKind::LogSumExp>,
               ReduceLowering<graph::ReduceSumSquareOp, ReduceKind::SumSquare>,
               ArgReduceLowering<graph::ArgMaxOp, true>, ArgReduceLowering<graph::ArgMinOp, false>,
               CumSumLowering, TopKLowering>(converter, context);
}

} // namespace kiln::lowering
