//===- CApi.cpp - include/kiln/kiln.h over include/kiln/Runtime.h ---------===//

#include "kiln/kiln.h"

#include "kiln/Runtime.h"
#include "kiln/Version.h"

#include <algorithm>

struct kiln_runtime {
  std::shared_ptr<kiln::Runtime> runtime;
};
struct kiln_engine {
  std::shared_ptr<kiln::Engine> engine;
};
struct kiln_context {
  std::unique_ptr<kiln::ExecutionContext> context;
};

namespace {

thread_local std::string lastError;

kiln_status fail(kiln_status status, std::string message) {
  lastError = std::move(message);
  return status;
}

kiln_status succeed() {
  lastError.clear();
  return KILN_OK;
}

kiln_status tensorInfo(const std::vector<kiln::engine::TensorSignature> &tensors, size_t index,
                       kiln_tensor_info *info, const char *role) {
  if (!info)
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null kiln_tensor_info");
  if (index >= tensors.size())
    return fail(KILN_ERROR_INVALID_ARGUMENT, std::string("no ") + role + " " +
                                                 std::to_string(index) + " (the engine has " +
                                                 std::to_string(tensors.size()) + ")");
  const kiln::engine::TensorSignature &tensor = tensors[index];
  info->name = tensor.name.c_str();
  info->type = static_cast<kiln_element_type>(tensor.type);
  info->rank = tensor.shape.size();
  info->shape = tensor.shape.data();
  info->bytes = tensor.sizeInBytes();
  return succeed();
}

} // namespace

extern "C" {

const char *kiln_last_error(void) { return lastError.c_str(); }
const char *kiln_version(void) { return KILN_VERSION_STRING; }

kiln_status kiln_runtime_create(int device, kiln_runtime **runtime) {
  if (!runtime)
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null kiln_runtime**");
  *runtime = nullptr;
  std::string error;
  auto created = kiln::Runtime::create(error, device);
  if (!created)
    return fail(KILN_ERROR_NO_DEVICE, error);
  *runtime = new kiln_runtime{std::move(created)};
  return succeed();
}

void kiln_runtime_destroy(kiln_runtime *runtime) { delete runtime; }

const char *kiln_runtime_device_name(const kiln_runtime *runtime) {
  return runtime ? runtime->runtime->deviceName().c_str() : "";
}

int kiln_runtime_compute_capability(const kiln_runtime *runtime, int *major, int *minor) {
  if (!runtime || !major || !minor)
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null argument");
  *major = runtime->runtime->computeCapabilityMajor();
  *minor = runtime->runtime->computeCapabilityMinor();
  return succeed();
}

kiln_status kiln_engine_load(kiln_runtime *runtime, const char *path, kiln_engine **engine) {
  if (!runtime || !path || !engine)
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null argument to kiln_engine_load");
  *engine = nullptr;
  std::string error;
  auto loaded = kiln::Engine::load(runtime->runtime, path, error);
  if (!loaded)
    return fail(KILN_ERROR_ENGINE, error);
  *engine = new kiln_engine{std::move(loaded)};
  return succeed();
}

void kiln_engine_destroy(kiln_engine *engine) { delete engine; }

size_t kiln_engine_num_inputs(const kiln_engine *engine) {
  return engine ? engine->engine->description().inputs.size() : 0;
}

size_t kiln_engine_num_outputs(const kiln_engine *engine) {
  return engine ? engine->engine->description().outputs.size() : 0;
}

kiln_status kiln_engine_input_info(const kiln_engine *engine, size_t index,
                                   kiln_tensor_info *info) {
  if (!engine)
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null kiln_engine");
  return tensorInfo(engine->engine->description().inputs, index, info, "input");
}

kiln_status kiln_engine_output_info(const kiln_engine *engine, size_t index,
                                    kiln_tensor_info *info) {
  if (!engine)
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null kiln_engine");
  return tensorInfo(engine->engine->description().outputs, index, info, "output");
}

kiln_status kiln_context_create(kiln_engine *engine, kiln_context **context) {
  if (!engine || !context)
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null argument to kiln_context_create");
  *context = nullptr;
  std::string error;
  auto created = kiln::ExecutionContext::create(engine->engine, error);
  if (!created)
    return fail(KILN_ERROR_EXECUTION, error);
  *context = new kiln_context{std::move(created)};
  return succeed();
}

void kiln_context_destroy(kiln_context *context) { delete context; }

kiln_status kiln_context_run(kiln_context *context, const void *const *inputs,
                             void *const *outputs) {
  if (!context)
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null kiln_context");
  const kiln::engine::Engine &model = context->context->engine().description();
  if ((!inputs && !model.inputs.empty()) || (!outputs && !model.outputs.empty()))
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null buffer array to kiln_context_run");
  std::vector<const void *> in(inputs, inputs + model.inputs.size());
  std::vector<void *> out(outputs, outputs + model.outputs.size());
  std::string error;
  if (!context->context->run(in, out, error))
    return fail(KILN_ERROR_EXECUTION, error);
  return succeed();
}

kiln_status kiln_context_enqueue(kiln_context *context, const uint64_t *inputs,
                                 const uint64_t *outputs) {
  if (!context)
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null kiln_context");
  const kiln::engine::Engine &model = context->context->engine().description();
  if ((!inputs && !model.inputs.empty()) || (!outputs && !model.outputs.empty()))
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null buffer array to kiln_context_enqueue");
  std::vector<kiln::DevicePointer> in(inputs, inputs + model.inputs.size());
  std::vector<kiln::DevicePointer> out(outputs, outputs + model.outputs.size());
  std::string error;
  if (!context->context->enqueue(in, out, error))
    return fail(KILN_ERROR_EXECUTION, error);
  return succeed();
}

kiln_status kiln_context_synchronize(kiln_context *context) {
  if (!context)
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null kiln_context");
  std::string error;
  if (!context->context->synchronize(error))
    return fail(KILN_ERROR_EXECUTION, error);
  return succeed();
}

kiln_status kiln_context_set_input_shape(kiln_context *context, size_t index, size_t rank,
                                         const int64_t *shape) {
  if (!context)
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null kiln_context");
  if (!shape && rank)
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null shape to kiln_context_set_input_shape");
  std::string error;
  if (!context->context->setInputShape(index, std::vector<int64_t>(shape, shape + rank), error))
    return fail(KILN_ERROR_INVALID_ARGUMENT, error);
  return succeed();
}

kiln_status kiln_context_output_shape(kiln_context *context, size_t index, size_t capacity,
                                      int64_t *shape, size_t *rank) {
  if (!context || !rank || (!shape && capacity))
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null argument to kiln_context_output_shape");
  std::vector<int64_t> extents;
  std::string error;
  if (!context->context->outputShape(index, extents, error))
    return fail(KILN_ERROR_INVALID_ARGUMENT, error);
  *rank = extents.size();
  if (extents.size() > capacity)
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "output " + std::to_string(index) + " has rank " + std::to_string(extents.size()) +
                    ", more than the " + std::to_string(capacity) + " extents given room for");
  std::copy(extents.begin(), extents.end(), shape);
  return succeed();
}

kiln_status kiln_context_enable_graph(kiln_context *context, int enable) {
  if (!context)
    return fail(KILN_ERROR_INVALID_ARGUMENT, "null kiln_context");
  context->context->enableGraph(enable != 0);
  return succeed();
}

void *kiln_context_stream(const kiln_context *context) {
  return context ? context->context->stream() : nullptr;
}

} // extern "C"
