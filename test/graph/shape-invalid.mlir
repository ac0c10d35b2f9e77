// The shape and data-movement ops reject shapes and attributes that contradict their ONNX
// semantics. Each failed shape rule is followed by the generic "failed to infer returned
// types", which these cases leave unchecked (only-expected).
// RUN: kiln-opt %s -split-input-file -verify-diagnostics=only-expected

func.func @reshape_two_minus_ones(%x: tensor<2x3xf32>) {
  %s = graph.constant dense<[-1, -1]> : tensor<2xi64>
  // expected-error @+1 {{shape has more than one -1}}
  %y = graph.reshape %x, %s {allowzero = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @reshape_negative_entry(%x: tensor<2x3xf32>) {
  %s = graph.constant dense<[-2, 3]> : tensor<2xi64>
  // expected-error @+1 {{shape entry -2 is negative}}
  %y = graph.reshape %x, %s {allowzero = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @reshape_zero_past_rank(%x: tensor<6xf32>) {
  %s = graph.constant dense<[3, 0]> : tensor<2xi64>
  // expected-error @+1 {{shape entry 1 is 0 (copy the input extent) but the input has rank 1}}
  %y = graph.reshape %x, %s {allowzero = false} : (tensor<6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @reshape_allowzero_with_minus_one(%x: tensor<0x3xf32>) {
  %s = graph.constant dense<[0, -1]> : tensor<2xi64>
  // expected-error @+1 {{shape has both 0 and -1, which allowzero forbids}}
  %y = graph.reshape %x, %s {allowzero = true} : (tensor<0x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @reshape_indivisible(%x: tensor<2x3xf32>) {
  %s = graph.constant dense<[4, -1]> : tensor<2xi64>
  // expected-error @+1 {{cannot reshape 6 elements into a shape with 4 elements and a -1}}
  %y = graph.reshape %x, %s {allowzero = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @reshape_count_mismatch(%x: tensor<2x3xf32>) {
  %s = graph.constant dense<[4, 2]> : tensor<2xi64>
  // expected-error @+1 {{cannot reshape 6 elements into 8}}
  %y = graph.reshape %x, %s {allowzero = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_float_shape(%x: tensor<2x3xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{shape must have an integer element type, got 'f32'}}
  %y = graph.reshape %x, %s {allowzero = false} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @reshape_shape_not_1d(%x: tensor<2x3xf32>, %s: tensor<1x2xi64>) {
  // expected-error @+1 {{shape must be 1-D, got rank 2}}
  %y = graph.reshape %x, %s {allowzero = false} : (tensor<2x3xf32>, tensor<1x2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @transpose_rank_mismatch(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm has 3 entries for an input of rank 2}}
  %y = graph.transpose %x {perm = array<i64: 0, 1, 2>} : (tensor<2x3xf32>) -> tensor<?x?x?xf32>
  return
}

// -----

func.func @transpose_not_permutation(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm is not a permutation of 0..1}}
  %y = graph.transpose %x {perm = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @flatten_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 3 is out of range [-2, 2]}}
  %y = graph.flatten %x {axis = 3} : (tensor<2x3xf32>) -> tensor<6x1xf32>
  return
}

// -----

func.func @squeeze_not_one(%x: tensor<2x1xf32>) {
  %axes = graph.constant dense<[0]> : tensor<1xi64>
  // expected-error @+1 {{cannot squeeze axis 0 of extent 2}}
  %y = graph.squeeze %x, %axes : (tensor<2x1xf32>, tensor<1xi64>) -> tensor<1xf32>
  return
}

// -----

func.func @squeeze_axis_out_of_range(%x: tensor<2x1xf32>) {
  %axes = graph.constant dense<[2]> : tensor<1xi64>
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %y = graph.squeeze %x, %axes : (tensor<2x1xf32>, tensor<1xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @squeeze_repeated_axis(%x: tensor<1x1xf32>) {
  %axes = graph.constant dense<[0, -2]> : tensor<2xi64>
  // expected-error @+1 {{axis -2 is repeated}}
  %y = graph.squeeze %x, %axes : (tensor<1x1xf32>, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

func.func @unsqueeze_axis_out_of_range(%x: tensor<2xf32>) {
  %axes = graph.constant dense<[2]> : tensor<1xi64>
  // expected-error @+1 {{axis 2 is out of range for result rank 2}}
  %y = graph.unsqueeze %x, %axes : (tensor<2xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return
}

// -----

func.func @expand_not_broadcastable(%x: tensor<3xf32>) {
  %s = graph.constant dense<[2, 4]> : tensor<2xi64>
  // expected-error @+1 {{shapes [3] and [2, 4] do not broadcast}}
  %y = graph.expand %x, %s : (tensor<3xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @expand_negative(%x: tensor<3xf32>) {
  %s = graph.constant dense<[-1, 3]> : tensor<2xi64>
  // expected-error @+1 {{shape entries must not be negative}}
  %y = graph.expand %x, %s : (tensor<3xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  return
}

// -----

func.func @tile_length(%x: tensor<3xf32>, %r: tensor<2xi64>) {
  // expected-error @+1 {{repeats has 2 entries for an input of rank 1}}
  %y = graph.tile %x, %r : (tensor<3xf32>, tensor<2xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @tile_negative(%x: tensor<3xf32>) {
  %r = graph.constant dense<[-1]> : tensor<1xi64>
  // expected-error @+1 {{repeats must not be negative, got -1}}
  %y = graph.tile %x, %r : (tensor<3xf32>, tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @depth_to_space_rank(%x: tensor<4x2x2xf32>) {
  // expected-error @+1 {{expects a rank-4 input [N, C, H, W], got rank 3}}
  %y = graph.depth_to_space %x {blocksize = 2, mode = "DCR"} : (tensor<4x2x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @depth_to_space_channels(%x: tensor<1x6x2x2xf32>) {
  // expected-error @+1 {{channel extent 6 is not divisible by 4}}
  %y = graph.depth_to_space %x {blocksize = 2, mode = "DCR"} : (tensor<1x6x2x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @depth_to_space_mode(%x: tensor<1x4x2x2xf32>) {
  // expected-error @+1 {{mode must be DCR or CRD, got 'XYZ'}}
  %y = graph.depth_to_space %x {blocksize = 2, mode = "XYZ"} : (tensor<1x4x2x2xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @space_to_depth_height(%x: tensor<1x1x3x4xf32>) {
  // expected-error @+1 {{height extent 3 is not divisible by 2}}
  %y = graph.space_to_depth %x {blocksize = 2} : (tensor<1x1x3x4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_element_types(%a: tensor<2xf32>, %b: tensor<2xf16>) {
  // expected-error @+1 {{input element types differ: 'f32' and 'f16'}}
  %y = graph.concat %a, %b {axis = 0} : (tensor<2xf32>, tensor<2xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @concat_ranks(%a: tensor<2xf32>, %b: tensor<2x2xf32>) {
  // expected-error @+1 {{input ranks differ: 1 and 2}}
  %y = graph.concat %a, %b {axis = 0} : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{axis 1 is out of range for rank 1}}
  %y = graph.concat %a, %b {axis = 1} : (tensor<2xf32>, tensor<2xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @concat_other_dimension(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{inputs differ in dimension 1: 3 and 4}}
  %y = graph.concat %a, %b {axis = 0} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x?xf32>
  return
}

// -----

func.func @concat_no_inputs() {
  // expected-error @+1 {{expects at least one input}}
  %y = graph.concat {axis = 0} : () -> tensor<*xf32>
  return
}

// -----

func.func @split_sizes_sum(%x: tensor<6xf32>) {
  %s = graph.constant dense<[2, 3]> : tensor<2xi64>
  // expected-error @+1 {{split sizes add up to 5, not to the extent 6 of axis 0}}
  %y:2 = graph.split %x, %s {axis = 0, num_outputs = 2} : (tensor<6xf32>, tensor<2xi64>) -> (tensor<?xf32>, tensor<?xf32>)
  return
}

// -----

func.func @split_sizes_count(%x: tensor<6xf32>, %s: tensor<3xi64>) {
  // expected-error @+1 {{split has 3 entries for 2 outputs}}
  %y:2 = graph.split %x, %s {axis = 0, num_outputs = 2} : (tensor<6xf32>, tensor<3xi64>) -> (tensor<?xf32>, tensor<?xf32>)
  return
}

// -----

func.func @split_negative_size(%x: tensor<6xf32>) {
  %s = graph.constant dense<[-1, 7]> : tensor<2xi64>
  // expected-error @+1 {{split entries must not be negative}}
  %y:2 = graph.split %x, %s {axis = 0, num_outputs = 2} : (tensor<6xf32>, tensor<2xi64>) -> (tensor<?xf32>, tensor<?xf32>)
  return
}

// -----

func.func @split_too_many_parts(%x: tensor<5xf32>) {
  // expected-error @+1 {{cannot split extent 5 into 4 parts of 2: the last part would have -1 elements}}
  %y:4 = graph.split %x {axis = 0, num_outputs = 4} : (tensor<5xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
  return
}

// -----

func.func @split_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{axis -2 is out of range for rank 1}}
  %y:2 = graph.split %x {axis = -2, num_outputs = 2} : (tensor<4xf32>) -> (tensor<?xf32>, tensor<?xf32>)
  return
}

// -----

func.func @slice_lengths(%x: tensor<4x4xf32>, %s: tensor<2xi64>, %e: tensor<1xi64>) {
  // expected-error @+1 {{starts, ends, axes and steps differ in length}}
  %y = graph.slice %x, %s, %e : (tensor<4x4xf32>, tensor<2xi64>, tensor<1xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @slice_too_many_axes(%x: tensor<4xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{slices 2 axes of a rank-1 input}}
  %y = graph.slice %x, %s, %s : (tensor<4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @slice_zero_step(%x: tensor<4xf32>, %s: tensor<1xi64>) {
  %step = graph.constant dense<[0]> : tensor<1xi64>
  // expected-error @+1 {{steps must not be 0}}
  %y = graph.slice %x, %s, %s steps %step : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @slice_repeated_axis(%x: tensor<4x4xf32>, %s: tensor<2xi64>) {
  %axes = graph.constant dense<[1, -1]> : tensor<2xi64>
  // expected-error @+1 {{axis -1 is repeated}}
  %y = graph.slice %x, %s, %s axes %axes : (tensor<4x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @pad_mode(%x: tensor<4xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{mode must be constant, reflect, edge or wrap, got 'mirror'}}
  %y = graph.pad %x, %p {mode = "mirror"} : (tensor<4xf32>, tensor<2xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @pad_count(%x: tensor<4x4xf32>, %p: tensor<2xi64>) {
  // expected-error @+1 {{expects 4 pads (all beginnings, then all ends), got 2}}
  %y = graph.pad %x, %p {mode = "edge"} : (tensor<4x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @pad_value_type(%x: tensor<4xf32>, %p: tensor<2xi64>, %v: tensor<f16>) {
  // expected-error @+1 {{constant_value element type 'f16' differs from input element type 'f32'}}
  %y = graph.pad %x, %p value %v {mode = "constant"} : (tensor<4xf32>, tensor<2xi64>, tensor<f16>) -> tensor<?xf32>
  return
}

// -----

func.func @pad_value_not_scalar(%x: tensor<4xf32>, %p: tensor<2xi64>, %v: tensor<2xf32>) {
  // expected-error @+1 {{constant_value must be a scalar, got 'tensor<2xf32>'}}
  %y = graph.pad %x, %p value %v {mode = "constant"} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @pad_negative_extent(%x: tensor<4xf32>) {
  %p = graph.constant dense<[-3, -2]> : tensor<2xi64>
  // expected-error @+1 {{pads crop axis 0 to a negative extent}}
  %y = graph.pad %x, %p {mode = "constant"} : (tensor<4xf32>, tensor<2xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @center_crop_pad_count(%x: tensor<4x4xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{shape has 2 entries for 1 axes}}
  %y = graph.center_crop_pad %x, %s {axes = array<i64: 0>} : (tensor<4x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  return
}

// -----

func.func @center_crop_pad_negative(%x: tensor<4x4xf32>) {
  %s = graph.constant dense<[-1]> : tensor<1xi64>
  // expected-error @+1 {{shape entries must not be negative}}
  %y = graph.center_crop_pad %x, %s {axes = array<i64: 0>} : (tensor<4x4xf32>, tensor<1xi64>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<4x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %y = graph.gather %x, %i {axis = 2} : (tensor<4x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_float_indices(%x: tensor<4x4xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{indices must be i32 or i64, got 'f32'}}
  %y = graph.gather %x, %i {axis = 0} : (tensor<4x4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gather_elements_rank(%x: tensor<4x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{indices rank 1 differs from data rank 2}}
  %y = graph.gather_elements %x, %i {axis = 0} : (tensor<4x4xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @gather_nd_i32(%x: tensor<4x4xf32>, %i: tensor<2x1xi32>) {
  // expected-error @+1 {{indices must be i64, got 'i32'}}
  %y = graph.gather_nd %x, %i {batch_dims = 0} : (tensor<4x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @gather_nd_negative_batch(%x: tensor<4x4xf32>, %i: tensor<2x1xi64>) {
  // expected-error @+1 {{batch_dims must not be negative, got -1}}
  %y = graph.gather_nd %x, %i {batch_dims = -1} : (tensor<4x4xf32>, tensor<2x1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_nd_batch_data_rank(%x: tensor<4xf32>, %i: tensor<4x1x1xi64>) {
  // expected-error @+1 {{batch_dims 1 must be less than the data rank 1}}
  %y = graph.gather_nd %x, %i {batch_dims = 1} : (tensor<4xf32>, tensor<4x1x1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_nd_batch_indices_rank(%x: tensor<4x4xf32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{batch_dims 1 must be less than the indices rank 1}}
  %y = graph.gather_nd %x, %i {batch_dims = 1} : (tensor<4x4xf32>, tensor<4xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_nd_tuple_too_long(%x: tensor<4x4xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+1 {{index tuples of length 3 do not fit data of rank 2 with 0 batch dimensions}}
  %y = graph.gather_nd %x, %i {batch_dims = 0} : (tensor<4x4xf32>, tensor<2x3xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @gather_nd_batch_mismatch(%x: tensor<4x4xf32>, %i: tensor<3x1xi64>) {
  // expected-error @+1 {{batch dimension 0 differs: 4 in data, 3 in indices}}
  %y = graph.gather_nd %x, %i {batch_dims = 1} : (tensor<4x4xf32>, tensor<3x1xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @scatter_elements_reduction(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{reduction must be none, add, mul, max or min, got 'sum'}}
  %y = graph.scatter_elements %x, %i, %u {axis = 0, reduction = "sum"} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @scatter_elements_updates_type(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf16>) {
  // expected-error @+1 {{updates element type 'f16' differs from data element type 'f32'}}
  %y = graph.scatter_elements %x, %i, %u {axis = 0, reduction = "none"} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @scatter_elements_updates_shape(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<3xf32>) {
  // expected-error @+1 {{updates shape differs from indices shape}}
  %y = graph.scatter_elements %x, %i, %u {axis = 0, reduction = "none"} : (tensor<4xf32>, tensor<2xi64>, tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @scatter_elements_rank(%x: tensor<4x4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{indices rank 1 differs from data rank 2}}
  %y = graph.scatter_elements %x, %i, %u {axis = 0, reduction = "none"} : (tensor<4x4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @scatter_nd_updates_shape(%x: tensor<4x5xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) {
  // expected-error @+1 {{updates shape 'tensor<2x4xf32>' differs from indices.shape[:-1] + data.shape[1:]}}
  %y = graph.scatter_nd %x, %i, %u {reduction = "none"} : (tensor<4x5xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @scatter_nd_tuple_too_long(%x: tensor<4xf32>, %i: tensor<2x2xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{index tuples of length 2 do not fit data of rank 1}}
  %y = graph.scatter_nd %x, %i, %u {reduction = "none"} : (tensor<4xf32>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @scatter_nd_scalar_indices(%x: tensor<4xf32>, %i: tensor<i64>, %u: tensor<f32>) {
  // expected-error @+1 {{indices must have rank 1 or more}}
  %y = graph.scatter_nd %x, %i, %u {reduction = "none"} : (tensor<4xf32>, tensor<i64>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @compress_condition_type(%x: tensor<4xf32>, %c: tensor<4xi32>) {
  // expected-error @+1 {{condition must be i1, got 'i32'}}
  %y = graph.compress %x, %c {axis = 0} : (tensor<4xf32>, tensor<4xi32>) -> tensor<?xf32>
  return
}

// -----

func.func @compress_condition_rank(%x: tensor<4xf32>, %c: tensor<2x2xi1>) {
  // expected-error @+1 {{condition must be 1-D, got rank 2}}
  %y = graph.compress %x, %c {axis = 0} : (tensor<4xf32>, tensor<2x2xi1>) -> tensor<?xf32>
  return
}

// -----

func.func @compress_condition_too_long(%x: tensor<2x3xf32>, %c: tensor<7xi1>) {
  // expected-error @+1 {{condition has 7 entries for 6 slices}}
  %y = graph.compress %x, %c : (tensor<2x3xf32>, tensor<7xi1>) -> tensor<?xf32>
  return
}

// -----

func.func @reverse_sequence_axes(%x: tensor<4x4xf32>, %l: tensor<4xi64>) {
  // expected-error @+1 {{batch_axis and time_axis must be 0 and 1 in some order, got 1 and 1}}
  %y = graph.reverse_sequence %x, %l {batch_axis = 1, time_axis = 1} : (tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x4xf32>
  return
}

// -----

func.func @reverse_sequence_lens_type(%x: tensor<4x4xf32>, %l: tensor<4xi32>) {
  // expected-error @+1 {{sequence_lens must be i64, got 'i32'}}
  %y = graph.reverse_sequence %x, %l {batch_axis = 1, time_axis = 0} : (tensor<4x4xf32>, tensor<4xi32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @reverse_sequence_rank(%x: tensor<4xf32>, %l: tensor<4xi64>) {
  // expected-error @+1 {{expects rank 2 or more, got 1}}
  %y = graph.reverse_sequence %x, %l {batch_axis = 1, time_axis = 0} : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @reverse_sequence_lens_rank(%x: tensor<4x4xf32>, %l: tensor<4x1xi64>) {
  // expected-error @+1 {{sequence_lens must be 1-D, got rank 2}}
  %y = graph.reverse_sequence %x, %l {batch_axis = 1, time_axis = 0} : (tensor<4x4xf32>, tensor<4x1xi64>) -> tensor<4x4xf32>
  return
}

// -----

func.func @reverse_sequence_batch(%x: tensor<4x3xf32>, %l: tensor<4xi64>) {
  // expected-error @+1 {{sequence_lens has 4 entries for a batch of 3}}
  %y = graph.reverse_sequence %x, %l {batch_axis = 1, time_axis = 0} : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @trilu_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects rank 2 or more, got 1}}
  %y = graph.trilu %x {upper = true} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @trilu_k_type(%x: tensor<4x4xf32>, %k: tensor<i32>) {
  // expected-error @+1 {{k must be i64, got 'i32'}}
  %y = graph.trilu %x, %k {upper = true} : (tensor<4x4xf32>, tensor<i32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @trilu_k_not_scalar(%x: tensor<4x4xf32>, %k: tensor<2xi64>) {
  // expected-error @+1 {{k must be a scalar, got 'tensor<2xi64>'}}
  %y = graph.trilu %x, %k {upper = true} : (tensor<4x4xf32>, tensor<2xi64>) -> tensor<4x4xf32>
  return
}

// -----

func.func @range_element_types(%a: tensor<f32>, %b: tensor<i32>) {
  // expected-error @+1 {{limit has element type 'i32', start has 'f32'}}
  %y = graph.range %a, %b, %a : (tensor<f32>, tensor<i32>, tensor<f32>) -> tensor<?xf32>
  return
}

// -----

func.func @range_zero_delta(%a: tensor<f32>) {
  %d = graph.constant dense<0.0> : tensor<f32>
  // expected-error @+1 {{delta must not be 0}}
  %y = graph.range %a, %a, %d : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  return
}

// -----

func.func @constant_of_shape_value(%s: tensor<2xi64>) {
  // expected-error @+1 {{value must have one element, got 2}}
  %y = graph.constant_of_shape %s {value = dense<[1.0, 2.0]> : tensor<2xf32>} : (tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @constant_of_shape_negative() {
  %s = graph.constant dense<[-1]> : tensor<1xi64>
  // expected-error @+1 {{shape entries must not be negative}}
  %y = graph.constant_of_shape %s {value = dense<1.0> : tensor<1xf32>} : (tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @eye_like_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects a 2-D input, got rank 1}}
  %y = graph.eye_like %x {dtype = f32, k = 0} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @one_hot_values(%i: tensor<4xi64>, %d: tensor<i64>, %v: tensor<3xf32>) {
  // expected-error @+1 {{values must be [off_value, on_value], got 'tensor<3xf32>'}}
  %y = graph.one_hot %i, %d, %v {axis = -1} : (tensor<4xi64>, tensor<i64>, tensor<3xf32>) -> tensor<4x?xf32>
  return
}

// -----

func.func @one_hot_axis(%i: tensor<4xi64>, %d: tensor<i64>, %v: tensor<2xf32>) {
  // expected-error @+1 {{axis 2 is out of range for result rank 2}}
  %y = graph.one_hot %i, %d, %v {axis = 2} : (tensor<4xi64>, tensor<i64>, tensor<2xf32>) -> tensor<4x?xf32>
  return
}

// -----

func.func @one_hot_depth(%i: tensor<4xi64>, %v: tensor<2xf32>) {
  %d = graph.constant dense<0> : tensor<i64>
  // expected-error @+1 {{depth must be positive, got 0}}
  %y = graph.one_hot %i, %d, %v {axis = -1} : (tensor<4xi64>, tensor<i64>, tensor<2xf32>) -> tensor<4x?xf32>
  return
}

// -----

func.func @one_hot_depth_shape(%i: tensor<4xi64>, %d: tensor<2x2xi64>, %v: tensor<2xf32>) {
  // expected-error @+1 {{depth must be a scalar, got 'tensor<2x2xi64>'}}
  %y = graph.one_hot %i, %d, %v {axis = -1} : (tensor<4xi64>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<4x?xf32>
  return
}
