// RUN: kiln-opt --graph-to-linalg %s -split-input-file | FileCheck %s

// Gather is a generic over the result: the indices are read through a projection onto
// the result dimensions they fill, the data with tensor.extract after a negative index
// is wrapped (+ extent) and clamped.
// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @gather
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #[[OUT]]]
// CHECK: %[[I0:.*]] = linalg.index 0
// CHECK: arith.index_cast %{{.*}} : i64 to index
// CHECK: arith.select
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: tensor.extract %arg0[%[[I0]], %{{.*}}] : tensor<3x5xf32>
func.func @gather(%data: tensor<3x5xf32>, %indices: tensor<2x4xi64>) -> tensor<3x2x4xf32> {
  %0 = graph.gather %data, %indices {axis = 1 : i64} : (tensor<3x5xf32>, tensor<2x4xi64>) -> tensor<3x2x4xf32>
  return %0 : tensor<3x2x4xf32>
}

// -----

// GatherElements replaces the axis coordinate of the result position by the index.
// CHECK-LABEL: func.func @gather_elements
// CHECK: linalg.generic
// CHECK: %[[I0:.*]] = linalg.index 0
// CHECK: tensor.extract %arg0[%[[I0]], %{{.*}}] : tensor<2x3xf32>
func.func @gather_elements(%data: tensor<2x3xf32>, %indices: tensor<2x2xi32>) -> tensor<2x2xf32> {
  %0 = graph.gather_elements %data, %indices {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// GatherND with a batch dimension: the tuple elements are read from the indices
// with the batch coordinate, and the data position starts with it.
// CHECK-LABEL: func.func @gather_nd_batch
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x2xi32>)
// CHECK: %[[B:.*]] = linalg.index 0
// CHECK: tensor.extract %arg1[%[[B]], %{{.*}}] : tensor<2x1xi64>
// CHECK: tensor.extract %arg0[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<2x2x2xi32>
func.func @gather_nd_batch(%data: tensor<2x2x2xi32>, %indices: tensor<2x1xi64>) -> tensor<2x2xi32> {
  %0 = graph.gather_nd %data, %indices {batch_dims = 1 : i64} : (tensor<2x2x2xi32>, tensor<2x1xi64>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

// ScatterElements with a reduction is a loop nest over the updates that combines into
// a loop-carried copy of the data.
// CHECK-LABEL: func.func @scatter_elements_add
// CHECK: scf.for {{.*}} iter_args(%[[T0:.*]] = %arg0) -> (tensor<3x3xf32>)
// CHECK: scf.for {{.*}} iter_args(%[[T1:.*]] = %[[T0]]) -> (tensor<3x3xf32>)
// CHECK: %[[OLD:.*]] = tensor.extract %[[T1]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]]
// CHECK: tensor.insert %[[NEW]] into %[[T1]]
func.func @scatter_elements_add(%data: tensor<3x3xf32>, %indices: tensor<1x2xi64>, %updates: tensor<1x2xf32>) -> tensor<3x3xf32> {
  %0 = graph.scatter_elements %data, %indices, %updates {axis = 1 : i64, reduction = "add"} : (tensor<3x3xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// ScatterND without a reduction overwrites: one loop per updates dimension, the tuple
// read from the indices, the remaining coordinates from the loops.
// CHECK-LABEL: func.func @scatter_nd
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: arith.addf
// CHECK: tensor.insert
func.func @scatter_nd(%data: tensor<4x4x4xf32>, %indices: tensor<2x1xi64>, %updates: tensor<2x4x4xf32>) -> tensor<4x4x4xf32> {
  %0 = graph.scatter_nd %data, %indices, %updates {reduction = "none"} : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4x4xf32>) -> tensor<4x4x4xf32>
  return %0 : tensor<4x4x4xf32>
}

// -----

// ScatterND max on unsigned elements compares unsigned.
// CHECK-LABEL: func.func @scatter_nd_max_unsigned
// CHECK: arith.maxui
func.func @scatter_nd_max_unsigned(%data: tensor<4xui8>, %indices: tensor<2x1xi64>, %updates: tensor<2xui8>) -> tensor<4xui8> {
  %0 = graph.scatter_nd %data, %indices, %updates {reduction = "max"} : (tensor<4xui8>, tensor<2x1xi64>, tensor<2xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Compress counts the selected slices (at most the axis's extent: the bound a GPU
// engine plans for), records their positions, then gathers them with a generic reading
// the positions along the axis.
// CHECK-DAG: #[[POS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @compress
// CHECK: %[[FOUND:.*]] = scf.for
// CHECK: %[[COUNT:.*]] = arith.minsi %[[FOUND]]
// CHECK: tensor.empty(%[[COUNT]]) : tensor<?xi64>
// CHECK: scf.for
// CHECK: scf.if
// CHECK: tensor.insert
// CHECK: tensor.empty(%[[COUNT]]) : tensor<3x?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[POS]], {{.*}}]
// CHECK: tensor.extract %arg0
func.func @compress(%input: tensor<3x2xf32>, %condition: tensor<2xi1>) -> tensor<3x?xf32> {
  %0 = graph.compress %input, %condition {axis = 1 : i64} : (tensor<3x2xf32>, tensor<2xi1>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

// Without an axis, Compress works on the flattened input.
// CHECK-LABEL: func.func @compress_flat
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<3x2xf32> into tensor<6xf32>
func.func @compress_flat(%input: tensor<3x2xf32>, %condition: tensor<3xi1>) -> tensor<?xf32> {
  %0 = graph.compress %input, %condition : (tensor<3x2xf32>, tensor<3xi1>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// NonZero counts with a reduction (at most the input's size), then writes the
// coordinates of each non-zero element into the next column.
// CHECK-LABEL: func.func @non_zero
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK: %[[FOUND:.*]] = arith.index_cast
// CHECK: %[[COUNT:.*]] = arith.minsi %[[FOUND]]
// CHECK: tensor.empty(%[[COUNT]]) : tensor<2x?xi64>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.cmpf une
// CHECK: scf.if
// CHECK: tensor.insert
// CHECK: tensor.insert
func.func @non_zero(%input: tensor<2x2xf32>) -> tensor<2x?xi64> {
  %0 = graph.non_zero %input : (tensor<2x2xf32>) -> tensor<2x?xi64>
  return %0 : tensor<2x?xi64>
}

// -----

// ReverseSequence reads the sequence length through the batch dimension and reverses
// the time coordinate below it.
// CHECK-DAG: #[[LEN:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @reverse_sequence
// CHECK: linalg.generic {indexing_maps = [#[[LEN]], {{.*}}]
// CHECK: arith.cmpi slt
// CHECK: arith.select
// CHECK: tensor.extract %arg0
func.func @reverse_sequence(%input: tensor<4x4xf32>, %lens: tensor<4xi64>) -> tensor<4x4xf32> {
  %0 = graph.reverse_sequence %input, %lens {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// OneHot compares the (wrapped) index with the position along the new axis; float
// indices truncate.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @one_hot
// CHECK: linalg.generic {indexing_maps = [#[[IN]], {{.*}}]
// CHECK: arith.fptosi
// CHECK: %[[POS:.*]] = linalg.index 1
// CHECK: %[[HOT:.*]] = arith.cmpi eq, %{{.*}}, %[[POS]]
// CHECK: arith.select %[[HOT]]
func.func @one_hot(%indices: tensor<2x3xf32>, %depth: tensor<f32>, %values: tensor<2xi64>) -> tensor<2x10x3xi64> {
  %0 = graph.one_hot %indices, %depth, %values {axis = 1 : i64} : (tensor<2x3xf32>, tensor<f32>, tensor<2xi64>) -> tensor<2x10x3xi64>
  return %0 : tensor<2x10x3xi64>
}

// -----

// Sorted Unique along an axis: the slices become rows (transpose, collapse), a scan
// looks each row up among the distinct ones found so far (scf.while), ranks sort them,
// and y gathers the rows at their first occurrences.
// CHECK-LABEL: func.func @unique_sorted_axis
// CHECK: linalg.transpose
// CHECK: tensor.collapse_shape
// CHECK: scf.for
// CHECK: scf.while
// CHECK: arith.cmpf oeq
// CHECK: scf.for
// CHECK: arith.cmpf olt
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: tensor.extract %arg0
func.func @unique_sorted_axis(%x: tensor<2x3xf32>) -> (tensor<2x?xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>) {
  %y, %indices, %inverse, %counts = graph.unique %x {axis = 1 : i64, sorted = true} : (tensor<2x3xf32>) -> (tensor<2x?xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
  return %y, %indices, %inverse, %counts : tensor<2x?xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>
}
