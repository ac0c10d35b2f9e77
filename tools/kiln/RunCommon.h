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
int runEngineOnDevice(const RunOptions &options, engine::Engine engine, const std::string &what);

/// `kiln run MODEL.kiln`: reads the engine file and runs it with runEngineOnDevice.
int runEngineFile(const RunOptions &options);

} // namespace kiln::tool

#endif // KILN_TOOLS_KILN_RUNCOMMON_H
