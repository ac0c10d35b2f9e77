//===- KernelTemplate.h - The kernel template families and their registry -*- C++ -*-===//
//
// Every code generator for kernel.funcs is a template family behind one interface: which
// kernels it takes and how it may compute them (its configurations, a typed attribute of
// the kernel dialect each: dialects/kernel/KernelAttrs.td), what each would cost, how
// to describe them, and how to instantiate one. The passes around them are generic:
//  - kernel-autotune measures (or estimates) the candidates of the family that takes a
//    kernel against the generic lowering and records the fastest as `kernel.config`;
//  - kernel-select-templates gives every kernel still without one its family's default;
//  - kernel-instantiate-templates generates each kernel from its `kernel.config`, through
//    the family that owns the attribute; `#kernel.generic` kernels are left to
//    kernel-to-linalg.
// The registry (KernelTemplate.cpp) lists the families once, highest priority first:
// the first family whose candidates for a kernel are not empty takes it. A new family
// adds its attribute, its own files, and one line there (docs/adding-a-template.md).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_KERNELTEMPLATE_H
#define KILN_PASSES_KERNEL_KERNELTEMPLATE_H

#include "dialects/kernel/KernelOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace kiln {

/// The GPU targets the template families compile for: Hopper (wgmma, TMA), and Ampere
/// (mma.sync, cp.async; every later SM runs its code too).
inline constexpr llvm::StringLiteral kTargetSm90a = "sm_90a";
inline constexpr llvm::StringLiteral kTargetSm80 = "sm_80";

/// What the template families compile for, and the choices a kernel developer may force.
/// The pass options of kernel-autotune, kernel-select-templates and
/// kernel-instantiate-templates, and of the GPU pipeline (passes/Pipelines.h).
struct TemplateOptions {
  /// The GPU target: "sm_90a" (Hopper, wgmma and TMA) or "sm_80" (mma.sync, every later SM).
  std::string target = kTargetSm90a.str();
  /// f32 products and convolutions may run as tf32 on the tensor cores (`kiln compile --tf32`).
  bool allowTf32 = false;
  /// The families that may take kernels (their names, the attributes' mnemonics); empty:
  /// all. The generic lowering always may. (As TensorRT's tactic sources.)
  llvm::SmallVector<std::string> templates;
  /// Kernel developers: the configuration, by name ("128x256x64_s4_ws2"), that the GEMM and
  /// convolution families give their untuned kernels where it is legal.
  std::string gemmConfig;
  /// Kernel developers: the flash-attention configuration every attention kernel takes
  /// where it is legal ("BQxBKVxSTAGESxWARPS", with "xwgmma" for the sm_90a variant);
  /// attention kernels are then not tuned.
  std::string attentionConfig;
  /// Kernel developers: the wgmma attention kernels keep exp2 in f32 (a measuring aid).
  bool attentionF32Exp = false;
  /// Kernel developers: the CTAs an SM the wgmma attention kernels ask ptxas to fit
  /// (0: the template's choice).
  int64_t attentionMinCtas = 0;

  /// The defaults for `target`.
  static TemplateOptions forTarget(llvm::StringRef target) {
    TemplateOptions options;
    options.target = target.str();
    return options;
  }
  /// Whether family `name` may take kernels.
  bool allows(llvm::StringRef name) const;
  /// What is wrong with the options (an unknown target or family, a malformed attention
  /// configuration), or empty: the passes that take them report it as an error.
  std::string problem() const;
  /// The options that change the code a configuration generates, as text for the timing
  /// cache's kernel key (empty when none is set): times measured under other ones are not
  /// the same kernels' times.
  std::string codegenKey() const;
};

/// Inside a pass declaring passes/kernel/Passes.td's KernelTemplateOptions: its options as
/// TemplateOptions (the generated option members are the pass's own).
#define KILN_PASS_TEMPLATE_OPTIONS()                                                               \
  ::kiln::TemplateOptions {                                                                        \
    target, allowTf32, {templates.begin(), templates.end()}, gemmConfig, attentionConfig,          \
        attentionF32Exp, attentionMinCtas                                                          \
  }

/// `options` when they have no problem (TemplateOptions::problem); else an error on `op`
/// naming `pass`.
mlir::FailureOr<TemplateOptions> checkTemplateOptions(TemplateOptions options, mlir::Operation *op,
                                                      llvm::StringRef pass);

/// What the cost model knows of a GPU. The defaults are an H200 (sm_90a).
struct DeviceModel {
  int64_t multiprocessors = 132;
  /// Shared memory a multiprocessor can give its resident blocks.
  int64_t sharedBytesPerMultiprocessor = 228 * 1024;
  int64_t threadsPerMultiprocessor = 2048;
  /// Device memory bandwidth (bytes/s).
  double bytesPerSecond = 4.8e12;
  /// Dense fp16/bf16 tensor-core rate and the rate without tensor cores (FLOP/s).
  double tensorFlopsPerSecond = 990e12;
  double simtFlopsPerSecond = 60e12;
  /// What a launch costs whatever it does (microseconds).
  double launchMicros = 3.0;
  /// One step of a reduction that the generic lowering runs inside a thread (a load and a
  /// multiply-add waiting on the one before; microseconds): about an L2 hit. The H200 ran
  /// ResNet-50's generic convolutions at 0.3-1.1 us a step at batch 256 (the timing
  /// cache: 37 to 121 ms each, where their flops at the SIMT rate take 1-2 ms) and at
  /// ~0.17 us a step at batch 1 (layer3's: ~0.4 ms each, 1 wave of 2304 steps).
  double genericReductionStepMicros = 0.1;
  /// The target the model is of (kTargetSm90a, kTargetSm80).
  std::string target = kTargetSm90a.str();

  /// The model of `target`'s usual GPU (sm_90a: H200; sm_80: A100).
  static DeviceModel forTarget(llvm::StringRef target);
};

/// Where a family instantiates a kernel: the module being rewritten (its symbol table),
/// the options, and the pass that errors are reported under.
struct TemplateInstantiation {
  mlir::ModuleOp module;
  mlir::SymbolTable &symbols;
  const TemplateOptions &options;
  llvm::StringRef pass;
};

/// One template family.
class KernelTemplate {
public:
  virtual ~KernelTemplate();
  /// The family's name: its configuration attribute's mnemonic ("sm90_gemm").
  virtual llvm::StringRef name() const = 0;
  /// Whether `config` is this family's configuration attribute.
  virtual bool ownsConfig(mlir::Attribute config) const = 0;
  /// The configurations `function` may run under on options.target, the default (what
  /// runs untuned) first; empty when the family does not take the kernel.
  virtual llvm::SmallVector<mlir::Attribute> candidates(kernel::FuncOp function,
                                                        const TemplateOptions &options) const = 0;
  /// Whether kernel-autotune chooses between the candidates and the generic lowering
  /// (false: the family's default is taken as it is).
  virtual bool isTuned(const TemplateOptions &) const { return true; }
  /// The configuration an untuned kernel the family takes gets: the first candidate.
  virtual mlir::Attribute defaultConfig(kernel::FuncOp function,
                                        const TemplateOptions &options) const;
  /// The problem `function` poses to this family, for progress lines and the timing cache
  /// ("1024x768x3072 f16"); nullopt when the family does not take it (on any target).
  virtual std::optional<std::string> describeProblem(kernel::FuncOp function) const = 0;
  /// `config` for people: "sm90 wgmma+TMA 128x256x64, 4 stages, 2 consumer warpgroups".
  virtual std::string describe(mlir::Attribute config) const = 0;
  /// The cost model's estimate of `function` under `config` (microseconds), for ranking
  /// candidates where nothing was measured (docs/tuning.md gives each formula).
  virtual double estimateMicros(kernel::FuncOp function, mlir::Attribute config,
                                const DeviceModel &device) const = 0;
  /// The family's better estimate of the generic lowering's time on `function`, a kernel
  /// it takes (nullopt: the generic lowering's own formula, estimateGenericMicros).
  virtual std::optional<double> estimateGenericMicros(kernel::FuncOp, const DeviceModel &) const {
    return std::nullopt;
  }
  /// Why the family does not take `function` (asked only when candidates() is empty): "N =
  /// 4 and K = 256: ..." for a kernel of the family's kind (a product for the GEMM
  /// families, a convolution, an attention) on options.target; nullopt when the kernel or
  /// the target is not the family's.
  virtual std::optional<std::string> whyNot(kernel::FuncOp, const TemplateOptions &) const {
    return std::nullopt;
  }
  /// Generates `function`'s kernel under `config` into `context.module`, replacing its
  /// launches (and `function`, once no launch is left). An error on `function` naming
  /// context.pass when `config` is no configuration of this kernel.
  virtual mlir::LogicalResult instantiate(kernel::FuncOp function, mlir::Attribute config,
                                          TemplateInstantiation &context) const = 0;
};

/// A family whose configuration attribute is `ConfigAttr`: the typed half of the
/// interface.
template <typename ConfigAttr> class KernelTemplateOf : public KernelTemplate {
public:
  llvm::StringRef name() const final { return ConfigAttr::getMnemonic(); }
  bool ownsConfig(mlir::Attribute config) const final { return mlir::isa<ConfigAttr>(config); }
  std::string describe(mlir::Attribute config) const final {
    return describe(mlir::cast<ConfigAttr>(config));
  }
  double estimateMicros(kernel::FuncOp function, mlir::Attribute config,
                        const DeviceModel &device) const final {
    return estimateMicros(function, mlir::cast<ConfigAttr>(config), device);
  }
  mlir::LogicalResult instantiate(kernel::FuncOp function, mlir::Attribute config,
                                  TemplateInstantiation &context) const final {
    return instantiate(function, mlir::cast<ConfigAttr>(config), context);
  }

protected:
  virtual std::string describe(ConfigAttr config) const = 0;
  virtual double estimateMicros(kernel::FuncOp function, ConfigAttr config,
                                const DeviceModel &device) const = 0;
  virtual mlir::LogicalResult instantiate(kernel::FuncOp function, ConfigAttr config,
                                          TemplateInstantiation &context) const = 0;
};

//===----------------------------------------------------------------------===//
// The registry (KernelTemplate.cpp)
//===----------------------------------------------------------------------===//

/// Every family, highest priority first; the generic lowering last.
llvm::ArrayRef<const KernelTemplate *> kernelTemplates();

/// The family owning `config`, or null for an attribute of none.
const KernelTemplate *findKernelTemplate(mlir::Attribute config);

/// The family that takes `function`: the first (allowed by the options) whose candidates
/// are not empty; the generic lowering when none does.
const KernelTemplate &selectKernelTemplate(kernel::FuncOp function, const TemplateOptions &options);

/// What kernel-autotune chooses among for `function`: the candidates of the family that
/// takes it, then `#kernel.generic`; empty when there is nothing to choose (the generic
/// lowering or an untuned family takes it).
llvm::SmallVector<mlir::Attribute> kernelConfigCandidates(kernel::FuncOp function,
                                                          const TemplateOptions &options);

/// Why `function`, a product, convolution or attention kernel that the generic lowering
/// computes (its kernel.config), is off the tensor cores: the refusal of each family of
/// its kind that the options allow, or that the tuner measured the generic lowering
/// faster; for a kernel of an integer product in ONNX's operator form (QLinearConv and
/// the like, which only the generic lowering takes), that form; nullopt for another
/// kernel or one a template computes.
std::optional<std::string> whyOffTensorCores(kernel::FuncOp function,
                                             const TemplateOptions &options);

/// `config` for people (its family's description; the attribute as MLIR prints it for
/// one no family owns).
std::string describeKernelConfig(mlir::Attribute config);

/// The problem `function` poses, for progress lines: "1024x768x3072 f16" (M x N x K and
/// the operand type) for a GEMM, ..., else its buffers' shapes ("8x16xf32, 8x16xf32").
std::string describeKernelProblem(kernel::FuncOp function);

/// The cost model: `function`'s time under `config` by its family's estimate.
double estimateMicros(kernel::FuncOp function, mlir::Attribute config,
                      const DeviceModel &device = DeviceModel());

//===----------------------------------------------------------------------===//
// The generic lowering's cost, which every family's estimate may fall back on
//===----------------------------------------------------------------------===//

/// The number of floating-point operations `function` performs: 2*M*N*K per matmul or gemm,
/// 2 * output elements * reduction size per convolution, one per produced element for
/// everything else (walks the template's body).
double estimateKernelFlops(kernel::FuncOp function);
/// The time the generic lowering's thread-per-output reductions take at least: for each
/// matmul, gemm or convolution, its waves of output elements (a thread each, every
/// thread of every multiprocessor busy) times its reduction's steps, one after another.
double estimateGenericReductionMicros(kernel::FuncOp function, const DeviceModel &device);
/// The bytes `function` must move through device memory at least: every buffer argument
/// read or written once; of a table the body only gathers from, the elements gathered.
double estimateKernelBytes(kernel::FuncOp function);
/// The generic lowering's time: launch + max(bytes / bandwidth + flops / SIMT rate, the
/// serial steps of its thread-per-output reductions: estimateGenericReductionMicros); an
/// attention body is four launches. A family's better estimate where it has one
/// (KernelTemplate::estimateGenericMicros).
double estimateGenericMicros(kernel::FuncOp function, const DeviceModel &device);
/// A family's time where its own model does not apply: launch + bytes / bandwidth +
/// flops / tensor rate.
double estimateTemplateFallbackMicros(kernel::FuncOp function, const DeviceModel &device);

} // namespace kiln

#endif // KILN_PASSES_KERNEL_KERNELTEMPLATE_H
