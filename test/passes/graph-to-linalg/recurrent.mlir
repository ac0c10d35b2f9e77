// RUN: kiln-opt --graph-to-linalg %s -split-input-file | FileCheck %s

// RNN, reverse, with sequence_lens and clip: the weights are transposed once before an
// scf.for over the time steps that carries H and y; the reverse direction reads x at
// T - 1 - t; a step is Xt * W^T + Wb and Ht-1 * R^T + Rb (the broadcast biases as the
// matmuls' initial values), then one generic clamping to [-clip, clip] before the tanh
// and keeping Ht-1 past a batch entry's length; y gets zeros there.
// CHECK-LABEL: func.func @rnn_reverse_lengths_clip
// CHECK: linalg.transpose {{.*}} permutation = [1, 0]
// CHECK: %[[WB:.*]] = linalg.broadcast
// CHECK: %[[RB:.*]] = linalg.broadcast
// CHECK: scf.for %[[ITER:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[H:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}) -> (tensor<3x5xf32>, tensor<4x1x3x5xf32>)
// CHECK: %[[TIME:.*]] = arith.subi %{{.*}}, %[[ITER]] : index
// CHECK: %[[XT:.*]] = tensor.extract_slice %{{.*}}[%[[TIME]], 0, 0] [1, 3, 2] [1, 1, 1] : tensor<4x3x2xf32> to tensor<3x2xf32>
// CHECK: linalg.matmul ins(%[[XT]], %{{.*}} : tensor<3x2xf32>, tensor<2x5xf32>) outs(%[[WB]] : tensor<3x5xf32>)
// CHECK: linalg.matmul ins(%[[H]], %{{.*}} : tensor<3x5xf32>, tensor<5x5xf32>) outs(%[[RB]] : tensor<3x5xf32>)
// CHECK: %[[NEW_H:.*]] = linalg.generic
// CHECK: arith.constant -2.0
// CHECK: arith.maximumf
// CHECK: math.tanh
// CHECK: arith.cmpi slt
// CHECK: arith.select
// CHECK: %[[STEP_Y:.*]] = linalg.generic
// CHECK: arith.select
// CHECK: %[[NEW_Y:.*]] = tensor.insert_slice %[[STEP_Y]] into %[[Y]][%[[TIME]], 0, 0, 0] [1, 1, 3, 5]
// CHECK: scf.yield %[[NEW_H]], %[[NEW_Y]]
func.func @rnn_reverse_lengths_clip(%x: tensor<4x3x2xf32>, %w: tensor<1x5x2xf32>, %r: tensor<1x5x5xf32>, %b: tensor<1x10xf32>, %lens: tensor<3xi32>) -> (tensor<4x1x3x5xf32>, tensor<1x3x5xf32>) {
  %y, %y_h = graph.rnn %x, %w, %r bias(%b) sequence_lens(%lens) {direction = "reverse", hidden_size = 5 : i64, activations = ["Tanh"], activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, clip = 2.0 : f32, layout = 0 : i64} : (tensor<4x3x2xf32>, tensor<1x5x2xf32>, tensor<1x5x5xf32>, tensor<1x10xf32>, tensor<3xi32>) -> (tensor<4x1x3x5xf32>, tensor<1x3x5xf32>)
  return %y, %y_h : tensor<4x1x3x5xf32>, tensor<1x3x5xf32>
}

// -----

// Bidirectional GRU without linear_before_reset: one loop per direction (the second
// walking backwards), y not built when unused; the recurrent product covers z and r only,
// and h comes from a third matmul of rt (.) Ht-1 by Rh^T. Y_h stacks the final states.
// CHECK-LABEL: func.func @gru_bidirectional
// CHECK: scf.for {{.*}} -> (tensor<2x3xf32>)
// CHECK-NOT: arith.subi
// CHECK: linalg.matmul ins({{.*}} : tensor<2x4xf32>, tensor<4x9xf32>)
// CHECK: linalg.matmul ins({{.*}} : tensor<2x3xf32>, tensor<3x6xf32>)
// CHECK: %[[RESET:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK: %[[RH:.*]] = linalg.matmul ins(%[[RESET]], %{{.*}} : tensor<2x3xf32>, tensor<3x3xf32>)
// CHECK: linalg.generic {{.*}} ins({{.*}}%[[RH]]
// CHECK: math.tanh
// CHECK: scf.for {{.*}} -> (tensor<2x3xf32>)
// CHECK: arith.subi
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0] [1, 2, 3]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[1, 0, 0] [1, 2, 3]
func.func @gru_bidirectional(%x: tensor<3x2x4xf32>, %w: tensor<2x9x4xf32>, %r: tensor<2x9x3xf32>) -> tensor<2x2x3xf32> {
  %y, %y_h = graph.gru %x, %w, %r {direction = "bidirectional", hidden_size = 3 : i64, activations = ["Sigmoid", "Tanh", "Sigmoid", "Tanh"], activation_alpha = array<f32: 0.0, 0.0, 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0, 0.0, 0.0>, linear_before_reset = false, layout = 0 : i64} : (tensor<3x2x4xf32>, tensor<2x9x4xf32>, tensor<2x9x3xf32>) -> (tensor<3x2x2x3xf32>, tensor<2x2x3xf32>)
  return %y_h : tensor<2x2x3xf32>
}

// -----

// GRU with linear_before_reset: the recurrent product covers all three gates and the
// step is one generic that scales Ht-1 * Rh^T + Rbh by rt; no third matmul.
// CHECK-LABEL: func.func @gru_linear_before_reset
// CHECK: scf.for
// CHECK: linalg.matmul ins({{.*}} : tensor<2x3xf32>, tensor<3x9xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: scf.yield
func.func @gru_linear_before_reset(%x: tensor<3x2x4xf32>, %w: tensor<1x9x4xf32>, %r: tensor<1x9x3xf32>) -> tensor<1x2x3xf32> {
  %y, %y_h = graph.gru %x, %w, %r {direction = "forward", hidden_size = 3 : i64, activations = ["Sigmoid", "Tanh"], activation_alpha = array<f32: 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0>, linear_before_reset = true, layout = 0 : i64} : (tensor<3x2x4xf32>, tensor<1x9x4xf32>, tensor<1x9x3xf32>) -> (tensor<3x1x2x3xf32>, tensor<1x2x3xf32>)
  return %y_h : tensor<1x2x3xf32>
}

// -----

// LSTM, layout 1, with peepholes: x is read at [:, t, :]; the loop carries H, C and y;
// the cell generic reads the i, f and c columns (offsets 0, 6, 9 of i, o, f, c) and the
// i and f peepholes (offsets 0 and 6 of i, o, f), the hidden generic the o columns and
// peephole and the new C. y, Y_h and Y_c are transposed to batch-first at the end.
// CHECK-LABEL: func.func @lstm_batch_first_peepholes
// CHECK-DAG: %[[PI:.*]] = tensor.extract_slice %[[P:.*]][0, 0] [1, 3] [1, 1] : tensor<1x9xf32> to tensor<3xf32>
// CHECK-DAG: %[[PO:.*]] = tensor.extract_slice %[[P]][0, 3] [1, 3] [1, 1] : tensor<1x9xf32> to tensor<3xf32>
// CHECK-DAG: %[[PF:.*]] = tensor.extract_slice %[[P]][0, 6] [1, 3] [1, 1] : tensor<1x9xf32> to tensor<3xf32>
// CHECK: scf.for %[[TIME:.*]] = {{.*}} iter_args(%[[H:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x1x2x3xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, %[[TIME]], 0] [2, 1, 4] [1, 1, 1] : tensor<2x3x4xf32> to tensor<2x4xf32>
// CHECK: %[[XW:.*]] = linalg.matmul
// CHECK: %[[HR:.*]] = linalg.matmul
// CHECK-DAG: %[[XI:.*]] = tensor.extract_slice %[[XW]][0, 0] [2, 3]
// CHECK-DAG: %[[XF:.*]] = tensor.extract_slice %[[XW]][0, 6] [2, 3]
// CHECK-DAG: %[[XC:.*]] = tensor.extract_slice %[[XW]][0, 9] [2, 3]
// CHECK: %[[NEW_C:.*]] = linalg.generic {{.*}} ins(%[[XI]], %[[XF]], %[[XC]], %{{.*}}, %{{.*}}, %{{.*}}, %[[C]], %[[PI]], %[[PF]] :
// CHECK: %[[XO:.*]] = tensor.extract_slice %[[XW]][0, 3] [2, 3]
// CHECK: %[[NEW_H:.*]] = linalg.generic {{.*}} ins(%[[XO]], %{{.*}}, %[[NEW_C]], %[[H]], %[[PO]] :
// CHECK: %[[NEW_Y:.*]] = tensor.insert_slice %[[NEW_H]] into %[[Y]][%[[TIME]], 0, 0, 0]
// CHECK: scf.yield %[[NEW_H]], %[[NEW_C]], %[[NEW_Y]]
// CHECK: linalg.transpose {{.*}} permutation = [2, 0, 1, 3]
// CHECK: linalg.transpose {{.*}} permutation = [1, 0, 2]
// CHECK: linalg.transpose {{.*}} permutation = [1, 0, 2]
func.func @lstm_batch_first_peepholes(%x: tensor<2x3x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>, %p: tensor<1x9xf32>) -> (tensor<2x3x1x3xf32>, tensor<2x1x3xf32>, tensor<2x1x3xf32>) {
  %y, %y_h, %y_c = graph.lstm %x, %w, %r peepholes(%p) {direction = "forward", hidden_size = 3 : i64, activations = ["Sigmoid", "Tanh", "Tanh"], activation_alpha = array<f32: 0.0, 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0, 0.0>, input_forget = false, layout = 1 : i64} : (tensor<2x3x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, tensor<1x9xf32>) -> (tensor<2x3x1x3xf32>, tensor<2x1x3xf32>, tensor<2x1x3xf32>)
  return %y, %y_h, %y_c : tensor<2x3x1x3xf32>, tensor<2x1x3xf32>, tensor<2x1x3xf32>
}

// -----

// Non-default activations with their alpha and beta: LeakyRelu's slope and ScaledTanh's
// alpha * tanh(beta * x).
// CHECK-LABEL: func.func @rnn_activations
// CHECK: linalg.generic
// CHECK: arith.constant 5.000000e-01
// CHECK: scf.for
// CHECK: arith.subi
// CHECK: linalg.generic
// CHECK: arith.constant 2.500000e-01
// CHECK: math.tanh
// CHECK: arith.constant 1.500000e+00
func.func @rnn_activations(%x: tensor<2x1x2xf32>, %w: tensor<2x3x2xf32>, %r: tensor<2x3x3xf32>) -> tensor<2x1x3xf32> {
  %y, %y_h = graph.rnn %x, %w, %r {direction = "bidirectional", hidden_size = 3 : i64, activations = ["LeakyRelu", "ScaledTanh"], activation_alpha = array<f32: 0.5, 1.5>, activation_beta = array<f32: 0.0, 0.25>, layout = 0 : i64} : (tensor<2x1x2xf32>, tensor<2x3x2xf32>, tensor<2x3x3xf32>) -> (tensor<2x2x1x3xf32>, tensor<2x1x3xf32>)
  return %y_h : tensor<2x1x3xf32>
}
