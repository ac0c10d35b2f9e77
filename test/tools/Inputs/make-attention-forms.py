#!/usr/bin/env python3
"""Writes attention-forms.onnxtxt and its inputs and NumPy (f64) outputs.

Attention as exporters write it in forms beyond BERT's and GPT-2's, one output each:
  bias   a relative-position bias gathered from a table (T5, Swin)
  alibi  ALiBi's per-head linear bias plus a causal fill
  bool   a boolean padding mask given at run time, Where(mask, scores, -inf)
  rotary rotary embeddings on Q and K (rotate-half form)
  gqa    grouped-query attention, key/value heads repeated by Unsqueeze/Expand/Reshape
  gather grouped-query attention, key/value heads repeated by a Gather
  group5 grouped-query attention with the groups as an axis ([B, Hkv, g, S, D] queries)
  d24    head size 24 (no flash kernel takes it) under a causal fill
and attention-f16-softmax.onnxtxt: an fp16 export whose softmax is taken in f32.

    python3 test/tools/Inputs/make-attention-forms.py
"""
import math
import os

import numpy as np
import onnx
from google.protobuf import text_format
from onnx import TensorProto as T
from onnx import helper, numpy_helper

from graph_builder import GraphBuilder

B, H, HKV, S, D, D24 = 2, 4, 2, 16, 16, 24
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(40)
graph_builder = GraphBuilder()
nodes, inits = graph_builder.nodes, graph_builder.inits
const, node = graph_builder.const, graph_builder.node


def attention(tag, q, k, v, d, bias_nodes=None, rank=4):
    """MatMul(q, k^T) * 1/sqrt(d) [then bias_nodes(scores)], Softmax, MatMul(., v)."""
    kt = node("Transpose", [k], f"{tag}_kt", perm=list(range(rank - 2)) + [rank - 1, rank - 2])
    scores = node("Mul", [node("MatMul", [q, kt], f"{tag}_s"),
                          const(f"{tag}_scale", np.float32(1 / math.sqrt(d)))], f"{tag}_scaled")
    if bias_nodes:
        scores = bias_nodes(scores)
    p = node("Softmax", [scores], f"{tag}_p", axis=-1)
    return node("MatMul", [p, v], f"y_{tag}")


neg_inf = const("neg_inf", np.float32(-np.inf))
causal = const("causal", np.tril(np.ones((S, S), bool)))
axis0 = const("axis0", np.array([0], np.int64))

# Relative-position bias: table[2S - 1, H] gathered by j - i + S - 1, to [1, H, S, S].
table = rng.standard_normal((2 * S - 1, H)).astype(np.float32)
relative = np.arange(S)[None, :] - np.arange(S)[:, None] + S - 1
def add_table(scores):
    gathered = node("Gather", [const("table", table), const("relative", relative)], "bias_g")
    per_head = node("Transpose", [gathered], "bias_t", perm=[2, 0, 1])
    return node("Add", [scores, node("Unsqueeze", [per_head, axis0], "bias_u")], "bias_add")
attention("bias", "q", "k", "v", D, add_table)

# ALiBi: slopes[h] * (j - i), computed from Range, plus a causal fill.
slopes = np.array([2 ** (-8 * (h + 1) / H) for h in range(H)], np.float32).reshape(H, 1, 1)
def add_alibi(scores):
    positions = node("Range", [const("zero", np.array(0, np.int64)), const("length", np.array(S, np.int64)),
                               const("one", np.array(1, np.int64))], "alibi_pos")
    rows = node("Unsqueeze", [positions, const("axis1", np.array([1], np.int64))], "alibi_rows")
    columns = node("Unsqueeze", [positions, axis0], "alibi_cols")
    distance = node("Cast", [node("Sub", [columns, rows], "alibi_dist")], "alibi_distf", to=T.FLOAT)
    biased = node("Add", [scores, node("Mul", [const("slopes", slopes), distance], "alibi_bias")],
                  "alibi_add")
    return node("Where", [causal, biased, neg_inf], "alibi_fill")
attention("alibi", "q", "k", "v", D, add_alibi)

# A boolean padding mask [B, S] given at run time.
def fill_padding(scores):
    mask = node("Unsqueeze", ["mask", const("axes12", np.array([1, 2], np.int64))], "bool_mask4")
    return node("Where", [mask, scores, neg_inf], "bool_fill")
attention("bool", "q", "k", "v", D, fill_padding)

# Rotary embeddings on Q and K: x * cos + rotate_half(x) * sin.
frequencies = np.arange(S)[:, None] * (10000.0 ** (-np.arange(0, D, 2) / D))[None, :]
angles = np.concatenate([frequencies, frequencies], -1)
cos, sin = const("cos", np.cos(angles).astype(np.float32)), const("sin", np.sin(angles).astype(np.float32))
starts = [const("h0", np.array([0], np.int64)), const("h1", np.array([D // 2], np.int64)),
          const("h2", np.array([D], np.int64))]
last = const("axis_last", np.array([-1], np.int64))
def rotate(x):
    first = node("Slice", [x, starts[0], starts[1], last], f"{x}_first")
    second = node("Slice", [x, starts[1], starts[2], last], f"{x}_second")
    rotated = node("Concat", [node("Neg", [second], f"{x}_neg"), first], f"{x}_rot", axis=-1)
    return node("Add", [node("Mul", [x, cos], f"{x}_cos"), node("Mul", [rotated, sin], f"{x}_sin")],
                f"{x}_rotary")
attention("rotary", rotate("q"), rotate("k"), "v", D)

# Grouped-query attention: [B, HKV, S, D] keys and values, each head read by H / HKV
# query heads.
def repeat_kv(x):
    unsqueezed = node("Unsqueeze", [x, const(f"{x}_axis2", np.array([2], np.int64))], f"{x}_u")
    expanded = node("Expand", [unsqueezed, const(f"{x}_eshape", np.array([B, HKV, H // HKV, S, D], np.int64))],
                    f"{x}_x")
    return node("Reshape", [expanded, const(f"{x}_rshape", np.array([B, H, S, D], np.int64))], f"{x}_r")
attention("gqa", "q", repeat_kv("k2"), repeat_kv("v2"), D)
heads = const("heads", np.array([h // (H // HKV) for h in range(H)], np.int64))
attention("gather", "q", node("Gather", ["k2", heads], "k2_g", axis=1),
          node("Gather", ["v2", heads], "v2_g", axis=1), D)

# Grouped-query attention with the groups as an axis of their own: query [B, HKV, g, S, D]
# against key and value [B, HKV, 1, S, D].
grouped_q = node("Reshape", ["q", const("q5", np.array([B, HKV, H // HKV, S, D], np.int64))], "q_g")
axis2 = const("axis2", np.array([2], np.int64))
attention("group5", grouped_q, node("Unsqueeze", ["k2", axis2], "k2_5"),
          node("Unsqueeze", ["v2", axis2], "v2_5"), D, rank=5)

# Head size 24 under a causal fill.
attention("d24", "q24", "k24", "v24", D24,
          lambda scores: node("Where", [causal, scores, neg_inf], "d24_fill"))

inputs = {"q": (B, H, S, D), "k": (B, H, S, D), "v": (B, H, S, D), "k2": (B, HKV, S, D),
          "v2": (B, HKV, S, D), "q24": (B, H, S, D24), "k24": (B, H, S, D24), "v24": (B, H, S, D24)}
values = {name: rng.standard_normal(shape).astype(np.float32) for name, shape in inputs.items()}
values["mask"] = np.ones((B, S), bool)
values["mask"][0, 11:] = False
values["mask"][1, 5:] = False
outputs = ["bias", "alibi", "bool", "rotary", "gqa", "gather", "group5", "d24"]
graph = helper.make_graph(
    nodes, "attention_forms",
    [helper.make_tensor_value_info(name, T.BOOL if name == "mask" else T.FLOAT, list(array.shape))
     for name, array in values.items()],
    [helper.make_tensor_value_info(f"y_{tag}", T.FLOAT,
                                   [B, HKV, H // HKV, S, D] if tag == "group5" else
                                   [B, H, S, D24 if tag == "d24" else D])
     for tag in outputs], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
onnx.checker.check_model(model)
with open(os.path.join(HERE, "attention-forms.onnxtxt"), "w") as file:
    file.write(text_format.MessageToString(model))


# NumPy in f64.
def softmax_attention(q, k, v, bias=0.0):
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1]) + bias
    scores = scores - scores.max(-1, keepdims=True)
    weights = np.exp(scores)
    return (weights / weights.sum(-1, keepdims=True)) @ v


x = {name: array.astype(np.float64) for name, array in values.items() if name != "mask"}
causal_bias = np.where(np.tril(np.ones((S, S), bool)), 0.0, -np.inf)
def rotary(t):
    rotated = np.concatenate([-t[..., D // 2:], t[..., :D // 2]], -1)
    return t * np.cos(angles) + rotated * np.sin(angles)
repeated = {name: np.repeat(x[name], H // HKV, axis=1) for name in ("k2", "v2")}
expected = {
    "bias": softmax_attention(x["q"], x["k"], x["v"], table.astype(np.float64)[relative].transpose(2, 0, 1)[None]),
    "alibi": softmax_attention(x["q"], x["k"], x["v"],
                               slopes.astype(np.float64) * (np.arange(S)[None, :] - np.arange(S)[:, None])
                               + causal_bias),
    "bool": softmax_attention(x["q"], x["k"], x["v"],
                              np.where(values["mask"][:, None, None, :], 0.0, -np.inf)),
    "rotary": softmax_attention(rotary(x["q"]), rotary(x["k"]), x["v"]),
    "gqa": softmax_attention(x["q"], repeated["k2"], repeated["v2"]),
    "gather": softmax_attention(x["q"], repeated["k2"], repeated["v2"]),
    "group5": softmax_attention(x["q"], repeated["k2"], repeated["v2"]).reshape(
        B, HKV, H // HKV, S, D),
    "d24": softmax_attention(x["q24"], x["k24"], x["v24"], causal_bias),
}
folder = os.path.join(HERE, "attention-forms")
for name, array in values.items():
    np.save(os.path.join(folder, f"{name}.npy"), array)
for tag, array in expected.items():
    np.save(os.path.join(folder, f"y_{tag}.npy"), array.astype(np.float32))


# attention-f16-softmax.onnxtxt: an fp16 export's attention with its softmax taken in f32
# (softmax(x, dtype=float32).to(x.dtype), Hugging Face's eager attention), under an
# additive f16 mask; f16 inputs and output.
graph_builder = GraphBuilder()
nodes, inits = graph_builder.nodes, graph_builder.inits
const, node = graph_builder.const, graph_builder.node
scores = node("Mul", [node("MatMul", ["q", node("Transpose", ["k"], "kt", perm=[0, 1, 3, 2])], "s"),
                      const("scale", np.float16(1 / math.sqrt(D)))], "scaled")
widened = node("Cast", [node("Add", [scores, "mask"], "masked")], "widened", to=T.FLOAT)
probabilities = node("Cast", [node("Softmax", [widened], "p", axis=-1)], "p16", to=T.FLOAT16)
node("MatMul", [probabilities, "v"], "y")
half = {name: values[name].astype(np.float16) for name in "qkv"}
half["mask"] = np.where(np.random.default_rng(41).random((B, 1, S, S)) < 0.25, -np.inf,
                        0.0).astype(np.float16)
graph = helper.make_graph(
    nodes, "attention_f16_softmax",
    [helper.make_tensor_value_info(name, T.FLOAT16, list(array.shape)) for name, array in half.items()],
    [helper.make_tensor_value_info("y", T.FLOAT16, [B, H, S, D])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
onnx.checker.check_model(model)
with open(os.path.join(HERE, "attention-f16-softmax.onnxtxt"), "w") as file:
    file.write(text_format.MessageToString(model))
folder = os.path.join(HERE, "attention-f16-softmax")
os.makedirs(folder, exist_ok=True)
for name, array in half.items():
    np.save(os.path.join(folder, f"{name}.npy"), array)
wide = {name: array.astype(np.float64) for name, array in half.items()}
np.save(os.path.join(folder, "y.npy"),
        softmax_attention(wide["q"], wide["k"], wide["v"], wide["mask"]).astype(np.float32))


# attention-f16-range.onnxtxt: an fp32 model whose attention scores leave f16's range
# (|scores| ~1e5 > 65504, as in RT-DETR's encoder) although Q, K and V are f16 values:
# compiled --fp16 the scores and softmax must stay f32. Q and K are rounded to f16 so
# that the reference (NumPy, f64) sees the operands the engine does.
graph_builder = GraphBuilder()
const, node = graph_builder.const, graph_builder.node
attention("range", "q", "k", "v", D)
rng = np.random.default_rng(42)
large = {name: (rng.standard_normal((B, H, S, D)) * scale).astype(np.float16).astype(np.float32)
         for name, scale in (("q", 400.0), ("k", 400.0), ("v", 1.0))}
wide = {name: array.astype(np.float64) for name, array in large.items()}
graph_builder.write(HERE, "attention-f16-range", large,
                    {"y_range": softmax_attention(wide["q"], wide["k"], wide["v"])})
