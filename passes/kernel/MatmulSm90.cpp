//===- MatmulSm90.cpp - Hopper tensor-core GEMMs for matmul kernels -------===//
//
// kernel-matmul-sm90: the matmul kernels whose body is one plain 2-D product of half
// precision operands get the sm_90a GEMM of kernel/templates/Sm90Gemm.mlir (wgmma fed by
// TMA through a 3-stage mbarrier ring; docs/codegen-sm90.md) instead of the generic
// lowering. The template is instantiated once per operand and result type into a
// `gpu.module`; each launch of a replaced kernel becomes, on the host, two tensor maps
// (nvgpu.tma.create.descriptor, which the engine builder turns into tensor-map launch
// arguments) and a gpu.launch_func of the right grid and dynamic shared memory.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "passes/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"

namespace kiln {
#define GEN_PASS_DEF_KERNELMATMULSM90
#include "passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;
namespace kernel = kiln::kernel;

namespace {

/// The template's text (kernel/templates/Sm90Gemm.mlir).
constexpr const char kTemplate[] =
#include "passes/kernel/templates/Sm90Gemm.mlir.inc"
    ;

/// The template's tile and launch: what its ABI fixes (docs/codegen-sm90.md).
constexpr int64_t kTileM = 128, kTileN = 128, kTileK = 64;
constexpr int64_t kThreads = 128;
constexpr int64_t kSharedBytes = 100352;
constexpr int64_t kBoxBColumns = 64; // B comes in as two 64 x 64 boxes per stage

/// The types of one GEMM the template can compute.
struct GemmTypes {
  Type operand; // f16 or bf16
  Type result;  // f32, f16 or bf16

  std::string operandName() const { return operand.isF16() ? "f16" : "bf16"; }
  std::string resultName() const {
    return result.isF32() ? "f32" : result.isF16() ? "f16" : "bf16";
  }
};

/// The GEMM `function` computes when it is a kernel.matmul holding only
/// graph.matmul(lhs, rhs) of 2-D static row-major buffers whose extents fit the tile: A
/// [M, K], B [K, N], C [M, N] (arguments 0, 1, 2 in that order).
std::optional<GemmTypes> matchGemm(kernel::FuncOp function) {
  Block &entry = function.getBody().front();
  if (entry.getNumArguments() != 3 || !llvm::hasSingleElement(entry.without_terminator()))
    return std::nullopt;
  auto matmul = dyn_cast<kernel::MatmulOp>(&entry.front());
  if (!matmul || matmul.getInputs().size() != 2 || matmul.getOutputs().size() != 1 ||
      matmul.getInputs()[0] != entry.getArgument(0) ||
      matmul.getInputs()[1] != entry.getArgument(1) ||
      matmul.getOutputs()[0] != entry.getArgument(2))
    return std::nullopt;
  Block &body = matmul.getBody().front();
  if (!llvm::hasSingleElement(body.without_terminator()))
    return std::nullopt;
  auto product = dyn_cast<graph::MatMulOp>(&body.front());
  Operation *yield = body.getTerminator();
  if (!product || product.getLhs() != body.getArgument(0) ||
      product.getRhs() != body.getArgument(1) || yield->getNumOperands() != 1 ||
      yield->getOperand(0) != product.getResult())
    return std::nullopt;

  SmallVector<MemRefType, 3> types;
  for (BlockArgument argument : entry.getArguments()) {
    auto type = dyn_cast<MemRefType>(argument.getType());
    if (!type || type.getRank() != 2 || !type.hasStaticShape() || !type.getLayout().isIdentity())
      return std::nullopt;
    types.push_back(type);
  }
  int64_t m = types[0].getDimSize(0), k = types[0].getDimSize(1), n = types[1].getDimSize(1);
  if (types[1].getDimSize(0) != k || types[2].getDimSize(0) != m || types[2].getDimSize(1) != n ||
      m % kTileM || n % kTileN || k % kTileK)
    return std::nullopt;
  Type operand = types[0].getElementType(), result = types[2].getElementType();
  // graph.matmul keeps its operands' type; the template could also leave the f32
  // accumulators as they are, once a kernel's body can ask for that.
  if (types[1].getElementType() != operand || !(operand.isF16() || operand.isBF16()) ||
      result != operand)
    return std::nullopt;
  return GemmTypes{operand, result};
}

/// `text` with every `{KEY}` replaced by its value.
std::string substitute(std::string text, ArrayRef<std::pair<StringRef, std::string>> values) {
  for (const auto &[key, value] : values) {
    std::string placeholder = ("{" + key + "}").str();
    for (size_t at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + value.size()))
      text.replace(at, placeholder.size(), value);
  }
  return text;
}

struct KernelMatmulSm90Pass : kiln::impl::KernelMatmulSm90Base<KernelMatmulSm90Pass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto function : llvm::make_early_inc_range(module.getOps<kernel::FuncOp>())) {
      std::optional<GemmTypes> types = matchGemm(function);
      if (!types)
        continue;
      FailureOr<gpu::GPUFuncOp> gemm = getOrCreateGemm(module, symbols, *types);
      if (failed(gemm))
        return signalPassFailure();
      std::optional<SymbolTable::UseRange> uses = symbols.getSymbolUses(function, module);
      if (!uses)
        continue;
      bool allReplaced = true;
      for (const SymbolTable::SymbolUse &use : *uses) {
        auto launch = dyn_cast<kernel::LaunchOp>(use.getUser());
        if (!launch) {
          allReplaced = false;
          continue;
        }
        replaceLaunch(launch, *gemm);
      }
      if (allReplaced)
        function.erase();
    }
  }

  /// The template's kernel for `types`, instantiated into a gpu.module of `module` once.
  FailureOr<gpu::GPUFuncOp> getOrCreateGemm(ModuleOp module, SymbolTable &symbols,
                                            const GemmTypes &types) {
    std::string suffix = types.operandName() + "_" + types.resultName();
    std::string moduleName = "kiln_sm90_gemm_" + suffix;
    std::string entryName = "gemm_" + suffix + "_128x128x64";
    if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName))
      return existing.lookupSymbol<gpu::GPUFuncOp>(entryName);

    // The stored vector: the accumulators %v (vector<4xf32>) as they are, or rounded.
    std::string result = types.resultName();
    bool rounded = !types.result.isF32();
    std::string convert =
        rounded ? "%out = arith.truncf %v : vector<4xf32> to vector<4x" + result + ">" : "";
    int64_t storeBytes = 4 * types.result.getIntOrFloatBitWidth() / 8;
    std::string text = substitute(kTemplate, {{"MODULE", moduleName},
                                              {"ENTRY", entryName},
                                              {"IN", types.operandName()},
                                              {"OUT", result},
                                              {"CONVERT", convert},
                                              {"STORED", rounded ? "%out" : "%v"},
                                              {"STORE_ALIGNMENT", std::to_string(storeBytes)}});
    OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, module.getContext());
    if (!parsed)
      return module.emitError("kernel-matmul-sm90: the GEMM template (")
             << suffix << ") does not parse";
    auto gpuModule = *parsed->getOps<gpu::GPUModuleOp>().begin();
    gpuModule->remove();
    symbols.insert(gpuModule);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
    return gpuModule.lookupSymbol<gpu::GPUFuncOp>(entryName);
  }

  /// kernel.launch @k(%a, %b, %c) -> tensor maps of %a and %b, and the GEMM's launch.
  void replaceLaunch(kernel::LaunchOp launch, gpu::GPUFuncOp gemm) {
    OpBuilder b(launch);
    // The kernel, its template and its configuration for the engine's kernel table, as
    // kernel-to-linalg tags the generic kernels.
    NamedAttrList metadata;
    metadata.set("kernel", launch.getCalleeAttr().getAttr());
    metadata.set("template", b.getStringAttr("matmul"));
    metadata.set("config", b.getStringAttr("sm90 wgmma+TMA 128x128x64, 3 stages"));
    Location loc =
        FusedLoc::get(b.getContext(), {launch.getLoc()}, metadata.getDictionary(b.getContext()));
    Value a = launch.getOperands()[0], bMatrix = launch.getOperands()[1],
          c = launch.getOperands()[2];
    auto aType = cast<MemRefType>(a.getType());
    auto cType = cast<MemRefType>(c.getType());
    int64_t m = aType.getDimSize(0), k = aType.getDimSize(1), n = cType.getDimSize(1);
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(b, loc, value);
    };
    auto i32 = [&](int64_t value) -> Value {
      return arith::ConstantIntOp::create(b, loc, value, 32);
    };
    // The kernel's parameter types say which tensor maps it wants.
    FunctionType signature = gemm.getFunctionType();
    auto tensorMap = [&](Value buffer, unsigned parameter, int64_t rows, int64_t columns) {
      auto type = cast<MemRefType>(buffer.getType());
      Value unranked = memref::CastOp::create(
          b, loc, UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace()), buffer);
      return nvgpu::TmaCreateDescriptorOp::create(
                 b, loc, cast<nvgpu::TensorMapDescriptorType>(signature.getInput(parameter)),
                 unranked, ValueRange{index(rows), index(columns)})
          .getResult();
    };
    Value mapA = tensorMap(a, 0, kTileM, kTileK);
    Value mapB = tensorMap(bMatrix, 1, kTileK, kBoxBColumns);
    // C goes as a bare pointer: a 0-d view of the buffer.
    auto scalarType = cast<MemRefType>(signature.getInput(2));
    Value cPointer = memref::ReinterpretCastOp::create(b, loc, scalarType, c, /*offset=*/0,
                                                       /*sizes=*/ArrayRef<int64_t>{},
                                                       /*strides=*/ArrayRef<int64_t>{});
    Value one = index(1);
    gpu::LaunchFuncOp::create(b, loc, gemm,
                              gpu::KernelDim3{index(n / kTileN), index(m / kTileM), one},
                              gpu::KernelDim3{index(kThreads), one, one}, i32(kSharedBytes),
                              ValueRange{mapA, mapB, cPointer, i32(m), i32(n), i32(k)});
    launch.erase();
  }
};

} // namespace
