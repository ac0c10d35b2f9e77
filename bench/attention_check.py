#!/usr/bin/env python3
"""The flash-attention kernel (flash_attention) end to end on the GPU machine.

Part 1, correctness: one-attention ONNX models written as exporters write them
(Transpose, MatMul, Mul, [Add mask | Where causal], Softmax, [IsNaN/Where guard], MatMul)
over a spread of shapes: tails (S = 197, 1), Sq != Skv, head dims 16 to 128, no mask, a
padding mask [B,1,1,Skv], a full mask [B,H,Sq,Skv], a causal Where, fully masked rows
with the NaN guard, [N,S,D] operands, bf16. Each is compiled with `kiln compile`
(sm_90a), checked to be one launch of the attention template (`kiln inspect --json`),
run with `kiln run --device cuda`, and compared with a float64 NumPy reference on the
rounded inputs and with ONNX Runtime (CPU) on the same model (relative L2; NaN fails).

Part 2, speed: the benchmark's shapes (b8 h12 d64 fp16, s128/s512, unmasked and causal)
under every configuration (`kiln compile --attention-config`), timed by `kiln bench` (CUDA
graph replay), next to torch SDPA timed the same way.

    python3 bench/attention_check.py --kiln build/bin/kiln --out DIR [--skip-sweep]

Prints a short table last; logs under DIR.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

F16, BF16 = "fp16", "bf16"


def rel_l2(out, ref):
    out, ref = np.asarray(out, np.float64), np.asarray(ref, np.float64)
    if not np.all(np.isfinite(out)) and not np.array_equal(np.isnan(out), np.isnan(ref)):
        return float("inf")
    ok = np.isfinite(ref)
    den = np.linalg.norm(ref[ok])
    return float(np.linalg.norm(out[ok] - ref[ok]) / den) if den else float(np.abs(out[ok]).max(initial=0))


def to_bf16_bits(array):
    """Round to nearest even from fp32, as bit patterns (the shape kept)."""
    array = np.asarray(array, np.float32)
    words = np.atleast_1d(array).view(np.uint32).astype(np.uint64)
    sixteen = np.uint64(16)
    bits = ((words + np.uint64(0x7FFF) + ((words >> sixteen) & np.uint64(1))) >> sixteen)
    return bits.astype(np.uint16).reshape(array.shape)


def round_to(array, dtype):
    if dtype == F16:
        return array.astype(np.float16).astype(np.float64)
    bits = np.atleast_1d(to_bf16_bits(array)).astype(np.uint32) << np.uint32(16)
    return bits.view(np.float32).astype(np.float64).reshape(np.shape(array))


def case_model(case, rng):
    """(model, inputs {name: fp32 array}, reference output float64)."""
    from onnx import TensorProto, helper, numpy_helper
    dt = TensorProto.FLOAT16 if case["dtype"] == F16 else TensorProto.BFLOAT16
    np_dt = np.float16
    lead = case["lead"]
    sq, skv, d = case["sq"], case["skv"], case["d"]
    inputs = {"q": rng.standard_normal(lead + [sq, d], dtype=np.float32),
              "k": rng.standard_normal(lead + [skv, d], dtype=np.float32),
              "v": rng.standard_normal(lead + [skv, d], dtype=np.float32)}
    rank = len(lead) + 2
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    scale = 1.0 / math.sqrt(d)
    inits = []
    scale_t = numpy_helper.from_array(np.array(scale, np.float32), "scale")
    if case["dtype"] == F16:
        scale_t = numpy_helper.from_array(np.array(scale, np_dt), "scale")
    else:
        scale_t = helper.make_tensor("scale", TensorProto.BFLOAT16, [],
                                     to_bf16_bits(np.array([scale])).tobytes(), raw=True)
    inits.append(scale_t)
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=perm),
             helper.make_node("MatMul", ["q", "kt"], ["s"]),
             helper.make_node("Mul", ["s", "scale"], ["scaled"])]
    scores = "scaled"
    mask_ref = None
    mask = case.get("mask")
    if mask == "causal":
        causal = np.tril(np.ones((sq, skv), bool))
        inits += [numpy_helper.from_array(causal[None, None] if rank == 4 else causal[None], "causal")]
        if case["dtype"] == F16:
            inits.append(numpy_helper.from_array(np.array(-np.inf, np_dt), "neg_inf"))
        else:
            inits.append(helper.make_tensor("neg_inf", TensorProto.BFLOAT16, [],
                                            np.array([0xFF80], np.uint16).tobytes(), raw=True))
        nodes.append(helper.make_node("Where", ["causal", "scaled", "neg_inf"], ["masked"]))
        scores = "masked"
        mask_ref = np.where(causal, 0.0, -np.inf)
    elif mask in ("padding", "full", "empty_rows"):
        if mask == "full":
            shape = lead + [sq, skv]
            m = rng.standard_normal(shape, dtype=np.float32) * 2
        else:
            shape = [lead[0]] + [1] * (rank - 3) + [1, skv]
            m = np.zeros(shape, np.float32)
            keep = max(1, skv * 2 // 3)
            m[..., keep:] = -10000.0
            if mask == "empty_rows":
                m[0] = -np.inf  # batch 0: every key masked out
        inputs["mask"] = m
        nodes.append(helper.make_node("Add", ["scaled", "mask"], ["masked"]))
        scores = "masked"
        mask_ref = round_to(m, case["dtype"])
    nodes.append(helper.make_node("Softmax", [scores], ["p"], axis=-1))
    probs = "p"
    if mask == "empty_rows":
        zero = numpy_helper.from_array(np.array(0, np_dt), "zero") if case["dtype"] == F16 else \
            helper.make_tensor("zero", TensorProto.BFLOAT16, [], b"\0\0", raw=True)
        inits.append(zero)
        nodes += [helper.make_node("IsNaN", ["p"], ["nan"]),
                  helper.make_node("Where", ["nan", "zero", "p"], ["guarded"])]
        probs = "guarded"
    nodes.append(helper.make_node("MatMul", [probs, "v"], ["y"]))
    infos = [helper.make_tensor_value_info(n, dt, list(a.shape)) for n, a in inputs.items()]
    graph = helper.make_graph(nodes, "attention", infos,
                              [helper.make_tensor_value_info("y", dt, lead + [sq, d])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)

    q, k, v = (round_to(inputs[n], case["dtype"]) for n in "qkv")
    s = q @ np.swapaxes(k, -1, -2) * round_to(np.array(scale), case["dtype"])
    if mask_ref is not None:
        s = s + mask_ref
    with np.errstate(invalid="ignore"):
        mx = s.max(-1, keepdims=True)
        e = np.exp(s - mx)
        p = e / e.sum(-1, keepdims=True)
    if mask == "empty_rows":
        p = np.where(np.isnan(p), 0.0, p)
    return model, inputs, p @ v


def save_input(path, array, dtype):
    if dtype == F16:
        np.save(path + ".npy", array.astype(np.float16))
        return path + ".npy"
    from onnx import TensorProto, helper
    tensor = helper.make_tensor("t", TensorProto.BFLOAT16, list(array.shape),
                                to_bf16_bits(array).tobytes(), raw=True)
    with open(path + ".pb", "wb") as f:
        f.write(tensor.SerializeToString())
    return path + ".pb"


def run(cmd, log, timeout=180, env=None):
    with open(log, "w") as f:
        try:
            return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout,
                                  env=env).returncode
        except subprocess.TimeoutExpired:
            f.write(f"timed out after {timeout} s\n")
            return 124


def attention_kernels(kiln, engine, work):
    out = subprocess.run([kiln, "inspect", engine, "--json"], capture_output=True, text=True)
    with open(os.path.join(work, "inspect.json"), "w") as f:
        f.write(out.stdout + out.stderr)
    try:
        kernels = json.loads(out.stdout)["kernels"]
    except Exception:
        return None, "?"
    configs = [k.get("config", "") for k in kernels if k.get("template") == "attention"]
    return len(kernels), configs[0] if configs else "generic"


def ort_output(model_path, inputs, dtype):
    if dtype != F16:
        return None
    try:
        import onnxruntime as ort
        sess = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
        feeds = {n: a.astype(np.float16) for n, a in inputs.items()}
        return sess.run(None, feeds)[0].astype(np.float64)
    except Exception as error:  # noqa: BLE001
        print("onnxruntime:", error)
        return None


def correctness(args, cases):
    import onnx
    rows = []
    for index, case in enumerate(cases):
        work = os.path.join(args.out, "work", f"c{index:02d}")
        os.makedirs(work, exist_ok=True)
        model, inputs, ref = case_model(case, np.random.default_rng(100 + index))
        path, engine = os.path.join(work, "model.onnx"), os.path.join(work, "model.kiln")
        onnx.save(model, path)
        row = {"case": case["name"], "dtype": case["dtype"]}
        forced = [f"--attention-config={case['config']}"] if case.get("config") else []
        if run([args.kiln, "compile", path, "-o", engine, "--quiet"] + forced,
               os.path.join(work, "compile.log"), args.timeout) != 0:
            rows.append({**row, "status": "compile failed"})
            continue
        count, config = attention_kernels(args.kiln, engine, work)
        row.update(kernels=count, config=config)
        feeds = []
        for name, array in inputs.items():
            feeds += ["--input", f"{name}={save_input(os.path.join(work, name), array, case['dtype'])}"]
        out_dir = os.path.join(work, "out")
        if case["dtype"] == F16:
            code = run([args.kiln, "run", engine, "--device", "cuda", "--quiet", "--output-dir",
                        out_dir] + feeds, os.path.join(work, "run.log"), args.timeout)
            if code != 0:
                rows.append({**row, "status": "run failed"})
                continue
            got = np.load(os.path.join(out_dir, "y.npy")).astype(np.float64)
            row["rel_l2"] = rel_l2(got, ref)
            theirs = ort_output(path, inputs, case["dtype"])
            if theirs is not None:
                row["ort_rel_l2"] = rel_l2(got, theirs)
            row["status"] = "ok" if row["rel_l2"] <= 1e-2 else "WRONG"
            # A second run must give the same bits (a race shows as a moving result).
            again_dir = os.path.join(work, "out2")
            if run([args.kiln, "run", engine, "--device", "cuda", "--quiet", "--output-dir",
                    again_dir] + feeds, os.path.join(work, "run2.log"), args.timeout) == 0:
                again = np.load(os.path.join(again_dir, "y.npy")).astype(np.float64)
                if not np.array_equal(again, got, equal_nan=True):
                    row["status"] = "NONDETERMINISTIC"
        else:
            scale = float(np.sqrt(np.mean(ref[np.isfinite(ref)] ** 2))) or 1.0
            expected = save_input(os.path.join(work, "expected"), ref, BF16)
            code = run([args.kiln, "run", engine, "--device", "cuda", "--quiet", "--expect",
                        "y=" + expected, "--rtol", "0.05", "--atol", str(0.05 * scale)] + feeds,
                       os.path.join(work, "run.log"), args.timeout)
            row["status"] = "ok" if code == 0 else ("WRONG" if code == 1 else "run failed")
        rows.append(row)
        print(f"{case['name']:40s} {row.get('config', ''):50s} rel_l2 {row.get('rel_l2', '-')} "
              f"ort {row.get('ort_rel_l2', '-')} {row['status']}", flush=True)
    return rows


def peer_ms(case, torch):
    from torch_peer import measure
    shape = (8, 12, case["seq"], 64)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.float16) for _ in range(3))
    fn = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=case["causal"])
    with torch.inference_mode():
        fn()
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            fn()
    return measure("sdpa", graph.replay, (), torch, 20, 0.5)["median_ms"]


def sweep(args, configs):
    import onnx
    import torch
    rows = []
    for seq in (128, 512):
        for causal in (False, True):
            case = {"name": f"b8 h12 s{seq} d64{' causal' if causal else ''}", "dtype": F16,
                    "lead": [8, 12], "sq": seq, "skv": seq, "d": 64,
                    "mask": "causal" if causal else None, "seq": seq, "causal": causal}
            work = os.path.join(args.out, "work", f"s{seq}{'c' if causal else ''}")
            os.makedirs(work, exist_ok=True)
            model, inputs, ref = case_model(case, np.random.default_rng(seq + causal))
            path = os.path.join(work, "model.onnx")
            onnx.save(model, path)
            feeds = []
            for name, array in inputs.items():
                feeds += ["--input", f"{name}={save_input(os.path.join(work, name), array, F16)}"]
            peer = peer_ms(case, torch)
            for config in configs:
                engine = os.path.join(work, f"{config}.kiln")
                row = {"case": case["name"], "config": config, "peer_ms": peer}
                if run([args.kiln, "compile", path, "-o", engine, "--quiet",
                        f"--attention-config={config}"],
                       os.path.join(work, f"{config}.compile.log")) != 0:
                    rows.append({**row, "status": "compile failed"})
                    continue
                row["used"] = attention_kernels(args.kiln, engine, work)[1]
                out_dir = os.path.join(work, "out")
                if run([args.kiln, "run", engine, "--device", "cuda", "--quiet", "--output-dir",
                        out_dir] + feeds, os.path.join(work, f"{config}.run.log")) != 0:
                    rows.append({**row, "status": "run failed"})
                    continue
                row["rel_l2"] = rel_l2(np.load(os.path.join(out_dir, "y.npy")), ref)
                bench_json = os.path.join(work, f"{config}.bench.json")
                if run([args.kiln, "bench", engine, "--warmup", "10", "--iterations", "50",
                        "--duration", "0.5", "--json", bench_json],
                       os.path.join(work, f"{config}.bench.log")) != 0:
                    rows.append({**row, "status": "bench failed"})
                    continue
                with open(bench_json) as f:
                    runs = sorted(json.load(f)["runs_ms"])
                row["kiln_ms"] = runs[len(runs) // 2]
                row["status"] = "ok" if row["rel_l2"] <= 1e-2 else "WRONG"
                rows.append(row)
                print(f"{case['name']:24s} {config:12s} kiln {row['kiln_ms'] * 1000:8.1f} us  "
                      f"sdpa {peer * 1000:6.1f} us  rel_l2 {row['rel_l2']:.2e} {row['status']}",
                      flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--skip-sweep", action="store_true")
    parser.add_argument("--timeout", type=int, default=180,
                        help="seconds a compile or run may take (a hung kernel fails its case)")
    parser.add_argument("--configs", default="64x64x2x4,128x64x2x8,64x64x3x4,128x64x3x8,"
                                              "64x128x2x4,128x128x2x8,64x32x2x4,128x32x2x8,"
                                              "64x64x2x4xwgmma,64x128x2x4xwgmma,"
                                              "128x64x2x8xwgmma")
    parser.add_argument("--filter", default="",
                        help="only the correctness cases whose name matches this regex")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    c = lambda name, lead, sq, skv, d, mask=None, dtype=F16: {
        "name": name, "lead": lead, "sq": sq, "skv": skv, "d": d, "mask": mask, "dtype": dtype}
    cases = [
        c("b2 h3 s128 d64", [2, 3], 128, 128, 64),
        c("b2 h3 s197 d64 (ViT tail)", [2, 3], 197, 197, 64),
        c("b2 h2 s1 d64", [2, 2], 1, 1, 64),
        c("b2 h3 sq77 skv200 d64", [2, 3], 77, 200, 64),
        c("b1 h2 s256 d128", [1, 2], 256, 256, 128),
        c("b2 h3 s197 d128", [2, 3], 197, 197, 128),
        c("b2 h3 s128 causal", [2, 3], 128, 128, 64, "causal"),
        c("b2 h3 s197 causal", [2, 3], 197, 197, 64, "causal"),
        c("b1 h2 sq100 skv160 causal", [1, 2], 100, 160, 64, "causal"),
        c("b2 h3 s128 padding mask", [2, 3], 128, 128, 64, "padding"),
        c("b2 h3 sq70 skv90 full mask", [2, 3], 70, 90, 64, "full"),
        # The mask read as column pairs on whole tiles (rows past Sq clamped), one element
        # at a time on the tail tile and wherever a row starts at an odd element.
        c("b2 h3 sq100 skv200 full mask", [2, 3], 100, 200, 64, "full"),
        c("b2 h3 sq70 skv91 full mask (odd rows)", [2, 3], 70, 91, 64, "full"),
        c("b2 h3 sq100 skv200 full mask bf16", [2, 3], 100, 200, 64, "full", BF16),
        c("b2 h3 s64 empty rows nan_to_zero", [2, 3], 64, 64, 64, "empty_rows"),
        c("n12 s197 d64 (rank 3)", [12], 197, 197, 64),
        c("b2 h3 s128 d64 bf16", [2, 3], 128, 128, 64, None, BF16),
        c("b2 h3 s197 causal bf16", [2, 3], 197, 197, 64, "causal", BF16),
        # Head sizes other than 64 and 128 (multiples of 16 up to 128).
        c("b2 h8 s100 d32", [2, 8], 100, 100, 32),
        c("b2 h8 s300 d32 causal", [2, 8], 300, 300, 32, "causal"),
        c("b2 h4 s197 d96", [2, 4], 197, 197, 96),
        c("b1 h2 s77 d16", [1, 2], 77, 77, 16),
        c("b2 h3 sq70 skv90 d48 full mask", [2, 3], 70, 90, 48, "full"),
        c("b2 h3 s128 d80 padding mask", [2, 3], 128, 128, 80, "padding"),
        c("b2 h8 s100 d32 bf16", [2, 8], 100, 100, 32, None, BF16),
    ]
    for name, lead, sq, skv, d, config in [
            ("b2 h8 s100 d32", [2, 8], 100, 100, 32, "128x64x2x4"),
            ("b2 h8 s100 d32", [2, 8], 100, 100, 32, "128x32x2x8"),
            ("b2 h4 s197 d96", [2, 4], 197, 197, 96, "64x64x3x4"),
            ("b2 h4 s197 d96", [2, 4], 197, 197, 96, "128x64x2x8")]:
        cases.append({**c(f"{name} [{config}]", lead, sq, skv, d), "config": config})
    # The same functions under the other configurations (32 rows a warp, 3 stages, ...).
    for name, lead, sq, skv, mask, dtype, config in [
            ("b2 h3 s197 d64", [2, 3], 197, 197, None, F16, "128x64x2x4"),
            ("b2 h3 sq77 skv200 d64", [2, 3], 77, 200, None, F16, "128x32x2x4"),
            ("b2 h3 s197 causal", [2, 3], 197, 197, "causal", F16, "128x64x3x4"),
            ("b1 h2 sq100 skv160 causal", [1, 2], 100, 160, "causal", F16, "128x64x2x8"),
            ("b2 h3 sq70 skv90 full mask", [2, 3], 70, 90, "full", F16, "128x64x2x4"),
            ("b2 h3 s64 empty rows nan_to_zero", [2, 3], 64, 64, "empty_rows", F16, "128x64x2x4"),
            ("b2 h3 s197 causal bf16", [2, 3], 197, 197, "causal", BF16, "128x64x2x4"),
            ("b2 h3 s300 d64", [2, 3], 300, 300, None, F16, "64x128x2x4"),
            # The wgmma variant (sm_90a, D 64) under each of its configurations.
            ("b2 h3 s197 d64", [2, 3], 197, 197, None, F16, "64x64x2x4xwgmma"),
            ("b2 h3 sq77 skv200 d64", [2, 3], 77, 200, None, F16, "128x64x2x8xwgmma"),
            ("b2 h3 s197 causal", [2, 3], 197, 197, "causal", F16, "64x64x3x4xwgmma"),
            ("b1 h2 sq100 skv160 causal", [1, 2], 100, 160, "causal", F16, "128x128x2x8xwgmma"),
            ("b2 h3 s128 padding mask", [2, 3], 128, 128, "padding", F16, "64x128x2x4xwgmma"),
            ("b2 h3 sq70 skv90 full mask", [2, 3], 70, 90, "full", F16, "128x64x3x8xwgmma"),
            ("b2 h3 sq100 skv200 full mask", [2, 3], 100, 200, "full", F16, "64x64x2x4xwgmma"),
            ("b2 h3 sq100 skv200 full mask", [2, 3], 100, 200, "full", F16, "64x128x2x4xwgmma"),
            ("b2 h3 sq70 skv91 full mask (odd rows)", [2, 3], 70, 91, "full", F16,
             "64x64x2x4xwgmma"),
            ("b2 h3 s128 padding mask", [2, 3], 128, 128, "padding", F16, "64x64x2x4xwgmma"),
            ("b2 h3 s64 empty rows nan_to_zero", [2, 3], 64, 64, "empty_rows", F16,
             "64x64x2x4xwgmma"),
            ("b2 h3 s197 causal bf16", [2, 3], 197, 197, "causal", BF16, "64x64x2x4xwgmma"),
            ("b2 h3 s300 d64 bf16", [2, 3], 300, 300, None, BF16, "64x128x2x4xwgmma")]:
        cases.append({**c(f"{name} [{config}]", lead, sq, skv, 64, mask, dtype), "config": config})
    # The TMA form (sm_90a: a producer warpgroup, two consumers taking turns) under each of
    # its configurations: tails of Q and K/V (TMA's zero fill), masks, causal, empty rows,
    # bf16, [N, S, D] operands, heads of one, two and four swizzle atoms.
    for name, lead, sq, skv, d, mask, dtype, config in [
            ("b2 h3 s197 d64", [2, 3], 197, 197, 64, None, F16, "128x128x2x12xwgmmaxtma"),
            ("b2 h3 sq77 skv200 d64", [2, 3], 77, 200, 64, None, F16, "128x64x2x12xwgmmaxtma"),
            ("b2 h3 s300 d64", [2, 3], 300, 300, 64, None, F16, "128x64x2x12xwgmmaxtma"),
            ("b2 h3 s197 causal", [2, 3], 197, 197, 64, "causal", F16, "128x128x2x12xwgmmaxtma"),
            ("b1 h2 sq100 skv160 causal", [1, 2], 100, 160, 64, "causal", F16,
             "128x64x2x12xwgmmaxtma"),
            ("b2 h3 s128 padding mask", [2, 3], 128, 128, 64, "padding", F16,
             "128x64x2x12xwgmmaxtma"),
            ("b2 h3 sq70 skv91 full mask (odd rows)", [2, 3], 70, 91, 64, "full", F16,
             "128x64x2x12xwgmmaxtma"),
            ("b2 h3 sq100 skv200 full mask", [2, 3], 100, 200, 64, "full", F16,
             "128x64x2x12xwgmmaxtma"),
            ("b2 h3 s64 empty rows nan_to_zero", [2, 3], 64, 64, 64, "empty_rows", F16,
             "128x64x2x12xwgmmaxtma"),
            ("n12 s197 d64 (rank 3)", [12], 197, 197, 64, None, F16, "128x128x2x12xwgmmaxtma"),
            ("b2 h3 s197 causal bf16", [2, 3], 197, 197, 64, "causal", BF16,
             "128x128x2x12xwgmmaxtma"),
            ("b1 h2 s256 d128", [1, 2], 256, 256, 128, None, F16, "128x128x2x12xwgmmaxtma"),
            ("b2 h3 s197 d128", [2, 3], 197, 197, 128, None, F16, "128x64x2x12xwgmmaxtma"),
            ("b2 h3 s197 d128 causal", [2, 3], 197, 197, 128, "causal", F16,
             "128x64x2x12xwgmmaxtma"),
            ("b2 h3 s128 d80 padding mask", [2, 3], 128, 128, 80, "padding", F16,
             "128x64x2x12xwgmmaxtma"),
            ("b2 h4 s197 d96", [2, 4], 197, 197, 96, None, F16, "128x64x2x12xwgmmaxtma"),
            # More work items than SMs: a CTA walks several (the Q buffers and the K/V
            # ring reused across items, the consumers' turns going on from one to the next).
            ("b8 h12 s300 d64", [8, 12], 300, 300, 64, None, F16, "128x128x2x12xwgmmaxtma"),
            ("b4 h16 s257 d128 causal", [4, 16], 257, 257, 128, "causal", F16,
             "128x64x2x12xwgmmaxtma"),
            ("b8 h12 sq200 skv150 full mask", [8, 12], 200, 150, 64, "full", F16,
             "128x64x2x12xwgmmaxtma"),
            ("b8 h12 s200 causal bf16", [8, 12], 200, 200, 64, "causal", BF16,
             "128x128x2x12xwgmmaxtma"),
            ("b8 h12 s300 d128", [8, 12], 300, 300, 128, None, F16, "128x128x2x12xwgmmaxtma"),
            ("b8 h12 s200 d64 causal", [8, 12], 200, 200, 64, "causal", F16,
             "128x128x2x12xwgmmaxtma"),
            ("b2 h3 sq100 skv200 d128 padding mask", [2, 3], 100, 200, 128, "padding", F16,
             "128x64x2x12xwgmmaxtma"),
            ("b8 h12 s300 d128 (64-key tiles)", [8, 12], 300, 300, 128, None, F16,
             "128x64x2x12xwgmmaxtma"),
            ("b4 h6 s333 d80", [4, 6], 333, 333, 80, None, F16, "128x128x2x12xwgmmaxtma"),
            # Heads wider than 128 (one Q buffer; 240 registers a consumer, 24 the producer).
            ("b8 h8 s300 d256", [8, 8], 300, 300, 256, None, F16, "128x64x2x12xwgmmaxtma"),
            ("b2 h3 sq100 skv200 d192 bf16", [2, 3], 100, 200, 192, None, BF16,
             "128x64x2x12xwgmmaxtma")]:
        cases.append({**c(f"{name} [{config}]", lead, sq, skv, d, mask, dtype), "config": config})
    if args.filter:
        import re
        cases = [case for case in cases if re.search(args.filter, case["name"])]
    started = time.perf_counter()
    rows = correctness(args, cases)
    sweep_rows = [] if args.skip_sweep else sweep(args, args.configs.split(","))
    with open(os.path.join(args.out, "attention.json"), "w") as f:
        json.dump({"correctness": rows, "sweep": sweep_rows}, f, indent=1)
    print(f"\n({time.perf_counter() - started:.0f} s)\n")
    print("| case | dtype | kernels | config | rel L2 (f64) | rel L2 (ORT) | status |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        fmt = lambda v: f"{v:.2e}" if isinstance(v, float) else "–"
        print(f"| {r['case']} | {r['dtype']} | {r.get('kernels', '–')} | {r.get('config', '–')} | "
              f"{fmt(r.get('rel_l2'))} | {fmt(r.get('ort_rel_l2'))} | {r['status']} |")
    if sweep_rows:
        print("\n| case | config | Kiln us | SDPA us | SDPA / Kiln | rel L2 | status |")
        print("|---|---|---|---|---|---|---|")
        for r in sweep_rows:
            k, p = r.get("kiln_ms"), r.get("peer_ms")
            print(f"| {r['case']} | {r['config']} | {k * 1000:.1f} | {p * 1000:.1f} | {p / k:.2f} | "
                  f"{r.get('rel_l2', float('nan')):.1e} | {r['status']} |" if k else
                  f"| {r['case']} | {r['config']} | – | – | – | – | {r['status']} |")


if __name__ == "__main__":
    main()
