//===- TimingCacheTest.cpp - The timing cache, its keys, and the cost model ----===//

#include "passes/kernel/TimingCache.h"
#include "lib/init/Registration.h"
#include "lib/pipeline/GpuCompiler.h"
#include "lib/tuning/GpuKernelTimer.h"
#include "passes/kernel/AttentionConfig.h"
#include "passes/kernel/Autotune.h"
#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/KernelTemplate.h"
#include "passes/kernel/Sm90Template.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <thread>

using namespace mlir;
using kiln::TimingCache;
using kiln::TimingEntry;
using kiln::TimingGpu;

namespace {

/// A fresh folder under the system's temporary directory, removed afterwards.
class TempDir {
public:
  TempDir() { llvm::sys::fs::createUniqueDirectory("kiln-timing-cache", path); }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> joined(path);
    llvm::sys::path::append(joined, name);
    return std::string(joined);
  }
  llvm::SmallString<128> path;
};

void writeFile(const std::string &path, llvm::StringRef text) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  os << text;
}

const TimingGpu kH200{"sm_90 NVIDIA H200", "13000"};
const char *kGeneric = "#kernel.generic";
const char *kGemm = "#kernel.sm90_gemm<tile_m = 128, tile_n = 128, tile_k = 64, stages = 3, "
                    "consumers = 0>";

TEST(TimingCache, RoundTrip) {
  TempDir dir;
  std::string path = dir.file("nested/folder/timing-cache.json");
  TimingCache cache(path);
  EXPECT_FALSE(cache.load()); // missing: empty, no warning
  cache.insert(kH200, "abc", kGemm, {14.25, "2026-11-22T10:00:00Z", "MatMul_1 1024x1024x1024 f16"});
  cache.insert(kH200, "abc", kGeneric, {1530, "", ""});
  EXPECT_TRUE(cache.isDirty());
  ASSERT_FALSE(cache.save()) << *cache.save();

  TimingCache loaded(path);
  ASSERT_FALSE(loaded.load());
  EXPECT_EQ(loaded.size(), 2u);
  std::optional<TimingEntry> gemm = loaded.lookup(kH200, "abc", kGemm);
  ASSERT_TRUE(gemm);
  EXPECT_EQ(gemm->micros, 14.25);
  EXPECT_EQ(gemm->when, "2026-11-22T10:00:00Z");
  EXPECT_EQ(gemm->problem, "MatMul_1 1024x1024x1024 f16");
  std::optional<TimingEntry> generic = loaded.lookup(kH200, "abc", kGeneric);
  ASSERT_TRUE(generic);
  EXPECT_EQ(generic->micros, 1530);
  EXPECT_FALSE(generic->when.empty()); // stamped at insert
  EXPECT_EQ(loaded.lookup(kH200, "abc").size(), 2u);
}

TEST(TimingCache, AtomicWrite) {
  TempDir dir;
  std::string path = dir.file("timing-cache.json");
  writeFile(path, "old contents");
  TimingCache cache(path);
  cache.insert(kH200, "abc", kGeneric, {5, "", ""});
  ASSERT_FALSE(cache.save());
  // Replaced whole, and no temporary file left beside it.
  auto text = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(text);
  EXPECT_TRUE((*text)->getBuffer().starts_with("{")) << (*text)->getBuffer().str();
  std::error_code error;
  int files = 0;
  for (llvm::sys::fs::directory_iterator it(dir.path, error), end; it != end && !error;
       it.increment(error))
    ++files;
  EXPECT_EQ(files, 1);

  // A folder that cannot be made (a file is in the way): a message, the old file intact.
  std::string blocked = dir.file("timing-cache.json/below/cache.json");
  TimingCache elsewhere(blocked);
  elsewhere.insert(kH200, "abc", kGeneric, {5, "", ""});
  std::optional<std::string> problem = elsewhere.save();
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("cannot write the timing cache"), std::string::npos) << *problem;
  TimingCache again(path);
  EXPECT_FALSE(again.load());
  EXPECT_EQ(again.size(), 1u);
}

TEST(TimingCache, KeysDifferByGpuDriverSignatureAndConfig) {
  TimingCache cache;
  cache.insert(kH200, "abc", kGeneric, {1, "2026-01-01T00:00:00Z", ""});
  cache.insert({"sm_90 NVIDIA H100 80GB HBM3", "13000"}, "abc", kGeneric, {2, "", ""});
  cache.insert({kH200.name, "12080"}, "abc", kGeneric, {3, "2026-02-01T00:00:00Z", ""});
  cache.insert(kH200, "def", kGeneric, {4, "", ""});
  cache.insert(kH200, "abc", kGemm, {5, "", ""});
  EXPECT_EQ(cache.size(), 5u);
  EXPECT_EQ(cache.lookup(kH200, "abc", kGeneric)->micros, 1);
  EXPECT_EQ(cache.lookup({"sm_90 NVIDIA H100 80GB HBM3", "13000"}, "abc", kGeneric)->micros, 2);
  EXPECT_EQ(cache.lookup({kH200.name, "12080"}, "abc", kGeneric)->micros, 3);
  EXPECT_EQ(cache.lookup(kH200, "def", kGeneric)->micros, 4);
  EXPECT_EQ(cache.lookup(kH200, "abc", kGemm)->micros, 5);
  EXPECT_FALSE(cache.lookup({"sm_80 NVIDIA A100-SXM4-80GB", "13000"}, "abc", kGeneric));
  EXPECT_FALSE(cache.lookup(kH200, "xyz", kGeneric));
  // No driver (a compile without a GPU): any driver's, the most recent.
  EXPECT_EQ(cache.lookup({kH200.name, ""}, "abc", kGeneric)->micros, 3);
  EXPECT_EQ(TimingGpu::defaultForTarget("sm_90a").name, kH200.name);
  EXPECT_EQ(TimingGpu::defaultForTarget("sm_90a").driver, "");
}

TEST(TimingCache, UnusableFilesAreWarningsAndEmpty) {
  TempDir dir;
  struct Case {
    const char *text;
    const char *problem;
  } cases[] = {
      {"{\"format\": \"kiln-timing-cache\", \"version\": 1, \"entries\": [", "not valid JSON"},
      {"[]", "not a JSON object"},
      {"{\"entries\": []}", "no \"format\""},
      {"{\"format\": \"kiln-timing-cache\", \"version\": 2, \"entries\": []}",
       "version 2, this compiler reads version 1"},
      {"{\"format\": \"kiln-timing-cache\", \"version\": 1}", "no \"entries\" list"},
      {"{\"format\": \"kiln-timing-cache\", \"version\": 1, \"entries\": [{\"gpu\": \"x\"}]}",
       "entry 0 is malformed"},
      {"{\"format\": \"kiln-timing-cache\", \"version\": 1, \"entries\": [{\"gpu\": \"g\", "
       "\"driver\": \"d\", \"kernel\": \"k\", \"config\": \"c\", \"micros\": -1}]}",
       "entry 0 is malformed"},
  };
  for (const Case &test : cases) {
    std::string path = dir.file("cache.json");
    writeFile(path, test.text);
    TimingCache cache(path);
    std::optional<std::string> warning = cache.load();
    ASSERT_TRUE(warning) << test.text;
    EXPECT_NE(warning->find("timing cache '" + path + "'"), std::string::npos) << *warning;
    EXPECT_NE(warning->find(test.problem), std::string::npos) << *warning;
    EXPECT_NE(warning->find("; ignored"), std::string::npos) << *warning;
    EXPECT_EQ(cache.size(), 0u);
  }
}

TEST(TimingCache, DefaultPath) {
  const char *saved[] = {std::getenv("KILN_CACHE_DIR"), std::getenv("XDG_CACHE_HOME"),
                         std::getenv("HOME")};
  std::string keep[3];
  for (int i = 0; i < 3; ++i)
    keep[i] = saved[i] ? saved[i] : "";
  setenv("KILN_CACHE_DIR", "/tmp/kiln-dir", 1);
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(TimingCache::defaultPath(), "/tmp/kiln-dir/timing-cache.json");
  unsetenv("KILN_CACHE_DIR");
  EXPECT_EQ(TimingCache::defaultPath(), "/tmp/xdg/kiln/timing-cache.json");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(TimingCache::defaultPath(), "/home/someone/.cache/kiln/timing-cache.json");
  const char *names[] = {"KILN_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};
  for (int i = 0; i < 3; ++i) {
    if (saved[i])
      setenv(names[i], keep[i].c_str(), 1);
    else
      unsetenv(names[i]);
  }
}

class TuningIRTest : public ::testing::Test {
protected:
  TuningIRTest() {
    DialectRegistry registry;
    kiln::registerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  /// The engine kernel-autotune times `kernel` under `config` with (sm_90a), at the shape
  /// of `profile` for a dynamic kernel; nothing, and a test failure saying why, when it
  /// does not build.
  std::optional<kiln::engine::Engine> timingEngine(kiln::kernel::FuncOp kernel, Attribute config,
                                                   StringRef profile = "kernel.opt_shape") {
    std::string why;
    OwningOpRef<ModuleOp> timing =
        kiln::GpuKernelTimer::buildTimingModule(kernel, config, why, profile);
    if (!timing) {
      ADD_FAILURE() << why;
      return std::nullopt;
    }
    FailureOr<kiln::engine::Engine> engine = kiln::GpuKernelTimer::compileTimingModule(
        *timing, kiln::TemplateOptions::forTarget("sm_90a"), why);
    if (failed(engine)) {
      ADD_FAILURE() << kiln::describeKernelConfig(config) << ": " << why;
      return std::nullopt;
    }
    return std::move(*engine);
  }
  /// A module of matmul kernels named `names`, of M x N x K = `m` x `n` x `k`.
  OwningOpRef<ModuleOp> gemms(llvm::ArrayRef<std::string> names, int64_t m, int64_t n, int64_t k,
                              llvm::StringRef type = "f16") {
    std::string text;
    llvm::raw_string_ostream os(text);
    std::string a =
        "memref<" + std::to_string(m) + "x" + std::to_string(k) + "x" + type.str() + ">";
    std::string b =
        "memref<" + std::to_string(k) + "x" + std::to_string(n) + "x" + type.str() + ">";
    std::string c =
        "memref<" + std::to_string(m) + "x" + std::to_string(n) + "x" + type.str() + ">";
    auto tensor = [](std::string memref) { return "tensor" + memref.substr(6); };
    for (const std::string &name : names)
      os << "kernel.func @" << name << "(%a: " << a << ", %b: " << b << ", %c: " << c << ") {\n"
         << "  matmul ins(%a, %b : " << a << ", " << b << ") outs(%c : " << c << ") {\n"
         << "  ^bb0(%x: " << tensor(a) << ", %y: " << tensor(b) << "):\n"
         << "    %r = graph.matmul %x, %y : (" << tensor(a) << ", " << tensor(b) << ") -> "
         << tensor(c) << "\n"
         << "    kernel.yield %r : " << tensor(c) << "\n  }\n  return\n}\n";
    return parseSourceString<ModuleOp>(text, &context);
  }
  MLIRContext context;
};

TEST_F(TuningIRTest, SignatureIgnoresNameLocationsAndTuning) {
  OwningOpRef<ModuleOp> module = gemms({"first", "second"}, 256, 256, 128);
  ASSERT_TRUE(module);
  auto kernels = llvm::to_vector(module->getOps<kiln::kernel::FuncOp>());
  std::string first = kiln::kernelSignature(kernels[0]);
  EXPECT_EQ(first.size(), 64u); // SHA-256, hex
  EXPECT_EQ(first, kiln::kernelSignature(kernels[1]));
  kernels[1]->setLoc(NameLoc::get(StringAttr::get(&context, "MatMul_7")));
  kernels[1]->setAttr(kiln::kernel::configAttrHelper(&context).getName(),
                      kiln::kernel::GenericConfigAttr::get(&context));
  EXPECT_EQ(first, kiln::kernelSignature(kernels[1]));
  EXPECT_EQ(kernels[1].getSymName(), "second"); // not modified

  // Another build's code generator makes other kernels of the same kernel.func.
  EXPECT_EQ(kiln::codegenFingerprint().size(), 64u);
  EXPECT_EQ(first, kiln::kernelSignature(kernels[0], kiln::codegenFingerprint()));
  EXPECT_NE(first, kiln::kernelSignature(kernels[0], std::string(64, '0')));

  OwningOpRef<ModuleOp> other = gemms({"first"}, 256, 256, 256);
  EXPECT_NE(first, kiln::kernelSignature(*other->getOps<kiln::kernel::FuncOp>().begin()));
  OwningOpRef<ModuleOp> bf16 = gemms({"first"}, 256, 256, 128, "bf16");
  EXPECT_NE(first, kiln::kernelSignature(*bf16->getOps<kiln::kernel::FuncOp>().begin()));
}

TEST_F(TuningIRTest, SignatureIgnoresScalarConstantValues) {
  // Two int8-like epilogues that differ only in their scale (one kernel per layer, the
  // same speed), and one that differs in an op.
  auto kernel = [](StringRef name, StringRef scale, StringRef op) {
    return (llvm::Twine("kernel.func @") + name +
            "(%a: memref<256x128xf16>, %b: memref<128x256xf16>, %c: memref<256x256xf16>) {\n"
            "  matmul ins(%a, %b : memref<256x128xf16>, memref<128x256xf16>) outs(%c : "
            "memref<256x256xf16>) {\n"
            "  ^bb0(%x: tensor<256x128xf16>, %y: tensor<128x256xf16>):\n"
            "    %s = graph.constant dense<" +
            scale +
            "> : tensor<f16>\n"
            "    %r = graph.matmul %x, %y : (tensor<256x128xf16>, tensor<128x256xf16>) -> "
            "tensor<256x256xf16>\n"
            "    %q = graph." +
            op +
            " %r, %s : (tensor<256x256xf16>, tensor<f16>) -> tensor<256x256xf16>\n"
            "    kernel.yield %q : tensor<256x256xf16>\n  }\n  return\n}\n")
        .str();
  };
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kernel("half", "0.5", "mul") + kernel("quarter", "0.25", "mul") +
                                      kernel("divided", "0.25", "div"),
                                  &context);
  ASSERT_TRUE(module);
  auto kernels = llvm::to_vector(module->getOps<kiln::kernel::FuncOp>());
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kiln::kernelSignature(kernels[0]), kiln::kernelSignature(kernels[1]));
  EXPECT_NE(kiln::kernelSignature(kernels[1]), kiln::kernelSignature(kernels[2]));
  // The kernels themselves keep their values.
  std::string text;
  llvm::raw_string_ostream os(text);
  kernels[1]->print(os);
  EXPECT_NE(text.find("2.500000e-01"), std::string::npos);
}

TEST_F(TuningIRTest, CandidatesAndCostModel) {
  OwningOpRef<ModuleOp> large = gemms({"large"}, 4096, 4096, 4096);
  auto kernel = *large->getOps<kiln::kernel::FuncOp>().begin();
  auto candidates =
      kiln::kernelConfigCandidates(kernel, kiln::TemplateOptions::forTarget("sm_90a"));
  ASSERT_GE(candidates.size(), 2u);
  EXPECT_EQ(kiln::describeKernelConfig(candidates.back()), "generic");
  // sm_80 has its own (mma.sync) templates, and the generic lowering last as well.
  auto sm80 = kiln::kernelConfigCandidates(kernel, kiln::TemplateOptions::forTarget("sm_80"));
  ASSERT_GE(sm80.size(), 2u);
  EXPECT_EQ(kiln::describeKernelConfig(sm80.back()), "generic");
  EXPECT_NE(kiln::describeKernelConfig(sm80.front()),
            kiln::describeKernelConfig(candidates.front()));
  EXPECT_EQ(kiln::describeKernelProblem(kernel), "4096x4096x4096 f16");
  EXPECT_DOUBLE_EQ(kiln::estimateKernelFlops(kernel), 2.0 * 4096 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(kiln::estimateKernelBytes(kernel), 3.0 * 4096 * 4096 * 2);
  double gemm = kiln::estimateMicros(kernel, candidates.front());
  double generic = kiln::estimateMicros(kernel, candidates.back());
  EXPECT_LT(gemm * 5, generic) << gemm << " vs " << generic;
  // Within the H200's ceiling: at most 990 TFLOP/s.
  EXPECT_GT(gemm, 1e6 * 2.0 * 4096 * 4096 * 4096 / 990e12);
}

TEST_F(TuningIRTest, GatheredTableCountsTheRowsRead) {
  // An embedding: 256 ids read 256 rows of a 30000-row table, not the table; the ids and
  // the result count whole.
  const char *text = R"mlir(
kernel.func @embed(%t: memref<30000x64xf16>, %i: memref<256xi64>, %y: memref<256x64xf16>) {
  pointwise ins(%t, %i : memref<30000x64xf16>, memref<256xi64>) outs(%y : memref<256x64xf16>) {
  ^bb0(%a: tensor<30000x64xf16>, %b: tensor<256xi64>):
    %g = graph.gather %a, %b {axis = 0 : i64} : (tensor<30000x64xf16>, tensor<256xi64>) -> tensor<256x64xf16>
    kernel.yield %g : tensor<256x64xf16>
  }
  return
}
kernel.func @sum(%t: memref<300x64xf16>, %i: memref<256xi64>, %y: memref<256x64xf16>) {
  pointwise ins(%t, %i : memref<300x64xf16>, memref<256xi64>) outs(%y : memref<256x64xf16>) {
  ^bb0(%a: tensor<300x64xf16>, %b: tensor<256xi64>):
    %g = graph.gather %a, %b {axis = 0 : i64} : (tensor<300x64xf16>, tensor<256xi64>) -> tensor<256x64xf16>
    %axes = graph.constant dense<0> : tensor<1xi64>
    %s = graph.reduce_sum %a, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<300x64xf16>, tensor<1xi64>) -> tensor<1x64xf16>
    %r = graph.add %g, %s : (tensor<256x64xf16>, tensor<1x64xf16>) -> tensor<256x64xf16>
    kernel.yield %r : tensor<256x64xf16>
  }
  return
}
)mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  auto kernels = llvm::to_vector(module->getOps<kiln::kernel::FuncOp>());
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_DOUBLE_EQ(kiln::estimateKernelBytes(kernels[0]), 256.0 * 64 * 2 + 256 * 8 + 256 * 64 * 2);
  // A table read whole by another op counts whole.
  EXPECT_DOUBLE_EQ(kiln::estimateKernelBytes(kernels[1]), 300.0 * 64 * 2 + 256 * 8 + 256 * 64 * 2);
}

TEST_F(TuningIRTest, TwoCtaConfigurationsWhereTilesOutnumberSms) {
  auto names = [&](ModuleOp module) {
    auto kernel = *module.getOps<kiln::kernel::FuncOp>().begin();
    std::vector<std::string> found;
    for (Attribute config :
         kiln::kernelConfigCandidates(kernel, kiln::TemplateOptions::forTarget("sm_90a")))
      if (std::optional<kiln::Sm90GemmConfig> gemm = kiln::Sm90GemmConfig::fromAnyAttr(config))
        found.push_back(gemm->name());
    return found;
  };
  // 784 tiles of 128x64 (a 1x1 convolution's GEMM): both two-CTA configurations.
  OwningOpRef<ModuleOp> many = gemms({"many"}, 100352, 64, 64);
  std::vector<std::string> manyNames = names(*many);
  EXPECT_NE(llvm::find(manyNames, "128x64x64_s4_ws2_c2"), manyNames.end());
  EXPECT_NE(llvm::find(manyNames, "128x64x64_s3_ws2_p_c2"), manyNames.end());
  // 64 tiles: one CTA an SM only.
  OwningOpRef<ModuleOp> few = gemms({"few"}, 1024, 512, 256);
  for (const std::string &name : names(*few))
    EXPECT_FALSE(llvm::StringRef(name).ends_with("_c2")) << name;

  // The attribute keeps the field, and a bad count is no configuration.
  kiln::Sm90GemmConfig config;
  config.tileN = 64;
  config.stages = 4;
  config.consumers = 2;
  config.ctasPerSm = 2;
  auto attr = config.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context);
  kiln::Sm90GemmConfig back = kiln::Sm90GemmConfig::fromAttr(attr);
  EXPECT_EQ(back.ctasPerSm, 2);
  EXPECT_EQ(back.describe(), "sm90 wgmma+TMA 128x64x64, 4 stages, 2 consumer warpgroups, "
                             "2 CTAs an SM");
  {
    ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });
    EXPECT_FALSE(parseAttribute("#kernel.sm90_gemm<tile_m = 128, tile_n = 64, tile_k = 64, "
                                "stages = 4, consumers = 2, ctas_per_sm = 3>",
                                &context));
  }
  // The cost model counts two resident CTAs (half the waves, each hiding the other's
  // latency), so the two-CTA configuration is estimated no slower than the one-CTA one.
  auto kernel = *many->getOps<kiln::kernel::FuncOp>().begin();
  kiln::Sm90GemmConfig oneCta = config;
  oneCta.ctasPerSm = 1;
  EXPECT_LE(
      kiln::estimateMicros(kernel, attr),
      kiln::estimateMicros(kernel, oneCta.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context)));
}

TEST_F(TuningIRTest, TimingModuleCompilesWithoutGpu) {
  OwningOpRef<ModuleOp> module = gemms({"MatMul_3"}, 256, 128, 128);
  auto kernel = *module->getOps<kiln::kernel::FuncOp>().begin();
  for (Attribute config :
       kiln::kernelConfigCandidates(kernel, kiln::TemplateOptions::forTarget("sm_90a"))) {
    std::optional<kiln::engine::Engine> engine = timingEngine(kernel, config);
    ASSERT_TRUE(engine);
    EXPECT_EQ(engine->inputs.size(), 2u);
    EXPECT_EQ(engine->outputs.size(), 1u);
    EXPECT_EQ(engine->inputs[0].shape, (std::vector<int64_t>{256, 128}));
    EXPECT_FALSE(engine->kernels.empty());
  }
  // A configuration that does not compile is a message, not a printed error.
  std::string why;
  Attribute bogus = kiln::kernel::Sm90GemmConfigAttr::get(&context, 128, 512, 64, 3, 0, false, 1, 1,
                                                          false, false, 0, false, 1);
  OwningOpRef<ModuleOp> timing = kiln::GpuKernelTimer::buildTimingModule(kernel, bogus, why);
  ASSERT_TRUE(timing) << why;
  EXPECT_TRUE(failed(kiln::GpuKernelTimer::compileTimingModule(
      *timing, kiln::TemplateOptions::forTarget("sm_90a"), why)));
  EXPECT_NE(why.find("is not a configuration of this GEMM"), std::string::npos) << why;
}

/// A GEMM kernel of run-time rows ([batch, sequence, 768] by [768, 3072]), for the tests
/// of dynamic GEMMs to launch from their own host functions.
constexpr const char kDynamicGemmKernel[] = R"mlir(
kernel.func @MatMul_0(%a: memref<?x?x768xf16>, %b: memref<768x3072xf16>, %c: memref<?x?x3072xf16>) {
  matmul ins(%a, %b : memref<?x?x768xf16>, memref<768x3072xf16>) outs(%c : memref<?x?x3072xf16>) {
  ^bb0(%x: tensor<?x?x768xf16>, %y: tensor<768x3072xf16>):
    %r = graph.matmul %x, %y : (tensor<?x?x768xf16>, tensor<768x3072xf16>) -> tensor<?x?x3072xf16>
    kernel.yield %r : tensor<?x?x3072xf16>
  }
  return
}
)mlir";

// A dynamic engine's GEMM (M known at run time) is tuned at the profile's opt shape: its
// candidates, cost and timing module take the opt extents its launch evaluates to.
TEST_F(TuningIRTest, DynamicGemmIsTunedAtTheOptShape) {
  std::string text = std::string(kDynamicGemmKernel) + R"mlir(
func.func @main(%a: memref<?x?x768xf16> {kernel.opt_shape = array<i64: 8, 128, 768>}, %b: memref<768x3072xf16>) attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch = memref.dim %a, %c0 : memref<?x?x768xf16>
  %sequence = memref.dim %a, %c1 : memref<?x?x768xf16>
  %c = memref.alloc(%batch, %sequence) : memref<?x?x3072xf16>
  kernel.launch @MatMul_0(%a, %b, %c) : (memref<?x?x768xf16>, memref<768x3072xf16>, memref<?x?x3072xf16>) -> ()
  return
}
)mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  auto kernel = *module->getOps<kiln::kernel::FuncOp>().begin();
  std::optional<SmallVector<MemRefType>> opt = kiln::getOptShapeBufferTypes(kernel);
  ASSERT_TRUE(opt);
  EXPECT_EQ((*opt)[0].getShape(), ArrayRef<int64_t>({8, 128, 768}));
  EXPECT_EQ((*opt)[2].getShape(), ArrayRef<int64_t>({8, 128, 3072}));
  std::optional<kiln::Sm90GemmProblem> problem = kiln::matchSm90Gemm(kernel, false);
  ASSERT_TRUE(problem);
  EXPECT_TRUE(problem->dynamicM);
  EXPECT_EQ(problem->m, 1024);
  EXPECT_EQ(kiln::describeKernelProblem(kernel), "1024x3072x768 f16");
  // No one-warpgroup configuration (it needs M at compile time), and no split-K: no max
  // shape bounds its workspace.
  auto candidates =
      kiln::kernelConfigCandidates(kernel, kiln::TemplateOptions::forTarget("sm_90a"));
  ASSERT_GT(candidates.size(), 2u);
  for (Attribute config : candidates)
    if (std::optional<kiln::Sm90GemmConfig> gemm = kiln::Sm90GemmConfig::fromAnyAttr(config)) {
      EXPECT_EQ(gemm->splitK, 1) << gemm->name();
      EXPECT_GT(gemm->consumers, 0) << gemm->name();
    }
  // The cost model sizes the generic lowering at the opt shape too: 2 M N K flops.
  EXPECT_DOUBLE_EQ(kiln::estimateKernelFlops(kernel), 2.0 * 1024 * 3072 * 768);
  EXPECT_LT(kiln::estimateMicros(kernel, candidates.front()),
            kiln::estimateMicros(kernel, candidates.back()));

  for (Attribute config : {candidates.front(), candidates.back()}) {
    std::optional<kiln::engine::Engine> engine = timingEngine(kernel, config);
    ASSERT_TRUE(engine);
    EXPECT_EQ(engine->inputs[0].shape, (std::vector<int64_t>{8, 128, 768}));
    EXPECT_TRUE(engine->shapeProgram.empty()); // a static engine: the sizes are constants
    for (const kiln::engine::Step &step : engine->steps)
      EXPECT_TRUE(step.runtimeFields.empty());
  }
  // Without a profile nothing says M: no template.
  auto host = *module->getOps<func::FuncOp>().begin();
  host.removeArgAttr(0, "kernel.opt_shape");
  EXPECT_FALSE(kiln::getOptShapeBufferTypes(kernel));
  EXPECT_FALSE(kiln::matchSm90Gemm(kernel, false));
}

// A dynamic engine's attention kernel (batch and sequence known at run time, Q/K/V heads
// read in place from [B, S, 768] projections reshaped with the kernel's symbols) is
// matched at the profile's opt shape, and its timing module passes the symbols' opt values
// as constants: the timed engine is static.
TEST_F(TuningIRTest, DynamicAttentionIsTunedAtTheOptShape) {
  const char *text = R"mlir(
kernel.func @Attention_0(%q: memref<?x?x768xf16>, %k: memref<?x?x768xf16>, %v: memref<?x?x768xf16>, %o: memref<?x12x?x64xf16>, %batch: index, %seq: index) {
  attention ins(%q, %k, %v : memref<?x?x768xf16>, memref<?x?x768xf16>, memref<?x?x768xf16>) outs(%o : memref<?x12x?x64xf16>) symbols(%batch, %seq) {
  ^bb0(%a: tensor<?x?x768xf16>, %b: tensor<?x?x768xf16>, %c: tensor<?x?x768xf16>, %sb: index, %ss: index):
    %0 = arith.index_cast %sb : index to i64
    %1 = arith.index_cast %ss : index to i64
    %c-1 = arith.constant -1 : i64
    %c64 = arith.constant 64 : i64
    %shape = tensor.from_elements %0, %1, %c-1, %c64 : tensor<4xi64>
    %qr = graph.reshape %a, %shape {allowzero = false} : (tensor<?x?x768xf16>, tensor<4xi64>) -> tensor<?x?x12x64xf16>
    %qt = graph.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x?x12x64xf16>) -> tensor<?x12x?x64xf16>
    %kr = graph.reshape %b, %shape {allowzero = false} : (tensor<?x?x768xf16>, tensor<4xi64>) -> tensor<?x?x12x64xf16>
    %kt = graph.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x?x12x64xf16>) -> tensor<?x12x?x64xf16>
    %vr = graph.reshape %c, %shape {allowzero = false} : (tensor<?x?x768xf16>, tensor<4xi64>) -> tensor<?x?x12x64xf16>
    %vt = graph.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x?x12x64xf16>) -> tensor<?x12x?x64xf16>
    %r = graph.attention %qt, %kt, %vt {scale = 0.125 : f32} : (tensor<?x12x?x64xf16>, tensor<?x12x?x64xf16>, tensor<?x12x?x64xf16>) -> tensor<?x12x?x64xf16>
    kernel.yield %r : tensor<?x12x?x64xf16>
  }
  return
}
func.func @main(%x: memref<?x?x768xf16> {kernel.opt_shape = array<i64: 8, 128, 768>, kernel.max_shape = array<i64: 64, 512, 768>}) attributes {kernel.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %x, %c0 : memref<?x?x768xf16>
  %s = memref.dim %x, %c1 : memref<?x?x768xf16>
  %o = memref.alloc(%b, %s) : memref<?x12x?x64xf16>
  kernel.launch @Attention_0(%x, %x, %x, %o, %b, %s) : (memref<?x?x768xf16>, memref<?x?x768xf16>, memref<?x?x768xf16>, memref<?x12x?x64xf16>, index, index) -> ()
  return
}
)mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  auto kernel = *module->getOps<kiln::kernel::FuncOp>().begin();
  std::optional<kiln::ProfileArguments> opt = kiln::getProfileArguments(kernel);
  ASSERT_TRUE(opt);
  EXPECT_EQ(opt->types[3].getShape(), ArrayRef<int64_t>({8, 12, 128, 64}));
  EXPECT_EQ(opt->symbols[4], 8);
  EXPECT_EQ(opt->symbols[5], 128);
  EXPECT_FALSE(kiln::getOptShapeBufferTypes(kernel)); // it has symbols
  std::optional<kiln::FlashAttentionProblem> problem = kiln::matchFlashAttention(kernel, *module);
  ASSERT_TRUE(problem);
  EXPECT_TRUE(problem->dynamic);
  EXPECT_EQ(kiln::describeFlashAttention(*problem), "b8 h12 s128x128 d64 f16");
  // Q's rows are the buffer's, 768 apart; its batch stride is 768 rows of the run-time
  // sequence, the kernel's symbol %seq (argument 5), which also gives Skv.
  EXPECT_EQ(problem->query.strides[2], kiln::ExtentProduct::constant(768));
  EXPECT_EQ(problem->query.strides[1], kiln::ExtentProduct::constant(64));
  EXPECT_EQ(problem->query.strides[0].describe(), "768*a5");
  EXPECT_EQ(problem->key.extents[2], kiln::ExtentProduct::of({5, -1}));
  auto candidates =
      kiln::kernelConfigCandidates(kernel, kiln::TemplateOptions::forTarget("sm_90a"));
  ASSERT_GT(candidates.size(), 2u);
  for (Attribute config : {candidates.front(), candidates.back()}) {
    std::optional<kiln::engine::Engine> engine = timingEngine(kernel, config);
    ASSERT_TRUE(engine);
    ASSERT_EQ(engine->inputs.size(), 3u);
    EXPECT_EQ(engine->inputs[0].shape, (std::vector<int64_t>{8, 128, 768}));
    EXPECT_EQ(engine->outputs[0].shape, (std::vector<int64_t>{8, 12, 128, 64}));
    EXPECT_TRUE(engine->shapeProgram.empty());
  }
  // Without a profile nothing says the shape: no template.
  auto host = *module->getOps<func::FuncOp>().begin();
  host.removeArgAttr(0, "kernel.opt_shape");
  EXPECT_FALSE(kiln::matchFlashAttention(kernel, *module));
}

// Attention kernels are tuned: the flash-attention configurations (wgmma and TMA ones on
// sm_90a), then generic; the timing module keeps the constant causal mask a constant, so the timed
// kernel is the causal one that will run.
TEST_F(TuningIRTest, AttentionCandidatesAndTimingModule) {
  const char *text = R"mlir(
memref.global "private" constant @causal : memref<1x1x16x16xi1> = dense<[[[[true,false,false,false,false,false,false,false,false,false,false,false,false,false,false,false],[true,true,false,false,false,false,false,false,false,false,false,false,false,false,false,false],[true,true,true,false,false,false,false,false,false,false,false,false,false,false,false,false],[true,true,true,true,false,false,false,false,false,false,false,false,false,false,false,false],[true,true,true,true,true,false,false,false,false,false,false,false,false,false,false,false],[true,true,true,true,true,true,false,false,false,false,false,false,false,false,false,false],[true,true,true,true,true,true,true,false,false,false,false,false,false,false,false,false],[true,true,true,true,true,true,true,true,false,false,false,false,false,false,false,false],[true,true,true,true,true,true,true,true,true,false,false,false,false,false,false,false],[true,true,true,true,true,true,true,true,true,true,false,false,false,false,false,false],[true,true,true,true,true,true,true,true,true,true,true,false,false,false,false,false],[true,true,true,true,true,true,true,true,true,true,true,true,false,false,false,false],[true,true,true,true,true,true,true,true,true,true,true,true,true,false,false,false],[true,true,true,true,true,true,true,true,true,true,true,true,true,true,false,false],[true,true,true,true,true,true,true,true,true,true,true,true,true,true,true,false],[true,true,true,true,true,true,true,true,true,true,true,true,true,true,true,true]]]]>
kernel.func @Causal_0(%m: memref<1x1x16x16xi1>, %q: memref<1x2x16x64xf16>, %k: memref<1x2x16x64xf16>, %v: memref<1x2x16x64xf16>, %o: memref<1x2x16x64xf16>) {
  attention ins(%m, %q, %k, %v : memref<1x1x16x16xi1>, memref<1x2x16x64xf16>, memref<1x2x16x64xf16>, memref<1x2x16x64xf16>) outs(%o : memref<1x2x16x64xf16>) {
  ^bb0(%cm: tensor<1x1x16x16xi1>, %a: tensor<1x2x16x64xf16>, %b: tensor<1x2x16x64xf16>, %c: tensor<1x2x16x64xf16>):
    %zero = graph.constant dense<0.000000e+00> : tensor<f16>
    %ninf = graph.constant dense<0xFC00> : tensor<f16>
    %mask = graph.where %cm, %zero, %ninf : (tensor<1x1x16x16xi1>, tensor<f16>, tensor<f16>) -> tensor<1x1x16x16xf16>
    %r = graph.attention %a, %b, %c, %mask {scale = 1.250000e-01 : f32} : (tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x1x16x16xf16>) -> tensor<1x2x16x64xf16>
    kernel.yield %r : tensor<1x2x16x64xf16>
  }
  return
}
func.func @main(%q: memref<1x2x16x64xf16>, %k: memref<1x2x16x64xf16>, %v: memref<1x2x16x64xf16>, %o: memref<1x2x16x64xf16>) attributes {kernel.num_inputs = 3 : i64} {
  %m = memref.get_global @causal : memref<1x1x16x16xi1>
  kernel.launch @Causal_0(%m, %q, %k, %v, %o) : (memref<1x1x16x16xi1>, memref<1x2x16x64xf16>, memref<1x2x16x64xf16>, memref<1x2x16x64xf16>, memref<1x2x16x64xf16>) -> ()
  return
}
)mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  auto kernel = *module->getOps<kiln::kernel::FuncOp>().begin();
  auto candidates =
      kiln::kernelConfigCandidates(kernel, kiln::TemplateOptions::forTarget("sm_90a"));
  // 10 mma.sync, 6 wgmma, 2 of the TMA form (128x128 and 128x64, 2 stages), generic.
  ASSERT_EQ(candidates.size(), 19u);
  EXPECT_EQ(kiln::describeKernelConfig(candidates.front()),
            "flash attention wgmma 64x64, 2 stages, 4 warps");
  EXPECT_EQ(kiln::describeKernelConfig(candidates.back()), "generic");
  auto sm80 = kiln::kernelConfigCandidates(kernel, kiln::TemplateOptions::forTarget("sm_80"));
  ASSERT_EQ(sm80.size(), 11u);
  for (Attribute config : sm80)
    EXPECT_EQ(kiln::describeKernelConfig(config).find("wgmma"), std::string::npos);
  EXPECT_EQ(kiln::describeKernelProblem(kernel), "b1 h2 s16x16 d64 f16 causal");
  // Two products of 2 D flops per score, and one per element of the mask the where makes.
  EXPECT_DOUBLE_EQ(kiln::estimateKernelFlops(kernel), 4.0 * 2 * 16 * 16 * 64 + 16 * 16);

  std::string why;
  OwningOpRef<ModuleOp> timing =
      kiln::GpuKernelTimer::buildTimingModule(kernel, candidates.front(), why);
  ASSERT_TRUE(timing) << why;
  EXPECT_EQ(llvm::range_size(timing->getOps<memref::GlobalOp>()), 1u);
  FailureOr<kiln::engine::Engine> engine = kiln::GpuKernelTimer::compileTimingModule(
      *timing, kiln::TemplateOptions::forTarget("sm_90a"), why);
  ASSERT_TRUE(succeeded(engine)) << why;
  EXPECT_EQ(engine->inputs.size(), 3u); // Q, K, V: the mask stays a constant
  ASSERT_EQ(engine->kernels.size(), 1u);
  EXPECT_NE(engine->kernels[0].name.find("_wgmma_causal"), std::string::npos)
      << engine->kernels[0].name;

  // A configuration forced by a kernel developer (the option attention-config): attention
  // is not tuned, and untuned it takes the forced configuration.
  kiln::TemplateOptions forced = kiln::TemplateOptions::forTarget("sm_90a");
  forced.attentionConfig = "64x64x2x4";
  EXPECT_TRUE(kiln::kernelConfigCandidates(kernel, forced).empty());
  const kiln::KernelTemplate &family = kiln::selectKernelTemplate(kernel, forced);
  EXPECT_EQ(family.name(), "flash_attention");
  EXPECT_EQ(kiln::describeKernelConfig(family.defaultConfig(kernel, forced)),
            "flash attention mma.sync 64x64, 2 stages, 4 warps");
}

} // namespace

/// A timer that takes `seconds` of wall time per measurement and records what it measured.
class SlowTimer : public kiln::KernelTimer {
public:
  explicit SlowTimer(double seconds) : seconds(seconds) {}
  FailureOr<double> measureMicros(kiln::kernel::FuncOp function, Attribute, StringRef,
                                  std::string &) override {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    measured.push_back(function.getSymName().str());
    return 1.0;
  }
  TimingGpu gpu() const override { return TimingGpu{"sm_90 test GPU", "13000"}; }
  double seconds;
  std::vector<std::string> measured;
};

/// A timer whose times depend on the profile a kernel is timed at: `fastest[profile]` takes
/// 1 us, everything else 10 us. It records the profiles it was asked for.
class ProfileTimer : public kiln::KernelTimer {
public:
  FailureOr<double> measureMicros(kiln::kernel::FuncOp, Attribute config, StringRef profile,
                                  std::string &) override {
    asked.push_back(profile.str());
    auto found = fastest.find(profile.str());
    return found != fastest.end() && found->second == config ? 1.0 : 10.0;
  }
  TimingGpu gpu() const override { return TimingGpu{"sm_90 test GPU", "13000"}; }
  std::map<std::string, Attribute> fastest;
  std::vector<std::string> asked;
};

namespace {

/// The CTAs each kernel of dynamic `engine` launches at input shapes `shapes` (0 for a
/// kernel whose launches are empty there).
std::map<std::string, uint64_t> launchedCtas(const kiln::engine::Engine &engine,
                                             const std::vector<std::vector<int64_t>> &shapes) {
  std::vector<int64_t> values;
  EXPECT_EQ(kiln::engine::evaluateShapes(engine, shapes, values), "");
  std::map<std::string, uint64_t> ctas;
  for (kiln::engine::Step step : engine.steps) {
    if (step.kind != kiln::engine::Step::Kind::Launch)
      continue;
    kiln::engine::applyRuntimeFields(values, step);
    ctas[engine.kernels[step.kernel].name] += uint64_t(step.grid[0]) * step.grid[1] * step.grid[2];
  }
  return ctas;
}

} // namespace

// The BERT-like profile of the dynamic GEMM above: batch 1-64 x sequence 16-512, opt 8x128
// (16, 1024 and 32768 rows), its output viewed at the input's extents.
constexpr const char kDynamicGemmMain[] = R"mlir(
func.func @main(%a: memref<?x?x768xf16> {kernel.min_shape = array<i64: 1, 16, 768>, kernel.opt_shape = array<i64: 8, 128, 768>, kernel.max_shape = array<i64: 64, 512, 768>}, %b: memref<768x3072xf16>, %c: memref<?x?x3072xf16>) -> (index, index) attributes {kernel.num_inputs = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch = memref.dim %a, %c0 : memref<?x?x768xf16>
  %sequence = memref.dim %a, %c1 : memref<?x?x768xf16>
  %c3072 = arith.constant 3072 : index
  %row = arith.muli %sequence, %c3072 : index
  %view = memref.reinterpret_cast %c to offset: [0], sizes: [%batch, %sequence, 3072], strides: [%row, 3072, 1] : memref<?x?x3072xf16> to memref<?x?x3072xf16>
  kernel.launch @MatMul_0(%a, %b, %view) : (memref<?x?x768xf16>, memref<768x3072xf16>, memref<?x?x3072xf16>) -> ()
  return %batch, %sequence : index, index
}
)mlir";

// A dynamic GEMM whose profile runs from 16 to 32768 rows (opt 1024): the small Ms get
// their own configuration, chosen at the min shape (with split-K, whose workspace is
// bounded by the bucket), and the engine launches one or the other per shape.
TEST_F(TuningIRTest, DynamicGemmGetsAVariantForSmallRows) {
  std::string text = std::string(kDynamicGemmKernel) + kDynamicGemmMain;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  auto kernel = *module->getOps<kiln::kernel::FuncOp>().begin();
  // The bucket: 16 rows at the min shape, up to sqrt(16 * 1024) = 128.
  std::optional<kiln::GemmRows> bucket = kiln::smallRowsBucket(kernel);
  ASSERT_TRUE(bucket);
  EXPECT_EQ(bucket->profile, "kernel.min_shape");
  EXPECT_EQ(bucket->maxRows, 128);
  std::optional<kiln::Sm90GemmProblem> small = kiln::matchSm90Gemm(kernel, false, *bucket);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->m, 16);
  EXPECT_EQ(small->maxM, 128);
  // Split-K pays at 16 and at 128 rows (24 tiles); not up to the max shape's 32768.
  auto splitConfigs = [](const kiln::Sm90GemmProblem &problem) {
    SmallVector<kiln::Sm90GemmConfig> split;
    for (const kiln::Sm90GemmConfig &config : kiln::sm90GemmConfigs(problem))
      if (config.splitK > 1)
        split.push_back(config);
    return split;
  };
  SmallVector<kiln::Sm90GemmConfig> split = splitConfigs(*small);
  ASSERT_FALSE(split.empty());
  std::optional<kiln::Sm90GemmProblem> atOpt = kiln::matchSm90Gemm(kernel, false);
  ASSERT_TRUE(atOpt);
  EXPECT_EQ(atOpt->maxM, 64 * 512);
  EXPECT_TRUE(splitConfigs(*atOpt).empty());
  // The variant is timed at the min shape: a static engine of 16 rows.
  {
    std::optional<kiln::engine::Engine> engine =
        timingEngine(kernel, split.front().toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context),
                     "kernel.min_shape");
    ASSERT_TRUE(engine);
    EXPECT_EQ(engine->inputs[0].shape, (std::vector<int64_t>{1, 16, 768}));
    EXPECT_EQ(engine->steps.size(), 2u); // the GEMM's parts and the reduction
  }

  kiln::Sm90GemmConfig wide;
  wide.tileN = 256;
  wide.stages = 4;
  wide.consumers = 2;
  kiln::KernelAutotuneOptions options;
  options.budget = 60;
  // Where the min shape's winner is the opt shape's, there is no variant.
  {
    OwningOpRef<ModuleOp> copy = module->clone();
    ProfileTimer timer;
    timer.fastest["kernel.opt_shape"] = wide.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context);
    timer.fastest["kernel.min_shape"] = wide.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context);
    PassManager pm(&context);
    pm.addPass(kiln::createKernelAutotune(options, &timer));
    ASSERT_TRUE(succeeded(pm.run(*copy)));
    auto tuned = *copy->getOps<kiln::kernel::FuncOp>().begin();
    EXPECT_EQ(tuned->getAttr(kiln::kernel::configAttrHelper(&context).getName()),
              wide.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context));
    EXPECT_FALSE(tuned->hasAttr(kiln::kernel::rowVariantsAttrHelper(&context).getName()));
    EXPECT_TRUE(llvm::is_contained(timer.asked, "kernel.min_shape"));
  }
  // The opt shape's winner is a wide tile, the min shape's a split-K one.
  ProfileTimer timer;
  timer.fastest["kernel.opt_shape"] = wide.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context);
  timer.fastest["kernel.min_shape"] =
      split.front().toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context);
  {
    PassManager pm(&context);
    pm.addPass(kiln::createKernelAutotune(options, &timer));
    ASSERT_TRUE(succeeded(pm.run(*module)));
  }
  EXPECT_EQ(kernel->getAttr(kiln::kernel::configAttrHelper(&context).getName()),
            wide.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context));
  FailureOr<SmallVector<kiln::GemmRowVariant>> variants = kiln::getRowVariants(kernel, "test");
  ASSERT_TRUE(succeeded(variants));
  ASSERT_EQ(variants->size(), 1u);
  EXPECT_EQ((*variants)[0].maxRows, 128);
  EXPECT_EQ((*variants)[0].config,
            split.front().toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context));
  EXPECT_TRUE(llvm::is_contained(timer.asked, "kernel.min_shape"));

  // The engine: both GEMMs, each launched at its own shapes only.
  kiln::GpuCompileOptions compile;
  compile.pipeline.from = kiln::Stage::Gpu;
  compile.pipeline.autotune = false;
  kiln::engine::Engine engine;
  ASSERT_TRUE(succeeded(kiln::compileForGpu(*module, compile, engine)));
  ASSERT_TRUE(engine.isDynamic());
  // Each launch's CTAs at input shape [batch, sequence, 768].
  auto gridsAt = [&](int64_t batch, int64_t sequence) {
    return launchedCtas(engine, {{batch, sequence, 768}, {768, 3072}});
  };
  std::string splitGemm, reduce, wideGemm;
  for (const kiln::engine::Kernel &each : engine.kernels) {
    if (each.name.find("split_k_reduce") == 0)
      reduce = each.name;
    else if (each.name.find(split.front().name()) != std::string::npos)
      splitGemm = each.name;
    else if (each.name.find(wide.name()) != std::string::npos)
      wideGemm = each.name;
  }
  ASSERT_FALSE(splitGemm.empty());
  ASSERT_FALSE(reduce.empty());
  ASSERT_FALSE(wideGemm.empty());
  // 1 x 16 and 1 x 128 rows: the split-K GEMM (24 tiles, each in split_k parts) and its
  // reduction; 2 x 128 and the opt shape: the wide tiles (8 columns of 128 rows).
  std::map<std::string, uint64_t> atMin = gridsAt(1, 16);
  EXPECT_EQ(atMin[splitGemm], uint64_t(24 * split.front().splitK));
  EXPECT_EQ(atMin[reduce], uint64_t(16 * 3072 / 4 / 256));
  EXPECT_EQ(atMin[wideGemm], 0u);
  EXPECT_GT(gridsAt(1, 128)[splitGemm], 0u);
  EXPECT_EQ(gridsAt(1, 128)[wideGemm], 0u);
  std::map<std::string, uint64_t> above = gridsAt(1, 129);
  EXPECT_EQ(above[splitGemm], 0u);
  EXPECT_EQ(above[reduce], 0u);
  EXPECT_EQ(above[wideGemm], uint64_t(2 * 12));
  EXPECT_EQ(gridsAt(8, 128)[wideGemm], uint64_t(8 * 12));
  // The workspace: split_k x 128 rows x 3072 f32 fits in the arena beside everything
  // else (planned at the max shape).
  EXPECT_GE(engine.arenaBytes, uint64_t(split.front().splitK) * 128 * 3072 * 4);
}

// The same GEMM's large Ms (above sqrt(1024 * 32768) = 5792 rows) get their own
// configuration too, chosen at the max shape after every kernel's opt shape and small Ms,
// and the engine launches each of the three where its rows are.
TEST_F(TuningIRTest, DynamicGemmGetsAVariantForLargeRows) {
  std::string text = std::string(kDynamicGemmKernel) + kDynamicGemmMain;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  auto kernel = *module->getOps<kiln::kernel::FuncOp>().begin();
  std::optional<kiln::GemmRows> bucket = kiln::largeRowsBucket(kernel);
  ASSERT_TRUE(bucket);
  EXPECT_EQ(bucket->profile, "kernel.max_shape");
  EXPECT_EQ(bucket->aboveRows, 5792);
  std::optional<kiln::Sm90GemmProblem> large = kiln::matchSm90Gemm(kernel, false, *bucket);
  ASSERT_TRUE(large);
  EXPECT_EQ(large->m, 64 * 512);
  // A persistent grid is a configuration at the max shape (6144 tiles of 128 x 128), not
  // at the opt shape's 192.
  kiln::Sm90GemmConfig persistent;
  persistent.stages = 4;
  persistent.consumers = 2;
  persistent.persistent = true;
  EXPECT_TRUE(
      kiln::isListedConfig<kiln::Sm90GemmConfig>(kiln::sm90GemmConfigs(*large), persistent));
  // So are ping-pong consumers (a row-major B of f16).
  kiln::Sm90GemmConfig pingpong = persistent;
  pingpong.pingpong = true;
  EXPECT_TRUE(kiln::isListedConfig<kiln::Sm90GemmConfig>(kiln::sm90GemmConfigs(*large), pingpong));
  // A B stored N x K (K-major) has none: upstream's 128-row wgmma reads an MN-major B.
  kiln::Sm90GemmProblem kMajor = *large;
  kMajor.kMajorB = true;
  EXPECT_FALSE(kiln::isListedConfig<kiln::Sm90GemmConfig>(kiln::sm90GemmConfigs(kMajor), pingpong));
  // The variant is timed at the max shape.
  {
    std::optional<kiln::engine::Engine> engine = timingEngine(
        kernel, persistent.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context), "kernel.max_shape");
    ASSERT_TRUE(engine);
    EXPECT_EQ(engine->inputs[0].shape, (std::vector<int64_t>{64, 512, 768}));
  }

  kiln::Sm90GemmConfig wide, narrow;
  wide.tileN = 256;
  wide.stages = 4;
  wide.consumers = 2;
  narrow.tileN = 64;
  narrow.stages = 6;
  narrow.consumers = 2;
  ProfileTimer timer;
  timer.fastest["kernel.opt_shape"] = wide.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context);
  timer.fastest["kernel.min_shape"] = narrow.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context);
  timer.fastest["kernel.max_shape"] = persistent.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context);
  kiln::KernelAutotuneOptions options;
  options.budget = 60;
  {
    PassManager pm(&context);
    pm.addPass(kiln::createKernelAutotune(options, &timer));
    ASSERT_TRUE(succeeded(pm.run(*module)));
  }
  EXPECT_EQ(kernel->getAttr(kiln::kernel::configAttrHelper(&context).getName()),
            wide.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context));
  FailureOr<SmallVector<kiln::GemmRowVariant>> variants = kiln::getRowVariants(kernel, "test");
  ASSERT_TRUE(succeeded(variants));
  ASSERT_EQ(variants->size(), 2u);
  EXPECT_EQ((*variants)[0].maxRows, 128);
  EXPECT_EQ((*variants)[0].config, narrow.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context));
  EXPECT_EQ((*variants)[1].maxRows, 0);
  EXPECT_EQ((*variants)[1].aboveRows, 5792);
  EXPECT_EQ((*variants)[1].config, persistent.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context));
  // Opt shape first, then the min shape, the max shape last.
  ASSERT_FALSE(timer.asked.empty());
  EXPECT_EQ(timer.asked.front(), "kernel.opt_shape");
  EXPECT_EQ(timer.asked.back(), "kernel.max_shape");
  // A kernel that has its small Ms' variant still times as one configuration at the max
  // shape (the variant, chosen at the min shape, is no part of that timing module).
  {
    std::optional<kiln::engine::Engine> engine = timingEngine(
        kernel, persistent.toAttr<kiln::kernel::Sm90GemmConfigAttr>(&context), "kernel.max_shape");
    ASSERT_TRUE(engine);
    EXPECT_EQ(engine->kernels.size(), 1u);
  }

  // The engine: each configuration where its rows are.
  kiln::GpuCompileOptions compile;
  compile.pipeline.from = kiln::Stage::Gpu;
  compile.pipeline.autotune = false;
  kiln::engine::Engine engine;
  ASSERT_TRUE(succeeded(kiln::compileForGpu(*module, compile, engine)));
  auto gridsAt = [&](int64_t batch, int64_t sequence) {
    return launchedCtas(engine, {{batch, sequence, 768}, {768, 3072}});
  };
  std::string narrowGemm, wideGemm, persistentGemm;
  for (const kiln::engine::Kernel &each : engine.kernels) {
    if (each.name.find(persistent.name()) != std::string::npos)
      persistentGemm = each.name;
    else if (each.name.find(wide.name()) != std::string::npos)
      wideGemm = each.name;
    else if (each.name.find(narrow.name()) != std::string::npos)
      narrowGemm = each.name;
  }
  ASSERT_FALSE(narrowGemm.empty());
  ASSERT_FALSE(wideGemm.empty());
  ASSERT_FALSE(persistentGemm.empty());
  // 1 x 16: 48 tiles of 128 x 64; 8 x 128: 8 x 12 wide tiles; 32 x 256 (8192 rows): the
  // persistent grid, one CTA an SM; 45 x 128 (5760 rows): still the opt configuration.
  std::map<std::string, uint64_t> atMin = gridsAt(1, 16);
  EXPECT_EQ(atMin[narrowGemm], 48u);
  EXPECT_EQ(atMin[wideGemm], 0u);
  EXPECT_EQ(atMin[persistentGemm], 0u);
  std::map<std::string, uint64_t> atOpt = gridsAt(8, 128);
  EXPECT_EQ(atOpt[narrowGemm], 0u);
  EXPECT_EQ(atOpt[wideGemm], uint64_t(8 * 12));
  EXPECT_EQ(atOpt[persistentGemm], 0u);
  EXPECT_EQ(gridsAt(45, 128)[wideGemm], uint64_t(45 * 12));
  EXPECT_EQ(gridsAt(45, 128)[persistentGemm], 0u);
  std::map<std::string, uint64_t> above = gridsAt(32, 256);
  EXPECT_EQ(above[wideGemm], 0u);
  EXPECT_EQ(above[persistentGemm], uint64_t(kiln::kSm90Multiprocessors));
}

// A convolution of a run-time batch, 1 to 256 images (opt 32) of 7 x 7 outputs: the
// small batches get their own configuration and output boxes, chosen at batch 1, and the
// engine launches one or the other per batch.
TEST_F(TuningIRTest, DynamicConvGetsAVariantForSmallBatches) {
  const char *text = R"mlir(
memref.global "private" constant @w : memref<128x3x3x64xf16> = dense<1.0>
kernel.func @Conv_0(%x: memref<?x14x14x64xf16>, %w: memref<128x3x3x64xf16>, %y: memref<?x7x7x128xf16>) {
  conv ins(%x, %w : memref<?x14x14x64xf16>, memref<128x3x3x64xf16>) outs(%y : memref<?x7x7x128xf16>) {
  ^bb0(%a: tensor<?x14x14x64xf16>, %b: tensor<128x3x3x64xf16>):
    %r = graph.conv %a, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x14x14x64xf16>, tensor<128x3x3x64xf16>) -> tensor<?x7x7x128xf16>
    kernel.yield %r : tensor<?x7x7x128xf16>
  }
  return
}
func.func @main(%x: memref<?x14x14x64xf16> {kernel.min_shape = array<i64: 1, 14, 14, 64>, kernel.opt_shape = array<i64: 32, 14, 14, 64>, kernel.max_shape = array<i64: 256, 14, 14, 64>}, %y: memref<?x7x7x128xf16>) -> index attributes {kernel.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x14x14x64xf16>
  %w = memref.get_global @w : memref<128x3x3x64xf16>
  %view = memref.reinterpret_cast %y to offset: [0], sizes: [%n, 7, 7, 128], strides: [6272, 896, 128, 1] : memref<?x7x7x128xf16> to memref<?x7x7x128xf16>
  kernel.launch @Conv_0(%x, %w, %view) : (memref<?x14x14x64xf16>, memref<128x3x3x64xf16>, memref<?x7x7x128xf16>) -> ()
  return %n : index
}
)mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  auto kernel = *module->getOps<kiln::kernel::FuncOp>().begin();
  // The bucket: 49 rows at the min shape, up to sqrt(49 * 1568) = 277 (5 images).
  std::optional<kiln::GemmRows> bucket = kiln::smallRowsBucket(kernel);
  ASSERT_TRUE(bucket);
  EXPECT_EQ(bucket->maxRows, 277);
  std::optional<kiln::Sm90GemmProblem> small = kiln::matchSm90Conv(kernel, false, *bucket);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->m, 49);
  EXPECT_EQ(small->maxM, 5 * 49);
  // Split-K pays for one image's tile (and five's).
  kiln::Sm90GemmConfig split;
  for (const kiln::Sm90GemmConfig &config : kiln::sm90ConvConfigs(kernel, false, *bucket))
    if (config.splitK > 1)
      split = config;
  ASSERT_GT(split.splitK, 1);
  // The variant is timed at the min shape: the template's GEMM and its reduction.
  {
    std::optional<kiln::engine::Engine> engine = timingEngine(
        kernel, split.toAttr<kiln::kernel::Sm90ConvConfigAttr>(&context), "kernel.min_shape");
    ASSERT_TRUE(engine);
    EXPECT_EQ(engine->inputs[0].shape, (std::vector<int64_t>{1, 14, 14, 64}));
    EXPECT_EQ(engine->steps.size(), 2u);
  }
  kiln::Sm90GemmConfig wide;
  wide.stages = 4;
  wide.consumers = 2;
  ProfileTimer timer;
  timer.fastest["kernel.opt_shape"] = wide.toAttr<kiln::kernel::Sm90ConvConfigAttr>(&context);
  timer.fastest["kernel.min_shape"] = split.toAttr<kiln::kernel::Sm90ConvConfigAttr>(&context);
  kiln::KernelAutotuneOptions options;
  options.budget = 60;
  PassManager pm(&context);
  pm.addPass(kiln::createKernelAutotune(options, &timer));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  FailureOr<SmallVector<kiln::GemmRowVariant>> variants = kiln::getRowVariants(kernel, "test");
  ASSERT_TRUE(succeeded(variants));
  ASSERT_EQ(variants->size(), 1u);
  EXPECT_EQ((*variants)[0].maxRows, 277);
  EXPECT_EQ((*variants)[0].config, split.toAttr<kiln::kernel::Sm90ConvConfigAttr>(&context));

  // The engine: batches 1 to 5 run the variant (one 1x7x7 box an image, in split_k
  // parts, and the reduction), 6 and more the opt shape's (ceil(N / 18) x 7 boxes).
  kiln::GpuCompileOptions compile;
  compile.pipeline.from = kiln::Stage::Gpu;
  compile.pipeline.autotune = false;
  kiln::engine::Engine engine;
  ASSERT_TRUE(succeeded(kiln::compileForGpu(*module, compile, engine)));
  auto gridsAt = [&](int64_t batch) { return launchedCtas(engine, {{batch, 14, 14, 64}}); };
  std::string small1, reduce, large;
  for (const kiln::engine::Kernel &each : engine.kernels) {
    if (each.name.find("split_k_reduce") == 0)
      reduce = each.name;
    else if (each.name.find("box1x7x7") != std::string::npos)
      small1 = each.name;
    else if (each.name.find("box18x1x7") != std::string::npos)
      large = each.name;
  }
  ASSERT_FALSE(small1.empty());
  ASSERT_FALSE(reduce.empty());
  ASSERT_FALSE(large.empty());
  std::map<std::string, uint64_t> one = gridsAt(1), five = gridsAt(5), six = gridsAt(6);
  EXPECT_EQ(one[small1], uint64_t(split.splitK));
  EXPECT_GT(one[reduce], 0u);
  EXPECT_EQ(one[large], 0u);
  EXPECT_EQ(five[small1], uint64_t(5 * split.splitK));
  EXPECT_EQ(five[large], 0u);
  EXPECT_EQ(six[small1], 0u);
  EXPECT_EQ(six[reduce], 0u);
  EXPECT_EQ(six[large], 7u);
  EXPECT_EQ(gridsAt(32)[large], uint64_t(2 * 7));
}

TEST_F(TuningIRTest, BudgetGoesToTheLongestKernelsFirst) {
  // A small product first in program order, then a large one: with a budget that one
  // kernel's measurements exceed, the large one is measured and the small one estimated.
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>("module {}", &context);
  for (auto [name, size] : {std::pair<std::string, int64_t>{"small", 256}, {"large", 4096}}) {
    OwningOpRef<ModuleOp> one = gemms({name}, size, size, size);
    ASSERT_TRUE(one);
    for (Operation &op : llvm::make_early_inc_range(one->getBody()->getOperations())) {
      op.remove();
      module->getBody()->push_back(&op);
    }
  }
  SlowTimer timer(0.05);
  kiln::KernelAutotuneOptions options;
  options.budget = 0.01;
  PassManager pm(&context);
  pm.addPass(kiln::createKernelAutotune(options, &timer));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  ASSERT_FALSE(timer.measured.empty());
  EXPECT_TRUE(
      llvm::all_of(timer.measured, [](const std::string &name) { return name == "large"; }));
  for (auto kernel : module->getOps<kiln::kernel::FuncOp>()) {
    auto tuning = kiln::kernel::tuningAttrHelper(&context).getAttr(kernel);
    ASSERT_TRUE(tuning);
    EXPECT_EQ(tuning.getAs<StringAttr>("source").getValue(),
              kernel.getSymName() == "large" ? "measured" : "cost-model")
        << kernel.getSymName().str();
  }
}
