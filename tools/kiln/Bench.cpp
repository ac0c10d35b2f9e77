//===- Bench.cpp - `kiln bench`: latency and throughput of an engine ------===//
//
// Fills the inputs once with seeded random values or with the files --input names
// (device-resident: no host copies are timed; a kernel whose speed depends on the data,
// a GridSample's grid or a gather's indices, is timed on the data given), warms up, then
// times each run between two CUDA events on the context's stream. Runs replay a CUDA
// graph of the schedule unless --no-graph. --profile then times each step between events
// (stream launches) and lists the steps slowest first.
//
//===----------------------------------------------------------------------===//

#include "tools/kiln/EngineTools.h"
#include "tools/kiln/Run.h"
#include "tools/kiln/RunCommon.h"

#include "kiln/Runtime.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>

using namespace llvm;

namespace kiln::tool {

namespace {

raw_ostream &error() { return WithColor::error(errs(), "kiln bench"); }

uint16_t floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint32_t sign = (bits >> 16) & 0x8000u;
  int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffffu;
  if (exponent <= 0) // the inputs are in [-1, 1): tiny values flush to zero
    return static_cast<uint16_t>(sign);
  if (exponent >= 31)
    return static_cast<uint16_t>(sign | 0x7c00u);
  return static_cast<uint16_t>(sign | (exponent << 10) | (mantissa >> 13));
}

uint16_t floatToBfloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return static_cast<uint16_t>(bits >> 16);
}

/// Random bytes for `tensor`: floats uniform in [-1, 1); integers and booleans 0 or 1, so
/// that index inputs (token ids, gather indices) stay in range.
std::vector<uint8_t> randomTensor(const engine::TensorSignature &tensor, std::mt19937_64 &random) {
  std::vector<uint8_t> bytes(tensor.sizeInBytes());
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> bit(0, 1);
  size_t width = engine::elementSize(tensor.type);
  for (int64_t i = 0, count = tensor.numElements(); i < count; ++i) {
    uint8_t *at = bytes.data() + i * width;
    switch (tensor.type) {
    case engine::ElementType::F32: {
      float value = real(random);
      std::memcpy(at, &value, 4);
      break;
    }
    case engine::ElementType::F64: {
      double value = real(random);
      std::memcpy(at, &value, 8);
      break;
    }
    case engine::ElementType::F16: {
      uint16_t value = floatToHalf(real(random));
      std::memcpy(at, &value, 2);
      break;
    }
    case engine::ElementType::BF16: {
      uint16_t value = floatToBfloat16(real(random));
      std::memcpy(at, &value, 2);
      break;
    }
    default: // integers and bool, little-endian
      at[0] = static_cast<uint8_t>(bit(random));
      break;
    }
  }
  return bytes;
}

/// The value below which `fraction` of the sorted `values` lie (nearest rank).
double percentile(const std::vector<float> &sorted, double fraction) {
  size_t rank = static_cast<size_t>(std::ceil(fraction * double(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank ? rank - 1 : 0)];
}

/// One step's share of a profiled run.
struct StepTime {
  size_t step;
  double millis;
};

/// "conv: Conv_12, Relu_13" for a launch, "copy of N bytes", "fill of N bytes" or "read back
/// N bytes (...)" otherwise.
std::string describeStepForProfile(const engine::Engine &model, size_t index) {
  const engine::Step &step = model.steps[index];
  switch (step.kind) {
  case engine::Step::Kind::Launch: {
    const engine::Kernel &kernel = model.kernels[step.kernel];
    std::string text = kernel.templateKind.empty() ? "kernel" : kernel.templateKind;
    for (size_t i = 0; i < kernel.sourceNodes.size(); ++i)
      text += (i ? ", " : ": ") + kernel.sourceNodes[i];
    return text;
  }
  case engine::Step::Kind::Copy:
    return "copy of " + std::to_string(step.bytes) + " bytes";
  case engine::Step::Kind::Fill:
    return "fill of " + std::to_string(step.bytes) + " bytes";
  case engine::Step::Kind::ReadBack:
    // Its time is the copy and the host's round trip: the GPU idles until the next step.
    return "read back " + std::to_string(step.bytes) + " bytes into shape value " +
           std::to_string(step.value) + " (waits for the GPU)";
  }
  return "?";
}

/// A kernel function's rates over all of its launches in a run.
struct FunctionRates {
  double millis = 0;
  double teraflops = 0, terabytes = 0, roofline = 0; // TFLOP/s, TB/s, share of the floor
};

/// Prints the steps slowest first: time, share, running share, the achieved rates of its
/// kernel function (over all of that function's launches: a generic kernel's loop nests
/// are several steps) and their fraction of the H200's roofline (the time the function's
/// FLOPs at 790 TFLOP/s or its bytes at 4.3 TB/s take, whichever is longer, over the time
/// it took), and what the step is.
void printProfile(raw_ostream &os, const engine::Engine &model, std::vector<StepTime> times,
                  int iterations) {
  double total = 0;
  std::vector<FunctionRates> rates(model.functions.size());
  for (const StepTime &time : times) {
    total += time.millis;
    uint32_t function = model.steps[time.step].function;
    if (function < rates.size())
      rates[function].millis += time.millis;
  }
  for (size_t f = 0; f < rates.size(); ++f) {
    double seconds = rates[f].millis * 1e-3;
    if (seconds <= 0)
      continue;
    const engine::KernelFunction &function = model.functions[f];
    rates[f].teraflops = function.flops / seconds * 1e-12;
    rates[f].terabytes = function.bytes / seconds * 1e-12;
    rates[f].roofline =
        std::max(function.flops / kRooflineFlops, function.bytes / kRooflineBytes) / seconds;
  }
  std::stable_sort(times.begin(), times.end(),
                   [](const StepTime &a, const StepTime &b) { return a.millis > b.millis; });
  os << formatv("profile: {0} steps, {1:f4} ms a run as held stream launches (mean of {2} runs), "
                "slowest first; TFLOP/s, TB/s and roofline % of each step's kernel function "
                "(all its launches), against the H200's 790 TFLOP/s and 4.3 TB/s\n",
                times.size(), total, iterations);
  os << formatv("{0,5}  {1,9}  {2,6}  {3,6}  {4,8}  {5,6}  {6,6}  {7}\n", "step", "ms", "%",
                "cum %", "TFLOP/s", "TB/s", "roof %", "kernel");
  double running = 0;
  for (const StepTime &time : times) {
    running += time.millis;
    double share = total > 0 ? 100.0 * time.millis / total : 0;
    double cumulative = total > 0 ? 100.0 * running / total : 0;
    std::string what = describeStepForProfile(model, time.step);
    const engine::Step &step = model.steps[time.step];
    if (step.kind == engine::Step::Kind::Launch)
      what += "  [" + model.kernels[step.kernel].name + "]";
    std::string columns = formatv("{0,8}  {1,6}  {2,6}", "-", "-", "-").str();
    if (step.function < rates.size() && rates[step.function].millis > 0) {
      const FunctionRates &rate = rates[step.function];
      columns = formatv("{0,8:f1}  {1,6:f2}  {2,6:f1}", rate.teraflops, rate.terabytes,
                        100.0 * rate.roofline)
                    .str();
    }
    os << formatv("{0,5}  {1,9:f4}  {2,6:f2}  {3,6:f2}  {4}  {5}\n", time.step, time.millis, share,
                  cumulative, columns, what);
  }
}

} // namespace

int benchEngine(const BenchOptions &options) {
  if (!StringRef(options.model).ends_with(".kiln")) {
    error() << "'" << options.model
            << "': kiln bench runs engines (.kiln); compile the model with kiln compile "
               "first\n";
    return RunBadInput;
  }
  if (options.iterations < 1 || options.warmup < 0 || !(options.durationSeconds >= 0)) {
    error() << "--iterations must be at least 1, --warmup and --duration at least 0\n";
    return RunBadInput;
  }
  engine::Engine description;
  if (std::string problem = engine::readEngineFile(options.model, description); !problem.empty()) {
    error() << problem << "\n";
    return RunBadInput;
  }

  // --input files, read before any GPU work: their tensors by input index.
  std::vector<std::optional<io::HostTensor>> given(description.inputs.size());
  for (const std::string &argument : options.inputs) {
    auto [name, file] = StringRef(argument).split('=');
    auto input =
        std::find_if(description.inputs.begin(), description.inputs.end(),
                     [&](const engine::TensorSignature &tensor) { return tensor.name == name; });
    if (file.empty() || input == description.inputs.end()) {
      error() << "--input '" << argument << "': "
              << (file.empty() ? "expected NAME=FILE" : "the engine has no input of that name")
              << "\n";
      return RunBadInput;
    }
    auto tensor = io::readTensorFile(file);
    if (!tensor) {
      error() << "--input '" << argument << "': " << toString(tensor.takeError()) << "\n";
      return RunBadInput;
    }
    if (tensor->type != toFileType(input->type)) {
      error() << "input '" << name << "': the engine takes " << engine::elementTypeName(input->type)
              << ", " << file << " holds " << io::name(tensor->type) << "\n";
      return RunBadInput;
    }
    given[input - description.inputs.begin()] = std::move(*tensor);
  }

  std::string problem;
  auto runtime = Runtime::create(problem);
  if (!runtime) {
    error() << problem << "\n";
    return RunUnsupported;
  }
  if (std::string mismatch = engine::checkTargetRuns(
          description.target, runtime->computeCapabilityMajor(), runtime->computeCapabilityMinor());
      !mismatch.empty()) {
    error() << "'" << options.model << "': " << mismatch << "\n";
    return RunUnsupported;
  }
  auto engine = Engine::create(runtime, std::move(description), options.model, problem);
  if (!engine) {
    error() << problem << "\n";
    return RunFailed;
  }
  const engine::Engine &model = engine->description();
  auto context = ExecutionContext::create(engine, problem);
  if (!context) {
    error() << problem << "\n";
    return RunFailed;
  }
  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
  if (std::string bad = engine::parseShapes(options.shapes, shapes); !bad.empty()) {
    error() << "--shapes '" << options.shapes << "': " << bad << "\n";
    return RunBadInput;
  }
  for (const auto &[name, shape] : shapes) {
    auto input =
        std::find_if(model.inputs.begin(), model.inputs.end(),
                     [&](const engine::TensorSignature &tensor) { return tensor.name == name; });
    if (input == model.inputs.end()) {
      error() << "--shapes: the engine has no input named '" << name << "'\n";
      return RunBadInput;
    }
    if (!context->setInputShape(input - model.inputs.begin(), shape, problem)) {
      error() << problem << "\n";
      return RunBadInput;
    }
  }
  // A dynamic input given by a file and not in --shapes runs at the file's shape.
  for (size_t i = 0; i < given.size(); ++i) {
    if (!given[i])
      continue;
    const engine::TensorSignature &input = model.inputs[i];
    std::vector<int64_t> shape(given[i]->shape.begin(), given[i]->shape.end());
    bool shaped =
        llvm::any_of(shapes, [&](const auto &entry) { return entry.first == input.name; });
    if (input.isDynamic() && !shaped && !context->setInputShape(i, shape, problem)) {
      error() << problem << "\n";
      return RunBadInput;
    }
    if (shape != context->inputShape(i)) {
      error() << "input '" << input.name << "': the engine runs it at "
              << engine::formatShape(context->inputShape(i)) << ", the file holds "
              << engine::formatShape(shape) << "\n";
      return RunBadInput;
    }
  }
  std::mt19937_64 random(options.seed);
  for (size_t i = 0; i < model.inputs.size(); ++i) {
    std::vector<uint8_t> bytes;
    if (!given[i])
      bytes = randomTensor(model.inputs[i], random);
    const void *data = given[i] ? static_cast<const void *>(given[i]->data.data()) : bytes.data();
    if (!context->setInput(i, data, problem)) {
      error() << problem << "\n";
      return RunFailed;
    }
  }
  context->enableGraph(options.useGraph);

  for (int i = 0; i < options.warmup; ++i)
    if (!context->enqueue(problem)) {
      error() << problem << "\n";
      return RunFailed;
    }
  if (!context->synchronize(problem)) {
    error() << problem << "\n";
    return RunFailed;
  }
  std::vector<float> millis;
  if (!context->timeRuns(options.iterations, millis, problem)) {
    error() << problem << "\n";
    return RunFailed;
  }
  // --duration: more runs, in batches sized from the runs so far, until the timed total
  // reaches it (at most a million runs, so a broken clock cannot loop forever).
  double timedMillis = std::accumulate(millis.begin(), millis.end(), 0.0);
  double wantedMillis = options.durationSeconds * 1000.0;
  while (timedMillis < wantedMillis && millis.size() < 1000000) {
    double perRun = std::max(timedMillis / double(millis.size()), 1e-3);
    int more = static_cast<int>(
        std::clamp(std::ceil((wantedMillis - timedMillis) / perRun), 1.0, 10000.0));
    std::vector<float> extra;
    if (!context->timeRuns(more, extra, problem)) {
      error() << problem << "\n";
      return RunFailed;
    }
    timedMillis += std::accumulate(extra.begin(), extra.end(), 0.0);
    millis.insert(millis.end(), extra.begin(), extra.end());
  }

  std::vector<float> sorted = millis;
  std::sort(sorted.begin(), sorted.end());
  double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / double(sorted.size());
  double p50 = percentile(sorted, 0.50), p95 = percentile(sorted, 0.95),
         p99 = percentile(sorted, 0.99);
  int64_t batch = 1;
  if (!model.inputs.empty() && !context->inputShape(0).empty())
    batch = std::max<int64_t>(context->inputShape(0)[0], 1);
  double throughput = mean > 0 ? double(batch) * 1000.0 / mean : 0;
  bool graph = options.useGraph && context->graphCaptured();
  // What the runtime allocates for this engine: the weights, the context's arena and its
  // input and output buffers (the CUDA context and the loaded code are not counted).
  uint64_t ioBytes = 0;
  for (const auto *tensors : {&model.inputs, &model.outputs})
    for (const engine::TensorSignature &tensor : *tensors)
      ioBytes += tensor.sizeInBytes();
  uint64_t weightBytes = model.weights.size(), arenaBytes = model.arenaBytes;
  uint64_t deviceBytes = weightBytes + arenaBytes + ioBytes;

  std::vector<StepTime> profile;
  if (options.profile) {
    std::vector<double> stepMillis;
    if (!context->profileSteps(options.iterations, stepMillis, problem)) {
      error() << problem << "\n";
      return RunFailed;
    }
    for (size_t s = 0; s < stepMillis.size(); ++s)
      profile.push_back({s, stepMillis[s]});
  }

  raw_ostream &os = outs();
  os << "engine " << options.model << " on " << runtime->deviceName() << " (" << runtime->smName()
     << "), " << (engine->loadedFromCubin() ? "cubin" : "PTX") << ", "
     << (graph                                      ? "CUDA graph"
         : options.useGraph && model.hasReadBacks() ? "stream launches (read-backs: no CUDA graph)"
                                                    : "stream launches")
     << ", " << options.warmup << " warmup + " << millis.size() << " timed runs\n";
  std::string shapesText;
  for (size_t i = 0; i < model.inputs.size(); ++i)
    shapesText +=
        (i ? "," : "") + model.inputs[i].name + ":" + engine::formatShape(context->inputShape(i));
  if (model.isDynamic())
    os << "input shapes (dynamic engine): " << shapesText << "\n";
  // Data-dependent outputs: their shapes in the last run.
  std::string outputShapesText;
  if (model.hasReadBacks()) {
    for (size_t i = 0; i < model.outputs.size(); ++i) {
      std::vector<int64_t> shape;
      if (!context->outputShape(i, shape, problem)) {
        error() << problem << "\n";
        return RunFailed;
      }
      outputShapesText += (i ? "," : "") + model.outputs[i].name + ":" + engine::formatShape(shape);
    }
    os << "output shapes (data-dependent, last run): " << outputShapesText << "\n";
  }
  os << formatv("latency ms: mean {0:f4}  p50 {1:f4}  p95 {2:f4}  p99 {3:f4}  min {4:f4}  "
                "max {5:f4}\n",
                mean, p50, p95, p99, sorted.front(), sorted.back());
  os << formatv("throughput: {0:f1} inferences/s (batch {1})\n", throughput, batch);
  os << formatv("device memory: {0:f1} MiB (weights {1:f1}, arena {2:f1}, inputs and outputs "
                "{3:f1})\n",
                deviceBytes / 1048576.0, weightBytes / 1048576.0, arenaBytes / 1048576.0,
                ioBytes / 1048576.0);
  if (options.profile)
    printProfile(os, model, profile, options.iterations);

  if (!options.jsonFile.empty()) {
    std::error_code ec;
    raw_fd_ostream file(options.jsonFile, ec, sys::fs::OF_Text);
    if (ec) {
      error() << "cannot write '" << options.jsonFile << "': " << ec.message() << "\n";
      return RunFailed;
    }
    json::OStream out(file, 2);
    out.object([&] {
      out.attribute("engine", options.model);
      out.attribute("model", model.modelName);
      out.attribute("target", model.target);
      out.attribute("gpu", runtime->deviceName());
      out.attribute("sm", runtime->smName());
      out.attribute("driver_version", static_cast<int64_t>(runtime->driverVersion()));
      out.attribute("loaded_from", engine->loadedFromCubin() ? "cubin" : "ptx");
      out.attribute("cuda_graph", graph);
      out.attribute("warmup", static_cast<int64_t>(options.warmup));
      out.attribute("iterations", static_cast<int64_t>(millis.size()));
      out.attribute("seed", static_cast<int64_t>(options.seed));
      out.attribute("batch", batch);
      out.attribute("shapes", shapesText);
      if (model.hasReadBacks())
        out.attribute("output_shapes", outputShapesText);
      out.attributeObject("latency_ms", [&] {
        out.attribute("mean", mean);
        out.attribute("p50", p50);
        out.attribute("p95", p95);
        out.attribute("p99", p99);
        out.attribute("min", double(sorted.front()));
        out.attribute("max", double(sorted.back()));
      });
      out.attribute("throughput_per_s", throughput);
      out.attributeObject("device_memory_bytes", [&] {
        out.attribute("weights", static_cast<int64_t>(weightBytes));
        out.attribute("arena", static_cast<int64_t>(arenaBytes));
        out.attribute("inputs_outputs", static_cast<int64_t>(ioBytes));
        out.attribute("total", static_cast<int64_t>(deviceBytes));
      });
      out.attributeArray("runs_ms", [&] {
        for (float run : millis)
          out.value(double(run));
      });
      if (options.profile)
        out.attributeArray("profile", [&] {
          for (const StepTime &time : profile)
            out.object([&] {
              out.attribute("step", static_cast<int64_t>(time.step));
              out.attribute("ms", time.millis);
              out.attribute("what", describeStepForProfile(model, time.step));
              const engine::Step &step = model.steps[time.step];
              if (step.kind == engine::Step::Kind::Launch)
                out.attribute("kernel", model.kernels[step.kernel].name);
              if (step.function < model.functions.size()) {
                const engine::KernelFunction &function = model.functions[step.function];
                out.attribute("function", function.name);
                out.attribute("function_flops", function.flops);
                out.attribute("function_bytes", function.bytes);
              }
            });
        });
    });
    file << "\n";
    file.close();
    if (file.has_error()) {
      error() << "cannot write '" << options.jsonFile << "': " << file.error().message() << "\n";
      file.clear_error();
      return RunFailed;
    }
  }
  return RunSucceeded;
}

} // namespace kiln::tool
