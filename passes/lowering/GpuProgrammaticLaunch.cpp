//===- GpuProgrammaticLaunch.cpp - Kernels that wait for the grids before them --------===//
//
// An engine runs its kernels back to back on one stream, most of them short at small
// batches (GPT-2 at one sequence: ~100 launches of 3-10 us). Each boundary costs the next
// grid's launch: its CTAs are scheduled only once the previous grid has finished. With
// programmatic dependent launch (sm_90) the next grid may be scheduled while the
// previous one's last CTAs run, and waits for it on the GPU instead: the engine launches
// a kernel with programmatic stream serialization when its first act is
// `griddepcontrol.wait` (which returns once the grids before it have completed and their
// memory is visible; at once when there are none).
//
// This pass makes every kernel of a gpu.module begin with that wait, preceded by
// `griddepcontrol.launch_dependents` (the grid after may be scheduled once every CTA of
// this one has been: none of it waits on CTAs that are not running), and marks the
// module (kernel.programmatic_launch) for the engine builder. Nothing of the kernel touches
// memory before the wait, so it is correct for any kernel, whatever it reads and writes.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"

namespace kiln {
#define GEN_PASS_DEF_GPUPROGRAMMATICLAUNCH
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct GpuProgrammaticLaunch : kiln::impl::GpuProgrammaticLaunchBase<GpuProgrammaticLaunch> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    for (auto kernel : module.getOps<gpu::GPUFuncOp>()) {
      if (!kernel.isKernel() || kernel.getBody().empty())
        continue;
      OpBuilder builder = OpBuilder::atBlockBegin(&kernel.getBody().front());
      Location loc = kernel.getLoc();
      NVVM::GriddepcontrolOp::create(builder, loc, NVVM::GridDepActionKind::launch_dependents);
      NVVM::GriddepcontrolOp::create(builder, loc, NVVM::GridDepActionKind::wait);
    }
    module->setAttr(kiln::kernel::kProgrammaticLaunchAttr, UnitAttr::get(module.getContext()));
  }
};

} // namespace
