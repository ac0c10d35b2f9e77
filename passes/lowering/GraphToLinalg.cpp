//===- GraphToLinalg.cpp - Lower the graph dialect to linalg on tensors ---===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "passes/lowering/Passes.h"
#include "passes/lowering/graph-to-linalg/Lowering.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/IR/Diagnostics.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHTOLINALG
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct GraphToLinalgPass : kiln::impl::GraphToLinalgBase<GraphToLinalgPass> {
  using GraphToLinalgBase::GraphToLinalgBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    ModuleOp module = getOperation();
    kiln::lowering::GraphTypeConverter converter;

    RewritePatternSet patterns(context);
    kiln::lowering::populateGraphToLinalgPatterns(converter, patterns);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*context);
    target.addLegalDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                           linalg::LinalgDialect, math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) && converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });

    // Graph ops are left "unknown" rather than illegal, so the conversion lowers every
    // op it can and keeps going; what remains has no lowering for its form and is named
    // below in the user's terms (op, ONNX node), once per op.
    FrozenRewritePatternSet frozen(std::move(patterns));
    if (failed(applyPartialConversion(module, target, frozen)))
      return signalPassFailure();

    // Name every op the conversion could not lower, once per op kind and node.
    bool complete = true;
    module.walk([&](Operation *op) {
      if (!isa_and_nonnull<kiln::graph::GraphDialect>(op->getDialect()))
        return;
      complete = false;
      std::string node = kiln::graph::getNodeName(op->getLoc());
      InFlightDiagnostic diagnostic = op->emitError();
      if (!node.empty())
        diagnostic << "node '" << node << "' (" << op->getName() << "): ";
      else
        diagnostic << op->getName() << ": ";
      diagnostic << "not supported on " << path << ": no lowering for this form (operand types";
      for (Type type : op->getOperandTypes())
        diagnostic << " " << type;
      diagnostic << ")";
    });
    if (!complete)
      signalPassFailure();
  }
};

} // namespace
