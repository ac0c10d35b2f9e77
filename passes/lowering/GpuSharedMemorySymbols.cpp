//===- GpuSharedMemorySymbols.cpp - Shared memory globals NVPTX lays out right -===//
//
// convert-gpu-to-nvvm leaves a kernel's shared memory as LLVM globals in address space
// 3: one per workgroup attribution (internal, no explicit alignment) and, for
// gpu.dynamic_shared_memory, `__dynamic_shmem__N`, an internal zero-length byte array.
// Two things go wrong when NVPTX prints them as they are:
//
//  - The zero-length array becomes `.shared .b8 __dynamic_shmem__N;`, a one-byte static
//    variable, not the start of the dynamic shared memory (which the driver places after
//    all static variables). A kernel that has both reads and writes its dynamic memory
//    over its static variables (the row kernels: the row in dynamic memory, the warps'
//    partial results in a workgroup attribution).
//  - A global without explicit alignment is assumed 16-byte aligned by LLVM when it is
//    larger than 16 bytes (DataLayout::getPreferredAlign), so the load/store vectorizer
//    merges four f32 accesses into one 16-byte access, while NVPTX declares the variable
//    with its element's alignment (4): a misaligned address at run time.
//
// This pass makes the dynamic symbol an external declaration (`.extern .shared ... []`,
// what CUDA's `extern __shared__` is) and gives every static shared global at least
// 16-byte alignment, explicitly.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace kiln {
#define GEN_PASS_DEF_GPUSHAREDMEMORYSYMBOLS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Alignment of every static shared global: what LLVM assumes of the large ones.
constexpr uint64_t kSharedAlignment = 16;

/// The symbol gpu.dynamic_shared_memory lowers to: a zero-length array, no initializer.
bool isDynamicSharedSymbol(LLVM::GlobalOp global) {
  auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  return array && array.getNumElements() == 0 && !global.getValueOrNull() &&
         !global.getInitializerBlock();
}

struct GpuSharedMemorySymbols : kiln::impl::GpuSharedMemorySymbolsBase<GpuSharedMemorySymbols> {
  void runOnOperation() override {
    getOperation().walk([](LLVM::GlobalOp global) {
      if (global.getAddrSpace() != static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared))
        return;
      if (isDynamicSharedSymbol(global)) {
        global.setLinkage(LLVM::Linkage::External);
        return;
      }
      if (global.getAlignment().value_or(0) < kSharedAlignment)
        global.setAlignment(kSharedAlignment);
    });
  }
};

} // namespace
