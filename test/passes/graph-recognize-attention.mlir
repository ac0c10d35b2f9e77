// graph-recognize-attention replaces the exporters' MatMul, scale, mask, Softmax, MatMul
// chains by graph.attention; near misses stay as they are.
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-recognize-attention))' | FileCheck %s

// BERT through the TorchScript exporter (bert_base.legacy17): Q and K^T each scaled by
// 1/sqrt(sqrt(64)), an additive padding mask, PyTorch's NaN guard after the softmax.
// CHECK-LABEL: func.func @bert
// CHECK-SAME: (%[[Q:.*]]: tensor<1x12x128x64xf32>, %[[KT:.*]]: tensor<1x12x64x128xf32>, %[[V:.*]]: tensor<1x12x128x64xf32>, %[[M:.*]]: tensor<1x1x128x128xf32>)
// CHECK: %[[K:.*]] = graph.transpose %[[KT]] {perm = array<i64: 0, 1, 3, 2>}
// CHECK: %[[A:.*]] = graph.attention %[[Q]], %[[K]], %[[V]], %[[M]] {nan_to_zero, scale = 0.124999993 : f32}
// CHECK-SAME: -> tensor<1x12x128x64xf32>
// CHECK-NOT: graph.softmax
// CHECK-NOT: graph.matmul
// CHECK: return %[[A]]
func.func @bert(%q: tensor<1x12x128x64xf32>, %kt: tensor<1x12x64x128xf32>, %v: tensor<1x12x128x64xf32>, %mask: tensor<1x1x128x128xf32>) -> tensor<1x12x128x64xf32> {
  %s = graph.constant dense<0.353553385> : tensor<f32>
  %zero = graph.constant dense<0.0> : tensor<1xf32>
  %0 = graph.mul %q, %s : (tensor<1x12x128x64xf32>, tensor<f32>) -> tensor<1x12x128x64xf32>
  %1 = graph.mul %kt, %s : (tensor<1x12x64x128xf32>, tensor<f32>) -> tensor<1x12x64x128xf32>
  %2 = graph.matmul %0, %1 : (tensor<1x12x128x64xf32>, tensor<1x12x64x128xf32>) -> tensor<1x12x128x128xf32>
  %3 = graph.add %2, %mask : (tensor<1x12x128x128xf32>, tensor<1x1x128x128xf32>) -> tensor<1x12x128x128xf32>
  %4 = graph.softmax %3 {axis = -1 : i64} : (tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32>
  %5 = graph.is_nan %4 : (tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xi1>
  %6 = graph.where %5, %zero, %4 : (tensor<1x12x128x128xi1>, tensor<1xf32>, tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32>
  %7 = graph.matmul %6, %v : (tensor<1x12x128x128xf32>, tensor<1x12x128x64xf32>) -> tensor<1x12x128x64xf32>
  return %7 : tensor<1x12x128x64xf32>
}

// -----

// The classic form: the scores divided by sqrt(D), then the mask added (mask first in
// the Add), dynamic batch and sequence.
// CHECK-LABEL: func.func @divided_scores
// CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f32}
// CHECK-SAME: -> tensor<?x12x?x64xf32>
// CHECK-NOT: graph.softmax
func.func @divided_scores(%q: tensor<?x12x?x64xf32>, %kt: tensor<?x12x64x?xf32>, %v: tensor<?x12x?x64xf32>, %mask: tensor<?x1x1x?xf32>) -> tensor<?x12x?x64xf32> {
  %d = graph.constant dense<8.0> : tensor<f32>
  %0 = graph.matmul %q, %kt : (tensor<?x12x?x64xf32>, tensor<?x12x64x?xf32>) -> tensor<?x12x?x?xf32>
  %1 = graph.div %0, %d : (tensor<?x12x?x?xf32>, tensor<f32>) -> tensor<?x12x?x?xf32>
  %2 = graph.add %mask, %1 : (tensor<?x1x1x?xf32>, tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  %3 = graph.softmax %2 {axis = 3 : i64} : (tensor<?x12x?x?xf32>) -> tensor<?x12x?x?xf32>
  %4 = graph.matmul %3, %v : (tensor<?x12x?x?xf32>, tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32>
  return %4 : tensor<?x12x?x64xf32>
}

// -----

// ViT (vit_b_16.legacy17): heads folded into the batch, no mask.
// CHECK-LABEL: func.func @vit
// CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 0.124999993 : f32} : (tensor<12x197x64xf32>, tensor<12x197x64xf32>, tensor<12x197x64xf32>) -> tensor<12x197x64xf32>
func.func @vit(%q: tensor<12x197x64xf32>, %kt: tensor<12x64x197xf32>, %v: tensor<12x197x64xf32>) -> tensor<12x197x64xf32> {
  %s = graph.constant dense<0.353553385> : tensor<1xf32>
  %0 = graph.mul %q, %s : (tensor<12x197x64xf32>, tensor<1xf32>) -> tensor<12x197x64xf32>
  %1 = graph.mul %s, %kt : (tensor<1xf32>, tensor<12x64x197xf32>) -> tensor<12x64x197xf32>
  %2 = graph.matmul %0, %1 : (tensor<12x197x64xf32>, tensor<12x64x197xf32>) -> tensor<12x197x197xf32>
  %3 = graph.softmax %2 {axis = -1 : i64} : (tensor<12x197x197xf32>) -> tensor<12x197x197xf32>
  %4 = graph.matmul %3, %v : (tensor<12x197x197xf32>, tensor<12x197x64xf32>) -> tensor<12x197x64xf32>
  return %4 : tensor<12x197x64xf32>
}

// -----

// Near misses. A softmax over another axis than the last.
// CHECK-LABEL: func.func @other_axis
// CHECK-NOT: graph.attention
func.func @other_axis(%q: tensor<2x8x4xf32>, %kt: tensor<2x4x8xf32>, %v: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %0 = graph.matmul %q, %kt : (tensor<2x8x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
  %1 = graph.softmax %0 {axis = 1 : i64} : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %2 = graph.matmul %1, %v : (tensor<2x8x8xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %2 : tensor<2x8x4xf32>
}

// -----

// The scores also leave the pattern (returned).
// CHECK-LABEL: func.func @scores_used
// CHECK-NOT: graph.attention
func.func @scores_used(%q: tensor<2x8x4xf32>, %kt: tensor<2x4x8xf32>, %v: tensor<2x8x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x8x8xf32>) {
  %0 = graph.matmul %q, %kt : (tensor<2x8x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
  %1 = graph.softmax %0 {axis = -1 : i64} : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %2 = graph.matmul %1, %v : (tensor<2x8x8xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %2, %0 : tensor<2x8x4xf32>, tensor<2x8x8xf32>
}

// -----

// A scale that is not one number (a per-row factor) is not a scale.
// CHECK-LABEL: func.func @vector_factor
// CHECK-NOT: graph.attention
func.func @vector_factor(%q: tensor<2x8x4xf32>, %kt: tensor<2x4x8xf32>, %v: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %f = graph.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %0 = graph.matmul %q, %kt : (tensor<2x8x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
  %1 = graph.mul %0, %f : (tensor<2x8x8xf32>, tensor<8xf32>) -> tensor<2x8x8xf32>
  %2 = graph.softmax %1 {axis = -1 : i64} : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %3 = graph.matmul %2, %v : (tensor<2x8x8xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %3 : tensor<2x8x4xf32>
}

// -----

// A mask that broadcasts the scores to a larger shape.
// CHECK-LABEL: func.func @broadcasting_mask
// CHECK-NOT: graph.attention
func.func @broadcasting_mask(%q: tensor<8x4xf32>, %kt: tensor<4x8xf32>, %v: tensor<3x8x4xf32>, %mask: tensor<3x8x8xf32>) -> tensor<3x8x4xf32> {
  %0 = graph.matmul %q, %kt : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %1 = graph.add %0, %mask : (tensor<8x8xf32>, tensor<3x8x8xf32>) -> tensor<3x8x8xf32>
  %2 = graph.softmax %1 {axis = -1 : i64} : (tensor<3x8x8xf32>) -> tensor<3x8x8xf32>
  %3 = graph.matmul %2, %v : (tensor<3x8x8xf32>, tensor<3x8x4xf32>) -> tensor<3x8x4xf32>
  return %3 : tensor<3x8x4xf32>
}

// -----

// A guard that replaces NaNs by something other than 0.
// CHECK-LABEL: func.func @guard_not_zero
// CHECK-NOT: graph.attention
func.func @guard_not_zero(%q: tensor<2x8x4xf32>, %kt: tensor<2x4x8xf32>, %v: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %one = graph.constant dense<1.0> : tensor<f32>
  %0 = graph.matmul %q, %kt : (tensor<2x8x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
  %1 = graph.softmax %0 {axis = -1 : i64} : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %2 = graph.is_nan %1 : (tensor<2x8x8xf32>) -> tensor<2x8x8xi1>
  %3 = graph.where %2, %one, %1 : (tensor<2x8x8xi1>, tensor<f32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %4 = graph.matmul %3, %v : (tensor<2x8x8xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %4 : tensor<2x8x4xf32>
}

// -----

// Causal masking as a fill (the legacy exports of GPT-2: torch.where(causal, scores,
// finfo.min)), then an additive padding mask: one mask, Where(causal, 0, min) + padding.
// CHECK-LABEL: func.func @causal_fill
// CHECK-SAME: (%[[Q:.*]]: tensor<1x12x16x64xf32>, %[[KT:.*]]: tensor<1x12x64x16xf32>, %[[V:.*]]: tensor<1x12x16x64xf32>, %[[C:.*]]: tensor<1x1x16x16xi1>, %[[P:.*]]: tensor<1x1x1x16xf32>)
// CHECK-DAG: %[[MIN:.*]] = graph.constant dense<-3.40282347E+38> : tensor<f32>
// CHECK-DAG: %[[ZERO:.*]] = graph.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[FILL:.*]] = graph.where %[[C]], %[[ZERO]], %[[MIN]] : (tensor<1x1x16x16xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x16x16xf32>
// CHECK: %[[MASK:.*]] = graph.add %[[FILL]], %[[P]] : (tensor<1x1x16x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x1x16x16xf32>
// CHECK: graph.attention %[[Q]], %{{.*}}, %[[V]], %[[MASK]] {scale = 1.250000e-01 : f32}
// CHECK-NOT: graph.softmax
func.func @causal_fill(%q: tensor<1x12x16x64xf32>, %kt: tensor<1x12x64x16xf32>, %v: tensor<1x12x16x64xf32>, %causal: tensor<1x1x16x16xi1>, %padding: tensor<1x1x1x16xf32>) -> tensor<1x12x16x64xf32> {
  %d = graph.constant dense<8.0> : tensor<f32>
  %min = graph.constant dense<-3.40282347E+38> : tensor<f32>
  %0 = graph.matmul %q, %kt : (tensor<1x12x16x64xf32>, tensor<1x12x64x16xf32>) -> tensor<1x12x16x16xf32>
  %1 = graph.div %0, %d : (tensor<1x12x16x16xf32>, tensor<f32>) -> tensor<1x12x16x16xf32>
  %2 = graph.where %causal, %1, %min : (tensor<1x1x16x16xi1>, tensor<1x12x16x16xf32>, tensor<f32>) -> tensor<1x12x16x16xf32>
  %3 = graph.add %2, %padding : (tensor<1x12x16x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x12x16x16xf32>
  %4 = graph.softmax %3 {axis = -1 : i64} : (tensor<1x12x16x16xf32>) -> tensor<1x12x16x16xf32>
  %5 = graph.matmul %4, %v : (tensor<1x12x16x16xf32>, tensor<1x12x16x64xf32>) -> tensor<1x12x16x64xf32>
  return %5 : tensor<1x12x16x64xf32>
}

// -----

// masked_fill(mask, -inf) (DistilBERT's form: the condition marks what is masked).
// CHECK-LABEL: func.func @masked_fill
// CHECK-DAG: %[[NEGINF:.*]] = graph.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG: %[[ZERO:.*]] = graph.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[MASK:.*]] = graph.where %arg3, %[[NEGINF]], %[[ZERO]] : (tensor<2x1x1x16xi1>, tensor<f32>, tensor<f32>) -> tensor<2x1x1x16xf32>
// CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}}, %[[MASK]] {scale = 1.000000e+00 : f32}
func.func @masked_fill(%q: tensor<2x4x16x8xf32>, %kt: tensor<2x4x8x16xf32>, %v: tensor<2x4x16x8xf32>, %masked: tensor<2x1x1x16xi1>) -> tensor<2x4x16x8xf32> {
  %neginf = graph.constant dense<0xFF800000> : tensor<f32>
  %0 = graph.matmul %q, %kt : (tensor<2x4x16x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x16x16xf32>
  %1 = graph.where %masked, %neginf, %0 : (tensor<2x1x1x16xi1>, tensor<f32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %2 = graph.softmax %1 {axis = -1 : i64} : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %3 = graph.matmul %2, %v : (tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return %3 : tensor<2x4x16x8xf32>
}

// -----

// A fill of -10000 is not absorbing (s - 10000 is not -10000): no additive mask equals
// it, so the chain stays.
// CHECK-LABEL: func.func @finite_fill
// CHECK-NOT: graph.attention
func.func @finite_fill(%q: tensor<1x2x4x8xf32>, %kt: tensor<1x2x8x4xf32>, %v: tensor<1x2x4x8xf32>, %causal: tensor<1x1x4x4xi1>) -> tensor<1x2x4x8xf32> {
  %fill = graph.constant dense<-10000.0> : tensor<f32>
  %0 = graph.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %1 = graph.where %causal, %0, %fill : (tensor<1x1x4x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %2 = graph.softmax %1 {axis = -1 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %3 = graph.matmul %2, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  return %3 : tensor<1x2x4x8xf32>
}

// -----

// Half-precision scores taken to f32 for the softmax and the probabilities back
// (softmax(x, dtype=float32).to(x.dtype): Hugging Face's eager attention in an fp16
// export): one f16 attention, whose softmax is f32 anyway. The mask added before the
// widening stays as it is.
// CHECK-LABEL: func.func @softmax_in_f32
// CHECK-NOT: graph.softmax
// CHECK: graph.attention %arg0, %{{.*}}, %arg2, %arg3 {scale = 1.250000e-01 : f32} : (tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>, tensor<2x1x16x16xf16>) -> tensor<2x4x16x64xf16>
func.func @softmax_in_f32(%q: tensor<2x4x16x64xf16>, %kt: tensor<2x4x64x16xf16>, %v: tensor<2x4x16x64xf16>, %mask: tensor<2x1x16x16xf16>) -> tensor<2x4x16x64xf16> {
  %scale = graph.constant dense<1.250000e-01> : tensor<f16>
  %0 = graph.matmul %q, %kt : (tensor<2x4x16x64xf16>, tensor<2x4x64x16xf16>) -> tensor<2x4x16x16xf16>
  %1 = graph.mul %0, %scale : (tensor<2x4x16x16xf16>, tensor<f16>) -> tensor<2x4x16x16xf16>
  %2 = graph.add %1, %mask : (tensor<2x4x16x16xf16>, tensor<2x1x16x16xf16>) -> tensor<2x4x16x16xf16>
  %3 = graph.cast %2 {to = f32} : (tensor<2x4x16x16xf16>) -> tensor<2x4x16x16xf32>
  %4 = graph.softmax %3 {axis = -1 : i64} : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %5 = graph.cast %4 {to = f16} : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf16>
  %6 = graph.matmul %5, %v : (tensor<2x4x16x16xf16>, tensor<2x4x16x64xf16>) -> tensor<2x4x16x64xf16>
  return %6 : tensor<2x4x16x64xf16>
}

// -----

// Widened before an f32 mask is added: the mask is cast to the scores' f16 (its -inf and
// f32 lowest values become -inf there).
// CHECK-LABEL: func.func @mask_in_f32
// CHECK: %[[MASK:.*]] = graph.cast %arg3 {to = f16} : (tensor<1x1x1x16xf32>) -> tensor<1x1x1x16xf16>
// CHECK: graph.attention %arg0, %{{.*}}, %arg2, %[[MASK]] {scale = 1.000000e+00 : f32} : (tensor<1x2x16x32xf16>
func.func @mask_in_f32(%q: tensor<1x2x16x32xf16>, %kt: tensor<1x2x32x16xf16>, %v: tensor<1x2x16x32xf16>, %mask: tensor<1x1x1x16xf32>) -> tensor<1x2x16x32xf16> {
  %0 = graph.matmul %q, %kt : (tensor<1x2x16x32xf16>, tensor<1x2x32x16xf16>) -> tensor<1x2x16x16xf16>
  %1 = graph.cast %0 {to = f32} : (tensor<1x2x16x16xf16>) -> tensor<1x2x16x16xf32>
  %2 = graph.add %1, %mask : (tensor<1x2x16x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x2x16x16xf32>
  %3 = graph.softmax %2 {axis = -1 : i64} : (tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %4 = graph.cast %3 {to = f16} : (tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf16>
  %5 = graph.matmul %4, %v : (tensor<1x2x16x16xf16>, tensor<1x2x16x32xf16>) -> tensor<1x2x16x32xf16>
  return %5 : tensor<1x2x16x32xf16>
}

// -----

// f32 probabilities that stay f32 (the values' product in f32) are not this form.
// CHECK-LABEL: func.func @probabilities_stay_f32
// CHECK-NOT: graph.attention
func.func @probabilities_stay_f32(%q: tensor<1x2x16x32xf16>, %kt: tensor<1x2x32x16xf16>, %v: tensor<1x2x16x32xf32>) -> tensor<1x2x16x32xf32> {
  %0 = graph.matmul %q, %kt : (tensor<1x2x16x32xf16>, tensor<1x2x32x16xf16>) -> tensor<1x2x16x16xf16>
  %1 = graph.cast %0 {to = f32} : (tensor<1x2x16x16xf16>) -> tensor<1x2x16x16xf32>
  %2 = graph.softmax %1 {axis = -1 : i64} : (tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %3 = graph.matmul %2, %v : (tensor<1x2x16x16xf32>, tensor<1x2x16x32xf32>) -> tensor<1x2x16x32xf32>
  return %3 : tensor<1x2x16x32xf32>
}
