//===- kiln-opt.cpp - Run Kiln and upstream passes on MLIR ----------------===//
//
// The opt-style driver for compiler work on Kiln's dialects: every Kiln dialect and pass,
// and the upstream ones the pipeline lowers through.
//
//===----------------------------------------------------------------------===//

#include "kiln/Version.h"
#include "lib/cpu/HostExecutable.h"
#include "lib/init/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kiln::registerDialects(registry);
  kiln::registerPasses();
  kiln::cpu::registerHostConstantEvaluator();
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "kiln-opt (Kiln " KILN_VERSION_STRING ", LLVM/MLIR " KILN_LLVM_VERSION_STRING ")\n";
  });
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "Kiln optimizer driver\n", registry));
}
