// The recurrent family's graph ops reject shapes and attributes that contradict their ONNX
// semantics, one case per error of their shape rules. Each failed shape rule is followed by
// the generic "failed to infer returned types", left unchecked (only-expected).
// RUN: kiln-opt %s -split-input-file -verify-diagnostics=only-expected

func.func @direction(%x: tensor<2x3x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf32>) {
  // expected-error @+1 {{direction 'sideways' is not one of forward, reverse, bidirectional}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "sideways", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @hidden_size(%x: tensor<2x3x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf32>) {
  // expected-error @+1 {{hidden_size must be positive, got 0}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "forward", hidden_size = 0 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @layout(%x: tensor<2x3x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf32>) {
  // expected-error @+1 {{layout must be 0 or 1, got 2}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 2 : i64}
      : (tensor<2x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @activation_count(%x: tensor<2x3x4xf32>, %w: tensor<2x5x4xf32>, %r: tensor<2x5x5xf32>) {
  // A bidirectional RNN needs one activation per direction.
  // expected-error @+1 {{expects 2 activations (1 per direction), got 1}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "bidirectional", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x5x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @activation_name(%x: tensor<2x3x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf32>) {
  // expected-error @+1 {{activation 'Gelu' is not one of Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "forward", hidden_size = 5 : i64, activations = ["Gelu"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @activation_alpha_count(%x: tensor<2x3x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf32>) {
  // expected-error @+1 {{activation_alpha has 2 values for 1 activations}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0, 1.0>, activation_beta = array<f32: 0.0>,
       layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @activation_beta_count(%x: tensor<2x3x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf32>) {
  // expected-error @+1 {{activation_beta has 0 values for 1 activations}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32>, layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @clip(%x: tensor<2x3x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf32>) {
  // expected-error @+1 {{clip must be positive, got -1}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64,
       clip = -1.0 : f32}
      : (tensor<2x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @x_element_type(%x: tensor<2x3x4xi32>, %w: tensor<1x5x4xi32>, %r: tensor<1x5x5xi32>) {
  // expected-error @+1 {{X element type must be f16, bf16, f32 or f64, got 'i32'}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x3x4xi32>, tensor<1x5x4xi32>, tensor<1x5x5xi32>) -> (tensor<*xi32>, tensor<*xi32>)
  return
}

// -----

func.func @r_element_type(%x: tensor<2x3x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf16>) {
  // expected-error @+1 {{R element type 'f16' differs from X element type 'f32'}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf16>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @sequence_lens_element_type(%x: tensor<2x3x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf32>, %lens: tensor<3xi64>) {
  // expected-error @+1 {{sequence_lens element type must be i32, got 'i64'}}
  %y, %y_h = graph.rnn %x, %w, %r sequence_lens(%lens)
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>, tensor<3xi64>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @x_rank(%x: tensor<2x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf32>) {
  // expected-error @+1 {{X must have rank 3 ([seq_length, batch_size, input_size]), got 2}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @w_num_directions(%x: tensor<2x3x4xf32>, %w: tensor<2x5x4xf32>, %r: tensor<1x5x5xf32>) {
  // A forward RNN has one direction.
  // expected-error @+1 {{W dimension 0 is 2, expected 1 (num_directions)}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<1x5x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @w_input_size(%x: tensor<2x3x4xf32>, %w: tensor<1x5x6xf32>, %r: tensor<1x5x5xf32>) {
  // W's input_size must match X's.
  // expected-error @+1 {{W dimension 2 is 6, expected 4 (input_size)}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<1x5x6xf32>, tensor<1x5x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @gru_w_gates(%x: tensor<2x3x4xf32>, %w: tensor<1x6x4xf32>, %r: tensor<1x9x3xf32>) {
  // GRU stacks three gates of hidden_size rows in W.
  // expected-error @+1 {{W dimension 1 is 6, expected 9 (3 * hidden_size)}}
  %y, %y_h = graph.gru %x, %w, %r
      {direction = "forward", hidden_size = 3 : i64, activations = ["Sigmoid", "Tanh"],
       activation_alpha = array<f32: 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0>,
       layout = 0 : i64, linear_before_reset = false}
      : (tensor<2x3x4xf32>, tensor<1x6x4xf32>, tensor<1x9x3xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @r_hidden_size(%x: tensor<2x3x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x4xf32>) {
  // expected-error @+1 {{R dimension 2 is 4, expected 5 (hidden_size)}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x4xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @bias_size(%x: tensor<2x3x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf32>, %b: tensor<1x5xf32>) {
  // expected-error @+1 {{B dimension 1 is 5, expected 10 (2 * hidden_size)}}
  %y, %y_h = graph.rnn %x, %w, %r bias(%b)
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>, tensor<1x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @sequence_lens_batch(%x: tensor<2x3x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf32>, %lens: tensor<2xi32>) {
  // expected-error @+1 {{sequence_lens dimension 0 is 2, expected 3 (batch_size)}}
  %y, %y_h = graph.rnn %x, %w, %r sequence_lens(%lens)
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>, tensor<2xi32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @initial_h_batch_first(%x: tensor<3x2x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf32>, %h: tensor<2x1x5xf32>) {
  // With layout = 1, X is [batch_size, seq_length, input_size] and initial_h [batch_size, num_directions, hidden_size].
  // expected-error @+1 {{initial_h dimension 0 is 2, expected 3 (batch_size)}}
  %y, %y_h = graph.rnn %x, %w, %r initial_h(%h)
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 1 : i64}
      : (tensor<3x2x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>, tensor<2x1x5xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @lstm_initial_c_element_type(%x: tensor<1x2x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>, %c: tensor<1x2x3xf64>) {
  // expected-error @+1 {{initial_c element type 'f64' differs from X element type 'f32'}}
  %y, %y_h, %y_c = graph.lstm %x, %w, %r initial_c(%c)
      {direction = "forward", hidden_size = 3 : i64, activations = ["Sigmoid", "Tanh", "Tanh"],
       activation_alpha = array<f32: 0.0, 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0, 0.0>,
       layout = 0 : i64, input_forget = false}
      : (tensor<1x2x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, tensor<1x2x3xf64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @lstm_peepholes(%x: tensor<1x2x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>, %p: tensor<1x12xf32>) {
  // Peepholes cover the input, output and forget gates only.
  // expected-error @+1 {{P dimension 1 is 12, expected 9 (3 * hidden_size)}}
  %y, %y_h, %y_c = graph.lstm %x, %w, %r peepholes(%p)
      {direction = "forward", hidden_size = 3 : i64, activations = ["Sigmoid", "Tanh", "Tanh"],
       activation_alpha = array<f32: 0.0, 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0, 0.0>,
       layout = 0 : i64, input_forget = false}
      : (tensor<1x2x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, tensor<1x12xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @lstm_peepholes_rank(%x: tensor<1x2x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>, %p: tensor<9xf32>) {
  // expected-error @+1 {{P must have rank 2 ([num_directions, 3 * hidden_size]), got 1}}
  %y, %y_h, %y_c = graph.lstm %x, %w, %r peepholes(%p)
      {direction = "forward", hidden_size = 3 : i64, activations = ["Sigmoid", "Tanh", "Tanh"],
       activation_alpha = array<f32: 0.0, 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0, 0.0>,
       layout = 0 : i64, input_forget = false}
      : (tensor<1x2x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, tensor<9xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  return
}

// -----

func.func @hidden_size_too_large(%x: tensor<2x3x4xf32>, %w: tensor<1x?x4xf32>, %r: tensor<1x?x?xf32>) {
  // The stacked gates (8 * hidden_size for an LSTM bias) would not fit in 64 bits.
  // expected-error @+1 {{hidden_size 4611686018427387904 is too large}}
  %y, %y_h = graph.rnn %x, %w, %r
      {direction = "forward", hidden_size = 4611686018427387904 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<1x?x4xf32>, tensor<1x?x?xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}
