#!/usr/bin/env python3
"""Writes unaligned-products.onnxtxt and its inputs and NumPy (f64) outputs.

Products and convolutions whose N or K is not a multiple of 8 (the tensor-core templates'
16-byte rows), one output each:
  vocab   an activation by a weight computed at run time with 50 columns (an lm-head's
          odd vocabulary, tied to another input)
  scores  attention scores over 13 tokens: Q by K^T (K^T a transpose of K)
  context the probabilities [.., 13, 13] by V [.., 13, 16]: K = 13
  gemm    Gemm with trans_b, B [30, 20] given at run time, and a bias input of 30
  head    a 1x1 convolution with 21 output channels (a detector's class head) and bias,
          then a reshape
  conv1d  a 1-D convolution with 5 output channels

    python3 test/tools/Inputs/make-unaligned-products.py
"""
import os

import numpy as np
import onnx
from google.protobuf import text_format
from onnx import TensorProto as T
from onnx import helper, numpy_helper

from graph_builder import GraphBuilder

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(41)
graph_builder = GraphBuilder()
nodes, inits = graph_builder.nodes, graph_builder.inits
const, node = graph_builder.const, graph_builder.node


def normal(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


inputs = {"x": normal(4, 24), "tied": normal(24, 50, scale=0.3), "q": normal(2, 3, 13, 16),
          "k": normal(2, 3, 13, 16), "p": np.abs(normal(2, 3, 13, 13)), "v": normal(2, 3, 13, 16),
          "a": normal(6, 20), "b": normal(30, 20, scale=0.3), "c": normal(30),
          "img": normal(2, 16, 5, 5), "seq": normal(2, 16, 12)}
x64 = {name: value.astype(np.float64) for name, value in inputs.items()}
expected = {}

node("MatMul", ["x", "tied"], "y_vocab")
expected["y_vocab"] = x64["x"] @ x64["tied"]

kt = node("Transpose", ["k"], "kt", perm=[0, 1, 3, 2])
node("MatMul", ["q", kt], "y_scores")
expected["y_scores"] = x64["q"] @ np.swapaxes(x64["k"], -1, -2)

node("MatMul", ["p", "v"], "y_context")
expected["y_context"] = x64["p"] @ x64["v"]

node("Gemm", ["a", "b", "c"], "y_gemm", transB=1)
expected["y_gemm"] = x64["a"] @ x64["b"].T + x64["c"]

head_w, head_b = normal(21, 16, 1, 1, scale=0.3), normal(21)
conv = node("Conv", ["img", const("head_w", head_w), const("head_b", head_b)], "head_c",
            kernel_shape=[1, 1])
node("Reshape", [conv, const("head_shape", np.array([2, 21, 25], np.int64))], "y_head")
expected["y_head"] = (np.einsum("nchw,oc->nohw", x64["img"], head_w[:, :, 0, 0].astype(np.float64))
                      + head_b[None, :, None, None]).reshape(2, 21, 25)

seq_w = normal(5, 16, 3, scale=0.3)
node("Conv", ["seq", const("seq_w", seq_w)], "y_conv1d", kernel_shape=[3], pads=[1, 1])
padded = np.pad(x64["seq"], ((0, 0), (0, 0), (1, 1)))
expected["y_conv1d"] = sum(np.einsum("ncl,oc->nol", padded[:, :, t:t + 12], seq_w[:, :, t])
                           for t in range(3))

graph = helper.make_graph(
    nodes, "unaligned_products",
    [helper.make_tensor_value_info(name, T.FLOAT, list(value.shape)) for name, value in inputs.items()],
    [helper.make_tensor_value_info(name, T.FLOAT, list(value.shape)) for name, value in expected.items()],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
onnx.checker.check_model(model)
with open(os.path.join(HERE, "unaligned-products.onnxtxt"), "w") as file:
    file.write(text_format.MessageToString(model))
folder = os.path.join(HERE, "unaligned-products")
os.makedirs(folder, exist_ok=True)
for name, value in inputs.items():
    np.save(os.path.join(folder, f"{name}.npy"), value)
for name, value in expected.items():
    np.save(os.path.join(folder, f"{name}.npy"), value.astype(np.float32))
