// kernel-instantiate-templates: a kernel holding one graph.non_zero of a kernel argument
// becomes the non_zero template (passes/kernel/templates/NonZero.mlir): a kernel counting
// each chunk of 4096 elements (a CTA a chunk, at least one) into a buffer the host
// allocates, then a CTA a chunk writing its positions where the earlier chunks' end, or,
// in the extent kernel, one CTA summing the counts. The positions' and the count's forms
// of one input share a module.
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=non_zero" --kernel-instantiate-templates=target=sm_90a %s -split-input-file | FileCheck %s
// RUN: kiln-opt --kernel-select-templates="target=sm_90a templates=non_zero" --kernel-instantiate-templates=target=sm_90a --kiln-lower-gpu-device %s -split-input-file \
// RUN:   | kiln-translate --emit-ptx -split-input-file | FileCheck %s --check-prefix=PTX

// PyTorch's nonzero() of a run-time number of rows of 7 (f32): NonZero, then a
// transpose ([n, 2]); and the extent kernel's count.
// CHECK-LABEL: func.func @main
// CHECK-NOT: kernel.launch
// CHECK: memref.dim %{{.*}}, %c0
// CHECK: %[[N:.*]] = arith.muli %{{.*}}, %c7
// CHECK: %[[CEIL:.*]] = arith.ceildivui %[[N]], %c4096
// CHECK: %[[CHUNKS:.*]] = arith.maxui %[[CEIL]], %c1
// CHECK: %[[COUNTS:.*]] = memref.alloc(%[[CHUNKS]]) : memref<?xi32>
// CHECK: gpu.launch_func {{ *}}@kiln_non_zero_f32_r2_t::@non_zero_f32_r2_t_chunks blocks in (%[[CHUNKS]], %c1{{.*}}, %c1{{.*}}) threads in (%c1024{{.*}}, %c1{{.*}}, %c1{{.*}}) args(%{{.*}} : memref<f32>, %{{.*}} : memref<i32>, %{{.*}} : i32)
// CHECK: gpu.launch_func {{ *}}@kiln_non_zero_f32_r2_t::@non_zero_f32_r2_t_total blocks in (%c1{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c1024{{.*}}, %c1{{.*}}, %c1{{.*}}) args(%{{.*}} : memref<i32>, %{{.*}} : memref<i64>, %{{.*}} : i32)
// CHECK: kernel.read_back
// CHECK: gpu.launch_func {{ *}}@kiln_non_zero_f32_r2_t::@non_zero_f32_r2_t_chunks
// CHECK: gpu.launch_func {{ *}}@kiln_non_zero_f32_r2_t::@non_zero_f32_r2_t_write blocks in (%{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c1024{{.*}}, %c1{{.*}}, %c1{{.*}}) args(%{{.*}} : memref<f32>, %{{.*}} : memref<i32>, %{{.*}} : memref<i64>, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32)
// CHECK-NOT: kernel.func @NonZero
// CHECK: gpu.func @non_zero_f32_r2_t_chunks(
// NaN is non-zero.
// CHECK: arith.cmpf une
// CHECK: gpu.shuffle xor
// CHECK: gpu.func @non_zero_f32_r2_t_total(
// CHECK: gpu.func @non_zero_f32_r2_t_write(
// CHECK: gpu.shuffle up
// Transposed: a position's two coordinates side by side (position x 2 + dim); the
// second's (the fastest) first.
// CHECK: arith.remui %{{.*}}, %{{.*}} : i32
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %c2_i32 : i32
// CHECK: arith.addi %[[ROW]], %c1_i32{{.*}} : i32
// CHECK: memref.store %{{.*}} : memref<?xi64>
// CHECK: arith.muli %{{.*}}, %c2_i32 : i32
// CHECK: memref.store %{{.*}} : memref<?xi64>
// PTX-LABEL: .visible .entry non_zero_f32_r2_t_chunks(
// PTX: shfl.sync.bfly
// PTX-LABEL: .visible .entry non_zero_f32_r2_t_total(
// PTX-LABEL: .visible .entry non_zero_f32_r2_t_write(
// PTX: shfl.sync.up
// PTX: st.global
kernel.func @NonZero_extent(%x: memref<?x7xf32>, %count: memref<1xi64>) {
  generic ins(%x : memref<?x7xf32>) outs(%count : memref<1xi64>) {
  ^bb0(%a: tensor<?x7xf32>):
    %nz = graph.non_zero %a : (tensor<?x7xf32>) -> tensor<2x?xi64>
    %t = graph.transpose %nz {perm = array<i64: 1, 0>} : (tensor<2x?xi64>) -> tensor<?x2xi64>
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %t, %c0 : tensor<?x2xi64>
    %n = arith.index_cast %dim : index to i64
    %e = tensor.from_elements %n : tensor<1xi64>
    kernel.yield %e : tensor<1xi64>
  }
  return
}
kernel.func @NonZero(%x: memref<?x7xf32>, %out: memref<?x2xi64>) {
  movement ins(%x : memref<?x7xf32>) outs(%out : memref<?x2xi64>) {
  ^bb0(%a: tensor<?x7xf32>):
    %nz = graph.non_zero %a : (tensor<?x7xf32>) -> tensor<2x?xi64>
    %t = graph.transpose %nz {perm = array<i64: 1, 0>} : (tensor<2x?xi64>) -> tensor<?x2xi64>
    kernel.yield %t : tensor<?x2xi64>
  }
  return
}
func.func @main(%x: memref<?x7xf32> {kernel.max_shape = array<i64: 1000, 7>}) attributes {kernel.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %count = memref.alloc() : memref<1xi64>
  kernel.launch @NonZero_extent(%x, %count) : (memref<?x7xf32>, memref<1xi64>) -> ()
  %n = kernel.read_back %count : memref<1xi64> -> i64
  %rows = arith.index_cast %n : i64 to index
  %out = memref.alloc(%rows) : memref<?x2xi64>
  kernel.launch @NonZero(%x, %out) : (memref<?x7xf32>, memref<?x2xi64>) -> ()
  return
}

// -----

// A comparison's booleans (i1), rank 1: one row of positions.
// CHECK-LABEL: func.func @main
// CHECK: gpu.launch_func {{ *}}@kiln_non_zero_i1_r1::@non_zero_i1_r1_chunks blocks in (%{{.*}}, %c1{{.*}}, %c1{{.*}})
// CHECK: gpu.launch_func {{ *}}@kiln_non_zero_i1_r1::@non_zero_i1_r1_write
// CHECK: gpu.func @non_zero_i1_r1_chunks(
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i1
// Not transposed: row 0 of [1, total], at the position.
// CHECK: gpu.func @non_zero_i1_r1_write(
// CHECK-NOT: arith.remui
// CHECK: memref.store %{{.*}} : memref<?xi64>
kernel.func @NonZero(%x: memref<10000xi1>, %out: memref<1x?xi64>) {
  movement ins(%x : memref<10000xi1>) outs(%out : memref<1x?xi64>) {
  ^bb0(%a: tensor<10000xi1>):
    %nz = graph.non_zero %a : (tensor<10000xi1>) -> tensor<1x?xi64>
    kernel.yield %nz : tensor<1x?xi64>
  }
  return
}
func.func @main(%x: memref<10000xi1>, %rows: index) attributes {kernel.num_inputs = 1 : i64} {
  %out = memref.alloc(%rows) : memref<1x?xi64>
  kernel.launch @NonZero(%x, %out) : (memref<10000xi1>, memref<1x?xi64>) -> ()
  return
}
