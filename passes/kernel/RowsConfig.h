//===- RowsConfig.h - Row kernels for reductions and normalisations -*- C++ -*-===//
//
// The rows family (#kernel.rows: passes/kernel/ReductionRows.cpp, docs/codegen-rows.md):
// the problem a `kernel.reduction` poses when it reduces the innermost axes of contiguous
// row-major buffers (softmax, LayerNorm, RMSNorm, ReduceX with a pointwise prologue and
// epilogue), and the configurations that compute it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_KERNEL_ROWSCONFIG_H
#define KILN_PASSES_KERNEL_ROWSCONFIG_H

#include "dialects/kernel/KernelOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace kiln {

/// What the anchor computes over each row.
enum class RowsAnchor {
  Softmax,
  LogSoftmax,
  LayerNorm,
  LayerNormInvStdDev, // LayerNorm's 1 / sqrt(variance + epsilon) alone, one value a row
  RMSNorm,
  RMSNormInvRms, // RMSNorm's 1 / sqrt(mean(x^2) + epsilon) alone, one value a row
  ReduceSum,
  ReduceMean,
  ReduceMax,
  ReduceMin,
  ReduceProd,
  ReduceSumSquare,
  ReduceL1,
  ReduceL2,
  ReduceLogSum,
  ReduceLogSumExp,
};

/// How a kernel buffer read by the prologue, the anchor or the epilogue is indexed at an
/// element (row, column) of the space that op works in (rows x row length).
struct RowsOperand {
  /// The kernel.func argument it is (and the gpu.func parameter).
  unsigned argument = 0;
  mlir::Type elementType;
  /// One value per row (its trailing, reduced dimensions are all 1); else contiguous
  /// along the row (they are the row's own).
  bool perRow = false;
  /// The row's offset in the buffer: the sum over these terms of
  /// ((row / divisor) % extent) * stride (extent 0: no modulo).
  struct Term {
    int64_t divisor, extent, stride;
  };
  llvm::SmallVector<Term> rowTerms;
};

/// A prologue Gather of whole rows (an embedding lookup, Gather along axis 0 as exporters
/// write it): element (row, column) of its result is element `column` of row
/// `indices[row]` of a table of `tableRows` rows, each a row of the row space.
struct RowsGather {
  mlir::Operation *op = nullptr;
  /// The table: contiguous along the row; the index gives its row offset.
  RowsOperand table;
  /// The indices: one integer a row (negative ones count from the table's end).
  RowsOperand indices;
  int64_t tableRows = 0;
};

/// A reduction kernel whose anchor reduces the innermost `rowLength` elements of each of
/// `rows` rows, with a pointwise prologue (ops before the anchor, evaluated per element
/// of its input) and epilogue (after it, per element of its result).
/// An output buffer of a row kernel: the kernel.func argument, its element type, and the
/// template body value (the anchor's result or an epilogue value) stored in it.
struct RowsOutput {
  unsigned argument = 0;
  mlir::Type elementType;
  mlir::Value stored;
};

struct RowsProblem {
  RowsAnchor anchor = RowsAnchor::ReduceSum;
  int64_t rows = 0, rowLength = 0;
  /// The rows are counted at run time (a dynamic engine's leading dimensions): `rows` is
  /// then their count at the profile's opt shape, for choosing a configuration; the
  /// kernel takes the count as its last parameter.
  bool dynamicRows = false;
  /// Elements of the result per row: rowLength (normalisations), 1 (reductions).
  int64_t resultLength = 0;
  float epsilon = 0;
  mlir::Operation *anchorOp = nullptr;
  /// The anchor's data input and its result in the template body.
  mlir::Value data, result;
  /// The data input's element type: what the row is rounded to (as the body computes
  /// it) and kept in, in shared memory.
  mlir::Type rowType;
  /// LayerNorm / RMSNorm scale and LayerNorm bias (body values: an argument or a
  /// constant), or null.
  mlir::Value scale, bias;
  llvm::SmallVector<mlir::Operation *> prologue, epilogue;
  /// The buffers the prologue and the anchor read (row space rows x rowLength) and the
  /// epilogue reads (rows x resultLength), keyed by template body argument.
  llvm::SmallVector<std::pair<unsigned, RowsOperand>> rowInputs, resultInputs;
  /// The prologue's gathers (not in `prologue`: the row kernel loads their rows).
  llvm::SmallVector<RowsGather> gathers;
  /// The output buffers, in the kernel's order (a fused group may store several values
  /// of the result space: a normalised row and that row plus a positional embedding).
  llvm::SmallVector<RowsOutput> outputs;
  /// The widest vector (elements) every contiguous access allows: 16 bytes of the
  /// widest contiguous buffer, halved until it divides the row.
  int64_t maxVector = 1;
  /// The bytes the kernel must move (estimateKernelBytes: each buffer once, of a gathered
  /// table the rows gathered; a dynamic kernel's at the profile's opt shape).
  double bytes = 0;
  /// The kernel.func's buffers, in argument order (the gpu.func's parameters).
  llvm::SmallVector<mlir::MemRefType> buffers;
};

/// How the row kernel computes a problem: #kernel.rows<threads_per_row, rows_per_cta,
/// vector> as values to compute with.
struct RowsConfig {
  /// Threads sharing one row: 4..32 (part of a warp, shuffles only) or 64..1024 (a CTA per
  /// row: warps combine through shared memory).
  int64_t threadsPerRow = 32;
  /// Rows a CTA computes (1 when threadsPerRow > 32).
  int64_t rowsPerCta = 4;
  /// Elements a thread loads at once (16 bytes: 8 f16/bf16, 4 f32).
  int64_t vector = 4;

  kernel::RowsConfigAttr toAttr(mlir::MLIRContext *context) const {
    return kernel::RowsConfigAttr::get(context, threadsPerRow, rowsPerCta, vector);
  }
  static RowsConfig fromAttr(kernel::RowsConfigAttr attr) {
    return {attr.getThreadsPerRow(), attr.getRowsPerCta(), attr.getVector()};
  }
  /// "rows 32 threads/row, 4 rows/CTA, vector 8": for reports and engines.
  std::string describe() const;
  int64_t threads() const { return threadsPerRow * rowsPerCta; }
  bool operator==(const RowsConfig &other) const {
    return threadsPerRow == other.threadsPerRow && rowsPerCta == other.rowsPerCta &&
           vector == other.vector;
  }
};

/// Where a configuration keeps the row between its passes over it.
enum class RowsStorage {
  Registers, // each thread's elements in registers (unrolled)
  Shared,    // the CTA's row in shared memory (f32)
  Reload,    // read again from global memory (and the prologue recomputed)
};

/// The storage `config` uses for `problem` on `target`.
RowsStorage rowsStorage(const RowsProblem &problem, const RowsConfig &config,
                        llvm::StringRef target);

/// The problem `function` computes, when it is a kernel.reduction the row kernels take:
/// its anchor (softmax or log-softmax over the last axis, LayerNorm or RMSNorm over
/// trailing axes, a ReduceX over trailing axes) reads a row-major f16/bf16/f32 buffer
/// (static, or with dynamic leading dimensions) through pointwise ops and gathers of whole
/// rows, and pointwise ops follow it to the one stored value.
std::optional<RowsProblem> matchReductionRows(kernel::FuncOp function);

/// The legal configurations for `problem` on `target`, the default (what runs untuned)
/// first.
llvm::SmallVector<RowsConfig> rowsConfigs(const RowsProblem &problem, llvm::StringRef target);

/// The cost model's estimate of `config` for `problem` (microseconds): the bytes at the
/// device bandwidth, derated for idle threads and SMs and for reloads.
double estimateRowsMicros(const RowsProblem &problem, const RowsConfig &config,
                          llvm::StringRef target, int64_t multiprocessors, double bytesPerSecond,
                          double launchMicros);

/// The cost model's estimate of the generic lowering of `problem` (microseconds): a
/// thread per output element walking its row, so a warp's loads touch a sector per lane
/// (a quarter of the bandwidth, as modelled), once per pass over the row (softmax and the
/// normalisations make two or three).
double estimateRowsGenericMicros(const RowsProblem &problem, double bytesPerSecond,
                                 double launchMicros);

/// "softmax 8192x768 f16": the problem, for progress lines and reports.
std::string describeRows(const RowsProblem &problem);

} // namespace kiln

#endif // KILN_PASSES_KERNEL_ROWSCONFIG_H
