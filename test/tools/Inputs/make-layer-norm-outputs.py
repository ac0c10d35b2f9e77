#!/usr/bin/env python3
"""Writes layer-norm-outputs.onnxtxt and its inputs and NumPy (f64) outputs.

A DETR decoder's LayerNorm whose rows are used twice: as they are (the residual stream,
output y) and plus the query position embedding (the next attention's query, output q).
Kernel formation fuses both into one reduction kernel of two outputs, which the rows
family takes. x and pos [2, 30, 256].

    /usr/bin/python3 test/tools/Inputs/make-layer-norm-outputs.py
"""
import os

import numpy as np

from graph_builder import GraphBuilder

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(11)
builder = GraphBuilder()
const, node = builder.const, builder.node

x = (0.5 + 2.0 * rng.standard_normal((2, 30, 256))).astype(np.float32)
pos = rng.standard_normal((2, 30, 256)).astype(np.float32)
gamma = rng.uniform(0.5, 1.5, 256).astype(np.float32)
beta = (0.1 * rng.standard_normal(256)).astype(np.float32)

x64 = x.astype(np.float64)
mean = x64.mean(axis=-1, keepdims=True)
variance = ((x64 - mean) ** 2).mean(axis=-1, keepdims=True)
y = (x64 - mean) / np.sqrt(variance + 1e-5) * gamma + beta
q = y + pos

node("LayerNormalization", ["x", const("gamma", gamma), const("beta", beta)], "y", axis=-1,
     epsilon=1e-5)
node("Add", ["y", "pos"], "q")
builder.write(HERE, "layer-norm-outputs", {"x": x, "pos": pos}, {"y": y, "q": q})
