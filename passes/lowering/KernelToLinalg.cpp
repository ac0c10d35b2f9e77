//===- KernelToLinalg.cpp - The generic lowering of kernel templates ------===//
//
// Every template has this lowering: its body, read from and written to the kernel's
// buffers, goes down the same path as the CPU backend (graph-to-linalg, bufferization).
// Template-specific code generators take over kernels before this pass runs; whatever is
// left is lowered here, so every kernel compiles.
//
//===----------------------------------------------------------------------===//

#include "dialects/kernel/KernelOps.h"
#include "passes/lowering/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"

namespace kiln {
#define GEN_PASS_DEF_KERNELTOLINALG
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace kernel = kiln::kernel;

namespace {

/// `type` with signless integers in place of signed and unsigned ones (memrefs and
/// tensors); other types unchanged.
Type toSignless(Type type) {
  auto signless = [](Type element) -> Type {
    auto integer = dyn_cast<IntegerType>(element);
    if (!integer || integer.isSignless())
      return element;
    return IntegerType::get(element.getContext(), integer.getWidth());
  };
  if (auto memref = dyn_cast<MemRefType>(type))
    return MemRefType::get(memref.getShape(), signless(memref.getElementType()), memref.getLayout(),
                           memref.getMemorySpace());
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(tensor.getShape(), signless(tensor.getElementType()));
  return signless(type);
}

/// `value` retyped to signless integers (the global initial values of weights).
Attribute toSignless(ElementsAttr value) {
  auto type = cast<ShapedType>(value.getType());
  Type signless = toSignless(type);
  if (signless == type)
    return value;
  if (auto dense = dyn_cast<DenseElementsAttr>(value))
    return dense.bitcast(cast<ShapedType>(signless).getElementType());
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
    return DenseResourceElementsAttr::get(cast<ShapedType>(signless), resource.getRawHandle());
  return value;
}

/// Retypes every memref in the host code (signatures, values, globals) to signless
/// integers, to match the lowered kernels. The kernels' bodies keep their graph types:
/// their graph ops read signedness from them.
void retypeHost(ModuleOp module, const llvm::DenseSet<Operation *> &kernels) {
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (kernels.contains(op))
      return WalkResult::skip();
    for (Value result : op->getResults())
      result.setType(toSignless(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          argument.setType(toSignless(argument.getType()));
    if (auto function = dyn_cast<func::FuncOp>(op)) {
      SmallVector<Type> inputs, results;
      for (Type type : function.getArgumentTypes())
        inputs.push_back(toSignless(type));
      for (Type type : function.getResultTypes())
        results.push_back(toSignless(type));
      function.setFunctionType(FunctionType::get(op->getContext(), inputs, results));
    }
    if (auto global = dyn_cast<memref::GlobalOp>(op)) {
      global.setType(cast<MemRefType>(toSignless(global.getType())));
      if (auto value = dyn_cast_or_null<ElementsAttr>(global.getInitialValueAttr()))
        global.setInitialValueAttr(toSignless(value));
    }
    return WalkResult::advance();
  });
}

/// The template op of a kernel.func (its one op besides the terminator).
Operation *getTemplate(kernel::FuncOp kernelFunc) {
  for (Operation &op : kernelFunc.getBody().front().without_terminator())
    if (op.getNumRegions() == 1 && isa<kernel::KernelDialect>(op.getDialect()))
      return &op;
  return nullptr;
}

struct KernelToLinalgPass : kiln::impl::KernelToLinalgBase<KernelToLinalgPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<kernel::FuncOp> kernels(module.getOps<kernel::FuncOp>());
    llvm::DenseSet<Operation *> lowered;
    for (kernel::FuncOp kernelFunc : kernels) {
      FailureOr<func::FuncOp> function = lowerKernel(kernelFunc);
      if (failed(function))
        return signalPassFailure();
      lowered.insert(*function);
    }

    // Launches become calls of the functions that replaced the kernels.
    SmallVector<kernel::LaunchOp> launches;
    module.walk([&](kernel::LaunchOp launch) { launches.push_back(launch); });
    for (kernel::LaunchOp launch : launches) {
      OpBuilder builder(launch);
      func::CallOp::create(builder, launch.getLoc(), launch.getCalleeAttr(), TypeRange{},
                           launch.getOperands());
      launch.erase();
    }
    retypeHost(module, lowered);
  }

  FailureOr<func::FuncOp> lowerKernel(kernel::FuncOp kernelFunc) {
    Operation *templateOp = getTemplate(kernelFunc);
    if (!templateOp)
      return kernelFunc.emitOpError("holds no kernel template op");
    OpBuilder builder(kernelFunc);
    Location loc = kernelFunc.getLoc();
    SmallVector<Type> argumentTypes;
    for (Type type : kernelFunc.getArgumentTypes())
      argumentTypes.push_back(toSignless(type));
    auto function = func::FuncOp::create(builder, loc, kernelFunc.getSymName(),
                                         builder.getFunctionType(argumentTypes, {}));
    function.setPrivate();
    Block *entry = function.addEntryBlock();
    builder.setInsertionPointToEnd(entry);

    // Buffers of the kernel, as the template's operands index them.
    IRMapping buffers;
    for (auto [old, replacement] :
         llvm::zip(kernelFunc.getBody().front().getArguments(), entry->getArguments()))
      buffers.map(old, replacement);

    // Operands: the input buffers (the body's tensor arguments), the output buffers, and
    // the symbols (the body's index arguments).
    Block &body = templateOp->getRegion(0).front();
    unsigned numInputs =
        llvm::count_if(body.getArgumentTypes(), [](Type type) { return isa<TensorType>(type); });
    unsigned numSymbols = body.getNumArguments() - numInputs;
    auto inputs = templateOp->getOperands().take_front(numInputs);
    auto outputs = templateOp->getOperands().drop_front(numInputs).drop_back(numSymbols);
    auto symbols = templateOp->getOperands().take_back(numSymbols);

    // Inputs, read as tensors: `restrict` because no other tensor aliases a kernel's
    // buffer; signless integers become the graph's signed or unsigned view by a cast that
    // graph-to-linalg's own conversion cancels.
    IRMapping mapping;
    for (auto [input, argument] : llvm::zip(inputs, body.getArguments())) {
      Value buffer = buffers.lookup(input);
      Type tensorType = toSignless(argument.getType());
      Value tensor = bufferization::ToTensorOp::create(builder, loc, tensorType, buffer,
                                                       builder.getUnitAttr(), nullptr);
      if (tensorType != argument.getType())
        tensor = UnrealizedConversionCastOp::create(builder, loc, argument.getType(), tensor)
                     .getResult(0);
      mapping.map(argument, tensor);
    }
    for (auto [symbol, argument] : llvm::zip(symbols, body.getArguments().drop_front(numInputs)))
      mapping.map(argument, buffers.lookup(symbol));
    for (Operation &op : body.without_terminator())
      builder.clone(op, mapping);
    auto yield = cast<kernel::YieldOp>(body.getTerminator());
    for (auto [value, output] : llvm::zip(yield.getValues(), outputs)) {
      Value result = mapping.lookup(value);
      Type signless = toSignless(result.getType());
      if (signless != result.getType())
        result = UnrealizedConversionCastOp::create(builder, loc, signless, result).getResult(0);
      bufferization::MaterializeInDestinationOp::create(builder, loc, TypeRange{}, result,
                                                        buffers.lookup(output),
                                                        /*restrict=*/true, /*writable=*/true);
    }
    func::ReturnOp::create(builder, loc);
    // Which kernel and template each op came from stays in its location, through
    // inlining and the mapping to GPU launches, for the engine's kernel table and for
    // messages: a FusedLoc whose metadata names them.
    NamedAttrList metadata;
    metadata.set("kernel", kernelFunc.getSymNameAttr());
    metadata.set("template", builder.getStringAttr(templateOp->getName().stripDialect()));
    if (Attribute config = templateOp->getAttr("config"))
      metadata.set("config", config);
    DictionaryAttr tag = metadata.getDictionary(builder.getContext());
    function.walk([&](Operation *op) {
      op->setLoc(FusedLoc::get(builder.getContext(), {op->getLoc()}, tag));
    });
    kernelFunc.erase();
    return function;
  }
};

} // namespace
