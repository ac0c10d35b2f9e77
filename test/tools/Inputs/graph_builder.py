"""The node and initializer lists the make-*.py generators build their ONNX graphs from."""
import os

import numpy as np
import onnx
from google.protobuf import text_format
from onnx import TensorProto, helper, numpy_helper


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

    def write(self, folder, name, inputs, outputs, opset=17):
        """Writes the graph as folder/NAME.onnxtxt (f32 inputs and outputs of the arrays'
        shapes, after onnx.checker) and each input and expected output as
        folder/NAME/KEY.npy (outputs as f32)."""
        self._save(
            folder, name,
            [helper.make_tensor_value_info(key, TensorProto.FLOAT, list(value.shape))
             for key, value in inputs.items()],
            [helper.make_tensor_value_info(key, TensorProto.FLOAT, list(value.shape))
             for key, value in outputs.items()],
            {**inputs, **{key: value.astype(np.float32) for key, value in outputs.items()}},
            opset)

    def write_typed(self, folder, name, inputs, outputs, opset=17, input_dims=None):
        """Writes the graph as folder/NAME.onnxtxt, its inputs and outputs typed as the
        arrays are (outputs: {key: (array, dims)}, dims naming run-time extents; an
        input's dims from input_dims where it names it), and each array as
        folder/NAME/KEY.npy as it is."""
        def value_info(key, array, dims):
            element = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[array.dtype]
            return helper.make_tensor_value_info(key, element, dims)
        input_dims = input_dims or {}
        self._save(
            folder, name,
            [value_info(key, array, input_dims.get(key, list(array.shape)))
             for key, array in inputs.items()],
            [value_info(key, array, dims) for key, (array, dims) in outputs.items()],
            {**inputs, **{key: array for key, (array, _) in outputs.items()}}, opset)

    def _save(self, folder, name, graph_inputs, graph_outputs, arrays, opset):
        """The model (checked) as folder/NAME.onnxtxt, `arrays` as folder/NAME/KEY.npy."""
        graph = helper.make_graph(self.nodes, name.replace("-", "_"), graph_inputs,
                                  graph_outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                                  ir_version=8)
        onnx.checker.check_model(model)
        with open(os.path.join(folder, f"{name}.onnxtxt"), "w") as file:
            file.write(text_format.MessageToString(model))
        data = os.path.join(folder, name)
        os.makedirs(data, exist_ok=True)
        for key, array in arrays.items():
            np.save(os.path.join(data, f"{key}.npy"), array)
