// RUN: kiln-opt %s --split-input-file --gpu-map-loops=min-blocks=1 --verify-diagnostics | FileCheck %s

// An elementwise loop: one thread per element, 256 per block, 1024 / 256 = 4 blocks
// (no tail guard), named after the ONNX node in its location.
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C4]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]], {{.*}} module(@elementwise_kernels) function(@Relu_0_k0)
// CHECK:   %[[BASE:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK:   %[[I:.*]] = arith.addi %[[BASE]], %[[TX]] : index
// CHECK-NOT: scf.if
// CHECK:   memref.load %arg0[%[[I]]]
// CHECK:   arith.maximumf
// CHECK:   memref.store %{{.*}}, %arg1[%[[I]]]
// CHECK:   gpu.terminator
// CHECK-NOT: scf.parallel
func.func @elementwise(%in: memref<1024xf32>, %out: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
    %x = memref.load %in[%i] : memref<1024xf32>
    %y = arith.maximumf %x, %zero : f32
    memref.store %y, %out[%i] : memref<1024xf32>
    scf.reduce
  } loc("Relu#0")
  return
}

// -----

// A 2-D nest with a lower bound and a step: 6 x 10 = 60 iterations in one block;
// the thread's index is delinearised, innermost dimension fastest.
// CHECK-LABEL: func.func @two_d
// CHECK-DAG: %[[C60:.*]] = arith.constant 60 : index
// CHECK: gpu.launch blocks({{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C60]], {{.*}} function(@two_d_k0)
// CHECK:   %[[J0:.*]] = arith.remui %[[TX]], %{{.*}} : index
// CHECK:   %[[I0:.*]] = arith.divui %[[TX]], %{{.*}} : index
// CHECK:   %[[J1:.*]] = arith.muli %[[J0]], %{{.*}} : index
// CHECK:   %[[I1:.*]] = arith.addi %[[I0]], %{{.*}} : index
// CHECK:   memref.store %{{.*}}, %arg0[%[[I1]], %[[J1]]]
func.func @two_d(%out: memref<8x20xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c20 = arith.constant 20 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c2, %c0) to (%c8, %c20) step (%c1, %c2) {
    memref.store %one, %out[%i, %j] : memref<8x20xf32>
    scf.reduce
  }
  return
}

// -----

// A row reduction: one thread per row, the reduction (scf.for) and the inner
// scf.parallel run sequentially in the thread. 300 rows need 2 blocks of 256 and a
// guard for the 212 threads past the end.
// CHECK-LABEL: func.func @reduction
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[C2]], {{.*}} threads({{.*}}) in (%{{.*}} = %[[C256]],
// CHECK:   %[[ROW:.*]] = arith.addi
// CHECK:   %[[C300:.*]] = arith.constant 300 : index
// CHECK:   %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %[[C300]] : index
// CHECK:   scf.if %[[IN]] {
// CHECK:     scf.for
// CHECK:       scf.for
// CHECK:         memref.load %arg0[%[[ROW]],
// CHECK-NOT: scf.parallel
func.func @reduction(%in: memref<300x16x4xf32>, %out: memref<300x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c300 = arith.constant 300 : index
  scf.parallel (%i) = (%c0) to (%c300) step (%c1) {
    scf.for %k = %c0 to %c16 step %c1 {
      scf.parallel (%j) = (%c0) to (%c4) step (%c1) {
        %x = memref.load %in[%i, %k, %j] : memref<300x16x4xf32>
        %acc = memref.load %out[%i, %j] : memref<300x4xf32>
        %sum = arith.addf %x, %acc : f32
        memref.store %sum, %out[%i, %j] : memref<300x4xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// A top-level scf.for (a recurrence) and the stores next to it run in one
// single-thread launch; the allocation between them stays on the host, before it.
// CHECK-LABEL: func.func @sequential
// CHECK: %[[TMP:.*]] = memref.alloc() : memref<f32>
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[C1]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) threads({{.*}}) in (%{{.*}} = %[[C1]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]])
// CHECK:   memref.store %{{.*}}, %[[TMP]][]
// CHECK:   scf.for
// CHECK:   memref.store %{{.*}}, %arg1[]
// CHECK:   gpu.terminator
// CHECK-NOT: gpu.launch
func.func @sequential(%in: memref<10xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloca() : memref<f32>
  memref.store %zero, %tmp[] : memref<f32>
  %r = scf.for %i = %c0 to %c10 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %in[%i] : memref<10xf32>
    %y = arith.addf %acc, %x : f32
    scf.yield %y : f32
  }
  memref.store %r, %out[] : memref<f32>
  return
}

// -----

// A copy between a strided view and a buffer becomes an elementwise launch; the view
// is recomputed inside the kernel, so the kernel receives the base buffer.
// CHECK-LABEL: func.func @copy
// CHECK-NOT: memref.copy
// CHECK-NOT: memref.subview
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %{{.*}}, {{.*}} function(@copy_k0)
// CHECK:   %[[VIEW:.*]] = memref.subview %arg0[0, 2] [4, 4] [1, 1]
// CHECK:   %[[X:.*]] = memref.load %[[VIEW]]
// CHECK:   memref.store %[[X]], %arg1
// CHECK-NOT: memref.copy
func.func @copy(%in: memref<4x8xf32>, %out: memref<4x4xf32>) {
  %view = memref.subview %in[0, 2] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 2>>
  memref.copy %view, %out : memref<4x4xf32, strided<[8, 1], offset: 2>> to memref<4x4xf32>
  return
}

// -----

// 2^40 iterations need 2^32 blocks of 256: more than 2^31 - 1 in x, so grid y is 3 and
// the block index is by * gridX + bx; the tail is guarded.
// CHECK-LABEL: func.func @grid_y
// CHECK-DAG: %[[GX:.*]] = arith.constant 2147483647 : index
// CHECK-DAG: %[[GY:.*]] = arith.constant 3 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %[[GX]], %{{.*}} = %[[GY]],
// CHECK:   %[[ROWS:.*]] = arith.muli %[[BY]], %{{.*}} : index
// CHECK:   %[[BLOCK:.*]] = arith.addi %[[ROWS]], %[[BX]] : index
// CHECK:   arith.muli %[[BLOCK]], %{{.*}} : index
// CHECK:   %[[TOTAL:.*]] = arith.constant 1099511627776 : index
// CHECK:   arith.cmpi ult, %{{.*}}, %[[TOTAL]]
// CHECK:   scf.if
func.func @grid_y(%out: memref<1048576x1048576xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1048576 : index
  %v = arith.constant 7 : i8
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%c1, %c1) {
    memref.store %v, %out[%i, %j] : memref<1048576x1048576xi8>
    scf.reduce
  }
  return
}

// -----

// A scalar one kernel computes and a later kernel uses goes through a 0-d buffer.
// CHECK-LABEL: func.func @scalar_between_kernels
// CHECK: %[[SPILL:.*]] = memref.alloc() : memref<f32>
// CHECK: gpu.launch
// CHECK:   %[[X:.*]] = memref.load %arg0[]
// CHECK:   memref.store %[[X]], %[[SPILL]][]
// CHECK: gpu.launch
// CHECK:   %[[Y:.*]] = memref.load %[[SPILL]][]
// CHECK:   memref.store %[[Y]], %arg1[
func.func @scalar_between_kernels(%in: memref<f32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %x = memref.load %in[] : memref<f32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    memref.store %x, %out[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// -----

// The size of a buffer read from memory: a kernel loads it and stores it into a 0-d
// buffer, the host reads it back, clamps it (the arithmetic recomputed on the host) and
// allocates; the loop it bounds is sized on the host, a launch of its own.
// CHECK-LABEL: func.func @data_dependent
// CHECK: %[[SPILL:.*]] = memref.alloc() : memref<index>
// CHECK: gpu.launch
// CHECK:   %[[N:.*]] = memref.load %arg0[
// CHECK:   memref.store %[[N]], %[[SPILL]][]
// CHECK: %[[READ:.*]] = kernel.read_back %[[SPILL]] : memref<index> -> index
// CHECK: %[[BOUNDED:.*]] = arith.minsi %[[READ]], %c100
// CHECK: memref.alloc(%[[BOUNDED]]) : memref<?xf32>
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads
func.func @data_dependent(%shape: memref<1xindex>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.load %shape[%c0] : memref<1xindex>
  %bounded = arith.minsi %n, %c100 : index
  %buffer = memref.alloc(%bounded) : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%bounded) step (%c1) {
    memref.store %zero, %buffer[%i] : memref<?xf32>
    scf.reduce
  }
  return %buffer : memref<?xf32>
}

// -----

// A size computed in floats (Range's count from float limits): the kernel converts it
// to an integer and stores that; the host reads it back.
// CHECK-LABEL: func.func @data_dependent_float
// CHECK: gpu.launch
// CHECK:   %[[N:.*]] = arith.fptosi
// CHECK:   memref.store %[[N]], %{{.*}}[] : memref<i64>
// CHECK: %[[READ:.*]] = kernel.read_back %{{.*}} : memref<i64> -> i64
// CHECK: %[[INDEX:.*]] = arith.index_cast %[[READ]] : i64 to index
// CHECK: memref.alloc(%[[INDEX]]) : memref<?xf32>
func.func @data_dependent_float(%limit: memref<f32>) -> memref<?xf32> {
  %x = memref.load %limit[] : memref<f32>
  %n = arith.fptosi %x : f32 to i64
  %i = arith.index_cast %n : i64 to index
  %buffer = memref.alloc(%i) : memref<?xf32>
  return %buffer : memref<?xf32>
}

// -----

// A call of another host function stays on the host, in order; the callee's compute
// becomes launches in the callee.
// CHECK-LABEL: func.func private @callee
// CHECK: gpu.launch
// CHECK-LABEL: func.func @caller
// CHECK-NOT: gpu.launch
// CHECK: call @callee
func.func private @callee(%out: memref<f32>) {
  %one = arith.constant 1.0 : f32
  memref.store %one, %out[] : memref<f32>
  return
}
func.func @caller(%out: memref<f32>) {
  call @callee(%out) : (memref<f32>) -> ()
  return
}

// -----

func.func private @callee(%out: memref<f32>)
func.func @call_in_loop(%out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error @below {{a kernel cannot call a host function; inline it first}}
    func.call @callee(%out) : (memref<f32>) -> ()
  }
  return
}

// -----

// A buffer sized inside a sequential loop (gpu-hoist-allocations leaves it) would be a
// device-heap malloc per iteration: refused.
func.func @allocation_in_loop(%out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error @below {{a buffer allocated inside a kernel}}
    %b = memref.alloc(%i) : memref<?xf32>
    memref.store %zero, %b[%c0] : memref<?xf32>
  }
  return
}

// -----

// A nest with a dynamic upper bound (a dynamic shape's extent, a host value): the trip
// counts, the grid (ceil(total / 256) blocks, on x up to 2^31 - 1) and the tail guard are
// host arithmetic on the bound; inside, the block index uses the launch's grid size.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[IN:.*]]: memref<?x8xf32>, %{{.*}}: memref<?x8xf32>)
// CHECK: %[[N:.*]] = memref.dim %[[IN]], %c0
// CHECK: %[[TOTAL:.*]] = arith.muli %[[N]], %c8
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %[[TOTAL]], %c256
// CHECK: %[[GX:.*]] = arith.minui %[[BLOCKS]], %c2147483647
// CHECK: %[[GY:.*]] = arith.ceildivui %[[BLOCKS]], %{{.*}}
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%[[SX:.*]] = %[[GX]], %{{.*}} = %[[GY]], %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256
// CHECK:   %[[ROW:.*]] = arith.muli %[[BY]], %[[SX]]
// CHECK:   %[[B:.*]] = arith.addi %[[ROW]], %[[BX]]
// CHECK:   %[[I:.*]] = arith.addi %{{.*}}, %[[TX]]
// CHECK:   %[[INSIDE:.*]] = arith.cmpi ult, %[[I]], %{{.*}}
// CHECK:   scf.if %[[INSIDE]]
// CHECK:     arith.remui %[[I]], %c8
// CHECK:     arith.divui %[[I]], %c8
func.func @dynamic(%in: memref<?x8xf32>, %out: memref<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %in, %c0 : memref<?x8xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c8) step (%c1, %c1) {
    %x = memref.load %in[%i, %j] : memref<?x8xf32>
    memref.store %x, %out[%i, %j] : memref<?x8xf32>
    scf.reduce
  }
  return
}

// -----

// With a profile whose max shape keeps the iteration space under 2^31 points (64 x 512 x
// 8 here), the thread's index is delinearised in 32 bits: a division by a run-time extent
// is a few instructions, not NVPTX's 64-bit sequence. Past 2^31 points at the max shape
// (2^20 x 4096), the arithmetic stays 64-bit.
// CHECK-LABEL: func.func @dynamic_narrow
// CHECK: scf.if
// CHECK:   %[[I32:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK:   %[[C8:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK:   arith.remui %[[I32]], %[[C8]] : i32
// CHECK:   %[[Q:.*]] = arith.divui %[[I32]], %[[C8]] : i32
// CHECK:   %[[S:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK:   arith.remui %[[Q]], %[[S]] : i32
// CHECK:   memref.load
// CHECK-LABEL: func.func @dynamic_wide
// CHECK: scf.if
// CHECK-NOT: i32
// CHECK:   arith.remui %{{.*}}, %{{.*}} : index
func.func @dynamic_narrow(%in: memref<?x?x8xf32> {kernel.min_shape = array<i64: 1, 1, 8>, kernel.max_shape = array<i64: 64, 512, 8>}, %out: memref<?x?x8xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %in, %c0 : memref<?x?x8xf32>
  %s = memref.dim %in, %c1 : memref<?x?x8xf32>
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%n, %s, %c8) step (%c1, %c1, %c1) {
    %x = memref.load %in[%i, %j, %k] : memref<?x?x8xf32>
    memref.store %x, %out[%i, %j, %k] : memref<?x?x8xf32>
    scf.reduce
  }
  return
}
func.func @dynamic_wide(%in: memref<?x?xf32> {kernel.min_shape = array<i64: 1, 1>, kernel.max_shape = array<i64: 1048576, 4096>}, %out: memref<?x?xf32>) attributes {kernel.num_inputs = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %in, %c0 : memref<?x?xf32>
  %s = memref.dim %in, %c1 : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %s) step (%c1, %c1) {
    %x = memref.load %in[%i, %j] : memref<?x?xf32>
    memref.store %x, %out[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  return
}

// -----

// A shape buffer (a dynamic reshape's target, stored at the top level) becomes the values
// stored in it: loads read them, and the reshape is the reinterpret_cast it is.
// CHECK-LABEL: func.func @shape_buffer
// CHECK-SAME: (%[[IN:.*]]: memref<?x8xf32>, %{{.*}}: memref<?x2x4xf32>)
// CHECK-NOT: memref.alloc
// CHECK: %[[N:.*]] = memref.dim %[[IN]], %c0
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[IN]] to offset: [0], sizes: [%[[N]], 2, 4], strides: [8, 4, 1] : memref<?x8xf32> to memref<?x2x4xf32>
// CHECK-NOT: memref.reshape
// CHECK: gpu.launch
// CHECK: memref.load %[[VIEW]]
func.func @shape_buffer(%in: memref<?x8xf32>, %out: memref<?x2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %n = memref.dim %in, %c0 : memref<?x8xf32>
  %shape = memref.alloc() : memref<3xindex>
  memref.store %n, %shape[%c0] : memref<3xindex>
  memref.store %c2, %shape[%c1] : memref<3xindex>
  memref.store %c4, %shape[%c2] : memref<3xindex>
  %view = memref.reshape %in(%shape) : (memref<?x8xf32>, memref<3xindex>) -> memref<?x2x4xf32>
  %rows = memref.load %shape[%c0] : memref<3xindex>
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%rows, %c2, %c4) step (%c1, %c1, %c1) {
    %x = memref.load %view[%i, %j, %k] : memref<?x2x4xf32>
    memref.store %x, %out[%i, %j, %k] : memref<?x2x4xf32>
    scf.reduce
  }
  return
}

// -----

// A host fill (gpu.memset, the engine's fill step) stays on the host, in its place, with
// its value; the copy after it becomes a launch.
// CHECK-LABEL: func.func @host_fill
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[BUFFER:.*]] = memref.alloc() : memref<1024xf32>
// CHECK-NEXT: gpu.memset %[[BUFFER]], %[[ZERO]] : memref<1024xf32>, f32
// CHECK: gpu.launch
// CHECK-NOT: gpu.memset
func.func @host_fill(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %b = memref.alloc() : memref<1024xf32>
  gpu.memset %b, %zero : memref<1024xf32>, f32
  memref.copy %b, %y : memref<1024xf32> to memref<1024xf32>
  return
}

// -----

// A nest of CTAs (gpu-tile-transposes' form, written by hand): 100 CTAs of 16 x 4
// threads, each phase its body at the thread's ids, the workgroup alloca the launch's
// shared memory. 100 CTAs fit on grid x: no guard.
// CHECK-LABEL: func.func @ctas
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c100{{.*}}, {{.*}} = %c1{{.*}}, {{.*}}) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in ({{.*}} = %c16{{.*}}, {{.*}} = %c4{{.*}}, {{.*}} = %c1{{.*}}) {{.*}} workgroup(%[[SHARED:.*]] : memref<4x16xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: scf.if
// CHECK:   %[[V:.*]] = memref.load %arg0[%{{.*}}, %[[TY]], %[[TX]]]
// CHECK:   memref.store %[[V]], %[[SHARED]][%[[TY]], %[[TX]]]
// CHECK:   gpu.barrier
// CHECK:   %[[W:.*]] = memref.load %[[SHARED]][%[[TY]], %[[TX]]]
// CHECK:   memref.store %[[W]], %arg1[%{{.*}}, %[[TY]], %[[TX]]]
// CHECK-NOT: scf.parallel
func.func @ctas(%in: memref<100x4x16xf32>, %out: memref<100x4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c100 = arith.constant 100 : index
  scf.parallel (%cta) = (%c0) to (%c100) step (%c1) {
    %tile = memref.alloca() : memref<4x16xf32, #gpu.address_space<workgroup>>
    scf.parallel (%y, %x) = (%c0, %c0) to (%c4, %c16) step (%c1, %c1) {
      %v = memref.load %in[%cta, %y, %x] : memref<100x4x16xf32>
      memref.store %v, %tile[%y, %x] : memref<4x16xf32, #gpu.address_space<workgroup>>
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>,
                  #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    gpu.barrier
    scf.parallel (%y, %x) = (%c0, %c0) to (%c4, %c16) step (%c1, %c1) {
      %v = memref.load %tile[%y, %x] : memref<4x16xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%cta, %y, %x] : memref<100x4x16xf32>
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>,
                  #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// The phases of a CTA must agree on its shape (one launch, one block).
func.func @ctas_of_two_shapes(%out: memref<100x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%cta) = (%c0) to (%c100) step (%c1) {
    scf.parallel (%x) = (%c0) to (%c64) step (%c1) {
      memref.store %zero, %out[%cta, %x] : memref<100x64xf32>
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    gpu.barrier
    // expected-error @below {{the thread loops of a CTA differ in shape}}
    scf.parallel (%x) = (%c0) to (%c32) step (%c1) {
      memref.store %zero, %out[%cta, %x] : memref<100x64xf32>
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// A loop in a CTA that is not mapped to threads has no thread to run it.
func.func @ctas_unmapped(%out: memref<100x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%cta) = (%c0) to (%c100) step (%c1) {
    // expected-error @below {{a loop in a CTA must be mapped to threads}}
    scf.parallel (%x) = (%c0) to (%c64) step (%c1) {
      memref.store %zero, %out[%cta, %x] : memref<100x64xf32>
      scf.reduce
    }
    scf.reduce
  } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}
