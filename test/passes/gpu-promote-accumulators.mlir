// RUN: kiln-opt --gpu-promote-accumulators %s -split-input-file | FileCheck %s

// A 3x3 max pool as convert-linalg-to-parallel-loops leaves it: the window's two loops
// load, combine and store the output element. Both carry it instead (innermost first),
// starting from the value stored before them, which is dropped; one store follows.
// CHECK-LABEL: func.func @max_pool(
// CHECK-SAME: %[[X:.*]]: memref<1x8x8xf32>, %[[Y:.*]]: memref<1x4x4xf32>)
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK-NOT: memref.store
// CHECK: %[[OUTER:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[INIT:.*]]) -> (f32) {
// CHECK: %[[INNER:.*]] = scf.for {{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (f32) {
// CHECK: %[[V:.*]] = memref.load %[[X]]
// CHECK: %[[M:.*]] = arith.maximumf %[[B]], %[[V]] : f32
// CHECK: scf.yield %[[M]] : f32
// CHECK: scf.yield %[[INNER]] : f32
// CHECK: memref.store %[[OUTER]], %[[Y]][%c0, %[[I]], %[[J]]]
// CHECK-NOT: memref.store
// CHECK: scf.reduce
func.func @max_pool(%x: memref<1x8x8xf32>, %y: memref<1x4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %init = arith.constant 0xFF800000 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    memref.store %init, %y[%c0, %i, %j] : memref<1x4x4xf32>
    scf.for %r = %c0 to %c2 step %c1 {
      scf.for %s = %c0 to %c2 step %c1 {
        %i2 = arith.muli %i, %c2 : index
        %j2 = arith.muli %j, %c2 : index
        %row = arith.addi %i2, %r : index
        %column = arith.addi %j2, %s : index
        %v = memref.load %x[%c0, %row, %column] : memref<1x8x8xf32>
        %acc = memref.load %y[%c0, %i, %j] : memref<1x4x4xf32>
        %m = arith.maximumf %acc, %v : f32
        memref.store %m, %y[%c0, %i, %j] : memref<1x4x4xf32>
      }
    }
    scf.reduce
  }
  return
}

// -----

// Without a store before the loop, the element is loaded before it. The buffers are
// allocations: a sum over a temporary's rows into another.
// CHECK-LABEL: func.func @row_sums(
// CHECK: %[[T:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: %[[S:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[INIT:.*]] = memref.load %[[S]][%[[I:.*]]] : memref<4xf32>
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[INIT]]) -> (f32) {
// CHECK: memref.load %[[T]]
// CHECK-NOT: memref.store
// CHECK: scf.yield
// CHECK: memref.store %[[SUM]], %[[S]][%[[I]]]
func.func @row_sums(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = memref.alloc() : memref<4x8xf32>
  %s = memref.alloc() : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %v = memref.load %t[%i, %k] : memref<4x8xf32>
      %acc = memref.load %s[%i] : memref<4xf32>
      %sum = arith.addf %acc, %v : f32
      memref.store %sum, %s[%i] : memref<4xf32>
    }
    scf.reduce
  }
  memref.copy %s, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Left alone: the loop reads its accumulator's buffer elsewhere (a view of it), writes
// another element too, or stores at indices that change with the loop.
// CHECK-LABEL: func.func @not_accumulators(
// CHECK-NOT: iter_args
// CHECK: return
func.func @not_accumulators(%x: memref<8xf32>, %y: memref<8xf32>, %z: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  // The accumulator's buffer read through a view.
  %view = memref.subview %y[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  scf.for %k = %c0 to %c4 step %c1 {
    %v = memref.load %view[%k] : memref<4xf32, strided<[1], offset: 4>>
    %acc = memref.load %y[%c0] : memref<8xf32>
    %sum = arith.addf %acc, %v : f32
    memref.store %sum, %y[%c0] : memref<8xf32>
  }
  // A second store in the loop.
  scf.for %k = %c0 to %c8 step %c1 {
    %v = memref.load %x[%k] : memref<8xf32>
    %acc = memref.load %z[%c0] : memref<8xf32>
    %sum = arith.addf %acc, %v : f32
    memref.store %sum, %z[%c0] : memref<8xf32>
    memref.store %v, %z[%c1] : memref<8xf32>
  }
  // Indices that move with the loop: a prefix sum, not an accumulator.
  scf.for %k = %c1 to %c8 step %c1 {
    %previous = arith.subi %k, %c1 : index
    %v = memref.load %x[%k] : memref<8xf32>
    %acc = memref.load %z[%previous] : memref<8xf32>
    %sum = arith.addf %acc, %v : f32
    memref.store %sum, %z[%k] : memref<8xf32>
  }
  return
}
