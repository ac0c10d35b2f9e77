// graph-infer-symbolic-shapes expresses extents and shape values as polynomials in the
// inputs' named dimensions, and refines types with the constant extents it finds.
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-infer-symbolic-shapes{annotate=true}))' | FileCheck %s

// BERT's head split: Reshape(x, Concat(batch, sequence, 12, 64)), the batch and sequence
// taken from the input's shape at run time, then the heads' transpose and a matmul of
// the projection; -1 in a target is what is left of the input's elements.
// CHECK-LABEL: func.func @heads
// CHECK-SAME: -> (tensor<?x12x?x64xf32>, tensor<?x?x12x64xf32>)
// CHECK: graph.shape {{.*}} {graph.symbolic_dims = {{\[\["3"\]\]}}, graph.symbolic_values = {{\[\["batch", "sequence", "768"\]\]}}
// CHECK: graph.gather {{.*}} {axis = 0 : i64, graph.symbolic_dims = {{\[\[\]\]}}, graph.symbolic_values = {{\[\["sequence"\]\]}}
// CHECK: graph.concat {{.*}}graph.symbolic_values = {{\[\["batch", "sequence", "12", "64"\]\]}}
// CHECK: graph.reshape {{.*}} {allowzero = false, graph.symbolic_dims = {{\[\["batch", "sequence", "12", "64"\]\]}}} : (tensor<?x?x768xf32>, tensor<4xi64>) -> tensor<?x?x12x64xf32>
// CHECK: graph.transpose {{.*}} -> tensor<?x12x?x64xf32>
// CHECK: graph.reshape {{.*}}graph.symbolic_dims = {{\[\["batch", "sequence", "12", "64"\]\]}}} : (tensor<?x?x768xf32>, tensor<4xi64>) -> tensor<?x?x12x64xf32>
func.func @heads(%x: tensor<?x?x768xf32> {graph.dims = ["batch", "sequence", ""], graph.name = "x"}) -> (tensor<*xf32>, tensor<*xf32>) {
  %s = graph.shape %x {start = 0 : i64} : (tensor<?x?x768xf32>) -> tensor<3xi64>
  %i0 = graph.constant dense<0> : tensor<i64>
  %i1 = graph.constant dense<1> : tensor<i64>
  %axis = graph.constant dense<0> : tensor<1xi64>
  %b = graph.gather %s, %i0 {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %q = graph.gather %s, %i1 {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %b1 = graph.unsqueeze %b, %axis : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %q1 = graph.unsqueeze %q, %axis : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %heads = graph.constant dense<[12, 64]> : tensor<2xi64>
  %target = graph.concat %b1, %q1, %heads {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>
  %r = graph.reshape %x, %target {allowzero = false} : (tensor<?x?x768xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  %t = graph.transpose %r {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x?x?x?xf32>) -> tensor<*xf32>
  %zeros = graph.constant dense<[0, 0, -1, 64]> : tensor<4xi64>
  %r2 = graph.reshape %x, %zeros {allowzero = false} : (tensor<?x?x768xf32>, tensor<4xi64>) -> tensor<*xf32>
  return %t, %r2 : tensor<*xf32>, tensor<*xf32>
}

// -----

// One name on several inputs is one symbol; a matmul's rows, a flatten's product, and a
// pointwise op's broadcast of [1, sequence, 768] against [batch, sequence, 768].
// CHECK-LABEL: func.func @named
// CHECK: graph.gather {{.*}}graph.symbolic_dims = {{\[\["batch", "sequence", "768"\]\]}}
// CHECK: graph.add {{.*}}graph.symbolic_dims = {{\[\["batch", "sequence", "768"\]\]}}
// CHECK: graph.matmul {{.*}}graph.symbolic_dims = {{\[\["batch", "sequence", "3072"\]\]}}
// CHECK: graph.flatten {{.*}}graph.symbolic_dims = {{\[\["batch\*sequence", "3072"\]\]}}
func.func @named(%ids: tensor<?x?xi64> {graph.dims = ["batch", "sequence"], graph.name = "input_ids"},
                 %pos: tensor<1x?x768xf32> {graph.dims = ["", "sequence", ""], graph.name = "positions"},
                 %table: tensor<100x768xf32>, %w: tensor<768x3072xf32>) -> tensor<?x?xf32> {
  %e = graph.gather %table, %ids {axis = 0 : i64} : (tensor<100x768xf32>, tensor<?x?xi64>) -> tensor<?x?x768xf32>
  %a = graph.add %e, %pos : (tensor<?x?x768xf32>, tensor<1x?x768xf32>) -> tensor<?x?x768xf32>
  %m = graph.matmul %a, %w : (tensor<?x?x768xf32>, tensor<768x3072xf32>) -> tensor<?x?x3072xf32>
  %f = graph.flatten %m {axis = 2 : i64} : (tensor<?x?x3072xf32>) -> tensor<?x?xf32>
  return %f : tensor<?x?xf32>
}

// -----

// The mask arithmetic of transformer exports: a Range over the sequence, and
// Where(Equal(shape, -1), 1, shape) before an Expand, which extents (at least 1) decide.
// An unnamed dynamic dimension is "<input>.<dim>".
// CHECK-LABEL: func.func @mask
// CHECK: graph.range {{.*}}graph.symbolic_dims = {{\[\["sequence"\]\]}}
// CHECK: graph.equal {{.*}}graph.symbolic_values = {{\[\["0", "0", "1"\]\]}}
// CHECK: graph.where {{.*}}graph.symbolic_values = {{\[\["batch", "1", "1"\]\]}}
// CHECK: graph.expand {{.*}}graph.symbolic_dims = {{\[\["batch", "1", "m.1"\]\]}}
func.func @mask(%x: tensor<?x?xi64> {graph.dims = ["batch", "sequence"], graph.name = "x"},
                %m: tensor<1x?xi1> {graph.name = "m"}) -> (tensor<?xi64>, tensor<?x?x?xi1>) {
  %s = graph.shape %x {start = 0 : i64} : (tensor<?x?xi64>) -> tensor<2xi64>
  %i0 = graph.constant dense<0> : tensor<i64>
  %i1 = graph.constant dense<1> : tensor<i64>
  %axis = graph.constant dense<0> : tensor<1xi64>
  %q = graph.gather %s, %i1 {axis = 0 : i64} : (tensor<2xi64>, tensor<i64>) -> tensor<i64>
  %range = graph.range %i0, %q, %i1 : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %b = graph.gather %s, %i0 {axis = 0 : i64} : (tensor<2xi64>, tensor<i64>) -> tensor<i64>
  %b1 = graph.unsqueeze %b, %axis : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %rest = graph.constant dense<[1, -1]> : tensor<2xi64>
  %shape = graph.concat %b1, %rest {axis = 0 : i64} : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
  %minus = graph.constant dense<-1> : tensor<3xi64>
  %is = graph.equal %shape, %minus : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %ones = graph.constant dense<1> : tensor<3xi64>
  %fixed = graph.where %is, %ones, %shape : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %e = graph.expand %m, %fixed : (tensor<1x?xi1>, tensor<3xi64>) -> tensor<?x?x?xi1>
  return %range, %e : tensor<?xi64>, tensor<?x?x?xi1>
}

// -----

// ResNet with a dynamic batch: convolutions and pooling keep it, the classifier's Gemm
// too; a value computed from data (NonZero) gets a fresh symbol.
// CHECK-LABEL: func.func @batch
// CHECK: graph.conv {{.*}}graph.symbolic_dims = {{\[\["N", "8", "6", "6"\]\]}}
// CHECK: graph.global_average_pool {{.*}}graph.symbolic_dims = {{\[\["N", "8", "1", "1"\]\]}}
// CHECK: graph.flatten {{.*}}graph.symbolic_dims = {{\[\["N", "8"\]\]}}
// CHECK: graph.gemm {{.*}}graph.symbolic_dims = {{\[\["N", "10"\]\]}}
// CHECK: graph.non_zero {{.*}}graph.symbolic_dims = {{\[\["4", "\?0"\]\]}}
func.func @batch(%x: tensor<?x3x8x8xf32> {graph.dims = ["N", "", "", ""], graph.name = "x"},
                 %w: tensor<8x3x3x3xf32>, %fc: tensor<10x8xf32>) -> (tensor<?x10xf32>, tensor<4x?xi64>) {
  %y = graph.conv %x, %w {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
                          pads = array<i64: 0, 0, 0, 0>, group = 1}
      : (tensor<?x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x6x6xf32>
  %p = graph.global_average_pool %y : (tensor<?x8x6x6xf32>) -> tensor<?x8x1x1xf32>
  %f = graph.flatten %p {axis = 1 : i64} : (tensor<?x8x1x1xf32>) -> tensor<?x8xf32>
  %g = graph.gemm %f, %fc {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<?x8xf32>, tensor<10x8xf32>) -> tensor<?x10xf32>
  %n = graph.non_zero %w : (tensor<8x3x3x3xf32>) -> tensor<4x?xi64>
  return %g, %n : tensor<?x10xf32>, tensor<4x?xi64>
}

// -----

// GPT-2's fused QKV projection split in three (an exact division of 2304), a softmax, a
// slice [0:1] of a dynamic extent (1, since extents are at least 1) and one from 1 to
// sequence + 1, a ConstantOfShape of ones with a Mod on shape values, and GatherND (one index a batch row).
// CHECK-LABEL: func.func @split_and_slices
// CHECK: graph.split {{.*}}graph.symbolic_dims = {{\[\["batch", "sequence", "768"\], \["batch", "sequence", "768"\], \["batch", "sequence", "768"\]\]}}
// CHECK: graph.softmax {{.*}}graph.symbolic_dims = {{\[\["batch", "sequence", "768"\]\]}}
// CHECK: graph.slice {{.*}}graph.symbolic_dims = {{\[\["batch", "1", "768"\]\]}}
// CHECK: graph.slice {{.*}}graph.symbolic_dims = {{\[\["batch", "sequence", "768"\]\]}}
// CHECK: graph.constant_of_shape {{.*}}graph.symbolic_values = {{\[\["1", "1", "1"\]\]}}
// CHECK: graph.mod {{.*}}graph.symbolic_values = {{\[\["1"\]\]}}
// CHECK: graph.mul {{.*}}graph.symbolic_values = {{\[\["1", "1", "1"\]\]}}
// CHECK: graph.gather_nd {{.*}}graph.symbolic_dims = {{\[\["batch", "768"\]\]}}
func.func @split_and_slices(%x: tensor<?x?x2304xf32> {graph.dims = ["batch", "sequence", ""], graph.name = "x"},
                            %idx: tensor<?x1xi64> {graph.dims = ["batch", ""], graph.name = "idx"})
    -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?xi64>, tensor<?x?xf32>) {
  %q:3 = graph.split %x {axis = 2 : i64, num_outputs = 3 : i64} : (tensor<?x?x2304xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>)
  %s = graph.softmax %q#0 {axis = -1 : i64} : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %zero = graph.constant dense<0> : tensor<1xi64>
  %one = graph.constant dense<1> : tensor<1xi64>
  %first = graph.slice %q#1, %zero, %one axes %one steps %one : (tensor<?x?x?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?x?xf32>
  %shape = graph.shape %x {start = 1 : i64, end = 2 : i64} : (tensor<?x?x2304xf32>) -> tensor<1xi64>
  %end = graph.add %shape, %one : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %padded = graph.concat %q#2, %q#2 {axis = 1 : i64} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %rest = graph.slice %padded, %one, %end axes %one steps %one : (tensor<?x?x?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?x?xf32>
  %three = graph.constant dense<3> : tensor<1xi64>
  %ones = graph.constant_of_shape %three {value = dense<1> : tensor<1xi64>} : (tensor<1xi64>) -> tensor<?xi64>
  %seven = graph.constant dense<7> : tensor<i64>
  %two = graph.constant dense<2> : tensor<i64>
  %mod = graph.mod %seven, %two {fmod = false} : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %again = graph.mul %ones, %mod : (tensor<?xi64>, tensor<i64>) -> tensor<?xi64>
  %rows = graph.gather_nd %q#0, %idx {batch_dims = 1 : i64} : (tensor<?x?x?xf32>, tensor<?x1xi64>) -> tensor<?x?xf32>
  return %s, %first, %rest, %again, %rows : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?xi64>, tensor<?x?xf32>
}

// -----

// A detector's ops on a run-time batch (RT-DETR's): reductions keep or drop their axes,
// ArgMax its axis; a Resize by whole constant scales multiplies the extents (the batch's
// scale of 1 keeps it); Tile multiplies by its repeats, Pad adds its pads; GatherElements
// has its indices' shape, GridSample [N, C] and the grid's extents; TopK's values and
// indices share k (or one fresh symbol for a computed k).
// CHECK-LABEL: func.func @detector
// CHECK: graph.reduce_max {{.*}}graph.symbolic_dims = {{\[\["batch", "8400"\]\]}}
// CHECK: graph.reduce_sum {{.*}}graph.symbolic_dims = {{\[\["batch", "1", "1"\]\]}}
// CHECK: graph.argmax {{.*}}graph.symbolic_dims = {{\[\["batch", "2"\]\]}}
// CHECK: graph.resize {{.*}}graph.symbolic_dims = {{\[\["batch", "8400", "4"\]\]}}
// CHECK: graph.tile {{.*}}graph.symbolic_dims = {{\[\["batch\*2", "8400", "4"\]\]}}
// CHECK: graph.pad {{.*}}graph.symbolic_dims = {{\[\["batch", "8402", "8"\]\]}}
// CHECK: graph.gather_elements {{.*}}graph.symbolic_dims = {{\[\["batch", "300", "2"\]\]}}
// CHECK: graph.grid_sample {{.*}}graph.symbolic_dims = {{\[\["batch", "8400", "300", "4"\]\]}}
// CHECK: graph.top_k {{.*}}graph.symbolic_dims = {{\[\["batch", "300"\], \["batch", "300"\]\]}}
// CHECK: graph.top_k {{.*}}graph.symbolic_dims = {{\[\["batch", "\?0"\], \["batch", "\?0"\]\]}}
func.func @detector(%x: tensor<?x8400x2xf32> {graph.dims = ["batch", "", ""], graph.name = "x"}, %grid: tensor<?x300x4x2xf32> {graph.dims = ["batch", "", "", ""], graph.name = "grid"}, %idx: tensor<?x300x2xi64> {graph.dims = ["batch", "", ""], graph.name = "idx"}, %kk: tensor<1xi64> {graph.name = "kk"}) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xi64>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi64>, tensor<*xi64>) {
  %last = graph.constant dense<-1> : tensor<1xi64>
  %inner = graph.constant dense<[1, 2]> : tensor<2xi64>
  %max = graph.reduce_max %x, %last {keepdims = false, noop_with_empty_axes = false} : (tensor<?x8400x2xf32>, tensor<1xi64>) -> tensor<*xf32>
  %sum = graph.reduce_sum %x, %inner {keepdims = true, noop_with_empty_axes = false} : (tensor<?x8400x2xf32>, tensor<2xi64>) -> tensor<*xf32>
  %arg = graph.argmax %x {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<?x8400x2xf32>) -> tensor<*xi64>
  %scales = graph.constant dense<[1.0, 1.0, 2.0]> : tensor<3xf32>
  %up = graph.resize %x scales(%scales) {antialias = false, coordinate_transformation_mode = "asymmetric", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, keep_aspect_ratio_policy = "stretch", mode = "nearest", nearest_mode = "floor"} : (tensor<?x8400x2xf32>, tensor<3xf32>) -> tensor<*xf32>
  %repeats = graph.constant dense<[2, 1, 2]> : tensor<3xi64>
  %tiled = graph.tile %x, %repeats : (tensor<?x8400x2xf32>, tensor<3xi64>) -> tensor<*xf32>
  %pads = graph.constant dense<[0, 1, 3, 0, 1, 3]> : tensor<6xi64>
  %padded = graph.pad %x, %pads {mode = "constant"} : (tensor<?x8400x2xf32>, tensor<6xi64>) -> tensor<*xf32>
  %gathered = graph.gather_elements %x, %idx {axis = 1 : i64} : (tensor<?x8400x2xf32>, tensor<?x300x2xi64>) -> tensor<*xf32>
  %image = graph.unsqueeze %x, %last : (tensor<?x8400x2xf32>, tensor<1xi64>) -> tensor<?x8400x2x1xf32>
  %sampled = graph.grid_sample %image, %grid {align_corners = false, mode = "linear", padding_mode = "zeros"} : (tensor<?x8400x2x1xf32>, tensor<?x300x4x2xf32>) -> tensor<*xf32>
  %k = graph.constant dense<300> : tensor<1xi64>
  %scores = graph.reduce_max %x, %last {keepdims = false, noop_with_empty_axes = false} : (tensor<?x8400x2xf32>, tensor<1xi64>) -> tensor<?x8400xf32>
  %v, %i = graph.top_k %scores, %k {axis = 1 : i64, largest = true, sorted = true} : (tensor<?x8400xf32>, tensor<1xi64>) -> (tensor<*xf32>, tensor<*xi64>)
  %v2, %i2 = graph.top_k %scores, %kk {axis = 1 : i64, largest = true, sorted = true} : (tensor<?x8400xf32>, tensor<1xi64>) -> (tensor<*xf32>, tensor<*xi64>)
  return %max, %sum, %arg, %up, %tiled, %padded, %gathered, %sampled, %i, %i2 : tensor<*xf32>, tensor<*xf32>, tensor<*xi64>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi64>, tensor<*xi64>
}
