#!/usr/bin/env python3
"""Writes nms-forms.onnxtxt and its inputs and NumPy's outputs.

NonMaxSuppression in the forms detectors export, with constant thresholds and limits
(initializers, as exporters write them):
  classes  2 batches of 3 classes of 300 boxes (either corner first), a score threshold
           of 0.3, at most 20 boxes a class, IoU 0.5
  centers  1 batch, 2 classes of 200 boxes given as [x_center, y_center, width, height],
           no score threshold, at most 50 a class, IoU 0.4
  sparse   20000 boxes of one class, about 2000 above the score threshold of 0.9, at most
           500 kept, IoU 0.3 (enough boxes that the selection spreads over several CTAs)
  batched  SSDlite's batched NMS: 3000 boxes of one class (many overlapping, scores
           quantized so that ties are common), no limit (the int64 maximum), IoU 0.55,
           inside an If on a condition the kernels compute (torchvision's form: the
           branch taken runs NMS, the other yields an empty selection)

    python3 test/tools/Inputs/make-nms-forms.py
"""
import os

import numpy as np
from onnx import TensorProto as T
from onnx import helper

from graph_builder import GraphBuilder

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(43)
builder = GraphBuilder()
const, node = builder.const, builder.node


def corners(box, center):
    """[y1, x1, y2, x2] with the minima first, as ONNX reads a box."""
    if center:
        x, y, w, h = (float(v) for v in box)
        return y - h / 2, x - w / 2, y + h / 2, x + w / 2
    y1, x1, y2, x2 = (float(v) for v in box)
    return min(y1, y2), min(x1, x2), max(y1, y2), max(x1, x2)


def overlaps(a, b, threshold):
    """IoU above the threshold, as ONNX Runtime computes it (in f32)."""
    a = np.float32(a)
    b = np.float32(b)
    y_min, x_min = max(a[0], b[0]), max(a[1], b[1])
    y_max, x_max = min(a[2], b[2]), min(a[3], b[3])
    inter = np.float32(y_max - y_min) * np.float32(x_max - x_min)
    area_a = np.float32(a[2] - a[0]) * np.float32(a[3] - a[1])
    area_b = np.float32(b[2] - b[0]) * np.float32(b[3] - b[1])
    union = np.float32(area_a + area_b) - inter
    if not (y_max > y_min and x_max > x_min and inter > 0 and area_a > 0 and area_b > 0
            and union > 0):
        return False
    return np.float32(inter / union) > np.float32(threshold)


def expected_nms(boxes, scores, limit, iou, score_threshold, center):
    rows = []
    for b in range(scores.shape[0]):
        box_corners = [np.array(corners(box, center), np.float32) for box in boxes[b]]
        for c in range(scores.shape[1]):
            s = scores[b, c]
            candidates = [i for i in range(len(s))
                          if score_threshold is None or s[i] > score_threshold]
            candidates.sort(key=lambda i: (-float(s[i]), i))
            kept = []
            for i in candidates:
                if len(kept) >= limit:
                    break
                if all(not overlaps(box_corners[k], box_corners[i], iou) for k in kept):
                    kept.append(i)
            rows += [[b, c, i] for i in kept]
    return np.array(rows, np.int64).reshape(-1, 3)


def nms(tag, boxes, scores, limit, iou, score_threshold, center):
    operands = [boxes, scores, const(f"{tag}_limit", np.array([limit], np.int64)),
                const(f"{tag}_iou", np.array([iou], np.float32))]
    if score_threshold is not None:
        operands.append(const(f"{tag}_score", np.array([score_threshold], np.float32)))
    return helper.make_node("NonMaxSuppression", operands, [f"{tag}_selected"], name=tag,
                            center_point_box=int(center))


def random_boxes(batches, count, center):
    origin = rng.random((batches, count, 2)) * 10
    size = 0.5 + rng.random((batches, count, 2)) * 3
    if center:
        return np.concatenate([origin + size / 2, size], -1).astype(np.float32)
    boxes = np.concatenate([origin, origin + size], -1)
    # Either corner first: some boxes give the larger corner first.
    flip = rng.random((batches, count)) < 0.3
    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    return boxes.astype(np.float32)


inputs = {
    "classes_boxes": random_boxes(2, 300, False),
    "classes_scores": rng.random((2, 3, 300)).astype(np.float32),
    "centers_boxes": random_boxes(1, 200, True),
    "centers_scores": rng.random((1, 2, 200)).astype(np.float32),
    "sparse_boxes": random_boxes(1, 20000, False) * np.float32(4),
    "sparse_scores": rng.random((1, 1, 20000)).astype(np.float32),
    "batched_boxes": random_boxes(1, 3000, False),
    "batched_scores": (np.round(rng.random((1, 1, 3000)) * 256) / 256).astype(np.float32),
}
forms = {
    "classes": (20, 0.5, 0.3, False),
    "centers": (50, 0.4, None, True),
    "sparse": (500, 0.3, 0.9, False),
}
for tag, (limit, iou, threshold, center) in forms.items():
    builder.nodes.append(nms(tag, f"{tag}_boxes", f"{tag}_scores", limit, iou, threshold, center))

# The If: its condition is whether every score is below -1 (never: the kernels compute it,
# and the engine reads it back to run the NMS branch).
big = np.iinfo(np.int64).max
best = node("ReduceMax", ["batched_scores"], "batched_best", keepdims=0)
empty = node("Less", [best, const("minus_one", np.array(-1, np.float32))], "batched_empty")
then_graph = helper.make_graph(
    [helper.make_node("Constant", [], ["nothing"],
                      value=helper.make_tensor("nothing_value", T.INT64, [0, 3], []))],
    "no_boxes", [], [helper.make_tensor_value_info("nothing", T.INT64, [0, 3])])
else_nms = helper.make_node(
    "NonMaxSuppression", ["batched_boxes", "batched_scores", "batched_limit", "batched_iou"],
    ["batched_kept"], name="batched")
else_graph = helper.make_graph(
    [else_nms], "boxes", [], [helper.make_tensor_value_info("batched_kept", T.INT64, ["n", 3])],
    [helper.make_tensor("batched_limit", T.INT64, [1], [big]),
     helper.make_tensor("batched_iou", T.FLOAT, [1], [0.55])])
builder.nodes.append(helper.make_node("If", [empty], ["batched_selected"], name="batched_if",
                                      then_branch=then_graph, else_branch=else_graph))

expected = {}
for tag, (limit, iou, threshold, center) in forms.items():
    expected[f"{tag}_selected"] = expected_nms(inputs[f"{tag}_boxes"], inputs[f"{tag}_scores"],
                                               limit, iou, threshold, center)
expected["batched_selected"] = expected_nms(inputs["batched_boxes"], inputs["batched_scores"],
                                            big, 0.55, None, False)

builder.write_typed(HERE, "nms-forms", inputs,
                    {name: (array, [f"{name}_rows", 3]) for name, array in expected.items()})
for name, array in expected.items():
    print(name, array.shape)
