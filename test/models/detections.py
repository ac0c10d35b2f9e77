"""Comparing object detectors the way they must be compared (test/models/check-detection.py).

A detector ends in data-dependent selections (TopK of the best queries, a score threshold,
NonMaxSuppression): two correct implementations whose scores differ in the last bit may
keep different boxes, or the same boxes in another order, where scores tie. So a detector
is compared in two parts:
  - the tensors before its first data-dependent selection, exactly (relative L2 error):
    `selection_inputs` finds them, `with_outputs` makes them outputs of the model;
  - its detections, matched after sorting by score: same class and IoU >= 0.9, counted
    among the top N of the reference (`detections`, `agreement`).
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, shape_inference

# Ops whose outputs are chosen by the values of their inputs (which elements, how many).
SELECTIONS = {"TopK", "NonZero", "NonMaxSuppression", "Compress", "Unique", "ArgMax", "ArgMin"}
FLOATS = {TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.BFLOAT16}


def selection_inputs(model, limit=16):
    """Names and element types of the float tensors computed before the model's first
    data-dependent selections: those that a selection op, or an op after one, reads
    (scores that TopK or a threshold selects from, boxes gathered by the indices it
    chose). Constants and weights are left out, and a tensor that is a slice or a view of
    another (one class's scores gathered from all of them) is replaced by that one."""
    graph = shape_inference.infer_shapes(model).graph
    types = {v.name: v.type.tensor_type.elem_type
             for v in list(graph.value_info) + list(graph.input) + list(graph.output)}
    constants = {t.name for t in graph.initializer}
    producer = {}
    for node in graph.node:
        for output in node.output:
            producer[output] = node
        # Constants, and what is computed from constants alone (Identity of a weight).
        if all(name in constants for name in node.input if name):
            constants.update(node.output)

    def source(name):
        """The tensor `name` views (through Gather, Slice, Squeeze, ...), or itself."""
        views = {"Gather", "Slice", "Squeeze", "Unsqueeze", "Reshape", "Flatten", "Split",
                 "Identity", "Transpose"}
        while name in producer and producer[name].op_type in views:
            data = producer[name].input[0]
            if data in constants or types.get(data) not in FLOATS:
                break
            name = data
        return name

    found = []
    selected = set()  # values that a selection decided
    for node in graph.node:  # ONNX orders nodes topologically
        after_selection = any(name in selected for name in node.input)
        if node.op_type in SELECTIONS or after_selection:
            for operand in node.input:
                if operand and operand not in selected and operand not in constants and \
                        types.get(operand) in FLOATS:
                    name = source(operand)
                    if name not in (f for f, _ in found):
                        found.append((name, types[name]))
            selected.update(node.output)
    return found[:limit]


def with_outputs(model, extra):
    """A copy of `model` whose outputs also include `extra` ((name, element type) pairs)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    have = {o.name for o in copy.graph.output}
    for name, elem_type in extra:
        if name not in have:
            copy.graph.output.append(helper.make_tensor_value_info(name, elem_type, None))
    return copy


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def detections(outputs):
    """Per image, (scores, labels, boxes as x1 y1 x2 y2) from a detector's outputs (a dict
    by output name), in one of the two forms exporters write:
      - boxes [.., N, 4] (corners), scores [.., N] and labels [.., N], after NMS
        (torchvision's detectors);
      - logits [B, Q, C] and boxes [B, Q, 4] (centre, size) per query (the DETR family):
        a query's label is its best class, its score that class's sigmoid."""
    def find(*words):
        for name, array in outputs.items():
            if any(word in name.lower() for word in words):
                return array
        return None
    boxes, scores = find("box"), find("score")
    labels, logits = find("label", "class"), find("logit")
    if boxes is None:
        raise ValueError(f"no boxes among the outputs {sorted(outputs)}")
    if scores is not None and labels is not None:
        if scores.ndim == 1:
            boxes, scores, labels = boxes[None], scores[None], labels[None]
        return [(scores[i].astype(np.float64), labels[i].astype(np.int64),
                 boxes[i].astype(np.float64)) for i in range(scores.shape[0])]
    if logits is None:
        raise ValueError(f"neither scores and labels nor logits among {sorted(outputs)}")
    images = []
    for i in range(logits.shape[0]):
        best = logits[i].astype(np.float64)
        centre, size = boxes[i, :, :2].astype(np.float64), boxes[i, :, 2:].astype(np.float64)
        images.append((sigmoid(best.max(-1)), best.argmax(-1),
                       np.concatenate([centre - size / 2, centre + size / 2], -1)))
    return images


def iou(box, others):
    """IoU of one x1 y1 x2 y2 box with each of `others` ([M, 4]). Two boxes of no area
    (clipped to an image border, as untrained detectors' often are) overlap fully where
    they coincide (to 1e-4 of the coordinates' scale), else not at all."""
    low = np.maximum(box[:2], others[:, :2])
    high = np.minimum(box[2:], others[:, 2:])
    inter = np.prod(np.clip(high - low, 0, None), axis=-1)
    area = lambda b: np.prod(np.clip(b[..., 2:] - b[..., :2], 0, None), axis=-1)
    union = area(box) + area(others) - inter
    scale = max(1.0, float(np.abs(box).max()))
    coincide = np.abs(others - box).max(axis=-1) <= 1e-4 * scale
    return np.where(union > 0, inter / np.maximum(union, 1e-30), coincide.astype(np.float64))


def agreement(reference, result, top=100, threshold=0.9):
    """(matched, compared): the reference's `top` detections by score (per image, summed)
    that have a detection of the result's `top` with the same class and IoU >= threshold,
    each result detection matched at most once (the best IoU among the free ones)."""
    matched = compared = 0
    for (ref_scores, ref_labels, ref_boxes), (scores, labels, boxes) in zip(reference, result):
        ref_order = np.argsort(-ref_scores, kind="stable")[:top]
        order = np.argsort(-scores, kind="stable")[:top]
        free = np.ones(len(order), bool)
        for r in ref_order:
            compared += 1
            candidates = free & (labels[order] == ref_labels[r])
            if not candidates.any():
                continue
            overlaps = np.where(candidates, iou(ref_boxes[r], boxes[order]), -1.0)
            best = int(np.argmax(overlaps))
            if overlaps[best] >= threshold:
                free[best] = False
                matched += 1
    return matched, compared
