//===- GpuPassBufferExtents.cpp - Dynamic buffers as bases and extents ----===//
//
// Kernels are lowered with the bare-pointer calling convention (one pointer a memref),
// which takes memrefs of static shape only. A kernel argument of dynamic shape becomes a
// `memref<1xT>` base (a host view of the buffer's start, the same address) and one index
// argument per dynamic extent; the kernel rebuilds the buffer from them.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"
#include "passes/lowering/RowMajorView.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

namespace kiln {
#define GEN_PASS_DEF_GPUPASSBUFFEREXTENTS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The type a dynamic buffer argument of type `type` is passed as.
MemRefType getBaseType(MemRefType type) {
  return MemRefType::get({1}, type.getElementType(), MemRefLayoutAttrInterface(),
                         type.getMemorySpace());
}

/// The positions of `kernel`'s arguments of dynamic shape.
SmallVector<unsigned> getDynamicArguments(gpu::GPUFuncOp kernel) {
  SmallVector<unsigned> positions;
  for (auto [index, type] : llvm::enumerate(kernel.getArgumentTypes()))
    if (auto memref = dyn_cast<MemRefType>(type); memref && !memref.hasStaticShape())
      positions.push_back(index);
  return positions;
}

/// Passes the buffers at `positions` of `launch` as bases, with their dynamic extents
/// appended to the operands.
void rewriteLaunch(gpu::LaunchFuncOp launch, ArrayRef<unsigned> positions) {
  OpBuilder builder(launch);
  Location loc = launch.getLoc();
  SmallVector<Value> operands(launch.getKernelOperands()), extents;
  for (unsigned position : positions) {
    Value buffer = operands[position];
    auto type = cast<MemRefType>(buffer.getType());
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      if (type.isDynamicDim(dim))
        extents.push_back(memref::DimOp::create(builder, loc, buffer, dim));
    operands[position] = memref::ReinterpretCastOp::create(
        builder, loc, getBaseType(type), buffer, /*offset=*/0, /*sizes=*/{1}, /*strides=*/{1});
  }
  operands.append(extents);
  launch.getKernelOperandsMutable().assign(operands);
}

/// Gives `kernel` bases and extents in place of its buffers at `positions`, and rebuilds
/// the buffers at its start.
void rewriteKernel(gpu::GPUFuncOp kernel, ArrayRef<unsigned> positions) {
  Location loc = kernel.getLoc();
  OpBuilder builder(kernel.getContext());
  unsigned numArguments = kernel.getNumArguments();
  // The extents go after the other arguments (before the memory attributions).
  SmallVector<unsigned> extentPositions;
  SmallVector<Type> extentTypes;
  SmallVector<DictionaryAttr> extentAttrs;
  SmallVector<Location> extentLocs;
  for (unsigned position : positions) {
    auto type = cast<MemRefType>(kernel.getArgumentTypes()[position]);
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      if (type.isDynamicDim(dim)) {
        extentPositions.push_back(numArguments);
        extentTypes.push_back(builder.getIndexType());
        extentAttrs.push_back(builder.getDictionaryAttr({}));
        extentLocs.push_back(loc);
      }
  }
  if (failed(kernel.insertArguments(extentPositions, extentTypes, extentAttrs, extentLocs)))
    llvm_unreachable("gpu.func takes appended arguments");

  Block &entry = kernel.getBody().front();
  builder.setInsertionPointToStart(&entry);
  SmallVector<Type> argumentTypes(kernel.getArgumentTypes());
  unsigned nextExtent = numArguments;
  for (unsigned position : positions) {
    BlockArgument argument = entry.getArgument(position);
    auto type = cast<MemRefType>(argument.getType());
    SmallVector<OpFoldResult> sizes;
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      sizes.push_back(type.isDynamicDim(dim) ? OpFoldResult(entry.getArgument(nextExtent++))
                                             : builder.getIndexAttr(type.getDimSize(dim)));
    argument.setType(getBaseType(type));
    argumentTypes[position] = argument.getType();
    Value buffer = kiln::createRowMajorView(builder, loc, type, argument, sizes);
    argument.replaceAllUsesExcept(buffer, buffer.getDefiningOp());
  }
  kernel.setFunctionType(builder.getFunctionType(argumentTypes, {}));
}

struct GpuPassBufferExtents : kiln::impl::GpuPassBufferExtentsBase<GpuPassBufferExtents> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    // Every kernel's dynamic arguments, found before any is rewritten.
    llvm::MapVector<gpu::GPUFuncOp, SmallVector<unsigned>> kernels;
    SmallVector<gpu::LaunchFuncOp> launches;
    bool failed = false;
    getOperation().walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(launch, launch.getKernel());
      if (!kernel)
        return;
      auto found = kernels.find(kernel);
      if (found == kernels.end())
        found = kernels.insert({kernel, getDynamicArguments(kernel)}).first;
      if (found->second.empty())
        return;
      for (unsigned position : found->second)
        if (!cast<MemRefType>(kernel.getArgumentTypes()[position]).getLayout().isIdentity()) {
          launch.emitError("gpu-pass-buffer-extents: kernel '")
              << kernel.getName() << "' takes a buffer of dynamic shape and layout "
              << kernel.getArgumentTypes()[position] << "; only base buffers can be passed";
          failed = true;
          return;
        }
      launches.push_back(launch);
    });
    if (failed)
      return signalPassFailure();
    for (gpu::LaunchFuncOp launch : launches) {
      auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(launch, launch.getKernel());
      rewriteLaunch(launch, kernels.lookup(kernel));
    }
    for (auto &[kernel, positions] : kernels)
      if (!positions.empty())
        rewriteKernel(kernel, positions);
  }
};

} // namespace
