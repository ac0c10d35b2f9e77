//===- Runtime.h - Running Kiln engines on the GPU --------------*- C++ -*-===//
//
// The C++ API of Kiln's runtime (library KilnRuntime; no LLVM, MLIR or CUDA headers, and
// libcuda.so.1 is opened at run time):
//
//   std::string error;
//   auto runtime = kiln::Runtime::create(error);           // null: "no CUDA driver: ..."
//   auto engine = kiln::Engine::load(runtime, "model.kiln", error);
//   auto context = kiln::ExecutionContext::create(engine, error);
//   context->enableGraph();                                 // replay a CUDA graph
//   context->run({input.data()}, {output.data()}, error);   // host buffers
//
// An Engine is loaded once (validated, checked against the GPU, modules loaded, weights
// uploaded) and is read-only afterwards: any number of ExecutionContexts, on any threads,
// may share it. An ExecutionContext owns its intermediate memory (the arena) and a stream,
// and is used by one thread at a time. Every call reports failure by returning false (or
// null) and setting `error` to one line; a failed CUDA call names the driver call, the
// CUDA error, and the step and kernel (with its ONNX nodes) it was running. docs/runtime.md
// has the details.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_H
#define KILN_RUNTIME_H

#include "runtime/Engine.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

/// A device address (CUdeviceptr).
using DevicePointer = uint64_t;

/// The CUDA driver and one GPU.
class Runtime {
public:
  /// Loads libcuda.so.1 (or `driverLibrary`) and retains GPU `device`'s primary context.
  /// Null when that fails, with `error` = "no CUDA driver: ..." (no usable driver) or
  /// "no CUDA GPU: ..." (a driver, but no such GPU).
  static std::shared_ptr<Runtime> create(std::string &error, int device = 0,
                                         const std::string &driverLibrary = "libcuda.so.1");
  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  int deviceOrdinal() const;
  const std::string &deviceName() const;
  int computeCapabilityMajor() const;
  int computeCapabilityMinor() const;
  /// "sm_90" for compute capability 9.0.
  std::string smName() const;
  int multiprocessorCount() const;
  /// The driver's CUDA version, major * 1000 + minor * 10.
  int driverVersion() const;

  struct Impl;
  /// The implementation, for the runtime's own classes.
  Impl &impl() const { return *state; }

private:
  explicit Runtime(std::unique_ptr<Impl> state);
  std::unique_ptr<Impl> state;
};

/// A loaded engine: its modules and kernels resolved on the GPU and its weights uploaded.
/// Immutable after load; shared by the ExecutionContexts that run it.
class Engine {
public:
  /// Reads, validates and loads the engine file `path`. Null with `error` set when the
  /// file is refused (missing, truncated, corrupt, other format version, inconsistent),
  /// was compiled for a GPU this one cannot run, or a module or kernel does not load.
  static std::shared_ptr<Engine> load(std::shared_ptr<Runtime> runtime, const std::string &path,
                                      std::string &error);
  /// The same for an engine already in memory (validated here too); `what` names it in
  /// messages.
  static std::shared_ptr<Engine> create(std::shared_ptr<Runtime> runtime,
                                        engine::Engine description, const std::string &what,
                                        std::string &error);
  ~Engine();
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  /// What the engine file holds: IO signature, kernels, schedule, memory plan.
  const engine::Engine &description() const;
  const Runtime &runtime() const;
  /// Whether modules were loaded from cubins (else from PTX, compiled by the driver).
  bool loadedFromCubin() const;

  struct Impl;
  Impl &impl() const { return *state; }

private:
  explicit Engine(std::unique_ptr<Impl> state);
  std::unique_ptr<Impl> state;
};

/// What one caller needs to run an engine: the arena, a stream, device buffers for the
/// inputs and outputs (allocated on first use), and optionally a captured CUDA graph.
/// Not thread-safe itself; use one per thread.
class ExecutionContext {
public:
  static std::unique_ptr<ExecutionContext> create(std::shared_ptr<const Engine> engine,
                                                  std::string &error);
  ~ExecutionContext();
  ExecutionContext(const ExecutionContext &) = delete;
  ExecutionContext &operator=(const ExecutionContext &) = delete;

  const Engine &engine() const;

  /// Sets input `index`'s shape for the next runs. A dynamic engine takes any shape in its
  /// profile (the opt shape until set); a static engine only its one shape. Refused, with
  /// `error` naming the input, the dimension and the allowed range, outside the profile;
  /// inputs that share a dimension's symbol must agree by the next run. Switching shapes
  /// re-initialises nothing: the shape program is evaluated once per new shape, and each
  /// shape keeps its own CUDA graph.
  bool setInputShape(size_t index, const std::vector<int64_t> &shape, std::string &error);
  const std::vector<int64_t> &inputShape(size_t index) const;
  /// Output `index`'s shape at the current input shapes. An engine with read-backs
  /// (data-dependent shapes: NonZero, NonMaxSuppression, ...) knows some extents only once
  /// the run has read their values from the GPU: before a run (or after new input shapes)
  /// such an extent is its upper bound, after a run (once run or enqueue returns) the
  /// true extent of that run.
  bool outputShape(size_t index, std::vector<int64_t> &shape, std::string &error);

  /// Runs on host buffers: one per input and per output, in the engine's order, each as
  /// long as the current shape's bytes (for a data-dependent output, its upper bound: the
  /// shape before the run). Copies in, runs, copies out (an output's bytes at its shape
  /// after the run; outputShape tells it), and waits.
  bool run(const std::vector<const void *> &inputs, const std::vector<void *> &outputs,
           std::string &error);

  /// Enqueues the schedule on this context's stream with device buffers the caller owns;
  /// returns without waiting (see synchronize), except for an engine with read-backs,
  /// which waits for the steps before each read-back (so it cannot be enqueued while the
  /// stream is being captured; refused with an error saying so).
  bool enqueue(const std::vector<DevicePointer> &inputs, const std::vector<DevicePointer> &outputs,
               std::string &error);
  /// Enqueues the schedule on the context's own input and output buffers.
  bool enqueue(std::string &error);
  /// Waits for everything enqueued on the stream.
  bool synchronize(std::string &error);

  /// The context's own device buffer for input or output `index` (allocated on first use,
  /// for the largest shape; 0 with `error` set when allocation fails).
  DevicePointer inputBuffer(size_t index, std::string &error);
  DevicePointer outputBuffer(size_t index, std::string &error);
  /// Copies host data (the input's bytes at its current shape) into the context's input
  /// buffer.
  bool setInput(size_t index, const void *host, std::string &error);
  /// Waits for the stream, then copies the context's output buffer to `host`.
  bool getOutput(size_t index, void *host, std::string &error);

  /// Captures the schedule into a CUDA graph on the next enqueue and replays it after
  /// that: one graph per input shape, captured on the shape's first run. Enqueueing with
  /// other device buffers than those captured captures again. An engine with read-backs
  /// (engine::Engine::hasReadBacks) is never captured: a capture cannot hold the host's
  /// read mid-run; it runs as stream launches and graphEnabled() is false.
  void enableGraph(bool enable = true);
  bool graphEnabled() const;
  /// Whether a graph is captured for the current input shapes.
  bool graphCaptured() const;

  /// Waits after every step, so that a fault is reported with the kernel that caused it
  /// rather than at the next synchronisation (also set by the environment variable
  /// KILN_SYNC_STEPS=1). Slow; for debugging. Disables graph replay.
  void setSynchronousSteps(bool enable);

  /// Times `iterations` runs on the context's own buffers, each between two CUDA events
  /// on the stream; `millis` gets one entry per run.
  bool timeRuns(int iterations, std::vector<float> &millis, std::string &error);

  /// Times each step of the schedule (trtexec's per-layer profile): `iterations` runs as
  /// stream launches (no graph), with an event recorded before every step and after the
  /// last; `millis` gets one entry per step of engine().description().steps, its mean
  /// over the runs. Each run is enqueued behind a one-thread kernel that holds the stream
  /// until the host has enqueued it all, so that the steps run back to back as in a graph
  /// replay and a short kernel is not timed waiting for the host's next launch (steps
  /// after a read-back, which waits for the GPU, still are). The events' own cost on the
  /// GPU is included.
  bool profileSteps(int iterations, std::vector<double> &millis, std::string &error);

  /// The context's stream (a CUstream).
  void *stream() const;

  struct Impl;

private:
  explicit ExecutionContext(std::unique_ptr<Impl> state);
  std::unique_ptr<Impl> state;
};

} // namespace kiln

#endif // KILN_RUNTIME_H
