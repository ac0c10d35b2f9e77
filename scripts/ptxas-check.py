#!/usr/bin/env python3
"""Runs every ONNX node test model through the GPU code generation and ptxas.

For each /usr/share/libonnx-testdata/data/node/*/model.onnx:

  front   kiln compile --target cpu --compile-to=graph, then graph-to-linalg, one-shot
          bufferization and convert-linalg-to-parallel-loops (the CPU path's front half)
  map     gpu-map-loops (host compute to gpu.launch)
  lower   kiln-lower-gpu-device (outlining, NVVM)
  ptx     kiln-translate --emit-ptx (LLVM's NVPTX backend)
  ptxas   ptxas -arch=<chip> on that PTX

and prints one line per failure (case, stage, first error line), then a table. Cases
whose front half fails are not the GPU code generation's: they count separately.

  scripts/ptxas-check.py                      # all node tests, sm_90a
  scripts/ptxas-check.py --chip sm_80 softmax # cases whose name matches 'softmax'
  scripts/ptxas-check.py --front host         # input from the GPU pipeline's own kernel
                                              # formation and kiln-lower-kernels instead
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

FRONT = ("builtin.module(graph-to-linalg,canonicalize,cse,linalg-fuse-elementwise-ops,"
         "one-shot-bufferize{bufferize-function-boundaries "
         "function-boundary-type-conversion=identity-layout-map "
         "allow-return-allocs-from-loops},convert-linalg-to-parallel-loops,canonicalize)")
# The GPU pipeline's kernel formation, then its generic lowering of every kernel
# (passes/Pipelines.cpp: addKernelFormationPasses, kiln-lower-kernels).
HOST_FRONT = ("builtin.module(cse,func.func(graph-infer-symbolic-shapes),graph-to-kernel,"
              "kiln-lower-kernels)")
STAGES = ["front", "map", "lower", "ptx", "ptxas"]


def first_error(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for line in lines:
        if "error" in line.lower():
            return re.sub(r"^.*?error: ", "", line)[:200]
    return (lines[0][:200] if lines else "(no message)")


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {timeout} s"
    if p.returncode != 0:
        msg = first_error(p.stderr + p.stdout)
        if p.returncode < 0:
            msg = f"crashed (signal {-p.returncode}): " + msg
        return False, msg
    return True, ""


def check(case_dir, args, work_root):
    name = os.path.basename(case_dir)
    bindir = os.path.join(args.build, "bin")
    work = os.path.join(work_root, name)
    os.makedirs(work, exist_ok=True)
    graph = os.path.join(work, "graph.mlirbc")
    loops = os.path.join(work, "loops.mlirbc")
    mapped = os.path.join(work, "mapped.mlirbc")
    lowered = os.path.join(work, "lowered.mlir")
    ptx = os.path.join(work, "kernels.ptx")
    cubin = os.path.join(work, "kernels.cubin")
    opt = os.path.join(bindir, "kiln-opt")
    steps = [
        ("front", [os.path.join(bindir, "kiln"), "compile", os.path.join(case_dir, "model.onnx"),
                   "--target", "cpu", "--compile-to=graph", "--emit-bytecode", "--quiet",
                   "-o", graph]),
        ("front", [opt, graph, "--pass-pipeline=" + (HOST_FRONT if args.front == "host" else FRONT),
                   "--emit-bytecode", "-o", loops]),
        ("map", [opt, loops, "--pass-pipeline=builtin.module(func.func(gpu-map-loops))",
                 "--emit-bytecode", "-o", mapped]),
        ("lower", [opt, mapped, f"--kiln-lower-gpu-device=chip={args.chip}", "-o", lowered]),
        ("ptx", [os.path.join(bindir, "kiln-translate"), "--emit-ptx", lowered, "-o", ptx]),
        ("ptxas", [args.ptxas, f"-arch={args.chip}", ptx, "-o", cubin]),
    ]
    result = (name, "ok", "")
    for stage, cmd in steps:
        if stage == "ptx" and "gpu.module" not in open(lowered).read():
            break  # nothing to compute on the GPU (reshapes, views of the inputs)
        ok, msg = run(cmd, args.timeout)
        if not ok:
            result = (name, stage, msg)
            break
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return result


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pattern", nargs="?", default=".", help="regex on case names")
    parser.add_argument("--build", default=os.environ.get("KILN_BUILD_DIR",
                                                          os.path.join(root, "build")))
    parser.add_argument("--data", default="/usr/share/libonnx-testdata/data/node")
    parser.add_argument("--chip", default="sm_90a")
    parser.add_argument("--ptxas", default=os.environ.get("KILN_PTXAS") or shutil.which("ptxas")
                        or "/usr/local/cuda/bin/ptxas")
    parser.add_argument("--front", choices=["cpu", "host"], default="cpu",
                        help="cpu: the CPU path's bufferization (above); host: the GPU "
                        "pipeline's own kernel formation and kiln-lower-kernels (generic "
                        "lowering, inlining)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--keep", help="keep each case's intermediate files under this folder")
    args = parser.parse_args()

    cases = sorted(os.path.join(args.data, d) for d in os.listdir(args.data)
                   if re.search(args.pattern, d)
                   and os.path.exists(os.path.join(args.data, d, "model.onnx")))
    work_root = args.keep or tempfile.mkdtemp(prefix="kiln-ptxas-check-")
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda c: check(c, args, work_root), cases))
    if not args.keep:
        shutil.rmtree(work_root, ignore_errors=True)

    reached = {stage: 0 for stage in STAGES}
    for name, stage, msg in results:
        if stage != "ok":
            print(f"{name}\t{stage}\t{msg}")
        last = STAGES.index(stage) if stage != "ok" else len(STAGES)
        for s in STAGES[:last]:
            reached[s] += 1

    total = len(results)
    front = reached["front"]
    print()
    print(f"| stage ({args.chip}) | cases | of front-half ok |")
    print("| --- | --- | --- |")
    print(f"| node test models | {total} | |")
    for stage, label in [("front", "front half (graph, bufferize, loops)"),
                         ("map", "map (gpu-map-loops)"),
                         ("lower", "lower to NVVM (kiln-lower-gpu-device)"),
                         ("ptx", "PTX (NVPTX backend)"),
                         ("ptxas", "ptxas accepts")]:
        pct = f"{100.0 * reached[stage] / front:.1f}%" if front else "-"
        print(f"| {label} | {reached[stage]} | {pct if stage != 'front' else ''} |")

    # The CPU path's conformance expectations list the node tests that do not pass
    # there; the rest is what the GPU path should reach.
    expectations = os.path.join(root, "test", "conformance", "cpu-expectations.txt")
    suite = os.path.basename(os.path.normpath(args.data))
    if os.path.exists(expectations) and args.pattern == "." and suite == "node":
        with open(expectations) as f:
            not_on_cpu = {line.split("\t")[0][len("node/"):] for line in f
                          if line.startswith("node/")}
        on_cpu = [r for r in results if r[0] not in not_on_cpu]
        ok = sum(1 for r in on_cpu if r[1] == "ok")
        print(f"| passing on the CPU path (test/conformance) | {len(on_cpu)} | |")
        print(f"| ... of which ptxas accepts | {ok} | {100.0 * ok / max(len(on_cpu), 1):.1f}% |")
    return 0 if reached["ptxas"] == front else 1


if __name__ == "__main__":
    sys.exit(main())
