//===- Compiler.cpp - The compile pipeline driver -------------------------===//

#include "lib/pipeline/Compiler.h"
#include "dialects/kernel/KernelDialect.h"

#include "dialects/graph/GraphOps.h"
#include "kiln/Version.h"
#include "lib/cpu/HostExecutable.h"
#include "lib/onnx/Importer.h"
#include "lib/pipeline/CompileReport.h"
#include "lib/pipeline/GpuCompiler.h"
#include "lib/pipeline/Progress.h"
#include "passes/Passes.h"
#include "passes/Pipelines.h"
#include "passes/graph/QuantizeInt8.h"
#include "passes/graph/ReducePrecision.h"
#include "passes/kernel/Autotune.h"
#include "passes/kernel/KernelTemplate.h"
#include "passes/kernel/TimingCache.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>

using namespace mlir;

namespace kiln {

/// Writes `module` as MLIR text or bytecode to `path`, only once it is complete.
static LogicalResult writeModule(ModuleOp module, llvm::StringRef path, bool bytecode) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(path, &error);
  if (!output)
    return emitError(module.getLoc()) << error;
  if (bytecode) {
    if (failed(writeBytecodeToFile(module, output->os())))
      return failure();
  } else {
    module.print(output->os());
    output->os() << "\n";
  }
  output->keep();
  return success();
}

FailureOr<std::vector<std::pair<std::string, SmallVector<int64_t>>>>
parseShapeList(MLIRContext &context, llvm::StringRef list, llvm::StringRef flag) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> parsed;
  if (std::string problem = engine::parseShapes(list.str(), parsed); !problem.empty()) {
    emitError(UnknownLoc::get(&context)) << flag << " '" << list << "': " << problem;
    return failure();
  }
  std::vector<std::pair<std::string, SmallVector<int64_t>>> shapes;
  for (auto &[name, shape] : parsed)
    shapes.emplace_back(name, SmallVector<int64_t>(shape.begin(), shape.end()));
  return shapes;
}

FailureOr<ResolvedShapes> resolveInputShapes(MLIRContext &context, const CompileOptions &options) {
  bool profile =
      !options.minShapes.empty() || !options.optShapes.empty() || !options.maxShapes.empty();
  if (!profile) {
    auto shapes = parseShapeList(context, options.shapes);
    if (failed(shapes))
      return failure();
    return ResolvedShapes{std::move(*shapes), {}, {}};
  }
  auto fail = [&](const llvm::Twine &why) {
    emitError(UnknownLoc::get(&context)) << why;
    return failure();
  };
  if (!options.shapes.empty())
    return fail("--shapes and --min-shapes/--opt-shapes/--max-shapes exclude each other");
  if (options.minShapes.empty() || options.optShapes.empty() || options.maxShapes.empty())
    return fail("a profile needs all of --min-shapes, --opt-shapes and --max-shapes");
  auto min = parseShapeList(context, options.minShapes, "--min-shapes");
  auto opt = parseShapeList(context, options.optShapes, "--opt-shapes");
  auto max = parseShapeList(context, options.maxShapes, "--max-shapes");
  if (failed(min) || failed(opt) || failed(max))
    return failure();
  auto find = [](const auto &list, const std::string &name) -> const SmallVector<int64_t> * {
    for (const auto &[entry, shape] : list)
      if (entry == name)
        return &shape;
    return nullptr;
  };
  if (min->size() != opt->size() || max->size() != opt->size())
    return fail("--min-shapes, --opt-shapes and --max-shapes must name the same inputs");
  ResolvedShapes resolved;
  for (const auto &[name, optShape] : *opt) {
    const SmallVector<int64_t> *minShape = find(*min, name), *maxShape = find(*max, name);
    if (!minShape || !maxShape)
      return fail("input '" + name + "' is in --opt-shapes but not in " +
                  (minShape ? "--max-shapes" : "--min-shapes"));
    if (minShape->size() != optShape.size() || maxShape->size() != optShape.size())
      return fail("input '" + name + "' has different ranks in the profile");
    SmallVector<int64_t> shape(optShape);
    for (size_t dim = 0; dim < optShape.size(); ++dim) {
      int64_t low = (*minShape)[dim], best = optShape[dim], high = (*maxShape)[dim];
      std::string where = "input '" + name + "' dimension " + std::to_string(dim);
      if (low > best || best > high)
        return fail(where + ": the profile needs min <= opt <= max, got " + std::to_string(low) +
                    ", " + std::to_string(best) + ", " + std::to_string(high));
      if (low == high)
        continue;
      shape[dim] = ShapedType::kDynamic;
      if (resolved.firstRange.empty())
        resolved.firstRange =
            where + " ranges from " + std::to_string(low) + " to " + std::to_string(high);
    }
    resolved.shapes.emplace_back(name, shape);
    resolved.profile.push_back({name, *minShape, optShape, *maxShape});
  }
  return resolved;
}

void annotateProfile(func::FuncOp function, ArrayRef<InputProfile> profile) {
  Builder builder(function.getContext());
  for (const InputProfile &input : profile)
    for (unsigned arg = 0; arg < function.getNumArguments(); ++arg) {
      auto name = function.getArgAttrOfType<StringAttr>(arg, "graph.name");
      if (!name || name.getValue() != input.name)
        continue;
      function.setArgAttr(arg, kiln::kernel::kMinShapeAttr,
                          builder.getDenseI64ArrayAttr(input.min));
      function.setArgAttr(arg, kiln::kernel::kOptShapeAttr,
                          builder.getDenseI64ArrayAttr(input.opt));
      function.setArgAttr(arg, kiln::kernel::kMaxShapeAttr,
                          builder.getDenseI64ArrayAttr(input.max));
    }
}

LogicalResult
specializeInputShapes(func::FuncOp function,
                      llvm::ArrayRef<std::pair<std::string, SmallVector<int64_t>>> shapes) {
  Block &entry = function.getBody().front();
  SmallVector<Type> argumentTypes(function.getArgumentTypes());
  for (const auto &[name, shape] : shapes) {
    std::optional<unsigned> index;
    for (unsigned arg = 0; arg < function.getNumArguments(); ++arg)
      if (auto argName = function.getArgAttrOfType<StringAttr>(arg, "graph.name"))
        if (argName.getValue() == name)
          index = arg;
    if (!index)
      return emitError(function.getLoc()) << "the model has no input named '" << name << "'";
    auto declared = dyn_cast<RankedTensorType>(argumentTypes[*index]);
    auto elementType = cast<TensorType>(argumentTypes[*index]).getElementType();
    auto specialized = RankedTensorType::get(shape, elementType);
    bool compatible =
        !declared || (declared.getRank() == static_cast<int64_t>(shape.size()) &&
                      llvm::all_of(llvm::zip(declared.getShape(), shape), [](auto pair) {
                        auto [was, is] = pair;
                        return ShapedType::isDynamic(was) || was == is;
                      }));
    if (!compatible)
      return emitError(function.getLoc()) << "input '" << name << "' is declared " << declared
                                          << ", which shape " << specialized << " does not fit";
    argumentTypes[*index] = specialized;
    entry.getArgument(*index).setType(specialized);
  }
  function.setFunctionType(
      FunctionType::get(function.getContext(), argumentTypes, function.getResultTypes()));
  return success();
}

GraphStageOptions GraphReports::stageOptions(const CompileOptions &options) {
  GraphStageOptions stage;
  stage.precision = options.precision;
  stage.reducedIO = options.reducedIO;
  stage.channelsLast = options.channelsLast;
  stage.foldNormalizations = options.foldLayerNorms;
  stage.int8Thresholds = int8.thresholds;
  stage.precisionReport = [this](const graph::PrecisionReport &report) {
    std::lock_guard<std::mutex> lock(mutex);
    precision.push_back(report);
  };
  stage.int8Report = [this](const graph::Int8Report &report) {
    std::lock_guard<std::mutex> lock(mutex);
    quantized += report.quantized;
    shortcuts += report.shortcuts;
    uncalibrated += int64_t(report.uncalibrated.size());
  };
  return stage;
}

void GraphReports::print(const CompileOptions &options, Progress &progress) const {
  progress.step("graph passes");
  if (int8.thresholds)
    progress.step(describeInt8(quantized, shortcuts, uncalibrated, int8.keptInFloat,
                               options.calibration.minLayerSqnr));
  for (const graph::PrecisionReport &report : precision) {
    std::string summary;
    llvm::raw_string_ostream stream(summary);
    report.print(stream, options.precisionReport);
    if (options.precisionReport)
      llvm::errs() << summary;
    else
      progress.step(StringRef(summary).rtrim());
  }
}

LogicalResult compile(MLIRContext &context, const CompileOptions &options) {
  Progress progress(options.quiet);
  OwningOpRef<ModuleOp> module = onnx::importModelFile(context, options.modelPath);
  if (!module)
    return failure();
  size_t ops = 0;
  module->walk([&](Operation *) { ++ops; });
  progress.step(llvm::formatv("imported {0}: {1} ops", options.modelPath, ops));

  auto shapes = resolveInputShapes(context, options);
  if (failed(shapes))
    return failure();
  auto main = module->lookupSymbol<func::FuncOp>("main");
  if (main && failed(specializeInputShapes(main, shapes->shapes)))
    return failure();
  if (main)
    annotateProfile(main, shapes->profile);

  bool cpu = options.target == "cpu";
  if (!cpu && options.target != kiln::kTargetSm90a && options.target != kiln::kTargetSm80)
    return emitError(module->getLoc())
           << "unknown --target '" << options.target << "'; one of sm_90a, sm_80, cpu";
  if (!cpu && (options.compileTo == Stage::Linalg || options.compileTo == Stage::LLVM))
    return emitError(module->getLoc())
           << "--compile-to=" << stageName(options.compileTo) << " is a stage of --target cpu";
  if (cpu && (options.compileTo == Stage::Kernel || options.compileTo == Stage::Gpu))
    return emitError(module->getLoc()) << "--compile-to=" << stageName(options.compileTo)
                                       << " is a stage of the GPU targets (sm_90a, sm_80)";
  // The GPU path plans memory and tunes kernels for a profile: a dynamic input needs one.
  if (!cpu && options.compileTo != Stage::Graph && main)
    for (unsigned arg = 0; arg < main.getNumArguments(); ++arg) {
      auto type = dyn_cast<RankedTensorType>(main.getArgumentTypes()[arg]);
      if (!type || type.hasStaticShape() || main.getArgAttr(arg, kiln::kernel::kMaxShapeAttr))
        continue;
      auto name = main.getArgAttrOfType<StringAttr>(arg, "graph.name");
      int64_t dim = llvm::find_if(type.getShape(), ShapedType::isDynamic) - type.getShape().begin();
      return emitError(module->getLoc())
             << "input '" << (name ? name.getValue() : StringRef("?")) << "' has dynamic dimension "
             << dim << " (" << type << "): the GPU path needs its shapes, --shapes for one, or "
             << "--min-shapes/--opt-shapes/--max-shapes for a range";
    }

  std::vector<TrafficEstimate> report;
  if (options.report) {
    // The graph as imported, with the types shape inference gives it (nothing folded).
    OwningOpRef<ModuleOp> imported = module->clone();
    PassManager inferShapes(&context);
    inferShapes.addNestedPass<func::FuncOp>(createGraphInferShapes());
    if (failed(inferShapes.run(*imported)))
      return failure();
    report.push_back(estimateGraphTraffic(*imported, "as imported, one kernel per op"));
  }

  // INT8 calibration runs the model on the host: before the pipeline, on a copy.
  GraphReports graphReports;
  if (options.int8) {
    llvm::Expected<Int8Calibration> calibration =
        calibrateGraphInt8(*module, options.modelPath, options.calibration,
                           [&](const Twine &line) { progress.step(line); });
    if (!calibration)
      return emitError(module->getLoc()) << llvm::toString(calibration.takeError());
    graphReports.int8 = std::move(*calibration);
  }
  // graph.transpose ops after kernel formation (inside the kernels' bodies); -1 on the
  // CPU target.
  int64_t transposesLeft = -1;
  // The products, convolutions and attentions the generic lowering computes, with why
  // (GPU targets; nullopt until the kernels are configured).
  std::optional<std::vector<std::string>> offTensorCores;
  auto printReport = [&] {
    if (!options.report)
      return;
    printCompileReport(llvm::errs(), options.modelPath, report);
    if (transposesLeft >= 0)
      llvm::errs() << "  transposes left: " << transposesLeft
                   << (options.channelsLast ? " (after graph-convert-layout)"
                                            : " (channels first; --channels-last converts)")
                   << "\n";
    if (offTensorCores) {
      llvm::errs() << "contractions off the tensor cores: " << offTensorCores->size() << "\n";
      for (const std::string &line : *offTensorCores)
        llvm::errs() << "  " << line << "\n";
    }
  };
  auto afterGraphStage = [&](ModuleOp graphModule) {
    graphReports.print(options, progress);
    if (options.report)
      report.push_back(
          estimateGraphTraffic(graphModule, "after the graph passes, one kernel per op"));
  };

  if (cpu) {
    PassManager lowering(&context);
    addGraphStage(lowering, graphReports.stageOptions(options));
    if (options.configurePassManager && failed(options.configurePassManager(lowering)))
      return failure();
    if (failed(lowering.run(*module)))
      return failure();
    afterGraphStage(*module);
    if (options.compileTo == Stage::Graph)
      return writeModule(*module, options.outputPath, options.emitBytecode);
    if (options.compileTo == Stage::Linalg || options.compileTo == Stage::LLVM) {
      PassManager toLinalg(&context);
      if (options.compileTo == Stage::Linalg)
        toLinalg.addPass(createGraphToLinalg());
      else
        addCpuLoweringPasses(toLinalg);
      if (options.configurePassManager && failed(options.configurePassManager(toLinalg)))
        return failure();
      if (failed(toLinalg.run(*module)))
        return failure();
      return writeModule(*module, options.outputPath, options.emitBytecode);
    }
    auto executable = cpu::HostExecutable::compile(*module);
    if (!executable)
      return emitError(UnknownLoc::get(&context)) << llvm::toString(executable.takeError());
    progress.step("compiled for the CPU");
    if (llvm::Error error = (*executable)->writeObjectFile(options.outputPath))
      return emitError(UnknownLoc::get(&context)) << llvm::toString(std::move(error));
    return success();
  }

  GpuCompileOptions gpu;
  GpuPipelineOptions &pipeline = gpu.pipeline;
  pipeline.graph = graphReports.stageOptions(options);
  pipeline.templates.target = options.target;
  pipeline.templates.allowTf32 = options.allowTf32;
  pipeline.templates.gemmConfig = options.gemmConfig;
  pipeline.templates.attentionConfig = options.attentionConfig;
  pipeline.templates.attentionF32Exp = options.attentionF32Exp;
  pipeline.templates.attentionMinCtas = options.attentionMinCtas;
  // A configuration forced for every GEMM and convolution is what gets measured: no tuning.
  pipeline.autotune = options.gemmConfig.empty();
  pipeline.to = options.compileTo == Stage::Engine ? Stage::Gpu : options.compileTo;
  pipeline.timingCache = options.noTimingCache         ? std::string()
                         : options.timingCache.empty() ? TimingCache::defaultPath()
                                                       : options.timingCache;
  pipeline.tuneBudget = options.tuneBudget;
  pipeline.tuningProgress = [&](const std::string &line) { progress.step(line); };
  // Tuning: the timer when a GPU is here and measuring is allowed; the cache unless off.
  std::unique_ptr<KernelTimer> timer;
  pipeline.timer = [&](std::string &why) -> KernelTimer * {
    if (!timer && options.makeTimer)
      timer = options.makeTimer(pipeline.templates, why);
    return timer.get();
  };
  gpu.buildEngine = options.compileTo == Stage::Engine;
  gpu.progress = [&](const std::string &line) { progress.step(line); };
  gpu.configure = options.configurePassManager;
  gpu.observe = [&](ModuleOp observed, PipelinePoint point) {
    if (point == PipelinePoint::GraphDone)
      afterGraphStage(observed);
    if (point == PipelinePoint::KernelsFormed && options.report) {
      report.push_back(estimateKernelTraffic(observed, "after kernel formation (fusion)"));
      transposesLeft = 0;
      observed.walk([&](graph::TransposeOp) { ++transposesLeft; });
    }
    if (point == PipelinePoint::KernelsConfigured && options.report) {
      offTensorCores.emplace();
      for (auto function : observed.getOps<kernel::FuncOp>()) {
        std::optional<std::string> why = whyOffTensorCores(function, pipeline.templates);
        if (!why)
          continue;
        // The ONNX node of the contraction the kernel is anchored on.
        std::string node;
        function.walk([&](Operation *op) {
          if (node.empty() && isa<graph::MatMulOp, graph::GemmOp, graph::ConvOp, graph::AttentionOp,
                                  graph::QLinearConvOp, graph::QLinearMatMulOp,
                                  graph::ConvIntegerOp, graph::MatMulIntegerOp>(op))
            node = graph::getNodeName(op->getLoc());
        });
        offTensorCores->push_back(
            llvm::formatv("{0} ({1}): {2}", function.getSymName(), node.empty() ? "?" : node, *why)
                .str());
      }
    }
  };
  std::vector<TuningDecision> decisions;
  gpu.decisions = &decisions;
  engine::Engine engine;
  if (failed(compileForGpu(*module, gpu, engine)))
    return failure();
  if (options.compileTo == Stage::Graph)
    return writeModule(*module, options.outputPath, options.emitBytecode);
  if (options.report && !decisions.empty()) {
    llvm::errs() << "tuning decisions (" << decisions.size() << " kernels):\n";
    for (const TuningDecision &decision : decisions)
      llvm::errs() << llvm::formatv("  {0,-24} {1,-22} {2} ({3}{4:f1} us, {5})\n", decision.kernel,
                                    decision.problem, decision.config,
                                    decision.source == "cost-model" ? "est. " : "", decision.micros,
                                    decision.source);
  }
  // The kernels the generic lowering computes with scalar threads (its fallback: one
  // thread per element or output row; gpu-map-loops names each launch's form).
  std::vector<std::string> scalarKernels;
  if (options.report && options.compileTo == Stage::Engine) {
    TrafficEstimate launches;
    launches.stage = "engine launches (loop nests after codegen)";
    for (const engine::Step &step : engine.steps)
      launches.kernels += step.kind == engine::Step::Kind::Launch;
    report.push_back(launches);
    for (const engine::Kernel &kernel : engine.kernels)
      if (StringRef(kernel.config).starts_with("scalar"))
        scalarKernels.push_back(llvm::formatv(
            "{0} ({1}): {2}", kernel.name,
            kernel.sourceNodes.empty() ? std::string("?") : llvm::join(kernel.sourceNodes, ", "),
            kernel.config));
  }
  printReport();
  if (options.report && options.compileTo == Stage::Engine) {
    llvm::errs() << "kernels on scalar threads (the generic lowering's fallback): "
                 << scalarKernels.size() << "\n";
    for (const std::string &line : scalarKernels)
      llvm::errs() << "  " << line << "\n";
  }
  if (options.compileTo != Stage::Engine)
    return writeModule(*module, options.outputPath, options.emitBytecode);
  engine.compilerVersion = KILN_VERSION_STRING;
  engine.modelName = llvm::sys::path::filename(options.modelPath).str();
  std::string problem = engine::writeEngineFile(engine, options.outputPath);
  if (!problem.empty())
    return emitError(module->getLoc()) << problem;
  progress.step("wrote " + options.outputPath);
  return success();
}

} // namespace kiln
