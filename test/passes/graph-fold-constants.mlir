// RUN: kiln-opt %s -split-input-file --kiln-graph-pipeline | FileCheck %s

// Shape sub-graphs of static tensors fold in the graph pipeline (infer-shapes,
// fold-constants, simplify): the Reshape target an exporter computes from Shape -> Gather
// -> Unsqueeze -> Concat becomes a constant and the result type static.
// CHECK-LABEL: func.func @shape_gather_concat_reshape
// CHECK-SAME: -> tensor<2x12xf32>
// CHECK-NOT: graph.shape
// CHECK-NOT: graph.gather
// CHECK-NOT: graph.concat
// CHECK: %[[T:.*]] = graph.constant dense<[2, -1]> : tensor<2xi64>
// CHECK: graph.reshape %arg0, %[[T]] {allowzero = false} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
func.func @shape_gather_concat_reshape(%x: tensor<2x3x4xf32>) -> tensor<?x?xf32> {
  %s = graph.shape %x {start = 0 : i64} : (tensor<2x3x4xf32>) -> tensor<?xi64>
  %i0 = graph.constant dense<0> : tensor<i64>
  %d0 = graph.gather %s, %i0 {axis = 0 : i64} : (tensor<?xi64>, tensor<i64>) -> tensor<i64>
  %ax = graph.constant dense<0> : tensor<1xi64>
  %u0 = graph.unsqueeze %d0, %ax : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %m1 = graph.constant dense<-1> : tensor<1xi64>
  %t = graph.concat %u0, %m1 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<?xi64>
  %r = graph.reshape %x, %t {allowzero = false} : (tensor<2x3x4xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Range, ConstantOfShape and Size of static shapes become constants; Expand to a computed
// static shape gets a static type (and goes where it moves nothing).
// CHECK-LABEL: func.func @range_constant_of_shape_size_expand
// CHECK-SAME: -> (tensor<5xi64>, tensor<2x5xf32>, tensor<i64>, tensor<2x5xf32>, tensor<2x5xf32>)
// CHECK-NOT: graph.range
// CHECK-NOT: graph.constant_of_shape
// CHECK-NOT: graph.size
// CHECK-DAG: %[[R:.*]] = graph.constant dense<[0, 1, 2, 3, 4]> : tensor<5xi64>
// CHECK-DAG: %[[C:.*]] = graph.constant dense<1.500000e+00> : tensor<2x5xf32>
// CHECK-DAG: %[[N:.*]] = graph.constant dense<10> : tensor<i64>
// CHECK: %[[E:.*]] = graph.expand %arg1, %{{.*}} : (tensor<2x1xf32>, tensor<2xi64>) -> tensor<2x5xf32>
// CHECK: return %[[R]], %[[C]], %[[N]], %arg0, %[[E]]
func.func @range_constant_of_shape_size_expand(%x: tensor<2x5xf32>, %y: tensor<2x1xf32>) -> (tensor<?xi64>, tensor<?x?xf32>, tensor<i64>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %z = graph.constant dense<0> : tensor<i64>
  %s = graph.shape %x {start = 1 : i64} : (tensor<2x5xf32>) -> tensor<?xi64>
  %i0 = graph.constant dense<0> : tensor<i64>
  %n = graph.gather %s, %i0 {axis = 0 : i64} : (tensor<?xi64>, tensor<i64>) -> tensor<i64>
  %one = graph.constant dense<1> : tensor<i64>
  %r = graph.range %z, %n, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %full = graph.shape %x {start = 0 : i64} : (tensor<2x5xf32>) -> tensor<?xi64>
  %c = graph.constant_of_shape %full {value = dense<1.5> : tensor<1xf32>} : (tensor<?xi64>) -> tensor<?x?xf32>
  %size = graph.size %x : (tensor<2x5xf32>) -> tensor<i64>
  %same = graph.expand %x, %full : (tensor<2x5xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  %e = graph.expand %y, %full : (tensor<2x1xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  return %r, %c, %size, %same, %e : tensor<?xi64>, tensor<?x?xf32>, tensor<i64>, tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// A dynamic batch keeps what depends on it: the Shape of the batch extent stays; the
// static extents after it fold (Shape with start = 1), and with them their product.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-DAG: %[[P:.*]] = graph.constant dense<12> : tensor<1xi64>
// CHECK-DAG: %[[B:.*]] = graph.shape %arg0 {end = 1 : i64, start = 0 : i64}
// CHECK-NOT: graph.reduce_prod
// CHECK: %[[T:.*]] = graph.concat %[[B]], %[[P]]
// CHECK: graph.reshape %arg0, %[[T]]
func.func @dynamic_batch(%x: tensor<?x3x4xf32>) -> tensor<?x?xf32> {
  %s = graph.shape %x {start = 0 : i64, end = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<1xi64>
  %tail = graph.shape %x {start = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<2xi64>
  %zero = graph.constant dense<0> : tensor<1xi64>
  %p = graph.reduce_prod %tail, %zero {keepdims = true, noop_with_empty_axes = false} : (tensor<2xi64>, tensor<1xi64>) -> tensor<1xi64>
  %t = graph.concat %s, %p {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = graph.reshape %x, %t {allowzero = false} : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Slices and Gathers of a full Shape fold where the entries they take are static, even
// with a dynamic batch among the others: torch's scaled_dot_product_attention export
// computes its scale from Shape(q)[-1:]. Those that take the batch stay.
// CHECK-LABEL: func.func @slice_and_gather_of_shape
// CHECK-DAG: graph.constant dense<64> : tensor<1xi64>
// CHECK-DAG: graph.constant dense<[12, 64]> : tensor<2xi64>
// CHECK-DAG: graph.constant dense<64> : tensor<i64>
// CHECK-DAG: %[[S:.*]] = graph.shape %arg0
// CHECK-DAG: graph.gather %[[S]]
// CHECK-DAG: graph.slice %[[S]]
func.func @slice_and_gather_of_shape(%x: tensor<?x12x64xf32>)
    -> (tensor<1xi64>, tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<1xi64>) {
  %s = graph.shape %x {start = 0 : i64} : (tensor<?x12x64xf32>) -> tensor<3xi64>
  %minus1 = graph.constant dense<-1> : tensor<1xi64>
  %one = graph.constant dense<1> : tensor<1xi64>
  %zero = graph.constant dense<0> : tensor<1xi64>
  %big = graph.constant dense<9223372036854775807> : tensor<1xi64>
  %two = graph.constant dense<2> : tensor<i64>
  %first = graph.constant dense<0> : tensor<i64>
  %last = graph.slice %s, %minus1, %big : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %tail = graph.slice %s, %one, %big axes %zero : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %d = graph.gather %s, %two {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %b = graph.gather %s, %first {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %head = graph.slice %s, %zero, %one : (tensor<3xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %last, %tail, %d, %b, %head : tensor<1xi64>, tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<1xi64>
}

// -----

// The extents a shape computation fixes become static before the second round of
// folding (graph-infer-symbolic-shapes between the two), so that Shape(q)[-1:] of a
// reshape to Concat(batch, 12, -1, 64) is a constant when attention is recognised: its
// scale, 1 / sqrt(64) split as sqrt over Q and K^T, is one attribute.
// CHECK-LABEL: func.func @attention_scale_from_shape
// CHECK-NOT: graph.sqrt
// CHECK: graph.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = {{1.25|0.12499}}
func.func @attention_scale_from_shape(%x: tensor<?x8x768xf32>) -> tensor<?x12x8x64xf32> {
  %shape = graph.shape %x {start = 0 : i64, end = 1 : i64} : (tensor<?x8x768xf32>) -> tensor<1xi64>
  %rest = graph.constant dense<[12, -1, 64]> : tensor<3xi64>
  %target = graph.concat %shape, %rest {axis = 0 : i64} : (tensor<1xi64>, tensor<3xi64>) -> tensor<4xi64>
  %q = graph.reshape %x, %target {allowzero = false} : (tensor<?x8x768xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  %qs = graph.shape %q {start = 0 : i64} : (tensor<?x?x?x?xf32>) -> tensor<4xi64>
  %minus1 = graph.constant dense<-1> : tensor<1xi64>
  %big = graph.constant dense<9223372036854775807> : tensor<1xi64>
  %d = graph.slice %qs, %minus1, %big : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %df = graph.cast %d {to = f32} : (tensor<1xi64>) -> tensor<1xf32>
  %sd = graph.sqrt %df : tensor<1xf32>
  %one = graph.constant dense<1.0> : tensor<1xf32>
  %inv = graph.div %one, %sd : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  %factor = graph.sqrt %inv : tensor<1xf32>
  %qscaled = graph.mul %q, %factor : (tensor<?x?x?x?xf32>, tensor<1xf32>) -> tensor<?x?x?x?xf32>
  %kt = graph.transpose %q {perm = array<i64: 0, 1, 3, 2>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %kscaled = graph.mul %kt, %factor : (tensor<?x?x?x?xf32>, tensor<1xf32>) -> tensor<?x?x?x?xf32>
  %scores = graph.matmul %qscaled, %kscaled : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %p = graph.softmax %scores {axis = -1 : i64} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %o = graph.matmul %p, %q : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %r = graph.cast %o {to = f32} : (tensor<?x?x?x?xf32>) -> tensor<?x12x8x64xf32>
  return %r : tensor<?x12x8x64xf32>
}
