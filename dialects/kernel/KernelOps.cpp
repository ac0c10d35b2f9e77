//===- KernelOps.cpp - Operations of the kernel dialect -------------------===//

#include "dialects/kernel/KernelOps.h"

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

#define GET_OP_CLASSES
#include "dialects/kernel/KernelOps.cpp.inc"
