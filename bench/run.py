#!/usr/bin/env python3
"""The end-to-end benchmark: Kiln against PyTorch eager, torch.compile(mode="reduce-overhead")
and ONNX Runtime's GPU provider (where this onnxruntime has one), for each model of
bench/models.py x precision x batch, on this machine's GPUs.

For each (model, precision, batch), on one GPU, one after the other:
  1. `kiln compile` the ONNX model for that batch (and sequence 128) and precision (fp16
     channels last; int8 as `--int8 --fp16 --channels-last` with the model's calibration
     cache, made once by a batch-1 compile on CALIBRATION_SAMPLES seeded random samples);
  2. `kiln run` the engine on seeded random inputs, and compare the outputs of a few
     samples spread over the batch (first, middle, last) with ONNX Runtime's (CPU) on the
     same samples: relative L2 error, bounded per precision; for the object detectors,
     whose selections by value (TopK, NMS) let near-tied scores keep other boxes or
     another order, their detections matched by class and IoU instead
     (test/models/detections.py): the fraction that agree;
  3. `kiln bench` the engine (CUDA graph replay; stream launches for an engine with
     read-backs, whose data-dependent shapes the host reads during the run);
  4. the same architecture in PyTorch (bench/torch_peer.py: eager, then compile-ro, or
     torch.compile's default mode where reduce-overhead raises), and ONNX Runtime on the
     GPU (bench/ort_peer.py) when it has a GPU provider.
Every timing follows bench/timing.py: warmup, then at least 50 runs and at least a second,
each between CUDA events; medians are reported. Units run in parallel on several GPUs when
there are several (one worker per GPU; a unit's rows always share a GPU).

Writes RESULTS (JSON: the machine, the versions and one row per system and unit) after
each unit, so that a run stopped by --deadline keeps what it measured; bench/report.py
turns it into docs/benchmarks.md and the throughput plot.

A model is measured at the precisions and batches asked for that bench/models.py gives it
(the detectors: fp32 and fp16; SSDlite at batch 1, the one its export takes, RT-DETR at 1
and 8 unless --batches names others). --dry-run lists the units and stops.

    python3 bench/run.py --kiln build/bin/kiln --out /tmp/bench [--models resnet50,gpt2]
        [--precisions fp32,fp16,int8] [--batches 1,32,256] [--deadline SECONDS] [--dry-run]
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
import zlib

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "test"))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
import detections  # noqa: E402 - test/models/detections.py: the detectors' comparison
from kiln_run_log import first_error  # noqa: E402
from model_tools import compare, find_shared, make_inputs, materialize, run_timed, \
    sanitize  # noqa: E402
from models import BY_NAME, MODELS, SEQUENCE  # noqa: E402
from timing import summarize, warmup_runs_for  # noqa: E402

PRECISIONS = ["fp32", "fp16", "int8"]
BATCHES = [1, 32, 256]
# The peers that have each precision (PyTorch has no general int8 inference on the GPU).
TORCH_PRECISIONS = {"fp32", "fp16"}
# Relative L2 error allowed between Kiln's outputs and ONNX Runtime's fp32 CPU outputs.
TOLERANCE = {"fp32": 1e-3, "fp16": 2e-2, "int8": 1e-1}
# The detectors: the fraction of ONNX Runtime's best 100 detections per sample that the
# engine's best 100 match (same class, IoU >= 0.9), at least this in fp32 (as
# test/models/check-detection.py requires); reported only in fp16, where untrained weights'
# near-tied scores are reordered by f16 rounding.
DETECTION_AGREEMENT = {"fp32": 0.99}
MIN_RUNS, MIN_SECONDS = 50, 1.0
# INT8 engines calibrate on this many seeded random samples of the model's inputs (the
# distribution the correctness check draws from), once per model at batch 1: the
# thresholds go to a calibration cache that every batch's compile reads.
CALIBRATION_SAMPLES = 8
STARTED = time.time()


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


class References:
    """ONNX Runtime (CPU) sessions, one per model, shared by the workers."""

    def __init__(self):
        self.lock = threading.Lock()
        self.sessions = {}

    def run(self, path, feeds):
        import onnxruntime

        with self.lock:
            if path not in self.sessions:
                self.sessions[path] = onnxruntime.InferenceSession(
                    path, providers=["CPUExecutionProvider"])
            session = self.sessions[path]
        names = [o.name for o in session.get_outputs()]
        return dict(zip(names, session.run(names, feeds)))


class Benchmark:
    def __init__(self, args, model_paths):
        self.args = args
        self.model_paths = model_paths
        self.references = References()
        self.lock = threading.Lock()
        self.rows = []
        # Per model: held while its calibration cache is made (units of one model may run
        # on several GPUs at once).
        self.calibration_locks = {m.name: threading.Lock() for m in MODELS}
        # From the start of the program: materializing the models counts too.
        self.deadline = STARTED + args.deadline if args.deadline else None

    def remaining(self):
        return self.deadline - time.time() if self.deadline else float("inf")

    def record(self, row):
        with self.lock:
            self.rows.append(row)

    def unit(self, model, precision, batch, gpu):
        """Kiln and the peers on one (model, precision, batch); returns its rows."""
        work = os.path.join(self.args.out, "work", f"{model.name}-{precision}-b{batch}")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(gpu))
        key = {"model": model.name, "precision": precision, "batch": batch, "gpu": gpu,
               "measured_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")}
        systems = self.args.systems
        rows = []
        if "kiln" in systems:
            rows.append(dict(key, system="kiln", **self.kiln(model, precision, batch, work, env)))
        if precision in TORCH_PRECISIONS and {"eager", "compile-ro"} & systems:
            rows += [dict(key, **r) for r in self.torch_peers(model, precision, batch, work, env)]
        if "ort" in systems and self.args.ort_gpu and precision in ("fp32", "fp16"):
            rows.append(dict(key, **self.ort_peer(model, precision, work, env)))
        return rows

    # --- Kiln --------------------------------------------------------------------------

    def calibration(self, model, graph, shapes_at, env):
        """The model's INT8 calibration cache: made once, by a compile at batch 1 from
        CALIBRATION_SAMPLES seeded random samples of its inputs (`<input>.npy`, stacked),
        since the thresholds do not depend on the batch; every unit's compile reads it."""
        root = os.path.join(self.args.out, "calibration", model.name)
        cache = root + ".cache.json"
        with self.calibration_locks[model.name]:
            if os.path.exists(cache):
                return cache
            os.makedirs(root, exist_ok=True)
            samples, _ = make_inputs(graph, CALIBRATION_SAMPLES, SEQUENCE,
                                     zlib.crc32(f"{model.name}/calibration".encode()))
            for name, array in samples.items():
                np.save(os.path.join(root, name + ".npy"), array)
            command = [self.args.kiln, "compile", self.model_paths[model.name], "-o",
                       os.path.join(root, "batch1.kiln"), "--shapes", shapes_at(1), "--quiet",
                       "--int8", "--calib", root, "--calib-cache", cache, "--fp16",
                       "--channels-last", "--tune-budget", "0"]
            run_timed(command, root + ".log", self.timeout(self.args.compile_timeout), env=env)
        return cache

    def kiln(self, model, precision, batch, work, env):
        onnx_path = self.model_paths[model.name]
        graph = onnx.load(onnx_path, load_external_data=False).graph
        seed = zlib.crc32(f"{model.name}/{batch}".encode())
        inputs, _ = make_inputs(graph, batch, SEQUENCE, seed)
        if model.family == "detection":
            # Images uniform in [0, 1), as check-detection.py checks the detectors on.
            rng = np.random.default_rng(seed)
            inputs = {n: rng.random(a.shape).astype(a.dtype) for n, a in inputs.items()}
        shapes = ",".join(f"{n}:{'x'.join(map(str, a.shape))}" for n, a in inputs.items())

        def shapes_at(rows):
            return ",".join(f"{n}:{'x'.join(map(str, (rows,) + a.shape[1:]))}"
                            for n, a in inputs.items())
        engine = os.path.join(work, "model.kiln")
        command = [self.args.kiln, "compile", onnx_path, "-o", engine, "--shapes", shapes,
                   "--quiet"]
        if self.args.tune_budget is not None:
            command += ["--tune-budget", str(self.args.tune_budget)]
        if self.args.timing_cache:
            command += ["--timing-cache", self.args.timing_cache]
        if precision == "int8":
            # The products and convolutions in int8, the rest in fp16 (TensorRT's --int8
            # --fp16), channels last for the tensor-core convolutions.
            cache = self.calibration(model, graph, shapes_at, env)
            if not os.path.exists(cache):
                return {"status": "error", "error": "kiln compile --int8: calibration failed "
                        f"(see {os.path.dirname(cache)})"}
            command += ["--int8", "--calib-cache", cache, "--fp16", "--channels-last"]
        if precision == "fp16":
            # Channels last: the tensor-core convolutions read NHWC (no effect on models
            # without 2-D convolutions).
            command += ["--fp16", "--channels-last"]
        compile_log = os.path.join(work, "compile.log")
        # On the unit's GPU: kernel-autotune measures there (on GPU 0 it would time its
        # candidates under another unit's load, and slow that unit's peers down).
        code, compile_s = run_timed(command, compile_log, self.timeout(self.args.compile_timeout),
                                    env=env)
        if self.cut(code):
            return {"status": "skipped", "error": "kiln compile: stopped at the deadline"}
        if code != 0:
            text = first_error(open(compile_log, errors="replace").read())
            return {"status": "error", "error": f"kiln compile: {text}", "compile_s": compile_s}
        result = {"compile_s": compile_s, "engine_bytes": os.path.getsize(engine)}

        # Correctness: the engine's outputs on a few samples against ONNX Runtime's.
        inputs_dir, outputs_dir = os.path.join(work, "inputs"), os.path.join(work, "kiln-out")
        os.makedirs(inputs_dir)
        command = [self.args.kiln, "run", engine, "--output-dir", outputs_dir, "--quiet"]
        for name, array in inputs.items():
            path = os.path.join(inputs_dir, sanitize(name) + ".npy")
            np.save(path, array)
            command += ["--input", f"{name}={path}"]
        ran, run_s = self.run_step("kiln run", command, os.path.join(work, "run.log"),
                                   self.args.run_timeout, env, result)
        result["check_run_s"] = run_s
        if not ran:
            return result
        samples = sorted({0, batch // 2, batch - 1})
        reference = self.references.run(self.args.reference_models[model.name],
                                        {n: a[samples] for n, a in inputs.items()})
        if model.family == "detection":
            result["check"] = check_detections(reference, outputs_dir, samples, batch, precision)
        else:
            worst, problems = 0.0, []
            for name, expected in reference.items():
                produced = np.load(os.path.join(outputs_dir, sanitize(name) + ".npy"))[samples]
                error, problem = compare(expected, produced, TOLERANCE[precision])
                worst = max(worst, error if error is not None else float("inf"))
                if problem:
                    problems.append(f"'{name}': {problem}")
            result["check"] = {"samples": samples, "rel_l2": worst,
                               "tolerance": TOLERANCE[precision], "ok": not problems,
                               "problems": problems}
        shutil.rmtree(outputs_dir, ignore_errors=True)

        # Speed: the engine between CUDA events, as the peers (bench/timing.py). The run
        # above bounds a run's time from above (it also loaded the engine); when that bound
        # does not fit before the deadline, one timed run says how long a run really takes.
        bench_json, bench_log = os.path.join(work, "bench.json"), os.path.join(work, "bench.log")
        per_run = run_s
        if (warmup_runs_for(per_run) + MIN_RUNS) * per_run > self.remaining():
            command = [self.args.kiln, "bench", engine, "--warmup", "1", "--iterations", "1",
                       "--json", bench_json]
            code, _ = run_timed(command, bench_log, self.timeout(self.args.run_timeout), env=env)
            if code == 0:
                with open(bench_json) as f:
                    per_run = json.load(f)["runs_ms"][0] / 1000.0
                result["probe_ms"] = per_run * 1000.0
        warmup = warmup_runs_for(per_run)
        expected_s = (warmup + MIN_RUNS) * per_run
        if expected_s > self.remaining():
            result.update(status="skipped", error=f"{warmup + MIN_RUNS} runs of the engine "
                          f"would pass the deadline ({self.remaining():.0f} s left)")
            return result
        command = [self.args.kiln, "bench", engine, "--warmup", str(warmup), "--iterations",
                   str(MIN_RUNS), "--duration", str(MIN_SECONDS), "--json", bench_json]
        if not self.run_step("kiln bench", command, bench_log, self.args.run_timeout, env,
                             result)[0]:
            return result
        with open(bench_json) as f:
            bench = json.load(f)
        result.update(summarize(bench["runs_ms"]))
        result.update(warmup=warmup, cuda_graph=bench["cuda_graph"],
                      peak_memory_bytes=bench["device_memory_bytes"]["total"],
                      memory_breakdown=bench["device_memory_bytes"],
                      status="ok" if result["check"]["ok"] else "wrong")
        if "output_shapes" in bench:  # data-dependent outputs: their shapes in the last run
            result["output_shapes"] = bench["output_shapes"]
        if not result["check"]["ok"]:
            result["error"] = "outputs differ from ONNX Runtime: " + \
                "; ".join(result["check"]["problems"])
        return result

    # --- Peers -------------------------------------------------------------------------

    def peer_process(self, script, arguments, work, env, systems):
        """Runs a peer script; its JSON rows, or one error row per system it measures."""
        out_json = os.path.join(work, os.path.basename(script) + ".json")
        peer_log = os.path.join(work, os.path.basename(script) + ".log")
        limit = self.timeout(self.args.peer_timeout)
        if limit <= 30:
            return [{"system": s, "status": "skipped", "error": "deadline"} for s in systems]
        code, _ = run_timed([sys.executable, script] + arguments + ["--json", out_json,
                                                                     "--min-runs", str(MIN_RUNS),
                                                                     "--min-seconds",
                                                                     str(MIN_SECONDS)],
                            peer_log, limit, env=env)
        # The script writes its rows again after each system: one stopped on its way (at
        # the deadline, or a torch.compile of a detector past the time limit) keeps those
        # it measured.
        rows = []
        if os.path.exists(out_json):
            try:
                with open(out_json) as f:
                    rows = json.load(f)
            except (OSError, ValueError):
                rows = []
        for row in rows:
            row["status"] = "error" if "error" in row else "ok"
            row.pop("model", None), row.pop("precision", None), row.pop("batch", None)
        if code == 0 and rows:
            return rows
        if self.cut(code):
            failure = {"status": "skipped", "error": "stopped at the deadline"}
        elif code == "timeout":
            failure = {"status": "error", "error": f"timeout after {limit:.0f} s"}
        else:
            text = first_error(open(peer_log, errors="replace").read())
            failure = {"status": "error", "error": f"exit {code}: {text}"}
        measured = {row["system"] for row in rows}
        return rows + [dict(failure, system=s) for s in systems if s not in measured]

    def torch_peers(self, model, precision, batch, work, env):
        peers = [p for p in ("eager", "compile-ro") if p in self.args.systems]
        env = dict(env, TORCHINDUCTOR_COMPILE_THREADS=str(self.args.compile_threads),
                   TORCHINDUCTOR_CACHE_DIR=os.path.join(self.args.out, "inductor-cache"))
        return self.peer_process(os.path.join(HERE, "torch_peer.py"),
                                 ["--model", model.name, "--precision", precision,
                                  "--batch", str(batch), "--peers", ",".join(peers)],
                                 work, env, peers)

    def ort_peer(self, model, precision, work, env):
        return self.peer_process(os.path.join(HERE, "ort_peer.py"),
                                 ["--model", self.model_paths[model.name], "--inputs-dir",
                                  os.path.join(work, "inputs"), "--precision", precision],
                                 work, env, ["ort-gpu"])[0]

    def run_step(self, what, command, log, limit, env, result):
        """Runs one command of a unit: (whether it succeeded, its seconds). When it did not,
        `result` says why: skipped (the deadline stopped it) or error (its first error)."""
        code, seconds = run_timed(command, log, self.timeout(limit), env=env)
        if self.cut(code):
            result.update(status="skipped", error=f"{what}: stopped at the deadline")
        elif code != 0:
            result.update(status="error",
                          error=f"{what}: {first_error(open(log, errors='replace').read())}")
        return code == 0, seconds

    def cut(self, code):
        """Whether a command's exit code says the deadline stopped it."""
        return code == "timeout" and self.remaining() <= 1

    def timeout(self, limit):
        return max(1, min(limit, self.remaining()))

    # --- Scheduling --------------------------------------------------------------------

    def run(self, units, gpus, write):
        """Runs the units on the GPUs, the largest first; `write` saves after each unit."""
        pending = queue.Queue()
        for unit in units:
            pending.put(unit)

        def worker(gpu):
            while True:
                try:
                    model, precision, batch = pending.get_nowait()
                except queue.Empty:
                    return
                key = {"model": model.name, "precision": precision, "batch": batch}
                if self.remaining() < 30:
                    for system in ["kiln", "eager", "compile-ro"]:
                        if system in self.args.systems and \
                                (system == "kiln" or precision in TORCH_PRECISIONS):
                            self.record(dict(key, system=system, status="skipped",
                                             error="not started: deadline"))
                    continue
                started = time.time()
                try:
                    rows = self.unit(model, precision, batch, gpu)
                except Exception as error:  # noqa: BLE001 - one unit's failure, recorded
                    rows = [dict(key, system="kiln", status="error",
                                 error=f"harness: {type(error).__name__}: {error}")]
                for row in rows:
                    self.record(row)
                write()
                summary = ", ".join(
                    f"{r['system']} {r['median_ms']:.3f} ms" if "median_ms" in r
                    else f"{r['system']} {r['status']}" for r in rows)
                log(f"gpu {gpu}: {model.name} {precision} batch {batch} "
                    f"({time.time() - started:.0f} s): {summary}")

        with concurrent.futures.ThreadPoolExecutor(len(gpus)) as pool:
            for future in [pool.submit(worker, gpu) for gpu in gpus]:
                future.result()


def unit_order(unit):
    """Largest work first, so that the long units do not end up last on one GPU. The
    detectors are long at any batch: compiles of thousands of kernels (SSDlite's NMS per
    class), runs with host read-backs, a torch.compile that breaks its graph."""
    model, precision, batch = unit
    weight = {"vit_b_16": 6, "gpt2": 5, "bert_base": 5, "resnet50": 3, "efficientnet_b0": 2,
              "mobilenet_v2": 1, "ssdlite320": 512, "rtdetr_r50": 64}.get(model.name, 3)
    return (-batch * weight, PRECISIONS.index(precision))


def model_units(model, precisions, batches):
    """`model`'s units: the precisions asked for that bench/models.py measures it at, and
    its batches there unless `batches` (--batches) names others, less any its export cannot
    take; and what was left out, in words (or None)."""
    kept = [p for p in precisions if not model.precisions or p in model.precisions]
    sizes = [b for b in (batches or model.batches or BATCHES) if model.allows(b)]
    left = [f"precision {p}" for p in precisions if p not in kept]
    left += [f"batch {b} (its export takes batch {model.export_batch} only)"
             for b in (batches or []) if not model.allows(b)]
    return [(model, p, b) for p in kept for b in sizes], ", ".join(left) or None


def check_detections(reference, outputs_dir, samples, batch, precision):
    """A detector's check (test/models/detections.py, as check-detection.py applies it):
    ONNX Runtime's best 100 detections of each sample, matched by class and IoU >= 0.9 among
    the engine's best 100; at least DETECTION_AGREEMENT of them where it has a bound. Values
    are compared one by one nowhere: near-tied scores may keep other boxes or order them
    otherwise, and an output's length is its selections' (`kiln run` writes each output at
    the shape its run produced). Any NaN or Inf where ONNX Runtime's output is finite
    fails."""
    produced, problems = {}, []
    for name, expected in reference.items():
        array = np.load(os.path.join(outputs_dir, sanitize(name) + ".npy"))
        # A batch of one is its own sample: SSDlite's outputs have no batch dimension.
        if batch > 1:
            array = array[samples]
        produced[name] = array
        if np.issubdtype(array.dtype, np.floating):
            bad = ~np.isfinite(array)
            if array.shape == expected.shape:
                bad &= np.isfinite(expected)
            if bad.any():
                problems.append(f"'{name}': {int(bad.sum())} of {array.size} values NaN or Inf")
    required = DETECTION_AGREEMENT.get(precision)
    check = {"samples": samples, "required_agreement": required}
    try:
        ours, theirs = detections.detections(produced), detections.detections(reference)
    except ValueError as error:
        problems.append(f"detections: {error}")
        return dict(check, ok=False, problems=problems)
    matched, compared = detections.agreement(theirs, ours)
    fraction = matched / compared if compared else 1.0
    if required is not None and fraction < required:
        problems.append(f"detections agree on {100 * fraction:.1f}% < {100 * required:.0f}%")
    return dict(check, agreement=fraction, matched=matched, compared=compared,
                detections=[len(scores) for scores, _, _ in ours],
                reference_detections=[len(scores) for scores, _, _ in theirs],
                ok=not problems, problems=problems)


def machine_description(kiln):
    """What the results were measured on and with."""
    def command_output(command):
        try:
            return subprocess.run(command, capture_output=True, text=True,
                                  timeout=60).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return ""

    gpus = [line.split(", ") for line in command_output(
        ["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
         "--format=csv,noheader"]).splitlines() if line]
    versions = {"kiln": command_output([kiln, "--version"]),
                "kiln_commit": os.environ.get("KILN_COMMIT", "")}
    for package in ("torch", "torchvision", "transformers", "onnxruntime", "onnx", "numpy"):
        try:
            versions[package] = __import__(package).__version__
        except Exception:  # noqa: BLE001 - a missing package is reported as such
            versions[package] = "not installed"
    try:
        import torch

        versions["cuda_runtime"] = torch.version.cuda
        versions["cudnn"] = str(torch.backends.cudnn.version())
    except Exception:  # noqa: BLE001
        pass
    try:
        import onnxruntime

        versions["onnxruntime_providers"] = onnxruntime.get_available_providers()
    except Exception:  # noqa: BLE001
        pass
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "gpus": [{"name": g[0], "driver": g[1], "memory": g[2], "max_sm_clock": g[3]}
                 for g in gpus if len(g) == 4],
        "cpu_count": os.cpu_count(),
        "versions": versions,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kiln", default=os.path.join(ROOT, "build", "bin", "kiln"))
    parser.add_argument("--out", required=True, help="working folder; results.json is written here")
    parser.add_argument("--models", default=",".join(m.name for m in MODELS))
    parser.add_argument("--precisions", default=",".join(PRECISIONS))
    parser.add_argument("--batches",
                        help="comma-separated (default: each model's in bench/models.py: "
                             f"{','.join(map(str, BATCHES))}, the detectors fewer)")
    parser.add_argument("--systems", default="kiln,eager,compile-ro,ort",
                        help="what to measure: kiln, eager, compile-ro, ort (ONNX Runtime on "
                             "the GPU, when it has a provider)")
    parser.add_argument("--gpus", type=int, default=0, help="how many GPUs (default: all)")
    parser.add_argument("--deadline", type=float, default=0,
                        help="seconds after which no more is started; what is left is "
                             "recorded as skipped (default: none)")
    parser.add_argument("--tune-budget", type=float, default=None,
                        help="seconds of GPU tuning per kiln compile (default: kiln's, 300); "
                             "an int8 batch-256 compile spends ~250 s tuning, so a device "
                             "call of 10 minutes fits it only with less")
    parser.add_argument("--timing-cache", metavar="FILE",
                        help="kiln compile's timing cache (--timing-cache): kernels measured "
                             "by an earlier call on this GPU model are not measured again")
    parser.add_argument("--compile-timeout", type=float, default=900)
    parser.add_argument("--run-timeout", type=float, default=900)
    parser.add_argument("--peer-timeout", type=float, default=900)
    parser.add_argument("--resume", metavar="RESULTS",
                        help="keep the units of an earlier results.json that were measured "
                             "(not skipped) and run only the others")
    parser.add_argument("--no-ort-gpu", dest="ort_gpu", action="store_false",
                        help="do not time ONNX Runtime on the GPU even if it has a provider")
    parser.add_argument("--dry-run", action="store_true",
                        help="list the units these options select, in the order they would "
                             "start, and stop (needs no GPU, no kiln)")
    args = parser.parse_args()

    try:
        models = [BY_NAME[name] for name in args.models.split(",")]
        precisions = args.precisions.split(",")
        batches = [int(b) for b in args.batches.split(",")] if args.batches else None
    except (KeyError, ValueError) as error:
        parser.error(f"bad --models, --precisions or --batches: {error} "
                     f"(models: {', '.join(BY_NAME)})")
    args.systems = set(args.systems.split(","))
    if args.systems - {"kiln", "eager", "compile-ro", "ort"}:
        parser.error(f"unknown --systems: {', '.join(sorted(args.systems))}")
    if any(p not in PRECISIONS for p in precisions) or any(b < 1 for b in batches or []):
        parser.error(f"precisions are {', '.join(PRECISIONS)}; batches are positive")
    units = []
    for model in models:
        selected, left = model_units(model, precisions, batches)
        units += selected
        if left:
            log(f"{model.name}: not measured at {left}")
    if not units:
        parser.error("these --models, --precisions and --batches select no unit")
    models = [m for m in models if any(unit[0] is m for unit in units)]
    units.sort(key=unit_order)
    if args.dry_run:
        for model, precision, batch in units:
            print(f"{model.name} {precision} batch {batch}")
        return 0
    if not os.access(args.kiln, os.X_OK):
        parser.error(f"no kiln at {args.kiln}")
    gpu_count = len([line for line in subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True, text=True).stdout.splitlines() if line])
    if gpu_count == 0:
        parser.error("no NVIDIA GPU here (nvidia-smi -L lists none)")
    gpus = list(range(min(args.gpus, gpu_count) if args.gpus else gpu_count))
    args.compile_threads = max(1, (os.cpu_count() or 1) // len(gpus))
    if args.ort_gpu:
        from ort_peer import gpu_provider

        args.ort_gpu = gpu_provider() is not None
    os.makedirs(args.out, exist_ok=True)

    # The models with their weights (materialize.py), once.
    shared = find_shared()
    cache = os.path.join(args.out, "models")
    os.makedirs(cache, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(len(models)) as pool:
        paths = dict(zip([m.name for m in models], pool.map(
            lambda m: materialize(shared, os.path.join(shared, m.onnx), cache)[0], models)))
    # ONNX Runtime's reference takes the same file.
    args.reference_models = paths

    results_path = os.path.join(args.out, "results.json")
    description = machine_description(args.kiln)
    description.update(gpus_used=len(gpus), deadline_s=args.deadline, min_runs=MIN_RUNS,
                       min_seconds=MIN_SECONDS, sequence=SEQUENCE, tolerance=TOLERANCE,
                       detection_agreement=DETECTION_AGREEMENT,
                       ort_gpu=args.ort_gpu, tune_budget_s=args.tune_budget,
                       onnx_files={m.name: m.onnx for m in models})
    benchmark = Benchmark(args, paths)

    def write():
        with benchmark.lock:
            rows = sorted(benchmark.rows, key=lambda r: (
                [m.name for m in MODELS].index(r["model"]), PRECISIONS.index(r["precision"]),
                r["batch"], r["system"]))
            with open(results_path + ".tmp", "w") as f:
                json.dump({"machine": description, "rows": rows}, f, indent=1)
            os.replace(results_path + ".tmp", results_path)

    if args.resume:
        with open(args.resume) as f:
            earlier = json.load(f)["rows"]
        unit_of = lambda r: (r["model"], r["precision"], r["batch"])  # noqa: E731
        done = {unit_of(r) for r in earlier} - {unit_of(r) for r in earlier
                                                 if r["status"] == "skipped"}
        # A unit this call does not select keeps its rows as they were, skipped ones too
        # (a call continuing another precision must not drop them from the report).
        selected = {(m.name, p, b) for m, p, b in units}
        benchmark.rows = [r for r in earlier if unit_of(r) in done or unit_of(r) not in selected]
        units = [u for u in units if (u[0].name, u[1], u[2]) not in done]
        description["resumed_from"] = earlier and args.resume
    log(f"{len(units)} units on {len(gpus)} GPU(s): {description['gpus'][0]['name'] if description['gpus'] else '?'}")
    started = time.time()
    benchmark.run(units, gpus, write)
    write()
    log(f"done in {time.time() - started:.0f} s; {results_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
