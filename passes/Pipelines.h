//===- Pipelines.h - The pass pipelines of Kiln's stages --------*- C++ -*-===//
//
// The passes of each stage, in order, as functions that fill a pass manager: `kiln`
// runs them, and kiln-opt exposes them as named pipelines so any stage can be replayed
// on a module written by `kiln compile --compile-to=...`.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_PIPELINES_H
#define KILN_PASSES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

#include <string>

namespace kiln {

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

/// The graph passes every target runs: shape inference (and, as they land, folding,
/// pattern recognition and fusion). Pipeline `kiln-graph-pipeline`.
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

/// The layout change `kiln compile --channels-last` asks for, after the graph passes:
/// graph-convert-layout (channels-last convolutions). Not in the default pipelines: the
/// generic GPU convolution loops run faster channels first
/// (docs/notebook/2026-11-22-05-transformer-fusion-channels-last.md); it is for kernels
/// that read NHWC.
void addLayoutPasses(mlir::OpPassManager &pm);

/// After graph-quantize-int8 (and early in addGraphPasses, for QAT models): the
/// convolutions of dequantized int8 operands as integer convolutions
/// (graph-fold-quantized-products).
void addQuantizedProductPasses(mlir::OpPassManager &pm);

/// After the layout passes, on every target: quantize_linear and dequantize_linear as
/// pointwise ops (graph-decompose-quantization), which kernel formation fuses into the
/// integer convolutions' epilogues.
void addQuantizationLoweringPasses(mlir::OpPassManager &pm);

/// Kernel formation: CSE (identical subgraphs computed once), then graph-to-kernel, from a graph
/// module to kernel.func templates and their launches on one host function.
void addKernelFormationPasses(mlir::OpPassManager &pm);

/// Kernel formation and the generic lowering of every kernel, up to one host function of
/// allocations, weights and loop nests on buffers (the input of gpu-map-loops).
void addGpuHostLoweringPasses(mlir::OpPassManager &pm);

/// addGpuHostLoweringPasses without kernel formation: from kernel.func templates and
/// their launches to the host function of buffers and loops.
void addKernelLoweringPasses(mlir::OpPassManager &pm);

/// Registers the pipelines above with the pass registry (for kiln-opt).
void registerPipelines();

} // namespace kiln

#endif // KILN_PASSES_PIPELINES_H
