//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "runtime/CudaDriver.h"

#include <dlfcn.h>
#include <type_traits>

namespace kiln::runtime {

namespace {
// The driver API's values that the runtime uses, as cuda.h defines them.
using CUdevice = int;
constexpr int kAttributeMultiprocessorCount = 16;
constexpr int kAttributeComputeCapabilityMajor = 75;
constexpr int kAttributeComputeCapabilityMinor = 76;
} // namespace

struct CudaDriver::EntryPoints {
  Result (*cuInit)(unsigned flags) = nullptr;
  Result (*cuDriverGetVersion)(int *version) = nullptr;
  Result (*cuDeviceGetCount)(int *count) = nullptr;
  Result (*cuDeviceGet)(CUdevice *device, int ordinal) = nullptr;
  Result (*cuDeviceGetName)(char *name, int length, CUdevice device) = nullptr;
  Result (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device) = nullptr;
  Result (*cuDeviceTotalMem)(size_t *bytes, CUdevice device) = nullptr;
  Result (*cuGetErrorName)(Result result, const char **name) = nullptr;
  Result (*cuGetErrorString)(Result result, const char **text) = nullptr;
};

std::string DeviceInfo::smName() const {
  return "sm_" + std::to_string(computeCapabilityMajor) + std::to_string(computeCapabilityMinor);
}

std::unique_ptr<CudaDriver> CudaDriver::load(std::string &error, const std::string &library) {
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    error = "cannot load the CUDA driver (" + library +
            "): " + (reason ? reason : "unknown reason") + "; is an NVIDIA driver installed?";
    return nullptr;
  }

  auto entry = std::make_unique<EntryPoints>();
  bool resolved = true;
  auto resolve = [&](auto &function, const char *symbol) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(handle, symbol));
    if (!function && resolved) {
      error = std::string("the CUDA driver (") + library + ") lacks " + symbol +
              "; the driver is too old";
      resolved = false;
    }
  };
  resolve(entry->cuInit, "cuInit");
  resolve(entry->cuDriverGetVersion, "cuDriverGetVersion");
  resolve(entry->cuDeviceGetCount, "cuDeviceGetCount");
  resolve(entry->cuDeviceGet, "cuDeviceGet");
  resolve(entry->cuDeviceGetName, "cuDeviceGetName");
  resolve(entry->cuDeviceGetAttribute, "cuDeviceGetAttribute");
  resolve(entry->cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  resolve(entry->cuGetErrorName, "cuGetErrorName");
  resolve(entry->cuGetErrorString, "cuGetErrorString");
  if (!resolved) {
    dlclose(handle);
    return nullptr;
  }

  std::unique_ptr<CudaDriver> driver(new CudaDriver(handle, std::move(entry)));
  if (Result result = driver->entry->cuInit(0)) {
    error = driver->describe("cuInit", result);
    return nullptr;
  }
  if (Result result = driver->entry->cuDriverGetVersion(&driver->version)) {
    error = driver->describe("cuDriverGetVersion", result);
    return nullptr;
  }
  return driver;
}

CudaDriver::CudaDriver(void *handle, std::unique_ptr<EntryPoints> entry)
    : handle(handle), entry(std::move(entry)) {}

CudaDriver::~CudaDriver() { dlclose(handle); }

std::string CudaDriver::describe(const char *call, Result result) const {
  const char *name = nullptr, *text = nullptr;
  entry->cuGetErrorName(result, &name);
  entry->cuGetErrorString(result, &text);
  return std::string(call) + " failed: " + (name ? name : "CUDA error " + std::to_string(result)) +
         (text ? std::string(" (") + text + ")" : std::string());
}

int CudaDriver::deviceCount(std::string &error) const {
  int count = 0;
  if (Result result = entry->cuDeviceGetCount(&count)) {
    error = describe("cuDeviceGetCount", result);
    return -1;
  }
  return count;
}

bool CudaDriver::deviceInfo(int ordinal, DeviceInfo &info, std::string &error) const {
  CUdevice device = 0;
  if (Result result = entry->cuDeviceGet(&device, ordinal)) {
    error = describe("cuDeviceGet", result);
    return false;
  }
  char name[256] = {};
  struct {
    const char *call;
    Result result;
  } calls[] = {
      {"cuDeviceGetName", entry->cuDeviceGetName(name, sizeof(name) - 1, device)},
      {"cuDeviceGetAttribute",
       entry->cuDeviceGetAttribute(&info.computeCapabilityMajor, kAttributeComputeCapabilityMajor,
                                   device)},
      {"cuDeviceGetAttribute",
       entry->cuDeviceGetAttribute(&info.computeCapabilityMinor, kAttributeComputeCapabilityMinor,
                                   device)},
      {"cuDeviceGetAttribute", entry->cuDeviceGetAttribute(&info.multiprocessorCount,
                                                           kAttributeMultiprocessorCount, device)},
      {"cuDeviceTotalMem", entry->cuDeviceTotalMem(&info.totalMemoryBytes, device)},
  };
  for (const auto &call : calls) {
    if (call.result) {
      error = describe(call.call, call.result);
      return false;
    }
  }
  info.name = name;
  return true;
}

} // namespace kiln::runtime
