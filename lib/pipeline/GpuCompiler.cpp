//===- GpuCompiler.cpp - Graph module to GPU engine -----------------------===//

#include "lib/pipeline/GpuCompiler.h"

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "lib/engine/EngineBuilder.h"
#include "lib/target/GpuBinary.h"
#include "passes/Pipelines.h"
#include "passes/kernel/KernelTemplate.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace kiln {

namespace {
/// The host function graph-to-kernel made (it carries kernel.num_inputs).
func::FuncOp findHostFunction(ModuleOp module) {
  for (auto function : module.getOps<func::FuncOp>())
    if (function->hasAttr(kiln::kernel::kNumInputsAttr))
      return function;
  return nullptr;
}
} // namespace

std::vector<TuningDecision> collectTuningDecisions(ModuleOp module) {
  std::vector<TuningDecision> decisions;
  MLIRContext *context = module.getContext();
  auto configHelper = kernel::configAttrHelper(context);
  auto tuningHelper = kernel::tuningAttrHelper(context);
  for (auto function : module.getOps<kernel::FuncOp>()) {
    Attribute config = configHelper.getAttr(function);
    DictionaryAttr tuning = tuningHelper.getAttr(function);
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

LogicalResult compileForGpu(ModuleOp module, const GpuCompileOptions &options,
                            engine::Engine &engine) {
  auto report = [&](const std::string &line) {
    if (options.progress)
      options.progress(line);
  };
  MLIRContext *context = module.getContext();
  GpuPipelineOptions pipeline = options.pipeline;
  bool package = pipeline.to == Stage::Gpu && options.buildEngine;
  // The engine's kernel table records each kernel's tuning, read before the kernel.funcs
  // are lowered away.
  llvm::StringMap<KernelTuning> tuning;
  pipeline.observe = [&](ModuleOp observed, PipelinePoint point) -> LogicalResult {
    switch (point) {
    case PipelinePoint::GraphDone:
      break;
    case PipelinePoint::KernelsFormed:
      report(
          llvm::formatv("formed {0} kernels", llvm::range_size(observed.getOps<kernel::FuncOp>()))
              .str());
      break;
    case PipelinePoint::KernelsConfigured: {
      std::vector<TuningDecision> decisions = collectTuningDecisions(observed);
      if (!decisions.empty()) {
        size_t measured = 0, cached = 0;
        for (const TuningDecision &decision : decisions) {
          measured += decision.source == "measured";
          cached += decision.source == "cache";
        }
        report(llvm::formatv("tuned {0} kernels ({1} measured, {2} from the timing cache, {3} "
                             "by the cost model)",
                             decisions.size(), measured, cached,
                             decisions.size() - measured - cached)
                   .str());
      }
      for (const TuningDecision &decision : decisions) {
        KernelTuning &entry = tuning[decision.kernel];
        entry.config = decision.config;
        entry.source = decision.source;
        entry.micros = decision.micros;
      }
      // What each kernel.func computes and moves, for profiles' achieved rates.
      for (kernel::FuncOp function : observed.getOps<kernel::FuncOp>()) {
        KernelTuning &entry = tuning[function.getName()];
        entry.flops = estimateKernelFlops(function);
        entry.bytes = estimateKernelBytes(function);
      }
      if (options.decisions)
        *options.decisions = std::move(decisions);
      // The IO signature keeps the ONNX element types, which the lowering makes signless.
      if (package) {
        func::FuncOp host = findHostFunction(observed);
        if (!host)
          return observed.emitError("kernel formation left no host function");
        if (failed(readEngineSignature(host, engine)))
          return failure();
      }
      break;
    }
    case PipelinePoint::GpuDone:
      report("lowered to NVVM");
      break;
    }
    if (options.observe)
      options.observe(observed, point);
    return success();
  };
  PassManager pm(context);
  addGpuPipeline(pm, pipeline);
  if (options.configure && failed(options.configure(pm)))
    return failure();
  if (failed(pm.run(module)))
    return failure();
  if (!package)
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

  engine.target = pipeline.templates.target;
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
