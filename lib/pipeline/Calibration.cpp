//===- Calibration.cpp - INT8 post-training calibration -------------------===//
//
// The observed model is a clone of the graph whose function also returns every
// activation graph-quantize-int8 will quantize; it runs on the host (the CPU path is
// there on every machine, CI included) over the calibration data in chunks of the
// model's batch, and each extra output feeds that activation's histogram.
//
// The sensitivity probe (--int8-sensitivity, --int8-min-sqnr) is another clone: each
// quantizable op gets a twin reading the same f32 inputs, the twin quantized by
// graph-quantize-int8 and the original renamed so that it stays f32; both results are
// returned, so each layer's SQNR is the error of quantizing that layer alone.
//
//===----------------------------------------------------------------------===//

#include "lib/pipeline/Calibration.h"

#include "dialects/graph/GraphDialect.h"
#include "lib/cpu/HostExecutable.h"
#include "lib/io/TensorFiles.h"
#include "passes/Pipelines.h"
#include "passes/graph/QuantizeInt8.h"
#include "passes/quantization/Calibration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

using namespace mlir;

namespace kiln {
namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  return llvm::join(llvm::map_range(shape, [](int64_t d) { return std::to_string(d); }), ", ");
}

/// The `.npy` files of `dir`, by file name.
llvm::Expected<std::map<std::string, std::string>> listNpyFiles(llvm::StringRef dir) {
  std::map<std::string, std::string> files;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(dir, error), end; it != end && !error;
       it.increment(error))
    if (llvm::sys::path::extension(it->path()) == ".npy")
      files[llvm::sys::path::filename(it->path()).str()] = it->path();
  if (error)
    return makeError("--calib " + dir + ": " + error.message());
  if (files.empty())
    return makeError("--calib " + dir + ": no .npy files");
  return files;
}

/// The calibration samples of each input, in the inputs' order: each a list of tensors
/// with the samples stacked along the first axis.
llvm::Expected<std::vector<std::vector<io::HostTensor>>>
readCalibrationData(llvm::StringRef dir, const std::vector<cpu::TensorSignature> &inputs) {
  auto files = listNpyFiles(dir);
  if (!files)
    return files.takeError();
  std::vector<std::vector<std::string>> paths(inputs.size());
  bool byName = llvm::all_of(
      inputs, [&](const cpu::TensorSignature &input) { return files->count(input.name + ".npy"); });
  if (byName) {
    for (auto [index, input] : llvm::enumerate(inputs))
      paths[index].push_back((*files)[input.name + ".npy"]);
  } else if (inputs.size() == 1) {
    for (auto &[name, path] : *files)
      paths[0].push_back(path);
  } else {
    std::string names;
    for (const cpu::TensorSignature &input : inputs)
      names += (names.empty() ? "" : ", ") + input.name + ".npy";
    return makeError("--calib " + dir + ": the model has " + llvm::Twine(inputs.size()) +
                     " inputs; expected " + names);
  }
  std::vector<std::vector<io::HostTensor>> data(inputs.size());
  for (auto [index, input] : llvm::enumerate(inputs)) {
    for (const std::string &path : paths[index]) {
      auto tensor = io::readNpy(path);
      if (!tensor)
        return tensor.takeError();
      llvm::ArrayRef<int64_t> sample = llvm::ArrayRef(input.shape).drop_front();
      if (tensor->type != input.type || tensor->shape.size() != input.shape.size() ||
          llvm::ArrayRef(tensor->shape).drop_front() != sample)
        return makeError(llvm::formatv("{0}: {1} [{2}] does not hold samples of input '{3}' "
                                       "({4} [N, {5}])",
                                       path, io::name(tensor->type), shapeText(tensor->shape),
                                       input.name, io::name(input.type), shapeText(sample))
                             .str());
      data[index].push_back(std::move(*tensor));
    }
  }
  return data;
}

/// Rows [first, first + count) of `tensor` (samples along the first axis).
io::HostTensor takeRows(const io::HostTensor &tensor, int64_t first, int64_t count) {
  io::HostTensor rows;
  rows.type = tensor.type;
  rows.shape = tensor.shape;
  rows.shape[0] = count;
  size_t rowBytes = tensor.data.size() / size_t(tensor.shape[0]);
  rows.data.assign(tensor.data.begin() + first * rowBytes,
                   tensor.data.begin() + (first + count) * rowBytes);
  return rows;
}

/// Runs `executable` (compiled from a clone of the model) over the calibration data of
/// `dir` in chunks of the model's batch, handing each run's outputs to `observe`; returns
/// the number of samples.
llvm::Expected<int64_t>
runOnCalibrationData(cpu::HostExecutable &executable, llvm::StringRef dir,
                     llvm::function_ref<void(const std::vector<io::HostTensor> &)> observe) {
  const std::vector<cpu::TensorSignature> &inputs = executable.inputs();
  if (inputs.empty() || llvm::any_of(inputs, [](const cpu::TensorSignature &input) {
        return input.shape.empty() || input.shape[0] <= 0;
      }))
    return makeError("calibration needs every input to have a static batch (first) "
                     "dimension; give it with --shapes");
  auto data = readCalibrationData(dir, inputs);
  if (!data)
    return data.takeError();
  // Chunks of the model's batch: file f of each input, rows [r, r + batch).
  int64_t batch = inputs[0].shape[0];
  size_t files = (*data)[0].size();
  int64_t samples = 0;
  for (size_t file = 0; file < files; ++file) {
    int64_t rows = (*data)[0][file].shape[0];
    for (const auto &input : *data)
      if (file >= input.size() || input[file].shape[0] != rows)
        return makeError("--calib " + dir +
                         ": the inputs' files hold different numbers of samples");
    for (int64_t first = 0; first + batch <= rows; first += batch) {
      std::vector<io::HostTensor> chunk;
      for (const auto &input : *data)
        chunk.push_back(takeRows(input[file], first, batch));
      auto outputs = executable.run(chunk);
      if (!outputs)
        return outputs.takeError();
      observe(*outputs);
      samples += batch;
    }
  }
  if (samples == 0)
    return makeError(
        llvm::formatv("--calib {0}: fewer samples than one batch of {1}", dir, batch).str());
  return samples;
}

/// The f32 elements of a host tensor (the probe's outputs are f32).
llvm::ArrayRef<float> floats(const io::HostTensor &tensor) {
  return llvm::ArrayRef(reinterpret_cast<const float *>(tensor.data.data()),
                        tensor.data.size() / sizeof(float));
}

} // namespace

llvm::Expected<std::string> fingerprintModel(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return makeError(path + ": " + buffer.getError().message());
  llvm::SHA256 hash;
  hash.update((*buffer)->getBuffer());
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

llvm::Expected<quant::CalibrationCache>
calibrateInt8(ModuleOp module, llvm::StringRef fingerprint, const CalibrationOptions &options,
              llvm::function_ref<void(const llvm::Twine &)> progress) {
  // A cache for this model and method answers without running anything.
  if (!options.cachePath.empty() && llvm::sys::fs::exists(options.cachePath)) {
    auto cache = quant::CalibrationCache::read(options.cachePath);
    if (!cache)
      return cache.takeError();
    if (cache->model == fingerprint && cache->method == options.method &&
        (options.method != quant::CalibrationMethod::Percentile ||
         cache->percentile == options.percentile)) {
      progress("calibration from " + options.cachePath);
      return std::move(*cache);
    }
  }
  if (options.dataDir.empty())
    return makeError("--int8 needs calibration data (--calib DIR) or a calibration cache "
                     "made for this model and method (--calib-cache FILE)");

  // The observed model: the activations as extra results.
  OwningOpRef<ModuleOp> observed = module.clone();
  auto function = observed->lookupSymbol<func::FuncOp>("main");
  if (!function)
    return makeError("calibration: the graph module has no function 'main'");
  std::vector<graph::Int8Activation> activations = graph::findInt8Activations(function);
  quant::CalibrationCache cache;
  cache.method = options.method;
  cache.percentile = options.percentile;
  cache.model = fingerprint.str();
  if (activations.empty())
    return cache;
  MLIRContext *context = observed->getContext();
  Operation *terminator = function.getBody().front().getTerminator();
  unsigned modelOutputs = terminator->getNumOperands();
  SmallVector<DictionaryAttr> resultAttributes;
  for (unsigned index = 0; index < modelOutputs; ++index)
    resultAttributes.push_back(function.getResultAttrDict(index));
  for (const graph::Int8Activation &activation : activations) {
    terminator->insertOperands(terminator->getNumOperands(),
                               activation.op->getOperand(activation.operand));
    resultAttributes.push_back(DictionaryAttr::get(
        context, {NamedAttribute(StringAttr::get(context, "graph.name"),
                                 StringAttr::get(context, "calibration " + activation.key))}));
  }
  function.setFunctionType(
      FunctionType::get(context, function.getArgumentTypes(), terminator->getOperandTypes()));
  function.setAllResultAttrs(resultAttributes);
  auto executable = cpu::HostExecutable::compile(*observed);
  if (!executable)
    return executable.takeError();
  std::vector<quant::ActivationHistogram> histograms(activations.size());
  auto samples = runOnCalibrationData(
      **executable, options.dataDir, [&](const std::vector<io::HostTensor> &outputs) {
        for (auto [index, histogram] : llvm::enumerate(histograms)) {
          const io::HostTensor &observedTensor = outputs[modelOutputs + index];
          histogram.observe(
              llvm::ArrayRef(reinterpret_cast<const float *>(observedTensor.data.data()),
                             observedTensor.data.size() / sizeof(float)));
        }
      });
  if (!samples)
    return samples.takeError();
  for (auto [activation, histogram] : llvm::zip(activations, histograms)) {
    quant::TensorCalibration &tensor = cache.tensors[activation.key];
    tensor.amax = histogram.absMax();
    tensor.threshold = quant::calibrationThreshold(histogram, options.method, options.percentile);
  }
  progress(llvm::formatv("calibrated {0} activations on {1} samples ({2})", activations.size(),
                         *samples, quant::calibrationMethodName(options.method)));
  if (!options.cachePath.empty())
    if (llvm::Error error = cache.write(options.cachePath))
      return std::move(error);
  return cache;
}

llvm::Expected<std::vector<LayerSensitivity>>
measureInt8Sensitivity(ModuleOp module, const llvm::StringMap<double> &thresholds,
                       llvm::StringRef dataDir) {
  if (dataDir.empty())
    return makeError("the int8 sensitivity needs calibration data (--calib DIR)");
  OwningOpRef<ModuleOp> probe = module.clone();
  auto function = probe->lookupSymbol<func::FuncOp>("main");
  if (!function)
    return makeError("int8 sensitivity: the graph module has no function 'main'");
  MLIRContext *context = probe->getContext();
  Operation *terminator = function.getBody().front().getTerminator();
  unsigned modelOutputs = terminator->getNumOperands();
  std::vector<LayerSensitivity> layers;
  for (const graph::Int8Activation &activation : graph::findInt8Activations(function)) {
    // Layers are convolutions and products; a shortcut's quantization is no layer.
    if (!thresholds.count(activation.key) || activation.shortcut)
      continue;
    // The twin keeps the op's location (its node, hence its calibration key) and is
    // quantized; the original is renamed out of the calibration and stays f32.
    Operation *reference = activation.op;
    OpBuilder builder(reference->getContext());
    builder.setInsertionPointAfter(reference);
    Operation *twin = builder.clone(*reference);
    reference->setLoc(NameLoc::get(StringAttr::get(context, activation.key + " (f32 reference)")));
    terminator->insertOperands(terminator->getNumOperands(),
                               {reference->getResult(0), twin->getResult(0)});
    layers.push_back({activation.key, 0.0});
  }
  if (layers.empty())
    return layers;
  function.setFunctionType(
      FunctionType::get(context, function.getArgumentTypes(), terminator->getOperandTypes()));
  SmallVector<DictionaryAttr> resultAttributes;
  for (unsigned index = 0; index < modelOutputs; ++index)
    resultAttributes.push_back(function.getResultAttrDict(index));
  for (const LayerSensitivity &layer : layers)
    for (StringRef role : {"reference", "int8"})
      resultAttributes.push_back(DictionaryAttr::get(
          context,
          {NamedAttribute(StringAttr::get(context, "graph.name"),
                          StringAttr::get(context, "sensitivity " + layer.key + " " + role))}));
  function.setAllResultAttrs(resultAttributes);
  graph::quantizeInt8(function, thresholds);
  auto executable = cpu::HostExecutable::compile(*probe);
  if (!executable)
    return executable.takeError();
  std::vector<double> signal(layers.size(), 0.0), noise(layers.size(), 0.0);
  auto samples =
      runOnCalibrationData(**executable, dataDir, [&](const std::vector<io::HostTensor> &outputs) {
        for (size_t layer = 0; layer < layers.size(); ++layer) {
          llvm::ArrayRef<float> reference = floats(outputs[modelOutputs + 2 * layer]);
          llvm::ArrayRef<float> quantized = floats(outputs[modelOutputs + 2 * layer + 1]);
          for (size_t i = 0; i < reference.size() && i < quantized.size(); ++i) {
            double difference = double(reference[i]) - double(quantized[i]);
            signal[layer] += double(reference[i]) * double(reference[i]);
            noise[layer] += difference * difference;
          }
        }
      });
  if (!samples)
    return samples.takeError();
  for (size_t layer = 0; layer < layers.size(); ++layer)
    layers[layer].sqnr = noise[layer] > 0 ? 10.0 * std::log10(signal[layer] / noise[layer])
                                          : std::numeric_limits<double>::infinity();
  return layers;
}

llvm::Expected<Int8Calibration>
calibrateGraphInt8(ModuleOp imported, llvm::StringRef modelPath, const CalibrationOptions &options,
                   llvm::function_ref<void(const llvm::Twine &)> progress) {
  // The graph the quantization pass will see: the imported one after the graph passes.
  OwningOpRef<ModuleOp> module = imported.clone();
  PassManager graphPasses(imported.getContext());
  addGraphPasses(graphPasses);
  if (failed(graphPasses.run(*module)))
    return makeError("--int8: the graph passes failed on the model");
  // A dynamic dimension would leave every layer in f32 without a word.
  for (auto function : module->getOps<func::FuncOp>())
    if (Operation *op = graph::findDynamicInt8Candidate(function)) {
      std::string node = graph::getNodeName(op->getLoc());
      std::string type;
      llvm::raw_string_ostream os(type);
      os << op->getOperand(0).getType();
      return makeError(llvm::formatv("--int8: node '{0}' ({1}) reads an activation of dynamic "
                                     "shape {2}; calibration and the int8 kernels need static "
                                     "shapes: give the inputs' shapes with --shapes",
                                     node, op->getName(), type)
                           .str());
    }
  auto fingerprint = fingerprintModel(modelPath);
  if (!fingerprint)
    return fingerprint.takeError();
  auto cache = calibrateInt8(*module, *fingerprint, options, progress);
  if (!cache)
    return cache.takeError();
  auto thresholds = std::make_shared<llvm::StringMap<double>>();
  for (const auto &[key, tensor] : cache->tensors)
    (*thresholds)[key] = tensor.threshold;
  // Layers that lose too much alone stay in floats (f16 under --fp16).
  Int8Calibration calibration;
  if (options.sensitivityReport || options.minLayerSqnr > 0) {
    auto layers = measureInt8Sensitivity(*module, *thresholds, options.dataDir);
    if (!layers)
      return layers.takeError();
    for (const LayerSensitivity &layer : *layers) {
      bool keep = options.minLayerSqnr > 0 && layer.sqnr < options.minLayerSqnr;
      if (keep) {
        thresholds->erase(layer.key);
        ++calibration.keptInFloat;
      }
      if (options.sensitivityReport)
        llvm::errs() << llvm::formatv("int8 sensitivity: {0,-40} {1,7:F1} dB{2}\n", layer.key,
                                      layer.sqnr, keep ? "  kept in float" : "");
    }
  }
  calibration.thresholds = std::move(thresholds);
  return calibration;
}

std::string describeInt8(int64_t quantized, int64_t shortcuts, int64_t uncalibrated,
                         int64_t keptInFloat, double minLayerSqnr) {
  return llvm::formatv(
             "int8: {0} convolutions and products quantized{1}{2}{3}", quantized,
             shortcuts
                 ? llvm::formatv(", {0} shortcut output{1}", shortcuts, shortcuts == 1 ? "" : "s")
                       .str()
                 : std::string(),
             uncalibrated - keptInFloat ? llvm::formatv(", {0} without calibration left in f32",
                                                        uncalibrated - keptInFloat)
                                              .str()
                                        : std::string(),
             keptInFloat
                 ? llvm::formatv(", {0} below {1} dB kept in float", keptInFloat, minLayerSqnr)
                       .str()
                 : std::string())
      .str();
}

} // namespace kiln
