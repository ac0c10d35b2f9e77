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

/// The entry points of libcuda that the runtime uses, resolved once at load.
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
