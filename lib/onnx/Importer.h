//===- Importer.h - ONNX models into the graph dialect ----------*- C++ -*-===//
//
// Imports an ONNX model (binary protobuf, or protobuf text format for hand-written
// tests) into a module holding one `func.func` of graph-dialect ops. Weights become
// `dense_resource` blobs that take over the protobuf's bytes without copying them;
// symbolic dimensions stay dynamic and keep their names; each op's location names its
// ONNX node. Every problem is reported as an MLIR error on the model file or the node, and
// no partial module is returned.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_ONNX_IMPORTER_H
#define KILN_LIB_ONNX_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace kiln::onnx {

struct ImportOptions {
  /// The name of the function that holds the graph.
  std::string functionName = "main";
};

/// Imports the model in `path`. External data is read relative to the file's folder.
mlir::OwningOpRef<mlir::ModuleOp> importModelFile(mlir::MLIRContext &context, llvm::StringRef path,
                                                  const ImportOptions &options = {});

/// Imports a model held in memory; `path` names it in diagnostics and locates external data.
/// Text format is recognised by its first bytes being printable.
mlir::OwningOpRef<mlir::ModuleOp> importModel(mlir::MLIRContext &context, llvm::StringRef bytes,
                                              llvm::StringRef path,
                                              const ImportOptions &options = {});

/// Registers `--import-onnx` with the translation registry (for kiln-translate).
void registerImportONNXTranslation();

} // namespace kiln::onnx

#endif // KILN_LIB_ONNX_IMPORTER_H
