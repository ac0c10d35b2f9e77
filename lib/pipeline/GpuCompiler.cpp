//===- GpuCompiler.cpp - Graph module to GPU engine -----------------------===//

#include "lib/pipeline/GpuCompiler.h"

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "lib/engine/EngineBuilder.h"
#include "lib/target/GpuBinary.h"
#include "passes/Passes.h"
#include "passes/Pipelines.h"
#include "passes/kernel/Autotune.h"
#include "passes/kernel/KernelConfig.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace kiln {

namespace {
/// The host function graph-to-kernel made (it carries kernel.num_inputs).
func::FuncOp findHostFunction(ModuleOp module) {
  for (auto function : module.getOps<func::FuncOp>())
    if (function->hasAttr("kernel.num_inputs"))
      return function;
  return nullptr;
}
} // namespace

LogicalResult compileGraphForGpu(ModuleOp module, const GpuCompileOptions &options,
                                 engine::Engine &engine) {
  auto report = [&](const std::string &line) {
    if (options.progress)
      options.progress(line);
  };
  MLIRContext *context = module.getContext();

  PassManager formation(context);
  addKernelFormationPasses(formation);
  if (failed(formation.run(module)))
    return failure();
  size_t kernels = llvm::range_size(module.getOps<kernel::FuncOp>());
  report(llvm::formatv("formed {0} kernels", kernels).str());
  if (options.afterFormation)
    options.afterFormation(module);
  if (options.stopAfter == "kernel")
    return success();

  // Each kernel's configuration: timing cache, GPU measurement or cost model.
  if (options.autotune) {
    bool anythingToTune = llvm::any_of(module.getOps<kernel::FuncOp>(), [&](kernel::FuncOp f) {
      return !f->hasAttr(kKernelConfigAttr) &&
             kernelConfigCandidates(f, options.target, options.allowTf32).size() > 1;
    });
    KernelTimer *timer = nullptr;
    if (anythingToTune && options.tuneBudget > 0) {
      std::string why = "no GPU timer in this tool";
      if (options.timer)
        timer = options.timer(why);
      if (!timer)
        report("no GPU to tune on (" + why + "): kernel configurations from the " +
               (options.timingCache.empty() ? std::string() : "timing cache, then the ") +
               "cost model");
    }
    PassManager tuning(context);
    KernelAutotuneOptions tuneOptions;
    tuneOptions.target = options.target;
    tuneOptions.timingCache = options.timingCache;
    tuneOptions.budget = options.tuneBudget;
    tuneOptions.allowTf32 = options.allowTf32;
    tuning.addPass(createKernelAutotune(tuneOptions, timer, options.progress));
    if (failed(tuning.run(module)))
      return failure();
    std::vector<TuningDecision> decisions = collectTuningDecisions(module);
    if (!decisions.empty()) {
      size_t measured = 0, cached = 0;
      for (const TuningDecision &decision : decisions) {
        measured += decision.source == "measured";
        cached += decision.source == "cache";
      }
      report(llvm::formatv("tuned {0} kernels ({1} measured, {2} from the timing cache, {3} "
                           "by the cost model)",
                           decisions.size(), measured, cached, decisions.size() - measured - cached)
                 .str());
    }
    if (options.decisions)
      *options.decisions = std::move(decisions);
  }
  return compileKernelsForGpu(module, options, engine);
}

std::vector<TuningDecision> collectTuningDecisions(ModuleOp module) {
  std::vector<TuningDecision> decisions;
  for (auto function : module.getOps<kernel::FuncOp>()) {
    auto config = function->getAttrOfType<DictionaryAttr>(kKernelConfigAttr);
    auto tuning = function->getAttrOfType<DictionaryAttr>(kKernelTuningAttr);
    if (!config || !tuning)
      continue;
    TuningDecision decision;
    decision.kernel = function.getSymName().str();
    decision.problem = describeKernelProblem(function);
    decision.config = describeKernelConfig(config);
    if (auto source = tuning.getAs<StringAttr>("source"))
      decision.source = source.str();
    if (auto micros = tuning.getAs<FloatAttr>("micros"))
      decision.micros = micros.getValueAsDouble();
    decisions.push_back(std::move(decision));
  }
  return decisions;
}

LogicalResult compileKernelsForGpu(ModuleOp module, const GpuCompileOptions &options,
                                   engine::Engine &engine) {
  auto report = [&](const std::string &line) {
    if (options.progress)
      options.progress(line);
  };
  MLIRContext *context = module.getContext();

  // The IO signature keeps the ONNX element types, which the lowering makes signless.
  func::FuncOp host = findHostFunction(module);
  if (!host)
    return module.emitError("kernel formation left no host function");
  if (failed(readEngineSignature(host, engine)))
    return failure();

  // The engine's kernel table records each kernel's tuning (read before the kernel.funcs
  // are lowered away).
  llvm::StringMap<KernelTuning> tuning;
  for (const TuningDecision &decision : collectTuningDecisions(module))
    tuning[decision.kernel] = {decision.config, decision.source, decision.micros};

  PassManager lowering(context);
  // Tensor-core templates where they fit: flash attention (mma.sync, sm_80 and later; its
  // wgmma variant on sm_90a) on every GPU target; the wgmma GEMM and implicit-GEMM convolution on
  // sm_90a, the mma.sync ones elsewhere.
  lowering.addPass(createKernelAttentionSm80({options.target}));
  // Depthwise convolutions (CUDA cores, every target), before kernel-conv-sm90, which
  // takes one group only.
  lowering.addPass(createKernelConvDepthwise());
  // Channels-last max pools (CUDA cores, every target).
  lowering.addPass(createKernelPoolNhwc());
  // Row kernels (CUDA cores: every GPU target) for softmax, normalisations and reductions
  // over innermost axes.
  lowering.addPass(createKernelReductionRows({options.target}));
  if (options.target == "sm_90a") {
    lowering.addPass(createKernelMatmulSm90({options.gemmConfig, options.allowTf32}));
    lowering.addPass(createKernelConvSm90({options.gemmConfig, options.allowTf32}));
  } else {
    // Other GPU targets (sm_80 and later): the mma.sync GEMM and implicit-GEMM convolution.
    lowering.addPass(createKernelMatmulSm80({options.gemmConfig}));
    lowering.addPass(createKernelConvSm80({options.gemmConfig}));
  }
  addKernelLoweringPasses(lowering);
  GpuTargetOptions target;
  target.chip = options.target;
  addGpuDeviceLoweringPasses(lowering, target);
  lowering.addNestedPass<func::FuncOp>(createKernelPlanBuffers());
  if (failed(lowering.run(module)))
    return failure();
  report("lowered to NVVM");
  if (options.stopAfter == "gpu")
    return success();

  std::string ptxasLog;
  FailureOr<std::vector<GpuBinary>> binaries =
      compileGpuModules(module, options.wantCubin, ptxasLog);
  if (failed(binaries))
    return failure();
  std::vector<CompiledGpuModule> compiled;
  bool haveCubins = false;
  for (GpuBinary &binary : *binaries) {
    haveCubins |= !binary.cubin.empty();
    compiled.push_back({binary.moduleName, std::move(binary.ptx), std::move(binary.cubin)});
  }
  report(haveCubins ? "PTX and cubins (ptxas)" : "PTX (no ptxas: the driver compiles it)");

  engine.target = options.target;
  if (failed(buildEngine(module, compiled, engine, &tuning)))
    return failure();
  std::string check = engine.validate();
  if (!check.empty())
    return module.emitError("the engine is inconsistent: ") << check;
  report(llvm::formatv("engine: {0} kernels, {1} steps, arena {2} KiB (unplanned {3} KiB), "
                       "weights {4} KiB",
                       engine.kernels.size(), engine.steps.size(), engine.arenaBytes / 1024,
                       engine.unplannedBytes / 1024, engine.weights.size() / 1024)
             .str());
  return success();
}

unsigned bindShapeTensorInputs(func::FuncOp function,
                               ArrayRef<std::pair<std::string, ElementsAttr>> values) {
  unsigned bound = 0;
  Block &entry = function.getBody().front();
  OpBuilder builder(&entry, entry.begin());
  for (const auto &[name, value] : values) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !isa<IntegerType>(type.getElementType()) || type.getRank() > 1 ||
        type.getNumElements() > 64)
      continue;
    for (BlockArgument argument : entry.getArguments()) {
      auto argName = function.getArgAttrOfType<StringAttr>(argument.getArgNumber(), "graph.name");
      if (!argName || argName.getValue() != name || argument.use_empty())
        continue;
      auto constant = graph::ConstantOp::create(builder, argument.getLoc(), value);
      argument.replaceAllUsesWith(constant.getResult());
      ++bound;
    }
  }
  return bound;
}

} // namespace kiln
