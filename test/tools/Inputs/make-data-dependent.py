#!/usr/bin/env python3
"""Writes data-dependent.onnxtxt, its input and NumPy's outputs: extents that depend on
values, as detectors' post-processing computes them.
  positive  the positive elements of x, gathered by NonZero's positions
  kept      Compress of x's rows by a threshold on their sums
  best      TopK of the positive elements with k = min(3, their count)

    python3 test/tools/Inputs/make-data-dependent.py
"""
import os

import numpy as np

from graph_builder import GraphBuilder

HERE = os.path.dirname(os.path.abspath(__file__))
builder = GraphBuilder()
const, node = builder.const, builder.node

zero = const("zero", np.float32(0))
where = node("NonZero", [node("Greater", ["x", zero], "is_positive")], "where")
positions = node("Squeeze", [where, const("axis0", np.array([0], np.int64))], "positions")
rows = node("Reshape", ["x", const("rows_shape", np.array([4, 6], np.int64))], "rows")
sums = node("ReduceSum", [rows, const("axis1", np.array([1], np.int64))], "sums", keepdims=0)
node("Compress", [rows, node("Greater", [sums, zero], "row_kept")], "kept", axis=0)
positive = node("Gather", ["x", positions], "positive", axis=0)
count = node("Shape", [positive], "count")
k = node("Min", [count, const("three", np.array([3], np.int64))], "k")
node("TopK", [positive, k], "best", axis=0)
builder.nodes[-1].output.append("best_indices")

x = np.random.default_rng(41).standard_normal(24).astype(np.float32)
kept = x.reshape(4, 6)[x.reshape(4, 6).sum(1) > 0]
positive_values = x[x > 0]
best = np.sort(positive_values)[::-1][:min(3, positive_values.size)]
builder.write(HERE, "data-dependent", {"x": x},
              {"positive": positive_values, "kept": kept, "best": best})

# The outputs' extents are the data's: declared as symbols, not the reference's sizes.
path = os.path.join(HERE, "data-dependent.onnxtxt")
from google.protobuf import text_format  # noqa: E402
import onnx  # noqa: E402
model = text_format.Parse(open(path).read(), onnx.ModelProto())
for output in model.graph.output:
    for index, dim in enumerate(output.type.tensor_type.shape.dim):
        if index == 0:
            dim.ClearField("dim_value")
            dim.dim_param = f"{output.name}_count"
onnx.checker.check_model(model)
with open(path, "w") as file:
    file.write(text_format.MessageToString(model))
