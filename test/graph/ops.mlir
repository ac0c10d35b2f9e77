// Round trip of every graph op, in the custom and in the generic form.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @resnet_stem
func.func @resnet_stem(%x: tensor<?x3x224x224xf32>) -> tensor<?x64x112x112xf32> {
  // CHECK: %[[W:.*]] = graph.constant dense_resource<stem_weight> : tensor<64x3x7x7xf32>
  %w = graph.constant dense_resource<stem_weight> : tensor<64x3x7x7xf32>
  // CHECK: %[[B:.*]] = graph.constant dense<0.{{0+}}e+00> : tensor<64xf32>
  %b = graph.constant dense<0.0> : tensor<64xf32>
  // CHECK: %[[Y:.*]] = graph.conv %{{.*}}, %[[W]], %[[B]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>}
  // CHECK-SAME: (tensor<?x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<?x64x112x112xf32>
  %y = graph.conv %x, %w, %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>,
                              pads = array<i64: 3, 3, 3, 3>, group = 1}
      : (tensor<?x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<?x64x112x112xf32>
  // CHECK: graph.relu %[[Y]] : tensor<?x64x112x112xf32>
  %r = graph.relu %y : tensor<?x64x112x112xf32>
  return %r : tensor<?x64x112x112xf32>
}

// CHECK-LABEL: func.func @conv_without_bias_grouped
func.func @conv_without_bias_grouped(%x: tensor<1x32x56x56xf16>, %w: tensor<32x1x3x3xf16>) -> tensor<1x32x56x56xf16> {
  // CHECK: graph.conv %{{.*}}, %{{.*}} {{{.*}}group = 32 : i64{{.*}}} : (tensor<1x32x56x56xf16>, tensor<32x1x3x3xf16>) -> tensor<1x32x56x56xf16>
  %y = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 1, 1, 1, 1>, group = 32}
      : (tensor<1x32x56x56xf16>, tensor<32x1x3x3xf16>) -> tensor<1x32x56x56xf16>
  return %y : tensor<1x32x56x56xf16>
}

// CHECK-LABEL: func.func @attention_scores
func.func @attention_scores(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x64x?xf32>, %mask: tensor<?x1x1x?xf32>) -> tensor<?x12x?x?xf32> {
  // CHECK: graph.matmul %{{.*}}, %{{.*}} : (tensor<?x12x?x64xf32>, tensor<?x12x64x?xf32>) -> tensor<?x12x?x?xf32>
  %s = graph.matmul %q, %k : (tensor<?x12x?x64xf32>, tensor<?x12x64x?xf32>) -> tensor<?x12x?x?xf32>
  // CHECK: graph.add %{{.*}}, %{{.*}} : (tensor<?x12x?x?xf32>, tensor<?x1x1x?xf32>) -> tensor<?x12x?x?xf32>
  %m = graph.add %s, %mask : (tensor<?x12x?x?xf32>, tensor<?x1x1x?xf32>) -> tensor<?x12x?x?xf32>
  return %m : tensor<?x12x?x?xf32>
}

// Declared result types may be less refined than the inferred ones.
// CHECK-LABEL: func.func @less_refined_results
func.func @less_refined_results(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<*xf32> {
  // CHECK: graph.matmul {{.*}} -> tensor<?x16xf32>
  %c = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  // CHECK: graph.add {{.*}} -> tensor<*xf32>
  %d = graph.add %c, %c : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<*xf32>
  return %d : tensor<*xf32>
}

{-#
  dialect_resources: {
    builtin: {
      stem_weight: "0x04000000"
    }
  }
#-}
