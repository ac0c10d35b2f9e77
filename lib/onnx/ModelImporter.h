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
                                                    llvm::StringRef blobName, mlir::Location loc,
                                                    llvm::StringRef what);

  /// The location of a model-level problem: the model file.
  mlir::Location fileLoc() const { return fileLocation; }

  /// Imports `graph`, a subgraph of a node at `loc`, into `region`: one block whose
  /// arguments (of `argumentTypes`) stand for the subgraph's inputs, its nodes, and a
  /// graph.yield of its outputs. Names of enclosing graphs stay visible inside.
  mlir::FailureOr<llvm::SmallVector<mlir::Type>>
  importSubgraph(::onnx::GraphProto &graph, mlir::Region &region,
                 llvm::ArrayRef<mlir::Type> argumentTypes, mlir::Location loc);

private:
  mlir::LogicalResult checkOpsets(const ::onnx::ModelProto &model);
  mlir::LogicalResult importSignature(::onnx::GraphProto &graph, mlir::ModuleOp module,
                                      mlir::func::FuncOp &function);
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
  /// The opset of the default domain; 0 when the model imports none (its nodes may all be
  /// of other domains).
  int64_t defaultOpset = 0;
  llvm::StringMap<int64_t> domainOpsets;
  /// The names one graph defines: its inputs, initializers (imported on first use, at
  /// `constants`) and node outputs. The main graph's scope is first; subgraphs push theirs.
  struct Scope {
    explicit Scope(mlir::MLIRContext *context) : constants(context) {}
    llvm::StringMap<mlir::Value> values;
    llvm::StringMap<::onnx::TensorProto *> initializers;
    mlir::OpBuilder constants;
  };
  Scope &innermost() { return *scopes.back(); }
  /// Whether `name` is defined in some scope.
  bool isDefined(llvm::StringRef name) const;

  llvm::SmallVector<std::unique_ptr<Scope>> scopes;
  llvm::StringMap<const ::onnx::TypeProto *> declaredTypes;
};

} // namespace kiln::onnx

#endif // KILN_LIB_ONNX_MODELIMPORTER_H
