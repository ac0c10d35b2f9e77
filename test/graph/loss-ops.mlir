// Round trip of the loss ops, in the custom and in the generic form, with the result types
// their shape rules infer; the INFER run refines less refined declared types with them.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(graph-infer-shapes))' | FileCheck %s --check-prefix=INFER

// CHECK-LABEL: func.func @nll_none_weighted
// INFER-LABEL: func.func @nll_none_weighted
func.func @nll_none_weighted(%x: tensor<?x5x6xf32>, %t: tensor<4x?xi64>, %w: tensor<5xf32>)
    -> tensor<?x?xf32> {
  // reduction "none" gives the target's shape [N, d1]: N from the target, d1 from the input.
  // CHECK: graph.negative_log_likelihood_loss %{{.*}}, %{{.*}}, %{{.*}} {ignore_index = -1 : i64, reduction = "none"}
  // CHECK-SAME: (tensor<?x5x6xf32>, tensor<4x?xi64>, tensor<5xf32>) -> tensor<?x?xf32>
  // INFER: graph.negative_log_likelihood_loss {{.*}} -> tensor<4x6xf32>
  %loss = graph.negative_log_likelihood_loss %x, %t, %w {reduction = "none", ignore_index = -1}
      : (tensor<?x5x6xf32>, tensor<4x?xi64>, tensor<5xf32>) -> tensor<?x?xf32>
  return %loss : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @nll_reductions
// INFER-LABEL: func.func @nll_reductions
func.func @nll_reductions(%x: tensor<3x5xf16>, %t: tensor<3xi32>, %y: tensor<2x4x3x3xf64>,
                          %u: tensor<2x3x3xi64>) -> (tensor<f16>, tensor<*xf64>) {
  // "mean" and "sum" give a scalar; without weight or ignore_index the attribute is absent.
  // CHECK: graph.negative_log_likelihood_loss %{{.*}}, %{{.*}} {reduction = "mean"} : (tensor<3x5xf16>, tensor<3xi32>) -> tensor<f16>
  %mean = graph.negative_log_likelihood_loss %x, %t {reduction = "mean"}
      : (tensor<3x5xf16>, tensor<3xi32>) -> tensor<f16>
  // CHECK: graph.negative_log_likelihood_loss {{.*}}reduction = "sum"{{.*}} : (tensor<2x4x3x3xf64>, tensor<2x3x3xi64>) -> tensor<*xf64>
  // INFER: graph.negative_log_likelihood_loss {{.*}} -> tensor<f64>
  %sum = graph.negative_log_likelihood_loss %y, %u {reduction = "sum", ignore_index = 10}
      : (tensor<2x4x3x3xf64>, tensor<2x3x3xi64>) -> tensor<*xf64>
  return %mean, %sum : tensor<f16>, tensor<*xf64>
}

// CHECK-LABEL: func.func @nll_unranked
// INFER-LABEL: func.func @nll_unranked
func.func @nll_unranked(%x: tensor<*xf32>, %t: tensor<2x7xi64>, %y: tensor<2x3x7xf32>,
                        %u: tensor<*xi64>, %w: tensor<*xf32>)
    -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // An unranked input leaves the target's shape; an unranked target, the input's without C.
  // CHECK: graph.negative_log_likelihood_loss {{.*}} : (tensor<*xf32>, tensor<2x7xi64>) -> tensor<*xf32>
  // INFER: graph.negative_log_likelihood_loss {{.*}} : (tensor<*xf32>, tensor<2x7xi64>) -> tensor<2x7xf32>
  %a = graph.negative_log_likelihood_loss %x, %t {reduction = "none"}
      : (tensor<*xf32>, tensor<2x7xi64>) -> tensor<*xf32>
  // INFER: graph.negative_log_likelihood_loss {{.*}} : (tensor<2x3x7xf32>, tensor<*xi64>, tensor<*xf32>) -> tensor<2x7xf32>
  %b = graph.negative_log_likelihood_loss %y, %u, %w {reduction = "none"}
      : (tensor<2x3x7xf32>, tensor<*xi64>, tensor<*xf32>) -> tensor<*xf32>
  // With both unranked, "none" stays unranked.
  // INFER: graph.negative_log_likelihood_loss {{.*}} : (tensor<*xf32>, tensor<*xi64>) -> tensor<*xf32>
  %c = graph.negative_log_likelihood_loss %x, %u {reduction = "none"}
      : (tensor<*xf32>, tensor<*xi64>) -> tensor<*xf32>
  return %a, %b, %c : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// CHECK-LABEL: func.func @sce_none_log_prob
// INFER-LABEL: func.func @sce_none_log_prob
func.func @sce_none_log_prob(%s: tensor<?x5x2x?xbf16>, %l: tensor<3x?x4xi64>, %w: tensor<5xbf16>)
    -> (tensor<?x?x?xbf16>, tensor<?x5x2x?xbf16>) {
  // loss is the labels' shape [N, d1, d2]; log_prob has the scores' shape, whose N and d2
  // the labels know.
  // CHECK: %{{.*}}, %{{.*}} = graph.softmax_cross_entropy_loss %{{.*}}, %{{.*}}, %{{.*}} {ignore_index = 0 : i64, reduction = "none"}
  // CHECK-SAME: (tensor<?x5x2x?xbf16>, tensor<3x?x4xi64>, tensor<5xbf16>) -> (tensor<?x?x?xbf16>, tensor<?x5x2x?xbf16>)
  // INFER: graph.softmax_cross_entropy_loss {{.*}} -> (tensor<3x2x4xbf16>, tensor<3x5x2x4xbf16>)
  %loss, %log_prob = graph.softmax_cross_entropy_loss %s, %l, %w
      {reduction = "none", ignore_index = 0}
      : (tensor<?x5x2x?xbf16>, tensor<3x?x4xi64>, tensor<5xbf16>)
      -> (tensor<?x?x?xbf16>, tensor<?x5x2x?xbf16>)
  return %loss, %log_prob : tensor<?x?x?xbf16>, tensor<?x5x2x?xbf16>
}

// CHECK-LABEL: func.func @sce_unranked_scores
// INFER-LABEL: func.func @sce_unranked_scores
func.func @sce_unranked_scores(%s: tensor<*xf32>, %l: tensor<2x7xi32>, %w: tensor<5xf32>,
                               %u: tensor<*xi64>) -> (tensor<*xf32>, tensor<*xf32>) {
  // The labels give log_prob's rank and [N, d1], the weights its C.
  // CHECK: graph.softmax_cross_entropy_loss {{.*}} : (tensor<*xf32>, tensor<2x7xi32>, tensor<5xf32>) -> (tensor<f32>, tensor<*xf32>)
  // INFER: graph.softmax_cross_entropy_loss {{.*}} -> (tensor<f32>, tensor<2x5x7xf32>)
  %loss, %log_prob = graph.softmax_cross_entropy_loss %s, %l, %w {reduction = "sum"}
      : (tensor<*xf32>, tensor<2x7xi32>, tensor<5xf32>) -> (tensor<f32>, tensor<*xf32>)
  // Unranked scores and labels leave log_prob unranked.
  // INFER: graph.softmax_cross_entropy_loss {{.*}} -> (tensor<*xf32>, tensor<*xf32>)
  %none, %unknown = graph.softmax_cross_entropy_loss %s, %u {reduction = "none"}
      : (tensor<*xf32>, tensor<*xi64>) -> (tensor<*xf32>, tensor<*xf32>)
  return %log_prob, %unknown : tensor<*xf32>, tensor<*xf32>
}

// CHECK-LABEL: func.func @sce_mean
func.func @sce_mean(%s: tensor<3x5xf32>, %l: tensor<3xi32>) -> tensor<f32> {
  // "mean" gives a scalar loss; log_prob, unused here, keeps the scores' type.
  // CHECK: graph.softmax_cross_entropy_loss %{{.*}}, %{{.*}} {reduction = "mean"} : (tensor<3x5xf32>, tensor<3xi32>) -> (tensor<f32>, tensor<3x5xf32>)
  %loss, %log_prob = graph.softmax_cross_entropy_loss %s, %l {reduction = "mean"}
      : (tensor<3x5xf32>, tensor<3xi32>) -> (tensor<f32>, tensor<3x5xf32>)
  return %loss : tensor<f32>
}
