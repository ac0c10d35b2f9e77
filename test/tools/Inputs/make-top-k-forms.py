#!/usr/bin/env python3
"""Writes top-k-forms.onnxtxt and its inputs and NumPy's outputs.

TopK in the forms detectors and exporters write, values and indices of each:
  scores  300 of 8400 scores, the largest (RT-DETR's query selection), with many equal
          values (the ties go to the lower index) and both zeros
  cols    the 7 smallest along axis 0 of [64, 3, 5] (rows strided by 15)
  half    100 of 1000 along the last axis of [4, 1000], f16
  ints    10 of 500 int32 values along the last axis of [3, 500], many equal
  counted the largest min(300, count(x > 0.9)) of 2000: k computed from the data, as
          SSDlite's per-class candidates (the engine reads it back on the GPU)
and scores_negated, Neg of the scores' values: an op after a TopK (a kernel of its own).

    python3 test/tools/Inputs/make-top-k-forms.py
"""
import os

import numpy as np
import onnx
from google.protobuf import text_format
from onnx import TensorProto as T
from onnx import helper

from graph_builder import GraphBuilder

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(41)
builder = GraphBuilder()
const, node = builder.const, builder.node


def top_k(tag, x, k, axis, largest):
    builder.nodes.append(helper.make_node(
        "TopK", [x, k], [f"{tag}_values", f"{tag}_indices"], name=tag, axis=axis,
        largest=int(largest), sorted=1))


def expected_top_k(x, k, axis, largest):
    """NumPy's TopK: sorted, equal values in index order (a stable sort)."""
    moved = np.moveaxis(x, axis, -1)
    keys = -moved.astype(np.float64) if largest else moved.astype(np.float64)
    order = np.argsort(keys, axis=-1, kind="stable")[..., :k]
    values = np.take_along_axis(moved, order, -1)
    return np.moveaxis(values, -1, axis), np.moveaxis(order.astype(np.int64), -1, axis)


inputs = {
    # Quantized to 1/64: about 130 distinct values among 8400, so ties everywhere.
    "scores": (np.round(rng.standard_normal((1, 8400)) * 64) / 64).astype(np.float32),
    "cols": rng.standard_normal((64, 3, 5)).astype(np.float32),
    "half": rng.standard_normal((4, 1000)).astype(np.float16),
    "ints": rng.integers(-50, 50, (3, 500)).astype(np.int32),
    "counted": rng.random(2000).astype(np.float32),
}
inputs["scores"][0, 100:140] = 0.0
inputs["scores"][0, 140:180] = -0.0
elem = {"half": T.FLOAT16, "ints": T.INT32}

top_k("scores", "scores", const("k300", np.array([300], np.int64)), 1, True)
top_k("cols", "cols", const("k7", np.array([7], np.int64)), 0, False)
top_k("half", "half", const("k100", np.array([100], np.int64)), -1, True)
top_k("ints", "ints", const("k10", np.array([10], np.int64)), -1, True)
node("Neg", ["scores_values"], "scores_negated")
above = node("Cast", [node("Greater", ["counted", const("half_point", np.float32(0.9))], "above")],
             "above_count", to=T.INT64)
count = node("ReduceSum", [above, const("axis0", np.array([0], np.int64))], "count", keepdims=1)
top_k("counted", "counted", node("Min", [count, const("k_max", np.array([300], np.int64))], "k"),
      0, True)

expected = {}
for tag, (axis, largest) in {"scores": (1, True), "cols": (0, False), "half": (-1, True),
                             "ints": (-1, True), "counted": (0, True)}.items():
    k = {"scores": 300, "cols": 7, "half": 100, "ints": 10,
         "counted": min(300, int((inputs["counted"] > 0.9).sum()))}[tag]
    expected[f"{tag}_values"], expected[f"{tag}_indices"] = expected_top_k(
        inputs[tag], k, axis, largest)

expected["scores_negated"] = -expected["scores_values"]

graph = helper.make_graph(
    builder.nodes, "top_k_forms",
    [helper.make_tensor_value_info(name, elem.get(name, T.FLOAT), list(array.shape))
     for name, array in inputs.items()],
    [helper.make_tensor_value_info(
        name, T.INT64 if name.endswith("_indices") else elem.get(name.split("_")[0], T.FLOAT),
        ["count" if name.startswith("counted") else d for d in array.shape])
     for name, array in expected.items()], builder.inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
onnx.checker.check_model(model)
with open(os.path.join(HERE, "top-k-forms.onnxtxt"), "w") as file:
    file.write(text_format.MessageToString(model))
folder = os.path.join(HERE, "top-k-forms")
os.makedirs(folder, exist_ok=True)
for name, array in {**inputs, **expected}.items():
    np.save(os.path.join(folder, f"{name}.npy"), array)
