// RUN: kiln-opt --graph-to-kernel %s -split-input-file -verify-diagnostics | FileCheck %s

// Kernel formation on dynamic shapes (docs/dynamic-shapes.md). The host reads the symbols
// off the input (memref.dim), sizes the output with them (a view stating its extents,
// which the host function returns), and the head split's target shape, computed from the
// input's shape, gets no kernel: the kernel that reshapes rebuilds it from the symbols it
// takes as index operands. The exp joins the reshape's kernel and the relu the transpose's
// (same extents: the same polynomials).
// CHECK-LABEL: kernel.func @Relu(
// CHECK-SAME: %{{.*}}: memref<?x?x768xf32>, %{{.*}}: memref<?x12x?x64xf32>, %{{.*}}: index, %{{.*}}: index)
// CHECK: pointwise ins(%{{.*}} : memref<?x?x768xf32>) outs(%{{.*}} : memref<?x12x?x64xf32>) symbols(%{{.*}}, %{{.*}}) {
// CHECK: ^bb0(%[[X:.*]]: tensor<?x?x768xf32>, %[[B:.*]]: index, %[[S:.*]]: index):
// CHECK: %[[B64:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK: %[[S64:.*]] = arith.index_cast %[[S]] : index to i64
// CHECK: %[[TARGET:.*]] = tensor.from_elements %[[B64]], %[[S64]], %{{.*}}, %{{.*}} : tensor<4xi64>
// CHECK: %[[R:.*]] = graph.reshape %[[X]], %[[TARGET]]
// CHECK: graph.exp %[[R]]
// CHECK: graph.transpose
// CHECK: graph.relu
// CHECK-NOT: kernel.func
// CHECK-LABEL: func.func @heads(
// CHECK-SAME: %[[IN:[^:]*]]: memref<?x?x768xf32> {{.*}}, %[[OUT:[^:]*]]: memref<?x12x?x64xf32> {{.*}}) -> (index, index)
// CHECK: %[[BATCH:.*]] = memref.dim %[[IN]], %c0
// CHECK: %[[SEQ:.*]] = memref.dim %[[IN]], %c1
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [%[[BATCH]], 12, %[[SEQ]], 64]
// CHECK: kernel.launch @Relu(%[[IN]], %[[VIEW]], %[[BATCH]], %[[SEQ]])
// CHECK: return %[[BATCH]], %[[SEQ]] : index, index
func.func @heads(%x: tensor<?x?x768xf32> {graph.dims = ["batch", "sequence", ""], graph.name = "x"}) -> (tensor<?x12x?x64xf32> {graph.name = "y"}) {
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
  %r = graph.reshape %x, %target {allowzero = false} : (tensor<?x?x768xf32>, tensor<4xi64>) -> tensor<?x?x12x64xf32> loc("Split")
  %e = graph.exp %r : tensor<?x?x12x64xf32> loc("Exp")
  %t = graph.transpose %e {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x?x12x64xf32>) -> tensor<?x12x?x64xf32> loc("Heads")
  %y = graph.relu %t : tensor<?x12x?x64xf32> loc("Relu")
  return %y : tensor<?x12x?x64xf32>
}

// -----

// An intermediate of dynamic shape is allocated with its extents, computed from the
// symbols; two inputs with the same symbol share it (read off the first). The output's
// extent is a polynomial of the symbols (2 n).
// CHECK-LABEL: func.func @shared(
// CHECK-SAME: %[[A:[^:]*]]: memref<?x8xf32> {{.*}}, %[[B:[^:]*]]: memref<?x8xf32> {{.*}}, %[[C:[^:]*]]: memref<?x16xf32> {{.*}}) -> index
// CHECK: %[[N:.*]] = memref.dim %[[A]], %c0
// CHECK-NOT: memref.dim
// CHECK: %[[TWICE:.*]] = arith.muli %[[N]], %c2
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[C]] to offset: [0], sizes: [%[[TWICE]], 16], strides: [16, 1]
// CHECK: %[[JOINED:.*]] = memref.alloc(%[[N]]) : memref<?x16xf32>
// CHECK: kernel.launch @Join(%[[A]], %[[B]], %[[JOINED]])
// CHECK: kernel.launch @Twice(%[[JOINED]], %[[VIEW]])
// CHECK: return %[[TWICE]] : index
func.func @shared(%a: tensor<?x8xf32> {graph.dims = ["n", ""], graph.name = "a"}, %b: tensor<?x8xf32> {graph.dims = ["n", ""], graph.name = "b"}) -> (tensor<?x16xf32> {graph.name = "c"}) {
  %0 = graph.exp %a : tensor<?x8xf32> loc("Exp")
  %1 = graph.concat %0, %b {axis = 1 : i64} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x16xf32> loc("Join")
  %2 = graph.concat %1, %1 {axis = 0 : i64} : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32> loc("Twice")
  return %2 : tensor<?x16xf32>
}

// -----

// An extent that the input shapes do not determine (NonZero's count): a kernel computes
// the value and stores its extent, the host reads it back and clamps it to the bound
// (the input's 4 elements), then sizes the buffers after it.
// CHECK-LABEL: kernel.func @NonZero_extent
// CHECK: tensor.dim
// CHECK: kernel.yield %{{.*}} : tensor<1xi64>
// CHECK-LABEL: func.func @data_dependent
// CHECK: %[[EXTENT:.*]] = memref.alloc() : memref<1xi64>
// CHECK: kernel.launch @NonZero_extent(%{{.*}}, %[[EXTENT]])
// CHECK: %[[READ:.*]] = kernel.read_back %[[EXTENT]] : memref<1xi64> -> i64
// CHECK: %[[COUNT:.*]] = arith.index_cast %[[READ]] : i64 to index
// CHECK: %[[BOUNDED:.*]] = arith.minsi %[[COUNT]], %c4
// CHECK: memref.alloc(%[[BOUNDED]]) : memref<1x?xi64>
// CHECK: kernel.launch @Neg(
// CHECK: return %[[BOUNDED]] : index
func.func @data_dependent(%x: tensor<4xf32>) -> tensor<1x?xi64> {
  %0 = graph.non_zero %x : (tensor<4xf32>) -> tensor<1x?xi64> loc("NonZero")
  %1 = graph.neg %0 : tensor<1x?xi64> loc("Neg")
  return %1 : tensor<1x?xi64>
}

// -----

// A data-dependent extent that nothing bounds (a Range of limits read from a tensor)
// cannot be planned.
func.func @unbounded(%limit: tensor<i64>) -> tensor<?xi64> {
  %start = graph.constant dense<0> : tensor<i64>
  %step = graph.constant dense<1> : tensor<i64>
  // expected-error @+1 {{a data-dependent extent with no upper bound (of graph.range): the GPU path cannot plan the buffers after it}}
  %0 = graph.range %start, %limit, %step : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %1 = graph.neg %0 : tensor<?xi64>
  return %1 : tensor<?xi64>
}

// -----

// A TopK's k computed at run time: its extent is k clamped to the axis, read back from
// k's own buffer (no kernel selects the k to count them), one read-back for the values
// and the indices, which share the extent. The Neg of the values is a kernel of its own:
// a TopK's kernel takes no epilogue but a conversion of its values (the top_k template).
// CHECK-LABEL: func.func @top_k_computed_k
// CHECK-NOT: _extent
// CHECK: %[[READ:.*]] = kernel.read_back %arg1 : memref<1xi64> -> i64
// CHECK: %[[K:.*]] = arith.index_cast %[[READ]] : i64 to index
// CHECK: %[[POSITIVE:.*]] = arith.maxsi %[[K]], %c0
// CHECK: %[[BOUNDED:.*]] = arith.minsi %[[POSITIVE]], %c100
// CHECK-NOT: kernel.read_back
// CHECK-DAG: memref.alloc(%[[BOUNDED]]) : memref<?xf32>
// CHECK-DAG: memref.alloc(%[[BOUNDED]]) : memref<?xi64>
// CHECK: kernel.launch @TopK(
// CHECK: kernel.launch @Neg(
// CHECK: return %[[BOUNDED]], %[[BOUNDED]] : index, index
func.func @top_k_computed_k(%x: tensor<100xf32>, %k: tensor<1xi64>) -> (tensor<?xf32>, tensor<?xi64>) {
  %v, %i = graph.top_k %x, %k {axis = 0 : i64, largest = true, sorted = true} : (tensor<100xf32>, tensor<1xi64>) -> (tensor<?xf32>, tensor<?xi64>) loc("TopK")
  %n = graph.neg %v : tensor<?xf32> loc("Neg")
  return %n, %i : tensor<?xf32>, tensor<?xi64>
}

// -----

// An If runs on the host: an scf.if on its condition, loaded from the condition's buffer
// (gpu-predicate-branches reads it back), whose branches form their own kernels (the
// else branch's NonZero, its count read back inside the branch) and yield their results'
// buffers; the result's extent, returned as the output's, is the yielded buffer's.
// CHECK-LABEL: func.func @branch
// CHECK: %[[COND:.*]] = memref.load %arg0[] : memref<i1>
// CHECK: %[[IF:.*]] = scf.if %[[COND]] -> (memref<1x?xi64>) {
// CHECK:   %[[EMPTY:.*]] = memref.get_global
// CHECK:   %[[CAST:.*]] = memref.cast %[[EMPTY]] : memref<1x0xi64> to memref<1x?xi64>
// CHECK:   scf.yield %[[CAST]]
// CHECK: } else {
// CHECK:   kernel.launch @NonZero_extent(
// CHECK:   kernel.read_back
// CHECK:   kernel.launch @NonZero(
// CHECK:   scf.yield
// CHECK: }
// CHECK: %[[DIM:.*]] = memref.dim %[[IF]], %c1
// CHECK: kernel.launch @Neg(%[[IF]],
// CHECK: return %[[DIM]] : index
func.func @branch(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<1x?xi64> {
  %r = graph.if %c : tensor<i1> -> tensor<1x?xi64> {
    %e = graph.constant dense<> : tensor<1x0xi64>
    graph.yield %e : tensor<1x0xi64>
  } else {
    %n = graph.non_zero %x : (tensor<4xf32>) -> tensor<1x?xi64> loc("NonZero")
    graph.yield %n : tensor<1x?xi64>
  } loc("If")
  %1 = graph.neg %r : tensor<1x?xi64> loc("Neg")
  return %1 : tensor<1x?xi64>
}
