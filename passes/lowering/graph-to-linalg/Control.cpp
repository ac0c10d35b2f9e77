//===- Control.cpp - Graph to linalg: If, Loop and Scan ===//
//
// graph.if becomes scf.if, graph.scan scf.for and graph.loop scf.while. A Loop or Scan
// body is moved into an scf.execute_region inside the new loop, so its graph.yield only
// has to hand the body's outputs over (converted types, cast to the region's result
// types); the loop pattern then stacks scan outputs and yields the next iteration's
// values around it. Canonicalization inlines the single-block execute_region again.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

using namespace mlir;

namespace kiln::lowering {
namespace {

/// The converted types of `values`, or failure when one is not a ranked tensor.
FailureOr<SmallVector<Type>> convertRankedTypes(const TypeConverter &converter, TypeRange types) {
  SmallVector<Type> converted;
  for (Type type : types) {
    Type result = converter.convertType(type);
    if (!isa_and_nonnull<RankedTensorType>(result))
      return failure();
    converted.push_back(result);
  }
  return converted;
}

/// Whether `body` ends in a graph.yield of `count` ranked values, the first
/// `singleElements` of them holding one element each.
bool yieldsRanked(const TypeConverter &converter, Block &body, size_t count,
                  size_t singleElements) {
  auto yield = dyn_cast<graph::YieldOp>(body.getTerminator());
  if (!yield || yield.getValues().size() != count)
    return false;
  FailureOr<SmallVector<Type>> types = convertRankedTypes(converter, yield.getValues().getTypes());
  if (failed(types))
    return false;
  for (size_t index = 0; index < singleElements; ++index)
    if (!isSingleElement((*types)[index]))
      return false;
  return true;
}

/// Moves the single block of `body` (graph block arguments replaced by `arguments`) into
/// a new scf.execute_region at the builder's insertion point, whose results have the
/// converted types of what the body yields.
FailureOr<scf::ExecuteRegionOp> moveBodyIntoExecuteRegion(ConversionPatternRewriter &rewriter,
                                                          Location loc,
                                                          const TypeConverter &converter,
                                                          Region &body, ValueRange arguments) {
  auto yield = dyn_cast<graph::YieldOp>(body.front().getTerminator());
  if (!yield)
    return failure();
  FailureOr<SmallVector<Type>> resultTypes =
      convertRankedTypes(converter, yield.getValues().getTypes());
  if (failed(resultTypes))
    return failure();
  auto executeRegion = scf::ExecuteRegionOp::create(rewriter, loc, *resultTypes);
  Block *target = rewriter.createBlock(&executeRegion.getRegion());
  rewriter.mergeBlocks(&body.front(), target, arguments);
  rewriter.setInsertionPointAfter(executeRegion);
  return executeRegion;
}

/// graph.yield → scf.yield, its values cast to the types its new parent (scf.if or
/// scf.execute_region) declares.
struct YieldLowering : OpConversionPattern<graph::YieldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::YieldOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Operation *parent = op->getParentOp();
    if (!isa<scf::IfOp, scf::ExecuteRegionOp>(parent))
      return rewriter.notifyMatchFailure(op, "parent not lowered yet");
    if (parent->getNumResults() != adaptor.getValues().size())
      return rewriter.notifyMatchFailure(op, "yields another number of values");
    SmallVector<Value> values;
    for (auto [value, type] : llvm::zip(adaptor.getValues(), parent->getResultTypes()))
      values.push_back(castToType(rewriter, op.getLoc(), value, type));
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, values);
    return success();
  }
};

/// graph.if → scf.if on the condition's single element.
struct IfLowering : OpConversionPattern<graph::IfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::IfOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!isSingleElement(adaptor.getCondition().getType()))
      return rewriter.notifyMatchFailure(op, "condition is not a single boolean");
    FailureOr<SmallVector<Type>> resultTypes =
        convertRankedTypes(*getTypeConverter(), op.getResultTypes());
    if (failed(resultTypes))
      return rewriter.notifyMatchFailure(op, "unranked result");
    Location loc = op.getLoc();
    Value condition = extractScalar(rewriter, loc, adaptor.getCondition());
    auto ifOp = scf::IfOp::create(rewriter, loc, *resultTypes, condition,
                                  /*addThenBlock=*/false, /*addElseBlock=*/false);
    rewriter.inlineRegionBefore(op.getThenBranch(), ifOp.getThenRegion(),
                                ifOp.getThenRegion().end());
    rewriter.inlineRegionBefore(op.getElseBranch(), ifOp.getElseRegion(),
                                ifOp.getElseRegion().end());
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

/// graph.scan → scf.for over the scanned extent; scan outputs are preallocated and each
/// iteration's slice is inserted at its position (reversed where the direction is 1).
struct ScanLowering : OpConversionPattern<graph::ScanOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::ScanOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    size_t numStates = adaptor.getInitialStates().size();
    size_t numInputs = adaptor.getScanInputs().size();
    size_t numOutputs = op.getNumResults() - numStates;
    ArrayRef<int64_t> inputAxes = op.getScanInputAxes();
    ArrayRef<int64_t> inputDirections = op.getScanInputDirections();
    ArrayRef<int64_t> outputAxes = op.getScanOutputAxes();
    ArrayRef<int64_t> outputDirections = op.getScanOutputDirections();
    if (numInputs == 0 || inputAxes.size() != numInputs || inputDirections.size() != numInputs ||
        outputAxes.size() != numOutputs || outputDirections.size() != numOutputs)
      return rewriter.notifyMatchFailure(op, "axes or directions do not match the operands");
    FailureOr<SmallVector<Type>> resultTypes =
        convertRankedTypes(*getTypeConverter(), op.getResultTypes());
    if (failed(resultTypes))
      return rewriter.notifyMatchFailure(op, "unranked result");
    Block &graphBody = op.getBody().front();
    if (graphBody.getNumArguments() != numStates + numInputs)
      return rewriter.notifyMatchFailure(op, "body arguments do not match the operands");
    FailureOr<SmallVector<Type>> argumentTypes =
        convertRankedTypes(*getTypeConverter(), graphBody.getArgumentTypes());
    if (failed(argumentTypes))
      return rewriter.notifyMatchFailure(op, "unranked body argument");
    if (!yieldsRanked(*getTypeConverter(), graphBody, numStates + numOutputs, 0))
      return rewriter.notifyMatchFailure(op, "body yields another number of values");

    // Normalised axes and the scanned extent (that of the first input).
    SmallVector<int64_t> normalisedInputAxes, normalisedOutputAxes;
    for (auto [input, axis] : llvm::zip(adaptor.getScanInputs(), inputAxes)) {
      int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
      int64_t normalised = axis < 0 ? axis + rank : axis;
      if (normalised < 0 || normalised >= rank)
        return rewriter.notifyMatchFailure(op, "scan input axis out of range");
      normalisedInputAxes.push_back(normalised);
    }
    for (auto [index, axis] : llvm::enumerate(outputAxes)) {
      auto type = cast<RankedTensorType>((*resultTypes)[numStates + index]);
      int64_t normalised = axis < 0 ? axis + type.getRank() : axis;
      if (normalised < 0 || normalised >= type.getRank())
        return rewriter.notifyMatchFailure(op, "scan output axis out of range");
      for (int64_t dim = 0; dim < type.getRank(); ++dim)
        if (dim != normalised && type.isDynamicDim(dim))
          return rewriter.notifyMatchFailure(op, "scan output of dynamic slice shape");
      normalisedOutputAxes.push_back(normalised);
    }
    Value scanExtent = getValueOrCreateConstantIndexOp(
        rewriter, loc, getSizes(rewriter, loc, adaptor.getScanInputs()[0])[normalisedInputAxes[0]]);

    // Loop-carried values: the states (of the result types), then the scan outputs.
    SmallVector<Value> initial;
    for (auto [state, type] : llvm::zip(adaptor.getInitialStates(), *resultTypes))
      initial.push_back(castToType(rewriter, loc, state, type));
    for (size_t index = 0; index < numOutputs; ++index) {
      auto type = cast<RankedTensorType>((*resultTypes)[numStates + index]);
      SmallVector<OpFoldResult> sizes;
      for (int64_t dim = 0; dim < type.getRank(); ++dim)
        sizes.push_back(type.isDynamicDim(dim)
                            ? OpFoldResult(scanExtent)
                            : OpFoldResult(rewriter.getIndexAttr(type.getDimSize(dim))));
      initial.push_back(createEmptyTensor(rewriter, loc, type, sizes));
    }

    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value last = arith::SubIOp::create(rewriter, loc, scanExtent, one);
    auto forOp = scf::ForOp::create(rewriter, loc, zero, scanExtent, one, initial);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forOp.getBody());
    Value iv = forOp.getInductionVar();
    Value reversedIv = arith::SubIOp::create(rewriter, loc, last, iv);

    // The body's arguments: the carried states, then this iteration's input slices.
    SmallVector<Value> arguments(forOp.getRegionIterArgs().take_front(numStates));
    for (auto [index, input] : llvm::enumerate(adaptor.getScanInputs())) {
      int64_t axis = normalisedInputAxes[index];
      auto inputType = cast<RankedTensorType>(input.getType());
      SmallVector<OpFoldResult> offsets(inputType.getRank(), rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, input);
      SmallVector<OpFoldResult> strides(inputType.getRank(), rewriter.getIndexAttr(1));
      offsets[axis] = inputDirections[index] == 1 ? reversedIv : iv;
      sizes[axis] = rewriter.getIndexAttr(1);
      SmallVector<int64_t> sliceShape(inputType.getShape());
      sliceShape.erase(sliceShape.begin() + axis);
      auto sliceType = RankedTensorType::get(sliceShape, inputType.getElementType());
      Value slice =
          tensor::ExtractSliceOp::create(rewriter, loc, sliceType, input, offsets, sizes, strides);
      arguments.push_back(castToType(rewriter, loc, slice, (*argumentTypes)[numStates + index]));
    }
    FailureOr<scf::ExecuteRegionOp> body =
        moveBodyIntoExecuteRegion(rewriter, loc, *getTypeConverter(), op.getBody(), arguments);
    if (failed(body) || body->getNumResults() != numStates + numOutputs)
      return rewriter.notifyMatchFailure(op, "body yields another number of values");

    SmallVector<Value> next;
    for (size_t index = 0; index < numStates; ++index)
      next.push_back(castToType(rewriter, loc, body->getResult(index), (*resultTypes)[index]));
    for (size_t index = 0; index < numOutputs; ++index) {
      Value accumulator = forOp.getRegionIterArgs()[numStates + index];
      auto type = cast<RankedTensorType>(accumulator.getType());
      int64_t axis = normalisedOutputAxes[index];
      Value slice = body->getResult(numStates + index);
      auto sliceType = cast<RankedTensorType>(slice.getType());
      if (sliceType.getRank() + 1 != type.getRank())
        return rewriter.notifyMatchFailure(op, "scan output slice of another rank");
      SmallVector<int64_t> staticSliceShape(type.getShape());
      staticSliceShape.erase(staticSliceShape.begin() + axis);
      slice = castToType(rewriter, loc, slice,
                         RankedTensorType::get(staticSliceShape, type.getElementType()));
      SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes;
      for (int64_t extent : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(extent));
      SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
      offsets[axis] = outputDirections[index] == 1 ? reversedIv : iv;
      sizes[axis] = rewriter.getIndexAttr(1);
      next.push_back(tensor::InsertSliceOp::create(rewriter, loc, slice, accumulator, offsets,
                                                   sizes, strides));
    }
    scf::YieldOp::create(rewriter, loc, next);
    rewriter.replaceOp(op, forOp.getResults());
    return success();
  }
};

/// graph.loop → scf.while carrying the iteration number, the condition, the loop-carried
/// values and one buffer per scan output. A scan output whose row count the result type
/// states gets a buffer of exactly those rows (rows past it are dropped: the declared
/// shape bounds the iterations, and the kernel allocates nothing while it loops); any
/// other grows (capacity doubled when full, so stacking stays linear) and is trimmed to
/// the iteration count after the loop.
struct LoopLowering : OpConversionPattern<graph::LoopOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::LoopOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    size_t numCarried = adaptor.getInitialValues().size();
    size_t numOutputs = op.getNumResults() - numCarried;
    FailureOr<SmallVector<Type>> resultTypes =
        convertRankedTypes(*getTypeConverter(), op.getResultTypes());
    if (failed(resultTypes))
      return rewriter.notifyMatchFailure(op, "unranked result");
    Block &graphBody = op.getBody().front();
    if (graphBody.getNumArguments() != numCarried + 2)
      return rewriter.notifyMatchFailure(op, "body arguments do not match the operands");
    FailureOr<SmallVector<Type>> argumentTypes =
        convertRankedTypes(*getTypeConverter(), graphBody.getArgumentTypes());
    if (failed(argumentTypes) || !isSingleElement((*argumentTypes)[0]) ||
        !isSingleElement((*argumentTypes)[1]))
      return rewriter.notifyMatchFailure(op, "iteration number or condition not a scalar");
    if (!yieldsRanked(*getTypeConverter(), graphBody, 1 + numCarried + numOutputs, 1))
      return rewriter.notifyMatchFailure(op, "body yields another number of values");
    Value maxTripCount = adaptor.getMaxTripCount();
    Value initialCondition = adaptor.getCondition();
    if ((maxTripCount && !isSingleElement(maxTripCount.getType())) ||
        (initialCondition && !isSingleElement(initialCondition.getType())))
      return rewriter.notifyMatchFailure(op, "trip count or condition not a scalar");
    for (size_t index = 0; index < numOutputs; ++index) {
      auto type = cast<RankedTensorType>((*resultTypes)[numCarried + index]);
      if (type.getRank() < 1 || llvm::any_of(type.getShape().drop_front(), ShapedType::isDynamic))
        return rewriter.notifyMatchFailure(op, "scan output of dynamic slice shape");
    }

    Type i64 = rewriter.getI64Type();
    Type i1 = rewriter.getI1Type();
    Value zero64 = arith::ConstantIntOp::create(rewriter, loc, i64, 0);
    Value one64 = arith::ConstantIntOp::create(rewriter, loc, i64, 1);
    Value trueValue = arith::ConstantIntOp::create(rewriter, loc, i1, 1);
    Value tripCount = maxTripCount ? extractScalar(rewriter, loc, maxTripCount) : Value();
    Value condition = initialCondition ? extractScalar(rewriter, loc, initialCondition) : trueValue;

    // Initial values: iteration 0, the condition, the carried values, empty stacks with
    // room for the trip count (at most 1024 rows up front) or a single row.
    SmallVector<Value> initial{zero64, condition};
    for (auto [value, type] : llvm::zip(adaptor.getInitialValues(), *resultTypes))
      initial.push_back(castToType(rewriter, loc, value, type));
    SmallVector<Type> bufferTypes;
    Value capacity = arith::ConstantIndexOp::create(rewriter, loc, 1);
    if (tripCount) {
      Value clamped = arith::MinSIOp::create(
          rewriter, loc, tripCount, arith::ConstantIntOp::create(rewriter, loc, i64, 1024));
      clamped = arith::MaxSIOp::create(rewriter, loc, clamped, one64);
      capacity = integerToIndex(rewriter, loc, clamped);
    }
    for (size_t index = 0; index < numOutputs; ++index) {
      auto type = cast<RankedTensorType>((*resultTypes)[numCarried + index]);
      if (type.hasStaticShape()) {
        bufferTypes.push_back(type);
        initial.push_back(tensor::EmptyOp::create(rewriter, loc, type, ValueRange()));
        continue;
      }
      SmallVector<int64_t> shape(type.getShape());
      shape[0] = ShapedType::kDynamic;
      auto bufferType = RankedTensorType::get(shape, type.getElementType());
      bufferTypes.push_back(bufferType);
      SmallVector<OpFoldResult> sizes{capacity};
      for (int64_t extent : type.getShape().drop_front())
        sizes.push_back(rewriter.getIndexAttr(extent));
      initial.push_back(createEmptyTensor(rewriter, loc, bufferType, sizes));
    }
    SmallVector<Type> carriedTypes =
        llvm::map_to_vector(initial, [](Value v) { return v.getType(); });
    SmallVector<Location> locations(initial.size(), loc);

    auto whileOp = scf::WhileOp::create(rewriter, loc, carriedTypes, initial);
    OpBuilder::InsertionGuard guard(rewriter);
    // Before: continue while the condition holds and the trip count is not reached.
    Block *before = rewriter.createBlock(&whileOp.getBefore(), {}, carriedTypes, locations);
    Value proceed = before->getArgument(1);
    if (tripCount) {
      Value belowCount = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                               before->getArgument(0), tripCount);
      proceed = arith::AndIOp::create(rewriter, loc, proceed, belowCount);
    }
    scf::ConditionOp::create(rewriter, loc, proceed, before->getArguments());

    // After: run the body, then stack its scan outputs at the iteration's row.
    Block *after = rewriter.createBlock(&whileOp.getAfter(), {}, carriedTypes, locations);
    Value iteration = after->getArgument(0);
    SmallVector<Value> arguments{
        tensor::FromElementsOp::create(rewriter, loc, (*argumentTypes)[0], iteration),
        tensor::FromElementsOp::create(rewriter, loc, (*argumentTypes)[1], after->getArgument(1))};
    for (size_t index = 0; index < numCarried; ++index)
      arguments.push_back(
          castToType(rewriter, loc, after->getArgument(2 + index), (*argumentTypes)[2 + index]));
    FailureOr<scf::ExecuteRegionOp> body =
        moveBodyIntoExecuteRegion(rewriter, loc, *getTypeConverter(), op.getBody(), arguments);
    if (failed(body) || body->getNumResults() != 1 + numCarried + numOutputs ||
        !isSingleElement(body->getResult(0).getType()))
      return rewriter.notifyMatchFailure(op, "body yields another number of values");

    // Without a condition operand the body's condition output is ignored (ONNX spec).
    SmallVector<Value> next{arith::AddIOp::create(rewriter, loc, iteration, one64),
                            initialCondition ? extractScalar(rewriter, loc, body->getResult(0))
                                             : trueValue};
    for (size_t index = 0; index < numCarried; ++index)
      next.push_back(
          castToType(rewriter, loc, body->getResult(1 + index), carriedTypes[2 + index]));
    Value row = integerToIndex(rewriter, loc, iteration);
    for (size_t index = 0; index < numOutputs; ++index) {
      Value buffer = after->getArgument(2 + numCarried + index);
      auto bufferType = cast<RankedTensorType>(buffer.getType());
      int64_t rank = bufferType.getRank();
      SmallVector<int64_t> sliceShape(bufferType.getShape().drop_front());
      Value slice = castToType(rewriter, loc, body->getResult(1 + numCarried + index),
                               RankedTensorType::get(sliceShape, bufferType.getElementType()));
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[0] = row;
      SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(1)};
      for (int64_t extent : sliceShape)
        sizes.push_back(rewriter.getIndexAttr(extent));
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      Value rows = tensor::DimOp::create(rewriter, loc, buffer, 0);
      Value full = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge, row, rows);
      if (bufferType.hasStaticShape()) {
        // A row past the declared ones is dropped.
        auto store = scf::IfOp::create(rewriter, loc, TypeRange{bufferType}, full,
                                       /*withElseRegion=*/true);
        OpBuilder::InsertionGuard storeGuard(rewriter);
        rewriter.setInsertionPointToStart(&store.getThenRegion().front());
        scf::YieldOp::create(rewriter, loc, buffer);
        rewriter.setInsertionPointToStart(&store.getElseRegion().front());
        scf::YieldOp::create(
            rewriter, loc,
            tensor::InsertSliceOp::create(rewriter, loc, slice, buffer, offsets, sizes, strides)
                .getResult());
        next.push_back(store.getResult(0));
        continue;
      }
      // Grow the buffer (twice its rows) when this row does not fit.
      auto grow = scf::IfOp::create(rewriter, loc, TypeRange{bufferType}, full,
                                    /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard growGuard(rewriter);
        rewriter.setInsertionPointToStart(&grow.getThenRegion().front());
        SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, buffer);
        Value doubled = arith::MulIOp::create(rewriter, loc, rows,
                                              arith::ConstantIndexOp::create(rewriter, loc, 2));
        SmallVector<OpFoldResult> grownSizes(sizes);
        grownSizes[0] = doubled;
        Value grown = createEmptyTensor(rewriter, loc, bufferType, grownSizes);
        SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
        SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
        Value copied =
            tensor::InsertSliceOp::create(rewriter, loc, buffer, grown, offsets, sizes, strides);
        scf::YieldOp::create(rewriter, loc, copied);
        rewriter.setInsertionPointToStart(&grow.getElseRegion().front());
        scf::YieldOp::create(rewriter, loc, buffer);
      }
      next.push_back(tensor::InsertSliceOp::create(rewriter, loc, slice, grow.getResult(0), offsets,
                                                   sizes, strides));
    }
    scf::YieldOp::create(rewriter, loc, next);

    // Results: the carried values, then each stack trimmed to the iterations run.
    rewriter.setInsertionPointAfter(whileOp);
    SmallVector<Value> results;
    for (size_t index = 0; index < numCarried; ++index)
      results.push_back(whileOp.getResult(2 + index));
    Value iterations = integerToIndex(rewriter, loc, whileOp.getResult(0));
    for (size_t index = 0; index < numOutputs; ++index) {
      Value buffer = whileOp.getResult(2 + numCarried + index);
      auto bufferType = cast<RankedTensorType>(buffer.getType());
      if (bufferType.hasStaticShape()) {
        results.push_back(buffer);
        continue;
      }
      int64_t rank = bufferType.getRank();
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, buffer);
      sizes[0] = iterations;
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      Value trimmed =
          tensor::ExtractSliceOp::create(rewriter, loc, buffer, offsets, sizes, strides);
      results.push_back(castToType(rewriter, loc, trimmed, (*resultTypes)[numCarried + index]));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateControlLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<YieldLowering, IfLowering, ScanLowering, LoopLowering>(converter,
                                                                      patterns.getContext());
}

} // namespace kiln::lowering
