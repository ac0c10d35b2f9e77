//===- ModelImporter.cpp - The graph walk of the ONNX importer ------------===//

#include "lib/onnx/ModelImporter.h"
#include "lib/onnx/NodeImporter.h"

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"

#include "onnx/onnx_pb.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <set>

using namespace mlir;

namespace kiln::onnx {

/// The opsets of the default domain whose differences the converters normalise. Models of
/// opsets 1 to 6 are still common for operators whose newest version is that old.
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 21;
/// Initializers and constants with more elements than this become dense_resource blobs.
constexpr int64_t kMaxInlineElements = 16;

static bool isDefaultDomain(llvm::StringRef domain) {
  return domain.empty() || domain == "ai.onnx";
}

ModelImporter::ModelImporter(MLIRContext &context, llvm::StringRef path,
                             const ImportOptions &options)
    : context(context), path(path.str()), options(options),
      fileLocation(FileLineColLoc::get(&context, path, 0, 0)), builder(&context) {
  scopes.push_back(std::make_unique<Scope>(&context));
  llvm::SmallString<256> directory(path);
  llvm::sys::path::remove_filename(directory);
  external.baseDirectory = directory.empty() ? "." : std::string(directory);
}

Location ModelImporter::nodeLoc(const ::onnx::NodeProto &node, size_t index) const {
  std::string name =
      node.name().empty() ? llvm::formatv("{0}#{1}", node.op_type(), index).str() : node.name();
  return NameLoc::get(StringAttr::get(&context, name), fileLocation);
}

/// The opsets Kiln supports of the domains other than the default one.
struct DomainOpsets {
  llvm::StringLiteral domain;
  int64_t min, max;
};
constexpr DomainOpsets kOtherDomains[] = {{ConverterRegistry::kTrainingDomain, 1, 1}};

LogicalResult ModelImporter::checkOpsets(const ::onnx::ModelProto &model) {
  bool importsDefault = false;
  for (const auto &opset : model.opset_import()) {
    if (isDefaultDomain(opset.domain())) {
      defaultOpset = opset.version();
      importsDefault = true;
    } else {
      domainOpsets[opset.domain()] = opset.version();
    }
  }
  // A model of other domains only (the training optimizers) needs no default opset; its
  // nodes of the default domain, if any, are rejected one by one (importNode).
  if (model.opset_import_size() == 0)
    return emitError(fileLocation, "the model imports no opset of the default ONNX domain");
  if (importsDefault && (defaultOpset < kMinOpset || defaultOpset > kMaxOpset))
    return emitError(fileLocation,
                     llvm::formatv("opset {0} of the default ONNX domain is not supported "
                                   "(supported: {1} to {2})",
                                   defaultOpset, kMinOpset, kMaxOpset));
  for (const DomainOpsets &known : kOtherDomains) {
    auto imported = domainOpsets.find(known.domain);
    if (imported != domainOpsets.end() &&
        (imported->second < known.min || imported->second > known.max))
      return emitError(fileLocation,
                       llvm::formatv("opset {0} of domain '{1}' is not supported "
                                     "(supported: {2} to {3})",
                                     imported->second, known.domain, known.min, known.max));
  }
  return success();
}

FailureOr<ElementsAttr> ModelImporter::convertTensor(::onnx::TensorProto &tensor,
                                                     llvm::StringRef blobName, Location loc,
                                                     llvm::StringRef what) {
  int64_t count = 1;
  for (int64_t dim : tensor.dims())
    count *= std::max<int64_t>(dim, 0);
  auto attr =
      kiln::onnx::convertTensor(context, tensor, blobName, count > kMaxInlineElements, external);
  if (!attr)
    return emitError(loc) << what << ": " << llvm::toString(attr.takeError());
  return *attr;
}

bool ModelImporter::isDefined(llvm::StringRef name) const {
  return llvm::any_of(scopes, [&](const std::unique_ptr<Scope> &scope) {
    return scope->values.count(name) || scope->initializers.count(name);
  });
}

Value ModelImporter::lookup(llvm::StringRef name) {
  for (std::unique_ptr<Scope> &scope : llvm::reverse(scopes)) {
    if (Value value = scope->values.lookup(name))
      return value;
    auto initializer = scope->initializers.find(name);
    if (initializer == scope->initializers.end())
      continue;
    // Initializers become constants at the top of their graph's block, on first use.
    Location loc = NameLoc::get(StringAttr::get(&context, name), fileLocation);
    FailureOr<ElementsAttr> attr =
        convertTensor(*initializer->second, name, loc, "initializer '" + name.str() + "'");
    if (failed(attr))
      return nullptr;
    Value value = graph::ConstantOp::create(scope->constants, loc, *attr);
    scope->values[name] = value;
    scope->initializers.erase(initializer);
    return value;
  }
  return nullptr;
}

LogicalResult ModelImporter::bind(llvm::StringRef name, Value value, NodeImporter &node) {
  if (!innermost().values.try_emplace(name, value).second)
    return node.error() << "output '" << name << "' is already produced by another node";
  // Refine with what the model declares, where it says more than the shape rules could.
  const ::onnx::TypeProto *declared = declaredTypes.lookup(name);
  if (!declared || !value.getDefiningOp() || isa<graph::ConstantOp>(value.getDefiningOp()))
    return success();
  auto declaredType = tensorType(context, *declared);
  if (!declaredType) {
    llvm::consumeError(declaredType.takeError()); // not a tensor: nothing to refine with
    return success();
  }
  Type current = value.getType();
  if (!graph::isRefinementCompatible(TypeRange(declaredType->type), TypeRange(current)))
    return node.error() << "the model declares '" << name << "' as " << declaredType->type
                        << ", but its inputs give " << current;
  auto declaredRanked = dyn_cast<RankedTensorType>(declaredType->type);
  if (!declaredRanked)
    return success();
  auto currentRanked = dyn_cast<RankedTensorType>(current);
  SmallVector<int64_t> shape(declaredRanked.getShape());
  if (currentRanked)
    for (auto [extent, known] : llvm::zip(shape, currentRanked.getShape()))
      if (ShapedType::isDynamic(extent))
        extent = known;
  value.setType(RankedTensorType::get(shape, declaredRanked.getElementType()));
  return success();
}

/// The function argument or result attributes for a graph input or output.
static DictionaryAttr ioAttributes(Builder &b, llvm::StringRef name,
                                   ArrayRef<std::string> dimNames) {
  SmallVector<NamedAttribute> attrs{b.getNamedAttr("graph.name", b.getStringAttr(name))};
  if (llvm::any_of(dimNames, [](const std::string &dim) { return !dim.empty(); })) {
    SmallVector<Attribute> names;
    for (const std::string &dim : dimNames)
      names.push_back(b.getStringAttr(dim));
    attrs.push_back(b.getNamedAttr("graph.dims", b.getArrayAttr(names)));
  }
  return b.getDictionaryAttr(attrs);
}

LogicalResult ModelImporter::importSignature(::onnx::GraphProto &graph, ModuleOp module,
                                             func::FuncOp &function) {
  for (auto &initializer : *graph.mutable_initializer()) {
    if (initializer.name().empty())
      return emitError(fileLocation, "an initializer has no name");
    innermost().initializers[initializer.name()] = &initializer;
  }
  for (const auto &info : graph.value_info())
    declaredTypes[info.name()] = &info.type();
  for (const auto &output : graph.output())
    declaredTypes[output.name()] = &output.type();

  // Inputs that an initializer backs are weights (the initializer is their value), as in
  // TensorRT; the others are the model's inputs.
  SmallVector<Type> inputTypes;
  SmallVector<DictionaryAttr> inputAttrs;
  SmallVector<std::string> inputNames;
  for (const auto &input : graph.input()) {
    if (innermost().initializers.count(input.name()))
      continue;
    auto type = tensorType(context, input.type());
    if (!type)
      return emitError(fileLocation)
             << "graph input '" << input.name() << "': " << llvm::toString(type.takeError());
    inputTypes.push_back(type->type);
    inputAttrs.push_back(ioAttributes(builder, input.name(), type->dimNames));
    inputNames.push_back(input.name());
  }

  // Created straight into the module, so nothing is left to free when a later step fails.
  builder.setInsertionPointToEnd(module.getBody());
  function = func::FuncOp::create(builder, fileLocation, options.functionName,
                                  builder.getFunctionType(inputTypes, {}));
  function.setAllArgAttrs(inputAttrs);
  Block *entry = function.addEntryBlock();
  for (auto [name, argument] : llvm::zip(inputNames, entry->getArguments())) {
    if (!innermost().values.try_emplace(name, argument).second)
      return emitError(fileLocation) << "graph input '" << name << "' is listed twice";
  }
  builder.setInsertionPointToEnd(entry);
  innermost().constants.setInsertionPointToStart(entry);
  return success();
}

FailureOr<SmallVector<std::pair<const ::onnx::NodeProto *, size_t>>>
ModelImporter::sortNodes(const ::onnx::GraphProto &graph) {
  // Which node produces each name.
  llvm::StringMap<size_t> producers;
  for (auto [index, node] : llvm::enumerate(graph.node()))
    for (const std::string &output : node.output())
      if (!output.empty() && !producers.try_emplace(output, index).second)
        return LogicalResult(emitError(nodeLoc(node, index))
                             << "node '" << node.name() << "' (" << node.op_type() << "): output '"
                             << output << "' is already produced by another node");

  // Kahn's algorithm, taking ready nodes in file order so sorted graphs keep their order.
  size_t count = graph.node_size();
  SmallVector<SmallVector<size_t>> users(count);
  SmallVector<size_t> pending(count, 0);
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    llvm::StringSet<> seen;
    for (const std::string &input : node.input()) {
      if (input.empty() || !seen.insert(input).second)
        continue;
      auto producer = producers.find(input);
      if (producer != producers.end()) {
        users[producer->second].push_back(index);
        ++pending[index];
      } else if (!isDefined(input)) {
        return LogicalResult(emitError(nodeLoc(node, index))
                             << "node '" << node.name() << "' (" << node.op_type() << "): input '"
                             << input
                             << "' is not produced by any node, graph input or initializer");
      }
    }
  }
  std::set<size_t> ready;
  for (size_t index = 0; index < count; ++index)
    if (pending[index] == 0)
      ready.insert(index);
  SmallVector<std::pair<const ::onnx::NodeProto *, size_t>> order;
  while (!ready.empty()) {
    size_t index = *ready.begin();
    ready.erase(ready.begin());
    order.push_back({&graph.node(index), index});
    for (size_t user : users[index])
      if (--pending[user] == 0)
        ready.insert(user);
  }
  if (order.size() != count) {
    size_t stuck = llvm::find_if(pending, [](size_t n) { return n != 0; }) - pending.begin();
    const auto &node = graph.node(stuck);
    return LogicalResult(emitError(nodeLoc(node, stuck))
                         << "node '" << node.name() << "' (" << node.op_type()
                         << ") is on a cycle: the graph is not acyclic");
  }
  return order;
}

LogicalResult ModelImporter::importNode(const ::onnx::NodeProto &node, size_t index) {
  Location loc = nodeLoc(node, index);
  const ConverterRegistry &registry = ConverterRegistry::get();
  int64_t opset = defaultOpset;
  if (isDefaultDomain(node.domain())) {
    if (defaultOpset == 0)
      return emitError(loc) << "node '" << node.name() << "' (" << node.op_type()
                            << "): the model imports no opset of the default ONNX domain";
  } else {
    auto domain = domainOpsets.find(node.domain());
    if (domain == domainOpsets.end())
      return emitError(loc) << "node '" << node.name() << "' (" << node.op_type() << "): domain '"
                            << node.domain() << "' is not imported by the model";
    if (!registry.knowsDomain(node.domain()))
      return emitError(loc) << "node '" << node.name() << "' (" << node.op_type()
                            << "): operators of domain '" << node.domain() << "' are not supported";
    opset = domain->second;
  }
  NodeImporter importer(*this, node, opset, builder, loc);
  ConverterRegistry::Entry entry = registry.lookup(node.op_type(), node.domain());
  if (!entry.converter) {
    InFlightDiagnostic diagnostic = importer.error() << "unsupported operator " << node.op_type();
    if (!isDefaultDomain(node.domain()))
      diagnostic << " of domain '" << node.domain() << "'";
    return diagnostic << " (opset " << opset << ")";
  }
  if (opset < entry.sinceOpset)
    return importer.error() << node.op_type() << " exists from opset " << entry.sinceOpset
                            << "; the model imports opset " << opset;
  return entry.converter(importer);
}

LogicalResult ModelImporter::importOutputs(::onnx::GraphProto &graph, func::FuncOp function) {
  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  for (const auto &output : graph.output()) {
    Value value = lookup(output.name());
    if (!value)
      return emitError(fileLocation) << "graph output '" << output.name()
                                     << "' is not produced by any node, input or initializer";
    auto type = tensorType(context, output.type());
    SmallVector<std::string> dimNames;
    if (type)
      dimNames = type->dimNames;
    else
      llvm::consumeError(type.takeError());
    results.push_back(value);
    resultAttrs.push_back(ioAttributes(builder, output.name(), dimNames));
  }
  func::ReturnOp::create(builder, fileLocation, results);
  function.setFunctionType(
      builder.getFunctionType(function.getArgumentTypes(), ValueRange(results).getTypes()));
  function.setAllResultAttrs(resultAttrs);
  return success();
}

FailureOr<SmallVector<Type>> ModelImporter::importSubgraph(::onnx::GraphProto &graph,
                                                           Region &region,
                                                           ArrayRef<Type> argumentTypes,
                                                           Location loc) {
  if (size_t(graph.input_size()) != argumentTypes.size())
    return LogicalResult(emitError(loc)
                         << "subgraph '" << graph.name() << "' has " << graph.input_size()
                         << " inputs, expected " << argumentTypes.size());
  Block *block = new Block();
  region.push_back(block);
  scopes.push_back(std::make_unique<Scope>(&context));
  auto popScope = llvm::scope_exit([&] { scopes.pop_back(); });
  for (auto &initializer : *graph.mutable_initializer())
    innermost().initializers[initializer.name()] = &initializer;
  for (const auto &info : graph.value_info())
    declaredTypes[info.name()] = &info.type();
  for (auto [input, type] : llvm::zip(graph.input(), argumentTypes))
    innermost().values[input.name()] = block->addArgument(type, loc);

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  innermost().constants.setInsertionPointToStart(block);
  auto order = sortNodes(graph);
  if (failed(order))
    return failure();
  for (auto [node, index] : *order)
    if (failed(importNode(*node, index)))
      return failure();

  SmallVector<Value> outputs;
  for (const auto &output : graph.output()) {
    Value value = lookup(output.name());
    if (!value)
      return LogicalResult(emitError(loc) << "subgraph output '" << output.name()
                                          << "' is not produced by any node, input or "
                                             "initializer");
    outputs.push_back(value);
  }
  graph::YieldOp::create(builder, loc, outputs);
  return llvm::to_vector(ValueRange(outputs).getTypes());
}

OwningOpRef<ModuleOp> ModelImporter::import(::onnx::ModelProto &model) {
  if (failed(checkOpsets(model)))
    return nullptr;
  if (!model.has_graph())
    return emitError(fileLocation, "the model has no graph"), nullptr;
  ::onnx::GraphProto &graph = *model.mutable_graph();

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLocation);
  func::FuncOp function;
  if (failed(importSignature(graph, *module, function)))
    return nullptr;

  auto order = sortNodes(graph);
  if (failed(order))
    return nullptr;
  for (auto [node, index] : *order)
    if (failed(importNode(*node, index)))
      return nullptr;
  if (failed(importOutputs(graph, function)))
    return nullptr;

  // A converter or shape rule that let an inconsistency through is a bug, but it is still
  // reported as an error rather than handed on.
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace kiln::onnx
