//===- ImportONNXFuzzer.cpp - libFuzzer target for the ONNX importer ------===//
//
// Feeds arbitrary bytes to the importer as a model file, binary or text. Any input may be
// rejected, with diagnostics; none may crash, hang, leak or touch memory it does not own.
// Built with -DKILN_BUILD_FUZZERS=ON by clang (scripts/fuzz-importer.sh).
//
//===----------------------------------------------------------------------===//

#include "lib/onnx/Importer.h"
#include "lib/init/Registration.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  kiln::registerDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  // Rejections are expected; keep them off the fuzzer's output.
  mlir::ScopedDiagnosticHandler silence(&context, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  // External data would be read relative to this (nonexistent) folder.
  (void)kiln::onnx::importModel(context, bytes, "/nonexistent/fuzz.onnx");
  return 0;
}
