//===- Pipelines.cpp - The pass pipelines of Kiln's stages ----------------===//

#include "passes/Pipelines.h"

#include "passes/Passes.h"
#include "passes/graph/QuantizeInt8.h"
#include "passes/graph/ReducePrecision.h"
#include "passes/kernel/AttentionConfig.h"
#include "passes/kernel/Autotune.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;

namespace kiln {

namespace {
/// Marks the public functions of the module for C interfaces, which the JIT caller and
/// C code call with pointers to memref descriptors.
struct EmitCInterfacesPass : PassWrapper<EmitCInterfacesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EmitCInterfacesPass)
  StringRef getArgument() const final { return "kiln-emit-c-interfaces"; }
  void runOnOperation() override {
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (function.isPublic())
        function->setAttr("llvm.emit_c_interface", UnitAttr::get(&getContext()));
  }
};
/// The options of pipeline `kiln-lower-gpu-device` (GpuTargetOptions).
struct GpuDeviceLoweringPipelineOptions : PassPipelineOptions<GpuDeviceLoweringPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("SM to compile for (sm_90a, sm_80)"),
                           llvm::cl::init("sm_90a")};
  Option<std::string> features{*this, "features", llvm::cl::desc("PTX features (+ptx80)"),
                               llvm::cl::init("+ptx80")};
  Option<std::string> libdevice{
      *this, "libdevice",
      llvm::cl::desc("libdevice bitcode to link (default: found in the CUDA toolkit)"),
      llvm::cl::init("")};
  Option<int64_t> threadsPerBlock{*this, "threads-per-block",
                                  llvm::cl::desc("Threads per block of parallel loops"),
                                  llvm::cl::init(256)};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("Optimisation level of the NVPTX backend"),
                            llvm::cl::init(3)};
};

/// The options of pipeline `kiln-gpu-pipeline` (GpuPipelineOptions).
struct GpuPipelineCLOptions : PassPipelineOptions<GpuPipelineCLOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("The GPU target: sm_90a (default) or sm_80"),
                             llvm::cl::init("sm_90a")};
  Option<std::string> precision{*this, "precision", llvm::cl::desc("fp32 (default), fp16 or bf16"),
                                llvm::cl::init("fp32")};
  Option<bool> reducedIO{*this, "reduced-io",
                         llvm::cl::desc("With fp16/bf16: the f32 inputs and outputs too"),
                         llvm::cl::init(false)};
  Option<bool> channelsLast{*this, "channels-last",
                            llvm::cl::desc("Channels-last convolutions (graph-convert-layout)"),
                            llvm::cl::init(false)};
  Option<std::string> calibrationCache{
      *this, "calibration-cache",
      llvm::cl::desc("INT8: quantize with this calibration cache's thresholds"),
      llvm::cl::init("")};
  Option<bool> allowTf32{*this, "allow-tf32",
                         llvm::cl::desc("f32 products and convolutions as tf32"),
                         llvm::cl::init(false)};
  ListOption<std::string> templates{
      *this, "templates",
      llvm::cl::desc("The template families that may take kernels (empty: all)")};
  Option<std::string> gemmConfig{
      *this, "gemm-config",
      llvm::cl::desc("Kernel developers: the GEMM families' configuration of untuned kernels"),
      llvm::cl::init("")};
  Option<std::string> attentionConfig{
      *this, "attention-config",
      llvm::cl::desc("Kernel developers: the flash-attention configuration of every attention"),
      llvm::cl::init("")};
  Option<bool> attentionF32Exp{*this, "attention-f32-exp",
                               llvm::cl::desc("Kernel developers: f32 exp2 in wgmma attention"),
                               llvm::cl::init(false)};
  Option<int64_t> attentionMinCtas{
      *this, "attention-min-ctas",
      llvm::cl::desc("Kernel developers: CTAs an SM for the wgmma attention kernels"),
      llvm::cl::init(0)};
  Option<bool> autotune{*this, "autotune",
                        llvm::cl::desc("Run kernel-autotune (the timing cache, then the cost "
                                       "model: kiln-opt has no GPU timer)"),
                        llvm::cl::init(true)};
  Option<std::string> timingCache{*this, "timing-cache",
                                  llvm::cl::desc("The timing cache file (empty: none)"),
                                  llvm::cl::init("")};
  Option<std::string> from{*this, "from",
                           llvm::cl::desc("The first stage: graph (default), kernel or gpu"),
                           llvm::cl::init("graph")};
  Option<std::string> to{*this, "to",
                         llvm::cl::desc("The last stage: graph, kernel or gpu (default)"),
                         llvm::cl::init("gpu")};
  Option<std::string> libdevice{
      *this, "libdevice",
      llvm::cl::desc("libdevice bitcode to link (default: found in the CUDA toolkit)"),
      llvm::cl::init("")};
};

/// Calls the driver's observer with the module (GpuPipelineOptions::observe). Changes
/// nothing: the pipeline's IR is the same with or without it.
struct ObservePass : PassWrapper<ObservePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ObservePass)
  ObservePass(std::function<LogicalResult(ModuleOp, PipelinePoint)> observe, PipelinePoint point)
      : observe(std::move(observe)), point(point) {}
  StringRef getName() const final { return "KilnObserve"; }
  StringRef getArgument() const final { return "kiln-observe"; }
  StringRef getDescription() const final { return "The driver observes the module"; }
  void runOnOperation() override {
    if (failed(observe(getOperation(), point)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
  std::function<LogicalResult(ModuleOp, PipelinePoint)> observe;
  PipelinePoint point;
};
} // namespace

std::optional<Stage> parseStage(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Stage>>(name)
      .Case("graph", Stage::Graph)
      .Case("linalg", Stage::Linalg)
      .Case("llvm", Stage::LLVM)
      .Case("kernel", Stage::Kernel)
      .Case("gpu", Stage::Gpu)
      .Case("engine", Stage::Engine)
      .Default(std::nullopt);
}

llvm::StringRef stageName(Stage stage) {
  switch (stage) {
  case Stage::Graph:
    return "graph";
  case Stage::Linalg:
    return "linalg";
  case Stage::LLVM:
    return "llvm";
  case Stage::Kernel:
    return "kernel";
  case Stage::Gpu:
    return "gpu";
  case Stage::Engine:
    return "engine";
  }
  llvm_unreachable("unknown stage");
}

std::string findLibdevice() {
  if (const char *path = std::getenv("KILN_LIBDEVICE"))
    return path;
  SmallVector<std::string> roots;
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var))
      roots.push_back(root);
  roots.push_back("/usr/local/cuda");
  for (const std::string &root : roots) {
    SmallString<128> path(root);
    llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::is_regular_file(path))
      return std::string(path);
  }
  return {};
}

namespace {
/// Graph ops to linalg on tensors, fused elementwise, then buffers (one-shot
/// bufferization across function boundaries): the part the CPU and GPU paths share.
/// `inPlaceOutputs`: functions that store results into output buffers
/// (materialize_in_destination, the GPU kernels) compute straight into them. `path`
/// names the path in graph-to-linalg's errors.
void addGraphToBuffersPasses(OpPassManager &pm, bool inPlaceOutputs, StringRef path) {
  GraphToLinalgOptions toLinalg;
  toLinalg.path = path.str();
  pm.addPass(createGraphToLinalg(toLinalg));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLinalgElementwiseOpFusionPass());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion = bufferization::LayoutMapOption::IdentityLayoutMap;
  // Loops that build a new tensor each iteration (Loop's growing scan outputs, Scan's
  // states) yield buffers that are not their iteration arguments' buffers.
  bufferize.allowReturnAllocsFromLoops = true;
  if (inPlaceOutputs)
    pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
}

/// The convolutions of dequantized int8 operands as integer convolutions: after
/// graph-quantize-int8, and early in the graph passes for QAT models.
void addQuantizedProductPasses(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createGraphHoistQuantization());
  pm.addNestedPass<func::FuncOp>(createGraphFoldQuantizedProducts());
}
} // namespace

void addGraphPasses(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createGraphInferShapes());
  // Before constants fold: a QAT model's weights are DequantizeLinear(int8 constant),
  // which folding would make f32 constants, losing the int8 weights.
  addQuantizedProductPasses(pm);
  pm.addPass(createGraphFoldConstants());
  // Extents the shape computations fix become static (a reshape to Concat(batch, 12, -1,
  // 64) gives [?, 12, 197, 64]), and the shape queries of them fold in a second round: the
  // recognizers then see constants (attention's scale, sqrt of the head size).
  pm.addNestedPass<func::FuncOp>(createGraphInferSymbolicShapes());
  pm.addPass(createGraphFoldConstants());
  // Simplify first so that a BatchNorm behind a no-op reshape or cast still meets its
  // conv; folding BatchNorms creates constants directly, so constants need no second round.
  pm.addNestedPass<func::FuncOp>(createGraphSimplify());
  pm.addNestedPass<func::FuncOp>(createGraphFoldBatchNorm());
  // A convolution whose kernel is its stride as a product of patches, once BatchNorms are
  // folded into it: the GEMM templates take it.
  pm.addNestedPass<func::FuncOp>(createGraphPatchifyConvolutions());
  // Transposed convolutions as convolutions of their output phases; then 1-D and 3-D
  // convolutions as 2-D ones, which the layout pass and the templates take.
  pm.addNestedPass<func::FuncOp>(createGraphConvTransposeToConv());
  pm.addNestedPass<func::FuncOp>(createGraphConvolutionsTo2d());
  // Einsums that are products as graph.matmul: the recognizers and templates take those.
  pm.addNestedPass<func::FuncOp>(createGraphEinsumToProducts());
  pm.addNestedPass<func::FuncOp>(createGraphSimplify());
  // Recognition sees the folded constants (GELU's sqrt(2), the normalisations' eps).
  // LayerNorm first: its chain without the mean would look like an RMSNorm.
  pm.addNestedPass<func::FuncOp>(createGraphRecognizeLayerNorm());
  pm.addNestedPass<func::FuncOp>(createGraphRecognizeGelu());
  pm.addNestedPass<func::FuncOp>(createGraphRecognizeActivations());
  // Attention after them: its scale and mask chains are plain arithmetic the others leave
  // alone.
  pm.addNestedPass<func::FuncOp>(createGraphRecognizeAttention());
  // A mask computed from shapes that is exactly causal becomes the attention's flag (with
  // static shapes folding made it a constant, which the kernels recognise themselves).
  pm.addNestedPass<func::FuncOp>(createGraphRecognizeCausalMasks());
  // Matmuls on their unflattened inputs, so that the residual Add after them has the
  // anchor's shape; then siblings on one input merged (the unflattened ones included).
  pm.addNestedPass<func::FuncOp>(createGraphUnflattenMatMuls());
  pm.addNestedPass<func::FuncOp>(createGraphFuseSiblingMatMuls());
  // A key transposed through merged leading axes (GPT-2's) becomes one transpose.
  pm.addNestedPass<func::FuncOp>(createGraphFoldReshapeRoundTrips());
  // Simplify merges the reshapes left behind and the key's transpose with the
  // head-splitting one, and turns Splits into Slices.
  pm.addNestedPass<func::FuncOp>(createGraphSimplify());
  // Grouped-query attention's key and value heads read unrepeated (after simplify has
  // merged the key's transposes, so that the repeat is the attention's operand).
  pm.addNestedPass<func::FuncOp>(createGraphRecognizeGroupedQueryAttention());
  // Dynamic shapes: the extents the symbolic analysis finds constant become static in the
  // types (every target's lowering then sees a mask's 1s as 1s, not as `?`).
  pm.addNestedPass<func::FuncOp>(createGraphInferSymbolicShapes());
}

void addCpuLoweringPasses(OpPassManager &pm) {
  addGraphToBuffersPasses(pm, /*inPlaceOutputs=*/false, "the CPU path");
  bufferization::buildBufferDeallocationPipeline(pm);
  // Results the caller owns are copies (bufferization.clone) where the function did not
  // allocate them itself.
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createOrderConstantGlobals());

  pm.addPass(createCpuStridedCopiesToLoops());
  pm.addPass(createCpuOrderLoops());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createExpandShapesToCasts());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(std::make_unique<EmitCInterfacesPass>());
  // bf16 has no native arithmetic on the host: extensions and truncations become
  // integer operations.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  // Math ops with LLVM intrinsics first (they vectorize), the rest (erf, tan, acosh...)
  // as calls into libm.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void addGraphStage(OpPassManager &pm, const GraphStageOptions &options) {
  addGraphPasses(pm);
  if (options.int8()) {
    // Before reduced precision's constant folding would fold the int8 weights'
    // DequantizeLinear into f32 constants.
    if (options.int8Thresholds) {
      pm.addNestedPass<func::FuncOp>(graph::createQuantizeInt8Pass(
          options.int8Thresholds, options.int8Report, options.int8TensorCoreRows));
    } else {
      GraphQuantizeInt8Options quantize;
      quantize.calibrationCache = options.calibrationCache;
      quantize.tensorCoreRows = options.int8TensorCoreRows;
      pm.addNestedPass<func::FuncOp>(createGraphQuantizeInt8(quantize));
    }
    addQuantizedProductPasses(pm);
  }
  if (options.precision != "fp32") {
    pm.addNestedPass<func::FuncOp>(
        graph::createReducePrecisionPass(options.precision == "fp16"   ? "f16"
                                         : options.precision == "bf16" ? "bf16"
                                                                       : options.precision,
                                         options.reducedIO, options.precisionReport));
    // Casts of constants that were not plain arrays, and cast chains, fold away.
    pm.addPass(createGraphFoldConstants());
    pm.addNestedPass<func::FuncOp>(createGraphSimplify());
  }
  // Half-precision attention (reduced above, or as the model has it) whose head size no
  // flash kernel takes becomes products on the GEMM templates (padded below like the
  // others, under a reduced precision).
  if (options.decomposeAttention) {
    GraphDecomposeAttentionOptions limits;
    limits.headDimMultiple = kFlashAttentionHeadDimMultiple;
    limits.maxHeadDim = options.attentionMaxHeadDim;
    pm.addNestedPass<func::FuncOp>(createGraphDecomposeAttention(limits));
  }
  if (options.precision != "fp32") {
    // Sequence-first exports' transposes around the projections, moved to the attention's
    // head split and merge: views the flash-attention template takes (half precision
    // only; in f32 the generic products take a transpose as their prologue, and a
    // generic attention kernel would copy each view in a loop nest of its own).
    pm.addNestedPass<func::FuncOp>(createGraphMoveRowTransposes());
  }
  if (options.padProducts) {
    // Half-precision products (reduced above, or as the model has them) whose N or K the
    // templates' 16-byte rows do not divide, padded with zeros; convolutions sliced after
    // only where they become channels last (for the templates).
    GraphPadProductsOptions pad;
    pad.sliceConvolutions = options.channelsLast;
    pad.unalignedRows = options.unalignedRows;
    pm.addNestedPass<func::FuncOp>(createGraphPadProducts(pad));
  }
  if (options.precision != "fp32" || options.padProducts)
    pm.addNestedPass<func::FuncOp>(createGraphSimplify());
  // After the precision and the padding: the folded weights are the products' final ones.
  if (options.foldNormalizations.value_or(false))
    pm.addNestedPass<func::FuncOp>(createGraphFoldLayerNormIntoProducts());
  // The layout before the quantization is decomposed: its transposes sink through the
  // undecomposed ops.
  if (options.channelsLast) {
    pm.addNestedPass<func::FuncOp>(createGraphConvertLayout());
    // A model that reads a convolution's result back as tokens (a ViT's patch embedding)
    // transposes the channels-last result to NCHW and back through reshapes: one
    // transpose, which simplify then cancels against the next.
    pm.addNestedPass<func::FuncOp>(createGraphFoldReshapeRoundTrips());
    pm.addNestedPass<func::FuncOp>(createGraphSimplify());
  }
  // Quantize and dequantize as pointwise ops, which kernel formation fuses into the
  // integer convolutions' epilogues.
  pm.addNestedPass<func::FuncOp>(createGraphDecomposeQuantization());
  // A DequantizeLinear of a constant that no integer conv took (a classifier's or a
  // depthwise conv's int8 weight) is now arithmetic on constants: folded, it is a float
  // weight instead of a kernel that dequantizes it on every run. Weights are larger than
  // the default limit's shape computations (a classifier's 1000 x 2048).
  GraphFoldConstantsOptions weights;
  weights.maxElements = int64_t(1) << 26;
  pm.addPass(createGraphFoldConstants(weights));
}

void addKernelFormationPasses(OpPassManager &pm) {
  // Identical subgraphs (the attention mask every layer rebuilds) computed once.
  pm.addPass(createCSEPass());
  // Dynamic shapes: the extents the symbolic analysis finds constant become static in the
  // types (a mask's [batch, 1, sequence, sequence]), so kernels and views keep them.
  pm.addNestedPass<func::FuncOp>(createGraphInferSymbolicShapes());
  pm.addPass(createGraphToKernel());
}

void addKernelLoweringPasses(OpPassManager &pm) {
  // The kernels no template family generated go through the generic lowering.
  pm.addPass(createKernelToLinalg());
  addGraphToBuffersPasses(pm, /*inPlaceOutputs=*/true,
                          "the GPU path (a kernel no template takes, lowered generically)");
  // A result that is a reshape of what the kernel computed: computed in place.
  pm.addNestedPass<func::FuncOp>(createElideOutputCopies());
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Each kernel's loop nests, merged while the kernel is still its own function; the
  // outputs' loops outside the reductions, so that each output is a thread.
  pm.addNestedPass<func::FuncOp>(createGpuInterchangeReductions());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createGpuPromoteAccumulators());
  pm.addNestedPass<func::FuncOp>(createGpuFuseLoopNests());
  // One host function: the kernels' bodies inlined into the schedule, so that their
  // temporaries are buffers the memory plan sees and their loops are what gpu-map-loops
  // turns into launches. Nothing is deallocated: the plan reuses memory by liveness.
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createOrderConstantGlobals());
}

namespace {
/// Whether `chip` (sm_XY, sm_XYa) has griddepcontrol: sm_90 and later.
bool supportsProgrammaticLaunch(StringRef chip) {
  unsigned version = 0;
  return chip.consume_front("sm_") && !chip.take_while(llvm::isDigit).getAsInteger(10, version) &&
         version >= 90;
}
} // namespace

void addGpuDeviceLoweringPasses(OpPassManager &pm, const GpuTargetOptions &target) {
  GpuMapLoopsOptions map;
  map.threadsPerBlock = target.threadsPerBlock;
  pm.addNestedPass<func::FuncOp>(createGpuHoistAllocations());
  pm.addNestedPass<func::FuncOp>(createGpuPredicateBranches());
  pm.addNestedPass<func::FuncOp>(createGpuFlattenPointwiseLoops());
  pm.addNestedPass<func::FuncOp>(createGpuMergeShortRows());
  pm.addNestedPass<func::FuncOp>(createGpuTileTransposes());
  pm.addNestedPass<func::FuncOp>(createGpuVectorizePointwiseLoops());
  pm.addNestedPass<func::FuncOp>(createGpuSerializeInvariantDims());
  pm.addNestedPass<func::FuncOp>(createGpuBlockReductions());
  pm.addNestedPass<func::FuncOp>(createGpuMapLoops(map));
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createGpuPassBufferExtents());
  // One constant per launch size on the host, for the engine builder to read (after
  // outlining: before, CSE would merge kernel constants into host ones, which
  // outlining then passes as arguments).
  pm.addNestedPass<func::FuncOp>(createCSEPass());

  // libdevice goes into the target's link list, so that whoever serialises the module
  // (kiln, kiln-translate --emit-ptx, gpu-module-to-binary) links the math functions
  // without depending on CUDA_HOME.
  GpuNVVMAttachTargetOptions attach;
  attach.chip = target.chip;
  attach.features = target.features;
  attach.optLevel = target.optLevel;
  std::string libdevice = target.libdevice.empty() ? findLibdevice() : target.libdevice;
  if (!libdevice.empty())
    attach.linkLibs.push_back(libdevice);
  pm.addPass(createGpuNVVMAttachTarget(attach));

  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // Hopper and later: every kernel waits for the grids before it on the GPU, so that the
  // engine may launch it while they finish (programmatic dependent launch).
  if (supportsProgrammaticLaunch(target.chip))
    kernels.addPass(createGpuProgrammaticLaunch());
  // The tensor-core templates' nvgpu ops (TMA, mbarriers, wgmma) to NVVM first, while
  // their control flow is still structured (after scf-to-cf the conversion leaves the
  // kernels' tensor-map arguments unconverted).
  kernels.addPass(createConvertNVGPUToNVVMPass());
  kernels.addPass(createConvertLinalgToLoopsPass());
  kernels.addPass(createExpandShapesToCasts());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  // bf16 conversions as integer operations (cvt to and from bf16 is not native on
  // every SM); ceildiv, floordiv and friends have no LLVM lowering of their own. Min and
  // max stay: NVPTX has instructions for them.
  // erf as a branch-free rational function (GELU's, in GEMM epilogues), not libdevice's.
  kernels.addPass(createGpuApproximateErf());
  kernels.addPass(createGpuExpandArith());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  // Math ops become libdevice calls (__nv_expf, ...), f16 and bf16 ones on f32.
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  // NVVM ops without an LLVM intrinsic (mbarrier waits, wgmma fences) as inline PTX.
  kernels.addPass(createConvertNVVMToLLVMPass());
  // What has no libdevice function and no NVVM pattern (math.trunc, ...) maps to an
  // LLVM intrinsic NVPTX selects natively.
  kernels.addPass(createConvertMathToLLVMPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  // Dynamic shared memory after the static variables, which are declared 16-byte aligned.
  kernels.addPass(createGpuSharedMemorySymbols());
}

void addGpuPipeline(OpPassManager &pm, const GpuPipelineOptions &options) {
  auto observe = [&](PipelinePoint point) {
    if (options.observe)
      pm.addPass(std::make_unique<ObservePass>(options.observe, point));
  };
  auto runs = [&](Stage stage) { return options.from <= stage && stage <= options.to; };
  if (runs(Stage::Graph)) {
    // INT8 on the GPU: products the int8 templates cannot take stay in floats.
    GraphStageOptions graph = options.graph;
    graph.int8TensorCoreRows = true;
    graph.decomposeAttention = true;
    graph.padProducts = true;
    if (!graph.foldNormalizations)
      graph.foldNormalizations = true;
    graph.unalignedRows = StringRef(options.templates.target).starts_with("sm_90");
    graph.attentionMaxHeadDim = flashAttentionMaxHeadDim(options.templates.target);
    addGraphStage(pm, graph);
    observe(PipelinePoint::GraphDone);
  }
  if (runs(Stage::Kernel)) {
    addKernelFormationPasses(pm);
    observe(PipelinePoint::KernelsFormed);
  }
  if (!runs(Stage::Gpu))
    return;
  // Each kernel's configuration: the timing cache, GPU measurement or the cost model for
  // the kernels with a choice; the family's default for the rest.
  const TemplateOptions &templates = options.templates;
  auto setTemplateOptions = [&](auto &passOptions) {
    passOptions.target = templates.target;
    passOptions.allowTf32 = templates.allowTf32;
    passOptions.templates.assign(templates.templates.begin(), templates.templates.end());
    passOptions.gemmConfig = templates.gemmConfig;
    passOptions.attentionConfig = templates.attentionConfig;
    passOptions.attentionF32Exp = templates.attentionF32Exp;
    passOptions.attentionMinCtas = templates.attentionMinCtas;
  };
  if (options.autotune) {
    KernelAutotuneOptions tune;
    setTemplateOptions(tune);
    tune.timingCache = options.timingCache;
    tune.budget = options.tuneBudget;
    pm.addPass(createKernelAutotune(tune, options.timer, options.tuningProgress));
  }
  KernelSelectTemplatesOptions select;
  setTemplateOptions(select);
  pm.addPass(createKernelSelectTemplates(select));
  observe(PipelinePoint::KernelsConfigured);
  KernelInstantiateTemplatesOptions instantiate;
  setTemplateOptions(instantiate);
  pm.addPass(createKernelInstantiateTemplates(instantiate));
  addKernelLoweringPasses(pm);
  GpuTargetOptions device = options.device;
  device.chip = templates.target;
  addGpuDeviceLoweringPasses(pm, device);
  pm.addNestedPass<func::FuncOp>(createKernelPlanBuffers());
  observe(PipelinePoint::GpuDone);
}

void registerKilnPasses() {
  registerGraphPasses();
  registerLoweringPasses();
  registerKernelPasses();
}

void registerPipelines() {
  PassPipelineRegistration<>("kiln-graph-pipeline",
                             "The graph passes every target runs (shape inference, ...)",
                             addGraphPasses);
  PassPipelineRegistration<>("kiln-lower-to-cpu",
                             "Lower a graph module to the LLVM dialect for the host CPU",
                             addCpuLoweringPasses);
  PassPipelineRegistration<>(
      "kiln-lower-kernels",
      "Lower kernel.funcs (templates instantiated or generic) and their launches to one host "
      "function of buffers and loops",
      addKernelLoweringPasses);
  PassPipelineRegistration<GpuPipelineCLOptions>(
      "kiln-gpu-pipeline",
      "What kiln compile runs for a GPU target, from an imported model (or a later stage) "
      "to the gpu stage: graph passes, kernel formation, tuning, templates, lowering",
      [](OpPassManager &pm, const GpuPipelineCLOptions &cl) {
        GpuPipelineOptions options;
        options.graph.precision = cl.precision;
        options.graph.reducedIO = cl.reducedIO;
        options.graph.channelsLast = cl.channelsLast;
        options.graph.calibrationCache = cl.calibrationCache;
        options.templates.target = cl.target;
        options.templates.allowTf32 = cl.allowTf32;
        options.templates.templates.assign(cl.templates.begin(), cl.templates.end());
        options.templates.gemmConfig = cl.gemmConfig;
        options.templates.attentionConfig = cl.attentionConfig;
        options.templates.attentionF32Exp = cl.attentionF32Exp;
        options.templates.attentionMinCtas = cl.attentionMinCtas;
        options.autotune = cl.autotune;
        options.timingCache = cl.timingCache;
        options.device.libdevice = cl.libdevice;
        // Unknown stage names fall back to the whole pipeline; the stage options are
        // checked by the tools that take them from users.
        options.from = parseStage(cl.from).value_or(Stage::Graph);
        options.to = parseStage(cl.to).value_or(Stage::Gpu);
        addGpuPipeline(pm, options);
      });
  PassPipelineRegistration<GpuDeviceLoweringPipelineOptions>(
      "kiln-lower-gpu-device",
      "Map the compute of bufferized host functions to kernels and lower them to NVVM",
      [](OpPassManager &pm, const GpuDeviceLoweringPipelineOptions &options) {
        GpuTargetOptions target;
        target.chip = options.chip;
        target.features = options.features;
        target.libdevice = options.libdevice;
        target.threadsPerBlock = options.threadsPerBlock;
        target.optLevel = options.optLevel;
        addGpuDeviceLoweringPasses(pm, target);
      });
}

} // namespace kiln
