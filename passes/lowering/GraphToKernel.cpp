//===- GraphToKernel.cpp - Form kernels and the host schedule -------------===//
//
// Kernel formation: every graph op of a function becomes a `kernel.func` holding one
// template op whose body is that op (with the small constants it reads), and the function
// becomes a host schedule on buffers: its tensors become memrefs (arguments, then one
// output argument per result, destination-passing style), large constants become
// `memref.global` weights, intermediates become `memref.alloc`s, and each op becomes a
// `kernel.launch`. Fusion (a later pass) merges templates; here each group is one op.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace kiln {
#define GEN_PASS_DEF_GRAPHTOKERNEL
#include "passes/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace graph = kiln::graph;
namespace kernel = kiln::kernel;

namespace {

/// Constants of at most this many elements are copied into the kernels that read them
/// (axes, shapes, scalars: the lowering folds them); larger ones are weights in device
/// memory, read through a kernel argument.
constexpr int64_t kInlineConstantElements = 16;

/// A symbol-safe version of `text`: letters, digits and '_' only, not starting with a digit.
std::string sanitize(StringRef text) {
  std::string result;
  for (char c : text)
    result.push_back(llvm::isAlnum(c) ? c : '_');
  if (result.empty() || llvm::isDigit(result.front()))
    result.insert(result.begin(), 'k');
  return result;
}

bool isInlinedConstant(graph::ConstantOp constant) {
  auto type = cast<ShapedType>(constant.getType());
  auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
  return (value && value.isSplat()) || type.getNumElements() <= kInlineConstantElements;
}

/// The buffer type of a tensor value; fails with an error on `op` for a dynamic shape.
FailureOr<MemRefType> getBufferType(Value value, Operation *op) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape()) {
    std::string node = kiln::graph::getNodeName(op->getLoc());
    InFlightDiagnostic diagnostic = op->emitError();
    if (!node.empty())
      diagnostic << "node '" << node << "' (" << op->getName() << "): ";
    diagnostic << "the GPU path needs static shapes, but a value has type " << value.getType()
               << " (give the input shapes with --shapes)";
    return failure();
  }
  return MemRefType::get(type.getShape(), type.getElementType());
}

/// Which template a graph op becomes.
enum class TemplateKind { Pointwise, Reduction, Matmul, Conv, Movement, Generic };

TemplateKind classify(Operation *op) {
  if (isa<graph::MatMulOp, graph::GemmOp>(op))
    return TemplateKind::Matmul;
  if (isa<graph::ConvOp>(op))
    return TemplateKind::Conv;
  if (op->getNumRegions() != 0)
    return TemplateKind::Generic;
  if (op->hasTrait<graph::OpTrait::Reduction>())
    return TemplateKind::Reduction;
  if (op->hasTrait<graph::OpTrait::DataMovement>())
    return TemplateKind::Movement;
  if (op->hasTrait<graph::OpTrait::Pointwise>())
    return TemplateKind::Pointwise;
  return TemplateKind::Generic;
}

Operation *createTemplate(OpBuilder &builder, Location loc, TemplateKind kind, ValueRange inputs,
                          ValueRange outputs) {
  switch (kind) {
  case TemplateKind::Pointwise:
    return kernel::PointwiseOp::create(builder, loc, inputs, outputs, nullptr);
  case TemplateKind::Reduction:
    return kernel::ReductionOp::create(builder, loc, inputs, outputs, nullptr);
  case TemplateKind::Matmul:
    return kernel::MatmulOp::create(builder, loc, inputs, outputs, nullptr);
  case TemplateKind::Conv:
    return kernel::ConvOp::create(builder, loc, inputs, outputs, nullptr);
  case TemplateKind::Movement:
    return kernel::MovementOp::create(builder, loc, inputs, outputs, nullptr);
  case TemplateKind::Generic:
    return kernel::GenericOp::create(builder, loc, inputs, outputs, nullptr);
  }
  llvm_unreachable("unknown template kind");
}

struct GraphToKernelPass : kiln::impl::GraphToKernelBase<GraphToKernelPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp function : functions) {
      if (function.isExternal())
        continue;
      if (failed(formKernels(module, function)))
        return signalPassFailure();
    }
  }

  LogicalResult formKernels(ModuleOp module, func::FuncOp function) {
    MLIRContext *context = &getContext();
    Block &body = function.getBody().front();
    auto returnOp = cast<func::ReturnOp>(body.getTerminator());
    OpBuilder builder(context);
    SymbolTable symbols(module);

    // The host function: inputs, then one output buffer per result.
    SmallVector<Type> argumentTypes;
    for (BlockArgument argument : body.getArguments()) {
      FailureOr<MemRefType> type = getBufferType(argument, function);
      if (failed(type))
        return failure();
      argumentTypes.push_back(*type);
    }
    for (Value result : returnOp.getOperands()) {
      FailureOr<MemRefType> type = getBufferType(result, returnOp);
      if (failed(type))
        return failure();
      argumentTypes.push_back(*type);
    }
    builder.setInsertionPoint(function);
    auto host = func::FuncOp::create(builder, function.getLoc(), function.getName(),
                                     builder.getFunctionType(argumentTypes, {}));
    SmallVector<DictionaryAttr> argumentAttrs;
    function.getAllArgAttrs(argumentAttrs);
    SmallVector<DictionaryAttr> resultAttrs;
    function.getAllResultAttrs(resultAttrs);
    argumentAttrs.append(resultAttrs.begin(), resultAttrs.end());
    argumentAttrs.resize(argumentTypes.size(), DictionaryAttr::get(context));
    // The engine's IO signature is read from these: the ONNX element type survives the
    // later retyping of unsigned integers to signless ones.
    for (auto [attrs, type] : llvm::zip(argumentAttrs, argumentTypes)) {
      NamedAttrList list(attrs);
      list.set("kernel.element_type", TypeAttr::get(cast<MemRefType>(type).getElementType()));
      attrs = list.getDictionary(context);
    }
    host.setAllArgAttrs(argumentAttrs);
    host->setAttr("kernel.num_inputs",
                  builder.getI64IntegerAttr(static_cast<int64_t>(body.getNumArguments())));
    Block *entry = host.addEntryBlock();
    unsigned numInputs = body.getNumArguments();

    // The buffer holding each tensor value.
    IRMapping buffers;
    for (auto [argument, buffer] : llvm::zip(body.getArguments(), entry->getArguments()))
      buffers.map(argument, buffer);
    // Results returned exactly once and computed by a kernel are written by that kernel
    // straight into their output buffer; the others are copied there at the end.
    llvm::DenseMap<Value, unsigned> returnCount;
    for (Value result : returnOp.getOperands())
      ++returnCount[result];
    llvm::DenseMap<Value, Value> directOutput;
    for (auto [index, result] : llvm::enumerate(returnOp.getOperands()))
      if (returnCount[result] == 1 && result.getDefiningOp() &&
          !isa<graph::ConstantOp>(result.getDefiningOp()))
        directOutput[result] = entry->getArgument(numInputs + index);

    builder.setInsertionPointToEnd(entry);
    llvm::StringSet<> usedNames;
    for (auto &op : body.getOperations()) {
      if (&op == returnOp)
        break;
      if (auto constant = dyn_cast<graph::ConstantOp>(op)) {
        if (isInlinedConstant(constant))
          continue;
        FailureOr<Value> weight = createWeight(builder, symbols, constant);
        if (failed(weight))
          return failure();
        buffers.map(constant.getResult(), *weight);
        continue;
      }
      if (op.use_empty() && isPure(&op))
        continue;
      if (failed(createKernel(builder, module, symbols, op, buffers, directOutput, usedNames)))
        return failure();
    }

    // Copy the results that no kernel wrote into their output buffers.
    for (auto [index, result] : llvm::enumerate(returnOp.getOperands())) {
      Value output = entry->getArgument(numInputs + index);
      if (directOutput.lookup(result) == output)
        continue;
      Value source = buffers.lookupOrNull(result);
      if (!source) {
        // An inlined (small) constant returned as is.
        auto constant = cast<graph::ConstantOp>(result.getDefiningOp());
        FailureOr<Value> weight = createWeight(builder, symbols, constant);
        if (failed(weight))
          return failure();
        source = *weight;
      }
      memref::CopyOp::create(builder, returnOp.getLoc(), source, output);
    }
    func::ReturnOp::create(builder, returnOp.getLoc());

    for (NamedAttribute attribute : function->getDiscardableAttrs())
      if (!host->hasAttr(attribute.getName()))
        host->setAttr(attribute.getName(), attribute.getValue());
    function.erase();
    return success();
  }

  /// A memref.global holding `constant`'s value, and its memref.get_global.
  FailureOr<Value> createWeight(OpBuilder &builder, SymbolTable &symbols,
                                graph::ConstantOp constant) {
    FailureOr<MemRefType> type = getBufferType(constant.getResult(), constant);
    if (failed(type))
      return failure();
    std::string name = "weight";
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(constant.getValue()))
      name = sanitize(resource.getRawHandle().getKey());
    // Globals go before the host function, in the module.
    OpBuilder moduleBuilder(builder.getInsertionBlock()->getParentOp());
    auto global = memref::GlobalOp::create(
        moduleBuilder, constant.getLoc(), name, moduleBuilder.getStringAttr("private"), *type,
        cast<ElementsAttr>(constant.getValue()), /*constant=*/true, /*alignment=*/nullptr);
    symbols.insert(global); // renames on a clash
    return memref::GetGlobalOp::create(builder, constant.getLoc(), *type, global.getSymName())
        .getResult();
  }

  /// The kernel.func computing `op`, and its launch on the buffers of its operands.
  LogicalResult createKernel(OpBuilder &builder, ModuleOp module, SymbolTable &symbols,
                             Operation &op, IRMapping &buffers,
                             const llvm::DenseMap<Value, Value> &directOutput,
                             llvm::StringSet<> &usedNames) {
    Location loc = op.getLoc();
    // Inputs: the op's operands and the values its regions use from outside, without
    // the small constants, which are copied into the body.
    llvm::SetVector<Value> captured(op.getOperands().begin(), op.getOperands().end());
    getUsedValuesDefinedAbove(op.getRegions(), captured);
    SmallVector<Value> inputs;
    SmallVector<graph::ConstantOp> inlined;
    for (Value value : captured) {
      auto constant = value.getDefiningOp<graph::ConstantOp>();
      if (constant && isInlinedConstant(constant)) {
        if (!llvm::is_contained(inlined, constant))
          inlined.push_back(constant);
        continue;
      }
      inputs.push_back(value);
    }

    SmallVector<Type> argumentTypes;
    SmallVector<Value> launchOperands;
    for (Value input : inputs) {
      FailureOr<MemRefType> type = getBufferType(input, &op);
      if (failed(type))
        return failure();
      argumentTypes.push_back(*type);
      launchOperands.push_back(buffers.lookup(input));
    }
    for (Value result : op.getResults()) {
      FailureOr<MemRefType> type = getBufferType(result, &op);
      if (failed(type))
        return failure();
      argumentTypes.push_back(*type);
      Value buffer = directOutput.lookup(result);
      if (!buffer)
        buffer = memref::AllocOp::create(builder, loc, *type);
      buffers.map(result, buffer);
      launchOperands.push_back(buffer);
    }

    // The kernel, named after the ONNX node (or the op) and unique in the module.
    std::string node = kiln::graph::getNodeName(loc);
    std::string base = sanitize(node.empty() ? op.getName().stripDialect() : StringRef(node));
    std::string name = base;
    for (unsigned suffix = 1; usedNames.contains(name) || symbols.lookup(name); ++suffix)
      name = base + "_" + std::to_string(suffix);
    usedNames.insert(name);

    OpBuilder kernelBuilder(&getContext());
    kernelBuilder.setInsertionPoint(builder.getInsertionBlock()->getParentOp());
    auto kernelFunc = kernel::FuncOp::create(kernelBuilder, loc, name,
                                             kernelBuilder.getFunctionType(argumentTypes, {}));
    symbols.insert(kernelFunc);
    Block &kernelEntry = kernelFunc.getBody().front();
    kernelBuilder.setInsertionPointToEnd(&kernelEntry);
    unsigned numInputs = inputs.size();
    Operation *templateOp = createTemplate(kernelBuilder, loc, classify(&op),
                                           kernelEntry.getArguments().take_front(numInputs),
                                           kernelEntry.getArguments().drop_front(numInputs));
    kernel::ReturnOp::create(kernelBuilder, loc);

    // The template's body: the inlined constants and the op, on tensors.
    Region &region = templateOp->getRegion(0);
    Block *templateBody = kernelBuilder.createBlock(&region);
    IRMapping mapping;
    for (Value input : inputs)
      mapping.map(input, templateBody->addArgument(input.getType(), input.getLoc()));
    for (graph::ConstantOp constant : inlined)
      kernelBuilder.clone(*constant, mapping);
    Operation *clone = kernelBuilder.clone(op, mapping);
    kernel::YieldOp::create(kernelBuilder, loc, clone->getResults());

    kernel::LaunchOp::create(builder, loc, kernelFunc.getSymName(), launchOperands);
    return success();
  }
};

} // namespace
