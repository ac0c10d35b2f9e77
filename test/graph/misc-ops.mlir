// Round trip of the miscellaneous ops (MaxUnpool, NonMaxSuppression, Unique, the signal
// and the random ops), in the custom and in the generic form, with the result types their
// shape rules infer.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --cse --canonicalize | FileCheck %s --check-prefix=CSE

// CHECK-LABEL: func.func @max_unpool
func.func @max_unpool(%x: tensor<1x3x2x2xf32>, %i: tensor<1x3x2x2xi64>, %u: tensor<*xf16>,
                      %ui: tensor<*xi64>, %s: tensor<4xi64>)
    -> (tensor<1x3x4x4xf32>, tensor<1x3x5x5xf32>, tensor<1x3x?x?xf32>, tensor<?x?x?xf16>) {
  // (2 - 1) * 2 + 2 - 0 - 0 = 4 per spatial dimension.
  // CHECK: graph.max_unpool %{{.*}}, %{{.*}} {kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>) -> tensor<1x3x4x4xf32>
  %y = graph.max_unpool %x, %i {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
                                pads = array<i64: 0, 0, 0, 0>}
      : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>) -> tensor<1x3x4x4xf32>
  // A constant output_shape gives the result shape.
  %shape = graph.constant dense<[1, 3, 5, 5]> : tensor<4xi64>
  // CHECK: graph.max_unpool %{{.*}}, %{{.*}}, %{{.*}} {{.*}} : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>, tensor<4xi64>) -> tensor<1x3x5x5xf32>
  %y5 = graph.max_unpool %x, %i, %shape {kernel_shape = array<i64: 2, 2>,
                                         strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>}
      : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>, tensor<4xi64>) -> tensor<1x3x5x5xf32>
  // Another output_shape leaves the spatial extents dynamic.
  // CHECK: graph.max_unpool {{.*}} : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>, tensor<4xi64>) -> tensor<1x3x?x?xf32>
  %yd = graph.max_unpool %x, %i, %s {kernel_shape = array<i64: 2, 2>,
                                     strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>}
      : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xi64>, tensor<4xi64>) -> tensor<1x3x?x?xf32>
  // Unranked operands: the rank comes from kernel_shape.
  // CHECK: graph.max_unpool {{.*}} : (tensor<*xf16>, tensor<*xi64>) -> tensor<?x?x?xf16>
  %yu = graph.max_unpool %u, %ui {kernel_shape = array<i64: 3>, strides = array<i64: 1>,
                                  pads = array<i64: 1, 1>}
      : (tensor<*xf16>, tensor<*xi64>) -> tensor<?x?x?xf16>
  return %y, %y5, %yd, %yu : tensor<1x3x4x4xf32>, tensor<1x3x5x5xf32>, tensor<1x3x?x?xf32>, tensor<?x?x?xf16>
}

// CHECK-LABEL: func.func @non_max_suppression
func.func @non_max_suppression(%boxes: tensor<2x6x4xf32>, %scores: tensor<2x3x6xf32>,
                               %max: tensor<i64>, %iou: tensor<f32>, %score: tensor<1xf32>)
    -> (tensor<?x3xi64>, tensor<?x3xi64>) {
  // The number of selected boxes depends on the data.
  // CHECK: graph.non_max_suppression %{{.*}}, %{{.*}} max_output_boxes_per_class(%{{.*}}) iou_threshold(%{{.*}}) score_threshold(%{{.*}}) {center_point_box = 0 : i64} : (tensor<2x6x4xf32>, tensor<2x3x6xf32>, tensor<i64>, tensor<f32>, tensor<1xf32>) -> tensor<?x3xi64>
  %all = graph.non_max_suppression %boxes, %scores max_output_boxes_per_class(%max)
      iou_threshold(%iou) score_threshold(%score) {center_point_box = 0}
      : (tensor<2x6x4xf32>, tensor<2x3x6xf32>, tensor<i64>, tensor<f32>, tensor<1xf32>)
      -> tensor<?x3xi64>
  // Optional scalars may be left out independently.
  // CHECK: graph.non_max_suppression %{{.*}}, %{{.*}} iou_threshold(%{{.*}}) {center_point_box = 1 : i64} : (tensor<2x6x4xf32>, tensor<2x3x6xf32>, tensor<f32>) -> tensor<?x3xi64>
  %some = graph.non_max_suppression %boxes, %scores iou_threshold(%iou) {center_point_box = 1}
      : (tensor<2x6x4xf32>, tensor<2x3x6xf32>, tensor<f32>) -> tensor<?x3xi64>
  return %all, %some : tensor<?x3xi64>, tensor<?x3xi64>
}

// CHECK-LABEL: func.func @unique
func.func @unique(%x: tensor<2x3xf32>, %u: tensor<*xi32>) {
  // Without axis: the flattened input; one inverse index per element.
  // CHECK: graph.unique %{{.*}} {sorted = true} : (tensor<2x3xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  %y, %i, %inv, %c = graph.unique %x {sorted = true}
      : (tensor<2x3xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  // With a negative axis: unique columns; one inverse index per column.
  // CHECK: graph.unique %{{.*}} {axis = -1 : i64, sorted = false} : (tensor<2x3xf32>) -> (tensor<2x?xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
  %ya, %ia, %inva, %ca = graph.unique %x {axis = -1 : i64, sorted = false}
      : (tensor<2x3xf32>) -> (tensor<2x?xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
  // CHECK: graph.unique %{{.*}} {axis = 0 : i64, sorted = true} : (tensor<*xi32>) -> (tensor<*xi32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>)
  %yu, %iu, %invu, %cu = graph.unique %u {axis = 0 : i64, sorted = true}
      : (tensor<*xi32>) -> (tensor<*xi32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>)
  return
}

// CHECK-LABEL: func.func @dft
func.func @dft(%x: tensor<1x10x10x1xf32>, %c: tensor<4x16x2xf64>, %n: tensor<i64>)
    -> (tensor<1x10x10x2xf32>, tensor<1x10x6x2xf32>, tensor<4x8x2xf64>, tensor<4x?x2xf64>) {
  // A real input becomes complex.
  // CHECK: graph.dft %{{.*}} {axis = 1 : i64, inverse = false, onesided = false} : (tensor<1x10x10x1xf32>) -> tensor<1x10x10x2xf32>
  %y = graph.dft %x {axis = 1 : i64, inverse = false, onesided = false}
      : (tensor<1x10x10x1xf32>) -> tensor<1x10x10x2xf32>
  // onesided keeps 10 / 2 + 1 frequencies; axis -2 is the last signal dimension.
  // CHECK: graph.dft %{{.*}} {axis = -2 : i64, inverse = false, onesided = true} : (tensor<1x10x10x1xf32>) -> tensor<1x10x6x2xf32>
  %half = graph.dft %x {axis = -2 : i64, inverse = false, onesided = true}
      : (tensor<1x10x10x1xf32>) -> tensor<1x10x6x2xf32>
  // A constant dft_length truncates (or pads) the signal.
  %eight = graph.constant dense<8> : tensor<i64>
  // CHECK: graph.dft %{{.*}}, %{{.*}} {axis = 1 : i64, inverse = true, onesided = false} : (tensor<4x16x2xf64>, tensor<i64>) -> tensor<4x8x2xf64>
  %inv = graph.dft %c, %eight {axis = 1 : i64, inverse = true, onesided = false}
      : (tensor<4x16x2xf64>, tensor<i64>) -> tensor<4x8x2xf64>
  // CHECK: graph.dft %{{.*}}, %{{.*}} {{.*}} : (tensor<4x16x2xf64>, tensor<i64>) -> tensor<4x?x2xf64>
  %dyn = graph.dft %c, %n {axis = 1 : i64, inverse = false, onesided = false}
      : (tensor<4x16x2xf64>, tensor<i64>) -> tensor<4x?x2xf64>
  return %y, %half, %inv, %dyn : tensor<1x10x10x2xf32>, tensor<1x10x6x2xf32>, tensor<4x8x2xf64>, tensor<4x?x2xf64>
}

// CHECK-LABEL: func.func @stft
func.func @stft(%signal: tensor<1x128x1xf32>, %step: tensor<i64>, %window: tensor<16xf32>,
                %unranked: tensor<*xf32>) -> (tensor<1x15x9x2xf32>, tensor<1x15x16x2xf32>, tensor<?x?x9x2xf32>) {
  %eight = graph.constant dense<8> : tensor<i64>
  %sixteen = graph.constant dense<16> : tensor<i64>
  // The window gives the frame length: (128 - 16) / 8 + 1 frames of 16 / 2 + 1 bins.
  // CHECK: graph.stft %{{.*}}, %{{.*}} window(%{{.*}}) {onesided = true} : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
  %y = graph.stft %signal, %eight window(%window) {onesided = true}
      : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
  // CHECK: graph.stft %{{.*}}, %{{.*}} frame_length(%{{.*}}) {onesided = false} : (tensor<1x128x1xf32>, tensor<i64>, tensor<i64>) -> tensor<1x15x16x2xf32>
  %full = graph.stft %signal, %eight frame_length(%sixteen) {onesided = false}
      : (tensor<1x128x1xf32>, tensor<i64>, tensor<i64>) -> tensor<1x15x16x2xf32>
  // An unknown step or signal length leaves the frame count dynamic.
  // CHECK: graph.stft %{{.*}}, %{{.*}} window(%{{.*}}) frame_length(%{{.*}}) {onesided = true} : (tensor<*xf32>, tensor<i64>, tensor<16xf32>, tensor<i64>) -> tensor<?x?x9x2xf32>
  %dyn = graph.stft %unranked, %step window(%window) frame_length(%sixteen) {onesided = true}
      : (tensor<*xf32>, tensor<i64>, tensor<16xf32>, tensor<i64>) -> tensor<?x?x9x2xf32>
  return %y, %full, %dyn : tensor<1x15x9x2xf32>, tensor<1x15x16x2xf32>, tensor<?x?x9x2xf32>
}

// CHECK-LABEL: func.func @windows
func.func @windows(%size: tensor<i32>) -> (tensor<10xf32>, tensor<10xf64>, tensor<?xi32>) {
  %ten = graph.constant dense<10> : tensor<i64>
  // output_datatype is the element type; a constant size the extent.
  // CHECK: graph.hann_window %{{.*}} {output_datatype = f32, periodic = true} : (tensor<i64>) -> tensor<10xf32>
  %hann = graph.hann_window %ten {output_datatype = f32, periodic = true}
      : (tensor<i64>) -> tensor<10xf32>
  // CHECK: graph.hamming_window %{{.*}} {output_datatype = f64, periodic = false} : (tensor<i64>) -> tensor<10xf64>
  %hamming = graph.hamming_window %ten {output_datatype = f64, periodic = false}
      : (tensor<i64>) -> tensor<10xf64>
  // CHECK: graph.blackman_window %{{.*}} {output_datatype = i32, periodic = true} : (tensor<i32>) -> tensor<?xi32>
  %blackman = graph.blackman_window %size {output_datatype = i32, periodic = true}
      : (tensor<i32>) -> tensor<?xi32>
  return %hann, %hamming, %blackman : tensor<10xf32>, tensor<10xf64>, tensor<?xi32>
}

// CHECK-LABEL: func.func @mel_weight_matrix
func.func @mel_weight_matrix(%rate: tensor<i64>, %lower: tensor<f32>, %upper: tensor<f32>,
                             %bins: tensor<i32>) -> (tensor<257x80xf32>, tensor<257x?xf16>) {
  %eighty = graph.constant dense<80> : tensor<i64>
  %length = graph.constant dense<512> : tensor<i64>
  // [512 / 2 + 1, 80].
  // CHECK: graph.mel_weight_matrix {{.*}} {output_datatype = f32} : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<257x80xf32>
  %m = graph.mel_weight_matrix %eighty, %length, %rate, %lower, %upper {output_datatype = f32}
      : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<257x80xf32>
  // CHECK: graph.mel_weight_matrix {{.*}} {output_datatype = f16} : (tensor<i32>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<257x?xf16>
  %d = graph.mel_weight_matrix %bins, %length, %rate, %lower, %upper {output_datatype = f16}
      : (tensor<i32>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<257x?xf16>
  return %m, %d : tensor<257x80xf32>, tensor<257x?xf16>
}

// CHECK-LABEL: func.func @random
func.func @random(%x: tensor<?x4xf16>, %p: tensor<10xf32>, %logits: tensor<3x10xf32>)
    -> (tensor<2x3xf32>, tensor<4xf64>, tensor<?x4xf16>, tensor<?x4xbf16>, tensor<10xi1>,
        tensor<10xf32>, tensor<3x5xi64>) {
  // CHECK: graph.random_uniform {dtype = f32, high = 1.{{0+}}e+00 : f32, low = 0.{{0+}}e+00 : f32, shape = array<i64: 2, 3>} : () -> tensor<2x3xf32>
  %u = graph.random_uniform {dtype = f32, low = 0.0 : f32, high = 1.0 : f32,
                             shape = array<i64: 2, 3>} : () -> tensor<2x3xf32>
  // A seed makes the sequence reproducible.
  // CHECK: graph.random_normal {dtype = f64, mean = 0.{{0+}}e+00 : f32, scale = 2.{{0+}}e+00 : f32, seed = 4.2{{0*}}e+01 : f32, shape = array<i64: 4>} : () -> tensor<4xf64>
  %n = graph.random_normal {dtype = f64, mean = 0.0 : f32, scale = 2.0 : f32, seed = 42.0 : f32,
                            shape = array<i64: 4>} : () -> tensor<4xf64>
  // The Like forms take the input's shape and dtype's element type.
  // CHECK: graph.random_uniform_like %{{.*}} {dtype = f16, {{.*}}} : (tensor<?x4xf16>) -> tensor<?x4xf16>
  %ul = graph.random_uniform_like %x {dtype = f16, low = -1.0 : f32, high = 1.0 : f32}
      : (tensor<?x4xf16>) -> tensor<?x4xf16>
  // CHECK: graph.random_normal_like %{{.*}} {dtype = bf16, {{.*}}} : (tensor<?x4xf16>) -> tensor<?x4xbf16>
  %nl = graph.random_normal_like %x {dtype = bf16, mean = 0.0 : f32, scale = 1.0 : f32}
      : (tensor<?x4xf16>) -> tensor<?x4xbf16>
  // CHECK: graph.bernoulli %{{.*}} {dtype = i1} : (tensor<10xf32>) -> tensor<10xi1>
  %b = graph.bernoulli %p {dtype = i1} : (tensor<10xf32>) -> tensor<10xi1>
  // CHECK: graph.bernoulli %{{.*}} {dtype = f32, seed = 0.{{0+}}e+00 : f32} : (tensor<10xf32>) -> tensor<10xf32>
  %b2 = graph.bernoulli %p {dtype = f32, seed = 0.0 : f32} : (tensor<10xf32>) -> tensor<10xf32>
  // CHECK: graph.multinomial %{{.*}} {dtype = i64, sample_size = 5 : i64} : (tensor<3x10xf32>) -> tensor<3x5xi64>
  %s = graph.multinomial %logits {dtype = i64, sample_size = 5 : i64}
      : (tensor<3x10xf32>) -> tensor<3x5xi64>
  return %u, %n, %ul, %nl, %b, %b2, %s : tensor<2x3xf32>, tensor<4xf64>, tensor<?x4xf16>,
      tensor<?x4xbf16>, tensor<10xi1>, tensor<10xf32>, tensor<3x5xi64>
}

// Random ops draw new values each time: identical ones are not merged, unused ones not
// erased.
// CSE-LABEL: func.func @random_not_pure
// CSE-COUNT-3: graph.random_uniform
// CSE: graph.add
func.func @random_not_pure() -> tensor<2xf32> {
  %a = graph.random_uniform {dtype = f32, low = 0.0 : f32, high = 1.0 : f32,
                             shape = array<i64: 2>} : () -> tensor<2xf32>
  %b = graph.random_uniform {dtype = f32, low = 0.0 : f32, high = 1.0 : f32,
                             shape = array<i64: 2>} : () -> tensor<2xf32>
  %unused = graph.random_uniform {dtype = f32, low = 0.0 : f32, high = 1.0 : f32,
                                  shape = array<i64: 2>} : () -> tensor<2xf32>
  %sum = graph.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %sum : tensor<2xf32>
}
