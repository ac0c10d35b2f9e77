//===- RecurrentOps.td - Recurrent networks -*- tablegen -*-===//

#ifndef KILN_GRAPH_RECURRENT_OPS
#define KILN_GRAPH_RECURRENT_OPS

include "dialects/graph/GraphBase.td"

// The attributes every recurrent op shares, in the normalised form the importer produces:
// the ONNX defaults are filled in, so each op carries the full list of activations and one
// alpha and one beta per activation.
defvar Graph_RecurrentAttributes = (ins
    StrAttr:$direction,
    I64Attr:$hidden_size,
    StrArrayAttr:$activations,
    DenseF32ArrayAttr:$activation_alpha,
    DenseF32ArrayAttr:$activation_beta,
    OptionalAttr<F32Attr>:$clip,
    I64Attr:$layout);

// The ONNX operands shared by RNN, GRU and LSTM.
defvar Graph_RecurrentOperands = (ins
    AnyTensor:$x,
    AnyTensor:$w,
    AnyTensor:$r,
    Optional<AnyTensor>:$b,
    Optional<AnyTensor>:$sequence_lens,
    Optional<AnyTensor>:$initial_h);

class Graph_RecurrentOp<string mnemonic> : Graph_InferredOp<mnemonic, [AttrSizedOperandSegments]>;

def Graph_RnnOp : Graph_RecurrentOp<"rnn"> {
  let summary = "Simple recurrent network layer (ONNX RNN)";
  let description = [{
    ONNX RNN, opset 14 form: `Ht = f(Xt * W^T + Ht-1 * R^T + Wb + Rb)`.

    With `layout = 0`, `x` is `[seq_length, batch_size, input_size]`, `initial_h` is
    `[num_directions, batch_size, hidden_size]`, and the results are `y`
    (`[seq_length, num_directions, batch_size, hidden_size]`) and `y_h`
    (`[num_directions, batch_size, hidden_size]`). With `layout = 1` the batch dimension comes
    first: `x` is `[batch_size, seq_length, input_size]`, `initial_h` and `y_h` are
    `[batch_size, num_directions, hidden_size]` and `y` is
    `[batch_size, seq_length, num_directions, hidden_size]`.

    `w` is `[num_directions, hidden_size, input_size]`, `r` is
    `[num_directions, hidden_size, hidden_size]`, the optional `b` is
    `[num_directions, 2 * hidden_size]` (Wb then Rb; zero when absent) and the optional
    `sequence_lens` (i32) is `[batch_size]`; an absent `initial_h` is zero.

    `direction` is `forward`, `reverse` or `bidirectional` (`num_directions` = 2).
    `activations` holds one activation `f` per direction, each one of `Relu`, `Tanh`,
    `Sigmoid`, `Affine`, `LeakyRelu`, `ThresholdedRelu`, `ScaledTanh`, `HardSigmoid`, `Elu`,
    `Softsign` or `Softplus`; `activation_alpha` and `activation_beta` hold one value per
    activation (ONNX's default where the model gives none, 0 for an activation without that
    parameter). `clip`, when present, clamps the activations' inputs to `[-clip, clip]`.

    ```mlir
    %y, %y_h = graph.rnn %x, %w, %r bias(%b)
        {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
         activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
        : (tensor<2x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>, tensor<1x10xf32>)
        -> (tensor<2x1x3x5xf32>, tensor<1x3x5xf32>)
    ```
  }];
  let arguments = !con(Graph_RecurrentOperands, Graph_RecurrentAttributes);
  let results = (outs AnyTensor:$y, AnyTensor:$y_h);
  let assemblyFormat = [{
    $x `,` $w `,` $r (`bias` `(` $b^ `)`)? (`sequence_lens` `(` $sequence_lens^ `)`)?
    (`initial_h` `(` $initial_h^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_GruOp : Graph_RecurrentOp<"gru"> {
  let summary = "Gated recurrent unit layer (ONNX GRU)";
  let description = [{
    ONNX GRU, opset 14 form, with the update (`z`), reset (`r`) and hidden (`h`) gates in
    that order:

    - `zt = f(Xt * Wz^T + Ht-1 * Rz^T + Wbz + Rbz)`
    - `rt = f(Xt * Wr^T + Ht-1 * Rr^T + Wbr + Rbr)`
    - `ht = g(Xt * Wh^T + (rt (.) Ht-1) * Rh^T + Rbh + Wbh)`, or with `linear_before_reset`
      `ht = g(Xt * Wh^T + rt (.) (Ht-1 * Rh^T + Rbh) + Wbh)`
    - `Ht = (1 - zt) (.) ht + zt (.) Ht-1`

    Shapes and `layout` as in `graph.rnn`, except that `w` is
    `[num_directions, 3 * hidden_size, input_size]`, `r` is
    `[num_directions, 3 * hidden_size, hidden_size]` and `b` is
    `[num_directions, 6 * hidden_size]`. `activations` holds `f` and `g` for each direction
    (ONNX's default: `Sigmoid`, `Tanh`); `activation_alpha`, `activation_beta` and `clip` as
    in `graph.rnn`.

    ```mlir
    %y, %y_h = graph.gru %x, %w, %r
        {direction = "forward", hidden_size = 6 : i64, activations = ["Sigmoid", "Tanh"],
         activation_alpha = array<f32: 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0>,
         linear_before_reset = false, layout = 1 : i64}
        : (tensor<3x1x2xf32>, tensor<1x18x2xf32>, tensor<1x18x6xf32>)
        -> (tensor<3x1x1x6xf32>, tensor<3x1x6xf32>)
    ```
  }];
  let arguments = !con(Graph_RecurrentOperands, Graph_RecurrentAttributes,
                       (ins BoolAttr:$linear_before_reset));
  let results = (outs AnyTensor:$y, AnyTensor:$y_h);
  let assemblyFormat = [{
    $x `,` $w `,` $r (`bias` `(` $b^ `)`)? (`sequence_lens` `(` $sequence_lens^ `)`)?
    (`initial_h` `(` $initial_h^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_LstmOp : Graph_RecurrentOp<"lstm"> {
  let summary = "Long short-term memory layer (ONNX LSTM)";
  let description = [{
    ONNX LSTM, opset 14 form, with the input (`i`), output (`o`), forget (`f`) and cell
    (`c`) gates in that order:

    - `it = f(Xt * Wi^T + Ht-1 * Ri^T + Pi (.) Ct-1 + Wbi + Rbi)`
    - `ft = f(Xt * Wf^T + Ht-1 * Rf^T + Pf (.) Ct-1 + Wbf + Rbf)` (with `input_forget`,
      `ft = 1 - it`: the input and forget gates are coupled)
    - `ct = g(Xt * Wc^T + Ht-1 * Rc^T + Wbc + Rbc)`
    - `Ct = ft (.) Ct-1 + it (.) ct`
    - `ot = f(Xt * Wo^T + Ht-1 * Ro^T + Po (.) Ct + Wbo + Rbo)`
    - `Ht = ot (.) h(Ct)`

    Shapes and `layout` as in `graph.rnn`, except that `w` is
    `[num_directions, 4 * hidden_size, input_size]`, `r` is
    `[num_directions, 4 * hidden_size, hidden_size]` and `b` is
    `[num_directions, 8 * hidden_size]`. The optional `initial_c` has `initial_h`'s shape,
    the optional peepholes `p` are `[num_directions, 3 * hidden_size]` (i, o, f; zero when
    absent), and the third result `y_c`, the last cell state, has `y_h`'s shape.
    `activations` holds `f`, `g` and `h` for each direction (ONNX's default: `Sigmoid`,
    `Tanh`, `Tanh`); `activation_alpha`, `activation_beta` and `clip` as in `graph.rnn`.

    ```mlir
    %y, %y_h, %y_c = graph.lstm %x, %w, %r bias(%b) peepholes(%p)
        {direction = "forward", hidden_size = 3 : i64,
         activations = ["Sigmoid", "Tanh", "Tanh"],
         activation_alpha = array<f32: 0.0, 0.0, 0.0>,
         activation_beta = array<f32: 0.0, 0.0, 0.0>, input_forget = false, layout = 0 : i64}
        : (tensor<1x2x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, tensor<1x24xf32>,
           tensor<1x9xf32>)
        -> (tensor<1x1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>)
    ```
  }];
  let arguments = !con(Graph_RecurrentOperands,
                       (ins Optional<AnyTensor>:$initial_c, Optional<AnyTensor>:$p),
                       Graph_RecurrentAttributes, (ins BoolAttr:$input_forget));
  let results = (outs AnyTensor:$y, AnyTensor:$y_h, AnyTensor:$y_c);
  let assemblyFormat = [{
    $x `,` $w `,` $r (`bias` `(` $b^ `)`)? (`sequence_lens` `(` $sequence_lens^ `)`)?
    (`initial_h` `(` $initial_h^ `)`)? (`initial_c` `(` $initial_c^ `)`)?
    (`peepholes` `(` $p^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
}

#endif // KILN_GRAPH_RECURRENT_OPS
