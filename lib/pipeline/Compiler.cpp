//===- Compiler.cpp - The compile pipeline driver -------------------------===//

#include "lib/pipeline/Compiler.h"

#include "dialects/graph/GraphOps.h"
#include "kiln/Version.h"
#include "lib/cpu/HostExecutable.h"
#include "lib/onnx/Importer.h"
#include "lib/pipeline/CompileReport.h"
#include "lib/pipeline/GpuCompiler.h"
#include "lib/pipeline/Progress.h"
#include "lib/tuning/TimingCache.h"
#include "passes/Passes.h"
#include "passes/Pipelines.h"
#include "passes/graph/ReducePrecision.h"
#include "passes/kernel/Autotune.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>

using namespace mlir;

namespace kiln {

std::optional<Stage> parseStage(llvm::StringRef name) {
  if (name == "graph")
    return Stage::Graph;
  if (name == "linalg")
    return Stage::Linalg;
  if (name == "llvm")
    return Stage::LLVM;
  if (name == "kernel")
    return Stage::Kernel;
  if (name == "gpu")
    return Stage::Gpu;
  if (name == "engine")
    return Stage::Engine;
  return std::nullopt;
}

llvm::StringRef stageName(Stage stage) {
  switch (stage) {
  case Stage::Graph:
    return "graph";
  case Stage::Linalg:
    return "linalg";
  case Stage::LLVM:
    return "llvm";
  case Stage::Kernel:
    return "kernel";
  case Stage::Gpu:
    return "gpu";
  case Stage::Engine:
    return "engine";
  }
  llvm_unreachable("unknown stage");
}

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
      function.setArgAttr(arg, "kernel.min_shape", builder.getDenseI64ArrayAttr(input.min));
      function.setArgAttr(arg, "kernel.opt_shape", builder.getDenseI64ArrayAttr(input.opt));
      function.setArgAttr(arg, "kernel.max_shape", builder.getDenseI64ArrayAttr(input.max));
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

LogicalResult reduceGraphPrecision(ModuleOp module, StringRef precision, bool reducedIO,
                                   llvm::raw_ostream *report, bool perLayer) {
  if (precision == "fp32")
    return success();
  MLIRContext *context = module.getContext();
  FloatType reducedType;
  if (precision == "fp16")
    reducedType = Float16Type::get(context);
  else if (precision == "bf16")
    reducedType = BFloat16Type::get(context);
  else
    return emitError(module.getLoc())
           << "unknown precision '" << precision << "'; one of fp32, fp16, bf16";
  for (auto function : module.getOps<func::FuncOp>()) {
    graph::PrecisionReport result = graph::reducePrecision(function, {reducedType, reducedIO});
    if (report)
      result.print(*report, perLayer);
  }
  // Casts of constants that were not plain arrays, and cast chains, fold away.
  PassManager cleanup(context);
  cleanup.addPass(createGraphFoldConstants());
  cleanup.addNestedPass<func::FuncOp>(createGraphSimplify());
  return cleanup.run(module);
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
  if (!cpu && options.target != "sm_90a" && options.target != "sm_80")
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
      if (!type || type.hasStaticShape() || main.getArgAttr(arg, "kernel.max_shape"))
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

  PassManager graphPasses(&context);
  addGraphPasses(graphPasses);
  if (failed(graphPasses.run(*module)))
    return failure();
  progress.step("graph passes");
  if (options.int8)
    if (llvm::Error error = quantizeGraphInt8(*module, options.modelPath, options.calibration,
                                              [&](const Twine &line) { progress.step(line); }))
      return emitError(module->getLoc()) << llvm::toString(std::move(error));
  if (options.int8) {
    // Now, before reduced precision's constant folding would fold the int8 weights'
    // DequantizeLinear into f32 constants.
    PassManager fold(&context);
    addQuantizedProductPasses(fold);
    if (failed(fold.run(*module)))
      return failure();
  }
  if (options.precision != "fp32") {
    std::string summary;
    llvm::raw_string_ostream stream(summary);
    if (failed(reduceGraphPrecision(*module, options.precision, options.reducedIO, &stream,
                                    options.precisionReport)))
      return failure();
    if (options.precisionReport)
      llvm::errs() << summary;
    else
      progress.step(StringRef(summary).rtrim());
  }
  if (options.report)
    report.push_back(estimateGraphTraffic(*module, "after the graph passes, one kernel per op"));
  // graph.transpose ops after kernel formation (inside the kernels' bodies); -1 on the
  // CPU target.
  int64_t transposesLeft = -1;
  auto printReport = [&] {
    if (!options.report)
      return;
    printCompileReport(llvm::errs(), options.modelPath, report);
    if (transposesLeft >= 0)
      llvm::errs() << "  transposes left: " << transposesLeft
                   << (options.channelsLast ? " (after graph-convert-layout)"
                                            : " (channels first; --channels-last converts)")
                   << "\n";
  };

  {
    // Quantization as pointwise ops after the layout (whose transposes sink through the
    // undecomposed ops), on every target: kernel formation fuses them into epilogues.
    PassManager layout(&context);
    if (options.channelsLast)
      addLayoutPasses(layout);
    addQuantizationLoweringPasses(layout);
    if (failed(layout.run(*module)))
      return failure();
  }

  if (options.compileTo == Stage::Graph)
    return writeModule(*module, options.outputPath, options.emitBytecode);

  if (cpu) {
    if (options.compileTo == Stage::Linalg) {
      PassManager lowering(&context);
      lowering.addPass(createGraphToLinalg());
      if (failed(lowering.run(*module)))
        return failure();
      return writeModule(*module, options.outputPath, options.emitBytecode);
    }
    if (options.compileTo == Stage::LLVM) {
      PassManager lowering(&context);
      addCpuLoweringPasses(lowering);
      if (failed(lowering.run(*module)))
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
  gpu.target = options.target;
  gpu.gemmConfig = options.gemmConfig;
  gpu.allowTf32 = options.allowTf32;
  // A configuration forced for every GEMM and convolution is what gets measured: no tuning.
  if (!options.gemmConfig.empty())
    gpu.autotune = false;
  gpu.stopAfter = options.compileTo == Stage::Kernel ? "kernel"
                  : options.compileTo == Stage::Gpu  ? "gpu"
                                                     : "engine";
  gpu.progress = [&](const std::string &line) { progress.step(line); };
  if (options.report)
    gpu.afterFormation = [&](ModuleOp formed) {
      report.push_back(estimateKernelTraffic(formed, "after kernel formation (fusion)"));
      transposesLeft = 0;
      formed.walk([&](graph::TransposeOp) { ++transposesLeft; });
    };
  // Tuning: the timer when a GPU is here and measuring is allowed; the cache unless off.
  std::unique_ptr<KernelTimer> timer;
  std::vector<TuningDecision> decisions;
  if (options.compileTo != Stage::Kernel) {
    gpu.timingCache = options.noTimingCache         ? std::string()
                      : options.timingCache.empty() ? TimingCache::defaultPath()
                                                    : options.timingCache;
    gpu.tuneBudget = options.tuneBudget;
    gpu.decisions = &decisions;
    gpu.timer = [&](std::string &why) -> KernelTimer * {
      if (!timer && options.makeTimer)
        timer = options.makeTimer(options.target, why);
      return timer.get();
    };
  }
  engine::Engine engine;
  if (failed(compileGraphForGpu(*module, gpu, engine)))
    return failure();
  if (options.report && !decisions.empty()) {
    llvm::errs() << "tuning decisions (" << decisions.size() << " kernels):\n";
    for (const TuningDecision &decision : decisions)
      llvm::errs() << llvm::formatv("  {0,-24} {1,-22} {2} ({3}{4:f1} us, {5})\n", decision.kernel,
                                    decision.problem, decision.config,
                                    decision.source == "cost-model" ? "est. " : "", decision.micros,
                                    decision.source);
  }
  if (options.report && options.compileTo == Stage::Engine) {
    TrafficEstimate launches;
    launches.stage = "engine launches (loop nests after codegen)";
    for (const engine::Step &step : engine.steps)
      launches.kernels += step.kind == engine::Step::Kind::Launch;
    report.push_back(launches);
  }
  printReport();
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
