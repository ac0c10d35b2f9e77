//===- KernelOps.cpp - Operations of the kernel dialect -------------------===//

#include "dialects/kernel/KernelOps.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace kiln::kernel;

//===----------------------------------------------------------------------===//
// FuncOp
//===----------------------------------------------------------------------===//

void FuncOp::build(OpBuilder &builder, OperationState &state, StringRef name, FunctionType type) {
  state.addAttribute(SymbolTable::getSymbolAttrName(), builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  Region *body = state.addRegion();
  Block *entry = new Block();
  for (Type input : type.getInputs())
    entry->addArgument(input, state.location);
  body->push_back(entry);
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag,
                          std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false, getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(p, *this, /*isVariadic=*/false,
                                           getFunctionTypeAttrName(), getArgAttrsAttrName(),
                                           getResAttrsAttrName());
}

LogicalResult FuncOp::verify() {
  if (getBody().empty())
    return emitOpError("must have a body");
  if (!getResultTypes().empty())
    return emitOpError("must not return values: kernels write to their buffer arguments");
  for (auto [index, type] : llvm::enumerate(getArgumentTypes())) {
    if (!isa<MemRefType, IndexType, IntegerType, FloatType>(type))
      return emitOpError("argument ") << index << " has type " << type
                                      << "; expected a memref, an integer, an index or a float";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LaunchOp
//===----------------------------------------------------------------------===//

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto kernel = symbolTable.lookupNearestSymbolFrom<FuncOp>(*this, getCalleeAttr());
  if (!kernel)
    return emitOpError("'") << getCallee() << "' does not name a kernel.func";

  ArrayRef<Type> expected = kernel.getArgumentTypes();
  if (expected.size() != getOperands().size())
    return emitOpError("passes ") << getOperands().size() << " operands to '" << getCallee()
                                  << "', which takes " << expected.size();
  for (auto [index, pair] : llvm::enumerate(llvm::zip(getOperands().getTypes(), expected))) {
    auto [actual, want] = pair;
    if (actual != want)
      return emitOpError("operand ")
             << index << " has type " << actual << " but '" << getCallee() << "' expects " << want;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ReadBackOp
//===----------------------------------------------------------------------===//

LogicalResult ReadBackOp::verify() {
  auto type = cast<MemRefType>(getBuffer().getType());
  if (type.getNumElements() != 1)
    return emitOpError("reads one element; the buffer has ") << type.getNumElements();
  if (type.getElementType() != getValue().getType())
    return emitOpError("reads ") << type.getElementType() << " into a value of type "
                                 << getValue().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Templates
//===----------------------------------------------------------------------===//

namespace {

/// The checks every template shares: the body's arguments are the input buffers as
/// tensors, its terminator yields the output buffers as tensors.
LogicalResult verifyTemplate(Operation *op, ValueRange inputs, ValueRange outputs,
                             ValueRange symbols, Region &body) {
  if (outputs.empty())
    return op->emitOpError("must have at least one output buffer");
  Block &block = body.front();
  if (block.getNumArguments() != inputs.size() + symbols.size())
    return op->emitOpError("body has ")
           << block.getNumArguments() << " arguments for " << inputs.size() << " input buffers and "
           << symbols.size() << " symbols";
  for (BlockArgument argument : block.getArguments().drop_front(inputs.size()))
    if (!argument.getType().isIndex())
      return op->emitOpError("body argument ")
             << argument.getArgNumber() << " has type " << argument.getType()
             << "; the arguments after the input buffers' are the symbols, of type index";
  for (auto [index, pair] : llvm::enumerate(llvm::zip(inputs, block.getArguments()))) {
    auto [input, argument] = pair;
    auto expected = PointwiseOp::getTensorType(cast<MemRefType>(input.getType()));
    if (argument.getType() != expected)
      return op->emitOpError("body argument ")
             << index << " has type " << argument.getType() << "; input buffer " << index
             << " is read as " << expected;
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError("body must end in kernel.yield");
  if (yield.getValues().size() != outputs.size())
    return yield.emitOpError("yields ")
           << yield.getValues().size() << " values for " << outputs.size() << " output buffers";
  for (auto [index, pair] : llvm::enumerate(llvm::zip(outputs, yield.getValues()))) {
    auto [output, value] = pair;
    auto expected = PointwiseOp::getTensorType(cast<MemRefType>(output.getType()));
    if (value.getType() != expected)
      return yield.emitOpError("value ") << index << " has type " << value.getType()
                                         << "; output buffer " << index << " holds " << expected;
  }
  return success();
}

} // namespace

void kiln::kernel::detail::getTemplateEffects(
    Operation *op, ValueRange inputs, ValueRange outputs,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  for (OpOperand &operand : op->getOpOperands()) {
    Value value = operand.get();
    if (llvm::is_contained(inputs, value))
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
    if (llvm::is_contained(outputs, value))
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

namespace {

/// The first op of the body that is not a constant, not part of the prologue (data
/// movement and pointwise ops on the inputs: transposes, reshapes, scales, which the
/// kernel's loads absorb) and not extent arithmetic on the symbols (ops of other
/// dialects): where anchored templates keep their anchor.
Operation *getFirstComputation(Region &body) {
  for (Operation &op : body.front().without_terminator())
    if (!op.hasTrait<OpTrait::ConstantLike>() && isa<kiln::graph::GraphDialect>(op.getDialect()) &&
        !op.hasTrait<kiln::graph::OpTrait::DataMovement>() &&
        !op.hasTrait<kiln::graph::OpTrait::Pointwise>())
      return &op;
  return nullptr;
}

/// Anchored templates: the body's first computation after the prologue is one of the
/// anchor ops `isAnchor` accepts (named `anchorNames` in the message).
LogicalResult verifyAnchor(Operation *op, Region &body, function_ref<bool(Operation *)> isAnchor,
                           StringRef anchorNames) {
  Operation *first = getFirstComputation(body);
  if (!first || !isAnchor(first))
    return op->emitOpError("body must start with ")
           << anchorNames << " (after data-movement and pointwise ops on its inputs)";
  return success();
}

} // namespace

LogicalResult PointwiseOp::verify() {
  return verifyTemplate(*this, getInputs(), getOutputs(), getSymbols(), getBody());
}
LogicalResult ReductionOp::verify() {
  if (failed(verifyTemplate(*this, getInputs(), getOutputs(), getSymbols(), getBody())))
    return failure();
  if (!getAnchor())
    return emitOpError("body must hold a reduction (an op with the graph Reduction trait)");
  return success();
}
LogicalResult MovementOp::verify() {
  return verifyTemplate(*this, getInputs(), getOutputs(), getSymbols(), getBody());
}
LogicalResult GenericOp::verify() {
  return verifyTemplate(*this, getInputs(), getOutputs(), getSymbols(), getBody());
}
LogicalResult AttentionOp::verify() {
  return verifyTemplate(*this, getInputs(), getOutputs(), getSymbols(), getBody());
}
LogicalResult MatmulOp::verify() {
  if (failed(verifyTemplate(*this, getInputs(), getOutputs(), getSymbols(), getBody())))
    return failure();
  return verifyAnchor(
      *this, getBody(), [](Operation *op) { return isa<graph::MatMulOp, graph::GemmOp>(op); },
      "a graph.matmul or graph.gemm");
}
LogicalResult ConvOp::verify() {
  if (failed(verifyTemplate(*this, getInputs(), getOutputs(), getSymbols(), getBody())))
    return failure();
  return verifyAnchor(
      *this, getBody(), [](Operation *op) { return isa<graph::ConvOp>(op); }, "a graph.conv");
}

Operation *MatmulOp::getAnchor() { return getFirstComputation(getBody()); }
Operation *ConvOp::getAnchor() { return getFirstComputation(getBody()); }
Operation *ReductionOp::getAnchor() {
  for (Operation &op : getBody().front().without_terminator())
    if (op.hasTrait<graph::OpTrait::Reduction>())
      return &op;
  return nullptr;
}

#define GET_OP_CLASSES
#include "dialects/kernel/KernelOps.cpp.inc"
