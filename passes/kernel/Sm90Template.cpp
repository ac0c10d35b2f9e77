//===- Sm90Template.cpp - Instantiating the Hopper kernel templates -------===//

#include "passes/kernel/Sm90Template.h"

#include "mlir/Parser/Parser.h"

using namespace mlir;

namespace {
/// The text of passes/kernel/templates/Sm90GemmWs.mlir.
constexpr const char kWarpSpecialisedTemplate[] =
#include "passes/kernel/templates/Sm90GemmWs.mlir.inc"
    ;
} // namespace

const kiln::Sm90AOperand &kiln::rowMajorMatrixA() {
  // 128x64 boxes at (k0, m0); rows past M are not stored.
  static const Sm90AOperand operand = {
      /*box=*/"128x64",
      /*boxBytes=*/128 * 64 * 2,
      /*tilesM=*/R"(    %mUp = arith.addi %m, %c127 : index
    %tilesM = arith.divui %mUp, %c128 : index)",
      /*tileSetup=*/"    %m0 = arith.muli %tileRow, %c128 : index",
      /*loadA=*/
      "          nvgpu.tma.async.load %descA[%k0, %m0], %full[%slot] to %a : !tmA, !bars -> "
      "!tileA",
      /*descMap=*/"%descA : !halfA, !tmA",
      /*rowEnd=*/R"(      %rowsHere = arith.subi %m, %m0 : index
      %rowEnd = arith.minui %rowsHere, %c128 : index)",
      /*rowMap=*/R"(        %grow = arith.addi %m0, %r : index
        %rowOk = arith.constant true)",
  };
  return operand;
}

std::string kiln::substitutePlaceholders(std::string text,
                                         ArrayRef<std::pair<StringRef, std::string>> values) {
  for (const auto &[key, value] : values) {
    std::string placeholder = ("{" + key + "}").str();
    for (size_t at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + value.size()))
      text.replace(at, placeholder.size(), value);
  }
  return text;
}

std::string kiln::elementTypeName(Type type) {
  return type.isF32() ? "f32" : type.isF16() ? "f16" : "bf16";
}

FailureOr<gpu::GPUFuncOp> kiln::insertTemplateModule(ModuleOp module, SymbolTable &symbols,
                                                     StringRef pass, StringRef entry,
                                                     const std::string &text) {
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, module.getContext());
  if (!parsed)
    return module.emitError(pass) << ": the template of " << entry << " does not parse";
  auto gpuModule = *parsed->getOps<gpu::GPUModuleOp>().begin();
  gpuModule->remove();
  symbols.insert(gpuModule);
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  return gpuModule.lookupSymbol<gpu::GPUFuncOp>(entry);
}

FailureOr<gpu::GPUFuncOp>
kiln::instantiateWarpSpecialisedGemm(ModuleOp module, SymbolTable &symbols, StringRef pass,
                                     StringRef entry, Type operand, Type result,
                                     const Sm90GemmConfig &config, const Sm90AOperand &a) {
  std::string moduleName = ("kiln_sm90_" + entry).str();
  if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName))
    return existing.lookupSymbol<gpu::GPUFuncOp>(entry);

  // The stored vector: the accumulators %v (vector<4xf32>) as they are, or rounded.
  std::string out = elementTypeName(result);
  bool rounded = !result.isF32();
  std::string convert =
      rounded ? "%out = arith.truncf %v : vector<4xf32> to vector<4x" + out + ">" : "";
  int64_t storeBytes = 4 * result.getIntOrFloatBitWidth() / 8;
  int64_t aStageBytes = config.tileM * config.tileK * 2;
  int64_t bStageBytes = config.tileK * config.tileN * 2;
  auto number = [](int64_t value) { return std::to_string(value); };
  std::string text = substitutePlaceholders(
      kWarpSpecialisedTemplate,
      {// The A operand's snippets first: they use the
       // placeholders below.
       {"TILES_M", a.tilesM},
       {"TILE_SETUP", a.tileSetup},
       {"LOAD_A", a.loadA},
       {"A_DESC_MAP", a.descMap},
       {"ROW_END", a.rowEnd},
       {"ROW_MAP", a.rowMap},
       {"A_BOX", a.box},
       {"MODULE", moduleName},
       {"ENTRY", entry.str()},
       {"IN", elementTypeName(operand)},
       {"OUT", out},
       {"CONVERT", convert},
       {"STORED", rounded ? "%out" : "%v"},
       {"STORE_ALIGNMENT", number(storeBytes)},
       {"TILE_N", number(config.tileN)},
       {"STAGES", number(config.stages)},
       {"B_BOXES", number(config.tileN / 64)},
       {"B_STAGE_BYTES", number(bStageBytes)},
       {"STAGE_BYTES", number(a.boxBytes + bStageBytes)},
       {"B_BASE", number(config.stages * aStageBytes)},
       {"STAGED_COLUMNS", number(config.tileN + 8)},
       {"ROW_LANES", number(std::min<int64_t>(32, config.tileN / 4))},
       {"STAGING_BASE",
        number(config.persistent ? config.stages * (aStageBytes + bStageBytes) : 0)}});
  return insertTemplateModule(module, symbols, pass, entry, text);
}
