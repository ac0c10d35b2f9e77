// Round trip of the optimizers of ai.onnx.preview.training, in the custom and in the
// generic form, with the result types their shape rules infer; the INFER run refines less
// refined declared types with them.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(graph-infer-shapes))' | FileCheck %s --check-prefix=INFER

// CHECK-LABEL: func.func @adagrad
func.func @adagrad(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<4xf32>, %g: tensor<4xf32>,
                   %h: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // One tensor: (X, G, H) -> (X_new, H_new).
  // CHECK: %{{.*}}:2 = graph.adagrad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {decay_factor = 1.{{0+}}e-01 : f32, epsilon = 9.99999974E-6 : f32, norm_coefficient = 1.{{0+}}e-03 : f32}
  // CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32>)
  %x_new, %h_new = graph.adagrad %r, %t, %x, %g, %h
      {decay_factor = 0.1 : f32, epsilon = 1.0e-05 : f32, norm_coefficient = 1.0e-03 : f32}
      : (tensor<f32>, tensor<i64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<4xf32>, tensor<4xf32>)
  return %x_new, %h_new : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @adagrad_multiple
// INFER-LABEL: func.func @adagrad_multiple
func.func @adagrad_multiple(%r: tensor<1xf64>, %t: tensor<i64>, %x1: tensor<?xf64>,
                            %x2: tensor<2x3xf16>, %g1: tensor<5xf64>, %g2: tensor<2x?xf16>,
                            %h1: tensor<*xf64>, %h2: tensor<?x3xf16>)
    -> (tensor<?xf64>, tensor<*xf16>, tensor<?xf64>, tensor<2x3xf16>) {
  // Two tensors of other element types; each result takes the shape its group's operands
  // agree on (X1 from G1; the scalar R may be [1]).
  // CHECK: graph.adagrad {{.*}} -> (tensor<?xf64>, tensor<*xf16>, tensor<?xf64>, tensor<2x3xf16>)
  // INFER: graph.adagrad {{.*}} -> (tensor<5xf64>, tensor<2x3xf16>, tensor<5xf64>, tensor<2x3xf16>)
  %x1_new, %x2_new, %h1_new, %h2_new = graph.adagrad %r, %t, %x1, %x2, %g1, %g2, %h1, %h2
      {decay_factor = 0.0 : f32, epsilon = 1.0e-06 : f32, norm_coefficient = 0.0 : f32}
      : (tensor<1xf64>, tensor<i64>, tensor<?xf64>, tensor<2x3xf16>, tensor<5xf64>,
         tensor<2x?xf16>, tensor<*xf64>, tensor<?x3xf16>)
      -> (tensor<?xf64>, tensor<*xf16>, tensor<?xf64>, tensor<2x3xf16>)
  return %x1_new, %x2_new, %h1_new, %h2_new
      : tensor<?xf64>, tensor<*xf16>, tensor<?xf64>, tensor<2x3xf16>
}

// CHECK-LABEL: func.func @adam
func.func @adam(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<2xf32>, %g: tensor<2xf32>,
                %v: tensor<2xf32>, %h: tensor<2xf32>)
    -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  // (X, G, V, H) -> (X_new, V_new, H_new).
  // CHECK: %{{.*}}:3 = graph.adam {{.*}} {alpha = 0.9499{{.*}} : f32, beta = 1.{{0+}}e-01 : f32, epsilon = {{.*}} : f32, norm_coefficient = 1.{{0+}}e-03 : f32, norm_coefficient_post = 0.{{0+}}e+00 : f32}
  // CHECK-SAME: -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %x_new, %v_new, %h_new = graph.adam %r, %t, %x, %g, %v, %h
      {alpha = 0.95 : f32, beta = 0.1 : f32, epsilon = 1.0e-07 : f32,
       norm_coefficient = 1.0e-03 : f32, norm_coefficient_post = 0.0 : f32}
      : (tensor<f32>, tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %x_new, %v_new, %h_new : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @momentum
// INFER-LABEL: func.func @momentum
func.func @momentum(%r: tensor<f32>, %t: tensor<i64>, %x1: tensor<1xf32>, %x2: tensor<?xf32>,
                    %g1: tensor<1xf32>, %g2: tensor<2xf32>, %v1: tensor<1xf32>,
                    %v2: tensor<2xf32>)
    -> (tensor<1xf32>, tensor<?xf32>, tensor<1xf32>, tensor<?xf32>) {
  // Two tensors, Nesterov's form: (X1, X2, G1, G2, V1, V2) -> (X1_new, X2_new, V1_new, V2_new).
  // CHECK: %{{.*}}:4 = graph.momentum {{.*}} {alpha = 0.9499{{.*}} : f32, beta = 1.{{0+}}e+00 : f32, mode = "nesterov", norm_coefficient = 0.{{0+}}e+00 : f32}
  // INFER: graph.momentum {{.*}} -> (tensor<1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<2xf32>)
  %x1_new, %x2_new, %v1_new, %v2_new = graph.momentum %r, %t, %x1, %x2, %g1, %g2, %v1, %v2
      {alpha = 0.95 : f32, beta = 1.0 : f32, mode = "nesterov", norm_coefficient = 0.0 : f32}
      : (tensor<f32>, tensor<i64>, tensor<1xf32>, tensor<?xf32>, tensor<1xf32>, tensor<2xf32>,
         tensor<1xf32>, tensor<2xf32>)
      -> (tensor<1xf32>, tensor<?xf32>, tensor<1xf32>, tensor<?xf32>)
  return %x1_new, %x2_new, %v1_new, %v2_new
      : tensor<1xf32>, tensor<?xf32>, tensor<1xf32>, tensor<?xf32>
}
