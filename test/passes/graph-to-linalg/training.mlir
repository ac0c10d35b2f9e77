// RUN: kiln-opt --graph-to-linalg %s -split-input-file | FileCheck %s

// Adagrad: the decayed rate R / (1 + T * decay_factor) is computed once in f64 from the
// extracted scalars; then H_new, then X_new reading H_new: two elementwise generics.
// CHECK-LABEL: func.func @adagrad
// CHECK: %[[R:.*]] = tensor.extract %arg0[]
// CHECK: %[[T:.*]] = tensor.extract %arg1[]
// CHECK: arith.sitofp %[[T]] : i64 to f64
// CHECK: %[[RATE:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK: %[[H:.*]] = linalg.generic {{.*}} ins(%arg2, %arg3, %arg4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[X:.*]] = linalg.generic {{.*}} ins(%arg2, %arg3, %[[H]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: math.sqrt
// CHECK: arith.mulf %[[RATE]]
// CHECK: return %[[X]], %[[H]]
func.func @adagrad(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<4xf32>, %g: tensor<4xf32>,
                   %h: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %x_new, %h_new = graph.adagrad %r, %t, %x, %g, %h
      {decay_factor = 0.1 : f32, epsilon = 1.0e-05 : f32, norm_coefficient = 1.0e-03 : f32}
      : (tensor<f32>, tensor<i64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<4xf32>, tensor<4xf32>)
  return %x_new, %h_new : tensor<4xf32>, tensor<4xf32>
}

// -----

// Adam on two tensors: the bias-corrected rate (alpha^T and beta^T by math.powf) is
// selected when T > 0; per tensor V_new, H_new, then X_new from them: six generics, the
// results in ONNX's order (X1, X2, V1, V2, H1, H2).
// CHECK-LABEL: func.func @adam_multiple
// CHECK: math.powf
// CHECK: math.powf
// CHECK: %[[AFTER_FIRST:.*]] = arith.cmpi sgt
// CHECK: arith.select %[[AFTER_FIRST]]
// CHECK: %[[V1:.*]] = linalg.generic {{.*}} ins(%arg2, %arg4, %arg6 : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>)
// CHECK: %[[H1:.*]] = linalg.generic {{.*}} ins(%arg2, %arg4, %arg8 : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>)
// CHECK: %[[X1:.*]] = linalg.generic {{.*}} ins(%arg2, %[[V1]], %[[H1]] : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>)
// CHECK: %[[V2:.*]] = linalg.generic {{.*}} ins(%arg3, %arg5, %arg7 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
// CHECK: %[[H2:.*]] = linalg.generic {{.*}} ins(%arg3, %arg5, %arg9 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
// CHECK: %[[X2:.*]] = linalg.generic {{.*}} ins(%arg3, %[[V2]], %[[H2]] : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
// CHECK: return %[[X1]], %[[X2]], %[[V1]], %[[V2]], %[[H1]], %[[H2]]
func.func @adam_multiple(%r: tensor<f32>, %t: tensor<i64>, %x1: tensor<1xf32>, %x2: tensor<?xf32>,
                         %g1: tensor<1xf32>, %g2: tensor<?xf32>, %v1: tensor<1xf32>,
                         %v2: tensor<?xf32>, %h1: tensor<1xf32>, %h2: tensor<?xf32>)
    -> (tensor<1xf32>, tensor<?xf32>, tensor<1xf32>, tensor<?xf32>, tensor<1xf32>, tensor<?xf32>) {
  %0:6 = graph.adam %r, %t, %x1, %x2, %g1, %g2, %v1, %v2, %h1, %h2
      {alpha = 0.95 : f32, beta = 0.85 : f32, epsilon = 1.0e-02 : f32,
       norm_coefficient = 1.0e-03 : f32, norm_coefficient_post = 0.0 : f32}
      : (tensor<f32>, tensor<i64>, tensor<1xf32>, tensor<?xf32>, tensor<1xf32>, tensor<?xf32>,
         tensor<1xf32>, tensor<?xf32>, tensor<1xf32>, tensor<?xf32>)
      -> (tensor<1xf32>, tensor<?xf32>, tensor<1xf32>, tensor<?xf32>, tensor<1xf32>, tensor<?xf32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5
      : tensor<1xf32>, tensor<?xf32>, tensor<1xf32>, tensor<?xf32>, tensor<1xf32>, tensor<?xf32>
}

// -----

// Momentum, standard mode: beta is 1 at the first step (T = 0), then V_new and
// X_new = X - R * V_new.
// CHECK-LABEL: func.func @momentum
// CHECK: %[[AFTER_FIRST:.*]] = arith.cmpi sgt
// CHECK: %[[BETA:.*]] = arith.select %[[AFTER_FIRST]]
// CHECK: %[[V:.*]] = linalg.generic {{.*}} ins(%arg2, %arg3, %arg4 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK: %[[X:.*]] = linalg.generic {{.*}} ins(%arg2, %arg3, %[[V]] : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK: ^bb0(%[[XE:.*]]: f32, %{{.*}}: f32, %[[VE:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[STEP:.*]] = arith.mulf %{{.*}}, %[[VE]]
// CHECK-NEXT: %[[NEW:.*]] = arith.subf %[[XE]], %[[STEP]]
// CHECK-NEXT: linalg.yield %[[NEW]]
// CHECK: return %[[X]], %[[V]]
func.func @momentum(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<2xf32>, %g: tensor<2xf32>,
                    %v: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %x_new, %v_new = graph.momentum %r, %t, %x, %g, %v
      {alpha = 0.95 : f32, beta = 0.1 : f32, mode = "standard", norm_coefficient = 1.0e-03 : f32}
      : (tensor<f32>, tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
      -> (tensor<2xf32>, tensor<2xf32>)
  return %x_new, %v_new : tensor<2xf32>, tensor<2xf32>
}

// -----

// Nesterov's mode steps along g + alpha * V_new, g the regularised gradient; f16 tensors
// are updated in f32.
// CHECK-LABEL: func.func @nesterov_f16
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: ^bb0(%{{.*}}: f16, %{{.*}}: f16, %{{.*}}: f16, %{{.*}}: f16):
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.subf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @nesterov_f16(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<2xf16>, %g: tensor<2xf16>,
                        %v: tensor<2xf16>) -> (tensor<2xf16>, tensor<2xf16>) {
  %x_new, %v_new = graph.momentum %r, %t, %x, %g, %v
      {alpha = 0.95 : f32, beta = 1.0 : f32, mode = "nesterov", norm_coefficient = 1.0e-02 : f32}
      : (tensor<f32>, tensor<i64>, tensor<2xf16>, tensor<2xf16>, tensor<2xf16>)
      -> (tensor<2xf16>, tensor<2xf16>)
  return %x_new, %v_new : tensor<2xf16>, tensor<2xf16>
}
