//===- ApproximateErfTest.cpp - gpu-approximate-erf against erf ------------===//
//
// The rational erf of gpu-approximate-erf, evaluated as the kernels compute it (the ops
// the pass writes, in f32, interpreted here) against std::erf over [-8, 8]: erf itself,
// and GELU with the input scale folded into the coefficients and the fma tail.
//
//===----------------------------------------------------------------------===//

#include "lib/init/Registration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;

namespace {

constexpr const char *kKernels = R"(
gpu.module @kernels {
  func.func @erf(%x: f32) -> f32 {
    %e = math.erf %x : f32
    return %e : f32
  }
  func.func @gelu(%x: f32) -> f32 {
    %c = arith.constant 0.707106769 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %h = arith.mulf %x, %half : f32
    %s = arith.mulf %x, %c : f32
    %e = math.erf %s : f32
    %a = arith.addf %e, %one : f32
    %y = arith.mulf %h, %a : f32
    return %y : f32
  }
}
)";

/// `function` applied to `x`, its ops (those the pass writes) evaluated in f32.
float evaluate(func::FuncOp function, float x) {
  llvm::DenseMap<Value, float> values;
  values[function.getArgument(0)] = x;
  for (Operation &op : function.getBody().front()) {
    auto in = [&](unsigned i) { return values.lookup(op.getOperand(i)); };
    float result = 0;
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      result = static_cast<float>(cast<FloatAttr>(constant.getValue()).getValueAsDouble());
    else if (isa<arith::MulFOp>(op))
      result = in(0) * in(1);
    else if (isa<arith::AddFOp>(op))
      result = in(0) + in(1);
    else if (isa<arith::DivFOp>(op))
      result = in(0) / in(1);
    else if (isa<arith::MaximumFOp>(op))
      result = std::isnan(in(0)) || std::isnan(in(1)) ? NAN : std::max(in(0), in(1));
    else if (isa<arith::MinimumFOp>(op))
      result = std::isnan(in(0)) || std::isnan(in(1)) ? NAN : std::min(in(0), in(1));
    else if (isa<math::FmaOp>(op))
      result = std::fma(in(0), in(1), in(2));
    else if (isa<func::ReturnOp>(op))
      return in(0);
    else
      ADD_FAILURE() << "unexpected op " << op.getName().getStringRef().str();
    values[op.getResult(0)] = result;
  }
  return NAN;
}

class ApproximateErfTest : public ::testing::Test {
protected:
  ApproximateErfTest() {
    DialectRegistry registry;
    kiln::registerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    kiln::registerPasses();
    module = parseSourceString<ModuleOp>(kKernels, &context);
    PassManager pm(&context);
    if (!module || failed(parsePassPipeline("gpu.module(gpu-approximate-erf)", pm)) ||
        failed(pm.run(*module)))
      module = nullptr;
  }
  func::FuncOp function(StringRef name) {
    func::FuncOp found;
    module->walk([&](func::FuncOp f) {
      if (f.getSymName() == name)
        found = f;
    });
    return found;
  }
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(ApproximateErfTest, ErfWithinItsBoundAndBelowOne) {
  ASSERT_TRUE(module);
  func::FuncOp erf = function("erf");
  double worst = 0, largest = 0;
  for (int i = -80000; i <= 80000; ++i) {
    float x = static_cast<float>(i) * 1e-4f;
    float e = evaluate(erf, x);
    worst = std::max(worst, std::abs(double(e) - std::erf(double(x))));
    largest = std::max(largest, std::abs(double(e)));
  }
  EXPECT_LT(worst, 2.5e-6);
  EXPECT_LT(largest, 1.0);
  // Relative accuracy near 0 (P0 = 2 / sqrt(pi)), and NaN stays NaN.
  EXPECT_NEAR(evaluate(erf, 1e-5f) / std::erf(1e-5), 1.0, 1e-6);
  EXPECT_TRUE(std::isnan(evaluate(erf, NAN)));
}

TEST_F(ApproximateErfTest, GeluFoldsTheScaleAndEndsInOneFma) {
  ASSERT_TRUE(module);
  func::FuncOp gelu = function("gelu");
  // x / sqrt(2) is in the coefficients: no erf, no add of 1, one fma at the end.
  int fmas = 0, adds = 0;
  gelu.walk([&](Operation *op) {
    fmas += isa<math::FmaOp>(op);
    adds += isa<arith::AddFOp>(op);
  });
  EXPECT_EQ(fmas, 7); // 3 + 3 Horner steps and the tail
  EXPECT_EQ(adds, 0);
  double worst = 0;
  for (int i = -80000; i <= 80000; ++i) {
    float x = static_cast<float>(i) * 1e-4f;
    double exact = 0.5 * x * (1.0 + std::erf(double(x) / std::sqrt(2.0)));
    worst = std::max(worst, std::abs(double(evaluate(gelu, x)) - exact) /
                                std::max(1.0, std::abs(double(x))));
  }
  EXPECT_LT(worst, 2e-6);
}

} // namespace
