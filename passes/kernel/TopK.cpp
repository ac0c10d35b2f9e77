//===- TopK.cpp - TopK by radix selection, a CTA a row ---------------------===//
//
// The top_k family (#kernel.top_k): a `kernel.reduction` holding one graph.top_k. The
// generic lowering runs each row's selection in one thread (RT-DETR's 300 of 8400 scores
// took 49.7 ms on the H200); the family gives each row a CTA that selects by radix
// (templates/TopK.mlir, docs/codegen-top-k.md): a few passes over the row counting 8-bit
// digits of a unique 64-bit key in a shared histogram, then the k selected keys ranked
// in shared memory. k may be computed at run time (the output's extent, which the engine
// reads back): the kernel takes it, and the row's length, as parameters.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/KernelTemplate.h"
#include "passes/kernel/Sm90Template.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
namespace graph = kiln::graph;
namespace kernel = kiln::kernel;

namespace {

/// The text of passes/kernel/templates/TopK.mlir.
constexpr const char kTopKTemplate[] =
#include "passes/kernel/templates/TopK.mlir.inc"
    ;

/// The most keys a CTA ranks in shared memory (8 bytes each, beside the 1 KB histogram:
/// within the 48 KB of static shared memory a kernel may have).
constexpr int64_t kMaxK = 4096;

/// A graph.top_k whose rows a CTA each can select.
struct TopKProblem {
  /// The input's element type.
  Type element;
  int64_t rank, axis;
  bool largest;
  /// The kernel's arguments that are the input and the indices output (-1: the indices
  /// are not written).
  unsigned input;
  int indices = -1;
  /// The values outputs: their arguments and element types (the input's, or a float
  /// type the values are converted to; a model may want both).
  SmallVector<std::pair<unsigned, Type>> values;
  /// An output's argument (the first values output, else the indices).
  unsigned anyOutput() const { return values.empty() ? indices : values.front().first; }
  /// At the profile's largest shape: the row length, k, and the rows.
  int64_t maxN, maxK, maxRows;
  /// Static extents (ShapedType::kDynamic where known at run time only), for names.
  SmallVector<int64_t> inputShape;
  int64_t k;

  /// Threads a CTA: enough for a few elements each.
  int64_t threads() const { return maxN >= 4096 ? 1024 : maxN >= 1024 ? 512 : 256; }
  /// The shared array's keys: k at its largest, in whole 8-key lines.
  int64_t capacity() const { return std::max<int64_t>(8, llvm::alignTo(maxK, 8)); }
};

/// `function`'s TopK when its body is one graph.top_k of a kernel argument along any
/// axis, of f32, f16, bf16 or i32 values (f16 and bf16 perhaps widened to f32 first; float
/// values perhaps converted to another float type), whose results (one or both) are the
/// kernel's outputs, with
/// k at most kMaxK and both buffers under 2^31 elements at the profile's largest shape;
/// else nullopt (the generic lowering keeps it). What computes k does not matter: the
/// kernel takes k as the outputs' extent.
std::optional<TopKProblem> matchTopK(kernel::FuncOp function) {
  Block &entry = function.getBody().front();
  auto reduction = dyn_cast<kernel::ReductionOp>(&entry.front());
  if (!reduction || !isa<kernel::ReturnOp>(reduction->getNextNode()))
    return std::nullopt;
  Block &body = reduction.getBody().front();
  graph::TopKOp topK;
  for (Operation &op : body.without_terminator())
    if (auto found = dyn_cast<graph::TopKOp>(op)) {
      if (topK)
        return std::nullopt;
      topK = found;
    }
  auto yield = dyn_cast<kernel::YieldOp>(body.getTerminator());
  if (!topK || !yield || yield.getNumOperands() != reduction.getOutputs().size())
    return std::nullopt;
  // The input: a body argument (a kernel argument), perhaps widened from f16 or bf16.
  Value source = topK.getInput();
  auto widen = source.getDefiningOp<graph::CastOp>();
  if (widen) {
    source = widen.getInput();
    Type from = getElementTypeOrSelf(source), to = getElementTypeOrSelf(widen.getType());
    if (!(from.isF16() || from.isBF16()) || !to.isF32())
      return std::nullopt;
  }
  auto input = dyn_cast<BlockArgument>(source);
  if (!input || input.getOwner() != &body)
    return std::nullopt;
  auto inputArgument = dyn_cast<BlockArgument>(reduction.getInputs()[input.getArgNumber()]);
  if (!inputArgument || inputArgument.getOwner() != &entry)
    return std::nullopt;
  // Every op on the input's values is the widening, the TopK, or the values' conversion;
  // the others compute k.
  llvm::SmallPtrSet<Value, 8> fromInput{source};
  for (Operation &op : body.without_terminator()) {
    if (llvm::none_of(op.getOperands(), [&](Value v) { return fromInput.contains(v); }))
      continue;
    auto convert = dyn_cast<graph::CastOp>(op);
    bool allowed = &op == widen.getOperation() || &op == topK.getOperation() ||
                   (convert && convert.getInput() == topK.getValues() &&
                    isa<FloatType>(getElementTypeOrSelf(source)) &&
                    isa<FloatType>(getElementTypeOrSelf(convert.getType())));
    if (!allowed)
      return std::nullopt;
    fromInput.insert(op.getResults().begin(), op.getResults().end());
  }
  TopKProblem p;
  p.input = inputArgument.getArgNumber();
  for (auto [result, output] : llvm::zip(yield.getOperands(), reduction.getOutputs())) {
    auto argument = dyn_cast<BlockArgument>(output);
    if (!argument || argument.getOwner() != &entry)
      return std::nullopt;
    auto convert = result.getDefiningOp<graph::CastOp>();
    if (result == topK.getIndices() && p.indices == -1)
      p.indices = argument.getArgNumber();
    else if (result == topK.getValues() || (convert && convert.getInput() == topK.getValues()))
      p.values.push_back({argument.getArgNumber(), getElementTypeOrSelf(result)});
    else
      return std::nullopt;
  }

  auto inputType = cast<ShapedType>(source.getType());
  p.element = inputType.getElementType();
  p.rank = inputType.getRank();
  auto axis = static_cast<int64_t>(topK.getAxis()); // I64Attr's getter is unsigned
  p.axis = axis < 0 ? axis + p.rank : axis;
  p.largest = topK.getLargest();
  if (p.rank < 1 || p.axis < 0 || p.axis >= p.rank ||
      !(p.element.isF32() || p.element.isF16() || p.element.isBF16() || p.element.isInteger(32)))
    return std::nullopt;
  std::optional<kiln::ProfileArguments> atMax =
      kiln::getProfileArguments(function, kernel::kMaxShapeAttr);
  if (!atMax)
    return std::nullopt;
  MemRefType largestInput = atMax->types[p.input];
  MemRefType output = atMax->types[p.anyOutput()];
  if (!largestInput || !output || largestInput.getRank() != p.rank || output.getRank() != p.rank)
    return std::nullopt;
  p.maxN = largestInput.getDimSize(p.axis);
  p.maxK = output.getDimSize(p.axis);
  p.maxRows = largestInput.getNumElements() / std::max<int64_t>(p.maxN, 1);
  p.inputShape = llvm::to_vector(cast<MemRefType>(inputArgument.getType()).getShape());
  p.k = cast<MemRefType>(function.getArgumentTypes()[p.anyOutput()]).getDimSize(p.axis);
  if (p.maxK > kMaxK || p.maxN < 1 || largestInput.getNumElements() >= (int64_t(1) << 31) ||
      output.getNumElements() >= (int64_t(1) << 31))
    return std::nullopt;
  return p;
}

/// "f32", "f16", "bf16" or "i32".
std::string typeName(Type type) { return type.isInteger(32) ? "i32" : kiln::elementTypeName(type); }

/// Generates the kernels whose `kernel.config` is #kernel.top_k.
struct TopKGenerator {
  ModuleOp module;
  SymbolTable &symbols;
  StringRef pass;

  LogicalResult run(kernel::FuncOp function, const TopKProblem &problem, int64_t threads) {
    FailureOr<gpu::GPUFuncOp> kernel = getOrCreateKernel(problem, threads);
    if (failed(kernel))
      return failure();
    kiln::replaceLaunches(function, module, symbols, [&](kernel::LaunchOp launch) {
      replaceLaunch(launch, *kernel, problem, threads);
      return success();
    });
    return success();
  }

  FailureOr<gpu::GPUFuncOp> getOrCreateKernel(const TopKProblem &p, int64_t threads) {
    std::string type = typeName(p.element);
    // The outputs: "v" for values as the input holds them, "v<type>" converted, "i".
    std::string outputs;
    for (auto [argument, valueType] : p.values)
      outputs += valueType == p.element ? "v" : "v" + typeName(valueType);
    if (p.indices != -1)
      outputs += "i";
    std::string entry =
        llvm::formatv("top_k_{0}_{1}_k{2}_t{3}_{4}", type, p.largest ? "largest" : "smallest",
                      p.capacity(), threads, outputs)
            .str();
    std::string moduleName = "kiln_" + entry;
    if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName))
      return existing.lookupSymbol<gpu::GPUFuncOp>(entry);

    std::string parameters, views, storeValue, storeIndex;
    for (auto [number, entry] : llvm::enumerate(p.values)) {
      // The values as x holds them, converted as graph.cast converts where the output's
      // type is another float type: exactly to a wider type, to the nearest in a narrower.
      Type valueType = entry.second;
      std::string name = typeName(valueType), id = std::to_string(number);
      parameters += llvm::formatv(", %valuesPointer{0}: memref<{1}>", id, name).str();
      views += llvm::formatv("    %values{0} = memref.reinterpret_cast %valuesPointer{0} to "
                             "offset: [0], sizes: [%outSize], strides: [1]\n"
                             "        : memref<{1}> to memref<?x{1}>\n",
                             id, name)
                   .str();
      bool converted = valueType != p.element;
      if (converted)
        storeValue +=
            llvm::formatv("        %stored{0} = arith.{1} %value : {2} to {3}\n", id,
                          valueType.getIntOrFloatBitWidth() > p.element.getIntOrFloatBitWidth()
                              ? "extf"
                              : "truncf",
                          type, name)
                .str();
      storeValue +=
          llvm::formatv("        memref.store {0}, %values{1}[%outIndex] : memref<?x{2}>\n",
                        converted ? "%stored" + id : std::string("%value"), id, name)
              .str();
    }
    if (p.indices != -1) {
      parameters += ", %indicesPointer: memref<i64>";
      views += "    %indices = memref.reinterpret_cast %indicesPointer to offset: [0], sizes: "
               "[%outSize], strides: [1]\n"
               "        : memref<i64> to memref<?xi64>\n";
      storeIndex = "        %widened = arith.extui %index : i32 to i64\n"
                   "        memref.store %widened, %indices[%outIndex] : memref<?xi64>";
    }
    // The value's bits as i32, then made monotone: a float's sign bit set for positives
    // and every bit flipped for negatives (-0 first taken as +0, which compares equal);
    // an integer's sign bit flipped.
    std::string toBits = p.element.isF32() ? "          %bits = arith.bitcast %raw : f32 to i32"
                         : p.element.isInteger(32)
                             ? "          %bits = arith.addi %raw, %c0 : i32"
                             : llvm::formatv("          %wide = arith.extf %raw : {0} to f32\n"
                                             "          %bits = arith.bitcast %wide : f32 to i32",
                                             type)
                                   .str();
    std::string order =
        p.element.isInteger(32)
            ? "          %ordered = arith.xori %bits, %signBit : i32"
            : "          %negativeZero = arith.cmpi eq, %bits, %signBit : i32\n"
              "          %canonical = arith.select %negativeZero, %c0, %bits : i32\n"
              "          %sign = arith.shrsi %canonical, %c31 : i32\n"
              "          %flip = arith.ori %sign, %signBit : i32\n"
              "          %ordered = arith.xori %canonical, %flip : i32";
    std::string key = R"(          %offset = arith.muli %j, %inner : i32
          %at = arith.addi %base, %offset : i32
          %atIndex = arith.index_castui %at : i32 to index
          %raw = memref.load %x[%atIndex] : memref<?x{T}>
{TO_BITS}
{ORDER}
          %rank32 = arith.xori %ordered, %rankFlip : i32
          %rank64 = arith.extui %rank32 : i32 to i64
          %upper = arith.shli %rank64, %z32 : i64
          %j64 = arith.extui %j : i32 to i64
          %key = arith.ori %upper, %j64 : i64)";
    std::string text = kiln::substitutePlaceholders(
        kTopKTemplate, {// The snippets first: they use the placeholders below.
                        {"KEY", key},
                        {"TO_BITS", toBits},
                        {"ORDER", order},
                        {"OUTPUT_PARAMETERS", parameters},
                        {"OUTPUT_VIEWS", views},
                        {"STORE_VALUE", storeValue},
                        {"STORE_INDEX", storeIndex},
                        {"MODULE", moduleName},
                        {"ENTRY", entry},
                        {"T", type},
                        {"THREADS", std::to_string(threads)},
                        {"CAP", std::to_string(p.capacity())},
                        {"RANK_FLIP", p.largest ? "-1" : "0"}});
    return kiln::insertTemplateModule(module, symbols, pass, entry, text);
  }

  void replaceLaunch(kernel::LaunchOp launch, gpu::GPUFuncOp kernelFunc, const TopKProblem &p,
                     int64_t threads) {
    OpBuilder b(launch);
    NamedAttrList metadata;
    metadata.set("kernel", launch.getCalleeAttr().getAttr());
    metadata.set("template", b.getStringAttr("top_k"));
    metadata.set("config", b.getStringAttr(llvm::formatv("radix select, {0} threads a row, "
                                                         "k up to {1}",
                                                         threads, p.capacity())
                                               .str()));
    Location loc =
        FusedLoc::get(b.getContext(), {launch.getLoc()}, metadata.getDictionary(b.getContext()));
    Value input = launch.getOperands()[p.input];
    Value output = launch.getOperands()[p.anyOutput()];
    // The extents on the host (the engine's shape program evaluates the run-time ones):
    // the row's length, k (the output's extent: a computed k, read back and clamped), the
    // extents inside the axis, and the rows.
    auto extent = [&](Value buffer, int64_t dim) {
      return kiln::hostExtentProduct(b, loc, buffer, dim, dim + 1);
    };
    Value n = extent(input, p.axis), k = extent(output, p.axis);
    Value inner = kiln::hostExtentProduct(b, loc, input, p.axis + 1, p.rank);
    Value outer = kiln::hostExtentProduct(b, loc, input, 0, p.axis);
    Value rows = arith::MulIOp::create(b, loc, outer, inner);
    auto asI32 = [&](Value index) {
      return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index).getResult();
    };
    SmallVector<Value> arguments = {kiln::barePointer(b, loc, input)};
    for (auto [output, type] : p.values)
      arguments.push_back(kiln::barePointer(b, loc, launch.getOperands()[output]));
    if (p.indices != -1)
      arguments.push_back(kiln::barePointer(b, loc, launch.getOperands()[p.indices]));
    arguments.append({asI32(n), asI32(k), asI32(inner)});
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value block = arith::ConstantIndexOp::create(b, loc, threads);
    gpu::LaunchFuncOp::create(b, loc, kernelFunc, gpu::KernelDim3{rows, one, one},
                              gpu::KernelDim3{block, one, one},
                              /*dynamicSharedMemorySize=*/Value(), arguments);
    launch.erase();
  }
};

/// The family: #kernel.top_k on every GPU target. Its threads follow from the row length;
/// it has nothing to tune.
class TopKTemplate final : public kiln::KernelTemplateOf<kernel::TopKConfigAttr> {
  SmallVector<Attribute> candidates(kernel::FuncOp function,
                                    const kiln::TemplateOptions &) const override {
    std::optional<TopKProblem> problem = matchTopK(function);
    if (!problem)
      return {};
    return {kernel::TopKConfigAttr::get(function.getContext(), problem->threads())};
  }

  bool isTuned(const kiln::TemplateOptions &) const override { return false; }

  std::optional<std::string> describeProblem(kernel::FuncOp function) const override {
    std::optional<TopKProblem> p = matchTopK(function);
    if (!p)
      return std::nullopt;
    auto extent = [](int64_t value) {
      return ShapedType::isDynamic(value) ? std::string("?") : std::to_string(value);
    };
    std::string shape;
    for (int64_t dim : p->inputShape)
      shape += (shape.empty() ? "" : "x") + extent(dim);
    return llvm::formatv("top {0} of {1} along axis {2}", extent(p->k), shape, p->axis).str();
  }

  std::string describe(kernel::TopKConfigAttr config) const override {
    return llvm::formatv("top-k radix select, {0} threads a row", config.getThreads()).str();
  }

  /// A row's passes (about six over its elements, from L2) and the ranking of its k keys
  /// (k^2 / threads shared-memory steps), the rows in waves of one CTA an SM.
  double estimateMicros(kernel::FuncOp function, kernel::TopKConfigAttr config,
                        const kiln::DeviceModel &device) const override {
    std::optional<TopKProblem> p = matchTopK(function);
    if (!p)
      return device.launchMicros;
    double threads = config.getThreads();
    double clock = 1.7e3; // cycles a microsecond
    double passes = 6 * std::ceil(p->maxN / threads) * 40 / clock;
    double ranking = std::ceil(p->maxK / threads) * p->maxK * 4 / clock;
    double waves = std::ceil(double(p->maxRows) / device.multiprocessors);
    return device.launchMicros + waves * (passes + ranking);
  }

  LogicalResult instantiate(kernel::FuncOp function, kernel::TopKConfigAttr attr,
                            kiln::TemplateInstantiation &context) const override {
    std::optional<TopKProblem> problem = matchTopK(function);
    if (!problem)
      return function.emitError(context.pass)
             << ": " << attr
             << " is for one graph.top_k of f32, f16, bf16 or i32 values with k at most " << kMaxK
             << ", which this kernel is not";
    TopKGenerator generator{context.module, context.symbols, context.pass};
    return generator.run(function, *problem, attr.getThreads());
  }
};

} // namespace

namespace kiln {
// Registered in KernelTemplate.cpp.
const KernelTemplate &topKTemplate() {
  static const TopKTemplate family;
  return family;
}
} // namespace kiln
