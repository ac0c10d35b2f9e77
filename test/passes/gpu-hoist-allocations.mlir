// RUN: kiln-opt %s --split-input-file --gpu-hoist-allocations | FileCheck %s

// Out of a branch, with its size from outside: the host allocates it.
// CHECK-LABEL: func.func @branch
// CHECK-NEXT: %[[BUFFER:.*]] = memref.alloc(%arg1) : memref<?xf32>
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.copy %arg2, %[[BUFFER]]
func.func @branch(%c: i1, %n: index, %in: memref<?xf32>, %out: memref<?xf32>) {
  scf.if %c {
    %b = memref.alloc(%n) : memref<?xf32>
    memref.copy %in, %b : memref<?xf32> to memref<?xf32>
    memref.copy %b, %out : memref<?xf32> to memref<?xf32>
  }
  return
}

// -----

// A Loop as one-shot bufferization leaves it: the before region copies the carried
// buffer; the after region allocates the next value and yields it. The copy reads the
// previous iteration's buffer before the after region allocates again, and the copy's
// own buffer goes no further than the after region: both leave the loop.
// CHECK-LABEL: func.func @while_loop
// CHECK: %[[STATE:.*]] = memref.alloc() : memref<f32>
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<f32>
// CHECK: %[[NEXT:.*]] = memref.alloc() : memref<f32>
// CHECK: scf.while
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @while_loop(%trips: i64, %out: memref<f32>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %one = arith.constant 1.0 : f32
  %state = memref.alloc() : memref<f32>
  %r:2 = scf.while (%i = %c0, %s = %state) : (i64, memref<f32>) -> (i64, memref<f32>) {
    %go = arith.cmpi slt, %i, %trips : i64
    %copy = memref.alloc() : memref<f32>
    memref.copy %s, %copy : memref<f32> to memref<f32>
    scf.condition(%go) %i, %copy : i64, memref<f32>
  } do {
  ^bb0(%i: i64, %s: memref<f32>):
    %next = memref.alloc() : memref<f32>
    %v = memref.load %s[] : memref<f32>
    %w = arith.addf %v, %one : f32
    memref.store %w, %next[] : memref<f32>
    %j = arith.addi %i, %c1 : i64
    scf.yield %j, %next : i64, memref<f32>
  }
  memref.copy %r#1, %out : memref<f32> to memref<f32>
  return
}

// -----

// A Scan's scf.for reads its state before it allocates the next one, which it yields.
// CHECK-LABEL: func.func @for_reads_state_first
// CHECK: memref.alloc() : memref<4xf32>
// CHECK-NEXT: scf.for
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @for_reads_state_first(%init: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %init) -> (memref<4xf32>) {
    %view = memref.subview %s[0] [4] [1] : memref<4xf32> to memref<4xf32, strided<[1]>>
    %v = memref.load %view[%i] : memref<4xf32, strided<[1]>>
    %next = memref.alloc() : memref<4xf32>
    memref.store %v, %next[%i] : memref<4xf32>
    scf.yield %next : memref<4xf32>
  }
  memref.copy %r, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// The state is read after the next buffer is allocated: one buffer for every iteration
// would be overwritten while it is read, so the allocation stays.
// CHECK-LABEL: func.func @for_reads_state_after
// CHECK: scf.for
// CHECK-NEXT: memref.alloc() : memref<4xf32>
func.func @for_reads_state_after(%init: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %init) -> (memref<4xf32>) {
    %next = memref.alloc() : memref<4xf32>
    memref.copy %s, %next : memref<4xf32> to memref<4xf32>
    scf.yield %next : memref<4xf32>
  }
  memref.copy %r, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// The state may be carried on unchanged (a branch yields it again): an iteration's
// buffer can outlive the next allocation, so the allocation stays.
// CHECK-LABEL: func.func @for_carries_twice
// CHECK: scf.for
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.alloc() : memref<4xf32>
func.func @for_carries_twice(%init: memref<4xf32>, %c: i1, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %init) -> (memref<4xf32>) {
    %v = memref.load %s[%i] : memref<4xf32>
    %next = memref.alloc() : memref<4xf32>
    memref.store %v, %next[%i] : memref<4xf32>
    %chosen = arith.select %c, %next, %s : memref<4xf32>
    scf.yield %chosen : memref<4xf32>
  }
  memref.copy %r, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// A size computed in the loop, and a buffer in a parallel loop (each iteration a
// thread), stay.
// CHECK-LABEL: func.func @stays
// CHECK: scf.for
// CHECK-NEXT: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: scf.parallel
// CHECK-NEXT: memref.alloc() : memref<2xf32>
func.func @stays(%out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %b = memref.alloc(%i) : memref<?xf32>
    linalg.fill ins(%zero : f32) outs(%b : memref<?xf32>)
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %b = memref.alloc() : memref<2xf32>
    memref.store %zero, %b[%c0] : memref<2xf32>
    scf.reduce
  }
  return
}

// -----

// Out of an inner loop into the outer loop's body, then out of the outer loop.
// CHECK-LABEL: func.func @nested_loops
// CHECK-NEXT: arith.constant
// CHECK: memref.alloc() : memref<f32>
// CHECK-NEXT: scf.for
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @nested_loops(%out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %b = memref.alloc() : memref<f32>
      memref.store %one, %b[] : memref<f32>
      memref.copy %b, %out : memref<f32> to memref<f32>
    }
  }
  return
}
