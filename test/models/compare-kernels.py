#!/usr/bin/python3
"""Snapshots and compares what the GPU compiler builds for the public models: for each model
and setting, the kernels of `kiln compile --target sm_90a` as `kiln inspect --json` lists
them (name, template, configuration, fused source nodes, launches) and the step counts.

A compiler change that must not change the engines (a restructure) is checked by a snapshot
before and one after:

    /usr/bin/python3 test/models/compare-kernels.py snapshot before.json   # on the old build
    /usr/bin/python3 test/models/compare-kernels.py snapshot after.json    # on the new build
    /usr/bin/python3 test/models/compare-kernels.py diff before.json after.json

Settings: fp16 at batch 8 (image models channels last) and fp32 at batch 1; sequences of
128 tokens. Tuning is off (`--tune-budget 0 --no-timing-cache`: the cost model decides, the
same way on every machine) and ptxas is not run (KILN_PTXAS=""): the kernels are the point.
A model that does not compile is recorded with its first error, so a change in that is a
difference too. `diff` prints one line per model and setting and exits non-zero when any
differs. Environment: KILN_BUILD_DIR (default build), KILN_SHARED (as check-models.py).
"""

import argparse
import fnmatch
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test"))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
from kiln_run_log import first_error  # noqa: E402
from model_tools import find_shared, make_inputs, materialize  # noqa: E402

BUILD = os.path.join(ROOT, os.environ.get("KILN_BUILD_DIR", "build"))
SEQUENCE = 128
# (setting name, batch, compile options; image models add --channels-last to fp16).
SETTINGS = [
    ("fp16-b8", 8, ["--fp16"]),
    ("fp32-b1", 1, []),
]
KERNEL_FIELDS = ("name", "module", "template", "config", "source_nodes", "launches")


def public_models(shared):
    models = sorted(glob.glob(os.path.join(shared, "*.onnx")))
    models += sorted(glob.glob(os.path.join(shared, "detection", "*.onnx")))
    return models


def is_image_model(graph):
    """A model whose first input is an image batch [N, C, H, W]."""
    initializers = {t.name for t in graph.initializer}
    inputs = [v for v in graph.input if v.name not in initializers]
    return bool(inputs) and len(inputs[0].type.tensor_type.shape.dim) == 4


def snapshot_one(kiln, model, graph, batch, options, work, timeout):
    inputs, _ = make_inputs(graph, batch, SEQUENCE, seed=0)
    shapes = ",".join(f"{n}:{'x'.join(str(d) for d in a.shape)}"
                      for n, a in inputs.items() if a.ndim)
    engine = os.path.join(work, "model.kiln")
    command = [kiln, "compile", model, "-o", engine, "--target", "sm_90a", "--quiet",
               "--tune-budget", "0", "--no-timing-cache"] + options
    if shapes:
        command += ["--shapes", shapes]
    environment = dict(os.environ, KILN_PTXAS="")
    try:
        compiled = subprocess.run(command, capture_output=True, text=True, env=environment,
                                  timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout} s"}
    if compiled.returncode != 0:
        return {"error": f"exit {compiled.returncode}: {first_error(compiled.stderr)}"}
    described = subprocess.run([kiln, "inspect", engine, "--json"], capture_output=True,
                               text=True)
    if described.returncode != 0:
        return {"error": f"kiln inspect: exit {described.returncode}"}
    engine_json = json.loads(described.stdout)
    kernels = [{field: kernel.get(field) for field in KERNEL_FIELDS}
               for kernel in engine_json.get("kernels", [])]
    return {"kernels": kernels, "steps": engine_json.get("steps", {})}


def snapshot(args):
    kiln = os.path.join(BUILD, "bin", "kiln")
    shared = find_shared()
    cache = os.path.join(BUILD, "models")
    os.makedirs(cache, exist_ok=True)
    result = {}
    for source in public_models(shared):
        name = os.path.relpath(source, shared)[:-len(".onnx")]
        if args.only and not fnmatch.fnmatch(name, args.only):
            continue
        model, _ = materialize(shared, source, cache)
        graph = onnx.load(model, load_external_data=False).graph
        for setting, batch, options in SETTINGS:
            if setting == "fp16-b8" and is_image_model(graph):
                options = options + ["--channels-last"]
            start = time.time()
            with tempfile.TemporaryDirectory() as work:
                entry = snapshot_one(kiln, model, graph, batch, options, work, args.timeout)
            key = f"{name} {setting}"
            result[key] = entry
            what = entry.get("error") or f"{len(entry['kernels'])} kernels"
            print(f"{key:<48} {what} ({time.time() - start:.0f} s)", flush=True)
    with open(args.output, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)


def describe_difference(before, after):
    if "error" in before or "error" in after:
        if before.get("error") == after.get("error"):
            return None
        return f"{before.get('error', 'compiles')} -> {after.get('error', 'compiles')}"
    if before["steps"] != after["steps"]:
        return f"steps {before['steps']} -> {after['steps']}"
    old, new = before["kernels"], after["kernels"]
    if len(old) != len(new):
        return f"{len(old)} kernels -> {len(new)}"
    for a, b in zip(old, new):
        for field in KERNEL_FIELDS:
            if a[field] != b[field]:
                return f"kernel {a['name']}: {field} {a[field]!r} -> {b[field]!r}"
    return None


def diff(args):
    with open(args.before) as f:
        before = json.load(f)
    with open(args.after) as f:
        after = json.load(f)
    same = different = 0
    for key in sorted(set(before) | set(after)):
        if key not in before or key not in after:
            print(f"{key:<48} only in {'after' if key in after else 'before'}")
            different += 1
            continue
        problem = describe_difference(before[key], after[key])
        entry = after[key]
        summary = entry.get("error") or f"{len(entry['kernels'])} kernels, " \
            f"{entry['steps'].get('launches')} launches"
        if problem:
            print(f"{key:<48} DIFFERENT: {problem}")
            different += 1
        else:
            print(f"{key:<48} same ({summary})")
            same += 1
    print(f"compare-kernels: {same} same, {different} different")
    return 1 if different else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    take = commands.add_parser("snapshot", help="compile every public model and record its kernels")
    take.add_argument("output")
    take.add_argument("--only", help="fnmatch pattern of model names (e.g. 'resnet50*')")
    take.add_argument("--timeout", type=int, default=1200, help="seconds a compile may take")
    compare = commands.add_parser("diff", help="compare two snapshots")
    compare.add_argument("before")
    compare.add_argument("after")
    args = parser.parse_args()
    if args.command == "snapshot":
        snapshot(args)
        return 0
    return diff(args)


if __name__ == "__main__":
    sys.exit(main())
