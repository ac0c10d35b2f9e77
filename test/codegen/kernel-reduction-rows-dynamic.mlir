// rows on a dynamic engine's kernel: rows of run-time count (the
// [batch, seq] leading dimensions), each row's 768 elements static. The kernel takes the
// row count as its last parameter (an i32) and guards the rows past it; the host computes
// it from the output's extents, and the grid from it. The configuration is chosen at the
// profile's opt shape (8 x 128 rows).
// RUN: kiln-opt --split-input-file --kernel-select-templates="target=sm_90a templates=rows" --kernel-instantiate-templates=target=sm_90a %s | FileCheck %s

// A residual add and LayerNorm. The scale and bias are read along the row, the input and
// the residual at row * 768.
// CHECK-LABEL: func.func @main
// CHECK: %[[Y:.*]] = memref.alloc
// CHECK: %[[BATCH:.*]] = memref.dim %[[Y]], %c0
// CHECK: %[[P0:.*]] = arith.muli %{{.*}}, %[[BATCH]] : index
// CHECK: %[[SEQ:.*]] = memref.dim %[[Y]], %c1
// CHECK: %[[P1:.*]] = arith.muli %[[P0]], %[[SEQ]] : index
// CHECK: %[[ELEMENTS:.*]] = arith.muli %[[P1]], %c768 : index
// CHECK: %[[ROWS:.*]] = arith.divui %[[ELEMENTS]], %c768{{.*}} : index
// CHECK: %[[ROWS32:.*]] = arith.index_cast %[[ROWS]] : index to i32
// CHECK: %[[CTAS:.*]] = arith.ceildivui %[[ROWS]], %c4 : index
// CHECK: gpu.launch_func {{ *}}@kiln_rows_layer_norm_nx768_{{[0-9a-f]+}}_t32r4v8::@rows_layer_norm_nx768_{{[0-9a-f]+}}_t32r4v8 blocks in (%[[CTAS]], %c1{{[_0-9]*}}, %c1{{[_0-9]*}})
// CHECK-SAME: %[[ROWS32]] : i32)
// CHECK: gpu.func @rows_layer_norm_nx768_{{.*}}(%{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %[[COUNT:.*]]: i32) kernel
// CHECK: %[[N:.*]] = arith.index_castui %[[COUNT]] : i32 to index
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%{{.*}}], strides: [1] : memref<f16> to memref<?xf16>
// CHECK: %[[VALID:.*]] = arith.cmpi ult, %{{.*}}, %[[N]] : index
kernel.func @LayerNorm_0(%x: memref<?x?x768xf16>, %r: memref<?x?x768xf16>, %s: memref<768xf16>, %bias: memref<768xf16>, %y: memref<?x?x768xf16>) {
  reduction ins(%x, %r, %s, %bias : memref<?x?x768xf16>, memref<?x?x768xf16>, memref<768xf16>, memref<768xf16>) outs(%y : memref<?x?x768xf16>) {
  ^bb0(%a: tensor<?x?x768xf16>, %b: tensor<?x?x768xf16>, %c: tensor<768xf16>, %d: tensor<768xf16>):
    %sum = graph.add %a, %b : (tensor<?x?x768xf16>, tensor<?x?x768xf16>) -> tensor<?x?x768xf16>
    %n, %mean, %inv = graph.layer_normalization %sum, %c, %d {axis = -1 : i64, epsilon = 9.999999960e-13 : f32, stash_type = f32} : (tensor<?x?x768xf16>, tensor<768xf16>, tensor<768xf16>) -> (tensor<?x?x768xf16>, tensor<?x?x1xf32>, tensor<?x?x1xf32>)
    kernel.yield %n : tensor<?x?x768xf16>
  }
  return
}
func.func @main(%x: memref<?x?x768xf16> {kernel.opt_shape = array<i64: 8, 128, 768>}, %r: memref<?x?x768xf16> {kernel.opt_shape = array<i64: 8, 128, 768>}, %s: memref<768xf16>, %bias: memref<768xf16>) -> memref<?x?x768xf16> attributes {kernel.num_inputs = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %batch = memref.dim %x, %c0 : memref<?x?x768xf16>
  %seq = memref.dim %x, %c1 : memref<?x?x768xf16>
  %y = memref.alloc(%batch, %seq) : memref<?x?x768xf16>
  kernel.launch @LayerNorm_0(%x, %r, %s, %bias, %y) : (memref<?x?x768xf16>, memref<?x?x768xf16>, memref<768xf16>, memref<768xf16>, memref<?x?x768xf16>) -> ()
  return %y : memref<?x?x768xf16>
}

// -----

// A CTA a row (its warps combine through a workgroup buffer): the row count is still the
// parameter after the buffers, and the grid is the row count itself.
// CHECK-LABEL: func.func @main
// CHECK: %[[ROWS:.*]] = arith.divui
// CHECK: %[[ROWS32:.*]] = arith.index_cast %[[ROWS]] : index to i32
// CHECK: %[[CTAS:.*]] = arith.ceildivui %[[ROWS]], %c1{{[_0-9]*}} : index
// CHECK: gpu.launch_func {{ *}}@kiln_rows_layer_norm_nx768_{{[0-9a-f]+}}_t64r1v8::{{.*}} blocks in (%[[CTAS]],
// CHECK-SAME: %[[ROWS32]] : i32)
// CHECK: gpu.func @rows_layer_norm_nx768_{{.*}}(%{{.*}}: memref<f16>, %{{.*}}: memref<f16>, %[[COUNT:.*]]: i32) workgroup
// CHECK: arith.index_castui %[[COUNT]] : i32 to index
kernel.func @LayerNorm_1(%x: memref<?x768xf16>, %y: memref<?x768xf16>) attributes {kernel.config = #kernel.rows<threads_per_row = 64, rows_per_cta = 1, vector = 8>} {
  reduction ins(%x : memref<?x768xf16>) outs(%y : memref<?x768xf16>) {
  ^bb0(%a: tensor<?x768xf16>):
    %c = graph.constant dense<1.0> : tensor<768xf16>
    %n, %mean, %inv = graph.layer_normalization %a, %c {axis = -1 : i64, epsilon = 9.999999960e-13 : f32, stash_type = f32} : (tensor<?x768xf16>, tensor<768xf16>) -> (tensor<?x768xf16>, tensor<?x1xf32>, tensor<?x1xf32>)
    kernel.yield %n : tensor<?x768xf16>
  }
  return
}
func.func @main(%x: memref<?x768xf16> {kernel.opt_shape = array<i64: 1024, 768>}) -> memref<?x768xf16> attributes {kernel.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %rows = memref.dim %x, %c0 : memref<?x768xf16>
  %y = memref.alloc(%rows) : memref<?x768xf16>
  kernel.launch @LayerNorm_1(%x, %y) : (memref<?x768xf16>, memref<?x768xf16>) -> ()
  return %y : memref<?x768xf16>
}

// -----

// A softmax over [batch, 12, seq, seq]: its rows are of run-time length, which the row
// kernels do not take (yet): the generic lowering keeps it.
// CHECK-LABEL: kernel.func @Softmax_0
// CHECK-NOT: gpu.launch_func
kernel.func @Softmax_0(%x: memref<?x12x?x?xf16>, %y: memref<?x12x?x?xf16>) {
  reduction ins(%x : memref<?x12x?x?xf16>) outs(%y : memref<?x12x?x?xf16>) {
  ^bb0(%a: tensor<?x12x?x?xf16>):
    %s = graph.softmax %a {axis = -1 : i64} : (tensor<?x12x?x?xf16>) -> tensor<?x12x?x?xf16>
    kernel.yield %s : tensor<?x12x?x?xf16>
  }
  return
}
func.func @main(%x: memref<?x12x?x?xf16> {kernel.opt_shape = array<i64: 8, 12, 128, 128>}) -> memref<?x12x?x?xf16> attributes {kernel.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %batch = memref.dim %x, %c0 : memref<?x12x?x?xf16>
  %seq = memref.dim %x, %c2 : memref<?x12x?x?xf16>
  %seq2 = memref.dim %x, %c3 : memref<?x12x?x?xf16>
  %y = memref.alloc(%batch, %seq, %seq2) : memref<?x12x?x?xf16>
  kernel.launch @Softmax_0(%x, %y) : (memref<?x12x?x?xf16>, memref<?x12x?x?xf16>) -> ()
  return %y : memref<?x12x?x?xf16>
}
