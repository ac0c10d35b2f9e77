//===- Shape.cpp - Graph to linalg: reshapes, slices, gathers and other data movement ===//
//
// Data movement without arithmetic on the elements: reshapes become tensor
// collapse/expand (views after bufferization), reorderings linalg.transpose, joins and
// splits insert_slice/extract_slice, and the forms whose index arithmetic affine maps
// cannot express (tiling, negative steps, reflecting pads) a linalg.generic over the
// result that computes the source index with linalg.index and reads it with
// tensor.extract.
//
// Operands such as Slice's starts or Pad's pads are often graph inputs rather than
// constants. They are read at run time (tensor.extract); when they are constants, the
// later canonicalization folds those reads away. Result extents come from the static
// result type where it has them; shape inference gives one to almost every op once
// `kiln run` has specialised the model to its input shapes.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include <algorithm>

using namespace mlir;

namespace kiln::lowering {

/// Gathers, scatters and other indexing ops (ShapeIndexing.cpp).
void populateShapeIndexingLowering(const TypeConverter &converter, RewritePatternSet &patterns);

namespace {

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Entry `position` of the 1-D integer tensor `tensor`, as an index.
Value extractIndex(OpBuilder &b, Location loc, Value tensor, int64_t position) {
  Value element =
      tensor::ExtractOp::create(b, loc, tensor, ValueRange{constantIndex(b, loc, position)});
  return integerToIndex(b, loc, element);
}

/// Whether `tensor` is a ranked tensor (every lowering here needs ranks).
bool isRanked(Value tensor) { return isa<RankedTensorType>(tensor.getType()); }

/// The extents of `type`: its static ones, and `dynamic(dim)` for the others.
SmallVector<OpFoldResult> sizesOf(OpBuilder &b, RankedTensorType type,
                                  llvm::function_ref<OpFoldResult(int64_t dim)> dynamic) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    if (ShapedType::isDynamic(type.getDimSize(dim)))
      sizes.push_back(dynamic(dim));
    else
      sizes.push_back(b.getIndexAttr(type.getDimSize(dim)));
  }
  return sizes;
}

Value indexValue(OpBuilder &b, Location loc, OpFoldResult size) {
  return getValueOrCreateConstantIndexOp(b, loc, size);
}

/// `input` with the extents of `resultType` (the same elements in row-major order). Static
/// shapes become a tensor.collapse_shape and/or tensor.expand_shape, which bufferize to
/// views; dynamic ones a tensor.reshape to `resultSizes` (which may be empty when the
/// result type is static). Null when static element counts disagree.
Value reshapeTo(OpBuilder &b, Location loc, Value input, RankedTensorType resultType,
                ArrayRef<OpFoldResult> resultSizes) {
  auto inputType = cast<RankedTensorType>(input.getType());
  if (inputType == resultType)
    return input;
  if (inputType.hasStaticShape() && resultType.hasStaticShape()) {
    if (inputType.getNumElements() != resultType.getNumElements())
      return Value();
    if (inputType.getShape() == resultType.getShape())
      return castToType(b, loc, input, resultType);
    if (resultType.getRank() == 0)
      return tensor::CollapseShapeOp::create(b, loc, resultType, input,
                                             ArrayRef<ReassociationIndices>{});
    if (inputType.getRank() == 0)
      return tensor::ExpandShapeOp::create(b, loc, resultType, input,
                                           ArrayRef<ReassociationIndices>{});
    if (inputType.getRank() != resultType.getRank())
      if (auto reassociation = getReassociationIndicesForReshape(inputType, resultType)) {
        if (inputType.getRank() > resultType.getRank())
          return tensor::CollapseShapeOp::create(b, loc, resultType, input, *reassociation);
        return tensor::ExpandShapeOp::create(b, loc, resultType, input, *reassociation);
      }
    // Neither a pure collapse nor a pure expansion: through one dimension.
    auto flatType = RankedTensorType::get({inputType.getNumElements()}, inputType.getElementType());
    Value flat = input;
    if (inputType.getRank() > 1) {
      ReassociationIndices all = llvm::to_vector(llvm::seq<int64_t>(0, inputType.getRank()));
      flat = tensor::CollapseShapeOp::create(b, loc, flatType, input,
                                             ArrayRef<ReassociationIndices>{all});
    }
    if (resultType.getRank() == 1)
      return castToType(b, loc, flat, resultType);
    ReassociationIndices all = llvm::to_vector(llvm::seq<int64_t>(0, resultType.getRank()));
    return tensor::ExpandShapeOp::create(b, loc, resultType, flat,
                                         ArrayRef<ReassociationIndices>{all});
  }
  SmallVector<Value> sizeValues;
  if (static_cast<int64_t>(resultSizes.size()) == resultType.getRank()) {
    for (OpFoldResult size : resultSizes)
      sizeValues.push_back(indexValue(b, loc, size));
  } else if (resultType.hasStaticShape()) {
    for (int64_t extent : resultType.getShape())
      sizeValues.push_back(constantIndex(b, loc, extent));
  } else {
    return Value();
  }
  auto shapeType = RankedTensorType::get({resultType.getRank()}, b.getIndexType());
  Value shape = tensor::FromElementsOp::create(b, loc, shapeType, sizeValues);
  return tensor::ReshapeOp::create(b, loc, resultType, input, shape);
}

/// `value` clamped to [low, high] (signed index arithmetic).
Value clampIndex(OpBuilder &b, Location loc, Value value, Value low, Value high) {
  Value atLeastLow = arith::MaxSIOp::create(b, loc, value, low);
  return arith::MinSIOp::create(b, loc, atLeastLow, high);
}

/// `value` modulo `modulus` (> 0), in [0, modulus) also for negative values.
Value positiveRemainder(OpBuilder &b, Location loc, Value value, Value modulus) {
  Value remainder = arith::RemSIOp::create(b, loc, value, modulus);
  Value shifted = arith::AddIOp::create(b, loc, remainder, modulus);
  return arith::RemSIOp::create(b, loc, shifted, modulus);
}

/// `lhs + rhs`, folded when both are constants.
OpFoldResult addOFRs(OpBuilder &b, Location loc, OpFoldResult lhs, OpFoldResult rhs) {
  std::optional<int64_t> left = getConstantIntValue(lhs), right = getConstantIntValue(rhs);
  if (left && right)
    return b.getIndexAttr(*left + *right);
  return arith::AddIOp::create(b, loc, indexValue(b, loc, lhs), indexValue(b, loc, rhs))
      .getResult();
}

//===----------------------------------------------------------------------===//
// Reshapes
//===----------------------------------------------------------------------===//

/// Reshape → collapse/expand for static shapes; for dynamic ones, the shape operand is
/// read at run time with ONNX's rules (0 copies the input extent unless allowzero, -1 is
/// what is left).
struct ReshapeLowering : OpConversionPattern<graph::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::ReshapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    if (!resultType || !isRanked(input) || !isRanked(adaptor.getShape()))
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    Location loc = op.getLoc();
    auto shapeType = cast<RankedTensorType>(adaptor.getShape().getType());
    SmallVector<OpFoldResult> sizes;
    if (!resultType.hasStaticShape()) {
      if (shapeType.getRank() != 1 || shapeType.getDimSize(0) != resultType.getRank())
        return rewriter.notifyMatchFailure(op, "shape operand does not match the result rank");
      // Every requested extent, with 0 resolved; -1 is resolved from the element count.
      auto inputType = cast<RankedTensorType>(input.getType());
      SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, input);
      Value total = constantIndex(rewriter, loc, 1);
      for (OpFoldResult size : inputSizes)
        total = arith::MulIOp::create(rewriter, loc, total, indexValue(rewriter, loc, size));
      Value zero = constantIndex(rewriter, loc, 0);
      Value minusOne = constantIndex(rewriter, loc, -1);
      Value one = constantIndex(rewriter, loc, 1);
      SmallVector<Value> requested;
      Value known = one;
      for (int64_t dim = 0; dim < resultType.getRank(); ++dim) {
        Value extent = extractIndex(rewriter, loc, adaptor.getShape(), dim);
        if (!op.getAllowzero() && dim < inputType.getRank()) {
          Value isZero =
              arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, extent, zero);
          extent = arith::SelectOp::create(rewriter, loc, isZero,
                                           indexValue(rewriter, loc, inputSizes[dim]), extent);
        }
        requested.push_back(extent);
        Value isInferred =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, extent, minusOne);
        Value factor = arith::SelectOp::create(rewriter, loc, isInferred, one, extent);
        known = arith::MulIOp::create(rewriter, loc, known, factor);
      }
      // Guard the division against an empty known part (the inferred extent is then 0).
      Value knownIsZero =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, known, zero);
      Value divisor = arith::SelectOp::create(rewriter, loc, knownIsZero, one, known);
      Value inferred = arith::DivUIOp::create(rewriter, loc, total, divisor);
      for (int64_t dim = 0; dim < resultType.getRank(); ++dim) {
        Value isInferred = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                                 requested[dim], minusOne);
        requested[dim] =
            arith::SelectOp::create(rewriter, loc, isInferred, inferred, requested[dim]);
      }
      sizes = sizesOf(rewriter, resultType, [&](int64_t dim) { return requested[dim]; });
    }
    Value result = reshapeTo(rewriter, loc, input, resultType, sizes);
    if (!result)
      return rewriter.notifyMatchFailure(op, "element counts differ");
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Flatten, Squeeze and Unsqueeze: reshapes whose result extents are those of the input
/// regrouped; `computeSizes` gives them for dynamic results.
template <typename OpTy> struct RegroupLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult matchAndRewrite(OpTy op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*this->getTypeConverter(), op);
    Value input = adaptor.getInput();
    if (!resultType || !isRanked(input))
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> sizes;
    if (!resultType.hasStaticShape()) {
      FailureOr<SmallVector<OpFoldResult>> computed =
          computeSizes(op, rewriter, loc, input, resultType.getRank());
      if (failed(computed))
        return rewriter.notifyMatchFailure(op, "dynamic result with non-constant axes");
      sizes = *computed;
    }
    Value result = reshapeTo(rewriter, loc, input, resultType, sizes);
    if (!result)
      return rewriter.notifyMatchFailure(op, "element counts differ");
    rewriter.replaceOp(op, result);
    return success();
  }

  static Value product(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes) {
    Value result = constantIndex(b, loc, 1);
    for (OpFoldResult size : sizes)
      result = arith::MulIOp::create(b, loc, result, indexValue(b, loc, size));
    return result;
  }

  static FailureOr<SmallVector<OpFoldResult>>
  computeSizes(graph::FlattenOp op, OpBuilder &b, Location loc, Value input, int64_t resultRank) {
    SmallVector<OpFoldResult> inputSizes = getSizes(b, loc, input);
    int64_t rank = inputSizes.size();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis < 0 || axis > rank || resultRank != 2)
      return failure();
    return SmallVector<OpFoldResult>{
        product(b, loc, ArrayRef<OpFoldResult>(inputSizes).take_front(axis)),
        product(b, loc, ArrayRef<OpFoldResult>(inputSizes).drop_front(axis))};
  }

  static FailureOr<SmallVector<OpFoldResult>>
  computeSizes(graph::SqueezeOp op, OpBuilder &b, Location loc, Value input, int64_t resultRank) {
    SmallVector<OpFoldResult> inputSizes = getSizes(b, loc, input);
    int64_t rank = inputSizes.size();
    auto inputType = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> axes;
    if (op.getAxes()) {
      std::optional<SmallVector<int64_t>> constant = graph::getConstantInts(op.getAxes());
      if (!constant)
        return failure();
      for (int64_t axis : *constant) {
        FailureOr<int64_t> normalized = normalizeAxis(axis, rank);
        if (failed(normalized))
          return failure();
        axes.push_back(*normalized);
      }
    } else {
      for (int64_t dim = 0; dim < rank; ++dim)
        if (inputType.getDimSize(dim) == 1)
          axes.push_back(dim);
    }
    SmallVector<OpFoldResult> sizes;
    for (int64_t dim = 0; dim < rank; ++dim)
      if (!llvm::is_contained(axes, dim))
        sizes.push_back(inputSizes[dim]);
    if (static_cast<int64_t>(sizes.size()) != resultRank)
      return failure();
    return sizes;
  }

  static FailureOr<SmallVector<OpFoldResult>>
  computeSizes(graph::UnsqueezeOp op, OpBuilder &b, Location loc, Value input, int64_t resultRank) {
    std::optional<SmallVector<int64_t>> constant = graph::getConstantInts(op.getAxes());
    if (!constant)
      return failure();
    SmallVector<int64_t> axes;
    for (int64_t axis : *constant) {
      FailureOr<int64_t> normalized = normalizeAxis(axis, resultRank);
      if (failed(normalized))
        return failure();
      axes.push_back(*normalized);
    }
    SmallVector<OpFoldResult> inputSizes = getSizes(b, loc, input);
    if (static_cast<int64_t>(inputSizes.size() + axes.size()) != resultRank)
      return failure();
    SmallVector<OpFoldResult> sizes;
    size_t next = 0;
    for (int64_t dim = 0; dim < resultRank; ++dim) {
      if (llvm::is_contained(axes, dim))
        sizes.push_back(b.getIndexAttr(1));
      else if (next < inputSizes.size())
        sizes.push_back(inputSizes[next++]);
      else
        return failure();
    }
    return sizes;
  }
};

/// Transpose → linalg.transpose.
struct TransposeLowering : OpConversionPattern<graph::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    if (!resultType || !isRanked(input))
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    ArrayRef<int64_t> perm = op.getPerm();
    int64_t rank = resultType.getRank();
    if (static_cast<int64_t>(perm.size()) != rank || !isPermutationVector(perm))
      return rewriter.notifyMatchFailure(op, "invalid permutation");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> sizes;
    for (int64_t source : perm)
      sizes.push_back(inputSizes[source]);
    Value init = createEmptyTensor(rewriter, loc, resultType, sizes);
    auto transpose = linalg::TransposeOp::create(rewriter, loc, input, init, perm);
    rewriter.replaceOp(op, transpose->getResult(0));
    return success();
  }
};

/// DepthToSpace and SpaceToDepth: an expansion into blocks, a linalg.transpose moving the
/// block dimensions, and a collapse. Static shapes only (expand_shape needs the extents).
template <typename OpTy> struct BlockRearrangeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult matchAndRewrite(OpTy op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*this->getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!resultType || !inputType || !inputType.hasStaticShape() || !resultType.hasStaticShape() ||
        inputType.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "needs static 4-D shapes");
    int64_t block = static_cast<int64_t>(op.getBlocksize());
    int64_t n = inputType.getDimSize(0), c = inputType.getDimSize(1), h = inputType.getDimSize(2),
            w = inputType.getDimSize(3);
    SmallVector<int64_t> expanded, perm;
    if constexpr (std::is_same_v<OpTy, graph::DepthToSpaceOp>) {
      if (c % (block * block) != 0)
        return rewriter.notifyMatchFailure(op, "channels not divisible by blocksize^2");
      int64_t depth = c / (block * block);
      if (op.getMode() == "DCR") {
        expanded = {n, block, block, depth, h, w};
        perm = {0, 3, 4, 1, 5, 2};
      } else if (op.getMode() == "CRD") {
        expanded = {n, depth, block, block, h, w};
        perm = {0, 1, 4, 2, 5, 3};
      } else {
        return rewriter.notifyMatchFailure(op, "unknown mode");
      }
    } else {
      if (h % block != 0 || w % block != 0)
        return rewriter.notifyMatchFailure(op, "spatial extents not divisible by blocksize");
      expanded = {n, c, h / block, block, w / block, block};
      perm = {0, 3, 5, 1, 2, 4};
    }
    Location loc = op.getLoc();
    Type elementType = inputType.getElementType();
    auto expandedType = RankedTensorType::get(expanded, elementType);
    Value blocks = reshapeTo(rewriter, loc, input, expandedType, {});
    if (!blocks)
      return rewriter.notifyMatchFailure(op, "element counts differ");
    SmallVector<int64_t> transposedShape;
    for (int64_t source : perm)
      transposedShape.push_back(expanded[source]);
    auto transposedType = RankedTensorType::get(transposedShape, elementType);
    Value init = createEmptyTensor(rewriter, loc, transposedType, {});
    Value transposed = linalg::TransposeOp::create(rewriter, loc, blocks, init, perm)->getResult(0);
    Value result = reshapeTo(rewriter, loc, transposed, resultType, {});
    if (!result)
      return rewriter.notifyMatchFailure(op, "element counts differ");
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Broadcasting and repeating
//===----------------------------------------------------------------------===//

/// Expand → a linalg.generic reading the input through its broadcast map.
struct ExpandLowering : OpConversionPattern<graph::ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::ExpandOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    auto shapeType = dyn_cast<RankedTensorType>(adaptor.getShape().getType());
    if (!resultType || !inputType || !shapeType)
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    int64_t rank = resultType.getRank();
    if (inputType.getRank() > rank)
      return rewriter.notifyMatchFailure(op, "input rank exceeds result rank");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, input);
    // A dynamic result extent is the larger of the requested and the input extent (one
    // of them is 1 or they are equal).
    int64_t shapeLength = shapeType.getRank() == 1 ? shapeType.getDimSize(0) : -1;
    bool computable = true;
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, resultType, [&](int64_t dim) {
      int64_t inputDim = dim - (rank - inputType.getRank());
      int64_t shapeDim = dim - (rank - shapeLength);
      Value extent = constantIndex(rewriter, loc, 1);
      if (shapeLength >= 0 && shapeDim >= 0)
        extent = extractIndex(rewriter, loc, adaptor.getShape(), shapeDim);
      else
        computable &= inputDim >= 0;
      if (inputDim >= 0)
        extent = arith::MaxSIOp::create(rewriter, loc, extent,
                                        indexValue(rewriter, loc, inputSizes[inputDim]));
      return OpFoldResult(extent);
    });
    if (!computable)
      return rewriter.notifyMatchFailure(op, "dynamic extent of unknown size");
    Value result = createParallelGeneric(
        rewriter, loc, resultType, sizes, ValueRange{input},
        getBroadcastMap(getContext(), inputType, rank),
        [](OpBuilder &, Location, ValueRange args) -> Value { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Tile → a linalg.generic reading the input at (result index mod input extent).
struct TileLowering : OpConversionPattern<graph::TileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::TileOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!resultType || !inputType || inputType.getRank() != resultType.getRank())
      return rewriter.notifyMatchFailure(op, "unranked operand or rank mismatch");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, resultType, [&](int64_t dim) {
      Value repeats = extractIndex(rewriter, loc, adaptor.getRepeats(), dim);
      return OpFoldResult(arith::MulIOp::create(
          rewriter, loc, indexValue(rewriter, loc, inputSizes[dim]), repeats));
    });
    SmallVector<Value> extents;
    for (OpFoldResult size : inputSizes)
      extents.push_back(indexValue(rewriter, loc, size));
    Value result = createIndexedGeneric(
        rewriter, loc, resultType, sizes,
        [&](OpBuilder &b, Location nestedLoc, ValueRange indices) -> Value {
          SmallVector<Value> sourceIndices;
          for (auto [index, extent] : llvm::zip_equal(indices, extents))
            sourceIndices.push_back(arith::RemUIOp::create(b, nestedLoc, index, extent));
          return tensor::ExtractOp::create(b, nestedLoc, input, sourceIndices);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Joining, splitting and slicing
//===----------------------------------------------------------------------===//

/// Concat → each input copied (linalg.copy) into its slice of one tensor.empty.
struct ConcatLowering : OpConversionPattern<graph::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::ConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType || adaptor.getInputs().empty() || !llvm::all_of(adaptor.getInputs(), isRanked))
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    int64_t rank = resultType.getRank();
    FailureOr<int64_t> axis = normalizeAxis(static_cast<int64_t>(op.getAxis()), rank);
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Location loc = op.getLoc();
    SmallVector<SmallVector<OpFoldResult>> inputSizes;
    for (Value input : adaptor.getInputs()) {
      if (cast<RankedTensorType>(input.getType()).getRank() != rank)
        return rewriter.notifyMatchFailure(op, "operand rank differs from the result's");
      inputSizes.push_back(getSizes(rewriter, loc, input));
    }
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, resultType, [&](int64_t dim) {
      if (dim != *axis)
        return inputSizes.front()[dim];
      Value total = constantIndex(rewriter, loc, 0);
      for (auto &extents : inputSizes)
        total =
            arith::AddIOp::create(rewriter, loc, total, indexValue(rewriter, loc, extents[dim]));
      return OpFoldResult(total);
    });
    // One generic over the result that reads each element from the input its index along
    // the axis falls in: a single pass, which the consumer's loop nest fuses with (a ViT's
    // class token and position embedding: one launch), where copies into slices of an
    // empty tensor are a loop nest, and on the GPU a launch, per input.
    SmallVector<Value> inputs, starts;
    Value offset = constantIndex(rewriter, loc, 0);
    for (auto [input, extents] : llvm::zip_equal(adaptor.getInputs(), inputSizes)) {
      auto inputType = cast<RankedTensorType>(input.getType());
      if (inputType.hasStaticShape() && inputType.getNumElements() == 0)
        continue; // adds nothing
      inputs.push_back(input);
      starts.push_back(offset);
      offset =
          arith::AddIOp::create(rewriter, loc, offset, indexValue(rewriter, loc, extents[*axis]));
    }
    if (inputs.empty()) {
      rewriter.replaceOp(op, createEmptyTensor(rewriter, loc, resultType, sizes));
      return success();
    }
    SmallVector<int64_t> cases = llvm::to_vector(llvm::seq<int64_t>(0, inputs.size()));
    Type elementType = resultType.getElementType();
    Value result = createIndexedGeneric(
        rewriter, loc, resultType, sizes,
        [&](OpBuilder &nested, Location nestedLoc, ValueRange indices) -> Value {
          Value along = indices[*axis];
          // The last input whose start is at or before the index.
          Value which = constantIndex(nested, nestedLoc, 0);
          for (size_t k = 1; k < inputs.size(); ++k) {
            Value reached = arith::CmpIOp::create(nested, nestedLoc, arith::CmpIPredicate::uge,
                                                  along, starts[k]);
            which = arith::SelectOp::create(nested, nestedLoc, reached,
                                            constantIndex(nested, nestedLoc, int64_t(k)), which);
          }
          auto read = [&](OpBuilder &inner, Location innerLoc, size_t k) -> Value {
            SmallVector<Value> source(indices);
            source[*axis] = arith::SubIOp::create(inner, innerLoc, along, starts[k]);
            return tensor::ExtractOp::create(inner, innerLoc, inputs[k], source);
          };
          if (inputs.size() == 1)
            return read(nested, nestedLoc, 0);
          return createSwitch(nested, nestedLoc, which, cases, elementType, read);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Split → one tensor.extract_slice per result.
struct SplitLowering : OpConversionPattern<graph::SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::SplitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!inputType)
      return rewriter.notifyMatchFailure(op, "unranked operand");
    int64_t rank = inputType.getRank();
    FailureOr<int64_t> axis = normalizeAxis(static_cast<int64_t>(op.getAxis()), rank);
    if (failed(axis))
      return rewriter.notifyMatchFailure(op, "axis out of range");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, input);
    int64_t parts = op.getNumResults();
    Value extent = indexValue(rewriter, loc, inputSizes[*axis]);
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    OpFoldResult offset = rewriter.getIndexAttr(0);
    SmallVector<Value> results;
    for (int64_t part = 0; part < parts; ++part) {
      RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op, part);
      if (!resultType || resultType.getRank() != rank)
        return rewriter.notifyMatchFailure(op, "unranked result or rank mismatch");
      SmallVector<OpFoldResult> sizes = sizesOf(rewriter, resultType, [&](int64_t dim) {
        if (dim != *axis)
          return inputSizes[dim];
        if (adaptor.getSplit())
          return OpFoldResult(extractIndex(rewriter, loc, adaptor.getSplit(), part));
        // ceil(d / parts) per part, the last one taking what is left.
        Value count = constantIndex(rewriter, loc, parts);
        Value chunk = arith::CeilDivUIOp::create(rewriter, loc, extent, count);
        Value left =
            arith::SubIOp::create(rewriter, loc, extent, indexValue(rewriter, loc, offset));
        Value zero = constantIndex(rewriter, loc, 0);
        Value size = arith::MinSIOp::create(rewriter, loc, chunk, left);
        return OpFoldResult(arith::MaxSIOp::create(rewriter, loc, size, zero));
      });
      offsets[*axis] = offset;
      // An empty part is a new empty tensor: the slice verifier rejects an offset equal to
      // an extent of 0.
      if (resultType.hasStaticShape() && resultType.getNumElements() == 0) {
        results.push_back(createEmptyTensor(rewriter, loc, resultType, sizes));
      } else {
        results.push_back(tensor::ExtractSliceOp::create(rewriter, loc, resultType, input, offsets,
                                                         sizes, strides));
      }
      offset = addOFRs(rewriter, loc, offset, sizes[*axis]);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Slice: the start and step of every dimension are computed (at run time when the
/// operands are not constants) with ONNX's clamping; positive constant steps become a
/// tensor.extract_slice, other steps a linalg.generic reading start + index * step.
struct SliceLowering : OpConversionPattern<graph::SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::SliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    auto startsType = dyn_cast<RankedTensorType>(adaptor.getStarts().getType());
    if (!resultType || !inputType || !startsType || startsType.getRank() != 1 ||
        startsType.isDynamicDim(0) || resultType.getRank() != inputType.getRank())
      return rewriter.notifyMatchFailure(op, "unranked operand or dynamic starts length");
    int64_t rank = inputType.getRank();
    int64_t count = startsType.getDimSize(0);
    Location loc = op.getLoc();

    // Steps known at compile time decide between extract_slice and a generic.
    std::optional<SmallVector<int64_t>> constantSteps;
    if (op.getSteps())
      constantSteps = graph::getConstantInts(op.getSteps());
    else
      constantSteps = SmallVector<int64_t>(count, 1);
    if (constantSteps && static_cast<int64_t>(constantSteps->size()) != count)
      return rewriter.notifyMatchFailure(op, "steps length differs from starts");
    if (constantSteps && llvm::is_contained(*constantSteps, 0))
      return rewriter.notifyMatchFailure(op, "a step of 0");
    bool positiveSteps =
        constantSteps && llvm::all_of(*constantSteps, [](int64_t step) { return step > 0; });
    // Axes known at compile time map each entry to its dimension directly; otherwise
    // every dimension selects, at run time, the entry naming it.
    std::optional<SmallVector<int64_t>> constantAxes;
    if (op.getAxes()) {
      constantAxes = graph::getConstantInts(op.getAxes());
      if (constantAxes) {
        if (static_cast<int64_t>(constantAxes->size()) != count)
          return rewriter.notifyMatchFailure(op, "axes length differs from starts");
        for (int64_t &axis : *constantAxes) {
          FailureOr<int64_t> normalized = normalizeAxis(axis, rank);
          if (failed(normalized))
            return rewriter.notifyMatchFailure(op, "axis out of range");
          axis = *normalized;
        }
      }
    } else {
      if (count > rank)
        return rewriter.notifyMatchFailure(op, "more starts than dimensions");
      constantAxes = llvm::to_vector(llvm::seq<int64_t>(0, count));
    }

    SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, input);
    Value zero = constantIndex(rewriter, loc, 0);
    Value one = constantIndex(rewriter, loc, 1);
    SmallVector<Value> starts, steps, sizes;
    for (int64_t dim = 0; dim < rank; ++dim) {
      starts.push_back(zero);
      steps.push_back(one);
      sizes.push_back(indexValue(rewriter, loc, inputSizes[dim]));
    }
    auto rawValue = [&](Value tensor, int64_t entry) {
      return extractIndex(rewriter, loc, tensor, entry);
    };
    for (int64_t entry = 0; entry < count; ++entry) {
      Value step = op.getSteps() ? rawValue(adaptor.getSteps(), entry) : one;
      if (constantSteps) {
        step = constantIndex(rewriter, loc, (*constantSteps)[entry]);
      } else {
        // ONNX forbids a step of 0; reading it as 1 keeps the divisions below defined.
        Value isZero = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, step, zero);
        step = arith::SelectOp::create(rewriter, loc, isZero, one, step);
      }
      Value rawStart = rawValue(adaptor.getStarts(), entry);
      Value rawEnd = rawValue(adaptor.getEnds(), entry);
      for (int64_t dim = 0; dim < rank; ++dim) {
        Value selected;
        if (constantAxes) {
          if ((*constantAxes)[entry] != dim)
            continue;
        } else {
          Value axis = rawValue(adaptor.getAxes(), entry);
          Value isNegative =
              arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, axis, zero);
          Value wrapped =
              arith::AddIOp::create(rewriter, loc, axis, constantIndex(rewriter, loc, rank));
          axis = arith::SelectOp::create(rewriter, loc, isNegative, wrapped, axis);
          selected = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, axis,
                                           constantIndex(rewriter, loc, dim));
        }
        Value extent = indexValue(rewriter, loc, inputSizes[dim]);
        auto [start, size] = clampRange(rewriter, loc, rawStart, rawEnd, step, extent);
        if (selected) {
          starts[dim] = arith::SelectOp::create(rewriter, loc, selected, start, starts[dim]);
          steps[dim] = arith::SelectOp::create(rewriter, loc, selected, step, steps[dim]);
          sizes[dim] = arith::SelectOp::create(rewriter, loc, selected, size, sizes[dim]);
        } else {
          starts[dim] = start;
          steps[dim] = step;
          sizes[dim] = size;
        }
      }
    }
    SmallVector<OpFoldResult> resultSizes =
        sizesOf(rewriter, resultType, [&](int64_t dim) { return OpFoldResult(sizes[dim]); });

    Value result;
    if (resultType.hasStaticShape() && resultType.getNumElements() == 0) {
      // An empty slice is a new empty tensor: the slice verifier rejects an offset equal
      // to the extent even when nothing is read.
      result = createEmptyTensor(rewriter, loc, resultType, resultSizes);
    } else if (positiveSteps && constantAxes) {
      SmallVector<OpFoldResult> offsets, strides;
      for (int64_t dim = 0; dim < rank; ++dim) {
        offsets.push_back(getAsOpFoldResult(starts[dim]));
        strides.push_back(getAsOpFoldResult(steps[dim]));
      }
      result = tensor::ExtractSliceOp::create(rewriter, loc, resultType, input, offsets,
                                              resultSizes, strides);
    } else {
      result = createIndexedGeneric(
          rewriter, loc, resultType, resultSizes,
          [&](OpBuilder &b, Location nestedLoc, ValueRange indices) -> Value {
            SmallVector<Value> sourceIndices;
            for (int64_t dim = 0; dim < rank; ++dim) {
              Value scaled = arith::MulIOp::create(b, nestedLoc, indices[dim], steps[dim]);
              sourceIndices.push_back(arith::AddIOp::create(b, nestedLoc, starts[dim], scaled));
            }
            return tensor::ExtractOp::create(b, nestedLoc, input, sourceIndices);
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  /// The clamped start and the element count of `start:end:step` over `extent` elements,
  /// as ONNX defines them.
  static std::pair<Value, Value> clampRange(OpBuilder &b, Location loc, Value start, Value end,
                                            Value step, Value extent) {
    Value zero = constantIndex(b, loc, 0);
    Value minusOne = constantIndex(b, loc, -1);
    Value extentMinusOne = arith::SubIOp::create(b, loc, extent, constantIndex(b, loc, 1));
    auto wrap = [&](Value value) {
      Value isNegative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, value, zero);
      Value wrapped = arith::AddIOp::create(b, loc, value, extent);
      return arith::SelectOp::create(b, loc, isNegative, wrapped, value).getResult();
    };
    start = wrap(start);
    end = wrap(end);
    Value positive = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, step, zero);
    // Positive steps clamp both to [0, extent]; negative ones start to [0, extent - 1]
    // and end to [-1, extent - 1].
    Value startHigh = arith::SelectOp::create(b, loc, positive, extent, extentMinusOne);
    Value endLow = arith::SelectOp::create(b, loc, positive, zero, minusOne);
    Value endHigh = startHigh;
    start = clampIndex(b, loc, start, zero, startHigh);
    end = clampIndex(b, loc, end, endLow, endHigh);
    // count = max(ceil((end - start) / step), 0), for either sign of step.
    Value distance = arith::SubIOp::create(b, loc, end, start);
    Value count = arith::CeilDivSIOp::create(b, loc, distance, step);
    count = arith::MaxSIOp::create(b, loc, count, zero);
    return {start, count};
  }
};

//===----------------------------------------------------------------------===//
// Padding
//===----------------------------------------------------------------------===//

/// Where result index `index` reads along a dimension of `extent` input elements, the
/// dimension padded by `low` in front, and whether it reads at all (constant mode).
std::pair<Value, Value> paddedSourceIndex(OpBuilder &b, Location loc, StringRef mode, Value index,
                                          Value low, Value extent) {
  Value zero = constantIndex(b, loc, 0);
  Value one = constantIndex(b, loc, 1);
  Value position = arith::SubIOp::create(b, loc, index, low);
  Value last = arith::SubIOp::create(b, loc, extent, one);
  Value lastOrZero = arith::MaxSIOp::create(b, loc, last, zero);
  Value clamped = clampIndex(b, loc, position, zero, lastOrZero);
  if (mode == "edge")
    return {clamped, Value()};
  if (mode == "wrap")
    return {positiveRemainder(b, loc, position, extent), Value()};
  if (mode == "reflect") {
    // Reflection about both ends repeats with period 2 * (extent - 1); an extent of 1
    // reflects onto itself.
    Value period = arith::MulIOp::create(b, loc, lastOrZero, constantIndex(b, loc, 2));
    Value safePeriod = arith::MaxSIOp::create(b, loc, period, one);
    Value phase = positiveRemainder(b, loc, position, safePeriod);
    Value mirrored = arith::SubIOp::create(b, loc, period, phase);
    Value beyond = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, phase, last);
    Value reflected = arith::SelectOp::create(b, loc, beyond, mirrored, phase);
    return {clampIndex(b, loc, reflected, zero, lastOrZero), Value()};
  }
  Value atLeastZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, position, zero);
  Value belowExtent = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, position, extent);
  Value inside = arith::AndIOp::create(b, loc, atLeastZero, belowExtent);
  return {clamped, inside};
}

/// A gather over the result reading `input` at each dimension's padded source index;
/// `padValue` fills what lies outside in constant mode.
Value createPaddingGeneric(OpBuilder &b, Location loc, RankedTensorType resultType,
                           ArrayRef<OpFoldResult> resultSizes, Value input, StringRef mode,
                           ArrayRef<Value> lows, Value padValue) {
  SmallVector<OpFoldResult> inputSizes = getSizes(b, loc, input);
  SmallVector<Value> extents;
  for (OpFoldResult size : inputSizes)
    extents.push_back(indexValue(b, loc, size));
  return createPaddedGather(b, loc, resultType, resultSizes, input, padValue,
                            [&](OpBuilder &nested, Location nestedLoc, int64_t dim, Value index) {
                              return paddedSourceIndex(nested, nestedLoc, mode, index, lows[dim],
                                                       extents[dim]);
                            });
}

/// Pad: constant mode with constant pads → tensor.extract_slice for negative pads, then a
/// gathering generic; the other modes and pads known only at run time → the same generic.
struct PadLowering : OpConversionPattern<graph::PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::PadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    auto padsType = dyn_cast<RankedTensorType>(adaptor.getPads().getType());
    if (!resultType || !inputType || !padsType || padsType.getRank() != 1 ||
        padsType.isDynamicDim(0) || inputType.getRank() != resultType.getRank())
      return rewriter.notifyMatchFailure(op, "unranked operand or dynamic pads length");
    StringRef mode = op.getMode();
    if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
      return rewriter.notifyMatchFailure(op, "unknown mode");
    int64_t rank = inputType.getRank();
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    if (op.getAxes()) {
      std::optional<SmallVector<int64_t>> constantAxes = graph::getConstantInts(op.getAxes());
      if (!constantAxes)
        return rewriter.notifyMatchFailure(op, "axes not constant");
      axes.clear();
      for (int64_t axis : *constantAxes) {
        FailureOr<int64_t> normalized = normalizeAxis(axis, rank);
        if (failed(normalized))
          return rewriter.notifyMatchFailure(op, "axis out of range");
        axes.push_back(*normalized);
      }
    }
    int64_t count = axes.size();
    if (padsType.getDimSize(0) != 2 * count)
      return rewriter.notifyMatchFailure(op, "pads length is not twice the axes count");
    Location loc = op.getLoc();
    Type elementType = resultType.getElementType();
    Value padValue = adaptor.getConstantValue()
                         ? extractScalar(rewriter, loc, adaptor.getConstantValue())
                         : createScalarConstant(rewriter, loc, elementType, 0.0);
    if (padValue.getType() != elementType)
      return rewriter.notifyMatchFailure(op, "constant value of another element type");

    std::optional<SmallVector<int64_t>> constantPads = graph::getConstantInts(op.getPads());
    if (mode == "constant" && constantPads && resultType.hasStaticShape() &&
        inputType.hasStaticShape()) {
      // Crop the negative pads, then pad the positive ones.
      SmallVector<int64_t> low(rank, 0), high(rank, 0);
      for (int64_t entry = 0; entry < count; ++entry) {
        low[axes[entry]] += (*constantPads)[entry];
        high[axes[entry]] += (*constantPads)[entry + count];
      }
      SmallVector<OpFoldResult> offsets, sizes, strides;
      SmallVector<int64_t> croppedShape;
      for (int64_t dim = 0; dim < rank; ++dim) {
        int64_t cropLow = std::max<int64_t>(-low[dim], 0);
        int64_t cropHigh = std::max<int64_t>(-high[dim], 0);
        int64_t extent = inputType.getDimSize(dim) - cropLow - cropHigh;
        if (extent < 0 ||
            extent + std::max<int64_t>(low[dim], 0) + std::max<int64_t>(high[dim], 0) !=
                resultType.getDimSize(dim))
          return rewriter.notifyMatchFailure(op, "pads disagree with the result type");
        croppedShape.push_back(extent);
        offsets.push_back(rewriter.getIndexAttr(cropLow));
        sizes.push_back(rewriter.getIndexAttr(extent));
        strides.push_back(rewriter.getIndexAttr(1));
      }
      Value cropped = input;
      auto croppedType = RankedTensorType::get(croppedShape, elementType);
      if (croppedType != inputType)
        cropped = tensor::ExtractSliceOp::create(rewriter, loc, croppedType, input, offsets, sizes,
                                                 strides);
      // One gather that writes every element once (the pad value where it reads outside
      // the input): tensor.pad bufferizes into a fill, a copy into it and, as a kernel's
      // result, a copy out (three passes over a padded weight on the GPU).
      Value padded = cropped;
      if (croppedType != resultType) {
        SmallVector<Value> lows;
        SmallVector<OpFoldResult> resultSizes;
        for (int64_t dim = 0; dim < rank; ++dim) {
          lows.push_back(constantIndex(rewriter, loc, std::max<int64_t>(low[dim], 0)));
          resultSizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(dim)));
        }
        padded = createPaddingGeneric(rewriter, loc, resultType, resultSizes, cropped, mode, lows,
                                      padValue);
      }
      rewriter.replaceOp(op, padded);
      return success();
    }

    // The general form: pads read at run time.
    Value zero = constantIndex(rewriter, loc, 0);
    SmallVector<Value> lows(rank, zero), highs(rank, zero);
    for (int64_t entry = 0; entry < count; ++entry) {
      int64_t dim = axes[entry];
      lows[dim] = arith::AddIOp::create(rewriter, loc, lows[dim],
                                        extractIndex(rewriter, loc, adaptor.getPads(), entry));
      highs[dim] = arith::AddIOp::create(
          rewriter, loc, highs[dim], extractIndex(rewriter, loc, adaptor.getPads(), entry + count));
    }
    bool emptyInput = inputType.hasStaticShape() && inputType.getNumElements() == 0;
    if (emptyInput && mode != "constant")
      return rewriter.notifyMatchFailure(op, "padding an empty tensor by its own elements");
    SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> resultSizes = sizesOf(rewriter, resultType, [&](int64_t dim) {
      Value extent = indexValue(rewriter, loc, inputSizes[dim]);
      Value padded = arith::AddIOp::create(rewriter, loc, extent, lows[dim]);
      return OpFoldResult(arith::AddIOp::create(rewriter, loc, padded, highs[dim]));
    });
    Value result;
    if (emptyInput)
      result = createFilledTensor(rewriter, loc, resultType, resultSizes, padValue);
    else
      result =
          createPaddingGeneric(rewriter, loc, resultType, resultSizes, input, mode, lows, padValue);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// CenterCropPad: every dimension in `axes` reads from an offset of (input - target) / 2
/// (floored), negative when padding; a generic fills the padding with zeros.
struct CenterCropPadLowering : OpConversionPattern<graph::CenterCropPadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::CenterCropPadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!resultType || !inputType || !isRanked(adaptor.getShape()) ||
        inputType.getRank() != resultType.getRank())
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    int64_t rank = inputType.getRank();
    Location loc = op.getLoc();
    ArrayRef<int64_t> axesAttr = op.getAxes();
    SmallVector<int64_t> axes;
    if (axesAttr.empty())
      axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    for (int64_t axis : axesAttr) {
      FailureOr<int64_t> normalized = normalizeAxis(axis, rank);
      if (failed(normalized))
        return rewriter.notifyMatchFailure(op, "axis out of range");
      axes.push_back(*normalized);
    }
    SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, input);
    Value zero = constantIndex(rewriter, loc, 0);
    Value two = constantIndex(rewriter, loc, 2);
    SmallVector<Value> lows(rank, zero);
    SmallVector<Value> targets;
    for (int64_t dim = 0; dim < rank; ++dim)
      targets.push_back(indexValue(rewriter, loc, inputSizes[dim]));
    for (auto [entry, dim] : llvm::enumerate(axes)) {
      Value target = extractIndex(rewriter, loc, adaptor.getShape(), entry);
      targets[dim] = target;
      // Cropping starts (input - target) / 2 in; padding puts (target - input) / 2 in
      // front; both floored, so the extra element of an odd difference goes to the end.
      Value extent = indexValue(rewriter, loc, inputSizes[dim]);
      Value crop = arith::SubIOp::create(rewriter, loc, extent, target);
      Value pad = arith::SubIOp::create(rewriter, loc, target, extent);
      Value cropOffset = arith::DivSIOp::create(rewriter, loc, crop, two);
      Value padOffset = arith::DivSIOp::create(rewriter, loc, pad, two);
      Value cropping = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge, crop, zero);
      Value negatedCrop = arith::SubIOp::create(rewriter, loc, zero, cropOffset);
      lows[dim] = arith::SelectOp::create(rewriter, loc, cropping, negatedCrop, padOffset);
    }
    SmallVector<OpFoldResult> resultSizes =
        sizesOf(rewriter, resultType, [&](int64_t dim) { return OpFoldResult(targets[dim]); });
    Value padValue = createScalarConstant(rewriter, loc, resultType.getElementType(), 0.0);
    Value result;
    if (inputType.hasStaticShape() && inputType.getNumElements() == 0)
      result = createFilledTensor(rewriter, loc, resultType, resultSizes, padValue);
    else
      result = createPaddingGeneric(rewriter, loc, resultType, resultSizes, input, "constant", lows,
                                    padValue);
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Triangles and diagonals
//===----------------------------------------------------------------------===//

/// Trilu → a generic over the input keeping elements with column - row >= k (upper) or
/// <= k (lower).
struct TriluLowering : OpConversionPattern<graph::TriluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::TriluOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!resultType || !inputType || inputType.getRank() < 2 || inputType != resultType)
      return rewriter.notifyMatchFailure(op, "needs a ranked input of rank >= 2");
    Location loc = op.getLoc();
    int64_t rank = inputType.getRank();
    Value k = adaptor.getK()
                  ? integerToIndex(rewriter, loc, extractScalar(rewriter, loc, adaptor.getK()))
                  : constantIndex(rewriter, loc, 0);
    Value zero = createScalarConstant(rewriter, loc, resultType.getElementType(), 0.0);
    bool upper = op.getUpper();
    Value result = createParallelGeneric(
        rewriter, loc, resultType, getSizes(rewriter, loc, input), ValueRange{input},
        rewriter.getMultiDimIdentityMap(rank),
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) -> Value {
          Value row = linalg::IndexOp::create(b, nestedLoc, rank - 2);
          Value column = linalg::IndexOp::create(b, nestedLoc, rank - 1);
          Value offset = arith::SubIOp::create(b, nestedLoc, column, row);
          Value keep = arith::CmpIOp::create(
              b, nestedLoc, upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle, offset,
              k);
          return arith::SelectOp::create(b, nestedLoc, keep, args[0], zero);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// EyeLike → a generic writing 1 where column - row == k.
struct EyeLikeLowering : OpConversionPattern<graph::EyeLikeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::EyeLikeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    if (!resultType || !isRanked(input) || resultType.getRank() != 2 ||
        cast<RankedTensorType>(input.getType()).getRank() != 2)
      return rewriter.notifyMatchFailure(op, "needs 2-D tensors");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> sizes =
        sizesOf(rewriter, resultType, [&](int64_t dim) { return inputSizes[dim]; });
    Type elementType = resultType.getElementType();
    Value one = createScalarConstant(rewriter, loc, elementType, 1.0);
    Value zero = createScalarConstant(rewriter, loc, elementType, 0.0);
    Value k = constantIndex(rewriter, loc, static_cast<int64_t>(op.getK()));
    Value result = createIndexedGeneric(
        rewriter, loc, resultType, sizes,
        [&](OpBuilder &b, Location nestedLoc, ValueRange indices) -> Value {
          Value offset = arith::SubIOp::create(b, nestedLoc, indices[1], indices[0]);
          Value onDiagonal =
              arith::CmpIOp::create(b, nestedLoc, arith::CmpIPredicate::eq, offset, k);
          return arith::SelectOp::create(b, nestedLoc, onDiagonal, one, zero);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Shapes as values, and tensors made from shapes
//===----------------------------------------------------------------------===//

/// Shape → a constant for static extents, else tensor.from_elements of tensor.dim.
struct ShapeLowering : OpConversionPattern<graph::ShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::ShapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    if (!resultType || !isRanked(input) || resultType.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t rank = inputType.getRank();
    auto clampBound = [&](int64_t bound) {
      if (bound < 0)
        bound += rank;
      return std::clamp<int64_t>(bound, 0, rank);
    };
    int64_t start = clampBound(static_cast<int64_t>(op.getStart()));
    int64_t end = clampBound(op.getEnd() ? static_cast<int64_t>(*op.getEnd()) : rank);
    end = std::max(start, end);
    if (resultType.isDynamicDim(0) || resultType.getDimSize(0) != end - start)
      return rewriter.notifyMatchFailure(op, "result length disagrees with start/end");
    Location loc = op.getLoc();
    Type elementType = resultType.getElementType();
    ArrayRef<int64_t> extents = inputType.getShape().slice(start, end - start);
    if (!ShapedType::isDynamicShape(extents)) {
      SmallVector<APInt> values;
      for (int64_t extent : extents)
        values.push_back(APInt(elementType.getIntOrFloatBitWidth(), extent, true));
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, resultType,
                                                     DenseIntElementsAttr::get(resultType, values));
      return success();
    }
    SmallVector<OpFoldResult> inputSizes = getSizes(rewriter, loc, input);
    SmallVector<Value> elements;
    for (int64_t dim = start; dim < end; ++dim)
      elements.push_back(
          indexToInteger(rewriter, loc, indexValue(rewriter, loc, inputSizes[dim]), elementType));
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(op, resultType, elements);
    return success();
  }
};

/// Size → the product of the extents, as a rank-0 tensor.
struct SizeLowering : OpConversionPattern<graph::SizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::SizeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    Value input = adaptor.getInput();
    if (!resultType || !isRanked(input) || resultType.getNumElements() != 1 ||
        !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "unranked operand or result");
    auto inputType = cast<RankedTensorType>(input.getType());
    Location loc = op.getLoc();
    Type elementType = resultType.getElementType();
    if (inputType.hasStaticShape()) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, resultType,
          DenseIntElementsAttr::get(resultType, APInt(elementType.getIntOrFloatBitWidth(),
                                                      inputType.getNumElements(), true)));
      return success();
    }
    Value total = createExtentProduct(rewriter, loc, input,
                                      llvm::to_vector(llvm::seq<int64_t>(0, inputType.getRank())));
    rewriter.replaceOpWithNewOp<tensor::FromElementsOp>(
        op, resultType, ValueRange{indexToInteger(rewriter, loc, total, elementType)});
    return success();
  }
};

/// Range → a generic writing start + index * delta; the length comes from the result
/// type, or is computed as max(ceil((limit - start) / delta), 0).
struct RangeLowering : OpConversionPattern<graph::RangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::RangeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType || resultType.getRank() != 1 || !isRanked(adaptor.getStart()) ||
        !isRanked(adaptor.getLimit()) || !isRanked(adaptor.getDelta()))
      return rewriter.notifyMatchFailure(op, "needs a 1-D result and ranked operands");
    Location loc = op.getLoc();
    Type elementType = resultType.getElementType();
    bool isFloat = isa<FloatType>(elementType);
    if (!isFloat && !isa<IntegerType>(elementType))
      return rewriter.notifyMatchFailure(op, "element type not handled");
    Value start = extractScalar(rewriter, loc, adaptor.getStart());
    Value delta = extractScalar(rewriter, loc, adaptor.getDelta());
    if (start.getType() != elementType || delta.getType() != elementType)
      return rewriter.notifyMatchFailure(op, "operands of another element type");
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, resultType, [&](int64_t) {
      Value limit = extractScalar(rewriter, loc, adaptor.getLimit());
      Value count;
      if (isFloat) {
        Value distance = arith::SubFOp::create(rewriter, loc, limit, start);
        Value steps = arith::DivFOp::create(rewriter, loc, distance, delta);
        Value rounded = math::CeilOp::create(rewriter, loc, steps);
        count = floatToIndex(rewriter, loc, rounded);
      } else {
        Value distance = arith::SubIOp::create(rewriter, loc, limit, start);
        count = arith::CeilDivSIOp::create(rewriter, loc, distance, delta);
        count = integerToIndex(rewriter, loc, count);
      }
      return OpFoldResult(
          arith::MaxSIOp::create(rewriter, loc, count, constantIndex(rewriter, loc, 0)));
    });
    Value result = createIndexedGeneric(
        rewriter, loc, resultType, sizes,
        [&](OpBuilder &b, Location nestedLoc, ValueRange indices) -> Value {
          Value position;
          if (isFloat) {
            position = indexToFloat(b, nestedLoc, indices[0], elementType);
            Value offset = arith::MulFOp::create(b, nestedLoc, position, delta);
            return arith::AddFOp::create(b, nestedLoc, start, offset);
          }
          position = arith::IndexCastOp::create(b, nestedLoc, elementType, indices[0]);
          Value offset = arith::MulIOp::create(b, nestedLoc, position, delta);
          return arith::AddIOp::create(b, nestedLoc, start, offset);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ConstantOfShape → linalg.fill of the value attribute.
struct ConstantOfShapeLowering : OpConversionPattern<graph::ConstantOfShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::ConstantOfShapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getConvertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "unranked result");
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense || dense.getNumElements() != 1)
      return rewriter.notifyMatchFailure(op, "value is not a one-element dense constant");
    Location loc = op.getLoc();
    Type elementType = resultType.getElementType();
    TypedAttr scalar;
    if (auto floatType = dyn_cast<FloatType>(elementType)) {
      if (!isa<FloatType>(dense.getElementType()))
        return rewriter.notifyMatchFailure(op, "value of another element type");
      APFloat value = *dense.getValues<APFloat>().begin();
      bool losesInfo = false;
      value.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
      scalar = FloatAttr::get(floatType, value);
    } else if (auto integerType = dyn_cast<IntegerType>(elementType)) {
      if (!isa<IntegerType>(dense.getElementType()))
        return rewriter.notifyMatchFailure(op, "value of another element type");
      scalar = IntegerAttr::get(integerType, *dense.getValues<APInt>().begin());
    } else {
      return rewriter.notifyMatchFailure(op, "element type not handled");
    }
    Value value = arith::ConstantOp::create(rewriter, loc, scalar);
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, resultType, [&](int64_t dim) {
      return OpFoldResult(extractIndex(rewriter, loc, adaptor.getShape(), dim));
    });
    rewriter.replaceOp(op, createFilledTensor(rewriter, loc, resultType, sizes, value));
    return success();
  }
};

} // namespace

void populateShapeLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  populateShapeIndexingLowering(converter, patterns);
  patterns.add<ReshapeLowering, RegroupLowering<graph::FlattenOp>,
               RegroupLowering<graph::SqueezeOp>, RegroupLowering<graph::UnsqueezeOp>,
               TransposeLowering, BlockRearrangeLowering<graph::DepthToSpaceOp>,
               BlockRearrangeLowering<graph::SpaceToDepthOp>, ExpandLowering, TileLowering,
               ConcatLowering, SplitLowering, SliceLowering, PadLowering, CenterCropPadLowering,
               TriluLowering, EyeLikeLowering, ShapeLowering, SizeLowering, RangeLowering,
               ConstantOfShapeLowering>(converter, patterns.getContext());
}

} // namespace kiln::lowering
