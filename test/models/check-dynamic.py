#!/usr/bin/python3
"""Checks dynamic-shape compilation on real models: each model is compiled once for an
optimization profile (`kiln run --min-shapes/--opt-shapes/--max-shapes`: its batch and
sequence dimensions stay dynamic) and run at five shapes inside it (one `kiln run`, a
`--inputs-dir` per shape), each compared with ONNX
Runtime by relative L2 error (1e-4 on the CPU, 1e-3 on the GPU; 1e-2 for --fp16, whose
engines run the tensor-core templates with run-time sizes); then a shape outside the
profile must be refused, naming the input, the dimension and the range, before anything
runs. Prints one row per model and shape and a final line "dynamic-models: N passed, N
failed"; exits non-zero on any failure.

    /usr/bin/python3 test/models/check-dynamic.py [--only PATTERN] [--device cpu|cuda]
                                                   [--reference node|python] [--fp16]
                                                   [--channels-last]

Profiles (docs/dynamic-shapes.md, issue 10): transformers batch 1-64 x sequence 16-512
(opt 8x128), image models batch 1-256 (opt 32). The CPU checks small shapes (CI); the GPU
the issue's (up to the max shape). Artifacts stay under build/dynamic-check/<model>/.
"""

import argparse
import fnmatch
import os
import shutil
import sys
import zlib

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
from model_tools import compare, dynamic_dims, find_shared, make_inputs, materialize, \
    run_ort_python, run_timed, sanitize  # noqa: E402
BUILD = os.path.join(ROOT, os.environ.get("KILN_BUILD_DIR", "build"))
ORT_REFERENCE = os.path.join(ROOT, "test/models/ort-reference.js")
TOLERANCE = {"cpu": 1e-4, "cuda": 1e-3}
FP16_TOLERANCE = 1e-2  # check-models.py's for --fp16 against ONNX Runtime in fp32
DEFAULT_MODELS = "bert_base.legacy17,gpt2.dynamo,resnet50.legacy17"

# (batch, sequence) shapes per device: in the profile, the ends and odd sizes included.
SEQUENCE_SHAPES = {"cpu": [(1, 16), (2, 33), (3, 64), (1, 128), (2, 201)],
                   "cuda": [(1, 16), (2, 33), (8, 128), (5, 300), (64, 512)]}
BATCH_SHAPES = {"cpu": [1, 2, 3, 4, 5], "cuda": [1, 3, 32, 100, 256]}


def profile_flags(dims, uses_sequence):
    """--min/--opt/--max-shapes for the profile of the model's kind."""
    ranges = {"batch": (1, 8, 64), "sequence": (16, 128, 512)} if uses_sequence else \
        {"batch": (1, 32, 256)}
    flags = []
    for which, flag in enumerate(["--min-shapes", "--opt-shapes", "--max-shapes"]):
        entries = []
        for name, shape in dims.items():
            extents = [str(ranges[d][which]) if isinstance(d, str) else str(d) for d in shape]
            entries.append(f"{name}:{'x'.join(extents)}")
        flags += [flag, ",".join(entries)]
    return flags


def reference_outputs(model, work, inputs, reference, timeout):
    """ONNX Runtime's outputs for `inputs` (saved in `work`/inputs) into `work`/ort."""
    out = os.path.join(work, "ort")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    if reference == "python":
        run_ort_python(model, out, inputs)
        return None
    args = [f"{name}={os.path.join(work, 'inputs', sanitize(name) + '.npy')}" for name in inputs]
    code, _ = run_timed(["node", ORT_REFERENCE, model, out] + args, os.path.join(work, "ort.log"),
                        timeout)
    return None if code == 0 else f"ONNX Runtime failed (exit {code})"


def check_shapes(kiln, name, model, graph, flags, shapes, device, reference, timeout,
                 tolerance):
    """One compilation for the profile, run at every shape (one `kiln run` with a folder
    of inputs per shape); a (rel L2 or None, failure or None) per shape."""
    work = os.path.join(BUILD, "dynamic-check", name)
    shutil.rmtree(work, ignore_errors=True)
    folders, problems = [], []
    for index, shape in enumerate(shapes):
        batch, sequence = shape if isinstance(shape, tuple) else (shape, 1)
        folder = os.path.join(work, str(index))
        os.makedirs(os.path.join(folder, "inputs"))
        inputs, _ = make_inputs(graph, batch, sequence, zlib.crc32(f"{name}{shape}".encode()))
        for input_name, array in inputs.items():
            np.save(os.path.join(folder, "inputs", sanitize(input_name) + ".npy"), array)
        folders.append(os.path.join(folder, "inputs"))
        problems.append(reference_outputs(model, folder, inputs, reference, timeout))
    out = os.path.join(work, "kiln")
    log = os.path.join(work, "kiln.log")
    command = [kiln, "run", model, "--device", device, "--output-dir", out, "--quiet"] + flags
    for folder in folders:
        command += ["--inputs-dir", folder]
    code, seconds = run_timed(command, log, timeout)
    if code != 0:
        lines = [line for line in open(log, errors="replace").read().splitlines() if line.strip()]
        failure = f"kiln run: exit {code}: {lines[-1] if lines else ''}"
        return [(None, failure)] * len(shapes), seconds
    results = []
    for index, problem in enumerate(problems):
        if problem:
            results.append((None, problem))
            continue
        worst, failures = 0.0, []
        for output in graph.output:
            file = sanitize(output.name) + ".npy"
            produced = os.path.join(out, str(index), file)
            if not os.path.exists(produced):
                failures.append(f"'{output.name}': no output")
                continue
            error, failure = compare(np.load(os.path.join(work, str(index), "ort", file)),
                                     np.load(produced), tolerance)
            worst = max(worst, error or 0.0)
            if failure:
                failures.append(f"'{output.name}': {failure}")
        results.append((worst, "; ".join(failures) or None))
    return results, seconds


def check_refusal(kiln, name, model, graph, flags, uses_sequence, device, timeout):
    """A shape past the profile's max: refused (exit 2) with input, dimension and range."""
    work = os.path.join(BUILD, "dynamic-check", name)
    os.makedirs(os.path.join(work, "inputs"), exist_ok=True)
    inputs, _ = make_inputs(graph, 1, 513, 1) if uses_sequence else make_inputs(graph, 257, 1, 1)
    args = []
    for input_name, array in inputs.items():
        path = os.path.join(work, "inputs", sanitize(input_name) + ".npy")
        np.save(path, array)
        args += ["--input", f"{input_name}={path}"]
    log = os.path.join(work, "refusal.log")
    code, _ = run_timed([kiln, "run", model, "--device", device, "--quiet"] + flags + args, log,
                        timeout)
    text = open(log, errors="replace").read()
    expected = "is 513; the profile allows 16 to 512" if uses_sequence else \
        "is 257; the profile allows 1 to 256"
    if code == 2 and expected in text:
        return None
    return f"expected exit 2 and '{expected}', got exit {code}: {text.strip()[-200:]}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=DEFAULT_MODELS,
                        help="comma-separated model names or fnmatch patterns (default: the "
                             "issue's BERT-base, GPT-2 and ResNet-50)")
    parser.add_argument("--kiln", default=os.path.join(BUILD, "bin", "kiln"))
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--reference", choices=["node", "python"], default="node")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per run")
    parser.add_argument("--fp16", action="store_true",
                        help="compile with --fp16 (outputs within rel L2 1e-2)")
    parser.add_argument("--channels-last", action="store_true",
                        help="compile with --channels-last too (the layout the tensor-core "
                             "convolutions read)")
    args = parser.parse_args()

    shared = find_shared()
    if not os.path.isdir(shared):
        print(f"dynamic-models: no {shared}; nothing to check")
        return 0
    patterns = args.only.split(",")
    sources = sorted(f for f in os.listdir(shared) if f.endswith(".onnx") and
                     any(fnmatch.fnmatch(f[:-5], p) for p in patterns))
    cache = os.path.join(BUILD, "models")
    os.makedirs(cache, exist_ok=True)
    passed = failed = 0
    print(f"{'model':<22} {'shape':>8} {'rel L2':>9}  verdict")
    for file in sources:
        name = file[:-5]
        model, _ = materialize(shared, os.path.join(shared, file), cache)
        graph = onnx.load(os.path.join(shared, file), load_external_data=False).graph
        dims = dynamic_dims(graph)
        uses_sequence = any("sequence" in shape for shape in dims.values())
        if not any(isinstance(d, str) for shape in dims.values() for d in shape):
            continue  # a static model: nothing dynamic to check
        flags = profile_flags(dims, uses_sequence) + (["--fp16"] if args.fp16 else []) + \
            (["--channels-last"] if args.channels_last else [])
        shapes = SEQUENCE_SHAPES[args.device] if uses_sequence else BATCH_SHAPES[args.device]
        results, seconds = check_shapes(args.kiln, name, model, graph, flags, shapes,
                                        args.device, args.reference, args.timeout,
                                        FP16_TOLERANCE if args.fp16 else TOLERANCE[args.device])
        print(f"  ({name}: one compilation for the profile, {len(shapes)} runs: {seconds:.0f} s)")
        for shape, (error, failure) in zip(shapes, results):
            text = "x".join(map(str, shape)) if isinstance(shape, tuple) else str(shape)
            shown = f"{error:.1e}" if error is not None else "-"
            print(f"{name:<22} {text:>8} {shown:>9}  {'ok' if not failure else 'FAIL: ' + failure}",
                  flush=True)
            passed, failed = (passed + 1, failed) if not failure else (passed, failed + 1)
        failure = check_refusal(args.kiln, name, model, graph, flags, uses_sequence, args.device,
                                args.timeout)
        print(f"{name:<22} {'outside':>8} {'':>9}  {'refused' if not failure else 'FAIL: ' + failure}",
              flush=True)
        passed, failed = (passed + 1, failed) if not failure else (passed, failed + 1)
    print(f"dynamic-models: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
