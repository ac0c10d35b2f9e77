#!/usr/bin/env python3
"""Times one model in PyTorch on the GPU at one precision and batch, the way `kiln bench`
times an engine: each run between two CUDA events on the stream, synchronized after each,
after warmup; the median and the other percentiles of the runs. Two peers, one after the
other in this process:

  eager          the module as it is;
  compile-ro     torch.compile(mode="reduce-overhead"): Inductor's kernels replayed as a
                 CUDA graph (static shapes: dynamic=False).

Precision: fp32 (TF32 allowed in matrix products and convolutions, PyTorch's fastest fp32),
fp16 or bf16 (weights and activations). Writes a JSON list of one result per peer.

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
            elif peer == "compile-ro":
                torch._dynamo.reset()
                compiled = torch.compile(module, mode="reduce-overhead", dynamic=False)
                # Each call starts a new CUDA-graph step: the previous outputs may be
                # overwritten (they are not read).
                result = measure(peer, compiled, inputs, torch, args.min_runs, args.min_seconds,
                                 before_run=torch.compiler.cudagraph_mark_step_begin)
                result["compile_s"] = result["first_run_s"]
            else:
                raise ValueError(f"unknown peer '{peer}'")
        except Exception as error:  # noqa: BLE001 - recorded as the peer's failure
            traceback.print_exc()
            result = {"system": peer, "error": f"{type(error).__name__}: {error}"[:300]}
        result.update(model=args.model, precision=args.precision, batch=args.batch)
        results.append(result)
        print(json.dumps(result), flush=True)
    with open(args.json, "w") as f:
        json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
