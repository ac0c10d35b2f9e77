/*===- kiln.h - The C API of Kiln's runtime -----------------------*- C -*-===*\
 *
 * Runs Kiln engines from C (or any language with a C FFI). The same runtime as
 * include/kiln/Runtime.h behind opaque handles: every function that can fail returns a
 * kiln_status, and kiln_last_error() gives the calling thread's last message (one line).
 *
 *   kiln_runtime *runtime; kiln_engine *engine; kiln_context *context;
 *   if (kiln_runtime_create(0, &runtime) != KILN_OK) { puts(kiln_last_error()); ... }
 *   kiln_engine_load(runtime, "model.kiln", &engine);
 *   kiln_context_create(engine, &context);
 *   kiln_context_run(context, inputs, outputs);     (host buffers, in the engine's order)
 *   kiln_context_destroy(context); kiln_engine_destroy(engine); kiln_runtime_destroy(runtime);
 *
 * Handles may be destroyed in any order: a context keeps its engine alive and an engine
 * its runtime. An engine may be shared by contexts on several threads; a context is used
 * by one thread at a time.
 *
\*===----------------------------------------------------------------------===*/

#ifndef KILN_KILN_H
#define KILN_KILN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kiln_status {
  KILN_OK = 0,
  /** No CUDA driver, or no such GPU (kiln_runtime_create). */
  KILN_ERROR_NO_DEVICE = 1,
  /** A null handle or pointer, an index out of range, a wrong buffer count. */
  KILN_ERROR_INVALID_ARGUMENT = 2,
  /** The engine file was refused or does not load on this GPU. */
  KILN_ERROR_ENGINE = 3,
  /** A CUDA call failed while running (the message names the step and kernel). */
  KILN_ERROR_EXECUTION = 4,
} kiln_status;

/** Element types, numbered as in the engine file (runtime/Engine.h). */
typedef enum kiln_element_type {
  KILN_F32 = 1,
  KILN_F16 = 2,
  KILN_BF16 = 3,
  KILN_F64 = 4,
  KILN_I8 = 5,
  KILN_U8 = 6,
  KILN_I16 = 7,
  KILN_U16 = 8,
  KILN_I32 = 9,
  KILN_U32 = 10,
  KILN_I64 = 11,
  KILN_U64 = 12,
  KILN_BOOL = 13,
} kiln_element_type;

typedef struct kiln_runtime kiln_runtime;
typedef struct kiln_engine kiln_engine;
typedef struct kiln_context kiln_context;

/** One input or output of an engine; the pointers live as long as the engine. */
typedef struct kiln_tensor_info {
  const char *name;
  kiln_element_type type;
  size_t rank;
  /** -1 for a dimension of a dynamic engine that the input shapes decide. */
  const int64_t *shape;
  /** The size of the tensor's buffer (at the profile's max shape for a dynamic engine). */
  size_t bytes;
} kiln_tensor_info;

/** The calling thread's last error message ("" when none). */
const char *kiln_last_error(void);
/** The runtime's version, e.g. "0.1.0". */
const char *kiln_version(void);

/** Loads the CUDA driver and opens GPU `device`. */
kiln_status kiln_runtime_create(int device, kiln_runtime **runtime);
void kiln_runtime_destroy(kiln_runtime *runtime);
/** The GPU's name and compute capability. */
const char *kiln_runtime_device_name(const kiln_runtime *runtime);
int kiln_runtime_compute_capability(const kiln_runtime *runtime, int *major, int *minor);

/** Reads, validates and loads an engine file; uploads its weights. */
kiln_status kiln_engine_load(kiln_runtime *runtime, const char *path, kiln_engine **engine);
void kiln_engine_destroy(kiln_engine *engine);
size_t kiln_engine_num_inputs(const kiln_engine *engine);
size_t kiln_engine_num_outputs(const kiln_engine *engine);
kiln_status kiln_engine_input_info(const kiln_engine *engine, size_t index, kiln_tensor_info *info);
kiln_status kiln_engine_output_info(const kiln_engine *engine, size_t index,
                                    kiln_tensor_info *info);

kiln_status kiln_context_create(kiln_engine *engine, kiln_context **context);
void kiln_context_destroy(kiln_context *context);
/** Host buffers, one per input and output, each as long as its current shape's bytes
 *  (kiln_tensor_info.bytes for a static engine; at least that for an output whose shape
 *  depends on values the run computes, of which the true shape's bytes are written);
 *  waits. */
kiln_status kiln_context_run(kiln_context *context, const void *const *inputs,
                             void *const *outputs);
/** Device buffers (CUdeviceptr); enqueues on the context's stream and returns. */
kiln_status kiln_context_enqueue(kiln_context *context, const uint64_t *inputs,
                                 const uint64_t *outputs);
kiln_status kiln_context_synchronize(kiln_context *context);
/** A dynamic engine's input shape for the next runs (within the profile; the opt shape
 *  until set). Refused, naming the input, dimension and allowed range, outside it. */
kiln_status kiln_context_set_input_shape(kiln_context *context, size_t index, size_t rank,
                                         const int64_t *shape);
/** Output `index`'s shape at the current input shapes: `*rank` extents into `shape`, which
 *  has room for `capacity`. An engine with data-dependent shapes (NonZero, ...) knows
 *  some extents only after a run: before it they are upper bounds, after kiln_context_run
 *  (or kiln_context_enqueue, which waits for such values) the true shape of that run. */
kiln_status kiln_context_output_shape(kiln_context *context, size_t index, size_t capacity,
                                      int64_t *shape, size_t *rank);
/** Non-zero: capture the schedule into a CUDA graph and replay it (one per input shape);
 *  no effect on an engine with data-dependent shapes, which reads values back mid-run. */
kiln_status kiln_context_enable_graph(kiln_context *context, int enable);
/** The context's CUstream. */
void *kiln_context_stream(const kiln_context *context);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_KILN_H */
