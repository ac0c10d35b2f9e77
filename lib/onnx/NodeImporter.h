//===- NodeImporter.h - What an op converter sees of one ONNX node -*- C++ -*-===//
//
// Each ONNX operator has a converter, `LogicalResult convert(NodeImporter &)`, that reads
// the node's inputs and attributes through this class, normalises them (attributes of old
// opsets become the operands of the newest form, defaults are filled in) and creates graph
// ops with `create<OpTy>`. Errors go through `error()`, which names the node.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_ONNX_NODEIMPORTER_H
#define KILN_LIB_ONNX_NODEIMPORTER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace onnx {
class AttributeProto;
class NodeProto;
} // namespace onnx

namespace kiln::onnx {

class ModelImporter;

class NodeImporter {
public:
  NodeImporter(ModelImporter &model, const ::onnx::NodeProto &node, int64_t opset,
               mlir::OpBuilder &builder, mlir::Location loc);

  const ::onnx::NodeProto &node() const { return nodeProto; }
  llvm::StringRef opType() const;
  /// The opset version of the node's domain that the model imports.
  int64_t opset() const { return opsetVersion; }
  mlir::OpBuilder &builder() { return opBuilder; }
  mlir::Location loc() const { return location; }
  mlir::MLIRContext *context() const { return location.getContext(); }

  //===--------------------------------------------------------------------===//
  // Inputs
  //===--------------------------------------------------------------------===//

  /// Number of inputs written on the node, the omitted optional ones ("") included.
  size_t numInputs() const;
  /// Input `index`, or null when it is omitted ("" or past the end).
  mlir::Value input(size_t index) const;
  /// Input `index`; an error naming the node when it is omitted.
  mlir::FailureOr<mlir::Value> requiredInput(size_t index);
  /// The integer values of input `index` when it is a constant, e.g. Reshape's shape.
  std::optional<llvm::SmallVector<int64_t>> constantInts(size_t index) const;

  //===--------------------------------------------------------------------===//
  // Attributes. Each getter fails (with an error naming the node) when the attribute
  // exists with another type; the `std::optional` forms return nullopt when it is absent.
  //===--------------------------------------------------------------------===//

  const ::onnx::AttributeProto *attribute(llvm::StringRef name) const;
  mlir::FailureOr<std::optional<int64_t>> intAttr(llvm::StringRef name);
  mlir::FailureOr<int64_t> intAttr(llvm::StringRef name, int64_t defaultValue);
  /// An INT attribute that ONNX uses as a flag: 0 or 1 (`defaultValue` when absent).
  mlir::FailureOr<bool> boolAttr(llvm::StringRef name, bool defaultValue);
  mlir::FailureOr<std::optional<float>> floatAttr(llvm::StringRef name);
  mlir::FailureOr<float> floatAttr(llvm::StringRef name, float defaultValue);
  mlir::FailureOr<std::optional<std::string>> stringAttr(llvm::StringRef name);
  mlir::FailureOr<std::string> stringAttr(llvm::StringRef name, llvm::StringRef defaultValue);
  mlir::FailureOr<std::optional<llvm::SmallVector<int64_t>>> intsAttr(llvm::StringRef name);
  mlir::FailureOr<std::optional<llvm::SmallVector<float>>> floatsAttr(llvm::StringRef name);
  mlir::FailureOr<std::optional<llvm::SmallVector<std::string>>> stringsAttr(llvm::StringRef name);
  /// A TENSOR attribute (Constant's value, ConstantOfShape's value) as elements.
  mlir::FailureOr<std::optional<mlir::ElementsAttr>> tensorAttr(llvm::StringRef name);

  //===--------------------------------------------------------------------===//
  // Results
  //===--------------------------------------------------------------------===//

  /// Number of outputs written on the node, the omitted optional ones ("") included.
  size_t numOutputs() const;
  /// Whether output `index` is written and used under a name.
  bool hasOutput(size_t index) const;

  /// Creates an op of type `OpTy` with `numResults` results whose types the op infers
  /// from operands and attributes. A failing shape rule is reported on the node and
  /// nothing is created.
  template <typename OpTy>
  mlir::FailureOr<mlir::Operation *> create(mlir::ValueRange operands,
                                            llvm::ArrayRef<mlir::NamedAttribute> attributes = {},
                                            unsigned numResults = 1) {
    return createInferred(OpTy::getOperationName(), operands, attributes, numResults);
  }

  /// Creates an op with `numRegions` empty regions and `numResults` results whose types
  /// the converter sets once the regions are filled (control flow), then calls `verify`.
  mlir::Operation *createWithRegions(llvm::StringRef name, mlir::ValueRange operands,
                                     llvm::ArrayRef<mlir::NamedAttribute> attributes,
                                     unsigned numResults, unsigned numRegions);
  /// Verifies an op the converter built, reporting problems on the node; the op is erased
  /// if it is invalid.
  mlir::LogicalResult verify(mlir::Operation *op);

  /// Imports the GRAPH attribute `name` into `region` (see ModelImporter::importSubgraph);
  /// returns the types the subgraph yields.
  mlir::FailureOr<llvm::SmallVector<mlir::Type>>
  importSubgraph(llvm::StringRef name, mlir::Region &region,
                 llvm::ArrayRef<mlir::Type> argumentTypes);
  /// The number of inputs and outputs of the GRAPH attribute `name`.
  mlir::FailureOr<std::pair<size_t, size_t>> subgraphArity(llvm::StringRef name);
  /// The type the GRAPH attribute `name` declares for its input `index`, if any.
  mlir::Type subgraphInputType(llvm::StringRef name, size_t index);

  /// Creates a `graph.constant` holding `values` as a 1-D i64 tensor (e.g. the axes of
  /// an old opset's attribute, as the newest opset's operand).
  mlir::Value constantI64(llvm::ArrayRef<int64_t> values);
  /// Creates a `graph.constant` of `value`.
  mlir::Value constant(mlir::ElementsAttr value);

  /// Binds the node's outputs, in order, to `results`; omitted outputs may be null.
  mlir::LogicalResult setResults(mlir::ValueRange results);
  mlir::LogicalResult setResult(mlir::Value result) { return setResults(mlir::ValueRange(result)); }
  /// Binds the node's outputs to the results of `op`, or passes its failure on.
  mlir::LogicalResult setResults(mlir::FailureOr<mlir::Operation *> op) {
    if (mlir::failed(op))
      return mlir::failure();
    return setResults((*op)->getResults());
  }

  /// An error on the node: "node 'name' (OpType): ..." at the node's location.
  mlir::InFlightDiagnostic error();

private:
  mlir::FailureOr<mlir::Operation *> createInferred(llvm::StringRef name, mlir::ValueRange operands,
                                                    llvm::ArrayRef<mlir::NamedAttribute> attrs,
                                                    unsigned numResults);
  /// Runs `check` on `op` while catching the op's own diagnostics, so that the first is
  /// reported again on the node; erases `op` when `check` fails.
  mlir::LogicalResult checkCreated(mlir::Operation *op,
                                   llvm::function_ref<mlir::LogicalResult()> check);
  /// The attribute `name` if present with type `type`, else null; an error if present
  /// with another type.
  mlir::FailureOr<const ::onnx::AttributeProto *> typedAttribute(llvm::StringRef name, int type);

  ModelImporter &model;
  const ::onnx::NodeProto &nodeProto;
  int64_t opsetVersion;
  mlir::OpBuilder &opBuilder;
  mlir::Location location;
};

/// Converts one ONNX node into graph ops.
using Converter = mlir::LogicalResult (*)(NodeImporter &);

/// Converters by domain and operator: the default ONNX domain (ai.onnx, written "") and
/// the other domains Kiln knows (ai.onnx.preview.training).
class ConverterRegistry {
public:
  /// The domain of ONNX's training operators (Adagrad, Adam, Momentum).
  static constexpr llvm::StringLiteral kTrainingDomain = "ai.onnx.preview.training";

  struct Entry {
    Converter converter = nullptr;
    /// The opset of the operator's domain that introduced it; models importing an earlier
    /// one are rejected before the converter runs.
    int64_t sinceOpset = 1;
  };
  /// Registers `converter` for `opType` of `domain` ("" for the default domain).
  void add(llvm::StringRef opType, Converter converter, int64_t sinceOpset = 1,
           llvm::StringRef domain = "");
  /// The entry of `opType` in `domain` ("" or "ai.onnx" for the default domain); its
  /// converter is null when there is none.
  Entry lookup(llvm::StringRef opType, llvm::StringRef domain = "") const;
  /// Whether any converter belongs to `domain`.
  bool knowsDomain(llvm::StringRef domain) const;
  /// The operators of `domain` with a converter, sorted (for docs/onnx-coverage.md).
  llvm::SmallVector<llvm::StringRef> opTypes(llvm::StringRef domain = "") const;

  /// The registry with every converter of every op family.
  static const ConverterRegistry &get();

private:
  /// Converters by domain ("" for the default one), then by operator.
  llvm::StringMap<llvm::StringMap<Entry>> converters;
};

// One function per op family (lib/onnx/ops/<Family>.cpp) adds its converters.
void addControlConverters(ConverterRegistry &registry);
void addCoreConverters(ConverterRegistry &registry);
void addElementwiseConverters(ConverterRegistry &registry);
void addShapeConverters(ConverterRegistry &registry);
void addNNConverters(ConverterRegistry &registry);
void addReductionConverters(ConverterRegistry &registry);
void addQuantizationConverters(ConverterRegistry &registry);
void addRandomConverters(ConverterRegistry &registry);
void addRecurrentConverters(ConverterRegistry &registry);
void addSignalConverters(ConverterRegistry &registry);
void addTrainingConverters(ConverterRegistry &registry);

} // namespace kiln::onnx

#endif // KILN_LIB_ONNX_NODEIMPORTER_H
