// RUN: kiln-opt --graph-to-linalg %s -split-input-file -verify-diagnostics | FileCheck %s

// reduction "none": one parallel linalg.generic over the target gathers -input[n, c, d]
// with tensor.extract at the clamped class, weights it, and zeroes ignored elements.
// CHECK-LABEL: func.func @nll_none
// CHECK: %[[C:.*]] = tensor.dim %arg0, %c1
// CHECK: %[[LAST:.*]] = arith.subi %[[C]], %c1
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%arg1 : tensor<?x6xi64>) outs(%{{.*}} : tensor<?x6xf32>)
// CHECK: ^bb0(%[[T:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[N:.*]] = linalg.index 0
// CHECK: %[[D:.*]] = linalg.index 1
// CHECK: %[[CLASS:.*]] = arith.index_cast %[[T]] : i64 to index
// CHECK: %[[LOW:.*]] = arith.maxsi %[[CLASS]], %{{.*}}
// CHECK: %[[SAFE:.*]] = arith.minsi %[[LOW]], %[[LAST]]
// CHECK: %[[X:.*]] = tensor.extract %arg0[%[[N]], %[[SAFE]], %[[D]]]
// CHECK: %[[NEG:.*]] = arith.negf %[[X]]
// CHECK: %[[W:.*]] = tensor.extract %arg2[%[[SAFE]]]
// CHECK: %[[LOSS:.*]] = arith.mulf %[[NEG]], %[[W]]
// CHECK: %[[IGNORED:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : i64
// CHECK: %[[RESULT:.*]] = arith.select %[[IGNORED]], %{{.*}}, %[[LOSS]]
// CHECK: linalg.yield %[[RESULT]]
func.func @nll_none(%x: tensor<?x5x6xf32>, %t: tensor<?x6xi64>, %w: tensor<5xf32>)
    -> tensor<?x6xf32> {
  %loss = graph.negative_log_likelihood_loss %x, %t, %w {reduction = "none", ignore_index = -1}
      : (tensor<?x5x6xf32>, tensor<?x6xi64>, tensor<5xf32>) -> tensor<?x6xf32>
  return %loss : tensor<?x6xf32>
}

// -----

// reduction "mean": one reduction over every dimension sums the losses and the weights
// into scalars; the loss is their quotient. An i32 target is compared with ignore_index
// in i64.
// CHECK-LABEL: func.func @nll_mean
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]{{.*}} ins(%arg1 : tensor<2x3xi32>) outs(%{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>)
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: linalg.yield
// CHECK: %[[SUM:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK: %[[WEIGHTS:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK: %[[MEAN:.*]] = arith.divf %[[SUM]], %[[WEIGHTS]]
// CHECK: tensor.from_elements %[[MEAN]] : tensor<f32>
func.func @nll_mean(%x: tensor<2x4x3xf32>, %t: tensor<2x3xi32>) -> tensor<f32> {
  %loss = graph.negative_log_likelihood_loss %x, %t {reduction = "mean", ignore_index = 1}
      : (tensor<2x4x3xf32>, tensor<2x3xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// reduction "sum" needs no weight sum; f16 sums accumulate in f32 and are truncated at
// the end.
// CHECK-LABEL: func.func @nll_sum_f16
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<f32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-NOT: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: tensor.from_elements %{{.*}} : tensor<f16>
func.func @nll_sum_f16(%x: tensor<3x5xf16>, %t: tensor<3xi64>) -> tensor<f16> {
  %loss = graph.negative_log_likelihood_loss %x, %t {reduction = "sum"}
      : (tensor<3x5xf16>, tensor<3xi64>) -> tensor<f16>
  return %loss : tensor<f16>
}

// -----

// Softmax cross-entropy: the maximum along the classes, the sum of exp(x - max) along
// them, log_prob = x - max - log(sum) elementwise, then the loss gathered from log_prob;
// both results are returned.
// CHECK-LABEL: func.func @sce
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: math.exp
// CHECK: %[[LOG_PROB:.*]] = linalg.generic
// CHECK: math.log
// CHECK: arith.subf
// CHECK: %[[LOSS:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<3x2xi64>)
// CHECK: tensor.extract %[[LOG_PROB]]
// CHECK: tensor.extract %arg2
// CHECK: return %[[LOSS]], %[[LOG_PROB]] : tensor<3x2xf32>, tensor<3x5x2xf32>
func.func @sce(%s: tensor<3x5x2xf32>, %l: tensor<3x2xi64>, %w: tensor<5xf32>)
    -> (tensor<3x2xf32>, tensor<3x5x2xf32>) {
  %loss, %log_prob = graph.softmax_cross_entropy_loss %s, %l, %w {reduction = "none"}
      : (tensor<3x5x2xf32>, tensor<3x2xi64>, tensor<5xf32>) -> (tensor<3x2xf32>, tensor<3x5x2xf32>)
  return %loss, %log_prob : tensor<3x2xf32>, tensor<3x5x2xf32>
}

// -----

// Without a rank there is nothing to iterate over: the op is reported, not lowered.
func.func @unranked(%x: tensor<*xf32>, %t: tensor<*xi64>) -> tensor<*xf32> {
  // expected-error @+1 {{graph.negative_log_likelihood_loss: not supported on the CPU path}}
  %loss = graph.negative_log_likelihood_loss %x, %t {reduction = "none"}
      : (tensor<*xf32>, tensor<*xi64>) -> tensor<*xf32>
  return %loss : tensor<*xf32>
}
