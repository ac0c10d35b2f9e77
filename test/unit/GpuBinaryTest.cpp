//===- GpuBinaryTest.cpp - PTX and cubin of gpu.module ops ----------------===//

#include "lib/target/GpuBinary.h"
#include "lib/init/Registration.h"
#include "passes/Pipelines.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>

using namespace mlir;

namespace {

// A host function with an elementwise loop and a reduction, as gpu-map-loops gets it.
constexpr const char *kHostModule = R"mlir(
func.func @main(%in: memref<4x64xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> f32 {
      %x = memref.load %in[%i, %k] : memref<4x64xf32>
      %e = math.exp %x : f32
      %s = arith.addf %acc, %e : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%i] : memref<4xf32>
    scf.reduce
  }
  return
}
)mlir";

/// Sets an environment variable for the scope of a test.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      previous = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (previous)
      ::setenv(name, previous->c_str(), 1);
    else
      ::unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> previous;
};

class GpuBinaryTest : public ::testing::Test {
protected:
  GpuBinaryTest() {
    DialectRegistry registry;
    kiln::registerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> lowered() {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kHostModule, &context);
    if (!module)
      return nullptr;
    PassManager pm(&context);
    kiln::GpuTargetOptions target;
    target.chip = "sm_80";
    kiln::addGpuDeviceLoweringPasses(pm, target);
    if (failed(pm.run(*module)))
      return nullptr;
    return module;
  }

  MLIRContext context;
};

TEST_F(GpuBinaryTest, PtxAndCubinForEachModule) {
  if (!kiln::findPtxas())
    GTEST_SKIP() << "no ptxas";
  OwningOpRef<ModuleOp> module = lowered();
  ASSERT_TRUE(module);
  std::string log;
  FailureOr<std::vector<kiln::GpuBinary>> binaries =
      kiln::compileGpuModules(*module, /*wantCubin=*/true, log);
  ASSERT_TRUE(succeeded(binaries));
  ASSERT_EQ(binaries->size(), 1u);
  const kiln::GpuBinary &binary = binaries->front();
  EXPECT_EQ(binary.moduleName, "main_kernels");
  EXPECT_EQ(binary.chip, "sm_80");
  EXPECT_NE(binary.ptx.find(".visible .entry main_k0("), std::string::npos) << binary.ptx;
  // libdevice is linked: exp is code, not an external function.
  EXPECT_EQ(binary.ptx.find(".extern"), std::string::npos) << binary.ptx;
  ASSERT_GE(binary.cubin.size(), 4u);
  const uint8_t elfMagic[] = {0x7f, 'E', 'L', 'F'};
  EXPECT_TRUE(std::equal(std::begin(elfMagic), std::end(elfMagic), binary.cubin.begin()));
}

TEST_F(GpuBinaryTest, NoCubinWithoutPtxasOrWhenNotAsked) {
  OwningOpRef<ModuleOp> module = lowered();
  ASSERT_TRUE(module);
  std::string log;
  FailureOr<std::vector<kiln::GpuBinary>> ptxOnly =
      kiln::compileGpuModules(*module, /*wantCubin=*/false, log);
  ASSERT_TRUE(succeeded(ptxOnly));
  EXPECT_TRUE(ptxOnly->front().cubin.empty());
  EXPECT_FALSE(ptxOnly->front().ptx.empty());

  ScopedEnv noPtxas("KILN_PTXAS", "");
  FailureOr<std::vector<kiln::GpuBinary>> missing =
      kiln::compileGpuModules(*module, /*wantCubin=*/true, log);
  ASSERT_TRUE(succeeded(missing));
  EXPECT_TRUE(missing->front().cubin.empty());
}

TEST_F(GpuBinaryTest, PtxasErrorsCarryItsOutput) {
  llvm::SmallString<128> script;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("fake-ptxas", "sh", script));
  llvm::FileRemover remover(script);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(script, ec);
    ASSERT_FALSE(ec);
    os << "#!/bin/sh\necho \"ptxas fatal   : Unresolved extern function '__nv_expf'\" >&2\n"
          "exit 255\n";
  }
  llvm::sys::fs::setPermissions(script, llvm::sys::fs::owner_all);
  ScopedEnv fakePtxas("KILN_PTXAS", script.c_str());

  OwningOpRef<ModuleOp> module = lowered();
  ASSERT_TRUE(module);
  std::string diagnostic, log;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostic = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(kiln::compileGpuModules(*module, /*wantCubin=*/true, log)));
  EXPECT_NE(diagnostic.find("ptxas -arch=sm_80 failed"), std::string::npos) << diagnostic;
  EXPECT_NE(diagnostic.find("Unresolved extern function '__nv_expf'"), std::string::npos)
      << diagnostic;
}

} // namespace
