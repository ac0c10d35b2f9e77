// The miscellaneous ops (MaxUnpool, NonMaxSuppression, Unique, the signal and the random
// ops) reject shapes and attributes that contradict their ONNX semantics, one case per
// error of their shape rules. Each failed shape rule is followed by the generic "failed
// to infer returned types", left unchecked (only-expected).
// RUN: kiln-opt %s -split-input-file -verify-diagnostics=only-expected

func.func @max_unpool_input_type(%x: tensor<1x1x2x2xi32>, %i: tensor<1x1x2x2xi64>) {
  // expected-error @+1 {{input must have a float element type, got 'i32'}}
  %y = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                pads = array<i64: 0, 0, 0, 0>}
      : (tensor<1x1x2x2xi32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xi32>
  return
}

// -----

func.func @max_unpool_indices_type(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi32>) {
  // expected-error @+1 {{indices must be i64, got 'i32'}}
  %y = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                pads = array<i64: 0, 0, 0, 0>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @max_unpool_empty_kernel(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) {
  // expected-error @+1 {{kernel_shape must not be empty}}
  %y = graph.max_unpool %x, %i {kernel_shape = array<i64>, strides = array<i64>, pads = array<i64>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @max_unpool_stride_count(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) {
  // expected-error @+1 {{expects 2 strides, got 1}}
  %y = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2>,
                                pads = array<i64: 0, 0, 0, 0>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @max_unpool_pad_count(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) {
  // expected-error @+1 {{expects 4 pads (all beginnings, then all ends), got 2}}
  %y = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                pads = array<i64: 0, 0>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @max_unpool_zero_stride(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) {
  // expected-error @+1 {{kernel_shape and strides must be positive}}
  %y = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 0, 2>,
                                pads = array<i64: 0, 0, 0, 0>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @max_unpool_negative_pad(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) {
  // expected-error @+1 {{pads must not be negative}}
  %y = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                pads = array<i64: -1, 0, 0, 0>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @max_unpool_rank(%x: tensor<1x2x2xf32>, %i: tensor<1x2x2xi64>) {
  // expected-error @+1 {{expects input and indices of rank 4 for a 2-D kernel_shape, got [1, 2, 2]}}
  %y = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                pads = array<i64: 0, 0, 0, 0>}
      : (tensor<1x2x2xf32>, tensor<1x2x2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @max_unpool_indices_shape(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x3x2xi64>) {
  // expected-error @+1 {{indices shape [1, 1, 3, 2] differs from input shape [1, 1, 2, 2]}}
  %y = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                pads = array<i64: 0, 0, 0, 0>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x3x2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @max_unpool_output_shape_type(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>,
                                        %s: tensor<4xi32>) {
  // expected-error @+1 {{output_shape must be i64, got 'i32'}}
  %y = graph.max_unpool %x, %i, %s {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                    pads = array<i64: 0, 0, 0, 0>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, tensor<4xi32>) -> tensor<*xf32>
  return
}

// -----

func.func @max_unpool_output_shape_rank(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>,
                                        %s: tensor<3xi64>) {
  // expected-error @+1 {{output_shape must be a 1-D tensor of 4 extents, got 'tensor<3xi64>'}}
  %y = graph.max_unpool %x, %i, %s {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                    pads = array<i64: 0, 0, 0, 0>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, tensor<3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @max_unpool_output_shape_negative(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) {
  %s = graph.constant dense<[1, 1, -5, 5]> : tensor<4xi64>
  // expected-error @+1 {{output_shape extents must not be negative}}
  %y = graph.max_unpool %x, %i, %s {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                    pads = array<i64: 0, 0, 0, 0>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, tensor<4xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @max_unpool_output_shape_channels(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) {
  %s = graph.constant dense<[1, 3, 5, 5]> : tensor<4xi64>
  // expected-error @+1 {{output_shape [1, 3, 5, 5] changes the batch or channel extent of input shape [1, 1, 2, 2]}}
  %y = graph.max_unpool %x, %i, %s {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                    pads = array<i64: 0, 0, 0, 0>}
      : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, tensor<4xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @max_unpool_pads_too_large(%x: tensor<1x1x1x2xf32>, %i: tensor<1x1x1x2xi64>) {
  // expected-error @+1 {{spatial dimension 0: pads 1 and 1 leave no output of input extent 1}}
  %y = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                pads = array<i64: 1, 0, 1, 0>}
      : (tensor<1x1x1x2xf32>, tensor<1x1x1x2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @nms_boxes_type(%b: tensor<1x6x4xi32>, %s: tensor<1x1x6xi32>) {
  // expected-error @+1 {{boxes must be f32, got 'i32'}}
  %y = graph.non_max_suppression %b, %s {center_point_box = 0}
      : (tensor<1x6x4xi32>, tensor<1x1x6xi32>) -> tensor<?x3xi64>
  return
}

// -----

func.func @nms_scores_type(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf16>) {
  // expected-error @+1 {{scores must be f32, got 'f16'}}
  %y = graph.non_max_suppression %b, %s {center_point_box = 0}
      : (tensor<1x6x4xf32>, tensor<1x1x6xf16>) -> tensor<?x3xi64>
  return
}

// -----

func.func @nms_max_output_type(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>, %m: tensor<i32>) {
  // expected-error @+1 {{max_output_boxes_per_class must be a scalar of 'i64', got 'tensor<i32>'}}
  %y = graph.non_max_suppression %b, %s max_output_boxes_per_class(%m) {center_point_box = 0}
      : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<i32>) -> tensor<?x3xi64>
  return
}

// -----

func.func @nms_iou_not_scalar(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>, %t: tensor<2xf32>) {
  // expected-error @+1 {{iou_threshold must be a scalar, got 'tensor<2xf32>'}}
  %y = graph.non_max_suppression %b, %s iou_threshold(%t) {center_point_box = 0}
      : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<2xf32>) -> tensor<?x3xi64>
  return
}

// -----

func.func @nms_boxes_shape(%b: tensor<1x6x5xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{boxes must be [num_batches, spatial_dimension, 4], got [1, 6, 5]}}
  %y = graph.non_max_suppression %b, %s {center_point_box = 0}
      : (tensor<1x6x5xf32>, tensor<1x1x6xf32>) -> tensor<?x3xi64>
  return
}

// -----

func.func @nms_scores_rank(%b: tensor<1x6x4xf32>, %s: tensor<1x6xf32>) {
  // expected-error @+1 {{scores must be [num_batches, num_classes, spatial_dimension], got [1, 6]}}
  %y = graph.non_max_suppression %b, %s {center_point_box = 0}
      : (tensor<1x6x4xf32>, tensor<1x6xf32>) -> tensor<?x3xi64>
  return
}

// -----

func.func @nms_box_count(%b: tensor<1x6x4xf32>, %s: tensor<1x1x5xf32>) {
  // expected-error @+1 {{scores [1, 1, 5] do not match boxes [1, 6, 4] in batches or boxes}}
  %y = graph.non_max_suppression %b, %s {center_point_box = 0}
      : (tensor<1x6x4xf32>, tensor<1x1x5xf32>) -> tensor<?x3xi64>
  return
}

// -----

func.func @nms_center_point_box(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>) {
  // expected-error @+1 {{attribute 'center_point_box' failed to satisfy constraint}}
  %y = graph.non_max_suppression %b, %s {center_point_box = 2}
      : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> tensor<?x3xi64>
  return
}

// -----

func.func @unique_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %y, %i, %inv, %c = graph.unique %x {axis = 2 : i64, sorted = true}
      : (tensor<2x3xf32>) -> (tensor<*xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>)
  return
}

// -----

func.func @dft_input_type(%x: tensor<1x10x1xi32>) {
  // expected-error @+1 {{input must have a float element type, got 'i32'}}
  %y = graph.dft %x {axis = 1 : i64, inverse = false, onesided = false}
      : (tensor<1x10x1xi32>) -> tensor<*xi32>
  return
}

// -----

func.func @dft_length_type(%x: tensor<1x10x1xf32>, %n: tensor<f32>) {
  // expected-error @+1 {{dft_length must have i32 or i64 element type, got 'f32'}}
  %y = graph.dft %x, %n {axis = 1 : i64, inverse = false, onesided = false}
      : (tensor<1x10x1xf32>, tensor<f32>) -> tensor<*xf32>
  return
}

// -----

func.func @dft_length_not_scalar(%x: tensor<1x10x1xf32>, %n: tensor<2xi64>) {
  // expected-error @+1 {{dft_length must be a scalar, got 'tensor<2xi64>'}}
  %y = graph.dft %x, %n {axis = 1 : i64, inverse = false, onesided = false}
      : (tensor<1x10x1xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @dft_length_zero(%x: tensor<1x10x1xf32>) {
  %n = graph.constant dense<0> : tensor<i64>
  // expected-error @+1 {{dft_length must be positive, got 0}}
  %y = graph.dft %x, %n {axis = 1 : i64, inverse = false, onesided = false}
      : (tensor<1x10x1xf32>, tensor<i64>) -> tensor<*xf32>
  return
}

// -----

func.func @dft_rank(%x: tensor<10xf32>) {
  // expected-error @+1 {{expects an input of rank 2 or more ([batch, signal..., 1 or 2]), got rank 1}}
  %y = graph.dft %x {axis = 0 : i64, inverse = false, onesided = false}
      : (tensor<10xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @dft_complex_dimension(%x: tensor<1x10x3xf32>) {
  // expected-error @+1 {{input must end in a dimension of 1 (real) or 2 (complex), got 'tensor<1x10x3xf32>'}}
  %y = graph.dft %x {axis = 1 : i64, inverse = false, onesided = false}
      : (tensor<1x10x3xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @dft_onesided_complex(%x: tensor<1x10x2xf32>) {
  // expected-error @+1 {{onesided needs a real input (last dimension 1), got 'tensor<1x10x2xf32>'}}
  %y = graph.dft %x {axis = 1 : i64, inverse = false, onesided = true}
      : (tensor<1x10x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @dft_onesided_inverse(%x: tensor<1x10x1xf32>) {
  // expected-error @+1 {{onesided and inverse cannot both be set}}
  %y = graph.dft %x {axis = 1 : i64, inverse = true, onesided = true}
      : (tensor<1x10x1xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @dft_axis(%x: tensor<1x10x1xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 3 (a signal dimension, not the last one)}}
  %y = graph.dft %x {axis = 2 : i64, inverse = false, onesided = false}
      : (tensor<1x10x1xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @stft_signal_type(%x: tensor<1x128x1xi32>, %step: tensor<i64>, %w: tensor<16xi32>) {
  // expected-error @+1 {{signal must have a float element type, got 'i32'}}
  %y = graph.stft %x, %step window(%w) {onesided = true}
      : (tensor<1x128x1xi32>, tensor<i64>, tensor<16xi32>) -> tensor<*xi32>
  return
}

// -----

func.func @stft_step_zero(%x: tensor<1x128x1xf32>, %w: tensor<16xf32>) {
  %step = graph.constant dense<0> : tensor<i64>
  // expected-error @+1 {{frame_step must be positive, got 0}}
  %y = graph.stft %x, %step window(%w) {onesided = true}
      : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @stft_no_frame_length(%x: tensor<1x128x1xf32>, %step: tensor<i64>) {
  // expected-error @+1 {{needs a window or a frame_length}}
  %y = graph.stft %x, %step {onesided = true} : (tensor<1x128x1xf32>, tensor<i64>) -> tensor<*xf32>
  return
}

// -----

func.func @stft_frame_length_zero(%x: tensor<1x128x1xf32>, %step: tensor<i64>) {
  %length = graph.constant dense<0> : tensor<i64>
  // expected-error @+1 {{frame_length must be positive, got 0}}
  %y = graph.stft %x, %step frame_length(%length) {onesided = true}
      : (tensor<1x128x1xf32>, tensor<i64>, tensor<i64>) -> tensor<*xf32>
  return
}

// -----

func.func @stft_window_type(%x: tensor<1x128x1xf32>, %step: tensor<i64>, %w: tensor<16xf16>) {
  // expected-error @+1 {{window element type 'f16' differs from signal element type 'f32'}}
  %y = graph.stft %x, %step window(%w) {onesided = true}
      : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf16>) -> tensor<*xf32>
  return
}

// -----

func.func @stft_window_rank(%x: tensor<1x128x1xf32>, %step: tensor<i64>, %w: tensor<4x4xf32>) {
  // expected-error @+1 {{window must be 1-D, got 'tensor<4x4xf32>'}}
  %y = graph.stft %x, %step window(%w) {onesided = true}
      : (tensor<1x128x1xf32>, tensor<i64>, tensor<4x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @stft_window_length(%x: tensor<1x128x1xf32>, %step: tensor<i64>, %w: tensor<16xf32>) {
  %length = graph.constant dense<8> : tensor<i64>
  // expected-error @+1 {{window has 16 elements for a frame_length of 8}}
  %y = graph.stft %x, %step window(%w) frame_length(%length) {onesided = true}
      : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>, tensor<i64>) -> tensor<*xf32>
  return
}

// -----

func.func @stft_signal_rank(%x: tensor<128x1xf32>, %step: tensor<i64>, %w: tensor<16xf32>) {
  // expected-error @+1 {{signal must be [batch, signal_length, 1 or 2], got rank 2}}
  %y = graph.stft %x, %step window(%w) {onesided = true}
      : (tensor<128x1xf32>, tensor<i64>, tensor<16xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @stft_complex_dimension(%x: tensor<1x128x4xf32>, %step: tensor<i64>, %w: tensor<16xf32>) {
  // expected-error @+1 {{signal must end in a dimension of 1 (real) or 2 (complex), got 'tensor<1x128x4xf32>'}}
  %y = graph.stft %x, %step window(%w) {onesided = true}
      : (tensor<1x128x4xf32>, tensor<i64>, tensor<16xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @stft_onesided_complex(%x: tensor<1x128x2xf32>, %step: tensor<i64>, %w: tensor<16xf32>) {
  // expected-error @+1 {{onesided needs a real signal (last dimension 1), got 'tensor<1x128x2xf32>'}}
  %y = graph.stft %x, %step window(%w) {onesided = true}
      : (tensor<1x128x2xf32>, tensor<i64>, tensor<16xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @stft_frame_too_long(%x: tensor<1x8x1xf32>, %step: tensor<i64>, %w: tensor<16xf32>) {
  // expected-error @+1 {{frame_length 16 is longer than the signal (8)}}
  %y = graph.stft %x, %step window(%w) {onesided = true}
      : (tensor<1x8x1xf32>, tensor<i64>, tensor<16xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @window_datatype(%size: tensor<i64>) {
  // expected-error @+1 {{output_datatype must be a numeric type, got 'i1'}}
  %y = graph.hann_window %size {output_datatype = i1, periodic = true}
      : (tensor<i64>) -> tensor<?xi1>
  return
}

// -----

func.func @window_size_negative() {
  %size = graph.constant dense<-3> : tensor<i64>
  // expected-error @+1 {{size must not be negative, got -3}}
  %y = graph.blackman_window %size {output_datatype = f32, periodic = true}
      : (tensor<i64>) -> tensor<?xf32>
  return
}

// -----

func.func @window_size_unsigned(%size: tensor<ui32>) {
  // expected-error @+1 {{size must have i32 or i64 element type, got 'ui32'}}
  %y = graph.hamming_window %size {output_datatype = f32, periodic = true}
      : (tensor<ui32>) -> tensor<?xf32>
  return
}

// -----

func.func @mel_datatype(%n: tensor<i64>, %l: tensor<f32>) {
  // expected-error @+1 {{output_datatype must be a numeric type, got 'i1'}}
  %m = graph.mel_weight_matrix %n, %n, %n, %l, %l {output_datatype = i1}
      : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<?x?xi1>
  return
}

// -----

func.func @mel_edge_type(%n: tensor<i64>) {
  // expected-error @+1 {{lower_edge_hertz must have a float element type, got 'i64'}}
  %m = graph.mel_weight_matrix %n, %n, %n, %n, %n {output_datatype = f32}
      : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @mel_bins_zero(%n: tensor<i64>, %l: tensor<f32>) {
  %zero = graph.constant dense<0> : tensor<i64>
  // expected-error @+1 {{num_mel_bins must be positive, got 0}}
  %m = graph.mel_weight_matrix %zero, %n, %n, %l, %l {output_datatype = f32}
      : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @mel_dft_length_zero(%n: tensor<i64>, %l: tensor<f32>) {
  %zero = graph.constant dense<0> : tensor<i64>
  // expected-error @+1 {{dft_length must be positive, got 0}}
  %m = graph.mel_weight_matrix %n, %zero, %n, %l, %l {output_datatype = f32}
      : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @mel_sample_rate_zero(%n: tensor<i64>, %l: tensor<f32>) {
  %zero = graph.constant dense<0> : tensor<i64>
  // expected-error @+1 {{sample_rate must be positive, got 0}}
  %m = graph.mel_weight_matrix %n, %n, %zero, %l, %l {output_datatype = f32}
      : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @random_dtype() {
  // expected-error @+1 {{dtype must be a float type, got 'i32'}}
  %r = graph.random_uniform {dtype = i32, low = 0.0 : f32, high = 1.0 : f32,
                             shape = array<i64: 2>} : () -> tensor<2xi32>
  return
}

// -----

func.func @random_negative_shape() {
  // expected-error @+1 {{shape extents must not be negative}}
  %r = graph.random_normal {dtype = f32, mean = 0.0 : f32, scale = 1.0 : f32,
                            shape = array<i64: -2>} : () -> tensor<*xf32>
  return
}

// -----

func.func @random_like_dtype(%x: tensor<4xi64>) {
  // expected-error @+1 {{dtype must be a float type, got 'i64'}}
  %r = graph.random_normal_like %x {dtype = i64, mean = 0.0 : f32, scale = 1.0 : f32}
      : (tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

func.func @bernoulli_input_type(%p: tensor<4xi32>) {
  // expected-error @+1 {{input must hold float probabilities, got 'i32'}}
  %b = graph.bernoulli %p {dtype = i32} : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @bernoulli_dtype(%p: tensor<4xf32>) {
  // expected-error @+1 {{dtype must be a numeric or boolean type, got 'index'}}
  %b = graph.bernoulli %p {dtype = index} : (tensor<4xf32>) -> tensor<4xindex>
  return
}

// -----

func.func @multinomial_input_type(%x: tensor<3x10xi32>) {
  // expected-error @+1 {{input must hold float log-probabilities, got 'i32'}}
  %s = graph.multinomial %x {dtype = i32, sample_size = 2 : i64} : (tensor<3x10xi32>) -> tensor<3x2xi32>
  return
}

// -----

func.func @multinomial_dtype(%x: tensor<3x10xf32>) {
  // expected-error @+1 {{dtype must be i32 or i64, got 'f32'}}
  %s = graph.multinomial %x {dtype = f32, sample_size = 2 : i64} : (tensor<3x10xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @multinomial_rank(%x: tensor<10xf32>) {
  // expected-error @+1 {{input must be [batch_size, class_size], got rank 1}}
  %s = graph.multinomial %x {dtype = i32, sample_size = 2 : i64} : (tensor<10xf32>) -> tensor<?x2xi32>
  return
}
