//===- GpuKernelTimer.cpp - Timing kernel candidates on the GPU -----------===//

#include "lib/tuning/GpuKernelTimer.h"
#include "dialects/kernel/KernelDialect.h"

#include "kiln/Runtime.h"
#include "lib/pipeline/GpuCompiler.h"
#include "passes/kernel/KernelConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>
#include <random>

using namespace mlir;

namespace kiln {

GpuKernelTimer::GpuKernelTimer(std::shared_ptr<Runtime> runtime, TemplateOptions templates,
                               Options options)
    : runtime(std::move(runtime)), templates(std::move(templates)), options(options) {}

GpuKernelTimer::~GpuKernelTimer() = default;

std::unique_ptr<GpuKernelTimer> GpuKernelTimer::create(const TemplateOptions &templates,
                                                       std::string &why, Options options) {
  const std::string &target = templates.target;
  std::shared_ptr<Runtime> runtime = Runtime::create(why);
  if (!runtime)
    return nullptr;
  // What the engine loader checks (checkTargetRuns): an `a` target needs exactly its GPU.
  std::string sm = runtime->smName();
  bool exact = !target.empty() && target.back() == 'a';
  std::string family = exact ? target.substr(0, target.size() - 1) : target;
  if ((exact && sm != family) || (!exact && sm < family && sm.size() == family.size())) {
    why = runtime->deviceName() + " (" + sm + ") cannot run " + target + " kernels";
    return nullptr;
  }
  return std::unique_ptr<GpuKernelTimer>(
      new GpuKernelTimer(std::move(runtime), templates, options));
}

TimingGpu GpuKernelTimer::gpu() const {
  return {runtime->smName() + " " + runtime->deviceName(),
          std::to_string(runtime->driverVersion())};
}

OwningOpRef<ModuleOp> GpuKernelTimer::buildTimingModule(kernel::FuncOp function, Attribute config,
                                                        std::string &why, StringRef profile) {
  MLIRContext *context = function.getContext();
  Block &body = function.getBody().front();
  Operation *templateOp = nullptr;
  for (Operation &op : body.without_terminator())
    if (op.getNumRegions() == 1)
      templateOp = &op;
  if (!templateOp) {
    why = "the kernel holds no template op";
    return nullptr;
  }
  // The template's outputs: the buffers it writes.
  llvm::SmallDenseSet<unsigned> written;
  SmallVector<MemoryEffects::EffectInstance> effects;
  if (auto effecting = dyn_cast<MemoryEffectOpInterface>(templateOp))
    effecting.getEffects(effects);
  for (const MemoryEffects::EffectInstance &effect : effects) {
    if (!isa<MemoryEffects::Write>(effect.getEffect()))
      continue;
    auto argument = dyn_cast_or_null<BlockArgument>(effect.getValue());
    if (!argument || argument.getOwner() != &body) {
      why = "the kernel writes a buffer that is not one of its arguments";
      return nullptr;
    }
    written.insert(argument.getArgNumber());
  }
  if (written.empty()) {
    why = "the kernel writes no buffer";
    return nullptr;
  }
  // Inputs that every launch of the kernel takes from one constant global (weights, which
  // templates may reorder at compile time) stay constants: the global is copied.
  SmallVector<memref::GlobalOp> constants(body.getNumArguments());
  if (auto parent = function->getParentOfType<ModuleOp>()) {
    std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(function, parent);
    for (unsigned index = 0; uses && index < body.getNumArguments(); ++index) {
      if (written.contains(index))
        continue;
      memref::GlobalOp global;
      for (const SymbolTable::SymbolUse &use : *uses) {
        auto launch = dyn_cast<kernel::LaunchOp>(use.getUser());
        auto get = launch && index < launch.getOperands().size()
                       ? launch.getOperands()[index].getDefiningOp<memref::GetGlobalOp>()
                       : nullptr;
        auto found =
            get ? SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(launch, get.getNameAttr())
                : nullptr;
        if (!found || !found.getConstant() || (global && global != found)) {
          global = nullptr;
          break;
        }
        global = found;
      }
      constants[index] = global;
    }
  }
  // A dynamic engine's kernel is timed at a shape of its profile (the opt shape, or the
  // min shape for a bucket of small Ms): its buffers are allocated at those extents and
  // passed as its dynamic types, its symbols (index arguments) are those values.
  std::optional<ProfileArguments> shape = getProfileArguments(function, profile);
  auto isSymbol = [&](unsigned index) { return body.getArgument(index).getType().isIndex(); };
  SmallVector<unsigned> order; // kernel argument of each host argument: inputs, then outputs
  for (unsigned index = 0; index < body.getNumArguments(); ++index)
    if (!written.contains(index) && !constants[index] && !isSymbol(index))
      order.push_back(index);
  size_t numInputs = order.size();
  for (unsigned index = 0; index < body.getNumArguments(); ++index)
    if (written.contains(index))
      order.push_back(index);
  for (unsigned index = 0; index < body.getNumArguments(); ++index)
    if (isSymbol(index) && !shape) {
      why = "argument " + std::to_string(index) + " is a symbol the profile (" + profile.str() +
            ") does not give";
      return nullptr;
    }
  SmallVector<Type> hostTypes;
  for (unsigned index : order) {
    auto type = dyn_cast<MemRefType>(body.getArgument(index).getType());
    if (type && !type.hasStaticShape() && shape)
      type = shape->types[index];
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity()) {
      why = "argument " + std::to_string(index) +
            " is not a whole buffer of known shape, which the timer cannot allocate alone";
      return nullptr;
    }
    hostTypes.push_back(type);
  }

  Location loc = function.getLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b(context);
  b.setInsertionPointToEnd(module->getBody());
  llvm::SmallDenseSet<Operation *> copied;
  for (memref::GlobalOp global : constants)
    if (global && copied.insert(global).second)
      b.clone(*global.getOperation());
  auto copy = cast<kernel::FuncOp>(b.clone(*function.getOperation()));
  kernel::configAttrHelper(context).setAttr(copy,
                                            cast<kernel::TemplateConfigAttrInterface>(config));
  copy->removeAttr(kernel::tuningAttrHelper(context).getName());
  // One configuration is timed, at one shape: not the row variants a bucket chose before
  // (the large Ms' bucket is timed after the small Ms' has its variant).
  copy->removeAttr(kernel::rowVariantsAttrHelper(context).getName());
  auto host = func::FuncOp::create(b, loc, "main", b.getFunctionType(hostTypes, {}));
  host->setAttr(kiln::kernel::kNumInputsAttr, b.getI64IntegerAttr(static_cast<int64_t>(numInputs)));
  Block *entry = host.addEntryBlock();
  b.setInsertionPointToStart(entry);
  SmallVector<Value> operands(body.getNumArguments());
  for (auto [position, index] : llvm::enumerate(order)) {
    operands[index] = entry->getArgument(position);
    Type kernelType = body.getArgument(index).getType();
    if (operands[index].getType() != kernelType)
      operands[index] = memref::CastOp::create(b, loc, kernelType, operands[index]);
  }
  for (auto [index, global] : llvm::enumerate(constants))
    if (global)
      operands[index] = memref::GetGlobalOp::create(b, loc, global.getType(), global.getSymName());
  for (unsigned index = 0; index < body.getNumArguments(); ++index)
    if (isSymbol(index))
      operands[index] = arith::ConstantIndexOp::create(b, loc, shape->symbols[index]);
  kernel::LaunchOp::create(b, loc, copy.getSymName(), operands);
  func::ReturnOp::create(b, loc);
  return module;
}

FailureOr<engine::Engine> GpuKernelTimer::compileTimingModule(ModuleOp module,
                                                              const TemplateOptions &templates,
                                                              std::string &why) {
  // Capture the diagnostics of this compile: a candidate that fails is reported, not
  // printed as the user's error.
  std::string captured;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error && captured.empty())
      captured = diagnostic.str();
    return success();
  });
  GpuCompileOptions options;
  options.pipeline.templates = templates;
  options.pipeline.from = Stage::Gpu;
  options.pipeline.autotune = false;
  engine::Engine engine;
  if (failed(compileForGpu(module, options, engine))) {
    why = "does not compile: " + (captured.empty() ? std::string("(no message)") : captured);
    return failure();
  }
  engine.modelName = "timing";
  return engine;
}

namespace {

/// 64 KiB of values for buffers of `type`: uniform in [-1, 1] for floats (so products
/// stay finite), zeros for integers (valid indices for gathers and the like).
std::vector<uint8_t> fillPattern(engine::ElementType type) {
  std::vector<uint8_t> pattern(1 << 16, 0);
  std::mt19937 random(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  auto store = [&](size_t bytes, auto convert) {
    for (size_t at = 0; at + bytes <= pattern.size(); at += bytes) {
      auto value = convert(uniform(random));
      std::memcpy(pattern.data() + at, &value, bytes);
    }
  };
  switch (type) {
  case engine::ElementType::F32:
    store(4, [](float v) { return v; });
    break;
  case engine::ElementType::F64:
    store(8, [](float v) { return static_cast<double>(v); });
    break;
  case engine::ElementType::BF16:
    store(2, [](float v) {
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      return static_cast<uint16_t>(bits >> 16);
    });
    break;
  case engine::ElementType::F16:
    store(2, [](float v) {
      // |v| <= 1: normal halves or zero; the exponent and 10 mantissa bits.
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
      int exponent = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
      if (exponent <= 0)
        return sign;
      return static_cast<uint16_t>(sign | (exponent << 10) | ((bits >> 13) & 0x3ffu));
    });
    break;
  default:
    break;
  }
  return pattern;
}

std::vector<uint8_t> filled(const engine::TensorSignature &signature) {
  std::vector<uint8_t> pattern = fillPattern(signature.type);
  std::vector<uint8_t> data(signature.sizeInBytes());
  for (size_t at = 0; at < data.size(); at += pattern.size())
    std::memcpy(data.data() + at, pattern.data(), std::min(pattern.size(), data.size() - at));
  return data;
}

} // namespace

FailureOr<double> GpuKernelTimer::measureMicros(kernel::FuncOp function, Attribute config,
                                                StringRef profile, std::string &why) {
  OwningOpRef<ModuleOp> module = buildTimingModule(function, config, why, profile);
  if (!module)
    return failure();
  FailureOr<engine::Engine> description = compileTimingModule(*module, templates, why);
  if (failed(description))
    return failure();

  std::string problem;
  std::shared_ptr<Engine> loaded = Engine::create(
      runtime, std::move(*description),
      (function.getSymName() + " (" + describeKernelConfig(config) + ")").str(), problem);
  if (!loaded) {
    why = "does not load: " + problem;
    return failure();
  }
  const engine::Engine &engine = loaded->description();
  uint64_t setBytes = 0;
  for (const engine::TensorSignature &signature : engine.inputs)
    setBytes += signature.sizeInBytes();
  for (const engine::TensorSignature &signature : engine.outputs)
    setBytes += signature.sizeInBytes();
  setBytes = std::max<uint64_t>(setBytes, 1);
  int64_t copies = static_cast<int64_t>((options.rotationBytes + setBytes - 1) / setBytes);
  copies = std::min<int64_t>(copies, options.maxCopies);
  copies = std::min<int64_t>(copies, static_cast<int64_t>(options.maxRotationBytes / setBytes));
  copies = std::max<int64_t>(copies, 2);

  // One execution context per copy: each owns its input and output buffers.
  std::vector<std::unique_ptr<ExecutionContext>> contexts;
  std::vector<std::vector<uint8_t>> inputs;
  for (const engine::TensorSignature &signature : engine.inputs)
    inputs.push_back(filled(signature));
  for (int64_t copy = 0; copy < copies; ++copy) {
    std::unique_ptr<ExecutionContext> context = ExecutionContext::create(loaded, problem);
    if (!context) {
      if (copy >= 2)
        break; // out of memory for more copies: rotate among fewer
      why = "cannot run: " + problem;
      return failure();
    }
    bool ok = true;
    for (size_t index = 0; ok && index < inputs.size(); ++index)
      ok = context->setInput(index, inputs[index].data(), problem);
    if (!ok) {
      if (copy >= 2)
        break;
      why = "cannot run: " + problem;
      return failure();
    }
    contexts.push_back(std::move(context));
  }

  std::vector<float> millis, one;
  int warmup = std::max<int>(options.warmup, static_cast<int>(contexts.size()));
  size_t next = 0;
  for (int run = 0; run < warmup + options.iterations; ++run) {
    ExecutionContext &context = *contexts[next];
    next = (next + 1) % contexts.size();
    if (!context.timeRuns(1, one, problem)) {
      why = "fails: " + problem;
      return failure();
    }
    if (run >= warmup)
      millis.push_back(one.front());
  }
  std::sort(millis.begin(), millis.end());
  return 1000.0 * millis[millis.size() / 2];
}

} // namespace kiln
