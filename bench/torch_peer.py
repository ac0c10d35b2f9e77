#!/usr/bin/env python3
"""Times one model in PyTorch on the GPU at one precision and batch, the way `kiln bench`
times an engine: each run between two CUDA events on the stream, synchronized after each,
after warmup; the median and the other percentiles of the runs. Two peers, one after the
other in this process:

  eager          the module as it is;
  compile-ro     torch.compile(mode="reduce-overhead"): Inductor's kernels replayed as a
                 CUDA graph (static shapes: dynamic=False). Where that raises (a detector's
                 data-dependent shapes and NMS may), torch.compile's default mode instead
                 (Inductor, no CUDA graphs); the result's "mode" says which ran, and
                 "fallback_reason" why.

Precision: fp32 (TF32 allowed in matrix products and convolutions, PyTorch's fastest fp32),
fp16 or bf16 (weights and activations). Writes a JSON list of one result per peer, again
after each peer, so that a process stopped at its time limit keeps the peers it measured.

    python3 bench/torch_peer.py --model resnet50 --precision fp16 --batch 32 --json FILE
"""

import argparse
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import BY_NAME, torch_inputs, torch_module  # noqa: E402
from timing import summarize, warmup_and_time  # noqa: E402

DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}


def measure(name, fn, args, torch, min_runs, min_seconds, before_run=None):
    """One peer's result: latency of fn(*args), its first call (compilation, for
    torch.compile) and the peak of PyTorch's caching allocator while it ran."""
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    result = {"system": name}
    start = time.perf_counter()
    with torch.inference_mode():
        if before_run:
            before_run()
        fn(*args)
        torch.cuda.synchronize()
        result["first_run_s"] = time.perf_counter() - start

        stream = torch.cuda.current_stream()

        def run_once():
            if before_run:
                before_run()
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            begin.record(stream)
            fn(*args)
            end.record(stream)
            end.synchronize()
            return begin.elapsed_time(end)

        millis, warmup = warmup_and_time(run_once, min_runs, min_seconds)
    result.update(summarize(millis))
    result["warmup"] = warmup
    result["peak_memory_bytes"] = torch.cuda.max_memory_reserved()
    return result


def compile_stats(torch):
    """What Dynamo and Inductor did, from their counters (best effort: their names are
    internal): graphs compiled, graph breaks, and graphs run without a CUDA graph."""
    try:
        from torch._dynamo.utils import counters

        return {"graphs": int(counters["stats"].get("unique_graphs", 0)),
                "graph_breaks": int(sum(counters["graph_break"].values())),
                "cudagraph_skips": int(counters["inductor"].get("cudagraph_skips", 0))}
    except Exception:  # noqa: BLE001 - statistics only
        return {}


def compiled_peer(module, inputs, torch, min_runs, min_seconds):
    """compile-ro: torch.compile(mode="reduce-overhead"), or where that raises, in its first
    call or while timed, torch.compile's default mode; raises if both do."""
    failure = None
    for mode in ("reduce-overhead", "default"):
        torch._dynamo.reset()
        try:
            # What a failed attempt left: its CUDA-graph trees and Dynamo's counters.
            from torch._dynamo.utils import counters
            from torch._inductor.cudagraph_trees import reset_cudagraph_trees

            reset_cudagraph_trees()
            counters.clear()
        except Exception:  # noqa: BLE001 - internal names; a fresh start is best effort
            pass
        try:
            compiled = torch.compile(module, mode=mode, dynamic=False)
            # Under CUDA graphs each call starts a new step: the previous outputs may be
            # overwritten (they are not read).
            result = measure("compile-ro", compiled, inputs, torch, min_runs, min_seconds,
                             before_run=torch.compiler.cudagraph_mark_step_begin
                             if mode == "reduce-overhead" else None)
        except Exception as error:  # noqa: BLE001 - the next mode, or the peer's failure
            traceback.print_exc()
            text = f"{type(error).__name__}: {error}"[:300]
            if failure is not None:
                raise RuntimeError(f"reduce-overhead: {failure}; default: {text}") from error
            failure = text
            continue
        result.update(mode=mode, compile_s=result["first_run_s"], **compile_stats(torch))
        if failure is not None:
            result["fallback_reason"] = failure
        return result, compiled


def output_shapes(model, fn, inputs, torch, before_run=None):
    """A detector's outputs' shapes in one more run, "name:AxB,..." as `kiln bench` writes
    its data-dependent ones: how many detections the timed runs worked through."""
    with torch.inference_mode():
        if before_run:
            before_run()
        outputs = fn(*inputs)
        torch.cuda.synchronize()
        return ",".join(f"{name}:{'x'.join(map(str, tensor.shape))}"
                        for name, tensor in zip(model.outputs, outputs))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, choices=sorted(BY_NAME))
    parser.add_argument("--precision", required=True, choices=sorted(DTYPES))
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--peers", default="eager,compile-ro")
    parser.add_argument("--min-runs", type=int, default=50)
    parser.add_argument("--min-seconds", type=float, default=1.0)
    parser.add_argument("--json", required=True)
    args = parser.parse_args()

    import torch

    torch.backends.cuda.matmul.allow_tf32 = True  # fp32 rows: TF32 tensor cores allowed
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    model = BY_NAME[args.model]
    dtype = getattr(torch, DTYPES[args.precision])
    module = torch_module(model).to("cuda", dtype)
    inputs = torch_inputs(model, args.batch, "cuda", dtype)

    results = []
    for peer in args.peers.split(","):
        try:
            if peer == "eager":
                result = measure(peer, module, inputs, torch, args.min_runs, args.min_seconds)
                fn, before_run = module, None
            elif peer == "compile-ro":
                result, fn = compiled_peer(module, inputs, torch, args.min_runs,
                                           args.min_seconds)
                before_run = torch.compiler.cudagraph_mark_step_begin \
                    if result["mode"] == "reduce-overhead" else None
            else:
                raise ValueError(f"unknown peer '{peer}'")
            if model.family == "detection":
                try:
                    result["output_shapes"] = output_shapes(model, fn, inputs, torch,
                                                            before_run)
                except Exception as error:  # noqa: BLE001 - the time stands without it
                    traceback.print_exc()
                    result["output_shapes_error"] = f"{type(error).__name__}: {error}"[:300]
        except Exception as error:  # noqa: BLE001 - recorded as the peer's failure
            traceback.print_exc()
            result = {"system": peer, "error": f"{type(error).__name__}: {error}"[:300]}
        result.update(model=args.model, precision=args.precision, batch=args.batch)
        results.append(result)
        print(json.dumps(result), flush=True)
        with open(args.json + ".tmp", "w") as f:
            json.dump(results, f, indent=1)
        os.replace(args.json + ".tmp", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
