#!/usr/bin/env python3
"""How far the cost model's untuned picks are from the measured best: for each sm90 GEMM or
convolution kernel a `kiln compile` log shows decided by the cost model ("tuning [i/n]
PROBLEM: N configs, cost model ... best CONFIG"), the measured time of that configuration
in a timing cache filled on the GPU (`kiln compile --timing-cache`), against the fastest
measured one for the same problem.

    kiln compile model.onnx --fp16 --shapes ... -o /tmp/m.kiln > compile.log 2>&1
    python3 bench/cost_model_regret.py --timing-cache timing.cache compile.log [...]

Prints a line a kernel and the geometric mean of pick / best.
"""

import argparse
import json
import math
import re
from collections import defaultdict


def describe(config):
    """The progress line's description of a #kernel.sm90_gemm/sm90_conv attribute
    (Sm90GemmConfig::describe), or None for another family."""
    match = re.search(r"sm90_(gemm|conv)<([^>]*)>", config)
    if not match:
        return None
    c = dict(tile_m=128, tile_n=128, tile_k=64, stages=4, consumers=0, persistent=False,
             split_k=1, ctas_per_sm=1, tf32=False, int8=False, resident_b_k_tiles=0,
             pingpong=False)
    for item in match.group(2).split(","):
        key, value = (part.strip() for part in item.split("="))
        c[key] = value == "true" if value in ("true", "false") else int(value)
    text = f"sm90 wgmma+TMA {c['tile_m']}x{c['tile_n']}x{c['tile_k']}, {c['stages']} stages"
    if c["consumers"] > 0:
        text += f", {c['consumers']} consumer warpgroups"
    if c["persistent"]:
        text += ", persistent"
    if c["split_k"] > 1:
        text += f", split-K {c['split_k']}"
    if c["ctas_per_sm"] > 1:
        text += f", {c['ctas_per_sm']} CTAs an SM"
    if c["tf32"]:
        text += ", tf32"
    if c["int8"]:
        text += ", int8"
    if c["resident_b_k_tiles"] > 0:
        text += f", B resident ({c['resident_b_k_tiles']} k-tiles)"
    if c["pingpong"]:
        text += ", ping-pong consumers"
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timing-cache", required=True)
    parser.add_argument("logs", nargs="+")
    args = parser.parse_args()
    with open(args.timing_cache) as f:
        entries = json.load(f)["entries"]
    measured = defaultdict(dict)
    for entry in entries:
        text = describe(entry["config"])
        if text:
            measured[entry["problem"]][text] = entry["micros"]
    pattern = re.compile(r"tuning \[\d+/\d+\] (.*?)(?: \(x\d+ identical\))?: \d+ configs, "
                         r"cost model \.\.\. best (.*?) \(est")
    ratios = []
    for log in args.logs:
        with open(log) as f:
            for line in f:
                match = pattern.search(line)
                if not match or match.group(1) not in measured:
                    continue
                problem, pick = match.groups()
                best = min(measured[problem].values())
                got = measured[problem].get(pick)
                if got is None:
                    print(f"{problem}: {pick} not measured")
                    continue
                ratios.append(got / best)
                print(f"{problem}: pick {got:.1f} us, best {best:.1f} us ({got / best:.2f}x) {pick}")
    if ratios:
        geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"{len(ratios)} kernels: pick / best {geomean:.3f} (geomean), {max(ratios):.2f}x at worst")


if __name__ == "__main__":
    main()
