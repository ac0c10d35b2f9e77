//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// Kiln never links libcuda: the runtime opens libcuda.so.1 with dlopen, so tools build
// and start on machines without a GPU and say so clearly. This file declares the few
// driver types it needs itself, so the runtime needs no CUDA headers either.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_CUDADRIVER_H
#define KILN_RUNTIME_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace kiln::engine {
struct TensorMap;
} // namespace kiln::engine

namespace kiln::runtime {

/// What the runtime needs to know about one GPU.
struct DeviceInfo {
  std::string name;
  int computeCapabilityMajor = 0;
  int computeCapabilityMinor = 0;
  int multiprocessorCount = 0;
  size_t totalMemoryBytes = 0;

  /// The LLVM NVPTX name of the architecture, e.g. "sm_90".
  std::string smName() const;
};

/// Driver handles, opaque to the runtime (CUcontext, CUmodule, ... in cuda.h).
using ContextHandle = void *;
using ModuleHandle = void *;
using FunctionHandle = void *;
using StreamHandle = void *;
using EventHandle = void *;
using GraphHandle = void *;
using GraphExecHandle = void *;
/// A device address (CUdeviceptr).
using DevicePointer = uint64_t;

/// The entry points of libcuda that the runtime uses, resolved once at load.
///
/// Every call that can fail returns false and sets `error` to one line naming the driver
/// call and the CUDA error ("cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (invalid
/// argument)"); callers add what they were doing (the kernel, the step). Calls that take
/// a device pointer or stream need the engine's context current on the calling thread
/// (setCurrent).
class CudaDriver {
public:
  /// Opens `library` and resolves the driver's entry points, then initialises the
  /// driver. Returns null and sets `error` to one line saying what failed.
  static std::unique_ptr<CudaDriver> load(std::string &error,
                                          const std::string &library = "libcuda.so.1");
  ~CudaDriver();
  CudaDriver(const CudaDriver &) = delete;
  CudaDriver &operator=(const CudaDriver &) = delete;

  /// The driver's CUDA version as major * 1000 + minor * 10 (13000 for 13.0).
  int driverVersion() const { return version; }

  /// Number of visible GPUs, or -1 with `error` set.
  int deviceCount(std::string &error) const;

  /// Fills `info` for GPU `ordinal`; false with `error` set on failure.
  bool deviceInfo(int ordinal, DeviceInfo &info, std::string &error) const;
  /// The most dynamic shared memory one block of GPU `ordinal` may opt in to.
  bool maxSharedMemoryOptin(int ordinal, int &bytes, std::string &error) const;

  // Contexts: the runtime uses each GPU's primary context, shared by every thread.
  bool retainPrimaryContext(int ordinal, ContextHandle &context, std::string &error) const;
  void releasePrimaryContext(int ordinal) const;
  bool setCurrent(ContextHandle context, std::string &error) const;

  // Modules and kernels.
  /// Loads a cubin, or PTX text (null-terminated) that the driver compiles for the GPU;
  /// a failure includes the driver's JIT error log.
  bool loadModule(const void *image, ModuleHandle &module, std::string &error) const;
  void unloadModule(ModuleHandle module) const;
  bool getFunction(ModuleHandle module, const std::string &name, FunctionHandle &function,
                   std::string &error) const;
  /// Lets `function` use up to `bytes` of dynamic shared memory (the default is 48 KiB less its
  /// static shared memory).
  bool setMaxDynamicSharedMemory(FunctionHandle function, int bytes, std::string &error) const;
  /// Whether the driver can list kernel parameters (cuFuncGetParamInfo, CUDA 12.4).
  bool canDescribeParameters() const;
  /// The byte size of parameter `index` of `function`; false when there is no such
  /// parameter (or the driver cannot tell).
  bool parameterSize(FunctionHandle function, size_t index, size_t &bytes) const;
  /// Launches `function`; with `programmatic` (a kernel that begins with
  /// griddepcontrol.wait) and a driver that has cuLaunchKernelEx (CUDA 12.0), with
  /// programmatic stream serialization: its CTAs may be scheduled before the kernel ahead
  /// of it in the stream has finished (once that kernel's CTAs have all been), and wait on
  /// the GPU. Stream capture keeps the dependency as a programmatic graph edge.
  bool launch(FunctionHandle function, const uint32_t grid[3], const uint32_t block[3],
              uint32_t sharedBytes, StreamHandle stream, void **parameters, bool programmatic,
              std::string &error) const;

  /// Encodes `map` over `address` into `encoded` (kiln::engine::TensorMap::kBytes bytes,
  /// 64-byte aligned) with cuTensorMapEncodeTiled (CUDA 12.0 and later).
  bool encodeTensorMap(const engine::TensorMap &map, DevicePointer address, void *encoded,
                       std::string &error) const;

  // Memory.
  bool allocate(size_t bytes, DevicePointer &pointer, std::string &error) const;
  void free(DevicePointer pointer) const;
  bool copyToDevice(DevicePointer destination, const void *source, size_t bytes,
                    StreamHandle stream, std::string &error) const;
  bool copyToHost(void *destination, DevicePointer source, size_t bytes, StreamHandle stream,
                  std::string &error) const;
  bool copyOnDevice(DevicePointer destination, DevicePointer source, size_t bytes,
                    StreamHandle stream, std::string &error) const;
  bool fill(DevicePointer destination, uint8_t value, size_t bytes, StreamHandle stream,
            std::string &error) const;

  // Streams and events.
  bool createStream(StreamHandle &stream, std::string &error) const;
  void destroyStream(StreamHandle stream) const;
  bool synchronize(StreamHandle stream, std::string &error) const;
  bool createEvent(EventHandle &event, std::string &error) const;
  void destroyEvent(EventHandle event) const;
  bool recordEvent(EventHandle event, StreamHandle stream, std::string &error) const;
  /// Milliseconds between two recorded (and completed) events.
  bool elapsedMillis(EventHandle start, EventHandle end, float &millis, std::string &error) const;
  /// Whether the work recorded before `event` has finished (cuEventQuery), without waiting.
  bool eventDone(EventHandle event, bool &done, std::string &error) const;

  // Graphs: capture what is enqueued on a stream, instantiate it, replay it.
  bool beginCapture(StreamHandle stream, std::string &error) const;
  bool endCapture(StreamHandle stream, GraphHandle &graph, std::string &error) const;
  /// Whether `stream` is being captured (by anyone: the caller of the runtime may capture
  /// the context's stream); false where the driver cannot tell (no cuStreamIsCapturing).
  bool isCapturing(StreamHandle stream, bool &capturing, std::string &error) const;
  bool instantiateGraph(GraphHandle graph, GraphExecHandle &executable, std::string &error) const;
  bool launchGraph(GraphExecHandle executable, StreamHandle stream, std::string &error) const;
  void destroyGraph(GraphHandle graph) const;
  void destroyGraphExec(GraphExecHandle executable) const;

private:
  using Result = int;
  struct EntryPoints;

  CudaDriver(void *handle, std::unique_ptr<EntryPoints> entry);
  /// "cuCall failed: CUDA_ERROR_... (message)" for a non-zero result.
  std::string describe(const char *call, Result result) const;

  void *handle;
  std::unique_ptr<EntryPoints> entry;
  int version = 0;
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_CUDADRIVER_H
