//===- Pipelines.cpp - The pass pipelines of Kiln's stages ----------------===//

#include "passes/Pipelines.h"

#include "passes/Passes.h"

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
} // namespace

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
/// (materialize_in_destination, the GPU kernels) compute straight into them.
void addGraphToBuffersPasses(OpPassManager &pm, bool inPlaceOutputs) {
  pm.addPass(createGraphToLinalg());
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

} // namespace

void addGraphPasses(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createGraphInferShapes());
  // Before constants fold: a QAT model's weights are DequantizeLinear(int8 constant),
  // which folding would make f32 constants, losing the int8 weights.
  addQuantizedProductPasses(pm);
  pm.addPass(createGraphFoldConstants());
  // Simplify first so that a BatchNorm behind a no-op reshape or cast still meets its
  // conv; folding BatchNorms creates constants directly, so constants need no second round.
  pm.addNestedPass<func::FuncOp>(createGraphSimplify());
  pm.addNestedPass<func::FuncOp>(createGraphFoldBatchNorm());
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
  // Dynamic shapes: the extents the symbolic analysis finds constant become static in the
  // types (every target's lowering then sees a mask's 1s as 1s, not as `?`).
  pm.addNestedPass<func::FuncOp>(createGraphInferSymbolicShapes());
}

void addCpuLoweringPasses(OpPassManager &pm) {
  addGraphToBuffersPasses(pm, /*inPlaceOutputs=*/false);
  bufferization::buildBufferDeallocationPipeline(pm);
  // Results the caller owns are copies (bufferization.clone) where the function did not
  // allocate them itself.
  pm.addPass(createConvertBufferizationToMemRefPass());

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

void addLayoutPasses(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createGraphConvertLayout());
}

void addQuantizedProductPasses(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createGraphHoistQuantization());
  pm.addNestedPass<func::FuncOp>(createGraphFoldQuantizedProducts());
}

void addQuantizationLoweringPasses(OpPassManager &pm) {
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

void addGpuHostLoweringPasses(OpPassManager &pm) {
  addKernelFormationPasses(pm);
  addKernelLoweringPasses(pm);
}

void addKernelLoweringPasses(OpPassManager &pm) {
  // Template-specific code generators run here; every kernel they leave goes through the
  // generic lowering below.
  pm.addPass(createKernelToLinalg());
  addGraphToBuffersPasses(pm, /*inPlaceOutputs=*/true);
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Each kernel's loop nests, merged while the kernel is still its own function.
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
}

void addGpuDeviceLoweringPasses(OpPassManager &pm, const GpuTargetOptions &target) {
  GpuMapLoopsOptions map;
  map.threadsPerBlock = target.threadsPerBlock;
  pm.addNestedPass<func::FuncOp>(createGpuFlattenPointwiseLoops());
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

void registerPipelines() {
  PassPipelineRegistration<>("kiln-graph-pipeline",
                             "The graph passes every target runs (shape inference, ...)",
                             addGraphPasses);
  PassPipelineRegistration<>("kiln-lower-to-cpu",
                             "Lower a graph module to the LLVM dialect for the host CPU",
                             addCpuLoweringPasses);
  PassPipelineRegistration<>(
      "kiln-lower-gpu-host",
      "Form kernels and lower them generically to one host function of buffers and loops",
      addGpuHostLoweringPasses);
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
