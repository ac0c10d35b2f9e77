#!/usr/bin/env python3
"""Dynamic engines against static ones (issue 10's speed lines): for each model, one
engine compiled for an optimization profile and one static engine per measured shape, all
timed on the same GPU in the same run.

Profiles (as test/models/check-dynamic.py's): text models batch 1-64 x sequence 16-512
(opt 8x128), measured at 1x16, 8x128 and 32x256; image models batch 1-256 (opt 32),
measured at 1, 32 and 128. fp16; image models channels-last (the layout the tensor-core
convolutions read). A dynamic engine tunes its kernels at the opt shape and again at the
min and max shapes (row variants), so it gets twice a static engine's tuning budget.

For each model, on one GPU: `kiln compile` the dynamic engine, then per shape `kiln
compile` the static engine, `kiln bench` both (CUDA graph replay; the dynamic one with
--shapes) and record the p50 latencies and their ratio against the issue's bound (1.10 at
the opt shape, 1.25 elsewhere). Models run in parallel on several GPUs; with fewer GPUs than
models, a model waits for a GPU. Writes OUT/dynamic.json after each shape; bench/report.py
--dynamic adds its table to docs/benchmarks.md.

A step (compile or bench) does not start after --deadline seconds and is stopped there, its
shape left unmeasured; --resume FILE keeps the measured shapes of an earlier dynamic.json
and measures only the others, so that a device call too short for every model can be
continued by the next one (bench/run.sh --dynamic --continue).

    python3 bench/dynamic.py --kiln build/bin/kiln --out /tmp/dynamic [--models gpt2]
        [--dynamic-budget 120] [--static-budget 60] [--deadline 540] [--resume FILE]
"""

import argparse
import concurrent.futures
import json
import os
import queue
import subprocess
import sys
import threading
import time

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "test"))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
from kiln_run_log import first_error  # noqa: E402
from model_tools import dynamic_dims, find_shared, materialize, run_timed  # noqa: E402
from models import BY_NAME  # noqa: E402

# (min, opt, max) and the measured shapes, as (batch, sequence) or batch.
TEXT_PROFILE = ((1, 16), (8, 128), (64, 512))
TEXT_SHAPES = [(1, 16), (8, 128), (32, 256)]
VISION_PROFILE = (1, 32, 256)
VISION_SHAPES = [1, 32, 128]
OPT_BOUND, OTHER_BOUND = 1.10, 1.25
DEFAULT_MODELS = "bert_base,gpt2,resnet50"
STARTED = time.time()


class DeadlineReached(Exception):
    """A step that the deadline kept from starting or stopped."""


def input_dims(path):
    """Each input's dimensions: 'batch', 'sequence' or a static extent (dynamic_dims)."""
    return dynamic_dims(onnx.load(path, load_external_data=False).graph)


def shapes_flag(dims, shape):
    """`name:AxB,...` of every input at `shape` ((batch, sequence) or batch)."""
    batch, sequence = shape if isinstance(shape, tuple) else (shape, None)
    parts = []
    for name, extents in dims.items():
        values = [batch if d == "batch" else sequence if d == "sequence" else d
                  for d in extents]
        parts.append(f"{name}:" + "x".join(map(str, values)))
    return ",".join(parts)


def shape_text(shape):
    return "x".join(map(str, shape)) if isinstance(shape, tuple) else str(shape)


class Runner:
    def __init__(self, args, shared, earlier_rows):
        self.args = args
        self.shared = shared
        self.rows = list(earlier_rows)
        self.lock = threading.Lock()
        self.deadline = STARTED + args.deadline if args.deadline else None

    def remaining(self):
        return self.deadline - time.time() if self.deadline else float("inf")

    def measured(self, name, label):
        return any(r.get("model") == name and r.get("shape") == label and "ratio" in r
                   for r in self.rows)

    def step(self, command, log, env, limit):
        if self.remaining() <= 0:
            raise DeadlineReached(f"{os.path.basename(log)[:-4]}: not started: deadline")
        code, _ = run_timed(command, log, min(limit, self.remaining()), env=env)
        if code == "timeout" and self.remaining() <= 0:
            raise DeadlineReached(f"{os.path.basename(log)[:-4]}: stopped at the deadline")
        if code != 0:
            with open(log, errors="replace") as f:
                raise RuntimeError(f"{os.path.basename(log)}: exit {code}: {first_error(f.read())}")

    def bench(self, engine, shapes, log, env):
        out = log[:-4] + ".json"
        command = [self.args.kiln, "bench", engine, "--iterations", str(self.args.iterations),
                   "--json", out] + (["--shapes", shapes] if shapes else [])
        self.step(command, log, env, self.args.run_timeout)
        with open(out) as f:
            result = json.load(f)
        return result["latency_ms"]["p50"], result["gpu"]

    def model(self, name, gpu):
        """Measures the shapes of `name` not measured yet (DeadlineReached: stopped)."""
        model = BY_NAME[name]
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(gpu))
        work = os.path.join(self.args.out, name)
        os.makedirs(work, exist_ok=True)
        path, _ = materialize(self.shared, os.path.join(self.shared, model.onnx),
                              os.path.join(self.args.out, "models"))
        dims = input_dims(path)
        text = model.family == "text"
        profile = TEXT_PROFILE if text else VISION_PROFILE
        options = ["--fp16"] + ([] if text else ["--channels-last"])
        shapes = [s for s in (TEXT_SHAPES if text else VISION_SHAPES)
                  if not self.measured(name, shape_text(s))]
        if not shapes:
            return
        dynamic = os.path.join(work, "dynamic.kiln")
        self.step([self.args.kiln, "compile", path, "-o", dynamic, *options,
                   "--min-shapes", shapes_flag(dims, profile[0]),
                   "--opt-shapes", shapes_flag(dims, profile[1]),
                   "--max-shapes", shapes_flag(dims, profile[2]),
                   "--tune-budget", str(self.args.dynamic_budget)],
                  os.path.join(work, "compile-dynamic.log"), env, self.args.compile_timeout)
        for shape in shapes:
            label = shape_text(shape)
            row = {"model": name, "shape": label, "opt": shape == profile[1],
                   "profile": " / ".join(shape_text(s) for s in profile)}
            try:
                static = os.path.join(work, f"static-{label}.kiln")
                self.step([self.args.kiln, "compile", path, "-o", static, *options,
                           "--shapes", shapes_flag(dims, shape),
                           "--tune-budget", str(self.args.static_budget)],
                          os.path.join(work, f"compile-static-{label}.log"), env,
                          self.args.compile_timeout)
                row["dynamic_ms"], row["gpu"] = self.bench(
                    dynamic, shapes_flag(dims, shape),
                    os.path.join(work, f"bench-dynamic-{label}.log"), env)
                row["static_ms"], _ = self.bench(static, None,
                                                 os.path.join(work, f"bench-static-{label}.log"),
                                                 env)
                row["ratio"] = row["dynamic_ms"] / row["static_ms"]
                row["bound"] = OPT_BOUND if row["opt"] else OTHER_BOUND
                row["met"] = row["ratio"] <= row["bound"]
            except DeadlineReached as stopped:
                print(f"{name} {label}: {stopped}", flush=True)
                raise
            except RuntimeError as error:
                row["error"] = str(error)
            print(f"{name} {label}: " + (f"{row['dynamic_ms']:.3f} / {row['static_ms']:.3f} ms "
                                          f"= {row['ratio']:.2f}" if "ratio" in row
                                          else row["error"]), flush=True)
            with self.lock:
                self.rows.append(row)
                self.write()

    def write(self):
        result = {"dynamic_budget_s": self.args.dynamic_budget,
                  "static_budget_s": self.args.static_budget,
                  "commit": os.environ.get("KILN_COMMIT", ""), "rows": self.rows}
        if self.args.resume:
            result["resumed_from"] = self.args.resume
        path = os.path.join(self.args.out, "dynamic.json")
        with open(path + ".tmp", "w") as f:
            json.dump(result, f, indent=1)
        os.replace(path + ".tmp", path)


def gpu_count():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, check=True)
        return max(1, len(out.stdout.strip().splitlines()))
    except (OSError, subprocess.CalledProcessError):
        return 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kiln", default=os.path.join(ROOT, "build", "bin", "kiln"))
    parser.add_argument("--out", required=True, help="working folder; dynamic.json is written here")
    parser.add_argument("--models", default=DEFAULT_MODELS)
    parser.add_argument("--dynamic-budget", type=float, default=120,
                        help="the dynamic engines' --tune-budget (they tune two shapes)")
    parser.add_argument("--static-budget", type=float, default=60,
                        help="each static engine's --tune-budget")
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--gpus", type=int, default=0, help="how many GPUs (default: all)")
    parser.add_argument("--compile-timeout", type=float, default=900)
    parser.add_argument("--run-timeout", type=float, default=300)
    parser.add_argument("--deadline", type=float, default=0,
                        help="seconds after which no step starts and a running one stops "
                             "(0: none); its shape is left for --resume")
    parser.add_argument("--resume", metavar="DYNAMIC_JSON",
                        help="keep the measured shapes of an earlier run's dynamic.json")
    args = parser.parse_args()

    names = args.models.split(",")
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        parser.error(f"unknown models {unknown}; known: {sorted(BY_NAME)}")
    shared = find_shared()
    os.makedirs(os.path.join(args.out, "models"), exist_ok=True)
    earlier = []
    if args.resume:
        with open(args.resume) as f:
            earlier = json.load(f)
        if (earlier.get("dynamic_budget_s"), earlier.get("static_budget_s")) != (
                args.dynamic_budget, args.static_budget):
            parser.error(f"{args.resume} was measured with other budgets")
        # Only measured shapes carry over (those of models not named too, so that calls
        # measuring some models each add up to one table); errors are tried again.
        earlier = [r for r in earlier["rows"] if "ratio" in r]
        print(f"resumed: {len(earlier)} shapes measured in {args.resume}", flush=True)
    runner = Runner(args, shared, earlier)
    gpus = queue.Queue()
    for gpu in range(args.gpus or gpu_count()):
        gpus.put(gpu)

    def on_a_gpu(name):
        gpu = gpus.get()
        try:
            runner.model(name, gpu)
        except DeadlineReached as stopped:  # the shapes left are missing; --resume measures them
            print(f"{name}: {stopped}", flush=True)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
            print(f"{name}: {error}", flush=True)
            with runner.lock:
                runner.rows.append({"model": name, "error": str(error)})
                runner.write()
        finally:
            gpus.put(gpu)

    with concurrent.futures.ThreadPoolExecutor(max_workers=gpus.qsize()) as pool:
        list(pool.map(on_a_gpu, names))
    runner.write()
    failed = [r for r in runner.rows if "error" in r or not r.get("met", False)]
    expected = {(n, shape_text(s)) for n in names
                for s in (TEXT_SHAPES if BY_NAME[n].family == "text" else VISION_SHAPES)}
    left = sorted(expected - {(r["model"], r.get("shape")) for r in runner.rows})
    if left:
        print("not measured (deadline): " + ", ".join(f"{n} {s}" for n, s in left) +
              "; continue with --resume", flush=True)
    return 1 if failed or left else 0


if __name__ == "__main__":
    sys.exit(main())
