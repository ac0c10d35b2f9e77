//===- WgmmaAsm.cpp - wgmma products as inline asm in a kernel template ---===//
//
// WgmmaAsm.h.
//
//===----------------------------------------------------------------------===//

#include "passes/kernel/WgmmaAsm.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace kiln;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;

std::string kiln::wgmmaSnippet(StringRef type, ArrayRef<WgmmaProduct> products, bool issueOnly) {
  std::string text;
  llvm::raw_string_ostream os(text);
  // Operands: every product's accumulators out, then in (tied), then each product's A
  // registers (4 a k-step) or A descriptor, its B descriptor, and one i32 zero for the
  // predicates. A k-step's descriptors are the block's own registers (the operand's plus
  // the step's offset, each just before its wgmma): as operands, every step's would be
  // live at once (D 256: 36 of 64 bits for S and P V, more registers than a consumer has
  // to spare).
  int64_t outputs = 0;
  for (const WgmmaProduct &product : products)
    outputs += product.n / 2;
  int64_t next = 2 * outputs;
  SmallVector<int64_t> aFirst, descFirst, accFirst;
  int64_t acc = 0;
  for (const WgmmaProduct &product : products) {
    accFirst.push_back(acc);
    acc += product.n / 2;
    aFirst.push_back(next);
    next += product.aDesc.empty() ? 4 * product.steps : 1;
    descFirst.push_back(next);
    next += 1;
  }
  int64_t flag = next;
  std::string ptx = llvm::formatv("{{ .reg .pred p0, p1; .reg .b64 da, db; setp.ne.b32 p0, ${0}, "
                                  "0; setp.eq.b32 p1, ${0}, 0; wgmma.fence.sync.aligned; ",
                                  flag)
                        .str();
  std::string constraints, tied, inputs, operands, operandTypes, structType = "!llvm.struct<(";
  std::string accOperands, accTypes;
  for (auto [index, product] : llvm::enumerate(products)) {
    const std::string &prefix = product.prefix;
    bool aShared = !product.aDesc.empty();
    int64_t accRegs = product.n / 2;
    for (int64_t k = 0; k < product.steps; ++k) {
      for (int64_t r = 0; r < 4 && !aShared; ++r) {
        os << llvm::formatv(
            "      %{0}_a{1}_{2}_v = vector.extract {3}[{4}] : vector<2x{5}> from {6}\n", prefix, k,
            r, product.aSource, product.aIndex(k, r), type, product.aSourceType);
        os << llvm::formatv("      %{0}_a{1}_{2}_w = vector.bitcast %{0}_a{1}_{2}_v : "
                            "vector<2x{3}> to vector<1xi32>\n",
                            prefix, k, r, type);
        os << llvm::formatv("      %{0}_a{1}_{2} = vector.extract %{0}_a{1}_{2}_w[0] : i32 from "
                            "vector<1xi32>\n",
                            prefix, k, r);
      }
    }
    for (int64_t i = 0; i < accRegs; ++i)
      os << llvm::formatv("      %{0}_c{1} = vector.extract {2}[0, {3}, {4}, {5}] : f32 from "
                          "{6}\n",
                          prefix, i, product.acc, i / 4, (i / 2) % 2, i % 2, product.accType);
    std::string accList;
    for (int64_t i = 0; i < accRegs; ++i)
      accList += (i ? ", $" : "$") + std::to_string(accFirst[index] + i);
    for (int64_t k = 0; k < product.steps; ++k) {
      int64_t a0 = aFirst[index] + (aShared ? 0 : 4 * k);
      std::string a =
          aShared ? "da"
                  : llvm::formatv("{{${0}, ${1}, ${2}, ${3}}", a0, a0 + 1, a0 + 2, a0 + 3).str();
      if (aShared)
        ptx += llvm::formatv("add.s64 da, ${0}, {1}; ", a0, product.aDescStep(k)).str();
      ptx += llvm::formatv("add.s64 db, ${0}, {1}; ", descFirst[index], product.descStep(k)).str();
      // Shared A takes imm-trans-a (0: K-major) before imm-trans-b.
      ptx += llvm::formatv("wgmma.mma_async.sync.aligned.m64n{0}k16.f32.{1}.{1} {{{2}}, {3}, "
                           "db, {4}, 1, 1, {5}{6}; ",
                           product.n, type, accList, a, k == 0 && product.zeroFirst ? "p0" : "p1",
                           aShared ? "0, " : "", product.transposeB ? 1 : 0)
                 .str();
    }
    if (issueOnly)
      ptx += "wgmma.commit_group.sync.aligned; ";
    for (int64_t i = 0; i < accRegs; ++i) {
      constraints += "=f,";
      tied += std::to_string(accFirst[index] + i) + ",";
      accOperands += llvm::formatv("%{0}_c{1}, ", prefix, i).str();
      accTypes += "f32, ";
      structType += accFirst[index] + i ? ", f32" : "f32";
    }
    if (aShared) {
      inputs += "l,";
      operands += product.aDesc + ", ";
      operandTypes += "i64, ";
    }
    for (int64_t k = 0; k < product.steps && !aShared; ++k)
      for (int64_t r = 0; r < 4; ++r) {
        inputs += "r,";
        operands += llvm::formatv("%{0}_a{1}_{2}, ", prefix, k, r).str();
        operandTypes += "i32, ";
      }
    inputs += "l,";
    operands += product.desc + ", ";
    operandTypes += "i64, ";
  }
  ptx += issueOnly ? "}" : "wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0; }";
  structType += ")>";
  std::string prefix = products.front().prefix;
  os << llvm::formatv("      %{0}_r = llvm.inline_asm has_side_effects asm_dialect = att \"{1}\", "
                      "\"{2}{3}{4}r\" {5}{6}%zeroI32 : ({7}{8}i32) -> {9}\n",
                      prefix, ptx, constraints, tied, inputs, accOperands, operands, accTypes,
                      operandTypes, structType);
  std::string resultBlock = prefix + "_r";
  for (auto [index, product] : llvm::enumerate(products)) {
    std::string results;
    for (int64_t i = 0; i < product.n / 2; ++i) {
      os << llvm::formatv("      %{0}_o{1} = llvm.extractvalue %{2}[{3}] : {4}\n", product.prefix,
                          i, resultBlock, accFirst[index] + i, structType);
      results += llvm::formatv("{0}%{1}_o{2}", i ? ", " : "", product.prefix, i).str();
    }
    os << llvm::formatv("      {0} = vector.from_elements {1} : {2}\n", product.result, results,
                        product.accType);
  }
  return text;
}

/// Emits the extraction of `registers`' values as %`prefix`_<i> (f32 or i32), and
/// returns their names and types, comma-separated.
static std::pair<std::string, std::string> extractRegisters(llvm::raw_ostream &os, StringRef prefix,
                                                            const WgmmaRegisters &registers) {
  std::string names, types;
  if (registers.accumulator) {
    for (int64_t i = 0; i < registers.tiles * 4; ++i) {
      os << llvm::formatv("      %{0}_{1} = vector.extract {2}[0, {3}, {4}, {5}] : f32 from {6}\n",
                          prefix, i, registers.value, i / 4, (i / 2) % 2, i % 2,
                          registers.valueType);
      names += llvm::formatv("{0}%{1}_{2}", i ? ", " : "", prefix, i).str();
      types += i ? ", f32" : "f32";
    }
    return {names, types};
  }
  for (int64_t i = 0; i < registers.tiles * 2; ++i) {
    os << llvm::formatv("      %{0}_{1}_v = vector.extract {2}[0, {3}, {4}] : vector<2x{5}> from "
                        "{6}\n",
                        prefix, i, registers.value, i / 2, i % 2, registers.element,
                        registers.valueType);
    os << llvm::formatv("      %{0}_{1}_w = vector.bitcast %{0}_{1}_v : vector<2x{2}> to "
                        "vector<1xi32>\n",
                        prefix, i, registers.element);
    os << llvm::formatv("      %{0}_{1} = vector.extract %{0}_{1}_w[0] : i32 from vector<1xi32>\n",
                        prefix, i);
    names += llvm::formatv("{0}%{1}_{2}", i ? ", " : "", prefix, i).str();
    types += i ? ", i32" : "i32";
  }
  return {names, types};
}

std::string kiln::wgmmaOperandCopy(StringRef prefix, const WgmmaRegisters &source,
                                   StringRef result) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto [names, types] = extractRegisters(os, (prefix + "_s").str(), source);
  int64_t count = source.tiles * 2;
  std::string movs, constraints, structType = "!llvm.struct<(";
  for (int64_t i = 0; i < count; ++i) {
    movs += llvm::formatv("mov.b32 ${0}, ${1}; ", i, count + i).str();
    constraints += "=r,";
    structType += i ? ", i32" : "i32";
  }
  for (int64_t i = 0; i < count; ++i)
    constraints += i + 1 < count ? "r," : "r";
  structType += ")>";
  os << llvm::formatv("      %{0}_c = llvm.inline_asm has_side_effects asm_dialect = att \"{1}\", "
                      "\"{2}\" {3} : ({4}) -> {5}\n",
                      prefix, StringRef(movs).rtrim(), constraints, names, types, structType);
  // Back into the operand's vector, pair by pair (the layout extractRegisters reads).
  os << llvm::formatv("      %{0}_v0 = ub.poison : {1}\n", prefix, source.valueType);
  for (int64_t i = 0; i < count; ++i) {
    os << llvm::formatv("      %{0}_c{1} = llvm.extractvalue %{0}_c[{1}] : {2}\n", prefix, i,
                        structType);
    os << llvm::formatv("      %{0}_c{1}_w = vector.from_elements %{0}_c{1} : vector<1xi32>\n",
                        prefix, i);
    os << llvm::formatv("      %{0}_c{1}_p = vector.bitcast %{0}_c{1}_w : vector<1xi32> to "
                        "vector<2x{2}>\n",
                        prefix, i, source.element);
    std::string into =
        i + 1 < count ? llvm::formatv("%{0}_v{1}", prefix, i + 1).str() : result.str();
    os << llvm::formatv("      {0} = vector.insert %{1}_c{2}_p, %{1}_v{2}[0, {3}, {4}] : "
                        "vector<2x{5}> into {6}\n",
                        into, prefix, i, i / 2, i % 2, source.element, source.valueType);
  }
  return text;
}

std::string kiln::wgmmaWait(StringRef prefix, int64_t pending, ArrayRef<WgmmaRegisters> tied,
                            ArrayRef<std::string> results, ArrayRef<WgmmaRegisters> held) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string operands, types, outputs, ties, inputs, structType = "!llvm.struct<(";
  int64_t count = 0;
  for (auto [index, registers] : llvm::enumerate(tied)) {
    auto [names, nameTypes] =
        extractRegisters(os, (prefix + "_t" + std::to_string(index)).str(), registers);
    operands += (operands.empty() ? "" : ", ") + names;
    types += (types.empty() ? "" : ", ") + nameTypes;
    for (int64_t i = 0; i < registers.tiles * 4; ++i, ++count) {
      outputs += "=f,";
      structType += count ? ", f32" : "f32";
    }
  }
  for (int64_t i = 0; i < count; ++i)
    ties += std::to_string(i) + ",";
  for (auto [index, registers] : llvm::enumerate(held)) {
    auto [names, nameTypes] =
        extractRegisters(os, (prefix + "_h" + std::to_string(index)).str(), registers);
    operands += ", " + names;
    types += ", " + nameTypes;
    for (int64_t i = 0; i < registers.tiles * 2; ++i)
      inputs += "r,";
  }
  structType += ")>";
  std::string constraints = outputs + ties + inputs;
  constraints.pop_back();
  os << llvm::formatv("      %{0}_w = llvm.inline_asm has_side_effects asm_dialect = att "
                      "\"wgmma.wait_group.sync.aligned {1};\", \"{2}\" {3} : ({4}) -> {5}\n",
                      prefix, pending, constraints, operands, types, structType);
  int64_t at = 0;
  for (auto [index, registers] : llvm::enumerate(tied)) {
    std::string names;
    for (int64_t i = 0; i < registers.tiles * 4; ++i, ++at) {
      os << llvm::formatv("      %{0}_r{1} = llvm.extractvalue %{0}_w[{1}] : {2}\n", prefix, at,
                          structType);
      names += llvm::formatv("{0}%{1}_r{2}", i ? ", " : "", prefix, at).str();
    }
    os << llvm::formatv("      {0} = vector.from_elements {1} : {2}\n", results[index], names,
                        registers.valueType);
  }
  return text;
}
