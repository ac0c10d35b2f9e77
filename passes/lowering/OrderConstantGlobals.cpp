//===- OrderConstantGlobals.cpp - Constant globals in a fixed order -------===//
//
// One-shot bufferization turns each function's tensor constants into memref.globals named
// `__constant_<type>` (uniqued with `_0`, `_1`, ...) in the order it visits the functions,
// and that order comes from maps keyed by pointers: the same module gave other names and
// another order of its constants from one run to the next, hence engines whose weights
// were laid out differently. This pass renames those globals and orders them by their
// first use in the module, so that the same module always lowers to the same IR.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>

namespace kiln {
#define GEN_PASS_DEF_ORDERCONSTANTGLOBALS
#include "passes/lowering/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// The name bufferization gave `name` before uniquing it: `__constant_8xf16` for
/// `__constant_8xf16_1`.
StringRef baseName(StringRef name) {
  auto [base, suffix] = name.rsplit('_');
  return !suffix.empty() && llvm::all_of(suffix, llvm::isDigit) && base != "_" &&
                 base.starts_with("__constant_")
             ? base
             : name;
}

struct OrderConstantGlobals : kiln::impl::OrderConstantGlobalsBase<OrderConstantGlobals> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<memref::GlobalOp> globals;
    for (auto global : module.getOps<memref::GlobalOp>())
      if (global.getSymName().starts_with("__constant_"))
        globals.push_back(global);
    if (globals.empty())
      return;
    // The position of each global's first use, in the module's order.
    llvm::DenseMap<StringAttr, unsigned> firstUse;
    module.walk([&](memref::GetGlobalOp get) {
      firstUse.try_emplace(get.getNameAttr().getAttr(), firstUse.size());
    });
    auto position = [&](memref::GlobalOp global) {
      auto found = firstUse.find(global.getSymNameAttr());
      return found == firstUse.end() ? unsigned(-1) : found->second;
    };
    // Unused ones (none after symbol DCE) by name, after the rest.
    llvm::stable_sort(globals, [&](memref::GlobalOp a, memref::GlobalOp b) {
      unsigned at = position(a), bt = position(b);
      return at != bt ? at < bt : a.getSymName() < b.getSymName();
    });
    // Renamed in two steps, so that no new name meets an old one.
    SmallVector<std::string> finalNames;
    llvm::StringMap<unsigned> seen;
    for (memref::GlobalOp global : globals) {
      std::string base = baseName(global.getSymName()).str();
      unsigned count = seen[base]++;
      finalNames.push_back(count == 0 ? base : base + "_" + std::to_string(count - 1));
    }
    auto rename = [&](memref::GlobalOp global, StringRef name) -> LogicalResult {
      auto newName = StringAttr::get(&getContext(), name);
      if (failed(SymbolTable::replaceAllSymbolUses(global.getSymNameAttr(), newName, module)))
        return failure();
      global.setSymName(name);
      return success();
    };
    for (auto [index, global] : llvm::enumerate(globals))
      if (failed(rename(global, "__kiln_constant_reordered_" + std::to_string(index))))
        return signalPassFailure();
    for (auto [global, name] : llvm::zip(globals, finalNames))
      if (failed(rename(global, name)))
        return signalPassFailure();
    // In that order, at the top of the module.
    Block *body = module.getBody();
    for (memref::GlobalOp global : llvm::reverse(globals))
      global->moveBefore(body, body->begin());
  }
};

} // namespace
