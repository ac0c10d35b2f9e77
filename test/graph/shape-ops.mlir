// Round trip of the shape and data-movement ops, in the custom and in the generic form.
// The declared result types are what the shape rules infer, so a wrong rule fails here.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @reshape
func.func @reshape(%x: tensor<2x3x4xf32>, %d: tensor<?x3x4xf32>, %s: tensor<3xi64>) {
  %c = graph.constant dense<[0, -1]> : tensor<2xi64>
  // 0 copies the input extent and -1 takes the rest.
  // CHECK: graph.reshape %{{.*}}, %{{.*}} {allowzero = false} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  %a = graph.reshape %x, %c {allowzero = false} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  // With a dynamic input extent the -1 stays dynamic.
  // CHECK: graph.reshape {{.*}} -> tensor<?x?xf32>
  %b = graph.reshape %d, %c {allowzero = false} : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  // A shape that is not a constant gives the rank only.
  // CHECK: graph.reshape {{.*}} {allowzero = true} : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %e = graph.reshape %x, %s {allowzero = true} : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  return
}

// CHECK-LABEL: func.func @transpose_flatten
func.func @transpose_flatten(%x: tensor<2x?x4xf16>) {
  // CHECK: graph.transpose %{{.*}} {perm = array<i64: 2, 0, 1>} : (tensor<2x?x4xf16>) -> tensor<4x2x?xf16>
  %t = graph.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x?x4xf16>) -> tensor<4x2x?xf16>
  // CHECK: graph.flatten %{{.*}} {axis = 1 : i64} : (tensor<2x?x4xf16>) -> tensor<2x?xf16>
  %f = graph.flatten %x {axis = 1} : (tensor<2x?x4xf16>) -> tensor<2x?xf16>
  // CHECK: graph.flatten %{{.*}} {axis = -1 : i64} : (tensor<2x?x4xf16>) -> tensor<?x4xf16>
  %g = graph.flatten %x {axis = -1} : (tensor<2x?x4xf16>) -> tensor<?x4xf16>
  return
}

// CHECK-LABEL: func.func @squeeze_unsqueeze
func.func @squeeze_unsqueeze(%x: tensor<1x3x1xf32>, %u: tensor<*xf32>) {
  %axes = graph.constant dense<[-1]> : tensor<1xi64>
  // CHECK: graph.squeeze %{{.*}}, %{{.*}} : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<1x3xf32>
  %a = graph.squeeze %x, %axes : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<1x3xf32>
  // CHECK: graph.squeeze %{{.*}} : (tensor<1x3x1xf32>) -> tensor<3xf32>
  %b = graph.squeeze %x : (tensor<1x3x1xf32>) -> tensor<3xf32>
  %ins = graph.constant dense<[0, 4]> : tensor<2xi64>
  // CHECK: graph.unsqueeze %{{.*}}, %{{.*}} : (tensor<1x3x1xf32>, tensor<2xi64>) -> tensor<1x1x3x1x1xf32>
  %c = graph.unsqueeze %x, %ins : (tensor<1x3x1xf32>, tensor<2xi64>) -> tensor<1x1x3x1x1xf32>
  // CHECK: graph.unsqueeze {{.*}} : (tensor<*xf32>, tensor<2xi64>) -> tensor<*xf32>
  %d = graph.unsqueeze %u, %ins : (tensor<*xf32>, tensor<2xi64>) -> tensor<*xf32>
  return
}

// CHECK-LABEL: func.func @expand_tile
func.func @expand_tile(%x: tensor<3x1xi32>, %s: tensor<3xi64>) {
  %shape = graph.constant dense<[2, 1, 6]> : tensor<3xi64>
  // Bidirectional broadcast: 1 keeps the input extent.
  // CHECK: graph.expand %{{.*}}, %{{.*}} : (tensor<3x1xi32>, tensor<3xi64>) -> tensor<2x3x6xi32>
  %a = graph.expand %x, %shape : (tensor<3x1xi32>, tensor<3xi64>) -> tensor<2x3x6xi32>
  // CHECK: graph.expand {{.*}} -> tensor<?x?x?xi32>
  %b = graph.expand %x, %s : (tensor<3x1xi32>, tensor<3xi64>) -> tensor<?x?x?xi32>
  %repeats = graph.constant dense<[2, 3]> : tensor<2xi64>
  // CHECK: graph.tile %{{.*}}, %{{.*}} : (tensor<3x1xi32>, tensor<2xi64>) -> tensor<6x3xi32>
  %c = graph.tile %x, %repeats : (tensor<3x1xi32>, tensor<2xi64>) -> tensor<6x3xi32>
  return
}

// CHECK-LABEL: func.func @depth_space
func.func @depth_space(%x: tensor<1x8x2x3xf32>) {
  // CHECK: graph.depth_to_space %{{.*}} {blocksize = 2 : i64, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %a = graph.depth_to_space %x {blocksize = 2, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  // CHECK: graph.space_to_depth %{{.*}} {blocksize = 2 : i64} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  %b = graph.space_to_depth %a {blocksize = 2} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  return
}

// CHECK-LABEL: func.func @concat_split
func.func @concat_split(%a: tensor<2x3xf32>, %b: tensor<2x?xf32>, %c: tensor<?x5xf32>) {
  // CHECK: graph.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<?x5xf32>) -> tensor<2x8xf32>
  %x = graph.concat %a, %c {axis = 1} : (tensor<2x3xf32>, tensor<?x5xf32>) -> tensor<2x8xf32>
  // CHECK: graph.concat {{.*}} {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  %y = graph.concat %a, %b {axis = -1} : (tensor<2x3xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  %sizes = graph.constant dense<[2, 6]> : tensor<2xi64>
  // CHECK: graph.split %{{.*}}, %{{.*}} {axis = 1 : i64, num_outputs = 2 : i64} : (tensor<2x8xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x6xf32>)
  %p:2 = graph.split %x, %sizes {axis = 1, num_outputs = 2} : (tensor<2x8xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x6xf32>)
  // Without sizes the parts have ceil(8 / 3) = 3 elements, the last one what is left.
  // CHECK: graph.split %{{.*}} {axis = -1 : i64, num_outputs = 3 : i64} : (tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>)
  %q:3 = graph.split %x {axis = -1, num_outputs = 3} : (tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>)
  return
}

// CHECK-LABEL: func.func @slice
func.func @slice(%x: tensor<10x20x?xf32>, %s: tensor<1xi64>) {
  %starts = graph.constant dense<[1, -1]> : tensor<2xi64>
  %ends = graph.constant dense<[1000, -100]> : tensor<2xi64>
  %axes = graph.constant dense<[0, 1]> : tensor<2xi64>
  %steps = graph.constant dense<[3, -2]> : tensor<2xi64>
  // Ends are clamped; a negative step walks backwards: ceil(9 / 3) = 3 and ceil(20 / 2) = 10.
  // CHECK: graph.slice %{{.*}}, %{{.*}}, %{{.*}} axes %{{.*}} steps %{{.*}} : (tensor<10x20x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x10x?xf32>
  %a = graph.slice %x, %starts, %ends axes %axes steps %steps
      : (tensor<10x20x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x10x?xf32>
  // Default axes are the leading ones; a start that is not constant leaves axis 0 dynamic.
  // CHECK: graph.slice %{{.*}}, %{{.*}}, %{{.*}} : (tensor<10x20x?xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x20x?xf32>
  %e = graph.slice %x, %s, %s : (tensor<10x20x?xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x20x?xf32>
  return
}

// CHECK-LABEL: func.func @pad
func.func @pad(%x: tensor<2x3xf32>, %v: tensor<f32>) {
  %pads = graph.constant dense<[1, 0, 2, -1]> : tensor<4xi64>
  // CHECK: graph.pad %{{.*}}, %{{.*}} value %{{.*}} {mode = "constant"} : (tensor<2x3xf32>, tensor<4xi64>, tensor<f32>) -> tensor<5x2xf32>
  %a = graph.pad %x, %pads value %v {mode = "constant"} : (tensor<2x3xf32>, tensor<4xi64>, tensor<f32>) -> tensor<5x2xf32>
  %p = graph.constant dense<[2, 2]> : tensor<2xi64>
  %axes = graph.constant dense<[-1]> : tensor<1xi64>
  // CHECK: graph.pad %{{.*}}, %{{.*}} axes %{{.*}} {mode = "reflect"} : (tensor<2x3xf32>, tensor<2xi64>, tensor<1xi64>) -> tensor<2x7xf32>
  %b = graph.pad %x, %p axes %axes {mode = "reflect"} : (tensor<2x3xf32>, tensor<2xi64>, tensor<1xi64>) -> tensor<2x7xf32>
  %shape = graph.constant dense<[5]> : tensor<1xi64>
  // CHECK: graph.center_crop_pad %{{.*}}, %{{.*}} {axes = array<i64: 1>} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x5xf32>
  %c = graph.center_crop_pad %x, %shape {axes = array<i64: 1>} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x5xf32>
  return
}

// CHECK-LABEL: func.func @gather_scatter
func.func @gather_scatter(%data: tensor<5x4x3xf32>, %i: tensor<2x7xi64>, %e: tensor<5x4x2xi32>,
                          %nd: tensor<6x2xi64>, %u: tensor<6x3xf32>, %ue: tensor<5x4x2xf32>) {
  // CHECK: graph.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<5x4x3xf32>, tensor<2x7xi64>) -> tensor<5x2x7x3xf32>
  %a = graph.gather %data, %i {axis = 1} : (tensor<5x4x3xf32>, tensor<2x7xi64>) -> tensor<5x2x7x3xf32>
  // CHECK: graph.gather_elements %{{.*}}, %{{.*}} {axis = 2 : i64} : (tensor<5x4x3xf32>, tensor<5x4x2xi32>) -> tensor<5x4x2xf32>
  %b = graph.gather_elements %data, %e {axis = 2} : (tensor<5x4x3xf32>, tensor<5x4x2xi32>) -> tensor<5x4x2xf32>
  // CHECK: graph.gather_nd %{{.*}}, %{{.*}} {batch_dims = 0 : i64} : (tensor<5x4x3xf32>, tensor<6x2xi64>) -> tensor<6x3xf32>
  %c = graph.gather_nd %data, %nd {batch_dims = 0} : (tensor<5x4x3xf32>, tensor<6x2xi64>) -> tensor<6x3xf32>
  // CHECK: graph.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} {reduction = "add"} : (tensor<5x4x3xf32>, tensor<6x2xi64>, tensor<6x3xf32>) -> tensor<5x4x3xf32>
  %d = graph.scatter_nd %data, %nd, %u {reduction = "add"} : (tensor<5x4x3xf32>, tensor<6x2xi64>, tensor<6x3xf32>) -> tensor<5x4x3xf32>
  // CHECK: graph.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = -1 : i64, reduction = "none"} : (tensor<5x4x3xf32>, tensor<5x4x2xi32>, tensor<5x4x2xf32>) -> tensor<5x4x3xf32>
  %f = graph.scatter_elements %data, %e, %ue {axis = -1, reduction = "none"} : (tensor<5x4x3xf32>, tensor<5x4x2xi32>, tensor<5x4x2xf32>) -> tensor<5x4x3xf32>
  return
}

// CHECK-LABEL: func.func @data_dependent
func.func @data_dependent(%x: tensor<3x4xf32>, %c: tensor<2xi1>, %lens: tensor<4xi64>, %k: tensor<i64>) {
  // CHECK: graph.compress %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2xi1>) -> tensor<?x4xf32>
  %a = graph.compress %x, %c {axis = 0} : (tensor<3x4xf32>, tensor<2xi1>) -> tensor<?x4xf32>
  // CHECK: graph.compress %{{.*}}, %{{.*}} : (tensor<3x4xf32>, tensor<2xi1>) -> tensor<?xf32>
  %b = graph.compress %x, %c : (tensor<3x4xf32>, tensor<2xi1>) -> tensor<?xf32>
  %keep = graph.constant dense<[true, false, true]> : tensor<3xi1>
  // A constant condition gives the selected count; it may be shorter than the axis.
  // CHECK: graph.compress {{.*}} {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3xi1>) -> tensor<3x2xf32>
  %kept = graph.compress %x, %keep {axis = 1} : (tensor<3x4xf32>, tensor<3xi1>) -> tensor<3x2xf32>
  // CHECK: graph.non_zero %{{.*}} : (tensor<3x4xf32>) -> tensor<2x?xi64>
  %n = graph.non_zero %x : (tensor<3x4xf32>) -> tensor<2x?xi64>
  // CHECK: graph.reverse_sequence %{{.*}}, %{{.*}} {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  %r = graph.reverse_sequence %x, %lens {batch_axis = 1, time_axis = 0} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  // CHECK: graph.trilu %{{.*}}, %{{.*}} {upper = false} : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
  %t = graph.trilu %x, %k {upper = false} : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
  return
}

// CHECK-LABEL: func.func @shapes_as_values
func.func @shapes_as_values(%x: tensor<2x?x4xbf16>, %u: tensor<*xbf16>) {
  // CHECK: graph.shape %{{.*}} {start = 0 : i64} : (tensor<2x?x4xbf16>) -> tensor<3xi64>
  %a = graph.shape %x {start = 0} : (tensor<2x?x4xbf16>) -> tensor<3xi64>
  // start and end are clamped to [0, rank].
  // CHECK: graph.shape %{{.*}} {end = 10 : i64, start = -2 : i64} : (tensor<2x?x4xbf16>) -> tensor<2xi64>
  %b = graph.shape %x {start = -2, end = 10} : (tensor<2x?x4xbf16>) -> tensor<2xi64>
  // CHECK: graph.shape %{{.*}} {start = 0 : i64} : (tensor<*xbf16>) -> tensor<?xi64>
  %c = graph.shape %u {start = 0} : (tensor<*xbf16>) -> tensor<?xi64>
  // CHECK: graph.size %{{.*}} : (tensor<*xbf16>) -> tensor<i64>
  %d = graph.size %u : (tensor<*xbf16>) -> tensor<i64>
  return
}

// CHECK-LABEL: func.func @range
func.func @range(%n: tensor<i32>) {
  %start = graph.constant dense<1.0> : tensor<f32>
  %limit = graph.constant dense<5.5> : tensor<f32>
  %delta = graph.constant dense<2.0> : tensor<f32>
  // ceil((5.5 - 1) / 2) = 3 elements.
  // CHECK: graph.range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<3xf32>
  %a = graph.range %start, %limit, %delta : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<3xf32>
  %zero = graph.constant dense<0> : tensor<i32>
  %step = graph.constant dense<-1> : tensor<i32>
  // A limit that is not a constant leaves the extent dynamic.
  // CHECK: graph.range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  %b = graph.range %zero, %n, %step : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  %ten = graph.constant dense<10> : tensor<i32>
  // An empty range: the limit is above the start but the delta is negative.
  // CHECK: graph.range {{.*}} -> tensor<0xi32>
  %c = graph.range %zero, %ten, %step : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<0xi32>
  return
}

// CHECK-LABEL: func.func @filled
func.func @filled(%x: tensor<3x3xf32>, %s: tensor<2xi64>, %i: tensor<4xi64>) {
  %shape = graph.constant dense<[2, 3]> : tensor<2xi64>
  // The value's element type is the result's.
  // CHECK: graph.constant_of_shape %{{.*}} {value = dense<7> : tensor<1xi32>} : (tensor<2xi64>) -> tensor<2x3xi32>
  %a = graph.constant_of_shape %shape {value = dense<7> : tensor<1xi32>} : (tensor<2xi64>) -> tensor<2x3xi32>
  // CHECK: graph.constant_of_shape {{.*}} -> tensor<?x?xf32>
  %b = graph.constant_of_shape %s {value = dense<0.0> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<?x?xf32>
  // CHECK: graph.eye_like %{{.*}} {dtype = i1, k = 1 : i64} : (tensor<3x3xf32>) -> tensor<3x3xi1>
  %c = graph.eye_like %x {dtype = i1, k = 1} : (tensor<3x3xf32>) -> tensor<3x3xi1>
  %depth = graph.constant dense<10.0> : tensor<f32>
  %values = graph.constant dense<[0, 1]> : tensor<2xi64>
  // CHECK: graph.one_hot %{{.*}}, %{{.*}}, %{{.*}} {axis = -1 : i64} : (tensor<4xi64>, tensor<f32>, tensor<2xi64>) -> tensor<4x10xi64>
  %d = graph.one_hot %i, %depth, %values {axis = -1} : (tensor<4xi64>, tensor<f32>, tensor<2xi64>) -> tensor<4x10xi64>
  return
}

// Unranked operands: the rules keep whatever the other operands and attributes imply.
// CHECK-LABEL: func.func @unranked
func.func @unranked(%u: tensor<*xf32>, %r: tensor<2x3xf32>, %i: tensor<*xi64>) {
  %s = graph.constant dense<[4, -1, 0]> : tensor<3xi64>
  // -1 needs the element count; 0 copies an unknown extent.
  // CHECK: graph.reshape {{.*}} : (tensor<*xf32>, tensor<3xi64>) -> tensor<4x?x?xf32>
  %a = graph.reshape %u, %s {allowzero = false} : (tensor<*xf32>, tensor<3xi64>) -> tensor<4x?x?xf32>
  // The permutation gives the rank.
  // CHECK: graph.transpose {{.*}} : (tensor<*xf32>) -> tensor<?x?xf32>
  %b = graph.transpose %u {perm = array<i64: 1, 0>} : (tensor<*xf32>) -> tensor<?x?xf32>
  // A ranked input fixes the rank and the non-axis extents.
  // CHECK: graph.concat {{.*}} : (tensor<*xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  %c = graph.concat %u, %r {axis = 0} : (tensor<*xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  // CHECK: graph.gather {{.*}} : (tensor<2x3xf32>, tensor<*xi64>) -> tensor<*xf32>
  %d = graph.gather %r, %i {axis = 0} : (tensor<2x3xf32>, tensor<*xi64>) -> tensor<*xf32>
  // CHECK: graph.flatten {{.*}} : (tensor<*xf32>) -> tensor<?x?xf32>
  %e = graph.flatten %u {axis = 1} : (tensor<*xf32>) -> tensor<?x?xf32>
  // CHECK: graph.depth_to_space {{.*}} : (tensor<*xf32>) -> tensor<?x?x?x?xf32>
  %f = graph.depth_to_space %u {blocksize = 2, mode = "DCR"} : (tensor<*xf32>) -> tensor<?x?x?x?xf32>
  // CHECK: graph.non_zero {{.*}} : (tensor<*xf32>) -> tensor<?x?xi64>
  %g = graph.non_zero %u : (tensor<*xf32>) -> tensor<?x?xi64>
  // CHECK: graph.eye_like {{.*}} : (tensor<*xf32>) -> tensor<?x?xf16>
  %h = graph.eye_like %u {dtype = f16, k = 0} : (tensor<*xf32>) -> tensor<?x?xf16>
  %repeats = graph.constant dense<[2, 0]> : tensor<2xi64>
  // The repeats give the rank; a repeat of 0 gives an empty dimension.
  // CHECK: graph.tile {{.*}} : (tensor<*xf32>, tensor<2xi64>) -> tensor<?x0xf32>
  %t = graph.tile %u, %repeats : (tensor<*xf32>, tensor<2xi64>) -> tensor<?x0xf32>
  // CHECK: graph.slice {{.*}} : (tensor<*xf32>, tensor<3xi64>, tensor<3xi64>) -> tensor<*xf32>
  %sl = graph.slice %u, %s, %s : (tensor<*xf32>, tensor<3xi64>, tensor<3xi64>) -> tensor<*xf32>
  return
}
