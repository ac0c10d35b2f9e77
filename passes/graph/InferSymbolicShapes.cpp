//===- InferSymbolicShapes.cpp - Extents from the inputs' named dims -------===//
//
// Runs the symbolic shape analysis (SymbolicShapes.h) over a graph function and gives
// every result the static extents it finds: the constant parts of shapes that a dynamic
// model computes at run time (BERT's reshape to [batch, sequence, 12, 64] becomes
// tensor<?x?x12x64xf32>). With `annotate`, every op also carries what the analysis knows,
// for tests and for people reading the IR.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "passes/graph/Passes.h"
#include "passes/graph/SymbolicShapes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHINFERSYMBOLICSHAPES
#include "passes/graph/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct GraphInferSymbolicShapes
    : kiln::impl::GraphInferSymbolicShapesBase<GraphInferSymbolicShapes> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    kiln::graph::SymbolicShapeAnalysis analysis(function);
    Builder b(&getContext());
    function.walk([&](Operation *op) {
      if (!isa<kiln::graph::GraphDialect>(op->getDialect()))
        return;
      SmallVector<Attribute> dims, values;
      bool anyValues = false;
      for (Value result : op->getResults()) {
        const kiln::graph::SymbolicShape *shape = analysis.lookup(result);
        if (!shape || !shape->ranked) {
          dims.push_back(b.getArrayAttr({}));
          values.push_back(b.getArrayAttr({}));
          continue;
        }
        refine(result, *shape);
        SmallVector<Attribute> extents, elements;
        for (const kiln::graph::DimExpr &dim : shape->dims)
          extents.push_back(b.getStringAttr(analysis.describe(dim)));
        dims.push_back(b.getArrayAttr(extents));
        if (shape->elements) {
          anyValues = true;
          for (const kiln::graph::DimExpr &element : *shape->elements)
            elements.push_back(b.getStringAttr(analysis.describe(element)));
        }
        values.push_back(b.getArrayAttr(elements));
      }
      if (!annotate)
        return;
      op->setAttr("graph.symbolic_dims", b.getArrayAttr(dims));
      if (anyValues)
        op->setAttr("graph.symbolic_values", b.getArrayAttr(values));
    });
    // The function's results follow what it returns.
    Operation *terminator = function.getBody().back().getTerminator();
    function.setFunctionType(FunctionType::get(&getContext(), function.getArgumentTypes(),
                                               llvm::to_vector(terminator->getOperandTypes())));
  }

  /// Gives `result` the static extents `shape` knows (types are only refined: a ranked
  /// type of another rank is left alone).
  static void refine(Value result, const kiln::graph::SymbolicShape &shape) {
    auto tensor = dyn_cast<TensorType>(result.getType());
    if (!tensor)
      return;
    auto ranked = dyn_cast<RankedTensorType>(tensor);
    if (ranked && ranked.getRank() != int64_t(shape.dims.size()))
      return;
    SmallVector<int64_t> extents;
    for (auto [i, dim] : llvm::enumerate(shape.dims)) {
      std::optional<int64_t> constant = dim.getConstant();
      int64_t current = ranked ? ranked.getDimSize(i) : ShapedType::kDynamic;
      extents.push_back(ShapedType::isDynamic(current) && constant && *constant >= 0 ? *constant
                                                                                     : current);
    }
    result.setType(RankedTensorType::get(extents, tensor.getElementType(),
                                         ranked ? ranked.getEncoding() : Attribute()));
  }
};

} // namespace
