"""The node and initializer lists the make-*.py generators build their ONNX graphs from."""
import numpy as np
from onnx import helper, numpy_helper


class GraphBuilder:
    """Nodes named after their one output, and initializers from NumPy arrays."""

    def __init__(self):
        self.nodes, self.inits = [], []

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, output, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output
