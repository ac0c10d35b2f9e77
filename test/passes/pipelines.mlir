// RUN: kiln-opt --kiln-graph-pipeline %s | FileCheck %s --check-prefix=GRAPH
// RUN: kiln-opt --kiln-graph-pipeline --kiln-lower-to-cpu %s | FileCheck %s --check-prefix=CPU

// The graph pipeline folds what depends only on static shapes: the Reshape target
// computed from Shape becomes a constant.
// GRAPH-LABEL: func.func @main
// GRAPH-NOT: graph.shape
// GRAPH: %[[SHAPE:.*]] = graph.constant dense<[2, 6]> : tensor<2xi64>
// GRAPH: graph.reshape %{{.*}}, %[[SHAPE]]

// The CPU pipeline ends in the LLVM dialect with a C interface for the caller.
// CPU: llvm.func @main(
// CPU: llvm.call @malloc
// CPU: llvm.func @_mlir_ciface_main(
func.func @main(%x: tensor<2x3x2xf32>) -> tensor<2x6xf32> {
  %s = graph.shape %x {start = 0 : i64, end = 1 : i64} : (tensor<2x3x2xf32>) -> tensor<1xi64>
  %c = graph.constant dense<6> : tensor<1xi64>
  %t = graph.concat %s, %c {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = graph.reshape %x, %t {allowzero = false} : (tensor<2x3x2xf32>, tensor<2xi64>) -> tensor<2x6xf32>
  %y = graph.exp %r : tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}
