//===- ExtentKernels.cpp - What data-dependent templates match in a body ---===//

#include "passes/kernel/ExtentKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

bool kiln::yieldsExtent(Value yielded, Value value, int64_t axis) {
  auto elements = yielded.getDefiningOp<tensor::FromElementsOp>();
  if (!elements || elements.getElements().size() != 1)
    return false;
  auto cast = elements.getElements()[0].getDefiningOp<arith::IndexCastOp>();
  auto dim = cast ? cast.getIn().getDefiningOp<tensor::DimOp>() : tensor::DimOp();
  std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
  return index && *index == axis && dim.getSource() == value && cast.getType().isInteger(64);
}

std::optional<unsigned> kiln::entryArgumentOf(Value value, Block &body, ValueRange inputs,
                                              Block &entry) {
  auto inner = dyn_cast<BlockArgument>(value);
  if (!inner || inner.getOwner() != &body || inner.getArgNumber() >= inputs.size())
    return std::nullopt;
  auto outer = dyn_cast<BlockArgument>(inputs[inner.getArgNumber()]);
  if (!outer || outer.getOwner() != &entry)
    return std::nullopt;
  return outer.getArgNumber();
}
