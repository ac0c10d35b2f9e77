// graph-fold-reshape-round-trips: reshape (grouping X's axes into blocks: split, merged or
// kept) -> transpose (moving whole blocks) -> reshape (each block back to X's extents) is
// one transpose of X, for static and dynamic extents (compared by the symbolic shape
// analysis); other chains stay.
// RUN: kiln-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(graph-fold-reshape-round-trips))' | FileCheck %s

// GPT-2's key at batch 8: [8, 12, 128, 64] -> [96, 128, 64] -> [96, 64, 128] ->
// [8, 12, 64, 128].
// CHECK-LABEL: func.func @static_key
// CHECK: %[[T:.*]] = graph.transpose %arg0 {perm = array<i64: 0, 1, 3, 2>} : (tensor<8x12x128x64xf16>) -> tensor<8x12x64x128xf16>
// CHECK-NOT: graph.reshape
// CHECK: return %[[T]]
func.func @static_key(%x: tensor<8x12x128x64xf16>) -> tensor<8x12x64x128xf16> {
  %s1 = graph.constant dense<[-1, 128, 64]> : tensor<3xi64>
  %s2 = graph.constant dense<[8, 12, 64, 128]> : tensor<4xi64>
  %r1 = graph.reshape %x, %s1 {allowzero = false} : (tensor<8x12x128x64xf16>, tensor<3xi64>) -> tensor<96x128x64xf16>
  %t = graph.transpose %r1 {perm = array<i64: 0, 2, 1>} : (tensor<96x128x64xf16>) -> tensor<96x64x128xf16>
  %r2 = graph.reshape %t, %s2 {allowzero = false} : (tensor<96x64x128xf16>, tensor<4xi64>) -> tensor<8x12x64x128xf16>
  return %r2 : tensor<8x12x64x128xf16>
}

// -----

// The same with batch and sequence known only at run time: the shapes are computed from
// X's Shape, as the exporter writes them.
// CHECK-LABEL: func.func @dynamic_key
// CHECK: %[[T:.*]] = graph.transpose %arg0 {perm = array<i64: 0, 1, 3, 2>} : (tensor<?x12x?x64xf16>) -> tensor<?x12x64x?xf16>
// CHECK-NOT: graph.reshape
// CHECK: return %[[T]]
func.func @dynamic_key(%x: tensor<?x12x?x64xf16> {graph.dims = ["batch", "", "sequence", ""]}) -> tensor<?x12x64x?xf16> {
  %shape = graph.shape %x {start = 0 : i64} : (tensor<?x12x?x64xf16>) -> tensor<4xi64>
  %c0 = graph.constant dense<0> : tensor<1xi64>
  %c2 = graph.constant dense<2> : tensor<1xi64>
  %c3 = graph.constant dense<3> : tensor<1xi64>
  %c4 = graph.constant dense<4> : tensor<1xi64>
  %minus1 = graph.constant dense<-1> : tensor<1xi64>
  %lead = graph.slice %shape, %c0, %c2 : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %s = graph.slice %shape, %c2, %c3 : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %d = graph.slice %shape, %c3, %c4 : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %s1 = graph.concat %minus1, %s, %d {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  %r1 = graph.reshape %x, %s1 {allowzero = false} : (tensor<?x12x?x64xf16>, tensor<3xi64>) -> tensor<?x?x64xf16>
  %t = graph.transpose %r1 {perm = array<i64: 0, 2, 1>} : (tensor<?x?x64xf16>) -> tensor<?x64x?xf16>
  %s2 = graph.concat %lead, %d, %s {axis = 0 : i64} : (tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  %r2 = graph.reshape %t, %s2 {allowzero = false} : (tensor<?x64x?xf16>, tensor<4xi64>) -> tensor<?x12x64x?xf16>
  return %r2 : tensor<?x12x64x?xf16>
}

// -----

// Left alone: the merged axis split into other extents than X's ([12, 8], not [8, 12]:
// a different tensor), and a transpose that moves the merged axis.
// CHECK-LABEL: func.func @other_split
// CHECK: graph.reshape
// CHECK: graph.transpose
// CHECK: graph.reshape
// CHECK-LABEL: func.func @merged_axis_moves
// CHECK: graph.reshape
// CHECK: graph.transpose
// CHECK: graph.reshape
func.func @other_split(%x: tensor<8x12x128x64xf16>) -> tensor<12x8x64x128xf16> {
  %s1 = graph.constant dense<[-1, 128, 64]> : tensor<3xi64>
  %s2 = graph.constant dense<[12, 8, 64, 128]> : tensor<4xi64>
  %r1 = graph.reshape %x, %s1 {allowzero = false} : (tensor<8x12x128x64xf16>, tensor<3xi64>) -> tensor<96x128x64xf16>
  %t = graph.transpose %r1 {perm = array<i64: 0, 2, 1>} : (tensor<96x128x64xf16>) -> tensor<96x64x128xf16>
  %r2 = graph.reshape %t, %s2 {allowzero = false} : (tensor<96x64x128xf16>, tensor<4xi64>) -> tensor<12x8x64x128xf16>
  return %r2 : tensor<12x8x64x128xf16>
}
func.func @merged_axis_moves(%x: tensor<8x12x128x64xf16>) -> tensor<128x96x64xf16> {
  %s1 = graph.constant dense<[-1, 128, 64]> : tensor<3xi64>
  %s2 = graph.constant dense<[128, 96, 64]> : tensor<3xi64>
  %r1 = graph.reshape %x, %s1 {allowzero = false} : (tensor<8x12x128x64xf16>, tensor<3xi64>) -> tensor<96x128x64xf16>
  %t = graph.transpose %r1 {perm = array<i64: 1, 0, 2>} : (tensor<96x128x64xf16>) -> tensor<128x96x64xf16>
  %r2 = graph.reshape %t, %s2 {allowzero = false} : (tensor<128x96x64xf16>, tensor<3xi64>) -> tensor<128x96x64xf16>
  return %r2 : tensor<128x96x64xf16>
}

// -----

// A channels-last patch embedding read back as tokens (a ViT after graph-convert-layout):
// [N, 196, C] split to [N, 14, 14, C], transposed to NCHW, merged to [N, C, 196]: the
// 14 x 14 block moves whole, so the chain is transpose(X, [0, 2, 1]). A merged axis that
// moves and is split back is one too ([8, 12] -> 96 moved first -> [8, 12]).
// CHECK-LABEL: func.func @patch_tokens
// CHECK: %[[T:.*]] = graph.transpose %arg0 {perm = array<i64: 0, 2, 1>} : (tensor<32x196x768xf16>) -> tensor<32x768x196xf16>
// CHECK-NOT: graph.reshape
// CHECK: return %[[T]]
// CHECK-LABEL: func.func @merged_axis_moves_back
// CHECK: %[[T:.*]] = graph.transpose %arg0 {perm = array<i64: 2, 0, 1, 3>} : (tensor<8x12x128x64xf16>) -> tensor<128x8x12x64xf16>
// CHECK-NOT: graph.reshape
// CHECK: return %[[T]]
func.func @patch_tokens(%x: tensor<32x196x768xf16>) -> tensor<32x768x196xf16> {
  %s1 = graph.constant dense<[0, 14, 14, 768]> : tensor<4xi64>
  %s2 = graph.constant dense<[32, 768, 196]> : tensor<3xi64>
  %r1 = graph.reshape %x, %s1 {allowzero = false} : (tensor<32x196x768xf16>, tensor<4xi64>) -> tensor<32x14x14x768xf16>
  %t = graph.transpose %r1 {perm = array<i64: 0, 3, 1, 2>} : (tensor<32x14x14x768xf16>) -> tensor<32x768x14x14xf16>
  %r2 = graph.reshape %t, %s2 {allowzero = false} : (tensor<32x768x14x14xf16>, tensor<3xi64>) -> tensor<32x768x196xf16>
  return %r2 : tensor<32x768x196xf16>
}
func.func @merged_axis_moves_back(%x: tensor<8x12x128x64xf16>) -> tensor<128x8x12x64xf16> {
  %s1 = graph.constant dense<[-1, 128, 64]> : tensor<3xi64>
  %s2 = graph.constant dense<[128, 8, 12, 64]> : tensor<4xi64>
  %r1 = graph.reshape %x, %s1 {allowzero = false} : (tensor<8x12x128x64xf16>, tensor<3xi64>) -> tensor<96x128x64xf16>
  %t = graph.transpose %r1 {perm = array<i64: 1, 0, 2>} : (tensor<96x128x64xf16>) -> tensor<128x96x64xf16>
  %r2 = graph.reshape %t, %s2 {allowzero = false} : (tensor<128x96x64xf16>, tensor<4xi64>) -> tensor<128x8x12x64xf16>
  return %r2 : tensor<128x8x12x64xf16>
}

// -----

// Left alone: a transpose that reorders the axes of one block (the two 14s swapped: an
// image transposed, not a view of the tokens), and a reshape back that regroups across
// blocks ([N, C, 14, 14] to [N, C * 14, 14]).
// CHECK-LABEL: func.func @block_reordered
// CHECK: graph.reshape
// CHECK: graph.transpose
// CHECK: graph.reshape
// CHECK-LABEL: func.func @regrouped
// CHECK: graph.reshape
// CHECK: graph.transpose
// CHECK: graph.reshape
func.func @block_reordered(%x: tensor<32x196x768xf16>) -> tensor<32x196x768xf16> {
  %s1 = graph.constant dense<[0, 14, 14, 768]> : tensor<4xi64>
  %s2 = graph.constant dense<[32, 196, 768]> : tensor<3xi64>
  %r1 = graph.reshape %x, %s1 {allowzero = false} : (tensor<32x196x768xf16>, tensor<4xi64>) -> tensor<32x14x14x768xf16>
  %t = graph.transpose %r1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<32x14x14x768xf16>) -> tensor<32x14x14x768xf16>
  %r2 = graph.reshape %t, %s2 {allowzero = false} : (tensor<32x14x14x768xf16>, tensor<3xi64>) -> tensor<32x196x768xf16>
  return %r2 : tensor<32x196x768xf16>
}
func.func @regrouped(%x: tensor<32x196x768xf16>) -> tensor<32x10752x14xf16> {
  %s1 = graph.constant dense<[0, 14, 14, 768]> : tensor<4xi64>
  %s2 = graph.constant dense<[32, 10752, 14]> : tensor<3xi64>
  %r1 = graph.reshape %x, %s1 {allowzero = false} : (tensor<32x196x768xf16>, tensor<4xi64>) -> tensor<32x14x14x768xf16>
  %t = graph.transpose %r1 {perm = array<i64: 0, 3, 1, 2>} : (tensor<32x14x14x768xf16>) -> tensor<32x768x14x14xf16>
  %r2 = graph.reshape %t, %s2 {allowzero = false} : (tensor<32x768x14x14xf16>, tensor<3xi64>) -> tensor<32x10752x14xf16>
  return %r2 : tensor<32x10752x14xf16>
}
