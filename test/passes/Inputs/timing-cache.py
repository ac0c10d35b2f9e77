#!/usr/bin/env python3
"""Writes a timing cache (docs/tuning.md) for the kernels of a kernel-autotune output.

usage: timing-cache.py MLIR OUT [--gpu NAME] [--driver VERSION] CONFIG=MICROS...

Every `signature = "..."` in MLIR (the kernel.tuning a first kernel-autotune run left)
gets one entry per CONFIG (a kernel.config dictionary as MLIR prints it) with MICROS.
"""
import json
import re
import sys

args = sys.argv[1:]
gpu, driver = "sm_90 NVIDIA H200", "13000"
mlir, out, rest = args[0], args[1], args[2:]
entries_spec = []
i = 0
while i < len(rest):
    if rest[i] == "--gpu":
        gpu = rest[i + 1]
        i += 2
    elif rest[i] == "--driver":
        driver = rest[i + 1]
        i += 2
    else:
        config, micros = rest[i].rsplit("=", 1)
        entries_spec.append((config, float(micros)))
        i += 1
signatures = sorted(set(re.findall(r'signature = "([0-9a-f]+)"', open(mlir).read())))
entries = [
    {"gpu": gpu, "driver": driver, "kernel": s, "config": c, "micros": m,
     "when": "2026-11-22T00:00:00Z"}
    for s in signatures for c, m in entries_spec
]
json.dump({"format": "kiln-timing-cache", "version": 1, "entries": entries}, open(out, "w"),
          indent=2)
