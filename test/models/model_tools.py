"""Helpers shared by the scripts that run the public models (test/models/check-models.py,
bench-models.py and the benchmark harness in bench/): where the models are, materializing
their weights, seeded inputs from a graph's declared inputs, comparing outputs, and running
a command under a timeout."""

import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Token inputs without an embedding lookup to read the vocabulary size from.
DEFAULT_VOCAB = 100


def find_shared():
    if "KILN_SHARED" in os.environ:
        return os.path.join(os.environ["KILN_SHARED"], "models")
    # ../shared beside the main checkout; a worktree under <top>/wt/ sits one level deeper.
    path = os.path.dirname(ROOT)
    while True:
        candidate = os.path.join(path, "shared", "models")
        if os.path.isdir(candidate):
            return candidate
        if os.path.dirname(path) == path:
            return os.path.join(os.path.dirname(ROOT), "shared", "models")
        path = os.path.dirname(path)


def dynamic_dims(graph):
    """Each non-initializer input's dimensions: 'batch' for a symbolic first one,
    'sequence' for a later one, else the static extent (make_inputs' convention)."""
    initializers = {t.name for t in graph.initializer}
    dims = {}
    for value in graph.input:
        if value.name in initializers:
            continue
        shape = []
        for dim in value.type.tensor_type.shape.dim:
            shape.append(dim.dim_value if dim.HasField("dim_value")
                         else "batch" if not shape else "sequence")
        dims[value.name] = shape
    return dims


def materialize(shared, source, cache):
    """Returns the model with weights, materializing it when missing or stale."""
    model = os.path.join(cache, os.path.basename(source))
    if os.path.exists(model) and os.path.getmtime(model) >= os.path.getmtime(source):
        return model, 0.0
    start = time.time()
    subprocess.run([sys.executable, os.path.join(shared, "materialize.py"), source,
                    model + ".tmp"], check=True, stdout=subprocess.DEVNULL)
    os.replace(model + ".tmp", model)
    return model, time.time() - start


def vocab_size(graph, name):
    """First dimension of the embedding table that input `name` indexes, if any: follows
    the value through ops that keep its values (Reshape, Cast, ...) to a Gather that uses it
    as indices into an initializer or a Constant."""
    tables = {t.name: list(t.dims) for t in graph.initializer}
    for node in graph.node:
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value":
                    tables[node.output[0]] = list(attr.t.dims)
    passthrough = {"Reshape", "Cast", "Unsqueeze", "Squeeze", "Flatten", "Identity"}
    frontier, seen = [name], set()
    while frontier:
        value = frontier.pop()
        seen.add(value)
        for node in graph.node:
            if value not in node.input:
                continue
            if node.op_type == "Gather" and len(node.input) > 1 and node.input[1] == value \
                    and tables.get(node.input[0]):
                return tables[node.input[0]][0]
            if node.op_type in passthrough and node.input[0] == value:
                frontier += [o for o in node.output if o not in seen]
    return None


def to_numpy_dtype(elem_type):
    """numpy dtype of an ONNX element type (onnx.mapping is gone from newer onnx)."""
    if hasattr(onnx.helper, "tensor_dtype_to_np_dtype"):
        return onnx.helper.tensor_dtype_to_np_dtype(elem_type)
    return onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[elem_type]


def make_inputs(graph, batch, seq, seed):
    """Random inputs for the graph's inputs (those that are not initializers), and whether
    the sequence length was used: a symbolic first dimension is the batch, a later one the
    sequence length."""
    initializers = {t.name for t in graph.initializer}
    rng = np.random.default_rng(seed)
    inputs, uses_seq = {}, False
    for value in graph.input:
        if value.name in initializers:
            continue
        tensor_type = value.type.tensor_type
        dtype = to_numpy_dtype(tensor_type.elem_type)
        shape = []
        for dim in tensor_type.shape.dim:
            if dim.HasField("dim_value"):
                shape.append(dim.dim_value)
            else:
                # A symbolic dim: dim 0 is the batch, a later one the sequence.
                shape.append(batch if not shape else seq)
                uses_seq |= bool(shape[:-1])
        if np.issubdtype(dtype, np.floating):
            array = rng.standard_normal(shape).astype(dtype)
        elif dtype == np.bool_:
            array = np.ones(shape, dtype)
        elif "mask" in value.name:
            # Attention masks by their conventional name: attend to every position.
            array = np.ones(shape, dtype)
        elif "token_type" in value.name:
            array = np.zeros(shape, dtype)  # a single segment
        else:
            vocab = vocab_size(graph, value.name) or DEFAULT_VOCAB
            array = rng.integers(0, vocab, shape).astype(dtype)
        inputs[value.name] = array
    return inputs, uses_seq


def run_ort_python(model, out_dir, inputs):
    """ONNX Runtime's Python package (CPU), in process: each output of `model` for
    `inputs` (a dict of arrays) as <name>.npy in `out_dir`."""
    import onnxruntime  # only on machines that run --reference python
    session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    for name, value in zip(names, session.run(names, inputs)):
        np.save(os.path.join(out_dir, sanitize(name) + ".npy"), value)


def sanitize(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def compare(reference, result, tolerance):
    """(relative L2 error, failure text or None) of one output."""
    if result.shape != reference.shape:
        return None, f"shape {result.shape}, expected {reference.shape}"
    if result.dtype != reference.dtype:
        return None, f"dtype {result.dtype}, expected {reference.dtype}"
    if not np.issubdtype(reference.dtype, np.floating):
        wrong = int(np.count_nonzero(result != reference))
        return 0.0 if not wrong else 1.0, f"{wrong} elements differ" if wrong else None
    if not np.all(np.isfinite(reference)):
        return None, "the reference has NaN or Inf"
    # A NaN or Inf where the reference is finite is wrong whatever the rest: its error is
    # infinite (a NaN error would compare below any tolerance and print as the best).
    finite = np.isfinite(result)
    if not np.all(finite):
        bad = int(result.size - np.count_nonzero(finite))
        return float("inf"), f"{bad} of {result.size} values are NaN or Inf (the reference's are finite)"
    ref = reference.astype(np.float64)
    error = np.linalg.norm(result.astype(np.float64) - ref) / max(np.linalg.norm(ref), 1e-30)
    if not np.isfinite(error) or error > tolerance:
        return error, f"rel L2 {error:.2e} > {tolerance:.0e}"
    return error, None


def run_timed(command, log, timeout, env=None):
    """(exit code, or "timeout"; wall seconds) of a command whose output goes to `log`."""
    start = time.time()
    with open(log, "w") as out:
        # A session of its own, so that the timeout ends whatever the command started too.
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True, env=env)
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            code = "timeout"
    return code, time.time() - start
