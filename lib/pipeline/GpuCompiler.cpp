//===- GpuCompiler.cpp - Graph module to GPU engine -----------------------===//

#include "lib/pipeline/GpuCompiler.h"

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "lib/engine/EngineBuilder.h"
#include "lib/target/GpuBinary.h"
#include "passes/Passes.h"
#include "passes/Pipelines.h"

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

  // The IO signature keeps the ONNX element types, which the lowering makes signless.
  func::FuncOp host = findHostFunction(module);
  if (!host)
    return module.emitError("kernel formation left no host function");
  if (failed(readEngineSignature(host, engine)))
    return failure();

  PassManager lowering(context);
  // Tensor-core templates where they fit: flash attention (mma.sync, sm_80 and later) on
  // every GPU target, the wgmma GEMM on sm_90a only.
  lowering.addPass(createKernelAttentionSm80());
  if (options.target == "sm_90a")
    lowering.addPass(createKernelMatmulSm90());
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
  if (failed(buildEngine(module, compiled, engine)))
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
