#!/usr/bin/env python3
"""Writes nonzero-forms.onnxtxt and its inputs and NumPy's outputs.

NonZero in the forms models use, each output the positions (i64):
  sparse  of a rank-3 f32 tensor [3, 700, 7] (14700 elements: 4 chunks of 4096), about
          one element in ten non-zero, among them NaN (non-zero) and -0.0 (zero)
  picked  PyTorch's nonzero() of a comparison: Greater(scores [300, 40], 0.9), NonZero,
          Transpose: [n, 2]
  halves  of the sparse tensor in f16 (its elements below f16's smallest become zero)
  ints    of an int32 vector of 9000 elements, half of them zero
  none    of an all-zero int32 [4, 5]: [2, 0]

    python3 test/tools/Inputs/make-nonzero-forms.py
"""
import os

import numpy as np
from onnx import TensorProto as T

from graph_builder import GraphBuilder

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(47)
builder = GraphBuilder()
const, node = builder.const, builder.node

sparse = np.where(rng.random((3, 700, 7)) < 0.1, rng.standard_normal((3, 700, 7)), 0)
sparse = sparse.astype(np.float32)
sparse.flat[rng.choice(sparse.size, 20, replace=False)] = np.nan
sparse.flat[rng.choice(sparse.size, 20, replace=False)] = -0.0
sparse.flat[rng.choice(sparse.size, 10, replace=False)] = 1e-9  # zero in f16
scores = rng.random((300, 40)).astype(np.float32)
ints = np.where(rng.random(9000) < 0.5, rng.integers(-5, 5, 9000), 0).astype(np.int32)
none = np.zeros((4, 5), np.int32)

node("NonZero", ["sparse_x"], "sparse")
node("Transpose", [node("NonZero", [node("Greater", ["scores", const(
    "threshold", np.float32(0.9))], "is_high")], "high")], "picked", perm=[1, 0])
node("NonZero", [node("Cast", ["sparse_x"], "sparse_f16", to=T.FLOAT16)], "halves")
node("NonZero", ["ints_x"], "ints")
node("NonZero", ["none_x"], "none")

inputs = {"sparse_x": sparse, "scores": scores, "ints_x": ints, "none_x": none}
expected = {
    "sparse": np.array(np.nonzero(sparse), np.int64),
    "picked": np.array(np.nonzero(scores > np.float32(0.9)), np.int64).T.copy(),
    "halves": np.array(np.nonzero(sparse.astype(np.float16)), np.int64),
    "ints": np.array(np.nonzero(ints), np.int64),
    "none": np.array(np.nonzero(none), np.int64),
}
builder.write_typed(HERE, "nonzero-forms", inputs,
                    {name: (array, [f"{name}_rows", f"{name}_columns"])
                     for name, array in expected.items()})
for name, array in expected.items():
    print(name, array.shape)
