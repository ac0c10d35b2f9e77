#!/usr/bin/python3
"""Latency of the public models' engines at batch 1 on the GPU: for each materialized model
(build/models, as check-models.py leaves them), `kiln compile` with every symbolic batch
dimension 1 and sequence dimension 128 (as the peers in FACTS.md are measured), `kiln bench`
(CUDA graph replay, median of the runs) and `kiln inspect --json` (kernels, launches).
Prints a table; writes the numbers to --json.

    python3 test/models/bench-models.py [--only PATTERN] [--seq 128] [--json FILE]
"""

import argparse
import fnmatch
import json
import os
import subprocess
import sys

import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, os.environ.get("KILN_BUILD_DIR", "build"))


def shapes_for(model_path, seq):
    """trtexec-style shape list: symbolic dim 0 is the batch (1), later ones the sequence."""
    graph = onnx.load(model_path, load_external_data=False).graph
    initializers = {t.name for t in graph.initializer}
    shapes = []
    for value in graph.input:
        if value.name in initializers:
            continue
        dims = []
        for index, dim in enumerate(value.type.tensor_type.shape.dim):
            dims.append(dim.dim_value if dim.HasField("dim_value") else (1 if index == 0 else seq))
        if dims:
            shapes.append(f"{value.name}:{'x'.join(map(str, dims))}")
    return ",".join(shapes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="*")
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--kiln", default=os.path.join(BUILD, "bin", "kiln"))
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()

    models_dir = os.path.join(BUILD, "models")
    work = os.path.join(BUILD, "model-bench")
    os.makedirs(work, exist_ok=True)
    names = sorted(f[:-5] for f in os.listdir(models_dir) if f.endswith(".onnx"))
    pattern = args.only if any(c in args.only for c in "*?[") else f"*{args.only}*"
    results = []
    print(f"{'model':<26} {'shapes':<44} {'p50 ms':>8} {'p99 ms':>8} {'kernels':>7} {'launches':>8}")
    for name in (n for n in names if fnmatch.fnmatch(n, pattern)):
        model = os.path.join(models_dir, name + ".onnx")
        shapes = shapes_for(model, args.seq)
        engine = os.path.join(work, name + ".kiln")
        row = {"model": name, "shapes": shapes}
        compiled = subprocess.run([args.kiln, "compile", model, "-o", engine, "--quiet"] +
                                  (["--shapes", shapes] if shapes else []),
                                  capture_output=True, text=True)
        if compiled.returncode != 0:
            row["error"] = (compiled.stderr.strip().splitlines() or ["compile failed"])[0]
        else:
            bench_json = os.path.join(work, name + ".bench.json")
            bench = subprocess.run([args.kiln, "bench", engine, "--warmup", "20", "--iterations",
                                    "200", "--json", bench_json], capture_output=True, text=True)
            if bench.returncode != 0:
                row["error"] = (bench.stderr.strip().splitlines() or ["bench failed"])[0]
            else:
                latency = json.load(open(bench_json))["latency_ms"]
                row["p50_ms"], row["p99_ms"] = latency["p50"], latency["p99"]
            described = json.loads(subprocess.run([args.kiln, "inspect", engine, "--json"],
                                                  capture_output=True, text=True).stdout or "{}")
            row["kernels"] = len(described.get("kernels", []))
            row["launches"] = described.get("steps", {}).get("count")
        results.append(row)
        fmt = lambda key, spec: format(row[key], spec) if row.get(key) is not None else "-"
        print(f"{name:<26} {shapes[:44]:<44} {fmt('p50_ms', '8.3f'):>8} {fmt('p99_ms', '8.3f'):>8} "
              f"{fmt('kernels', 'd'):>7} {fmt('launches', 'd'):>8}  {row.get('error', '')}",
              flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
