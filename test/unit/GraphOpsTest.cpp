//===- GraphOpsTest.cpp - Building graph ops through the C++ API ----------===//

#include "dialects/graph/GraphOps.h"
#include "lib/init/Registration.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace kiln::graph;

namespace {

class GraphOpsTest : public ::testing::Test {
protected:
  GraphOpsTest() {
    DialectRegistry registry;
    kiln::registerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// A value of type `type` to use as an operand: a block argument of a scratch block.
  Value valueOf(Type type) { return scratch.addArgument(type, builder.getUnknownLoc()); }

  MLIRContext context;
  OpBuilder builder{&context};
  Block scratch;
};

TEST_F(GraphOpsTest, ConvBuilderInfersTheResultType) {
  Type f32 = builder.getF32Type();
  Value input = valueOf(RankedTensorType::get({ShapedType::kDynamic, 3, 224, 224}, f32));
  Value weight = valueOf(RankedTensorType::get({64, 3, 7, 7}, f32));
  builder.setInsertionPointToEnd(&scratch);
  auto conv =
      ConvOp::create(builder, builder.getUnknownLoc(), input, weight, Value(),
                     builder.getDenseI64ArrayAttr({2, 2}), builder.getDenseI64ArrayAttr({1, 1}),
                     builder.getDenseI64ArrayAttr({3, 3, 3, 3}), builder.getI64IntegerAttr(1));
  EXPECT_EQ(conv.getType(), RankedTensorType::get({ShapedType::kDynamic, 64, 112, 112}, f32));
  EXPECT_TRUE(succeeded(verify(conv)));
  conv->erase();
}

TEST_F(GraphOpsTest, MatMulBuilderInfersTheResultType) {
  Type f16 = builder.getF16Type();
  Value lhs = valueOf(RankedTensorType::get({4, 128, 768}, f16));
  Value rhs = valueOf(RankedTensorType::get({768, 3072}, f16));
  builder.setInsertionPointToEnd(&scratch);
  auto matmul = MatMulOp::create(builder, builder.getUnknownLoc(), lhs, rhs);
  EXPECT_EQ(matmul.getType(), RankedTensorType::get({4, 128, 3072}, f16));
  matmul->erase();
}

TEST_F(GraphOpsTest, LessRefinedDeclaredResultTypeVerifies) {
  Type f32 = builder.getF32Type();
  Value lhs = valueOf(RankedTensorType::get({2, 3}, f32));
  Value rhs = valueOf(RankedTensorType::get({3}, f32));
  builder.setInsertionPointToEnd(&scratch);
  auto add = AddOp::create(builder, builder.getUnknownLoc(),
                           RankedTensorType::get({ShapedType::kDynamic, 3}, f32), lhs, rhs);
  EXPECT_TRUE(succeeded(verify(add)));
  add->erase();
}

TEST_F(GraphOpsTest, ContradictingDeclaredResultTypeFails) {
  Type f32 = builder.getF32Type();
  Value lhs = valueOf(RankedTensorType::get({2, 3}, f32));
  Value rhs = valueOf(RankedTensorType::get({3}, f32));
  builder.setInsertionPointToEnd(&scratch);
  auto add =
      AddOp::create(builder, builder.getUnknownLoc(), RankedTensorType::get({4, 3}, f32), lhs, rhs);
  std::string diagnostic;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostic += diag.str() + "\n";
    return success();
  });
  EXPECT_TRUE(failed(verify(add)));
  EXPECT_NE(diagnostic.find("are incompatible with return type(s)"), std::string::npos)
      << diagnostic;
  add->erase();
}

} // namespace
