// RUN: kiln-opt %s --split-input-file --gpu-merge-short-rows | FileCheck %s
// RUN: kiln-opt %s --split-input-file --gpu-merge-short-rows --gpu-vectorize-pointwise-loops \
// RUN:   | FileCheck --check-prefix=VECTOR %s
// RUN: kiln-opt %s --split-input-file --gpu-merge-short-rows --gpu-tile-transposes \
// RUN:   | FileCheck --check-prefix=TILE %s

// A CNN's input to channels last at fp16: rows of 3 channels, stored 2 bytes a thread.
// The store is contiguous over (w, c): the nest becomes one loop over the 672 elements
// of a row of pixels, the store goes through a view merging (w, c), and the read takes
// w = f / 3, c = f % 3. The vectorizer then stores 8 f16 at once and gathers the reads.
// CHECK-LABEL: func.func @stem
// CHECK: %[[VIEW:.*]] = memref.collapse_shape %arg1 {{\[}}[0], [1], [2, 3]] : memref<32x224x224x3xf16> into memref<32x224x672xf16>
// CHECK: %[[C672:.*]] = arith.constant 672 : index
// CHECK: scf.parallel (%[[N:.*]], %[[H:.*]], %[[F:.*]]) = ({{.*}}) to (%c32, %c224, %[[C672]])
// CHECK:   %[[C3:.*]] = arith.constant 3 : index
// CHECK:   %[[W:.*]] = arith.divui %[[F]], %[[C3]] : index
// CHECK:   %[[C:.*]] = arith.remui %[[F]], %[[C3]] : index
// CHECK:   %[[X:.*]] = memref.load %arg0[%[[N]], %[[C]], %[[H]], %[[W]]] : memref<32x3x224x224xf32>
// CHECK:   %[[Y:.*]] = arith.truncf %[[X]] : f32 to f16
// CHECK:   memref.store %[[Y]], %[[VIEW]][%[[N]], %[[H]], %[[F]]] : memref<32x224x672xf16>
// VECTOR-LABEL: func.func @stem
// VECTOR: scf.parallel {{.*}} step (%c1, %c1, %c8)
// VECTOR-COUNT-8: memref.load %arg0
// VECTOR: vector.from_elements {{.*}} : vector<8xf32>
// VECTOR: vector.store {{.*}} : memref<32x224x672xf16>, vector<8xf16>
func.func @stem(%x: memref<32x3x224x224xf32>, %y: memref<32x224x224x3xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c224 = arith.constant 224 : index
  scf.parallel (%n, %h, %w, %c) = (%c0, %c0, %c0, %c0) to (%c32, %c224, %c224, %c3) step (%c1, %c1, %c1, %c1) {
    %0 = memref.load %x[%n, %c, %h, %w] : memref<32x3x224x224xf32>
    %1 = arith.truncf %0 : f32 to f16
    memref.store %1, %y[%n, %h, %w, %c] : memref<32x224x224x3xf16>
    scf.reduce
  }
  return
}

// -----

// An operand at the same (a, b) of a buffer contiguous over them reads through its own
// view at f too (an Add of two [.., 8, 5] tensors: rows of 40, one vector access each).
// CHECK-LABEL: func.func @rows_of_five
// CHECK-DAG: %[[A:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1, 2]] : memref<64x8x5xf32> into memref<64x40xf32>
// CHECK-DAG: %[[B:.*]] = memref.collapse_shape %arg1 {{\[}}[0], [1, 2]] : memref<64x8x5xf32> into memref<64x40xf32>
// CHECK-DAG: %[[C:.*]] = memref.collapse_shape %arg2 {{\[}}[0], [1, 2]] : memref<64x8x5xf32> into memref<64x40xf32>
// CHECK: scf.parallel (%[[I:.*]], %[[F:.*]]) = ({{.*}}) to (%c64, %{{.*}})
// CHECK:   memref.load %[[A]][%[[I]], %[[F]]]
// CHECK:   memref.load %[[B]][%[[I]], %[[F]]]
// CHECK:   memref.store %{{.*}}, %[[C]][%[[I]], %[[F]]]
// VECTOR-LABEL: func.func @rows_of_five
// VECTOR-COUNT-2: vector.load {{.*}} : memref<64x40xf32>, vector<4xf32>
// VECTOR: vector.store {{.*}} : memref<64x40xf32>, vector<4xf32>
func.func @rows_of_five(%a: memref<64x8x5xf32>, %b: memref<64x8x5xf32>, %c: memref<64x8x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %r, %e) = (%c0, %c0, %c0) to (%c64, %c8, %c5) step (%c1, %c1, %c1) {
    %0 = memref.load %a[%i, %r, %e] : memref<64x8x5xf32>
    %1 = memref.load %b[%i, %r, %e] : memref<64x8x5xf32>
    %2 = arith.addf %0, %1 : f32
    memref.store %2, %c[%i, %r, %e] : memref<64x8x5xf32>
    scf.reduce
  }
  return
}

// -----

// A transpose into rows of 5 ([2, 8, 5, 16] to [2, 16, 8, 5]): merged, the store runs
// along f over 40 elements, which gpu-tile-transposes stages through shared memory, the
// read's indices (f / 5, f % 5) recomputed at each tile element's f.
// CHECK-LABEL: func.func @transposed_rows
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x8x5x16xf32>
// CHECK: memref.store {{.*}} : memref<2x16x40xf32>
// TILE-LABEL: func.func @transposed_rows
// TILE: memref.alloca() : memref<32x33xf32, #gpu.address_space<workgroup>>
// TILE: arith.divui
// TILE: arith.remui
// TILE: memref.load %arg0
// TILE: gpu.barrier
// TILE: memref.store {{.*}} : memref<2x16x40xf32>
func.func @transposed_rows(%in: memref<2x8x5x16xf32>, %out: memref<2x16x8x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c5 = arith.constant 5 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%n, %k, %a, %b) = (%c0, %c0, %c0, %c0) to (%c2, %c16, %c8, %c5) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %in[%n, %a, %b, %k] : memref<2x8x5x16xf32>
    memref.store %v, %out[%n, %k, %a, %b] : memref<2x16x8x5xf32>
    scf.reduce
  }
  return
}

// -----

// Left as they are: rows of an even length (the vectorizer takes them); rows of 17 (not
// short: consecutive threads store runs already); rows whose store is not at the last
// two variables (a transposed store); rows of a strided buffer (a view whose rows are
// not contiguous with the next); A x B odd (7 rows of 3: no two lanes divide 21).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: collapse_shape
// CHECK: return
func.func @left_alone(%a: memref<64x8x6xf32>, %b: memref<64x8x17xf32>, %t: memref<64x5x8xf32>, %s: memref<64x8x8xf32>, %o: memref<64x7x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c17 = arith.constant 17 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %r, %e) = (%c0, %c0, %c0) to (%c64, %c8, %c6) step (%c1, %c1, %c1) {
    memref.store %zero, %a[%i, %r, %e] : memref<64x8x6xf32>
    scf.reduce
  }
  scf.parallel (%i, %r, %e) = (%c0, %c0, %c0) to (%c64, %c8, %c17) step (%c1, %c1, %c1) {
    memref.store %zero, %b[%i, %r, %e] : memref<64x8x17xf32>
    scf.reduce
  }
  scf.parallel (%i, %r, %e) = (%c0, %c0, %c0) to (%c64, %c8, %c5) step (%c1, %c1, %c1) {
    memref.store %zero, %t[%i, %e, %r] : memref<64x5x8xf32>
    scf.reduce
  }
  %view = memref.subview %s[0, 0, 0] [64, 8, 5] [1, 1, 1] : memref<64x8x8xf32> to memref<64x8x5xf32, strided<[64, 8, 1]>>
  scf.parallel (%i, %r, %e) = (%c0, %c0, %c0) to (%c64, %c8, %c5) step (%c1, %c1, %c1) {
    memref.store %zero, %view[%i, %r, %e] : memref<64x8x5xf32, strided<[64, 8, 1]>>
    scf.reduce
  }
  scf.parallel (%i, %r, %e) = (%c0, %c0, %c0) to (%c64, %c7, %c3) step (%c1, %c1, %c1) {
    memref.store %zero, %o[%i, %r, %e] : memref<64x7x3xf32>
    scf.reduce
  }
  return
}
