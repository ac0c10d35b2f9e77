//===- LocateNonFinite.cpp - Which node first went non-finite ----------------===//
//
// A model that is finite in fp32 may overflow under --fp16 (a sum or an exp beyond f16's
// 65504). When `kiln run --expect-dir` finds non-finite outputs where the expected ones are
// finite, the run compiles the model twice more with every float value it computes as an
// output (after the graph passes, as calibration observes activations): once as the run
// compiled it, once in f32 on the CPU. The first node, in program order, whose values hold
// NaN or Inf in the first while the f32 graph's are finite is where the precision went
// wrong (a -inf mask the model computes on purpose is non-finite in both, and skipped).
//
//===----------------------------------------------------------------------===//

#include "tools/kiln/RunCommon.h"

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace kiln::tool {

unsigned markFloatValues(mlir::ModuleOp module) {
  auto function = module.lookupSymbol<mlir::func::FuncOp>("main");
  if (!function || function.getBody().empty())
    return 0;
  mlir::MLIRContext *context = module.getContext();
  mlir::Operation *terminator = function.getBody().front().getTerminator();
  SmallVector<mlir::DictionaryAttr> resultAttributes;
  for (unsigned index = 0; index < terminator->getNumOperands(); ++index)
    resultAttributes.push_back(function.getResultAttrDict(index));
  StringMap<unsigned> seen;
  unsigned marked = 0;
  for (mlir::Operation &op : function.getBody().front().without_terminator()) {
    // Constants hold what the model gives; casts only move values between precisions.
    if (!isa<graph::GraphDialect>(op.getDialect()) || isa<graph::ConstantOp, graph::CastOp>(op))
      continue;
    std::string node = graph::getNodeName(op.getLoc());
    if (node.empty())
      node = op.getName().getStringRef().str();
    for (mlir::Value result : op.getResults()) {
      auto type = dyn_cast<mlir::RankedTensorType>(result.getType());
      if (!type || !isa<mlir::FloatType>(type.getElementType()))
        continue;
      // A node's later values are "<node> #2", ...: the same names in both graphs.
      unsigned occurrence = ++seen[node];
      std::string name =
          "value " + node + (occurrence > 1 ? " #" + std::to_string(occurrence) : "");
      terminator->insertOperands(terminator->getNumOperands(), result);
      resultAttributes.push_back(mlir::DictionaryAttr::get(
          context, {mlir::NamedAttribute(mlir::StringAttr::get(context, "graph.name"),
                                         mlir::StringAttr::get(context, name))}));
      ++marked;
    }
  }
  function.setFunctionType(
      mlir::FunctionType::get(context, function.getArgumentTypes(), terminator->getOperandTypes()));
  function.setAllResultAttrs(resultAttributes);
  return marked;
}

void reportFirstNonFinite(const std::vector<io::HostTensor> &reduced,
                          const std::vector<io::HostTensor> &reference, size_t modelOutputs,
                          StringRef precision) {
  StringMap<int64_t> referenceNonFinite;
  for (size_t index = modelOutputs; index < reference.size(); ++index)
    referenceNonFinite[reference[index].name] = countNonFinite(reference[index]);
  for (size_t index = modelOutputs; index < reduced.size(); ++index) {
    const io::HostTensor &tensor = reduced[index];
    int64_t bad = countNonFinite(tensor);
    auto found = referenceNonFinite.find(tensor.name);
    if (bad == 0 || found == referenceNonFinite.end() || found->second != 0)
      continue;
    StringRef node = StringRef(tensor.name).drop_front(std::strlen("value "));
    outs() << "first non-finite value at " << precision << ": node '" << node << "' (" << bad
           << " of " << tensor.numElements()
           << " elements NaN or Inf; finite in the fp32 graph on the CPU)\n";
    return;
  }
  outs() << "first non-finite value at " << precision
         << ": not found (every value non-finite here is non-finite in the fp32 graph too, "
            "or lies inside an op the graph passes made of several nodes)\n";
}

} // namespace kiln::tool
