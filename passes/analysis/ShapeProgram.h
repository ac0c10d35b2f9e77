//===- ShapeProgram.h - A dynamic engine's shape program from host IR -*- C++ -*-===//
//
// The run-time sizes of a dynamic engine (launch grids, element counts, copy sizes, the
// outputs' extents, the memory plan's bounds) are index arithmetic in the host function on
// the inputs' extents. This builds the engine's shape program (runtime/Engine.h) from it:
// constants, `memref.dim` of the inputs (through the views and allocations that carry an
// extent: passes/analysis/HostExtents.h), the values kernels computed that the host reads
// back (kernel.read_back: a DeviceValue, numbered in program order), and the integer ops
// of `arith`.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_ANALYSIS_SHAPEPROGRAM_H
#define KILN_PASSES_ANALYSIS_SHAPEPROGRAM_H

#include "runtime/Engine.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace kiln {

class ShapeProgramBuilder {
public:
  /// Appends to `program`; the host function's first `kernel.num_inputs` arguments are
  /// the inputs whose extents it reads.
  ShapeProgramBuilder(mlir::func::FuncOp host, std::vector<engine::ShapeInstruction> &program);

  /// The value of the host index or integer `value` (errors on `user` or the op that
  /// computes it when the program cannot evaluate it).
  mlir::FailureOr<uint32_t> getValue(mlir::Value value, mlir::Operation *user);
  /// The value of extent `dim` of host buffer `buffer`.
  mlir::FailureOr<uint32_t> getExtent(mlir::Value buffer, int64_t dim, mlir::Operation *user);
  /// An instruction's value (an equal instruction already in the program is reused).
  uint32_t emit(engine::ShapeInstruction::Op op, uint32_t a, uint32_t b, int64_t constant = 0);

private:
  mlir::FailureOr<uint32_t> compute(mlir::Value value, mlir::Operation *user);

  mlir::func::FuncOp host;
  unsigned numInputs;
  /// The kernel.read_back ops given a DeviceValue so far.
  uint32_t readBacks = 0;
  std::vector<engine::ShapeInstruction> &program;
  llvm::DenseMap<mlir::Value, uint32_t> values;
};

/// Host index values at one shape of the profile: their shape program evaluated at the
/// inputs' `profile` attribute (`kernel.max_shape`, `kernel.opt_shape`; a static input
/// at its shape). A value read back from the device is engine::kUnreadDeviceValue there,
/// so a size clamped by its bound (min(count, bound)) comes out as the bound, and a
/// select on a condition read back takes its larger side.
class ProfileShapeEvaluator {
public:
  ProfileShapeEvaluator(mlir::func::FuncOp host, llvm::StringRef profile);

  /// The value of the host index or integer `value` (errors on `user` when the program
  /// cannot evaluate it or reads an extent the profile does not bound).
  mlir::FailureOr<int64_t> evaluate(mlir::Value value, mlir::Operation *user);
  /// Extent `dim` of host buffer `buffer`.
  mlir::FailureOr<int64_t> evaluateExtent(mlir::Value buffer, int64_t dim, mlir::Operation *user);

private:
  mlir::FailureOr<int64_t> evaluateIndex(mlir::FailureOr<uint32_t> index, mlir::Operation *user);

  std::vector<engine::ShapeInstruction> program;
  ShapeProgramBuilder builder;
  std::string profile;
  std::vector<std::vector<int64_t>> shapes;
};

} // namespace kiln

#endif // KILN_PASSES_ANALYSIS_SHAPEPROGRAM_H
