//===- Sm80Template.cpp - Instantiating the sm_80 kernel templates --------===//

#include "passes/kernel/Sm80Template.h"

#include "passes/kernel/Sm90Template.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>

using namespace mlir;

namespace {

/// The text of passes/kernel/templates/Sm80Gemm.mlir.
constexpr const char kGemmTemplate[] =
#include "passes/kernel/templates/Sm80Gemm.mlir.inc"
    ;

/// The template's {LOAD_TILE}: k-tile %lkt of A and B into stage %ls of the rings, 16 bytes
/// a copy, {A_CHUNKS} and {B_CHUNKS} copies a thread. A copy of a chunk outside A or B
/// (past M, N or K, or in a convolution's padding) reads nothing (src-size 0) and fills
/// zeros; its address is clamped to the buffer's start.
constexpr const char kLoadTile[] = R"(        %k0 = arith.muli %lkt, %cTileK : index
        scf.for %i = %c0 to %cAChunks step %c1 {
          %i0 = arith.muli %i, %cThreads : index
          %chunk = arith.addi %i0, %tid : index
          %row = arith.divui %chunk, %cACpr : index
          %cc = arith.remui %chunk, %cACpr : index
          %col = arith.muli %cc, %c8 : index
          %arow = arith.addi %m0, %row : index
          %acol = arith.addi %k0, %col : index
{A_ADDRESS}
          %aSafe = arith.select %aOk, %aIndex, %c0 : index
          %aBytes = arith.select %aOk, %c8, %c0 : index
          %ta = nvgpu.device_async_copy %Ag[%aSafe], %As[%ls, %row, %col], 8, %aBytes {bypassL1}
            : !gvec to !ringA
        } {unroll}
        scf.for %i = %c0 to %cBChunks step %c1 {
          %i0 = arith.muli %i, %cThreads : index
          %chunk = arith.addi %i0, %tid : index
          %row = arith.divui %chunk, %cBCpr : index
          %cc = arith.remui %chunk, %cBCpr : index
          %col = arith.muli %cc, %c8 : index
          %brow = arith.addi %k0, %row : index
          %bcol = arith.addi %n0, %col : index
          %bInK = arith.cmpi ult, %brow, %k : index
          %bInN = arith.cmpi ult, %bcol, %n : index
          %bOk = arith.andi %bInK, %bInN : i1
          %bRowAt = arith.muli %brow, %n : index
          %bIndex = arith.addi %bRowAt, %bcol : index
          %bSafe = arith.select %bOk, %bIndex, %c0 : index
          %bBytes = arith.select %bOk, %c8, %c0 : index
          %tb = nvgpu.device_async_copy %Bg[%bSafe], %Bs[%ls, %row, %col], 8, %bBytes {bypassL1}
            : !gvec to !ringB
        } {unroll})";

} // namespace

void kiln::lowerBf16MmaSync(Operation *root) {
  SmallVector<nvgpu::MmaSyncOp> products;
  root->walk([&](nvgpu::MmaSyncOp mma) {
    if (cast<VectorType>(mma.getMatrixA().getType()).getElementType().isBF16())
      products.push_back(mma);
  });
  for (nvgpu::MmaSyncOp mma : products) {
    OpBuilder b(mma);
    Location loc = mma.getLoc();
    Type i32 = b.getI32Type(), f32 = b.getF32Type();
    auto registers = [&](Value matrix) {
      auto type = cast<VectorType>(matrix.getType());
      SmallVector<Value> words;
      for (int64_t i = 0; i < type.getDimSize(0); ++i) {
        Value pair = vector::ExtractOp::create(b, loc, matrix, ArrayRef<int64_t>{i});
        Value word = vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), pair);
        words.push_back(vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
      }
      return words;
    };
    SmallVector<Value> a = registers(mma.getMatrixA()), bWords = registers(mma.getMatrixB());
    SmallVector<Value> c;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        c.push_back(vector::ExtractOp::create(b, loc, mma.getMatrixC(), ArrayRef<int64_t>{i, j}));
    Type resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    auto product = NVVM::MmaOp::create(
        b, loc, resultType, a, bWords, c, ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
    SmallVector<Value> d;
    for (int64_t i = 0; i < 4; ++i)
      d.push_back(LLVM::ExtractValueOp::create(b, loc, product, ArrayRef<int64_t>{i}));
    Value result = vector::FromElementsOp::create(b, loc, mma.getType(), d);
    mma.replaceAllUsesWith(result);
    mma.erase();
  }
}

const kiln::Sm80AOperand &kiln::rowMajorSm80A() {
  static const Sm80AOperand operand = {
      /*extent=*/"    %aExtent = arith.muli %m, %k : index",
      /*address=*/R"(          %aInM = arith.cmpi ult, %arow, %m : index
          %aInK = arith.cmpi ult, %acol, %k : index
          %aOk = arith.andi %aInM, %aInK : i1
          %aRowAt = arith.muli %arow, %k : index
          %aIndex = arith.addi %aRowAt, %acol : index)",
  };
  return operand;
}

FailureOr<gpu::GPUFuncOp> kiln::instantiateSm80Gemm(ModuleOp module, SymbolTable &symbols,
                                                    StringRef pass, StringRef entryBase,
                                                    Type operand, Type result,
                                                    const Sm80GemmConfig &config,
                                                    const Sm80AOperand &a,
                                                    const Sm90Epilogue *epilogue) {
  if (epilogue && epilogue->empty())
    epilogue = nullptr;
  std::string entry = (entryBase + (epilogue ? epilogue->key() : "")).str();
  std::string moduleName = "kiln_sm80_" + entry;
  if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName))
    return existing.lookupSymbol<gpu::GPUFuncOp>(entry);

  auto number = [](int64_t value) { return std::to_string(value); };
  int64_t threads = config.threads();
  int64_t warpM = config.tileM / config.warpsM, warpN = config.tileN / config.warpsN;
  std::string text = substitutePlaceholders(
      kGemmTemplate, {// The snippets first: they hold placeholders of their own.
                      {"LOAD_TILE", kLoadTile},
                      {"A_EXTENT", a.extent},
                      {"A_ADDRESS", a.address},
                      {"MODULE", moduleName},
                      {"ENTRY", entry},
                      {"IN", elementTypeName(operand)},
                      {"OUT", elementTypeName(result)},
                      {"STORE_ALIGNMENT", number(4 * result.getIntOrFloatBitWidth() / 8)},
                      {"TILE_M", number(config.tileM)},
                      {"TILE_N", number(config.tileN)},
                      {"TILE_K", number(config.tileK)},
                      {"STAGES", number(config.stages)},
                      {"WAIT", number(config.stages - 2)},
                      {"THREADS", number(threads)},
                      {"WARPS_M", number(config.warpsM)},
                      {"WARPS_N", number(config.warpsN)},
                      {"WARP_M", number(warpM)},
                      {"WARP_N", number(warpN)},
                      {"MT", number(warpM / 16)},
                      {"NT", number(warpN / 8)},
                      {"NP", number(warpN / 16)},
                      {"KS", number(config.tileK / 16)},
                      {"A_STRIDE", number(config.tileK + 8)},
                      {"B_STRIDE", number(config.tileN + 8)},
                      {"A_CPR", number(config.tileK / 8)},
                      {"B_CPR", number(config.tileN / 8)},
                      {"A_CHUNKS", number(config.tileM * config.tileK / 8 / threads)},
                      {"B_CHUNKS", number(config.tileK * config.tileN / 8 / threads)},
                      {"B_OFF", number(config.stages * config.tileM * (config.tileK + 8) * 2)},
                      {"STAGED_COLUMNS", number(config.tileN + 8)},
                      {"ROW_LANES", number(std::min<int64_t>(32, config.tileN / 4))},
                      {"MIN_CTAS", "1"}});
  text = substitutePlaceholders(
      text, sm90EpiloguePlaceholders(epilogue, result, "%v", "%grow", "%gcol", "%m", "%n"));
  FailureOr<gpu::GPUFuncOp> kernel = insertTemplateWithEpilogue(module, symbols, pass, entry, text,
                                                                epilogue, /*firstParameter=*/6);
  if (failed(kernel))
    return failure();
  auto gpuModule = (*kernel)->getParentOfType<gpu::GPUModuleOp>();
  if (failed(unrollMarkedLoops(gpuModule))) {
    symbols.erase(gpuModule);
    return module.emitError(pass) << ": cannot unroll the GEMM template's loops (" << entry << ")";
  }
  lowerBf16MmaSync(gpuModule);
  return gpuModule.lookupSymbol<gpu::GPUFuncOp>(entry);
}

void kiln::launchSm80Gemm(OpBuilder &b, Location loc, gpu::GPUFuncOp gemm,
                          const Sm80GemmConfig &config, Value a, Value bMatrix, Value output,
                          int64_t m, int64_t n, int64_t k, ValueRange epilogueBuffers) {
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  auto i32 = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(b, loc, value, 32);
  };
  SmallVector<Value> arguments = {barePointer(b, loc, a),
                                  barePointer(b, loc, bMatrix),
                                  barePointer(b, loc, output),
                                  i32(m),
                                  i32(n),
                                  i32(k)};
  // The kernel takes the epilogue's inputs only when it has one.
  if (gemm.getNumArguments() > 6)
    for (Value buffer : epilogueBuffers)
      arguments.push_back(barePointer(b, loc, buffer));
  int64_t tiles = llvm::divideCeil(m, config.tileM) * llvm::divideCeil(n, config.tileN);
  Value one = index(1);
  gpu::LaunchFuncOp::create(b, loc, gemm, gpu::KernelDim3{index(tiles), one, one},
                            gpu::KernelDim3{index(config.threads()), one, one},
                            i32(config.sharedBytes()), arguments);
}
