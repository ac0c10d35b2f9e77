#!/usr/bin/env python3
"""Writes transpose-forms.onnxtxt and its inputs and NumPy's outputs.

Transposes that move the innermost axis (gpu-tile-transposes stages their reads through
shared-memory tiles), at extents that are not multiples of the tiles:
  square  [96, 80] f32, perm (1, 0)
  nhwc    [2, 40, 17, 19] f32 to channels last, perm (0, 2, 3, 1)
  half    [3, 50, 70] f16, perm (0, 2, 1), plus a bias along the new last axis: the
          transpose fused with the add
  odd     [2, 71, 50] f16, perm (0, 2, 1): rows of an odd length (stored one element at
          a time)
  mixed   [64, 48] f32 transposed plus y [48, 64]: a transposed and a direct read
  pair    a [40, 36] transposed plus b [40, 36] transposed: two tiled reads
  wide    [33, 35] int64 transposed (8-byte elements)
  bytes   [40, 48] uint8 transposed (1-byte elements)
  batch   [batch, 48, 20] f32, perm (0, 2, 1), batch given at run time (3)

    python3 test/tools/Inputs/make-transpose-forms.py
"""
import os

import numpy as np

from graph_builder import GraphBuilder

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(41)
builder = GraphBuilder()
const, node = builder.const, builder.node


def normal(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


inputs = {
    "square": normal(96, 80),
    "nhwc": normal(2, 40, 17, 19),
    "half": normal(3, 50, 70, dtype=np.float16),
    "odd": normal(2, 71, 50, dtype=np.float16),
    "mixed": normal(64, 48),
    "y": normal(48, 64),
    "a": normal(40, 36),
    "b": normal(40, 36),
    "wide": rng.integers(-2**40, 2**40, (33, 35)),
    "bytes": rng.integers(0, 256, (40, 48)).astype(np.uint8),
    "batch": normal(3, 48, 20),
}
bias = normal(50, dtype=np.float16)

node("Transpose", ["square"], "square_t", perm=[1, 0])
node("Transpose", ["nhwc"], "nhwc_t", perm=[0, 2, 3, 1])
node("Add", [node("Transpose", ["half"], "half_perm", perm=[0, 2, 1]), const("bias", bias)],
     "half_t")
node("Transpose", ["odd"], "odd_t", perm=[0, 2, 1])
node("Add", [node("Transpose", ["mixed"], "mixed_perm", perm=[1, 0]), "y"], "mixed_t")
node("Add", [node("Transpose", ["a"], "a_perm", perm=[1, 0]),
             node("Transpose", ["b"], "b_perm", perm=[1, 0])], "pair_t")
node("Transpose", ["wide"], "wide_t", perm=[1, 0])
node("Transpose", ["bytes"], "bytes_t", perm=[1, 0])
node("Transpose", ["batch"], "batch_t", perm=[0, 2, 1])

outputs = {
    "square_t": (inputs["square"].T, [80, 96]),
    "nhwc_t": (inputs["nhwc"].transpose(0, 2, 3, 1), [2, 17, 19, 40]),
    "half_t": (inputs["half"].transpose(0, 2, 1) + bias, [3, 70, 50]),
    "odd_t": (inputs["odd"].transpose(0, 2, 1), [2, 50, 71]),
    "mixed_t": (inputs["mixed"].T + inputs["y"], [48, 64]),
    "pair_t": ((inputs["a"] + inputs["b"]).T, [36, 40]),
    "wide_t": (inputs["wide"].T, [35, 33]),
    "bytes_t": (inputs["bytes"].T, [48, 40]),
    "batch_t": (inputs["batch"].transpose(0, 2, 1), ["batch", 20, 48]),
}
builder.write_typed(HERE, "transpose-forms", inputs,
                    {key: (np.ascontiguousarray(value), dims)
                     for key, (value, dims) in outputs.items()},
                    input_dims={"batch": ["batch", 48, 20]})
