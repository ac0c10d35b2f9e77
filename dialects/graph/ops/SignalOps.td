//===- SignalOps.td - Signal processing -*- tablegen -*-===//

#ifndef KILN_GRAPH_SIGNAL_OPS
#define KILN_GRAPH_SIGNAL_OPS

include "dialects/graph/GraphBase.td"

//===----------------------------------------------------------------------===//
// Fourier transforms
//===----------------------------------------------------------------------===//

def Graph_DFTOp : Graph_InferredOp<"dft"> {
  let summary = "Discrete Fourier transform along one axis (ONNX DFT)";
  let description = [{
    `input` is `[batch, signal dims..., 1]` for a real signal or `[..., 2]` for a complex
    one (real and imaginary parts); the result is complex, `[..., 2]`, of the input's
    element type. The transform runs along `axis`, a signal dimension in
    `[-r, -2]` or `[0, r - 2]` for input rank r (negative counts from the end). The optional
    `dft_length` (an integer scalar) zero-pads or truncates the signal to that length. With
    `inverse` the inverse transform is computed; with `onesided` (forward transforms of real
    input only) only the `floor(n / 2) + 1` non-redundant frequencies are returned.

    ```mlir
    %y = graph.dft %x {axis = 1 : i64, inverse = false, onesided = true}
        : (tensor<1x10x1xf32>) -> tensor<1x6x2xf32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$input,
    Optional<AnyTensor>:$dft_length,
    I64Attr:$axis,
    BoolAttr:$inverse,
    BoolAttr:$onesided);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $input (`,` $dft_length^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_STFTOp : Graph_InferredOp<"stft", [AttrSizedOperandSegments]> {
  let summary = "Short-time Fourier transform (ONNX STFT)";
  let description = [{
    `signal` is `[batch, signal_length, 1]` (real) or `[batch, signal_length, 2]`
    (complex); `frame_step` is an integer scalar, the optional `window` a 1-D tensor of
    the signal's element type and the optional `frame_length` an integer scalar; at least
    one of `window` and `frame_length` gives the frame length. The result is
    `[batch, frames, bins, 2]` with `frames = (signal_length - frame_length) / frame_step + 1`
    and `bins = frame_length / 2 + 1` when `onesided` (real signals only), else
    `frame_length`.

    ```mlir
    %y = graph.stft %signal, %step window(%window) {onesided = true}
        : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$signal,
    AnyTensor:$frame_step,
    Optional<AnyTensor>:$window,
    Optional<AnyTensor>:$frame_length,
    BoolAttr:$onesided);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $signal `,` $frame_step (`window` `(` $window^ `)`)?
    (`frame_length` `(` $frame_length^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Window functions
//===----------------------------------------------------------------------===//

class Graph_WindowOp<string mnemonic, string onnxName, string formula>
    : Graph_InferredOp<mnemonic> {
  let summary = "A " # onnxName # " window (ONNX " # onnxName # ")";
  let description = [{
    A 1-D tensor of `size` (an integer scalar) elements of type `output_datatype`, }] #
    formula # [{ With `periodic` N is `size` (a window meant to be repeated, as for
    spectral analysis), otherwise `size - 1` (a symmetric window).
  }];
  let arguments = (ins AnyTensor:$size, BoolAttr:$periodic, TypeAttr:$output_datatype);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "$size attr-dict `:` functional-type(operands, results)";
}

def Graph_HannWindowOp : Graph_WindowOp<"hann_window", "HannWindow",
    "`w[n] = sin^2(pi * n / N)`.">;
def Graph_HammingWindowOp : Graph_WindowOp<"hamming_window", "HammingWindow",
    "`w[n] = 25/46 - 21/46 * cos(2 * pi * n / N)`.">;
def Graph_BlackmanWindowOp : Graph_WindowOp<"blackman_window", "BlackmanWindow",
    "`w[n] = 0.42 - 0.5 * cos(2 * pi * n / N) + 0.08 * cos(4 * pi * n / N)`.">;

//===----------------------------------------------------------------------===//
// Mel filter bank
//===----------------------------------------------------------------------===//

def Graph_MelWeightMatrixOp : Graph_InferredOp<"mel_weight_matrix"> {
  let summary = "Triangular mel-scale filter bank weights (ONNX MelWeightMatrix)";
  let description = [{
    The `[floor(dft_length / 2) + 1, num_mel_bins]` matrix, of type `output_datatype`, that
    maps the bins of a onesided spectrum to `num_mel_bins` triangular mel bands spanning
    `lower_edge_hertz` to `upper_edge_hertz` for a signal of `sample_rate` samples per
    second. `num_mel_bins`, `dft_length` and `sample_rate` are integer scalars, the two
    edges float scalars.

    ```mlir
    %m = graph.mel_weight_matrix %bins, %length, %rate, %lower, %upper
        {output_datatype = f32}
        : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<257x80xf32>
    ```
  }];
  let arguments = (ins
    AnyTensor:$num_mel_bins,
    AnyTensor:$dft_length,
    AnyTensor:$sample_rate,
    AnyTensor:$lower_edge_hertz,
    AnyTensor:$upper_edge_hertz,
    TypeAttr:$output_datatype);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

#endif // KILN_GRAPH_SIGNAL_OPS
