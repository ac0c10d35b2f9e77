#!/usr/bin/env python3
"""The kernel benchmark (issue 8): Kiln's kernels for single operators against the libraries
PyTorch calls, in one run on one GPU.

  gemm       C = A B, fp16 and bf16 (fp32 accumulation): square 512 to 8192, and the matrix
             products of BERT-base/GPT-2 layers at 8 x 128 tokens and of ResNet-50's
             classifier at batch 256. Peer: torch.matmul (cuBLAS).
  conv       every distinct convolution of ResNet-50 (shapes read off the shared model) at
             batch 32, fp16, NHWC in and out (compiled --channels-last). Peer:
             torch.nn.functional.conv2d on channels-last tensors (cuDNN).
  attention  softmax(Q K^T / sqrt(D)) V, fp16, batch 8, 12 heads of 64, sequence 128 and 512,
             unmasked and causal. Peer: scaled_dot_product_attention (flash / memory-efficient).
  depthwise  every distinct depthwise convolution (group == channels) of the shared
             MobileNetV2 and EfficientNet-B0 exports at batch 32, with bias and ReLU6 (Clip
             0..6) fused, in fp16 NHWC (compiled --channels-last) and fp32 NCHW. Peer:
             F.conv2d(groups=C) + bias + F.relu6 in the same layout (cuDNN; channels_last
             memory format for NHWC), one CUDA graph; the bare F.conv2d is timed too. The
             table gives GB/s (input + output + weights, each once).
  tf32       fp32 models with kiln compile --tf32 (issue 8): f32 products with a constant B
             (4096^3, 8192^3, BERT-base's at 8 x 128 tokens) and ResNet-50's convolutions
             (batch 32, NHWC, --channels-last), their operands read as tf32; and fp32
             ResNet-50 end to end at batch 32 (--tf32 --channels-last) against ONNX Runtime
             (CPU) for the numbers and torchvision's ResNet-50 for the time. Peer: PyTorch
             with torch.backends.cuda.matmul.allow_tf32 and cudnn.allow_tf32 on. Checked
             against float64 arithmetic on the same inputs (relative L2 ~1e-3).
  fused      products and convolutions with their epilogues fused (issue 8): a ResNet-50
             3x3 conv + bias + ReLU, the end of a bottleneck (1x1 conv + bias + residual +
             ReLU), BERT-base's ffn1 (matmul + bias + GELU) and ffn2 (matmul + bias +
             residual), ViT-B/16's four products at batch 32 and its fc1 at 256, fp16.
             Peer: the same ops in PyTorch (F.conv2d with bias, torch.addmm, F.relu /
             F.gelu, +), one CUDA graph.
  forms      convolutions of other forms than ResNet-50's (issue 40), fp16, channels last in
             and out (NWC / NHWC / NDHWC; compiled --channels-last), with a bias: 1-D
             (a TCN's, dilated too), dilated 2-D (DeepLab's ASPP), strides 1x2 with
             asymmetric padding, 3-D (a video network's 3x3x3), ViT-B/16's 16x16 patch
             embedding, grouped ones (ResNeXt's 32 groups, 2 wide groups, ShuffleNet's
             1x1 of 3 groups), transposed 2-D (4x4 stride 2,
             a GAN's or FCN's; 2x2 stride 2, a U-Net's) and transposed 1-D. Peer:
             F.conv1d/2d/3d and F.conv_transpose1d/2d on channels-last tensors (cuDNN).
  batched    batched products of two activations (issue 40), fp16: attention's scores and
             context at batch 8, 12 heads of 64, sequence 512 (B*H matrices), the scores of
             a grouped-query attention (8 query heads a key head: the key broadcast), and
             one matrix by a stack. Peer: torch.matmul on the same tensors (cuBLAS's
             batched GEMM).
  attnforms  attention in the forms exporters write beyond BERT's (issue 40), fp16, sequence
             512: a relative-position bias gathered from a table, ALiBi under a causal fill,
             a boolean padding mask given at run time, rotary embeddings on Q and K,
             grouped-query attention (32 query heads, 8 key/value heads of 128, Hugging
             Face's repeat_kv), head size 80, and head size 256 (two products and a softmax
             in Kiln). Peer: the same computation in PyTorch around
             F.scaled_dot_product_attention (the bias or mask as attn_mask, enable_gqa,
             the rotary arithmetic before it), one CUDA graph.
  memory     the memory-bound kernels of issue 42, on tensors of 64 MB and more, fp16 and
             fp32: pointwise (SiLU, a sum), a broadcast bias, 2-D, 3-D and 4-D transposes,
             ReduceSum over the inner, outer and middle axis, LayerNorm and softmax over the
             last axis, a concatenation, an embedding Gather, a 2x nearest Resize and a
             bilinear GridSample. Peers: torch eager and torch.compile (Inductor, default
             mode) of the same op, each captured into a CUDA graph. GB/s counts the bytes
             the op must move (each input and output once; a gather's rows once); the
             table also gives that as a fraction of the H200's 4.3 TB/s.
  rows       row kernels (rows): softmax over the last axis of (8*12*128) x
             128, (8*12*512) x 512 and 1024 x 50257 (GPT-2's vocabulary), LayerNorm of
             8192 x 768 after a residual add, ReduceMean and ReduceSum over the last axis of
             8192 x 768 and 65536 x 1024; fp16 and fp32. Peer: torch eager (F.softmax,
             F.layer_norm, mean, sum). GB/s counts the bytes read and written once.

Kiln's side of a case is a one-operator ONNX model (weights as random initializers, the
attention written out as MatMul, Mul, [Where], Softmax, MatMul as exporters write it) that
`kiln compile` turns into an engine; `kiln run` checks its output against PyTorch in fp32
(relative L2), `kiln bench` times it (CUDA graph replay between events; median). The peers
are timed the same way in this process (bench/timing.py), after Kiln, on the same GPU,
their call captured into a CUDA graph as well. Both
sides reuse one set of inputs, so products that fit in the L2 are measured warm on both.

TFLOP/s counts 2 M N K for a product, 2 N OH OW M (C / group) KH KW for a convolution, and
4 B H S^2 D for attention (causal included: the same count on both sides keeps the ratio).

    python3 bench/kernels.py --kiln build/bin/kiln --out DIR [--only gemm,conv,fused] [--quick]
        [--target sm_80]

Writes DIR/kernels.json and DIR/kernels.md and prints the table last.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import summarize, warmup_runs_for  # noqa: E402
from torch_peer import measure  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIN_RUNS, MIN_SECONDS = 20, 0.5
# rel L2 of a half-precision result against fp32 arithmetic on the same inputs.
TOLERANCE = {"fp16": 1e-2, "bf16": 3e-2, "fp32": 1e-4}
# fp32 compiled --tf32 (operands rounded to a 10-bit mantissa) against float64.
TF32_TOLERANCE = 5e-3
# A whole network compiled --tf32 (ResNet-50: ~50 layers of rounded operands) against ONNX
# Runtime in fp32: DESIGN.md's ~1e-3 an op, compounded.
TF32_MODEL_TOLERANCE = 1e-2
# Seconds of GPU tuning per compile (kiln compile --tune-budget); None: kiln's default.
TUNE_BUDGET = None
# The GPU target Kiln compiles for (kiln compile --target): sm_90a, or sm_80 to measure the
# mma.sync templates (the driver compiles their PTX for the GPU at hand).
TARGET = "sm_90a"


# --- Cases --------------------------------------------------------------------------------

def gemm_cases(quick):
    sizes = [512, 1024, 2048, 4096] + ([] if quick else [8192])
    cases = []
    for dtype in ("fp16", "bf16"):
        for n in sizes:
            cases.append({"family": "gemm", "name": f"{n}^3", "dtype": dtype, "m": n, "n": n,
                          "k": n})
        if dtype == "fp16":
            tokens = 8 * 128
            for name, k, n in (("bert/gpt2 qkv", 768, 2304), ("bert/gpt2 out", 768, 768),
                               ("bert/gpt2 ffn1", 768, 3072), ("bert/gpt2 ffn2", 3072, 768),
                               ("gpt2 lm-head", 768, 50257)):
                cases.append({"family": "gemm", "name": f"{name} {tokens}x{k}x{n}",
                              "dtype": dtype, "m": tokens, "n": n, "k": k})
            cases.append({"family": "gemm", "name": "resnet50 fc 256x2048x1000", "dtype": dtype,
                          "m": 256, "n": 1000, "k": 2048})
    for case in cases:
        case["flops"] = 2 * case["m"] * case["n"] * case["k"]
    return cases


def distinct_convs(model_file):
    """{(C, H, W, M, KH, KW, stride, pad, group): count} over the Conv nodes of a shared
    export (its input shapes by ONNX shape inference)."""
    import onnx
    from onnx import shape_inference
    shared = os.environ.get("KILN_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
    model = onnx.load(os.path.join(shared, "models", model_file))
    inferred = shape_inference.infer_shapes(model)
    shapes = {}
    for value in list(inferred.graph.value_info) + list(inferred.graph.input):
        dims = [d.dim_value if d.HasField("dim_value") else 1
                for d in value.type.tensor_type.shape.dim]
        shapes[value.name] = dims
    initializers = {i.name: list(i.dims) for i in model.graph.initializer}
    distinct = {}
    for node in model.graph.node:
        if node.op_type != "Conv":
            continue
        attrs = {a.name: (list(a.ints) if a.ints else a.i) for a in node.attribute}
        x, w = shapes[node.input[0]], initializers[node.input[1]]
        key = (x[1], x[2], x[3], w[0], w[2], w[3], attrs.get("strides", [1, 1])[0],
               attrs.get("pads", [0, 0, 0, 0])[0], attrs.get("group", 1))
        distinct[key] = distinct.get(key, 0) + 1
    return distinct


def resnet50_convs(batch):
    """The distinct convolutions of the shared ResNet-50 export, with how often each occurs."""
    cases = []
    for (c, h, w_, m, kh, kw, stride, pad, group), count in distinct_convs(
            "resnet50.legacy17.onnx").items():
        oh = (h + 2 * pad - kh) // stride + 1
        ow = (w_ + 2 * pad - kw) // stride + 1
        cases.append({"family": "conv", "dtype": "fp16", "batch": batch, "c": c, "h": h, "w": w_,
                      "m": m, "kh": kh, "kw": kw, "stride": stride, "pad": pad, "group": group,
                      "count": count,
                      "name": f"{c}x{h}x{w_} -> {m} {kh}x{kw}/{stride} (x{count})",
                      "flops": 2 * batch * oh * ow * m * (c // group) * kh * kw})
    return cases


def depthwise_convs(batch):
    """The distinct depthwise convolutions of the shared MobileNetV2 and EfficientNet-B0
    exports (bias + ReLU6 fused), fp16 NHWC and fp32 NCHW of each shape in turn."""
    shapes = {}
    for model, short in (("mobilenet_v2.legacy17.onnx", "mnv2"),
                         ("efficientnet_b0.legacy17.onnx", "effb0")):
        for key, count in distinct_convs(model).items():
            c, group = key[0], key[8]
            if group == c and group > 1:
                shapes.setdefault(key, []).append(f"{short} x{count}")
    cases = []
    for (c, h, w_, m, kh, kw, stride, pad, group), where in shapes.items():
        oh = (h + 2 * pad - kh) // stride + 1
        ow = (w_ + 2 * pad - kw) // stride + 1
        for dtype, layout in (("fp16", "NHWC"), ("fp32", "NCHW")):
            size = 2 if dtype == "fp16" else 4
            cases.append({"family": "depthwise", "dtype": dtype, "layout": layout,
                          "batch": batch, "c": c, "h": h, "w": w_, "m": m, "kh": kh, "kw": kw,
                          "stride": stride, "pad": pad, "group": group,
                          "name": f"{c}x{h}x{w_} {kh}x{kw}/{stride} {layout} ({', '.join(where)})",
                          "flops": 2 * batch * oh * ow * m * kh * kw,
                          "bytes": size * (batch * c * h * w_ + batch * m * oh * ow
                                           + m * kh * kw + m)})
    return cases


def tf32_cases(quick, filter_convs):
    """fp32 products and convolutions compiled --tf32, and ResNet-50 end to end."""
    cases = []
    for n in [4096] + ([] if quick else [8192]):
        cases.append({"family": "tf32", "kind": "gemm", "name": f"{n}^3", "m": n, "n": n, "k": n})
    tokens = 8 * 128
    for name, k, n in (("bert qkv", 768, 2304), ("bert out", 768, 768), ("bert ffn1", 768, 3072),
                       ("bert ffn2", 3072, 768)):
        cases.append({"family": "tf32", "kind": "gemm", "name": f"{name} {tokens}x{k}x{n}",
                      "m": tokens, "n": n, "k": k})
    for case in cases:
        case.update(dtype="fp32", flops=2 * case["m"] * case["n"] * case["k"])
    for conv in resnet50_convs(batch=32):
        if filter_convs(conv["name"]):
            cases.append({**conv, "family": "tf32", "kind": "conv", "dtype": "fp32"})
    batch = 32
    cases.append({"family": "tf32", "kind": "model", "dtype": "fp32", "batch": batch,
                  "name": f"resnet50 b{batch} (model)", "flops": 2 * 4.1e9 * batch})
    return cases


def fused_cases():
    """Convolutions and products with the epilogues real models fuse into them."""
    cases = []
    for c, h, m, k, residual, name in ((64, 56, 64, 3, False, "conv3x3 64x56x56 -> 64 +bias relu"),
                                       (64, 56, 256, 1, True,
                                        "conv1x1 64x56x56 -> 256 +bias +residual relu")):
        cases.append({"family": "fused", "kind": "conv", "dtype": "fp16", "batch": 32, "c": c,
                      "h": h, "w": h, "m": m, "kh": k, "kw": k, "stride": 1, "pad": k // 2,
                      "group": 1, "residual": residual, "name": name,
                      "flops": 2 * 32 * h * h * m * c * k * k})
    for m, k, n, act, residual, name in ((1024, 768, 3072, "gelu", False,
                                          "bert ffn1 1024x768x3072 +bias gelu"),
                                         (1024, 3072, 768, None, True,
                                          "bert ffn2 1024x3072x768 +bias +residual"),
                                         # ViT-B/16's layer at batch 32 (197 tokens an image):
                                         # products of a short K (768) and many tiles.
                                         (6304, 768, 2304, None, False,
                                          "vit qkv 6304x768x2304 +bias"),
                                         (6304, 768, 768, None, True,
                                          "vit out 6304x768x768 +bias +residual"),
                                         (6304, 768, 3072, "gelu", False,
                                          "vit fc1 6304x768x3072 +bias gelu"),
                                         (6304, 3072, 768, None, True,
                                          "vit fc2 6304x3072x768 +bias +residual"),
                                         (50432, 768, 2304, None, False,
                                          "vit qkv b256 50432x768x2304 +bias"),
                                         (50432, 768, 3072, "gelu", False,
                                          "vit fc1 b256 50432x768x3072 +bias gelu"),
                                         # The same product without the GELU: what the
                                         # activation costs the epilogue.
                                         (50432, 768, 3072, None, False,
                                          "vit fc1 b256 50432x768x3072 +bias"),
                                         # One sequence of 128 tokens (GPT-2 and BERT at
                                         # batch 1): 6 to 24 tiles, most SMs idle.
                                         (128, 768, 2304, None, False,
                                          "seq128 qkv 128x768x2304 +bias"),
                                         (128, 768, 768, None, True,
                                          "seq128 out 128x768x768 +bias +residual"),
                                         (128, 768, 3072, "gelu", False,
                                          "seq128 ffn1 128x768x3072 +bias gelu"),
                                         (128, 3072, 768, None, True,
                                          "seq128 ffn2 128x3072x768 +bias +residual")):
        cases.append({"family": "fused", "kind": "gemm", "dtype": "fp16", "m": m, "k": k, "n": n,
                      "act": act, "residual": residual, "name": name, "flops": 2 * m * n * k})
    return cases


def form_cases():
    """Convolutions of every form (issue 40): (name, op, x shape NC..., w shape, strides,
    dilations, pads, output padding, group)."""
    specs = [
        ("conv1d 256x1024 -> 256 k3", "Conv", (32, 256, 1024), (256, 256, 3), [1], [1], [1, 1],
         None, 1),
        ("conv1d 256x1024 -> 256 k3 d4", "Conv", (32, 256, 1024), (256, 256, 3), [1], [4],
         [4, 4], None, 1),
        ("conv2d 256x64x64 -> 256 3x3 d2", "Conv", (8, 256, 64, 64), (256, 256, 3, 3), [1, 1],
         [2, 2], [2, 2, 2, 2], None, 1),
        ("conv2d 256x33x33 -> 256 3x3 d6", "Conv", (16, 256, 33, 33), (256, 256, 3, 3), [1, 1],
         [6, 6], [6, 6, 6, 6], None, 1),
        ("conv2d 128x32x128 -> 128 3x3 s1x2 asym", "Conv", (32, 128, 32, 128),
         (128, 128, 3, 3), [1, 2], [1, 1], [1, 1, 1, 0], None, 1),
        ("conv3d 64x16x56x56 -> 64 3x3x3", "Conv", (8, 64, 16, 56, 56), (64, 64, 3, 3, 3),
         [1, 1, 1], [1, 1, 1], [1, 1, 1, 1, 1, 1], None, 1),
        ("conv3d 128x8x28x28 -> 128 3x3x3 s2", "Conv", (8, 128, 8, 28, 28), (128, 128, 3, 3, 3),
         [2, 2, 2], [1, 1, 1], [1, 1, 1, 1, 1, 1], None, 1),
        ("patchify 3x224x224 -> 768 16x16/16", "Conv", (32, 3, 224, 224), (768, 3, 16, 16),
         [16, 16], [1, 1], [0, 0, 0, 0], None, 1),
        ("grouped 256x28x28 -> 256 3x3 g32", "Conv", (32, 256, 28, 28), (256, 8, 3, 3), [1, 1],
         [1, 1], [1, 1, 1, 1], None, 32),
        ("grouped 128x56x56 -> 128 3x3 g32 (ResNeXt 32x4d)", "Conv", (32, 128, 56, 56),
         (128, 4, 3, 3), [1, 1], [1, 1], [1, 1, 1, 1], None, 32),
        ("grouped 512x28x28 -> 512 3x3 g2", "Conv", (32, 512, 28, 28), (512, 256, 3, 3),
         [1, 1], [1, 1], [1, 1, 1, 1], None, 2),
        ("grouped 240x28x28 -> 240 1x1 g3 (ShuffleNet)", "Conv", (32, 240, 28, 28),
         (240, 80, 1, 1), [1, 1], [1, 1], [0, 0, 0, 0], None, 3),
        ("convT2d 256x32x32 -> 128 4x4/2", "ConvTranspose", (32, 256, 32, 32),
         (256, 128, 4, 4), [2, 2], [1, 1], [1, 1, 1, 1], [0, 0], 1),
        ("convT2d 256x64x64 -> 128 2x2/2", "ConvTranspose", (16, 256, 64, 64),
         (256, 128, 2, 2), [2, 2], [1, 1], [0, 0, 0, 0], [0, 0], 1),
        ("convT1d 256x512 -> 128 k4/2", "ConvTranspose", (32, 256, 512), (256, 128, 4), [2],
         [1], [1, 1], [0], 1),
    ]
    cases = []
    for name, op, x, w, strides, dilations, pads, output_padding, group in specs:
        spatial = len(x) - 2
        if op == "Conv":
            out = [(x[2 + i] + pads[i] + pads[spatial + i] - dilations[i] * (w[2 + i] - 1) - 1)
                   // strides[i] + 1 for i in range(spatial)]
            flops = 2 * x[0] * math.prod(out) * w[0] * w[1] * math.prod(w[2:])
            channels = w[0]
        else:
            out = [strides[i] * (x[2 + i] - 1) + output_padding[i] + dilations[i] * (w[2 + i] - 1)
                   + 1 - pads[i] - pads[spatial + i] for i in range(spatial)]
            flops = 2 * x[0] * math.prod(x[2:]) * w[0] * w[1] * math.prod(w[2:])
            channels = w[1] * group
        cases.append({"family": "forms", "dtype": "fp16", "name": name, "op": op, "x": x, "w": w,
                      "strides": strides, "dilations": dilations, "pads": pads,
                      "output_padding": output_padding, "group": group,
                      "out": [x[0], channels] + out, "flops": flops})
    return cases


def batched_cases():
    """Batched products of two activations: (name, A shape, B shape), broadcast as NumPy."""
    specs = [
        ("scores 8x12 heads 512x64 . 64x512", (8, 12, 512, 64), (8, 12, 64, 512)),
        ("context 8x12 heads 512x512 . 512x64", (8, 12, 512, 512), (8, 12, 512, 64)),
        ("gqa scores 8x(4x8) heads 512x128, keys shared", (8, 4, 8, 512, 128),
         (8, 4, 1, 128, 512)),
        ("matrix by a stack 1024x1024 . 64x1024x1024", (1024, 1024), (64, 1024, 1024)),
        # Extents the templates' 16-byte rows do not divide (ViT's 197 tokens): padded.
        ("scores 32x12 heads 197x64 . 64x197 (N unaligned)", (32, 12, 197, 64),
         (32, 12, 64, 197)),
        ("context 32x12 heads 197x197 . 197x64 (K unaligned)", (32, 12, 197, 197),
         (32, 12, 197, 64)),
    ]
    cases = []
    for name, a, b in specs:
        out = list(np.broadcast_shapes(a[:-2], b[:-2])) + [a[-2], b[-1]]
        flops = 2 * math.prod(out) * a[-1]
        cases.append({"family": "batched", "dtype": "fp16", "name": name, "a": a, "b": b,
                      "out": out, "flops": flops})
    return cases


HBM_GBS = 4300.0  # the H200's device-memory bandwidth, GB/s (docs: ~4.3 TB/s measured)


def memory_cases():
    """The memory-bound ops of issue 42's acceptance, each moving 64 MB or more."""
    cases = []
    for dtype in ("fp16", "fp32"):
        size = 2 if dtype == "fp16" else 4

        def add(kind, name, shape, moved, **extra):
            cases.append({"family": "memory", "kind": kind, "dtype": dtype, "shape": shape,
                          "name": name, "bytes": moved * size, "flops": 0, **extra})
        n = 1 << 25  # 32 Mi elements: 64 MB in fp16
        add("silu", "silu 8192 x 4096", (8192, 4096), 2 * n)
        add("add", "add 8192 x 4096", (8192, 4096), 3 * n)
        add("bias", "add bias[4096] to 8192 x 4096", (8192, 4096), 2 * n + 4096)
        for shape, perm in (((8192, 4096), (1, 0)),
                            ((64, 1024, 512), (0, 2, 1)),
                            ((32, 64, 128, 128), (0, 2, 3, 1)),
                            ((32, 128, 128, 64), (0, 3, 1, 2)),
                            ((64, 512, 16, 64), (0, 2, 1, 3))):
            add("transpose", f"transpose {'x'.join(map(str, shape))} perm "
                f"{''.join(map(str, perm))}", shape, 2 * n, perm=perm)
        add("reduce", "reducesum 32768 x 1024 inner", (32768, 1024), n + 32768, axis=1)
        add("reduce", "reducesum 1024 x 32768 outer", (1024, 32768), n + 32768, axis=0)
        add("reduce", "reducesum 256 x 1024 x 128 middle", (256, 1024, 128), n + 32768, axis=1)
        add("layernorm", "layernorm 32768 x 1024", (32768, 1024), 2 * n)
        add("softmax", "softmax 32768 x 1024", (32768, 1024), 2 * n)
        add("concat", "concat 2 x (4096 x 4096) on axis 1", (4096, 4096), 4 * (n // 2))
        add("gather", "gather 32768 rows of a 65536 x 1024 table", (65536, 1024), 2 * n,
            rows=32768)
        add("resize", "resize nearest 2x 32 x 16 x 128 x 128", (32, 16, 128, 128),
            (1 << 23) * 5, mode="nearest")
        add("resize", "resize linear 2x 32 x 16 x 128 x 128", (32, 16, 128, 128),
            (1 << 23) * 5, mode="linear")
        add("gridsample", "gridsample bilinear 8 x 64 x 128 x 128 -> 256 x 256",
            (8, 64, 128, 128), (1 << 23) + 4 * (1 << 23) + 2 * 8 * 256 * 256)
    return cases


def rows_cases():
    """Softmax, LayerNorm and reductions over rows, as BERT, GPT-2 and ViT compute them."""
    cases = []
    for dtype in ("fp16", "fp32"):
        size = 2 if dtype == "fp16" else 4
        for shape, name in (((8, 12, 128, 128), "softmax (8*12*128) x 128"),
                            ((8, 12, 512, 512), "softmax (8*12*512) x 512"),
                            ((1024, 50257), "softmax 1024 x 50257")):
            elements = math.prod(shape)
            cases.append({"family": "rows", "kind": "softmax", "dtype": dtype, "shape": shape,
                          "name": name, "bytes": 2 * elements * size})
        elements = 8192 * 768
        cases.append({"family": "rows", "kind": "layernorm", "dtype": dtype,
                      "shape": (8192, 768), "name": "residual + layernorm 8192 x 768",
                      "bytes": 3 * elements * size})
        for kind in ("mean", "sum"):
            for rows, length in ((8192, 768), (65536, 1024)):
                cases.append({"family": "rows", "kind": kind, "dtype": dtype,
                              "shape": (rows, length),
                              "name": f"reduce{kind} {rows} x {length}",
                              "bytes": (rows * length + rows) * size})
    for case in cases:
        case["flops"] = 0
    return cases


def attention_cases():
    cases = []
    for seq in (128, 512):
        for causal in (False, True):
            cases.append({"family": "attention", "dtype": "fp16", "batch": 8, "heads": 12,
                          "seq": seq, "dim": 64, "causal": causal,
                          "name": f"b8 h12 s{seq} d64{' causal' if causal else ''}",
                          "flops": 4 * 8 * 12 * seq * seq * 64})
    # ViT-B/16's attention at batch 32: 197 tokens, a partial last tile each way.
    cases.append({"family": "attention", "dtype": "fp16", "batch": 32, "heads": 12, "seq": 197,
                  "dim": 64, "causal": False, "name": "b32 h12 s197 d64 (ViT-B/16)",
                  "flops": 4 * 32 * 12 * 197 * 197 * 64})
    return cases


def attention_form_cases():
    def case(form, name, batch=8, heads=12, kv_heads=None, dim=64, causal=False):
        return {"family": "attnforms", "dtype": "fp16", "form": form, "name": name,
                "batch": batch, "heads": heads, "kv_heads": kv_heads or heads, "seq": 512,
                "dim": dim, "causal": causal, "flops": 4 * batch * heads * 512 * 512 * dim}
    return [case("bias", "b8 h12 s512 d64 bias table"),
            case("alibi", "b8 h12 s512 d64 ALiBi causal", causal=True),
            case("padding", "b8 h12 s512 d64 bool padding mask"),
            case("rotary", "b8 h12 s512 d64 rotary"),
            case("gqa", "b4 h32 kv8 s512 d128 grouped-query", batch=4, heads=32, kv_heads=8,
                 dim=128),
            case("plain", "b8 h12 s512 d80", dim=80),
            case("plain", "b8 h12 s512 d128", dim=128),
            case("plain", "b8 h8 s512 d256 (two products)", heads=8, dim=256)]


def attention_form_tables(case):
    """The constants of an `attnforms` case (float64): the additive bias [1, H, S, S] (bias
    table or ALiBi), the rotary cos/sin [S, D] and the relative-position indices."""
    s, h, d = case["seq"], case["heads"], case["dim"]
    rng = np.random.default_rng(7)
    tables = {}
    if case["form"] == "bias":
        tables["table"] = rng.standard_normal((2 * s - 1, h)).astype(np.float32)
        tables["relative"] = np.arange(s)[None, :] - np.arange(s)[:, None] + s - 1
        tables["bias"] = tables["table"].astype(np.float64)[tables["relative"]].transpose(2, 0, 1)[None]
    if case["form"] == "alibi":
        tables["slopes"] = np.array([2 ** (-8 * (i + 1) / h) for i in range(h)],
                                    np.float32).reshape(h, 1, 1)
        distance = np.arange(s)[None, :] - np.arange(s)[:, None]
        tables["bias"] = (tables["slopes"].astype(np.float64) * distance
                          + np.where(distance <= 0, 0.0, -np.inf))[None]
    if case["form"] == "rotary":
        frequencies = np.arange(s)[:, None] * (10000.0 ** (-np.arange(0, d, 2) / d))[None, :]
        angles = np.concatenate([frequencies, frequencies], -1)
        tables["cos"], tables["sin"] = np.cos(angles), np.sin(angles)
    return tables


def attention_form_model(case, rng, helper, numpy_helper, dt):
    """The ONNX nodes, initializers and inputs of an `attnforms` case."""
    from onnx import TensorProto
    b, h, hkv, s, d = case["batch"], case["heads"], case["kv_heads"], case["seq"], case["dim"]
    tables = attention_form_tables(case)
    inputs = {"q": rng.standard_normal((b, h, s, d), dtype=np.float32),
              "k": rng.standard_normal((b, hkv, s, d), dtype=np.float32),
              "v": rng.standard_normal((b, hkv, s, d), dtype=np.float32)}
    nodes, inits = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(op, inputs_, output, **attrs):
        nodes.append(helper.make_node(op, inputs_, [output], **attrs))
        return output
    q, k, v = "q", "k", "v"
    if case["form"] == "rotary":
        cos = const("cos", tables["cos"].astype(np.float16))
        sin = const("sin", tables["sin"].astype(np.float16))
        bounds = [const(f"b{i}", np.array([i * d // 2], np.int64)) for i in range(3)]
        last = const("last", np.array([-1], np.int64))

        def rotate(x):
            first = node("Slice", [x, bounds[0], bounds[1], last], x + "1")
            second = node("Slice", [x, bounds[1], bounds[2], last], x + "2")
            rotated = node("Concat", [node("Neg", [second], x + "n"), first], x + "r", axis=-1)
            return node("Add", [node("Mul", [x, cos], x + "c"), node("Mul", [rotated, sin], x + "s")],
                        x + "e")
        q, k = rotate("q"), rotate("k")
    if hkv != h:
        def repeat_kv(x):
            unsqueezed = node("Unsqueeze", [x, const(x + "a", np.array([2], np.int64))], x + "u")
            expanded = node("Expand", [unsqueezed, const(x + "e", np.array([b, hkv, h // hkv, s, d],
                                                                          np.int64))], x + "x")
            return node("Reshape", [expanded, const(x + "s", np.array([b, h, s, d], np.int64))],
                        x + "h")
        k, v = repeat_kv(k), repeat_kv(v)
    kt = node("Transpose", [k], "kt", perm=[0, 1, 3, 2])
    scores = node("Mul", [node("MatMul", [q, kt], "s"),
                          const("scale", np.array(1 / math.sqrt(d), np.float16))], "scaled")
    neg_inf = const("neg_inf", np.array(-np.inf, np.float16))
    if case["form"] == "bias":
        gathered = node("Gather", [const("table", tables["table"].astype(np.float16)),
                                   const("relative", tables["relative"])], "g")
        per_head = node("Transpose", [gathered], "gt", perm=[2, 0, 1])
        bias = node("Unsqueeze", [per_head, const("axis0", np.array([0], np.int64))], "bias")
        scores = node("Add", [scores, bias], "biased")
    if case["form"] == "alibi":
        distance = np.arange(s)[None, :] - np.arange(s)[:, None]
        alibi = node("Mul", [const("slopes", tables["slopes"].astype(np.float16)),
                             const("distance", distance.astype(np.float16))], "alibi")
        biased = node("Add", [scores, alibi], "biased")
        causal = const("causal", np.tril(np.ones((s, s), bool)))
        scores = node("Where", [causal, biased, neg_inf], "filled")
    if case["form"] == "padding":
        keep = np.ones((b, s), bool)
        for i in range(b):
            keep[i, s - 37 * (i + 1):] = False
        inputs["mask"] = keep
        mask = node("Unsqueeze", ["mask", const("axes", np.array([1, 2], np.int64))], "mask4")
        scores = node("Where", [mask, scores, neg_inf], "filled")
    p = node("Softmax", [scores], "p", axis=-1)
    node("MatMul", [p, v], "y")
    graph_inputs = [helper.make_tensor_value_info(n, TensorProto.BOOL if n == "mask" else dt,
                                                  list(a.shape)) for n, a in inputs.items()]
    return nodes, inits, inputs, graph_inputs, [("y", [b, h, s, d])]


# --- Kiln's side: a one-operator ONNX model, compiled, checked, timed ----------------------

def onnx_dtype(dtype):
    from onnx import TensorProto
    return {"fp16": TensorProto.FLOAT16, "bf16": TensorProto.BFLOAT16,
            "fp32": TensorProto.FLOAT}[dtype]


def memory_model(case, rng, inputs, inits, helper, numpy_helper, storage):
    """The nodes and outputs of a `memory` case (inputs and initializers added in place)."""
    shape, kind = list(case["shape"]), case["kind"]
    x = rng.standard_normal(shape, dtype=np.float32)
    node = helper.make_node
    if kind == "gather":
        # The table a weight, the indices an input, as an embedding is exported.
        table = x.astype(storage)
        inits.append(numpy_helper.from_array(table, "table"))
        case["_table"] = table.astype(np.float32)
        inputs["ids"] = rng.integers(0, shape[0], case["rows"]).astype(np.int64)
        return [node("Gather", ["table", "ids"], ["y"], axis=0)], [("y", [case["rows"]] +
                                                                   shape[1:])]
    inputs["x"] = x
    if kind == "silu":
        return [node("Sigmoid", ["x"], ["g"]), node("Mul", ["x", "g"], ["y"])], [("y", shape)]
    if kind == "add":
        inputs["r"] = rng.standard_normal(shape, dtype=np.float32)
        return [node("Add", ["x", "r"], ["y"])], [("y", shape)]
    if kind == "bias":
        bias = rng.standard_normal(shape[-1:], dtype=np.float32).astype(storage)
        inits.append(numpy_helper.from_array(bias, "b"))
        case["_bias"] = bias.astype(np.float32)
        return [node("Add", ["x", "b"], ["y"])], [("y", shape)]
    if kind == "transpose":
        perm = list(case["perm"])
        return ([node("Transpose", ["x"], ["y"], perm=perm)],
                [("y", [shape[p] for p in perm])])
    if kind == "reduce":
        inits.append(numpy_helper.from_array(np.array([case["axis"]], np.int64), "axes"))
        reduced = [1 if d == case["axis"] else e for d, e in enumerate(shape)]
        return [node("ReduceSum", ["x", "axes"], ["y"], keepdims=1)], [("y", reduced)]
    if kind == "layernorm":
        scale = (1 + 0.1 * rng.standard_normal(shape[-1:], dtype=np.float32)).astype(storage)
        bias = (0.1 * rng.standard_normal(shape[-1:], dtype=np.float32)).astype(storage)
        inits += [numpy_helper.from_array(scale, "scale"), numpy_helper.from_array(bias, "b")]
        case["_scale"], case["_bias"] = scale.astype(np.float32), bias.astype(np.float32)
        return ([node("LayerNormalization", ["x", "scale", "b"], ["y"], axis=-1,
                      epsilon=1e-5)], [("y", shape)])
    if kind == "softmax":
        return [node("Softmax", ["x"], ["y"], axis=-1)], [("y", shape)]
    if kind == "concat":
        inputs["r"] = rng.standard_normal(shape, dtype=np.float32)
        return ([node("Concat", ["x", "r"], ["y"], axis=1)],
                [("y", [shape[0], 2 * shape[1]])])
    if kind == "resize":
        inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales"))
        # (half_pixel, ONNX's default: PyTorch's nearest and align_corners=False.)
        return ([node("Resize", ["x", "", "scales"], ["y"], mode=case["mode"])],
                [("y", shape[:2] + [2 * shape[2], 2 * shape[3]])])
    # gridsample: a grid over [-1, 1] with a little noise, sampling 256 x 256 points.
    n, out = shape[0], 256
    lin = np.linspace(-1, 1, out, dtype=np.float32)
    grid = np.stack(np.meshgrid(lin, lin, indexing="xy"), -1)[None].repeat(n, 0)
    grid = grid + 0.01 * rng.standard_normal(grid.shape, dtype=np.float32)
    inputs["grid"] = grid.astype(np.float32)
    return ([node("GridSample", ["x", "grid"], ["y"], mode="bilinear", padding_mode="zeros",
                  align_corners=0)], [("y", [n, shape[1], out, out])])


def case_model(case, rng):
    """(ONNX model, {input name: fp32 array}): the case as exporters would write it."""
    import onnx
    from onnx import helper, numpy_helper
    dt = onnx_dtype(case["dtype"])
    nodes, inits, inputs = [], [], {}
    storage = np.float32 if case["dtype"] == "fp32" else np.float16
    if case["family"] == "tf32" and case["kind"] == "model":
        return None, {"input": rng.standard_normal((case["batch"], 3, 224, 224),
                                                   dtype=np.float32)}
    if case["family"] == "tf32" and case["kind"] == "gemm":
        # B a constant (a weight), as in a model: the template reads it transposed.
        inputs["a"] = rng.standard_normal((case["m"], case["k"]), dtype=np.float32)
        b = rng.standard_normal((case["k"], case["n"]), dtype=np.float32)
        inits.append(numpy_helper.from_array(b, "b"))
        case["_b"] = b
        nodes.append(helper.make_node("MatMul", ["a", "b"], ["y"]))
        outputs = [("y", [case["m"], case["n"]])]
    elif case["family"] == "gemm":
        inputs["a"] = rng.standard_normal((case["m"], case["k"]), dtype=np.float32)
        inputs["b"] = rng.standard_normal((case["k"], case["n"]), dtype=np.float32)
        nodes.append(helper.make_node("MatMul", ["a", "b"], ["y"]))
        outputs = [("y", [case["m"], case["n"]])]
    elif case["family"] == "fused" and case["kind"] == "gemm":
        inputs["a"] = rng.standard_normal((case["m"], case["k"]), dtype=np.float32)
        inputs["b"] = rng.standard_normal((case["k"], case["n"]), dtype=np.float32)
        inputs["b"] *= 1.0 / math.sqrt(case["k"])
        bias = rng.standard_normal((case["n"],), dtype=np.float32).astype(np.float16)
        inits.append(numpy_helper.from_array(bias, "bias"))
        case["_bias"] = bias.astype(np.float32)
        nodes += [helper.make_node("MatMul", ["a", "b"], ["p"]),
                  helper.make_node("Add", ["p", "bias"], ["pb"])]
        last = "pb"
        if case["act"] == "gelu":
            # GELU as exporters write it (erf form), which Kiln recognises.
            for value, name in ((math.sqrt(2.0), "sqrt2"), (1.0, "one"), (0.5, "half")):
                inits.append(numpy_helper.from_array(np.array(value, np.float16), name))
            nodes += [helper.make_node("Div", ["pb", "sqrt2"], ["g0"]),
                      helper.make_node("Erf", ["g0"], ["g1"]),
                      helper.make_node("Add", ["g1", "one"], ["g2"]),
                      helper.make_node("Mul", ["pb", "g2"], ["g3"]),
                      helper.make_node("Mul", ["g3", "half"], ["g4"])]
            last = "g4"
        if case["residual"]:
            inputs["r"] = rng.standard_normal((case["m"], case["n"]), dtype=np.float32)
            nodes.append(helper.make_node("Add", [last, "r"], ["res"]))
            last = "res"
        nodes.append(helper.make_node("Identity", [last], ["y"]))
        outputs = [("y", [case["m"], case["n"]])]
    elif case["family"] == "memory":
        nodes, outputs = memory_model(case, rng, inputs, inits, helper, numpy_helper, storage)
    elif case["family"] == "rows":
        shape = list(case["shape"])
        inputs["x"] = rng.standard_normal(shape, dtype=np.float32) * 2
        outputs = [("y", shape)]
        if case["kind"] == "softmax":
            nodes.append(helper.make_node("Softmax", ["x"], ["y"], axis=-1))
        elif case["kind"] == "layernorm":
            np_type = np.float16 if case["dtype"] == "fp16" else np.float32
            inputs["r"] = rng.standard_normal(shape, dtype=np.float32)
            scale = (1 + 0.1 * rng.standard_normal(shape[-1:], dtype=np.float32)).astype(np_type)
            bias = (0.1 * rng.standard_normal(shape[-1:], dtype=np.float32)).astype(np_type)
            inits += [numpy_helper.from_array(scale, "scale"),
                      numpy_helper.from_array(bias, "bias")]
            case["_scale"], case["_bias"] = scale.astype(np.float32), bias.astype(np.float32)
            nodes += [helper.make_node("Add", ["x", "r"], ["s"]),
                      helper.make_node("LayerNormalization", ["s", "scale", "bias"], ["y"],
                                       axis=-1, epsilon=1e-5)]
        elif case["kind"] == "mean":
            nodes.append(helper.make_node("ReduceMean", ["x"], ["y"], axes=[-1], keepdims=1))
            outputs = [("y", shape[:-1] + [1])]
        else:
            inits.append(numpy_helper.from_array(np.array([-1], np.int64), "axes"))
            nodes.append(helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=1))
            outputs = [("y", shape[:-1] + [1])]
    elif case["family"] == "fused":
        # As the conv family (NHWC in and out around an ONNX Conv), with a bias, the
        # residual (NHWC, added in NCHW as exporters write it) and ReLU.
        inputs["x"] = rng.standard_normal((case["batch"], case["h"], case["w"], case["c"]),
                                          dtype=np.float32)
        weight = rng.standard_normal((case["m"], case["c"], case["kh"], case["kw"]),
                                     dtype=np.float32)
        weight *= 1.0 / math.sqrt(weight[0].size)
        inits.append(numpy_helper.from_array(weight.astype(np.float16), "w"))
        case["_weight"] = weight.astype(np.float16).astype(np.float32)
        bias = rng.standard_normal((case["m"],), dtype=np.float32).astype(np.float16)
        inits.append(numpy_helper.from_array(bias, "bias"))
        case["_bias"] = bias.astype(np.float32)
        p, s = case["pad"], case["stride"]
        oh = (case["h"] + 2 * p - case["kh"]) // s + 1
        ow = (case["w"] + 2 * p - case["kw"]) // s + 1
        nodes += [helper.make_node("Transpose", ["x"], ["x_nchw"], perm=[0, 3, 1, 2]),
                  helper.make_node("Conv", ["x_nchw", "w", "bias"], ["c_nchw"],
                                   pads=[p, p, p, p], strides=[s, s])]
        last = "c_nchw"
        if case["residual"]:
            inputs["r"] = rng.standard_normal((case["batch"], oh, ow, case["m"]),
                                              dtype=np.float32)
            nodes += [helper.make_node("Transpose", ["r"], ["r_nchw"], perm=[0, 3, 1, 2]),
                      helper.make_node("Add", [last, "r_nchw"], ["s_nchw"])]
            last = "s_nchw"
        nodes += [helper.make_node("Relu", [last], ["y_nchw"]),
                  helper.make_node("Transpose", ["y_nchw"], ["y"], perm=[0, 2, 3, 1])]
        outputs = [("y", [case["batch"], oh, ow, case["m"]])]
    elif case["family"] == "depthwise":
        # Conv(group = C) + bias + Clip(0, 6); NHWC in and out around it (the transposes
        # cancel against kiln compile --channels-last's layout conversion) or plain NCHW.
        np_dtype = np.float16 if case["dtype"] == "fp16" else np.float32
        nhwc = case["layout"] == "NHWC"
        shape = ((case["batch"], case["h"], case["w"], case["c"]) if nhwc
                 else (case["batch"], case["c"], case["h"], case["w"]))
        inputs["x"] = rng.standard_normal(shape, dtype=np.float32)
        weight = rng.standard_normal((case["m"], case["c"] // case["group"], case["kh"],
                                      case["kw"]), dtype=np.float32)
        weight *= 1.0 / math.sqrt(weight[0].size)
        bias = rng.standard_normal((case["m"],), dtype=np.float32)
        inits += [numpy_helper.from_array(weight.astype(np_dtype), "w"),
                  numpy_helper.from_array(bias.astype(np_dtype), "bias"),
                  numpy_helper.from_array(np.array(0.0, np_dtype), "lo"),
                  numpy_helper.from_array(np.array(6.0, np_dtype), "hi")]
        case["_weight"] = weight.astype(np_dtype).astype(np.float32)
        case["_bias"] = bias.astype(np_dtype).astype(np.float32)
        p, s = case["pad"], case["stride"]
        oh = (case["h"] + 2 * p - case["kh"]) // s + 1
        ow = (case["w"] + 2 * p - case["kw"]) // s + 1
        conv_in = "x"
        if nhwc:
            nodes.append(helper.make_node("Transpose", ["x"], ["x_nchw"], perm=[0, 3, 1, 2]))
            conv_in = "x_nchw"
        nodes += [helper.make_node("Conv", [conv_in, "w", "bias"], ["c_nchw"], pads=[p, p, p, p],
                                   strides=[s, s], group=case["group"]),
                  helper.make_node("Clip", ["c_nchw", "lo", "hi"],
                                   ["y_nchw" if nhwc else "y"])]
        if nhwc:
            nodes.append(helper.make_node("Transpose", ["y_nchw"], ["y"], perm=[0, 2, 3, 1]))
            outputs = [("y", [case["batch"], oh, ow, case["m"]])]
        else:
            outputs = [("y", [case["batch"], case["m"], oh, ow])]
    elif case["family"] == "batched":
        inputs["a"] = rng.standard_normal(case["a"], dtype=np.float32)
        inputs["b"] = rng.standard_normal(case["b"], dtype=np.float32) * (
            1.0 / math.sqrt(case["a"][-1]))
        nodes.append(helper.make_node("MatMul", ["a", "b"], ["y"]))
        outputs = [("y", case["out"])]
    elif case["family"] == "forms":
        # Channels last in and out (NWC, NHWC, NDHWC), as channels-last networks pass
        # activations: transposes around the ONNX op, which --channels-last cancels.
        x_shape, out_shape = case["x"], case["out"]
        rank = len(x_shape)
        to_first = [0, rank - 1] + list(range(1, rank - 1))
        to_last = [0] + list(range(2, rank)) + [1]
        inputs["x"] = rng.standard_normal([x_shape[i] for i in to_last], dtype=np.float32)
        weight = rng.standard_normal(case["w"], dtype=np.float32)
        fan_in = weight[0].size if case["op"] == "Conv" else case["w"][0] * math.prod(
            case["w"][2:]) / math.prod(case["strides"])
        weight *= 1.0 / math.sqrt(fan_in)
        bias = rng.standard_normal((out_shape[1],), dtype=np.float32).astype(np.float16)
        inits += [numpy_helper.from_array(weight.astype(np.float16), "w"),
                  numpy_helper.from_array(bias, "bias")]
        case["_weight"] = weight.astype(np.float16).astype(np.float32)
        case["_bias"] = bias.astype(np.float32)
        attrs = {"strides": case["strides"], "dilations": case["dilations"],
                 "pads": case["pads"], "group": case["group"]}
        if case["op"] == "ConvTranspose":
            attrs["output_padding"] = case["output_padding"]
        nodes += [helper.make_node("Transpose", ["x"], ["x_first"], perm=to_first),
                  helper.make_node(case["op"], ["x_first", "w", "bias"], ["y_first"], **attrs),
                  helper.make_node("Transpose", ["y_first"], ["y"], perm=to_last)]
        outputs = [("y", [out_shape[i] for i in to_last])]
    elif case["family"] == "conv" or case["family"] == "tf32":
        # NHWC in and out, as channels-last networks pass activations (and as the peer runs
        # cuDNN): the model transposes around an ONNX Conv, and kiln compile --channels-last
        # cancels the transposes against its layout conversion.
        inputs["x"] = rng.standard_normal((case["batch"], case["h"], case["w"], case["c"]),
                                          dtype=np.float32)
        weight = rng.standard_normal((case["m"], case["c"] // case["group"], case["kh"],
                                      case["kw"]), dtype=np.float32)
        weight *= 1.0 / math.sqrt(weight[0].size)
        tensor = numpy_helper.from_array(weight.astype(storage), "w")
        inits.append(tensor)
        case["_weight"] = weight.astype(storage).astype(np.float32)
        p, s = case["pad"], case["stride"]
        nodes += [helper.make_node("Transpose", ["x"], ["x_nchw"], perm=[0, 3, 1, 2]),
                  helper.make_node("Conv", ["x_nchw", "w"], ["y_nchw"], pads=[p, p, p, p],
                                   strides=[s, s], group=case["group"]),
                  helper.make_node("Transpose", ["y_nchw"], ["y"], perm=[0, 2, 3, 1])]
        oh = (case["h"] + 2 * p - case["kh"]) // s + 1
        ow = (case["w"] + 2 * p - case["kw"]) // s + 1
        outputs = [("y", [case["batch"], oh, ow, case["m"]])]
    elif case["family"] == "attention":
        shape = (case["batch"], case["heads"], case["seq"], case["dim"])
        for name in "qkv":
            inputs[name] = rng.standard_normal(shape, dtype=np.float32)
        scale = numpy_helper.from_array(np.array(1.0 / math.sqrt(case["dim"]), np.float16),
                                        "scale")
        inits.append(scale)
        nodes += [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
                  helper.make_node("MatMul", ["q", "kt"], ["s"]),
                  helper.make_node("Mul", ["s", "scale"], ["scaled"])]
        scores = "scaled"
        if case["causal"]:
            causal = np.tril(np.ones((case["seq"], case["seq"]), bool))[None, None]
            inits += [numpy_helper.from_array(causal, "causal"),
                      numpy_helper.from_array(np.array(-np.inf, np.float16), "neg_inf")]
            nodes.append(helper.make_node("Where", ["causal", "scaled", "neg_inf"], ["masked"]))
            scores = "masked"
        nodes += [helper.make_node("Softmax", [scores], ["p"], axis=-1),
                  helper.make_node("MatMul", ["p", "v"], ["y"])]
        outputs = [("y", list(shape))]
    if case["family"] == "attnforms":
        nodes, inits, inputs, graph_inputs, outputs = attention_form_model(
            case, rng, helper, numpy_helper, dt)
    else:
        graph_inputs = [helper.make_tensor_value_info(
            n, onnx.TensorProto.INT64 if a.dtype == np.int64 else dt, list(a.shape))
            for n, a in inputs.items()]
    graph = helper.make_graph(
        nodes, case["family"], graph_inputs,
        [helper.make_tensor_value_info(n, dt, s) for n, s in outputs], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    return model, inputs


def run_logged(command, log, timeout):
    with open(log, "w") as f:
        try:
            return subprocess.run(command, stdout=f, stderr=subprocess.STDOUT,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            f.write(f"\ntimed out after {timeout} s\n")
            return 124


def save_input(path, array, dtype):
    """fp16 and fp32 arrays as .npy; bf16 ones (NumPy has no bf16) as ONNX TensorProto .pb
    files (round to nearest even from fp32). Boolean arrays (masks) and integer ones
    (indices) keep their type."""
    if array.dtype == bool or np.issubdtype(array.dtype, np.integer):
        np.save(path + ".npy", array)
        return path + ".npy"
    if dtype in ("fp16", "fp32"):
        np.save(path + ".npy", array.astype(np.float16 if dtype == "fp16" else np.float32))
        return path + ".npy"
    from onnx import TensorProto, helper
    words = array.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = ((words + 0x7FFF + ((words >> 16) & 1)) >> 16).astype(np.uint16)
    tensor = helper.make_tensor("t", TensorProto.BFLOAT16, list(array.shape),
                                bits.tobytes(), raw=True)
    with open(path + ".pb", "wb") as f:
        f.write(tensor.SerializeToString())
    return path + ".pb"


def to_half(array, dtype, torch):
    tensor = torch.from_numpy(array)
    if array.dtype == bool or np.issubdtype(array.dtype, np.integer):
        return tensor
    if dtype == "fp32":
        return tensor.double()
    return tensor.to(torch.float16 if dtype == "fp16" else torch.bfloat16).float()


def memory_weights(case, torch, dtype):
    """A `memory` case's weights on the GPU in `dtype` (made before any CUDA graph capture,
    which a host-to-device copy would break)."""
    return {name: torch.from_numpy(case[name]).to("cuda", dtype)
            for name in ("_table", "_bias", "_scale") if name in case}


def memory_op(case, tensors, weights, torch):
    """A `memory` case's op in PyTorch on `tensors` and `weights` (memory_weights): the
    peer's function and, in float64, the reference."""
    functional, kind = torch.nn.functional, case["kind"]
    weight = weights.__getitem__
    if kind == "gather":
        return functional.embedding(tensors["ids"], weight("_table"))
    x = tensors["x"]
    if kind == "silu":
        return functional.silu(x)
    if kind == "add":
        return x + tensors["r"]
    if kind == "bias":
        return x + weight("_bias")
    if kind == "transpose":
        return x.permute(*case["perm"]).contiguous()
    if kind == "reduce":
        return x.sum(case["axis"], keepdim=True)
    if kind == "layernorm":
        return functional.layer_norm(x, x.shape[-1:], weight("_scale"), weight("_bias"),
                                     eps=1e-5)
    if kind == "softmax":
        return torch.softmax(x, -1)
    if kind == "concat":
        return torch.cat([x, tensors["r"]], 1)
    if kind == "resize":
        if case["mode"] == "linear":
            return functional.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        return functional.interpolate(x, scale_factor=2, mode="nearest")
    return functional.grid_sample(x, tensors["grid"], mode="bilinear", padding_mode="zeros",
                                  align_corners=False)


def reference(case, inputs, torch):
    """PyTorch's result in fp32 arithmetic on the rounded inputs (on the GPU)."""
    rounded = {n: to_half(a, case["dtype"], torch).cuda() for n, a in inputs.items()}
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if case["family"] == "tf32" and case["kind"] == "gemm":
        # float64 arithmetic on the fp32 inputs.
        return rounded["a"] @ torch.from_numpy(case["_b"]).cuda().double()
    if case["family"] == "gemm":
        return rounded["a"] @ rounded["b"]
    if case["family"] == "batched":
        return rounded["a"].float() @ rounded["b"].float()
    if case["family"] == "memory":
        return memory_op(case, {n: t.double() if t.is_floating_point() else t
                                for n, t in rounded.items()},
                         memory_weights(case, torch, torch.float64), torch)
    if case["family"] == "rows":
        x = rounded["x"].double()
        if case["kind"] == "softmax":
            return torch.softmax(x, -1)
        if case["kind"] == "layernorm":
            return torch.nn.functional.layer_norm(
                x + rounded["r"].double(), x.shape[-1:],
                torch.from_numpy(case["_scale"]).cuda().double(),
                torch.from_numpy(case["_bias"]).cuda().double(), eps=1e-5)
        return x.mean(-1, keepdim=True) if case["kind"] == "mean" else x.sum(-1, keepdim=True)
    if case["family"] == "fused" and case["kind"] == "gemm":
        y = rounded["a"] @ rounded["b"] + torch.from_numpy(case["_bias"]).cuda()
        if case["act"] == "gelu":
            y = torch.nn.functional.gelu(y)
        return y + rounded["r"] if case["residual"] else y
    if case["family"] == "fused":
        weight = torch.from_numpy(case["_weight"]).cuda()
        y = torch.nn.functional.conv2d(rounded["x"].permute(0, 3, 1, 2), weight,
                                       torch.from_numpy(case["_bias"]).cuda(),
                                       stride=case["stride"], padding=case["pad"])
        y = y.permute(0, 2, 3, 1)
        if case["residual"]:
            y = y + rounded["r"]
        return torch.relu(y)
    if case["family"] == "depthwise":
        torch.backends.cudnn.allow_tf32 = False
        x = rounded["x"].permute(0, 3, 1, 2) if case["layout"] == "NHWC" else rounded["x"]
        weight = torch.from_numpy(case["_weight"]).cuda().to(x.dtype)
        bias = torch.from_numpy(case["_bias"]).cuda().to(x.dtype)
        y = torch.nn.functional.conv2d(x, weight, bias,
                                       stride=case["stride"], padding=case["pad"],
                                       groups=case["group"]).clamp(0, 6)
        return y.permute(0, 2, 3, 1) if case["layout"] == "NHWC" else y
    if case["family"] == "forms":
        x = rounded["x"].float()
        rank = x.dim()
        x = x.permute(0, rank - 1, *range(1, rank - 1))
        y = form_call(case, torch)(x, torch.from_numpy(case["_weight"]).cuda(),
                                   torch.from_numpy(case["_bias"]).cuda())
        return y.permute(0, *range(2, rank), 1)
    if case["family"] == "conv" or case["family"] == "tf32":
        weight = torch.from_numpy(case["_weight"]).cuda().to(rounded["x"].dtype)
        return torch.nn.functional.conv2d(rounded["x"].permute(0, 3, 1, 2), weight,
                                          stride=case["stride"], padding=case["pad"],
                                          groups=case["group"]).permute(0, 2, 3, 1)
    if case["family"] == "attnforms":
        return attention_form_reference(case, rounded, torch)
    q, k, v = rounded["q"], rounded["k"], rounded["v"]
    scores = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(case["dim"]))
    if case["causal"]:
        mask = torch.ones(case["seq"], case["seq"], dtype=torch.bool, device="cuda").tril()
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, -1) @ v


def attention_form_reference(case, rounded, torch):
    """An `attnforms` case in float64 on the rounded inputs (constants rounded to f16 as
    Kiln's model holds them)."""
    tables = {n: torch.from_numpy(np.asarray(t)).cuda() for n, t in
              attention_form_tables(case).items()}
    half = {n: t.to(torch.float16).double() for n, t in tables.items()
            if t.dtype.is_floating_point}
    q, k, v = (rounded[n].double() for n in "qkv")
    if case["form"] == "rotary":
        def rotate(x):
            d = x.shape[-1]
            rotated = torch.cat([-x[..., d // 2:], x[..., :d // 2]], -1)
            return x * half["cos"] + rotated * half["sin"]
        q, k = rotate(q), rotate(k)
    group = case["heads"] // case["kv_heads"]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    scores = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(case["dim"]))
    if case["form"] == "bias":
        scores = scores + half["table"][tables["relative"]].permute(2, 0, 1)[None]
    if case["form"] == "alibi":
        distance = tables["bias"].new_tensor(
            np.arange(case["seq"])[None, :] - np.arange(case["seq"])[:, None])
        causal = distance <= 0
        scores = (scores + half["slopes"] * distance).masked_fill(~causal, float("-inf"))
    if case["form"] == "padding":
        scores = scores.masked_fill(~rounded["mask"].cuda()[:, None, None, :], float("-inf"))
    return torch.softmax(scores, -1) @ v


def form_call(case, torch):
    """The torch.nn.functional call of a `forms` case: fn(x, weight, bias), channels first."""
    functional = torch.nn.functional
    spatial = len(case["x"]) - 2
    pads = case["pads"]
    if case["op"] == "Conv":
        conv = (functional.conv1d, functional.conv2d, functional.conv3d)[spatial - 1]
        symmetric = pads[:spatial] == pads[spatial:]

        def fn(x, weight, bias):
            if not symmetric:
                # F.pad takes the last axis first: (begin, end) pairs from the innermost.
                pairs = []
                for i in reversed(range(spatial)):
                    pairs += [pads[i], pads[spatial + i]]
                x = functional.pad(x, pairs)
            return conv(x, weight.to(x.dtype), bias.to(x.dtype), stride=case["strides"],
                        padding=pads[:spatial] if symmetric else 0,
                        dilation=case["dilations"], groups=case["group"])
        return fn
    conv_transpose = (functional.conv_transpose1d, functional.conv_transpose2d,
                      functional.conv_transpose3d)[spatial - 1]

    def fn(x, weight, bias):
        return conv_transpose(x, weight.to(x.dtype), bias.to(x.dtype), stride=case["strides"],
                              padding=pads[:spatial], output_padding=case["output_padding"],
                              groups=case["group"], dilation=case["dilations"])
    return fn


def kiln_side(case, model, inputs, kiln, work, torch, timeout):
    import onnx
    result = {}
    model_path, engine = os.path.join(work, "model.onnx"), os.path.join(work, "model.kiln")
    if model is not None:
        onnx.save(model, model_path)
    start = time.perf_counter()
    compile_flags = ["--sm90-gemm-config=" + case["gemm_config"]] if "gemm_config" in case else []
    # Further `kiln compile` flags a caller gives the case (bench/attention_sweep.py's
    # --attention-config and friends).
    compile_flags += case.get("kiln_flags", [])
    if TUNE_BUDGET is not None:
        compile_flags.append(f"--tune-budget={TUNE_BUDGET}")
    if TARGET != "sm_90a":
        compile_flags.append(f"--target={TARGET}")
    if case["family"] in ("conv", "forms") or (case["family"] == "fused" and case["kind"] == "conv") or (
            case["family"] == "depthwise" and case["layout"] == "NHWC"):
        compile_flags.append("--channels-last")
    if case["family"] == "tf32":
        compile_flags.append("--tf32")
        if case["kind"] != "gemm":
            compile_flags.append("--channels-last")
    if case["family"] == "tf32" and case["kind"] == "model":
        model_path = resnet50_path(work)
        compile_flags.append(f"--shapes=input:{case['batch']}x3x224x224")
    code = run_logged([kiln, "compile", model_path, "-o", engine, "--quiet"] + compile_flags,
                      os.path.join(work, "compile.log"), timeout)
    result["compile_s"] = time.perf_counter() - start
    if code != 0:
        return {"status": "compile failed", **result}
    # The kernels' configurations (and, tuned, their measured times) for the logs.
    run_logged([kiln, "inspect", engine], os.path.join(work, "inspect.log"), timeout)
    # kiln compile gives a forced configuration only to kernels it is a candidate of, and
    # warns about the rest (which take their default): timing those under the forced name
    # would mislabel the row.
    if "gemm_config" in case:
        with open(os.path.join(work, "compile.log"), errors="replace") as log:
            if "is not a configuration of kernel" in log.read():
                return {"status": f"{case['gemm_config']} is no candidate here", **result}
    if case["family"] in ("depthwise", "rows", "memory"):
        # The kernels' configurations (or the generic lowering), for the table.
        inspect_json = os.path.join(work, "inspect.json")
        if run_logged([kiln, "inspect", engine, "--json"], inspect_json, timeout) == 0:
            try:
                with open(inspect_json) as f:
                    kernels = json.load(f).get("kernels", [])
                result["configs"] = [k.get("config", "") for k in kernels]
                result["config"] = "; ".join(str(k.get("config", "") or k.get("template", ""))
                                             for k in kernels)
            except (OSError, ValueError):
                pass

    # Correctness: one run on these inputs against PyTorch in fp32.
    args = []
    for name, array in inputs.items():
        args += ["--input", f"{name}={save_input(os.path.join(work, name), array, case['dtype'])}"]
    out_dir = os.path.join(work, "out")
    if case["family"] == "tf32" and case["kind"] == "model":
        expected = onnx_runtime_reference(model_path, inputs)
    else:
        expected = reference(case, inputs, torch).cpu().numpy().astype(np.float64)
    check = []
    if case["dtype"] == "bf16":
        # NumPy has no bf16: kiln run compares against a bf16 .pb itself, elementwise with
        # tolerances scaled to the result (no relative L2 for these rows).
        scale = float(np.sqrt(np.mean(expected ** 2))) or 1.0
        check = ["--expect", "y=" + save_input(os.path.join(work, "expected"), expected, "bf16"),
                 "--rtol", "0.05", "--atol", str(0.05 * scale)]
    start = time.perf_counter()
    outputs = check or ["--output-dir", out_dir]
    code = run_logged([kiln, "run", engine, "--device", "cuda", "--quiet"] + args + outputs,
                      os.path.join(work, "run.log"), timeout)
    run_s = time.perf_counter() - start
    if case["dtype"] == "bf16":
        if code not in (0, 1):
            return {"status": "run failed", **result}
        result["correct"] = code == 0
    else:
        if code != 0:
            return {"status": "run failed", **result}
        output = "y" if model is not None else onnx.load(model_path).graph.output[0].name
        produced = np.load(os.path.join(out_dir, output + ".npy")).astype(np.float64)
        denominator = np.linalg.norm(expected)
        rel_l2 = float(np.linalg.norm(produced - expected) / denominator) if denominator else 0.0
        result["rel_l2"] = rel_l2 if np.isfinite(rel_l2) else float("inf")
        tolerance = TOLERANCE[case["dtype"]]
        if case["family"] == "tf32":
            tolerance = TF32_MODEL_TOLERANCE if case["kind"] == "model" else TF32_TOLERANCE
        result["correct"] = result["rel_l2"] <= tolerance

    # Speed: the policy of bench/timing.py, through kiln bench, on the inputs the peers
    # get (a GridSample's grid or a gather's indices decide where the kernel reads).
    warmup = warmup_runs_for(run_s)
    bench_json = os.path.join(work, "bench.json")
    code = run_logged([kiln, "bench", engine] + args + ["--warmup", str(warmup), "--iterations",
                       str(MIN_RUNS if run_s < 1 else 3), "--duration",
                       str(MIN_SECONDS if run_s < 1 else 0), "--json", bench_json],
                      os.path.join(work, "bench.log"), timeout)
    if code != 0:
        return {"status": "bench failed", **result}
    with open(bench_json) as f:
        result.update(summarize(json.load(f)["runs_ms"]))
    result["status"] = "ok" if result["correct"] else "wrong"
    return result


def resnet50_path(work):
    """The shared fp32 ResNet-50 export with its weights (materialize.py), once per run."""
    shared = os.environ.get("KILN_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
    target = os.path.join(os.path.dirname(os.path.dirname(work)), "resnet50.onnx")
    if not os.path.exists(target):
        subprocess.run([sys.executable, os.path.join(shared, "models", "materialize.py"),
                        os.path.join(shared, "models", "resnet50.legacy17.onnx"), target],
                       check=True, stdout=subprocess.DEVNULL)
    return target


def onnx_runtime_reference(model_path, inputs):
    """ONNX Runtime's (CPU, fp32) first output on `inputs`, in float64."""
    import onnxruntime
    session = onnxruntime.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    return session.run(None, inputs)[0].astype(np.float64)


# --- The peers ----------------------------------------------------------------------------

def attention_form_peer(case, inputs, tensors, torch):
    """PyTorch's best form of an `attnforms` case: F.scaled_dot_product_attention with the
    bias or mask as attn_mask (precomputed, as a model would hold it), grouped-query
    attention by enable_gqa (repeat_interleave before torch 2.5), the rotary arithmetic
    in front. (name, fn, args)."""
    functional = torch.nn.functional
    sdpa = functional.scaled_dot_product_attention
    tables = attention_form_tables(case)
    q, k, v = tensors["q"], tensors["k"], tensors["v"]
    if case["form"] in ("bias", "alibi"):
        bias = torch.from_numpy(tables["bias"]).to("cuda", torch.float16)
        return "F.sdpa(attn_mask=bias)", lambda q, k, v: sdpa(q, k, v, attn_mask=bias), (q, k, v)
    if case["form"] == "padding":
        keep = torch.from_numpy(inputs["mask"]).cuda()[:, None, None, :]
        return "F.sdpa(attn_mask=bool)", lambda q, k, v: sdpa(q, k, v, attn_mask=keep), (q, k, v)
    if case["form"] == "rotary":
        cos = torch.from_numpy(tables["cos"]).to("cuda", torch.float16)
        sin = torch.from_numpy(tables["sin"]).to("cuda", torch.float16)

        def rotate(x):
            d = x.shape[-1]
            return x * cos + torch.cat([-x[..., d // 2:], x[..., :d // 2]], -1) * sin

        return "rotary + F.sdpa", lambda q, k, v: sdpa(rotate(q), rotate(k), v), (q, k, v)
    if case["kv_heads"] != case["heads"]:
        group = case["heads"] // case["kv_heads"]
        try:
            sdpa(q[:1, :, :16], k[:1, :, :16], v[:1, :, :16], enable_gqa=True)
            return "F.sdpa(enable_gqa)", lambda q, k, v: sdpa(q, k, v, enable_gqa=True), (q, k, v)
        except TypeError:
            return ("repeat_interleave + F.sdpa",
                    lambda q, k, v: sdpa(q, k.repeat_interleave(group, 1),
                                         v.repeat_interleave(group, 1)), (q, k, v))
    return "F.scaled_dot_product_attention", sdpa, (q, k, v)


def peer_side(case, inputs, torch):
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[case["dtype"]]
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    # The tf32 family's peer is PyTorch's TF32 (reference() turns it off again).
    tf32 = case["family"] == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    tensors = {n: torch.from_numpy(a).to("cuda", dtype) for n, a in inputs.items()
               if a.dtype != bool}
    functional = torch.nn.functional
    if tf32 and case["kind"] == "model":
        import torchvision
        net = torchvision.models.resnet50(weights=None).eval().cuda().to(
            memory_format=torch.channels_last)
        torch.backends.cudnn.benchmark = True
        name = "torchvision resnet50 NHWC (TF32)"
        fn, args = net, (tensors["input"].contiguous(memory_format=torch.channels_last),)
    elif tf32 and case["kind"] == "gemm":
        b = torch.from_numpy(case["_b"]).cuda()
        name, fn, args = "torch.matmul TF32 (cuBLAS)", torch.matmul, (tensors["a"], b)
    elif case["family"] in ("gemm", "batched"):
        name, fn, args = "torch.matmul (cuBLAS)", torch.matmul, (tensors["a"], tensors["b"])
    elif case["family"] == "depthwise":
        nhwc = case["layout"] == "NHWC"
        x = tensors["x"].permute(0, 3, 1, 2) if nhwc else tensors["x"]
        weight = torch.from_numpy(case["_weight"]).to("cuda", dtype)
        if nhwc:
            weight = weight.contiguous(memory_format=torch.channels_last)
        bias = torch.from_numpy(case["_bias"]).to("cuda", dtype)
        torch.backends.cudnn.benchmark = True
        torch.backends.cudnn.allow_tf32 = False
        name = f"F.conv2d+bias+relu6 {case['layout']}"

        def fn(x, weight):
            return functional.relu6(functional.conv2d(x, weight, bias, stride=case["stride"],
                                                      padding=case["pad"], groups=case["group"]))

        def bare(x, weight):
            return functional.conv2d(x, weight, stride=case["stride"], padding=case["pad"],
                                     groups=case["group"])
        args = (x, weight)
    elif case["family"] == "memory":
        names = ("ids",) if case["kind"] == "gather" else tuple(
            n for n in ("x", "r", "grid") if n in tensors)
        args = tuple(tensors[n] if n != "ids" else torch.from_numpy(inputs[n]).cuda()
                     for n in names)
        name = "torch eager"
        weights = memory_weights(case, torch, dtype)

        def fn(*values):
            return memory_op(case, dict(zip(names, values)), weights, torch)
    elif case["family"] == "rows":
        kind = case["kind"]
        if kind == "layernorm":
            scale = torch.from_numpy(case["_scale"]).to("cuda", dtype)
            bias = torch.from_numpy(case["_bias"]).to("cuda", dtype)
            name = "x + r, F.layer_norm"

            def fn(x, r):
                return functional.layer_norm(x + r, x.shape[-1:], scale, bias, eps=1e-5)
            args = (tensors["x"], tensors["r"])
        else:
            name = {"softmax": "F.softmax", "mean": "x.mean", "sum": "x.sum"}[kind]

            def fn(x):
                if kind == "softmax":
                    return functional.softmax(x, -1)
                return x.mean(-1, keepdim=True) if kind == "mean" else x.sum(-1, keepdim=True)
            args = (tensors["x"],)
    elif case["family"] in ("conv", "tf32"):
        x = tensors["x"].permute(0, 3, 1, 2)  # NCHW view of NHWC memory: channels last
        weight = torch.from_numpy(case["_weight"]).to("cuda", dtype).contiguous(
            memory_format=torch.channels_last)
        torch.backends.cudnn.benchmark = True
        name = "F.conv2d NHWC (cuDNN" + (" TF32)" if tf32 else ")")

        def fn(x, weight):
            return functional.conv2d(x, weight, stride=case["stride"], padding=case["pad"],
                                     groups=case["group"])
        args = (x, weight)
    elif case["family"] == "forms":
        rank = len(case["x"])
        x = tensors["x"].permute(0, rank - 1, *range(1, rank - 1))  # channels-last memory
        weight = torch.from_numpy(case["_weight"]).to("cuda", dtype)
        if rank in (4, 5):
            weight = weight.contiguous(memory_format=torch.channels_last if rank == 4
                                       else torch.channels_last_3d)
        bias = torch.from_numpy(case["_bias"]).to("cuda", dtype)
        torch.backends.cudnn.benchmark = True
        call = form_call(case, torch)
        name = ("F.conv" if case["op"] == "Conv" else "F.conv_transpose") + \
            f"{rank - 2}d channels last (cuDNN)"

        def fn(x):
            return call(x, weight, bias)
        args = (x,)
    elif case["family"] == "fused" and case["kind"] == "gemm":
        bias = torch.from_numpy(case["_bias"]).to("cuda", dtype)
        name = "addmm+" + ("gelu" if case["act"] else "") + ("+res" if case["residual"] else "")

        def fn(a, b, *r):
            y = torch.addmm(bias, a, b)
            if case["act"] == "gelu":
                y = functional.gelu(y)
            return y + r[0] if r else y
        args = (tensors["a"], tensors["b"]) + ((tensors["r"],) if case["residual"] else ())
    elif case["family"] == "fused":
        x = tensors["x"].permute(0, 3, 1, 2)
        weight = torch.from_numpy(case["_weight"]).to("cuda", dtype).contiguous(
            memory_format=torch.channels_last)
        bias = torch.from_numpy(case["_bias"]).to("cuda", dtype)
        torch.backends.cudnn.benchmark = True
        name = "F.conv2d+bias" + ("+res" if case["residual"] else "") + "+relu NHWC"

        def fn(x, *r):
            y = functional.conv2d(x, weight, bias, stride=case["stride"], padding=case["pad"])
            if r:
                y = y + r[0]
            return functional.relu(y)
        args = (x,) + ((tensors["r"].permute(0, 3, 1, 2),) if case["residual"] else ())
    elif case["family"] == "attnforms":
        name, fn, args = attention_form_peer(case, inputs, tensors, torch)
    else:
        name = "F.scaled_dot_product_attention"

        def fn(q, k, v):
            return functional.scaled_dot_product_attention(q, k, v, is_causal=case["causal"])
        args = (tensors["q"], tensors["k"], tensors["v"])
    # Kiln's engine replays a CUDA graph; the peer's call is captured into one too, so
    # that neither side pays a host launch (which would flatter Kiln on small kernels).
    # torch_peer.measure: the events, warmup and statistics the model peers use.
    def graphed(function):
        with torch.inference_mode():
            function(*args)  # cuDNN's benchmark mode and SDPA pick their kernels outside
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                function(*args)
        return graph

    graph = graphed(fn)
    result = measure(name, graph.replay, (), torch, MIN_RUNS, MIN_SECONDS)
    result["cuda_graph"] = True
    if case["family"] == "memory":
        # torch.compile of the same function (Inductor's generated kernel), compiled before
        # the capture.
        try:
            # Every case's function shares one code object: without a reset, dynamo's
            # recompile limit (8) would leave later cases running eagerly.
            torch._dynamo.reset()
            compiled = torch.compile(fn, dynamic=False)
            compiled_graph = graphed(compiled)
            result["compile_ms"] = measure("torch.compile", compiled_graph.replay, (), torch,
                                           MIN_RUNS, MIN_SECONDS)["median_ms"]
        except Exception as error:  # a compile failure is the peer's, reported as such
            result["compile_error"] = str(error).splitlines()[0][:200]
    if case["family"] == "depthwise":
        # The convolution alone (cuDNN's kernel, no bias or activation), for reference.
        bare_graph = graphed(bare)
        result["bare_ms"] = measure("F.conv2d", bare_graph.replay, (), torch, MIN_RUNS,
                                    MIN_SECONDS)["median_ms"]
    return result


# --- Report -------------------------------------------------------------------------------

def cell(value, spec):
    """A table cell: `value` formatted by `spec`, or a dash where there is none."""
    return format(value, spec) if value is not None else "–"


def tflops(flops, ms):
    return flops / (ms * 1e-3) / 1e12 if ms else None


def table(rows):
    lines = ["| family | case | dtype | Kiln ms | Kiln TFLOP/s | peer | peer ms | peer TFLOP/s | "
             "Kiln / peer | rel L2 | status |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        kiln, peer = row["kiln"], row["peer"]
        k_ms, p_ms = kiln.get("median_ms"), peer.get("median_ms")
        ratio = p_ms / k_ms if k_ms and p_ms else None
        lines.append(f"| {row['family']} | {row['name']} | {row['dtype']} | {cell(k_ms, '.3f')} | "
                     f"{cell(tflops(row['flops'], k_ms), '.2f')} | {peer.get('system', '–')} | "
                     f"{cell(p_ms, '.3f')} | {cell(tflops(row['flops'], p_ms), '.1f')} | "
                     f"{cell(ratio, '.3f')}× | {cell(kiln.get('rel_l2'), '.1e')} | "
                     f"{kiln.get('status', '–')} |")
    return "\n".join(lines)


def depthwise_table(rows):
    lines = ["| case | dtype | Kiln ms | Kiln GB/s | peer | peer ms | peer GB/s | Kiln / peer | "
             "conv alone ms | Kiln / conv alone | rel L2 | status | Kiln config |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        kiln, peer = row["kiln"], row["peer"]
        k_ms, p_ms, b_ms = kiln.get("median_ms"), peer.get("median_ms"), peer.get("bare_ms")
        gbs = lambda ms: row["bytes"] / (ms * 1e-3) / 1e9 if ms else None
        ratio = lambda a, b: a / b if a and b else None
        configs = "; ".join(kiln.get("configs", []))
        lines.append(f"| {row['name']} | {row['dtype']} | {cell(k_ms, '.4f')} | "
                     f"{cell(gbs(k_ms), '.0f')} | {peer.get('system', '–')} | {cell(p_ms, '.4f')} | "
                     f"{cell(gbs(p_ms), '.0f')} | {cell(ratio(p_ms, k_ms), '.3f')}× | "
                     f"{cell(b_ms, '.4f')} | {cell(ratio(b_ms, k_ms), '.3f')}× | "
                     f"{cell(kiln.get('rel_l2'), '.1e')} | {kiln.get('status', '–')} | {configs} |")
    return "\n".join(lines)


def rows_table(rows):
    """The rows family: bandwidth (bytes read and written once) instead of TFLOP/s."""
    lines = ["| case | dtype | Kiln ms | Kiln GB/s | peer | peer ms | peer GB/s | Kiln / peer | "
             "rel L2 | config | status |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        kiln, peer = row["kiln"], row["peer"]
        k_ms, p_ms = kiln.get("median_ms"), peer.get("median_ms")
        ratio = p_ms / k_ms if k_ms and p_ms else None
        gbs = lambda ms: row["bytes"] / (ms * 1e-3) / 1e9 if ms else None
        lines.append(f"| {row['name']} | {row['dtype']} | {cell(k_ms, '.4f')} | "
                     f"{cell(gbs(k_ms), '.0f')} | {peer.get('system', '–')} | {cell(p_ms, '.4f')} | "
                     f"{cell(gbs(p_ms), '.0f')} | {cell(ratio, '.3f')}× | "
                     f"{cell(kiln.get('rel_l2'), '.1e')} | {kiln.get('config', '–')} | "
                     f"{kiln.get('status', '–')} |")
    return "\n".join(lines)


def memory_table(rows):
    """The memory family: bandwidth and its fraction of the H200's, against torch eager and
    torch.compile."""
    lines = ["| case | dtype | MB | Kiln ms | Kiln GB/s | of HBM | eager ms | compile ms | "
             "Kiln / compile | rel L2 | config | status |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        kiln, peer = row["kiln"], row["peer"]
        k_ms, e_ms, c_ms = kiln.get("median_ms"), peer.get("median_ms"), peer.get("compile_ms")
        gbs = row["bytes"] / (k_ms * 1e-3) / 1e9 if k_ms else None
        ratio = c_ms / k_ms if k_ms and c_ms else None
        lines.append(f"| {row['name']} | {row['dtype']} | {row['bytes'] / 1e6:.0f} | "
                     f"{cell(k_ms, '.4f')} | {cell(gbs, '.0f')} | "
                     f"{cell(gbs and gbs / HBM_GBS * 100, '.0f')}% | {cell(e_ms, '.4f')} | "
                     f"{cell(c_ms, '.4f') if c_ms else peer.get('compile_error', '–')} | "
                     f"{cell(ratio, '.3f')}× | {cell(kiln.get('rel_l2'), '.1e')} | "
                     f"{kiln.get('config', '–')} | {kiln.get('status', '–')} |")
    return "\n".join(lines)


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kiln", default=os.path.join(ROOT, "build", "bin", "kiln"))
    parser.add_argument("--out", default="/tmp/kiln-kernels")
    parser.add_argument("--only", default="gemm,conv,attention",
                        help="families to run (comma-separated)")
    parser.add_argument("--quick", action="store_true", help="no 8192^3 products")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per kiln step")
    parser.add_argument("--deadline", type=float, default=540,
                        help="seconds after which no new case starts")
    parser.add_argument("--filter", default="",
                        help="only the cases whose name matches this regular expression")
    parser.add_argument("--dtypes", default="",
                        help="only the cases of these element types (comma-separated: fp16, "
                             "bf16, fp32)")
    parser.add_argument("--gemm-configs", default="",
                        help="comma-separated sm_90a GEMM configurations (kiln compile "
                             "--sm90-gemm-config): each GEMM and convolution case runs once "
                             "per configuration")
    parser.add_argument("--conv-filter", default="",
                        help="tf32 family: only ResNet-50's convolutions matching this "
                             "regular expression")
    parser.add_argument("--tune-budget", type=float, default=None,
                        help="seconds of GPU tuning per kiln compile (default: kiln's)")
    parser.add_argument("--target", default="sm_90a",
                        help="the target kiln compile builds for (sm_90a, sm_80)")
    args = parser.parse_args()
    global TUNE_BUDGET, TARGET
    TUNE_BUDGET = args.tune_budget
    TARGET = args.target
    import torch

    families = set(args.only.split(","))
    cases = []
    if "gemm" in families:
        cases += gemm_cases(args.quick)
    if "conv" in families:
        cases += resnet50_convs(batch=32)
    if "attention" in families:
        cases += attention_cases()
    if "fused" in families:
        cases += fused_cases()
    if "depthwise" in families:
        cases += depthwise_convs(batch=32)
    if "rows" in families:
        cases += rows_cases()
    if "memory" in families:
        cases += memory_cases()
    if "forms" in families:
        cases += form_cases()
    if "batched" in families:
        cases += batched_cases()
    if "attnforms" in families:
        cases += attention_form_cases()
    import re
    if "tf32" in families:
        # --conv-filter picks ResNet-50's convolutions (all of them by default).
        cases += tf32_cases(args.quick, lambda name: re.search(args.conv_filter, name))
    if args.filter:
        cases = [c for c in cases if re.search(args.filter, c["name"])]
    if args.dtypes:
        cases = [c for c in cases if c["dtype"] in args.dtypes.split(",")]
    if args.gemm_configs:
        configs = args.gemm_configs.split(",")
        tiled = ("gemm", "conv", "tf32", "fused", "batched")
        def is_tiled(c):
            return c["family"] in tiled and c.get("kind") != "model"
        cases = [({**c, "gemm_config": g, "name": f"{c['name']} [{g}]"} if is_tiled(c) else c)
                 for c in cases for g in (configs if is_tiled(c) else [None])]
    os.makedirs(args.out, exist_ok=True)
    started, rows = time.perf_counter(), []
    for index, case in enumerate(cases):
        if time.perf_counter() - started > args.deadline:
            rows.append({**case, "kiln": {"status": "skipped (deadline)"}, "peer": {}})
            continue
        work = os.path.join(args.out, "work", f"{index:02d}")
        os.makedirs(work, exist_ok=True)
        model, inputs = case_model(case, np.random.default_rng(index + 1))
        kiln = kiln_side(case, model, inputs, args.kiln, work, torch, args.timeout)
        peer = peer_side(case, inputs, torch)
        row = {k: v for k, v in case.items() if not k.startswith("_")}
        rows.append({**row, "kiln": kiln, "peer": peer})
        print(f"[{time.perf_counter() - started:5.0f} s] {case['family']} {case['name']} "
              f"{case['dtype']}: kiln {kiln.get('median_ms', kiln['status'])} ms, "
              f"peer {peer.get('median_ms'):.3f} ms", flush=True)
    with open(os.path.join(args.out, "kernels.json"), "w") as f:
        json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                   "commit": os.environ.get("KILN_COMMIT", ""), "rows": rows}, f, indent=1)
    summary = []
    for family in ("gemm", "batched", "conv", "forms", "attention", "attnforms", "fused",
                   "depthwise", "rows", "memory", "tf32"):
        for dtype in sorted({r["dtype"] for r in rows}) if family == "depthwise" else [None]:
            chosen = [r for r in rows if r["family"] == family and r["kiln"].get("median_ms")
                      and r["peer"].get("median_ms") and dtype in (None, r["dtype"])]
            # The memory family's peer is torch.compile where it compiled, else eager.
            ratios = [(r["peer"].get("compile_ms") or r["peer"]["median_ms"])
                      / r["kiln"]["median_ms"] for r in chosen]
            if ratios:
                line = (f"{family}{' ' + dtype if dtype else ''}: geomean Kiln / peer "
                        f"{geomean(ratios):.3f}× over {len(ratios)} cases")
                bare = [r["peer"]["bare_ms"] / r["kiln"]["median_ms"] for r in chosen
                        if r["peer"].get("bare_ms")]
                if bare:
                    line += f" (Kiln / conv alone {geomean(bare):.3f}×)"
                summary.append(line)
    # Families with tables of their own (bandwidth-bound kernels report GB/s).
    own_tables = {"depthwise": depthwise_table, "rows": rows_table, "memory": memory_table}
    other_rows = [r for r in rows if r["family"] not in own_tables]
    tables = [table(other_rows)] if other_rows else []
    for family, make_table in own_tables.items():
        chosen = [r for r in rows if r["family"] == family]
        if chosen:
            tables.append(make_table(chosen))
    text = "\n\n".join(tables) + "\n\n" + "\n".join(summary) + "\n"
    with open(os.path.join(args.out, "kernels.md"), "w") as f:
        f.write(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
                f"Kiln {os.environ.get('KILN_COMMIT', '')}\n\n" + text)
    print(text)


if __name__ == "__main__":
    main()
