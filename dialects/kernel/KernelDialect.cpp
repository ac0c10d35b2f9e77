//===- KernelDialect.cpp - The kernel dialect -----------------------------===//

#include "dialects/kernel/KernelDialect.h"
#include "dialects/kernel/KernelOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln::kernel;

#include "dialects/kernel/KernelAttrInterfaces.cpp.inc"
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
// Attributes on operations
//===----------------------------------------------------------------------===//

LogicalResult KernelDialect::verifyOperationAttribute(Operation *op, NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  bool onKernel = isa<FuncOp>(op);
  if (name == ConfigAttrHelper::getNameStr()) {
    if (!onKernel)
      return op->emitOpError() << "'" << name << "' belongs on a kernel.func";
    if (!isa<TemplateConfigAttrInterface>(attribute.getValue()))
      return op->emitOpError() << "'" << name
                               << "' must be a template configuration (#kernel.sm90_gemm<...>, "
                                  "..., #kernel.generic), not "
                               << attribute.getValue();
    return success();
  }
  if (name == RowVariantsAttrHelper::getNameStr()) {
    auto variants = dyn_cast<ArrayAttr>(attribute.getValue());
    if (!onKernel || !variants ||
        !llvm::all_of(variants, [](Attribute each) { return isa<RowVariantAttr>(each); }))
      return op->emitOpError() << "'" << name
                               << "' must be an array of #kernel.row_variant on a kernel.func";
    return success();
  }
  if (name == ProgrammaticLaunchAttrHelper::getNameStr()) {
    if (op->getName().getStringRef() != "gpu.module" || !isa<UnitAttr>(attribute.getValue()))
      return op->emitOpError() << "'" << name << "' must be a unit attribute on a gpu.module";
    return success();
  }
  if (name == TuningAttrHelper::getNameStr()) {
    if (!onKernel || !isa<DictionaryAttr>(attribute.getValue()))
      return op->emitOpError() << "'" << name << "' must be a dictionary on a kernel.func";
    return success();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Configuration verifiers: what holds for every kernel (the legal configurations of one
// kernel are its template family's to say, passes/kernel/KernelTemplate.h).
//===----------------------------------------------------------------------===//

namespace {
LogicalResult verifyPositive(function_ref<InFlightDiagnostic()> emitError,
                             std::initializer_list<std::pair<StringRef, int64_t>> values) {
  for (auto [name, value] : values)
    if (value < 1)
      return emitError() << name << " must be positive, got " << value;
  return success();
}

LogicalResult verifySm90Gemm(function_ref<InFlightDiagnostic()> emitError, int64_t tileM,
                             int64_t tileN, int64_t tileK, int64_t stages, int64_t consumers,
                             bool persistent, int64_t splitK, int64_t ctasPerSm, bool tf32,
                             bool int8, int64_t residentBKTiles, bool pingpong, int64_t streamK) {
  if (failed(verifyPositive(emitError, {{"tile_m", tileM},
                                        {"tile_n", tileN},
                                        {"tile_k", tileK},
                                        {"stages", stages},
                                        {"split_k", splitK},
                                        {"stream_k", streamK}})))
    return failure();
  if (consumers < 0 || consumers > 3)
    return emitError() << "consumers must be 0 (one warpgroup), 1, 2 or 3, got " << consumers;
  // Each consumer warpgroup computes 64 rows of a tile: two share 128-row tiles (or, as
  // ping-pong consumers, take turns at them); three share 192-row tiles.
  if ((consumers == 1 || consumers == 2) && tileM != 128)
    return emitError() << "one or two consumers compute 128-row tiles, got tile_m = " << tileM;
  if (consumers == 3 && (tileM != 192 || pingpong || ctasPerSm != 1 || splitK > 1 ||
                         residentBKTiles > 0 || tf32 || int8 || streamK > 1))
    return emitError() << "three consumers compute 192-row tiles of f16 or bf16 operands, one "
                          "CTA an SM, without split-K, stream-K, ping-pong or a resident B";
  if (ctasPerSm != 1 && ctasPerSm != 2)
    return emitError() << "ctas_per_sm must be 1 or 2, got " << ctasPerSm;
  if (consumers == 0 && (persistent || ctasPerSm > 1 || residentBKTiles > 0))
    return emitError() << "persistent grids, two CTAs an SM and a resident B need the "
                          "warp-specialised template (consumers > 0)";
  if (tf32 && int8)
    return emitError() << "tf32 and int8 exclude each other";
  if (residentBKTiles < 0)
    return emitError() << "resident_b_k_tiles must not be negative, got " << residentBKTiles;
  if (residentBKTiles > 0 && (!persistent || splitK > 1))
    return emitError() << "a resident B needs a persistent grid without split-K";
  if (pingpong && (consumers != 2 || !persistent || splitK > 1 || ctasPerSm != 1 ||
                   residentBKTiles > 0 || tf32 || int8 || tileM != 128 || tileN > 128))
    return emitError() << "ping-pong consumers need two consumers on a persistent grid of one "
                          "CTA an SM, 128-row tiles at most 128 wide, f16 or bf16 operands, "
                          "no split-K and no resident B";
  if (streamK > 1 && (consumers != 2 || !persistent || splitK > 1 || ctasPerSm != 1 ||
                      residentBKTiles > 0 || tf32 || int8))
    return emitError() << "stream-K needs two consumers on a persistent grid of one CTA an SM, "
                          "f16 or bf16 operands, no split-K and no resident B";
  return success();
}

LogicalResult verifySm80Gemm(function_ref<InFlightDiagnostic()> emitError, int64_t tileM,
                             int64_t tileN, int64_t tileK, int64_t stages, int64_t warpsM,
                             int64_t warpsN) {
  if (failed(verifyPositive(emitError, {{"tile_m", tileM},
                                        {"tile_n", tileN},
                                        {"tile_k", tileK},
                                        {"warps_m", warpsM},
                                        {"warps_n", warpsN}})))
    return failure();
  if (stages < 2)
    return emitError() << "stages must be at least 2 (a cp.async ring), got " << stages;
  if (tileK % 16)
    return emitError() << "tile_k must be a multiple of 16 (mma.sync m16n8k16), got " << tileK;
  if (tileM % (16 * warpsM) || tileN % (16 * warpsN))
    return emitError() << "each warp's tile must be whole 16x16 fragments: " << tileM << "x"
                       << tileN << " over " << warpsM << "x" << warpsN << " warps";
  return success();
}
} // namespace

LogicalResult Sm90GemmConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                         int64_t tileM, int64_t tileN, int64_t tileK,
                                         int64_t stages, int64_t consumers, bool persistent,
                                         int64_t splitK, int64_t ctasPerSm, bool tf32, bool int8,
                                         int64_t residentBKTiles, bool pingpong, int64_t streamK) {
  return verifySm90Gemm(emitError, tileM, tileN, tileK, stages, consumers, persistent, splitK,
                        ctasPerSm, tf32, int8, residentBKTiles, pingpong, streamK);
}

LogicalResult Sm90ConvConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                         int64_t tileM, int64_t tileN, int64_t tileK,
                                         int64_t stages, int64_t consumers, bool persistent,
                                         int64_t splitK, int64_t ctasPerSm, bool tf32, bool int8,
                                         int64_t residentBKTiles, bool pingpong, int64_t streamK) {
  return verifySm90Gemm(emitError, tileM, tileN, tileK, stages, consumers, persistent, splitK,
                        ctasPerSm, tf32, int8, residentBKTiles, pingpong, streamK);
}

LogicalResult Sm80GemmConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                         int64_t tileM, int64_t tileN, int64_t tileK,
                                         int64_t stages, int64_t warpsM, int64_t warpsN) {
  return verifySm80Gemm(emitError, tileM, tileN, tileK, stages, warpsM, warpsN);
}

LogicalResult Sm80ConvConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                         int64_t tileM, int64_t tileN, int64_t tileK,
                                         int64_t stages, int64_t warpsM, int64_t warpsN) {
  return verifySm80Gemm(emitError, tileM, tileN, tileK, stages, warpsM, warpsN);
}

LogicalResult FlashAttentionConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                               int64_t blockQ, int64_t blockKv, int64_t stages,
                                               int64_t warps, bool wgmma, bool tma) {
  if (failed(verifyPositive(emitError,
                            {{"block_q", blockQ}, {"block_kv", blockKv}, {"stages", stages}})))
    return failure();
  // The TMA form: two consumer warpgroups of 64 rows and a producer warpgroup.
  if (tma) {
    if (!wgmma || warps != 12 || blockQ != 128)
      return emitError() << "tma needs wgmma, 12 warps and block_q = 128 (two consumer "
                            "warpgroups of 64 rows and a producer), got block_q = "
                         << blockQ << ", warps = " << warps << (wgmma ? "" : ", no wgmma");
    return success();
  }
  if (warps != 4 && warps != 8)
    return emitError() << "warps must be 4 or 8, got " << warps;
  // A warp computes 16 or 32 query rows (a warpgroup of 4 warps 64 with wgmma).
  if (blockQ % (16 * warps))
    return emitError() << "block_q must be a multiple of 16 rows a warp, got " << blockQ << " over "
                       << warps << " warps";
  return success();
}

LogicalResult DepthwiseConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                          int64_t pixels, int64_t threads, int64_t tileH,
                                          int64_t tileW, int64_t planes) {
  if (!llvm::is_contained({1, 2, 4, 8}, pixels))
    return emitError() << "pixels must be 1, 2, 4 or 8, got " << pixels;
  bool channelsFirst = tileH > 0 || tileW > 0 || planes > 0;
  if (channelsFirst && (threads != 0 || tileH < 1 || tileW < 1 || planes < 1))
    return emitError() << "a channels-first configuration has tile_h, tile_w and planes "
                          "(all positive) and no threads";
  if (!channelsFirst && threads < 1)
    return emitError() << "a channels-last configuration has threads (positive), got " << threads;
  return success();
}

LogicalResult TopKConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                     int64_t threads) {
  if (threads < 32 || threads > 1024 || !llvm::isPowerOf2_64(threads))
    return emitError() << "threads must be a power of two from 32 to 1024, got " << threads;
  return success();
}

LogicalResult RowsConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                     int64_t threadsPerRow, int64_t rowsPerCta, int64_t vector) {
  if (threadsPerRow < 1 || threadsPerRow > 1024 || !llvm::isPowerOf2_64(threadsPerRow))
    return emitError() << "threads_per_row must be a power of two up to 1024, got "
                       << threadsPerRow;
  if (rowsPerCta < 1 || (threadsPerRow > 32 && rowsPerCta != 1) ||
      threadsPerRow * rowsPerCta > 1024)
    return emitError() << "rows_per_cta must be positive, 1 when a row takes more than a warp, "
                          "and at most 1024 threads a CTA; got "
                       << rowsPerCta << " rows of " << threadsPerRow << " threads";
  if (!llvm::is_contained({1, 2, 4, 8}, vector))
    return emitError() << "vector must be 1, 2, 4 or 8, got " << vector;
  return success();
}

LogicalResult RowVariantAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t maxRows,
                                     int64_t aboveRows, TemplateConfigAttrInterface config) {
  if ((maxRows > 0) == (aboveRows > 0) || maxRows < 0 || aboveRows < 0)
    return emitError() << "a row variant has either max_rows (a bucket of small Ms) or "
                          "above_rows (the bucket of large Ms), positive";
  if (!config)
    return emitError() << "a row variant needs a config";
  return success();
}
