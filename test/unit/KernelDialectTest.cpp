//===- KernelDialectTest.cpp - The kernel dialect's C++ API ---------------===//

#include "dialects/kernel/KernelOps.h"
#include "lib/init/Registration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace kiln::kernel;

namespace {

class KernelDialectTest : public ::testing::Test {
protected:
  KernelDialectTest() {
    DialectRegistry registry;
    kiln::registerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
  OpBuilder builder{&context};
};

TEST_F(KernelDialectTest, ConfigurationsAreCheckedWhenBuilt) {
  auto emit = [&] { return emitError(builder.getUnknownLoc()); };
  std::string diagnostic;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostic = diag.str();
    return success();
  });
  EXPECT_FALSE(RowsConfigAttr::getChecked(emit, &context, int64_t(48), int64_t(1), int64_t(4)));
  EXPECT_NE(diagnostic.find("threads_per_row must be a power of two"), std::string::npos)
      << diagnostic;
  auto rows = RowsConfigAttr::getChecked(emit, &context, int64_t(32), int64_t(4), int64_t(8));
  ASSERT_TRUE(rows);
  // Every configuration is a template configuration, named by its mnemonic.
  auto config = dyn_cast<TemplateConfigAttrInterface>(Attribute(rows));
  ASSERT_TRUE(config);
  EXPECT_EQ(config.getTemplateName(), "rows");
  EXPECT_EQ(cast<TemplateConfigAttrInterface>(GenericConfigAttr::get(&context)).getTemplateName(),
            "generic");
}

TEST_F(KernelDialectTest, ConfigurationHelpersNameTheAttributes) {
  EXPECT_EQ(configAttrHelper(&context).getName().getValue(), "kernel.config");
  EXPECT_EQ(rowVariantsAttrHelper(&context).getName().getValue(), "kernel.row_variants");
  EXPECT_EQ(tuningAttrHelper(&context).getName().getValue(), "kernel.tuning");
}

TEST_F(KernelDialectTest, LaunchOfAKernelVerifies) {
  auto module = ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(module.getBody());
  auto buffer = MemRefType::get({16}, builder.getF32Type());
  auto kernel = FuncOp::create(builder, builder.getUnknownLoc(), "scale",
                               builder.getFunctionType({buffer, buffer}, {}));
  builder.setInsertionPointToEnd(&kernel.getBody().front());
  ReturnOp::create(builder, builder.getUnknownLoc());

  builder.setInsertionPointToEnd(module.getBody());
  auto host = func::FuncOp::create(builder, builder.getUnknownLoc(), "main",
                                   builder.getFunctionType({buffer, buffer}, {}));
  Block *entry = host.addEntryBlock();
  builder.setInsertionPointToEnd(entry);
  LaunchOp::create(builder, builder.getUnknownLoc(), "scale", entry->getArguments());
  func::ReturnOp::create(builder, builder.getUnknownLoc());

  EXPECT_TRUE(succeeded(verify(module)));
  module->erase();
}

} // namespace
