#!/usr/bin/python3
"""Writes tiny_cnn.onnx: the example model the README's demo compiles and runs.

A small residual CNN over a 1x3x32x32 image with a 10-way classifier head: Conv, Relu,
Add, GlobalAveragePool, Flatten and Gemm, the op mix of ResNet in a few kilobytes.
Weights are drawn from a fixed seed, so the file is the same on every machine.

    /usr/bin/python3 test/models/make_tiny_cnn.py test/models/tiny_cnn.onnx
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def weight(rng, name, shape):
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
    values = rng.normal(0.0, np.sqrt(2.0 / fan_in), size=shape).astype(np.float32)
    return numpy_helper.from_array(values, name)


def main(path):
    rng = np.random.RandomState(20261122)
    initializers = [
        weight(rng, "stem.weight", [16, 3, 3, 3]),
        weight(rng, "stem.bias", [16]),
        weight(rng, "block.conv1.weight", [16, 16, 3, 3]),
        weight(rng, "block.conv1.bias", [16]),
        weight(rng, "block.conv2.weight", [16, 16, 3, 3]),
        weight(rng, "block.conv2.bias", [16]),
        weight(rng, "head.weight", [10, 16]),
        weight(rng, "head.bias", [10]),
    ]
    conv = dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1])
    nodes = [
        helper.make_node("Conv", ["image", "stem.weight", "stem.bias"], ["stem"],
                         name="stem/Conv", **conv),
        helper.make_node("Relu", ["stem"], ["stem_relu"], name="stem/Relu"),
        helper.make_node("Conv", ["stem_relu", "block.conv1.weight", "block.conv1.bias"],
                         ["conv1"], name="block/conv1/Conv", **conv),
        helper.make_node("Relu", ["conv1"], ["conv1_relu"], name="block/conv1/Relu"),
        helper.make_node("Conv", ["conv1_relu", "block.conv2.weight", "block.conv2.bias"],
                         ["conv2"], name="block/conv2/Conv", **conv),
        helper.make_node("Add", ["conv2", "stem_relu"], ["residual"], name="block/Add"),
        helper.make_node("Relu", ["residual"], ["block_out"], name="block/Relu"),
        helper.make_node("GlobalAveragePool", ["block_out"], ["pooled"], name="head/Pool"),
        helper.make_node("Flatten", ["pooled"], ["features"], name="head/Flatten", axis=1),
        helper.make_node("Gemm", ["features", "head.weight", "head.bias"], ["logits"],
                         name="head/Gemm", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
        initializers)
    model = helper.make_model(graph, producer_name="kiln-examples",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tiny_cnn.onnx")
