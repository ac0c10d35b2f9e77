//===- kiln.cpp - The user driver: compile, run, bench, inspect -----------===//
//
// The command deployment engineers use, shaped after trtexec: `kiln compile` turns an
// ONNX model into an engine, `kiln run` executes one (or an ONNX model directly),
// `kiln bench` times it and `kiln inspect` shows what is inside.
//
//===----------------------------------------------------------------------===//

#include "kiln/Version.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

cl::SubCommand compileCommand("compile", "Compile an ONNX model into a Kiln engine");
cl::SubCommand runCommand("run", "Run an engine or ONNX model on inputs, optionally checking "
                                 "the outputs against expected ones");
cl::SubCommand benchCommand("bench", "Measure the latency and throughput of an engine");
cl::SubCommand inspectCommand("inspect", "Show the kernels, memory plan and IO of an engine");

cl::opt<std::string> compileModel(cl::Positional, cl::Required, cl::desc("<MODEL.onnx>"),
                                  cl::sub(compileCommand));
cl::opt<std::string> compileOutput("o", cl::desc("Engine file to write"),
                                   cl::value_desc("MODEL.kiln"), cl::sub(compileCommand));
cl::opt<std::string> runModel(cl::Positional, cl::Required, cl::desc("<MODEL.kiln|MODEL.onnx>"),
                              cl::sub(runCommand));
cl::opt<std::string> benchModel(cl::Positional, cl::Required, cl::desc("<MODEL.kiln|MODEL.onnx>"),
                                cl::sub(benchCommand));
cl::opt<std::string> inspectEngine(cl::Positional, cl::Required, cl::desc("<MODEL.kiln>"),
                                   cl::sub(inspectCommand));

/// Reports that `command` exists but is not part of this build yet.
int notImplemented(StringRef command) {
  WithColor::error(errs(), "kiln")
      << command << " is not implemented yet in Kiln " KILN_VERSION_STRING << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "kiln (Kiln " KILN_VERSION_STRING ", LLVM/MLIR " KILN_LLVM_VERSION_STRING ")\n";
  });
  if (!cl::ParseCommandLineOptions(argc, argv, "Kiln: compile ONNX models for NVIDIA GPUs\n",
                                   &errs()))
    return 1;

  if (compileCommand)
    return notImplemented("compile");
  if (runCommand)
    return notImplemented("run");
  if (benchCommand)
    return notImplemented("bench");
  if (inspectCommand)
    return notImplemented("inspect");

  WithColor::error(errs(), "kiln") << "no command given; one of compile, run, bench, inspect "
                                      "(see kiln --help)\n";
  return 1;
}
