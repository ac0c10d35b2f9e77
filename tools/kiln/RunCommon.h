//===- RunCommon.h - What `kiln run` does on every device -------*- C++ -*-===//
//
// `kiln run` binds input and expected-output files to a model's signature, runs the model
// somewhere (the CPU backend in Run.cpp, an engine on the GPU in RunEngine.cpp), then
// compares, prints and writes the outputs. The binding and the reporting are shared here.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_RUNCOMMON_H
#define KILN_TOOLS_KILN_RUNCOMMON_H

#include "lib/io/TensorFiles.h"
#include "runtime/Engine.h"
#include "tools/kiln/Run.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace kiln::tool {

/// An "kiln run: error: " line on stderr.
llvm::raw_ostream &runError();

/// One input or output of the model being run.
struct TensorSpec {
  std::string name;
  io::ElementType type = io::ElementType::F32;
};

/// The input files and expected outputs bound to a model's signature.
struct BoundTensors {
  /// One per input, in the model's order, of the model's element types.
  std::vector<io::HostTensor> inputs;
  /// One per output; only those with `hasExpected` hold a tensor.
  std::vector<io::HostTensor> expected;
  std::vector<bool> hasExpected;
};

/// Binds `options`' inputs (--input, --inputs-dir) and expected outputs (--expect,
/// --expect-dir) to `inputs` and `outputs`, checking element types. Prints one line per
/// problem and returns RunBadInput, else RunSucceeded.
/// `options` for run `run` of several (--inputs-dir given several times): that folder of
/// inputs, and outputs in --output-dir/<run>.
RunOptions perRunOptions(const RunOptions &options, size_t run);

int bindRunTensors(const RunOptions &options, const std::vector<TensorSpec> &inputs,
                   const std::vector<TensorSpec> &outputs, BoundTensors &bound);

/// Compares `outputs` with the expected ones (or prints their shapes), writes them to
/// --output-dir, and returns the exit code: RunSucceeded, RunMismatch or an error.
int reportRunOutputs(const RunOptions &options, const std::vector<io::HostTensor> &outputs,
                     const BoundTensors &bound);

/// Runs `engine` (named `what` in messages) on the GPU with the bound inputs and reports
/// like the CPU path (RunEngine.cpp). Exit code RunUnsupported without a CUDA driver or
/// GPU.
/// A run of an engine: the tensors bound to it and the outputs it produced.
struct EngineRun {
  BoundTensors bound;
  std::vector<io::HostTensor> outputs;
};
/// Binds the files `options` names to `engine`, runs it on the GPU and compares or prints
/// its outputs (a RunStatus); `kept`, when given, receives the run's tensors.
int runEngineOnDevice(const RunOptions &options, engine::Engine engine, const std::string &what,
                      EngineRun *kept = nullptr);
/// Runs `engine` on the GPU on `inputs` (bound to its inputs, in order) into `outputs`, at
/// the shapes the run produced; a RunStatus (errors printed).
int runEngineOutputs(const RunOptions &options, engine::Engine engine, const std::string &what,
                     const std::vector<io::HostTensor> &inputs,
                     std::vector<io::HostTensor> &outputs);
/// The file element type of an engine tensor's.
io::ElementType toFileType(engine::ElementType type);
/// The elements of `tensor` that are NaN or infinite.
int64_t countNonFinite(const io::HostTensor &tensor);

// Where a reduced-precision run first went non-finite (LocateNonFinite.cpp).
/// Makes every float value that `module`'s main computes at its top level (graph ops, not
/// constants or casts) an output after the model's own, named "value <node>" ("value
/// <node> #2" for the node's second, ...); returns how many.
unsigned markFloatValues(mlir::ModuleOp module);
/// Given the outputs of the model marked by markFloatValues as the run compiled it
/// (`reduced`) and in f32 on the CPU (`reference`), after their first `modelOutputs`: prints
/// the first value, in program order, that holds NaN or Inf in `reduced` while the same
/// node's is finite in `reference`.
void reportFirstNonFinite(const std::vector<io::HostTensor> &reduced,
                          const std::vector<io::HostTensor> &reference, size_t modelOutputs,
                          llvm::StringRef precision);

/// `kiln run MODEL.kiln`: reads the engine file and runs it with runEngineOnDevice.
int runEngineFile(const RunOptions &options);

} // namespace kiln::tool

#endif // KILN_TOOLS_KILN_RUNCOMMON_H
