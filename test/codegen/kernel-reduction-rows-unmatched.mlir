// rows leaves to the generic lowering the reduction kernels that are no
// row computation over contiguous innermost axes: a softmax over a leading axis, a sum
// over leading axes, a LayerNorm whose statistics are stored too, a prologue with a
// transpose (data movement), a gather along the row's axis (not of whole rows), an
// epilogue that reads a prologue value, an input that varies along part of the row,
// integer data, and the reductions it has no kernel for.
// RUN: kiln-opt --kernel-select-templates="target=sm_80 templates=rows" --kernel-instantiate-templates=target=sm_80 %s | FileCheck %s

// CHECK-NOT: gpu.module
// CHECK-COUNT-9: kernel.launch
kernel.func @softmax_leading_axis(%x: memref<16x64xf32>, %y: memref<16x64xf32>) {
  reduction ins(%x : memref<16x64xf32>) outs(%y : memref<16x64xf32>) {
  ^bb0(%a: tensor<16x64xf32>):
    %r = graph.softmax %a {axis = 0 : i64} : (tensor<16x64xf32>) -> tensor<16x64xf32>
    kernel.yield %r : tensor<16x64xf32>
  }
  return
}
kernel.func @sum_leading_axes(%x: memref<16x64xf32>, %y: memref<1x64xf32>) {
  reduction ins(%x : memref<16x64xf32>) outs(%y : memref<1x64xf32>) {
  ^bb0(%a: tensor<16x64xf32>):
    %axes = graph.constant dense<0> : tensor<1xi64>
    %r = graph.reduce_sum %a, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<16x64xf32>, tensor<1xi64>) -> tensor<1x64xf32>
    kernel.yield %r : tensor<1x64xf32>
  }
  return
}
kernel.func @layer_norm_statistics(%x: memref<16x64xf32>, %w: memref<64xf32>, %y: memref<16x64xf32>, %m: memref<16x1xf32>) {
  reduction ins(%x, %w : memref<16x64xf32>, memref<64xf32>) outs(%y, %m : memref<16x64xf32>, memref<16x1xf32>) {
  ^bb0(%a: tensor<16x64xf32>, %s: tensor<64xf32>):
    %n, %mean, %inv = graph.layer_normalization %a, %s {axis = -1 : i64, epsilon = 1.0e-05 : f32, stash_type = f32} : (tensor<16x64xf32>, tensor<64xf32>) -> (tensor<16x64xf32>, tensor<16x1xf32>, tensor<16x1xf32>)
    kernel.yield %n, %mean : tensor<16x64xf32>, tensor<16x1xf32>
  }
  return
}
kernel.func @gather_along_row(%x: memref<16x10xf32>, %i: memref<64xi64>, %y: memref<16x64xf32>) {
  reduction ins(%x, %i : memref<16x10xf32>, memref<64xi64>) outs(%y : memref<16x64xf32>) {
  ^bb0(%a: tensor<16x10xf32>, %j: tensor<64xi64>):
    %g = graph.gather %a, %j {axis = 1 : i64} : (tensor<16x10xf32>, tensor<64xi64>) -> tensor<16x64xf32>
    %r = graph.softmax %g {axis = -1 : i64} : (tensor<16x64xf32>) -> tensor<16x64xf32>
    kernel.yield %r : tensor<16x64xf32>
  }
  return
}
kernel.func @transposed_prologue(%x: memref<64x16xf32>, %y: memref<16x64xf32>) {
  reduction ins(%x : memref<64x16xf32>) outs(%y : memref<16x64xf32>) {
  ^bb0(%a: tensor<64x16xf32>):
    %t = graph.transpose %a {perm = array<i64: 1, 0>} : (tensor<64x16xf32>) -> tensor<16x64xf32>
    %r = graph.softmax %t {axis = -1 : i64} : (tensor<16x64xf32>) -> tensor<16x64xf32>
    kernel.yield %r : tensor<16x64xf32>
  }
  return
}
kernel.func @epilogue_reads_prologue(%x: memref<16x64xf32>, %y: memref<16x64xf32>) {
  reduction ins(%x : memref<16x64xf32>) outs(%y : memref<16x64xf32>) {
  ^bb0(%a: tensor<16x64xf32>):
    %e = graph.exp %a : tensor<16x64xf32>
    %r = graph.softmax %e {axis = -1 : i64} : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %s = graph.add %r, %e : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
    kernel.yield %s : tensor<16x64xf32>
  }
  return
}
kernel.func @partial_row_broadcast(%x: memref<16x8x64xf32>, %b: memref<8x1xf32>, %y: memref<16x1x1xf32>) {
  reduction ins(%x, %b : memref<16x8x64xf32>, memref<8x1xf32>) outs(%y : memref<16x1x1xf32>) {
  ^bb0(%a: tensor<16x8x64xf32>, %c: tensor<8x1xf32>):
    %axes = graph.constant dense<[1, 2]> : tensor<2xi64>
    %s = graph.add %a, %c : (tensor<16x8x64xf32>, tensor<8x1xf32>) -> tensor<16x8x64xf32>
    %r = graph.reduce_sum %s, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<16x8x64xf32>, tensor<2xi64>) -> tensor<16x1x1xf32>
    kernel.yield %r : tensor<16x1x1xf32>
  }
  return
}
kernel.func @integer_data(%x: memref<16x64xi32>, %y: memref<16x1xi32>) {
  reduction ins(%x : memref<16x64xi32>) outs(%y : memref<16x1xi32>) {
  ^bb0(%a: tensor<16x64xi32>):
    %axes = graph.constant dense<1> : tensor<1xi64>
    %r = graph.reduce_sum %a, %axes {keepdims = true, noop_with_empty_axes = false} : (tensor<16x64xi32>, tensor<1xi64>) -> tensor<16x1xi32>
    kernel.yield %r : tensor<16x1xi32>
  }
  return
}
kernel.func @argmax(%x: memref<16x64xf32>, %y: memref<16x1xi64>) {
  reduction ins(%x : memref<16x64xf32>) outs(%y : memref<16x1xi64>) {
  ^bb0(%a: tensor<16x64xf32>):
    %r = graph.argmax %a {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<16x64xf32>) -> tensor<16x1xi64>
    kernel.yield %r : tensor<16x1xi64>
  }
  return
}
func.func @main(%x: memref<16x64xf32>, %xt: memref<64x16xf32>, %x3: memref<16x8x64xf32>, %b: memref<8x1xf32>, %w: memref<64xf32>, %xi: memref<16x64xi32>, %y: memref<16x64xf32>, %y1: memref<1x64xf32>, %m: memref<16x1xf32>, %y3: memref<16x1x1xf32>, %yi: memref<16x1xi32>, %ya: memref<16x1xi64>, %x10: memref<16x10xf32>, %j: memref<64xi64>) {
  kernel.launch @softmax_leading_axis(%x, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
  kernel.launch @sum_leading_axes(%x, %y1) : (memref<16x64xf32>, memref<1x64xf32>) -> ()
  kernel.launch @layer_norm_statistics(%x, %w, %y, %m) : (memref<16x64xf32>, memref<64xf32>, memref<16x64xf32>, memref<16x1xf32>) -> ()
  kernel.launch @transposed_prologue(%xt, %y) : (memref<64x16xf32>, memref<16x64xf32>) -> ()
  kernel.launch @gather_along_row(%x10, %j, %y) : (memref<16x10xf32>, memref<64xi64>, memref<16x64xf32>) -> ()
  kernel.launch @epilogue_reads_prologue(%x, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
  kernel.launch @partial_row_broadcast(%x3, %b, %y3) : (memref<16x8x64xf32>, memref<8x1xf32>, memref<16x1x1xf32>) -> ()
  kernel.launch @integer_data(%xi, %yi) : (memref<16x64xi32>, memref<16x1xi32>) -> ()
  kernel.launch @argmax(%x, %ya) : (memref<16x64xf32>, memref<16x1xi64>) -> ()
  return
}
