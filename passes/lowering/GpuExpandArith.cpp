//===- GpuExpandArith.cpp - Expand the arith ops NVPTX cannot select ------===//
//
// Before the kernels go to LLVM, the arith ops that have no LLVM lowering (ceildivsi,
// floordivsi, ceildivui) and the bf16 conversions (not native on every SM) become plain
// integer and float arithmetic. Upstream's arith-expand does that too, but it also turns
// every maximumf/minimumf/maxnumf/minnumf into a compare and a select (two instructions,
// three with NaN handling), while NVPTX selects one: max.f32 / min.f32 for maxnumf and
// minnumf, max.NaN.f32 / min.NaN.f32 for maximumf and minimumf (sm_80 and later). ReLU and
// a requantization's clamp run once per output element in the fused epilogues, so the
// min and max stay.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_GPUEXPANDARITH
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct GpuExpandArith : kiln::impl::GpuExpandArithBase<GpuExpandArith> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
