// The optimizers of ai.onnx.preview.training reject operands and attributes that
// contradict their ONNX semantics, one case per error of their shape rules. Each failed
// shape rule is followed by the generic "failed to infer returned types", left unchecked
// (only-expected).
// RUN: kiln-opt %s -split-input-file -verify-diagnostics=only-expected

func.func @group_count(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<2xf32>) {
  // Adagrad takes X, G and H for each tensor: 4 operands after R and T cannot be grouped.
  // expected-error @+1 {{expects X, G, H for each updated tensor (a multiple of 3 operands after R and T), got 4}}
  %a, %b = graph.adagrad %r, %t, %x, %x, %x, %x
      {decay_factor = 0.0 : f32, epsilon = 1.0e-06 : f32, norm_coefficient = 0.0 : f32}
      : (tensor<f32>, tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @no_tensors(%r: tensor<f32>, %t: tensor<i64>) {
  // expected-error @+1 {{expects X, G, V, H for each updated tensor (a multiple of 4 operands after R and T), got 0}}
  graph.adam %r, %t {alpha = 0.9 : f32, beta = 0.999 : f32, epsilon = 1.0e-06 : f32,
                     norm_coefficient = 0.0 : f32, norm_coefficient_post = 0.0 : f32}
      : (tensor<f32>, tensor<i64>) -> ()
  return
}

// -----

func.func @rate_not_scalar(%r: tensor<2xf32>, %t: tensor<i64>, %x: tensor<2xf32>) {
  // expected-error @+1 {{learning rate R must be a scalar, got 'tensor<2xf32>'}}
  %a, %b = graph.adagrad %r, %t, %x, %x, %x
      {decay_factor = 0.0 : f32, epsilon = 1.0e-06 : f32, norm_coefficient = 0.0 : f32}
      : (tensor<2xf32>, tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @rate_type(%r: tensor<i64>, %t: tensor<i64>, %x: tensor<2xf32>) {
  // expected-error @+1 {{learning rate R must be a float tensor, got 'tensor<i64>'}}
  %a, %b = graph.adagrad %r, %t, %x, %x, %x
      {decay_factor = 0.0 : f32, epsilon = 1.0e-06 : f32, norm_coefficient = 0.0 : f32}
      : (tensor<i64>, tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @iteration_type(%r: tensor<f32>, %t: tensor<i32>, %x: tensor<2xf32>) {
  // expected-error @+1 {{iteration count T must be an i64 tensor, got 'tensor<i32>'}}
  %a, %b = graph.momentum %r, %t, %x, %x, %x
      {alpha = 0.9 : f32, beta = 0.1 : f32, mode = "standard", norm_coefficient = 0.0 : f32}
      : (tensor<f32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @iteration_not_scalar(%r: tensor<f32>, %t: tensor<3xi64>, %x: tensor<2xf32>) {
  // expected-error @+1 {{iteration count T must be a scalar, got 'tensor<3xi64>'}}
  %a, %b = graph.momentum %r, %t, %x, %x, %x
      {alpha = 0.9 : f32, beta = 0.1 : f32, mode = "standard", norm_coefficient = 0.0 : f32}
      : (tensor<f32>, tensor<3xi64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @integer_parameter(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<2xi32>) {
  // expected-error @+1 {{X1 must be a float tensor, got 'tensor<2xi32>'}}
  %a, %b = graph.momentum %r, %t, %x, %x, %x
      {alpha = 0.9 : f32, beta = 0.1 : f32, mode = "standard", norm_coefficient = 0.0 : f32}
      : (tensor<f32>, tensor<i64>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>)
      -> (tensor<2xi32>, tensor<2xi32>)
  return
}

// -----

func.func @element_types(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<2xf32>, %g: tensor<2xf16>) {
  // expected-error @+1 {{G1 element type 'f16' differs from X1 element type 'f32'}}
  %a, %b = graph.momentum %r, %t, %x, %g, %x
      {alpha = 0.9 : f32, beta = 0.1 : f32, mode = "standard", norm_coefficient = 0.0 : f32}
      : (tensor<f32>, tensor<i64>, tensor<2xf32>, tensor<2xf16>, tensor<2xf32>)
      -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @shapes(%r: tensor<f32>, %t: tensor<i64>, %x1: tensor<1xf32>, %x2: tensor<2xf32>,
                  %h: tensor<3xf32>) {
  // The second tensor's state H2 disagrees with X2 and G2.
  // expected-error @+1 {{H2 dimension 0 is 3, expected 2}}
  %a:4 = graph.adagrad %r, %t, %x1, %x2, %x1, %x2, %x1, %h
      {decay_factor = 0.0 : f32, epsilon = 1.0e-06 : f32, norm_coefficient = 0.0 : f32}
      : (tensor<f32>, tensor<i64>, tensor<1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<2xf32>,
         tensor<1xf32>, tensor<3xf32>)
      -> (tensor<1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<2xf32>)
  return
}

// -----

func.func @ranks(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<2xf32>, %v: tensor<1x2xf32>) {
  // expected-error @+1 {{V1 has rank 2, expected 1}}
  %a:3 = graph.adam %r, %t, %x, %x, %v, %x
      {alpha = 0.9 : f32, beta = 0.999 : f32, epsilon = 1.0e-06 : f32,
       norm_coefficient = 0.0 : f32, norm_coefficient_post = 0.0 : f32}
      : (tensor<f32>, tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<1x2xf32>, tensor<2xf32>)
      -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @result_count(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<2xf32>) {
  // Adam returns X_new, V_new and H_new; H_new cannot be left out.
  // expected-error @+1 {{are incompatible with return type(s)}}
  %a:2 = graph.adam %r, %t, %x, %x, %x, %x
      {alpha = 0.9 : f32, beta = 0.999 : f32, epsilon = 1.0e-06 : f32,
       norm_coefficient = 0.0 : f32, norm_coefficient_post = 0.0 : f32}
      : (tensor<f32>, tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @mode(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<2xf32>) {
  // expected-error @+1 {{mode must be standard or nesterov, got 'heavy_ball'}}
  %a, %b = graph.momentum %r, %t, %x, %x, %x
      {alpha = 0.9 : f32, beta = 0.1 : f32, mode = "heavy_ball", norm_coefficient = 0.0 : f32}
      : (tensor<f32>, tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<2xf32>, tensor<2xf32>)
  return
}
