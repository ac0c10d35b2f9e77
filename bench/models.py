"""The benchmarked models: which ONNX export of ../shared/models Kiln compiles, and the same
architecture built in PyTorch for the peers (random weights: they do not change the time).

Every model's inputs have the batch as their first dimension, and a sample's outputs
depend on that sample's inputs alone (inference mode: no batch statistics), which is what
lets the harness check a few samples of a large batch against ONNX Runtime. The outputs
have the batch first too, except where the export takes one image only (SSDlite: its
outputs are that image's detections, of a length the detections decide).
"""

from dataclasses import dataclass, field

SEQUENCE = 128  # the text models' sequence length, as the peers in FACTS.md are measured


@dataclass(frozen=True)
class Model:
    name: str
    onnx: str  # path under shared/models (graph only; materialize.py adds weights)
    # "vision" (an image batch), "text" (token ids, batch x SEQUENCE) or "detection" (an
    # image batch in, detections out: the check matches detections, bench/run.py).
    family: str
    # Text models: the ONNX inputs in the order the PyTorch module takes them.
    token_inputs: tuple = field(default=())
    vocab: int = 0
    resolution: int = 224  # images: height and width
    # The batches a run measures unless --batches names others, and the only precisions it
    # is measured at (empty: bench/run.py's, 1, 32 and 256; fp32, fp16 and int8).
    batches: tuple = field(default=())
    precisions: tuple = field(default=())
    export_batch: int = 0  # the one batch the export takes (a static first dim); 0: any
    # Detectors: the ONNX outputs, in the order the PyTorch module returns them.
    outputs: tuple = field(default=())

    def allows(self, batch):
        return not self.export_batch or batch == self.export_batch


MODELS = [
    Model("resnet50", "resnet50.legacy17.onnx", "vision"),
    Model("mobilenet_v2", "mobilenet_v2.legacy17.onnx", "vision"),
    Model("efficientnet_b0", "efficientnet_b0.legacy17.onnx", "vision"),
    Model("vit_b_16", "vit_b_16.legacy17.onnx", "vision"),
    Model("bert_base", "bert_base.legacy17.onnx", "text",
          ("input_ids", "attention_mask", "token_type_ids"), 30522),
    Model("gpt2", "gpt2.dynamo.onnx", "text", ("input_ids",), 50257),
    # The detectors: fp32 and fp16, the precisions their check (test/models/detections.py,
    # as check-detection.py runs it) is defined for. SSDlite's export traced one image.
    Model("ssdlite320", "detection/ssdlite320_mobilenet_v3_large.legacy17.onnx", "detection",
          resolution=320, batches=(1,), precisions=("fp32", "fp16"), export_batch=1,
          outputs=("boxes", "scores", "labels")),
    Model("rtdetr_r50", "detection/rtdetr_r50.legacy17.onnx", "detection", resolution=640,
          batches=(1, 8), precisions=("fp32", "fp16"), outputs=("logits", "pred_boxes")),
]
BY_NAME = {m.name: m for m in MODELS}


def torch_module(model):
    """The PyTorch module of `model` (eval mode, on the CPU, fp32), returning what the
    ONNX export returns: its single output, or a detector's outputs in `model.outputs`'
    order."""
    import torch

    if model.family == "detection":
        return detector_module(model)
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


def detector_module(model):
    """A detector as its export runs it: an image batch in, the detector's outputs out.

    The settings below are read off the ONNX graphs, where they differ from the builders'
    defaults or where a default could drift between versions."""
    import torch

    if model.name == "ssdlite320":
        import torchvision

        # The export is torchvision's SSDlite whole: its transform ((x - 0.5) / 0.5, then a
        # bilinear resize to 320x320, the identity on a 320x320 image), the network, and the
        # post-processing (per class of 90, the scores above score_thresh, the 300 best,
        # their boxes decoded and clipped; then NMS at IoU 0.55 over all classes, the 300
        # best kept, boxes scaled back to the input's size). score_thresh is 0 in the export
        # (its Greater ops compare with 0), so that untrained weights still give detections;
        # the other values are the builder's, written out. weights_backbone=None also
        # selects MobileNetV3's reduced tail (last stage 80/480 channels, as in the graph).
        detector = torchvision.models.detection.ssdlite320_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=91, score_thresh=0.0,
            nms_thresh=0.55, detections_per_img=300, topk_candidates=300)

        class Detections(torch.nn.Module):
            """Images [B, 3, 320, 320] -> boxes, scores, labels of each image in turn (the
            export's three outputs at its batch of 1)."""

            def __init__(self, detector):
                super().__init__()
                self.detector = detector

            def forward(self, images):
                found = self.detector(list(images.unbind(0)))
                return tuple(image[key] for image in found for key in model.outputs)

        return Detections(detector).eval()

    if model.name == "rtdetr_r50":
        import transformers

        # transformers' RT-DETR with the values of its graph: 2 labels (the logits' last
        # dimension; PretrainedConfig's default), 300 queries (the TopK's k), d_model 256,
        # one AIFI encoder layer (GELU, FFN 1024), 6 decoder layers (ReLU, FFN 1024), 8
        # heads, 3 feature levels of 4 sampling points (sampling_offsets 256 -> 192 =
        # 8 x 3 x 4 x 2). All are RTDetrConfig's defaults, as is its backbone, which the
        # graph matches too: ResNet-50-D (a 32-32-64 stem, stages of 3, 4, 6 and 3
        # bottlenecks, the stride on the 3x3, average-pool shortcuts) with frozen batch
        # norms, stages 2 to 4 out. No image normalization: the model's first op is the
        # stem's convolution (RT-DETR's image processor normalizes outside the model).
        config = transformers.RTDetrConfig(
            num_labels=2, num_queries=300, d_model=256, encoder_hidden_dim=256,
            encoder_layers=1, encoder_ffn_dim=1024, encoder_attention_heads=8,
            decoder_layers=6, decoder_ffn_dim=1024, decoder_attention_heads=8,
            num_feature_levels=3, decoder_n_points=4)
        depths = getattr(config.backbone_config, "depths", None)
        if depths is not None and list(depths) != [3, 4, 6, 3]:
            raise ValueError(f"RTDetrConfig's default backbone has depths {depths}, "
                             "not ResNet-50's [3, 4, 6, 3] of the export")
        detector = transformers.RTDetrForObjectDetection(config)

        class QueryOutputs(torch.nn.Module):
            """Images [B, 3, 640, 640] -> logits [B, 300, 2], pred_boxes [B, 300, 4]."""

            def __init__(self, detector):
                super().__init__()
                self.detector = detector

            def forward(self, images):
                found = self.detector(pixel_values=images)
                return found.logits, found.pred_boxes

        return QueryOutputs(detector).eval()

    raise ValueError(f"no PyTorch builder for {model.name}")


def torch_inputs(model, batch, device, dtype, seed=0):
    """Random inputs for the PyTorch module, on `device`; images in `dtype`. A detector's
    images are uniform in [-1, 1), as `kiln bench` fills its engine's: how many boxes its
    selections keep depends on the values, so the peers time the same kind of image."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    if model.family in ("vision", "detection"):
        shape = (batch, 3, model.resolution, model.resolution)
        if model.family == "detection":
            images = torch.rand(*shape, generator=generator) * 2 - 1
        else:
            images = torch.randn(*shape, generator=generator)
        return (images.to(device, dtype),)
    inputs = []
    for name in model.token_inputs:
        if name == "attention_mask":
            inputs.append(torch.ones(batch, SEQUENCE, dtype=torch.int64))
        elif name == "token_type_ids":
            inputs.append(torch.zeros(batch, SEQUENCE, dtype=torch.int64))
        else:
            inputs.append(torch.randint(0, model.vocab, (batch, SEQUENCE), generator=generator))
    return tuple(t.to(device) for t in inputs)
