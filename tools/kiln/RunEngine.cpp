//===- RunEngine.cpp - `kiln run MODEL.kiln`: an engine on the GPU --------===//
//
// Binds the input and expected-output files to the engine's IO signature (shared with the
// CPU path, RunCommon.h), runs the engine once through the runtime (include/kiln/Runtime.h)
// and reports like the CPU path. A static engine takes the shapes it was compiled for, a
// dynamic one any shape in its profile; an input of another shape is refused before the
// GPU is touched. An output whose shape depends on values the run computes (an engine
// with read-backs) gets a buffer for its largest shape and is reported at its shape after
// the run.
//
//===----------------------------------------------------------------------===//

#include "tools/kiln/RunCommon.h"

#include "kiln/Runtime.h"
#include "lib/pipeline/Progress.h"

#include <algorithm>

namespace kiln::tool {

namespace {

std::string shapeText(const engine::TensorSignature &tensor) {
  std::string text = std::string(engine::elementTypeName(tensor.type)) + "[";
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    text += (i ? "x" : "") + std::to_string(tensor.shape[i]);
  return text + "]";
}

std::string shapeText(const io::HostTensor &tensor) {
  std::string text = io::name(tensor.type).str() + "[";
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    text += (i ? "x" : "") + std::to_string(tensor.shape[i]);
  return text + "]";
}

} // namespace

io::ElementType toFileType(engine::ElementType type) {
  switch (type) {
  case engine::ElementType::F32:
    return io::ElementType::F32;
  case engine::ElementType::F16:
    return io::ElementType::F16;
  case engine::ElementType::BF16:
    return io::ElementType::BF16;
  case engine::ElementType::F64:
    return io::ElementType::F64;
  case engine::ElementType::I8:
    return io::ElementType::I8;
  case engine::ElementType::U8:
    return io::ElementType::U8;
  case engine::ElementType::I16:
    return io::ElementType::I16;
  case engine::ElementType::U16:
    return io::ElementType::U16;
  case engine::ElementType::I32:
    return io::ElementType::I32;
  case engine::ElementType::U32:
    return io::ElementType::U32;
  case engine::ElementType::I64:
    return io::ElementType::I64;
  case engine::ElementType::U64:
    return io::ElementType::U64;
  case engine::ElementType::Bool:
    return io::ElementType::Bool;
  }
  return io::ElementType::U8;
}

int runEngineOnDevice(const RunOptions &options, engine::Engine description,
                      const std::string &what, EngineRun *kept) {
  std::vector<TensorSpec> inputSpecs, outputSpecs;
  for (const engine::TensorSignature &input : description.inputs)
    inputSpecs.push_back({input.name, toFileType(input.type)});
  for (const engine::TensorSignature &output : description.outputs)
    outputSpecs.push_back({output.name, toFileType(output.type)});
  EngineRun run;
  if (int status = bindRunTensors(options, inputSpecs, outputSpecs, run.bound))
    return status;
  if (int status =
          runEngineOutputs(options, std::move(description), what, run.bound.inputs, run.outputs))
    return status;
  int status = reportRunOutputs(options, run.outputs, run.bound);
  if (kept)
    *kept = std::move(run);
  return status;
}

int runEngineOutputs(const RunOptions &options, engine::Engine description, const std::string &what,
                     const std::vector<io::HostTensor> &inputs,
                     std::vector<io::HostTensor> &outputs) {
  Progress progress(options.quiet);
  if (inputs.size() != description.inputs.size()) {
    runError() << "'" << what << "' has " << description.inputs.size() << " inputs, "
               << inputs.size() << " given\n";
    return RunBadInput;
  }
  std::vector<std::vector<int64_t>> shapes;
  // Static inputs (a data-dependent engine's may be): the compiled shapes only.
  bool staticInputs =
      std::none_of(description.inputs.begin(), description.inputs.end(),
                   [](const engine::TensorSignature &input) { return input.isDynamic(); });
  for (size_t i = 0; i < inputs.size(); ++i) {
    const engine::TensorSignature &input = description.inputs[i];
    shapes.emplace_back(inputs[i].shape.begin(), inputs[i].shape.end());
    if (staticInputs && shapes.back() != input.shape) {
      runError() << "input '" << input.name << "': the engine was compiled for " << shapeText(input)
                 << ", the file holds " << shapeText(inputs[i]) << "\n";
      return RunBadInput;
    }
  }
  // The profile's check, and the outputs' shapes for these inputs (a data-dependent
  // extent at its bound: the device values are not read yet).
  std::vector<int64_t> shapeValues;
  if (std::string problem = engine::evaluateShapes(description, shapes, shapeValues);
      !problem.empty()) {
    runError() << "'" << what << "': " << problem << "\n";
    return RunBadInput;
  }
  // At their bounds: a choice the device makes (which branch of an If runs) may take
  // either side.
  engine::evaluateProgram(engine::boundingProgram(description.shapeProgram), shapes, shapeValues);
  std::vector<std::vector<int64_t>> outputShapes;
  for (size_t i = 0; i < description.outputs.size(); ++i)
    outputShapes.push_back(engine::outputShape(description, i, shapeValues));

  std::string error;
  auto runtime = Runtime::create(error);
  if (!runtime) {
    runError() << error << "\n";
    return RunUnsupported;
  }
  if (std::string problem = engine::checkTargetRuns(
          description.target, runtime->computeCapabilityMajor(), runtime->computeCapabilityMinor());
      !problem.empty()) {
    runError() << "'" << what << "': " << problem << "\n";
    return RunUnsupported;
  }
  auto engine = Engine::create(runtime, std::move(description), what, error);
  if (!engine) {
    runError() << error << "\n";
    return RunFailed;
  }
  progress.step("loaded " + what + " on " + runtime->deviceName() + " (" + runtime->smName() +
                ", " + (engine->loadedFromCubin() ? "cubin" : "PTX") + ")");
  auto context = ExecutionContext::create(engine, error);
  if (!context) {
    runError() << error << "\n";
    return RunFailed;
  }
  for (size_t i = 0; i < shapes.size(); ++i)
    if (!context->setInputShape(i, shapes[i], error)) {
      runError() << error << "\n";
      return RunBadInput;
    }

  const engine::Engine &model = engine->description();
  outputs.assign(model.outputs.size(), io::HostTensor());
  std::vector<const void *> inputBuffers;
  std::vector<void *> outputBuffers;
  for (const io::HostTensor &input : inputs)
    inputBuffers.push_back(input.data.data());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const engine::TensorSignature &signature = model.outputs[i];
    outputs[i].name = signature.name;
    outputs[i].type = toFileType(signature.type);
    outputs[i].shape.assign(outputShapes[i].begin(), outputShapes[i].end());
    uint64_t bytes = engine::elementSize(signature.type);
    for (int64_t extent : outputShapes[i])
      bytes *= static_cast<uint64_t>(extent);
    outputs[i].data.resize(std::min<uint64_t>(bytes, signature.sizeInBytes()));
    outputBuffers.push_back(outputs[i].data.data());
  }
  if (!context->run(inputBuffers, outputBuffers, error)) {
    runError() << error << "\n";
    return RunFailed;
  }
  // The shapes the run produced (data-dependent ones are known only now).
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::vector<int64_t> shape;
    if (!context->outputShape(i, shape, error)) {
      runError() << error << "\n";
      return RunFailed;
    }
    uint64_t bytes = engine::elementSize(model.outputs[i].type);
    for (int64_t extent : shape)
      bytes *= static_cast<uint64_t>(extent);
    outputs[i].shape.assign(shape.begin(), shape.end());
    outputs[i].data.resize(bytes);
  }
  progress.step("ran");
  return RunSucceeded;
}

int runEngineFile(const RunOptions &options) {
  engine::Engine description;
  if (std::string problem = engine::readEngineFile(options.model, description); !problem.empty()) {
    runError() << problem << "\n";
    return RunBadInput;
  }
  int status = RunSucceeded;
  for (size_t run = 0; run < std::max<size_t>(options.inputsDirs.size(), 1); ++run)
    status = std::max(status,
                      runEngineOnDevice(perRunOptions(options, run), description, options.model));
  return status;
}

} // namespace kiln::tool
