//===- PTX.cpp - PTX from gpu.module ops through NVPTX --------------------===//

#include "lib/target/PTX.h"
#include "lib/init/Registration.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

using namespace mlir;

LogicalResult kiln::emitPTX(ModuleOp module, llvm::raw_ostream &os) {
  bool any = false;
  WalkResult walk = module.walk([&](gpu::GPUModuleOp gpuModule) {
    any = true;
    NVVM::NVVMTargetAttr target;
    if (ArrayAttr targets = gpuModule.getTargetsAttr())
      for (Attribute attr : targets)
        if ((target = dyn_cast<NVVM::NVVMTargetAttr>(attr)))
          break;
    if (!target) {
      gpuModule.emitError("gpu.module @")
          << gpuModule.getName() << " has no #nvvm.target; run nvvm-attach-target first";
      return WalkResult::interrupt();
    }

    gpu::TargetOptions options(/*toolkitPath=*/{}, /*librariesToLink=*/{}, /*cmdOptions=*/{},
                               /*elfSection=*/{}, gpu::CompilationTarget::Assembly);
    std::optional<SmallVector<char, 0>> ptx =
        cast<gpu::TargetAttrInterface>(target).serializeToObject(gpuModule, options);
    if (!ptx) {
      gpuModule.emitError("could not produce PTX for gpu.module @") << gpuModule.getName();
      return WalkResult::interrupt();
    }
    os << "// gpu.module @" << gpuModule.getName() << " for " << target.getChip() << "\n";
    os << StringRef(ptx->data(), ptx->size()) << "\n";
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (!any)
    return module.emitError("no gpu.module to emit PTX for");
  return success();
}

void kiln::registerEmitPTXTranslation() {
  TranslateFromMLIRRegistration registration(
      "emit-ptx", "Emit the PTX of each gpu.module (already in the LLVM and NVVM dialects)",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a builtin.module");
        return kiln::emitPTX(module, os);
      },
      [](DialectRegistry &registry) { kiln::registerDialects(registry); });
}

void kiln::registerToLLVMIRTranslation() {
  TranslateFromMLIRRegistration registration(
      "mlir-to-llvmir", "Translate MLIR in the LLVM dialect to LLVM IR",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        llvm::LLVMContext llvmContext;
        std::unique_ptr<llvm::Module> module = translateModuleToLLVMIR(op, llvmContext);
        if (!module)
          return failure();
        module->print(os, nullptr);
        return success();
      },
      [](DialectRegistry &registry) { kiln::registerDialects(registry); });
}
