#!/usr/bin/env python3
"""Writes pool-forms.onnxtxt and its input and NumPy's outputs.

Windowed pools and resizes between 1x1 convolutions, which graph-convert-layout makes
channels last (`kiln run --channels-last` on the CPU; the GPU targets always): x [2, 4,
7, 7] through
  conv     1x1, 4 -> 8 channels, with a bias
  a        AveragePool 2x2 stride 2, ceil mode, padding not counted (a ResNet-D
           shortcut's): the last row and column average one or two values; an output
  b        AveragePool 3x3 stride 1, padding 1 counted (divisor 9 everywhere)
  c        LpPool p = 2, 2x2 stride 1
  y        conv 1x1, 8 -> 8 channels; an output
  u        Resize nearest 2x (scales over all axes, asymmetric, floor) of y
  z        Concat of u and a 1x1 conv of u along the channels; an output
  v        Resize linear of conv to 5 x 5 (sizes, half_pixel); an output

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
u = y.repeat(2, axis=2).repeat(2, axis=3)
z = np.concatenate([u, conv1x1(u, w1)], axis=1)


def linear_weights(in_extent, out_extent):
    """[out, in] half_pixel linear interpolation weights (ONNX clamps the source into the
    input)."""
    weights = np.zeros((out_extent, in_extent))
    for o in range(out_extent):
        source = min(max((o + 0.5) * in_extent / out_extent - 0.5, 0.0), in_extent - 1)
        low = int(np.floor(source))
        high = min(low + 1, in_extent - 1)
        weights[o, low] += 1 - (source - low)
        weights[o, high] += source - low
    return weights


rows = linear_weights(7, 5)
v = np.einsum("ph,nchw,qw->ncpq", rows, conv, rows)

node("Conv", ["x", const("w0", w0), const("b0", b0)], "conv")
node("AveragePool", ["conv"], "a", kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1,
     count_include_pad=0)
node("AveragePool", ["a"], "b", kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1)
node("LpPool", ["b"], "c", kernel_shape=[2, 2], p=2)
node("Conv", ["c", const("w1", w1)], "y")
node("Resize", ["y", "", const("scales", np.array([1, 1, 2, 2], np.float32))], "u",
     mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor")
node("Concat", ["u", node("Conv", ["u", "w1"], "u_conv")], "z", axis=1)
node("Resize", ["conv", "", "", const("sizes", np.array([2, 8, 5, 5], np.int64))], "v",
     mode="linear")
builder.write(HERE, "pool-forms", {"x": x}, {"a": a, "y": y, "z": z, "v": v})
