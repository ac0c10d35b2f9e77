//===- ModelImporter.h - The graph walk of the ONNX importer ----*- C++ -*-===//

#ifndef KILN_LIB_ONNX_MODELIMPORTER_H
#define KILN_LIB_ONNX_MODELIMPORTER_H

#include "lib/onnx/Importer.h"
#include "lib/onnx/Tensors.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

namespace onnx {
class GraphProto;
class ModelProto;
class NodeProto;
class TensorProto;
class TypeProto;
} // namespace onnx

namespace kiln::onnx {

class NodeImporter;

/// Imports one ModelProto: the function signature from the graph's inputs and outputs,
/// initializers as constants (created on first use), then every node in dependency order
/// through its converter.
class ModelImporter {
public:
  ModelImporter(mlir::MLIRContext &context, llvm::StringRef path, const ImportOptions &options);

  /// The module, or null after reporting every error found.
  mlir::OwningOpRef<mlir::ModuleOp> import(::onnx::ModelProto &model);

  /// The value named `name`: a graph input, an initializer (its constant is created now)
  /// or a node output already imported. Null if there is none.
  mlir::Value lookup(llvm::StringRef name);

  /// Binds a node output; refines `value`'s type with the type the model declares for
  /// `name` (value_info, graph outputs), or reports that the two contradict.
  mlir::LogicalResult bind(llvm::StringRef name, mlir::Value value, NodeImporter &node);

  /// Converts a TENSOR attribute or initializer; `what` names it in errors.
  mlir::FailureOr<mlir::ElementsAttr> convertTensor(::onnx::TensorProto &tensor,
                                                    llvm::StringRef blobName,
                                                    mlir::Location loc, llvm::StringRef what);

  /// The location of a model-level problem: the model file.
  mlir::Location fileLoc() const { return fileLocation; }

private:
  mlir::LogicalResult checkOpsets(const ::onnx::ModelProto &model);
  mlir::LogicalResult importSignature(::onnx::GraphProto &graph, mlir::func::FuncOp &function);
  /// The nodes in an order where each comes after the producers of its inputs.
  /// Each entry is a node and its index in the file.
  mlir::FailureOr<llvm::SmallVector<std::pair<const ::onnx::NodeProto *, size_t>>>
  sortNodes(const ::onnx::GraphProto &graph);
  mlir::LogicalResult importNode(const ::onnx::NodeProto &node, size_t index);
  mlir::LogicalResult importOutputs(::onnx::GraphProto &graph, mlir::func::FuncOp function);
  mlir::Location nodeLoc(const ::onnx::NodeProto &node, size_t index) const;

  mlir::MLIRContext &context;
  std::string path;
  ImportOptions options;
  mlir::Location fileLocation;
  ExternalDataReader external;
  mlir::OpBuilder builder;
  /// Where initializer constants go: the top of the function.
  mlir::OpBuilder constantBuilder;
  int64_t defaultOpset = 0;
  llvm::StringMap<int64_t> domainOpsets;
  llvm::StringMap<mlir::Value> values;
  llvm::StringMap<::onnx::TensorProto *> initializers;
  llvm::StringMap<const ::onnx::TypeProto *> declaredTypes;
};

} // namespace kiln::onnx

#endif // KILN_LIB_ONNX_MODELIMPORTER_H
