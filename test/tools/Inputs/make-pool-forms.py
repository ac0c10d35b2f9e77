#!/usr/bin/env python3
"""Writes pool-forms.onnxtxt and its input and NumPy's outputs.

Windowed pools between 1x1 convolutions, which graph-convert-layout makes channels last
(`kiln run --channels-last` on the CPU; the GPU targets always): x [2, 4, 7, 7] through
  conv     1x1, 4 -> 8 channels, with a bias
  a        AveragePool 2x2 stride 2, ceil mode, padding not counted (a ResNet-D
           shortcut's): the last row and column average one or two values; an output
  b        AveragePool 3x3 stride 1, padding 1 counted (divisor 9 everywhere)
  c        LpPool p = 2, 2x2 stride 1
  y        conv 1x1, 8 -> 8 channels; an output

    python3 test/tools/Inputs/make-pool-forms.py
"""
import os

import numpy as np

from graph_builder import GraphBuilder

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(43)
builder = GraphBuilder()
const, node = builder.const, builder.node

x = rng.standard_normal((2, 4, 7, 7)).astype(np.float32)
w0 = rng.standard_normal((8, 4, 1, 1)).astype(np.float32)
b0 = rng.standard_normal(8).astype(np.float32)
w1 = rng.standard_normal((8, 8, 1, 1)).astype(np.float32)


def conv1x1(value, weight, bias=None):
    out = np.einsum("oc,nchw->nohw", weight[:, :, 0, 0].astype(np.float64), value)
    return out if bias is None else out + bias[None, :, None, None]


def pool(value, kernel, stride, pad, out_extent, reduce):
    """reduce(window values, taps counted) over each window of the zero-padded value."""
    n, c, h, w = value.shape
    padded = np.zeros((n, c, h + 2 * pad + kernel, w + 2 * pad + kernel))
    inside = np.zeros_like(padded, dtype=bool)
    padded[:, :, pad:pad + h, pad:pad + w] = value
    inside[:, :, pad:pad + h, pad:pad + w] = True
    out = np.zeros((n, c, out_extent, out_extent))
    for i in range(out_extent):
        for j in range(out_extent):
            rows = slice(i * stride, i * stride + kernel)
            cols = slice(j * stride, j * stride + kernel)
            out[:, :, i, j] = reduce(padded[:, :, rows, cols], inside[:, :, rows, cols])
    return out


conv = conv1x1(x.astype(np.float64), w0, b0)
# Ceil mode, padding not counted: divide by the taps inside the input.
a = pool(conv, 2, 2, 0, 4, lambda v, m: v.sum(axis=(2, 3)) / m.sum(axis=(2, 3)))
# Padding counted: always 9.
b = pool(a, 3, 1, 1, 4, lambda v, m: v.sum(axis=(2, 3)) / 9.0)
c = pool(b, 2, 1, 0, 3, lambda v, m: np.sqrt((v * v).sum(axis=(2, 3))))
y = conv1x1(c, w1)

node("Conv", ["x", const("w0", w0), const("b0", b0)], "conv")
node("AveragePool", ["conv"], "a", kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1,
     count_include_pad=0)
node("AveragePool", ["a"], "b", kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1)
node("LpPool", ["b"], "c", kernel_shape=[2, 2], p=2)
node("Conv", ["c", const("w1", w1)], "y")
builder.write(HERE, "pool-forms", {"x": x}, {"a": a, "y": y})
