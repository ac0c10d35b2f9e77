// RUN: kiln-opt --graph-to-linalg %s -split-input-file -verify-diagnostics

// The recurrent lowerings need static shapes (kiln run specialises them); a dynamic
// sequence length is reported, not lowered.
func.func @rnn_dynamic_sequence(%x: tensor<?x3x2xf32>, %w: tensor<1x5x2xf32>, %r: tensor<1x5x5xf32>) -> tensor<1x3x5xf32> {
  // expected-error @+1 {{graph.rnn: not supported on the CPU path: no lowering for this form}}
  %y, %y_h = graph.rnn %x, %w, %r {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"], activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64} : (tensor<?x3x2xf32>, tensor<1x5x2xf32>, tensor<1x5x5xf32>) -> (tensor<?x1x3x5xf32>, tensor<1x3x5xf32>)
  return %y_h : tensor<1x3x5xf32>
}

// -----

// A dynamic batch in an LSTM.
func.func @lstm_dynamic_batch(%x: tensor<2x?x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>) -> tensor<1x?x3xf32> {
  // expected-error @+1 {{graph.lstm: not supported on the CPU path: no lowering for this form}}
  %y, %y_h, %y_c = graph.lstm %x, %w, %r {direction = "forward", hidden_size = 3 : i64, activations = ["Sigmoid", "Tanh", "Tanh"], activation_alpha = array<f32: 0.0, 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0, 0.0>, input_forget = false, layout = 0 : i64} : (tensor<2x?x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>) -> (tensor<2x1x?x3xf32>, tensor<1x?x3xf32>, tensor<1x?x3xf32>)
  return %y_h : tensor<1x?x3xf32>
}

// -----

// A dynamic hidden state in a GRU.
func.func @gru_dynamic_result(%x: tensor<2x1x4xf32>, %w: tensor<1x9x4xf32>, %r: tensor<1x9x3xf32>) -> tensor<?x1x3xf32> {
  // expected-error @+1 {{graph.gru: not supported on the CPU path: no lowering for this form}}
  %y, %y_h = graph.gru %x, %w, %r {direction = "forward", hidden_size = 3 : i64, activations = ["Sigmoid", "Tanh"], activation_alpha = array<f32: 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0>, linear_before_reset = false, layout = 0 : i64} : (tensor<2x1x4xf32>, tensor<1x9x4xf32>, tensor<1x9x3xf32>) -> (tensor<2x1x1x3xf32>, tensor<?x1x3xf32>)
  return %y_h : tensor<?x1x3xf32>
}
