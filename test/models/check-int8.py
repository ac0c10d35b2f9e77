#!/usr/bin/python3
"""The INT8 accuracy report (issue 9): each model compiled fp32 and --int8, on held-out
inputs, per output SQNR (dB) of the int8 engine against the fp32 one and, for classifiers,
argmax agreement.

Inputs have natural statistics, not white noise: images with a 1/f^2 power spectrum (as
natural images have) scaled to [0, 1] and normalised with ImageNet's mean and std;
token ids from a Zipf law over the vocabulary, masks of random lengths. Calibration and
held-out sets come from different seeds.

    /usr/bin/python3 test/models/check-int8.py [--only PATTERN] [--device cpu|cuda]
        [--calib-samples N] [--held-out N] [--batch B] [--calib-method M]
        [--channels-last] [--fp16] [--int8-min-sqnr DB]

With --device cpu (every machine) each run goes through `kiln run MODEL.onnx`; with cuda
the fp32 and int8 engines are compiled once (`kiln compile`, the int8 one with --int8
--calib and a calibration cache) and run per batch. Prints one row per model output and a
final line "int8: N passed, N failed" (SQNR at least --min-sqnr, 20 dB by default, and
argmax agreement at least 95 % for outputs of shape [batch, classes]).

--channels-last compiles (or runs) both engines channels last, which is where the GPU's
int8 convolution kernels apply; --fp16 makes the int8 engine's other layers f16, as
TensorRT's --int8 --fp16 (the fp32 engine stays the reference); --int8-min-sqnr keeps
the layers that lose more than that alone in floats (kiln's option of that name).
"""

import argparse
import fnmatch
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
from model_tools import find_shared, materialize, sanitize, to_numpy_dtype, vocab_size  # noqa: E402

BUILD = os.path.join(ROOT, os.environ.get("KILN_BUILD_DIR", "build"))
IMAGENET_MEAN = np.array([0.485, 0.456, 0.406])
IMAGENET_STD = np.array([0.229, 0.224, 0.225])
SEQUENCE = 32


def natural_images(rng, shape):
    """[N, C, H, W] images with a 1/f^2 power spectrum, ImageNet-normalised."""
    n, c, h, w = shape
    noise = rng.standard_normal((n, c, h, w))
    spectrum = np.fft.rfft2(noise)
    fy = np.fft.fftfreq(h)[:, None]
    fx = np.fft.rfftfreq(w)[None, :]
    spectrum /= 1.0 + np.sqrt(fy ** 2 + fx ** 2) / 0.02
    images = np.fft.irfft2(spectrum, s=(h, w))
    low = images.min(axis=(1, 2, 3), keepdims=True)
    images = (images - low) / (np.ptp(images, axis=(1, 2, 3), keepdims=True) + 1e-9)
    if c == 3:
        images = (images - IMAGENET_MEAN[None, :, None, None]) / IMAGENET_STD[None, :, None, None]
    return images.astype(np.float32)


def model_inputs(graph, count, seed):
    """`count` samples of every graph input, with natural statistics."""
    rng = np.random.default_rng(seed)
    initializers = {t.name for t in graph.initializer}
    inputs = {}
    for value in graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        dtype = to_numpy_dtype(tensor.elem_type)
        shape = [count] + [d.dim_value if d.HasField("dim_value") else SEQUENCE
                           for d in list(tensor.shape.dim)[1:]]
        if np.issubdtype(dtype, np.floating) and len(shape) == 4:
            array = natural_images(rng, shape)
        elif np.issubdtype(dtype, np.floating):
            array = rng.standard_normal(shape).astype(dtype)
        elif "mask" in value.name:
            lengths = rng.integers(shape[-1] // 2, shape[-1] + 1, count)
            array = (np.arange(shape[-1])[None, :] < lengths[:, None]).astype(dtype)
            array = np.broadcast_to(array.reshape([count] + [1] * (len(shape) - 2) +
                                                  [shape[-1]]), shape).astype(dtype)
        elif "token_type" in value.name:
            array = np.zeros(shape, dtype)
        else:
            vocab = vocab_size(graph, value.name) or 30522
            array = np.minimum(rng.zipf(1.2, shape) + 999, vocab - 1).astype(dtype)
        inputs[value.name] = array
    return inputs


def sqnr_db(reference, result):
    noise = np.sum((reference - result) ** 2)
    signal = np.sum(reference ** 2)
    return float("inf") if noise == 0 else float(10 * np.log10(signal / noise))


def run(command, log):
    with open(log, "w") as f:
        return subprocess.run(command, stdout=f, stderr=subprocess.STDOUT).returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="*legacy17*")
    parser.add_argument("--kiln", default=os.path.join(BUILD, "bin", "kiln"))
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--calib-samples", type=int, default=16)
    parser.add_argument("--held-out", type=int, default=8)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--calib-method", default="minmax")
    parser.add_argument("--min-sqnr", type=float, default=20.0)
    parser.add_argument("--channels-last", action="store_true")
    parser.add_argument("--fp16", action="store_true")
    parser.add_argument("--int8-min-sqnr", type=float, default=0)
    parser.add_argument("--tune-budget", default="0",
                        help="with --device cuda: kiln compile's --tune-budget (seconds)")
    parser.add_argument("--out", default=os.path.join(BUILD, "int8-check"))
    args = parser.parse_args()

    shared = find_shared()
    names = sorted(f[:-5] for f in os.listdir(shared)
                   if f.endswith(".onnx") and fnmatch.fnmatch(f[:-5], args.only))
    passed = failed = 0
    print(f"{'model':28} {'output':24} {'SQNR dB':>8} {'argmax':>8}  result")
    for name in names:
        os.makedirs(os.path.join(BUILD, "models"), exist_ok=True)
        model, _ = materialize(shared, os.path.join(shared, name + ".onnx"),
                               os.path.join(BUILD, "models"))
        graph = onnx.load(model, load_external_data=False).graph
        work = os.path.join(args.out, name)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(os.path.join(work, "calib"))
        for input_name, array in model_inputs(graph, args.calib_samples, 1).items():
            np.save(os.path.join(work, "calib", input_name + ".npy"), array)
        held = model_inputs(graph, args.held_out, 2)
        cache = os.path.join(work, "calibration.json")
        outputs = {"fp32": [], "int8": []}
        engines = {}
        layout = ["--channels-last"] if args.channels_last else []
        int8_flags = ["--int8", "--calib", os.path.join(work, "calib"), "--calib-method",
                      args.calib_method, "--calib-cache", cache] + (
                          ["--fp16"] if args.fp16 else []) + (
                          ["--int8-min-sqnr", str(args.int8_min_sqnr)]
                          if args.int8_min_sqnr > 0 else [])
        if args.device == "cuda":
            shapes = ",".join(f"{n}:{'x'.join(map(str, [args.batch] + list(a.shape[1:])))}"
                              for n, a in held.items())
            for variant, extra in (("fp32", layout), ("int8", layout + int8_flags)):
                engines[variant] = os.path.join(work, variant + ".kiln")
                code = run([args.kiln, "compile", model, "-o", engines[variant], "--shapes",
                            shapes, "--tune-budget", args.tune_budget] + extra,
                           os.path.join(work, variant + "-compile.log"))
                if code != 0:
                    print(f"{name:28} {'':24} {'':>8} {'':>8}  FAIL: {variant} compile exit {code}")
                    failed += 1
                    engines = None
                    break
            if engines is None:
                continue
        broken = False
        for first in range(0, args.held_out - args.batch + 1, args.batch):
            batch_dir = os.path.join(work, f"held-{first}")
            os.makedirs(batch_dir)
            flags = []
            for input_name, array in held.items():
                path = os.path.join(batch_dir, sanitize(input_name) + ".npy")
                np.save(path, array[first:first + args.batch])
                flags += ["--input", f"{input_name}={path}"]
            for variant in ("fp32", "int8"):
                out_dir = os.path.join(batch_dir, variant)
                if args.device == "cuda":
                    command = [args.kiln, "run", engines[variant]]
                else:
                    command = [args.kiln, "run", model, "--device", "cpu"] + layout + (
                        int8_flags if variant == "int8" else [])
                code = run(command + flags + ["--output-dir", out_dir, "--quiet"],
                           os.path.join(batch_dir, variant + ".log"))
                if code != 0:
                    print(f"{name:28} {'':24} {'':>8} {'':>8}  FAIL: {variant} run exit {code}")
                    broken = True
                    break
                outputs[variant].append({o.name: np.load(os.path.join(out_dir, sanitize(o.name)
                                                                      + ".npy"))
                                         for o in graph.output})
            if broken:
                break
        if broken:
            failed += 1
            continue
        for output in graph.output:
            reference = np.concatenate([o[output.name] for o in outputs["fp32"]]).astype(np.float64)
            result = np.concatenate([o[output.name] for o in outputs["int8"]]).astype(np.float64)
            sqnr = sqnr_db(reference, result)
            agreement = None
            if reference.ndim == 2 and reference.shape[1] > 1:
                agreement = float(np.mean(reference.argmax(1) == result.argmax(1)))
            ok = sqnr >= args.min_sqnr and (agreement is None or agreement >= 0.95)
            passed += ok
            failed += not ok
            shown = "" if agreement is None else f"{100 * agreement:.0f} %"
            print(f"{name:28} {output.name[:24]:24} {sqnr:8.1f} {shown:>8}  "
                  f"{'ok' if ok else 'FAIL'}", flush=True)
    print(f"int8: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
