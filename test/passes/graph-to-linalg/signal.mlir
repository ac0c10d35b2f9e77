// RUN: kiln-opt --graph-to-linalg %s -split-input-file | FileCheck %s

// DFT: a gather over the complex result whose body sums over the transformed axis with an
// scf.for (a direct transform), picking the real or imaginary part by the last index.
// CHECK-LABEL: func.func @dft
// CHECK: linalg.generic
// CHECK: scf.for
// CHECK: arith.remui
// CHECK: math.cos
// CHECK: math.sin
// CHECK: } -> tensor<1x6x2xf32>
func.func @dft(%x: tensor<1x10x1xf32>) -> tensor<1x6x2xf32> {
  %0 = graph.dft %x {axis = 1 : i64, inverse = false, onesided = true} : (tensor<1x10x1xf32>) -> tensor<1x6x2xf32>
  return %0 : tensor<1x6x2xf32>
}

// -----

// STFT: the same direct transform over each frame, weighted by the window.
// CHECK-LABEL: func.func @stft
// CHECK: linalg.generic
// CHECK: scf.for
// CHECK: tensor.extract %arg2
// CHECK: } -> tensor<1x15x9x2xf32>
func.func @stft(%signal: tensor<1x128x1xf32>, %step: tensor<i64>, %window: tensor<16xf32>) -> tensor<1x15x9x2xf32> {
  %0 = graph.stft %signal, %step window(%window) {onesided = true} : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
  return %0 : tensor<1x15x9x2xf32>
}

// -----

// Windows are elementwise in the index; the size is read at run time.
// CHECK-LABEL: func.func @hann
// CHECK: tensor.extract %arg0[]
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: math.cos
// CHECK: arith.truncf
func.func @hann(%size: tensor<i64>) -> tensor<10xf32> {
  %0 = graph.hann_window %size {output_datatype = f32, periodic = true} : (tensor<i64>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

// A Blackman window adds the second cosine term.
// CHECK-LABEL: func.func @blackman
// CHECK: linalg.generic
// CHECK-COUNT-2: math.cos
func.func @blackman(%size: tensor<i64>) -> tensor<10xf64> {
  %0 = graph.blackman_window %size {output_datatype = f64, periodic = false} : (tensor<i64>) -> tensor<10xf64>
  return %0 : tensor<10xf64>
}

// -----

// MelWeightMatrix: each element computes the edges of its band and its place on them.
// CHECK-LABEL: func.func @mel
// CHECK: math.log10
// CHECK: linalg.generic
// CHECK: math.powf
// CHECK: } -> tensor<9x8xf32>
func.func @mel(%bins: tensor<i64>, %length: tensor<i64>, %rate: tensor<i64>, %lower: tensor<f32>, %upper: tensor<f32>) -> tensor<9x8xf32> {
  %0 = graph.mel_weight_matrix %bins, %length, %rate, %lower, %upper {output_datatype = f32} : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<9x8xf32>
  return %0 : tensor<9x8xf32>
}
