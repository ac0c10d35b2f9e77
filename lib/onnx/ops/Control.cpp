//===- Control.cpp - Converters for If, Loop and Scan ---------------------===//

#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::onnx {

/// A type both `a` and `b` refine: extents that differ become dynamic, ranks that differ
/// unranked. Null when the element types differ.
static Type join(Type a, Type b) {
  auto lhs = cast<TensorType>(a), rhs = cast<TensorType>(b);
  if (lhs.getElementType() != rhs.getElementType())
    return nullptr;
  if (!lhs.hasRank() || !rhs.hasRank() || lhs.getRank() != rhs.getRank())
    return UnrankedTensorType::get(lhs.getElementType());
  SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip(lhs.getShape(), rhs.getShape()))
    shape.push_back(x == y ? x : ShapedType::kDynamic);
  return RankedTensorType::get(shape, lhs.getElementType());
}

/// `type` with every extent dynamic: what a value that may change shape between
/// iterations is known to be.
static Type anyExtents(Type type) {
  auto tensor = cast<TensorType>(type);
  if (!tensor.hasRank())
    return tensor;
  return RankedTensorType::get(SmallVector<int64_t>(tensor.getRank(), ShapedType::kDynamic),
                               tensor.getElementType());
}

/// `slice` stacked `extent` times along a new dimension at `axis`.
static Type stacked(Type slice, int64_t extent, int64_t axis) {
  auto tensor = cast<TensorType>(slice);
  if (!tensor.hasRank())
    return tensor;
  SmallVector<int64_t> shape(tensor.getShape());
  shape.insert(shape.begin() + axis, extent);
  return RankedTensorType::get(shape, tensor.getElementType());
}

/// The type of a value carried from one iteration to the next: what the subgraph
/// declares for its input when that agrees with the initial value, else the initial
/// value's rank and element type.
static Type carriedType(NodeImporter &node, llvm::StringRef body, size_t index, Type initial) {
  Type declared = node.subgraphInputType(body, index);
  if (declared &&
      cast<TensorType>(declared).getElementType() == cast<TensorType>(initial).getElementType() &&
      succeeded(verifyCompatibleShape(declared, initial)))
    return declared;
  return anyExtents(initial);
}

/// Sets the results of a control-flow op, verifies it and binds the node's outputs.
static LogicalResult finish(NodeImporter &node, Operation *op, ArrayRef<Type> resultTypes) {
  for (auto [result, type] : llvm::zip(op->getResults(), resultTypes))
    result.setType(type);
  if (failed(node.verify(op)))
    return failure();
  return node.setResults(op->getResults());
}

static LogicalResult convertIf(NodeImporter &node) {
  auto condition = node.requiredInput(0);
  auto thenArity = node.subgraphArity("then_branch");
  auto elseArity = node.subgraphArity("else_branch");
  if (failed(condition) || failed(thenArity) || failed(elseArity))
    return failure();
  size_t count = thenArity->second;
  if (thenArity->first != 0 || elseArity->first != 0)
    return node.error() << "the branches of If take no inputs";
  if (elseArity->second != count)
    return node.error() << "then_branch has " << count << " outputs, else_branch "
                        << elseArity->second;

  Operation *op =
      node.createWithRegions(graph::IfOp::getOperationName(), {*condition}, {}, count, 2);
  auto thenTypes = node.importSubgraph("then_branch", op->getRegion(0), {});
  if (failed(thenTypes))
    return failure();
  auto elseTypes = node.importSubgraph("else_branch", op->getRegion(1), {});
  if (failed(elseTypes))
    return failure();
  SmallVector<Type> resultTypes;
  for (auto [index, pair] : llvm::enumerate(llvm::zip(*thenTypes, *elseTypes))) {
    Type type = join(std::get<0>(pair), std::get<1>(pair));
    if (!type)
      return node.error() << "output " << index << " has element type "
                          << cast<TensorType>(std::get<0>(pair)).getElementType()
                          << " in then_branch but "
                          << cast<TensorType>(std::get<1>(pair)).getElementType()
                          << " in else_branch";
    resultTypes.push_back(type);
  }
  return finish(node, op, resultTypes);
}

static LogicalResult convertLoop(NodeImporter &node) {
  Value maxTripCount = node.input(0), condition = node.input(1);
  SmallVector<Value> initial;
  for (size_t i = 2; i < node.numInputs(); ++i) {
    auto value = node.requiredInput(i);
    if (failed(value))
      return failure();
    initial.push_back(*value);
  }
  auto arity = node.subgraphArity("body");
  if (failed(arity))
    return failure();
  size_t carried = initial.size();
  if (arity->first != carried + 2)
    return node.error() << "the body takes " << arity->first
                        << " inputs; expected the iteration number, the condition and " << carried
                        << " carried values";
  if (arity->second < carried + 1)
    return node.error() << "the body has " << arity->second << " outputs; expected at least "
                        << carried + 1;
  size_t scanOutputs = arity->second - 1 - carried;

  OpBuilder &b = node.builder();
  auto i64 = RankedTensorType::get({}, b.getI64Type());
  auto i1 = RankedTensorType::get({}, b.getI1Type());
  SmallVector<Type> argumentTypes{carriedType(node, "body", 0, i64),
                                  carriedType(node, "body", 1, i1)};
  for (auto [index, value] : llvm::enumerate(initial))
    argumentTypes.push_back(carriedType(node, "body", index + 2, value.getType()));

  SmallVector<Value> operands;
  if (maxTripCount)
    operands.push_back(maxTripCount);
  if (condition)
    operands.push_back(condition);
  llvm::append_range(operands, initial);
  auto segments = b.getNamedAttr(
      "operandSegmentSizes",
      b.getDenseI32ArrayAttr({maxTripCount ? 1 : 0, condition ? 1 : 0, int32_t(carried)}));
  Operation *op = node.createWithRegions(graph::LoopOp::getOperationName(), operands, {segments},
                                         carried + scanOutputs, 1);
  auto yielded = node.importSubgraph("body", op->getRegion(0), argumentTypes);
  if (failed(yielded))
    return failure();

  // Without a condition, a constant trip count is the scan outputs' leading extent.
  int64_t iterations = ShapedType::kDynamic;
  if (auto count = node.constantInts(0); count && count->size() == 1 && !condition)
    iterations = (*count)[0];
  SmallVector<Type> resultTypes;
  for (size_t i = 0; i < carried; ++i) {
    Type type = join(initial[i].getType(), (*yielded)[i + 1]);
    if (!type)
      return node.error() << "carried value " << i << " changes element type in the body";
    resultTypes.push_back(join(type, argumentTypes[i + 2]));
  }
  for (size_t j = 0; j < scanOutputs; ++j)
    resultTypes.push_back(stacked((*yielded)[1 + carried + j], iterations, 0));
  return finish(node, op, resultTypes);
}

static int64_t rankOf(Type type) {
  auto tensor = cast<TensorType>(type);
  return tensor.hasRank() ? tensor.getRank() : -1;
}

/// Checks Scan's `axes` against the `ranks` of the values they index (-1: unknown) and
/// makes negative ones (counted from the back, as the newest opset allows) non-negative.
static LogicalResult checkAxes(NodeImporter &node, llvm::StringRef name,
                               SmallVectorImpl<int64_t> &axes, ArrayRef<int64_t> ranks) {
  if (axes.size() != ranks.size())
    return node.error() << name << " has " << axes.size() << " entries for " << ranks.size()
                        << " values";
  for (auto [axis, rank] : llvm::zip(axes, ranks)) {
    if (axis < 0 && rank < 0)
      return node.error() << "negative " << name << " need values of known rank";
    if (axis < 0)
      axis += rank;
    if (axis < 0 || (rank >= 0 && axis >= rank))
      return node.error() << name << " entry is out of range for rank " << rank;
  }
  return success();
}

static FailureOr<SmallVector<int64_t>> directions(NodeImporter &node, llvm::StringRef name,
                                                  size_t count) {
  auto values = node.intsAttr(name);
  if (failed(values))
    return failure();
  SmallVector<int64_t> result = values->value_or(SmallVector<int64_t>(count, 0));
  if (result.size() != count)
    return LogicalResult(node.error() << name << " has " << result.size() << " entries for "
                                      << count << " values");
  return result;
}

/// Builds a graph.scan of the node's body over `states` and `inputs` at the builder's
/// insertion point, with the newest opset's attributes; returns it with its result types
/// set (not yet verified).
static FailureOr<Operation *> buildScan(NodeImporter &node, ArrayRef<Value> states,
                                        ArrayRef<Value> inputs, ArrayRef<int64_t> inputAxes,
                                        ArrayRef<int64_t> inputDirections,
                                        std::optional<SmallVector<int64_t>> outputAxesAttr,
                                        std::optional<SmallVector<int64_t>> outputDirectionsAttr) {
  auto arity = node.subgraphArity("body");
  if (failed(arity))
    return failure();
  if (arity->first != states.size() + inputs.size() || arity->second < states.size())
    return LogicalResult(node.error() << "the body takes " << arity->first << " inputs and has "
                                      << arity->second << " outputs for " << states.size()
                                      << " states and " << inputs.size() << " scan inputs");
  size_t outputs = arity->second - states.size();
  SmallVector<int64_t> outputDirections =
      outputDirectionsAttr.value_or(SmallVector<int64_t>(outputs, 0));
  if (outputDirections.size() != outputs)
    return LogicalResult(node.error() << "scan_output_directions has " << outputDirections.size()
                                      << " entries for " << outputs << " scan outputs");

  // The body sees the states and one slice of each scan input.
  SmallVector<Type> argumentTypes;
  for (auto [index, state] : llvm::enumerate(states))
    argumentTypes.push_back(carriedType(node, "body", index, state.getType()));
  int64_t sequenceLength = ShapedType::kDynamic;
  for (auto [input, axis] : llvm::zip(inputs, inputAxes)) {
    auto type = cast<TensorType>(input.getType());
    if (!type.hasRank()) {
      argumentTypes.push_back(type);
      continue;
    }
    SmallVector<int64_t> shape(type.getShape());
    if (!ShapedType::isDynamic(shape[axis]))
      sequenceLength = shape[axis];
    shape.erase(shape.begin() + axis);
    argumentTypes.push_back(RankedTensorType::get(shape, type.getElementType()));
  }

  OpBuilder &b = node.builder();
  SmallVector<Value> operands(states);
  llvm::append_range(operands, inputs);
  // Output axes are checked once the body's outputs, and so their ranks, are known.
  SmallVector<int64_t> placeholderAxes(outputs, 0);
  Operation *op = node.createWithRegions(
      graph::ScanOp::getOperationName(), operands,
      {b.getNamedAttr("operandSegmentSizes",
                      b.getDenseI32ArrayAttr({int32_t(states.size()), int32_t(inputs.size())})),
       b.getNamedAttr("scan_input_axes", b.getDenseI64ArrayAttr(inputAxes)),
       b.getNamedAttr("scan_input_directions", b.getDenseI64ArrayAttr(inputDirections)),
       b.getNamedAttr("scan_output_axes", b.getDenseI64ArrayAttr(placeholderAxes)),
       b.getNamedAttr("scan_output_directions", b.getDenseI64ArrayAttr(outputDirections))},
      states.size() + outputs, 1);
  auto yielded = node.importSubgraph("body", op->getRegion(0), argumentTypes);
  if (failed(yielded))
    return failure();

  SmallVector<int64_t> outputRanks;
  for (size_t j = 0; j < outputs; ++j) {
    int64_t rank = rankOf((*yielded)[states.size() + j]);
    outputRanks.push_back(rank < 0 ? -1 : rank + 1);
  }
  SmallVector<int64_t> outputAxes = outputAxesAttr.value_or(SmallVector<int64_t>(outputs, 0));
  if (failed(checkAxes(node, "scan_output_axes", outputAxes, outputRanks)))
    return failure();
  op->setAttr("scan_output_axes", b.getDenseI64ArrayAttr(outputAxes));

  for (auto [index, state] : llvm::enumerate(states)) {
    Type type = join(state.getType(), (*yielded)[index]);
    if (!type)
      return LogicalResult(node.error()
                           << "state " << index << " changes element type in the body");
    op->getResult(index).setType(join(type, argumentTypes[index]));
  }
  for (size_t j = 0; j < outputs; ++j)
    op->getResult(states.size() + j)
        .setType(stacked((*yielded)[states.size() + j], sequenceLength, outputAxes[j]));
  return op;
}

/// The node's inputs from `first` on, all required.
static FailureOr<SmallVector<Value>> inputsFrom(NodeImporter &node, size_t first) {
  SmallVector<Value> values;
  for (size_t i = first; i < node.numInputs(); ++i) {
    auto value = node.requiredInput(i);
    if (failed(value))
      return failure();
    values.push_back(*value);
  }
  return values;
}

/// Scan-8 runs its body for each batch entry (dimension 0 of every state and scan input;
/// scan inputs scan along dimension 1). In the newest form that is a graph.loop over the
/// batch whose body takes one entry of each operand and runs a graph.scan; the loop
/// stacks the per-entry results back along dimension 0. Per-entry sequence lengths other
/// than the full one are not supported.
static LogicalResult convertBatchedScan(NodeImporter &node) {
  if (node.input(0))
    return node.error() << "Scan-8 with sequence_lens is not supported; omit it to scan "
                           "every sequence in full";
  auto numScanInputs = node.intAttr("num_scan_inputs");
  auto operands = inputsFrom(node, 1);
  if (failed(numScanInputs) || failed(operands))
    return failure();
  if (!*numScanInputs || **numScanInputs < 1 || size_t(**numScanInputs) > operands->size())
    return node.error() << "num_scan_inputs must be between 1 and the number of scan operands";
  size_t inputs = **numScanInputs, states = operands->size() - inputs;
  auto inputDirections = directions(node, "directions", inputs);
  if (failed(inputDirections))
    return failure();

  // The batch extent drives the loop.
  auto first = dyn_cast<RankedTensorType>((*operands)[0].getType());
  if (!first || first.getRank() < 1)
    return node.error() << "Scan-8 needs operands of known rank with a batch dimension";
  OpBuilder &b = node.builder();
  auto i64 = RankedTensorType::get({}, b.getI64Type());
  auto i1 = RankedTensorType::get({}, b.getI1Type());
  Value batch;
  if (!first.isDynamicDim(0)) {
    batch = node.constant(DenseElementsAttr::get(i64, first.getDimSize(0)));
  } else {
    auto shape = node.create<graph::ShapeOp>({(*operands)[0]},
                                             {b.getNamedAttr("start", b.getI64IntegerAttr(0)),
                                              b.getNamedAttr("end", b.getI64IntegerAttr(1))});
    if (failed(shape))
      return failure();
    auto scalar =
        node.create<graph::ReshapeOp>({(*shape)->getResult(0), node.constantI64({})},
                                      {b.getNamedAttr("allowzero", b.getBoolAttr(false))});
    if (failed(scalar))
      return failure();
    batch = (*scalar)->getResult(0);
  }

  auto arity = node.subgraphArity("body");
  if (failed(arity))
    return failure();
  Operation *loop = node.createWithRegions(
      graph::LoopOp::getOperationName(), {batch},
      {b.getNamedAttr("operandSegmentSizes", b.getDenseI32ArrayAttr({1, 0, 0}))}, arity->second, 1);
  Block *body = new Block();
  loop->getRegion(0).push_back(body);
  Value index = body->addArgument(i64, node.loc());
  Value condition = body->addArgument(i1, node.loc());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(body);
    SmallVector<Value> entries;
    for (Value operand : *operands) {
      auto entry = node.create<graph::GatherOp>({operand, index},
                                                {b.getNamedAttr("axis", b.getI64IntegerAttr(0))});
      if (failed(entry))
        return failure();
      entries.push_back((*entry)->getResult(0));
    }
    ArrayRef<Value> entryStates = ArrayRef(entries).take_front(states);
    ArrayRef<Value> entryInputs = ArrayRef(entries).drop_front(states);
    auto scan = buildScan(node, entryStates, entryInputs, SmallVector<int64_t>(inputs, 0),
                          *inputDirections, std::nullopt, std::nullopt);
    if (failed(scan))
      return failure();
    SmallVector<Value> yielded{condition};
    llvm::append_range(yielded, (*scan)->getResults());
    graph::YieldOp::create(b, node.loc(), yielded);
  }
  SmallVector<Type> resultTypes;
  int64_t batchExtent = first.getDimSize(0);
  for (Operation &op : *body)
    if (auto scan = dyn_cast<graph::ScanOp>(op))
      for (Type type : scan.getResultTypes())
        resultTypes.push_back(stacked(type, batchExtent, 0));
  return finish(node, loop, resultTypes);
}

static LogicalResult convertScan(NodeImporter &node) {
  if (node.opset() < 9)
    return convertBatchedScan(node);
  auto numScanInputs = node.intAttr("num_scan_inputs");
  auto operands = inputsFrom(node, 0);
  if (failed(numScanInputs) || failed(operands))
    return failure();
  if (!*numScanInputs || **numScanInputs < 1 || size_t(**numScanInputs) > operands->size())
    return node.error() << "num_scan_inputs must be between 1 and the number of inputs";
  size_t inputs = **numScanInputs, states = operands->size() - inputs;
  ArrayRef<Value> stateValues = ArrayRef(*operands).take_front(states);
  ArrayRef<Value> inputValues = ArrayRef(*operands).drop_front(states);

  SmallVector<int64_t> inputRanks;
  for (Value input : inputValues)
    inputRanks.push_back(rankOf(input.getType()));
  auto inputAxesAttr = node.intsAttr("scan_input_axes");
  auto inputDirections = directions(node, "scan_input_directions", inputs);
  auto outputAxes = node.intsAttr("scan_output_axes");
  auto outputDirections = node.intsAttr("scan_output_directions");
  if (failed(inputAxesAttr) || failed(inputDirections) || failed(outputAxes) ||
      failed(outputDirections))
    return failure();
  SmallVector<int64_t> inputAxes = inputAxesAttr->value_or(SmallVector<int64_t>(inputs, 0));
  if (failed(checkAxes(node, "scan_input_axes", inputAxes, inputRanks)))
    return failure();
  auto scan = buildScan(node, stateValues, inputValues, inputAxes, *inputDirections, *outputAxes,
                        *outputDirections);
  if (failed(scan))
    return failure();
  SmallVector<Type> resultTypes((*scan)->getResultTypes());
  return finish(node, *scan, resultTypes);
}

void addControlConverters(ConverterRegistry &registry) {
  registry.add("If", convertIf);
  registry.add("Loop", convertLoop);
  registry.add("Scan", convertScan);
}

} // namespace kiln::onnx
