#!/usr/bin/python3
"""Checks the object detectors of ../shared/models/detection against ONNX Runtime.

A detector's last steps select by value (TopK of its best queries, a score threshold,
NonMaxSuppression), so near-tied scores may keep other boxes or order them differently
(test/models/detections.py). Each model is compared in two parts:
  - the tensors before its first data-dependent selection, made outputs of the model:
    relative L2 error at most 1e-4 on the CPU, 1e-3 on the GPU, 2e-2 compiled --fp16;
  - its detections: the reference's top 100 by score per image, matched by class and
    IoU >= 0.9 with the result's top 100; at least 99% must match in fp32 (reported only
    under --fp16: with untrained weights the scores are near ties that f16 rounding may
    reorder).
Every output must be finite where ONNX Runtime's is. Prints one row per model and
precision, then "detection: N passed, N failed".

    /usr/bin/python3 test/models/check-detection.py [--only PATTERN] [--precision fp32,fp16]
        [--device cpu|cuda] [--reference node|python] [--batch N] [--jobs N]

Inputs are seeded uniform [0, 1) images of the model's declared shape (a dynamic batch is
--batch). With --device cuda the model is compiled into an sm_90a engine for that shape
and run with `kiln run MODEL.kiln`. Artifacts stay under build/detection-check/.
"""

import argparse
import concurrent.futures
import fnmatch
import os
import shutil
import signal
import sys
import time
import zlib

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test"))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
from detections import agreement, detections, selection_inputs, with_outputs  # noqa: E402
from kiln_run_log import crash_summary, first_error  # noqa: E402
from model_tools import compare, find_shared, materialize, run_ort_python, run_timed, \
    sanitize, to_numpy_dtype  # noqa: E402

BUILD = os.path.join(ROOT, os.environ.get("KILN_BUILD_DIR", "build"))
ORT_REFERENCE = os.path.join(ROOT, "test/models/ort-reference.js")
SELECTION_TOLERANCE = {("cpu", "fp32"): 1e-4, ("cuda", "fp32"): 1e-3,
                       ("cpu", "fp16"): 2e-2, ("cuda", "fp16"): 2e-2}
REQUIRED_AGREEMENT = 0.99
F16_LARGEST = 65504.0


def compare_saturated(reference, result, tolerance, largest):
    """compare() of model_tools, where reference values beyond `largest` (f16's 65504, or
    None) must come out saturated at it with their sign, and the others are compared by
    rel L2: graph-reduce-precision rounds constants beyond f16's range (the "invalid anchor"
    3.4e38 of DETR models) to its largest value, by rule."""
    if largest is None or reference.shape != result.shape or \
            not np.issubdtype(reference.dtype, np.floating):
        return compare(reference, result, tolerance)
    beyond = np.abs(reference) > largest
    if not beyond.any():
        return compare(reference, result, tolerance)
    unsaturated = int(np.count_nonzero(
        ~((np.abs(result[beyond]) >= largest) & (np.sign(result[beyond]) == np.sign(reference[beyond])))))
    error, failure = compare(reference[~beyond], result[~beyond], tolerance)
    if unsaturated:
        failure = "; ".join(filter(None, [failure, f"{unsaturated} values beyond f16's range "
                                                   "not saturated at it"]))
    return error, failure


def make_images(graph, batch, seed):
    """Seeded uniform [0, 1) arrays for the graph's inputs (a symbolic dim is `batch`)."""
    initializers = {t.name for t in graph.initializer}
    rng = np.random.default_rng(seed)
    inputs = {}
    for value in graph.input:
        if value.name in initializers:
            continue
        tensor_type = value.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else batch for d in tensor_type.shape.dim]
        inputs[value.name] = rng.random(shape).astype(to_numpy_dtype(tensor_type.elem_type))
    return inputs


def run_reference(model, out_dir, inputs, reference, args, timeout):
    """ONNX Runtime's outputs of `model` as <name>.npy in `out_dir`; None or the failure."""
    if reference == "python":
        run_ort_python(model, out_dir, inputs)
        return None
    log = out_dir + ".log"
    code, _ = run_timed(["node", ORT_REFERENCE, model, out_dir] + args, log, timeout)
    return None if code == 0 else f"ONNX Runtime: {first_error(open(log).read())}"


def kiln_failure(code, log_path, timeout):
    log = open(log_path, errors="replace").read()
    if code == "timeout":
        return f"timeout after {timeout} s"
    if code < 0:
        return f"CRASH ({signal.Signals(-code).name}) {crash_summary(log)}"
    return f"exit {code}: {first_error(log)}"


def check(name, model, source, precision, device, reference, batch, kiln, timeout,
          tune_budget):
    """(row fields, failure text or None) of one model at one precision."""
    work = os.path.join(BUILD, "detection-check", f"{name}-{precision}-{device}")
    shutil.rmtree(work, ignore_errors=True)
    for sub in ("inputs", "ort", "kiln"):
        os.makedirs(os.path.join(work, sub))
    row = {"selected": "-", "error": None, "agreement": "-", "kiln_s": None}

    # The model with the tensors before its first selection as extra outputs.
    graph = source.graph
    extra = selection_inputs(source)
    row["selected"] = str(len(extra))
    full = onnx.load(model)
    checked = os.path.join(work, "model.onnx")
    onnx.save(with_outputs(full, extra), checked)
    inputs = make_images(graph, batch, zlib.crc32(name.encode()))
    args = []
    for input_name, array in inputs.items():
        path = os.path.join(work, "inputs", sanitize(input_name) + ".npy")
        np.save(path, array)
        args.append(f"{input_name}={path}")

    failure = run_reference(checked, os.path.join(work, "ort"), inputs, reference, args, timeout)
    if failure:
        return row, failure

    options = [f"--{precision}"] if precision != "fp32" else []
    runnable = checked
    start = time.time()
    if device == "cuda":
        runnable = os.path.join(work, "model.kiln")
        shapes = ",".join(f"{n}:{'x'.join(map(str, a.shape))}" for n, a in inputs.items())
        log = os.path.join(work, "compile.log")
        code, _ = run_timed([kiln, "compile", checked, "-o", runnable, "--target", "sm_90a",
                             "--quiet", "--shapes", shapes] + options +
                            (["--tune-budget", str(tune_budget)] if tune_budget else []),
                            log, timeout)
        if code != 0:
            return row, f"kiln compile: {kiln_failure(code, log, timeout)}"
    command = [kiln, "run", runnable, "--device", device, "--quiet", "--output-dir",
               os.path.join(work, "kiln")] + (options if device == "cpu" else [])
    for arg in args:
        command += ["--input", arg]
    log = os.path.join(work, "kiln.log")
    code, _ = run_timed(command, log, timeout)
    row["kiln_s"] = time.time() - start
    if code != 0:
        return row, f"kiln run: {kiln_failure(code, log, timeout)}"

    load = lambda side, output: np.load(os.path.join(work, side, sanitize(output) + ".npy"))
    failures = []
    # Every output finite where the reference is.
    finals = {}
    for output in graph.output:
        ours, theirs = load("kiln", output.name), load("ort", output.name)
        finals[output.name] = (theirs, ours)
        if np.issubdtype(ours.dtype, np.floating):
            bad = int(np.count_nonzero(~np.isfinite(ours) & np.isfinite(theirs)))
            if bad:
                failures.append(f"'{output.name}': {bad} of {ours.size} values NaN or Inf")
    # The tensors before the first selection.
    tolerance = SELECTION_TOLERANCE[(device, precision)]
    worst = 0.0
    for tensor, _ in extra:
        error, failure = compare_saturated(load("ort", tensor), load("kiln", tensor), tolerance,
                                           F16_LARGEST if precision == "fp16" else None)
        if error is not None:
            worst = max(worst, error)
        if failure:
            failures.append(f"'{tensor}': {failure}")
    row["error"] = worst
    # The detections.
    try:
        matched, compared = agreement(detections({n: t for n, (t, _) in finals.items()}),
                                      detections({n: o for n, (_, o) in finals.items()}))
    except ValueError as error:
        return row, f"detections: {error}"
    fraction = matched / compared if compared else 1.0
    row["agreement"] = f"{matched}/{compared} ({100 * fraction:.1f}%)"
    if precision == "fp32" and fraction < REQUIRED_AGREEMENT:
        failures.append(f"detections agree on {100 * fraction:.1f}% < "
                        f"{100 * REQUIRED_AGREEMENT:.0f}%")
    return row, "; ".join(failures) or None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="*", metavar="PATTERN",
                        help="models whose name matches (fnmatch, or a substring)")
    parser.add_argument("--precision", default="fp32,fp16",
                        help="comma-separated: fp32, fp16 (default both)")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--reference", choices=["node", "python"], default="node",
                        help="ONNX Runtime through onnxruntime-node or its Python package")
    parser.add_argument("--batch", type=int, default=1, help="a dynamic batch's extent")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="models checked at once (default: the cores)")
    parser.add_argument("--tune-budget", type=float, default=None, metavar="SECONDS",
                        help="kiln compile's --tune-budget with --device cuda")
    parser.add_argument("--kiln", default=os.path.join(BUILD, "bin", "kiln"))
    parser.add_argument("--timeout", type=int, default=900, help="seconds per run")
    args = parser.parse_args()

    folder = os.path.join(find_shared(), "detection")
    if not os.path.isdir(folder):
        print(f"detection: no {folder}; nothing to check")
        print("detection: 0 passed, 0 failed")
        return 0
    if not os.access(args.kiln, os.X_OK):
        print(f"check-detection: error: no {args.kiln}; build first", file=sys.stderr)
        return 1
    precisions = [p for p in args.precision.split(",") if p]
    if any(p not in ("fp32", "fp16") for p in precisions):
        print(f"check-detection: error: --precision takes fp32 and fp16, not "
              f"'{args.precision}'", file=sys.stderr)
        return 2
    pattern = args.only if any(c in args.only for c in "*?[") else f"*{args.only}*"
    sources = sorted(f for f in os.listdir(folder) if f.endswith(".onnx") and
                     fnmatch.fnmatch(f[:-len(".onnx")], pattern))
    if not sources:
        print(f"check-detection: error: no model in {folder} matches '{args.only}'",
              file=sys.stderr)
        return 2

    cache = os.path.join(BUILD, "models")
    os.makedirs(cache, exist_ok=True)
    jobs = []
    for file in sources:
        source = os.path.join(folder, file)
        model, _ = materialize(os.path.dirname(folder), source, cache)
        graph_only = onnx.load(source)  # the same graph as the model's, loads fast
        for precision in precisions:
            jobs.append((file[:-len(".onnx")], model, graph_only, precision))

    print(f"{'model':<40} {'precision':>9} {'checked':>7} {'rel L2':>9} {'detections agree':>17} "
          f"{'kiln s':>7}  result", flush=True)
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(check, name, model, graph, precision, args.device, args.reference,
                               args.batch, args.kiln, args.timeout, args.tune_budget)
                   for name, model, graph, precision in jobs]
        for (name, _, _, precision), future in zip(jobs, futures):
            row, failure = future.result()
            error = f"{row['error']:9.1e}" if row["error"] is not None else f"{'-':>9}"
            seconds = f"{row['kiln_s']:7.1f}" if row["kiln_s"] is not None else f"{'-':>7}"
            print(f"{name:<40} {precision:>9} {row['selected']:>7} {error} "
                  f"{row['agreement']:>17} {seconds}  {'ok' if not failure else 'FAIL: ' + failure}",
                  flush=True)
            passed += failure is None
            failed += failure is not None
    print(f"detection: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
