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

/// Scan's axes (as in the newest opset: negative counts from the back), checked against
/// `ranks` and made non-negative; `defaults` to 0 for each when absent.
static FailureOr<SmallVector<int64_t>> scanAxes(NodeImporter &node, llvm::StringRef name,
                                                ArrayRef<int64_t> ranks) {
  auto axes = node.intsAttr(name);
  if (failed(axes))
    return failure();
  SmallVector<int64_t> result = axes->value_or(SmallVector<int64_t>(ranks.size(), 0));
  if (result.size() != ranks.size())
    return LogicalResult(node.error() << name << " has " << result.size() << " entries for "
                                      << ranks.size() << " values");
  for (auto [axis, rank] : llvm::zip(result, ranks)) {
    if (axis < 0 && rank < 0)
      return LogicalResult(node.error() << "negative " << name << " need values of known rank");
    if (axis < 0)
      axis += rank;
    if (axis < 0 || (rank >= 0 && axis >= rank))
      return LogicalResult(node.error() << name << " entry is out of range for rank " << rank);
  }
  return result;
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

static int64_t rankOf(Type type) {
  auto tensor = cast<TensorType>(type);
  return tensor.hasRank() ? tensor.getRank() : -1;
}

static LogicalResult convertScan(NodeImporter &node) {
  if (node.opset() < 9)
    return node.error() << "Scan before opset 9 (batched, with sequence_lens) is not supported";
  auto numScanInputs = node.intAttr("num_scan_inputs");
  auto arity = node.subgraphArity("body");
  if (failed(numScanInputs) || failed(arity))
    return failure();
  if (!*numScanInputs || **numScanInputs < 1 || size_t(**numScanInputs) > node.numInputs())
    return node.error() << "num_scan_inputs must be between 1 and the number of inputs";
  size_t inputs = **numScanInputs, states = node.numInputs() - inputs;
  SmallVector<Value> operands;
  for (size_t i = 0; i < node.numInputs(); ++i) {
    auto value = node.requiredInput(i);
    if (failed(value))
      return failure();
    operands.push_back(*value);
  }
  if (arity->first != states + inputs || arity->second < states)
    return node.error() << "the body takes " << arity->first << " inputs and has " << arity->second
                        << " outputs for " << states << " states and " << inputs << " scan inputs";
  size_t outputs = arity->second - states;

  SmallVector<int64_t> inputRanks;
  for (size_t j = 0; j < inputs; ++j)
    inputRanks.push_back(rankOf(operands[states + j].getType()));
  auto inputAxes = scanAxes(node, "scan_input_axes", inputRanks);
  auto inputDirections = directions(node, "scan_input_directions", inputs);
  auto outputDirections = directions(node, "scan_output_directions", outputs);
  if (failed(inputAxes) || failed(inputDirections) || failed(outputDirections))
    return failure();

  // The body sees the states and one slice of each scan input.
  SmallVector<Type> argumentTypes;
  for (size_t i = 0; i < states; ++i)
    argumentTypes.push_back(carriedType(node, "body", i, operands[i].getType()));
  int64_t sequenceLength = ShapedType::kDynamic;
  for (size_t j = 0; j < inputs; ++j) {
    auto type = cast<TensorType>(operands[states + j].getType());
    if (!type.hasRank()) {
      argumentTypes.push_back(type);
      continue;
    }
    SmallVector<int64_t> shape(type.getShape());
    int64_t extent = shape[(*inputAxes)[j]];
    if (!ShapedType::isDynamic(extent))
      sequenceLength = extent;
    shape.erase(shape.begin() + (*inputAxes)[j]);
    argumentTypes.push_back(RankedTensorType::get(shape, type.getElementType()));
  }

  OpBuilder &b = node.builder();
  // Output axes are checked once the body's outputs, and so their ranks, are known.
  auto outputAxesAttr = node.intsAttr("scan_output_axes");
  if (failed(outputAxesAttr))
    return failure();
  SmallVector<int64_t> placeholderAxes(outputs, 0);
  Operation *op = node.createWithRegions(
      graph::ScanOp::getOperationName(), operands,
      {b.getNamedAttr("operandSegmentSizes",
                      b.getDenseI32ArrayAttr({int32_t(states), int32_t(inputs)})),
       b.getNamedAttr("scan_input_axes", b.getDenseI64ArrayAttr(*inputAxes)),
       b.getNamedAttr("scan_input_directions", b.getDenseI64ArrayAttr(*inputDirections)),
       b.getNamedAttr("scan_output_axes", b.getDenseI64ArrayAttr(placeholderAxes)),
       b.getNamedAttr("scan_output_directions", b.getDenseI64ArrayAttr(*outputDirections))},
      states + outputs, 1);
  auto yielded = node.importSubgraph("body", op->getRegion(0), argumentTypes);
  if (failed(yielded))
    return failure();

  SmallVector<int64_t> outputRanks;
  for (size_t j = 0; j < outputs; ++j) {
    int64_t rank = rankOf((*yielded)[states + j]);
    outputRanks.push_back(rank < 0 ? -1 : rank + 1);
  }
  auto outputAxes = scanAxes(node, "scan_output_axes", outputRanks);
  if (failed(outputAxes))
    return failure();
  op->setAttr("scan_output_axes", b.getDenseI64ArrayAttr(*outputAxes));

  SmallVector<Type> resultTypes;
  for (size_t i = 0; i < states; ++i) {
    Type type = join(operands[i].getType(), (*yielded)[i]);
    if (!type)
      return node.error() << "state " << i << " changes element type in the body";
    resultTypes.push_back(join(type, argumentTypes[i]));
  }
  for (size_t j = 0; j < outputs; ++j)
    resultTypes.push_back(stacked((*yielded)[states + j], sequenceLength, (*outputAxes)[j]));
  return finish(node, op, resultTypes);
}

void addControlConverters(ConverterRegistry &registry) {
  registry.add("If", convertIf);
  registry.add("Loop", convertLoop);
  registry.add("Scan", convertScan);
}

} // namespace kiln::onnx
