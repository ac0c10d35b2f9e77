#!/usr/bin/python3
"""Checks `kiln run --device cpu` on the real models of ../shared/models against ONNX Runtime.

For each model: materialize its weights (cached in build/models, as scripts/import-models.sh
does), generate seeded random inputs from the graph's declared inputs, run ONNX Runtime
(test/models/ort-reference.js) and `kiln run`, and compare every output by relative L2 error
||kiln - ort||_2 / ||ort||_2 (at most 1e-4 for floating-point outputs; integer and boolean
outputs must be equal). Prints one table row per model and a final line
"models: N passed, N failed"; exits non-zero on any failure.

    /usr/bin/python3 test/models/check-models.py [--only PATTERN] [--kiln PATH] [--timeout S]
        [--jobs N]

On the GPU machine (scripts/gpu-check.sh), `--device cuda --reference python` compiles each
model into an engine (`kiln compile`), runs it (`kiln run MODEL.kiln`), compares with
ONNX Runtime's Python package (rel L2 at most 1e-3: TF32 is off, but the GPU sums in
another order), and adds each engine's latency (`kiln bench`, median) and kernel count
(`kiln inspect --json`) to the table.

`--device ptxas` (CI without a GPU) only compiles each engine for sm_90a and checks that
ptxas assembled every kernel module; with `--detectors` it does so for the object
detectors of ../shared/models/detection.

Artifacts (inputs, both outputs, logs) stay under build/model-check/<model>/.
Environment: KILN_BUILD_DIR (default build), KILN_SHARED (the folder holding models/;
default: the nearest shared/ beside the checkout or one of its parents).
"""

import argparse
import concurrent.futures
import fnmatch
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zlib

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test"))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
from kiln_run_log import UNSUPPORTED, crash_summary, first_error  # noqa: E402
from model_tools import compare, find_shared, make_inputs, materialize, run_ort_python, \
    run_timed, sanitize  # noqa: E402
BUILD = os.path.join(ROOT, os.environ.get("KILN_BUILD_DIR", "build"))
ORT_REFERENCE = os.path.join(ROOT, "test/models/ort-reference.js")
ORT_PACKAGE = os.path.join(ROOT, "third_party/ort/node_modules/onnxruntime-node/package.json")
REL_L2_TOLERANCE = {"cpu": 1e-4, "cuda": 1e-3}
# Compiled --fp16 or --bf16 (graph-reduce-precision), against ONNX Runtime in fp32: bf16
# rounds 8 times coarser than f16 (unit roundoff 2^-8 against 2^-11).
REDUCED_PRECISION_TOLERANCE = {"fp16": 1e-2, "bf16": 8e-2}

# Batch and sequence length per model (file name without .onnx; fnmatch patterns, first
# match wins). The dynamo exports were traced with batch 2 and may have specialized batch 1
# away, so they run with 2; the legacy exports run with batch 1 to cover that case too.
# Sequences stay short: the point is numerics, not speed.
SIZES = [
    ("*.dynamo", 2, 16),
    ("*", 1, 32),
]
def reference_key(model, inputs, reference):
    """What ONNX Runtime's outputs depend on, hashed."""
    digest = hashlib.sha256()
    digest.update(reference.encode())
    stat = os.stat(model)
    digest.update(f"{os.path.abspath(model)} {stat.st_size} {stat.st_mtime_ns}".encode())
    for name, array in inputs.items():
        digest.update(f"{name} {array.dtype} {array.shape}".encode())
        digest.update(array.tobytes())
    for path in (ORT_REFERENCE, ORT_PACKAGE) if reference == "node" else ():
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def compile_command(kiln, model, engine, inputs, options):
    """`kiln compile` of `model` into `engine` for sm_90a, for the shapes of `inputs`, with
    the compile `options` (--channels-last, --fp16, ...)."""
    shapes = ",".join(f"{n}:{'x'.join(str(d) for d in a.shape) or '1'}"
                      for n, a in inputs.items() if a.ndim)
    return [kiln, "compile", model, "-o", engine, "--target", "sm_90a", "--quiet"] + \
        (["--shapes", shapes] if shapes else []) + options


def check_model(name, model, source_graph, kiln, timeout, use_cache, device, reference, gpu,
                channels_last=False, precision="fp32", tune_budget=None, tensor_cores=False):
    """Returns (size text, rel L2, kiln s, ort s or None when cached, failure text or None);
    with --device cuda, fills `gpu` with the engine's latency and kernel count."""
    batch, seq = next((b, s) for pattern, b, s in SIZES if fnmatch.fnmatch(name, pattern))
    work = os.path.join(BUILD, "model-check", name)
    inputs, uses_seq = make_inputs(source_graph, batch, seq, zlib.crc32(name.encode()))
    size = f"{batch}x{seq}" if uses_seq else f"{batch}"

    # ONNX Runtime's outputs are reused while the model, the inputs and the reference
    # (script and package) are the same: most of its time goes into loading the model.
    key = reference_key(model, inputs, reference)
    key_file = os.path.join(work, "ort", "key.txt")
    cached = use_cache and os.path.exists(key_file) and open(key_file).read() == key
    for sub in ("inputs", "kiln") if cached else ("inputs", "ort", "kiln"):
        shutil.rmtree(os.path.join(work, sub), ignore_errors=True)
        os.makedirs(os.path.join(work, sub))

    args = []
    for index, (input_name, array) in enumerate(inputs.items()):
        path = os.path.join(work, "inputs", f"{index}_{sanitize(input_name)}.npy")
        np.save(path, array)
        args.append(f"{input_name}={path}")

    ort_s = None
    if not cached and device != "ptxas":
        ort_log = os.path.join(work, "ort.log")
        if reference == "python":
            start = time.time()
            try:
                run_ort_python(model, os.path.join(work, "ort"), inputs)
            except Exception as error:  # noqa: BLE001 - any failure is the reference's
                return size, None, None, None, f"ONNX Runtime failed: {error}"
            ort_s = time.time() - start
        else:
            code, ort_s = run_timed(["node", ORT_REFERENCE, model, os.path.join(work, "ort")]
                                    + args, ort_log, timeout)
            if code != 0:
                return size, None, None, ort_s, \
                    f"ONNX Runtime failed: {first_error(open(ort_log).read())}"
        with open(key_file, "w") as f:
            f.write(key)

    kiln_log = os.path.join(work, "kiln.log")
    runnable = model
    options = (["--channels-last"] if channels_last else []) + \
        ([f"--{precision}"] if precision != "fp32" else [])
    compile_options = options + \
        (["--tune-budget", str(tune_budget)] if tune_budget is not None else []) + \
        (["--report"] if tensor_cores else [])
    if device == "ptxas":
        # CI without a GPU: the engine must compile, and ptxas must assemble every module.
        runnable = os.path.join(work, "model.kiln")
        code, compile_s = run_timed(compile_command(kiln, model, runnable, inputs, compile_options), kiln_log,
                                    timeout)
        if code != 0:
            return size, None, compile_s, None, \
                f"kiln compile: exit {code}: {first_error(open(kiln_log, errors='replace').read())}"
        described = subprocess.run([kiln, "inspect", runnable, "--json"], capture_output=True,
                                   text=True)
        modules = json.loads(described.stdout).get("modules", []) if described.returncode == 0 else []
        missing = [m["name"] for m in modules if not m.get("cubin_bytes")]
        if not modules or missing:
            return size, None, compile_s, None, \
                f"no cubin for {', '.join(missing) or 'any module'} (is ptxas installed?)"
        gpu["kernels"] = len(json.loads(described.stdout).get("kernels", []))
        if tensor_cores:
            # `kiln compile --report` ends with the contractions the generic lowering
            # computes, each with its reason.
            report = open(kiln_log, errors="replace").read()
            found = re.search(r"contractions off the tensor cores: (\d+)\n((?:  .*\n?)*)", report)
            if not found:
                return size, None, compile_s, None, "kiln compile --report printed no count"
            if int(found.group(1)):
                reasons = "; ".join(line.strip() for line in found.group(2).splitlines())
                return size, None, compile_s, None, \
                    f"{found.group(1)} contractions off the tensor cores: {reasons}"
        return size, None, compile_s, None, None
    if device == "cuda":
        # Compile once (the shapes of these inputs), then run, bench and inspect the engine.
        runnable = os.path.join(work, "model.kiln")
        code, compile_s = run_timed(compile_command(kiln, model, runnable, inputs, compile_options),
                                    os.path.join(work, "compile.log"), timeout)
        gpu["compile_s"] = compile_s
        if code != 0:
            log = open(os.path.join(work, "compile.log"), errors="replace").read()
            return size, None, compile_s, ort_s, f"kiln compile: exit {code}: {first_error(log)}"
    command = [kiln, "run", runnable, "--device", device, "--output-dir",
               os.path.join(work, "kiln"), "--quiet"]
    for arg in args:
        command += ["--input", arg]
    if device == "cpu":
        command += options
    code, kiln_s = run_timed(command, kiln_log, timeout)
    if code == 0 and device == "cuda":
        bench_json = os.path.join(work, "bench.json")
        bench_code, _ = run_timed([kiln, "bench", runnable, "--warmup", "20", "--iterations",
                                   "200", "--json", bench_json],
                                  os.path.join(work, "bench.log"), timeout)
        if bench_code == 0:
            with open(bench_json) as f:
                gpu["latency_ms"] = json.load(f)["latency_ms"]["p50"]
        inspect_json = os.path.join(work, "inspect.json")
        with open(inspect_json, "w") as f:
            if subprocess.run([kiln, "inspect", runnable, "--json"], stdout=f).returncode == 0:
                with open(inspect_json) as g:
                    description = json.load(g)
                gpu["kernels"] = len(description.get("kernels", []))
                gpu["launches"] = description.get("steps", {}).get("count")
    if code != 0:
        log = open(kiln_log, errors="replace").read()
        if code == "timeout":
            what = f"timeout after {timeout} s"
        elif code < 0:
            what = f"CRASH ({signal.Signals(-code).name}) {crash_summary(log)}"
        elif code == 3:
            what = f"unsupported: {first_error(log, UNSUPPORTED)}"
        else:
            what = f"exit {code}: {first_error(log)}"
        return size, None, kiln_s, ort_s, f"kiln run: {what}"

    worst, failures = 0.0, []
    for output in source_graph.output:
        file = sanitize(output.name) + ".npy"
        kiln_file = os.path.join(work, "kiln", file)
        if not os.path.exists(kiln_file):
            failures.append(f"'{output.name}': kiln wrote no {file}")
            continue
        tolerance = REL_L2_TOLERANCE[device] if precision == "fp32" else \
            REDUCED_PRECISION_TOLERANCE[precision]
        error, failure = compare(np.load(os.path.join(work, "ort", file)), np.load(kiln_file),
                                 tolerance)
        if error is not None:
            worst = max(worst, error)
        if failure:
            failures.append(f"'{output.name}': {failure}")
    return size, worst, kiln_s, ort_s, "; ".join(failures) or None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="*", metavar="PATTERN",
                        help="models whose name matches (fnmatch, or a substring)")
    parser.add_argument("--kiln", default=os.path.join(BUILD, "bin", "kiln"))
    parser.add_argument("--timeout", type=int, default=600, help="seconds per run (default 600)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="models checked at once (default: the CPU count for --device cpu "
                             "and ptxas; 1 for cuda, whose latencies want the GPU alone)")
    parser.add_argument("--no-cache", action="store_true",
                        help="run ONNX Runtime even when its outputs for these inputs are there")
    parser.add_argument("--device", choices=["cpu", "cuda", "ptxas"], default="cpu",
                        help="where kiln runs the models (cuda: compile an engine, run, bench; "
                             "ptxas: only compile engines for sm_90a and check that ptxas "
                             "assembled every kernel module, for CI without a GPU)")
    parser.add_argument("--reference", choices=["node", "python"], default="node",
                        help="ONNX Runtime through onnxruntime-node (third_party/ort) or the "
                             "onnxruntime Python package")
    parser.add_argument("--channels-last", action="store_true",
                        help="run graph-convert-layout too (kiln run and kiln compile "
                             "--channels-last: the layout the tensor-core convolutions read)")
    parser.add_argument("--tune-budget", type=float, default=None, metavar="SECONDS",
                        help="kiln compile's --tune-budget on the GPU (default: kiln's)")
    parser.add_argument("--tensor-cores", action="store_true",
                        help="with --device ptxas: fail a model whose `kiln compile --report` "
                             "lists a contraction off the tensor cores")
    parser.add_argument("--precision", choices=["fp32", "fp16", "bf16"], default="fp32",
                        help="compile and run --fp16 or --bf16 (graph-reduce-precision); "
                             "; outputs then within rel L2 1e-2 (fp16) or 8e-2 (bf16) of "
                             "ONNX Runtime's fp32 ones")
    parser.add_argument("--detectors", action="store_true",
                        help="the object detectors of ../shared/models/detection instead "
                             "(with --device ptxas only: that their engines compile; their "
                             "numerics are test/models/check-detection.py's)")
    args = parser.parse_args()
    if args.detectors and args.device != "ptxas":
        print("check-models: error: --detectors needs --device ptxas (check-detection.py "
              "checks the detectors' outputs)", file=sys.stderr)
        return 2

    shared = find_shared()
    if not os.path.isdir(shared):
        print(f"models: no {shared}; nothing to check")
        print("models: 0 passed, 0 failed")
        return 0
    if not os.access(args.kiln, os.X_OK):
        print(f"check-models: error: no {args.kiln}; build first", file=sys.stderr)
        return 1
    if args.device == "ptxas" and not shutil.which("ptxas") and \
            not os.access("/usr/local/cuda/bin/ptxas", os.X_OK):
        print("models: skipped: no ptxas (CUDA toolkit) on this machine")
        print("models: 0 passed, 0 failed")
        return 0
    if args.reference == "node" and args.device != "ptxas" and not os.path.exists(ORT_PACKAGE):
        print("check-models: error: no onnxruntime-node in third_party/ort; run scripts/setup.sh",
              file=sys.stderr)
        return 1
    cache = os.path.join(BUILD, "models")
    os.makedirs(cache, exist_ok=True)

    folder = os.path.join(shared, "detection") if args.detectors else shared
    sources = sorted(f for f in os.listdir(folder) if f.endswith(".onnx"))
    pattern = args.only if any(c in args.only for c in "*?[") else f"*{args.only}*"
    sources = [f for f in sources if fnmatch.fnmatch(f[:-len(".onnx")], pattern)]
    if not sources:
        print(f"check-models: error: no model in {shared} matches '{args.only}'", file=sys.stderr)
        return 2

    started = time.time()
    passed = failed = 0
    header = f"{'model':<30} {'batch x seq':>11} {'rel L2':>9} {'kiln s':>7} {'ort s':>6}"
    if args.device == "cuda":
        header += f" {'compile s':>9} {'p50 ms':>9} {'kernels':>7}"
    elif args.device == "ptxas":
        header += f" {'kernels':>7}"
    header += "  result"
    print(header)
    # Materialized one after another (they share the cache), then checked `jobs` at a time;
    # the rows print in order as each model's check ends.
    checks = []
    for file in sources:
        name = file[:-len(".onnx")]
        source = os.path.join(folder, file)
        try:
            model, materialize_s = materialize(shared, source, cache)
        except subprocess.CalledProcessError:
            checks.append((name, None, None))
            continue
        if materialize_s:
            print(f"  (materialized {file} in {materialize_s:.1f} s)", flush=True)
        graph = onnx.load(source).graph  # the graph-only file: same graph, loads fast
        checks.append((name, model, graph))

    def check(name, model, graph):
        gpu = {}
        return check_model(name, model, graph, args.kiln, args.timeout, not args.no_cache,
                           args.device, args.reference, gpu, args.channels_last,
                           args.precision, args.tune_budget, args.tensor_cores) + (gpu,)

    jobs = args.jobs or (1 if args.device == "cuda" else os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(check, name, model, graph) if model else None
                   for name, model, graph in checks]
        for (name, _, _), future in zip(checks, futures):
            if future is None:
                print(f"{name:<30} {'':>11} {'':>9} {'':>7} {'':>6}  FAIL: materialize.py failed")
                failed += 1
                continue
            size, error, kiln_s, ort_s, failure, gpu = future.result()
            fmt = lambda v, spec: format(v, spec) if v is not None else "-"
            result = "ok" if failure is None else f"FAIL: {failure}"
            ort_text = "cached" if ort_s is None else f"{ort_s:6.2f}"
            gpu_text = ""
            if args.device == "ptxas":
                gpu_text = f"{fmt(gpu.get('kernels'), 'd'):>7} "
            elif args.device == "cuda":
                gpu_text = (f"{fmt(gpu.get('compile_s'), '9.1f'):>9} "
                            f"{fmt(gpu.get('latency_ms'), '9.3f'):>9} "
                            f"{fmt(gpu.get('kernels'), 'd'):>7} ")
            print(f"{name:<30} {size:>11} {fmt(error, '9.1e'):>9} {fmt(kiln_s, '7.2f'):>7} "
                  f"{ort_text:>6} {gpu_text} {result}", flush=True)
            if failure is None:
                passed += 1
            else:
                failed += 1
    print(f"total {time.time() - started:.1f} s; artifacts in "
          f"{os.path.relpath(os.path.join(BUILD, 'model-check'), ROOT)}/")
    print(f"models: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
