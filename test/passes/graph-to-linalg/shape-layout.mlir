// RUN: kiln-opt --graph-to-linalg %s -split-input-file | FileCheck %s

// A static reshape that only splits dimensions is an expand_shape (a view after
// bufferization); the shape operand is not read.
// CHECK-LABEL: func.func @reshape_expand
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [2, 3, 4]
func.func @reshape_expand(%x: tensor<6x4xf32>, %s: tensor<3xi64>) -> tensor<2x3x4xf32> {
  %0 = graph.reshape %x, %s {allowzero = false} : (tensor<6x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// A reshape that regroups across dimensions goes through one dimension.
// CHECK-LABEL: func.func @reshape_regroup
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [3, 2]
func.func @reshape_regroup(%x: tensor<2x3xf32>, %s: tensor<2xi64>) -> tensor<3x2xf32> {
  %0 = graph.reshape %x, %s {allowzero = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// A dynamic reshape reads the shape at run time (0 copies the input extent) and becomes
// tensor.reshape.
// CHECK-LABEL: func.func @reshape_dynamic
// CHECK: tensor.extract %arg1
// CHECK: tensor.from_elements
// CHECK: tensor.reshape %arg0(%{{.*}}) : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x?xf32>
func.func @reshape_dynamic(%x: tensor<?x4xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = graph.reshape %x, %s {allowzero = false} : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK: linalg.transpose ins(%arg0 : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x2x3xf32>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = graph.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @flatten
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2, 3]] : tensor<2x3x4x5xf32> into tensor<6x20xf32>
func.func @flatten(%x: tensor<2x3x4x5xf32>) -> tensor<6x20xf32> {
  %0 = graph.flatten %x {axis = 2 : i64} : (tensor<2x3x4x5xf32>) -> tensor<6x20xf32>
  return %0 : tensor<6x20xf32>
}

// -----

// Squeeze and Unsqueeze keep the dynamic extents through collapse/expand-free reshapes
// computed from the constant axes.
// CHECK-LABEL: func.func @squeeze
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<1x3x4xf32> into tensor<3x4xf32>
func.func @squeeze(%x: tensor<1x3x4xf32>) -> tensor<3x4xf32> {
  %axes = graph.constant dense<[0]> : tensor<1xi64>
  %0 = graph.squeeze %x, %axes : (tensor<1x3x4xf32>, tensor<1xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @unsqueeze
// CHECK: tensor.expand_shape %arg0 {{\[\[}}0], [1, 2, 3]] output_shape [3, 1, 4, 1]
func.func @unsqueeze(%x: tensor<3x4xf32>) -> tensor<3x1x4x1xf32> {
  %axes = graph.constant dense<[1, -1]> : tensor<2xi64>
  %0 = graph.unsqueeze %x, %axes : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<3x1x4x1xf32>
  return %0 : tensor<3x1x4x1xf32>
}

// -----

// Expand reads the input through its broadcast map.
// CHECK-DAG: #[[BCAST:.*]] = affine_map<(d0, d1, d2) -> (0, d2)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @expand
// CHECK: linalg.generic {indexing_maps = [#[[BCAST]], #[[ID]]]
func.func @expand(%x: tensor<1x4xf32>, %s: tensor<3xi64>) -> tensor<2x3x4xf32> {
  %0 = graph.expand %x, %s : (tensor<1x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Tile reads the input at (index mod extent).
// CHECK-LABEL: func.func @tile
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: arith.remui
// CHECK: tensor.extract %arg0
func.func @tile(%x: tensor<2x3xf32>, %r: tensor<2xi64>) -> tensor<4x9xf32> {
  %0 = graph.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// -----

// DepthToSpace (DCR): expand the channels into blocks, move them, collapse.
// CHECK-LABEL: func.func @depth_to_space
// CHECK: tensor.expand_shape %arg0 {{.*}} output_shape [1, 2, 2, 2, 3, 3]
// CHECK: linalg.transpose {{.*}} permutation = [0, 3, 4, 1, 5, 2]
// CHECK: tensor.collapse_shape {{.*}} into tensor<1x2x6x6xf32>
func.func @depth_to_space(%x: tensor<1x8x3x3xf32>) -> tensor<1x2x6x6xf32> {
  %0 = graph.depth_to_space %x {blocksize = 2 : i64, mode = "DCR"} : (tensor<1x8x3x3xf32>) -> tensor<1x2x6x6xf32>
  return %0 : tensor<1x2x6x6xf32>
}

// -----

// CHECK-LABEL: func.func @space_to_depth
// CHECK: linalg.transpose {{.*}} permutation = [0, 3, 5, 1, 2, 4]
func.func @space_to_depth(%x: tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32> {
  %0 = graph.space_to_depth %x {blocksize = 2 : i64} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  return %0 : tensor<1x8x2x3xf32>
}

// -----

// Concat: one generic over the result that reads each element from the input its index
// along the axis falls in (at the index less that input's start); no copies into slices.
// CHECK-LABEL: func.func @concat
// CHECK-NOT: linalg.copy
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x5xf32>)
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[AFTER:.*]] = arith.cmpi uge, %[[J]], %[[START:.*]] : index
// CHECK: %[[WHICH:.*]] = arith.select %[[AFTER]]
// CHECK: scf.index_switch %[[WHICH]] -> f32
// CHECK: case 1 {
// CHECK: %[[AT:.*]] = arith.subi %[[J]], %[[START]] : index
// CHECK: tensor.extract %arg1[%{{.*}}, %[[AT]]] : tensor<2x3xf32>
// CHECK: default {
// CHECK: tensor.extract %arg0[{{.*}}] : tensor<2x2xf32>
func.func @concat(%a: tensor<2x2xf32>, %b: tensor<2x3xf32>) -> tensor<2x5xf32> {
  %0 = graph.concat %a, %b {axis = -1 : i64} : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// CHECK-LABEL: func.func @split
// CHECK: tensor.extract_slice %arg0[0, 0] [2, 2] [1, 1]
// CHECK: tensor.extract_slice %arg0[0, 2] [2, 4] [1, 1]
func.func @split(%x: tensor<2x6xf32>) -> (tensor<2x2xf32>, tensor<2x4xf32>) {
  %s = graph.constant dense<[2, 4]> : tensor<2xi64>
  %0:2 = graph.split %x, %s {axis = 1 : i64, num_outputs = 2 : i64} : (tensor<2x6xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x4xf32>)
  return %0#0, %0#1 : tensor<2x2xf32>, tensor<2x4xf32>
}

// -----

// Positive constant steps: an extract_slice whose offsets are the clamped starts (read at
// run time here) and whose strides are the steps.
// CHECK-LABEL: func.func @slice
// CHECK: tensor.extract %arg1
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract_slice %arg0[0, %{{.*}}] [3, 2] [1, 2]
func.func @slice(%x: tensor<3x10xf32>, %starts: tensor<1xi64>, %ends: tensor<1xi64>) -> tensor<3x2xf32> {
  %axes = graph.constant dense<[1]> : tensor<1xi64>
  %steps = graph.constant dense<[2]> : tensor<1xi64>
  %0 = graph.slice %x, %starts, %ends axes %axes steps %steps : (tensor<3x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Negative steps: a generic reading start + index * step.
// CHECK-LABEL: func.func @slice_negative_step
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK: tensor.extract %arg0
func.func @slice_negative_step(%x: tensor<10xf32>) -> tensor<4xf32> {
  %starts = graph.constant dense<[-1]> : tensor<1xi64>
  %ends = graph.constant dense<[2]> : tensor<1xi64>
  %axes = graph.constant dense<[0]> : tensor<1xi64>
  %steps = graph.constant dense<[-2]> : tensor<1xi64>
  %0 = graph.slice %x, %starts, %ends axes %axes steps %steps : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A slice starting at the end is empty: a new empty tensor, not an extract_slice whose
// offset the verifier would reject (seen in ViT's exported shape arithmetic).
// CHECK-LABEL: func.func @slice_empty_at_end
// CHECK-NOT: tensor.extract_slice
// CHECK: tensor.empty() : tensor<0xi64>
func.func @slice_empty_at_end(%x: tensor<4xi64>) -> tensor<0xi64> {
  %starts = graph.constant dense<[4]> : tensor<1xi64>
  %ends = graph.constant dense<[9223372036854775807]> : tensor<1xi64>
  %axes = graph.constant dense<[0]> : tensor<1xi64>
  %0 = graph.slice %x, %starts, %ends axes %axes : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<0xi64>
  return %0 : tensor<0xi64>
}

// -----

// An empty operand of a concat is skipped: it has no elements to read.
// CHECK-LABEL: func.func @concat_empty_operand
// CHECK: scf.index_switch
// CHECK-NEXT: case 1 {
// CHECK-NOT: case 2
// CHECK: default {
func.func @concat_empty_operand(%a: tensor<2xi64>, %b: tensor<2xi64>, %c: tensor<0xi64>) -> tensor<4xi64> {
  %0 = graph.concat %a, %b, %c {axis = 0 : i64} : (tensor<2xi64>, tensor<2xi64>, tensor<0xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Constant mode with constant pads: negative pads crop (extract_slice), positive ones
// pad: one generic that writes each element once, the input's where its index (less the
// low pad) falls inside it, else the pad value (no fill-then-copy).
// CHECK-LABEL: func.func @pad_constant
// CHECK: %[[CROP:.*]] = tensor.extract_slice %arg0[0, 1] [3, 3] [1, 1]
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x5xf32>)
// CHECK: tensor.extract %[[CROP]]
// CHECK: arith.select
// CHECK-NOT: linalg.fill
func.func @pad_constant(%x: tensor<3x4xf32>) -> tensor<4x5xf32> {
  %pads = graph.constant dense<[1, -1, 0, 2]> : tensor<4xi64>
  %0 = graph.pad %x, %pads {mode = "constant"} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// Reflect (like edge and wrap) is a generic computing the mirrored source index.
// CHECK-LABEL: func.func @pad_reflect
// CHECK: linalg.generic
// CHECK: arith.remsi
// CHECK: tensor.extract %arg0
func.func @pad_reflect(%x: tensor<3x4xf32>) -> tensor<3x8xf32> {
  %pads = graph.constant dense<[0, 2, 0, 2]> : tensor<4xi64>
  %0 = graph.pad %x, %pads {mode = "reflect"} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

// CenterCropPad: a generic reading at the centred offset, zero outside the input.
// CHECK-LABEL: func.func @center_crop_pad
// CHECK: linalg.generic
// CHECK: arith.select
func.func @center_crop_pad(%x: tensor<5x2xf32>) -> tensor<3x4xf32> {
  %shape = graph.constant dense<[3, 4]> : tensor<2xi64>
  %0 = graph.center_crop_pad %x, %shape {axes = array<i64: 0, 1>} : (tensor<5x2xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Trilu keeps column - row >= k (upper).
// CHECK-LABEL: func.func @triu
// CHECK: linalg.generic
// CHECK: %[[ROW:.*]] = linalg.index 1
// CHECK: %[[COL:.*]] = linalg.index 2
// CHECK: arith.subi %[[COL]], %[[ROW]]
// CHECK: arith.cmpi sge
func.func @triu(%x: tensor<2x3x4xf32>, %k: tensor<i64>) -> tensor<2x3x4xf32> {
  %0 = graph.trilu %x, %k {upper = true} : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @eye_like
// CHECK: linalg.generic
// CHECK: arith.cmpi eq
// CHECK: arith.select {{.*}} : i32
func.func @eye_like(%x: tensor<3x4xf32>) -> tensor<3x4xi32> {
  %0 = graph.eye_like %x {dtype = i32, k = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// -----

// Shape and Size of static tensors are constants.
// CHECK-LABEL: func.func @shape
// CHECK: arith.constant dense<[3, 4]> : tensor<2xi64>
func.func @shape(%x: tensor<2x3x4xf32>) -> tensor<2xi64> {
  %0 = graph.shape %x {start = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @shape_dynamic
// CHECK: tensor.dim %arg0
// CHECK: tensor.from_elements {{.*}} : tensor<2xi64>
func.func @shape_dynamic(%x: tensor<?x4xf32>) -> tensor<2xi64> {
  %0 = graph.shape %x {start = 0 : i64} : (tensor<?x4xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @size
// CHECK: arith.constant dense<24> : tensor<i64>
func.func @size(%x: tensor<2x3x4xf32>) -> tensor<i64> {
  %0 = graph.size %x : (tensor<2x3x4xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// Range writes start + index * delta; a dynamic length is ceil((limit - start) / delta).
// CHECK-LABEL: func.func @range
// CHECK: arith.ceildivsi
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK: arith.addi
func.func @range(%start: tensor<i32>, %limit: tensor<i32>, %delta: tensor<i32>) -> tensor<?xi32> {
  %0 = graph.range %start, %limit, %delta : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  return %0 : tensor<?xi32>
}

// -----

// CHECK-LABEL: func.func @constant_of_shape
// CHECK: %[[VALUE:.*]] = arith.constant 7 : i32
// CHECK: linalg.fill ins(%[[VALUE]] : i32) outs(%{{.*}} : tensor<2x3xi32>)
func.func @constant_of_shape(%s: tensor<2xi64>) -> tensor<2x3xi32> {
  %0 = graph.constant_of_shape %s {value = dense<7> : tensor<1xi32>} : (tensor<2xi64>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
