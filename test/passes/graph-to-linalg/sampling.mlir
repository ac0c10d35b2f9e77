// RUN: kiln-opt --graph-to-linalg %s -split-input-file | FileCheck %s

// Nearest resizing is a gather: one linalg.generic over the result whose body computes
// the source index of each resized axis (round_prefer_floor: ceil(x - 0.5)) and reads
// the one element there with tensor.extract. Axes whose constant scale is 1 are not
// touched.
// CHECK-LABEL: func.func @resize_nearest
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: %[[N:.*]] = linalg.index 0
// CHECK: %[[C:.*]] = linalg.index 1
// CHECK: %[[H:.*]] = linalg.index 2
// CHECK: %[[W:.*]] = linalg.index 3
// CHECK: arith.index_cast %[[H]]
// CHECK: math.ceil
// CHECK: %[[IH:.*]] = arith.minsi
// CHECK: arith.index_cast %[[W]]
// CHECK: math.ceil
// CHECK: %[[IW:.*]] = arith.minsi
// CHECK: tensor.extract %{{.*}}[%[[N]], %[[C]], %[[IH]], %[[IW]]]
// CHECK: } -> tensor<1x1x4x6xf32>
// CHECK-NOT: linalg.generic
func.func @resize_nearest(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x6xf32> {
  %s = graph.constant dense<[1.0, 1.0, 2.0, 3.0]> : tensor<4xf32>
  %0 = graph.resize %x scales(%s) {antialias = false, coordinate_transformation_mode = "asymmetric", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "round_prefer_floor"} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<1x1x4x6xf32>
  return %0 : tensor<1x1x4x6xf32>
}

// -----

// Linear resizing with run-time sizes: the scale of each axis is sizes / input extent,
// read with tensor.extract; each resized axis blends two clamped neighbours. In f32 both
// axes go in one pass (four taps, the innermost axis's gathered).
// CHECK-LABEL: func.func @resize_linear_sizes
// CHECK: tensor.extract %arg1
// CHECK: linalg.generic
// CHECK: math.floor
// CHECK: math.floor
// CHECK-COUNT-4: tensor.extract %arg0
// CHECK-NOT: tensor.extract
// CHECK: } -> tensor<2x3x8x8xf32>
// CHECK-NOT: linalg.generic
func.func @resize_linear_sizes(%x: tensor<2x3x4x4xf32>, %sizes: tensor<4xi64>) -> tensor<2x3x8x8xf32> {
  %0 = graph.resize %x sizes(%sizes) {antialias = false, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, keep_aspect_ratio_policy = "stretch", mode = "linear", nearest_mode = "round_prefer_floor"} : (tensor<2x3x4x4xf32>, tensor<4xi64>) -> tensor<2x3x8x8xf32>
  return %0 : tensor<2x3x8x8xf32>
}

// -----

// In f16 each axis goes in a pass of its own: a second pass moves half as many bytes as
// in f32, while gathers cost the same a value. The innermost axis (its taps gathers)
// upsamples, so it goes first, where it has half the values; then the outer one (its
// taps whole rows).
// CHECK-LABEL: func.func @resize_linear_f16
// CHECK: linalg.generic
// CHECK-COUNT-2: tensor.extract %arg0
// CHECK-NOT: tensor.extract
// CHECK: } -> tensor<2x3x4x8xf16>
// CHECK: linalg.generic
// CHECK-COUNT-2: tensor.extract
// CHECK-NOT: tensor.extract
// CHECK: } -> tensor<2x3x8x8xf16>
// CHECK-NOT: linalg.generic
func.func @resize_linear_f16(%x: tensor<2x3x4x4xf16>) -> tensor<2x3x8x8xf16> {
  %scales = graph.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %0 = graph.resize %x scales(%scales) {antialias = false, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, keep_aspect_ratio_policy = "stretch", mode = "linear", nearest_mode = "round_prefer_floor"} : (tensor<2x3x4x4xf16>, tensor<4xf32>) -> tensor<2x3x8x8xf16>
  return %0 : tensor<2x3x8x8xf16>
}

// -----

// Cubic resizing reads four taps per axis; tf_crop_and_resize selects the extrapolation
// value outside the input.
// CHECK-LABEL: func.func @resize_cubic_crop
// CHECK: linalg.generic
// CHECK-COUNT-4: tensor.extract %arg0
// CHECK-NOT: tensor.extract
// CHECK: arith.select
// CHECK: } -> tensor<3x4xf32>
// CHECK: linalg.generic
// CHECK-COUNT-4: tensor.extract
// CHECK-NOT: tensor.extract
// CHECK: arith.select
// CHECK: } -> tensor<3x4xf32>
// CHECK-NOT: linalg.generic
func.func @resize_cubic_crop(%x: tensor<4x4xf32>, %roi: tensor<4xf32>, %s: tensor<2xf32>) -> tensor<3x4xf32> {
  %0 = graph.resize %x roi(%roi) scales(%s) {antialias = false, coordinate_transformation_mode = "tf_crop_and_resize", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 1.000000e+01 : f32, keep_aspect_ratio_policy = "stretch", mode = "cubic", nearest_mode = "round_prefer_floor"} : (tensor<4x4xf32>, tensor<4xf32>, tensor<2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Cubic resizing of three axes: the innermost, which upsamples (3 -> 4), first in a
// pass of its own (4 gathered taps), then the two outer ones in one pass (16 taps an
// output element, the product of their weights).
// CHECK-LABEL: func.func @resize_cubic_three_axes
// CHECK: linalg.generic
// CHECK-COUNT-4: tensor.extract %arg0
// CHECK-NOT: tensor.extract %arg0
// CHECK: } -> tensor<2x2x4xf32>
// CHECK: linalg.generic
// CHECK-COUNT-16: tensor.extract
// CHECK-NOT: tensor.extract
// CHECK: } -> tensor<4x4x4xf32>
// CHECK-NOT: linalg.generic
func.func @resize_cubic_three_axes(%x: tensor<2x2x3xf32>) -> tensor<4x4x4xf32> {
  %sizes = graph.constant dense<[4, 4, 4]> : tensor<3xi64>
  %0 = graph.resize %x sizes(%sizes) {antialias = false, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = true, extrapolation_value = 0.000000e+00 : f32, keep_aspect_ratio_policy = "stretch", mode = "cubic", nearest_mode = "round_prefer_floor"} : (tensor<2x2x3xf32>, tensor<3xi64>) -> tensor<4x4x4xf32>
  return %0 : tensor<4x4x4xf32>
}

// -----

// GridSample is one gather over the result; bilinear sampling reads the four corners,
// zero padding selects 0 outside the input.
// CHECK-LABEL: func.func @grid_sample_bilinear
// CHECK: linalg.generic
// CHECK-COUNT-2: tensor.extract %arg1
// CHECK-COUNT-4: tensor.extract %arg0
// CHECK: } -> tensor<1x2x6x6xf32>
func.func @grid_sample_bilinear(%x: tensor<1x2x4x4xf32>, %g: tensor<1x6x6x2xf32>) -> tensor<1x2x6x6xf32> {
  %0 = graph.grid_sample %x, %g {align_corners = false, mode = "linear", padding_mode = "zeros"} : (tensor<1x2x4x4xf32>, tensor<1x6x6x2xf32>) -> tensor<1x2x6x6xf32>
  return %0 : tensor<1x2x6x6xf32>
}

// -----

// RoiAlign: a gather over [R, C, H, W] whose body loops over the sampling grid of its bin.
// CHECK-LABEL: func.func @roi_align
// CHECK: linalg.generic
// CHECK: scf.for
// CHECK: scf.for
// CHECK-COUNT-4: tensor.extract %arg0
// CHECK: } -> tensor<3x1x5x5xf32>
func.func @roi_align(%x: tensor<1x1x10x10xf32>, %rois: tensor<3x4xf32>, %b: tensor<3xi64>) -> tensor<3x1x5x5xf32> {
  %0 = graph.roi_align %x, %rois, %b {coordinate_transformation_mode = "half_pixel", mode = "avg", output_height = 5 : i64, output_width = 5 : i64, sampling_ratio = 2 : i64, spatial_scale = 1.000000e+00 : f32} : (tensor<1x1x10x10xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x1x5x5xf32>
  return %0 : tensor<3x1x5x5xf32>
}

// -----

// NonMaxSuppression: loops over batches and classes; each step keeps the best remaining
// box and suppresses those it overlaps. The rows written are sliced off a tensor of
// run-time extent.
// CHECK-LABEL: func.func @nms
// CHECK: %[[ALL:.*]] = tensor.empty(%{{.*}}) : tensor<?x3xi64>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.if
// CHECK: tensor.insert
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [%{{.*}}, 3] [1, 1] : tensor<?x3xi64> to tensor<?x3xi64>
func.func @nms(%boxes: tensor<1x6x4xf32>, %scores: tensor<1x1x6xf32>, %max: tensor<1xi64>, %iou: tensor<1xf32>, %score: tensor<1xf32>) -> tensor<?x3xi64> {
  %0 = graph.non_max_suppression %boxes, %scores max_output_boxes_per_class(%max) iou_threshold(%iou) score_threshold(%score) {center_point_box = 0 : i64} : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// -----

// A nearest upsampling by constant scales [1, 1, 2, 2] of a run-time batch (RT-DETR's
// FPN): the batch's scale of 1 leaves it alone, and the doubled extents are static, so no
// float arithmetic sizes anything (the engine's shape program evaluates integers only).
// CHECK-LABEL: func.func @resize_dynamic_batch
// CHECK-NOT: arith.fptosi
// CHECK: tensor.empty(%{{.*}}) : tensor<?x4x6x8xf32>
// CHECK: linalg.generic
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
func.func @resize_dynamic_batch(%x: tensor<?x4x3x4xf32>) -> tensor<?x4x6x8xf32> {
  %scales = graph.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %y = graph.resize %x scales(%scales) {antialias = false, coordinate_transformation_mode = "asymmetric", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "floor"} : (tensor<?x4x3x4xf32>, tensor<4xf32>) -> tensor<?x4x6x8xf32>
  return %y : tensor<?x4x6x8xf32>
}
