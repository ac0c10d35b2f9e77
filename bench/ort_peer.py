#!/usr/bin/env python3
"""Times one ONNX model in ONNX Runtime on the GPU, when this onnxruntime has a GPU
execution provider (TensorRT or CUDA), the way bench/torch_peer.py times PyTorch: inputs
and outputs bound on the device (IOBinding, so no host copies are timed), each run between
two CUDA events, synchronized after each. Writes a JSON list with one result.

    python3 bench/ort_peer.py --model MODEL.onnx --inputs-dir DIR --precision fp32 --json FILE
"""

import argparse
import json
import os
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "test", "models"))
from model_tools import sanitize  # noqa: E402
from timing import summarize, warmup_and_time  # noqa: E402

GPU_PROVIDERS = ("TensorrtExecutionProvider", "CUDAExecutionProvider")


def gpu_provider():
    """The GPU execution provider ONNX Runtime would use here, or None."""
    try:
        import onnxruntime
    except ImportError:
        return None
    available = onnxruntime.get_available_providers()
    return next((p for p in GPU_PROVIDERS if p in available), None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--inputs-dir", required=True, help="NAME.npy for each input (as bench/run.py writes them)")
    parser.add_argument("--precision", required=True, choices=["fp32", "fp16"])
    parser.add_argument("--min-runs", type=int, default=50)
    parser.add_argument("--min-seconds", type=float, default=1.0)
    parser.add_argument("--json", required=True)
    args = parser.parse_args()

    import onnxruntime
    import torch  # CUDA events and device buffers

    provider = gpu_provider()
    result = {"system": "ort-" + ("tensorrt" if provider and "Tensorrt" in provider else "cuda")}
    try:
        if provider is None:
            raise RuntimeError("no GPU execution provider in this onnxruntime")
        options = [{"trt_fp16_enable": args.precision == "fp16"}] if "Tensorrt" in provider else [{}]
        start = time.perf_counter()
        session = onnxruntime.InferenceSession(args.model, providers=[provider],
                                               provider_options=options)
        binding = session.io_binding()
        for value in session.get_inputs():
            array = np.load(os.path.join(args.inputs_dir, sanitize(value.name) + ".npy"))
            binding.bind_ortvalue_input(
                value.name, onnxruntime.OrtValue.ortvalue_from_numpy(array, "cuda", 0))
        for value in session.get_outputs():
            binding.bind_output(value.name, "cuda", 0)
        session.run_with_iobinding(binding)
        result["compile_s"] = time.perf_counter() - start

        def run_once():
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            # ONNX Runtime runs on its own stream and returns once the outputs are ready;
            # the events, on an idle stream, bracket that.
            begin.record()
            session.run_with_iobinding(binding)
            end.record()
            end.synchronize()
            return begin.elapsed_time(end)

        millis, warmup = warmup_and_time(run_once, args.min_runs, args.min_seconds)
        result.update(summarize(millis))
        result["warmup"] = warmup
    except Exception as error:  # noqa: BLE001 - recorded as the peer's failure
        traceback.print_exc()
        result["error"] = f"{type(error).__name__}: {error}"[:300]
    with open(args.json, "w") as f:
        json.dump([result], f, indent=1)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
