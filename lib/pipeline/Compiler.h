//===- Compiler.h - The compile pipeline driver -----------------*- C++ -*-===//
//
// `kiln compile` as a library: the pipeline's stages in order, and a driver that runs
// them up to a chosen one. Each stage's output can be written out as MLIR, so any prefix
// of the pipeline can be inspected or continued with kiln-opt.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_PIPELINE_COMPILER_H
#define KILN_LIB_PIPELINE_COMPILER_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace kiln {

/// The stages of the pipeline, in order.
enum class Stage {
  /// The ONNX model in the graph dialect, shapes inferred.
  Graph,
  /// The engine file (code generation and packaging).
  Engine,
};

/// The stage named `name` ("graph", "engine"), if any.
std::optional<Stage> parseStage(llvm::StringRef name);
llvm::StringRef stageName(Stage stage);

struct CompileOptions {
  std::string modelPath;
  /// Where the result goes: MLIR text for a stage before Engine, else the engine file.
  std::string outputPath;
  Stage compileTo = Stage::Engine;
  /// Write MLIR stages as bytecode (weights as raw bytes) rather than text.
  bool emitBytecode = false;
  /// No progress lines on stderr.
  bool quiet = false;
};

/// Runs the pipeline on `options.modelPath` up to `options.compileTo` and writes the result.
/// Problems are reported as diagnostics on `context`; nothing is written on failure.
mlir::LogicalResult compile(mlir::MLIRContext &context, const CompileOptions &options);

} // namespace kiln

#endif // KILN_LIB_PIPELINE_COMPILER_H
