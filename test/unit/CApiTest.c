/*===- CApiTest.c - include/kiln/kiln.h used from C ------------------------===*\
 *
 * Compiled as C (not C++), so the header stays valid C; RuntimeTest.cpp calls these.
 *
\*===----------------------------------------------------------------------===*/

#include "kiln/kiln.h"

#include <stdio.h>
#include <string.h>

/* Creates and destroys a runtime; the status, and the message in `message`. */
int kiln_c_api_create_runtime(char *message, size_t size) {
  kiln_runtime *runtime = NULL;
  kiln_status status = kiln_runtime_create(0, &runtime);
  snprintf(message, size, "%s", kiln_last_error());
  if (status == KILN_OK) {
    int major = 0, minor = 0;
    kiln_runtime_compute_capability(runtime, &major, &minor);
    snprintf(message, size, "%s, compute capability %d.%d", kiln_runtime_device_name(runtime),
             major, minor);
  } else if (runtime != NULL) {
    snprintf(message, size, "kiln_runtime_create failed but returned a runtime");
    return -1;
  }
  kiln_runtime_destroy(runtime);
  return status;
}

/* Runs the sample engine at `path` (test/tools/make-test-engine/SampleEngine.h) once. */
int kiln_c_api_run_sample(const char *path, int use_graph, const float *x, const float *y,
                          float *sum, float *xy, unsigned char *flags, char *message, size_t size) {
  kiln_runtime *runtime = NULL;
  kiln_engine *engine = NULL;
  kiln_context *context = NULL;
  kiln_tensor_info info;
  kiln_status status;
  const void *inputs[2];
  void *outputs[3];

  message[0] = '\0';
  if ((status = kiln_runtime_create(0, &runtime)) != KILN_OK)
    goto done;
  if ((status = kiln_engine_load(runtime, path, &engine)) != KILN_OK)
    goto done;
  /* Handles may go in any order: the engine keeps the runtime alive. */
  kiln_runtime_destroy(runtime);
  runtime = NULL;
  if (kiln_engine_num_inputs(engine) != 2 || kiln_engine_num_outputs(engine) != 3) {
    snprintf(message, size, "wrong IO counts");
    status = KILN_ERROR_ENGINE;
    goto done;
  }
  if ((status = kiln_engine_output_info(engine, 2, &info)) != KILN_OK)
    goto done;
  if (strcmp(info.name, "flags") != 0 || info.type != KILN_U8 || info.rank != 1 ||
      info.shape[0] != 4 || info.bytes != 4) {
    snprintf(message, size, "wrong output info for 'flags'");
    status = KILN_ERROR_ENGINE;
    goto done;
  }
  if (kiln_engine_input_info(engine, 5, &info) != KILN_ERROR_INVALID_ARGUMENT ||
      strstr(kiln_last_error(), "no input 5") == NULL) {
    snprintf(message, size, "input 5 not refused: %s", kiln_last_error());
    status = KILN_ERROR_ENGINE;
    goto done;
  }
  if ((status = kiln_context_create(engine, &context)) != KILN_OK)
    goto done;
  if ((status = kiln_context_enable_graph(context, use_graph)) != KILN_OK)
    goto done;
  inputs[0] = x;
  inputs[1] = y;
  outputs[0] = sum;
  outputs[1] = xy;
  outputs[2] = flags;
  status = kiln_context_run(context, inputs, outputs);

done:
  if (status != KILN_OK && message[0] == '\0')
    snprintf(message, size, "%s", kiln_last_error());
  kiln_context_destroy(context);
  kiln_engine_destroy(engine);
  kiln_runtime_destroy(runtime);
  return status;
}
