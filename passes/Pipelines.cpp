//===- Pipelines.cpp - The pass pipelines of Kiln's stages ----------------===//

#include "passes/Pipelines.h"

#include "passes/Passes.h"

#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

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
} // namespace

void addGraphPasses(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createGraphInferShapes());
  pm.addPass(createGraphFoldConstants());
}

void addCpuLoweringPasses(OpPassManager &pm) {
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
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::buildBufferDeallocationPipeline(pm);
  // Results the caller owns are copies (bufferization.clone) where the function did not
  // allocate them itself.
  pm.addPass(createConvertBufferizationToMemRefPass());

  pm.addPass(createCpuStridedCopiesToLoops());
  pm.addPass(createCpuOrderLoops());
  pm.addPass(createConvertLinalgToLoopsPass());
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

void addGpuHostLoweringPasses(OpPassManager &pm) {
  pm.addPass(createGraphToKernel());
  // Template-specific code generators run here; every kernel they leave goes through the
  // generic lowering below.
  pm.addPass(createKernelToLinalg());
  pm.addPass(createGraphToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLinalgElementwiseOpFusionPass());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion = bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.allowReturnAllocsFromLoops = true;
  // Each kernel's last op computes straight into the output buffer instead of into a
  // new tensor copied there.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createConvertBufferizationToMemRefPass());
  // One host function: the kernels' bodies inlined into the schedule, so that their
  // temporaries are buffers the memory plan sees and their loops are what gpu-map-loops
  // turns into launches. Nothing is deallocated: the plan reuses memory by liveness.
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createCanonicalizerPass());
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
}

} // namespace kiln
