//===- NodeImporter.cpp - What an op converter sees of one ONNX node ------===//

#include "lib/onnx/NodeImporter.h"
#include "lib/onnx/ModelImporter.h"
#include "lib/onnx/Tensors.h"

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/OpHelpers.h"

#include "onnx/onnx_pb.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using ::onnx::AttributeProto;

namespace kiln::onnx {

NodeImporter::NodeImporter(ModelImporter &model, const ::onnx::NodeProto &node, int64_t opset,
                           OpBuilder &builder, Location loc)
    : model(model), nodeProto(node), opsetVersion(opset), opBuilder(builder), location(loc) {}

llvm::StringRef NodeImporter::opType() const { return nodeProto.op_type(); }

InFlightDiagnostic NodeImporter::error() {
  // The location's name is the node's, or "OpType#index" for unnamed nodes.
  llvm::StringRef name = cast<NameLoc>(location).getName().getValue();
  return emitError(location) << "node '" << name << "' (" << nodeProto.op_type() << "): ";
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

size_t NodeImporter::numInputs() const { return nodeProto.input_size(); }

Value NodeImporter::input(size_t index) const {
  if (index >= numInputs() || nodeProto.input(index).empty())
    return nullptr;
  return model.lookup(nodeProto.input(index));
}

FailureOr<Value> NodeImporter::requiredInput(size_t index) {
  if (Value value = input(index))
    return value;
  if (index < numInputs() && !nodeProto.input(index).empty())
    return failure(); // the initializer could not be converted; already reported
  return LogicalResult(error() << "input " << index << " is required");
}

std::optional<SmallVector<int64_t>> NodeImporter::constantInts(size_t index) const {
  return graph::getConstantInts(input(index));
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

const AttributeProto *NodeImporter::attribute(llvm::StringRef name) const {
  for (const AttributeProto &attr : nodeProto.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

static const char *attributeTypeName(int type) {
  switch (type) {
  case AttributeProto::FLOAT:
    return "FLOAT";
  case AttributeProto::INT:
    return "INT";
  case AttributeProto::STRING:
    return "STRING";
  case AttributeProto::TENSOR:
    return "TENSOR";
  case AttributeProto::GRAPH:
    return "GRAPH";
  case AttributeProto::FLOATS:
    return "FLOATS";
  case AttributeProto::INTS:
    return "INTS";
  case AttributeProto::STRINGS:
    return "STRINGS";
  default:
    return "another type";
  }
}

FailureOr<const AttributeProto *> NodeImporter::typedAttribute(llvm::StringRef name, int type) {
  const AttributeProto *attr = attribute(name);
  if (!attr)
    return static_cast<const AttributeProto *>(nullptr);
  if (!attr->ref_attr_name().empty())
    return LogicalResult(
        error() << "attribute '" << name
                << "' refers to a function attribute; functions are not supported");
  // Old exporters leave `type` unset; accept them when the right field is filled.
  bool hasField = false;
  switch (type) {
  case AttributeProto::FLOAT:
    hasField = attr->has_f();
    break;
  case AttributeProto::INT:
    hasField = attr->has_i();
    break;
  case AttributeProto::STRING:
    hasField = attr->has_s();
    break;
  case AttributeProto::TENSOR:
    hasField = attr->has_t();
    break;
  case AttributeProto::FLOATS:
    hasField = attr->floats_size() > 0;
    break;
  case AttributeProto::INTS:
    hasField = attr->ints_size() > 0;
    break;
  case AttributeProto::STRINGS:
    hasField = attr->strings_size() > 0;
    break;
  }
  if (attr->type() == type || (attr->type() == AttributeProto::UNDEFINED && hasField))
    return attr;
  return LogicalResult(error() << "attribute '" << name << "' is "
                               << attributeTypeName(attr->type()) << ", expected "
                               << attributeTypeName(type));
}

FailureOr<std::optional<int64_t>> NodeImporter::intAttr(llvm::StringRef name) {
  auto attr = typedAttribute(name, AttributeProto::INT);
  if (failed(attr))
    return failure();
  return *attr ? std::optional<int64_t>((*attr)->i()) : std::nullopt;
}

FailureOr<int64_t> NodeImporter::intAttr(llvm::StringRef name, int64_t defaultValue) {
  auto value = intAttr(name);
  if (failed(value))
    return failure();
  return value->value_or(defaultValue);
}

FailureOr<bool> NodeImporter::boolAttr(llvm::StringRef name, bool defaultValue) {
  auto value = intAttr(name, defaultValue ? 1 : 0);
  if (failed(value))
    return failure();
  if (*value != 0 && *value != 1)
    return LogicalResult(error() << "attribute '" << name << "' must be 0 or 1, got " << *value);
  return *value == 1;
}

FailureOr<std::optional<float>> NodeImporter::floatAttr(llvm::StringRef name) {
  auto attr = typedAttribute(name, AttributeProto::FLOAT);
  if (failed(attr))
    return failure();
  return *attr ? std::optional<float>((*attr)->f()) : std::nullopt;
}

FailureOr<float> NodeImporter::floatAttr(llvm::StringRef name, float defaultValue) {
  auto value = floatAttr(name);
  if (failed(value))
    return failure();
  return value->value_or(defaultValue);
}

FailureOr<std::optional<std::string>> NodeImporter::stringAttr(llvm::StringRef name) {
  auto attr = typedAttribute(name, AttributeProto::STRING);
  if (failed(attr))
    return failure();
  return *attr ? std::optional<std::string>((*attr)->s()) : std::nullopt;
}

FailureOr<std::string> NodeImporter::stringAttr(llvm::StringRef name,
                                                llvm::StringRef defaultValue) {
  auto value = stringAttr(name);
  if (failed(value))
    return failure();
  return value->value_or(defaultValue.str());
}

FailureOr<std::optional<SmallVector<int64_t>>> NodeImporter::intsAttr(llvm::StringRef name) {
  auto attr = typedAttribute(name, AttributeProto::INTS);
  if (failed(attr))
    return failure();
  if (!*attr)
    return std::optional<SmallVector<int64_t>>();
  return std::optional<SmallVector<int64_t>>(llvm::to_vector((*attr)->ints()));
}

FailureOr<std::optional<SmallVector<float>>> NodeImporter::floatsAttr(llvm::StringRef name) {
  auto attr = typedAttribute(name, AttributeProto::FLOATS);
  if (failed(attr))
    return failure();
  if (!*attr)
    return std::optional<SmallVector<float>>();
  return std::optional<SmallVector<float>>(llvm::to_vector((*attr)->floats()));
}

FailureOr<std::optional<SmallVector<std::string>>> NodeImporter::stringsAttr(llvm::StringRef name) {
  auto attr = typedAttribute(name, AttributeProto::STRINGS);
  if (failed(attr))
    return failure();
  if (!*attr)
    return std::optional<SmallVector<std::string>>();
  SmallVector<std::string> strings((*attr)->strings().begin(), (*attr)->strings().end());
  return std::optional<SmallVector<std::string>>(std::move(strings));
}

FailureOr<std::optional<ElementsAttr>> NodeImporter::tensorAttr(llvm::StringRef name) {
  auto attr = typedAttribute(name, AttributeProto::TENSOR);
  if (failed(attr))
    return failure();
  if (!*attr)
    return std::optional<ElementsAttr>();
  // The tensor is consumed (its bytes move into the attribute); the node is imported once.
  auto &tensor = const_cast<::onnx::TensorProto &>((*attr)->t());
  std::string blobName = (nodeProto.output_size() ? nodeProto.output(0) : nodeProto.name());
  auto elements = model.convertTensor(tensor, blobName, location,
                                      "node '" + nodeProto.name() + "' (" + nodeProto.op_type() +
                                          "): attribute '" + name.str() + "'");
  if (failed(elements))
    return failure();
  return std::optional<ElementsAttr>(*elements);
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

size_t NodeImporter::numOutputs() const { return nodeProto.output_size(); }

bool NodeImporter::hasOutput(size_t index) const {
  return index < numOutputs() && !nodeProto.output(index).empty();
}

LogicalResult NodeImporter::checkCreated(Operation *op, llvm::function_ref<LogicalResult()> check) {
  std::string firstError;
  LogicalResult result = success();
  {
    ScopedDiagnosticHandler capture(context(), [&](Diagnostic &diagnostic) {
      if (diagnostic.getSeverity() == DiagnosticSeverity::Error && firstError.empty())
        firstError = diagnostic.str();
      return success();
    });
    result = check();
  }
  if (succeeded(result))
    return success();
  op->erase();
  return error() << firstError;
}

FailureOr<Operation *> NodeImporter::createInferred(llvm::StringRef name, ValueRange operands,
                                                    ArrayRef<NamedAttribute> attrs,
                                                    unsigned numResults) {
  // Build with placeholder result types, then ask the op's shape rule: ODS builders that
  // infer types abort on failure, and bad models must get an error instead. The op's own
  // diagnostics are caught and reported again on the node, so the message names it.
  OperationState state(location, name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.addTypes(SmallVector<Type>(numResults, opBuilder.getNoneType()));
  Operation *op = opBuilder.create(state);

  LogicalResult created = checkCreated(op, [&]() -> LogicalResult {
    SmallVector<Type> types;
    if (auto inferable = dyn_cast<InferTypeOpInterface>(op)) {
      if (failed(inferable.inferReturnTypes(context(), location, op->getOperands(),
                                            op->getAttrDictionary(), op->getPropertiesStorage(),
                                            op->getRegions(), types)))
        return failure();
    } else if (op->hasTrait<OpTrait::SameOperandsAndResultType>() && op->getNumOperands() > 0) {
      types.assign(numResults, op->getOperand(0).getType());
    } else {
      return emitError(location) << "internal: " << name << " does not infer its result types";
    }
    if (types.size() != numResults)
      return emitError(location) << "internal: " << name << " infers " << types.size()
                                 << " results, expected " << numResults;
    for (auto [value, type] : llvm::zip(op->getResults(), types))
      value.setType(type);
    return mlir::verify(op);
  });
  if (failed(created))
    return failure();
  return op;
}

Operation *NodeImporter::createWithRegions(llvm::StringRef name, ValueRange operands,
                                           ArrayRef<NamedAttribute> attrs, unsigned numResults,
                                           unsigned numRegions) {
  OperationState state(location, name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.addTypes(SmallVector<Type>(numResults, opBuilder.getNoneType()));
  for (unsigned i = 0; i < numRegions; ++i)
    state.addRegion();
  return opBuilder.create(state);
}

LogicalResult NodeImporter::verify(Operation *op) {
  return checkCreated(op, [&] { return mlir::verify(op); });
}

/// The GRAPH attribute `name` of `node`, or an error.
static FailureOr<::onnx::GraphProto *> graphAttribute(NodeImporter &node, llvm::StringRef name) {
  const AttributeProto *attr = node.attribute(name);
  if (!attr || !attr->has_g())
    return LogicalResult(node.error() << "needs the subgraph attribute '" << name << "'");
  // The subgraph's initializers are consumed as it is imported, once.
  return const_cast<::onnx::GraphProto *>(&attr->g());
}

FailureOr<SmallVector<Type>> NodeImporter::importSubgraph(llvm::StringRef name, Region &region,
                                                          ArrayRef<Type> argumentTypes) {
  auto graph = graphAttribute(*this, name);
  if (failed(graph))
    return failure();
  return model.importSubgraph(**graph, region, argumentTypes, location);
}

FailureOr<std::pair<size_t, size_t>> NodeImporter::subgraphArity(llvm::StringRef name) {
  auto graph = graphAttribute(*this, name);
  if (failed(graph))
    return failure();
  return std::make_pair(size_t((*graph)->input_size()), size_t((*graph)->output_size()));
}

Type NodeImporter::subgraphInputType(llvm::StringRef name, size_t index) {
  const AttributeProto *attr = attribute(name);
  if (!attr || !attr->has_g() || int(index) >= attr->g().input_size())
    return nullptr;
  auto type = tensorType(*context(), attr->g().input(index).type());
  if (!type) {
    llvm::consumeError(type.takeError());
    return nullptr;
  }
  return type->type;
}

Value NodeImporter::constantI64(ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({int64_t(values.size())}, opBuilder.getI64Type());
  return constant(DenseIntElementsAttr::get(type, values));
}

Value NodeImporter::constant(ElementsAttr value) {
  return graph::ConstantOp::create(opBuilder, location, value);
}

LogicalResult NodeImporter::setResults(ValueRange results) {
  for (size_t index = 0; index < numOutputs(); ++index) {
    if (!hasOutput(index))
      continue;
    if (index >= results.size() || !results[index])
      return error() << "output " << index << " ('" << nodeProto.output(index)
                     << "') is not supported";
    if (failed(model.bind(nodeProto.output(index), results[index], *this)))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ConverterRegistry
//===----------------------------------------------------------------------===//

/// `domain` with the default domain's two spellings ("" and "ai.onnx") made one.
static llvm::StringRef canonicalDomain(llvm::StringRef domain) {
  return domain == "ai.onnx" ? llvm::StringRef() : domain;
}

void ConverterRegistry::add(llvm::StringRef opType, Converter converter, int64_t sinceOpset,
                            llvm::StringRef domain) {
  bool inserted =
      converters[canonicalDomain(domain)].try_emplace(opType, Entry{converter, sinceOpset}).second;
  assert(inserted && "two converters for one operator");
  (void)inserted;
}

ConverterRegistry::Entry ConverterRegistry::lookup(llvm::StringRef opType,
                                                   llvm::StringRef domain) const {
  auto found = converters.find(canonicalDomain(domain));
  if (found == converters.end())
    return Entry();
  return found->second.lookup(opType);
}

bool ConverterRegistry::knowsDomain(llvm::StringRef domain) const {
  return converters.count(canonicalDomain(domain));
}

SmallVector<llvm::StringRef> ConverterRegistry::opTypes(llvm::StringRef domain) const {
  SmallVector<llvm::StringRef> names;
  auto found = converters.find(canonicalDomain(domain));
  if (found == converters.end())
    return names;
  for (const auto &entry : found->second)
    names.push_back(entry.getKey());
  llvm::sort(names);
  return names;
}

const ConverterRegistry &ConverterRegistry::get() {
  static const ConverterRegistry registry = [] {
    ConverterRegistry r;
    addControlConverters(r);
    addCoreConverters(r);
    addElementwiseConverters(r);
    addShapeConverters(r);
    addNNConverters(r);
    addReductionConverters(r);
    addQuantizationConverters(r);
    addRandomConverters(r);
    addRecurrentConverters(r);
    addSignalConverters(r);
    addTrainingConverters(r);
    return r;
  }();
  return registry;
}

} // namespace kiln::onnx
