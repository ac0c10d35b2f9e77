#!/usr/bin/env python3
"""Tuning cost on the GPU machine (issue 8: "Tuning ResNet-50 from scratch takes under 5
minutes; with a warm cache, compile takes under 10 s"). bench/tune.sh is the entry point.

For each model: `kiln compile` with an empty timing cache (cold: every tunable kernel is
measured on the GPU), then again with the cache it left (warm: nothing is measured), and a
table of model, kernels tuned, candidates measured, cold and warm compile seconds.

Models: synthetic f16 GEMMs (what the sm90 template takes today, so the GPU timer really
runs), ResNet-50 and BERT-base (materialized from the shared graph-only files, as
test/models/check-models.py does) as exported (fp32) and converted to fp16 (initializers,
inputs, outputs, constants and casts to float become float16).

usage: tune.py --kiln KILN --shared DIR --out DIR [--models a,b] [--budget SECONDS]
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SEQUENCE = 128


def gemm_model(path, m, n, k):
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT16, [m, k])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT16, [k, n])
    c = helper.make_tensor_value_info("c", TensorProto.FLOAT16, [m, n])
    graph = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["c"], name="MatMul_0")],
                              f"gemm_{m}x{n}x{k}", [a, b], [c])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)
    return f"a:{m}x{k},b:{k}x{n}"


def to_fp16(source, target):
    """Float tensors become float16 (a rough converter: enough for exported CNNs and BERT)."""
    model = onnx.load(source)
    graph = model.graph
    for init in graph.initializer:
        if init.data_type == TensorProto.FLOAT:
            init.CopyFrom(numpy_helper.from_array(
                numpy_helper.to_array(init).astype(np.float16), init.name))
    for value in list(graph.input) + list(graph.output):
        if value.type.tensor_type.elem_type == TensorProto.FLOAT:
            value.type.tensor_type.elem_type = TensorProto.FLOAT16
    del graph.value_info[:]
    for node in graph.node:
        for attr in node.attribute:
            if node.op_type == "Cast" and attr.name == "to" and attr.i == TensorProto.FLOAT:
                attr.i = TensorProto.FLOAT16
            if attr.type == onnx.AttributeProto.TENSOR and attr.t.data_type == TensorProto.FLOAT:
                attr.t.CopyFrom(numpy_helper.from_array(
                    numpy_helper.to_array(attr.t).astype(np.float16), attr.t.name))
    onnx.save(model, target)


def compile_once(kiln, model, shapes, engine, cache, budget, log):
    command = [kiln, "compile", model, "-o", engine, "--timing-cache", cache,
               "--tune-budget", str(budget)]
    if shapes:
        command += ["--shapes", shapes]
    start = time.time()
    with open(log, "w") as out:
        code = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT).returncode
    seconds = time.time() - start
    text = open(log, errors="replace").read()
    tuned = re.search(r"tuned (\d+) kernels \((\d+) measured, (\d+) from the timing cache", text)
    measured = sum(int(m) for m in re.findall(r": \d+ configs, (\d+) measured", text))
    return code, seconds, tuned, measured, text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--shared", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default="gemm-1024,gemm-4096,resnet50,resnet50-fp16,"
                                            "bert_base,bert_base-fp16")
    parser.add_argument("--budget", type=float, default=300)
    parser.add_argument("--deadline", type=float, default=0,
                        help="start no model after this many seconds (0: no limit)")
    args = parser.parse_args()
    began = time.time()
    work = os.path.join(args.out, "work")
    os.makedirs(work, exist_ok=True)
    materialized = {}

    def real(name):
        if name not in materialized:
            source = os.path.join(args.shared, f"{name}.legacy17.onnx")
            target = os.path.join(work, f"{name}.onnx")
            subprocess.run([sys.executable, os.path.join(args.shared, "materialize.py"), source,
                            target], check=True, stdout=subprocess.DEVNULL)
            materialized[name] = target
        return materialized[name]

    rows = []
    for name in args.models.split(","):
        if args.deadline and time.time() - began > args.deadline:
            rows.append((name, "-", "-", "-", "-", "not run: --deadline reached"))
            continue
        try:
            if name.startswith("gemm-"):
                size = int(name.split("-")[1])
                model = os.path.join(work, f"{name}.onnx")
                shapes = gemm_model(model, size, size, size // 2 if size <= 1024 else size)
            else:
                base, _, precision = name.partition("-")
                model = real(base)
                if precision == "fp16":
                    converted = os.path.join(work, f"{name}.onnx")
                    to_fp16(model, converted)
                    model = converted
                shapes = ("input:1x3x224x224" if base == "resnet50" else
                          ",".join(f"{n}:1x{SEQUENCE}" for n in
                                   ("input_ids", "attention_mask", "token_type_ids")))
        except Exception as error:  # a model that cannot be prepared is a row, not a stop
            rows.append((name, "-", "-", "-", "-", f"prepare: {error}"))
            continue
        cache = os.path.join(work, f"{name}.timing-cache.json")
        if os.path.exists(cache):
            os.remove(cache)
        engine = os.path.join(work, f"{name}.kiln")
        cold = compile_once(args.kiln, model, shapes, engine, cache, args.budget,
                            os.path.join(work, f"{name}.cold.log"))
        warm = compile_once(args.kiln, model, shapes, engine, cache, args.budget,
                            os.path.join(work, f"{name}.warm.log"))
        note = ""
        for label, result in (("cold", cold), ("warm", warm)):
            if result[0] != 0:
                lines = [l for l in result[4].splitlines() if "error" in l] or result[4].splitlines()[-1:]
                note += f"{label} failed: {lines[0][:120] if lines else '?'} "
        if warm[2] and int(warm[2].group(2)) > 0:
            note += f"warm measured {warm[2].group(2)} kernels "
        tuned = cold[2].group(1) if cold[2] else "0"
        rows.append((name, tuned, str(cold[3]), f"{cold[1]:.1f}", f"{warm[1]:.1f}", note.strip()))
        print(f"{name}: tuned {tuned}, measured {cold[3]}, cold {cold[1]:.1f} s, "
              f"warm {warm[1]:.1f} s {note}", flush=True)
        for line in cold[4].splitlines():
            if "tuning" in line or "skipped" in line or "no GPU" in line:
                print("  " + line, flush=True)

    print()
    print("| model | kernels tuned | candidates measured | cold s | warm s | notes |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
