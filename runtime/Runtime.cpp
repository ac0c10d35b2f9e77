//===- Runtime.cpp - Loading engines and running their schedules ---------===//
//
// Implements include/kiln/Runtime.h on the CUDA driver API (runtime/CudaDriver.h).
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime.h"

#include "runtime/CudaDriver.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

namespace kiln {

using engine::printable;
using engine::quoted;
using runtime::CudaDriver;
using runtime::DeviceInfo;

//===----------------------------------------------------------------------===//
// Runtime
//===----------------------------------------------------------------------===//

struct Runtime::Impl {
  std::unique_ptr<CudaDriver> driver;
  int ordinal = 0;
  DeviceInfo info;
  int maxSharedOptin = 48 * 1024;
  runtime::ContextHandle context = nullptr;

  ~Impl() {
    if (driver && context)
      driver->releasePrimaryContext(ordinal);
  }

  /// Makes the GPU's primary context current on the calling thread.
  bool makeCurrent(std::string &error) const { return driver->setCurrent(context, error); }
};

Runtime::Runtime(std::unique_ptr<Impl> state) : state(std::move(state)) {}
Runtime::~Runtime() = default;

std::shared_ptr<Runtime> Runtime::create(std::string &error, int device,
                                         const std::string &driverLibrary) {
  auto impl = std::make_unique<Impl>();
  std::string problem;
  impl->driver = CudaDriver::load(problem, driverLibrary);
  if (!impl->driver) {
    error = "no CUDA driver: " + problem;
    return nullptr;
  }
  int count = impl->driver->deviceCount(problem);
  if (count < 0) {
    error = "no CUDA GPU: " + problem;
    return nullptr;
  }
  if (device < 0 || device >= count) {
    error = "no CUDA GPU: GPU " + std::to_string(device) + " asked for, the driver sees " +
            std::to_string(count);
    return nullptr;
  }
  impl->ordinal = device;
  if (!impl->driver->deviceInfo(device, impl->info, error) ||
      !impl->driver->maxSharedMemoryOptin(device, impl->maxSharedOptin, error) ||
      !impl->driver->retainPrimaryContext(device, impl->context, error) ||
      !impl->makeCurrent(error))
    return nullptr;
  return std::shared_ptr<Runtime>(new Runtime(std::move(impl)));
}

int Runtime::deviceOrdinal() const { return state->ordinal; }
const std::string &Runtime::deviceName() const { return state->info.name; }
int Runtime::computeCapabilityMajor() const { return state->info.computeCapabilityMajor; }
int Runtime::computeCapabilityMinor() const { return state->info.computeCapabilityMinor; }
std::string Runtime::smName() const { return state->info.smName(); }
int Runtime::multiprocessorCount() const { return state->info.multiprocessorCount; }
int Runtime::driverVersion() const { return state->driver->driverVersion(); }

//===----------------------------------------------------------------------===//
// Engine
//===----------------------------------------------------------------------===//

namespace {

/// Whether a cubin made for `target` loads on compute capability major.minor: the same
/// major and no older minor, and for an architecture-specific target ("sm_90a") exactly
/// that GPU.
bool cubinRuns(const std::string &target, int major, int minor) {
  if (!engine::checkTargetRuns(target, major, minor).empty())
    return false;
  std::string digits = target.substr(3);
  if (!digits.empty() && digits.back() == 'a')
    digits.pop_back();
  return std::stoi(digits.substr(0, digits.size() - 1)) == major;
}

/// "kernel 'k' (ONNX nodes: a, b)" for messages.
std::string describeKernel(const engine::Kernel &kernel) {
  std::string text = "kernel " + quoted(kernel.name);
  if (!kernel.sourceNodes.empty()) {
    text += " (ONNX node" + std::string(kernel.sourceNodes.size() > 1 ? "s" : "") + " ";
    for (size_t i = 0; i < kernel.sourceNodes.size(); ++i)
      text += (i ? ", " : "") + printable(kernel.sourceNodes[i]);
    text += ")";
  }
  return text;
}

/// "step 3, kernel 'k' (ONNX nodes: a, b)", "step 4 (copy of 64 bytes)" or "step 5 (read
/// back 8 bytes into shape value 2)".
std::string describeStep(const engine::Engine &description, size_t index) {
  const engine::Step &step = description.steps[index];
  std::string text = "step " + std::to_string(index);
  switch (step.kind) {
  case engine::Step::Kind::Launch:
    return text + ", " + describeKernel(description.kernels[step.kernel]);
  case engine::Step::Kind::Copy:
    return text + " (copy of " + std::to_string(step.bytes) + " bytes)";
  case engine::Step::Kind::Fill:
    return text + " (fill of " + std::to_string(step.bytes) + " bytes)";
  case engine::Step::Kind::ReadBack:
    return text + " (read back " + std::to_string(step.bytes) + " bytes into shape value " +
           std::to_string(step.value) + ")";
  }
  return text;
}

} // namespace

struct Engine::Impl {
  std::shared_ptr<Runtime> runtime;
  engine::Engine description;
  std::string what; // the file, for messages
  std::vector<runtime::ModuleHandle> modules;
  std::vector<runtime::FunctionHandle> functions; // one per kernel
  DevicePointer weights = 0;
  bool fromCubin = false;

  const CudaDriver &driver() const { return *runtime->impl().driver; }

  ~Impl() {
    if (!runtime)
      return;
    std::string ignored;
    if (!runtime->impl().makeCurrent(ignored))
      return;
    driver().free(weights);
    for (runtime::ModuleHandle module : modules)
      driver().unloadModule(module);
  }

  bool load(std::string &error);
};

bool Engine::Impl::load(std::string &error) {
  const Runtime::Impl &gpu = runtime->impl();
  auto fail = [&](const std::string &problem) {
    error = quoted(what) + ": " + problem;
    return false;
  };
  if (std::string problem = description.validate(); !problem.empty())
    return fail("inconsistent engine: " + problem);
  int major = gpu.info.computeCapabilityMajor, minor = gpu.info.computeCapabilityMinor;
  if (std::string problem = engine::checkTargetRuns(description.target, major, minor);
      !problem.empty())
    return fail(problem);
  std::string problem;
  if (!gpu.makeCurrent(problem))
    return fail(problem);

  // Modules: the cubin when it was made for this GPU, else the PTX through the JIT.
  bool cubinFits = cubinRuns(description.target, major, minor);
  fromCubin = cubinFits;
  for (const engine::Module &module : description.modules) {
    const void *image = nullptr;
    if (cubinFits && !module.cubin.empty()) {
      image = module.cubin.data();
    } else if (!module.ptx.empty()) {
      image = module.ptx.c_str();
      fromCubin = false;
    } else {
      return fail("module " + quoted(module.name) + " has only a cubin for " + description.target +
                  ", which a " + gpu.info.smName() + " GPU cannot load, and no PTX");
    }
    runtime::ModuleHandle handle = nullptr;
    if (!driver().loadModule(image, handle, problem))
      return fail("module " + quoted(module.name) + ": " + problem);
    modules.push_back(handle);
  }

  // Kernels: resolve each entry, raise its dynamic shared memory limit to what its launches
  // ask for, and check the launches' arguments against the kernel's parameters where the
  // driver can list them.
  std::vector<uint32_t> sharedNeeded(description.kernels.size(), 0);
  for (const engine::Step &step : description.steps)
    if (step.kind == engine::Step::Kind::Launch)
      sharedNeeded[step.kernel] = std::max(sharedNeeded[step.kernel], step.sharedBytes);
  for (size_t k = 0; k < description.kernels.size(); ++k) {
    const engine::Kernel &kernel = description.kernels[k];
    runtime::FunctionHandle function = nullptr;
    if (!driver().getFunction(modules[kernel.module], kernel.name, function, problem))
      return fail(describeKernel(kernel) + ": " + problem);
    // The default limit is 48 KiB less the kernel's static shared memory, so any dynamic
    // shared memory raises it: a row kernel's static partials plus 47 KiB of row exceed it.
    if (sharedNeeded[k] > 0) {
      if (sharedNeeded[k] > static_cast<uint32_t>(gpu.maxSharedOptin))
        return fail(describeKernel(kernel) + " needs " + std::to_string(sharedNeeded[k]) +
                    " bytes of shared memory; this GPU allows " +
                    std::to_string(gpu.maxSharedOptin));
      if (!driver().setMaxDynamicSharedMemory(function, static_cast<int>(sharedNeeded[k]), problem))
        return fail(describeKernel(kernel) + ": " + problem);
    }
    functions.push_back(function);
  }
  if (driver().canDescribeParameters()) {
    // The kernels' parameter sizes, listed once per kernel.
    std::vector<std::vector<size_t>> parameters(functions.size());
    for (size_t k = 0; k < functions.size(); ++k) {
      size_t bytes = 0;
      while (parameters[k].size() < 4096 &&
             driver().parameterSize(functions[k], parameters[k].size(), bytes))
        parameters[k].push_back(bytes);
    }
    for (size_t s = 0; s < description.steps.size(); ++s) {
      const engine::Step &step = description.steps[s];
      if (step.kind != engine::Step::Kind::Launch)
        continue;
      const std::vector<size_t> &expected = parameters[step.kernel];
      if (expected.size() != step.arguments.size())
        return fail(describeStep(description, s) + " passes " +
                    std::to_string(step.arguments.size()) + " arguments; the kernel takes " +
                    std::to_string(expected.size()));
      for (size_t a = 0; a < expected.size(); ++a)
        if (expected[a] != step.arguments[a].size())
          return fail(describeStep(description, s) + " argument " + std::to_string(a) + " is " +
                      std::to_string(step.arguments[a].size()) +
                      " bytes; the kernel's parameter is " + std::to_string(expected[a]));
    }
  }

  // The weights, once for every context.
  if (!description.weights.empty()) {
    if (!driver().allocate(description.weights.size(), weights, problem) ||
        !driver().copyToDevice(weights, description.weights.data(), description.weights.size(),
                               nullptr, problem) ||
        !driver().synchronize(nullptr, problem))
      return fail("uploading the weights: " + problem);
  }
  return true;
}

Engine::Engine(std::unique_ptr<Impl> state) : state(std::move(state)) {}
Engine::~Engine() = default;

std::shared_ptr<Engine> Engine::load(std::shared_ptr<Runtime> runtime, const std::string &path,
                                     std::string &error) {
  engine::Engine description;
  if (std::string problem = engine::readEngineFile(path, description); !problem.empty()) {
    error = problem;
    return nullptr;
  }
  return create(std::move(runtime), std::move(description), path, error);
}

std::shared_ptr<Engine> Engine::create(std::shared_ptr<Runtime> runtime, engine::Engine description,
                                       const std::string &what, std::string &error) {
  if (!runtime) {
    error = quoted(what) + ": no runtime";
    return nullptr;
  }
  auto impl = std::make_unique<Impl>();
  impl->runtime = std::move(runtime);
  impl->description = std::move(description);
  impl->what = what;
  if (!impl->load(error))
    return nullptr;
  return std::shared_ptr<Engine>(new Engine(std::move(impl)));
}

const engine::Engine &Engine::description() const { return state->description; }
const Runtime &Engine::runtime() const { return *state->runtime; }
bool Engine::loadedFromCubin() const { return state->fromCubin; }

//===----------------------------------------------------------------------===//
// ExecutionContext
//===----------------------------------------------------------------------===//

struct ExecutionContext::Impl {
  std::shared_ptr<const Engine> engine;
  runtime::StreamHandle stream = nullptr;
  DevicePointer arena = 0;
  std::vector<DevicePointer> ownInputs, ownOutputs;
  runtime::EventHandle start = nullptr, stop = nullptr;

  bool useGraph = false;
  bool synchronousSteps = false;
  /// Launch the kernels compiled for it with programmatic stream serialization
  /// (KILN_PROGRAMMATIC_LAUNCH=0 turns it off: a measuring and debugging aid).
  bool programmaticLaunch = true;
  /// Captured CUDA graphs, one per input shape (a static engine has one shape): switching
  /// shapes replays the shape's graph, captured on its first run.
  struct CapturedGraph {
    runtime::GraphHandle graph = nullptr;
    runtime::GraphExecHandle exec = nullptr;
    std::vector<DevicePointer> inputs, outputs;
  };
  std::map<std::vector<std::vector<int64_t>>, CapturedGraph> graphs;

  /// The input shapes of the next runs (the profile's opt shapes until set), and what
  /// the shape program makes of them: the steps with their run-time fields set, the
  /// outputs' shapes. Resolved on the next enqueue after a change.
  std::vector<std::vector<int64_t>> inputShapes, outputShapes;
  std::vector<engine::Step> resolvedSteps;
  bool shapesResolved = false;

  /// An engine with read-backs (data-dependent shapes): the values its ReadBack steps
  /// read, one per step in order, kUnreadDeviceValue until read. Every run starts with
  /// them unread (the last run's are stale) and resolves the shapes again; each read-back
  /// sets its value and resolves the steps after it and the outputs' shapes again, so
  /// after a run outputShapes are the true shapes. Such an engine never uses a graph.
  bool readBacks = false;
  std::vector<int64_t> deviceValues;

  /// One 8-byte slot per kernel parameter and the pointers to them that cuLaunchKernel
  /// takes; reused across launches.
  std::vector<uint64_t> argumentValues;
  std::vector<void *> argumentPointers;

  /// The tensor maps the launches take, encoded for the buffers of the last enqueue: one
  /// TensorMap::kBytes slot each, in step and argument order, on the host and in device
  /// memory. `mapsFor` holds the buffers and input shapes they were encoded for (a
  /// dynamic engine's maps take extents from the shape program); a change re-encodes them
  /// (before any capture: the upload is synchronous). The graphs captured for other shapes
  /// read the same slots, so every enqueue re-encodes for its own shape first.
  struct alignas(64) EncodedMap {
    uint8_t bytes[engine::TensorMap::kBytes];
  };
  std::vector<EncodedMap> hostMaps;
  DevicePointer deviceMaps = 0;
  std::vector<DevicePointer> mapsForInputs, mapsForOutputs;
  std::vector<std::vector<int64_t>> mapsForShapes;
  bool mapsEncoded = false;

  const engine::Engine &description() const { return engine->description(); }
  const Engine::Impl &loaded() const { return engine->impl(); }
  const CudaDriver &driver() const { return loaded().driver(); }
  const Runtime::Impl &gpu() const { return loaded().runtime->impl(); }
  std::string prefix() const { return quoted(loaded().what) + ": "; }

  ~Impl() {
    std::string ignored;
    if (!gpu().makeCurrent(ignored))
      return;
    if (stream)
      driver().synchronize(stream, ignored);
    dropGraphs();
    driver().destroyEvent(start);
    driver().destroyEvent(stop);
    driver().free(arena);
    driver().free(deviceMaps);
    for (DevicePointer pointer : ownInputs)
      driver().free(pointer);
    for (DevicePointer pointer : ownOutputs)
      driver().free(pointer);
    driver().destroyStream(stream);
  }

  void dropGraph(CapturedGraph &captured) {
    driver().destroyGraphExec(captured.exec);
    driver().destroyGraph(captured.graph);
    captured = CapturedGraph();
  }
  void dropGraphs() {
    for (auto &[shapes, captured] : graphs)
      dropGraph(captured);
    graphs.clear();
  }

  /// The steps to run at the current input shapes.
  const std::vector<engine::Step> &steps() const {
    return description().isDynamic() ? resolvedSteps : description().steps;
  }

  /// Evaluates the shape program for the current input shapes (once per change) and the
  /// device values read so far.
  bool resolveShapes(std::string &error) {
    const engine::Engine &model = description();
    if (shapesResolved)
      return true;
    std::vector<int64_t> values;
    if (std::string problem = engine::evaluateShapes(model, inputShapes, values, &deviceValues);
        !problem.empty()) {
      error = prefix() + problem;
      return false;
    }
    outputShapes.clear();
    for (size_t i = 0; i < model.outputs.size(); ++i)
      outputShapes.push_back(engine::outputShape(model, i, values));
    if (model.isDynamic()) {
      // Every run-time field is set whole (a tensor map's strides follow from its
      // extents), so the steps resolved before are set again in place.
      if (resolvedSteps.size() != model.steps.size())
        resolvedSteps = model.steps;
      for (engine::Step &step : resolvedSteps)
        engine::applyRuntimeFields(values, step);
    }
    shapesResolved = true;
    return true;
  }

  /// Forgets the device values (an engine with read-backs, at the start of each run, or
  /// for new input shapes): the shapes are resolved again with them unread.
  void forgetDeviceValues() {
    if (!readBacks)
      return;
    std::fill(deviceValues.begin(), deviceValues.end(), engine::kUnreadDeviceValue);
    shapesResolved = false;
  }

  /// The bytes of `address`'s region (the buffers' largest sizes).
  uint64_t regionBytes(const engine::Address &address) const {
    const engine::Engine &model = description();
    switch (address.region) {
    case engine::Region::Arena:
      return model.arenaBytes;
    case engine::Region::Weights:
      return model.weights.size();
    case engine::Region::Input:
      return model.inputs[address.index].sizeInBytes();
    case engine::Region::Output:
      return model.outputs[address.index].sizeInBytes();
    }
    return 0;
  }

  /// ReadBack step `index`: waits for the steps before it, reads its integer to the host,
  /// and resolves the steps after it and the outputs' shapes with it. Refuses sizes past
  /// the buffers (the compiler bounds every device value; a value it did not bound must
  /// not overrun memory).
  bool readBack(size_t index, const std::vector<DevicePointer> &inputs,
                const std::vector<DevicePointer> &outputs, std::string &problem) {
    const engine::Engine &model = description();
    const engine::Step &step = model.steps[index];
    uint8_t bytes[8] = {};
    if (!driver().copyToHost(bytes, resolve(step.source, inputs, outputs), step.bytes, stream,
                             problem) ||
        !driver().synchronize(stream, problem))
      return false;
    // Little-endian, signed: sign-extended from its width.
    uint64_t raw = 0;
    for (uint64_t b = 0; b < step.bytes; ++b)
      raw |= uint64_t(bytes[b]) << (8 * b);
    unsigned unused = 64 - 8 * static_cast<unsigned>(step.bytes);
    int64_t value =
        unused ? static_cast<int64_t>(raw << unused) >> unused : static_cast<int64_t>(raw);
    deviceValues[model.shapeProgram[step.value].a] = value;

    std::vector<int64_t> values;
    engine::evaluateProgram(model.shapeProgram, inputShapes, values, &deviceValues);
    for (size_t i = 0; i < model.outputs.size(); ++i)
      outputShapes[i] = engine::outputShape(model, i, values);
    // The steps up to the next read-back run with these values (those after it are set
    // again there, so they are not touched now), and after the last one the outputs'
    // shapes are final.
    bool noMoreReadBacks = true, mapsChanged = false;
    for (size_t t = index + 1; t < model.steps.size(); ++t) {
      engine::Step &later = resolvedSteps[t];
      if (later.kind == engine::Step::Kind::ReadBack) {
        noMoreReadBacks = false;
        break;
      }
      if (later.runtimeFields.empty())
        continue;
      engine::applyRuntimeFields(values, later);
      for (const engine::RuntimeField &field : later.runtimeFields)
        mapsChanged |= field.kind == engine::RuntimeField::Kind::TensorMapDim;
      bool moves = later.kind == engine::Step::Kind::Copy || later.kind == engine::Step::Kind::Fill;
      if (moves && (later.bytes > regionBytes(later.destination) - later.destination.offset ||
                    (later.kind == engine::Step::Kind::Copy &&
                     later.bytes > regionBytes(later.source) - later.source.offset))) {
        problem = "read " + std::to_string(value) + ", which makes " + describeStep(model, t) +
                  " move " + std::to_string(later.bytes) + " bytes, beyond its buffer";
        return false;
      }
    }
    for (size_t i = 0; noMoreReadBacks && i < model.outputs.size(); ++i) {
      bool negative = std::any_of(outputShapes[i].begin(), outputShapes[i].end(),
                                  [](int64_t extent) { return extent < 0; });
      if (negative ||
          currentBytes(model.outputs[i], outputShapes[i]) > model.outputs[i].sizeInBytes()) {
        std::string shape;
        for (size_t d = 0; d < outputShapes[i].size(); ++d)
          shape += (d ? "x" : "") + std::to_string(outputShapes[i][d]);
        problem = "read " + std::to_string(value) + ", which makes output " +
                  quoted(model.outputs[i].name) + " " + shape + ", beyond its largest shape " +
                  engine::formatShape(model.outputs[i].maxShape);
        return false;
      }
    }
    // The launches after this one take tensor maps with extents from the value: encode
    // the table again (the stream is idle) and again at the next run's start.
    if (mapsChanged) {
      if (!encodeTensorMaps(inputs, outputs, problem))
        return false;
      mapsEncoded = false;
    }
    return true;
  }

  /// Bytes of input or output `index` at the current shapes.
  uint64_t currentBytes(const engine::TensorSignature &tensor,
                        const std::vector<int64_t> &shape) const {
    uint64_t bytes = engine::elementSize(tensor.type);
    for (int64_t extent : shape)
      bytes *= static_cast<uint64_t>(extent);
    return bytes;
  }

  DevicePointer base(const engine::Address &address, const std::vector<DevicePointer> &inputs,
                     const std::vector<DevicePointer> &outputs) const {
    switch (address.region) {
    case engine::Region::Arena:
      return arena;
    case engine::Region::Weights:
      return loaded().weights;
    case engine::Region::Input:
      return inputs[address.index];
    case engine::Region::Output:
      return outputs[address.index];
    }
    return 0;
  }

  DevicePointer resolve(const engine::Address &address, const std::vector<DevicePointer> &inputs,
                        const std::vector<DevicePointer> &outputs) const {
    return base(address, inputs, outputs) + address.offset;
  }

  /// Encodes the launches' tensor maps for these buffers and uploads them, unless they
  /// were encoded for the same buffers last time. Synchronous: call it outside a capture.
  bool prepareTensorMaps(const std::vector<DevicePointer> &inputs,
                         const std::vector<DevicePointer> &outputs, std::string &error) {
    if (hostMaps.empty() || (mapsEncoded && inputs == mapsForInputs && outputs == mapsForOutputs &&
                             inputShapes == mapsForShapes))
      return true;
    std::string problem;
    if (!encodeTensorMaps(inputs, outputs, problem)) {
      error = prefix() + problem;
      return false;
    }
    mapsForInputs = inputs;
    mapsForOutputs = outputs;
    mapsForShapes = inputShapes;
    mapsEncoded = true;
    return true;
  }

  /// Encodes every launch's tensor maps for these buffers and the resolved steps, and
  /// uploads the table (synchronously).
  bool encodeTensorMaps(const std::vector<DevicePointer> &inputs,
                        const std::vector<DevicePointer> &outputs, std::string &problem) {
    size_t index = 0;
    for (size_t s = 0; s < steps().size(); ++s)
      for (const engine::LaunchArgument &argument : steps()[s].arguments) {
        if (argument.kind != engine::LaunchArgument::Kind::TensorMap)
          continue;
        if (!driver().encodeTensorMap(argument.tensorMap,
                                      resolve(argument.address, inputs, outputs),
                                      hostMaps[index++].bytes, problem)) {
          problem = describeStep(description(), s) + ": encoding a tensor map: " + problem;
          return false;
        }
      }
    size_t bytes = hostMaps.size() * sizeof(EncodedMap);
    if (!driver().copyToDevice(deviceMaps, hostMaps.data(), bytes, stream, problem) ||
        !driver().synchronize(stream, problem)) {
      problem = "uploading the tensor maps: " + problem;
      return false;
    }
    return true;
  }

  /// Enqueues every step on the stream (captured or not). With `stepEvents` (one more
  /// than there are steps), records stepEvents[s] before step s and the last after all.
  bool enqueueSteps(const std::vector<DevicePointer> &inputs,
                    const std::vector<DevicePointer> &outputs, bool synchronous, std::string &error,
                    const std::vector<runtime::EventHandle> *stepEvents = nullptr) {
    const engine::Engine &model = description();
    std::string problem;
    if (readBacks) {
      // A read-back waits for the GPU mid-run, which no capture can hold (the caller may
      // capture the context's stream).
      bool capturing = false;
      if (!driver().isCapturing(stream, capturing, problem)) {
        error = prefix() + problem;
        return false;
      }
      if (capturing) {
        error = prefix() + "the engine reads values back from the GPU during a run "
                           "(data-dependent shapes), which a CUDA graph capture cannot hold; "
                           "enqueue it outside stream capture";
        return false;
      }
    }
    DevicePointer nextMap = deviceMaps;
    // By index: a read-back sets the run-time fields of the steps after it (in place, so
    // `step` stays valid).
    for (size_t s = 0; s < steps().size(); ++s) {
      const engine::Step &step = steps()[s];
      bool ok = !stepEvents || driver().recordEvent((*stepEvents)[s], stream, problem);
      if (!ok) {
        error = prefix() + describeStep(model, s) + ": " + problem;
        return false;
      }
      switch (step.kind) {
      case engine::Step::Kind::Launch: {
        size_t count = step.arguments.size();
        argumentValues.assign(count, 0);
        argumentPointers.resize(count);
        for (size_t a = 0; a < count; ++a) {
          const engine::LaunchArgument &argument = step.arguments[a];
          // Scalars sit in the low bytes of their slot: the driver reads size() bytes
          // from the slot's address, and the host is little-endian like the file.
          switch (argument.kind) {
          case engine::LaunchArgument::Kind::Pointer:
            argumentValues[a] = resolve(argument.address, inputs, outputs);
            break;
          case engine::LaunchArgument::Kind::TensorMap:
            argumentValues[a] = nextMap;
            nextMap += sizeof(EncodedMap);
            break;
          default:
            argumentValues[a] = argument.scalar;
          }
          argumentPointers[a] = &argumentValues[a];
        }
        // An empty grid (a dynamic loop nest with nothing to do at this shape) launches
        // nothing.
        if (step.grid[0] && step.grid[1] && step.grid[2])
          ok = driver().launch(loaded().functions[step.kernel], step.grid, step.block,
                               step.sharedBytes, stream, count ? argumentPointers.data() : nullptr,
                               programmaticLaunch && model.kernels[step.kernel].programmaticLaunch,
                               problem);
        break;
      }
      case engine::Step::Kind::Copy:
        if (step.bytes)
          ok = driver().copyOnDevice(resolve(step.destination, inputs, outputs),
                                     resolve(step.source, inputs, outputs), step.bytes, stream,
                                     problem);
        break;
      case engine::Step::Kind::Fill:
        if (step.bytes)
          ok = driver().fill(resolve(step.destination, inputs, outputs), step.fillByte, step.bytes,
                             stream, problem);
        break;
      case engine::Step::Kind::ReadBack:
        ok = readBack(s, inputs, outputs, problem);
        break;
      }
      if (ok && synchronous)
        ok = driver().synchronize(stream, problem);
      if (!ok) {
        error = prefix() + describeStep(model, s) + ": " + problem;
        return false;
      }
    }
    if (stepEvents && !driver().recordEvent(stepEvents->back(), stream, problem)) {
      error = prefix() + "after the last step: " + problem;
      return false;
    }
    return true;
  }

  bool checkBuffers(const std::vector<DevicePointer> &inputs,
                    const std::vector<DevicePointer> &outputs, std::string &error) const {
    const engine::Engine &model = description();
    if (inputs.size() != model.inputs.size() || outputs.size() != model.outputs.size()) {
      error = prefix() + "the engine has " + std::to_string(model.inputs.size()) + " inputs and " +
              std::to_string(model.outputs.size()) + " outputs; given " +
              std::to_string(inputs.size()) + " and " + std::to_string(outputs.size());
      return false;
    }
    for (size_t i = 0; i < inputs.size(); ++i)
      if (!inputs[i] && model.inputs[i].sizeInBytes()) {
        error = prefix() + "input " + quoted(model.inputs[i].name) + " has a null device buffer";
        return false;
      }
    for (size_t i = 0; i < outputs.size(); ++i)
      if (!outputs[i] && model.outputs[i].sizeInBytes()) {
        error = prefix() + "output " + quoted(model.outputs[i].name) + " has a null device buffer";
        return false;
      }
    return true;
  }

  bool enqueue(const std::vector<DevicePointer> &inputs, const std::vector<DevicePointer> &outputs,
               std::string &error) {
    if (!checkBuffers(inputs, outputs, error))
      return false;
    forgetDeviceValues();
    if (!resolveShapes(error) || !gpu().makeCurrent(error) ||
        !prepareTensorMaps(inputs, outputs, error))
      return false;
    if (synchronousSteps || !useGraph || readBacks || description().steps.empty())
      return enqueueSteps(inputs, outputs, synchronousSteps, error);
    CapturedGraph &captured = graphs[inputShapes];
    if (captured.exec && (inputs != captured.inputs || outputs != captured.outputs))
      dropGraph(captured);
    if (!captured.exec && !capture(captured, inputs, outputs, error))
      return false;
    std::string problem;
    if (!driver().launchGraph(captured.exec, stream, problem)) {
      error = prefix() + "replaying the captured schedule: " + problem;
      return false;
    }
    return true;
  }

  bool capture(CapturedGraph &result, const std::vector<DevicePointer> &inputs,
               const std::vector<DevicePointer> &outputs, std::string &error) {
    std::string problem;
    if (!driver().beginCapture(stream, problem)) {
      error = prefix() + "capturing a CUDA graph: " + problem;
      return false;
    }
    bool enqueued = enqueueSteps(inputs, outputs, /*synchronous=*/false, error);
    // End the capture whatever happened, so the stream leaves capture mode.
    runtime::GraphHandle captured = nullptr;
    bool ended = driver().endCapture(stream, captured, problem);
    if (!enqueued) {
      driver().destroyGraph(captured);
      return false;
    }
    if (!ended) {
      error = prefix() + "capturing a CUDA graph: " + problem;
      return false;
    }
    result.graph = captured;
    if (!driver().instantiateGraph(result.graph, result.exec, problem)) {
      error = prefix() + "instantiating the captured CUDA graph: " + problem;
      dropGraph(result);
      return false;
    }
    result.inputs = inputs;
    result.outputs = outputs;
    return true;
  }

  bool ownBuffers(std::string &error) {
    const engine::Engine &model = description();
    std::string problem;
    auto allocateAll = [&](const std::vector<engine::TensorSignature> &tensors,
                           std::vector<DevicePointer> &buffers, const char *role) {
      if (buffers.size() == tensors.size())
        return true;
      buffers.assign(tensors.size(), 0);
      for (size_t i = 0; i < tensors.size(); ++i) {
        // A 1-byte buffer stands in for an empty tensor, so no pointer is null.
        size_t bytes = std::max<uint64_t>(tensors[i].sizeInBytes(), 1);
        if (!driver().allocate(bytes, buffers[i], problem)) {
          error = prefix() + role + " " + quoted(tensors[i].name) + ": " + problem;
          return false;
        }
      }
      return true;
    };
    return gpu().makeCurrent(error) && allocateAll(model.inputs, ownInputs, "input") &&
           allocateAll(model.outputs, ownOutputs, "output");
  }
};

ExecutionContext::ExecutionContext(std::unique_ptr<Impl> state) : state(std::move(state)) {}
ExecutionContext::~ExecutionContext() = default;

std::unique_ptr<ExecutionContext> ExecutionContext::create(std::shared_ptr<const Engine> engine,
                                                           std::string &error) {
  if (!engine) {
    error = "no engine";
    return nullptr;
  }
  auto impl = std::make_unique<Impl>();
  impl->engine = std::move(engine);
  for (const engine::TensorSignature &input : impl->description().inputs)
    impl->inputShapes.push_back(input.isDynamic() ? input.optShape : input.shape);
  impl->readBacks = impl->description().hasReadBacks();
  impl->deviceValues.assign(impl->description().readBackCount(), engine::kUnreadDeviceValue);
  const char *sync = std::getenv("KILN_SYNC_STEPS");
  impl->synchronousSteps = sync && *sync && std::strcmp(sync, "0") != 0;
  const char *programmatic = std::getenv("KILN_PROGRAMMATIC_LAUNCH");
  impl->programmaticLaunch = !programmatic || std::strcmp(programmatic, "0") != 0;
  std::string problem;
  if (!impl->gpu().makeCurrent(problem) || !impl->driver().createStream(impl->stream, problem)) {
    error = impl->prefix() + problem;
    return nullptr;
  }
  uint64_t arenaBytes = impl->description().arenaBytes;
  if (arenaBytes && !impl->driver().allocate(arenaBytes, impl->arena, problem)) {
    error = impl->prefix() + "allocating the arena: " + problem;
    return nullptr;
  }
  size_t maps = 0;
  for (const engine::Step &step : impl->description().steps)
    for (const engine::LaunchArgument &argument : step.arguments)
      maps += argument.kind == engine::LaunchArgument::Kind::TensorMap;
  if (maps) {
    impl->hostMaps.resize(maps);
    // cuMemAlloc aligns to at least 256 bytes, and the slots are 128 bytes: each map is
    // 64-byte aligned as the copy engine requires.
    if (!impl->driver().allocate(maps * sizeof(Impl::EncodedMap), impl->deviceMaps, problem)) {
      error = impl->prefix() + "allocating the tensor maps: " + problem;
      return nullptr;
    }
  }
  return std::unique_ptr<ExecutionContext>(new ExecutionContext(std::move(impl)));
}

const Engine &ExecutionContext::engine() const { return *state->engine; }

bool ExecutionContext::run(const std::vector<const void *> &inputs,
                           const std::vector<void *> &outputs, std::string &error) {
  const engine::Engine &model = state->description();
  if (inputs.size() != model.inputs.size() || outputs.size() != model.outputs.size()) {
    error = state->prefix() + "the engine has " + std::to_string(model.inputs.size()) +
            " inputs and " + std::to_string(model.outputs.size()) + " outputs; given " +
            std::to_string(inputs.size()) + " and " + std::to_string(outputs.size());
    return false;
  }
  if (!state->ownBuffers(error) || !state->resolveShapes(error))
    return false;
  const CudaDriver &driver = state->driver();
  std::string problem;
  for (size_t i = 0; i < inputs.size(); ++i) {
    uint64_t bytes = state->currentBytes(model.inputs[i], state->inputShapes[i]);
    if (bytes &&
        !driver.copyToDevice(state->ownInputs[i], inputs[i], bytes, state->stream, problem)) {
      error = state->prefix() + "input " + quoted(model.inputs[i].name) + ": " + problem;
      return false;
    }
  }
  if (!state->enqueue(state->ownInputs, state->ownOutputs, error))
    return false;
  for (size_t i = 0; i < outputs.size(); ++i) {
    uint64_t bytes = state->currentBytes(model.outputs[i], state->outputShapes[i]);
    if (bytes &&
        !driver.copyToHost(outputs[i], state->ownOutputs[i], bytes, state->stream, problem)) {
      error = state->prefix() + "output " + quoted(model.outputs[i].name) + ": " + problem;
      return false;
    }
  }
  return synchronize(error);
}

bool ExecutionContext::enqueue(const std::vector<DevicePointer> &inputs,
                               const std::vector<DevicePointer> &outputs, std::string &error) {
  return state->enqueue(inputs, outputs, error);
}

bool ExecutionContext::enqueue(std::string &error) {
  return state->ownBuffers(error) && state->enqueue(state->ownInputs, state->ownOutputs, error);
}

bool ExecutionContext::synchronize(std::string &error) {
  std::string problem;
  if (!state->gpu().makeCurrent(problem) || !state->driver().synchronize(state->stream, problem)) {
    error = state->prefix() + "running the schedule: " + problem +
            (state->synchronousSteps
                 ? std::string()
                 : "; set KILN_SYNC_STEPS=1 to find the step (and kernel) that failed");
    return false;
  }
  return true;
}

DevicePointer ExecutionContext::inputBuffer(size_t index, std::string &error) {
  if (!state->ownBuffers(error))
    return 0;
  if (index >= state->ownInputs.size()) {
    error = state->prefix() + "no input " + std::to_string(index);
    return 0;
  }
  return state->ownInputs[index];
}

DevicePointer ExecutionContext::outputBuffer(size_t index, std::string &error) {
  if (!state->ownBuffers(error))
    return 0;
  if (index >= state->ownOutputs.size()) {
    error = state->prefix() + "no output " + std::to_string(index);
    return 0;
  }
  return state->ownOutputs[index];
}

bool ExecutionContext::setInput(size_t index, const void *host, std::string &error) {
  DevicePointer buffer = inputBuffer(index, error);
  if (!buffer)
    return false;
  const engine::TensorSignature &input = state->description().inputs[index];
  uint64_t bytes = state->currentBytes(input, state->inputShapes[index]);
  std::string problem;
  if (bytes && (!state->driver().copyToDevice(buffer, host, bytes, state->stream, problem) ||
                !state->driver().synchronize(state->stream, problem))) {
    error = state->prefix() + "input " + quoted(input.name) + ": " + problem;
    return false;
  }
  return true;
}

bool ExecutionContext::getOutput(size_t index, void *host, std::string &error) {
  DevicePointer buffer = outputBuffer(index, error);
  if (!buffer || !synchronize(error) || !state->resolveShapes(error))
    return false;
  const engine::TensorSignature &output = state->description().outputs[index];
  uint64_t bytes = state->currentBytes(output, state->outputShapes[index]);
  std::string problem;
  if (bytes && (!state->driver().copyToHost(host, buffer, bytes, state->stream, problem) ||
                !state->driver().synchronize(state->stream, problem))) {
    error = state->prefix() + "output " + quoted(output.name) + ": " + problem;
    return false;
  }
  return true;
}

void ExecutionContext::enableGraph(bool enable) {
  state->useGraph = enable;
  if (!enable) {
    std::string ignored;
    if (state->gpu().makeCurrent(ignored))
      state->dropGraphs();
  }
}

bool ExecutionContext::graphEnabled() const { return state->useGraph && !state->readBacks; }
bool ExecutionContext::graphCaptured() const {
  auto found = state->graphs.find(state->inputShapes);
  return found != state->graphs.end() && found->second.exec != nullptr;
}

bool ExecutionContext::setInputShape(size_t index, const std::vector<int64_t> &shape,
                                     std::string &error) {
  const engine::Engine &model = state->description();
  if (index >= model.inputs.size()) {
    error = state->prefix() + "no input " + std::to_string(index);
    return false;
  }
  if (std::string problem = engine::checkInputShape(model, index, shape); !problem.empty()) {
    error = state->prefix() + problem;
    return false;
  }
  if (state->inputShapes[index] != shape) {
    state->inputShapes[index] = shape;
    state->shapesResolved = false;
    state->forgetDeviceValues(); // the last run's were for other inputs
  }
  return true;
}

const std::vector<int64_t> &ExecutionContext::inputShape(size_t index) const {
  return state->inputShapes.at(index);
}

bool ExecutionContext::outputShape(size_t index, std::vector<int64_t> &shape, std::string &error) {
  if (!state->resolveShapes(error))
    return false;
  if (index >= state->outputShapes.size()) {
    error = state->prefix() + "no output " + std::to_string(index);
    return false;
  }
  shape = state->outputShapes[index];
  return true;
}
void ExecutionContext::setSynchronousSteps(bool enable) { state->synchronousSteps = enable; }

bool ExecutionContext::timeRuns(int iterations, std::vector<float> &millis, std::string &error) {
  millis.clear();
  if (!state->ownBuffers(error))
    return false;
  const CudaDriver &driver = state->driver();
  std::string problem;
  if ((!state->start && !driver.createEvent(state->start, problem)) ||
      (!state->stop && !driver.createEvent(state->stop, problem))) {
    error = state->prefix() + problem;
    return false;
  }
  for (int i = 0; i < iterations; ++i) {
    float elapsed = 0;
    if (!driver.recordEvent(state->start, state->stream, problem)) {
      error = state->prefix() + problem;
      return false;
    }
    if (!state->enqueue(state->ownInputs, state->ownOutputs, error))
      return false;
    if (!driver.recordEvent(state->stop, state->stream, problem)) {
      error = state->prefix() + problem;
      return false;
    }
    if (!synchronize(error))
      return false;
    if (!driver.elapsedMillis(state->start, state->stop, elapsed, problem)) {
      error = state->prefix() + problem;
      return false;
    }
    millis.push_back(elapsed);
  }
  return true;
}

namespace {

/// One thread spinning on the GPU's nanosecond timer for its argument's nanoseconds:
/// profileSteps holds the stream with it while the host enqueues a run behind it.
constexpr const char kHoldStreamPtx[] = R"(.version 6.0
.target sm_50
.address_size 64
.visible .entry kiln_hold_stream(.param .u64 nanoseconds)
{
  .reg .pred %waiting;
  .reg .b64 %limit, %start, %now, %elapsed;
  ld.param.u64 %limit, [nanoseconds];
  mov.u64 %start, %globaltimer;
spin:
  mov.u64 %now, %globaltimer;
  sub.u64 %elapsed, %now, %start;
  setp.lt.u64 %waiting, %elapsed, %limit;
  @%waiting bra spin;
  ret;
}
)";

/// The shortest hold, and the longest a run is retried with before it is timed as it is.
constexpr uint64_t kMinHoldNanos = 1'000'000, kMaxHoldNanos = 1'000'000'000;

} // namespace

bool ExecutionContext::profileSteps(int iterations, std::vector<double> &millis,
                                    std::string &error) {
  const engine::Engine &model = state->description();
  millis.assign(model.steps.size(), 0.0);
  if (!state->ownBuffers(error) || !state->gpu().makeCurrent(error))
    return false;
  const CudaDriver &driver = state->driver();
  std::string problem;
  // The events and the hold kernel's module live until this returns, whichever way.
  struct Resources {
    const CudaDriver &driver;
    std::vector<runtime::EventHandle> events;
    runtime::ModuleHandle holdModule = nullptr;
    ~Resources() {
      for (runtime::EventHandle event : events)
        driver.destroyEvent(event);
      if (holdModule)
        driver.unloadModule(holdModule);
    }
  } resources{driver, std::vector<runtime::EventHandle>(model.steps.size() + 1, nullptr)};
  for (runtime::EventHandle &event : resources.events)
    if (!driver.createEvent(event, problem)) {
      error = state->prefix() + problem;
      return false;
    }
  runtime::FunctionHandle hold = nullptr;
  if (!driver.loadModule(kHoldStreamPtx, resources.holdModule, problem) ||
      !driver.getFunction(resources.holdModule, "kiln_hold_stream", hold, problem)) {
    error = state->prefix() + "the profile's stream hold kernel: " + problem;
    return false;
  }
  // A stream launch costs the host microseconds, so a run of short kernels would leave
  // the GPU waiting for each next launch, and an event pair would time that wait. Held
  // for twice the last run's enqueue (1 ms at least), the steps run back to back; a run
  // whose hold ended before the host had enqueued it all is timed again with a longer
  // hold (a read-back waits for the GPU, so then only the steps before it are covered).
  uint64_t holdNanos = kMinHoldNanos;
  for (int i = 0; i < iterations;) {
    state->forgetDeviceValues();
    if (!state->resolveShapes(error) ||
        !state->prepareTensorMaps(state->ownInputs, state->ownOutputs, error))
      return false;
    uint32_t one[3] = {1, 1, 1};
    void *holdArguments[] = {&holdNanos};
    if (!driver.launch(hold, one, one, 0, state->stream, holdArguments, /*programmatic=*/false,
                       problem)) {
      error = state->prefix() + "the profile's stream hold kernel: " + problem;
      return false;
    }
    auto begin = std::chrono::steady_clock::now();
    if (!state->enqueueSteps(state->ownInputs, state->ownOutputs, /*synchronous=*/false, error,
                             &resources.events))
      return false;
    auto enqueueNanos = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now() - begin)
                                     .count());
    bool released = false;
    if (!state->readBacks && !driver.eventDone(resources.events.front(), released, problem)) {
      error = state->prefix() + problem;
      return false;
    }
    if (!synchronize(error))
      return false;
    if (released && holdNanos < kMaxHoldNanos) {
      holdNanos = std::min(kMaxHoldNanos, std::max(2 * holdNanos, 2 * enqueueNanos));
      continue;
    }
    for (size_t s = 0; s < model.steps.size(); ++s) {
      float elapsed = 0;
      if (!driver.elapsedMillis(resources.events[s], resources.events[s + 1], elapsed, problem)) {
        error = state->prefix() + describeStep(model, s) + ": " + problem;
        return false;
      }
      millis[s] += elapsed / iterations;
    }
    holdNanos = std::max(kMinHoldNanos, 2 * enqueueNanos);
    ++i;
  }
  return true;
}

void *ExecutionContext::stream() const { return state->stream; }

} // namespace kiln
