//===- KernelDialect.cpp - The kernel dialect -----------------------------===//

#include "dialects/kernel/KernelDialect.h"
#include "dialects/kernel/KernelOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln::kernel;

#include "dialects/kernel/KernelDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/kernel/KernelAttrs.cpp.inc"

void KernelDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/kernel/KernelOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/kernel/KernelAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// ConfigAttr
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>> kiln::kernel::parseTile(AsmParser &parser) {
  SmallVector<int64_t> tile;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     [&] { return parser.parseInteger(tile.emplace_back()); }))
    return failure();
  return tile;
}

void kiln::kernel::printTile(AsmPrinter &printer, ArrayRef<int64_t> tile) {
  printer << "[";
  llvm::interleaveComma(tile, printer);
  printer << "]";
}

//===----------------------------------------------------------------------===//
// ConfigAttr verifier
//===----------------------------------------------------------------------===//

LogicalResult ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> tile, int64_t stages, int64_t warps,
                                 int64_t splitK, int64_t swizzle) {
  if (tile.empty())
    return emitError() << "tile must have at least one extent";
  if (llvm::any_of(tile, [](int64_t extent) { return extent < 1; }))
    return emitError() << "tile extents must be positive";
  if (stages < 1)
    return emitError() << "stages must be at least 1, got " << stages;
  // A block holds at most 1024 threads, i.e. 32 warps; schedules split warps in halves
  // and quarters (warpgroups), so the count is a power of two.
  if (warps < 1 || warps > 32 || !llvm::isPowerOf2_64(warps))
    return emitError() << "warps must be a power of two from 1 to 32, got " << warps;
  if (splitK < 1)
    return emitError() << "split_k must be at least 1, got " << splitK;
  if (swizzle < 1)
    return emitError() << "swizzle must be at least 1, got " << swizzle;
  return success();
}
