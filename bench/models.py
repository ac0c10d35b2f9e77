"""The benchmarked models: which ONNX export of ../shared/models Kiln compiles, and the same
architecture built in PyTorch for the peers (random weights: they do not change the time).

Every model's inputs and outputs have the batch as their first dimension, and a sample's
outputs depend on that sample's inputs alone (inference mode: no batch statistics), which
is what lets the harness check a few samples of a large batch against ONNX Runtime.
"""

from dataclasses import dataclass, field

SEQUENCE = 128  # the text models' sequence length, as the peers in FACTS.md are measured


@dataclass(frozen=True)
class Model:
    name: str
    onnx: str  # file name in shared/models (graph only; materialize.py adds weights)
    family: str  # "vision" (an image batch) or "text" (token ids, batch x SEQUENCE)
    # Text models: the ONNX inputs in the order the PyTorch module takes them.
    token_inputs: tuple = field(default=())
    vocab: int = 0


MODELS = [
    Model("resnet50", "resnet50.legacy17.onnx", "vision"),
    Model("mobilenet_v2", "mobilenet_v2.legacy17.onnx", "vision"),
    Model("efficientnet_b0", "efficientnet_b0.legacy17.onnx", "vision"),
    Model("vit_b_16", "vit_b_16.legacy17.onnx", "vision"),
    Model("bert_base", "bert_base.legacy17.onnx", "text",
          ("input_ids", "attention_mask", "token_type_ids"), 30522),
    Model("gpt2", "gpt2.dynamo.onnx", "text", ("input_ids",), 50257),
]
BY_NAME = {m.name: m for m in MODELS}


def torch_module(model):
    """The PyTorch module of `model` (eval mode, on the CPU, fp32), returning one tensor
    like the ONNX export's single output."""
    import torch

    if model.family == "vision":
        import torchvision

        return getattr(torchvision.models, model.name)(weights=None).eval()

    import transformers

    if model.name == "bert_base":
        # The export's output is the encoder's last hidden state (no pooler).
        inner = transformers.BertModel(transformers.BertConfig(), add_pooling_layer=False)
    elif model.name == "gpt2":
        inner = transformers.GPT2Model(transformers.GPT2Config(use_cache=False))
    else:
        raise ValueError(f"no PyTorch builder for {model.name}")

    class LastHiddenState(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, *inputs):
            return self.inner(*inputs).last_hidden_state

    return LastHiddenState(inner).eval()


def torch_inputs(model, batch, device, dtype, seed=0):
    """Random inputs for the PyTorch module, on `device`; images in `dtype`."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    if model.family == "vision":
        return (torch.randn(batch, 3, 224, 224, generator=generator).to(device, dtype),)
    inputs = []
    for name in model.token_inputs:
        if name == "attention_mask":
            inputs.append(torch.ones(batch, SEQUENCE, dtype=torch.int64))
        elif name == "token_type_ids":
            inputs.append(torch.zeros(batch, SEQUENCE, dtype=torch.int64))
        else:
            inputs.append(torch.randint(0, model.vocab, (batch, SEQUENCE), generator=generator))
    return tuple(t.to(device) for t in inputs)
