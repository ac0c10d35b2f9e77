//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "runtime/CudaDriver.h"
#include "runtime/Engine.h"

#include <cstdint>
#include <dlfcn.h>
#include <initializer_list>
#include <type_traits>

namespace kiln::runtime {

namespace {
// The driver API's values that the runtime uses, as cuda.h defines them.
using CUdevice = int;
using CUdeviceptr = unsigned long long;
constexpr int kAttributeMultiprocessorCount = 16;
constexpr int kAttributeComputeCapabilityMajor = 75;
constexpr int kAttributeComputeCapabilityMinor = 76;
constexpr int kAttributeMaxSharedMemoryPerBlockOptin = 97;
constexpr int kFunctionAttributeMaxDynamicSharedSizeBytes = 8;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSizeBytes = 6;
constexpr unsigned kStreamNonBlocking = 1;
constexpr unsigned kEventDefault = 0;
// Thread-local capture: other threads' (other contexts') CUDA calls stay legal while one
// thread captures its stream.
constexpr int kStreamCaptureModeThreadLocal = 1;
// cuLaunchKernelEx's configuration (CUlaunchConfig) and the one attribute the runtime sets
// (CUlaunchAttribute: an id, padding to 8 bytes, a 64-byte union of values).
constexpr int kLaunchAttributeProgrammaticStreamSerialization = 6;
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int programmaticStreamSerializationAllowed;
  } value;
};
static_assert(sizeof(LaunchAttribute) == 72, "CUlaunchAttribute is 72 bytes");
struct LaunchConfig {
  unsigned gridX, gridY, gridZ;
  unsigned blockX, blockY, blockZ;
  unsigned sharedBytes;
  void *stream;
  LaunchAttribute *attributes;
  unsigned attributeCount;
};
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

  Result (*cuDevicePrimaryCtxRetain)(void **context, CUdevice device) = nullptr;
  Result (*cuDevicePrimaryCtxRelease)(CUdevice device) = nullptr;
  Result (*cuCtxSetCurrent)(void *context) = nullptr;
  Result (*cuModuleLoadDataEx)(void **module, const void *image, unsigned count, int *options,
                               void **values) = nullptr;
  Result (*cuModuleUnload)(void *module) = nullptr;
  Result (*cuModuleGetFunction)(void **function, void *module, const char *name) = nullptr;
  Result (*cuFuncSetAttribute)(void *function, int attribute, int value) = nullptr;
  // Optional (CUDA 12.4 and later): null when the driver lacks it.
  Result (*cuFuncGetParamInfo)(void *function, size_t index, size_t *offset,
                               size_t *size) = nullptr;
  // Optional (CUDA 12.0 and later): what Hopper kernels' tensor maps need.
  Result (*cuTensorMapEncodeTiled)(void *tensorMap, int dataType, unsigned rank,
                                   void *globalAddress, const uint64_t *globalDim,
                                   const uint64_t *globalStrides, const unsigned *boxDim,
                                   const unsigned *elementStrides, int interleave, int swizzle,
                                   int l2Promotion, int oobFill) = nullptr;
  // Optional (CUDA 12.0 and later): launches with attributes (programmatic dependent
  // launch). `config` is a LaunchConfig.
  Result (*cuLaunchKernelEx)(const void *config, void *function, void **parameters,
                             void **extra) = nullptr;
  Result (*cuLaunchKernel)(void *function, unsigned gridX, unsigned gridY, unsigned gridZ,
                           unsigned blockX, unsigned blockY, unsigned blockZ, unsigned sharedBytes,
                           void *stream, void **parameters, void **extra) = nullptr;
  Result (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes) = nullptr;
  Result (*cuMemFree)(CUdeviceptr pointer) = nullptr;
  Result (*cuMemcpyHtoDAsync)(CUdeviceptr destination, const void *source, size_t bytes,
                              void *stream) = nullptr;
  Result (*cuMemcpyDtoHAsync)(void *destination, CUdeviceptr source, size_t bytes,
                              void *stream) = nullptr;
  Result (*cuMemcpyDtoDAsync)(CUdeviceptr destination, CUdeviceptr source, size_t bytes,
                              void *stream) = nullptr;
  Result (*cuMemsetD8Async)(CUdeviceptr destination, unsigned char value, size_t bytes,
                            void *stream) = nullptr;
  Result (*cuStreamCreate)(void **stream, unsigned flags) = nullptr;
  Result (*cuStreamDestroy)(void *stream) = nullptr;
  Result (*cuStreamSynchronize)(void *stream) = nullptr;
  Result (*cuEventCreate)(void **event, unsigned flags) = nullptr;
  Result (*cuEventDestroy)(void *event) = nullptr;
  Result (*cuEventRecord)(void *event, void *stream) = nullptr;
  Result (*cuEventElapsedTime)(float *millis, void *start, void *end) = nullptr;
  Result (*cuEventQuery)(void *event) = nullptr;
  Result (*cuStreamBeginCapture)(void *stream, int mode) = nullptr;
  Result (*cuStreamEndCapture)(void *stream, void **graph) = nullptr;
  Result (*cuStreamIsCapturing)(void *stream, int *status) = nullptr; // CUstreamCaptureStatus
  Result (*cuGraphInstantiateWithFlags)(void **executable, void *graph,
                                        unsigned long long flags) = nullptr;
  Result (*cuGraphLaunch)(void *executable, void *stream) = nullptr;
  Result (*cuGraphDestroy)(void *graph) = nullptr;
  Result (*cuGraphExecDestroy)(void *executable) = nullptr;
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
  // Resolves the first of `symbols` the driver exports: the newest ABI first (the _v2
  // names that cuda.h's macros select), the original name as a fallback.
  auto resolveAny = [&](auto &function, std::initializer_list<const char *> symbols,
                        bool required = true) {
    for (const char *symbol : symbols) {
      function =
          reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(handle, symbol));
      if (function)
        return;
    }
    if (required && resolved) {
      error = std::string("the CUDA driver (") + library + ") lacks " + *symbols.begin() +
              "; the driver is too old";
      resolved = false;
    }
  };
  auto resolve = [&](auto &function, const char *symbol) { resolveAny(function, {symbol}); };
  resolve(entry->cuInit, "cuInit");
  resolve(entry->cuDriverGetVersion, "cuDriverGetVersion");
  resolve(entry->cuDeviceGetCount, "cuDeviceGetCount");
  resolve(entry->cuDeviceGet, "cuDeviceGet");
  resolve(entry->cuDeviceGetName, "cuDeviceGetName");
  resolve(entry->cuDeviceGetAttribute, "cuDeviceGetAttribute");
  resolve(entry->cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  resolve(entry->cuGetErrorName, "cuGetErrorName");
  resolve(entry->cuGetErrorString, "cuGetErrorString");
  resolve(entry->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolveAny(entry->cuDevicePrimaryCtxRelease,
             {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
  resolve(entry->cuCtxSetCurrent, "cuCtxSetCurrent");
  resolve(entry->cuModuleLoadDataEx, "cuModuleLoadDataEx");
  resolve(entry->cuModuleUnload, "cuModuleUnload");
  resolve(entry->cuModuleGetFunction, "cuModuleGetFunction");
  resolve(entry->cuFuncSetAttribute, "cuFuncSetAttribute");
  resolveAny(entry->cuFuncGetParamInfo, {"cuFuncGetParamInfo"}, /*required=*/false);
  resolveAny(entry->cuTensorMapEncodeTiled, {"cuTensorMapEncodeTiled"}, /*required=*/false);
  resolve(entry->cuLaunchKernel, "cuLaunchKernel");
  resolveAny(entry->cuLaunchKernelEx, {"cuLaunchKernelEx"}, /*required=*/false);
  resolveAny(entry->cuMemAlloc, {"cuMemAlloc_v2", "cuMemAlloc"});
  resolveAny(entry->cuMemFree, {"cuMemFree_v2", "cuMemFree"});
  resolveAny(entry->cuMemcpyHtoDAsync, {"cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync"});
  resolveAny(entry->cuMemcpyDtoHAsync, {"cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync"});
  resolveAny(entry->cuMemcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync"});
  resolve(entry->cuMemsetD8Async, "cuMemsetD8Async");
  resolve(entry->cuStreamCreate, "cuStreamCreate");
  resolveAny(entry->cuStreamDestroy, {"cuStreamDestroy_v2", "cuStreamDestroy"});
  resolve(entry->cuStreamSynchronize, "cuStreamSynchronize");
  resolve(entry->cuEventCreate, "cuEventCreate");
  resolveAny(entry->cuEventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"});
  resolve(entry->cuEventRecord, "cuEventRecord");
  resolveAny(entry->cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  resolve(entry->cuEventQuery, "cuEventQuery");
  resolveAny(entry->cuStreamBeginCapture, {"cuStreamBeginCapture_v2"});
  resolve(entry->cuStreamEndCapture, "cuStreamEndCapture");
  resolveAny(entry->cuStreamIsCapturing, {"cuStreamIsCapturing"}, /*required=*/false);
  resolve(entry->cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
  resolve(entry->cuGraphLaunch, "cuGraphLaunch");
  resolve(entry->cuGraphDestroy, "cuGraphDestroy");
  resolve(entry->cuGraphExecDestroy, "cuGraphExecDestroy");
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

bool CudaDriver::maxSharedMemoryOptin(int ordinal, int &bytes, std::string &error) const {
  CUdevice device = 0;
  if (Result result = entry->cuDeviceGet(&device, ordinal)) {
    error = describe("cuDeviceGet", result);
    return false;
  }
  if (Result result =
          entry->cuDeviceGetAttribute(&bytes, kAttributeMaxSharedMemoryPerBlockOptin, device)) {
    error = describe("cuDeviceGetAttribute", result);
    return false;
  }
  return true;
}

// Each wrapper below: one driver call, and on failure one line naming it.
#define KILN_CALL(call, ...)                                                                       \
  do {                                                                                             \
    if (Result result = entry->call(__VA_ARGS__)) {                                                \
      error = describe(#call, result);                                                             \
      return false;                                                                                \
    }                                                                                              \
    return true;                                                                                   \
  } while (false)

bool CudaDriver::retainPrimaryContext(int ordinal, ContextHandle &context,
                                      std::string &error) const {
  CUdevice device = 0;
  if (Result result = entry->cuDeviceGet(&device, ordinal)) {
    error = describe("cuDeviceGet", result);
    return false;
  }
  KILN_CALL(cuDevicePrimaryCtxRetain, &context, device);
}

void CudaDriver::releasePrimaryContext(int ordinal) const {
  CUdevice device = 0;
  if (entry->cuDeviceGet(&device, ordinal) == 0)
    entry->cuDevicePrimaryCtxRelease(device);
}

bool CudaDriver::setCurrent(ContextHandle context, std::string &error) const {
  KILN_CALL(cuCtxSetCurrent, context);
}

bool CudaDriver::loadModule(const void *image, ModuleHandle &module, std::string &error) const {
  char log[8192] = {};
  int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes};
  void *values[] = {log, reinterpret_cast<void *>(static_cast<uintptr_t>(sizeof(log) - 1))};
  if (Result result = entry->cuModuleLoadDataEx(&module, image, 2, options, values)) {
    error = describe("cuModuleLoadDataEx", result);
    // The JIT log on the same line: its lines joined by "; ".
    std::string text(log);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
      text.pop_back();
    for (char &c : text)
      if (c == '\n' || c == '\r' || c == '\t')
        c = c == '\n' ? ';' : ' ';
    if (!text.empty())
      error += "; JIT log: " + text;
    return false;
  }
  return true;
}

void CudaDriver::unloadModule(ModuleHandle module) const { entry->cuModuleUnload(module); }

bool CudaDriver::getFunction(ModuleHandle module, const std::string &name, FunctionHandle &function,
                             std::string &error) const {
  KILN_CALL(cuModuleGetFunction, &function, module, name.c_str());
}

bool CudaDriver::setMaxDynamicSharedMemory(FunctionHandle function, int bytes,
                                           std::string &error) const {
  KILN_CALL(cuFuncSetAttribute, function, kFunctionAttributeMaxDynamicSharedSizeBytes, bytes);
}

bool CudaDriver::canDescribeParameters() const { return entry->cuFuncGetParamInfo != nullptr; }

bool CudaDriver::parameterSize(FunctionHandle function, size_t index, size_t &bytes) const {
  if (!entry->cuFuncGetParamInfo)
    return false;
  size_t offset = 0;
  Result result = entry->cuFuncGetParamInfo(function, index, &offset, &bytes);
  return result == 0;
}

bool CudaDriver::launch(FunctionHandle function, const uint32_t grid[3], const uint32_t block[3],
                        uint32_t sharedBytes, StreamHandle stream, void **parameters,
                        bool programmatic, std::string &error) const {
  if (programmatic && entry->cuLaunchKernelEx) {
    LaunchAttribute serialization{};
    serialization.id = kLaunchAttributeProgrammaticStreamSerialization;
    serialization.value.programmaticStreamSerializationAllowed = 1;
    LaunchConfig config{grid[0],  grid[1],     grid[2], block[0],       block[1],
                        block[2], sharedBytes, stream,  &serialization, 1};
    KILN_CALL(cuLaunchKernelEx, &config, function, parameters, nullptr);
  }
  KILN_CALL(cuLaunchKernel, function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
            sharedBytes, stream, parameters, nullptr);
}

bool CudaDriver::encodeTensorMap(const engine::TensorMap &map, DevicePointer address, void *encoded,
                                 std::string &error) const {
  if (!entry->cuTensorMapEncodeTiled) {
    error = "the CUDA driver has no cuTensorMapEncodeTiled (tensor maps need CUDA 12.0 or later)";
    return false;
  }
  KILN_CALL(cuTensorMapEncodeTiled, encoded, map.dataType, map.rank,
            reinterpret_cast<void *>(static_cast<uintptr_t>(address)), map.dims, map.strides,
            map.box, map.elementStrides, map.interleave, map.swizzle, map.l2Promotion, map.oobFill);
}

bool CudaDriver::allocate(size_t bytes, DevicePointer &pointer, std::string &error) const {
  CUdeviceptr address = 0;
  if (Result result = entry->cuMemAlloc(&address, bytes)) {
    error = describe("cuMemAlloc", result) + " for " + std::to_string(bytes) + " bytes";
    return false;
  }
  pointer = address;
  return true;
}

void CudaDriver::free(DevicePointer pointer) const {
  if (pointer)
    entry->cuMemFree(pointer);
}

bool CudaDriver::copyToDevice(DevicePointer destination, const void *source, size_t bytes,
                              StreamHandle stream, std::string &error) const {
  KILN_CALL(cuMemcpyHtoDAsync, destination, source, bytes, stream);
}

bool CudaDriver::copyToHost(void *destination, DevicePointer source, size_t bytes,
                            StreamHandle stream, std::string &error) const {
  KILN_CALL(cuMemcpyDtoHAsync, destination, source, bytes, stream);
}

bool CudaDriver::copyOnDevice(DevicePointer destination, DevicePointer source, size_t bytes,
                              StreamHandle stream, std::string &error) const {
  KILN_CALL(cuMemcpyDtoDAsync, destination, source, bytes, stream);
}

bool CudaDriver::fill(DevicePointer destination, uint8_t value, size_t bytes, StreamHandle stream,
                      std::string &error) const {
  KILN_CALL(cuMemsetD8Async, destination, value, bytes, stream);
}

bool CudaDriver::createStream(StreamHandle &stream, std::string &error) const {
  KILN_CALL(cuStreamCreate, &stream, kStreamNonBlocking);
}

void CudaDriver::destroyStream(StreamHandle stream) const {
  if (stream)
    entry->cuStreamDestroy(stream);
}

bool CudaDriver::synchronize(StreamHandle stream, std::string &error) const {
  KILN_CALL(cuStreamSynchronize, stream);
}

bool CudaDriver::createEvent(EventHandle &event, std::string &error) const {
  KILN_CALL(cuEventCreate, &event, kEventDefault);
}

void CudaDriver::destroyEvent(EventHandle event) const {
  if (event)
    entry->cuEventDestroy(event);
}

bool CudaDriver::recordEvent(EventHandle event, StreamHandle stream, std::string &error) const {
  KILN_CALL(cuEventRecord, event, stream);
}

bool CudaDriver::elapsedMillis(EventHandle start, EventHandle end, float &millis,
                               std::string &error) const {
  KILN_CALL(cuEventElapsedTime, &millis, start, end);
}

bool CudaDriver::eventDone(EventHandle event, bool &done, std::string &error) const {
  // CUDA_ERROR_NOT_READY: the work before the event has not finished yet.
  constexpr Result kNotReady = 600;
  Result result = entry->cuEventQuery(event);
  done = result == 0;
  if (result != 0 && result != kNotReady) {
    error = describe("cuEventQuery", result);
    return false;
  }
  return true;
}

bool CudaDriver::beginCapture(StreamHandle stream, std::string &error) const {
  KILN_CALL(cuStreamBeginCapture, stream, kStreamCaptureModeThreadLocal);
}

bool CudaDriver::endCapture(StreamHandle stream, GraphHandle &graph, std::string &error) const {
  KILN_CALL(cuStreamEndCapture, stream, &graph);
}

bool CudaDriver::isCapturing(StreamHandle stream, bool &capturing, std::string &error) const {
  int status = 0; // CU_STREAM_CAPTURE_STATUS_NONE
  capturing = false;
  if (!entry->cuStreamIsCapturing)
    return true;
  if (Result result = entry->cuStreamIsCapturing(stream, &status)) {
    error = describe("cuStreamIsCapturing", result);
    return false;
  }
  capturing = status != 0; // active, or invalidated (still in capture mode)
  return true;
}

bool CudaDriver::instantiateGraph(GraphHandle graph, GraphExecHandle &executable,
                                  std::string &error) const {
  KILN_CALL(cuGraphInstantiateWithFlags, &executable, graph, 0);
}

bool CudaDriver::launchGraph(GraphExecHandle executable, StreamHandle stream,
                             std::string &error) const {
  KILN_CALL(cuGraphLaunch, executable, stream);
}

void CudaDriver::destroyGraph(GraphHandle graph) const {
  if (graph)
    entry->cuGraphDestroy(graph);
}

void CudaDriver::destroyGraphExec(GraphExecHandle executable) const {
  if (executable)
    entry->cuGraphExecDestroy(executable);
}

#undef KILN_CALL

} // namespace kiln::runtime
