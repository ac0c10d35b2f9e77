#!/usr/bin/env python3
"""The memory-bound kernels of `kiln bench --profile --json` runs that are far from their floor.

Issue 42's profile criterion: in the profile of every model at batch 32 fp16, no kernel
that is not a tensor-core contraction and moves more than 4 MB may take more than 2.5x
the time its bytes take at the H200's 4.3 TB/s (less than 40% of its bandwidth floor).
This reads the JSON files `kiln bench --profile --json FILE` writes, adds up each kernel
function's launches (a generic kernel's loop nests are several steps), and prints the
functions that miss, slowest first, then one line a file: how many miss and their time.

    bench/profile_floor.py out/*.json [--min-mb 4] [--below 40]
"""

import argparse
import json
import sys
from collections import defaultdict

HBM_BYTES_PER_S = 4.3e12
# The kernel kinds (a profile step's description starts with its kind) that run on the
# tensor cores: bound by their FLOPs, not by their bytes, so the bandwidth criterion does
# not apply to them.
CONTRACTIONS = {"conv", "matmul", "attention"}


def family(what):
    """The template family a profile step's description starts with ("rows: ...")."""
    return what.split(":", 1)[0].strip() if ":" in what else what.split(" ", 1)[0]


def misses(profile, min_bytes, below):
    """(function, family, bytes, ms, share of the floor, what) of each function that misses."""
    functions = defaultdict(lambda: {"ms": 0.0, "bytes": 0, "what": "", "family": ""})
    for step in profile:
        name = step.get("function")
        if name is None or "kernel" not in step:
            continue
        entry = functions[name]
        entry["ms"] += step["ms"]
        entry["bytes"] = step.get("function_bytes", 0)
        if not entry["what"]:
            entry["what"] = step["what"]
            entry["family"] = family(step["what"])
    found = []
    for name, entry in functions.items():
        if entry["family"] in CONTRACTIONS or entry["bytes"] <= min_bytes or entry["ms"] <= 0:
            continue
        share = entry["bytes"] / HBM_BYTES_PER_S / (entry["ms"] * 1e-3)
        if share < below:
            found.append((name, entry["family"], entry["bytes"], entry["ms"], share, entry["what"]))
    return sorted(found, key=lambda row: -row[3])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", help="kiln bench --profile --json outputs")
    parser.add_argument("--min-mb", type=float, default=4.0,
                        help="only kernels moving more than this many MB (default 4)")
    parser.add_argument("--below", type=float, default=40.0,
                        help="report kernels under this %% of their bandwidth floor (default 40)")
    parser.add_argument("--width", type=int, default=90, help="characters of each description")
    args = parser.parse_args()
    summary = []
    for path in args.files:
        try:
            with open(path) as file:
                run = json.load(file)
        except (OSError, json.JSONDecodeError) as error:
            print(f"{path}: cannot read: {error}", file=sys.stderr)
            return 2
        if "profile" not in run:
            print(f"{path}: no profile (run kiln bench with --profile)", file=sys.stderr)
            return 2
        rows = misses(run["profile"], args.min_mb * 1e6, args.below / 100)
        total = sum(step["ms"] for step in run["profile"])
        label = run.get("model") or path
        for name, kind, size, ms, share, what in rows:
            print(f"{label[:24]:24} {ms:8.4f} ms {size / 1e6:8.1f} MB {100 * share:5.1f}% "
                  f"{kind:10} {name[:28]:28} {what[:args.width]}")
        summary.append((label, len(rows), sum(row[3] for row in rows), total))
    print(f"\n{'model':24} {'misses':>6} {'their ms':>9} {'run ms':>9}")
    for label, count, ms, total in summary:
        print(f"{label[:24]:24} {count:6d} {ms:9.4f} {total:9.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
