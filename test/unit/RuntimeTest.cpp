//===- RuntimeTest.cpp - Running engines on the GPU -----------------------===//
//
// The hand-written sample engine (test/tools/make-test-engine/SampleEngine.h: PTX kernels
// with pointer, i32, i64 and f32 parameters; a copy; a fill; arena and weights) run through
// include/kiln/Runtime.h and the C API: host runs, enqueue on device buffers, CUDA graph
// replay, four threads sharing one engine, timing, and the errors of loading and running;
// and the kernel-free read-back sample (a data-dependent output).
// Tests that need a GPU skip without a CUDA driver ("skipped: no GPU").
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime.h"
#include "kiln/kiln.h"
#include "runtime/CudaDriver.h"
#include "test/tools/make-test-engine/SampleEngine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unistd.h>

extern "C" {
// CApiTest.c: the C API used from C.
int kiln_c_api_create_runtime(char *message, size_t size);
int kiln_c_api_run_sample(const char *path, int useGraph, const float *x, const float *y,
                          float *sum, float *xy, unsigned char *flags, char *message, size_t size);
}

namespace {

using kiln::DevicePointer;
using kiln::ExecutionContext;

struct SampleResults {
  std::vector<float> sum, xy;
  std::vector<uint8_t> flags;
};

/// Inputs that differ per `variant`, so a stale result cannot pass.
void variantInputs(int variant, std::vector<float> &x, std::vector<float> &y) {
  kiln::test::sampleInputs(x, y);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] += float(variant) * 0.125f;
    y[i] -= float(variant % 7);
  }
}

void expectSampleResults(const std::vector<float> &x, const std::vector<float> &y,
                         const SampleResults &actual) {
  std::vector<float> sum, xy;
  std::vector<uint8_t> flags;
  kiln::test::sampleOutputs(x, y, sum, xy, flags);
  ASSERT_EQ(actual.sum.size(), sum.size());
  for (size_t i = 0; i < sum.size(); ++i) {
    EXPECT_NEAR(actual.sum[i], sum[i], 1e-5f * std::fabs(sum[i]) + 1e-6f) << "sum[" << i << "]";
    EXPECT_EQ(actual.xy[i], xy[i]) << "xy[" << i << "]";
  }
  EXPECT_EQ(actual.flags, flags);
}

/// Runs on host buffers.
bool runSample(ExecutionContext &context, const std::vector<float> &x, const std::vector<float> &y,
               SampleResults &results, std::string &error) {
  results.sum.assign(x.size(), -1);
  results.xy.assign(x.size(), -1);
  results.flags.assign(4, 0);
  return context.run({x.data(), y.data()},
                     {results.sum.data(), results.xy.data(), results.flags.data()}, error);
}

class Runtime : public ::testing::Test {
protected:
  void SetUp() override {
    std::string error;
    runtime = kiln::Runtime::create(error);
    if (!runtime)
      GTEST_SKIP() << "skipped: no GPU (" << error << ")";
    std::printf("GPU: %s (%s), driver CUDA %d\n", runtime->deviceName().c_str(),
                runtime->smName().c_str(), runtime->driverVersion());
  }

  std::shared_ptr<kiln::Engine> load(kiln::engine::Engine description) {
    std::string error;
    auto engine = kiln::Engine::create(runtime, std::move(description), "sample.kiln", error);
    EXPECT_TRUE(engine) << error;
    return engine;
  }

  /// Why `description` does not load ("" when it does).
  std::string loadError(kiln::engine::Engine description) {
    std::string error;
    auto engine = kiln::Engine::create(runtime, std::move(description), "sample.kiln", error);
    return engine ? std::string() : error;
  }

  std::shared_ptr<kiln::Runtime> runtime;
};

TEST(RuntimeWithoutGpu, NoDriverIsAClearError) {
  std::string error;
  auto runtime = kiln::Runtime::create(error, 0, "libcuda-does-not-exist.so.1");
  EXPECT_EQ(runtime, nullptr);
  EXPECT_EQ(error.rfind("no CUDA driver: cannot load the CUDA driver "
                        "(libcuda-does-not-exist.so.1)",
                        0),
            0u)
      << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST(RuntimeWithoutGpu, CApiFromC) {
  char message[512] = {};
  int status = kiln_c_api_create_runtime(message, sizeof(message));
  if (status == KILN_OK)
    return; // a GPU machine: the GPU tests below cover the rest
  EXPECT_EQ(status, KILN_ERROR_NO_DEVICE);
  std::string text = message;
  EXPECT_TRUE(text.rfind("no CUDA driver: ", 0) == 0 || text.rfind("no CUDA GPU: ", 0) == 0)
      << text;
  EXPECT_STREQ(kiln_version(), kiln_version()); // callable; a version string
  EXPECT_NE(std::string(kiln_version()), "");
}

TEST_F(Runtime, HostRun) {
  auto engine = load(kiln::test::sampleEngine());
  ASSERT_TRUE(engine);
  EXPECT_FALSE(engine->loadedFromCubin());
  std::string error;
  auto context = ExecutionContext::create(engine, error);
  ASSERT_TRUE(context) << error;
  for (int variant = 0; variant < 3; ++variant) {
    std::vector<float> x, y;
    variantInputs(variant, x, y);
    SampleResults results;
    ASSERT_TRUE(runSample(*context, x, y, results, error)) << error;
    expectSampleResults(x, y, results);
  }
}

TEST_F(Runtime, SynchronousStepsGiveTheSameResults) {
  auto engine = load(kiln::test::sampleEngine());
  ASSERT_TRUE(engine);
  std::string error;
  auto context = ExecutionContext::create(engine, error);
  ASSERT_TRUE(context) << error;
  context->setSynchronousSteps(true);
  std::vector<float> x, y;
  variantInputs(5, x, y);
  SampleResults results;
  ASSERT_TRUE(runSample(*context, x, y, results, error)) << error;
  expectSampleResults(x, y, results);
}

TEST_F(Runtime, EnqueueOnCallerBuffers) {
  auto engine = load(kiln::test::sampleEngine());
  ASSERT_TRUE(engine);
  std::string error;
  // `owner`'s buffers play the caller's device memory for `context`.
  auto owner = ExecutionContext::create(engine, error);
  auto context = ExecutionContext::create(engine, error);
  ASSERT_TRUE(owner && context) << error;
  std::vector<float> x, y;
  variantInputs(1, x, y);
  ASSERT_TRUE(owner->setInput(0, x.data(), error)) << error;
  ASSERT_TRUE(owner->setInput(1, y.data(), error)) << error;
  std::vector<DevicePointer> inputs = {owner->inputBuffer(0, error), owner->inputBuffer(1, error)};
  std::vector<DevicePointer> outputs = {
      owner->outputBuffer(0, error), owner->outputBuffer(1, error), owner->outputBuffer(2, error)};
  ASSERT_TRUE(context->enqueue(inputs, outputs, error)) << error;
  ASSERT_TRUE(context->synchronize(error)) << error;
  SampleResults results;
  results.sum.resize(x.size());
  results.xy.resize(x.size());
  results.flags.resize(4);
  ASSERT_TRUE(owner->getOutput(0, results.sum.data(), error)) << error;
  ASSERT_TRUE(owner->getOutput(1, results.xy.data(), error)) << error;
  ASSERT_TRUE(owner->getOutput(2, results.flags.data(), error)) << error;
  expectSampleResults(x, y, results);

  // Wrong buffer counts and null buffers are refused before anything is enqueued.
  EXPECT_FALSE(context->enqueue({inputs[0]}, outputs, error));
  EXPECT_NE(error.find("the engine has 2 inputs and 3 outputs; given 1 and 3"), std::string::npos)
      << error;
  EXPECT_FALSE(context->enqueue({inputs[0], 0}, outputs, error));
  EXPECT_NE(error.find("input 'y' has a null device buffer"), std::string::npos) << error;
}

TEST_F(Runtime, GraphReplay) {
  auto engine = load(kiln::test::sampleEngine());
  ASSERT_TRUE(engine);
  std::string error;
  auto context = ExecutionContext::create(engine, error);
  ASSERT_TRUE(context) << error;
  context->enableGraph();
  EXPECT_FALSE(context->graphCaptured());
  for (int variant = 0; variant < 4; ++variant) {
    std::vector<float> x, y;
    variantInputs(variant + 10, x, y);
    SampleResults results;
    ASSERT_TRUE(runSample(*context, x, y, results, error)) << error;
    EXPECT_TRUE(context->graphCaptured());
    expectSampleResults(x, y, results);
  }

  // Other device buffers: captured again, still right.
  auto owner = ExecutionContext::create(engine, error);
  ASSERT_TRUE(owner) << error;
  std::vector<float> x, y;
  variantInputs(3, x, y);
  ASSERT_TRUE(owner->setInput(0, x.data(), error) && owner->setInput(1, y.data(), error)) << error;
  ASSERT_TRUE(context->enqueue(
      {owner->inputBuffer(0, error), owner->inputBuffer(1, error)},
      {owner->outputBuffer(0, error), owner->outputBuffer(1, error), owner->outputBuffer(2, error)},
      error))
      << error;
  ASSERT_TRUE(context->synchronize(error)) << error;
  SampleResults results;
  results.sum.resize(x.size());
  results.xy.resize(x.size());
  results.flags.resize(4);
  ASSERT_TRUE(owner->getOutput(0, results.sum.data(), error)) << error;
  ASSERT_TRUE(owner->getOutput(1, results.xy.data(), error)) << error;
  ASSERT_TRUE(owner->getOutput(2, results.flags.data(), error)) << error;
  expectSampleResults(x, y, results);

  context->enableGraph(false);
  EXPECT_FALSE(context->graphCaptured());
}

TEST_F(Runtime, DynamicEngineRunsEveryShapeOfItsProfile) {
  auto engine = load(kiln::test::dynamicSampleEngine());
  ASSERT_TRUE(engine);
  std::string error;
  auto context = ExecutionContext::create(engine, error);
  ASSERT_TRUE(context) << error;
  EXPECT_EQ(context->inputShape(0), (std::vector<int64_t>{2, 8})); // the opt shape
  for (bool graph : {false, true}) {
    context->enableGraph(graph);
    // Back and forth between shapes: each run is right for its own shape, and a graph
    // captured for one shape is replayed for it, not for the others.
    for (int64_t rows : {1, 3, 4, 2, 1, 4}) {
      std::vector<int64_t> shape = {rows, 8};
      ASSERT_TRUE(context->setInputShape(0, shape, error)) << error;
      ASSERT_TRUE(context->setInputShape(1, shape, error)) << error;
      std::vector<int64_t> outputShape;
      ASSERT_TRUE(context->outputShape(0, outputShape, error)) << error;
      EXPECT_EQ(outputShape, shape);
      std::vector<float> x, y;
      kiln::test::sampleInputs(x, y, static_cast<int>(rows * 8));
      for (float &value : x)
        value += float(rows);
      SampleResults results;
      ASSERT_TRUE(runSample(*context, x, y, results, error)) << error;
      expectSampleResults(x, y, results);
      EXPECT_EQ(context->graphCaptured(), graph);
    }
  }

  // Outside the profile, and inputs that disagree on their shared symbol.
  EXPECT_FALSE(context->setInputShape(0, {5, 8}, error));
  EXPECT_NE(error.find("input 'x' dimension 0 (rows) is 5; the profile allows 1 to 4"),
            std::string::npos)
      << error;
  EXPECT_FALSE(context->setInputShape(1, {2, 7}, error));
  EXPECT_NE(error.find("input 'y' dimension 1 is 7; the engine takes only 8"), std::string::npos)
      << error;
  ASSERT_TRUE(context->setInputShape(0, {3, 8}, error)) << error;
  ASSERT_TRUE(context->setInputShape(1, {2, 8}, error)) << error;
  SampleResults results;
  std::vector<float> x(24), y(16);
  EXPECT_FALSE(runSample(*context, x, y, results, error));
  EXPECT_NE(error.find("input 'y' dimension 0 (rows) is 2, but input 'x' dimension 0 (rows) is "
                       "3: the two must be equal"),
            std::string::npos)
      << error;
}

TEST_F(Runtime, FourThreadsShareOneEngine) {
  auto engine = load(kiln::test::sampleEngine());
  ASSERT_TRUE(engine);
  constexpr int kThreads = 4, kRuns = 50;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::string error;
      auto context = ExecutionContext::create(engine, error);
      if (!context) {
        failures[t] = error;
        return;
      }
      context->enableGraph(t % 2 == 0); // half replay graphs, half launch steps
      std::vector<float> sum, xy;
      std::vector<uint8_t> flags;
      for (int run = 0; run < kRuns; ++run) {
        std::vector<float> x, y;
        variantInputs(t * 1000 + run, x, y);
        SampleResults results;
        if (!runSample(*context, x, y, results, error)) {
          failures[t] = error;
          return;
        }
        kiln::test::sampleOutputs(x, y, sum, xy, flags);
        for (size_t i = 0; i < sum.size(); ++i)
          if (std::fabs(results.sum[i] - sum[i]) > 1e-5f * std::fabs(sum[i]) + 1e-6f ||
              results.xy[i] != xy[i] || results.flags != flags) {
            failures[t] = "thread " + std::to_string(t) + " run " + std::to_string(run) +
                          ": wrong result at " + std::to_string(i);
            return;
          }
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[t], "") << "thread " << t;
}

TEST_F(Runtime, TimesRuns) {
  auto engine = load(kiln::test::sampleEngine());
  ASSERT_TRUE(engine);
  std::string error;
  auto context = ExecutionContext::create(engine, error);
  ASSERT_TRUE(context) << error;
  context->enableGraph();
  std::vector<float> millis;
  ASSERT_TRUE(context->timeRuns(20, millis, error)) << error;
  ASSERT_EQ(millis.size(), 20u);
  for (float ms : millis) {
    EXPECT_GT(ms, 0.0f);
    EXPECT_LT(ms, 1000.0f);
  }
}

TEST_F(Runtime, ProfilesEachStep) {
  auto engine = load(kiln::test::sampleEngine());
  ASSERT_TRUE(engine);
  std::string error;
  auto context = ExecutionContext::create(engine, error);
  ASSERT_TRUE(context) << error;
  std::vector<double> millis;
  ASSERT_TRUE(context->profileSteps(5, millis, error)) << error;
  ASSERT_EQ(millis.size(), engine->description().steps.size());
  // The sample's kernels take microseconds; the stream hold ahead of each run (1 ms at
  // least) is not part of any step.
  for (double ms : millis) {
    EXPECT_GE(ms, 0.0);
    EXPECT_LT(ms, 0.5);
  }
  // The profiled runs leave the context usable, with right results.
  std::vector<float> x, y, sum, xy;
  std::vector<uint8_t> flags;
  kiln::test::sampleInputs(x, y);
  kiln::test::sampleOutputs(x, y, sum, xy, flags);
  std::vector<float> gotSum(sum.size()), gotXy(xy.size());
  std::vector<uint8_t> gotFlags(flags.size());
  ASSERT_TRUE(
      context->run({x.data(), y.data()}, {gotSum.data(), gotXy.data(), gotFlags.data()}, error))
      << error;
  for (size_t i = 0; i < sum.size(); ++i)
    EXPECT_NEAR(gotSum[i], sum[i], 1e-5f * std::fabs(sum[i]) + 1e-6f) << i;
  EXPECT_EQ(gotXy, xy);
  EXPECT_EQ(gotFlags, flags);
}

TEST_F(Runtime, RefusesAnEngineForAnotherGpu) {
  std::string newer = "sm_" + std::to_string(runtime->computeCapabilityMajor() + 1) + "0";
  std::string message = loadError(kiln::test::sampleEngine(newer));
  EXPECT_NE(message.find("'sample.kiln': the engine was compiled for " + newer), std::string::npos)
      << message;
  EXPECT_NE(message.find("recompile with --target " + runtime->smName()), std::string::npos)
      << message;
}

TEST_F(Runtime, PrefersTheCubinMadeForThisGpu) {
  // The placeholder cubin is made "for" exactly this GPU, so the runtime must try it (and
  // the driver refuse it, naming the module), not fall back to the PTX silently.
  std::string message =
      loadError(kiln::test::sampleEngine(runtime->smName(), /*placeholderCubin=*/true));
  EXPECT_NE(message.find("'sample.kiln': module 'axpy_module': cuModuleLoadDataEx failed: CUDA_"),
            std::string::npos)
      << message;
  // For an older architecture of another major version the cubin cannot load: PTX it is.
  if (runtime->computeCapabilityMajor() > 8) {
    auto engine = load(kiln::test::sampleEngine("sm_80", /*placeholderCubin=*/true));
    ASSERT_TRUE(engine);
    EXPECT_FALSE(engine->loadedFromCubin());
  }
}

TEST_F(Runtime, LoadErrorsNameModuleAndKernel) {
  kiln::engine::Engine bad = kiln::test::sampleEngine();
  bad.modules[1].ptx = ".version 7.0\n.target sm_80\n.address_size 64\nthis is not ptx\n";
  std::string message = loadError(bad);
  EXPECT_NE(message.find("module 'axpy_module': cuModuleLoadDataEx failed: CUDA_ERROR_"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("JIT log: "), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;

  bad = kiln::test::sampleEngine();
  bad.kernels[0].name = "no_such_kernel";
  message = loadError(bad);
  EXPECT_NE(message.find("kernel 'no_such_kernel' (ONNX node Add_0): cuModuleGetFunction failed: "
                         "CUDA_ERROR_NOT_FOUND"),
            std::string::npos)
      << message;

  bad = kiln::test::sampleEngine();
  bad.steps[1].sharedBytes = 64u << 20;
  message = loadError(bad);
  EXPECT_NE(message.find("kernel 'axpy_f32' (ONNX nodes Mul_1, Add_2) needs 67108864 bytes of "
                         "shared memory"),
            std::string::npos)
      << message;
}

TEST_F(Runtime, ArgumentsAreCheckedAgainstTheKernel) {
  kiln::engine::Engine bad = kiln::test::sampleEngine();
  bad.steps[0].arguments.pop_back();
  std::string message = loadError(bad);
  if (message.empty())
    GTEST_SKIP() << "this driver cannot list kernel parameters (cuFuncGetParamInfo)";
  EXPECT_NE(message.find("step 0, kernel 'add_f32' (ONNX node Add_0) passes 3 arguments; the "
                         "kernel takes 4"),
            std::string::npos)
      << message;

  bad = kiln::test::sampleEngine();
  bad.steps[1].arguments[3].kind = kiln::engine::LaunchArgument::Kind::F64;
  message = loadError(bad);
  EXPECT_NE(message.find("step 1, kernel 'axpy_f32' (ONNX nodes Mul_1, Add_2) argument 3 is 8 "
                         "bytes; the kernel's parameter is 4"),
            std::string::npos)
      << message;
}

TEST_F(Runtime, LaunchFailuresNameTheKernel) {
  kiln::engine::Engine bad = kiln::test::sampleEngine();
  bad.steps[1].grid[1] = 70000; // beyond the 65535 blocks a grid's y dimension allows
  auto engine = load(bad);
  ASSERT_TRUE(engine);
  std::string error;
  auto context = ExecutionContext::create(engine, error);
  ASSERT_TRUE(context) << error;
  std::vector<float> x, y;
  variantInputs(0, x, y);
  SampleResults results;
  EXPECT_FALSE(runSample(*context, x, y, results, error));
  EXPECT_NE(error.find("'sample.kiln': step 1, kernel 'axpy_f32' (ONNX nodes Mul_1, Add_2): "
                       "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE"),
            std::string::npos)
      << error;

  // The same failure while capturing a graph: reported the same way, and the context
  // still works afterwards without the graph.
  auto graphContext = ExecutionContext::create(engine, error);
  ASSERT_TRUE(graphContext) << error;
  graphContext->enableGraph();
  EXPECT_FALSE(runSample(*graphContext, x, y, results, error));
  EXPECT_NE(error.find("step 1, kernel 'axpy_f32'"), std::string::npos) << error;
}

TEST_F(Runtime, CApiRunsTheSampleFromC) {
  char path[] = "/tmp/kiln-c-api-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  ASSERT_EQ(kiln::engine::writeEngineFile(kiln::test::sampleEngine(), path), "");
  for (int useGraph = 0; useGraph < 2; ++useGraph) {
    std::vector<float> x, y;
    variantInputs(useGraph + 20, x, y);
    SampleResults results;
    results.sum.resize(x.size());
    results.xy.resize(x.size());
    results.flags.resize(4);
    char message[1024] = {};
    int status =
        kiln_c_api_run_sample(path, useGraph, x.data(), y.data(), results.sum.data(),
                              results.xy.data(), results.flags.data(), message, sizeof(message));
    ASSERT_EQ(status, KILN_OK) << message;
    expectSampleResults(x, y, results);
  }
  std::remove(path);
}

} // namespace

namespace {

/// A kernel that copies one box of an f16 matrix into shared memory with the bulk tensor
/// copy (TMA) through the tensor map its first parameter points to, then writes the box as
/// f32, row by row: 16 threads, one element each.
constexpr const char *kTmaTilePtx = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry tma_tile(.param .u64 map, .param .u64 out, .param .u32 x, .param .u32 y) {
  .reg .pred %p<3>;
  .reg .b16 %h<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<8>;
  .shared .align 128 .b8 tile[32];
  .shared .align 8 .b64 bar;

  ld.param.u64 %rd1, [map];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [x];
  ld.param.u32 %r2, [y];
  mov.u32 %r3, %tid.x;
  setp.ne.u32 %p1, %r3, 0;
  @%p1 bra.uni ISSUED;
  mbarrier.init.shared.b64 [bar], 1;
  fence.mbarrier_init.release.cluster;
  mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 32;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [tile], [%rd1, {%r1, %r2}], [bar];
ISSUED:
  bar.sync 0;
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
  @!%p2 bra.uni WAIT;
  mov.u32 %r4, tile;
  shl.b32 %r5, %r3, 1;
  add.u32 %r6, %r4, %r5;
  ld.shared.b16 %h1, [%r6];
  cvt.f32.f16 %f1, %h1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.u32 %rd5, %r3, 4;
  add.s64 %rd6, %rd4, %rd5;
  st.global.f32 [%rd6], %f1;
  ret;
}
)";

/// f16 bits of small integers (exact): 0 to 63.
uint16_t halfOf(int value) {
  if (value == 0)
    return 0;
  int exponent = 0;
  while ((1 << (exponent + 1)) <= value)
    ++exponent;
  int mantissa = (value << (10 - exponent)) & 0x3ff;
  return static_cast<uint16_t>(((exponent + 15) << 10) | mantissa);
}

} // namespace

// An engine whose launch takes a tensor map over its input: a [4, 16] f16 matrix holding
// 0..63, read through boxes of 2 rows x 8 columns at (column 8, row 2), so the output must
// be rows 2..3, columns 8..15. Twice with other input buffers: the map is encoded again.
TEST_F(Runtime, TensorMapArgumentsReachTheKernel) {
  if (runtime->computeCapabilityMajor() < 9)
    GTEST_SKIP() << "the bulk tensor copy needs sm_90 (this GPU is " << runtime->smName() << ")";
  using namespace kiln::engine;
  Engine model;
  model.compilerVersion = "0.1.0-test";
  model.target = "sm_90";
  model.modelName = "tma";
  model.inputs = {{"matrix", ElementType::F16, {4, 16}}};
  model.outputs = {{"box", ElementType::F32, {2, 8}}};
  model.modules = {{"tma_module", kTmaTilePtx, {}}};
  model.kernels = {{"tma_tile", 0, "movement", {"Tile"}, "", -1, ""}};
  Step launch;
  launch.kind = Step::Kind::Launch;
  launch.block[0] = 16;
  LaunchArgument map;
  map.kind = LaunchArgument::Kind::TensorMap;
  map.address = {Region::Input, 0, 0};
  map.tensorMap.dataType = 6; // float16
  map.tensorMap.rank = 2;
  map.tensorMap.dims[0] = 16;
  map.tensorMap.dims[1] = 4;
  map.tensorMap.strides[0] = 32;
  map.tensorMap.box[0] = 8;
  map.tensorMap.box[1] = 2;
  map.tensorMap.elementStrides[0] = map.tensorMap.elementStrides[1] = 1;
  LaunchArgument out;
  out.kind = LaunchArgument::Kind::Pointer;
  out.address = {Region::Output, 0, 0};
  LaunchArgument x, y;
  x.kind = y.kind = LaunchArgument::Kind::I32;
  x.scalar = 8;
  y.scalar = 2;
  launch.arguments = {map, out, x, y};
  model.steps = {launch};
  ASSERT_EQ(model.validate(), "");
  auto engine = load(std::move(model));
  ASSERT_TRUE(engine);
  std::string error;
  auto context = ExecutionContext::create(engine, error);
  ASSERT_TRUE(context) << error;
  for (int offset : {0, 1}) {
    std::vector<uint16_t> matrix(64);
    for (int i = 0; i < 64; ++i)
      matrix[i] = halfOf((i + offset) % 64);
    std::vector<float> box(16, -1.0f);
    if (offset == 1) {
      // Caller buffers: other addresses than the context's own.
      auto owner = ExecutionContext::create(engine, error);
      ASSERT_TRUE(owner) << error;
      ASSERT_TRUE(owner->setInput(0, matrix.data(), error)) << error;
      ASSERT_TRUE(
          context->enqueue({owner->inputBuffer(0, error)}, {owner->outputBuffer(0, error)}, error))
          << error;
      ASSERT_TRUE(context->synchronize(error)) << error;
      ASSERT_TRUE(owner->getOutput(0, box.data(), error)) << error;
    } else {
      ASSERT_TRUE(context->run({matrix.data()}, {box.data()}, error)) << error;
    }
    for (int row = 0; row < 2; ++row)
      for (int column = 0; column < 8; ++column)
        EXPECT_EQ(box[row * 8 + column], float((((2 + row) * 16 + 8 + column) + offset) % 64))
            << "row " << row << " column " << column << " offset " << offset;
  }
}

namespace {

/// The read-back sample's input with n = `count`, and the elements after it distinct.
std::vector<int64_t> readBackInput(int64_t count) {
  std::vector<int64_t> x(kiln::test::kReadBackInputs);
  x[0] = count;
  for (size_t i = 1; i < x.size(); ++i)
    x[i] = int64_t(i) * 100 + count;
  return x;
}

TEST_F(Runtime, ReadBackSetsTheShapesAfterIt) {
  auto engine = load(kiln::test::readBackSampleEngine());
  ASSERT_TRUE(engine);
  std::string error;
  auto context = ExecutionContext::create(engine, error);
  ASSERT_TRUE(context) << error;
  // Before a run, the data-dependent extent is its bound.
  std::vector<int64_t> shape;
  ASSERT_TRUE(context->outputShape(0, shape, error)) << error;
  EXPECT_EQ(shape, (std::vector<int64_t>{7}));
  for (bool graph : {false, true}) {
    context->enableGraph(graph);
    EXPECT_FALSE(context->graphEnabled()); // a read-back cannot be captured
    // Each run reads its own value: the last run's never leaks into the next.
    for (int64_t count : {3, 0, 7, 12, -5, 5, 1}) {
      std::vector<int64_t> x = readBackInput(count);
      std::vector<int64_t> head(kiln::test::kReadBackMaxHead, -1);
      ASSERT_TRUE(context->run({x.data()}, {head.data()}, error)) << error;
      std::vector<int64_t> expected = kiln::test::readBackSampleOutput(x);
      ASSERT_TRUE(context->outputShape(0, shape, error)) << error;
      EXPECT_EQ(shape, (std::vector<int64_t>{int64_t(expected.size())})) << count;
      // The true shape's bytes are copied out, nothing past them.
      std::vector<int64_t> want = expected;
      want.resize(head.size(), -1);
      EXPECT_EQ(head, want) << count;
      EXPECT_FALSE(context->graphCaptured());
    }
  }

  // Enqueue on the context's buffers: the shape is known when enqueue returns (it waited
  // for the read-back), and getOutput copies that many elements.
  std::vector<int64_t> x = readBackInput(4);
  ASSERT_TRUE(context->setInput(0, x.data(), error)) << error;
  ASSERT_TRUE(context->enqueue(error)) << error;
  ASSERT_TRUE(context->outputShape(0, shape, error)) << error;
  EXPECT_EQ(shape, (std::vector<int64_t>{4}));
  std::vector<int64_t> head(7, -1);
  ASSERT_TRUE(context->getOutput(0, head.data(), error)) << error;
  EXPECT_EQ(std::vector<int64_t>(head.begin(), head.begin() + 4),
            kiln::test::readBackSampleOutput(x));
  EXPECT_EQ(std::vector<int64_t>(head.begin() + 4, head.end()), (std::vector<int64_t>(3, -1)));

  // Timing and profiling run it too.
  std::vector<float> millis;
  ASSERT_TRUE(context->timeRuns(3, millis, error)) << error;
  std::vector<double> steps;
  ASSERT_TRUE(context->profileSteps(3, steps, error)) << error;
  EXPECT_EQ(steps.size(), 3u);
  ASSERT_TRUE(context->outputShape(0, shape, error)) << error;
  EXPECT_EQ(shape, (std::vector<int64_t>{4}));
}

TEST_F(Runtime, ReadBackIsSignedAndOfItsWidth) {
  // 4 bytes of x[0]: its low half, sign-extended.
  kiln::engine::Engine model = kiln::test::readBackSampleEngine();
  model.steps[1].bytes = 4;
  auto engine = load(std::move(model));
  ASSERT_TRUE(engine);
  std::string error;
  auto context = ExecutionContext::create(engine, error);
  ASSERT_TRUE(context) << error;
  for (auto [first, count] : {std::pair<int64_t, int64_t>{(int64_t(1) << 32) + 2, 2},
                              {-1, 0},
                              {0xffffffffll, 0}, // -1 in 32 bits
                              {0x7fffffffll, 7},
                              {6, 6}}) {
    std::vector<int64_t> x = readBackInput(0);
    x[0] = first;
    std::vector<int64_t> head(7, -1);
    ASSERT_TRUE(context->run({x.data()}, {head.data()}, error)) << error;
    std::vector<int64_t> shape;
    ASSERT_TRUE(context->outputShape(0, shape, error)) << error;
    EXPECT_EQ(shape, (std::vector<int64_t>{count})) << first;
    for (int64_t i = 0; i < 7; ++i)
      EXPECT_EQ(head[i], i < count ? x[i + 1] : -1) << first << " " << i;
  }
}

TEST_F(Runtime, ReadBackIsRefusedInsideStreamCapture) {
  auto engine = load(kiln::test::readBackSampleEngine());
  ASSERT_TRUE(engine);
  std::string error;
  auto context = ExecutionContext::create(engine, error);
  ASSERT_TRUE(context) << error;
  ASSERT_TRUE(context->enqueue(error) && context->synchronize(error)) << error; // buffers
  auto driver = kiln::runtime::CudaDriver::load(error);
  ASSERT_TRUE(driver) << error;
  ASSERT_TRUE(driver->beginCapture(context->stream(), error)) << error;
  bool capturing = false;
  ASSERT_TRUE(driver->isCapturing(context->stream(), capturing, error)) << error;
  bool enqueued = context->enqueue(error);
  kiln::runtime::GraphHandle graph = nullptr;
  std::string ignored;
  driver->endCapture(context->stream(), graph, ignored);
  driver->destroyGraph(graph);
  if (!capturing)
    GTEST_SKIP() << "this driver cannot tell a capturing stream (cuStreamIsCapturing)";
  EXPECT_FALSE(enqueued);
  EXPECT_NE(error.find("which a CUDA graph capture cannot hold"), std::string::npos) << error;
  // Outside the capture it runs again.
  std::vector<int64_t> x = readBackInput(2), head(7, -1);
  ASSERT_TRUE(context->run({x.data()}, {head.data()}, error)) << error;
  EXPECT_EQ(head[0], x[1]);
  EXPECT_EQ(head[2], -1);
}

} // namespace
