// RUN: kiln-opt --graph-to-linalg %s -split-input-file -verify-diagnostics

// Antialiased linear resizing would need a kernel whose width depends on the run-time
// scale; it is not lowered.
func.func @resize_antialias(%x: tensor<1x1x4x4xf32>, %s: tensor<4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{graph.resize: not supported on the CPU path}}
  %0 = graph.resize %x scales(%s) {antialias = true, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, keep_aspect_ratio_policy = "stretch", mode = "linear", nearest_mode = "round_prefer_floor"} : (tensor<1x1x4x4xf32>, tensor<4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}
