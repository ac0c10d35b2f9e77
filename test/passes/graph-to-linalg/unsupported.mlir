// RUN: kiln-opt --graph-to-linalg %s -split-input-file -verify-diagnostics

// An op without a lowering is an error that names it (and its ONNX node, from the
// NameLoc the importer gives it; see test/tools/kiln-run.test).
func.func @no_lowering(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{graph.lp_pool: not supported on the CPU path: no lowering for this form}}
  %0 = graph.lp_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, p = 2} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}
