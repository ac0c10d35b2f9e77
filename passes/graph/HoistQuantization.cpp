//===- HoistQuantization.cpp - Quantize before the ops it commutes with ---===//
//
// graph-hoist-quantization: a QuantizeLinear after a MaxPool moves in front of it.
// Per-tensor quantization with a positive scale is monotonic (x <= y gives
// q(x) <= q(y): a division by the scale, rounding, saturation), so the largest of a window
// quantized is the quantization of its largest:
//
//   Q(max_pool(x)) == max_pool(Q(x))
//
// and the pooling's padding, which never wins a maximum, stays out of it. A network's
// stem (conv, ReLU, MaxPool, then the quantized convs of its first block) then stores
// int8 from the conv's epilogue and pools int8: a quarter of the bytes of the f32 pool,
// half those of the f16 one, and no quantization kernel of its own after it.
//
// A MaxPool moves when every reader of its values is a QuantizeLinear by the same scalar
// constant scale (positive) and zero point, and its indices are not read.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/graph/ConstantBytes.h"
#include "passes/graph/Passes.h"

#include "llvm/ADT/STLExtras.h"

#include <cstring>

namespace kiln {
#define GEN_PASS_DEF_GRAPHHOISTQUANTIZATION
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;

namespace {

/// The bytes of a constant operand, or nullopt (absent operands read as empty).
std::optional<std::vector<char>> constantBytes(Value value) {
  if (!value)
    return std::vector<char>{};
  return graph::readConstantBytes(value);
}

/// Whether `scale` is one positive f32.
bool isPositiveScalarScale(Value scale) {
  auto type = dyn_cast<RankedTensorType>(scale.getType());
  if (!type || !type.getElementType().isF32() || !type.hasStaticShape() ||
      type.getNumElements() != 1)
    return false;
  std::optional<std::vector<float>> values = graph::readF32Constant(scale);
  return values && values->size() == 1 && values->front() > 0;
}

/// Whether `a` and `b` quantize alike: the same scale and zero point values, saturation
/// and result type.
bool quantizeAlike(graph::QuantizeLinearOp a, graph::QuantizeLinearOp b) {
  return a.getType() == b.getType() && a.getSaturate() == b.getSaturate() &&
         constantBytes(a.getScale()) == constantBytes(b.getScale()) &&
         constantBytes(a.getZeroPoint()) == constantBytes(b.getZeroPoint()) &&
         a.getZeroPoint().getType() == b.getZeroPoint().getType();
}

/// The QuantizeLinear ops that read all of `pool`'s values, when they quantize alike
/// and may move in front of it; empty otherwise.
SmallVector<graph::QuantizeLinearOp> movableQuantizations(graph::MaxPoolOp pool) {
  if (!pool.getIndices().use_empty() || pool.getResult().use_empty())
    return {};
  SmallVector<graph::QuantizeLinearOp> quantizations;
  for (Operation *user : pool.getResult().getUsers()) {
    auto quantize = dyn_cast<graph::QuantizeLinearOp>(user);
    if (!quantize || quantize.getInput() != pool.getResult() ||
        !isPositiveScalarScale(quantize.getScale()) || !constantBytes(quantize.getScale()) ||
        !constantBytes(quantize.getZeroPoint()) ||
        (!quantizations.empty() && !quantizeAlike(quantizations.front(), quantize)))
      return {};
    quantizations.push_back(quantize);
  }
  return quantizations;
}

struct GraphHoistQuantization : kiln::impl::GraphHoistQuantizationBase<GraphHoistQuantization> {
  void runOnOperation() override {
    SmallVector<graph::MaxPoolOp> pools;
    getOperation().walk([&](graph::MaxPoolOp pool) { pools.push_back(pool); });
    for (graph::MaxPoolOp pool : pools) {
      SmallVector<graph::QuantizeLinearOp> quantizations = movableQuantizations(pool);
      if (quantizations.empty())
        continue;
      graph::QuantizeLinearOp first = quantizations.front();
      // The scale and zero point are constants, so they may be read before the pool.
      OpBuilder builder(pool);
      auto inputType = cast<RankedTensorType>(pool.getInput().getType());
      Type integer = first.getType().getElementType();
      auto quantized = graph::QuantizeLinearOp::create(
          builder, first.getLoc(), inputType.clone(integer), pool.getInput(),
          builder.clone(*first.getScale().getDefiningOp())->getResult(0),
          first.getZeroPoint() ? builder.clone(*first.getZeroPoint().getDefiningOp())->getResult(0)
                               : Value(),
          first.getAxisAttr(), first.getSaturateAttr(), first.getBlockSizeAttr());
      Operation *pooled = builder.clone(*pool);
      pooled->setOperand(0, quantized);
      pooled->getResult(0).setType(first.getType());
      for (graph::QuantizeLinearOp quantize : quantizations) {
        quantize.getResult().replaceAllUsesWith(pooled->getResult(0));
        quantize.erase();
      }
      pool.erase();
      ++numHoisted;
    }
  }
};

} // namespace
