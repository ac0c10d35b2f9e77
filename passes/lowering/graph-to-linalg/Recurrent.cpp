//===- Recurrent.cpp - Graph to linalg: RNN, GRU and LSTM ===//
//
// A recurrent layer is a loop over time steps that carries the hidden state (and the
// LSTM's cell state): one `scf.for` per direction whose iteration arguments are the
// states, [batch, hidden], and the `y` being written, kept in layout 0
// ([seq, num_directions, batch, hidden]) and transposed once at the end for layout 1.
// A step is two `linalg.matmul`s, Xt * W^T + Wb and Ht-1 * R^T + Rb ([batch, gates *
// hidden], the bias broadcast as the initial value), and `linalg.generic`s over
// [batch, hidden] that read each gate's columns of those (a `tensor.extract_slice`, so
// that every operand of a generic has the iteration space's extents) and apply the
// activations. The weights are transposed once, before the loop.
//
// `sequence_lens` masks the steps at or past a batch entry's length: its states do not
// change there and its `y` is zero. A reverse direction walks the time steps from the
// last one down, so an entry starts from its initial state at step `length - 1`, which
// is ONNX's reversal of each sequence within its own length.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "dialects/graph/GraphOps.h"

#include <optional>

using namespace mlir;

namespace kiln::lowering {
namespace {

/// The attributes and shapes of one recurrent op, checked.
struct RecurrentShape {
  int64_t seqLength, batch, inputSize, hidden, gates, numDirections;
  bool batchFirst;
  SmallVector<bool> reverse; // per direction
  FloatType elementType;
};

/// The common operands and attributes of graph.rnn, graph.gru and graph.lstm (converted
/// operands), read through the op's generated accessors.
struct RecurrentOperands {
  Value x, w, r, bias, sequenceLens, initialH;
  StringRef direction;
  int64_t hiddenSize, layout;
  ArrayAttr activations;
  ArrayRef<float> alphas, betas;
  std::optional<double> clip;
};

template <typename OpTy, typename AdaptorTy>
RecurrentOperands getRecurrentOperands(OpTy op, AdaptorTy adaptor) {
  RecurrentOperands operands;
  operands.x = adaptor.getX();
  operands.w = adaptor.getW();
  operands.r = adaptor.getR();
  operands.bias = adaptor.getB();
  operands.sequenceLens = adaptor.getSequenceLens();
  operands.initialH = adaptor.getInitialH();
  operands.direction = op.getDirection();
  operands.hiddenSize = op.getHiddenSize();
  operands.layout = op.getLayout();
  operands.activations = op.getActivations();
  operands.alphas = op.getActivationAlpha();
  operands.betas = op.getActivationBeta();
  if (std::optional<APFloat> clip = op.getClip())
    operands.clip = clip->convertToDouble();
  return operands;
}

/// Checks the operands of a recurrent op with `gates` gates and `perDirection`
/// activations per direction: static shapes, ONNX's extents, a known direction and
/// layout. The failure's message says what is not lowered.
FailureOr<RecurrentShape> checkShapes(const RecurrentOperands &operands, int64_t gates,
                                      size_t perDirection, ArrayRef<Value> stateOperands,
                                      std::string &why) {
  auto xType = dyn_cast<RankedTensorType>(operands.x.getType());
  auto wType = dyn_cast<RankedTensorType>(operands.w.getType());
  auto rType = dyn_cast<RankedTensorType>(operands.r.getType());
  if (!xType || !wType || !rType || !xType.hasStaticShape() || !wType.hasStaticShape() ||
      !rType.hasStaticShape() || xType.getRank() != 3 || wType.getRank() != 3 ||
      rType.getRank() != 3) {
    why = "x, w and r must have static 3-D shapes";
    return failure();
  }
  RecurrentShape shape;
  shape.elementType = dyn_cast<FloatType>(xType.getElementType());
  if (!shape.elementType) {
    why = "only float elements";
    return failure();
  }
  if (operands.layout != 0 && operands.layout != 1) {
    why = "layout must be 0 or 1";
    return failure();
  }
  shape.batchFirst = operands.layout == 1;
  shape.seqLength = xType.getDimSize(shape.batchFirst ? 1 : 0);
  shape.batch = xType.getDimSize(shape.batchFirst ? 0 : 1);
  shape.inputSize = xType.getDimSize(2);
  shape.hidden = operands.hiddenSize;
  shape.gates = gates;
  if (operands.direction == "forward")
    shape.reverse = {false};
  else if (operands.direction == "reverse")
    shape.reverse = {true};
  else if (operands.direction == "bidirectional")
    shape.reverse = {false, true};
  else {
    why = "unknown direction";
    return failure();
  }
  shape.numDirections = shape.reverse.size();
  int64_t gateRows = gates * shape.hidden;
  if (wType.getShape() != ArrayRef<int64_t>{shape.numDirections, gateRows, shape.inputSize} ||
      rType.getShape() != ArrayRef<int64_t>{shape.numDirections, gateRows, shape.hidden}) {
    why = "w or r do not match the direction, hidden_size and input";
    return failure();
  }
  if (operands.activations.size() != perDirection * shape.numDirections ||
      operands.alphas.size() != operands.activations.size() ||
      operands.betas.size() != operands.activations.size()) {
    why = "activation lists of the wrong length";
    return failure();
  }
  for (Attribute name : operands.activations) {
    auto text = dyn_cast<StringAttr>(name);
    if (!text) {
      why = "non-string activation";
      return failure();
    }
  }
  auto hasShape = [&](Value value, ArrayRef<int64_t> expected, Type element) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return type && type.getShape() == expected && type.getElementType() == element;
  };
  if (operands.bias &&
      !hasShape(operands.bias, {shape.numDirections, 2 * gateRows}, shape.elementType)) {
    why = "bias of an unexpected shape";
    return failure();
  }
  if (operands.sequenceLens &&
      !hasShape(operands.sequenceLens, {shape.batch}, IntegerType::get(xType.getContext(), 32))) {
    why = "sequence_lens of an unexpected shape";
    return failure();
  }
  SmallVector<int64_t> stateShape =
      shape.batchFirst ? SmallVector<int64_t>{shape.batch, shape.numDirections, shape.hidden}
                       : SmallVector<int64_t>{shape.numDirections, shape.batch, shape.hidden};
  for (Value state : stateOperands) {
    if (state && !hasShape(state, stateShape, shape.elementType)) {
      why = "initial state of an unexpected shape";
      return failure();
    }
  }
  return shape;
}

/// Builds the IR of one recurrent op: slices, weights, maps and the step arithmetic.
class RecurrentBuilder {
public:
  RecurrentBuilder(OpBuilder &builder, Location loc, const RecurrentShape &shape,
                   const RecurrentOperands &operands, size_t perDirection)
      : b(builder), loc(loc), shape(shape), operands(operands), perDirection(perDirection) {}

  OpBuilder &b;
  Location loc;
  const RecurrentShape &shape;
  const RecurrentOperands &operands;
  size_t perDirection;

  RankedTensorType tensorType(ArrayRef<int64_t> extents) const {
    return RankedTensorType::get(extents, shape.elementType);
  }
  RankedTensorType stateType() const { return tensorType({shape.batch, shape.hidden}); }
  SmallVector<OpFoldResult> staticSizes(ArrayRef<int64_t> extents) const {
    SmallVector<OpFoldResult> sizes;
    for (int64_t extent : extents)
      sizes.push_back(b.getIndexAttr(extent));
    return sizes;
  }
  Value constant(double value) const {
    return createScalarConstant(b, loc, shape.elementType, value);
  }

  /// The static slice [offsets, offsets + sizes) of `source`, with the unit dimensions
  /// `dropped` removed from the result's type. `offsets` may hold one run-time index.
  Value slice(Value source, ArrayRef<OpFoldResult> offsets, ArrayRef<int64_t> sizes,
              ArrayRef<int64_t> dropped) const {
    SmallVector<int64_t> resultShape;
    for (auto [dim, extent] : llvm::enumerate(sizes))
      if (!llvm::is_contained(dropped, static_cast<int64_t>(dim)))
        resultShape.push_back(extent);
    SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(b, loc, tensorType(resultShape), source, offsets,
                                          staticSizes(sizes), strides);
  }

  /// The rows [first, first + count) of direction `d` of a [D, rows, cols] weight.
  Value weightRows(Value weight, int64_t d, int64_t first, int64_t count) const {
    int64_t cols = cast<RankedTensorType>(weight.getType()).getDimSize(2);
    return slice(weight, {b.getIndexAttr(d), b.getIndexAttr(first), b.getIndexAttr(0)},
                 {1, count, cols}, {0});
  }

  /// The columns of gate `gate` ([batch, hidden]) of a [batch, gates * hidden] product.
  Value gate(Value product, int64_t gate) const {
    return slice(product, {b.getIndexAttr(0), b.getIndexAttr(gate * shape.hidden)},
                 {shape.batch, shape.hidden}, {});
  }

  /// Entries [first, first + hidden) of direction `d` of a [D, n] vector (peepholes).
  Value vectorSlice(Value vector, int64_t d, int64_t first) const {
    return slice(vector, {b.getIndexAttr(d), b.getIndexAttr(first)}, {1, shape.hidden}, {0});
  }

  /// A 2-D tensor transposed (weights, once before the loop).
  Value transpose(Value matrix) const {
    auto type = cast<RankedTensorType>(matrix.getType());
    Value init = createEmptyTensor(b, loc, tensorType({type.getDimSize(1), type.getDimSize(0)}),
                                   staticSizes({type.getDimSize(1), type.getDimSize(0)}));
    return linalg::TransposeOp::create(b, loc, matrix, init, ArrayRef<int64_t>{1, 0})
        .getResult()[0];
  }

  /// The bias entries [first, first + count) of direction `d` broadcast to
  /// [batch, count], or zeros without a bias.
  Value broadcastBias(int64_t d, int64_t first, int64_t count) const {
    RankedTensorType type = tensorType({shape.batch, count});
    SmallVector<OpFoldResult> sizes = staticSizes({shape.batch, count});
    if (!operands.bias)
      return createFilledTensor(b, loc, type, sizes, constant(0));
    Value entries =
        slice(operands.bias, {b.getIndexAttr(d), b.getIndexAttr(first)}, {1, count}, {0});
    Value init = createEmptyTensor(b, loc, type, sizes);
    return linalg::BroadcastOp::create(b, loc, entries, init, ArrayRef<int64_t>{0}).getResult()[0];
  }

  /// `lhs` [batch, k] times `rhsTransposed` [k, n] accumulated into `init` [batch, n].
  Value matmul(Value lhs, Value rhsTransposed, Value init) const {
    return linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                    ValueRange{lhs, rhsTransposed}, init)
        .getResult(0);
  }

  /// The initial state (initial_h or initial_c) of direction `d` as [batch, hidden], or
  /// zeros.
  Value initialState(Value state, int64_t d) const {
    if (!state)
      return createFilledTensor(b, loc, stateType(), staticSizes({shape.batch, shape.hidden}),
                                constant(0));
    if (shape.batchFirst)
      return slice(state, {b.getIndexAttr(0), b.getIndexAttr(d), b.getIndexAttr(0)},
                   {shape.batch, 1, shape.hidden}, {1});
    return slice(state, {b.getIndexAttr(d), b.getIndexAttr(0), b.getIndexAttr(0)},
                 {1, shape.batch, shape.hidden}, {0});
  }

  /// Xt ([batch, input]) at the run-time time index `time`.
  Value inputAt(Value time) const {
    if (shape.batchFirst)
      return slice(operands.x, {b.getIndexAttr(0), time, b.getIndexAttr(0)},
                   {shape.batch, 1, shape.inputSize}, {1});
    return slice(operands.x, {time, b.getIndexAttr(0), b.getIndexAttr(0)},
                 {1, shape.batch, shape.inputSize}, {0});
  }

  // Maps over the [batch, hidden] iteration space of a step's generics.
  AffineMap stateMap() const { return b.getMultiDimIdentityMap(2); }
  /// One entry per hidden unit (a peephole vector).
  AffineMap vectorMap() const {
    return AffineMap::get(2, 0, {b.getAffineDimExpr(1)}, b.getContext());
  }
  /// One entry per batch entry (sequence_lens).
  AffineMap batchMap() const {
    return AffineMap::get(2, 0, {b.getAffineDimExpr(0)}, b.getContext());
  }

  /// Activation number `k` of direction `d` applied to `x`, after the clip where
  /// `clipped` (ONNX Runtime clips the gates' inputs, not the LSTM's h(Ct)).
  Value activate(OpBuilder &nested, Location nestedLoc, int64_t d, size_t k, Value x,
                 bool clipped = true) const {
    if (operands.clip && clipped) {
      Value bound = createScalarConstant(nested, nestedLoc, x.getType(), *operands.clip);
      Value negated = createScalarConstant(nested, nestedLoc, x.getType(), -*operands.clip);
      x = createFloatClamp(nested, nestedLoc, x, negated, bound);
    }
    size_t index = d * perDirection + k;
    return createActivation(nested, nestedLoc,
                            cast<StringAttr>(operands.activations[index]).getValue(),
                            operands.alphas[index], operands.betas[index], x);
  }

  /// Whether every activation name is one createActivation knows.
  bool activationsKnown() const {
    return llvm::all_of(operands.activations, [](Attribute name) {
      return isActivationName(cast<StringAttr>(name).getValue());
    });
  }

  /// Whether the step `time` is within batch entry `length`'s sequence (an i1), for the
  /// masked forms.
  Value isValidStep(OpBuilder &nested, Location nestedLoc, Value time, Value length) const {
    Value step = indexToInteger(nested, nestedLoc, time, length.getType());
    return arith::CmpIOp::create(nested, nestedLoc, arith::CmpIPredicate::slt, step, length);
  }

  /// A step's generic over [batch, hidden] (createParallelGeneric).
  Value stepGeneric(ValueRange inputs, ArrayRef<AffineMap> maps, ScalarBody body) const {
    return createParallelGeneric(b, loc, stateType(), staticSizes({shape.batch, shape.hidden}),
                                 inputs, maps, body);
  }

  /// The [batch, hidden] slice `y` of a step: the new state, or zeros past the sequence.
  Value stepOutput(Value state, Value time) const {
    if (!operands.sequenceLens)
      return state;
    return stepGeneric(ValueRange{state, operands.sequenceLens}, {stateMap(), batchMap()},
                       [&](OpBuilder &nested, Location nestedLoc, ValueRange args) -> Value {
                         Value valid = isValidStep(nested, nestedLoc, time, args[1]);
                         Value zero =
                             createScalarConstant(nested, nestedLoc, args[0].getType(), 0.0);
                         return arith::SelectOp::create(nested, nestedLoc, valid, args[0], zero);
                       });
  }

  /// `y` ([seq, D, batch, hidden]) with `step` written at time `time`, direction `d`.
  Value writeOutput(Value y, Value step, Value time, int64_t d) const {
    SmallVector<OpFoldResult> offsets{time, b.getIndexAttr(d), b.getIndexAttr(0),
                                      b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = staticSizes({1, 1, shape.batch, shape.hidden});
    SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
    return tensor::InsertSliceOp::create(b, loc, step, y, offsets, sizes, strides);
  }

  /// The final states of the directions, [batch, hidden] each, as a [D, batch, hidden]
  /// (layout 0) or [batch, D, hidden] (layout 1) tensor of `type`.
  Value stackStates(ArrayRef<Value> states, RankedTensorType type) const {
    SmallVector<int64_t> stacked{shape.numDirections, shape.batch, shape.hidden};
    Value result = createEmptyTensor(b, loc, tensorType(stacked), staticSizes(stacked));
    for (auto [d, state] : llvm::enumerate(states)) {
      SmallVector<OpFoldResult> offsets{b.getIndexAttr(d), b.getIndexAttr(0), b.getIndexAttr(0)};
      SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
      result = tensor::InsertSliceOp::create(b, loc, state, result, offsets,
                                             staticSizes({1, shape.batch, shape.hidden}), strides);
    }
    if (shape.batchFirst)
      result = permute(result, {1, 0, 2});
    return castToType(b, loc, result, type);
  }

  /// `value` with its dimensions permuted (the layout 1 results).
  Value permute(Value value, ArrayRef<int64_t> permutation) const {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> extents;
    for (int64_t dim : permutation)
      extents.push_back(type.getDimSize(dim));
    Value init = createEmptyTensor(b, loc, tensorType(extents), staticSizes(extents));
    return linalg::TransposeOp::create(b, loc, value, init, permutation).getResult()[0];
  }

  /// An empty `y` in layout 0.
  Value emptyOutput() const {
    SmallVector<int64_t> extents{shape.seqLength, shape.numDirections, shape.batch, shape.hidden};
    return createEmptyTensor(b, loc, tensorType(extents), staticSizes(extents));
  }

  /// `y` in the op's layout, of `type`.
  Value finishOutput(Value y, RankedTensorType type) const {
    if (shape.batchFirst)
      y = permute(y, {2, 0, 1, 3});
    return castToType(b, loc, y, type);
  }

  /// The time index of loop iteration `iteration` of a direction.
  Value timeIndex(OpBuilder &nested, Location nestedLoc, Value iteration, bool reverse) const {
    if (!reverse)
      return iteration;
    Value last = arith::ConstantIndexOp::create(nested, nestedLoc, shape.seqLength - 1);
    return arith::SubIOp::create(nested, nestedLoc, last, iteration);
  }
};

/// Checks the converted result types of a recurrent op: ranked and static.
LogicalResult checkResults(Operation *op, const TypeConverter &converter,
                           SmallVectorImpl<RankedTensorType> &types) {
  for (unsigned i = 0; i < op->getNumResults(); ++i) {
    RankedTensorType type = getConvertedResultType(converter, op, i);
    if (!type || !type.hasStaticShape())
      return failure();
    types.push_back(type);
  }
  return success();
}

/// The loop of one direction: `step(time, states)` returns the new states, the first of
/// which is H, written to `y` (when `y` is non-null). Returns the final states and `y`.
std::pair<SmallVector<Value>, Value>
buildDirectionLoop(RecurrentBuilder &rb, bool reverse, int64_t d, ValueRange initialStates, Value y,
                   llvm::function_ref<SmallVector<Value>(Value time, ValueRange states)> step) {
  OpBuilder &b = rb.b;
  Location loc = rb.loc;
  SmallVector<Value> iterArgs(initialStates);
  if (y)
    iterArgs.push_back(y);
  Value lower = arith::ConstantIndexOp::create(b, loc, 0);
  Value upper = arith::ConstantIndexOp::create(b, loc, rb.shape.seqLength);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  size_t numStates = initialStates.size();
  auto loop = scf::ForOp::create(
      b, loc, lower, upper, one, iterArgs,
      [&](OpBuilder &nested, Location nestedLoc, Value iteration, ValueRange args) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
        Value time = rb.timeIndex(b, nestedLoc, iteration, reverse);
        SmallVector<Value> states = step(time, args.take_front(numStates));
        SmallVector<Value> yielded(states);
        if (y)
          yielded.push_back(rb.writeOutput(args.back(), rb.stepOutput(states[0], time), time, d));
        scf::YieldOp::create(b, nestedLoc, yielded);
      });
  SmallVector<Value> finals(loop.getResults().take_front(numStates));
  return {finals, y ? loop.getResults().back() : Value()};
}

/// A state update masked by sequence_lens: `computed` where the step is valid, `previous`
/// past the sequence.
Value maskState(OpBuilder &b, Location loc, const RecurrentBuilder &rb, Value time, Value length,
                Value computed, Value previous) {
  if (!length)
    return computed;
  return arith::SelectOp::create(b, loc, rb.isValidStep(b, loc, time, length), computed, previous);
}

//===----------------------------------------------------------------------===//
// RNN
//===----------------------------------------------------------------------===//

/// graph.rnn: Ht = f(Xt * W^T + Wb + Ht-1 * R^T + Rb).
struct RnnLowering : OpConversionPattern<graph::RnnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::RnnOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RecurrentOperands operands = getRecurrentOperands(op, adaptor);
    std::string why;
    FailureOr<RecurrentShape> shape = checkShapes(operands, 1, 1, {operands.initialH}, why);
    if (failed(shape))
      return rewriter.notifyMatchFailure(op, why);
    SmallVector<RankedTensorType> resultTypes;
    if (failed(checkResults(op, *getTypeConverter(), resultTypes)))
      return rewriter.notifyMatchFailure(op, "dynamic or unranked results");
    Location loc = op.getLoc();
    RecurrentBuilder rb(rewriter, loc, *shape, operands, 1);
    if (!rb.activationsKnown())
      return rewriter.notifyMatchFailure(op, "unknown activation");
    int64_t hidden = shape->hidden;
    bool needY = !op.getY().use_empty();
    Value y = needY ? rb.emptyOutput() : Value();
    SmallVector<Value> finalH;
    for (int64_t d = 0; d < shape->numDirections; ++d) {
      Value wT = rb.transpose(rb.weightRows(operands.w, d, 0, hidden));
      Value rT = rb.transpose(rb.weightRows(operands.r, d, 0, hidden));
      Value wBias = rb.broadcastBias(d, 0, hidden);
      Value rBias = rb.broadcastBias(d, hidden, hidden);
      auto [finals, written] = buildDirectionLoop(
          rb, shape->reverse[d], d, {rb.initialState(operands.initialH, d)}, y,
          [&](Value time, ValueRange states) -> SmallVector<Value> {
            Value xw = rb.matmul(rb.inputAt(time), wT, wBias);
            Value hr = rb.matmul(states[0], rT, rBias);
            // Inputs: xw, hr, [Ht-1, lengths].
            SmallVector<Value> inputs{xw, hr};
            SmallVector<AffineMap> maps{rb.stateMap(), rb.stateMap()};
            if (operands.sequenceLens) {
              inputs.append({states[0], operands.sequenceLens});
              maps.append({rb.stateMap(), rb.batchMap()});
            }
            Value h = rb.stepGeneric(
                inputs, maps, [&](OpBuilder &b, Location bodyLoc, ValueRange args) -> Value {
                  Value sum = arith::AddFOp::create(b, bodyLoc, args[0], args[1]);
                  Value computed = rb.activate(b, bodyLoc, d, 0, sum);
                  if (args.size() == 2)
                    return computed;
                  return maskState(b, bodyLoc, rb, time, args[3], computed, args[2]);
                });
            return {h};
          });
      finalH.push_back(finals[0]);
      y = written;
    }
    Value yResult = needY ? rb.finishOutput(y, resultTypes[0])
                          : tensor::EmptyOp::create(rewriter, loc, resultTypes[0].getShape(),
                                                    resultTypes[0].getElementType())
                                .getResult();
    rewriter.replaceOp(op, {yResult, rb.stackStates(finalH, resultTypes[1])});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// GRU
//===----------------------------------------------------------------------===//

/// graph.gru with the gates z, r, h: zt and rt from one generic over both matmuls;
/// ht with linear_before_reset from Ht-1 * Rh^T + Rbh scaled by rt (the same generic),
/// otherwise from a third matmul, (rt (.) Ht-1) * Rh^T + Rbh.
struct GruLowering : OpConversionPattern<graph::GruOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::GruOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RecurrentOperands operands = getRecurrentOperands(op, adaptor);
    std::string why;
    FailureOr<RecurrentShape> shape = checkShapes(operands, 3, 2, {operands.initialH}, why);
    if (failed(shape))
      return rewriter.notifyMatchFailure(op, why);
    SmallVector<RankedTensorType> resultTypes;
    if (failed(checkResults(op, *getTypeConverter(), resultTypes)))
      return rewriter.notifyMatchFailure(op, "dynamic or unranked results");
    Location loc = op.getLoc();
    RecurrentBuilder rb(rewriter, loc, *shape, operands, 2);
    if (!rb.activationsKnown())
      return rewriter.notifyMatchFailure(op, "unknown activation");
    int64_t hidden = shape->hidden;
    bool linearBeforeReset = op.getLinearBeforeReset();
    // The recurrent product covers z and r, and h too when it is taken before the reset.
    int64_t recurrentRows = (linearBeforeReset ? 3 : 2) * hidden;
    bool needY = !op.getY().use_empty();
    Value y = needY ? rb.emptyOutput() : Value();
    SmallVector<Value> finalH;
    for (int64_t d = 0; d < shape->numDirections; ++d) {
      Value wT = rb.transpose(rb.weightRows(operands.w, d, 0, 3 * hidden));
      Value rT = rb.transpose(rb.weightRows(operands.r, d, 0, recurrentRows));
      Value wBias = rb.broadcastBias(d, 0, 3 * hidden);
      Value rBias = rb.broadcastBias(d, 3 * hidden, recurrentRows);
      Value rhT, rhBias;
      if (!linearBeforeReset) {
        rhT = rb.transpose(rb.weightRows(operands.r, d, 2 * hidden, hidden));
        rhBias = rb.broadcastBias(d, 5 * hidden, hidden);
      }
      Value lengths = operands.sequenceLens;
      auto [finals, written] = buildDirectionLoop(
          rb, shape->reverse[d], d, {rb.initialState(operands.initialH, d)}, y,
          [&](Value time, ValueRange states) -> SmallVector<Value> {
            Value previous = states[0];
            Value xw = rb.matmul(rb.inputAt(time), wT, wBias);
            Value hr = rb.matmul(previous, rT, rBias);
            auto gate = [&](OpBuilder &b, Location bodyLoc, size_t k, Value xPart,
                            Value hPart) -> Value {
              return rb.activate(b, bodyLoc, d, k, arith::AddFOp::create(b, bodyLoc, xPart, hPart));
            };
            // Inputs: xw z, r, h; hr z, r, [h]; Ht-1; [the reset product]; [lengths].
            SmallVector<Value> inputs{rb.gate(xw, 0), rb.gate(xw, 1), rb.gate(xw, 2),
                                      rb.gate(hr, 0), rb.gate(hr, 1)};
            SmallVector<AffineMap> maps(5, rb.stateMap());
            if (linearBeforeReset) {
              inputs.push_back(rb.gate(hr, 2));
              maps.push_back(rb.stateMap());
            } else {
              // (rt (.) Ht-1) * Rh^T + Rbh.
              Value reset =
                  rb.stepGeneric(ValueRange{rb.gate(xw, 1), rb.gate(hr, 1), previous},
                                 {rb.stateMap(), rb.stateMap(), rb.stateMap()},
                                 [&](OpBuilder &b, Location bodyLoc, ValueRange args) -> Value {
                                   return arith::MulFOp::create(
                                       b, bodyLoc, gate(b, bodyLoc, 0, args[0], args[1]), args[2]);
                                 });
              inputs.push_back(rb.matmul(reset, rhT, rhBias));
              maps.push_back(rb.stateMap());
            }
            inputs.push_back(previous);
            maps.push_back(rb.stateMap());
            if (lengths) {
              inputs.push_back(lengths);
              maps.push_back(rb.batchMap());
            }
            Value h = rb.stepGeneric(
                inputs, maps, [&](OpBuilder &b, Location bodyLoc, ValueRange args) -> Value {
                  Value z = gate(b, bodyLoc, 0, args[0], args[3]);
                  Value hPart = args[5];
                  if (linearBeforeReset)
                    hPart = arith::MulFOp::create(b, bodyLoc, gate(b, bodyLoc, 0, args[1], args[4]),
                                                  args[5]);
                  Value candidate = gate(b, bodyLoc, 1, args[2], hPart);
                  Value prev = args[6];
                  // (1 - z) * h + z * Ht-1 = h + z * (Ht-1 - h).
                  Value one = createScalarConstant(b, bodyLoc, z.getType(), 1.0);
                  Value keep = arith::SubFOp::create(b, bodyLoc, one, z);
                  Value computed = arith::AddFOp::create(
                      b, bodyLoc, arith::MulFOp::create(b, bodyLoc, keep, candidate),
                      arith::MulFOp::create(b, bodyLoc, z, prev));
                  return maskState(b, bodyLoc, rb, time, lengths ? args[7] : Value(), computed,
                                   prev);
                });
            return {h};
          });
      finalH.push_back(finals[0]);
      y = written;
    }
    Value yResult = needY ? rb.finishOutput(y, resultTypes[0])
                          : tensor::EmptyOp::create(rewriter, loc, resultTypes[0].getShape(),
                                                    resultTypes[0].getElementType())
                                .getResult();
    rewriter.replaceOp(op, {yResult, rb.stackStates(finalH, resultTypes[1])});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// LSTM
//===----------------------------------------------------------------------===//

/// graph.lstm with the gates i, o, f, c (ONNX's order) and peepholes i, o, f: one generic
/// for the cell state Ct (from i, f and c), one for Ht (from o and Ct).
struct LstmLowering : OpConversionPattern<graph::LstmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(graph::LstmOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RecurrentOperands operands = getRecurrentOperands(op, adaptor);
    Value initialC = adaptor.getInitialC();
    Value peepholes = adaptor.getP();
    std::string why;
    FailureOr<RecurrentShape> shape =
        checkShapes(operands, 4, 3, {operands.initialH, initialC}, why);
    if (failed(shape))
      return rewriter.notifyMatchFailure(op, why);
    int64_t hidden = shape->hidden;
    if (peepholes) {
      auto type = dyn_cast<RankedTensorType>(peepholes.getType());
      if (!type || type.getShape() != ArrayRef<int64_t>{shape->numDirections, 3 * hidden} ||
          type.getElementType() != shape->elementType)
        return rewriter.notifyMatchFailure(op, "peepholes of an unexpected shape");
    }
    SmallVector<RankedTensorType> resultTypes;
    if (failed(checkResults(op, *getTypeConverter(), resultTypes)))
      return rewriter.notifyMatchFailure(op, "dynamic or unranked results");
    Location loc = op.getLoc();
    RecurrentBuilder rb(rewriter, loc, *shape, operands, 3);
    if (!rb.activationsKnown())
      return rewriter.notifyMatchFailure(op, "unknown activation");
    bool inputForget = op.getInputForget();
    bool needY = !op.getY().use_empty();
    Value y = needY ? rb.emptyOutput() : Value();
    SmallVector<Value> finalH, finalC;
    enum Gate { InputGate = 0, OutputGate = 1, ForgetGate = 2, CellGate = 3 };
    for (int64_t d = 0; d < shape->numDirections; ++d) {
      Value wT = rb.transpose(rb.weightRows(operands.w, d, 0, 4 * hidden));
      Value rT = rb.transpose(rb.weightRows(operands.r, d, 0, 4 * hidden));
      Value wBias = rb.broadcastBias(d, 0, 4 * hidden);
      Value rBias = rb.broadcastBias(d, 4 * hidden, 4 * hidden);
      // P holds i, o, f.
      Value peepholeI, peepholeO, peepholeF;
      if (peepholes) {
        peepholeI = rb.vectorSlice(peepholes, d, 0);
        peepholeO = rb.vectorSlice(peepholes, d, hidden);
        peepholeF = rb.vectorSlice(peepholes, d, 2 * hidden);
      }
      Value lengths = operands.sequenceLens;
      auto [finals, written] = buildDirectionLoop(
          rb, shape->reverse[d], d,
          {rb.initialState(operands.initialH, d), rb.initialState(initialC, d)}, y,
          [&](Value time, ValueRange states) -> SmallVector<Value> {
            Value previousH = states[0], previousC = states[1];
            Value xw = rb.matmul(rb.inputAt(time), wT, wBias);
            Value hr = rb.matmul(previousH, rT, rBias);
            // The pre-activation of `gate`: xw + hr (+ its peephole times `cell`).
            auto preActivation = [&](OpBuilder &b, Location bodyLoc, Value xPart, Value hPart,
                                     Value peep, Value cell) -> Value {
              Value sum = arith::AddFOp::create(b, bodyLoc, xPart, hPart);
              if (peep)
                sum = arith::AddFOp::create(b, bodyLoc, sum,
                                            arith::MulFOp::create(b, bodyLoc, peep, cell));
              return sum;
            };

            // Ct = ft (.) Ct-1 + it (.) ct. Inputs: xw i, f, c; hr i, f, c; Ct-1;
            // [P i, P f]; [lengths].
            SmallVector<Value> cellInputs{rb.gate(xw, InputGate),
                                          rb.gate(xw, ForgetGate),
                                          rb.gate(xw, CellGate),
                                          rb.gate(hr, InputGate),
                                          rb.gate(hr, ForgetGate),
                                          rb.gate(hr, CellGate),
                                          previousC};
            SmallVector<AffineMap> cellMaps(7, rb.stateMap());
            if (peepholes) {
              cellInputs.append({peepholeI, peepholeF});
              cellMaps.append({rb.vectorMap(), rb.vectorMap()});
            }
            if (lengths) {
              cellInputs.push_back(lengths);
              cellMaps.push_back(rb.batchMap());
            }
            Value cell = rb.stepGeneric(
                cellInputs, cellMaps,
                [&](OpBuilder &b, Location bodyLoc, ValueRange args) -> Value {
                  Value prev = args[6];
                  Value peepI = peepholes ? args[7] : Value();
                  Value peepF = peepholes ? args[8] : Value();
                  Value input = rb.activate(
                      b, bodyLoc, d, 0, preActivation(b, bodyLoc, args[0], args[3], peepI, prev));
                  Value forget;
                  if (inputForget)
                    forget = arith::SubFOp::create(
                        b, bodyLoc, createScalarConstant(b, bodyLoc, input.getType(), 1.0), input);
                  else
                    forget = rb.activate(b, bodyLoc, d, 0,
                                         preActivation(b, bodyLoc, args[1], args[4], peepF, prev));
                  Value candidate = rb.activate(
                      b, bodyLoc, d, 1, arith::AddFOp::create(b, bodyLoc, args[2], args[5]));
                  Value computed = arith::AddFOp::create(
                      b, bodyLoc, arith::MulFOp::create(b, bodyLoc, forget, prev),
                      arith::MulFOp::create(b, bodyLoc, input, candidate));
                  return maskState(b, bodyLoc, rb, time, lengths ? args.back() : Value(), computed,
                                   prev);
                });

            // Ht = ot (.) h(Ct). Inputs: xw o; hr o; Ct; Ht-1; [P o]; [lengths].
            SmallVector<Value> hiddenInputs{rb.gate(xw, OutputGate), rb.gate(hr, OutputGate), cell,
                                            previousH};
            SmallVector<AffineMap> hiddenMaps(4, rb.stateMap());
            if (peepholes) {
              hiddenInputs.push_back(peepholeO);
              hiddenMaps.push_back(rb.vectorMap());
            }
            if (lengths) {
              hiddenInputs.push_back(lengths);
              hiddenMaps.push_back(rb.batchMap());
            }
            Value h = rb.stepGeneric(
                hiddenInputs, hiddenMaps,
                [&](OpBuilder &b, Location bodyLoc, ValueRange args) -> Value {
                  Value peepO = peepholes ? args[4] : Value();
                  Value output =
                      rb.activate(b, bodyLoc, d, 0,
                                  preActivation(b, bodyLoc, args[0], args[1], peepO, args[2]));
                  Value squashed = rb.activate(b, bodyLoc, d, 2, args[2], /*clipped=*/false);
                  Value computed = arith::MulFOp::create(b, bodyLoc, output, squashed);
                  return maskState(b, bodyLoc, rb, time, lengths ? args.back() : Value(), computed,
                                   args[3]);
                });
            return {h, cell};
          });
      finalH.push_back(finals[0]);
      finalC.push_back(finals[1]);
      y = written;
    }
    Value yResult = needY ? rb.finishOutput(y, resultTypes[0])
                          : tensor::EmptyOp::create(rewriter, loc, resultTypes[0].getShape(),
                                                    resultTypes[0].getElementType())
                                .getResult();
    rewriter.replaceOp(op, {yResult, rb.stackStates(finalH, resultTypes[1]),
                            rb.stackStates(finalC, resultTypes[2])});
    return success();
  }
};

} // namespace

void populateRecurrentLowering(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<RnnLowering, GruLowering, LstmLowering>(converter, patterns.getContext());
}

} // namespace kiln::lowering
