//===- KernelTemplate.cpp - The registry of kernel template families ------===//
//
// The families in their priority order, the generic lowering among them, and what
// kernel-autotune and the reports ask of all of them (passes/kernel/KernelTemplate.h).
//
//===----------------------------------------------------------------------===//

#include "passes/kernel/KernelTemplate.h"

#include "dialects/graph/GraphOps.h"
#include "passes/kernel/AttentionConfig.h"
#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/Sm90Epilogue.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace kiln {

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

// The families, highest priority first: the first whose candidates for a kernel are not
// empty takes it. The specialised families (attention, depthwise convolutions, max pools,
// row reductions) come before the GEMMs and convolutions, which take disjoint kernels
// today; the order decides should two ever take one, and it is the order in which
// kernel-instantiate-templates emits their gpu.modules. The generic lowering comes last:
// it takes every kernel. A new family adds one line (its getter, defined in its own file).
#define KILN_FOR_EACH_KERNEL_TEMPLATE(FAMILY)                                                      \
  FAMILY(flashAttentionTemplate)                                                                   \
  FAMILY(depthwiseTemplate)                                                                        \
  FAMILY(poolNhwcTemplate)                                                                         \
  FAMILY(topKTemplate)                                                                             \
  FAMILY(nonMaxSuppressionTemplate)                                                                \
  FAMILY(nonZeroTemplate)                                                                          \
  FAMILY(rowsTemplate)                                                                             \
  FAMILY(sm90GemmTemplate)                                                                         \
  FAMILY(sm90ConvTemplate)                                                                         \
  FAMILY(sm80GemmTemplate)                                                                         \
  FAMILY(sm80ConvTemplate)                                                                         \
  FAMILY(genericTemplate)

#define KILN_DECLARE_KERNEL_TEMPLATE(getter) const KernelTemplate &getter();
KILN_FOR_EACH_KERNEL_TEMPLATE(KILN_DECLARE_KERNEL_TEMPLATE)
#undef KILN_DECLARE_KERNEL_TEMPLATE

ArrayRef<const KernelTemplate *> kernelTemplates() {
#define KILN_KERNEL_TEMPLATE_ENTRY(getter) &getter(),
  static const KernelTemplate *const families[] = {
      KILN_FOR_EACH_KERNEL_TEMPLATE(KILN_KERNEL_TEMPLATE_ENTRY)};
#undef KILN_KERNEL_TEMPLATE_ENTRY
  return families;
}

const KernelTemplate *findKernelTemplate(Attribute config) {
  for (const KernelTemplate *family : kernelTemplates())
    if (family->ownsConfig(config))
      return family;
  return nullptr;
}

const KernelTemplate &selectKernelTemplate(kernel::FuncOp function,
                                           const TemplateOptions &options) {
  for (const KernelTemplate *family : kernelTemplates().drop_back())
    if (options.allows(family->name()) && !family->candidates(function, options).empty())
      return *family;
  return *kernelTemplates().back();
}

SmallVector<Attribute> kernelConfigCandidates(kernel::FuncOp function,
                                              const TemplateOptions &options) {
  // selectKernelTemplate's walk, keeping the candidates it computes.
  for (const KernelTemplate *family : kernelTemplates().drop_back()) {
    if (!options.allows(family->name()))
      continue;
    SmallVector<Attribute> candidates = family->candidates(function, options);
    if (candidates.empty())
      continue;
    if (!family->isTuned(options))
      return {};
    candidates.push_back(kernel::GenericConfigAttr::get(function.getContext()));
    return candidates;
  }
  return {};
}

std::optional<std::string> whyOffTensorCores(kernel::FuncOp function,
                                             const TemplateOptions &options) {
  // Integer products in ONNX's operator form (QLinearConv, QLinearMatMul, ConvInteger,
  // MatMulInteger) have no template: kernel formation gives them the generic kernel.
  bool integerProduct = false;
  function.walk([&](Operation *op) {
    integerProduct |= isa<graph::QLinearConvOp, graph::QLinearMatMulOp, graph::ConvIntegerOp,
                          graph::MatMulIntegerOp>(op);
  });
  if (integerProduct)
    return std::string("an integer product in ONNX's operator form (QLinearConv, "
                       "QLinearMatMul, ConvInteger, MatMulInteger): the int8 templates take "
                       "QuantizeLinear and DequantizeLinear around a Conv or MatMul (QDQ)");
  if (!getTemplateOp<kernel::MatmulOp>(function) && !getTemplateOp<kernel::ConvOp>(function) &&
      !getTemplateOp<kernel::AttentionOp>(function))
    return std::nullopt;
  Attribute config = kernel::configAttrHelper(function.getContext()).getAttr(function);
  if (config && !isa<kernel::GenericConfigAttr>(config))
    return std::nullopt;
  std::string reasons;
  bool offered = false;
  for (const KernelTemplate *family : kernelTemplates().drop_back()) {
    if (!options.allows(family->name()))
      continue;
    if (!family->candidates(function, options).empty()) {
      offered = true;
      continue;
    }
    if (std::optional<std::string> why = family->whyNot(function, options))
      reasons += (reasons.empty() ? "" : "; ") + family->name().str() + ": " + *why;
  }
  if (offered)
    return std::string("the tuner measured the generic lowering faster than the templates");
  if (reasons.empty())
    return std::string("no template family of this target takes it");
  return reasons;
}

std::string describeKernelConfig(Attribute config) {
  if (const KernelTemplate *family = findKernelTemplate(config))
    return family->describe(config);
  std::string text;
  llvm::raw_string_ostream os(text);
  config.print(os);
  return text;
}

std::string describeKernelProblem(kernel::FuncOp function) {
  for (const KernelTemplate *family : kernelTemplates())
    if (std::optional<std::string> problem = family->describeProblem(function))
      return *problem;
  return "";
}

double estimateMicros(kernel::FuncOp function, Attribute config, const DeviceModel &device) {
  if (const KernelTemplate *family = findKernelTemplate(config))
    return family->estimateMicros(function, config, device);
  return estimateTemplateFallbackMicros(function, device);
}

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

bool TemplateOptions::allows(StringRef name) const {
  return templates.empty() || llvm::is_contained(templates, name);
}

std::string TemplateOptions::problem() const {
  if (target != kiln::kTargetSm90a && target != kiln::kTargetSm80)
    return "unknown target '" + target + "'; one of sm_90a, sm_80";
  for (const std::string &name : templates)
    if (llvm::none_of(kernelTemplates(),
                      [&](const KernelTemplate *family) { return family->name() == name; }))
      return "unknown template family '" + name + "'";
  if (!attentionConfig.empty() && !parseFlashAttentionConfig(attentionConfig))
    return "attention-config '" + attentionConfig +
           "' is not BQxBKVxSTAGESxWARPS[xwgmma] (e.g. 64x128x2x4xwgmma)";
  if (attentionMinCtas < 0 || attentionMinCtas > 16)
    return "attention-min-ctas must be 0 to 16, not " + std::to_string(attentionMinCtas);
  return "";
}

FailureOr<TemplateOptions> checkTemplateOptions(TemplateOptions options, Operation *op,
                                                StringRef pass) {
  if (std::string problem = options.problem(); !problem.empty())
    return op->emitError(pass) << ": " << problem;
  return options;
}

std::string TemplateOptions::codegenKey() const {
  std::string key;
  if (attentionF32Exp)
    key += " attention-f32-exp";
  if (attentionMinCtas > 0)
    key += " attention-min-ctas=" + std::to_string(attentionMinCtas);
  return key;
}

KernelTemplate::~KernelTemplate() = default;

Attribute KernelTemplate::defaultConfig(kernel::FuncOp function,
                                        const TemplateOptions &options) const {
  SmallVector<Attribute> configs = candidates(function, options);
  return configs.empty() ? Attribute() : configs.front();
}

//===----------------------------------------------------------------------===//
// The cost model's generic part
//===----------------------------------------------------------------------===//

DeviceModel DeviceModel::forTarget(StringRef target) {
  DeviceModel device; // H200
  if (target.starts_with("sm_8")) {
    // A100 SXM: 108 SMs, 164 KB of shared memory per SM, ~2 TB/s, 312 / 19.5 TFLOP/s.
    device.multiprocessors = 108;
    device.sharedBytesPerMultiprocessor = 164 * 1024;
    device.bytesPerSecond = 2.0e12;
    device.tensorFlopsPerSecond = 312e12;
    device.simtFlopsPerSecond = 19.5e12;
    device.target = kTargetSm80.str();
  }
  return device;
}

namespace {
/// The extent the cost model gives a dynamic dimension of `function`'s body: one that
/// makes its output buffer as large as at the profile's opt shape (every dynamic
/// dimension alike: their geometric mean), or 1 when nothing says.
double dynamicExtent(kernel::FuncOp function) {
  auto arguments = function.getBody().front().getArguments();
  if (arguments.empty())
    return 1;
  auto output = dyn_cast<MemRefType>(arguments.back().getType());
  if (!output || output.hasStaticShape())
    return 1;
  std::optional<SmallVector<MemRefType>> opt = getOptShapeBufferTypes(function);
  if (!opt)
    return 1;
  double staticElements = 1, dynamicDims = 0;
  for (int64_t extent : output.getShape())
    ShapedType::isDynamic(extent) ? ++dynamicDims : staticElements *= double(extent);
  double elements = double(opt->back().getNumElements());
  return std::max(1.0, std::pow(elements / std::max(1.0, staticElements), 1.0 / dynamicDims));
}

/// A type's elements, each dynamic extent taken as `dynamic`.
double elementCount(Type type, double dynamic = 1) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return 1;
  double elements = 1;
  for (int64_t extent : shaped.getShape())
    elements *= ShapedType::isDynamic(extent) ? dynamic : double(extent);
  return elements;
}

/// The length of the reduction behind each result element of a matmul, gemm or
/// convolution (K; a convolution's weight elements per output channel), a dynamic size
/// taken as `dynamic`; nullopt for other ops.
std::optional<double> reductionLength(Operation *op, double dynamic) {
  auto extent = [&](ShapedType type, int64_t dim) {
    return type.isDynamicDim(dim) ? dynamic : double(type.getDimSize(dim));
  };
  if (auto matmul = dyn_cast<graph::MatMulOp>(op)) {
    auto lhs = dyn_cast<ShapedType>(matmul.getLhs().getType());
    return lhs && lhs.hasRank() && lhs.getRank() >= 1 ? extent(lhs, lhs.getRank() - 1) : 1;
  }
  if (auto gemm = dyn_cast<graph::GemmOp>(op)) {
    // K is A's columns, or its rows when A is transposed.
    auto a = dyn_cast<ShapedType>(gemm.getA().getType());
    unsigned kDim = gemm.getTransA() ? 0 : 1;
    return a && a.hasRank() && a.getRank() == 2 ? extent(a, kDim) : 1;
  }
  if (auto conv = dyn_cast<graph::ConvOp>(op)) {
    auto weight = dyn_cast<ShapedType>(conv.getWeight().getType());
    return weight && weight.hasStaticShape() && weight.getRank() >= 1 && weight.getDimSize(0) > 0
               ? elementCount(weight) / static_cast<double>(weight.getDimSize(0))
               : 1;
  }
  return std::nullopt;
}
} // namespace

double estimateKernelFlops(kernel::FuncOp function) {
  double dynamic = dynamicExtent(function);
  auto elementCount = [&](Type type) { return ::kiln::elementCount(type, dynamic); };
  auto reductionLength = [&](Operation *op) { return ::kiln::reductionLength(op, dynamic); };
  double flops = 0;
  function.walk([&](Operation *op) {
    if (op->getDialect() == nullptr || op->getDialect()->getNamespace() != "graph")
      return;
    if (isa<graph::ConstantOp>(op))
      return;
    if (std::optional<double> reduction = reductionLength(op)) {
      flops += 2 * elementCount(op->getResult(0).getType()) * *reduction;
      return;
    }
    if (auto attention = dyn_cast<graph::AttentionOp>(op)) {
      // Q K^T and P V: 2 * 2 * Sq * Skv * D a (batch, head).
      auto key = dyn_cast<ShapedType>(attention.getKey().getType());
      double seqKv = key && key.hasRank() && key.getRank() >= 2
                         ? (key.isDynamicDim(key.getRank() - 2)
                                ? dynamic
                                : static_cast<double>(key.getDimSize(key.getRank() - 2)))
                         : 1;
      flops += 4 * elementCount(attention.getQuery().getType()) * seqKv;
      return;
    }
    for (Type result : op->getResultTypes())
      flops += elementCount(result);
  });
  return flops;
}

double estimateGenericReductionMicros(kernel::FuncOp function, const DeviceModel &device) {
  double threads = static_cast<double>(device.multiprocessors * device.threadsPerMultiprocessor);
  double dynamic = dynamicExtent(function);
  double micros = 0;
  function.walk([&](Operation *op) {
    if (std::optional<double> steps = reductionLength(op, dynamic))
      micros += std::ceil(elementCount(op->getResult(0).getType(), dynamic) / threads) * *steps *
                device.genericReductionStepMicros;
  });
  return micros;
}

/// The elements read of each kernel argument that the template's body only gathers from
/// (Gather's data): at most what the gathers produce. An embedding's table of a 30522-word
/// vocabulary is read a row a token, not whole.
static DenseMap<unsigned, double> gatheredElements(kernel::FuncOp function) {
  DenseMap<unsigned, double> gathered;
  Block &entry = function.getBody().front();
  Operation *templateOp = entry.empty() ? nullptr : &entry.front();
  if (!templateOp || templateOp->getNumRegions() != 1 || templateOp->getRegion(0).empty())
    return gathered;
  Block &body = templateOp->getRegion(0).front();
  for (auto [operand, argument] : llvm::zip(templateOp->getOperands(), body.getArguments())) {
    auto buffer = dyn_cast<BlockArgument>(operand);
    if (!buffer || buffer.getOwner() != &entry || argument.use_empty())
      continue;
    double elements = 0;
    bool onlyGathered = llvm::all_of(argument.getUsers(), [&](Operation *user) {
      auto gather = dyn_cast<graph::GatherOp>(user);
      if (!gather || gather.getData() != argument || gather.getIndices() == argument)
        return false;
      auto result = dyn_cast<ShapedType>(gather.getType());
      if (!result || !result.hasStaticShape())
        return false;
      elements += elementCount(result);
      return true;
    });
    if (onlyGathered)
      gathered[buffer.getArgNumber()] = elements;
  }
  return gathered;
}

double estimateKernelBytes(kernel::FuncOp function) {
  // A dynamic kernel's buffers at the opt shape.
  SmallVector<Type> types(function.getArgumentTypes());
  if (std::optional<SmallVector<MemRefType>> opt = getOptShapeBufferTypes(function))
    types.assign(opt->begin(), opt->end());
  DenseMap<unsigned, double> gathered = gatheredElements(function);
  double bytes = 0;
  for (auto [position, type] : llvm::enumerate(types)) {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasStaticShape())
      continue;
    Type element = shaped.getElementType();
    double elementBytes =
        element.isIntOrFloat() ? std::max<double>(1, element.getIntOrFloatBitWidth() / 8.0) : 8;
    double elements = elementCount(shaped);
    if (auto read = gathered.find(position); read != gathered.end())
      elements = std::min(elements, read->second);
    bytes += elements * elementBytes;
  }
  return bytes;
}

double estimateGenericMicros(kernel::FuncOp function, const DeviceModel &device) {
  for (const KernelTemplate *family : kernelTemplates())
    if (std::optional<double> micros = family->estimateGenericMicros(function, device))
      return *micros;
  // The generic lowering computes an attention body as four loop nests (Q K^T, the
  // softmax's two reductions, P V): four launches.
  double launches = 1;
  function.walk([&](graph::AttentionOp) { launches = 4; });
  double throughputMicros = 1e6 * (estimateKernelBytes(function) / device.bytesPerSecond +
                                   estimateKernelFlops(function) / device.simtFlopsPerSecond);
  // The generic lowering's reductions run serially inside their threads: a convolution
  // of few output elements and a long reduction (ResNet-50's layer3 at batch 1: 50176
  // outputs, 2304 steps) takes its steps' latency, far beyond its flops at the SIMT rate.
  throughputMicros = std::max(throughputMicros, estimateGenericReductionMicros(function, device));
  return launches * device.launchMicros + throughputMicros;
}

double estimateTemplateFallbackMicros(kernel::FuncOp function, const DeviceModel &device) {
  return device.launchMicros + 1e6 * (estimateKernelBytes(function) / device.bytesPerSecond +
                                      estimateKernelFlops(function) / device.tensorFlopsPerSecond);
}

//===----------------------------------------------------------------------===//
// The generic lowering as a family
//===----------------------------------------------------------------------===//

namespace {
std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

class GenericTemplate final : public KernelTemplateOf<kernel::GenericConfigAttr> {
  SmallVector<Attribute> candidates(kernel::FuncOp function,
                                    const TemplateOptions &) const override {
    return {kernel::GenericConfigAttr::get(function.getContext())};
  }
  bool isTuned(const TemplateOptions &) const override { return false; }
  /// Its buffers' shapes: "8x16xf32, 8x16xf32".
  std::optional<std::string> describeProblem(kernel::FuncOp function) const override {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::interleaveComma(function.getArgumentTypes(), os, [&](Type type) {
      if (auto shaped = dyn_cast<ShapedType>(type); shaped && shaped.hasRank()) {
        for (int64_t extent : shaped.getShape())
          os << (ShapedType::isDynamic(extent) ? std::string("?") : std::to_string(extent)) << "x";
        os << typeName(shaped.getElementType());
      } else {
        os << typeName(type);
      }
    });
    return text;
  }
  std::string describe(kernel::GenericConfigAttr) const override { return "generic"; }
  double estimateMicros(kernel::FuncOp function, kernel::GenericConfigAttr,
                        const DeviceModel &device) const override {
    return kiln::estimateGenericMicros(function, device);
  }
  /// Nothing to generate: kernel-to-linalg lowers the body.
  LogicalResult instantiate(kernel::FuncOp, kernel::GenericConfigAttr,
                            TemplateInstantiation &) const override {
    return success();
  }
};
} // namespace

const KernelTemplate &genericTemplate() {
  static const GenericTemplate family;
  return family;
}

} // namespace kiln
