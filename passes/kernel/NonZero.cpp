//===- NonZero.cpp - NonZero by chunk counts and prefix sums ---------------===//
//
// The non_zero family (#kernel.non_zero): a kernel holding one graph.non_zero of a kernel
// argument, writing its positions (perhaps transposed) or their number. The generic
// lowering counts and writes the positions in one thread (0.19 ms for SSDlite's 3234
// scores a class, 90 classes); the family's kernels (templates/NonZero.mlir,
// docs/codegen-non-zero.md) count each chunk of 4096 elements on its own CTA, then each
// chunk's CTA writes its positions where the counts before it end, or one CTA adds the
// counts up.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "passes/kernel/ExtentKernels.h"
#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/KernelTemplate.h"
#include "passes/kernel/Sm90Template.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
namespace graph = kiln::graph;
namespace kernel = kiln::kernel;

namespace {

/// The text of passes/kernel/templates/NonZero.mlir.
constexpr const char kNonZeroTemplate[] =
#include "passes/kernel/templates/NonZero.mlir.inc"
    ;

/// The elements a CTA counts and writes (4 tiles of 1024 threads).
constexpr int64_t kChunk = 4096;
/// The input ranks the kernels take (ONNX's tensors rarely have more).
constexpr int64_t kMaxRank = 8;

/// A graph.non_zero the family computes.
struct NonZeroProblem {
  /// The kernel's arguments that are the input and the output (the positions [rank, n]
  /// or [n, rank], or their number, [1] i64, in the extent kernel).
  unsigned input, output;
  bool countOnly;
  /// The positions are written transposed, [n, rank] (a transpose after the NonZero).
  bool transposed;
  Type element;
  int64_t rank;
};

/// The kernel's one template op (a generic or movement op) and its input and output
/// buffers; nullptr when the body holds anything else.
Operation *templateOp(kernel::FuncOp function, SmallVectorImpl<Value> &inputs,
                      SmallVectorImpl<Value> &outputs) {
  Block &entry = function.getBody().front();
  Operation *op = &entry.front();
  if (!isa<kernel::ReturnOp>(op->getNextNode()))
    return nullptr;
  if (auto generic = dyn_cast<kernel::GenericOp>(op)) {
    inputs.assign(generic.getInputs().begin(), generic.getInputs().end());
    outputs.assign(generic.getOutputs().begin(), generic.getOutputs().end());
    return op;
  }
  if (auto movement = dyn_cast<kernel::MovementOp>(op)) {
    inputs.assign(movement.getInputs().begin(), movement.getInputs().end());
    outputs.assign(movement.getOutputs().begin(), movement.getOutputs().end());
    return op;
  }
  return nullptr;
}

/// The most elements the kernel's argument `input` holds: its static size, or its size at
/// the profile's largest shape; nullopt when unbounded.
std::optional<int64_t> maxInputElements(kernel::FuncOp function, unsigned input) {
  auto type = cast<MemRefType>(function.getArgument(input).getType());
  if (type.hasStaticShape())
    return type.getNumElements();
  std::optional<kiln::ProfileArguments> atMax =
      kiln::getProfileArguments(function, kernel::kMaxShapeAttr);
  if (!atMax || !atMax->types[input] || !atMax->types[input].hasStaticShape())
    return std::nullopt;
  return atMax->types[input].getNumElements();
}

/// `function`'s NonZero when its body is one graph.non_zero of a kernel argument (rank 1
/// to kMaxRank; float, signless integer or i1 elements: arith compares no unsigned ones;
/// fewer than 2^31 at the profile's largest shape) whose positions, perhaps transposed
/// ([1, 0]), or their number (tensor.dim, index_cast, from_elements) are the kernel's one
/// output; else nullopt.
std::optional<NonZeroProblem> matchNonZero(kernel::FuncOp function) {
  SmallVector<Value> inputs, outputs;
  Operation *op = templateOp(function, inputs, outputs);
  if (!op || outputs.size() != 1)
    return std::nullopt;
  Block &entry = function.getBody().front();
  Block &body = op->getRegion(0).front();
  graph::NonZeroOp nonZero;
  graph::TransposeOp transpose;
  for (Operation &inner : body.without_terminator()) {
    if (auto found = dyn_cast<graph::NonZeroOp>(inner)) {
      if (nonZero)
        return std::nullopt;
      nonZero = found;
    } else if (auto found = dyn_cast<graph::TransposeOp>(inner)) {
      if (transpose)
        return std::nullopt;
      transpose = found;
    } else if (!isa<graph::ConstantOp, tensor::DimOp, arith::IndexCastOp, tensor::FromElementsOp,
                    arith::ConstantOp>(inner)) {
      return std::nullopt;
    }
  }
  if (!nonZero)
    return std::nullopt;
  if (transpose && (transpose.getInput() != nonZero.getResult() ||
                    transpose.getPerm() != ArrayRef<int64_t>{1, 0}))
    return std::nullopt;
  NonZeroProblem p;
  p.transposed = static_cast<bool>(transpose);
  Value positions = transpose ? transpose.getResult() : nonZero.getResult();
  Value yielded = body.getTerminator()->getOperand(0);
  p.countOnly = yielded != positions;
  if (p.countOnly && !kiln::yieldsExtent(yielded, positions, p.transposed ? 0 : 1))
    return std::nullopt;
  std::optional<unsigned> input = kiln::entryArgumentOf(nonZero.getInput(), body, inputs, entry);
  auto output = dyn_cast<BlockArgument>(outputs[0]);
  if (!input || !output || output.getOwner() != &entry)
    return std::nullopt;
  p.input = *input;
  p.output = output.getArgNumber();
  auto inputType = dyn_cast<MemRefType>(function.getArgument(p.input).getType());
  if (!inputType || inputType.getRank() < 1 || inputType.getRank() > kMaxRank)
    return std::nullopt;
  p.rank = inputType.getRank();
  p.element = inputType.getElementType();
  auto integer = dyn_cast<IntegerType>(p.element);
  if (!(p.element.isF16() || p.element.isBF16() || p.element.isF32() || p.element.isF64()) &&
      !(integer && integer.isSignless() && integer.getWidth() <= 64))
    return std::nullopt;
  std::optional<int64_t> elements = maxInputElements(function, p.input);
  if (!elements || *elements * p.rank >= (int64_t(1) << 31))
    return std::nullopt;
  return p;
}

/// The template's {WARP_SUM:a:b} and {WARP_SCAN:a:b}: %b, the sum of %a over the warp
/// (xor shuffles: every lane has it), or its inclusive prefix sum over the lanes (up
/// shuffles, a lane adding what the lane `offset` below it has, where there is one).
std::string expandWarpSums(std::string text) {
  for (StringRef kind : {"WARP_SUM", "WARP_SCAN"}) {
    std::string marker = ("{" + kind + ":").str();
    for (size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at)) {
      size_t end = text.find('}', at);
      SmallVector<StringRef, 2> names;
      StringRef(text).slice(at + marker.size(), end).split(names, ':');
      std::string code;
      llvm::raw_string_ostream os(code);
      StringRef from = names[0], to = names[1];
      os << llvm::formatv("    %{0}Width = arith.constant 32 : i32\n"
                          "    %{0}Zero = arith.constant 0 : i32\n",
                          to);
      std::string current = ("%" + from).str();
      bool sum = kind == "WARP_SUM";
      for (int step = 0; step < 5; ++step) {
        int offset = sum ? 16 >> step : 1 << step;
        os << llvm::formatv("    %{0}Offset{1} = arith.constant {2} : i32\n", to, step, offset);
        if (sum) {
          os << llvm::formatv(
              "    %{0}Other{1}, %{0}Valid{1} = gpu.shuffle xor {2}, %{0}Offset{1}, %{0}Width "
              ": i32\n",
              to, step, current);
        } else {
          os << llvm::formatv(
              "    %{0}Below{1}, %{0}Valid{1} = gpu.shuffle up {2}, %{0}Offset{1}, %{0}Width : "
              "i32\n"
              "    %{0}Has{1} = arith.cmpi uge, %lane, %{0}Offset{1} : i32\n"
              "    %{0}Other{1} = arith.select %{0}Has{1}, %{0}Below{1}, %{0}Zero : i32\n",
              to, step, current);
        }
        std::string next =
            step == 4 ? ("%" + to).str() : llvm::formatv("%{0}Partial{1}", to, step).str();
        os << llvm::formatv("    {0} = arith.addi {1}, %{2}Other{3} : i32\n", next, current, to,
                            step);
        current = next;
      }
      text.replace(at, end + 1 - at, code);
      at += code.size();
    }
  }
  return text;
}

/// The element type's name in MLIR's syntax (i1, i32, f16, ...).
std::string typeName(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return name;
}

/// Generates the kernels whose `kernel.config` is #kernel.non_zero.
struct NonZeroGenerator {
  ModuleOp module;
  SymbolTable &symbols;
  StringRef pass;

  struct Kernels {
    gpu::GPUFuncOp chunks, total, write;
  };

  /// One module an element type, rank and layout, holding the three kernels: the extent
  /// kernel's form launches the first two, the positions' form the first and the last.
  FailureOr<Kernels> getOrCreateKernels(const NonZeroProblem &p) {
    std::string entry =
        llvm::formatv("non_zero_{0}_r{1}{2}", typeName(p.element), p.rank, p.transposed ? "_t" : "")
            .str();
    std::string moduleName = "kiln_" + entry;
    std::string chunksEntry = entry + "_chunks", totalEntry = entry + "_total",
                writeEntry = entry + "_write";
    auto lookup = [&](gpu::GPUModuleOp gpuModule) {
      return Kernels{gpuModule.lookupSymbol<gpu::GPUFuncOp>(chunksEntry),
                     gpuModule.lookupSymbol<gpu::GPUFuncOp>(totalEntry),
                     gpuModule.lookupSymbol<gpu::GPUFuncOp>(writeEntry)};
    };
    if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName))
      return lookup(existing);

    std::string element = typeName(p.element);
    std::string isNonZero =
        isa<FloatType>(p.element)
            ? llvm::formatv("        %zeroValue = arith.constant 0.0 : {0}\n"
                            "        %flag = arith.cmpf une, %x, %zeroValue : {0}\n",
                            element)
                  .str()
            : llvm::formatv("        %zeroValue = arith.constant 0 : {0}\n"
                            "        %flag = arith.cmpi ne, %x, %zeroValue : {0}\n",
                            element)
                  .str();
    // The coordinates of element %e, the last dimension's the fastest, each an i64 at
    // its place: row `dim` of [rank, total], or column `dim` of [total, rank].
    std::string extentParameters, writePosition;
    llvm::raw_string_ostream write(writePosition);
    for (int64_t dim = 0; dim < p.rank; ++dim)
      extentParameters += llvm::formatv(", %extent{0}: i32", dim).str();
    write << "        %rest" << p.rank - 1 << " = arith.addi %e, %c0 : i32\n";
    for (int64_t dim = p.rank - 1; dim >= 0; --dim) {
      if (dim > 0)
        write << llvm::formatv("        %coordinate{0} = arith.remui %rest{0}, %extent{0} : i32\n"
                               "        %rest{1} = arith.divui %rest{0}, %extent{0} : i32\n",
                               dim, dim - 1);
      else
        write << "        %coordinate0 = arith.addi %rest0, %c0 : i32\n";
      write << llvm::formatv("        %dim{0} = arith.constant {0} : i32\n", dim);
      if (p.transposed)
        write << llvm::formatv("        %row{0} = arith.muli %position, %rank : i32\n"
                               "        %at{0} = arith.addi %row{0}, %dim{0} : i32\n",
                               dim);
      else
        write << llvm::formatv("        %row{0} = arith.muli %dim{0}, %total : i32\n"
                               "        %at{0} = arith.addi %row{0}, %position : i32\n",
                               dim);
      write << llvm::formatv(
          "        %atIndex{0} = arith.index_castui %at{0} : i32 to index\n"
          "        %coordinate64_{0} = arith.extui %coordinate{0} : i32 to i64\n"
          "        memref.store %coordinate64_{0}, %out[%atIndex{0}] : memref<?xi64>\n",
          dim);
    }
    std::string text = kiln::substitutePlaceholders(expandWarpSums(kNonZeroTemplate),
                                                    {{"IS_NONZERO", isNonZero},
                                                     {"EXTENT_PARAMETERS", extentParameters},
                                                     {"WRITE_POSITION", writePosition},
                                                     {"ELEMENT", element},
                                                     {"RANK", std::to_string(p.rank)},
                                                     {"MODULE", moduleName},
                                                     {"CHUNKS_ENTRY", chunksEntry},
                                                     {"TOTAL_ENTRY", totalEntry},
                                                     {"WRITE_ENTRY", writeEntry}});
    FailureOr<gpu::GPUFuncOp> chunks =
        kiln::insertTemplateModule(module, symbols, pass, chunksEntry, text);
    if (failed(chunks))
      return failure();
    return lookup((*chunks)->getParentOfType<gpu::GPUModuleOp>());
  }

  void replaceLaunch(kernel::LaunchOp launch, const Kernels &kernels, const NonZeroProblem &p) {
    OpBuilder b(launch);
    NamedAttrList metadata;
    metadata.set("kernel", launch.getCalleeAttr().getAttr());
    metadata.set("template", b.getStringAttr("non_zero"));
    metadata.set("config",
                 b.getStringAttr(p.countOnly ? "chunks of 4096, the count" : "chunks of 4096"));
    Location loc =
        FusedLoc::get(b.getContext(), {launch.getLoc()}, metadata.getDictionary(b.getContext()));
    Value input = launch.getOperands()[p.input], output = launch.getOperands()[p.output];
    auto asI32 = [&](Value index) {
      return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index).getResult();
    };
    Value n = kiln::hostExtentProduct(b, loc, input, 0, p.rank);
    // At least one chunk (a launch needs a CTA): an empty input's count is 0.
    Value chunks = arith::MaxUIOp::create(
        b, loc,
        arith::CeilDivUIOp::create(b, loc, n, arith::ConstantIndexOp::create(b, loc, kChunk)),
        arith::ConstantIndexOp::create(b, loc, 1));
    auto i32Buffer = MemRefType::get({ShapedType::kDynamic}, b.getI32Type());
    Value counts = memref::AllocOp::create(b, loc, i32Buffer, ValueRange{chunks});
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value threads = arith::ConstantIndexOp::create(b, loc, 1024);
    Value inputPointer = kiln::barePointer(b, loc, input);
    Value countsPointer = kiln::barePointer(b, loc, counts);
    Value outputPointer = kiln::barePointer(b, loc, output);
    gpu::LaunchFuncOp::create(b, loc, kernels.chunks, gpu::KernelDim3{chunks, one, one},
                              gpu::KernelDim3{threads, one, one}, Value(),
                              ValueRange{inputPointer, countsPointer, asI32(n)});
    if (p.countOnly) {
      gpu::LaunchFuncOp::create(b, loc, kernels.total, gpu::KernelDim3{one, one, one},
                                gpu::KernelDim3{threads, one, one}, Value(),
                                ValueRange{countsPointer, outputPointer, asI32(chunks)});
    } else {
      int64_t countAxis = p.transposed ? 0 : 1;
      Value total = kiln::hostExtentProduct(b, loc, output, countAxis, countAxis + 1);
      SmallVector<Value> arguments{inputPointer, countsPointer, outputPointer, asI32(n),
                                   asI32(total)};
      for (int64_t dim = 0; dim < p.rank; ++dim)
        arguments.push_back(asI32(kiln::hostExtentProduct(b, loc, input, dim, dim + 1)));
      gpu::LaunchFuncOp::create(b, loc, kernels.write, gpu::KernelDim3{chunks, one, one},
                                gpu::KernelDim3{threads, one, one}, Value(), arguments);
    }
    launch.erase();
  }
};

/// The family: #kernel.non_zero on every GPU target; nothing to tune.
class NonZeroTemplate final : public kiln::KernelTemplateOf<kernel::NonZeroConfigAttr> {
  SmallVector<Attribute> candidates(kernel::FuncOp function,
                                    const kiln::TemplateOptions &) const override {
    if (!matchNonZero(function))
      return {};
    return {kernel::NonZeroConfigAttr::get(function.getContext())};
  }

  bool isTuned(const kiln::TemplateOptions &) const override { return false; }

  std::optional<std::string> describeProblem(kernel::FuncOp function) const override {
    std::optional<NonZeroProblem> p = matchNonZero(function);
    if (!p)
      return std::nullopt;
    return llvm::formatv("NonZero of rank {0} ({1}){2}{3}", p->rank, typeName(p->element),
                         p->transposed ? ", transposed" : "", p->countOnly ? ", the count" : "")
        .str();
  }

  std::string describe(kernel::NonZeroConfigAttr) const override {
    return "NonZero by chunk counts";
  }

  /// Two launches, each reading the input once (the counts are few).
  double estimateMicros(kernel::FuncOp function, kernel::NonZeroConfigAttr,
                        const kiln::DeviceModel &device) const override {
    std::optional<NonZeroProblem> p = matchNonZero(function);
    if (!p)
      return device.launchMicros;
    double elements = static_cast<double>(maxInputElements(function, p->input).value_or(0));
    double bytes = elements * std::max<int64_t>(1, p->element.getIntOrFloatBitWidth() / 8);
    double written = p->countOnly ? 0 : elements * p->rank * 8 / 2; // half non-zero
    return 2 * device.launchMicros + (2 * bytes + written) / device.bytesPerSecond * 1e6;
  }

  LogicalResult instantiate(kernel::FuncOp function, kernel::NonZeroConfigAttr attr,
                            kiln::TemplateInstantiation &context) const override {
    std::optional<NonZeroProblem> problem = matchNonZero(function);
    if (!problem)
      return function.emitError(context.pass)
             << ": " << attr << " is for one graph.non_zero of a kernel argument (rank 1 to "
             << kMaxRank << ", float, signless integer or i1 elements), which this kernel is not";
    NonZeroGenerator generator{context.module, context.symbols, context.pass};
    FailureOr<NonZeroGenerator::Kernels> kernels = generator.getOrCreateKernels(*problem);
    if (failed(kernels))
      return failure();
    kiln::replaceLaunches(function, context.module, context.symbols, [&](kernel::LaunchOp launch) {
      generator.replaceLaunch(launch, *kernels, *problem);
      return success();
    });
    return success();
  }
};

} // namespace

namespace kiln {
// Registered in KernelTemplate.cpp.
const KernelTemplate &nonZeroTemplate() {
  static const NonZeroTemplate family;
  return family;
}
} // namespace kiln
