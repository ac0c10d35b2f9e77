// RUN: kiln-opt --graph-recognize-causal-masks %s -split-input-file | FileCheck %s

// GPT-2 as torch.export writes it with a dynamic batch and sequence: the causal term
// `arange(S)[None, :] <= arange(S)[:, None]`, and the "same document" term of packed
// sequences, which compares cumulative sums of `positions[1:] - positions[:-1] != 1` (0
// everywhere, the positions being an arange) gathered per query and per key: true
// everywhere. The mask is exactly causal: the attention gets the flag, and the mask's
// computation goes.
// CHECK-LABEL: func.func @gpt2_dynamo
// CHECK-NOT: graph.cumsum
// CHECK-NOT: graph.where
// CHECK: %[[Y:.*]] = graph.attention %arg1, %arg2, %arg3 {causal, nan_to_zero, scale = 1.250000e-01 : f32} : (tensor<?x12x?x64xf16>, tensor<?x12x?x64xf16>, tensor<?x12x?x64xf16>) -> tensor<?x12x?x64xf16>
// CHECK: return %[[Y]]
func.func @gpt2_dynamo(%ids: tensor<?x?xi64> {graph.dims = ["batch", "sequence"]},
    %q: tensor<?x12x?x64xf16> {graph.dims = ["batch", "", "sequence", ""]},
    %k: tensor<?x12x?x64xf16> {graph.dims = ["batch", "", "sequence", ""]},
    %v: tensor<?x12x?x64xf16> {graph.dims = ["batch", "", "sequence", ""]}) -> tensor<?x12x?x64xf16> {
  %lowest = graph.constant dense<-6.550400e+04> : tensor<f16>
  %zero = graph.constant dense<0.000000e+00> : tensor<f16>
  %true = graph.constant dense<true> : tensor<i1>
  %c2 = graph.constant dense<2> : tensor<1xi64>
  %c01 = graph.constant dense<[0, 1]> : tensor<2xi64>
  %c3 = graph.constant dense<3> : tensor<1xi64>
  %c12 = graph.constant dense<[1, 2]> : tensor<2xi64>
  %minus1 = graph.constant dense<-1> : tensor<i64>
  %one1 = graph.constant dense<1> : tensor<1xi64>
  %zero1 = graph.constant dense<0> : tensor<1xi64>
  %one = graph.constant dense<1> : tensor<i64>
  %zero0 = graph.constant dense<0> : tensor<i64>
  %minus1v = graph.constant dense<-1> : tensor<1xi64>
  %batch1 = graph.shape %ids {end = 1 : i64, start = 0 : i64} : (tensor<?x?xi64>) -> tensor<1xi64>
  %batch = graph.squeeze %batch1 : (tensor<1xi64>) -> tensor<i64>
  %seq1 = graph.shape %ids {end = 2 : i64, start = 1 : i64} : (tensor<?x?xi64>) -> tensor<1xi64>
  %seq = graph.squeeze %seq1 : (tensor<1xi64>) -> tensor<i64>
  %arange = graph.range %zero0, %seq, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %positions1 = graph.unsqueeze %arange, %zero1 : (tensor<?xi64>, tensor<1xi64>) -> tensor<1x?xi64>
  %shape2 = graph.concat %batch1, %one1 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %positions = graph.expand %positions1, %shape2 : (tensor<1x?xi64>, tensor<2xi64>) -> tensor<?x?xi64>
  %first = graph.slice %positions, %zero1, %one1 axes %one1 steps %one1 : (tensor<?x?xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x1xi64>
  %before = graph.sub %first, %one : (tensor<?x1xi64>, tensor<i64>) -> tensor<?x1xi64>
  %padded = graph.concat %before, %positions {axis = -1 : i64} : (tensor<?x1xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  %seqPlus1 = graph.add %seq, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %previous = graph.slice %padded, %zero1, %seq1 axes %minus1v steps %one1 : (tensor<?x?xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xi64>
  %end = graph.reshape %seqPlus1, %minus1v {allowzero = false} : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %current = graph.slice %padded, %one1, %end axes %minus1v steps %one1 : (tensor<?x?xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xi64>
  %step = graph.sub %current, %previous : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  %contiguous = graph.equal %step, %one : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi1>
  %starts = graph.not %contiguous : tensor<?x?xi1>
  %startsInt = graph.cast %starts {to = i64} : (tensor<?x?xi1>) -> tensor<?x?xi64>
  %document = graph.cumsum %startsInt, %minus1 {exclusive = false, reverse = false} : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi64>
  %batches = graph.range %zero0, %batch, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %b3 = graph.unsqueeze %batches, %c12 : (tensor<?xi64>, tensor<2xi64>) -> tensor<?x1x1xi64>
  %b4 = graph.unsqueeze %b3, %c3 : (tensor<?x1x1xi64>, tensor<1xi64>) -> tensor<?x1x1x1xi64>
  %s3 = graph.unsqueeze %arange, %c01 : (tensor<?xi64>, tensor<2xi64>) -> tensor<1x1x?xi64>
  %queryIndex = graph.unsqueeze %s3, %c3 : (tensor<1x1x?xi64>, tensor<1xi64>) -> tensor<1x1x?x1xi64>
  %keyIndex = graph.unsqueeze %s3, %c2 : (tensor<1x1x?xi64>, tensor<1xi64>) -> tensor<1x1x1x?xi64>
  %causal0 = graph.less_or_equal %keyIndex, %queryIndex : (tensor<1x1x1x?xi64>, tensor<1x1x?x1xi64>) -> tensor<1x1x?x?xi1>
  %causal = graph.and %causal0, %true : (tensor<1x1x?x?xi1>, tensor<i1>) -> tensor<1x1x?x?xi1>
  %qb = graph.max %b4, %queryIndex : (tensor<?x1x1x1xi64>, tensor<1x1x?x1xi64>) -> tensor<?x1x?x1xi64>
  %qshape = graph.shape %qb {start = 0 : i64} : (tensor<?x1x?x1xi64>) -> tensor<4xi64>
  %qbatch = graph.expand %b4, %qshape : (tensor<?x1x1x1xi64>, tensor<4xi64>) -> tensor<?x1x?x1xi64>
  %qbatch5 = graph.unsqueeze %qbatch, %minus1v : (tensor<?x1x?x1xi64>, tensor<1xi64>) -> tensor<?x1x?x1x1xi64>
  %qpos = graph.expand %queryIndex, %qshape : (tensor<1x1x?x1xi64>, tensor<4xi64>) -> tensor<?x1x?x1xi64>
  %qpos5 = graph.unsqueeze %qpos, %minus1v : (tensor<?x1x?x1xi64>, tensor<1xi64>) -> tensor<?x1x?x1x1xi64>
  %qindices = graph.concat %qbatch5, %qpos5 {axis = -1 : i64} : (tensor<?x1x?x1x1xi64>, tensor<?x1x?x1x1xi64>) -> tensor<?x1x?x1x2xi64>
  %qdocument = graph.gather_nd %document, %qindices {batch_dims = 0 : i64} : (tensor<?x?xi64>, tensor<?x1x?x1x2xi64>) -> tensor<?x1x?x1xi64>
  %kb = graph.max %b4, %keyIndex : (tensor<?x1x1x1xi64>, tensor<1x1x1x?xi64>) -> tensor<?x1x1x?xi64>
  %kshape = graph.shape %kb {start = 0 : i64} : (tensor<?x1x1x?xi64>) -> tensor<4xi64>
  %kbatch = graph.expand %b4, %kshape : (tensor<?x1x1x1xi64>, tensor<4xi64>) -> tensor<?x1x1x?xi64>
  %kbatch5 = graph.unsqueeze %kbatch, %minus1v : (tensor<?x1x1x?xi64>, tensor<1xi64>) -> tensor<?x1x1x?x1xi64>
  %kpos = graph.expand %keyIndex, %kshape : (tensor<1x1x1x?xi64>, tensor<4xi64>) -> tensor<?x1x1x?xi64>
  %kpos5 = graph.unsqueeze %kpos, %minus1v : (tensor<?x1x1x?xi64>, tensor<1xi64>) -> tensor<?x1x1x?x1xi64>
  %kindices = graph.concat %kbatch5, %kpos5 {axis = -1 : i64} : (tensor<?x1x1x?x1xi64>, tensor<?x1x1x?x1xi64>) -> tensor<?x1x1x?x2xi64>
  %kdocument = graph.gather_nd %document, %kindices {batch_dims = 0 : i64} : (tensor<?x?xi64>, tensor<?x1x1x?x2xi64>) -> tensor<?x1x1x?xi64>
  %sameDocument = graph.equal %qdocument, %kdocument : (tensor<?x1x?x1xi64>, tensor<?x1x1x?xi64>) -> tensor<?x1x?x?xi1>
  %allowed = graph.and %causal, %sameDocument : (tensor<1x1x?x?xi1>, tensor<?x1x?x?xi1>) -> tensor<?x1x?x?xi1>
  %mask = graph.where %allowed, %zero, %lowest : (tensor<?x1x?x?xi1>, tensor<f16>, tensor<f16>) -> tensor<?x1x?x?xf16>
  %y = graph.attention %q, %k, %v, %mask {nan_to_zero, scale = 0.125 : f32} : (tensor<?x12x?x64xf16>, tensor<?x12x?x64xf16>, tensor<?x12x?x64xf16>, tensor<?x1x?x?xf16>) -> tensor<?x12x?x64xf16>
  return %y : tensor<?x12x?x64xf16>
}

// -----

// Static shapes, the mask written the other way round: Where(key > query, -inf, 0).
// CHECK-LABEL: func.func @static_masked_above
// CHECK: graph.attention %arg0, %arg1, %arg2 {causal, scale = 1.000000e+00 : f32} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
func.func @static_masked_above(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %start = graph.constant dense<0> : tensor<i64>
  %limit = graph.constant dense<4> : tensor<i64>
  %delta = graph.constant dense<1> : tensor<i64>
  %axis0 = graph.constant dense<0> : tensor<1xi64>
  %axis1 = graph.constant dense<1> : tensor<1xi64>
  %inf = graph.constant dense<0xFF800000> : tensor<f32>
  %zero = graph.constant dense<0.0> : tensor<f32>
  %i = graph.range %start, %limit, %delta : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<4xi64>
  %rows = graph.unsqueeze %i, %axis1 : (tensor<4xi64>, tensor<1xi64>) -> tensor<4x1xi64>
  %columns = graph.unsqueeze %i, %axis0 : (tensor<4xi64>, tensor<1xi64>) -> tensor<1x4xi64>
  %above = graph.greater %columns, %rows : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %mask = graph.where %above, %inf, %zero : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %y = graph.attention %q, %k, %v, %mask {scale = 1.0 : f32} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4x4xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Not causal: the diagonal masked out too (key < query), the transposed triangle
// (key >= query), a soft mask value (-10000, which softmax does not absorb), a term that
// depends on the data, the causal term and-ed with "cast(true) != 1", false everywhere
// (a boolean constant is 1, not its sign-extended -1), and positions compared after a cast
// to i8 (which could wrap: the analysis does not follow a varying value into a narrower
// type). Each keeps its mask.
// CHECK-LABEL: func.func @not_causal
// CHECK-COUNT-6: graph.attention %arg0, %arg1, %arg2, %{{[0-9a-z_]+}} {scale
// CHECK-NOT: causal
func.func @not_causal(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>, %keep: tensor<4x4xi1>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %start = graph.constant dense<0> : tensor<i64>
  %limit = graph.constant dense<4> : tensor<i64>
  %delta = graph.constant dense<1> : tensor<i64>
  %axis0 = graph.constant dense<0> : tensor<1xi64>
  %axis1 = graph.constant dense<1> : tensor<1xi64>
  %inf = graph.constant dense<0xFF800000> : tensor<f32>
  %soft = graph.constant dense<-10000.0> : tensor<f32>
  %zero = graph.constant dense<0.0> : tensor<f32>
  %i = graph.range %start, %limit, %delta : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<4xi64>
  %rows = graph.unsqueeze %i, %axis1 : (tensor<4xi64>, tensor<1xi64>) -> tensor<4x1xi64>
  %columns = graph.unsqueeze %i, %axis0 : (tensor<4xi64>, tensor<1xi64>) -> tensor<1x4xi64>
  %strict = graph.less %columns, %rows : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %mask0 = graph.where %strict, %zero, %inf : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %y0 = graph.attention %q, %k, %v, %mask0 {scale = 1.0 : f32} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4x4xf32>) -> tensor<2x4x8xf32>
  %upper = graph.greater_or_equal %columns, %rows : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %mask1 = graph.where %upper, %zero, %inf : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %y1 = graph.attention %q, %k, %v, %mask1 {scale = 1.0 : f32} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4x4xf32>) -> tensor<2x4x8xf32>
  %lower = graph.less_or_equal %columns, %rows : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %mask2 = graph.where %lower, %zero, %soft : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %y2 = graph.attention %q, %k, %v, %mask2 {scale = 1.0 : f32} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4x4xf32>) -> tensor<2x4x8xf32>
  %both = graph.and %lower, %keep : (tensor<4x4xi1>, tensor<4x4xi1>) -> tensor<4x4xi1>
  %mask3 = graph.where %both, %zero, %inf : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %y3 = graph.attention %q, %k, %v, %mask3 {scale = 1.0 : f32} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4x4xf32>) -> tensor<2x4x8xf32>
  %true = graph.constant dense<true> : tensor<i1>
  %one64 = graph.constant dense<1> : tensor<i64>
  %trueInt = graph.cast %true {to = i64} : (tensor<i1>) -> tensor<i64>
  %isOne = graph.equal %trueInt, %one64 : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %isNotOne = graph.not %isOne : tensor<i1>
  %never = graph.and %lower, %isNotOne : (tensor<4x4xi1>, tensor<i1>) -> tensor<4x4xi1>
  %mask4 = graph.where %never, %zero, %inf : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %y4 = graph.attention %q, %k, %v, %mask4 {scale = 1.0 : f32} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4x4xf32>) -> tensor<2x4x8xf32>
  %rows8 = graph.cast %rows {to = i8} : (tensor<4x1xi64>) -> tensor<4x1xi8>
  %columns8 = graph.cast %columns {to = i8} : (tensor<1x4xi64>) -> tensor<1x4xi8>
  %lower8 = graph.less_or_equal %columns8, %rows8 : (tensor<1x4xi8>, tensor<4x1xi8>) -> tensor<4x4xi1>
  %mask5 = graph.where %lower8, %zero, %inf : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %y5 = graph.attention %q, %k, %v, %mask5 {scale = 1.0 : f32} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4x4xf32>) -> tensor<2x4x8xf32>
  return %y0, %y1, %y2, %y3, %y4, %y5 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// -----

// A mask over fewer keys than the scores have would broadcast along them: not causal.
// CHECK-LABEL: func.func @stretched
// CHECK: graph.attention %arg0, %arg1, %arg2, %{{.*}} {scale
func.func @stretched(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %start = graph.constant dense<0> : tensor<i64>
  %limit = graph.constant dense<4> : tensor<i64>
  %delta = graph.constant dense<1> : tensor<i64>
  %axis1 = graph.constant dense<1> : tensor<1xi64>
  %inf = graph.constant dense<0xFF800000> : tensor<f32>
  %zero = graph.constant dense<0.0> : tensor<f32>
  %first = graph.constant dense<0> : tensor<1x1xi64>
  %i = graph.range %start, %limit, %delta : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<4xi64>
  %rows = graph.unsqueeze %i, %axis1 : (tensor<4xi64>, tensor<1xi64>) -> tensor<4x1xi64>
  %allowed = graph.less_or_equal %first, %rows : (tensor<1x1xi64>, tensor<4x1xi64>) -> tensor<4x1xi1>
  %mask = graph.where %allowed, %zero, %inf : (tensor<4x1xi1>, tensor<f32>, tensor<f32>) -> tensor<4x1xf32>
  %y = graph.attention %q, %k, %v, %mask {scale = 1.0 : f32} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4x1xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// The causal term or-ed with "cast(true) != 1" (false) is the causal term.
// CHECK-LABEL: func.func @boolean_constants
// CHECK: graph.attention %arg0, %arg1, %arg2 {causal, scale
func.func @boolean_constants(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %start = graph.constant dense<0> : tensor<i64>
  %limit = graph.constant dense<4> : tensor<i64>
  %delta = graph.constant dense<1> : tensor<i64>
  %axis0 = graph.constant dense<0> : tensor<1xi64>
  %axis1 = graph.constant dense<1> : tensor<1xi64>
  %inf = graph.constant dense<0xFF800000> : tensor<f32>
  %zero = graph.constant dense<0.0> : tensor<f32>
  %true = graph.constant dense<true> : tensor<i1>
  %one64 = graph.constant dense<1> : tensor<i64>
  %i = graph.range %start, %limit, %delta : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<4xi64>
  %rows = graph.unsqueeze %i, %axis1 : (tensor<4xi64>, tensor<1xi64>) -> tensor<4x1xi64>
  %columns = graph.unsqueeze %i, %axis0 : (tensor<4xi64>, tensor<1xi64>) -> tensor<1x4xi64>
  %lower = graph.less_or_equal %columns, %rows : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %trueInt = graph.cast %true {to = i64} : (tensor<i1>) -> tensor<i64>
  %isOne = graph.equal %trueInt, %one64 : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %isNotOne = graph.not %isOne : tensor<i1>
  %allowed = graph.or %lower, %isNotOne : (tensor<4x4xi1>, tensor<i1>) -> tensor<4x4xi1>
  %mask = graph.where %allowed, %zero, %inf : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %y = graph.attention %q, %k, %v, %mask {scale = 1.0 : f32} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4x4xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}
