//===- IndexText.h - MLIR text of index arithmetic for template snippets -*- C++ -*-===//
//
// The convolution families write their A operand's index arithmetic as MLIR text spliced
// into their templates, over the spatial axes: the names of per-axis values, and a position
// split into its digits.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_INDEXTEXT_H
#define KILN_PASSES_KERNEL_INDEXTEXT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"

#include <string>

namespace kiln {

/// "cv<prefix><axis>": the SSA name of a per-axis value of a snippet ("cvStrideH").
inline std::string axisName(llvm::StringRef prefix, char axis) {
  return ("cv" + prefix + llvm::Twine(axis)).str();
}

/// axisName(prefix, axis.name) of each of `axes` (anything with a `char name`), in order.
template <typename Axes>
llvm::SmallVector<std::string> axisNames(const Axes &axes, llvm::StringRef prefix) {
  llvm::SmallVector<std::string> names;
  for (const auto &axis : axes)
    names.push_back(axisName(prefix, axis.name));
  return names;
}

/// MLIR text (each line indented by `indent`) that splits index `value` into remainders by
/// `extents` (SSA names, innermost first), named `parts`, and the last quotient, named
/// `outer` (the quotients between are `quotient`0, `quotient`1, ...): the mixed-radix
/// digits of a row-major position.
inline std::string splitIndexText(llvm::StringRef indent, llvm::StringRef value,
                                  llvm::ArrayRef<std::string> extents,
                                  llvm::ArrayRef<std::string> parts, llvm::StringRef outer,
                                  llvm::StringRef quotient) {
  std::string text, current = value.str();
  for (size_t i = 0; i < extents.size(); ++i) {
    std::string next = i + 1 == extents.size() ? outer.str() : quotient.str() + std::to_string(i);
    text += llvm::formatv("{0}%{1} = arith.remui %{2}, %{3} : index\n"
                          "{0}%{4} = arith.divui %{2}, %{3} : index\n",
                          indent, parts[i], current, extents[i], next);
    current = next;
  }
  return text;
}

} // namespace kiln

#endif // KILN_PASSES_KERNEL_INDEXTEXT_H
