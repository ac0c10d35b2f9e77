// RUN: kiln-opt --graph-to-linalg %s -split-input-file | FileCheck %s

// Constants become arith constants; unsigned elements become signless (200 reads as -56)
// and the function
// signature follows.
// CHECK-LABEL: func.func @constant
// CHECK-SAME: (%{{.*}}: tensor<2xi8>) -> tensor<2xi8>
// CHECK: arith.constant dense<[1, -56]> : tensor<2xi8>
func.func @constant(%arg0: tensor<2xui8>) -> tensor<2xui8> {
  %0 = graph.constant dense<[1, 200]> : tensor<2xui8>
  %1 = graph.add %arg0, %0 : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  return %1 : tensor<2xui8>
}

// -----

// Weights stay blobs: the resource handle is reused under the converted type.
// CHECK-LABEL: func.func @weights
// CHECK: arith.constant dense_resource<blob> : tensor<2xf32>
func.func @weights() -> tensor<2xf32> {
  %0 = graph.constant dense_resource<blob> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}
