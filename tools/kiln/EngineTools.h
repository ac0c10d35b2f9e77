//===- EngineTools.h - `kiln inspect` and `kiln bench` ----------*- C++ -*-===//

#ifndef KILN_TOOLS_KILN_ENGINETOOLS_H
#define KILN_TOOLS_KILN_ENGINETOOLS_H

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::tool {

/// The H200's measured ceilings, the roofline that profiles and inspect compare against:
/// dense fp16/bf16 matmul and device-to-device bandwidth (the datasheet's 990 TFLOP/s and
/// 4.8 TB/s are not reached).
inline constexpr double kRooflineFlops = 790e12;
inline constexpr double kRooflineBytes = 4.3e12;

struct InspectOptions {
  std::string engine;
  /// A JSON object on stdout instead of text.
  bool json = false;
  /// Where to write each module's .ptx and .cubin; empty: nowhere.
  std::string dumpKernelsDir;
};

/// `kiln inspect`: what an engine file holds. Needs no GPU. Exit codes as `kiln run`'s:
/// 0, 2 for an engine file that is refused, 4 when the kernels cannot be written.
int inspectEngine(const InspectOptions &options);

struct BenchOptions {
  std::string model;
  int warmup = 10;
  int iterations = 100;
  /// Keep timing past `iterations` until the timed runs add up to this many seconds
  /// (trtexec's --duration): fast engines get more samples, slow ones still `iterations`.
  double durationSeconds = 0;
  /// Where to write the results as JSON; empty: nowhere.
  std::string jsonFile;
  bool useGraph = true;
  uint64_t seed = 1;
  /// After the timed runs, time each step over `iterations` runs of stream launches and
  /// print them, slowest first (trtexec's --dumpProfile).
  bool profile = false;
  /// Input shapes for a dynamic engine, trtexec's `--shapes` (`name:AxB,...`); inputs not
  /// named run at the profile's opt shape.
  std::string shapes;
  /// Inputs from files, `NAME=FILE` (.npy or ONNX TensorProto .pb; trtexec's
  /// --loadInputs); the others are seeded random values.
  std::vector<std::string> inputs;
};

/// `kiln bench`: latency and throughput of an engine on the GPU. Exit codes as `kiln
/// run`'s: 0, 2 bad usage or engine file, 3 no CUDA driver or GPU (or an engine for
/// another GPU), 4 a failure while running.
int benchEngine(const BenchOptions &options);

} // namespace kiln::tool

#endif // KILN_TOOLS_KILN_ENGINETOOLS_H
