#!/usr/bin/env python3
"""Writes layer-norm-products.onnxtxt and its input and NumPy (f64) outputs.

A pre-norm block's LayerNorm read by two products with constant weights (a QKV-like one
with a bias, an fc1-like one with a bias and GELU) and nothing else: what
graph-fold-layer-norm-into-products folds. The rows have a large mean (8) against their
spread (1 to 3): the folded weight's columns must sum to ~0 after rounding, or the mean's
term would show in the results (K 768: rounding alone leaves ~0.005 a column). beta is not
trivial. x [2, 4, 768], N 16 and 32.

    /usr/bin/python3 test/tools/Inputs/make-layer-norm-products.py
"""
import math
import os

import numpy as np

from graph_builder import GraphBuilder

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)
builder = GraphBuilder()
const, node = builder.const, builder.node

K = 768
spread = rng.uniform(1.0, 3.0, (2, 4, 1))
x = (8.0 + spread * rng.standard_normal((2, 4, K))).astype(np.float32)
# gamma 1 (freshly initialised models): the weight's f16 elements less one mean per column
# then round the same way down the column, the case the rounding must correct.
gamma = np.ones(K, np.float32)
beta = (0.1 * rng.standard_normal(K)).astype(np.float32)
w1 = (rng.uniform(-1, 1, (K, 16)) * math.sqrt(3.0 / K)).astype(np.float32)
b1 = (0.1 * rng.standard_normal(16)).astype(np.float32)
w2 = (rng.uniform(-1, 1, (K, 32)) * math.sqrt(3.0 / K)).astype(np.float32)
b2 = (0.1 * rng.standard_normal(32)).astype(np.float32)

norm = node("LayerNormalization", ["x", const("gamma", gamma), const("beta", beta)], "norm",
            axis=-1, epsilon=1e-5)
p1 = node("MatMul", [norm, const("w1", w1)], "p1")
node("Add", [p1, const("b1", b1)], "y_qkv")
p2 = node("MatMul", [norm, const("w2", w2)], "p2")
a2 = node("Add", [p2, const("b2", b2)], "a2")
# GELU as exporters write it (erf form), which Kiln recognises.
g0 = node("Div", [a2, const("sqrt2", np.array(math.sqrt(2.0), np.float32))], "g0")
g1 = node("Erf", [g0], "g1")
g2 = node("Add", [g1, const("one", np.array(1.0, np.float32))], "g2")
g3 = node("Mul", [a2, g2], "g3")
node("Mul", [g3, const("half", np.array(0.5, np.float32))], "y_fc1")

x64 = x.astype(np.float64)
normalised = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt(x64.var(-1, keepdims=True) + 1e-5)
normalised = normalised * gamma + beta
h = normalised @ w2.astype(np.float64) + b2
erf = np.vectorize(math.erf)
expected = {"y_qkv": normalised @ w1.astype(np.float64) + b1,
            "y_fc1": 0.5 * h * (1.0 + erf(h / math.sqrt(2.0)))}

builder.write(HERE, "layer-norm-products", {"x": x}, expected)
