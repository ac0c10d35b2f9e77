//===- Reduction.cpp - Converters for the Reduction family ===//

#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"

using namespace mlir;

namespace kiln::onnx {

/// Binds the node's outputs to the results of `op`, or fails when `op` does.
static LogicalResult finish(NodeImporter &node, FailureOr<Operation *> op) {
  if (failed(op))
    return failure();
  return node.setResults((*op)->getResults());
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Reduce* ops. `axesInputOpset` is the opset from which `axes` is an input instead of an
/// attribute (13 for ReduceSum, 18 for the others); `noop_with_empty_axes` arrived with it.
template <typename OpTy, int64_t axesInputOpset>
static LogicalResult convertReduction(NodeImporter &node) {
  auto data = node.requiredInput(0);
  if (failed(data))
    return failure();
  auto keepdims = node.boolAttr("keepdims", true);
  if (failed(keepdims))
    return failure();

  Value axes;
  bool noopWithEmptyAxes = false;
  if (node.opset() >= axesInputOpset) {
    if (node.attribute("axes"))
      return node.error() << "attribute 'axes' is an input since opset " << axesInputOpset;
    auto noop = node.boolAttr("noop_with_empty_axes", false);
    if (failed(noop))
      return failure();
    noopWithEmptyAxes = *noop;
    axes = node.input(1);
  } else {
    if (node.numInputs() > 1)
      return node.error() << "axes are an attribute before opset " << axesInputOpset
                          << ", not an input";
    auto axesAttr = node.intsAttr("axes");
    if (failed(axesAttr))
      return failure();
    // Absent axes reduce over every dimension, which is the default form's missing operand.
    if (*axesAttr)
      axes = node.constantI64(**axesAttr);
  }

  OpBuilder &b = node.builder();
  SmallVector<Value> operands{*data};
  if (axes)
    operands.push_back(axes);
  return finish(node,
                node.create<OpTy>(operands, {b.getNamedAttr("keepdims", b.getBoolAttr(*keepdims)),
                                             b.getNamedAttr("noop_with_empty_axes",
                                                            b.getBoolAttr(noopWithEmptyAxes))}));
}

//===----------------------------------------------------------------------===//
// CumSum
//===----------------------------------------------------------------------===//

static LogicalResult convertCumSum(NodeImporter &node) {
  auto input = node.requiredInput(0);
  auto axis = node.requiredInput(1);
  if (failed(input) || failed(axis))
    return failure();
  auto exclusive = node.boolAttr("exclusive", false);
  auto reverse = node.boolAttr("reverse", false);
  if (failed(exclusive) || failed(reverse))
    return failure();
  OpBuilder &b = node.builder();
  return finish(node, node.create<graph::CumSumOp>(
                          {*input, *axis}, {b.getNamedAttr("exclusive", b.getBoolAttr(*exclusive)),
                                            b.getNamedAttr("reverse", b.getBoolAttr(*reverse))}));
}

//===----------------------------------------------------------------------===//
// ArgMax, ArgMin
//===----------------------------------------------------------------------===//

template <typename OpTy> static LogicalResult convertArgReduction(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  auto axis = node.intAttr("axis", 0);
  auto keepdims = node.boolAttr("keepdims", true);
  if (failed(axis) || failed(keepdims))
    return failure();
  // select_last_index arrived in opset 12; before, ties resolve to the first index.
  bool selectLastIndex = false;
  if (node.opset() >= 12) {
    auto selectLast = node.boolAttr("select_last_index", false);
    if (failed(selectLast))
      return failure();
    selectLastIndex = *selectLast;
  } else if (node.attribute("select_last_index")) {
    return node.error() << "attribute 'select_last_index' needs opset 12 or later";
  }
  OpBuilder &b = node.builder();
  return finish(
      node, node.create<OpTy>(
                {*input}, {b.getNamedAttr("axis", b.getI64IntegerAttr(*axis)),
                           b.getNamedAttr("keepdims", b.getBoolAttr(*keepdims)),
                           b.getNamedAttr("select_last_index", b.getBoolAttr(selectLastIndex))}));
}

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

static LogicalResult convertTopK(NodeImporter &node) {
  auto input = node.requiredInput(0);
  if (failed(input))
    return failure();
  auto axis = node.intAttr("axis", -1);
  if (failed(axis))
    return failure();

  // Opset 1 has k as an attribute; opset 10 made it an input.
  Value k;
  if (node.opset() < 10) {
    if (node.numInputs() > 1)
      return node.error() << "k is an attribute before opset 10, not an input";
    auto kAttr = node.intAttr("k");
    if (failed(kAttr))
      return failure();
    if (!*kAttr)
      return node.error() << "attribute 'k' is required before opset 10";
    if (**kAttr < 0)
      return node.error() << "attribute 'k' must not be negative, got " << **kAttr;
    k = node.constantI64({**kAttr});
  } else {
    if (node.attribute("k"))
      return node.error() << "k is an input since opset 10, not an attribute";
    auto kInput = node.requiredInput(1);
    if (failed(kInput))
      return failure();
    k = *kInput;
  }

  // `largest` and `sorted` arrived in opset 11; earlier TopK returns the sorted largest.
  bool largest = true, sorted = true;
  if (node.opset() >= 11) {
    auto largestAttr = node.boolAttr("largest", true);
    auto sortedAttr = node.boolAttr("sorted", true);
    if (failed(largestAttr) || failed(sortedAttr))
      return failure();
    largest = *largestAttr;
    sorted = *sortedAttr;
  }
  OpBuilder &b = node.builder();
  return finish(node,
                node.create<graph::TopKOp>({*input, k},
                                           {b.getNamedAttr("axis", b.getI64IntegerAttr(*axis)),
                                            b.getNamedAttr("largest", b.getBoolAttr(largest)),
                                            b.getNamedAttr("sorted", b.getBoolAttr(sorted))},
                                           /*numResults=*/2));
}

void addReductionConverters(ConverterRegistry &registry) {
  registry.add("ReduceMean", convertReduction<graph::ReduceMeanOp, 18>);
  registry.add("ReduceSum", convertReduction<graph::ReduceSumOp, 13>);
  registry.add("ReduceMax", convertReduction<graph::ReduceMaxOp, 18>);
  registry.add("ReduceMin", convertReduction<graph::ReduceMinOp, 18>);
  registry.add("ReduceProd", convertReduction<graph::ReduceProdOp, 18>);
  registry.add("ReduceL1", convertReduction<graph::ReduceL1Op, 18>);
  registry.add("ReduceL2", convertReduction<graph::ReduceL2Op, 18>);
  registry.add("ReduceLogSum", convertReduction<graph::ReduceLogSumOp, 18>);
  registry.add("ReduceLogSumExp", convertReduction<graph::ReduceLogSumExpOp, 18>);
  registry.add("ReduceSumSquare", convertReduction<graph::ReduceSumSquareOp, 18>);
  registry.add("CumSum", convertCumSum);
  registry.add("ArgMax", convertArgReduction<graph::ArgMaxOp>);
  registry.add("ArgMin", convertArgReduction<graph::ArgMinOp>);
  registry.add("TopK", convertTopK);
}

} // namespace kiln::onnx
