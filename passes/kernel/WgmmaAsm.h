//===- WgmmaAsm.h - wgmma products as inline asm in a kernel template -*- C++ -*-===//
//
// The Hopper flash-attention templates' products (docs/codegen-attention.md): MLIR text
// of `llvm.inline_asm` blocks issuing `wgmma.mma_async` with a register A operand (which
// NVVM's wgmma op does not take) and waiting for them, generated per tile because the
// operand lists depend on it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_WGMMAASM_H
#define KILN_PASSES_KERNEL_WGMMAASM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <string>

namespace kiln {

/// One warpgroup product on wgmma, for the Hopper templates' {WGMMA_*} placeholders:
/// `result` (an `accType`, vector<1 x n/8 x 2 x 2 x f32>, the m64n<n> accumulator fragment
/// in the order wgmma numbers its registers) = `acc` + A B over `steps` k16 steps, A from
/// registers (k-step k, register r: the vector<2 x type> at `aIndex(k, r)` of `aSource`) or,
/// when `aDesc` is not empty, from shared memory through the descriptor `aDesc` +
/// `aDescStep(k)` (K-major), B through the descriptor `desc` + `descStep(k)` (transposed
/// when `transposeB`), in the descriptors' 16-byte units; with `zeroFirst` the first step
/// ignores `acc`. SSA names it defines start with %`prefix`_.
struct WgmmaProduct {
  std::string prefix, result, acc, accType;
  int64_t n = 0, steps = 0;
  std::string aSource, aSourceType;
  std::function<std::string(int64_t, int64_t)> aIndex;
  std::string aDesc;
  std::function<int64_t(int64_t)> aDescStep;
  std::string desc;
  std::function<int64_t(int64_t)> descStep;
  bool transposeB = false, zeroFirst = false;
};

/// The ops of `products` (of `type` operands, f16 or bf16) as one inline-asm block: the
/// fence, each product's k-steps, one commit and the wait for completion. Every result is
/// defined only once all the products are done, so no read of the accumulators can be
/// scheduled above the wait, and the registers of a product's A operand stay the block's
/// until then. With `issueOnly`, each product commits a group of its own and nothing
/// waits: the results are still being written, and only a wgmmaWait that takes them may
/// lead to their reads.
std::string wgmmaSnippet(llvm::StringRef type, llvm::ArrayRef<WgmmaProduct> products,
                         bool issueOnly = false);

/// A vector of wgmma accumulators or of a register A operand, as the registers an
/// inline-asm block takes: `value` (of `valueType`, vector<1 x tiles x 2 x 2 x element>)
/// is `count` f32 accumulators, or for a half `element` the 32-bit pairs of its `tiles` x 2
/// rows.
struct WgmmaRegisters {
  std::string value, valueType;
  int64_t tiles = 0;
  bool accumulator = true; // f32 accumulators; else pairs of halves (P)
  std::string element;     // the halves' type
};

/// The ops that wait until at most `pending` wgmma groups of this warpgroup are in flight
/// (wgmma.wait_group), through which the accumulators `tied` pass (read only after it:
/// each becomes `results[i]`) and which holds the registers `held` (a product's register
/// A operand, unchanged until then). ptxas sees the products in flight until here.
std::string wgmmaWait(llvm::StringRef prefix, int64_t pending, llvm::ArrayRef<WgmmaRegisters> tied,
                      llvm::ArrayRef<std::string> results, llvm::ArrayRef<WgmmaRegisters> held);

/// A copy of `source` (a register A operand: pairs of halves) into registers of its own,
/// `result` (of the same type), by an inline-asm block of movs that the compilers cannot
/// see through or move across the waits. A product that reads the copy while `source`'s
/// registers are rewritten (the next tile's P while this one's P V is in flight) reads
/// registers that nothing writes until the wait that holds them.
std::string wgmmaOperandCopy(llvm::StringRef prefix, const WgmmaRegisters &source,
                             llvm::StringRef result);

} // namespace kiln

#endif // KILN_PASSES_KERNEL_WGMMAASM_H
