#!/usr/bin/env python3
"""Tuning a whole model (issue 8's acceptance): ResNet-50 in fp16 at batch 32, compiled
channels-last by `kiln compile` with an empty timing cache (every kernel with candidates is
measured on the GPU), then again with the cache the first compile wrote. Reports both
compile times, how many kernels the tensor-core templates took, the engine's result against
ONNX Runtime (fp32 arithmetic on the same fp16-rounded weights and input) and its latency.

The model is the shared legacy export (../shared/models/resnet50.legacy17.onnx), given its
deterministic weights by materialize.py and converted to fp16 here: every float
initializer, graph input, output and value type becomes float16.

    python3 bench/tune_resnet.py --kiln build/bin/kiln --out DIR [--batch 32]

Runs on the GPU machine (it needs onnx, numpy and onnxruntime); writes DIR/tune_resnet.json,
the compile logs and `kiln inspect` of the engine, and prints a short table last.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# rel L2 of the fp16 engine against fp32 arithmetic on the same rounded weights and input:
# 53 layers of fp16 rounding (accumulation in fp32) stay well inside it.
TOLERANCE = 2e-2


def to_fp16(model):
    """The model with every float tensor, value and constant in float16."""
    import onnx
    from onnx import TensorProto, numpy_helper
    graph = model.graph
    for index, tensor in enumerate(graph.initializer):
        if tensor.data_type == TensorProto.FLOAT:
            array = numpy_helper.to_array(tensor).astype(np.float16)
            graph.initializer[index].CopyFrom(numpy_helper.from_array(array, tensor.name))
    for value in list(graph.input) + list(graph.output) + list(graph.value_info):
        if value.type.tensor_type.elem_type == TensorProto.FLOAT:
            value.type.tensor_type.elem_type = TensorProto.FLOAT16
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.TENSOR and \
                    attribute.t.data_type == TensorProto.FLOAT:
                array = numpy_helper.to_array(attribute.t).astype(np.float16)
                attribute.t.CopyFrom(numpy_helper.from_array(array, attribute.t.name))
            if node.op_type == "Cast" and attribute.name == "to" and \
                    attribute.i == TensorProto.FLOAT:
                attribute.i = TensorProto.FLOAT16
    return model


def rounded_fp32(model):
    """The fp32 model with its float initializers rounded to fp16 (ONNX Runtime's side)."""
    from onnx import TensorProto, numpy_helper
    for index, tensor in enumerate(model.graph.initializer):
        if tensor.data_type == TensorProto.FLOAT:
            array = numpy_helper.to_array(tensor).astype(np.float16).astype(np.float32)
            model.graph.initializer[index].CopyFrom(numpy_helper.from_array(array, tensor.name))
    return model


def run_logged(command, log, timeout):
    with open(log, "w") as f:
        start = time.perf_counter()
        try:
            code = subprocess.run(command, stdout=f, stderr=subprocess.STDOUT,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            f.write(f"\ntimed out after {timeout} s\n")
            code = 124
        return code, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kiln", default=os.path.join(ROOT, "build", "bin", "kiln"))
    parser.add_argument("--out", default="/tmp/kiln-tune-resnet")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--timeout", type=int, default=420, help="seconds per kiln step")
    args = parser.parse_args()
    import onnx
    import onnxruntime

    os.makedirs(args.out, exist_ok=True)
    work = os.path.join(args.out, "work")
    os.makedirs(work, exist_ok=True)
    shared = os.environ.get("KILN_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
    source = os.path.join(shared, "models", "resnet50.legacy17.onnx")
    materialized = os.path.join(work, "resnet50.onnx")
    subprocess.run([sys.executable, os.path.join(shared, "models", "materialize.py"), source,
                    materialized], check=True)
    fp16_path, reference_path = (os.path.join(work, "resnet50_fp16.onnx"),
                                 os.path.join(work, "resnet50_ref.onnx"))
    onnx.save(to_fp16(onnx.load(materialized)), fp16_path)
    onnx.save(rounded_fp32(onnx.load(materialized)), reference_path)

    model = onnx.load(fp16_path, load_external_data=False)
    input_name, output_name = model.graph.input[0].name, model.graph.output[0].name
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.batch, 3, 224, 224), dtype=np.float32).astype(np.float16)
    np.save(os.path.join(work, "input.npy"), x)
    session = onnxruntime.InferenceSession(reference_path, providers=["CPUExecutionProvider"])
    expected = session.run(None, {input_name: x.astype(np.float32)})[0].astype(np.float64)

    engine, cache = os.path.join(work, "resnet50_fp16.kiln"), os.path.join(work, "cache.json")
    if os.path.exists(cache):
        os.remove(cache)
    compile_command = [args.kiln, "compile", fp16_path, "-o", engine, "--channels-last",
                       f"--shapes={input_name}:{args.batch}x3x224x224", f"--timing-cache={cache}"]
    result = {"batch": args.batch, "commit": os.environ.get("KILN_COMMIT", "")}
    code, result["cold_compile_s"] = run_logged(
        compile_command, os.path.join(args.out, "compile-cold.log"), args.timeout)
    if code != 0:
        result["status"] = "cold compile failed"
    else:
        code, result["warm_compile_s"] = run_logged(
            compile_command, os.path.join(args.out, "compile-warm.log"), args.timeout)
        result["status"] = "ok" if code == 0 else "warm compile failed"
    if result["status"] == "ok":
        inspect_log = os.path.join(args.out, "inspect.log")
        run_logged([args.kiln, "inspect", engine], inspect_log, 60)
        with open(inspect_log) as f:
            lines = [line.strip() for line in f]
        # "kernels (N)", then per kernel "name: template, module ..." and, for a template's
        # kernel, "config: ...".
        result["kernels"] = next(int(line.split("(")[1].rstrip(")")) for line in lines
                                 if line.startswith("kernels ("))
        result["template_kernels"] = sum(line.startswith("config: sm90") or
                                         line.startswith("config: flash") for line in lines)
        with open(cache) as f:
            result["measured_candidates"] = len(json.load(f).get("entries", []))
        out_dir = os.path.join(work, "out")
        code, _ = run_logged([args.kiln, "run", engine, "--device", "cuda", "--quiet", "--input",
                              f"{input_name}={os.path.join(work, 'input.npy')}",
                              "--output-dir", out_dir], os.path.join(args.out, "run.log"),
                             args.timeout)
        if code == 0:
            produced = np.load(os.path.join(out_dir, output_name + ".npy")).astype(np.float64)
            result["rel_l2"] = float(np.linalg.norm(produced - expected) /
                                     np.linalg.norm(expected))
            result["correct"] = bool(result["rel_l2"] <= TOLERANCE)
        bench_json = os.path.join(work, "bench.json")
        code, _ = run_logged([args.kiln, "bench", engine, "--warmup", "10", "--iterations", "50",
                              "--json", bench_json], os.path.join(args.out, "bench.log"),
                             args.timeout)
        if code == 0:
            with open(bench_json) as f:
                result["latency_ms"] = float(np.median(json.load(f)["runs_ms"]))
    with open(os.path.join(args.out, "tune_resnet.json"), "w") as f:
        json.dump(result, f, indent=1)

    def show(key, fmt):
        return fmt.format(result[key]) if key in result else "-"
    print("| ResNet-50 fp16 batch {} | cold compile s | warm compile s | kernels on templates "
          "| candidates measured | rel L2 vs ORT | latency ms | status |".format(args.batch))
    print("|---|---|---|---|---|---|---|---|")
    print(f"| {result['commit']} | {show('cold_compile_s', '{:.1f}')} | "
          f"{show('warm_compile_s', '{:.1f}')} | "
          f"{result.get('template_kernels', '-')} of {result.get('kernels', '-')} | "
          f"{show('measured_candidates', '{}')} | {show('rel_l2', '{:.1e}')} | "
          f"{show('latency_ms', '{:.3f}')} | {result['status']}"
          f"{'' if result.get('correct', True) else ' (wrong)'} |")
    return 0 if result["status"] == "ok" and result.get("correct") else 1


if __name__ == "__main__":
    sys.exit(main())
