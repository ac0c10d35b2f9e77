#!/usr/bin/env python3
"""Flash-attention configurations side by side on the GPU, in one call: the attention cases
of bench/kernels.py (b8 h12 d64 fp16, s128/s512, unmasked and causal; or with `--family
attnforms` its attention forms: masks, rotary, head sizes 80 and 128), each compiled once
per variant (a configuration `kiln compile --attention-config` forces, or "tuned":
kernel-autotune measures the candidates in `kiln compile`), checked against PyTorch in fp32
(rel L2) and timed with `kiln bench`; SDPA is timed once per case in the same process.
A variant is CONFIG[@N][!f32exp]: `--attention-config=CONFIG`, with `@N`
`--attention-min-ctas=N` (the wgmma variant's CTAs an SM) and with `!f32exp`
`--attention-f32-exp` (exp2 in f32 for f16).

    python3 bench/attention_sweep.py --kiln build/bin/kiln --out DIR \\
        --variants tuned,64x64x2x4,128x64x2x8xwgmma,64x64x2x4xwgmma@3,64x128x2x4xwgmma!f32exp \\
        [--filter s512] [--family attnforms]

Writes DIR/sweep.json, DIR/sweep.md and prints the table last (ms; SDPA / Kiln in brackets).
"""

import argparse
import json
import os
import re
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402


def variant_flags(variant):
    """The `kiln compile` flags of a variant CONFIG[@N][!f32exp]: the forced configuration,
    the wgmma variant's CTAs an SM (@N), exp2 in f32 for f16 (!f32exp)."""
    spec, _, extra = variant.partition("!")
    config, _, min_ctas = spec.partition("@")
    flags = [f"--attention-config={config}"]
    if min_ctas:
        flags.append(f"--attention-min-ctas={min_ctas}")
    if extra == "f32exp":
        flags.append("--attention-f32-exp")
    return flags


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kiln", default=os.path.join(kernels.ROOT, "build", "bin", "kiln"))
    parser.add_argument("--out", default="/tmp/kiln-attention-sweep")
    parser.add_argument("--variants", default="tuned")
    parser.add_argument("--filter", default="")
    parser.add_argument("--family", default="attention", choices=("attention", "attnforms"),
                        help="bench/kernels.py's attention cases, or its attention forms")
    parser.add_argument("--timeout", type=int, default=60)
    parser.add_argument("--deadline", type=float, default=300,
                        help="seconds after which no new variant starts")
    args = parser.parse_args()
    import torch

    # The long sequences first: under a deadline they matter most.
    family = kernels.attention_cases if args.family == "attention" else kernels.attention_form_cases
    cases = sorted((c for c in family() if re.search(args.filter, c["name"])),
                   key=lambda c: -c["seq"])
    variants = args.variants.split(",")
    os.makedirs(args.out, exist_ok=True)
    started, rows = time.perf_counter(), []
    for index, case in enumerate(cases):
        model, inputs = kernels.case_model(case, np.random.default_rng(index + 1))
        peer = kernels.peer_side(case, inputs, torch)
        row = {"name": case["name"], "flops": case["flops"], "sdpa": peer, "kiln": {}}
        for variant in variants:
            if time.perf_counter() - started > args.deadline:
                row["kiln"][variant] = {"status": "skipped (deadline)"}
                continue
            work = os.path.join(args.out, "work", f"{index:02d}-{variant}")
            os.makedirs(work, exist_ok=True)
            flags = []
            if variant == "tuned":
                os.environ["KILN_CACHE_DIR"] = os.path.join(args.out, "cache")
            else:
                flags = variant_flags(variant)
            result = kernels.kiln_side(dict(case, kiln_flags=flags), model, inputs, args.kiln,
                                       work, torch, args.timeout)
            if variant == "tuned" and os.path.exists(os.path.join(work, "model.kiln")):
                # The configuration the tuner chose, and what it measured.
                import subprocess
                shown = subprocess.run([args.kiln, "inspect", os.path.join(work, "model.kiln"),
                                        "--json"], capture_output=True, text=True, timeout=60)
                try:
                    result["decision"] = "; ".join(
                        f"{k.get('config')} {k.get('measured_us') or k.get('estimated_us')} us "
                        f"({k.get('tuning_source')})"
                        for k in json.loads(shown.stdout)["kernels"])
                except (ValueError, KeyError):
                    result["decision"] = shown.stdout[-300:] + shown.stderr[-300:]
            row["kiln"][variant] = result
            print(f"[{time.perf_counter() - started:5.0f} s] {case['name']} {variant}: "
                  f"{result.get('median_ms', result.get('status'))} ms "
                  f"(rel L2 {result.get('rel_l2')}, SDPA {peer.get('median_ms'):.4f})",
                  flush=True)
        rows.append(row)
    with open(os.path.join(args.out, "sweep.json"), "w") as f:
        json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                   "rows": rows}, f, indent=1)
    lines = ["| variant | " + " | ".join(r["name"] for r in rows) + " |",
             "|---|" + "---|" * len(rows),
             "| SDPA | " + " | ".join(f"{r['sdpa'].get('median_ms', 0):.4f}" for r in rows) + " |"]
    for variant in variants:
        cells = []
        for r in rows:
            k, p = r["kiln"].get(variant, {}), r["sdpa"].get("median_ms")
            ms = k.get("median_ms")
            if ms and k.get("status") == "ok":
                cells.append(f"{ms:.4f} ({p / ms:.2f}x)")
            else:
                cells.append(f"{k.get('status', '-')} {ms or ''} L2 {k.get('rel_l2', '-')}")
        lines.append(f"| {variant} | " + " | ".join(cells) + " |")
    text = "\n".join(lines)
    decisions = [f"{r['name']}: {r['kiln'].get('tuned', {}).get('decision', '')}" for r in rows
                 if "tuned" in r["kiln"]]
    with open(os.path.join(args.out, "sweep.md"), "w") as f:
        f.write(text + "\n\n" + "\n".join(decisions) + "\n")
    print("\n".join(decisions))
    print(text)


if __name__ == "__main__":
    main()
