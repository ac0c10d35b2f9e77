//===- Run.cpp - `kiln run`: execute a model on inputs --------------------===//
//
// Loads the inputs (.npy or ONNX TensorProto .pb, by name or from an ONNX test-case
// folder), compiles the ONNX model for the device with the inputs' shapes, runs it,
// and compares the outputs with expected ones or writes them out. Engines (.kiln) run on
// the GPU through the runtime (RunEngine.cpp), with the same binding and reporting.
//
//===----------------------------------------------------------------------===//

#include "tools/kiln/Run.h"
#include "tools/kiln/RunCommon.h"

#include "kiln/Version.h"
#include "lib/cpu/HostExecutable.h"
#include "lib/init/Registration.h"
#include "lib/io/TensorFiles.h"
#include "lib/onnx/Importer.h"
#include "lib/pipeline/Compiler.h"
#include "lib/pipeline/GpuCompiler.h"
#include "lib/pipeline/Progress.h"
#include "passes/Pipelines.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

using namespace llvm;

namespace kiln::tool {

namespace {

raw_ostream &error() { return runError(); }

/// Tensors given for a list of names: by `NAME=FILE`, by position (bare FILE), or from a
/// folder holding `input_K.pb` / `output_K.pb` (ONNX test case) or `NAME.npy` files.
class TensorBinding {
public:
  TensorBinding(std::vector<std::string> names, StringRef role)
      : names(std::move(names)), role(role) {}

  /// Binds `NAME=FILE` or positional `FILE` arguments.
  Error bindArguments(ArrayRef<std::string> arguments) {
    size_t position = 0;
    for (const std::string &argument : arguments) {
      auto [name, file] = StringRef(argument).split('=');
      if (file.empty()) {
        file = name;
        if (position >= names.size())
          return makeError("more " + role + " files than the model has " + role + "s");
        name = names[position];
      }
      ++position;
      if (Error error = bind(name, file))
        return error;
    }
    return Error::success();
  }

  /// Binds the files of folder `dir`: `<prefix>_K.pb` by the TensorProto's name when it
  /// names one of ours, else by position K; `NAME.npy` by name.
  Error bindFolder(StringRef dir, StringRef prefix) {
    if (!sys::fs::is_directory(dir))
      return makeError("'" + dir + "' is not a folder");
    for (size_t index = 0;; ++index) {
      SmallString<256> path(dir);
      sys::path::append(path, formatv("{0}_{1}.pb", prefix, index).str());
      if (!sys::fs::exists(path))
        break;
      auto tensor = io::readTensorProto(path);
      if (!tensor)
        return tensor.takeError();
      std::string name = tensor->name;
      if (!llvm::is_contained(names, name)) {
        if (index >= names.size())
          return makeError("'" + path + "': the model has only " + Twine(names.size()) + " " +
                           role + "s");
        name = names[index];
      }
      bound[name] = std::move(*tensor);
    }
    for (const std::string &name : names) {
      if (bound.count(name))
        continue;
      SmallString<256> path(dir);
      sys::path::append(path, sanitize(name) + ".npy");
      if (sys::fs::exists(path))
        if (Error error = bind(name, path))
          return error;
    }
    return Error::success();
  }

  /// The tensors in the order of `names`; an error naming those missing when `required`.
  Expected<std::vector<io::HostTensor>> take(bool required) {
    std::vector<io::HostTensor> tensors;
    std::vector<std::string> missing;
    for (const std::string &name : names) {
      auto found = bound.find(name);
      if (found == bound.end()) {
        missing.push_back("'" + name + "'");
        tensors.emplace_back();
        continue;
      }
      tensors.push_back(std::move(found->second));
    }
    if (required && !missing.empty())
      return makeError("no " + role + " given for " + join(missing, ", "));
    return tensors;
  }

  bool has(StringRef name) const { return bound.count(name.str()); }

  /// `name` with characters unsafe in file names replaced by '_'.
  static std::string sanitize(StringRef name) {
    std::string safe = name.str();
    for (char &c : safe)
      if (!isAlnum(c) && c != '_' && c != '.' && c != '-')
        c = '_';
    return safe;
  }

private:
  static Error makeError(const Twine &message) {
    return createStringError(inconvertibleErrorCode(), message);
  }

  Error bind(StringRef name, StringRef file) {
    if (!llvm::is_contained(names, name))
      return makeError("the model has no " + role + " named '" + name + "'");
    auto tensor = io::readTensorFile(file);
    if (!tensor)
      return tensor.takeError();
    bound[name.str()] = std::move(*tensor);
    return Error::success();
  }

  std::vector<std::string> names;
  std::string role;
  std::map<std::string, io::HostTensor> bound;
};

/// IEEE half and bfloat16 bits as floats.
float halfToFloat(uint16_t bits) {
  uint32_t sign = (bits & 0x8000u) << 16, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  uint32_t result;
  if (exponent == 0) {
    if (mantissa == 0) {
      result = sign;
    } else { // subnormal: normalise
      exponent = 127 - 15 + 1;
      while (!(mantissa & 0x400)) {
        mantissa <<= 1;
        --exponent;
      }
      result = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
    }
  } else if (exponent == 0x1f) {
    result = sign | 0x7f800000u | (mantissa << 13);
  } else {
    result = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &result, sizeof(value));
  return value;
}

/// Element `index` of `tensor` as a double.
double elementAt(const io::HostTensor &tensor, int64_t index) {
  const char *data = tensor.data.data();
  auto load = [&](auto zero) {
    decltype(zero) value;
    std::memcpy(&value, data + index * sizeof(value), sizeof(value));
    return static_cast<double>(value);
  };
  switch (tensor.type) {
  case io::ElementType::Bool:
    return data[index] != 0;
  case io::ElementType::I8:
    return load(int8_t());
  case io::ElementType::I16:
    return load(int16_t());
  case io::ElementType::I32:
    return load(int32_t());
  case io::ElementType::I64:
    return load(int64_t());
  case io::ElementType::U8:
    return load(uint8_t());
  case io::ElementType::U16:
    return load(uint16_t());
  case io::ElementType::U32:
    return load(uint32_t());
  case io::ElementType::U64:
    return load(uint64_t());
  case io::ElementType::F16: {
    uint16_t bits;
    std::memcpy(&bits, data + index * 2, 2);
    return halfToFloat(bits);
  }
  case io::ElementType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, data + index * 2, 2);
    uint32_t wide = static_cast<uint32_t>(bits) << 16;
    float value;
    std::memcpy(&value, &wide, sizeof(value));
    return value;
  }
  case io::ElementType::F32:
    return load(float());
  case io::ElementType::F64:
    return load(double());
  }
  return 0;
}

} // namespace

int64_t countNonFinite(const io::HostTensor &tensor) {
  if (tensor.type != io::ElementType::F16 && tensor.type != io::ElementType::BF16 &&
      tensor.type != io::ElementType::F32 && tensor.type != io::ElementType::F64)
    return 0;
  int64_t count = 0;
  for (int64_t index = 0, end = tensor.numElements(); index < end; ++index)
    count += !std::isfinite(elementAt(tensor, index));
  return count;
}

namespace {

/// NumPy has no bfloat16: bf16 data is stored as uint16 bits (the ONNX test data does
/// this), so a u16 file given for a bf16 tensor is read as bf16.
void reinterpretBfloat16(io::HostTensor &tensor, io::ElementType wanted) {
  if (wanted == io::ElementType::BF16 && tensor.type == io::ElementType::U16)
    tensor.type = io::ElementType::BF16;
}

std::string describe(const io::HostTensor &tensor) {
  std::string shape;
  for (auto [index, extent] : llvm::enumerate(tensor.shape))
    shape += (index ? "x" : "") + std::to_string(extent);
  return (io::name(tensor.type) + "[" + shape + "]").str();
}

/// Compares `actual` with `expected` as numpy.allclose does (|a - e| <= atol + rtol * |e|,
/// NaN equal to NaN) and prints one line; returns whether they match.
bool compareOutput(const io::HostTensor &actual, const io::HostTensor &expected, double rtol,
                   double atol) {
  outs() << "output '" << actual.name << "' " << describe(actual) << ": ";
  if (actual.shape != expected.shape) {
    outs() << "MISMATCH: expected shape " << describe(expected) << "\n";
    return false;
  }
  double maxAbs = 0, maxRel = 0;
  int64_t mismatches = 0, firstMismatch = -1;
  for (int64_t index = 0, count = actual.numElements(); index < count; ++index) {
    double a = elementAt(actual, index), e = elementAt(expected, index);
    if (std::isnan(a) || std::isnan(e)) {
      if (std::isnan(a) != std::isnan(e) && mismatches++ == 0)
        firstMismatch = index;
      continue;
    }
    if (std::isinf(a) || std::isinf(e)) {
      if (a != e && mismatches++ == 0)
        firstMismatch = index;
      continue;
    }
    double difference = std::fabs(a - e);
    maxAbs = std::max(maxAbs, difference);
    if (e != 0)
      maxRel = std::max(maxRel, difference / std::fabs(e));
    if (difference > atol + rtol * std::fabs(e) && mismatches++ == 0)
      firstMismatch = index;
  }
  outs() << formatv("max abs err {0:e2}, max rel err {1:e2}", maxAbs, maxRel);
  if (mismatches == 0) {
    outs() << " ok\n";
    return true;
  }
  auto number = [](double value) {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", value);
    return std::string(text);
  };
  outs() << formatv(" MISMATCH: {0} of {1} elements beyond rtol {2} atol {3}; first at flat "
                    "index {4}: got {5}, expected {6}\n",
                    mismatches, actual.numElements(), number(rtol), number(atol), firstMismatch,
                    number(elementAt(actual, firstMismatch)),
                    number(elementAt(expected, firstMismatch)));
  return false;
}

} // namespace

/// Whether every value in `module` has a static shape (so the GPU path can compile it).
static bool isStaticallyShaped(mlir::ModuleOp module) {
  bool isStatic = true;
  module.walk([&](mlir::Operation *op) {
    for (mlir::Type type : op->getResultTypes())
      if (auto shaped = mlir::dyn_cast<mlir::ShapedType>(type); shaped && !shaped.hasStaticShape())
        isStatic = false;
  });
  return isStatic;
}

raw_ostream &runError() { return WithColor::error(errs(), "kiln run"); }

RunOptions perRunOptions(const RunOptions &options, size_t run) {
  RunOptions result = options;
  if (options.inputsDirs.size() <= 1)
    return result;
  result.inputsDir = options.inputsDirs[run];
  if (!options.outputDir.empty()) {
    SmallString<256> path(options.outputDir);
    sys::path::append(path, std::to_string(run));
    result.outputDir = path.str().str();
  }
  return result;
}

int bindRunTensors(const RunOptions &options, const std::vector<TensorSpec> &inputSpecs,
                   const std::vector<TensorSpec> &outputSpecs, BoundTensors &bound) {
  std::vector<std::string> inputNames, outputNames;
  for (const TensorSpec &input : inputSpecs)
    inputNames.push_back(input.name);
  for (const TensorSpec &output : outputSpecs)
    outputNames.push_back(output.name);
  TensorBinding inputBinding(inputNames, "input");
  if (!options.inputsDir.empty())
    if (Error err = inputBinding.bindFolder(options.inputsDir, "input")) {
      error() << toString(std::move(err)) << "\n";
      return RunBadInput;
    }
  if (Error err = inputBinding.bindArguments(options.inputs)) {
    error() << toString(std::move(err)) << "\n";
    return RunBadInput;
  }
  auto inputs = inputBinding.take(/*required=*/true);
  if (!inputs) {
    error() << toString(inputs.takeError()) << "\n";
    return RunBadInput;
  }
  bool expecting = !options.expectDir.empty() || !options.expects.empty();
  TensorBinding expectBinding(outputNames, "output");
  if (!options.expectDir.empty())
    if (Error err = expectBinding.bindFolder(options.expectDir, "output")) {
      error() << toString(std::move(err)) << "\n";
      return RunBadInput;
    }
  if (Error err = expectBinding.bindArguments(options.expects)) {
    error() << toString(std::move(err)) << "\n";
    return RunBadInput;
  }
  bound.hasExpected.clear();
  for (const std::string &name : outputNames)
    bound.hasExpected.push_back(expectBinding.has(name));
  auto expected = expectBinding.take(/*required=*/false);
  if (!expected) {
    error() << toString(expected.takeError()) << "\n";
    return RunBadInput;
  }
  for (auto [tensor, output] : llvm::zip_equal(*expected, outputSpecs))
    reinterpretBfloat16(tensor, output.type);
  if (expecting && llvm::none_of(bound.hasExpected, [](bool has) { return has; })) {
    error() << "no expected output found for any of the model's outputs\n";
    return RunBadInput;
  }
  for (auto [input, spec] : llvm::zip_equal(*inputs, inputSpecs)) {
    reinterpretBfloat16(input, spec.type);
    if (input.type != spec.type) {
      error() << "input '" << spec.name << "': the model expects " << io::name(spec.type)
              << ", the file holds " << io::name(input.type) << "\n";
      return RunBadInput;
    }
  }
  bound.inputs = std::move(*inputs);
  bound.expected = std::move(*expected);
  return RunSucceeded;
}

int reportRunOutputs(const RunOptions &options, const std::vector<io::HostTensor> &outputs,
                     const BoundTensors &bound) {
  bool allMatch = true;
  for (auto [index, output] : llvm::enumerate(outputs)) {
    if (bound.hasExpected[index]) {
      allMatch &= compareOutput(output, bound.expected[index], options.rtol, options.atol);
    } else {
      outs() << "output '" << output.name << "' " << describe(output) << "\n";
    }
  }
  if (!options.outputDir.empty()) {
    if (std::error_code ec = sys::fs::create_directories(options.outputDir)) {
      error() << "cannot create '" << options.outputDir << "': " << ec.message() << "\n";
      return RunBadInput;
    }
    for (const io::HostTensor &output : outputs) {
      SmallString<256> path(options.outputDir);
      sys::path::append(path, TensorBinding::sanitize(output.name) + ".npy");
      if (Error err = io::writeNpy(path, output)) {
        error() << toString(std::move(err)) << "\n";
        return RunFailed;
      }
    }
  }
  return allMatch ? RunSucceeded : RunMismatch;
}

/// Whether an output with an expected tensor holds NaN or Inf where the expected one
/// holds none.
static bool wentNonFinite(const std::vector<io::HostTensor> &outputs, const BoundTensors &bound) {
  for (auto [index, output] : llvm::enumerate(outputs))
    if (index < bound.hasExpected.size() && bound.hasExpected[index] &&
        countNonFinite(output) > 0 && countNonFinite(bound.expected[index]) == 0)
      return true;
  return false;
}

int runModel(const RunOptions &options) {
  Progress progress(options.quiet);
  bool isEngine = StringRef(options.model).ends_with(".kiln");
  std::string device = options.device.empty() ? (isEngine ? "cuda" : "cpu") : options.device;
  if (device != "cpu" && device != "cuda") {
    error() << "unknown device '" << device << "' for --device; one of cpu, cuda\n";
    return RunBadInput;
  }
  if (isEngine) {
    if (device != "cuda") {
      error() << "'" << options.model
              << "': an engine runs on the GPU (--device cuda); for the CPU, run the ONNX "
                 "model\n";
      return RunBadInput;
    }
    RunOptions engineOptions = options;
    engineOptions.device = device;
    return runEngineFile(engineOptions);
  }
  // .onnxtxt: the protobuf text format the importer also reads (the lit tests' models).
  if (!StringRef(options.model).ends_with(".onnx") &&
      !StringRef(options.model).ends_with(".onnxtxt")) {
    error() << "'" << options.model << "': kiln run takes an ONNX model (.onnx or .onnxtxt) or an "
            << "engine (.kiln)\n";
    return RunBadInput;
  }
  mlir::DialectRegistry registry;
  kiln::registerDialects(registry);
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  bool unsupported = false;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diagnostic) {
    std::string message = diagnostic.str();
    if (diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error &&
        (message.find("not supported") != std::string::npos ||
         message.find("unsupported") != std::string::npos))
      unsupported = true;
    printDiagnostic(diagnostic);
    return mlir::success();
  });
  auto failedWith = [&]() { return unsupported ? RunUnsupported : RunFailed; };
  // The graph stage as kiln compile runs it: INT8 calibrated on the host first.
  CompileOptions graphOptions;
  graphOptions.precision = options.precision;
  graphOptions.channelsLast = options.channelsLast;
  graphOptions.calibration = options.calibration;
  graphOptions.foldLayerNorms = options.foldLayerNorms;
  GraphReports graphReports;
  auto calibrate = [&](mlir::ModuleOp imported) -> mlir::LogicalResult {
    if (!options.int8)
      return mlir::success();
    llvm::Expected<Int8Calibration> calibration =
        calibrateGraphInt8(imported, options.model, options.calibration,
                           [&](const llvm::Twine &line) { progress.step(line); });
    if (!calibration) {
      error() << toString(calibration.takeError()) << "\n";
      return mlir::failure();
    }
    graphReports.int8 = std::move(*calibration);
    return mlir::success();
  };

  mlir::OwningOpRef<mlir::ModuleOp> module = onnx::importModelFile(context, options.model);
  if (!module)
    return failedWith();
  auto function = module->lookupSymbol<mlir::func::FuncOp>("main");
  auto signature = cpu::getSignature(function);
  if (!signature) {
    error() << toString(signature.takeError()) << "\n";
    return RunUnsupported;
  }
  progress.step("imported " + options.model);

  std::vector<TensorSpec> inputSpecs, outputSpecs;
  for (const cpu::TensorSignature &input : signature->first)
    inputSpecs.push_back({input.name, input.type});
  for (const cpu::TensorSignature &output : signature->second)
    outputSpecs.push_back({output.name, output.type});
  BoundTensors bound;
  if (int status = bindRunTensors(options, inputSpecs, outputSpecs, bound))
    return status;

  // Compile for these input shapes, or for the profile's range (then the inputs must fit
  // it: every extent between the profile's min and max).
  std::vector<std::pair<std::string, SmallVector<int64_t>>> shapes;
  for (auto [input, spec] : llvm::zip_equal(bound.inputs, inputSpecs))
    shapes.emplace_back(spec.name, input.shape);
  bool profile =
      !options.minShapes.empty() || !options.optShapes.empty() || !options.maxShapes.empty();
  if (options.inputsDirs.size() > 1 && !profile) {
    error() << "several --inputs-dir are runs of one compilation: give the profile it is "
               "for (--min-shapes, --opt-shapes, --max-shapes)\n";
    return RunBadInput;
  }
  if (profile) {
    CompileOptions compile;
    compile.minShapes = options.minShapes;
    compile.optShapes = options.optShapes;
    compile.maxShapes = options.maxShapes;
    mlir::FailureOr<ResolvedShapes> resolved = resolveInputShapes(context, compile);
    if (mlir::failed(resolved))
      return RunBadInput;
    for (const InputProfile &input : resolved->profile)
      for (const auto &[name, shape] : shapes) {
        if (name != input.name)
          continue;
        for (size_t dim = 0; dim < shape.size() && dim < input.max.size(); ++dim)
          if (shape[dim] < input.min[dim] || shape[dim] > input.max[dim]) {
            error() << "input '" << name << "' dimension " << dim << " is " << shape[dim]
                    << "; the profile allows " << input.min[dim] << " to " << input.max[dim]
                    << "\n";
            return RunBadInput;
          }
        if (shape.size() != input.max.size()) {
          error() << "input '" << name << "' has rank " << shape.size() << "; the profile's is "
                  << input.max.size() << "\n";
          return RunBadInput;
        }
      }
    if (mlir::failed(specializeInputShapes(function, resolved->shapes)))
      return RunBadInput;
    annotateProfile(function, resolved->profile);
  } else if (mlir::failed(specializeInputShapes(function, shapes))) {
    return RunBadInput;
  }

  // A reduced-precision run that goes non-finite where the expected outputs are finite
  // says which node did first (LocateNonFinite.cpp): the model is compiled twice more with
  // every float value an output, as this run compiles it and in f32 on the CPU.
  bool reducedPrecision = (options.precision == "fp16" || options.precision == "bf16") &&
                          !options.int8 && llvm::is_contained(bound.hasExpected, true);
  auto runMarkedOnCpu = [&](mlir::ModuleOp pristine, const CompileOptions &precision,
                            const std::vector<io::HostTensor> &inputs,
                            std::vector<io::HostTensor> &outputs) -> bool {
    mlir::OwningOpRef<mlir::ModuleOp> marked = pristine.clone();
    mlir::PassManager stage(&context);
    addGraphStage(stage, GraphReports().stageOptions(precision));
    if (mlir::failed(stage.run(*marked)))
      return false;
    markFloatValues(*marked);
    auto executable = cpu::HostExecutable::compile(*marked);
    if (!executable) {
      error() << toString(executable.takeError()) << "\n";
      return false;
    }
    auto result = (*executable)->run(inputs);
    if (!result) {
      error() << toString(result.takeError()) << "\n";
      return false;
    }
    outputs = std::move(*result);
    return true;
  };
  auto locateNonFinite = [&](mlir::ModuleOp pristine, const std::vector<io::HostTensor> &inputs,
                             llvm::function_ref<bool(std::vector<io::HostTensor> &)> runReduced) {
    progress.step("locating the first non-finite value: the model with every value an output");
    std::vector<io::HostTensor> reduced, reference;
    CompileOptions fp32 = graphOptions;
    fp32.precision = "fp32";
    if (!runReduced(reduced) || !runMarkedOnCpu(pristine, fp32, inputs, reference))
      return;
    reportFirstNonFinite(reduced, reference, bound.expected.size(), options.precision);
  };

  if (device == "cuda") {
    // The model is compiled for these inputs: integer inputs that decide shapes (ONNX
    // shape tensors) are compiled in when leaving them as inputs leaves shapes dynamic.
    std::vector<std::pair<std::string, mlir::ElementsAttr>> values;
    for (auto [input, spec, argument] :
         llvm::zip_equal(bound.inputs, inputSpecs, function.getArgumentTypes())) {
      auto type = mlir::dyn_cast<mlir::RankedTensorType>(argument);
      if (!type || !mlir::isa<mlir::IntegerType>(type.getElementType()) ||
          type.getElementType().isInteger(1))
        continue;
      auto value = mlir::DenseElementsAttr::getFromRawBuffer(
          type, ArrayRef<char>(input.data.data(), input.data.size()));
      values.emplace_back(spec.name, mlir::cast<mlir::ElementsAttr>(value));
    }
    mlir::OwningOpRef<mlir::ModuleOp> trial = module->clone();
    mlir::PassManager trialPasses(&context);
    addGraphPasses(trialPasses);
    bool staticShapes = mlir::succeeded(trialPasses.run(*trial)) && isStaticallyShaped(*trial);
    if (!staticShapes && !profile && bindShapeTensorInputs(function, values) > 0)
      progress.step("compiled in the values of shape-deciding integer inputs");
    mlir::OwningOpRef<mlir::ModuleOp> pristine;
    if (reducedPrecision)
      pristine = module->clone();
    if (mlir::failed(calibrate(*module)))
      return failedWith();
    GpuCompileOptions gpu;
    gpu.pipeline.graph = graphReports.stageOptions(graphOptions);
    gpu.pipeline.templates.allowTf32 = options.allowTf32;
    gpu.progress = [&](const std::string &line) { progress.step(line); };
    gpu.configure = configurePassManager;
    gpu.observe = [&](mlir::ModuleOp, PipelinePoint point) {
      if (point == PipelinePoint::GraphDone)
        graphReports.print(graphOptions, progress);
    };
    engine::Engine compiled;
    if (mlir::failed(compileForGpu(*module, gpu, compiled)))
      return failedWith();
    compiled.compilerVersion = KILN_VERSION_STRING;
    compiled.modelName = sys::path::filename(options.model).str();
    int status = RunSucceeded;
    // The first run's tensors, bound to the engine's inputs (shape-deciding ones compiled
    // in are not among them), for locating a value that went non-finite.
    EngineRun first;
    for (size_t run = 0; run < std::max<size_t>(options.inputsDirs.size(), 1); ++run) {
      RunOptions engineOptions = perRunOptions(options, run);
      engineOptions.device = device;
      int runStatus =
          runEngineOnDevice(engineOptions, compiled, options.model, run == 0 ? &first : nullptr);
      if (run == 0 && runStatus != RunMismatch)
        first = EngineRun();
      status = std::max(status, runStatus);
    }
    RunOptions quiet = options;
    quiet.quiet = true;
    if (pristine && !first.outputs.empty() && wentNonFinite(first.outputs, first.bound))
      locateNonFinite(*pristine, first.bound.inputs, [&](std::vector<io::HostTensor> &reduced) {
        mlir::OwningOpRef<mlir::ModuleOp> marked = pristine->clone();
        GpuCompileOptions markedOptions = gpu;
        markedOptions.observe = [](mlir::ModuleOp observed, PipelinePoint point) {
          if (point == PipelinePoint::GraphDone)
            markFloatValues(observed);
        };
        engine::Engine markedEngine;
        return mlir::succeeded(compileForGpu(*marked, markedOptions, markedEngine)) &&
               runEngineOutputs(quiet, std::move(markedEngine), options.model, first.bound.inputs,
                                reduced) == RunSucceeded;
      });
    return status;
  }

  mlir::OwningOpRef<mlir::ModuleOp> pristine;
  if (reducedPrecision)
    pristine = module->clone();
  if (mlir::failed(calibrate(*module)))
    return failedWith();
  mlir::PassManager graphStage(&context);
  addGraphStage(graphStage, graphReports.stageOptions(graphOptions));
  if (mlir::failed(configurePassManager(graphStage)) || mlir::failed(graphStage.run(*module)))
    return failedWith();
  graphReports.print(graphOptions, progress);
  auto executable = cpu::HostExecutable::compile(*module);
  if (!executable) {
    std::string message = toString(executable.takeError());
    if (!unsupported)
      error() << message << "\n";
    return failedWith();
  }
  progress.step("compiled for the CPU");

  // One run, or one per folder of inputs (--inputs-dir given several times).
  int status = RunSucceeded;
  for (size_t run = 0; run < std::max<size_t>(options.inputsDirs.size(), 1); ++run) {
    RunOptions runOptions = perRunOptions(options, run);
    if (run > 0)
      if (int bad = bindRunTensors(runOptions, inputSpecs, outputSpecs, bound))
        return bad;
    auto outputs = (*executable)->run(bound.inputs);
    if (!outputs) {
      error() << toString(outputs.takeError()) << "\n";
      return RunFailed;
    }
    progress.step("ran" + (options.inputsDirs.size() > 1 ? " " + runOptions.inputsDir : ""));
    int runStatus = reportRunOutputs(runOptions, *outputs, bound);
    if (run == 0 && pristine && runStatus == RunMismatch && wentNonFinite(*outputs, bound))
      locateNonFinite(*pristine, bound.inputs, [&](std::vector<io::HostTensor> &reduced) {
        return runMarkedOnCpu(*pristine, graphOptions, bound.inputs, reduced);
      });
    status = std::max(status, runStatus);
  }
  return status;
}

void registerPassManagerOptions(ArrayRef<cl::SubCommand *> subcommands) {
  // --mlir-print-ir-after=PASS and friends name passes by their registered argument.
  kiln::registerPasses();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerAsmPrinterCLOptions();
  // MLIR registers them for no subcommand; the commands that run passes take them.
  SmallVector<cl::Option *> options;
  for (auto &entry : cl::getRegisteredOptions(cl::SubCommand::getTopLevel()))
    if (entry.first.starts_with("mlir-"))
      options.push_back(entry.second);
  for (cl::Option *option : options) {
    option->removeArgument();
    for (cl::SubCommand *subcommand : subcommands)
      option->addSubCommand(*subcommand);
    option->addArgument();
  }
}

mlir::LogicalResult configurePassManager(mlir::PassManager &pm) {
  if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
    return mlir::failure();
  mlir::applyDefaultTimingPassManagerCLOptions(pm);
  return mlir::success();
}

} // namespace kiln::tool
