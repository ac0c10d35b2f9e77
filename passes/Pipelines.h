//===- Pipelines.h - The pass pipelines of Kiln's stages --------*- C++ -*-===//
//
// Every pass Kiln runs, in order, as functions that fill a pass manager. `kiln compile`
// and `kiln run` build their pass manager with them, and kiln-opt registers them as named
// pipelines, so that any prefix of what `kiln compile` does can be replayed on a module
// (`kiln-opt --kiln-gpu-pipeline="target=sm_90a precision=fp16 to=gpu"` on an imported
// model gives what `kiln compile --fp16 --compile-to=gpu` writes).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_PIPELINES_H
#define KILN_PASSES_PIPELINES_H

#include "passes/kernel/KernelTemplate.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kiln {

class KernelTimer;
namespace graph {
struct Int8Report;
struct PrecisionReport;
} // namespace graph

/// The stages of compilation, in order: what `--compile-to` stops after.
enum class Stage {
  /// The ONNX model in the graph dialect after the graph stage (shapes inferred,
  /// constants folded, patterns recognised; quantized, precision reduced and laid out as
  /// asked).
  Graph,
  /// CPU target: the graph lowered to linalg, tensor, arith, math and scf on tensors.
  Linalg,
  /// CPU target: the module in the LLVM dialect.
  LLVM,
  /// GPU targets: after kernel formation (kernel.func templates and the host schedule).
  Kernel,
  /// GPU targets: the host schedule of launches, and the kernels in the NVVM dialect.
  Gpu,
  /// The engine file (code generation and packaging; not a pass pipeline's).
  Engine,
};

/// The stage named `name` ("graph", "linalg", "llvm", "kernel", "gpu", "engine"), if any.
std::optional<Stage> parseStage(llvm::StringRef name);
llvm::StringRef stageName(Stage stage);

/// What GPU code is compiled for.
struct GpuTargetOptions {
  /// The SM: "sm_90a" (Hopper) or "sm_80" (Ampere).
  std::string chip = "sm_90a";
  /// PTX ISA features; sm_90a needs PTX 8.0 at least.
  std::string features = "+ptx80";
  /// libdevice bitcode, linked into every kernel module for math functions (`__nv_*`);
  /// empty: findLibdevice().
  std::string libdevice;
  /// Threads per block of the launches of parallel loops (gpu-map-loops).
  int64_t threadsPerBlock = 256;
  /// Optimisation level of LLVM's NVPTX backend.
  unsigned optLevel = 3;
};

/// The CUDA toolkit's libdevice.10.bc: $KILN_LIBDEVICE, else nvvm/libdevice under
/// $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH or /usr/local/cuda; empty if none exists.
std::string findLibdevice();

/// The choices of the graph stage, which every target runs.
struct GraphStageOptions {
  /// "fp32" (as the model says), "fp16" or "bf16": graph-reduce-precision, with f32
  /// islands where accuracy needs them.
  std::string precision = "fp32";
  /// With a reduced precision: the model's f32 inputs and outputs take it too.
  bool reducedIO = false;
  /// Channels-last convolutions (graph-convert-layout): what the tensor-core convolution
  /// templates read.
  bool channelsLast = false;
  /// INT8 post-training quantization of the convolutions and products
  /// (graph-quantize-int8), with each activation's threshold: `int8Thresholds` (a
  /// calibration the driver ran on the host), else the calibration cache file
  /// `calibrationCache`. Neither: no quantization.
  std::shared_ptr<const llvm::StringMap<double>> int8Thresholds;
  std::string calibrationCache;
  /// Products the int8 tensor-core templates cannot take stay in floats
  /// (graph-quantize-int8's tensor-core-rows): the GPU pipeline sets it.
  bool int8TensorCoreRows = false;
  /// Half-precision attention that no flash-attention template takes (its head size)
  /// becomes two products and a softmax (graph-decompose-attention): the GPU pipeline
  /// sets it, with the largest head size its target's templates take.
  bool decomposeAttention = false;
  int64_t attentionMaxHeadDim = 0;
  /// Half-precision products and convolutions whose N or K the tensor-core templates'
  /// 16-byte rows do not divide are padded with zeros (graph-pad-products): the GPU
  /// pipeline sets it.
  bool padProducts = false;
  /// ... only what the templates cannot read as it is (sm_90a's warp-specialised GEMM
  /// loads rows of any length and stores C's: graph-pad-products' unaligned-rows).
  bool unalignedRows = false;
  /// A LayerNorm read only by constant-weight products becomes its statistics and a
  /// per-row scale in the products' epilogues (graph-fold-layer-norm-into-products).
  /// Unset: the target's default, on for the GPU pipeline, off for the CPU.
  std::optional<bool> foldNormalizations;
  /// Called with each function's precision and int8 reports (progress lines, the
  /// precision report), when set.
  std::function<void(const graph::PrecisionReport &)> precisionReport;
  std::function<void(const graph::Int8Report &)> int8Report;

  bool int8() const { return int8Thresholds || !calibrationCache.empty(); }
};

/// The points of the GPU pipeline a driver may observe (GpuPipelineOptions::observe).
enum class PipelinePoint {
  /// After the graph stage.
  GraphDone,
  /// After kernel formation: kernel.funcs and the host schedule.
  KernelsFormed,
  /// After kernel-autotune and kernel-select-templates: every kernel has its
  /// `kernel.config`; nothing is lowered yet.
  KernelsConfigured,
  /// After the GPU stage: the host schedule and the kernels in NVVM.
  GpuDone,
};

/// The GPU pipeline's choices (pipeline `kiln-gpu-pipeline`).
struct GpuPipelineOptions {
  GraphStageOptions graph;
  /// The template families: the target (sm_90a, sm_80), tf32, and the choices kernel
  /// developers may force.
  TemplateOptions templates;
  /// The first stage to run (Graph: from the imported model; Gpu: from kernel.funcs, as
  /// the tuner's timing modules) and the last (Graph, Kernel or Gpu).
  Stage from = Stage::Graph;
  Stage to = Stage::Gpu;
  /// kernel-autotune: off, every kernel without a configuration takes its family's default.
  bool autotune = true;
  /// The timing cache file (empty: none) and seconds of GPU measurement at most.
  std::string timingCache;
  double tuneBudget = 0;
  /// Gives the GPU timer, asked only when some kernel has configurations to choose from
  /// and the budget allows measuring (KernelTimerProvider, passes/kernel/Autotune.h;
  /// unset or null: the timing cache, then the cost model decide), and the tuner's
  /// progress lines.
  std::function<KernelTimer *(std::string &why)> timer;
  std::function<void(const std::string &)> tuningProgress;
  /// The device lowering's knobs (its chip is templates.target).
  GpuTargetOptions device;
  /// Called with the module at each point the pipeline passes, when set (reports,
  /// progress, and what the engine needs before the lowering); a failure (reported by
  /// it) stops the pipeline.
  std::function<mlir::LogicalResult(mlir::ModuleOp, PipelinePoint)> observe;
};

/// The graph stage: the graph passes every target runs, then INT8 quantization, reduced
/// precision, the layout and the decomposed quantization as `options` asks.
void addGraphStage(mlir::OpPassManager &pm, const GraphStageOptions &options);

/// The GPU pipeline from `options.from` to `options.to`: the graph stage; kernel
/// formation; kernel-autotune, kernel-select-templates and kernel-instantiate-templates,
/// the generic lowering of every other kernel, the device lowering to NVVM and the
/// buffer plan. Pipeline `kiln-gpu-pipeline`.
void addGpuPipeline(mlir::OpPassManager &pm, const GpuPipelineOptions &options);

/// The graph passes every target runs first: shape inference, folding, pattern
/// recognition, graph-level fusion. Pipeline `kiln-graph-pipeline`.
void addGraphPasses(mlir::OpPassManager &pm);

/// Lowers a graph module to the LLVM dialect for the host CPU: graph to linalg on
/// tensors, one-shot bufferization with ownership-based deallocation, linalg to loops,
/// and the upstream conversions to LLVM. Public functions get C interfaces
/// (`_mlir_ciface_<name>`) for the JIT caller. Pipeline `kiln-lower-to-cpu`.
void addCpuLoweringPasses(mlir::OpPassManager &pm);

/// Lowers a bufferized host module to GPU kernels in the NVVM and LLVM dialects: the
/// compute of each host function becomes gpu.launch ops (gpu-map-loops), outlined into
/// one gpu.module per function with an #nvvm.target for `target`, and each gpu.module
/// is lowered to NVVM with the bare-pointer calling convention (one pointer per memref
/// argument). The host functions stay func.func with gpu.launch_func and memref ops,
/// for the engine builder to read as a schedule. Pipeline `kiln-lower-gpu-device`.
void addGpuDeviceLoweringPasses(mlir::OpPassManager &pm, const GpuTargetOptions &target);

/// Kernel formation: CSE (identical subgraphs computed once), then graph-to-kernel, from a
/// graph module to kernel.func templates and their launches on one host function.
void addKernelFormationPasses(mlir::OpPassManager &pm);

/// From kernel.funcs whose templates are instantiated (or `#kernel.generic`) and their
/// launches to one host function of allocations, weights and loop nests on buffers (the
/// input of gpu-map-loops): the generic lowering of every kernel left. Pipeline
/// `kiln-lower-kernels`.
void addKernelLoweringPasses(mlir::OpPassManager &pm);

/// Registers the pipelines above with the pass registry (for kiln-opt).
void registerPipelines();

} // namespace kiln

#endif // KILN_PASSES_PIPELINES_H
