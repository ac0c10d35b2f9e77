// RUN: kiln-opt --graph-to-linalg %s -split-input-file -verify-diagnostics

// DepthToSpace needs static extents (the blocks are an expand_shape).
func.func @depth_to_space_dynamic(%x: tensor<?x8x3x3xf32>) -> tensor<?x2x6x6xf32> {
  // expected-error @+1 {{graph.depth_to_space: not supported on the CPU path: no lowering for this form}}
  %0 = graph.depth_to_space %x {blocksize = 2 : i64, mode = "DCR"} : (tensor<?x8x3x3xf32>) -> tensor<?x2x6x6xf32>
  return %0 : tensor<?x2x6x6xf32>
}

// -----

// Pad's axes must be constants: they decide which dimensions the pads apply to.
func.func @pad_runtime_axes(%x: tensor<3x4xf32>, %pads: tensor<2xi64>, %axes: tensor<1xi64>) -> tensor<3x6xf32> {
  // expected-error @+1 {{graph.pad: not supported on the CPU path: no lowering for this form}}
  %0 = graph.pad %x, %pads axes %axes {mode = "edge"} : (tensor<3x4xf32>, tensor<2xi64>, tensor<1xi64>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}
