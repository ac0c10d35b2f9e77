//===- HostExecutable.cpp - Run a compiled graph on the host CPU ----------===//
//
// Calling convention: every public function gets a C interface,
// `_mlir_ciface_<name>(Results *results, Descriptor *input0, Descriptor *input1, ...)`,
// where a memref descriptor of rank R is R-independent words
// `{allocated, aligned, offset}` followed by `sizes[R]` and `strides[R]` (all 64-bit, so
// a struct of several descriptors has no padding). The results are memrefs the function
// allocated and hands over (ownership-based deallocation guarantees that): they are
// copied into host tensors and freed.
//
//===----------------------------------------------------------------------===//

#include "lib/cpu/HostExecutable.h"

#include "passes/Pipelines.h"
#include "passes/graph/ConstantEvaluator.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;

namespace kiln::cpu {

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::optional<io::ElementType> elementTypeOf(Type type) {
  if (type.isF32())
    return io::ElementType::F32;
  if (type.isF64())
    return io::ElementType::F64;
  if (type.isF16())
    return io::ElementType::F16;
  if (type.isBF16())
    return io::ElementType::BF16;
  if (type.isInteger(1))
    return io::ElementType::Bool;
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer)
    return std::nullopt;
  bool isUnsigned = integer.isUnsigned();
  switch (integer.getWidth()) {
  case 8:
    return isUnsigned ? io::ElementType::U8 : io::ElementType::I8;
  case 16:
    return isUnsigned ? io::ElementType::U16 : io::ElementType::I16;
  case 32:
    return isUnsigned ? io::ElementType::U32 : io::ElementType::I32;
  case 64:
    return isUnsigned ? io::ElementType::U64 : io::ElementType::I64;
  default:
    return std::nullopt;
  }
}

std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleave(
      shape, os,
      [&](int64_t extent) {
        if (ShapedType::isDynamic(extent))
          os << "?";
        else
          os << extent;
      },
      "x");
  os << "]";
  return text;
}

llvm::Expected<TensorSignature> signatureOf(Type type, DictionaryAttr attributes,
                                            const llvm::Twine &what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return makeError(what + " has an unranked type; the CPU path needs a rank");
  std::optional<io::ElementType> elementType = elementTypeOf(tensor.getElementType());
  if (!elementType)
    return makeError(what + " has element type " +
                     llvm::formatv("{0}", tensor.getElementType()).str() +
                     ", which is not supported on the CPU path");
  TensorSignature signature;
  if (attributes)
    if (auto name = attributes.getAs<StringAttr>("graph.name"))
      signature.name = name.str();
  if (signature.name.empty())
    signature.name = what.str();
  signature.type = *elementType;
  signature.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  return signature;
}

/// Words of the memref descriptor of `rank`: allocated, aligned, offset, sizes, strides.
size_t descriptorWords(size_t rank) { return 3 + 2 * rank; }

/// Copies the elements a strided memref descriptor describes into `out` (row-major).
void copyStrided(const char *base, llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> strides,
                 size_t elementBytes, char *out) {
  int64_t count = 1;
  for (int64_t size : sizes)
    count *= size;
  if (count == 0)
    return;
  size_t rank = sizes.size();
  llvm::SmallVector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t offset = 0;
    for (size_t dim = 0; dim < rank; ++dim)
      offset += index[dim] * strides[dim];
    std::memcpy(out + linear * elementBytes, base + offset * elementBytes, elementBytes);
    for (size_t dim = rank; dim-- > 0;) {
      if (++index[dim] < sizes[dim])
        break;
      index[dim] = 0;
    }
  }
}

} // namespace

llvm::Expected<std::pair<std::vector<TensorSignature>, std::vector<TensorSignature>>>
getSignature(func::FuncOp function) {
  std::vector<TensorSignature> inputs, outputs;
  FunctionType type = function.getFunctionType();
  for (auto [index, argumentType] : llvm::enumerate(type.getInputs())) {
    auto signature = signatureOf(argumentType, function.getArgAttrDict(index),
                                 "input " + llvm::Twine(index));
    if (!signature)
      return signature.takeError();
    inputs.push_back(std::move(*signature));
  }
  for (auto [index, resultType] : llvm::enumerate(type.getResults())) {
    auto signature = signatureOf(resultType, function.getResultAttrDict(index),
                                 "output " + llvm::Twine(index));
    if (!signature)
      return signature.takeError();
    outputs.push_back(std::move(*signature));
  }
  return std::make_pair(std::move(inputs), std::move(outputs));
}

HostExecutable::~HostExecutable() = default;

llvm::Expected<std::unique_ptr<HostExecutable>>
HostExecutable::compile(ModuleOp module, llvm::StringRef entry,
                        const HostCompileOptions &options) {
  auto function = module.lookupSymbol<func::FuncOp>(entry);
  if (!function)
    return makeError("the module has no function '" + entry + "'");
  auto signature = getSignature(function);
  if (!signature)
    return signature.takeError();

  // The signature is captured: the graph's names go (LLVM would not know them), and the
  // caller's input buffers become read-only, so bufferization copies before writing.
  MLIRContext *context = module.getContext();
  for (unsigned index = 0; index < function.getNumArguments(); ++index)
    function.setArgAttrs(index, {NamedAttribute(StringAttr::get(context, "bufferization.writable"),
                                                BoolAttr::get(context, false))});
  for (unsigned index = 0; index < function.getNumResults(); ++index)
    function.setResultAttrs(index, ArrayRef<NamedAttribute>{});

  PassManager pm(context);
  addCpuLoweringPasses(pm);
  if (failed(pm.run(module)))
    return makeError("lowering to the CPU failed (see the errors above)");

  static bool targetInitialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetInitialized;

  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder)
    return machineBuilder.takeError();
  auto targetMachine = machineBuilder->createTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();
  auto transformer = makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0,
                                               targetMachine->get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(options.optLevel);
  engineOptions.enableGDBNotificationListener = false;
  engineOptions.enablePerfNotificationListener = false;
  engineOptions.enableObjectDump = true;
  auto engine = ExecutionEngine::create(module, engineOptions, std::move(*targetMachine));
  if (!engine)
    return engine.takeError();

  std::unique_ptr<HostExecutable> executable(new HostExecutable());
  executable->engine = std::move(*engine);
  executable->entry = entry.str();
  executable->inputSignature = std::move(signature->first);
  executable->outputSignature = std::move(signature->second);
  return executable;
}

llvm::Error HostExecutable::writeObjectFile(llvm::StringRef path) {
  engine->dumpToObjectFile(path);
  if (!llvm::sys::fs::exists(path))
    return makeError("could not write '" + path + "'");
  return llvm::Error::success();
}

llvm::Expected<std::vector<io::HostTensor>>
HostExecutable::run(llvm::ArrayRef<io::HostTensor> inputs) {
  if (inputs.size() != inputSignature.size())
    return makeError(llvm::formatv("the model has {0} inputs but {1} were given",
                                   inputSignature.size(), inputs.size()));
  // One descriptor per input, pointing at the host tensor's data (not written: the
  // arguments were marked read-only for bufferization).
  std::vector<std::vector<int64_t>> descriptors;
  for (auto [input, expected] : llvm::zip_equal(inputs, inputSignature)) {
    if (input.type != expected.type || input.shape.size() != expected.shape.size())
      return makeError("input '" + expected.name + "' does not match the compiled signature");
    for (auto [given, compiled] : llvm::zip_equal(input.shape, expected.shape))
      if (!ShapedType::isDynamic(compiled) && given != compiled)
        return makeError("input '" + expected.name + "' has shape " +
                         shapeString(input.shape) + ", compiled for " +
                         shapeString(expected.shape));
    std::vector<int64_t> words;
    auto data = reinterpret_cast<int64_t>(input.data.data());
    words.push_back(data);
    words.push_back(data);
    words.push_back(0);
    words.insert(words.end(), input.shape.begin(), input.shape.end());
    int64_t stride = 1;
    std::vector<int64_t> strides(input.shape.size());
    for (size_t dim = input.shape.size(); dim-- > 0;) {
      strides[dim] = stride;
      stride *= input.shape[dim];
    }
    words.insert(words.end(), strides.begin(), strides.end());
    descriptors.push_back(std::move(words));
  }

  size_t resultWords = 0;
  for (const TensorSignature &output : outputSignature)
    resultWords += descriptorWords(output.shape.size());
  std::vector<int64_t> results(resultWords, 0);

  void *resultPointer = results.data();
  std::vector<void *> descriptorPointers;
  for (auto &words : descriptors)
    descriptorPointers.push_back(words.data());
  llvm::SmallVector<void *> arguments;
  if (!outputSignature.empty())
    arguments.push_back(&resultPointer);
  for (void *&pointer : descriptorPointers)
    arguments.push_back(&pointer);
  if (llvm::Error error = engine->invokePacked("_mlir_ciface_" + entry, arguments))
    return std::move(error);

  std::vector<io::HostTensor> outputs;
  llvm::DenseSet<int64_t> toFree;
  size_t word = 0;
  for (const TensorSignature &output : outputSignature) {
    size_t rank = output.shape.size();
    int64_t allocated = results[word];
    int64_t aligned = results[word + 1];
    int64_t offset = results[word + 2];
    llvm::ArrayRef<int64_t> sizes(&results[word + 3], rank);
    llvm::ArrayRef<int64_t> strides(&results[word + 3 + rank], rank);
    word += descriptorWords(rank);

    io::HostTensor tensor;
    tensor.name = output.name;
    tensor.type = output.type;
    tensor.shape.assign(sizes.begin(), sizes.end());
    size_t elementBytes = io::byteWidth(output.type);
    tensor.data.resize(tensor.numElements() * elementBytes);
    copyStrided(reinterpret_cast<const char *>(aligned) + offset * elementBytes, sizes, strides,
                elementBytes, tensor.data.data());
    if (allocated)
      toFree.insert(allocated);
    outputs.push_back(std::move(tensor));
  }
  // Only once every output is copied: two outputs may share one buffer.
  for (int64_t allocated : toFree)
    std::free(reinterpret_cast<void *>(allocated));
  return outputs;
}

/// `tensor` as an attribute of `type` (a graph tensor type of the same shape): inline
/// when small, a resource blob otherwise (as the importer does with weights).
static ElementsAttr toAttribute(const io::HostTensor &tensor, RankedTensorType type) {
  if (type.getElementType().isInteger(1)) {
    SmallVector<bool> values;
    for (char byte : tensor.data)
      values.push_back(byte != 0);
    return DenseElementsAttr::get(type, values);
  }
  llvm::ArrayRef<char> bytes(tensor.data.data(), tensor.data.size());
  if (tensor.numElements() <= 16)
    return DenseElementsAttr::getFromRawBuffer(type, bytes);
  return DenseResourceElementsAttr::get(
      type, "folded",
      HeapAsmResourceBlob::allocateAndCopyInferAlign(bytes, alignof(int64_t)));
}

void registerHostConstantEvaluator() {
  setConstantEvaluator([](ModuleOp module,
                          llvm::StringRef name) -> FailureOr<SmallVector<ElementsAttr>> {
    OwningOpRef<ModuleOp> owned(module);
    // A sub-graph that does not compile is simply not folded; the target reports the op
    // when it compiles the whole graph.
    // KILN_DEBUG_FOLDING=1 shows why a sub-graph did not fold.
    static const bool debug = std::getenv("KILN_DEBUG_FOLDING") != nullptr;
    ScopedDiagnosticHandler silence(module.getContext(),
                                    [](Diagnostic &) { return debug ? failure() : success(); });
    auto function = owned->lookupSymbol<func::FuncOp>(name);
    if (!function)
      return failure();
    if (debug)
      owned->print(llvm::errs());
    SmallVector<Type> types(function.getResultTypes());
    HostCompileOptions options;
    options.optLevel = 0;
    auto executable = HostExecutable::compile(*owned, name, options);
    if (!executable) {
      llvm::consumeError(executable.takeError());
      return failure();
    }
    auto outputs = (*executable)->run({});
    if (!outputs) {
      llvm::consumeError(outputs.takeError());
      return failure();
    }
    SmallVector<ElementsAttr> attributes;
    for (auto [output, type] : llvm::zip_equal(*outputs, types))
      attributes.push_back(toAttribute(output, cast<RankedTensorType>(type)));
    return attributes;
  });
}

} // namespace kiln::cpu
