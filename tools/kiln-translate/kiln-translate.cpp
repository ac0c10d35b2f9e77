//===- kiln-translate.cpp - Translate into and out of Kiln's IR -----------===//

#include "kiln/Version.h"
#include "lib/onnx/Importer.h"
#include "lib/target/PTX.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  kiln::onnx::registerImportONNXTranslation();
  kiln::registerToLLVMIRTranslation();
  kiln::registerEmitPTXTranslation();
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "kiln-translate (Kiln " KILN_VERSION_STRING ", LLVM/MLIR " KILN_LLVM_VERSION_STRING ")\n";
  });
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "Kiln translation driver\n"));
}
