//===- Compiler.cpp - The compile pipeline driver -------------------------===//

#include "lib/pipeline/Compiler.h"

#include "lib/onnx/Importer.h"
#include "passes/Passes.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>

using namespace mlir;

namespace kiln {

std::optional<Stage> parseStage(llvm::StringRef name) {
  if (name == "graph")
    return Stage::Graph;
  if (name == "engine")
    return Stage::Engine;
  return std::nullopt;
}

llvm::StringRef stageName(Stage stage) {
  switch (stage) {
  case Stage::Graph:
    return "graph";
  case Stage::Engine:
    return "engine";
  }
  llvm_unreachable("unknown stage");
}

namespace {
/// Progress lines on stderr, with the time each step took.
class Progress {
public:
  explicit Progress(bool quiet) : quiet(quiet) {}
  void step(const llvm::Twine &what) {
    auto now = std::chrono::steady_clock::now();
    if (!quiet)
      llvm::errs() << llvm::formatv("kiln: {0} ({1:f2} s)\n", what.str(),
                                    std::chrono::duration<double>(now - last).count());
    last = now;
  }

private:
  bool quiet;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};
} // namespace

/// Writes `module` as MLIR text or bytecode to `path`, only once it is complete.
static LogicalResult writeModule(ModuleOp module, llvm::StringRef path, bool bytecode) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(path, &error);
  if (!output)
    return emitError(module.getLoc()) << error;
  if (bytecode) {
    if (failed(writeBytecodeToFile(module, output->os())))
      return failure();
  } else {
    module.print(output->os());
  }
  output->keep();
  return success();
}

LogicalResult compile(MLIRContext &context, const CompileOptions &options) {
  Progress progress(options.quiet);
  OwningOpRef<ModuleOp> module = onnx::importModelFile(context, options.modelPath);
  if (!module)
    return failure();
  size_t ops = 0;
  module->walk([&](Operation *) { ++ops; });
  progress.step(llvm::formatv("imported {0}: {1} ops", options.modelPath, ops));

  PassManager shapes(&context);
  shapes.addNestedPass<func::FuncOp>(createGraphInferShapes());
  if (failed(shapes.run(*module)))
    return failure();
  progress.step("inferred shapes");

  if (options.compileTo == Stage::Graph)
    return writeModule(*module, options.outputPath, options.emitBytecode);

  return emitError(module->getLoc())
         << "code generation (graph to kernels to PTX) is not implemented yet in this version; "
            "--compile-to=graph writes the imported graph";
}

} // namespace kiln
