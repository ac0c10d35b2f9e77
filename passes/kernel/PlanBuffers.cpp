//===- PlanBuffers.cpp - Place intermediates in one arena by liveness -----===//
//
// The host schedule runs in order on one stream, so a buffer is needed from the first op
// that uses it to the last: two buffers whose intervals do not overlap can share memory.
// Buffers are placed largest first, each at the lowest aligned offset that does not
// overlap a placed buffer live at the same time (first fit, as TensorFlow Lite's arena
// planner and TensorRT's do); the arena is the highest end.
//
// A buffer of dynamic shape is planned at its largest: its extents (index arithmetic on
// the inputs' extents) evaluated at the inputs' `kernel.max_shape`, the profile's
// largest shape. Every smaller shape fits the same offsets.
//
//===----------------------------------------------------------------------===//

#include "dialects/kernel/KernelDialect.h"
#include "passes/analysis/ShapeProgram.h"
#include "passes/kernel/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace kiln {
#define GEN_PASS_DEF_KERNELPLANBUFFERS
#include "passes/kernel/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Device allocations start at multiples of this, enough for any vector access.
constexpr int64_t kAlignment = 256;

int64_t alignTo(int64_t value) { return (value + kAlignment - 1) / kAlignment * kAlignment; }

/// The bytes of a buffer of type `type` whose dynamic extents are at most `maxSizes`:
/// i1 and other sub-byte types take a byte each, as LLVM stores them.
std::optional<int64_t> getSizeInBytes(MemRefType type, ArrayRef<int64_t> maxSizes = {}) {
  Type element = type.getElementType();
  int64_t elementBytes;
  if (element.isIndex())
    elementBytes = 8; // index is i64 in the NVPTX and host data layouts Kiln uses
  else if (auto complex = dyn_cast<ComplexType>(element))
    elementBytes = 2 * ((complex.getElementType().getIntOrFloatBitWidth() + 7) / 8);
  else if (element.isIntOrFloat())
    elementBytes = (element.getIntOrFloatBitWidth() + 7) / 8;
  else
    return std::nullopt;
  int64_t bytes = elementBytes;
  const int64_t *nextSize = maxSizes.begin();
  for (int64_t extent : type.getShape())
    bytes *= ShapedType::isDynamic(extent) ? std::max<int64_t>(*nextSize++, 0) : extent;
  return bytes;
}

struct Interval {
  memref::AllocOp alloc;
  int64_t size = 0;
  unsigned first = 0, last = 0;
  int64_t offset = 0;
};

struct KernelPlanBuffersPass : kiln::impl::KernelPlanBuffersBase<KernelPlanBuffersPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    Block &body = function.getBody().front();

    // Position of each top-level op, and the buffer each view reads.
    llvm::DenseMap<Operation *, unsigned> position;
    for (auto [index, op] : llvm::enumerate(body))
      position[&op] = index;
    llvm::DenseMap<Value, unsigned> intervalOf;
    SmallVector<Interval> intervals;
    kiln::ProfileShapeEvaluator evaluator(function, kiln::kernel::kMaxShapeAttr);
    for (Operation &op : body) {
      auto alloc = dyn_cast<memref::AllocOp>(op);
      if (!alloc)
        continue;
      SmallVector<int64_t> maxSizes;
      for (Value size : alloc.getDynamicSizes()) {
        // The polynomials of kernel formation grow with every extent: at the max shape,
        // every buffer is at its largest.
        FailureOr<int64_t> largest = evaluator.evaluate(size, alloc);
        if (failed(largest))
          return signalPassFailure();
        // A size read back from the device that nothing bounds (a Range of computed
        // limits, a Loop's trip count from a tensor) evaluates as unread.
        if (*largest >= kiln::engine::kUnreadDeviceValue) {
          alloc.emitError("data-dependent shape: the size of this buffer comes from a value "
                          "computed on the GPU with no upper bound, so the memory plan "
                          "cannot place it");
          return signalPassFailure();
        }
        maxSizes.push_back(*largest);
      }
      std::optional<int64_t> size = getSizeInBytes(alloc.getType(), maxSizes);
      if (!size || !alloc.getSymbolOperands().empty()) {
        alloc.emitError("the memory plan needs buffers of numeric elements, not ")
            << alloc.getType();
        return signalPassFailure();
      }
      unsigned index = position[&op];
      intervalOf[alloc.getResult()] = intervals.size();
      // The interval starts at the first use; an unused buffer lives at its allocation.
      intervals.push_back({alloc, alignTo(std::max<int64_t>(*size, 1)),
                           std::numeric_limits<unsigned>::max(), index, 0});
    }

    // Extend each interval to its last use, through views and tensor maps (their uses are
    // the buffer's uses) and through uses nested in regions (at their top-level op).
    for (Operation &op : body) {
      unsigned index = position[&op];
      op.walk([&](Operation *nested) {
        for (Value operand : nested->getOperands()) {
          auto found = intervalOf.find(operand);
          if (found == intervalOf.end())
            continue;
          Interval &interval = intervals[found->second];
          interval.first = std::min(interval.first, index);
          interval.last = std::max(interval.last, index);
          // Values that stand for the buffer carry its uses: views, and the tensor maps
          // Hopper kernels read it through.
          bool standsForBuffer = isa<nvgpu::TmaCreateDescriptorOp>(nested);
          if (auto view = dyn_cast<ViewLikeOpInterface>(nested))
            standsForBuffer |= view.getViewSource() == operand;
          if (standsForBuffer)
            for (Value result : nested->getResults())
              intervalOf[result] = found->second;
        }
      });
    }

    for (Interval &interval : intervals)
      interval.first = std::min(interval.first, interval.last);

    // Largest first; ties by start, so the plan does not depend on hash order.
    SmallVector<unsigned> order(intervals.size());
    for (unsigned i = 0; i < order.size(); ++i)
      order[i] = i;
    llvm::stable_sort(
        order, [&](unsigned a, unsigned b) { return intervals[a].size > intervals[b].size; });
    SmallVector<unsigned> placed;
    int64_t arenaBytes = 0, unplannedBytes = 0;
    for (unsigned index : order) {
      Interval &interval = intervals[index];
      unplannedBytes += interval.size;
      // The placed buffers live at the same time, by offset; take the first gap.
      SmallVector<std::pair<int64_t, int64_t>> busy;
      for (unsigned other : placed) {
        const Interval &o = intervals[other];
        if (o.first <= interval.last && interval.first <= o.last)
          busy.push_back({o.offset, o.offset + o.size});
      }
      llvm::sort(busy);
      int64_t offset = 0;
      for (auto [begin, end] : busy) {
        if (offset + interval.size <= begin)
          break;
        offset = std::max(offset, end);
      }
      interval.offset = offset;
      arenaBytes = std::max(arenaBytes, offset + interval.size);
      placed.push_back(index);
    }

    OpBuilder builder(&getContext());
    for (Interval &interval : intervals)
      interval.alloc->setAttr(kiln::kernel::kArenaOffsetAttr,
                              builder.getI64IntegerAttr(interval.offset));
    function->setAttr(kiln::kernel::kArenaBytesAttr, builder.getI64IntegerAttr(arenaBytes));
    function->setAttr(kiln::kernel::kUnplannedBytesAttr, builder.getI64IntegerAttr(unplannedBytes));
  }
};

} // namespace
