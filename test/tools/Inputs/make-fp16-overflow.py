#!/usr/bin/env python3
"""Writes fp16-overflow.onnxtxt and its input and NumPy's output.

A model finite in fp32 whose fp16 form overflows: the square of values up to 400 (160,000,
beyond f16's 65,504), scaled back down. Under --fp16, `kiln run --expect-dir` names the
node whose values first went non-finite ('square'), not the output's.

    python3 test/tools/Inputs/make-fp16-overflow.py
"""
import os

import numpy as np

from graph_builder import GraphBuilder

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(43)
builder = GraphBuilder()
const, node = builder.const, builder.node

x = rng.uniform(100, 400, (4, 8)).astype(np.float32)
negated = node("Neg", ["x"], "negated")
square = node("Mul", [negated, negated], "square")
scaled = node("Div", [square, const("thousand", np.float32(1000))], "scaled")
node("Add", [scaled, const("one", np.float32(1))], "y")
y = (x.astype(np.float64) ** 2) / 1000 + 1
builder.write(HERE, "fp16-overflow", {"x": x}, {"y": y})
