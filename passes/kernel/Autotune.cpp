//===- Autotune.cpp - Choose each kernel's configuration ------------------===//
//
// kernel-autotune: for every kernel with a choice to make (the template family that takes
// it lists the candidates: passes/kernel/KernelTemplate.h), the timing cache answers, else the GPU
// timer measures (within the budget, longest kernels first), else the cost model estimates. The
// choice becomes `kernel.config` (what kernel-instantiate-templates generates) and `kernel.tuning`
// (where it came from and its time).
//
//===----------------------------------------------------------------------===//

#include "passes/kernel/Autotune.h"
#include "dialects/kernel/KernelDialect.h"
#include "passes/kernel/CodegenFingerprint.h"

#include "passes/kernel/KernelConfig.h"
#include "passes/kernel/KernelTemplate.h"

#include "dialects/graph/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace kiln {
#define GEN_PASS_DEF_KERNELAUTOTUNE
#include "passes/kernel/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace kernel = kiln::kernel;

llvm::StringRef kiln::codegenFingerprint() { return KILN_CODEGEN_FINGERPRINT; }

std::string kiln::kernelSignature(kernel::FuncOp function, llvm::StringRef codegen,
                                  llvm::StringRef profile) {
  // A dynamic kernel's arguments at the shape it is timed at (read before the copy, which
  // has no launches).
  std::string shape;
  if (llvm::any_of(function.getArgumentTypes(), [](Type type) {
        auto shaped = dyn_cast<ShapedType>(type);
        return type.isIndex() || (shaped && !shaped.hasStaticShape());
      }))
    if (std::optional<ProfileArguments> arguments = getProfileArguments(function, profile)) {
      llvm::raw_string_ostream os(shape);
      for (auto [type, symbol] : llvm::zip(arguments->types, arguments->symbols))
        type ? os << " " << type : os << " " << symbol;
    }
  // A detached copy, renamed and stripped, printed without locations.
  auto copy = cast<kernel::FuncOp>(function->clone());
  copy.setSymName("kernel");
  MLIRContext *context = function.getContext();
  copy->removeAttr(kernel::configAttrHelper(context).getName());
  copy->removeAttr(kernel::tuningAttrHelper(context).getName());
  copy->removeAttr(kernel::rowVariantsAttrHelper(context).getName());
  // Scalar float constants as zeros: an int8 layer's epilogue carries its own
  // quantization scales, which change no configuration's speed, and the layers of a
  // stage then tune once.
  copy.walk([](graph::ConstantOp constant) {
    auto type = dyn_cast<RankedTensorType>(constant.getValue().getType());
    if (type && type.getNumElements() == 1 && isa<FloatType>(type.getElementType()))
      constant.setValueAttr(
          DenseElementsAttr::get(type, FloatAttr::get(type.getElementType(), 0.0)));
  });
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.useLocalScope();
  copy->print(os, flags);
  copy->erase();
  if (!shape.empty())
    os << "\nat" << shape;
  // The same kernel.func becomes other machine code when the code generator changes:
  // times measured with another build's kernels must not be reused.
  os << "\ncodegen " << codegen;
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(text));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

std::string kiln::configKey(Attribute config) {
  std::string text;
  llvm::raw_string_ostream os(text);
  config.print(os);
  return text;
}

namespace {

/// How a kernel's configuration was decided.
struct Decision {
  Attribute config;
  StringRef source; // measured, cache, cost-model
  double micros = 0;
  /// The generic lowering's time by the same source, for the progress line (< 0: none).
  double genericMicros = -1;
  size_t measured = 0;
};

std::string formatMicros(double micros) {
  return micros >= 100 ? llvm::formatv("{0:f0} us", micros).str()
                       : llvm::formatv("{0:f1} us", micros).str();
}

struct KernelAutotunePass : kiln::impl::KernelAutotuneBase<KernelAutotunePass> {
  using Base::Base;
  KernelAutotunePass(const kiln::KernelAutotuneOptions &options,
                     kiln::KernelTimerProvider timerProvider, kiln::AutotuneProgress progress)
      : Base(options), timerProvider(std::move(timerProvider)), progress(std::move(progress)) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    FailureOr<kiln::TemplateOptions> checked =
        kiln::checkTemplateOptions(KILN_PASS_TEMPLATE_OPTIONS(), module, getArgument());
    if (failed(checked))
      return signalPassFailure();
    options = *checked;
    // Times measured under options that change the generated code are other kernels'.
    codegen = kiln::codegenFingerprint().str() + options.codegenKey();
    auto configHelper = kernel::configAttrHelper(context);
    auto tuningHelper = kernel::tuningAttrHelper(context);
    auto variantsHelper = kernel::rowVariantsAttrHelper(context);

    // The kernels with a choice to make, grouped by signature (identical kernels once).
    std::vector<std::pair<std::string, SmallVector<kernel::FuncOp>>> groups;
    llvm::StringMap<size_t> groupOf;
    if (budget < 0) {
      module.emitError("kernel-autotune: the budget is ")
          << llvm::formatv("{0}", double(budget)).str() << " s; it must be 0 or more";
      return signalPassFailure();
    }
    for (auto function : module.getOps<kernel::FuncOp>()) {
      if (function->hasAttr(configHelper.getName()))
        continue;
      if (kiln::kernelConfigCandidates(function, options).size() < 2)
        continue;
      std::string signature = kiln::kernelSignature(function, codegen);
      auto [at, inserted] = groupOf.try_emplace(signature, groups.size());
      if (inserted)
        groups.push_back({signature, {}});
      groups[at->second].second.push_back(function);
    }
    if (groups.empty())
      return;
    // The GPU, asked for only now that there is something to measure.
    if (timerProvider && budget > 0 && !timer) {
      std::string why = "no GPU timer in this tool";
      timer = timerProvider(why);
      if (!timer)
        say("no GPU to tune on (" + why + "): kernel configurations from the " +
            (timingCache.empty() ? std::string() : std::string("timing cache, then the ")) +
            "cost model");
    }
    // A budget that may run out goes to the kernels that take longest first (by the cost
    // model's best estimate, times the identical kernels): spent on small kernels in
    // program order, it would leave the large ones to the estimate.
    if (timer && budget > 0)
      orderByEstimatedTime(groups);

    kiln::TimingCache cache(timingCache);
    if (!timingCache.empty())
      if (std::optional<std::string> warning = cache.load())
        emitWarning(module.getLoc()) << *warning;
    kiln::TimingGpu gpu = timer ? timer->gpu() : kiln::TimingGpu::defaultForTarget(target);

    start = std::chrono::steady_clock::now();
    size_t index = 0;
    std::vector<Decision> decisions;
    for (auto &[signature, functions] : groups) {
      ++index;
      kernel::FuncOp representative = functions.front();
      Decision decision =
          decide(representative, signature, kiln::kernelConfigCandidates(representative, options),
                 kiln::kernel::kOptShapeAttr, gpu, cache, /*estimate=*/true);
      Builder b(context);
      DictionaryAttr tuning =
          b.getDictionaryAttr({b.getNamedAttr("source", b.getStringAttr(decision.source)),
                               b.getNamedAttr("micros", b.getF64FloatAttr(decision.micros)),
                               b.getNamedAttr("signature", b.getStringAttr(signature))});
      std::optional<kiln::GemmRowVariant> small =
          decideRowBucket(representative, decision, kiln::smallRowsBucket, gpu, cache);
      for (kernel::FuncOp function : functions) {
        configHelper.setAttr(function, cast<kernel::TemplateConfigAttrInterface>(decision.config));
        tuningHelper.setAttr(function, tuning);
        if (small)
          variantsHelper.setAttr(function, kiln::rowVariantsAttr(context, ArrayRef(*small)));
      }
      report(index, groups.size(), representative, functions.size(), decision);
      if (small)
        say(llvm::formatv("  for M <= {0}: {1} (measured at the min shape)", small->maxRows,
                          kiln::describeKernelConfig(small->config))
                .str());
      decisions.push_back(decision);
    }

    // The large Ms' buckets come last, with the budget that every kernel's opt shape and
    // small Ms left: the opt shape is the profile's, and the small Ms are where an opt
    // configuration loses most (a tile of 128 rows over 16); the large ones still fill
    // the GPU under it.
    for (size_t group = 0; group < groups.size(); ++group) {
      auto &functions = groups[group].second;
      std::optional<kiln::GemmRowVariant> large =
          decideRowBucket(functions.front(), decisions[group], kiln::largeRowsBucket, gpu, cache);
      if (!large)
        continue;
      FailureOr<SmallVector<kiln::GemmRowVariant>> variants =
          kiln::getRowVariants(functions.front(), getArgument());
      if (failed(variants))
        return signalPassFailure();
      variants->push_back(*large);
      for (kernel::FuncOp function : functions)
        variantsHelper.setAttr(function, kiln::rowVariantsAttr(context, *variants));
      say(llvm::formatv("  {0}: for M > {1}: {2} (measured at the max shape)",
                        functions.front().getSymName(), large->aboveRows,
                        kiln::describeKernelConfig(large->config))
              .str());
    }

    if (!timingCache.empty() && cache.isDirty())
      if (std::optional<std::string> problem = cache.save())
        emitWarning(module.getLoc()) << *problem;
  }

  /// The best of `candidates` for `function` at the shape of `profile` (a dynamic
  /// kernel's; `signature` its key there): from the cache and the timer's measurements,
  /// else with `estimate` the cost model's estimate (else no config).
  Decision decide(kernel::FuncOp function, StringRef signature, ArrayRef<Attribute> candidates,
                  StringRef profile, const kiln::TimingGpu &gpu, kiln::TimingCache &cache,
                  bool estimate) {
    llvm::StringMap<Attribute> byKey;
    for (Attribute candidate : candidates)
      byKey[kiln::configKey(candidate)] = candidate;

    // What the cache knows; configurations that are no candidate (any more) are ignored.
    llvm::StringMap<double> times;
    std::map<std::string, kiln::TimingEntry> cached;
    if (!timingCache.empty())
      cached = cache.lookup(gpu, signature);
    for (const auto &[key, entry] : cached) {
      if (!byKey.count(key)) {
        function.emitWarning("timing cache '")
            << timingCache << "': " << key << " is not a configuration of this kernel; ignored";
        continue;
      }
      times[key] = entry.micros;
    }

    // Measure what the cache lacks, while there is a timer and budget.
    Decision decision;
    bool canMeasure = timer && budget > 0 && !budgetSpent();
    if (timer && budget > 0 && budgetSpent() && !budgetReported) {
      budgetReported = true;
      say(llvm::formatv("tuning budget of {0} s spent: the remaining kernels from the timing "
                        "cache or the cost model",
                        budget)
              .str());
    }
    if (canMeasure) {
      for (Attribute candidate : candidates) {
        std::string key = kiln::configKey(candidate);
        if (times.count(key))
          continue;
        std::string why;
        FailureOr<double> micros = timer->measureMicros(function, candidate, profile, why);
        if (failed(micros)) {
          say("  " + function.getSymName().str() + ": " + kiln::describeKernelConfig(candidate) +
              " skipped: " + why);
          continue;
        }
        times[key] = *micros;
        ++decision.measured;
        kiln::TimingEntry entry;
        entry.micros = *micros;
        entry.problem = (function.getSymName() + " " + kiln::describeKernelProblem(function)).str();
        cache.insert(gpu, signature, key, entry);
      }
    }

    std::string genericKey = kiln::configKey(kernel::GenericConfigAttr::get(&getContext()));
    if (!times.empty()) {
      decision.micros = std::numeric_limits<double>::infinity();
      for (Attribute candidate : candidates) {
        auto found = times.find(kiln::configKey(candidate));
        if (found != times.end() && found->second < decision.micros) {
          decision.micros = found->second;
          decision.config = candidate;
        }
      }
      decision.source = decision.measured > 0 ? "measured" : "cache";
      if (auto generic = times.find(genericKey); generic != times.end())
        decision.genericMicros = generic->second;
      return decision;
    }
    if (!estimate)
      return decision;

    // The cost model.
    kiln::DeviceModel device = kiln::DeviceModel::forTarget(target);
    decision.micros = std::numeric_limits<double>::infinity();
    for (Attribute candidate : candidates) {
      double micros = kiln::estimateMicros(function, candidate, device);
      if (kiln::configKey(candidate) == genericKey)
        decision.genericMicros = micros;
      if (micros < decision.micros) {
        decision.micros = micros;
        decision.config = candidate;
      }
    }
    decision.source = "cost-model";
    return decision;
  }

  /// For a GEMM of run-time M (or a convolution of run-time batch) chosen `atOpt` (an
  /// sm_90a GEMM configuration) whose profile has a bucket of Ms far from the opt shape's
  /// (`bucketOf`: kiln::smallRowsBucket, kiln::largeRowsBucket): the configuration measured
  /// fastest at the bucket's shape, as its row variant, when it is another one. Only
  /// measurements (or the cache) decide: the cost model does not tell tile shapes apart
  /// well enough to be worth a second kernel.
  std::optional<kiln::GemmRowVariant>
  decideRowBucket(kernel::FuncOp function, const Decision &atOpt,
                  std::optional<kiln::GemmRows> (*bucketOf)(kernel::FuncOp, bool),
                  const kiln::TimingGpu &gpu, kiln::TimingCache &cache) {
    bool conv = isa_and_nonnull<kernel::Sm90ConvConfigAttr>(atOpt.config);
    if (target != kiln::kTargetSm90a ||
        !(conv || isa_and_nonnull<kernel::Sm90GemmConfigAttr>(atOpt.config)))
      return std::nullopt;
    bool tf32 = allowTf32 || kiln::kernelConfigAsksTf32(function);
    std::optional<kiln::GemmRows> bucket = bucketOf(function, tf32);
    if (!bucket)
      return std::nullopt;
    // The warp-specialised configurations, which take a run-time M: a GEMM's, or a
    // convolution's (all of them).
    SmallVector<kiln::Sm90GemmConfig> configs;
    if (std::optional<kiln::Sm90GemmProblem> gemm = kiln::matchSm90Gemm(function, tf32, *bucket))
      configs = kiln::sm90GemmConfigs(*gemm);
    else if (kiln::matchSm90Conv(function, tf32, *bucket))
      configs = kiln::sm90ConvConfigs(function, tf32, *bucket);
    SmallVector<Attribute> candidates;
    for (const kiln::Sm90GemmConfig &config : configs)
      if (config.consumers > 0)
        candidates.push_back(
            conv ? Attribute(config.toAttr<kernel::Sm90ConvConfigAttr>(&getContext()))
                 : Attribute(config.toAttr<kernel::Sm90GemmConfigAttr>(&getContext())));
    if (candidates.empty())
      return std::nullopt;
    std::string signature = kiln::kernelSignature(function, codegen, bucket->profile);
    Decision best = decide(function, signature, candidates, bucket->profile, gpu, cache,
                           /*estimate=*/false);
    if (!best.config || best.config == atOpt.config)
      return std::nullopt;
    return kiln::GemmRowVariant{
        bucket->maxRows, cast<kernel::TemplateConfigAttrInterface>(best.config), bucket->aboveRows};
  }

  void orderByEstimatedTime(
      std::vector<std::pair<std::string, SmallVector<kernel::FuncOp>>> &groups) const {
    kiln::DeviceModel device = kiln::DeviceModel::forTarget(target);
    std::vector<double> weight;
    for (auto &[signature, functions] : groups) {
      double best = std::numeric_limits<double>::infinity();
      for (Attribute candidate : kiln::kernelConfigCandidates(functions.front(), options))
        best = std::min(best, kiln::estimateMicros(functions.front(), candidate, device));
      weight.push_back(best * double(functions.size()));
    }
    std::vector<size_t> order(groups.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return weight[a] > weight[b]; });
    std::vector<std::pair<std::string, SmallVector<kernel::FuncOp>>> sorted;
    for (size_t i : order)
      sorted.push_back(std::move(groups[i]));
    groups = std::move(sorted);
  }

  bool budgetSpent() const {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return elapsed >= budget;
  }

  void say(const std::string &line) {
    if (progress)
      progress(line);
  }

  /// "tuning [3/12] MatMul_12 1024x768x3072 f16: 2 configs measured, best sm90 ... (14.2
  /// us; generic 1530 us)".
  void report(size_t index, size_t total, kernel::FuncOp function, size_t identical,
              const Decision &decision) {
    if (!progress)
      return;
    size_t candidates = kiln::kernelConfigCandidates(function, options).size();
    std::string line = llvm::formatv("tuning [{0}/{1}] {2} {3}", index, total,
                                     function.getSymName(), kiln::describeKernelProblem(function))
                           .str();
    if (identical > 1)
      line += llvm::formatv(" (x{0} identical)", identical).str();
    line += llvm::formatv(": {0} configs", candidates).str();
    bool estimated = decision.source == "cost-model";
    if (decision.source == "measured")
      line += llvm::formatv(", {0} measured", decision.measured).str();
    else if (decision.source == "cache")
      line += ", from the timing cache";
    else
      line += ", cost model";
    line += " ... best " + kiln::describeKernelConfig(decision.config) + " (" +
            (estimated ? "est. " : "") + formatMicros(decision.micros);
    if (decision.genericMicros >= 0 && !isa<kernel::GenericConfigAttr>(decision.config))
      line += "; generic " + formatMicros(decision.genericMicros);
    line += ")";
    progress(line);
  }

  kiln::KernelTimerProvider timerProvider;
  kiln::KernelTimer *timer = nullptr;
  kiln::AutotuneProgress progress;
  kiln::TemplateOptions options;
  /// The code generator's fingerprint and the options that change its code: part of every
  /// kernel's timing-cache key.
  std::string codegen;
  std::chrono::steady_clock::time_point start;
  bool budgetReported = false;
};

} // namespace

std::unique_ptr<Pass> kiln::createKernelAutotune(const KernelAutotuneOptions &options,
                                                 KernelTimerProvider timer,
                                                 AutotuneProgress progress) {
  return std::make_unique<KernelAutotunePass>(options, std::move(timer), std::move(progress));
}

std::unique_ptr<Pass> kiln::createKernelAutotune(const KernelAutotuneOptions &options,
                                                 KernelTimer *timer, AutotuneProgress progress) {
  KernelTimerProvider provider;
  if (timer)
    provider = [timer](std::string &) { return timer; };
  return std::make_unique<KernelAutotunePass>(options, std::move(provider), std::move(progress));
}
