#!/usr/bin/env python3
"""Writes rms-norm-products.onnxtxt and its input and NumPy (f64) outputs.

A LLaMA-style block's RMSNorm, decomposed as exporters write it (Pow, ReduceMean, Add,
Sqrt, Reciprocal, Mul, Mul by gamma), read by products with constant weights and nothing
else: Q, K and V projections (no bias) and a gated MLP's gate and up projections (SiLU of
the gate times up): what graph-fold-layer-norm-into-products folds. The rows' RMS spreads
from 1 to 30 and one channel carries a large activation (LLMs' outlier features); gamma
is not trivial. x [2, 4, 256].

    /usr/bin/python3 test/tools/Inputs/make-rms-norm-products.py
"""
import math
import os

import numpy as np

from graph_builder import GraphBuilder

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(11)
builder = GraphBuilder()
const, node = builder.const, builder.node

K = 256
scale = np.exp(rng.uniform(0.0, math.log(30.0), (2, 4, 1)))
x = scale * rng.standard_normal((2, 4, K))
x[..., 7] = 8.0 * scale[..., 0]
x = x.astype(np.float32)
gamma = rng.uniform(0.5, 1.5, K).astype(np.float32)


def weight(n):
    return (rng.uniform(-1, 1, (K, n)) * math.sqrt(3.0 / K)).astype(np.float32)


wq, wk, wv, wg, wu = weight(8), weight(8), weight(8), weight(16), weight(16)

square = node("Pow", ["x", const("two", np.array(2.0, np.float32))], "square")
mean = node("ReduceMean", [square], "mean", axes=[-1], keepdims=1)
shifted = node("Add", [mean, const("eps", np.array(1e-6, np.float32))], "shifted")
root = node("Sqrt", [shifted], "root")
inverse = node("Reciprocal", [root], "inverse")
scaled = node("Mul", ["x", inverse], "scaled")
norm = node("Mul", [const("gamma", gamma), scaled], "norm")
node("MatMul", [norm, const("wq", wq)], "y_q")
node("MatMul", [norm, const("wk", wk)], "y_k")
node("MatMul", [norm, const("wv", wv)], "y_v")
gate = node("MatMul", [norm, const("wg", wg)], "gate")
up = node("MatMul", [norm, const("wu", wu)], "up")
sigmoid = node("Sigmoid", [gate], "sigmoid")
silu = node("Mul", [gate, sigmoid], "silu")
node("Mul", [silu, up], "y_mlp")

x64 = x.astype(np.float64)
normalised = x64 / np.sqrt((x64 * x64).mean(-1, keepdims=True) + 1e-6) * gamma
g = normalised @ wg.astype(np.float64)
expected = {"y_q": normalised @ wq.astype(np.float64),
            "y_k": normalised @ wk.astype(np.float64),
            "y_v": normalised @ wv.astype(np.float64),
            "y_mlp": g / (1.0 + np.exp(-g)) * (normalised @ wu.astype(np.float64))}

builder.write(HERE, "rms-norm-products", {"x": x}, expected)
