// RUN: kiln-opt %s --split-input-file --gpu-predicate-branches | FileCheck %s

// An If whose condition a kernel computes (a load) and whose else branch computes into a
// buffer of the input's extent: the condition is stored as an i64 where it is computed
// and read back; the else branch's loop runs zero iterations where the then branch is
// taken, its sequential loop runs inside an scf.if on the predicate, and each result is
// the taken branch's: a select for the index, for the buffer a new one of the taken
// branch's extent that both branches copy into (zero rows where not taken).
// CHECK-LABEL: func.func @device_condition
// CHECK:      %[[N:.*]] = memref.dim %arg1
// CHECK:      %[[SPILL:.*]] = memref.alloc() : memref<i64>
// CHECK-NEXT: %[[COND:.*]] = memref.load %arg0[]
// CHECK-NEXT: %[[WIDE:.*]] = arith.extui %[[COND]] : i1 to i64
// CHECK-NEXT: memref.store %[[WIDE]], %[[SPILL]][]
// CHECK:      %[[READ:.*]] = kernel.read_back %[[SPILL]] : memref<i64> -> i64
// CHECK:      %[[TAKEN:.*]] = arith.cmpi ne, %[[READ]]
// CHECK:      %[[ELSE:.*]] = arith.xori %[[TAKEN]], %true
// CHECK:      %[[EMPTY:.*]] = memref.alloc() : memref<0xf32>
// CHECK:      %[[EMPTYCAST:.*]] = memref.cast %[[EMPTY]]
// CHECK:      %[[B:.*]] = memref.alloc(%[[N]]) : memref<?xf32>
// CHECK:      %[[UB:.*]] = arith.select %[[ELSE]], %[[N]], %c0
// CHECK:      scf.parallel (%{{.*}}) = (%c0) to (%[[UB]])
// CHECK:      %[[SUM:.*]] = scf.if %[[ELSE]] -> (index) {
// CHECK-NEXT:   %[[LOOP:.*]] = scf.for
// CHECK:        scf.yield %[[LOOP]] : index
// CHECK-NEXT: } else {
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:   scf.yield %[[ZERO]] : index
// CHECK:      %[[THENDIM:.*]] = memref.dim %[[EMPTYCAST]]
// CHECK:      %[[ELSEDIM:.*]] = memref.dim %[[B]]
// CHECK:      %[[DIM:.*]] = arith.select %[[TAKEN]], %[[THENDIM]], %[[ELSEDIM]]
// CHECK:      %[[RESULT:.*]] = memref.alloc(%[[DIM]]) : memref<?xf32>
// CHECK:      %[[ROWS:.*]] = arith.select %[[TAKEN]]
// CHECK:      %[[FROM:.*]] = memref.subview %[[EMPTYCAST]][0] [%[[ROWS]]] [1]
// CHECK:      %[[TO:.*]] = memref.subview %[[RESULT]][0] [%[[ROWS]]] [1]
// CHECK:      memref.copy %[[FROM]], %[[TO]]
// CHECK:      %[[ELSEROWS:.*]] = arith.select %[[ELSE]], %[[N]]
// CHECK:      %[[FROM2:.*]] = memref.subview %[[B]][0] [%[[ELSEROWS]]] [1]
// CHECK:      %[[TO2:.*]] = memref.subview %[[RESULT]][0] [%[[ELSEROWS]]] [1]
// CHECK:      memref.copy %[[FROM2]], %[[TO2]]
// CHECK:      %[[COUNT:.*]] = arith.select %[[TAKEN]], %c0, %[[SUM]] : index
// CHECK-NOT:  scf.if %[[COND]]
// CHECK:      memref.dim %[[RESULT]]
// CHECK:      return %[[COUNT]]
func.func @device_condition(%flag: memref<i1>, %x: memref<?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %cond = memref.load %flag[] : memref<i1>
  %r:2 = scf.if %cond -> (memref<?xf32>, index) {
    %a = memref.alloc() : memref<0xf32>
    %cast = memref.cast %a : memref<0xf32> to memref<?xf32>
    scf.yield %cast, %c0 : memref<?xf32>, index
  } else {
    %b = memref.alloc(%n) : memref<?xf32>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = memref.load %x[%i] : memref<?xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %b[%i] : memref<?xf32>
      scf.reduce
    }
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
      %t = arith.addi %acc, %c1 : index
      scf.yield %t : index
    }
    scf.yield %b, %s : memref<?xf32>, index
  }
  %m = memref.dim %r#0, %c0 : memref<?xf32>
  return %r#1 : index
}

// -----

// A condition the host computes (from extents) is used as it is: no read-back. A
// template's launch gets an empty grid where its branch is not taken; a copy copies zero
// rows; the stores that fill a reshape's shape buffer (constant indices, a buffer of the
// branch) run unpredicated, for gpu-map-loops to read on the host.
// CHECK-LABEL: func.func @host_condition
// CHECK-NOT:  kernel.read_back
// CHECK:      %[[EMPTY:.*]] = arith.cmpi eq
// CHECK:      %[[NONEMPTY:.*]] = arith.xori %[[EMPTY]], %true
// CHECK:      %[[GRID:.*]] = arith.select %[[EMPTY]], %[[N:.*]], %c0
// CHECK:      gpu.launch_func @kernels::@fill blocks in (%[[GRID]], %c1, %c1)
// CHECK:      %[[SHAPE:.*]] = memref.alloc() : memref<2xindex>
// CHECK-NEXT: memref.store %[[N]], %[[SHAPE]][%c0]
// CHECK-NEXT: memref.store %c1, %[[SHAPE]][%c1]
// CHECK-NEXT: %[[RESHAPED:.*]] = memref.reshape %arg1(%[[SHAPE]])
// CHECK:      %[[ROWS:.*]] = arith.select %[[NONEMPTY]], %{{.*}}, %c0
// CHECK:      %[[FROM:.*]] = memref.subview %[[RESHAPED]][0, 0] [%[[ROWS]], 1] [1, 1]
// CHECK:      %[[TO:.*]] = memref.subview %arg2[0, 0] [%[[ROWS]], 1] [1, 1]
// CHECK:      memref.copy %[[FROM]], %[[TO]]
// CHECK-NOT:  scf.if
// CHECK:      return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%out: memref<f32>) kernel {
      gpu.return
    }
  }
  func.func @host_condition(%out: memref<f32>, %x: memref<?xf32>, %y: memref<?x1xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %empty = arith.cmpi eq, %n, %c0 : index
    scf.if %empty {
      gpu.launch_func @kernels::@fill blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%out : memref<f32>)
    } else {
      %shape = memref.alloc() : memref<2xindex>
      memref.store %n, %shape[%c0] : memref<2xindex>
      memref.store %c1, %shape[%c1] : memref<2xindex>
      %reshaped = memref.reshape %x(%shape) : (memref<?xf32>, memref<2xindex>) -> memref<?x1xf32>
      memref.copy %reshaped, %y : memref<?x1xf32> to memref<?x1xf32>
    }
    return
  }
}

// -----

// The same shape buffer hoisted out of its branch (gpu-hoist-allocations runs first):
// its stores still run unpredicated, before the reshape that reads them, so that
// gpu-map-loops reads the extents on the host (SSDlite's post-processing: a reshape of a
// count the branch computes).
// CHECK-LABEL: func.func @hoisted_shape_buffer
// CHECK:      %[[SHAPE:.*]] = memref.alloc() : memref<2xindex>
// CHECK:      memref.store %[[N:.*]], %[[SHAPE]][%c0]
// CHECK-NEXT: memref.store %c1, %[[SHAPE]][%c1]
// CHECK-NEXT: %[[RESHAPED:.*]] = memref.reshape %arg1(%[[SHAPE]])
// CHECK-NOT:  scf.if
// CHECK:      return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%out: memref<f32>) kernel {
      gpu.return
    }
  }
  func.func @hoisted_shape_buffer(%out: memref<f32>, %x: memref<?xf32>, %y: memref<?x1xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %empty = arith.cmpi eq, %n, %c0 : index
    %shape = memref.alloc() : memref<2xindex>
    scf.if %empty {
      gpu.launch_func @kernels::@fill blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%out : memref<f32>)
    } else {
      memref.store %n, %shape[%c0] : memref<2xindex>
      memref.store %c1, %shape[%c1] : memref<2xindex>
      %reshaped = memref.reshape %x(%shape) : (memref<?xf32>, memref<2xindex>) -> memref<?x1xf32>
      memref.copy %reshaped, %y : memref<?x1xf32> to memref<?x1xf32>
    }
    return
  }
}

// -----

// A nested If with parallel work is predicated on both conditions: its loop runs where
// the outer branch is taken and so is its own.
// CHECK-LABEL: func.func @nested
// CHECK:      %[[OUTER:.*]] = arith.cmpi sgt, %[[N:.*]], %c4
// CHECK:      %[[INNER:.*]] = arith.cmpi sgt, %[[N]], %c8
// CHECK:      %[[BOTH:.*]] = arith.andi %[[OUTER]], %[[INNER]]
// CHECK:      %[[UB:.*]] = arith.select %[[BOTH]], %[[N]], %c0
// CHECK:      scf.parallel (%{{.*}}) = (%c0) to (%[[UB]])
// CHECK-NOT:  scf.if
// CHECK:      return
func.func @nested(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %outer = arith.cmpi sgt, %n, %c4 : index
  scf.if %outer {
    %inner = arith.cmpi sgt, %n, %c8 : index
    scf.if %inner {
      scf.parallel (%i) = (%c0) to (%n) step (%c1) {
        memref.store %zero, %x[%i] : memref<?xf32>
        scf.reduce
      }
    }
  }
  return
}

// -----

// Without parallel work (a choice between buffers the host has) the If stays: gpu-map-loops
// copies the chosen buffer out of a kernel. So does one with an op this pass cannot
// predicate (a loop yielding a buffer).
// CHECK-LABEL: func.func @kept
// CHECK:      scf.if
// CHECK:      scf.if
func.func @kept(%flag: memref<i1>, %a: memref<4xf32>, %b: memref<4xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %cond = memref.load %flag[] : memref<i1>
  %r = scf.if %cond -> (memref<4xf32>) {
    scf.yield %a : memref<4xf32>
  } else {
    scf.yield %b : memref<4xf32>
  }
  scf.if %cond {
    %t = memref.alloc() : memref<4xf32>
    %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%buffer = %t) -> (memref<4xf32>) {
      scf.yield %buffer : memref<4xf32>
    }
  }
  return %r : memref<4xf32>
}
