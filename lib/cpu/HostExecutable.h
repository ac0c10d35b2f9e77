//===- HostExecutable.h - Run a compiled graph on the host CPU --*- C++ -*-===//
//
// The CPU backend: a graph module (the output of the graph passes) lowered by the
// `kiln-lower-to-cpu` pipeline, JIT-compiled by MLIR's ExecutionEngine and called with
// host tensors. It runs every model Kiln compiles without a GPU, and is the numeric
// reference of the CI.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CPU_HOSTEXECUTABLE_H
#define KILN_LIB_CPU_HOSTEXECUTABLE_H

#include "lib/io/TensorFiles.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace kiln::cpu {

/// One input or output of a compiled function: its ONNX name, element type and shape
/// (ShapedType::kDynamic for extents known only at run time).
struct TensorSignature {
  std::string name;
  io::ElementType type = io::ElementType::F32;
  llvm::SmallVector<int64_t> shape;
};

/// The inputs and outputs of graph function `function`, read from its types and its
/// `graph.name` attributes; an error for element types no tensor file can hold.
llvm::Expected<std::pair<std::vector<TensorSignature>, std::vector<TensorSignature>>>
getSignature(mlir::func::FuncOp function);

struct HostCompileOptions {
  /// LLVM optimisation level of the generated code (0 to 3).
  unsigned optLevel = 2;
};

/// A graph function compiled for the host and ready to run.
class HostExecutable {
public:
  /// Lowers `module` (graph dialect, shapes inferred; consumed) with the CPU pipeline and
  /// JIT-compiles function `entry`. Diagnostics go to the module's context.
  static llvm::Expected<std::unique_ptr<HostExecutable>>
  compile(mlir::ModuleOp module, llvm::StringRef entry = "main",
          const HostCompileOptions &options = {});

  ~HostExecutable();

  const std::vector<TensorSignature> &inputs() const { return inputSignature; }
  const std::vector<TensorSignature> &outputs() const { return outputSignature; }

  /// Runs the function on `inputs` (one per input, in order, of the signature's types
  /// and compatible shapes) and returns its outputs. Inputs are not modified.
  llvm::Expected<std::vector<io::HostTensor>> run(llvm::ArrayRef<io::HostTensor> inputs);

  /// Writes the compiled code as a native relocatable object file (ELF on Linux) that
  /// defines `_mlir_ciface_<entry>`; it needs libc and libm to link.
  llvm::Error writeObjectFile(llvm::StringRef path);

private:
  HostExecutable() = default;

  std::unique_ptr<mlir::ExecutionEngine> engine;
  std::string entry;
  std::vector<TensorSignature> inputSignature;
  std::vector<TensorSignature> outputSignature;
};

/// Makes graph-fold-constants evaluate constant sub-graphs with this backend (tools call
/// it at start-up).
void registerHostConstantEvaluator();

} // namespace kiln::cpu

#endif // KILN_LIB_CPU_HOSTEXECUTABLE_H
