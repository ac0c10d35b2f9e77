// The loss ops reject attributes and shapes that contradict their ONNX semantics, one case
// per error of their shape rules. Each failed shape rule is followed by the generic "failed
// to infer returned types", left unchecked (only-expected).
// RUN: kiln-opt %s -split-input-file -verify-diagnostics=only-expected

func.func @reduction(%x: tensor<3x5xf32>, %t: tensor<3xi64>) {
  // expected-error @+1 {{reduction must be none, sum or mean, got 'max'}}
  %loss = graph.negative_log_likelihood_loss %x, %t {reduction = "max"}
      : (tensor<3x5xf32>, tensor<3xi64>) -> tensor<f32>
  return
}

// -----

func.func @input_element_type(%x: tensor<3x5xi32>, %t: tensor<3xi64>) {
  // expected-error @+1 {{input must have a floating-point element type, got 'i32'}}
  %loss = graph.negative_log_likelihood_loss %x, %t {reduction = "mean"}
      : (tensor<3x5xi32>, tensor<3xi64>) -> tensor<i32>
  return
}

// -----

func.func @target_element_type(%s: tensor<3x5xf32>, %l: tensor<3xui32>) {
  // Labels are signed ONNX integers: signless i32 or i64.
  // expected-error @+1 {{labels element type must be i32 or i64, got 'ui32'}}
  %loss, %log_prob = graph.softmax_cross_entropy_loss %s, %l {reduction = "mean"}
      : (tensor<3x5xf32>, tensor<3xui32>) -> (tensor<f32>, tensor<3x5xf32>)
  return
}

// -----

func.func @input_rank(%x: tensor<5xf32>, %t: tensor<i64>) {
  // expected-error @+1 {{input must have rank 2 or more ([N, C, d1, ..., dk]), got 1}}
  %loss = graph.negative_log_likelihood_loss %x, %t {reduction = "sum"}
      : (tensor<5xf32>, tensor<i64>) -> tensor<f32>
  return
}

// -----

func.func @target_scalar(%x: tensor<*xf32>, %t: tensor<i64>) {
  // Even with an unranked input, the target needs its batch dimension.
  // expected-error @+1 {{target must have rank 1 or more ([N, d1, ..., dk]), got 0}}
  %loss = graph.negative_log_likelihood_loss %x, %t {reduction = "none"}
      : (tensor<*xf32>, tensor<i64>) -> tensor<*xf32>
  return
}

// -----

func.func @target_rank(%x: tensor<3x5x2xf32>, %t: tensor<3x2x1xi64>) {
  // expected-error @+1 {{target must have rank 2 (input rank minus 1), got 3}}
  %loss = graph.negative_log_likelihood_loss %x, %t {reduction = "none"}
      : (tensor<3x5x2xf32>, tensor<3x2x1xi64>) -> tensor<3x2xf32>
  return
}

// -----

func.func @target_shape(%x: tensor<?x5x2xf32>, %t: tensor<3x4xi64>) {
  // The target is [N, d1] of the input's [N, C, d1]: its 4 contradicts d1 = 2.
  // expected-error @+1 {{target of shape [3, 4] does not match input of shape [?, 5, 2] ([N, d1, ..., dk] for [N, C, d1, ..., dk])}}
  %loss = graph.negative_log_likelihood_loss %x, %t {reduction = "none"}
      : (tensor<?x5x2xf32>, tensor<3x4xi64>) -> tensor<3x2xf32>
  return
}

// -----

func.func @weight_element_type(%s: tensor<3x5xf32>, %l: tensor<3xi64>, %w: tensor<5xf16>) {
  // expected-error @+1 {{weights element type 'f16' differs from scores element type 'f32'}}
  %loss, %log_prob = graph.softmax_cross_entropy_loss %s, %l, %w {reduction = "mean"}
      : (tensor<3x5xf32>, tensor<3xi64>, tensor<5xf16>) -> (tensor<f32>, tensor<3x5xf32>)
  return
}

// -----

func.func @weight_rank(%x: tensor<3x5xf32>, %t: tensor<3xi64>, %w: tensor<1x5xf32>) {
  // expected-error @+1 {{weight must have rank 1 ([C]), got 2}}
  %loss = graph.negative_log_likelihood_loss %x, %t, %w {reduction = "mean"}
      : (tensor<3x5xf32>, tensor<3xi64>, tensor<1x5xf32>) -> tensor<f32>
  return
}

// -----

func.func @weight_classes(%x: tensor<3x5xf32>, %t: tensor<3xi64>, %w: tensor<4xf32>) {
  // expected-error @+1 {{weight has 4 elements for 5 classes}}
  %loss = graph.negative_log_likelihood_loss %x, %t, %w {reduction = "mean"}
      : (tensor<3x5xf32>, tensor<3xi64>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @declared_loss_shape(%x: tensor<3x5xf32>, %t: tensor<3xi64>) {
  // A reduced loss is a scalar; a declared [3] contradicts the shape rule.
  // expected-error @+1 {{'graph.negative_log_likelihood_loss' op inferred type(s) 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  %loss = graph.negative_log_likelihood_loss %x, %t {reduction = "sum"}
      : (tensor<3x5xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}
