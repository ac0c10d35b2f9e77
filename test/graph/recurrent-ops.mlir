// Round trip of the recurrent family's graph ops, in the custom and in the generic form, with
// the result types their shape rules infer.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @rnn_forward_bias
func.func @rnn_forward_bias(%x: tensor<2x3x4xf32>, %w: tensor<1x5x4xf32>, %r: tensor<1x5x5xf32>,
                            %b: tensor<1x10xf32>) -> (tensor<2x1x3x5xf32>, tensor<1x3x5xf32>) {
  // Y is [seq_length, num_directions, batch_size, hidden_size], Y_h drops seq_length.
  // CHECK: graph.rnn %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}}) {activation_alpha = array<f32: 0.000000e+00>, activation_beta = array<f32: 0.000000e+00>, activations = ["Tanh"], direction = "forward", hidden_size = 5 : i64, layout = 0 : i64}
  // CHECK-SAME: -> (tensor<2x1x3x5xf32>, tensor<1x3x5xf32>)
  %y, %y_h = graph.rnn %x, %w, %r bias(%b)
      {direction = "forward", hidden_size = 5 : i64, activations = ["Tanh"],
       activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, layout = 0 : i64}
      : (tensor<2x3x4xf32>, tensor<1x5x4xf32>, tensor<1x5x5xf32>, tensor<1x10xf32>)
      -> (tensor<2x1x3x5xf32>, tensor<1x3x5xf32>)
  return %y, %y_h : tensor<2x1x3x5xf32>, tensor<1x3x5xf32>
}

// CHECK-LABEL: func.func @rnn_bidirectional_batch_first
func.func @rnn_bidirectional_batch_first(%x: tensor<?x7x4xf16>, %w: tensor<2x5x4xf16>,
                                         %r: tensor<2x5x5xf16>, %lens: tensor<3xi32>,
                                         %h: tensor<?x2x5xf16>)
    -> (tensor<*xf16>, tensor<?x2x5xf16>) {
  // With layout = 1 the batch comes first; batch_size is learnt from sequence_lens, and the
  // declared results may be less refined than the inferred ones. Clip and an activation
  // with parameters (LeakyRelu's alpha) are kept.
  // CHECK: graph.rnn %{{.*}}, %{{.*}}, %{{.*}} sequence_lens(%{{.*}}) initial_h(%{{.*}}) {{{.*}}activations = ["LeakyRelu", "Tanh"], clip = 3.{{0+}}e+00 : f32, direction = "bidirectional"{{.*}}layout = 1 : i64}
  // CHECK-SAME: -> (tensor<*xf16>, tensor<?x2x5xf16>)
  %y, %y_h = graph.rnn %x, %w, %r sequence_lens(%lens) initial_h(%h)
      {direction = "bidirectional", hidden_size = 5 : i64, activations = ["LeakyRelu", "Tanh"],
       activation_alpha = array<f32: 0.1, 0.0>, activation_beta = array<f32: 0.0, 0.0>,
       clip = 3.0 : f32, layout = 1 : i64}
      : (tensor<?x7x4xf16>, tensor<2x5x4xf16>, tensor<2x5x5xf16>, tensor<3xi32>,
         tensor<?x2x5xf16>) -> (tensor<*xf16>, tensor<?x2x5xf16>)
  return %y, %y_h : tensor<*xf16>, tensor<?x2x5xf16>
}

// CHECK-LABEL: func.func @gru_batchwise
func.func @gru_batchwise(%x: tensor<3x1x2xf32>, %w: tensor<1x18x2xf32>, %r: tensor<1x18x6xf32>)
    -> (tensor<3x1x1x6xf32>, tensor<3x1x6xf32>) {
  // CHECK: graph.gru %{{.*}}, %{{.*}}, %{{.*}} {{{.*}}activations = ["Sigmoid", "Tanh"]{{.*}}hidden_size = 6 : i64, layout = 1 : i64, linear_before_reset = true}
  // CHECK-SAME: -> (tensor<3x1x1x6xf32>, tensor<3x1x6xf32>)
  %y, %y_h = graph.gru %x, %w, %r
      {direction = "forward", hidden_size = 6 : i64, activations = ["Sigmoid", "Tanh"],
       activation_alpha = array<f32: 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0>,
       linear_before_reset = true, layout = 1 : i64}
      : (tensor<3x1x2xf32>, tensor<1x18x2xf32>, tensor<1x18x6xf32>)
      -> (tensor<3x1x1x6xf32>, tensor<3x1x6xf32>)
  return %y, %y_h : tensor<3x1x1x6xf32>, tensor<3x1x6xf32>
}

// CHECK-LABEL: func.func @gru_unranked_input
func.func @gru_unranked_input(%x: tensor<*xf64>, %w: tensor<2x9x?xf64>, %r: tensor<2x9x3xf64>,
                              %b: tensor<2x18xf64>, %h: tensor<2x4x3xf64>)
    -> (tensor<?x2x4x3xf64>, tensor<2x4x3xf64>) {
  // X is unranked, yet the results are ranked: batch_size comes from initial_h, only
  // seq_length stays dynamic.
  // CHECK: graph.gru %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}}) initial_h(%{{.*}}) {{{.*}}direction = "bidirectional"
  // CHECK-SAME: (tensor<*xf64>, tensor<2x9x?xf64>, tensor<2x9x3xf64>, tensor<2x18xf64>, tensor<2x4x3xf64>) -> (tensor<?x2x4x3xf64>, tensor<2x4x3xf64>)
  %y, %y_h = graph.gru %x, %w, %r bias(%b) initial_h(%h)
      {direction = "bidirectional", hidden_size = 3 : i64,
       activations = ["HardSigmoid", "Tanh", "Sigmoid", "Tanh"],
       activation_alpha = array<f32: 0.2, 0.0, 0.0, 0.0>,
       activation_beta = array<f32: 0.5, 0.0, 0.0, 0.0>, linear_before_reset = false,
       layout = 0 : i64}
      : (tensor<*xf64>, tensor<2x9x?xf64>, tensor<2x9x3xf64>, tensor<2x18xf64>, tensor<2x4x3xf64>)
      -> (tensor<?x2x4x3xf64>, tensor<2x4x3xf64>)
  return %y, %y_h : tensor<?x2x4x3xf64>, tensor<2x4x3xf64>
}

// CHECK-LABEL: func.func @lstm_peepholes
func.func @lstm_peepholes(%x: tensor<1x2x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>,
                          %b: tensor<1x24xf32>, %lens: tensor<2xi32>, %h: tensor<1x2x3xf32>,
                          %c: tensor<1x2x3xf32>, %p: tensor<1x9xf32>)
    -> (tensor<1x1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>) {
  // Every optional operand; Y_c has Y_h's shape.
  // CHECK: graph.lstm %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}}) sequence_lens(%{{.*}}) initial_h(%{{.*}}) initial_c(%{{.*}}) peepholes(%{{.*}}) {{{.*}}activations = ["Sigmoid", "Tanh", "Tanh"]{{.*}}input_forget = false
  // CHECK-SAME: -> (tensor<1x1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>)
  %y, %y_h, %y_c = graph.lstm %x, %w, %r bias(%b) sequence_lens(%lens) initial_h(%h)
      initial_c(%c) peepholes(%p)
      {direction = "forward", hidden_size = 3 : i64, activations = ["Sigmoid", "Tanh", "Tanh"],
       activation_alpha = array<f32: 0.0, 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0, 0.0>,
       input_forget = false, layout = 0 : i64}
      : (tensor<1x2x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, tensor<1x24xf32>,
         tensor<2xi32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x9xf32>)
      -> (tensor<1x1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>)
  return %y, %y_h, %y_c : tensor<1x1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>
}

// CHECK-LABEL: func.func @lstm_bidirectional_dynamic
func.func @lstm_bidirectional_dynamic(%x: tensor<?x?x8xbf16>, %w: tensor<2x64x8xbf16>,
                                      %r: tensor<2x64x16xbf16>, %c: tensor<2x5x16xbf16>)
    -> (tensor<?x2x5x16xbf16>, tensor<2x5x16xbf16>, tensor<2x5x16xbf16>) {
  // Only initial_c is given; it fixes batch_size for all three results.
  // CHECK: graph.lstm %{{.*}}, %{{.*}}, %{{.*}} initial_c(%{{.*}}) {{{.*}}direction = "bidirectional"{{.*}}input_forget = true
  // CHECK-SAME: -> (tensor<?x2x5x16xbf16>, tensor<2x5x16xbf16>, tensor<2x5x16xbf16>)
  %y, %y_h, %y_c = graph.lstm %x, %w, %r initial_c(%c)
      {direction = "bidirectional", hidden_size = 16 : i64,
       activations = ["Sigmoid", "Tanh", "Tanh", "Sigmoid", "Tanh", "Tanh"],
       activation_alpha = array<f32: 0.0, 0.0, 0.0, 0.0, 0.0, 0.0>,
       activation_beta = array<f32: 0.0, 0.0, 0.0, 0.0, 0.0, 0.0>, input_forget = true,
       layout = 0 : i64}
      : (tensor<?x?x8xbf16>, tensor<2x64x8xbf16>, tensor<2x64x16xbf16>, tensor<2x5x16xbf16>)
      -> (tensor<?x2x5x16xbf16>, tensor<2x5x16xbf16>, tensor<2x5x16xbf16>)
  return %y, %y_h, %y_c : tensor<?x2x5x16xbf16>, tensor<2x5x16xbf16>, tensor<2x5x16xbf16>
}
