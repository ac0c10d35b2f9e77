// RUN: kiln-opt %s --split-input-file --gpu-flatten-pointwise-loops | FileCheck %s
// RUN: kiln-opt %s --split-input-file --gpu-flatten-pointwise-loops --gpu-map-loops \
// RUN:   | FileCheck --check-prefix=MAPPED %s

// A residual add over [batch, sequence, 768] buffers allocated at the run-time extents:
// one loop over their product, through row-major views; the thread's index is the
// element's offset, so gpu-map-loops delinearises nothing.
// CHECK-LABEL: func.func @residual_add
// CHECK-SAME: (%[[A:.*]]: memref<?x?x768xf16>, %[[B:[0-9a-z]+]]: index, %[[S:[0-9a-z]+]]: index)
// CHECK: %[[X:.*]] = memref.alloc(%[[B]], %[[S]])
// CHECK: %[[Y:.*]] = memref.alloc(%[[B]], %[[S]])
// CHECK: %[[A2:.*]] = memref.reinterpret_cast %[[A]]
// CHECK: %[[BS:.*]] = arith.muli %[[B]], %[[S]] : index
// CHECK: %[[TOTAL:.*]] = arith.muli %[[BS]], %c768 : index
// CHECK-DAG: %[[FX:.*]] = memref.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : memref<?x?x768xf16> into memref<?xf16>
// CHECK-DAG: %[[FY:.*]] = memref.collapse_shape %[[Y]] {{\[}}[0, 1, 2]] : memref<?x?x768xf16> into memref<?xf16>
// CHECK-DAG: %[[FA:.*]] = memref.collapse_shape %[[A2]] {{\[}}[0, 1, 2]] : memref<?x?x768xf16> into memref<?xf16>
// CHECK: scf.parallel (%[[I:.*]]) = (%c0{{.*}}) to (%[[TOTAL]]) step (%c1{{.*}}) {
// CHECK:   %[[L:.*]] = memref.load %[[FX]][%[[I]]] : memref<?xf16>
// CHECK:   %[[R:.*]] = memref.load %[[FA]][%[[I]]] : memref<?xf16>
// CHECK:   %[[SUM:.*]] = arith.addf %[[L]], %[[R]] : f16
// CHECK:   memref.store %[[SUM]], %[[FY]][%[[I]]] : memref<?xf16>
// MAPPED-LABEL: func.func @residual_add
// MAPPED: gpu.launch
// MAPPED-NOT: arith.remui
// MAPPED-NOT: arith.divui
// MAPPED: gpu.terminator
func.func @residual_add(%a: memref<?x?x768xf16>, %b: index, %s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c768 = arith.constant 768 : index
  %x = memref.alloc(%b, %s) : memref<?x?x768xf16>
  %y = memref.alloc(%b, %s) : memref<?x?x768xf16>
  %row = arith.muli %s, %c768 : index
  %a2 = memref.reinterpret_cast %a to offset: [0], sizes: [%b, %s, 768], strides: [%row, 768, 1] : memref<?x?x768xf16> to memref<?x?x768xf16>
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%b, %s, %c768) step (%c1, %c1, %c1) {
    %l = memref.load %x[%i, %j, %k] : memref<?x?x768xf16>
    %r = memref.load %a2[%i, %j, %k] : memref<?x?x768xf16>
    %sum = arith.addf %l, %r : f16
    memref.store %sum, %y[%i, %j, %k] : memref<?x?x768xf16>
    scf.reduce
  }
  return
}

// -----

// A bound read off a buffer (memref.dim) is that buffer's extent.
// CHECK-LABEL: func.func @cast_of_argument
// CHECK: %[[N:.*]] = memref.dim %arg0, %c0
// CHECK: %[[TOTAL:.*]] = arith.muli %[[N]], %c64 : index
// CHECK: scf.parallel (%{{.*}}) = (%c0{{.*}}) to (%[[TOTAL]]) step (%c1{{.*}}) {
// CHECK-NOT: scf.parallel
func.func @cast_of_argument(%a: memref<?x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %a, %c0 : memref<?x64xf16>
  %out = memref.alloc(%n) : memref<?x64xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c64) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<?x64xf16>
    %w = arith.extf %v : f16 to f32
    memref.store %w, %out[%i, %j] : memref<?x64xf32>
    scf.reduce
  }
  return
}

// -----

// Left alone: a broadcast (the bias read at one induction variable), a transpose (the
// indices permuted), a buffer whose extent is not known to be the bound, a strided
// buffer, and a nest of constant bounds (gpu-map-loops divides by constants there).
// CHECK-LABEL: func.func @not_pointwise
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK-NOT: memref.collapse_shape
func.func @not_pointwise(%n: index, %bias: memref<64xf32>, %other: memref<?x64xf32>, %strided: memref<?x64xf32, strided<[128, 1]>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %x = memref.alloc(%n) : memref<?x64xf32>
  %y = memref.alloc(%n) : memref<?x64xf32>
  %t = memref.alloc(%n) : memref<64x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c64) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x64xf32>
    %b = memref.load %bias[%j] : memref<64xf32>
    %s = arith.addf %v, %b : f32
    memref.store %s, %y[%i, %j] : memref<?x64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c64) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x64xf32>
    memref.store %v, %t[%j, %i] : memref<64x?xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c64) step (%c1, %c1) {
    %v = memref.load %other[%i, %j] : memref<?x64xf32>
    memref.store %v, %y[%i, %j] : memref<?x64xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c64) step (%c1, %c1) {
    %v = memref.load %strided[%i, %j] : memref<?x64xf32, strided<[128, 1]>>
    memref.store %v, %y[%i, %j] : memref<?x64xf32>
    scf.reduce
  }
  %s = memref.alloc() : memref<8x64xf32>
  %d = memref.alloc() : memref<8x64xf32>
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c1, %c1) {
    %v = memref.load %s[%i, %j] : memref<8x64xf32>
    memref.store %v, %d[%i, %j] : memref<8x64xf32>
    scf.reduce
  }
  return
}
